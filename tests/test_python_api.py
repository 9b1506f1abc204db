import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tcplab
from tcplab import Scenario, ScenarioError
from tcplab.results import TABLES

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def small(loss=0.0, duration=10, **flow):
    return (
        Scenario(duration=duration, sample_interval=0.5)
        .dumbbell(
            pairs=2,
            bottleneck=dict(rate="10Mbps", delay="20ms", queue=50, loss=loss),
            access=dict(rate="100Mbps", delay="1ms"),
        )
        .flow(src="s{i}", dst="d{i}", count=2, **flow)
    )


def test_builder_and_toml_give_the_same_normalised_spec(tmp_path):
    s = small(cc="reno", tcp=dict(delayed_ack=True, mss=1400))
    path = tmp_path / "s.toml"
    path.write_text(s.to_toml())
    assert tcplab.normalise(tcplab.load_scenario(path)) == s.normalised()
    assert s.normalised()["flows"][0]["tcp"]["mss"] == 1400


def test_builder_matches_a_hand_written_toml_file(tmp_path):
    s = (
        Scenario(duration="20s", sample_interval="100ms", seed=4)
        .node("a")
        .node("r", kind="router")
        .node("b")
        .link("a", "r", rate="100Mbps", delay="1ms", queue=1000)
        .link("r", "b", rate="10Mbps", delay="20ms", queue=50, loss_ab=0.01)
        .flow(src="a", dst="b", cc="newreno", switch=[{"at": "10s", "cc": "westwood_be"}], tcp=dict(delayed_ack=True))
        .flow(src="a", dst="b", transport="udp", packet=1000, rate="1Mbps")
        .generator("closed", src="a", dst="b", size={"dist": "constant", "value": 50}, name="web")
    )
    path = tmp_path / "h.toml"
    path.write_text(
        """
[sim]
duration = "20s"
sample_interval = "100ms"
seed = 4

[[nodes]]
name = "a"
kind = "host"
[[nodes]]
name = "r"
kind = "router"
[[nodes]]
name = "b"
kind = "host"

[[links]]
a = "a"
b = "r"
rate = "100Mbps"
delay = "1ms"
queue = 1000
[[links]]
a = "r"
b = "b"
rate = "10Mbps"
delay = "20ms"
queue = 50
loss_ab = 0.01

[[flows]]
src = "a"
dst = "b"
cc = "newreno"
switch = [{ at = "10s", cc = "westwood_be" }]
tcp = { delayed_ack = true }
[[flows]]
src = "a"
dst = "b"
transport = "udp"
packet = 1000
rate = "1Mbps"

[[generators]]
kind = "closed"
src = "a"
dst = "b"
size = { dist = "constant", value = 50 }
name = "web"
"""
    )
    assert tcplab.load_scenario(path) == s.to_dict()
    assert tcplab.normalise(path) == s.normalised()
    (tmp_path / "again.toml").write_text(s.to_toml())
    assert tcplab.load_scenario(tmp_path / "again.toml") == s.to_dict()


def test_example_files_are_valid():
    for f in sorted(EXAMPLES.glob("*.toml")):
        spec = tcplab.normalise(f)
        assert spec["flows"], f


def test_results_are_dataframes_with_documented_columns():
    r = tcplab.run(small(), seed=1)
    for name in ("flows", "links", "flow_ts", "link_ts", "events"):
        assert isinstance(getattr(r, name), pd.DataFrame)
    for col in ("goodput_bps", "retransmits", "timeouts", "completion_time", "delivered_segments"):
        assert col in r.flows.columns
    assert set(r.flow_ts["flow"]) == {0, 1}
    assert r.summary["spec"]["flows"][0]["tcp"]["min_rto"] == 0.2, "effective defaults are recorded"
    links = r.links
    assert (links["arrivals"] == links["departures"] + links["drops_queue"] + links["drops_loss"] + links["in_system"]).all()


