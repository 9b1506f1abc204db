"""The thesis's chapter-3 / Appendix A experiments (tcplab/experiments/sync_tcp*.py): the scenario
builders' geometry, the metrics on hand-made tables, the paper data against the thesis text, and
one experiment end to end at its quick size."""
import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tcplab
from tcplab import metrics as mx
from tcplab import topologies as tp
from tcplab import web
from tcplab.experiments import get, list_experiments, paper_values
from tcplab.experiments import sync_tcp as st
from tcplab.experiments import sync_tcp_appendix as ap
from tcplab.experiments import sync_tcp_sim as sim
from tcplab.experiments import sync_tcp_testbed as tb
from tcplab.sweep import run_experiment
from tcplab.verdicts import outcome_of

EXPERIMENTS = ("sync_signals", "sync_scalability", "sync_rtt_fairness", "sync_rerouting", "sync_door_tower",
               "sync_delay_sweep", "sync_queue_sweep", "sync_error_sweep", "sync_door_tower_cbr", "sync_parking_lot",
               "sync_coexistence", "sync_lambda", "sync_testbed_t1", "sync_testbed_t2", "sync_testbed_t3",
               "sync_testbed_t4")
THESIS = Path(os.environ.get("TCPLAB_SEEDS", Path(__file__).resolve().parents[2] / "shared" / "seeds")) / \
    "thesis-wu-tcpho-synctcp-kentridge.txt"


def rtpd(spec: dict, i: int) -> float:
    """Round-trip propagation delay of pair i: twice the bottleneck's and both side links'."""
    side = {lk["a"]: lk["delay"] for lk in spec["links"]}
    return 2 * (spec["links"][0]["delay"] + side[f"s{i}"] + side[f"d{i}"])


# --------------------------------------------------------------------------- builders


def test_bdp_is_c_times_twice_the_bottleneck_delay_in_1500_byte_packets():
    assert tp.thesis_bdp(1e9, 0.050) == 8333  # 1e9 × 0.1 / 12 000
    assert tp.thesis_bdp(1e9, 0.050, side_s=0.005, include_sides=True) == 10000  # 120 ms
    assert tp.thesis_bdp(500e6, 0.025) == 2083
    spec = tp.thesis_dumbbell(1e9, 0.05, 1e-6, 0.5, [{"cc": "sync_tcp", "side": 0.005}], 10.0)
    bn = spec["links"][0]
    assert (bn["a"], bn["b"], bn["rate"], bn["delay"]) == ("r1", "r2", 1e9, 0.05)
    assert bn["queue"] == {"type": "droptail", "limit": 4166}  # round(0.5 × 8333.3)
    assert bn["loss_ab"] == bn["loss_ba"] == 1e-6
    assert rtpd(spec, 0) == pytest.approx(0.120)
    f = spec["flows"][0]
    assert f["tcp"]["mss"] + f["tcp"]["header"] == 1500 and f["tcp"]["timestamps"] is False
    assert tp.thesis_tcp("fast")["timestamps"] is True
    tcplab.normalise(spec)


def test_side_links_give_the_stated_rtpds():
    assert tp.side_for_rtpd(0.060, 0.020) == pytest.approx(0.005)
    with pytest.raises(ValueError, match="below 2 × the bottleneck delay"):
        tp.side_for_rtpd(0.060, 0.050)
    for size in ("quick", "full"):
        for r in sim.sync_rtt_fairness(size).runs:
            assert rtpd(r.spec, 0) == pytest.approx(0.060)
            assert rtpd(r.spec, 1) == pytest.approx(0.060 * r.params["rtpd_ratio"])
    t1 = tb.sync_testbed_t1("full").runs[0].spec
    assert [rtpd(t1, i) for i in range(3)] == pytest.approx([0.090, 0.100, 0.110])


