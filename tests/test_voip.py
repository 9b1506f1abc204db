"""VoIP calls, on/off CBR background and legacy FTP (issue 18's chapter-3 background): end to
end on a 10 Mb/s, 20 ms dumbbell, checked against hand-computed delays, the bottleneck's own
queue statistics and drop trace, and the on/off periods."""
import math

import numpy as np
import pytest

import tcplab
from tcplab import Scenario, ScenarioError
from tcplab.metrics import datagram_delay

RATE, DELAY, ACCESS_RATE, ACCESS_DELAY = 10e6, 0.020, 100e6, 0.001


def dumbbell(duration, pairs=2, queue=100):
    s = Scenario(duration=duration, sample_interval=0.1).dumbbell(
        pairs=pairs,
        # A DropTail queue given as a table measures its packets' queueing delay (qdelay_mean).
        bottleneck=dict(rate="10Mbps", delay="20ms", queue={"type": "droptail", "limit": queue}),
        access=dict(rate="100Mbps", delay="1ms"),
    )
    s._d["sim"]["drop_trace"] = True
    return s


def voip_beside(bulk: bool, duration=30):
    s = dumbbell(duration)
    if bulk:
        s.flow("s0", "d0", cc="newreno", name="bulk")
    # Stops a second before the end: every datagram is then delivered or dropped.
    return s.voip("s1", "d1", name="call", start=0.0103, stop=duration - 1)


def by_name(r, name):
    return r.flows.set_index("name").loc[name]


def test_builder_writes_a_voip_flow_and_the_spec_normalises_to_both_directions():
    s = Scenario(duration=5).dumbbell(pairs=1, bottleneck=dict(rate="10Mbps", delay="20ms"),
                                      access=dict(rate="100Mbps", delay="1ms"))
    s.voip("s0", "d0", name="c", packet=160, interval="30ms")
    assert s.to_dict()["flows"] == [{"src": "s0", "dst": "d0", "transport": "voip", "name": "c",
                                     "packet": 160, "interval": "30ms"}]
    flows = s.normalised()["flows"]
    assert [(f["name"], f["src"], f["dst"], f["direction"]) for f in flows] == [
        ("c", "s0", "d0", "forward"), ("c.back", "d0", "s0", "reverse")]
    assert all(f["interval"] == 0.030 and f["packet"] == 160 for f in flows)
    bad = s.to_dict()
    bad["flows"][0]["interval"] = "-5ms"
    with pytest.raises(ScenarioError, match=r"^flows\[0\]\.interval: "):
        tcplab.normalise(bad)


def test_voip_alone_sees_propagation_plus_serialisation_and_no_jitter():
    r = tcplab.run(voip_beside(bulk=False), seed=1)
    # 200 bytes serialised on both 100 Mb/s access links and the 10 Mb/s bottleneck.
    floor = 2 * ACCESS_DELAY + DELAY + 1600 / ACCESS_RATE * 2 + 1600 / RATE
    for name in ("call", "call.back"):
        f = by_name(r, name)
        assert f["segments_sent"] == f["delivered_segments"] == 1450  # every 20 ms from 0.0103 s to 29 s
        assert f["datagrams_lost"] == 0
        assert f["delay_min"] == pytest.approx(floor, abs=1e-9)
        assert f["delay_max"] == pytest.approx(floor, abs=1e-9)
        assert f["delay_std"] == pytest.approx(0.0, abs=1e-9)
        assert f["jitter_rfc3550"] == pytest.approx(0.0, abs=1e-9)