def test_flow_ts_delivered_counts_in_order_segments_up_to_the_flows_total():
    r = tcplab.run(small(), seed=1)
    ts = r.flow_ts
    assert ts["delivered"].dtype.kind in "iu"
    for flow, x in ts.groupby("flow"):
        d = x.sort_values("time")["delivered"].to_numpy()
        assert (np.diff(d.astype(np.int64)) >= 0).all(), "cumulative"
        assert 0 < d[-1] <= r.flows.set_index("flow").loc[flow, "delivered_segments"]


@pytest.mark.parametrize(
    "mutate, field",
    [
        (lambda d: d["flows"][0].update(cc="nosuch"), "flows[0].cc"),
        (lambda d: d["dumbbell"]["bottleneck"].update(rate=-1), "dumbbell.bottleneck.rate"),
        (lambda d: d["dumbbell"]["bottleneck"].update(queue=0), "dumbbell.bottleneck.queue"),
        (lambda d: d["flows"][0].update(colour="red"), "flows[0]"),
        (lambda d: d["flows"][0].update(tcp={"mss": 0}), "flows[0].tcp.mss"),
        (lambda d: d["sim"].update(duration="ten seconds"), "sim.duration"),
        (lambda d: d["flows"][0].update(dst="nowhere"), "flows[0].dst"),
    ],
)
def test_bad_specs_raise_scenario_error_naming_the_field(mutate, field):
    d = small().to_dict()
    mutate(d)
    with pytest.raises(ScenarioError) as e:
        tcplab.run(d)
    assert str(e.value).startswith(field), str(e.value)


def test_flow_without_route_is_rejected():
    d = (
        Scenario(duration=5)
        .node("a")
        .node("b")
        .node("c")
        .link("a", "b", rate="1Mbps", delay="1ms")
        .flow(src="a", dst="c")
        .to_dict()
    )
    with pytest.raises(ScenarioError, match=r'^flows\[0\]\.dst: no route from "a" to "c"'):
        tcplab.run(d)


def test_bad_toml_is_a_scenario_error_naming_file_and_line(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text("[sim]\nduration = 3\n[dumbbell\npairs = 2\n")
    with pytest.raises(ScenarioError) as e:
        tcplab.run(p)
    assert str(e.value).startswith(f"{p}, line 3, column 10: not valid TOML:"), str(e.value)
    p.write_text("[sim]\nduration = [1,\n")
    with pytest.raises(ScenarioError, match=r"line 3 \(end of file\): not valid TOML"):
        tcplab.load_scenario(p)


def test_core_returns_numpy_columns_and_a_summary_dict():
    from tcplab import _core

    out = _core.run(json.dumps(small(duration=2).to_dict()), 3)
    flows = out["flows"]
    assert flows["goodput_bps"].dtype == np.float64 and flows["segments_sent"].dtype == np.uint64
    assert isinstance(flows["name"], list) and flows["name"] == ["flow0", "flow1"]
    assert flows["final_cwnd"].flags.writeable
    assert len({len(v) for v in out["flow_ts"].values()}) == 1
    assert out["summary"]["seed"] == 3 and out["summary"]["spec"]["sim"]["duration"] == 2
    assert issubclass(_core.SimulationError, RuntimeError) and tcplab.SimulationError is _core.SimulationError
    assert tcplab.ScenarioError is _core.ScenarioError
    # The DataFrames hold counters as int64, so differences of counters can go negative.
    r = tcplab.run(small(duration=2), seed=3)
    assert r.flows["segments_sent"].dtype == np.int64 and r.flow_ts["flow"].dtype == np.int64


def test_wall_clock_limit_is_a_simulation_error():
    with pytest.raises(tcplab.SimulationError):
        tcplab.run(small(duration=100000), seed=1, wall_limit=0.05)


def test_scenario_error_is_a_value_error_and_bad_seed_is_rejected():
    assert issubclass(ScenarioError, ValueError)
    with pytest.raises(ScenarioError, match="seed"):
        tcplab.run(small(), seed=-3)


def test_same_seed_identical_results_and_different_seed_differs():
    a = tcplab.run(small(loss=0.01), seed=5)
    b = tcplab.run(small(loss=0.01), seed=5)
    for name in ("flows", "links", "flow_ts", "link_ts", "events"):
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name))
    c = tcplab.run(small(loss=0.01), seed=6)
    assert not a.flows["delivered_segments"].equals(c.flows["delivered_segments"])