def test_background_has_the_thesis_flows():
    spec = tp.thesis_dumbbell(1e9, 0.05, 0.0, 0.5, [{"cc": "newreno", "side": 0.005}], 1000.0)
    tp.add_background(spec, 3, 1e9, voip=10, ftp=10, measure=(100.0, 1000.0), cbr_bps=240e6,
                      cbr_on_off={"on": 200, "off": 200}, cbr_start=200.0)
    voip = [f for f in spec["flows"] if f.get("transport") == "voip"]
    ftp = [f for f in spec["flows"] if f["name"].startswith("ftp")]
    cbr = [f for f in spec["flows"] if f.get("transport") == "udp"]
    assert len(voip) == 10 and all(f["start"] >= 100.0 and f["stop"] == 1000.0 for f in voip)
    assert len(ftp) == 10 and all(f["cc"] == "newreno" and f["tcp"]["rwnd_bytes"] == "64KiB" for f in ftp)
    assert cbr[0]["rate"] == 240e6 and cbr[0]["on_off"] == {"on": 200, "off": 200}
    cloud = [lk["delay"] for lk in spec["links"] if lk["a"][:2] in ("vs", "vd", "fs", "fd")]
    assert len(cloud) == 40 and all(0.005 <= d <= 0.025 for d in cloud) and len(set(cloud)) > 30
    assert "generators" not in spec  # no web load while its rate is 0
    tcplab.normalise(spec)
    ids = st.flow_ids(spec)
    assert ids["voip0"] == 1 and ids["voip0.back"] == 2 and ids["voip1"] == 3
    m = st.meta(spec, 100.0, 1000.0)
    assert m["n"] == 1 and m["limit"] == 4166 and len(m["ftp"]) == 10
    # VoIP: 80 kb/s from its start (the calls' phases 2 ms apart) to 1000 s; CBR on in [200, 400]
    # and [600, 800]: 400 s at 240 Mb/s.
    assert [b for _, b in m["dgram"]] == pytest.approx([80e3 * (900 - 0.002 * k) for k in range(10)] + [240e6 * 400])


def test_add_web_writes_the_planned_packmime_generators():
    spec = {"nodes": [], "links": [], "flows": []}
    assert tp.add_web(spec, 0.0, 0.0, 1, 1e9) is None and "generators" not in spec
    info = tp.add_web(spec, 3200.0, 800.0, 1, 1e9, hosts=4, stop=1000.0)
    g = {x["name"]: x for x in spec["generators"]}
    assert g["web_fwd0"]["kind"] == "packmime" and g["web_fwd0"]["rate"] == 3200.0
    assert g["web_fwd0"]["servers"] == info["servers"] and all(h.startswith("c1.") for h in info["servers"])
    assert g["web_rev"]["rate"] == 800.0 and g["web_rev"]["servers"] == info["clients"]
    assert all(x["record"] == "summary" for x in g.values())
    # ns-2 PackMime's window of 20 packets: the reading that keeps heavy-tailed downloads from
    # overshooting the 1 Gb/s path in slow start (docs/sync-tcp.md)
    assert all(x["tcp"]["rwnd"] == 20 for x in g.values())
    assert web.thesis_web_background(duration=1.0)["generators"][0]["tcp"]["rwnd"] == 20
    spec = {"nodes": [], "links": [], "flows": []}
    tp.add_web(spec, 0.0, 0.0, 1, 1e9, schedule=[(0, 200, 3200), (200, 400, 6400)])
    assert [(x["start"], x["stop"], x["rate"]) for x in spec["generators"]] == [(0, 200, 3200), (200, 400, 6400)]


