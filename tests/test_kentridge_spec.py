"""The spec side of TCP KentRidge and link reordering: the Python builder's `kentridge` and
`reorder` arguments, reordering on codel/fq_codel directions and on changed links (refused
before issue 20, run now), and the memory estimate's share for KentRidge flows."""
from __future__ import annotations

import copy

import pytest
from pandas.testing import assert_frame_equal

import tcplab
from cli_support import main, one_line_error
from tcplab.scenario import to_toml


def chain(**link_options):
    """A sender, a router and a receiver; the second link may reorder."""
    return (tcplab.Scenario(duration=3, sample_interval=0.5)
            .node("a").node("r", kind="router").node("b")
            .link("a", "r", rate="100Mbps", delay="1ms", queue=1000)
            .link("r", "b", rate="10Mbps", delay="10ms", **{"queue": 100, **link_options}))


# ------------------------------------------------------------------ the builder

def test_the_builder_takes_kentridge_and_reordering_and_gives_what_the_toml_file_gives(tmp_path):
    s = (chain(reorder_ab=(0.01, "5ms"))
         .flow(src="a", dst="b", cc="reno", tcp={"timestamps": True}, kentridge={"interval": "500ms"}))
    d = s.to_dict()
    assert d["links"][1]["reorder_ab"] == {"prob": 0.01, "delay": "5ms"}
    assert d["flows"][0]["kentridge"] == {"interval": "500ms"}
    path = tmp_path / "kr.toml"
    path.write_text(s.to_toml())
    from_file = tcplab.run(str(path), seed=2)
    built = tcplab.run(s, seed=2)
    for name in ("flows", "links", "flow_ts", "events"):
        assert_frame_equal(getattr(built, name), getattr(from_file, name), check_exact=True, obj=name)
    assert "pipe_type" in built.flow_ts and "reordered" in built.links
    assert built.links["reordered"].iloc[2] > 0  # r -> b held packets back


def test_kentridge_true_is_the_defaults_and_a_reorder_table_or_pair_is_both_directions():
    s = chain(reorder={"prob": 0.2, "delay": 0.001}).flow(src="a", dst="b", kentridge=True)
    n = s.normalised()
    assert n["flows"][0]["kentridge"]["interval"] == 1.0
    assert n["links"][1]["reorder_ab"] == n["links"][1]["reorder_ba"] == {"prob": 0.2, "delay": 0.001}
    pair = chain(reorder=(0.2, 0.001)).flow(src="a", dst="b", kentridge=True)
    assert pair.to_dict() == s.to_dict()
    off = chain().flow(src="a", dst="b", kentridge=False).flow(src="a", dst="b", kentridge=None)
    assert all("kentridge" not in f for f in off.to_dict()["flows"])
    # the table given is copied: changing it later does not change the scenario
    table = {"thresholds": {"frequent": 5}}
    s = chain().flow(src="a", dst="b", kentridge=table)
    table["thresholds"]["frequent"] = 0
    assert s.to_dict()["flows"][0]["kentridge"] == {"thresholds": {"frequent": 5}}


@pytest.mark.parametrize("call, message", [
    (lambda s: s.link("r", "b", rate="1Mbps", delay="1ms", reorder=0.1),
     "links[2].reorder: 0.1 is not allowed; allowed: a table {\"prob\": p, \"delay\": t} or a pair (p, t)"),
    (lambda s: s.link("r", "b", rate="1Mbps", delay="1ms", reorder_ba=(0.1, 1, 2)),
     "links[2].reorder_ba: (0.1, 1, 2) is not allowed; allowed:"),
    (lambda s: s.flow(src="a", dst="b").flow(src="a", dst="b", kentridge="yes"),
     "flows[1].kentridge: 'yes' is not allowed; allowed: a table"),
])
def test_a_builder_argument_that_is_not_allowed_is_one_line_naming_the_field(call, message):
    with pytest.raises(tcplab.ScenarioError) as e:
        call(chain())
    assert str(e.value).startswith(message) and "\n" not in str(e.value)


def test_values_the_core_refuses_are_refused_as_for_a_file():
    s = chain(reorder=(1.5, "5ms")).flow(src="a", dst="b")
    with pytest.raises(tcplab.ScenarioError, match=r"^links\[1\]\.reorder\.prob: 1.5 is not allowed; must be in \(0, 1\)$"):
        s.normalised()


# ------------------------------------------------------------------ refusals, as the CLI shows them