def test_voip_beside_newreno_sees_its_queueing_delay_and_counts_its_drops():
    alone = by_name(tcplab.run(voip_beside(bulk=False), seed=1), "call")
    r = tcplab.run(voip_beside(bulk=True), seed=1)
    fwd, rev = by_name(r, "call"), by_name(r, "call.back")
    floor = 2 * ACCESS_DELAY + DELAY + 1600 / ACCESS_RATE * 2 + 1600 / RATE
    assert fwd["delay_min"] >= floor - 1e-9 and rev["delay_min"] >= floor - 1e-9
    # The NewReno flow keeps the bottleneck queue busy: the calls' forward delay grows by
    # about the mean queueing delay of the bottleneck's packets (its own statistics).
    bottleneck = r.links[(r.links["src"] == "r1") & (r.links["dst"] == "r2")].iloc[0]
    growth = fwd["delay_mean"] - alone["delay_mean"]
    assert bottleneck["qdelay_mean"] > 0.02
    assert growth == pytest.approx(bottleneck["qdelay_mean"], rel=0.10)
    assert fwd["delay_max"] <= floor + 100 * 1500 * 8 / RATE + 1e-6  # at most a full queue
    assert fwd["jitter_rfc3550"] > 1e-5 and fwd["delay_std"] > 1e-3
    # The reverse half only meets the ACK stream: next to no queueing.
    assert rev["delay_mean"] - floor < 1e-4
    # Loss counted at the receiver = this flow's drops in the bottleneck's drop trace.
    call = r.flows.index[r.flows["name"] == "call"][0]
    drops = r.drops[(r.drops["flow"] == r.flows.loc[call, "flow"]) & (r.drops["kind"] == "datagram")]
    assert fwd["datagrams_lost"] == len(drops) > 0
    assert fwd["delivered_segments"] + fwd["datagrams_lost"] == fwd["segments_sent"]
    pooled = datagram_delay(r.flows)
    assert pooled.loc["forward", "lost"] == len(drops)
    assert pooled.loc["forward", "delay_mean"] == pytest.approx(fwd["delay_mean"], rel=1e-12)
    assert pooled.loc["forward", "delay_std"] == pytest.approx(fwd["delay_std"], rel=1e-9)


def test_delay_trace_rows_reproduce_the_streaming_statistics():
    s = voip_beside(bulk=True, duration=20)
    s._d["flows"][1]["delay_trace"] = True
    r = tcplab.run(s, seed=2)
    fwd, rev = by_name(r, "call"), by_name(r, "call.back")
    traced = r.events[r.events["event"] == "datagram_delay"]
    assert set(traced["flow"]) == {fwd["flow"], rev["flow"]}  # both halves of the call
    assert (traced["flow"] == rev["flow"]).sum() == rev["delivered_segments"]
    ev = traced[traced["flow"] == fwd["flow"]]
    d = ev["value"].to_numpy()
    assert len(d) == fwd["delivered_segments"]
    assert np.all(np.diff(ev["time"].to_numpy()) >= 0)
    assert d.mean() == pytest.approx(fwd["delay_mean"], rel=1e-9)
    assert d.std() == pytest.approx(fwd["delay_std"], rel=1e-6)
    assert (d.min(), d.max()) == (fwd["delay_min"], fwd["delay_max"])
    # RFC 3550 jitter recomputed from the trace, independently of the core.
    j = 0.0
    for prev, cur in zip(d, d[1:]):
        j += (abs(cur - prev) - j) / 16
    assert j == pytest.approx(fwd["jitter_rfc3550"], rel=1e-6)
    assert j > 0


def test_datagram_delay_pools_flows_exactly():
    import pandas as pd
    # Two flows: delays {1, 3} (mean 2, std 1) and {5, 5, 5, 5} (mean 5, std 0): pooled mean
    # 24/6 = 4, population std of {1, 3, 5, 5, 5, 5} = sqrt(110/6 - 4^2).
    flows = pd.DataFrame({
        "transport": ["voip", "voip"], "direction": ["forward", "forward"],
        "delivered_segments": [2, 4], "segments_sent": [3, 4], "datagrams_lost": [1, 0],
        "delay_mean": [2.0, 5.0], "delay_std": [1.0, 0.0], "delay_min": [1.0, 5.0],
        "delay_max": [3.0, 5.0], "jitter_rfc3550": [0.5, 0.0]})
    p = datagram_delay(flows).loc["forward"]
    assert p["delay_mean"] == pytest.approx(4.0)
    assert p["delay_std"] == pytest.approx(math.sqrt(110 / 6 - 16))
    assert (p["received"], p["lost"], p["loss_rate"]) == (6, 1, pytest.approx(1 / 7))
    assert p["jitter_mean"] == 0.25