def test_door_and_tower_timings():
    full = st.SIZES["full"]
    door = sim.door_flows(full, "sync_tcp", 1)
    assert [int(f["start"]) for f in door] == [0, 100, 200, 300, 400]
    assert all(0 <= f["start"] - 100 * i < 1 for i, f in enumerate(door))
    assert [f["stop"] for f in door] == [600, 700, 800, 900, 1000]
    assert [f["side"] for f in door] == sim.DOOR_SIDES
    tower = sim.tower_flows(full, "sync_tcp", 1)
    assert len(tower) == 40
    for g in range(4):
        grp = tower[10 * g:10 * g + 10]
        assert {int(f["start"]) for f in grp} == {100 * g}
        assert {f["stop"] for f in grp} == {None if g == 0 else 1000 - 100 * g}
        assert {f["side"] for f in grp} == {sim.TOWER_SIDES[g]}
    quick = sim.tower_flows(st.SIZES["quick"], "sync_tcp", 1)
    assert len(quick) == 8 and [int(f["start"]) for f in quick[::2]] == [0, 10, 20, 30]
    ph = sim.phases([{"start": 0.0, "stop": 6.0}, {"start": 1.0, "stop": 7.0}], 10.0)
    assert ph == [(0.0, 1.0, [0]), (1.0, 6.0, [0, 1]), (6.0, 7.0, [1])]


def run_parking(active: int) -> pd.DataFrame:
    spec = tp.parking_lot(10e6, 0.005, 0.0, 0.5, ["newreno"] * 6, 2.0,
                          starts=[0.0 if i == active else 1.99 for i in range(6)])
    links = tcplab.run(spec, seed=1).links
    return links.set_index(["src", "dst"])["arrivals"]


def test_parking_lot_routes():
    assert tp.PARKING_ROUTES == [("r1", "r4")] * 2 + [("r1", "r2")] * 2 + [("r3", "r4")] * 2
    # Each flow alone: its data crosses exactly the congested links of its group.
    for active, (a, b) in {0: (1, 1), 2: (1, 0), 4: (0, 1)}.items():
        arr = run_parking(active)
        assert (arr[("r1", "r2")] > 100) == bool(a) and (arr[("r3", "r4")] > 100) == bool(b), active
    with pytest.raises(ValueError, match="exactly 6"):
        tp.parking_lot(1e9, 0.05, 0.0, 0.5, ["newreno"] * 5, 1.0)


def test_fixed_lambda_reading_keeps_lambda_where_adaptive_raises_it():
    """App. A.5's fixed λ is cc_params lambda = x with th_emptied = 1 s. Beside an unlimited
    NewReno flow the queue never empties: adaptive λ climbs, the fixed one never changes."""
    out = {}
    for name, cp in (("adaptive", {}), ("fixed", ap.LAMBDA_VARIANTS["fixed 2.0"])):
        flows = [{"cc": "sync_tcp", "side": 0.005, "cc_params": cp}, {"cc": "newreno", "side": 0.005, "start": 0.3}]
        r = tcplab.run(tp.thesis_dumbbell(100e6, 0.05, 0.0, 0.5, flows, 40.0), seed=1)
        e = r.events[r.events["flow"] == 0]
        out[name] = (e.loc[e["event"] == "sync_lambda", "value"], int((e["event"] == "sync_reduce").sum()))
    assert out["adaptive"][0].max() > 2.0
    assert out["fixed"][0].empty and out["fixed"][1] > 5


# --------------------------------------------------------------------------- metrics


TS = pd.DataFrame({"time": [0, 1, 2, 3, 4] * 2, "flow": [0] * 5 + [1] * 5,
                   "delivered": [0, 10, 20, 30, 40, 0, 0, 5, 10, 15]})
FLOWS = pd.DataFrame({"flow": [0, 1], "delivered_bytes": [40 * 1460, 15 * 1000], "delivered_segments": [40, 15]})


def test_window_delivered_throughput_and_utilisation():
    d = mx.window_delivered(TS, [0, 1], 1.0, 3.0)
    assert d.tolist() == [20.0, 10.0]
    # Between samples the last one before counts: [1.5, 3.5] → samples at 1 and 3.
    assert mx.window_delivered(TS, [0], 1.5, 3.5).tolist() == [20.0]
    thr = mx.window_throughput(TS, FLOWS, [0, 1], 1.0, 3.0)
    assert thr.tolist() == pytest.approx([20 * 1460 * 8 / 2, 10 * 1000 * 8 / 2])
    # 20 × 1500 B + 10 × 1040 B on the wire in 2 s, plus 8000 datagram bits, over 1 Mb/s.
    u = mx.window_utilisation(TS, FLOWS, [0, 1], 1e6, 1.0, 3.0, 40, 8000.0)
    assert u == pytest.approx((20 * 1500 * 8 + 10 * 1040 * 8 + 8000) / 2e6)


