"""tcplab.Simulation: a run in steps, its live connections, manual switches."""
import copy
import math
from pathlib import Path

import pytest
from pandas.testing import assert_frame_equal

import tcplab
from tcplab.results import TABLES
from tcplab.scenario import load_scenario, normalise
from tcplab.simulation import CONNECTION_COLUMNS

ROOT = Path(__file__).resolve().parent.parent


def dumbbell(duration=12):
    spec = load_scenario(ROOT / "examples" / "dumbbell.toml")
    spec["sim"]["duration"] = duration
    return spec


def assert_same_results(a, b, tables=TABLES):
    for name in tables:
        assert_frame_equal(getattr(a, name), getattr(b, name), check_exact=True, obj=name)


def test_running_in_steps_to_the_end_gives_the_tables_of_one_run():
    spec = dumbbell()
    spec["pcap"] = [{"a": "r1", "b": "r2"}]
    whole = tcplab.run(spec, seed=7)
    sim = tcplab.Simulation(spec, seed=7)
    for t in (0.25, 0.25, 1, 3.3333, 3.3334, 7.9, 11.999):
        assert sim.run(t) == t
        assert sim.now == t
    stepped = sim.finish()
    assert_same_results(whole, stepped)
    assert whole.pcaps == stepped.pcaps and len(whole.pcaps["r1-r2"]) > 10_000
    assert whole.summary["events"] == stepped.summary["events"] == sim.events
    assert whole.summary["spec"] == stepped.summary["spec"]
    assert sim.finish() is stepped


def test_step_and_run_to_the_duration_then_finish():
    spec = dumbbell(4)
    sim = tcplab.Simulation(spec, seed=2)
    assert sim.step(1.5) == 1.5
    assert sim.step(10) == 4.0  # clamped to the end
    assert sim.run() == 4.0
    assert_same_results(tcplab.run(spec, seed=2), sim.finish())


def test_a_manual_switch_gives_the_results_of_a_scheduled_switch_and_is_recorded():
    spec = dumbbell()
    scheduled = copy.deepcopy(spec)
    scheduled["flows"][1]["switch"] = [{"at": "4.5s", "cc": "cubic"}]
    expected = tcplab.run(scheduled, seed=5)
    sim = tcplab.Simulation(spec, seed=5)
    sim.run(4.5)
    assert sim.switch("lossy", "cubic") == "cubic"
    got = sim.finish()
    assert_same_results(expected, got, ("flows", "links", "flow_ts", "link_ts"))
    assert list(got.flows.set_index("name").loc[["clean0", "lossy"], "cc_final"]) == ["newreno", "cubic"]
    ev = got.events
    manual = ev[ev["event"] == "manual_switch:cubic"]
    assert len(manual) == 1
    lossy = int(got.flows.set_index("name").loc["lossy", "flow"])
    assert (manual["time"].iloc[0], manual["flow"].iloc[0]) == (4.5, lossy)
    # cwnd at the switch, as the time series saw it just before
    assert manual["value"].iloc[0] > 1
    rest = ev[ev["event"] != "manual_switch:cubic"].reset_index(drop=True)
    assert_frame_equal(rest, expected.events)
    assert sim.switches == [(4.5, lossy, "lossy", "cubic")]


def test_connections_show_four_tuples_algorithms_statistics_and_an_unclassified_pipe():
    spec = dumbbell()
    sim = tcplab.Simulation(spec, seed=1)
    before = sim.connections()
    assert tuple(before.columns) == CONNECTION_COLUMNS
    assert set(before["state"]) == {"not_started"} or set(before["state"]) <= {"not_started", "established"}
    sim.run(3)
    c = sim.connections()
    assert list(c["name"]) == ["clean0", "clean1", "clean2", "lossy"]
    assert set(c["algorithm"]) == {"newreno"} and set(c["pipe"]) == {"unclassified"}
    assert set(c["state"]) == {"established"}
    addresses = {n["name"]: n["address"] for n in normalise(spec)["nodes"]}
    row = c.iloc[3]
    assert (row["src"], row["sport"], row["dst"], row["dport"]) == (addresses["x0"], 1024 + 3, addresses["d3"], 5001)
    assert (c["cwnd"] >= 1).all() and (c["delivered"] > 50).all() and (c["srtt"] > 0.04).all()
    assert (c["min_rtt"] <= c["srtt"] + c["rttvar"] * 4).all()
    tuple_ = f"{row['src']}:{row['sport']}-{row['dst']}:{row['dport']}"
    assert sim.connection(tuple_)["name"] == "lossy"
    assert sim.switch(tuple_, "westwood_crb") == "westwood_crb"
    assert sim.connection("lossy")["algorithm"] == "westwood_crb"
    sim.run(6)
    assert sim.connections()["retransmits"].iloc[3] > 0


