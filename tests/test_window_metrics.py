"""The chapter-3 metrics over a window of interval throughputs (tcplab.metrics): worked by hand
on small time series, and checked on a run."""
import numpy as np
import pandas as pd
import pytest

import tcplab
from tcplab.metrics import interval_throughput, jain_index, short_term_fairness, stability_index


def series(delivered: dict[int, list[int]], step: float = 0.5) -> pd.DataFrame:
    rows = [(i * step, f, d) for f, ds in delivered.items() for i, d in enumerate(ds)]
    return pd.DataFrame(rows, columns=["time", "flow", "delivered"])


FLOWS = pd.DataFrame({"flow": [0, 1], "delivered_bytes": [1000 * 100, 500 * 10],
                      "delivered_segments": [100, 10]})


def test_interval_throughput_takes_the_grid_samples_and_the_flows_payload():
    # Samples every 0.5 s; 1-s intervals use those at 0, 1, 2, 3 s. Flow 0: 1000 B segments,
    # 10 then 30 then 20 segments per second; flow 1: 500 B segments, 2, 2, 4.
    ts = series({0: [0, 4, 10, 25, 40, 50, 60], 1: [0, 1, 2, 3, 4, 6, 8]})
    t = interval_throughput(ts, FLOWS, interval=1.0)
    assert t["time"].tolist() == [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]
    assert t["throughput_bps"].tolist() == [80_000, 240_000, 160_000, 8_000, 8_000, 16_000]
    # Only whole intervals inside the window.
    w = interval_throughput(ts, FLOWS, interval=1.0, start=1.0, end=2.5)
    assert w["time"].tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match="interval"):
        interval_throughput(ts, FLOWS, interval=0)


def test_short_term_fairness_is_the_mean_jain_index_of_the_intervals():
    t = pd.DataFrame({"time": [1.0, 1.0, 2.0, 2.0, 3.0, 3.0], "flow": [0, 1] * 3,
                      "throughput_bps": [1.0, 1.0, 3.0, 1.0, 0.0, 0.0]})
    # J(1,1) = 1; J(3,1) = 16 / (2·10) = 0.8; the empty interval is left out.
    assert short_term_fairness(t) == pytest.approx((1.0 + 0.8) / 2)


def test_stability_index_is_the_coefficient_of_variation_with_m_minus_1():
    t = pd.DataFrame({"time": [1.0, 2.0, 3.0, 4.0] * 2, "flow": [0] * 4 + [1] * 4,
                      "throughput_bps": [2.0, 4.0, 4.0, 6.0, 5.0, 5.0, 5.0, 5.0]})
    s = stability_index(t)
    # Flow 0: mean 4, Σ(x − 4)² = 8, /(4 − 1) → √(8/3)/4.
    assert s[0] == pytest.approx(np.sqrt(8 / 3) / 4)
    assert s[1] == 0.0


def test_on_a_run_two_equal_flows_share_fairly_and_one_alone_takes_the_link():
    spec = (tcplab.Scenario(duration=60, sample_interval=0.5)
            .dumbbell(2, bottleneck=dict(rate="10Mbps", delay="20ms", queue=50),
                      access=dict(rate="100Mbps", delay="1ms"))
            .flow(src="s{i}", dst="d{i}", count=2))
    r = tcplab.run(spec, seed=1)
    t = interval_throughput(r.flow_ts, r.flows, interval=1.0, start=10, end=60)
    assert len(t) == 2 * 50
    # The two flows' 1-s goodputs add up to (nearly) the bottleneck's payload rate.
    total = t.groupby("time")["throughput_bps"].sum()
    assert total.mean() == pytest.approx(10e6 * 1000 / 1040, rel=0.05)
    assert 0.8 < short_term_fairness(t) <= 1.0
    assert (stability_index(t) < 1.0).all()
    # Jain's index of the window averages from the same table.
    assert jain_index(t.groupby("flow")["throughput_bps"].mean()) > 0.9


def test_congestion_signals_group_detections_and_count_those_all_flows_saw():
    from tcplab.metrics import congestion_signals

    ev = pd.DataFrame({
        "time": [0.0, 0.0, 5.0, 5.2, 9.0, 14.0, 14.49, 14.6],
        "flow": [0, 1, 0, 1, 0, 1, 0, 1],
        "event": ["sync_mode", "sync_mode"] + ["sync_congestion"] * 6,
        "value": [1.0, 1.0, 0.012, 0.013, 0.012, 0.012, 0.012, 0.012],
    })
    s = congestion_signals(ev)
    # 5.0/5.2: one signal seen by both; 9.0: flow 0 alone; 14.0/14.49: both (within 0.5 s of
    # the first); 14.6 is 0.6 s after 14.0: a new signal, flow 1 alone.
    assert s["time"].tolist() == [5.0, 9.0, 14.0, 14.6]
    assert s["detected_by"].tolist() == [2, 1, 2, 1]
    assert s["by_all"].tolist() == [True, False, True, False]
    assert s["spread"].tolist() == pytest.approx([0.2, 0.0, 0.49, 0.0])
    # Competing flows given: a third flow that never detects makes no signal seen by all.
    assert not congestion_signals(ev, flows=[0, 1, 2])["by_all"].any()
    with pytest.raises(ValueError, match="gap"):
        congestion_signals(ev, gap=0)
