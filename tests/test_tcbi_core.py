"""TCBI (Savorić/Karl/Wolisz; RFC 2140) and shared-medium LANs in the simulator core."""
import copy
import math

import numpy as np
import pandas as pd
import pytest

import tcplab

TCP = {"init_cwnd": 2, "init_ssthresh": 64, "rwnd": 128}


def scenario(controller="mv", prefix=24, loss=0.0, temporal=None, flows=None, duration=40.0):
    tcbi = {"controller": controller, "prefix": prefix}
    if temporal is not None:
        tcbi["temporal"] = temporal
    return {
        "sim": {"duration": duration, "sample_interval": 0.5},
        "nodes": [
            {"name": "tcbi", "address": "10.0.1.1", "tcbi": tcbi},
            {"name": "bs1", "address": "10.0.1.2"},
            {"name": "ra", "kind": "router", "address": "10.0.1.254"},
            {"name": "rb", "kind": "router", "address": "10.0.2.254"},
            {"name": "r1", "address": "10.0.2.1"},
            {"name": "r2", "address": "10.0.2.2"},
            {"name": "r3", "address": "10.0.2.3"},
            {"name": "br1"},
        ],
        "links": [
            {"a": "ra", "b": "rb", "rate": "100Mb/s", "delay": "10ms", "queue": 20},
            {"a": "rb", "b": "br1", "rate": "100Mb/s", "delay": "0.25ms", "queue": 20},
        ],
        "lans": [
            {"name": "lan1", "members": ["tcbi", "bs1", "ra"], "rate": "10Mb/s", "delay": 0.5e-6, "queue": 20},
            {"name": "lan2", "members": ["r1", "r2", "r3", "rb"], "rate": "10Mb/s", "delay": 0.5e-6,
             "queue": 20, "loss": loss},
        ],
        "flows": flows if flows is not None else [
            {"name": "S{i}", "src": "tcbi", "dst": "r{i}", "count": 3, "start": [0.0, 1.0, 2.0],
             "size": 3000, "tcp": TCP},
            {"name": "bg", "src": "bs1", "dst": "br1", "start": 0.5, "size": 2000},
        ],
    }


def fix_names(spec):
    # "{i}" runs 0..count-1; map S0..S2 to r1..r3
    f = spec["flows"][0]
    if "{i}" in f.get("dst", ""):
        spec["flows"][0:1] = [
            {"name": f"S{k + 1}", "src": "tcbi", "dst": f"r{k + 1}", "start": f["start"][k],
             "size": f["size"], "tcp": f["tcp"]}
            for k in range(f["count"])
        ]
    return spec


def run(spec, seed=1):
    return tcplab.run(fix_names(copy.deepcopy(spec)), seed=seed)


def peer_events(res, t, name):
    e = res.events
    return e[(np.isclose(e.time, t, atol=1e-12)) & (e.event == name)]


def test_mv_initial_window_is_the_mean_of_the_existing_windows():
    res = run(scenario("mv"))
    f = res.flows.set_index("name")
    assert f.loc["S1", "init_cwnd"] == 2.0 and f.loc["S1", "init_ssthresh"] == 64.0
    assert math.isnan(f.loc["S1", "init_srtt"])
    for name, t, n in [("S2", 1.0, 1), ("S3", 2.0, 2)]:
        peers = peer_events(res, t, "tcbi_peer_cwnd")
        assert len(peers) == n
        assert f.loc[name, "init_cwnd"] == pytest.approx(peers.value.mean(), abs=1e-9)
        assert f.loc[name, "init_cwnd"] > 2.0
        ss = peer_events(res, t, "tcbi_peer_ssthresh")
        assert f.loc[name, "init_ssthresh"] == pytest.approx(ss.value.mean(), abs=1e-9)
        assert f.loc[name, "init_srtt"] > 0 and f.loc[name, "init_rttvar"] > 0
        assert f.loc[name, "tcbi_source"] == "ensemble"
    # the time series agrees: S1's sampled cwnd just before S2's start is at most the
    # window it had then (slow start only grows within a loss-free second)
    ts = res.flow_ts
    s1 = int(f.loc["S1", "flow"])
    before = ts[(ts.flow == s1) & (ts.time <= 1.0)].cwnd.iloc[-1]
    assert before <= f.loc["S2", "init_cwnd"] + 1e-9


def test_fs_all_members_equal_after_a_start():
    res = run(scenario("fs"))
    f = res.flows.set_index("name")
    for name, t, n in [("S2", 1.0, 1), ("S3", 2.0, 2)]:
        peers = peer_events(res, t, "tcbi_peer_cwnd")
        assigned = peer_events(res, t, "tcbi_fs_cwnd")
        assert len(assigned) == n
        assert (assigned.value == f.loc[name, "init_cwnd"]).all()
        # Σcwnd over the set grew by exactly one standard initial window
        assert f.loc[name, "init_cwnd"] * (n + 1) == pytest.approx(peers.value.sum() + 2.0)
        ss = peer_events(res, t, "tcbi_peer_ssthresh")
        assert f.loc[name, "init_ssthresh"] * (n + 1) == pytest.approx(ss.value.sum() + 64.0)