def test_window_loss_rate_and_sampled_queue_delay():
    drops = pd.DataFrame({"time": [0.5, 1.5, 2.5, 2.6, 9.0], "hop": [0, 0, 0, 1, 0]})
    assert mx.window_loss_rate(drops, 0, 1.0, 3.0, 98) == pytest.approx(2 / 100)
    assert np.isnan(mx.window_loss_rate(drops.iloc[:0], 0, 1.0, 3.0, 0))
    lts = pd.DataFrame({"time": [0, 1, 2, 3, 1], "link": [0, 0, 0, 0, 1], "queue": [9, 2, 4, 6, 100]})
    mean, std = mx.sampled_queue_delay(lts, 0, 1.0, 3.0, 0.001)
    assert mean == pytest.approx(0.004) and std == pytest.approx(np.std([2, 4, 6]) * 0.001)


def test_normalised_buffer_occupancy_is_the_thesis_formula():
    assert mx.normalised_buffer_occupancy(0.061, 0.050, 0.025) == pytest.approx(0.44)  # §3.6.5's example
    assert mx.normalised_buffer_occupancy(0.086, 0.050, 0.025) == pytest.approx(1.44)
    with pytest.raises(ValueError, match="max_queue_delay"):
        mx.normalised_buffer_occupancy(0.06, 0.05, 0.0)


def test_signal_synchronisation_counts_signals_seen_by_all():
    ev = pd.DataFrame({"time": [0.0, 0.0, 1.0, 1.2, 5.0, 9.0, 9.3],
                       "flow": [0, 1, 0, 1, 0, 0, 1],
                       "event": ["sync_mode", "sync_mode"] + ["sync_congestion"] * 5,
                       "value": [1.0, 1.0, 0.02, 0.02, 0.02, 0.02, 0.02]})
    s = mx.signal_synchronisation(ev)
    assert s == {"signals": 3, "by_all": 2, "missed": 1, "fraction_by_all": pytest.approx(2 / 3)}
    assert mx.signal_synchronisation(ev, t0=4.0)["signals"] == 2
    assert np.isnan(mx.signal_synchronisation(ev, t0=20.0)["fraction_by_all"])


def test_phase_fairness_judges_each_phase_after_it_settles():
    it = pd.DataFrame({"time": [1, 2, 3, 4, 1, 2, 3, 4], "flow": [0] * 4 + [1] * 4,
                       "throughput_bps": [9, 9, 5, 5, 1, 1, 5, 5]})
    pf = mx.phase_fairness(it, [(0.0, 4.0, [0, 1]), (2.0, 4.0, [0])])
    # Phase 1: second half (2, 4] → both 5 → 1; the first half's 9 vs 1 is ignored.
    assert pf["jain"].tolist() == [1.0, 1.0] and pf["flows"].tolist() == [2, 1]
    pf = mx.phase_fairness(it, [(0.0, 4.0, [0, 1])], settle=0.0)
    assert pf["jain"][0] == pytest.approx(jain_of([7, 3]))


def jain_of(x):
    x = np.asarray(x, float)
    return x.sum() ** 2 / (len(x) * (x ** 2).sum())


def test_queue_emptied_fraction():
    lts = pd.DataFrame({"time": np.arange(0, 4, 0.5), "link": 0, "queue": [5, 0, 5, 5, 5, 1, 5, 5]})
    # Periods [0,1) [1,2) [2,3) [3,4): minima 0, 5, 1, 5 → with threshold 1, 2 of 4.
    assert mx.queue_emptied_fraction(lts, 0, 0.0, 4.0, 1.0, 1.0) == 0.5
    assert mx.queue_emptied_fraction(lts, 0, 0.0, 4.0, 1.0, 0.0) == 0.25
    assert np.isnan(mx.queue_emptied_fraction(lts, 0, 0.0, 0.5, 1.0, 0.0))