def bottleneck_busy(make, t):
    """The bottleneck's busy time up to `t`, from a run that ends at `t` (runs of one spec
    that end at different times are identical up to the earlier end)."""
    r = tcplab.run(make(t), seed=1)
    return r.links[(r.links["src"] == "r1") & (r.links["dst"] == "r2")]["busy_time"].iloc[0]


def test_on_off_cbr_drives_the_bottleneck_in_its_periods():
    # A.2's pattern scaled down: 8 Mb/s of 1000-byte datagrams, on 2 s / off 2 s from 1 s.
    def make(duration):
        return dumbbell(duration, pairs=1).flow(
            "s0", "d0", name="cbr", transport="udp", packet=1000, rate="8Mbps", start=1.0,
            on_off={"on": "2s", "off": "2s"}, delay_stats=True)
    edges = [1.0, 3.0, 5.0, 7.0, 9.0, 11.0]
    busy = [0.0] + [bottleneck_busy(make, t) for t in edges[1:]]  # nothing before the start
    share = [(b - a) / 2.0 for a, b in zip(busy, busy[1:])]
    assert share[0::2] == pytest.approx([0.8, 0.8, 0.8], abs=0.01)  # on: 8 of 10 Mb/s
    assert share[1::2] == pytest.approx([0.0, 0.0], abs=0.01)  # off
    r = tcplab.run(make(12.0), seed=1)
    cbr = by_name(r, "cbr")
    # 1000 packets/s in [1, 3), [5, 7) and [9, 11): the rate steps come before the send due
    # at the same instant.
    assert cbr["segments_sent"] == cbr["delivered_segments"] == 3 * 2 * 1000
    assert cbr["datagrams_lost"] == 0 and cbr["direction"] == ""


def test_on_off_cbr_beside_newreno_takes_its_share_only_while_on():
    def make(duration):
        return (dumbbell(duration, pairs=2)
                .flow("s0", "d0", cc="newreno", name="bulk")
                .flow("s1", "d1", name="cbr", transport="udp", packet=1000, rate="6Mbps",
                      start=4.0, on_off={"on": "4s", "off": "4s"}))
    r = tcplab.run(make(20.0), seed=1)
    ts = r.flow_ts[r.flow_ts["flow"] == 0].set_index("time")["delivered"]
    rate = lambda a, b: (ts.loc[b] - ts.loc[a]) * 1000 * 8 / (b - a)  # noqa: E731  (mss 1000)
    # The CBR source is on in [4, 8) and [12, 16), off before, in [8, 12) and after 16 s.
    off = [rate(1.0, 4.0), rate(9.0, 12.0), rate(17.0, 20.0)]
    on = [rate(5.0, 8.0), rate(13.0, 16.0)]
    # Off: NewReno fills the link; on: it is left about the 4 Mb/s the CBR source does not take.
    assert min(off) > 8.5e6, off
    assert max(on) < 4.2e6 and min(on) > 3.0e6, on


def test_legacy_ftp_is_newreno_limited_by_a_64_kib_receive_window():
    # 44 segments of 1460 bytes fit in 64 KiB; on a 100 Mb/s path with a 100 ms RTT the flow
    # is window-limited at 44 * 1460 * 8 / RTT.
    s = (Scenario(duration=30, sample_interval=0.1)
         .dumbbell(pairs=1, bottleneck=dict(rate="100Mbps", delay="49ms", queue=1000),
                   access=dict(rate="1Gbps", delay="0.5ms"))
         .flow("s0", "d0", cc="newreno", name="ftp", tcp={"mss": 1460, "rwnd_bytes": "64KiB"}))
    r = tcplab.run(s, seed=1)
    ts = r.flow_ts[r.flow_ts["flow"] == 0]
    assert ts["flight"].max() == 44
    rtt = 2 * (0.049 + 0.001) + 1500 * 8 * (1 / 100e6 + 2 / 1e9)
    steady = ts.set_index("time")["delivered"]
    rate = (steady.loc[30.0] - steady.loc[10.0]) * 1460 * 8 / 20.0
    assert rate == pytest.approx(44 * 1460 * 8 / rtt, rel=0.02)
    assert r.flows["timeouts"].iloc[0] == 0 and r.links["drops_queue"].sum() == 0