def test_parallel_counts_sets_and_intervals():
    res = run(scenario("none"))
    f = res.flows.set_index("name")
    assert list(f.loc[["S1", "S2", "S3"], "tcbi_parallel"]) == [0, 1, 2]
    assert math.isnan(f.loc["bg", "tcbi_parallel"])
    assert set(f.loc[["S1", "S2", "S3"], "tcbi_set"]) == {"10.0.2.0/24"}
    assert f.loc["bg", "tcbi_set"] == "" and f.loc["bg", "tcbi_source"] == "none"
    assert (f.loc[["S1", "S2", "S3"], "init_cwnd"] == 2.0).all(), "controller none shares nothing"
    p = res.parallel_intervals
    assert isinstance(p, pd.DataFrame)
    assert list(p.columns)[:9] == ["host", "set", "interval", "t0", "t1", "n", "flow", "name", "acked_bytes"]
    first = p[p.interval == p.interval.min()]
    assert (first.t0 == 1.0).all() and (first.n == 2).all() and len(first) == 2
    assert (p.t1 > p.t0).all() and (p.n >= 2).all()
    assert (p.groupby("interval").size() == p.groupby("interval").n.first()).all()


def test_prefix_32_vs_24_changes_the_grouping():
    f24 = run(scenario("mv", prefix=24)).flows.set_index("name")
    f32 = run(scenario("mv", prefix=32)).flows.set_index("name")
    assert list(f24.loc[["S1", "S2", "S3"], "tcbi_parallel"]) == [0, 1, 2]
    assert list(f32.loc[["S1", "S2", "S3"], "tcbi_parallel"]) == [0, 0, 0]
    assert list(f32.loc[["S1", "S2", "S3"], "tcbi_set"]) == ["10.0.2.1/32", "10.0.2.2/32", "10.0.2.3/32"]
    assert (f32.loc[["S1", "S2", "S3"], "init_cwnd"] == 2.0).all()


def test_temporal_cache_hit_and_expiry():
    flows = [
        {"name": "a", "src": "tcbi", "dst": "r1", "start": 0.0, "size": 300, "tcp": TCP},
        {"name": "b", "src": "tcbi", "dst": "r2", "start": 10.0, "size": 300, "tcp": TCP},
        {"name": "c", "src": "tcbi", "dst": "r3", "start": 30.0, "size": 300, "tcp": TCP},
    ]
    res = run(scenario("mv", temporal={"lifetime": 15, "ageing": "none"}, flows=flows))
    f = res.flows.set_index("name")
    assert f.loc["a", "start"] + f.loc["a", "completion_time"] < 10
    assert f.loc["b", "start"] + f.loc["b", "completion_time"] < 15
    assert list(f.tcbi_source) == ["none", "temporal", "none"]
    assert list(f.tcbi_parallel) == [0, 0, 0]
    assert f.loc["b", "init_cwnd"] == f.loc["a", "final_cwnd"]
    assert f.loc["b", "init_srtt"] > 0
    assert f.loc["c", "init_cwnd"] == 2.0 and math.isnan(f.loc["c", "init_srtt"])
    # without temporal sharing nothing is reused
    off = run(scenario("mv", flows=flows)).flows
    assert list(off.tcbi_source) == ["none"] * 3 and (off.init_cwnd == 2.0).all()
    # linear ageing moves the window toward the standard one
    aged = run(scenario("mv", temporal={"lifetime": 15}, flows=flows)).flows.set_index("name")
    a_final = aged.loc["a", "final_cwnd"]
    assert 2.0 < aged.loc["b", "init_cwnd"] < a_final


@pytest.mark.parametrize("change, field", [
    (lambda s: s["nodes"][0]["tcbi"].update(controller="best"), "nodes[0].tcbi.controller"),
    (lambda s: s["nodes"][0]["tcbi"].update(prefix=33), "nodes[0].tcbi.prefix"),
    (lambda s: s["lans"][1]["members"].append("nowhere"), "lans[1].members[4]"),
    # the later of two equal addresses is the one reported
    (lambda s: s["nodes"][3].update(address="10.0.2.1"), "nodes[4].address"),
    (lambda s: s["nodes"][1].update(address="10.0.2"), "nodes[1].address"),
    (lambda s: s["nodes"][2].update(tcbi={"controller": "mv"}), "nodes[2].tcbi"),
])
def test_invalid_fields_are_named(change, field):
    spec = fix_names(scenario())
    change(spec)
    with pytest.raises(tcplab.ScenarioError) as e:
        tcplab.run(spec)
    assert str(e.value).startswith(field + ":"), str(e.value)


def test_every_byte_is_delivered_and_lan_counters_conserve():
    res = run(scenario("fs", loss=0.05))
    f = res.flows
    assert (f.delivered_segments == f["size"]).all()
    assert f.completion_time.notna().all()
    lans = res.lans
    assert len(lans) == 7
    assert (lans.arrivals == lans.departures + lans.drops_queue + lans.drops_loss + lans.in_system).all()
    assert lans[lans.lan == "lan2"].drops_loss.sum() > 0
    assert lans[lans.lan == "lan1"].drops_loss.sum() == 0
    links = res.links
    assert (links.arrivals == links.departures + links.drops_queue + links.drops_loss + links.in_system).all()


def test_default_addresses_are_documented_rule():
    # node i without an address gets 10.0.0.(i+1) (or the next free one)
    nodes = tcplab.normalise(fix_names(scenario()))["nodes"]
    assert nodes[7]["name"] == "br1" and nodes[7]["address"] == "10.0.0.8"


def test_same_seed_identical_tables():
    spec = scenario("mv", loss=0.05)
    a, b = run(spec, seed=4), run(spec, seed=4)
    pd.testing.assert_frame_equal(a.flows, b.flows)
    pd.testing.assert_frame_equal(a.parallel_intervals, b.parallel_intervals)
    pd.testing.assert_frame_equal(a.lans, b.lans)


def test_results_with_new_tables_save_and_load(tmp_path):
    res = run(scenario("mv"))
    res.save(tmp_path / "r")
    back = tcplab.Results.load(tmp_path / "r")
    pd.testing.assert_frame_equal(back.parallel_intervals, res.parallel_intervals)
    pd.testing.assert_frame_equal(back.lans, res.lans)