def test_convergence_time_of_two_flows():
    t = np.arange(1, 41, dtype=float)
    a = np.full(40, 10.0)
    b = np.where(t <= 15, 2.0, 9.0)  # within 20 % from t = 16 on
    it = pd.DataFrame({"time": np.r_[t, t], "flow": [0] * 40 + [1] * 40, "throughput_bps": np.r_[a, b]})
    assert tb.convergence_time(it, 5.0) == pytest.approx(10.0)  # interval (15, 16] starts 10 s after 5
    assert np.isnan(tb.convergence_time(it.assign(throughput_bps=np.r_[a, a / 2]), 5.0))


def test_cbr_on_time_in_a_window():
    f = {"start": 200.0, "stop": 900.0, "on_off": {"on": 100.0, "off": 100.0}}
    assert st.cbr_on_time(f, 100.0, 1000.0, 1000.0) == pytest.approx(400.0)  # [200,300] … [800,900]
    assert st.cbr_on_time(f, 250.0, 450.0, 1000.0) == pytest.approx(100.0)
    assert st.cbr_on_time({"start": 0.0}, 10.0, 20.0, 30.0) == 10.0


# --------------------------------------------------------------------------- paper data


def test_paper_data_matches_the_thesis_text():
    p = paper_values("thesis_ch3")
    if not THESIS.exists():
        pytest.skip(f"the thesis text is not at {THESIS} (set TCPLAB_SEEDS)")
    text = THESIS.read_text()
    s = p["s3_5_1"]
    assert re.search(rf"{s['signals_1000s']} congestion signals are detected", text)
    assert re.search(rf"{s['all_signals']} congestion signals .* {s['all_by_all']} of these", text)
    assert re.search(rf"{s['all_missed']} of these congestion signals are not detected", text)
    assert s["all_signals"] - s["all_by_all"] == s["all_missed"]
    assert "almost 25% longer" in text and "30% lower" in text and "drops by about 50%" in text
    assert p["s3_5_2"]["voip_delay_ratio_n64"] == 1.25 and p["s3_5_2"]["ftp_throughput_ratio_n64"] == 0.70
    assert p["s3_6_3"]["ftp_throughput_ratio_cubic"] == 0.50
    a1 = p["table_a1"]["values"]
    names = {"flows 1 and 2": "Flow 1 and 2", "flows 3 and 4": "Flow 3 and 4", "flows 5 and 6": "Flow 5 and 6"}
    for grp, label in names.items():
        row = re.search(rf"^{label}\t(.*)$", text, re.M).group(1).split("\t")
        assert [float(x) for x in row] == [a1[grp][cc] for cc in st.CCS], grp
    t32 = p["table_3_2"]
    order = ["cubic_linux", "compound", "sync_tcp"]
    row = re.search(r"^Average Delay \(ms\)\t(.*)$", text, re.M).group(1).split("\t")
    assert [float(x) for x in row] == [t32["average_delay_ms"][c] for c in order]
    row = re.search(r"^Normalized Average Buffer Occupancy\t(.*)$", text, re.M).group(1).split("\t")
    assert [float(x.rstrip("%")) / 100 for x in row] == pytest.approx([t32["normalised_buffer_occupancy"][c]
                                                                       for c in order])
    row = re.search(r"^Packet Loss Rate\t(.*)$", text, re.M).group(1).split("\t")
    assert [float(x) for x in row] == [t32["packet_loss_rate"][c] for c in order]
    # The example that defines the occupancy: (61 ms − 50 ms)/25 ms = 44 %.
    assert mx.normalised_buffer_occupancy(t32["average_delay_ms"]["sync_tcp"], t32["rtpd_ms"],
                                          t32["max_queueing_delay_ms"]) == pytest.approx(0.44)


