"""The OMQN fixed-point model of short-lived TCP flows with RFS/WpP/ESSE (issue 6;
docs/omqn-model.md)."""
import math
import time

import numpy as np
import pytest

import tcplab.models.omqn as omqn
from tcplab.models.omqn import (
    OmqnConvergenceError,
    OmqnScenario,
    Variant,
    batch_queue,
    error_distribution,
    solve,
    solve_given_loss,
    solve_traffic_equations,
    stop_and_wait,
    sweep_load,
)


def ss_rounds(L, W):
    """Rounds of a loss-free transfer: 1, 2, 4, ... capped at W, then W per round."""
    rounds, w, sent = 0, 1, 0
    while sent < L:
        sent += w
        rounds += 1
        w = min(2 * w, W)
    return rounds


# ---------------------------------------------------------------- Stop & Wait (paper Fig. 1)


@pytest.mark.parametrize("p", [0.0, 0.03, 0.3])
def test_stop_and_wait_reproduces_the_geometric_closed_form(p):
    lam, L, rtt, t0, tx = 7.0, 12, 0.08, 1.5, 0.001
    r = stop_and_wait(L, p, rtt, t0, tx, lam)
    # each packet: geometric number of attempts (mean 1/(1-p)), each Tx + Wait, p of them a timeout
    assert r.completion_time == pytest.approx(L * (tx + rtt + p * t0) / (1 - p), rel=1e-12)
    assert r.offered_load == pytest.approx(lam * L / (1 - p), rel=1e-12)
    assert r.departure_rate == pytest.approx(lam, rel=1e-12)
    # per class: every class is visited by every flow, 1/(1-p) times in Tx and Wait, p/(1-p) in Timeout
    assert np.allclose(r.rates[0], lam / (1 - p), rtol=1e-12)
    assert np.allclose(r.rates[2], lam * p / (1 - p), rtol=1e-12, atol=1e-15)
    assert r.mean_customers.sum() == pytest.approx(lam * r.completion_time, rel=1e-12)


def test_stop_and_wait_with_a_size_distribution():
    sizes = {1: 0.5, 4: 0.3, 10: 0.2}
    lam, p, rtt, t0, tx = 3.0, 0.1, 0.05, 1.0, 0.002
    r = stop_and_wait(sizes, p, rtt, t0, tx, lam)
    mean_L = sum(k * v for k, v in sizes.items())
    assert r.completion_time == pytest.approx(mean_L * (tx + rtt + p * t0) / (1 - p), rel=1e-12)
    # class c is visited by flows of size >= c only
    assert r.rates[0, 9] == pytest.approx(lam * 0.2 / (1 - p), rel=1e-12)
    assert r.rates[0, 3] == pytest.approx(lam * 0.5 / (1 - p), rel=1e-12)


def test_traffic_equations_reject_class_increase():
    with pytest.raises(ValueError, match="class_decrease"):
        solve_traffic_equations(1, 2, np.ones((1, 2)), [(0, 0, -1, 0.5)])


# ---------------------------------------------------------------- the bottleneck queue


def test_batch_queue_with_single_packets_is_mm1b():
    mu, K, lam = 100.0, 8, 85.0
    q = batch_queue([lam], mu, K)
    rho = lam / mu
    pi = rho ** np.arange(K + 1) * (1 - rho) / (1 - rho ** (K + 1))
    assert np.allclose(q.pi, pi, rtol=1e-12)
    assert q.loss == pytest.approx(pi[K], rel=1e-12)
    # accepted arrival sees j < K, sojourn (j + 1)/mu
    soj = (pi[:K] * (np.arange(K) + 1)).sum() / (1 - pi[K]) / mu
    assert q.sojourn == pytest.approx(soj, rel=1e-12)


