"""End-to-end checks of sender options through the public API: pacing at a fixed rate and
with the window, and a receive window given in bytes."""
import tcplab


def one_flow(tcp: dict, duration=20, rate="10Mbps", queue=100):
    spec = (tcplab.Scenario(duration=duration, sample_interval=0)
            .dumbbell(pairs=1, bottleneck=dict(rate=rate, delay="20ms", queue=queue),
                      access=dict(rate="100Mbps", delay="1ms", queue=1000))
            .flow(src="s0", dst="d0", tcp={"mss": 1000, **tcp}))
    return tcplab.run(spec, seed=1)


def test_rate_pacing_holds_the_flow_to_its_rate():
    r = one_flow({"pacing": "rate", "pacing_rate": "2Mbps", "pacing_tick": "5ms"})
    f = r.flows.iloc[0]
    payload = 2e6 * 1000 / 1040  # the rate counts the 40-byte headers
    assert abs(f.goodput_bps / payload - 1) < 0.02, f.goodput_bps
    assert f.retransmits == 0 and r.links.drops_queue.sum() == 0


def test_per_packet_pacing_keeps_the_bottleneck_queue_empty():
    # 5 Mb/s paced into a 10 Mb/s bottleneck, one segment every 1.664 ms: none waits.
    r = one_flow({"pacing": "rate", "pacing_rate": "5Mbps", "pacing_tick": 0}, queue=3)
    f = r.flows.iloc[0]
    assert abs(f.goodput_bps / (5e6 * 1000 / 1040) - 1) < 0.02
    assert r.links.drops_queue.sum() == 0


def test_window_pacing_sends_at_about_the_ack_clocks_rate():
    # cwnd/srtt is the rate the ACK clock sends at: pacing at it neither starves the flow
    # nor adds to it (a 5 ms timer granularity against a 45 ms RTT).
    plain = one_flow({}, queue=50).flows.iloc[0]
    paced = one_flow({"pacing": "window"}, queue=50).flows.iloc[0]
    assert 0.9 < paced.goodput_bps / plain.goodput_bps < 1.05, (paced.goodput_bps, plain.goodput_bps)


def test_receive_window_in_bytes_limits_the_rate():
    r = one_flow({"rwnd_bytes": "16kB"})
    f = r.flows.iloc[0]
    assert r.spec["flows"][0]["tcp"]["rwnd"] == 16
    # 16 segments per RTT: 44 ms of propagation, a 1040-byte packet's transmission at
    # 100, 10 and 100 Mb/s and a 40-byte ACK's
    rtt = 0.044 + 1040 * 8 * (2 / 100e6 + 1 / 10e6) + 40 * 8 * (2 / 100e6 + 1 / 10e6)
    window_rate = 16 * 1000 * 8 / rtt
    assert abs(f.goodput_bps / window_rate - 1) < 0.03, (f.goodput_bps, window_rate)