# --------------------------------------------------------------------------- plans


def test_every_experiment_is_registered_and_runs_the_five_algorithms():
    names = dict(list_experiments())
    for name in EXPERIMENTS:
        assert name in names, name
        plan = get(name).plan("quick")
        ccs = {r.params["cc"] for r in plan.runs}
        assert ccs == ({"sync_tcp"} if name == "sync_lambda" else set(st.CCS)), name
        seeds = {r.seed for r in plan.runs}
        assert len(seeds) >= 3, name
        assert set(get(name).plan("full").runs[0].params) >= {"cc", "t0", "t1"}


def test_quick_plans_are_valid_and_small():
    total = 0
    for name in EXPERIMENTS:
        for r in get(name).plan("quick").runs:
            tcplab.normalise(r.spec)
            links = r.spec["links"]
            assert links[0]["rate"] <= 100e6 and r.spec["sim"]["duration"] <= 100.0, name
            assert not r.spec.get("generators"), f"{name}: the quick sizes run without the web generator"
            total += 1
    assert total < 600


def test_full_plans_follow_the_thesis():
    sig = sim.sync_signals("full").runs[0]
    assert sig.spec["links"][0]["rate"] == 1e9 and sig.spec["sim"]["duration"] == 1000.0
    assert (sig.params["t0"], sig.params["t1"]) == (100.0, 1000.0)
    assert sig.spec["links"][0]["loss_ab"] == 1e-8
    assert sorted({r.params["n"] for r in sim.sync_scalability("full").runs}) == [1, 4, 16, 64, 256, 1024]
    lam = ap.sync_lambda("full").runs
    assert {r.params["variant"] for r in lam} == set(ap.LAMBDA_VARIANTS)
    ftp = [f for f in lam[0].spec["flows"] if f["name"].startswith("ftp")]
    counts = pd.Series([f["start"] // 200 for f in ftp]).value_counts().sort_index().tolist()
    assert counts == ap.FTP_STEPS
    assert lam[0].spec["links"][0]["queue"]["limit"] == 8333  # qsize 1.0 BDP
    rr = sim.reroute_changes(st.SIZES["full"])
    assert {(c["link"], c["at"], c["delay"]) for c in rr} == {("d0-r2", 300.0, 0.007), ("d1-r2", 600.0, 0.009)}
    coex = ap.sync_coexistence("full").runs
    cbr = next(r for r in coex if r.params["cbr"])
    udp = next(f for f in cbr.spec["flows"] if f.get("transport") == "udp")
    assert (udp["rate"], udp["start"], udp["stop"], udp["on_off"]) == (240e6, 200.0, 900.0, {"on": 100.0,
                                                                                             "off": 100.0})


def test_rerouting_plans_the_link_changes():
    runs = sim.sync_rerouting("quick").runs
    assert runs and all(r.spec["link_changes"] == sim.reroute_changes(st.SIZES["quick"]) for r in runs)
    for r in runs:
        tcplab.normalise(r.spec)


# --------------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def signals_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("sync")
    d, rep = run_experiment("sync_signals", size="quick", jobs=2, out=out, progress=False)
    assert not rep.failed and not rep.analysis_error
    return d


def test_sync_signals_end_to_end(signals_run):
    d = signals_run
    t = pd.read_csv(d / "tables" / "signals.csv")
    assert {"signals", "fraction by all", "paper: signals in 1000 s", "band: signals in 1000 s",
            "verdict"} <= set(t.columns)
    assert t["paper: signals in 1000 s"][0] == 122
    assert t["signals"][0] > 0 and 0 <= t["fraction by all"][0] <= 1
    assert outcome_of(t["verdict"][0]) is not None
    net = pd.read_csv(d / "tables" / "network.csv")
    assert net["cc"].tolist() == list(st.CCS) and (net["runs"] == 3).all()
    for c in ("utilisation", "qdelay ms", "loss rate", "jain", "short-term fairness", "stability", "voip delay ms",
              "buffer occupancy", "ftp Mb/s"):
        assert net[c].notna().all(), c
    assert (net["utilisation"] > 0.5).all() and (net["utilisation"] < 1.05).all()
    # The delay-based Sync-TCP keeps the bottleneck queue shorter than the loss-based CUBIC.
    by = net.set_index("cc")
    assert by.loc["sync_tcp", "qdelay ms"] < by.loc["cubic_linux", "qdelay ms"]
    ej = json.loads((d / "experiment.json").read_text())
    assert ej["size"] == "quick" and sorted(p.name for p in (d / "figures").glob("*.png")) == ["qd_cwnd.png",
                                                                                             "queue.png"]


def test_sync_testbed_t4_end_to_end_gives_table_3_2(tmp_path):
    d, rep = run_experiment("sync_testbed_t4", size="quick", jobs=2, out=tmp_path, progress=False)
    assert not rep.failed and not rep.analysis_error
    t = pd.read_csv(d / "tables" / "table_3_2.csv").set_index("cc")
    assert t.index.tolist() == list(st.CCS)
    paper = paper_values("thesis_ch3")["table_3_2"]
    for cc in ("cubic_linux", "compound", "sync_tcp"):
        assert t.loc[cc, "paper: VoIP delay ms"] == paper["average_delay_ms"][cc]
        assert t.loc[cc, "paper: buffer occupancy"] == paper["normalised_buffer_occupancy"][cc]
        assert t.loc[cc, "band: buffer occupancy"].split()[0] in ("inside", "outside")
        assert t.loc[cc, "band: VoIP loss rate"].split()[0] in ("inside", "outside")
    assert t["paper: VoIP delay ms"][["newreno", "fast"]].isna().all()  # the testbed had no TCP or FAST
    assert (t["VoIP delay ms"] > 0).all() and (t["buffer occupancy"] > -0.05).all()
    net = pd.read_csv(d / "tables" / "network.csv")
    assert {"1 − utilisation", "buffer occupancy", "convergence s"} <= set(net.columns)
    found = json.loads((d / "experiment.json").read_text())["findings"]
    assert len(found) == 2 and all(outcome_of(f) is not None for f in found)


def test_forced_on_sync_rows_at_n_1024():
    runs = [r for r in sim.sync_scalability("full").runs if r.params["cc"] == st.FORCED]
    assert len(runs) == 5 and {r.params["n"] for r in runs} == {1024}
    assert all(f["cc"] == "sync_tcp" and f["cc_params"] == {"qd_max": 10.0} for f in runs[0].spec["flows"][:1024])
    assert not [r for r in sim.sync_scalability("quick").runs if r.params["cc"] == st.FORCED]


def test_comparisons_are_paired_by_seed():
    # Seeds differ a lot (path delays), the algorithms by 1 ms in every seed: the paired interval
    # decides, Welch's straddles 0.
    g = pd.DataFrame({"cc": ["a"] * 3 + ["b"] * 3, "seed": [1, 2, 3, 3, 1, 2],
                      "d": [51.0, 71.2, 90.9, 89.9, 50.0, 70.1]})
    v = st.compare(g, "a", "b", "d", "a above b")
    assert v.outcome == "holds" and "paired over 3" in v.rule
    w = st.compare(g[g["seed"] != 3].iloc[:-1].pipe(lambda x: pd.concat([x, g.iloc[[3]]])), "a", "b", "d", "x")
    assert "Welch" in w.rule  # seeds do not match: unpaired
    assert outcome_of(str(st.compare(g, "b", "a", "d", "b above a"))) == "does not hold"
    best = pd.DataFrame({"cc": [c for c in st.CCS for _ in range(3)], "seed": [1, 2, 3] * 5,
                         "q": [10, 30, 50] * 4 + [9, 29, 49]})
    assert st.sync_best(best, "q", True, "q").outcome == "holds"
    assert st.sync_best(best, "q", False, "q").outcome == "does not hold"
