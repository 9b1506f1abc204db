"""The simulations of the thesis's Appendix A (Sync-TCP against TCP, CUBIC, CTCP and FAST).
Shared scenario, readings and metrics: ``sync_tcp.py`` and docs/sync-tcp.md.

- ``sync_delay_sweep`` (A.1.1, Figs. A.1–A.2): N = 2, 0.5 BDP, delay 25, 50, 100, 200 ms (quick
  25, 100; per 1e-8 only at 100), per 1e-6 and 1e-8. Claims [R]: Sync-TCP has the lowest queueing delay at every
  delay; FAST's utilisation collapses at the largest delay with per 1e-6 but not with 1e-8
  (read: FAST's utilisation at 1e-8 exceeds its utilisation at 1e-6 there).
- ``sync_queue_sweep`` (A.1.2): N = 2, delay 50, per 1e-6, qsize 0.02, 0.05, 0.1, 0.2, 0.5, 1.0
  BDP (quick 0.05, 0.5). Claims [R]: with a tiny queue (the smallest qsize, whose maximum
  queueing delay is below Th_qd = 12 ms) Sync-TCP's loss rate exceeds TCP's; at 0.5 BDP and more
  Sync-TCP has the lowest queueing delay.
- ``sync_error_sweep`` (A.1.3): N = 2, delay 50, 0.5 BDP, per 1e-8 … 1e-3 (quick 1e-8,
  1e-3). Claim [R]: Sync-TCP's utilisation stays high up to 1e-3 (read: above 0.8 at every per).
- ``sync_door_tower_cbr`` (A.2, Figs. A.5–A.10): door and tower as ``sync_door_tower`` with a
  CBR UDP flow of 240 Mb/s (quick: 24 % of the capacity) alternately on and off in 200-s
  periods, on from 200 s (SEED-NOTES's reading; times scaled); the quick size runs the door
  only. Same claims as §3.5.5.
- ``sync_parking_lot`` (A.3, Table A.1): SEED-NOTES's reading of the missing Fig. A.11: two
  congested 1 Gb/s links R1–R2 and R3–R4, 50 ms each, 0.5 BDP, per 1e-6, a fast R2–R3 link,
  6 flows (1–2 across both, 3–4 across R1–R2, 5–6 across R3–R4), side links 5 ms, web load
  between the clouds of each congested link (absent until the web generator is merged; then
  no other background). Table A.1's numbers [E] per group and algorithm with bands; claim [R]:
  Sync-TCP's multiple-congested-link unfairness is worse than TCP's (read: the ratio of flows
  1–2's mean throughput to flows 3–6's is lower for Sync-TCP).
- ``sync_coexistence`` (A.4, Figs. A.12–A.13): 1 Gb/s, delay 50, 0.5 BDP, side links 5 ms, per
  1e-8 … 1e-3 (quick 1e-8); flows 0–1 TCP, flows 2–3 the algorithm under test; the
  all-TCP run is the baseline. L = the TCP flows' throughput divided by twice the mean per-flow
  throughput of the all-TCP run of the same seed. Claims [R]: CUBIC always takes bandwidth from
  TCP (L < 1 at every per); CTCP does not (L > 0.9); at the lowest per TCP takes bandwidth from
  FAST and Sync-TCP (their flows get less than the TCP flows). With the 240 Mb/s CBR on in
  [200, 300], [400, 500], [600, 700], [800, 900] s (per 1e-8; full also 1e-6): FAST and Sync-TCP
  get throughput comparable to TCP's (read: the ratio of their flows' throughput to the TCP
  flows' within ±30 % of 1).
- ``sync_lambda`` (A.5, Figs. A.14–A.15): 16 Sync-TCP flows, 1 Gb/s, delay 50, qsize 1.0 BDP,
  per 1e-6, side links 5 ms; λ fixed at 1.25, fixed at 2.0 (``cc_params`` lambda with
  th_emptied = 1 s, so that the "queue not emptied" test never fires and λ stays at its reset
  value) and adaptive (the default). Cross-traffic loads per 200-s interval: legacy FTP flows
  50, 100, 150, 100, 50 (Table A.3; quick: scaled with the capacity, 5, 10, 15, 10, 5) and
  web 3200, 6400, 9600, 6400, 3200 connections/s (Table A.2; wired through ``add_web``, run
  only once the generator is in the build). Only Sync-TCP runs here (the experiment is about
  its λ). Claim [R]: adaptive λ empties the queue periodically under each load, the fixed values
  do not (read: the fraction of 10-s periods — 1 s at the quick size — in which the sampled
  queue falls to at most C·Th_emptied (2 ms of traffic) is higher with adaptive λ than with
  each fixed λ).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from tcplab import metrics as mx
from tcplab import topologies as tp
from tcplab.experiments import Analysis, Plan, Table, experiment
from tcplab.experiments import sync_tcp as st
from tcplab.experiments import sync_tcp_sim as sim
from tcplab.stats import ci_cols
from tcplab.verdicts import above, all_of, below, greater, ratio_within

P = st.PAPER


def sweep_params(z: dict, **kw) -> dict:
    return {"rate_bps": z["rate"], "n": 2, "side_s": 0.005, "duration_s": z["duration"],
            "window_s": [z["t0"], z["duration"]], "seeds": z["seeds"], "web": st.web_rates(z), **kw}


def sweep_figures(t: pd.DataFrame, x: str, split: str | None, logx: bool = False) -> list:
    figs = []
    groups = t.groupby(split) if split else [(None, t)]
    for key, g in groups:
        for c in ("utilisation", "qdelay ms", "loss rate", "voip delay ms"):
            if c in g.columns:
                suffix = f", {split} {key:g}" if split else ""
                figs.append(st.metric_figure(g, x, c, f"{c} against {x}{suffix}", x, c,
                                             f"{c.split()[0]}_{key:g}" if split else c.split()[0], logx))
    return figs


# --------------------------------------------------------------------------- A.1.1 delay

DELAYS = {"quick": [0.025, 0.1], "full": [0.025, 0.05, 0.1, 0.2]}
DELAY_PERS = [1e-6, 1e-8]


def delay_grid(size: str) -> list[tuple[float, float]]:
    """(per, delay) pairs: every combination at the full size; at the quick size per 1e-8 only
    at the largest delay (where the FAST claim compares the two rates)."""
    return [(per, dl) for per in DELAY_PERS for dl in DELAYS[size]
            if size == "full" or per == 1e-6 or dl == max(DELAYS[size])]


@experiment("sync_delay_sweep", "Sync-TCP App. A.1.1: bottleneck delay 25-200 ms, per 1e-6 and 1e-8", P)
def sync_delay_sweep(size: str) -> Plan:
    z = st.SIZES[size]
    runs = [st.case(z, cc, s, {"per": per, "delay": dl}, n=2, per=per, delay=dl)
            for per, dl in delay_grid(size) for cc in st.CCS for s in z["seeds"]]
    return Plan(runs, analyse_delay, sweep_params(z, grid_per_delay=delay_grid(size), qsize_bdp=0.5))


def analyse_delay(done) -> Analysis:
    m = st.measures(done, ["per", "delay"])
    t = st.order_ccs(st.summary(m, ["per", "delay"]), ["per", "delay"])
    t["verdict"] = ""
    for (per, dl), g in m.groupby(["per", "delay"]):
        v = st.sync_best(g, "qdelay ms", True, f"mean queueing delay (per {per:g}, delay {dl * 1e3:g} ms)")
        t.loc[(t["per"] == per) & (t["delay"] == dl) & (t["cc"] == st.SYNC), "verdict"] = str(v)
    findings = []
    big = m["delay"].max() if len(m) else None
    f = m[(m["cc"] == "fast") & (m["delay"] == big)]
    if len(f):
        findings.append(str(st.compare(f, 1e-8, 1e-6, "utilisation",
                                       f"FAST's utilisation at delay {big * 1e3:g} ms is lower with per 1e-6 than "
                                       "with 1e-8 (it halves on corruption and regrows by at most γ per RTT)",
                                       col="per")))
    return Analysis([Table("delay", "Propagation delay sweep (N = 2, 0.5 BDP)", t, paper="App. A.1.1 (Figs. A.1, A.2)",
                           note=sim.note())], sweep_figures(t, "delay", "per"), findings)


# --------------------------------------------------------------------------- A.1.2 queue size

QSIZES = {"quick": [0.05, 0.5], "full": [0.02, 0.05, 0.1, 0.2, 0.5, 1.0]}


@experiment("sync_queue_sweep", "Sync-TCP App. A.1.2: buffer 0.02-1.0 BDP (N = 2, delay 50 ms, per 1e-6)", P)
def sync_queue_sweep(size: str) -> Plan:
    z = st.SIZES[size]
    runs = [st.case(z, cc, s, {"qsize": q}, n=2, per=1e-6, qsize=q)
            for q in QSIZES[size] for cc in st.CCS for s in z["seeds"]]
    return Plan(runs, analyse_queue, sweep_params(z, qsizes_bdp=QSIZES[size], delay_s=0.05, per=1e-6))


def analyse_queue(done) -> Analysis:
    m = st.measures(done, ["qsize"])
    t = st.order_ccs(st.summary(m, ["qsize"]), ["qsize"])
    t["verdict"] = ""
    small = m["qsize"].min() if len(m) else None
    for q, g in m.groupby("qsize"):
        if q == small:
            v = st.compare(g, st.SYNC, "newreno", "loss rate", f"with a tiny queue ({q:g} BDP, maximum queueing "
                           "delay below Th_qd) Sync-TCP's loss rate exceeds TCP's")
        elif q >= 0.5:
            v = st.sync_best(g, "qdelay ms", True, f"mean queueing delay ({q:g} BDP)")
        else:
            continue
        t.loc[(t["qsize"] == q) & (t["cc"] == st.SYNC), "verdict"] = str(v)
    return Analysis([Table("queue", "Buffer size sweep (N = 2, delay 50 ms, per 1e-6)", t, paper="App. A.1.2",
                           note=sim.note())], sweep_figures(t, "qsize", None, logx=True), [])


# --------------------------------------------------------------------------- A.1.3 error rate

PERS = {"quick": [1e-8, 1e-3], "full": [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3]}
HIGH_UTIL = 0.8


@experiment("sync_error_sweep", "Sync-TCP App. A.1.3: packet error rate 1e-8 ... 1e-3 (N = 2, delay 50 ms)", P)
def sync_error_sweep(size: str) -> Plan:
    z = st.SIZES[size]
    runs = [st.case(z, cc, s, {"per": per}, n=2, per=per) for per in PERS[size] for cc in st.CCS for s in z["seeds"]]
    return Plan(runs, analyse_error, sweep_params(z, pers=PERS[size], delay_s=0.05, qsize_bdp=0.5))


def analyse_error(done) -> Analysis:
    m = st.measures(done, ["per"])
    t = st.order_ccs(st.summary(m, ["per"]), ["per"])
    t["verdict"] = ""
    for per, g in m.groupby("per"):
        v = above(g.loc[g["cc"] == st.SYNC, "utilisation"], HIGH_UTIL,
                  f"Sync-TCP's utilisation stays high (> {HIGH_UTIL:g}) at per {per:g}")
        t.loc[(t["per"] == per) & (t["cc"] == st.SYNC), "verdict"] = str(v)
    return Analysis([Table("error", "Packet error rate sweep (N = 2, delay 50 ms, 0.5 BDP)", t, paper="App. A.1.3",
                           note=sim.note())], sweep_figures(t, "per", None, logx=True), [])


# --------------------------------------------------------------------------- A.2 door/tower with on/off CBR

CBR_SHARE = 0.24  # 240 Mb/s of 1 Gb/s


def cbr_bg(z: dict, on_off: float = 200.0, start: float = 200.0, stop: float | None = None) -> dict:
    b = {"cbr_bps": CBR_SHARE * z["rate"], "cbr_on_off": {"on": st.scaled(z, on_off), "off": st.scaled(z, on_off)},
         "cbr_start": st.scaled(z, start)}
    if stop is not None:
        b["cbr_stop"] = st.scaled(z, stop)
    return b


@experiment("sync_door_tower_cbr", "Sync-TCP App. A.2: door and tower with a 240 Mb/s CBR background on and off "
            "in 200-s periods", P)
def sync_door_tower_cbr(size: str) -> Plan:
    z = st.SIZES[size]
    scenarios = ("door", "tower") if size == "full" else ("door",)
    return Plan(sim.dynamic_runs(z, cbr_bg(z), scenarios=scenarios), sim.analyse_dynamic,
                {**sim.dynamic_params(z), "scenarios": list(scenarios), "cbr_bps": CBR_SHARE * z["rate"], "cbr": "on from 200 s, 200 s on / 200 s "
                 "off (× duration/1000)"})


# --------------------------------------------------------------------------- A.3 parking lot

PARKING_PER = 1e-6


def parking_run(z: dict, cc: str, seed: int) -> object:
    from tcplab.experiments import Run

    spec = tp.parking_lot(z["rate"], 0.05, PARKING_PER, 0.5, [cc] * 6, z["duration"], sample=1.0,
                          starts=st.starts(6, seed))
    fwd, rev = st.web_rates(z)
    tp.add_web(spec, fwd, rev, seed, z["rate"], "r1", "r2", "a.")
    tp.add_web(spec, fwd, rev, seed + 1000, z["rate"], "r3", "r4", "b.")
    return Run({"cc": cc, "t0": z["t0"], "t1": z["duration"]}, spec, seed, wall_limit=7200)


@experiment("sync_parking_lot", "Sync-TCP App. A.3: multiple-congested-link unfairness on a parking lot (Table A.1)", P)
def sync_parking_lot(size: str) -> Plan:
    z = st.SIZES[size]
    runs = [parking_run(z, cc, s) for cc in st.CCS for s in z["seeds"]]
    return Plan(runs, analyse_parking, {"rate_bps": z["rate"], "delay_s": 0.05, "per": PARKING_PER, "qsize_bdp": 0.5,
                                        "middle_link": "10 × rate, 1 ms", "routes": tp.PARKING_ROUTES,
                                        "duration_s": z["duration"], "window_s": [z["t0"], z["duration"]],
                                        "seeds": z["seeds"], "web": st.web_rates(z)})


def parking_measures(done) -> pd.DataFrame:
    groups = st.thesis()["table_a1"]["groups"]
    rows = []
    for d in done:
        r = d.results
        thr = mx.window_throughput(r.flow_ts, r.flows, list(range(6)), d.params["t0"], d.params["t1"]) / 1e6
        row = {"cc": d.params["cc"], "seed": d.seed}
        for g, ids in groups.items():
            row[g] = float(thr.loc[ids].mean())
        row["MCL ratio"] = row["flows 1 and 2"] / ((row["flows 3 and 4"] + row["flows 5 and 6"]) / 2)
        rows.append(row)
    return pd.DataFrame(rows)


def analyse_parking(done) -> Analysis:
    m = parking_measures(done)
    a1 = st.thesis()["table_a1"]
    rate = float(done[0].run.spec["links"][0]["rate"]) if done else 1e9
    rows = []
    for cc in st.CCS:
        g = m[m["cc"] == cc]
        if not len(g):
            continue
        for grp in a1["groups"]:
            row = {"flows": grp, "algorithm": st.label(cc), "cc": cc, "runs": len(g), **ci_cols(g[grp], "Mb/s")}
            paper = a1["values"][grp][cc]
            if rate == 1e9:
                st.with_band(row, "Mb/s", row["Mb/s"], paper)
            else:
                row["paper: Mb/s"] = paper
                row["band: Mb/s"] = ""
            rows.append(row)
    t = pd.DataFrame(rows)
    have = {st.SYNC, "newreno"} <= set(m["cc"]) if len(m) else False
    findings = [str(st.compare(m, "newreno", st.SYNC, "MCL ratio", "Sync-TCP's multiple-congested-link unfairness is "
                               "worse than TCP's (flows 1–2's throughput over flows 3–6's is lower)"))] if have else []
    note = ("Average goodput per flow over the window, mean of the two flows of each group. Bands (±25 %) only at "
            "1 Gb/s (the thesis's capacity); at the quick size's capacity the thesis's Mb/s are shown for reference.")
    if not st.web_rates(st.SIZES["full"])[0]:
        note += " Without the web generator there is no cross traffic: the thesis had ≈300 Mb/s of web load per link."
    return Analysis([Table("table_a1", "Average throughput (Mb/s) of the parking lot's flow groups", t,
                           paper="App. A.3, Table A.1", note=note)], [], findings)


# --------------------------------------------------------------------------- A.4 coexistence

COEX_PERS = {"quick": [1e-8], "full": [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3]}
COEX_CBR_PERS = {"quick": [1e-8], "full": [1e-8, 1e-6]}
COMPARABLE = 0.30


def coex_run(z: dict, cc: str, seed: int, per: float, cbr: bool):
    j = st.starts(4, seed)
    flows = [{"cc": "newreno", "side": 0.005, "start": j[0]}, {"cc": "newreno", "side": 0.005, "start": j[1]},
             {"cc": cc, "side": 0.005, "start": j[2]}, {"cc": cc, "side": 0.005, "start": j[3]}]
    bg = cbr_bg(z, on_off=100.0, start=200.0, stop=900.0) if cbr else None
    dur = z["dyn_duration"] if cbr else z["duration"]
    t0 = st.scaled(z, 100.0) if cbr else z["t0"]
    return st.case(z, cc, seed, {"per": per, "cbr": cbr}, flows=flows, per=per, bg=bg, duration=dur, t0=t0)


@experiment("sync_coexistence", "Sync-TCP App. A.4: two TCP flows against two flows of each algorithm, per "
            "1e-8 ... 1e-3, and with an on/off 240 Mb/s CBR", P)
def sync_coexistence(size: str) -> Plan:
    z = st.SIZES[size]
    runs = [coex_run(z, cc, s, per, False) for per in COEX_PERS[size] for cc in st.CCS for s in z["seeds"]]
    runs += [coex_run(z, cc, s, per, True) for per in COEX_CBR_PERS[size] for cc in st.CCS for s in z["seeds"]]
    return Plan(runs, analyse_coexistence, {"rate_bps": z["rate"], "delay_s": 0.05, "qsize_bdp": 0.5,
                                            "pers": COEX_PERS[size], "cbr_pers": COEX_CBR_PERS[size],
                                            "cbr_bps": CBR_SHARE * z["rate"],
                                            "cbr_on": "[200,300], [400,500], [600,700], [800,900] s (scaled)",
                                            "duration_s": z["duration"], "cbr_duration_s": z["dyn_duration"],
                                            "seeds": z["seeds"], "web": st.web_rates(z)})


def coex_measures(done) -> pd.DataFrame:
    rows = []
    for d in done:
        r = d.results
        thr = mx.window_throughput(r.flow_ts, r.flows, [0, 1, 2, 3], d.params["t0"], d.params["t1"]) / 1e6
        rows.append({"per": d.params["per"], "cbr": d.params["cbr"], "cc": d.params["cc"], "seed": d.seed,
                     "tcp Mb/s": float(thr.loc[[0, 1]].sum()), "other Mb/s": float(thr.loc[[2, 3]].sum())})
    m = pd.DataFrame(rows)
    base = m[m["cc"] == "newreno"].set_index(["per", "cbr", "seed"])
    ref = (base["tcp Mb/s"] + base["other Mb/s"]) / 2
    m["L"] = [row / ref.get(k, np.nan) if ref.get(k, 0) > 0 else np.nan
              for row, k in zip(m["tcp Mb/s"], zip(m["per"], m["cbr"], m["seed"]))]
    m["other/TCP"] = m["other Mb/s"] / m["tcp Mb/s"].where(m["tcp Mb/s"] > 0)
    return m


def analyse_coexistence(done) -> Analysis:
    m = coex_measures(done)
    rows = []
    low = m.loc[~m["cbr"], "per"].min() if len(m) else None
    for (cbr, per, cc), g in m.groupby(["cbr", "per", "cc"], sort=True):
        v = ""
        if cc == "cubic_linux" and not cbr:
            v = below(g["L"], 1.0, f"CUBIC takes bandwidth from TCP (L < 1; per {per:g})")
        elif cc == "compound" and not cbr:
            v = above(g["L"], 0.9, f"CTCP does not take bandwidth from TCP (L > 0.9; per {per:g})")
        elif cc in ("fast", st.SYNC) and not cbr and per == low:
            v = greater(g["tcp Mb/s"], g["other Mb/s"], f"at the lowest per ({per:g}) TCP takes bandwidth from "
                        f"{st.label(cc)} (the TCP flows get more)", paired=True)
        elif cc in ("fast", st.SYNC) and cbr:
            v = ratio_within(g["other Mb/s"], g["tcp Mb/s"], COMPARABLE, f"with the on/off CBR {st.label(cc)} gets "
                             f"throughput comparable to TCP's (ratio within ±{COMPARABLE:.0%}; per {per:g})")
        rows.append({"CBR": bool(cbr), "per": per, "algorithm": st.label(cc), "cc": cc, "runs": len(g),
                     **ci_cols(g["tcp Mb/s"], "TCP flows Mb/s"), **ci_cols(g["other Mb/s"], "other flows Mb/s"),
                     **ci_cols(g["L"], "L"), "verdict": str(v) if v else ""})
    t = pd.DataFrame(rows)
    if len(t):
        t = st.order_ccs(t, ["CBR", "per"])
    figs = []
    for cbr, x in t.groupby("CBR") if len(t) else []:
        figs.append(st.metric_figure(x, "per", "L", f"TCP's L beside each algorithm{' (on/off CBR)' if cbr else ''}",
                                     "packet error rate", "L", f"L_cbr_{int(cbr)}", logx=True))
    return Analysis([Table("coexistence", "Two TCP flows against two flows of each algorithm", t,
                           paper="App. A.4 (Figs. A.12, A.13)",
                           note="Goodput over the window ([100, 1000] s scaled). L: the two TCP flows' goodput over "
                                "twice the mean per-flow goodput of the all-TCP run with the same seed and per (L ≈ 1 "
                                "in the TCP row). Verdicts on 95 % CIs over the seeds.")], figs, [])


# --------------------------------------------------------------------------- A.5 λ

LAMBDA_VARIANTS = {"fixed 1.25": {"lambda": 1.25, "th_emptied": 1.0}, "fixed 2.0": {"lambda": 2.0, "th_emptied": 1.0},
                   "adaptive": {}}
FTP_STEPS = [50, 100, 150, 100, 50]
WEB_STEPS = [3200, 6400, 9600, 6400, 3200]


def lambda_run(z: dict, variant: str, load: str, seed: int):
    k = z["rate"] / 1e9
    steps = [(st.scaled(z, 200.0 * i), st.scaled(z, 200.0 * (i + 1))) for i in range(5)]
    bg = {"voip": z["voip"], "ftp": 0}
    if load == "ftp":
        bg["ftp_schedule"] = [(a, b, max(1, int(round(c * k)))) for (a, b), c in zip(steps, FTP_STEPS)]
    else:
        # Table A.2's steps replace the constant forward web load; the reverse load stays. Both
        # come from one add_web call: the clouds are added once.
        bg.update(web_fwd=0.0, web_rev=0.0)
    run = st.case(z, st.SYNC, seed, {"variant": variant, "load": load}, n=16, per=1e-6, qsize=1.0,
                  duration=z["dyn_duration"], t0=st.scaled(z, 100.0), bg=bg, cc_params=LAMBDA_VARIANTS[variant])
    if load == "web":
        tp.add_web(run.spec, 0.0, st.web_rates(z)[1], seed, z["rate"],
                   schedule=[(a, b, c) for (a, b), c in zip(steps, WEB_STEPS)])
    return run


def lambda_loads(z: dict) -> list[str]:
    return ["ftp"] + (["web"] if z["web"] else [])


@experiment("sync_lambda", "Sync-TCP App. A.5: fixed λ (1.25, 2.0) against adaptive λ under varying FTP (and web) "
            "cross traffic", P)
def sync_lambda(size: str) -> Plan:
    z = st.SIZES[size]
    runs = [lambda_run(z, v, load, s) for load in lambda_loads(z) for v in LAMBDA_VARIANTS for s in z["seeds"]]
    return Plan(runs, analyse_lambda, {"rate_bps": z["rate"], "delay_s": 0.05, "per": 1e-6, "qsize_bdp": 1.0, "n": 16,
                                       "variants": LAMBDA_VARIANTS, "ftp_flows": FTP_STEPS,
                                       "ftp_scale": z["rate"] / 1e9, "web_connections_per_s": WEB_STEPS,
                                       "loads": lambda_loads(z), "duration_s": z["dyn_duration"],
                                       "period_s": lambda_period(z), "seeds": z["seeds"]})


def lambda_period(z: dict) -> float:
    return 10.0 * z["dyn_duration"] / 1000.0 if z["dyn_duration"] >= 1000 else 1.0


def analyse_lambda(done) -> Analysis:
    rows = []
    for d in done:
        r, p = d.results, st.meta(d.run.spec, d.params["t0"], d.params["t1"])
        period = 10.0 if p["t1"] >= 1000 else 1.0
        thr = 0.002 * p["rate"] / st.PACKET_BITS
        frac = mx.queue_emptied_fraction(r.link_ts, 0, p["t0"], p["t1"], period, thr)
        row = st.measure(d)
        rows.append({"load": d.params["load"], "variant": d.params["variant"], "seed": d.seed, "emptied": frac,
                     "utilisation": row["utilisation"], "qdelay ms": row["qdelay ms"], "loss rate": row["loss rate"]})
    m = pd.DataFrame(rows)
    out = []
    for (load, var), g in m.groupby(["load", "variant"], sort=False):
        out.append({"load": load, "λ": var, "runs": len(g), **ci_cols(g["emptied"], "periods emptied"),
                    **ci_cols(g["utilisation"], "utilisation"), **ci_cols(g["qdelay ms"], "qdelay ms"),
                    **ci_cols(g["loss rate"], "loss rate"), "verdict": ""})
    t = pd.DataFrame(out)
    for load, g in m.groupby("load"):
        parts = [st.compare(g, "adaptive", v, "emptied", f"more often than with λ {v}", col="variant")
                 for v in LAMBDA_VARIANTS if v != "adaptive"]
        t.loc[(t["load"] == load) & (t["λ"] == "adaptive"), "verdict"] = str(
            all_of(parts, f"adaptive λ empties the queue periodically under the varying {load} load, fixed λ does not"))
    figs = []
    for load in sorted(set(m["load"])) if len(m) else []:
        runs = {}
        for d in done:
            if d.params["load"] == load:
                runs.setdefault(d.params["variant"], d)
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(len(runs), 1, figsize=(9, 1.9 * len(runs)), sharex=True, squeeze=False)
        for ax, (v, d) in zip(axes[:, 0], runs.items()):
            q = d.results.link_ts[d.results.link_ts["link"] == 0]
            ax.plot(q["time"], q["queue"] * tp.THESIS_PACKET / 1e6, linewidth=0.6)
            ax.set_ylabel(f"λ {v}\nMB", fontsize="small")
        axes[-1, 0].set_xlabel("time (s)")
        fig.suptitle(f"Bottleneck queue, varying {load} load (Figs. A.14, A.15)")
        fig.tight_layout()
        from tcplab.experiments import Figure

        figs.append(Figure(f"queue_{load}", f"Bottleneck queue with each λ, varying {load} load (seed "
                                            f"{next(iter(runs.values())).seed})", fig))
    return Analysis([Table("lambda", "Fixed and adaptive λ: how regularly the queue is emptied", t,
                           paper="App. A.5 (Figs. A.14, A.15; Tables A.2, A.3)",
                           note="periods emptied: fraction of 10-s periods (1 s at the quick size) of [100, 1000] s "
                                "(scaled) in which the sampled queue (every 0.1 s) fell to at most 2 ms of traffic "
                                "(C·Th_emptied). Verdict: Welch 95 % CIs over the seeds.")], figs, [])