def refused(capsys, tmp_path, spec) -> str:
    path = tmp_path / "s.toml"
    path.write_text(to_toml(spec))
    out = tmp_path / "out"
    status, stdout, err = main(capsys, "run", path, "--out", out)
    assert status == 2, (stdout, err)
    assert one_line_error(err), err
    assert "panicked" not in err and not out.exists()
    return err[len("error: "):].rstrip("\n")


@pytest.mark.parametrize("queue, given", [
    ({"type": "codel"}, {"reorder": {"prob": 0.1, "delay": 0.005}}),
    ({"type": "fq_codel"}, {"reorder_ab": {"prob": 0.1, "delay": 0.005}}),
])
def test_reordering_on_a_codel_or_fq_codel_queue_runs(capsys, tmp_path, queue, given):
    # refused before issue 20: the scheduled queue holds packets back when it hands them to the wire
    spec = chain(queue=queue, **given).flow(src="a", dst="b").to_dict()
    path = tmp_path / "s.toml"
    path.write_text(to_toml(spec))
    status, stdout, err = main(capsys, "run", path, "--out", tmp_path / "out")
    assert status == 0, (stdout, err)
    r = tcplab.run(spec, seed=1)
    held, departures = r.links["reordered"], r.links["departures"]
    assert abs(held.iloc[2] / departures.iloc[2] - 0.1) < 0.03  # r -> b: the data
    if "reorder" in given:
        assert held.iloc[3] > 0  # b -> r, the ACKs, on the other direction's codel too
    else:
        assert held.iloc[3] == 0
    assert held.iloc[0] == held.iloc[1] == 0
    assert_frame_equal(r.links, tcplab.run(spec, seed=1).links)


def test_a_bad_reordering_model_on_a_codel_queue_is_still_one_line(capsys, tmp_path):
    spec = chain(queue={"type": "codel"}, reorder={"prob": 0, "delay": 0.005}).flow(src="a", dst="b").to_dict()
    assert refused(capsys, tmp_path, spec) == "links[1].reorder.prob: 0 is not allowed; must be in (0, 1)"


def test_reordering_on_the_other_direction_of_a_codel_link_runs():
    spec = chain(queue_ab={"type": "codel"}, reorder_ba=(0.1, "2ms")).flow(src="a", dst="b").to_dict()
    r = tcplab.run(spec, seed=1)
    assert r.links["reordered"].iloc[3] > 0  # b -> r: the ACKs
    assert r.links["reordered"].iloc[2] == 0


@pytest.mark.parametrize("queue", [100, {"type": "codel"}])
def test_changes_of_a_reordering_link_run(queue):
    # refused before issue 20: a delay change, a rate change and an outage of a link holding
    # packets back in both directions
    spec = (chain(queue=queue, reorder=(0.1, "2ms")).flow(src="a", dst="b")
            .link_change("r-b", at=1, delay="20ms").link_change("r-b", at=1.5, rate="5Mbps")
            .link_change("r-b", at=2, state="down", queued="keep").link_change("r-b", at=2.2, state="up")
            .to_dict())
    r = tcplab.run(spec, seed=1)
    links = r.links
    assert (links["reordered"].iloc[2:] > 0).all() and (links["reordered"].iloc[:2] == 0).all()
    lost = links["drops_queue"] + links["drops_loss"] + links["drops_down"]
    assert (links["arrivals"] == links["departures"] + lost + links["in_system"]).all()
    assert set(r.events["event"]) >= {"link_delay", "link_rate", "link_down", "link_up"}
    assert_frame_equal(links, tcplab.run(spec, seed=1).links)


# ------------------------------------------------------------------ memory

def kentridge_flows(count, kentridge):
    s = tcplab.Scenario(duration=100, sample_interval=1).node("a").node("b")
    s.link("a", "b", rate="10Mbps", delay="10ms")
    return s.flow(src="a", dst="b", count=count, tcp={"timestamps": True}, kentridge=kentridge).to_dict()


def test_the_memory_estimate_counts_kentridge_and_refuses_a_run_that_only_its_state_makes_too_large(capsys, tmp_path):
    plain = kentridge_flows(2000, None)
    plain["sim"]["memory_limit"] = "1GiB"
    tcplab.normalise(plain)  # fits
    with_kr = copy.deepcopy(plain)
    for f in with_kr["flows"]:
        f["kentridge"] = {"interval": "100ms"}
    msg = refused(capsys, tmp_path, with_kr)
    assert msg.startswith("sim.memory_limit: this run needs an estimated ")
    assert "KentRidge " in msg and "more than the limit of 1.0 GiB" in msg
    # the same flows classified every 10 s need far less: they fit
    for f in with_kr["flows"]:
        f["kentridge"] = {"interval": "10s"}
    tcplab.normalise(with_kr)
