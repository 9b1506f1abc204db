"""RFS, WpP and ESSE (Lo Cigno, Procissi, Gerla) in the simulator: the fair-share estimator
follows the number of active connections, the modifications act where they should, and the
paper's simulation findings on Poisson arrivals of 100-packet flows hold."""
import numpy as np
import pytest

import tcplab


def staggered(cc, **cc_params):
    """Four bulk flows joining one by one a 10 Mb/s, 100 ms RTT bottleneck (share = 125/n packets)."""
    return (
        tcplab.Scenario(duration=60)
        .dumbbell(pairs=4, bottleneck=dict(rate="10Mbps", delay="48ms", queue=64),
                  access=dict(rate="1Gbps", delay="1ms", queue=1000))
        .flow(src="s{i}", dst="d{i}", count=4, cc=cc, cc_params=cc_params, start=[0, 5, 10, 15],
              tcp=dict(rwnd=200, min_rto=1.0))
    )


def events(r, name):
    return r.events[r.events["event"] == name]


def test_rfs_restarts_from_the_share_of_the_active_connections():
    r = tcplab.run(staggered("rfs"), seed=1)
    w = events(r, "rfs_window")
    # 1040-byte packets, 100 ms minimum RTT: 10 Mb/s / n → 1202/n·0.1 packets, BBE-rounded
    after_all_joined = w[w["time"] > 16]["value"]
    assert len(after_all_joined) > 30
    assert set(after_all_joined) <= {30.0, 31.0}
    with_two = w[(w["time"] > 5) & (w["time"] < 10)]["value"]
    assert set(with_two) <= {60.0, 61.0}
    # every exit from fast recovery went to the share: one rfs_window per fast retransmit
    # that did not end in a timeout
    assert len(w) >= r.flows["fast_retransmits"].sum() - r.flows["timeouts"].sum()


def test_nbe_restart_windows_spread_over_the_whole_range():
    r = tcplab.run(staggered("rfs", error="nbe"), seed=2)
    v = events(r, "rfs_window")["value"]
    assert v.min() >= 2 and v.max() <= 200
    assert v.std() > 20, "uniform on 2..200, not the share"


def test_error_names_are_checked():
    with pytest.raises(tcplab.ScenarioError, match=r"flows\[0\]\.cc_params\.error.*allowed: bbe, nbe, tbe"):
        tcplab.normalise(staggered("rfs", error="gaussian"))
    with pytest.raises(tcplab.ScenarioError, match="combine any of: rfs, wpp, esse"):
        tcplab.normalise(staggered("rfs+cubic"))
    assert tcplab.normalise(staggered("esse+rfs", error="tbe"))["flows"][0]["cc_params"]["error"] == 2


def test_wpp_grows_more_slowly_in_congestion_avoidance():
    def one(cc):
        s = (tcplab.Scenario(duration=30, sample_interval=0.1)
             .node("a").node("b").link("a", "b", rate="10Mbps", delay="50ms", queue=1000)
             .flow(src="a", dst="b", cc=cc, tcp=dict(init_ssthresh=10, rwnd=1000)))
        ts = tcplab.run(s, seed=1).flow_ts
        return float(ts[ts["time"] <= 20]["cwnd"].iloc[-1])
    nr, wpp = one("newreno"), one("wpp")
    # 10 + 20 s / ~0.1 s per RTT: NewReno gains ~+1 per RTT, WpP ~+1/2
    assert 0.4 < (wpp - 10) / (nr - 10) < 0.6, (nr, wpp)


def poisson(cc, load, seed_duration=200, **cc_params):
    """Lo Cigno et al.'s PEERING scenario: 10 Mb/s, 100 ms RTT, 64-packet buffer, Poisson
    arrivals of 100-packet flows, maximum window 32."""
    lam = load * 10e6 / (100 * 1040 * 8)
    return (
        tcplab.Scenario(duration=seed_duration)
        .node("s").node("r1").node("r2").node("d")
        .link("s", "r1", rate="1Gbps", delay="1ms", queue=100000)
        .link("r1", "r2", rate="10Mbps", delay="48ms", queue=64)
        .link("r2", "d", rate="1Gbps", delay="1ms", queue=100000)
        .generator("poisson", "s", "d", name="f", rate=lam, size={"dist": "constant", "value": 100},
                   stop=seed_duration - 50, cc=cc, cc_params=cc_params,
                   tcp=dict(rwnd=32, init_ssthresh=32, min_rto=1.0))
    )


def drop_and_completion(spec, seeds=(1, 2)):
    drops, cts = [], []
    for s in seeds:
        r = tcplab.run(spec, seed=s)
        bn = r.links[(r.links["src"] == "r1") & (r.links["dst"] == "r2")].iloc[0]
        drops.append(bn["drops_queue"] / bn["arrivals"])
        f = r.flows[r.flows["start"] > 20]
        assert f["completion_time"].notna().all(), "every flow finished"
        cts.append(f["completion_time"].mean())
    return np.mean(drops), np.mean(cts)


def test_esse_cuts_the_drop_rate_and_all_modifications_the_completion_time_at_high_load():
    d_nr, t_nr = drop_and_completion(poisson("newreno", 0.9))
    d_mod, t_mod = drop_and_completion(poisson("rfs+esse", 0.9))
    assert d_mod < d_nr / 3, (d_nr, d_mod)
    assert t_mod < 0.8 * t_nr, (t_nr, t_mod)
