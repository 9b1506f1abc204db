"""tcplab against ns-2.35 on identical scenarios (the simulator the papers used).

Tolerances (over several seeds, means compared): aggregate goodput within 5 %, goodput of a
lone lossy flow within 10 %, retransmissions within a factor of 2 and timeouts of the same
order. Documented in docs/ns2-parity.md.
"""
import numpy as np
import pytest

import tcplab
from tcplab.ns2 import run_ns2, tcl_script

from conftest import require_tool

SEEDS = (1, 2, 3, 4)


def dumbbell(n, queue, loss=0.0, delay="20ms", access_delay="1ms", duration=60, cc="newreno", **tcp):
    tcp.setdefault("rwnd", 1000)
    return (
        tcplab.Scenario(duration=duration)
        .dumbbell(
            pairs=n,
            bottleneck=dict(rate="10Mbps", delay=delay, queue=queue, loss=loss),
            access=dict(rate="100Mbps", delay=access_delay, queue=1000),
        )
        .flow(src="s{i}", dst="d{i}", count=n, cc=cc, tcp=tcp)
    )


SCENARIOS = {
    "1 flow, buffer = BDP": dumbbell(1, 50),
    "1 flow, 0.1% loss": dumbbell(1, 1000, loss=0.001),
    "1 flow, 1% loss": dumbbell(1, 1000, loss=0.01),
    "1 flow, 2% loss, 200 ms RTT": dumbbell(1, 1000, loss=0.02, delay="98ms", duration=300),
    "1 Tahoe flow, 1% loss": dumbbell(1, 1000, loss=0.01, cc="tahoe", duration=300),
    "4 flows, limited transmit, 1% loss": dumbbell(4, 40, loss=0.01, limited_transmit=True),
    "4 flows, small buffer": dumbbell(4, 10),
    "16 flows, large buffer, mixed RTT": dumbbell(16, 200, access_delay=[f"{1 + 3 * i}ms" for i in range(16)]),
    "8 flows, 0.5% loss, delayed ACK": dumbbell(8, 60, loss=0.005, delayed_ack=True),
    "4 Reno flows": dumbbell(4, 30, cc="reno"),
}


def measure(spec):
    ours, theirs = [], []
    for seed in SEEDS:
        a = tcplab.run(spec, seed=seed).flows
        b = run_ns2(spec, seed)["flows"]
        ours.append(a[["goodput_bps", "retransmits", "timeouts"]].sum())
        theirs.append(b[["goodput_bps", "retransmits", "timeouts"]].sum())
    return {k: (np.mean([o[k] for o in ours]), np.mean([t[k] for t in theirs])) for k in ours[0].index}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_agrees_with_ns2(name):
    require_tool("ns")
    spec = SCENARIOS[name]
    m = measure(spec)
    ours, theirs = m["goodput_bps"]
    lone_lossy = "1 flow" in name and "loss" in name
    tol = 0.10 if lone_lossy else 0.05
    assert abs(ours - theirs) / theirs < tol, f"goodput tcplab {ours:.0f} vs ns-2 {theirs:.0f} b/s"
    r_ours, r_theirs = m["retransmits"]
    assert r_theirs / 2 <= r_ours <= 2 * r_theirs, f"retransmits {r_ours} vs {r_theirs}"
    t_ours, t_theirs = m["timeouts"]
    assert abs(t_ours - t_theirs) <= max(3.0, 2 * t_theirs), f"timeouts {t_ours} vs {t_theirs}"


def test_tcl_translation_maps_every_option():
    spec = tcplab.normalise(dumbbell(2, 17, loss=0.01, delayed_ack=True, min_rto="1s", mss=1400))
    tcl = tcl_script(spec, 5)
    assert "queue-limit $n(0) $n(1) 17" in tcl
    assert "$tcp(1) set packetSize_ 1400" in tcl
    assert "$tcp(0) set minrto_ 1.0" in tcl
    assert "Agent/TCPSink/DelAck" in tcl
    assert tcl.count("new ErrorModel") == 2, "one error model per lossy link direction"


def test_fixed_size_flow_completion_matches_ns2():
    require_tool("ns")
    spec = (
        tcplab.Scenario(duration=30)
        .node("a")
        .node("b")
        .link("a", "b", rate="2Mbps", delay="50ms", queue=100)
        .flow(src="a", dst="b", size=200)
    )
    ours = tcplab.run(spec).flows["completion_time"][0]
    theirs = run_ns2(spec, 1)["flows"]["completion_time"][0]
    assert abs(ours - theirs) / theirs < 0.02, (ours, theirs)


@pytest.mark.parametrize("position", ["head", "link"])
def test_ns2_link_counters_conserve_packets(position):
    """Every packet offered to an ns-2 link is departed, dropped by the queue, lost, or still
    queued, wherever the error model sits; and the loss rate is the configured one."""
    require_tool("ns")
    spec = SCENARIOS["1 flow, 1% loss"]
    links = run_ns2(spec, 3, loss_position=position)["links"]
    lossy = links[links.drops_loss > 0]
    assert sorted(lossy.src) == ["r1", "r2"], "the bottleneck loses packets in both directions"

    for r in links.itertuples():
        if position == "head":
            assert r.arrivals == r.departures + r.drops_queue + r.drops_loss + r.waiting
        else:
            assert r.arrivals == r.departures + r.drops_queue + r.waiting
    for r in lossy.itertuples():
        assert 0.007 < r.drops_loss / r.arrivals < 0.013


def asymmetric(loss=0.0):
    """Westwood's topology (b): data r1→r2 over the bottleneck, ACKs back r2→r3→r1 over a
    separate path (the direct r2→r1 direction costs more)."""
    return (
        tcplab.Scenario(duration=60)
        .node("s").node("r1").node("r2").node("r3").node("d")
        .link("s", "r1", rate="100Mbps", delay="1ms", queue=1000)
        .link("r1", "r2", rate="10Mbps", delay="20ms", queue=40, loss_ab=loss, cost_ba=10)
        .link("r2", "r3", rate="10Mbps", delay="30ms", queue=100)
        .link("r3", "r1", rate="10Mbps", delay="30ms", queue=100)
        .link("r2", "d", rate="100Mbps", delay="1ms", queue=1000)
        .flow(src="s", dst="d", count=2, tcp=dict(rwnd=1000))
    )


def test_acks_on_a_separate_path_and_ns2_agrees():
    spec = asymmetric()
    r = tcplab.run(spec, seed=1)
    links = r.links.set_index(["src", "dst"])
    assert links.loc[("r2", "r1"), "arrivals"] == 0, "no ACK takes the expensive direct direction"
    assert links.loc[("r2", "r3"), "arrivals"] > 1000 and links.loc[("r3", "r1"), "arrivals"] > 1000
    assert "$ns cost $n(1) $n(2)" not in tcl_script(tcplab.normalise(spec), 1)
    assert "$ns cost $n(2) $n(1) 10" in tcl_script(tcplab.normalise(spec), 1)
    require_tool("ns")
    m = measure(spec)
    ours, theirs = m["goodput_bps"]
    assert abs(ours - theirs) / theirs < 0.05, (ours, theirs)
    b = run_ns2(spec, 1)["links"].set_index(["src", "dst"])
    assert b.loc[("r2", "r1"), "arrivals"] == 0, "ns-2 routes the ACKs the same way"
