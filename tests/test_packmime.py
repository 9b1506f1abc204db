"""PackMime-HTTP web traffic (the `packmime` generator kind, tcplab.web).

The comparison with ns-2.35's PackMime-HTTP (tests/packmime_ns2_report.py) at a small
size, and the helpers' behaviour. The model's distributions themselves are unit-tested
against hand-computed values in crates/tcplab-core/src/traffic/packmime/tests.rs.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import tcplab
from tcplab.web import ACCESS_DELAY, cloud, request_log, thesis_web_background

sys.path.insert(0, str(Path(__file__).parent))
import packmime_ns2_report as report  # noqa: E402

needs_ns2 = pytest.mark.skipif(not report.ns2_available(), reason="ns (ns-2.35) is not installed")

CONNECTIONS = 2000


@pytest.fixture(scope="module")
def comparisons():
    return {rate: report.compare(rate, CONNECTIONS, seed=1) for rate in report.RATES}


@needs_ns2
@pytest.mark.parametrize("rate", report.RATES)
def test_distributions_agree_with_ns2_packmime(comparisons, rate):
    """Request sizes (per request and per connection), response sizes, connection gaps and
    requests per connection: the two-sample KS distance to ns-2's is within the bound
    `ks_bound` states (the α = 0.001 critical value, widened by what long-range dependence
    and the model's runs and repeats do to two samples)."""
    c = comparisons[rate]
    for key, label in report.VARIABLES:
        row = c["rows"][key]
        assert row["ks"] <= row["bound"], f"{rate}/s {label}: KS {row['ks']:.4f} > {row['bound']:.4f}"


@needs_ns2
@pytest.mark.parametrize("rate", report.RATES)
def test_requests_per_connection_match_the_ns2_run(comparisons, rate):
    """The mean number of requests per connection of ns-2's own run (requests logged /
    connections it opened) against tcplab's, within four standard errors."""
    c = comparisons[rate]
    ours, theirs = c["ours"], c["theirs"]
    var = np.var(ours["per_connection"])
    se = np.sqrt(var / ours["connections"] + var / theirs["connections"])
    assert abs(ours["mean_per_connection"] - theirs["mean_per_connection"]) <= 4 * se, (ours["mean_per_connection"],
                                                                                      theirs["mean_per_connection"])
    # The model's 1.1975 (0.91 + 0.09 x 3.1947, worked out in the unit tests).
    assert abs(ours["mean_per_connection"] - 1.1975) <= 4 * np.sqrt(var / ours["connections"])


@needs_ns2
def test_long_range_dependence_shows_at_low_rates_and_iid_draws_remove_it(comparisons):
    """At 15 connections/s the model's driver gives the gaps a lag-1 correlation of 0.16
    (unit test); with `lrd = false` there is none. ns-2's gaps have it too."""
    theirs, ours, iid = comparisons[15.0]["lrd"]["gap"]
    assert theirs > 0.07 and ours > 0.07, (theirs, ours)
    assert abs(iid) < 0.07, iid


def two_clouds(rate=30.0, duration=20.0, **gen):
    n1, l1 = cloud("a", "R1", 3, seed=4)
    n2, l2 = cloud("b", "R2", 2, seed=4)
    return {
        "sim": {"duration": duration},
        "nodes": [{"name": "R1"}, {"name": "R2"}] + n1 + n2,
        "links": [{"a": "R1", "b": "R2", "rate": "100Mbps", "delay": "20ms", "queue": 1000}] + l1 + l2,
        "generators": [{"name": "web", "kind": "packmime", "rate": rate, "servers": [n["name"] for n in n1],
                        "clients": [n["name"] for n in n2], "log_requests": True, "record": "summary",
                        "stop": duration - 5, "tcp": {"mss": 1460}, **gen}],
    }


def test_cloud_access_delays_are_uniform_in_5_25_ms_and_fixed_by_the_seed():
    nodes, links = cloud("c", "R", 400, seed=7)
    delays = np.array([l["delay"] for l in links])
    assert [n["name"] for n in nodes][:2] == ["c0", "c1"] and all(l["b"] == "R" for l in links)
    assert delays.min() >= ACCESS_DELAY[0] and delays.max() <= ACCESS_DELAY[1]
    # Uniform: mean 15 ms, standard deviation 20/sqrt(12) = 5.77 ms (4 standard errors).
    assert abs(delays.mean() - 0.015) <= 4 * 0.00577 / np.sqrt(400)
    assert cloud("c", "R", 400, seed=7) == (nodes, links)
    assert cloud("c", "R", 400, seed=8)[1] != links
    assert cloud("d", "R", 400, seed=7)[1][0]["delay"] != links[0]["delay"]


def test_request_log_matches_the_generators_table():
    r = tcplab.run(two_clouds(), seed=3)
    log = request_log(r)
    g = r.generators.iloc[0]
    assert len(log) == g["web_requests"] > 0
    done = log.dropna(subset=["response_time"])
    assert len(done) == g["web_responses"]
    assert done["request_bytes"].sum() == g["web_request_bytes"]
    assert done["response_bytes"].sum() == g["web_response_bytes"]
    assert np.isclose(done["response_time"].mean(), g["web_response_time_mean"])
    assert log["connection"].nunique() == g["web_connections"]
    # Each response takes at least a round trip over the bottleneck (40 ms) and the two
    # access links (at least 2 x 2 x 5 ms).
    assert done["response_time"].min() >= 0.06
    # Percentiles within the bins' 1.2 %.
    assert abs(g["web_response_time_p50"] / done["response_time"].median() - 1) <= 0.03


def test_the_forward_web_background_sends_its_responses_from_r1_to_r2():
    spec = thesis_web_background(duration=4, forward_rate=200, reverse_rate=0, hosts=3)
    assert [g["name"] for g in spec["generators"]] == ["web_fwd"]
    # 0.5 BDP of 1 Gb/s x 2 x 50 ms in 1500-byte packets: 4167.
    assert spec["links"][0]["queue"] == 4167
    r = tcplab.run(spec, seed=1)
    links = r.links.set_index(["src", "dst"])
    fwd = links.loc[("R1", "R2")]
    rev = links.loc[("R2", "R1")]
    # Data one way, mostly 40-byte ACKs the other: the busy time tells bytes apart.
    assert fwd["busy_time"] > 5 * rev["busy_time"] > 0
    assert r.generators.iloc[0]["web_response_bytes"] > 10 * r.generators.iloc[0]["web_request_bytes"]


def test_iid_draws_and_http_1_0_are_options():
    r = tcplab.run(two_clouds(persistent=0, lrd=False), seed=3)
    log = request_log(r)
    assert log.groupby("connection").size().max() == 1
    with pytest.raises(tcplab.ScenarioError, match=r"generators\[0\]\.persistent"):
        tcplab.run(two_clouds(persistent=2), seed=1)


def test_summary_generators_flows_stay_out_of_the_time_series():
    # record = "summary" keeps only the generator's totals: its (here tens of thousands of)
    # transfers get no time-series rows, the flows under test and the links do
    spec = thesis_web_background(duration=4.0, forward_rate=400.0, reverse_rate=100.0, capacity=1e8)
    spec["sim"]["sample_interval"] = 0.5
    spec["flows"] = [{"src": "a0", "dst": "b0", "tcp": {"mss": 1460}}]
    r = tcplab.run(spec, seed=2)
    assert r.generators["created"].sum() > 1000
    test_flow = r.flows["flow"].iloc[0]
    assert set(r.flow_ts["flow"]) == {test_flow}
    assert len(r.flow_ts) == 9 and len(r.link_ts) > 0  # samples at 0, 0.5, ..., 4 s