def test_batch_queue_against_the_generator_matrix():
    rng = np.random.default_rng(3)
    rates = rng.random(12) * 3.0
    mu, K = 40.0, 10
    Q = np.zeros((K + 1, K + 1))
    for j in range(K + 1):
        for n, r in enumerate(rates, start=1):
            Q[j, min(j + n, K)] += r
        if j > 0:
            Q[j, j - 1] += mu
        Q[j, j] -= Q[j].sum()
    A = np.vstack([Q.T, np.ones(K + 1)])
    pi = np.linalg.lstsq(A, np.r_[np.zeros(K + 1), 1.0], rcond=None)[0]
    q = batch_queue(rates, mu, K)
    assert np.allclose(q.pi, pi, rtol=1e-9, atol=1e-14)
    # conservation: carried packets = offered x (1 - loss) = mu x utilisation
    offered = (np.arange(1, 13) * rates).sum()
    assert offered * (1 - q.loss) == pytest.approx(mu * q.utilization, rel=1e-10)
    # first-loss vector: P(loss in a batch of n) = P(arrival finds more than K - n)
    for n in (1, 5, 11, 12):
        assert q.first_loss[:n].sum() == pytest.approx(pi[K - n + 1:].sum() if n <= K else 1.0, rel=1e-9)


def test_batch_queue_tiny_loss_is_accurate():
    q = batch_queue([10.0], 100.0, 64)   # rho = 0.1: loss ~ 1e-64, no cancellation
    assert q.loss == pytest.approx(0.9 * 0.1**64, rel=1e-9)


# ---------------------------------------------------------------- estimation errors


@pytest.mark.parametrize("kind", ["bbe", "nbe", "tbe"])
@pytest.mark.parametrize("wfs", [2.0, 7.3, 12.0, 25.61, 32.0])
def test_error_vectors_are_distributions_on_2_to_wm(kind, wfs):
    pi = error_distribution(kind, wfs, 32)
    assert pi.shape == (31,)
    assert pi.min() >= 0
    assert pi.sum() == pytest.approx(1.0, abs=1e-12)


def test_error_vector_means():
    j = np.arange(2, 33)
    for wfs in (2.0, 7.3, 12.0, 25.61, 31.99):
        assert j @ error_distribution("bbe", wfs, 32) == pytest.approx(wfs, abs=1e-12)
    assert error_distribution("bbe", 7.0, 32)[5] == 1.0
    assert j @ error_distribution("nbe", 9.0, 32) == pytest.approx(17.0)
    # symmetric TBE: mean close to W_fs; asymmetric: shifted towards the larger error
    for wfs in (8.0, 12.4, 20.0):
        assert j @ error_distribution("tbe", wfs, 32) == pytest.approx(wfs, rel=0.02)
    sym = j @ error_distribution("tbe", 16.0, 32, 0.25, 0.25)
    over = j @ error_distribution("tbe", 16.0, 32, 0.1, 0.5)
    under = j @ error_distribution("tbe", 16.0, 32, 0.5, 0.1)
    assert over > sym + 1.0 and under < sym - 1.0
    # the support is W_fs (1 -/+ delta), truncated to [2, W_M]
    pi = error_distribution("tbe", 16.0, 32)
    assert pi[j <= 12].sum() == 0 and pi[j >= 20].sum() == 0
    # out-of-range estimates are clipped
    assert error_distribution("bbe", 50.0, 32)[-1] == 1.0
    assert error_distribution("bbe", 0.5, 32)[0] == 1.0


# ---------------------------------------------------------------- the TCP OMQN


@pytest.mark.parametrize("L, W", [(1, 32), (3, 32), (7, 4), (60, 32), (100, 16), (100, 32), (200, 32)])
def test_loss_free_limit_is_deterministic_slow_start(L, W):
    sc = OmqnScenario.access(flow_packets=L, mws=W, load=0.5)
    r = solve_given_loss(sc, Variant(), p=0.0, rtt=0.1)
    assert r.completion_time == pytest.approx(ss_rounds(L, W) * 0.1, rel=1e-12)
    assert r.timeouts_per_flow == 0 and r.fast_recoveries_per_flow == 0
    assert r.mean_active_flows == pytest.approx(sc.arrival_rate * r.completion_time, rel=1e-12)
    # and it is the limit p -> 0
    r2 = solve_given_loss(sc, Variant(), p=1e-10, rtt=0.1)
    assert r2.completion_time == pytest.approx(r.completion_time, rel=1e-6)