def test_save_and_load_round_trip_and_replace_atomically(tmp_path):
    r = tcplab.run(small().pcap("r1", "r2"), seed=2)
    out = r.save(tmp_path / "res")
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["flows.parquet", "links.parquet", "flow_ts.parquet", "link_ts.parquet", "events.parquet", "summary.json",
         "r1-r2.pcap", ".tcplab-output.json"]
    )
    back = tcplab.Results.load(out)
    pd.testing.assert_frame_equal(back.flows, r.flows)
    assert back.summary == json.loads(json.dumps(r.summary))
    assert back.pcaps["r1-r2"][:4] == bytes.fromhex("4d3cb2a1")
    # Saving again replaces the directory; no temporary directories are left behind.
    r.save(tmp_path / "res")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]


def test_failed_save_leaves_nothing_behind(tmp_path, monkeypatch):
    r = tcplab.run(small(), seed=1)

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", boom)
    with pytest.raises(tcplab.OutputError, match="res: cannot write the results: disk full"):
        r.save(tmp_path / "res")
    assert list(tmp_path.iterdir()) == []


def test_nan_and_infinity_in_a_python_spec_name_the_field():
    for bad, shown in [(float("nan"), "nan"), (float("inf"), "inf"), (np.float64("-inf"), "-inf")]:
        with pytest.raises(ScenarioError, match=rf"^flows\[0\]\.tcp\.init_cwnd: {shown} is not allowed"):
            tcplab.run(small(tcp=dict(init_cwnd=bad)), seed=1)
    with pytest.raises(ScenarioError, match=r"^dumbbell\.bottleneck\.loss: nan is not allowed"):
        tcplab.normalise(small(loss=float("nan")))


def test_numpy_scalars_in_a_spec_and_as_seed_give_the_plain_results():
    plain = tcplab.run(small(duration=2, tcp=dict(init_cwnd=4, delayed_ack=True)), seed=7)
    spec = (Scenario(duration=np.float64(2), sample_interval=np.float32(0.5))
            .dumbbell(pairs=np.int64(2), bottleneck=dict(rate="10Mbps", delay="20ms", queue=np.int32(50), loss=np.float64(0)),
                      access=dict(rate="100Mbps", delay="1ms"))
            .flow(src="s{i}", dst="d{i}", count=np.uint8(2), tcp=dict(init_cwnd=np.int64(4), delayed_ack=np.bool_(True))))
    numpy = tcplab.run(spec, seed=np.int64(7))
    pd.testing.assert_frame_equal(numpy.flows, plain.flows)
    assert numpy.spec == plain.spec and numpy.seed == 7
    assert "init_cwnd = 4" in spec.to_toml()


def test_unsupported_values_and_keys_in_a_spec_name_the_field():
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.tcp\.mss: a value of type set is not supported"):
        tcplab.run(small(tcp=dict(mss={1400})), seed=1)
    spec = small().to_dict()
    spec["sim"][(3,)] = 1
    with pytest.raises(ScenarioError, match=r"^sim\.\(3,\): field names must be strings, not tuple"):
        tcplab.normalise(spec)