def test_bad_input_is_one_line_naming_the_field_and_the_run_goes_on():
    sim = tcplab.Simulation(dumbbell(), seed=1)
    sim.run(2)
    cases = [
        (lambda: sim.switch("nosuch", "cubic"), "connection: \"nosuch\" matches no live TCP connection; allowed:"),
        (lambda: sim.switch("10.0.0.1:1-10.0.0.2:2", "cubic"), "connection: \"10.0.0.1:1-10.0.0.2:2\" matches no"),
        (lambda: sim.switch("clean0", "cubic2"), "algorithm: unknown congestion-control algorithm \"cubic2\"; allowed: tahoe"),
        (lambda: sim.switch("clean0", "python:nosuchmodule:X"), "algorithm: plug-in \"python:nosuchmodule:X\": cannot load"),
        (lambda: sim.run(1), "until: 1 s is not allowed; must be between the current time 2 s and the run's duration 12 s"),
        (lambda: sim.run(12.5), "until: 12.5 s is not allowed"),
        (lambda: sim.run(math.nan), "until: NaN s is not allowed"),
        (lambda: sim.run("5"), "until: '5' is not allowed; must be a number of seconds"),
        (lambda: sim.step(-1), "dt: -1 is not allowed"),
    ]
    for call, start in cases:
        with pytest.raises(tcplab.ScenarioError) as e:
            call()
        assert str(e.value).startswith(start), str(e.value)
        assert "\n" not in str(e.value)
    assert sim.now == 2
    assert sim.run(3) == 3
    assert sim.connection("clean0")["algorithm"] == "newreno"


def test_save_uses_the_safe_writer_and_a_finished_run_refuses_to_go_on(tmp_path):
    spec = dumbbell(3)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    sim = tcplab.Simulation(spec, seed=4)
    sim.run(1)
    with pytest.raises(tcplab.OutputRefused):
        sim.save(theirs)
    assert sorted(p.name for p in theirs.iterdir()) == ["notes.txt"]
    assert not sim.finished and sim.now == 1  # refused before running on
    out = sim.save(tmp_path / "out")
    assert (out / ".tcplab-output.json").exists() and (out / "flows.parquet").exists()
    assert_same_results(tcplab.Results.load(out), tcplab.run(spec, seed=4), TABLES[:5])
    with pytest.raises(tcplab.ScenarioError, match="the simulation is finished"):
        sim.run(2)
    with pytest.raises(tcplab.ScenarioError, match="the simulation is finished"):
        sim.switch("clean0", "cubic")
    assert sim.now == 3


def test_an_invalid_spec_or_seed_is_refused_when_the_simulation_is_made():
    spec = dumbbell()
    spec["flows"][0]["cc"] = "cubic2"
    with pytest.raises(tcplab.ScenarioError, match=r"^flows\[0\]\.cc: unknown congestion-control algorithm"):
        tcplab.Simulation(spec)
    with pytest.raises(tcplab.ScenarioError, match=r"^seed: -1 is not allowed"):
        tcplab.Simulation(dumbbell(), seed=-1)


def test_the_pipe_column_is_the_classifiers_latest_type():
    spec = load_scenario(ROOT / "examples" / "kentridge.toml")
    sim = tcplab.Simulation(spec, seed=1)
    sim.run(5.2)
    conns = sim.connections().set_index("name")
    events = sim.finish().events
    for name in ("to_lfn", "to_lossy"):
        f = conns.loc[name, "flow"]
        kr = events[(events["flow"] == f) & (events["event"] == "pipe_type") & (events["time"] <= 5.2)]
        assert len(kr) > 0, name
        pipe = conns.loc[name, "pipe"]
        assert pipe != "unclassified" and kr["detail"].iloc[-1].startswith(pipe + " "), (name, pipe, kr)