def test_loss_free_limit_of_the_modifications():
    sc = OmqnScenario.access(flow_packets=100, mws=32, load=0.5)
    # WpP does not matter once the window is pinned at W_M; ESSE with W_fs = W_M exits at W_M
    for v in (Variant(wpp=True), Variant(rfs=True, esse=True, wpp=True)):
        r = solve_given_loss(sc, v, p=0.0, rtt=0.1, w_fs=32)
        assert r.completion_time == pytest.approx(8 * 0.1, rel=1e-12)
    # ESSE with W_fs = 6 (BBE): 1, 2, 4, then CA from 6: 7 + 6 + 7 + 8 + ... -> 100 packets
    r = solve_given_loss(sc, Variant(esse=True), p=0.0, rtt=0.1, w_fs=6.0)
    sent, w, rounds = 7, 6, 3
    while sent < 100:
        sent += w
        w += 1
        rounds += 1
    assert r.completion_time == pytest.approx(rounds * 0.1, rel=1e-12)


def test_flow_conservation_given_loss():
    sc = OmqnScenario.access(flow_packets={20: 0.5, 60: 0.3, 150: 0.2}, mws=16, load=0.7)
    for v in (Variant(), Variant.from_cc("all", error="tbe")):
        r = solve_given_loss(sc, v, p=0.05, rtt=0.05)
        lam = sc.arrival_rate
        assert r.departure_rate == pytest.approx(lam, rel=1e-9)                      # all leave
        assert r.goodput_bps == pytest.approx(lam * sc.mean_flow_packets * 8000, rel=1e-9)
        assert r.offered_load_bps > r.goodput_bps                                     # retransmissions


@pytest.fixture(scope="module")
def access32():
    """ACCESS, 100 packets, MWS 32: NewReno, ESSE and all modifications at 0.65 / 0.8 / 0.95."""
    sc = OmqnScenario.access(flow_packets=100, mws=32)
    return {v.name: sweep_load(sc, v, loads=(0.65, 0.8, 0.95))
            for v in (Variant(), Variant(esse=True), Variant.from_cc("all"))}


def test_fixed_point_conserves_flows_and_is_self_consistent():
    sc = OmqnScenario.access(flow_packets=100, mws=16, load=0.85)
    for v in (Variant(), Variant.from_cc("rfs+esse")):
        r = solve(sc, v)
        assert r.departure_rate == pytest.approx(sc.arrival_rate, rel=1e-9)
        assert r.goodput_bps == pytest.approx(0.85 * 100e6, rel=1e-9)
        # carried = offered x (1 - p) = mu x utilisation (within the FPA tolerance)
        assert r.offered_load_bps * (1 - r.drop_rate) == pytest.approx(100e6 * r.utilization, rel=1e-5)
        assert r.rtt == pytest.approx(0.030 + r.queueing_delay)
        assert max(r.residuals.values()) < 1e-6
        if v.rfs:
            assert r.w_fs == pytest.approx(r.mean_window, rel=1e-5)   # W_fs = ensemble mean
        assert r.mean_active_flows == pytest.approx(sc.arrival_rate * r.completion_time, rel=1e-12)


def test_light_load_limit_matches_slow_start_rounds():
    sc = OmqnScenario.access(flow_packets=30, mws=4, load=0.05)
    r = solve(sc, Variant())
    assert r.drop_rate < 1e-20
    assert r.completion_time == pytest.approx(ss_rounds(30, 4) * r.rtt, rel=1e-9)
    assert r.rtt == pytest.approx(0.030 + 1 / 12500.0, rel=0.05)