def test_a_sim_that_is_not_a_table_is_a_scenario_error_not_an_attribute_error():
    spec = small().to_dict()
    spec["sim"] = "x"
    with pytest.raises(ScenarioError, match="^sim: "):
        tcplab.run(spec)
    spec = small().to_dict()
    spec["sim"]["seed"] = "x"
    with pytest.raises(ScenarioError, match="^sim.seed: 'x' is not allowed"):
        tcplab.run(spec)


def test_results_spec_normalises_the_spec_input_when_the_summary_has_no_spec():
    r = tcplab.run(small(duration=1), seed=1)
    compact = dict(r.summary)
    del compact["spec"]
    compact["spec_input"] = small(duration=1).to_dict()
    other = tcplab.Results(**{**{k: getattr(r, k) for k in TABLES}, "summary": compact})
    assert other.spec == r.spec
    assert other.spec is other.spec  # normalised once


def test_scenarios_without_point_to_point_links_run_save_and_load(tmp_path):
    lan_only = {"sim": {"duration": 1}, "nodes": [{"name": "a"}, {"name": "b"}],
                "lans": [{"name": "l", "members": ["a", "b"], "rate": "10Mb/s"}],
                "flows": [{"src": "a", "dst": "b"}]}
    for i, spec in enumerate((lan_only, {"sim": {"duration": 1}, "nodes": [{"name": "a"}]})):
        r = tcplab.run(spec, seed=1)
        assert r.links.empty
        back = tcplab.Results.load(r.save(tmp_path / str(i)))
        assert back.links.empty and len(back.flows) == len(r.flows)


def test_algorithm_switch_and_registry():
    assert {"tahoe", "reno", "newreno", "westwood_be", "westwood_re", "westwood_crb"} <= set(tcplab.algorithms())
    r = tcplab.run(small(switch=[{"at": 5, "cc": "westwood_be"}]), seed=1)
    assert (r.flows["cc_final"] == "westwood_be").all()
    assert "be_bps" in r.flow_ts.columns
    late = r.flow_ts[r.flow_ts["time"] > 6]
    assert late["be_bps"].notna().all() and (late["be_bps"] > 0).all()


def test_goodput_matches_delivered_bytes():
    r = tcplab.run(small(duration=20), seed=1)
    f = r.flows
    np.testing.assert_allclose(f["goodput_bps"], f["delivered_bytes"] * 8 / 20.0)
    assert 8e6 < f["goodput_bps"].sum() <= 10e6


def test_progress_is_reported_and_an_exception_in_it_stops_the_run():
    spec = (tcplab.Scenario(duration=3000)
            .dumbbell(pairs=8, bottleneck=dict(rate="100Mbps", delay="10ms", queue=100),
                      access=dict(rate="1Gbps", delay="1ms", queue=1000))
            .flow(src="s{i}", dst="d{i}", count=8))
    seen = []

    class Enough(Exception):
        pass

    def progress(now, end, events):
        seen.append((now, end, events))
        if len(seen) == 2:
            raise Enough()

    with pytest.raises(Enough):
        tcplab.run(spec, progress=progress)
    assert len(seen) == 2
    (t1, end, e1), (t2, _, e2) = seen
    assert end == 3000.0 and 0 < t1 < t2 < end and 0 < e1 < e2


def test_progress_printed_on_stderr(capsys):
    # Progress is printed after a wall-clock second: the run must take longer than that.
    spec = (tcplab.Scenario(duration=1000)
            .dumbbell(pairs=8, bottleneck=dict(rate="100Mbps", delay="10ms", queue=100),
                      access=dict(rate="1Gbps", delay="1ms", queue=1000))
            .flow(src="s{i}", dst="d{i}", count=8))
    tcplab.run(spec, progress=True)
    err = capsys.readouterr().err
    assert "simulated" in err and "of 1000.0 s" in err


def test_a_panic_in_the_core_becomes_a_simulation_error():
    from tcplab import _core

    with pytest.raises(tcplab.SimulationError, match="panic in the simulator core: boom at t=3"):
        _core._panic_in_core("boom at t=3")
    # the interpreter and the extension still work afterwards
    assert "newreno" in _core.algorithms()