def test_drop_rate_and_completion_time_rise_with_load(access32):
    for df in access32.values():
        assert np.all(np.diff(df.drop_rate) > 0)
        assert np.all(np.diff(df.completion_time) > 0)
        assert np.all(np.diff(df.mean_active_flows) > 0)


def test_paper_esse_cuts_the_drop_rate(access32):
    # SEED-NOTES 3D: unless ESSE is on, the drop rate stays at NewReno's; with ESSE it is clearly lower
    nr, esse, allm = access32["newreno"], access32["esse"], access32["rfs+wpp+esse"]
    assert np.all(esse.drop_rate < 0.6 * nr.drop_rate)
    assert np.all(allm.drop_rate < 0.6 * nr.drop_rate)
    assert np.all(nr.drop_rate.iloc[:1] > 5 * allm.drop_rate.iloc[:1])


def test_paper_all_modifications_cut_completion_time_at_high_load(access32):
    nr, allm = access32["newreno"], access32["rfs+wpp+esse"]
    assert allm.completion_time.iloc[-1] < 0.92 * nr.completion_time.iloc[-1]


def test_paper_esse_penalises_light_load_with_small_mws():
    # SEED-NOTES 3D: MWS 16, light load: an early exit keeps loss-free flows below the MWS
    sc = OmqnScenario.access(flow_packets=100, mws=16, load=0.65)
    assert solve(sc, Variant(esse=True)).completion_time > solve(sc, Variant()).completion_time


def test_paper_newreno_worse_than_random_window_at_high_load():
    sc = OmqnScenario.access(flow_packets=60, mws=32, load=0.95)
    nbe = solve(sc, Variant.from_cc("all", error="nbe"))
    assert nbe.completion_time < solve(sc, Variant()).completion_time


def test_sweep_load_columns_and_rows():
    df = sweep_load(OmqnScenario.peering(flow_packets=60, mws=16), Variant(wpp=True), loads=(0.7, 0.9))
    assert list(df.columns[:7]) == ["load", "drop_rate", "completion_time", "throughput_bps",
                                    "mean_active_flows", "rtt", "iterations"]
    assert df.load.tolist() == [0.7, 0.9]
    assert (df.variant == "wpp").all()
    assert np.allclose(df.throughput_bps, 60 * 8000 / df.completion_time)


def test_solves_fast_and_at_scale():
    omqn._NET_CACHE.clear()
    t = time.perf_counter()
    r = solve(OmqnScenario.access(flow_packets=100, mws=32, load=0.9), Variant())
    assert time.perf_counter() - t < 3.0
    # the cost does not depend on the number of flows: 100 Gb/s, > 10^5 concurrent flows
    big = solve(OmqnScenario.access(capacity_bps=100e9, flow_packets=100, mws=32, load=0.9), Variant())
    assert big.mean_active_flows > 1e5
    assert big.drop_rate == pytest.approx(r.drop_rate, rel=1e-3)


def test_non_convergence_is_an_error_naming_the_scenario():
    sc = OmqnScenario.access(flow_packets=100, mws=32, load=0.9)
    with pytest.raises(OmqnConvergenceError, match=r"load.*0\.9.*residuals.*loss="):
        solve(sc, Variant(), max_iter=2)


@pytest.mark.parametrize("kw, field", [
    (dict(load=1.0), "load"), (dict(load=0.0), "load"), (dict(mws=1), "mws"),
    (dict(buffer=0), "buffer"), (dict(flow_packets=0), "flow_packets"),
    (dict(flow_packets={10: 0.5, 20: 0.4}), "flow_packets"), (dict(flow_packets={0: 1.0}), "flow_packets"),
    (dict(rtt=-0.1), "rtt"), (dict(capacity_bps=float("nan")), "capacity_bps"),
    (dict(init_ssthresh=1), "init_ssthresh"), (dict(min_rto=0), "min_rto"),
])
def test_bad_scenarios_name_the_field(kw, field):
    with pytest.raises(ValueError, match=field):
        OmqnScenario.access(**kw)