def lazy_and_eager(spec, seed=2):
    from tcplab.results import run

    return run(spec, seed=seed, lazy=True), run(spec, seed=seed)


def test_a_lazy_run_has_the_same_tables_and_saves_the_cores_files_as_they_are(tmp_path):
    lazy, eager = lazy_and_eager(small().pcap("r1", "r2"))
    parquet = {name: data for name, (data, _) in lazy._parquet.items()}
    out = lazy.save(tmp_path / "lazy")
    for name in ("flows", "links", "flow_ts", "link_ts", "events"):
        assert (out / f"{name}.parquet").read_bytes() == parquet[name]
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in eager.save(tmp_path / "eager").iterdir())
    assert (out / "summary.json").read_text() == json.dumps(lazy.summary, indent=2)
    assert (out / "r1-r2.pcap").read_bytes() == eager.pcaps["r1-r2"]
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(lazy, name), getattr(eager, name), check_dtype=True)
    for directory in (out, tmp_path / "eager"):
        for loaded in (tcplab.Results.load(directory), tcplab.Results.load(directory, lazy=True)):
            for name in ("flows", "links", "flow_ts", "link_ts", "events"):
                pd.testing.assert_frame_equal(getattr(loaded, name), getattr(eager, name), check_dtype=True)
            assert loaded.lans.empty and loaded.pcaps == eager.pcaps


def test_a_table_used_after_a_lazy_run_is_saved_as_changed(tmp_path):
    lazy, _ = lazy_and_eager(small())
    lazy.flows["note"] = "changed"
    lazy.links = lazy.links.iloc[:0]  # replaced before it was read
    back = tcplab.Results.load(lazy.save(tmp_path / "res"))
    assert (back.flows["note"] == "changed").all() and back.links.empty and len(back.links.columns) == 14
    pd.testing.assert_frame_equal(back.events, lazy.events)


def test_optional_tables_of_a_lazy_run_are_saved_when_they_have_rows(tmp_path):
    lan = {"sim": {"duration": 1}, "nodes": [{"name": "a"}, {"name": "b"}],
           "lans": [{"name": "l", "members": ["a", "b"], "rate": "10Mb/s"}],
           "flows": [{"src": "a", "dst": "b"}]}
    lazy, eager = lazy_and_eager(lan)
    names = sorted(p.name for p in lazy.save(tmp_path / "lazy").iterdir())
    assert "lans.parquet" in names and "generators.parquet" not in names
    assert names == sorted(p.name for p in eager.save(tmp_path / "eager").iterdir())
    pd.testing.assert_frame_equal(tcplab.Results.load(tmp_path / "lazy").lans, eager.lans, check_dtype=True)


def test_a_lazy_run_pickles_with_its_tables(tmp_path):
    import pickle

    lazy, eager = lazy_and_eager(small())
    back = pickle.loads(pickle.dumps(lazy))
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(back, name), getattr(eager, name))
    assert back.preview("flows") is None
    back.save(tmp_path / "res")
    assert len(tcplab.Results.load(tmp_path / "res").flows) == len(eager.flows)


def test_previews_need_a_lazy_run():
    from tcplab.results import run

    with pytest.raises(ValueError, match="lazy"):
        run(small(), previews={"flows": (3, None)})
    assert run(small(), lazy=True).preview("flows") is None
    r = run(small(), lazy=True, previews={"flows": (3, None)})
    p = r.preview("flows")
    assert p["limit"] == 3 and p["more"] == 0 and [row["flow"] for row in p["rows"]] == [0, 1]
    r = run(small(), lazy=True, previews={"flows": (1, None)})
    assert r.preview("flows")["more"] == 1 and [row["flow"] for row in r.preview("flows")["rows"]] == [0]
    assert r.preview("flows")["columns"] == list(r.flows.columns)