@pytest.mark.parametrize("kw, field", [
    (dict(error="xyz"), "error"), (dict(wpp_p=0.0), "wpp_p"), (dict(delta_minus=0), "delta_minus"),
    (dict(esse_error="uniform"), "esse_error"), (dict(fair_share="oracle"), "fair_share"),
    (dict(esse_min_window=1), "esse_min_window"), (dict(rfs=1), "rfs"),
])
def test_bad_variants_name_the_field(kw, field):
    with pytest.raises(ValueError, match=field):
        Variant(**kw)


def test_variant_names_follow_the_simulator():
    assert Variant().name == "newreno"
    assert Variant.from_cc("rfs+wpp+esse").name == "rfs+wpp+esse"
    assert Variant.from_cc("all", error="tbe") == Variant(rfs=True, wpp=True, esse=True, error="tbe")
    assert Variant.from_cc("esse+rfs").name == "rfs+esse"
    with pytest.raises(ValueError, match="cc"):
        Variant.from_cc("cubic")


def test_init_ssthresh_limits_the_first_slow_start():
    sc = OmqnScenario.access(flow_packets=100, mws=32, init_ssthresh=8, load=0.5)
    r = solve_given_loss(sc, Variant(), p=0.0, rtt=0.1)
    sent, w, rounds = 7, 8, 3           # 1, 2, 4, then CA from 8
    while sent < 100:
        sent += min(w, 32)
        w += 1
        rounds += 1
    assert r.completion_time == pytest.approx(rounds * 0.1, rel=1e-12)
    assert math.isfinite(solve(replace_load(sc, 0.9), Variant()).completion_time)


def replace_load(sc, load):
    from dataclasses import replace
    return replace(sc, load=load)


def test_burst_option():
    sc = OmqnScenario.access(flow_packets=100, mws=32, load=0.7)
    win = solve(sc, Variant())
    ss = solve(sc, Variant(), burst="slow_start")
    # ACK-clocked congestion-avoidance rounds are much less bursty: far fewer drops
    assert ss.drop_rate < 0.1 * win.drop_rate
    assert ss.departure_rate == pytest.approx(sc.arrival_rate, rel=1e-9)
    with pytest.raises(ValueError, match="burst"):
        solve(sc, Variant(), burst="paced")


def test_slow_start_burst_reading_has_no_collapse_and_conserves():
    sc = OmqnScenario.access(flow_packets=100, mws=32, load=0.95)
    nr = solve(sc, Variant(), burst="slow_start")
    allm = solve(sc, Variant.from_cc("all"), burst="slow_start")
    assert nr.drop_rate < 0.1 and nr.completion_time < 1.0
    assert nr.departure_rate == pytest.approx(sc.arrival_rate, rel=1e-9)
    assert allm.drop_rate < 0.3 * nr.drop_rate
    assert allm.completion_time < nr.completion_time
    # light load: both readings give the loss-free slow start, in rounds of their own RTT
    lo = replace_load(sc, 0.05)
    for burst, rel in (("window", 0.01), ("slow_start", 1e-6)):   # 32-packet batches: p ~ 1e-4
        r = solve(lo, Variant(), burst=burst)
        assert r.completion_time == pytest.approx(ss_rounds(100, 32) * r.rtt, rel=rel)


def test_capacity_fair_share_option():
    sc = OmqnScenario.peering(flow_packets=60, mws=16, load=0.8)
    r = solve(sc, Variant(rfs=True, esse=True, fair_share="capacity"))
    share = sc.capacity_bps * r.rtt / (8 * sc.packet_bytes * r.mean_active_flows)
    assert r.w_fs == pytest.approx(min(max(share, 2.0), 16.0), rel=1e-5)
    assert r.departure_rate == pytest.approx(sc.arrival_rate, rel=1e-9)
