"""Reproduction of Gerla, Ng, Sanadidi, Valla, Wang: "TCP Westwood with Adaptive Bandwidth
Estimation to Improve Efficiency/Friendliness Tradeoffs".

Readings taken where the paper is silent (SEED-NOTES §5): 1400-byte segments throughout;
random errors hit data packets on the bottleneck (wireless) hop only; buffer = pipe where the
paper says so; τ = 1 s, m = 2, T = 4·RTTmin, θ = 1.4; durations 60 s (quick) / 200 s (full)
with replications that differ by random start times in [0, 1) s and by the loss streams;
throughput is each flow's goodput over the whole run. The paper ran single ns-2 runs; we
report means and 95 % confidence intervals over the seeds.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from tcplab import plots
from tcplab.experiments import Analysis, Figure, Plan, Run, Table, experiment, paper_values
from tcplab.metrics import jain_index
from tcplab.stats import ci_cols, mean_ci
from tcplab.verdicts import Verdict, above, all_of, band, below, close, greater, ratio_within, within

PAPER = "Gerla et al., TCP Westwood with adaptive bandwidth estimation (CRB)"
MSS = 1400
WIRE = (MSS + 40) * 8  # bits per packet on the wire
SIZES = {"quick": dict(duration=60.0, seeds=[1, 2, 3, 4, 5]), "full": dict(duration=200.0, seeds=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10])}
LABEL = {"newreno": "NewReno", "westwood_be": "BE", "westwood_re": "RE", "westwood_crb": "CRB"}


def pipe(rate_bps: float, rtt_s: float) -> int:
    return max(4, int(round(rate_bps * rtt_s / WIRE)))


def bottleneck_spec(ccs, rate_bps, rtt_s, buffer, loss, duration, seed, udp=None, sample=0.0, starts=None,
                    stops=None, ack_path="same", tcp=None):
    """A dumbbell whose bottleneck r1→r2 drops data at random with probability `loss`.
    Access links are 100× faster with 1 ms delay; the bottleneck delay makes the RTT.
    ``ack_path="separate"`` is the paper's topology (b): ACKs return r2→r3→r1 over two links
    of the bottleneck's rate and half its delay each (same RTT), never through r2→r1."""
    n = len(ccs)
    one_way = max(rtt_s / 2 - 0.002, 0.0)
    rng = np.random.default_rng(seed)
    starts = starts if starts is not None else rng.uniform(0, 1, n).round(6).tolist()
    nodes = [{"name": "r1", "kind": "router"}, {"name": "r2", "kind": "router"}]
    links = [{"a": "r1", "b": "r2", "rate": rate_bps, "delay": one_way, "queue": buffer, "loss_ab": loss}]
    if ack_path == "separate":
        nodes.append({"name": "r3", "kind": "router"})
        links[0]["cost_ba"] = 10
        links += [{"a": "r2", "b": "r3", "rate": rate_bps, "delay": one_way / 2, "queue": 1000, "cost_ba": 10},
                  {"a": "r3", "b": "r1", "rate": rate_bps, "delay": one_way / 2, "queue": 1000, "cost_ba": 10}]
    elif ack_path != "same":
        raise ValueError(f"ack_path: {ack_path!r}; allowed: same, separate")
    flows = []
    hosts = n + (1 if udp else 0)
    for i in range(hosts):
        nodes += [{"name": f"s{i}"}, {"name": f"d{i}"}]
        links += [{"a": f"s{i}", "b": "r1", "rate": 100 * rate_bps, "delay": 0.001, "queue": 10000},
                  {"a": "r2", "b": f"d{i}", "rate": 100 * rate_bps, "delay": 0.001, "queue": 10000}]
    for i, cc in enumerate(ccs):
        f = {"name": f"{LABEL[cc]}{i}", "src": f"s{i}", "dst": f"d{i}", "cc": cc, "start": starts[i],
             "tcp": {"mss": MSS, "rwnd": 10000, **(tcp or {})}}
        if stops and stops[i] is not None:
            f["stop"] = stops[i]
        flows.append(f)
    if udp:
        flows.append({"name": "udp", "src": f"s{n}", "dst": f"d{n}", "transport": "udp", "packet": 1000, **udp})
    return {"sim": {"duration": duration, "sample_interval": sample}, "nodes": nodes, "links": links, "flows": flows}


def wireless_spec(cc, wired_one_way_s, wireless_bps, loss, duration, seed):
    """Section 6.1: 45 Mb/s wired hop, then an 11 Mb/s (or `wireless_bps`) wireless last hop
    of 0.01 ms with Bernoulli loss on data; buffer = pipe of the path."""
    rtt = 2 * (wired_one_way_s + 0.00001)
    start = float(np.random.default_rng(seed).uniform(0, 1))
    return {
        "sim": {"duration": duration},
        "nodes": [{"name": "src"}, {"name": "bs", "kind": "router"}, {"name": "mh"}],
        "links": [
            {"a": "src", "b": "bs", "rate": 45e6, "delay": wired_one_way_s, "queue": pipe(45e6, rtt) + 10},
            {"a": "bs", "b": "mh", "rate": wireless_bps, "delay": 0.00001, "queue": pipe(wireless_bps, rtt),
             "loss_ab": loss},
        ],
        "flows": [{"name": LABEL[cc], "src": "src", "dst": "mh", "cc": cc, "start": start,
                   "tcp": {"mss": MSS, "rwnd": 10000}}],
    }


def goodputs(done) -> pd.DataFrame:
    """One row per flow of every run: the run's params, seed, flow, name, the flow's algorithm
    (`flow_cc`), transport and goodput in Mb/s."""
    rows = []
    for d in done:
        f = d.results.flows
        for _, r in f.iterrows():
            rows.append({**d.params, "seed": d.seed, "flow": r["flow"], "name": r["name"], "flow_cc": r["cc"],
                         "transport": r["transport"], "mbps": r["goodput_bps"] / 1e6})
    return pd.DataFrame(rows)


def estimate_means(d, flow: int, after: float = 10.0) -> tuple[float, float]:
    ts = d.results.flow_ts
    ts = ts[(ts["flow"] == flow) & (ts["time"] >= after)]
    return float(ts["be_bps"].mean() / 1e6), float(ts["re_bps"].mean() / 1e6)


# --------------------------------------------------------------------------- section 4


ESTIMATOR_CASES = {
    # name: (rate, rtt, buffer, loss, tcpw count, newreno count, udp)
    "fig3": (5e6, 0.070, 32, 0.0, 1, 1, None),
    "fig4": (10e6, 0.070, 63, 0.0, 1, 4, None),
    "table1": (5e6, 0.070, 32, 0.005, 1, 1, None),
    "table2": (10e6, 0.070, 63, 0.01, 1, 4, None),
    "table3": (5e6, 0.070, 32, 0.005, 1, 1, {"rate": 2e6}),
}


@experiment("westwood_estimators", "Westwood BE vs RE estimates against NewReno (section 4: Fig. 3, Tables 1-3)", PAPER)
def westwood_estimators(size: str) -> Plan:
    z = SIZES[size]
    runs = []
    for case, (rate, rtt, buf, loss, nw, nn, udp) in ESTIMATOR_CASES.items():
        variants = ["westwood_be", "westwood_re"] if case.startswith("fig") else ["newreno", "westwood_be", "westwood_re"]
        for v in variants:
            ccs = [v] * nw + ["newreno"] * nn if v != "newreno" else ["newreno"] * (nw + nn)
            for s in z["seeds"]:
                spec = bottleneck_spec(ccs, rate, rtt, buf, loss, z["duration"], s, udp=udp, sample=0.25)
                runs.append(Run({"case": case, "variant": v}, spec, s, wall_limit=600))
    # Figs. 5/6: two TCPW flows; the second is on at 20-60 s and 100-140 s of 160 s (two flows
    # of one sender). Figs. 9/10: one TCPW flow alone with a UDP flow of 0, 1, 2, 3, 1 Mb/s in
    # 20-s steps on 5 Mb/s (SEED-NOTES readings of the unstated timings and profile).
    for v in ("westwood_be", "westwood_re"):
        for s in z["seeds"]:
            jitter = np.random.default_rng(s).uniform(0, 1, 3)
            spec = bottleneck_spec([v, v, v], 5e6, 0.070, 32, 0.0, 160.0, s, sample=0.25,
                                   starts=(jitter + [0.0, 20.0, 100.0]).round(6).tolist(), stops=[None, 60.0, 140.0])
            runs.append(Run({"case": "fig5_6", "variant": v}, spec, s, wall_limit=600))
            udp = {"rate_schedule": [{"at": 20.0 * k, "rate": r} for k, r in enumerate([0, 1e6, 2e6, 3e6, 1e6])]}
            spec = bottleneck_spec([v], 5e6, 0.070, 32, 0.0, 100.0, s, udp=udp, sample=0.25)
            runs.append(Run({"case": "fig9_10", "variant": v}, spec, s, wall_limit=600))
    params = {k: {"rate_bps": c[0], "rtt_s": c[1], "buffer": c[2], "loss": c[3], "tcpw": c[4], "newreno": c[5],
                  "udp": c[6]} for k, c in ESTIMATOR_CASES.items()}
    return Plan(runs, analyse_estimators, {**params, "duration_s": z["duration"], "mss": MSS})


def interval_mbps(ts: pd.DataFrame, flow: int, t0: float, t1: float) -> float:
    """A flow's goodput (Mb/s) between two sample times, from the cumulative `delivered`
    column of the time series."""
    x = ts[ts["flow"] == flow].set_index("time")["delivered"]
    a, b = x.asof(t0), x.asof(t1)
    return float((b - a) * MSS * 8 / (t1 - t0) / 1e6)


def analyse_estimator_figs(done, pv, tables, figs) -> None:
    """Figs. 3 and 4: estimates of one TCPW flow against one (four) NewReno flows."""
    for case, share, title in (("fig3", 2.5, "Fig. 3: one TCPW and one NewReno flow on 5 Mb/s"),
                               ("fig4", 2.0, "Fig. 4: one TCPW and four NewReno flows on 10 Mb/s")):
        rows = []
        for v in ("westwood_be", "westwood_re"):
            ds = [d for d in done if d.params == {"case": case, "variant": v}]
            if not ds:
                continue
            be, re = np.array([estimate_means(d, 0) for d in ds]).T
            row = {"TCPW flow": LABEL[v], **ci_cols(be, "BE estimate Mb/s"), **ci_cols(re, "RE estimate Mb/s"),
                   "fair share Mb/s": share}
            if case == "fig3":
                row.update({"paper: BE estimate": pv["fig3"]["be_estimate"], "paper: RE estimate": pv["fig3"]["re_estimate"],
                            "band: BE estimate": band(np.mean(be), pv["fig3"]["be_estimate"]),
                            "band: RE estimate": band(np.mean(re), pv["fig3"]["re_estimate"])})
            if v == "westwood_be":
                row["verdict"] = str(above(be, share, f"BE overestimates the {share} Mb/s fair share"))
            else:
                row["verdict"] = str(greater(np.abs(be - share), np.abs(re - share),
                                             "RE is closer to the fair share than BE", paired=True))
            rows.append(row)
        tables.append(Table(case, f"{title}: time-averaged estimates of the TCPW flow", pd.DataFrame(rows),
                            paper="Fig. 3" if case == "fig3" else "Fig. 4 (qualitative)",
                            note="Averages after 10 s of flow 0's BE and RE estimates (a TCPW flow computes both); "
                                 "rows: the TCPW variant run; the verdict of each row is decided on that row's runs."))
        d0 = next((d for d in done if d.params == {"case": case, "variant": "westwood_be"}), None)
        if d0 is not None:
            ts = d0.results.flow_ts[d0.results.flow_ts["flow"] == 0]
            fig, ax = plots.new(f"{title}: estimates of a TCPW BE flow", "time (s)", "estimate (Mb/s)")
            ax.plot(ts["time"], ts["be_bps"] / 1e6, label="BE")
            ax.plot(ts["time"], ts["re_bps"] / 1e6, label="RE")
            ax.axhline(share, color="k", linestyle="--", linewidth=1, label="fair share")
            ax.legend(fontsize="small")
            figs.append(Figure(f"{case}_estimates", f"{title.split(':')[0]}: estimates over time (seed {d0.seed})", fig))


ON_OFF = ((1, 20.0, 60.0), (2, 100.0, 140.0))  # (flow, on, off) of the second sender's two flows


def on_off_measures(d, col: str) -> dict:
    """Figs. 5/6, one run: the always-on flow 0 and the on/off sender (flow 1 on 20-60 s, flow 2
    on 100-140 s) while both are on, skipping each period's first 10 s. A stopped flow's frozen
    estimate stays in the time series, so each on/off flow is read only while it is on."""
    ts = d.results.flow_ts
    est_on, est_onoff, thr_on, thr_onoff, early_share = [], [], [], [], []
    for flow, t_on, t_off in ON_OFF:
        w = ts[ts["time"].between(t_on + 10, t_off)]
        est_on.append(w[w["flow"] == 0][col].mean() / 1e6)
        est_onoff.append(w[w["flow"] == flow][col].mean() / 1e6)
        thr_on.append(interval_mbps(ts, 0, t_on + 10, t_off))
        thr_onoff.append(interval_mbps(ts, flow, t_on + 10, t_off))
        a, b = interval_mbps(ts, 0, t_on + 5, t_on + 10), interval_mbps(ts, flow, t_on + 5, t_on + 10)
        early_share.append(b / ((a + b) / 2) if a + b > 0 else np.nan)
    return {"est_on": np.mean(est_on), "est_onoff": np.mean(est_onoff), "thr_on": np.mean(thr_on),
            "thr_onoff": np.mean(thr_onoff), "early_share": np.mean(early_share)}


def analyse_on_off(done, pv, tables, figs) -> None:
    """Figs. 5/6: two TCPW flows (of one sender) share; the late starter gets its share."""
    rows = []
    for v in ("westwood_be", "westwood_re"):
        ds = [d for d in done if d.params == {"case": "fig5_6", "variant": v}]
        if not ds:
            continue
        m = pd.DataFrame([on_off_measures(d, "be_bps" if v == "westwood_be" else "re_bps") for d in ds])
        paper = pv["fig5_6"]["be_estimate" if v == "westwood_be" else "re_estimate"]
        rows.append({
            "estimator": LABEL[v], **ci_cols(m["est_on"], "always-on flow estimate Mb/s"),
            **ci_cols(m["est_onoff"], "on/off flow estimate Mb/s"), "fair share Mb/s": 2.5,
            "paper: estimate with both on": paper, "band: always-on estimate": band(m["est_on"].mean(), paper),
            "band: on/off estimate": band(m["est_onoff"].mean(), paper),
            **ci_cols(m["thr_on"], "always-on flow Mb/s"), **ci_cols(m["thr_onoff"], "on/off flow Mb/s"),
            **ci_cols(m["early_share"], "late flow's share 5-10 s after start"),
            "verdict: estimates": str(ratio_within(m["est_onoff"], m["est_on"], 0.25,
                                                   "the two flows' estimates agree (ratio within 1 ± 0.25)")),
            "verdict: throughput": str(ratio_within(m["thr_onoff"], m["thr_on"], 0.25,
                                                    "the two flows share the throughput equally (ratio within 1 ± 0.25)")),
            "verdict: late starter": str(above(m["early_share"], 0.75,
                                               "the late starter gets its share within 10 s (> 0.75 of an equal share)")),
        })
    if not rows:
        return
    tables.append(Table("fig5_6", "Figs. 5/6: two TCPW flows, one on at 20-60 s and 100-140 s (5 Mb/s)", pd.DataFrame(rows),
                        paper="Figs. 5 and 6",
                        note="Estimates and goodput over 30-60 s and 110-140 s, when both are on (each on/off flow "
                             "only while it runs); late flow's share: its goodput over 5-10 s after it starts divided "
                             "by half the two flows' total."))
    d0 = next(d for d in done if d.params == {"case": "fig5_6", "variant": "westwood_be"})
    ts = d0.results.flow_ts
    fig, ax = plots.new("Figs. 5/6: BE estimates of two TCPW flows", "time (s)", "BE estimate (Mb/s)")
    for f, lbl, on, off in ((0, "always on", 0, 160), (1, "on 20-60 s", 20, 60), (2, "on 100-140 s", 100, 140)):
        x = ts[(ts["flow"] == f) & ts["time"].between(on, off)]
        ax.plot(x["time"], x["be_bps"] / 1e6, label=lbl)
    ax.legend(fontsize="small")
    figs.append(Figure("fig5_6_estimates", f"Figs. 5/6: estimates over time (seed {d0.seed})", fig))


UDP_STEPS = [0, 1, 2, 3, 1]  # Mb/s in 20-s steps (Figs. 9/10)


def analyse_residual(done, tables, figs, findings) -> None:
    """Figs. 9/10: a TCPW flow alone with a time-varying UDP flow."""
    rows = []
    for v in ("westwood_be", "westwood_re"):
        for d in [d for d in done if d.params == {"case": "fig9_10", "variant": v}]:
            ts = d.results.flow_ts[d.results.flow_ts["flow"] == 0]
            col = "be_bps" if v == "westwood_be" else "re_bps"
            for k, udp in enumerate(UDP_STEPS):
                x = ts[ts["time"].between(20 * k + 5, 20 * k + 20)][col] / 1e6
                rows.append({"estimator": LABEL[v], "seed": d.seed, "interval s": f"{20 * k + 5}-{20 * k + 20}",
                             "UDP Mb/s": udp, "residual Mb/s": 5 - udp, "estimate": x.mean(), "std": x.std()})
    if not rows:
        return
    per = pd.DataFrame(rows)
    out = []
    for (est, iv, udp, res), x in per.groupby(["estimator", "interval s", "UDP Mb/s", "residual Mb/s"], sort=False):
        out.append({"estimator": est, "interval s": iv, "UDP Mb/s": udp, "residual Mb/s": res,
                    **ci_cols(x["estimate"], "estimate Mb/s"), "std within interval Mb/s": x["std"].mean(),
                    "verdict": str(within(x["estimate"], res, 0.3, "tracks the residual bandwidth (±30 %)"))})
    tables.append(Table("fig9_10", "Figs. 9/10: TCPW alone with UDP at 0, 1, 2, 3, 1 Mb/s (5 Mb/s link)",
                        pd.DataFrame(out), paper="Figs. 9 and 10 (qualitative)"))
    stab = per.groupby(["estimator", "seed"])["std"].mean()
    if {"BE", "RE"} <= set(stab.index.get_level_values(0)):
        findings.append(str(greater(stab["BE"].values, stab["RE"].values,
                                    "with time-varying UDP, RE is more stable than BE (lower mean within-interval "
                                    "standard deviation of the estimate)")))


TABLE_TITLES = {"table1": "Table 1: 5 Mb/s, 0.5 % error, one TCPW + one NewReno",
                "table2": "Table 2: 10 Mb/s, 1 % error, one TCPW + four NewReno",
                "table3": "Table 3: 5 Mb/s, 0.5 % error, 2 Mb/s UDP, one TCPW + one NewReno"}
COMBINATION = {"newreno": "all NewReno", "westwood_be": "BE & NewReno", "westwood_re": "RE & NewReno"}


def table_case_measures(g: pd.DataFrame, done, case: str, v: str) -> pd.DataFrame:
    """Per seed: the TCPW flow's goodput and estimate, NewReno's mean per flow, the TCP total."""
    sub = g[(g["case"] == case) & (g["variant"] == v) & (g["transport"] == "tcp")]
    per = pd.DataFrame({
        "total": sub.groupby("seed")["mbps"].sum(),
        "newreno": (sub[sub["flow_cc"] == "newreno"] if v == "newreno" else sub[sub["flow"] > 0])
        .groupby("seed")["mbps"].mean(),
    })
    if v != "newreno":
        per["tcpw"] = sub[sub["flow"] == 0].groupby("seed")["mbps"].mean()
        est = {d.seed: estimate_means(d, 0)[0 if v == "westwood_be" else 1]
               for d in done if d.params == {"case": case, "variant": v}}
        per["estimate"] = pd.Series(est)
    return per


def analyse_tables(done, g, pv, tables, findings) -> None:
    """Tables 1-3: a TCPW flow (BE or RE) beside NewReno with random errors."""
    for case, title in TABLE_TITLES.items():
        paper = pv[case]
        per = {v: table_case_measures(g, done, case, v) for v in COMBINATION}
        per = {v: p for v, p in per.items() if len(p)}
        if len(per) < 3:
            continue
        rows = []
        for v, p in per.items():
            pkey = {"newreno": "nr+nr" if "nr+nr" in paper else "nr", "westwood_be": "be+nr", "westwood_re": "re+nr"}[v]
            pp = paper[pkey]
            row = {"combination": COMBINATION[v]}
            for q, label in (("estimate", "TCPW estimate Mb/s"), ("newreno", "NewReno per flow Mb/s"),
                             ("tcpw", "TCPW Mb/s"), ("total", "total Mb/s")):
                row.update(ci_cols(p[q], label) if q in p else {label: np.nan, f"{label} ±95%": np.nan})
            for q, label in (("estimate", "estimate"), ("newreno", "NewReno"), ("tcpw", "TCPW"), ("total", "total")):
                row[f"paper: {label}"] = pp.get(q, np.nan)
            for q, label in (("estimate", "estimate"), ("newreno", "NewReno"), ("tcpw", "TCPW"), ("total", "total")):
                row[f"band: {label}"] = band(p[q].mean(), pp[q]) if q in pp and q in p else ""
            rows.append(row)
        t = pd.DataFrame(rows)
        nr, be, re = per["newreno"], per["westwood_be"], per["westwood_re"]
        t["verdict"] = ["",
                        str(greater(be["total"], nr["total"], "BE raises the total over all-NewReno")),
                        str(close(re["newreno"], nr["newreno"], 0.15,
                                  "NewReno keeps its share beside RE (within 15 % of its all-NewReno throughput)"))]
        tables.append(Table(case, title, t, paper=f"{case.capitalize()} of the paper",
                            note="Means ± 95 % CI over the seeds; band: the measured mean within ±25 % of the paper's "
                                 "value."))
        findings.append(str(greater(be["tcpw"], re["tcpw"], f"{case.capitalize()}: TCPW BE gets more than TCPW RE")))


def plot_estimates_over_time(done, figs) -> None:
    """Figs. 7, 8 and 11: the TCPW flow's estimates in the Tables 1-3 scenarios; Figs. 9/10."""
    for case, figname in (("table1", "Fig. 7"), ("table2", "Fig. 8"), ("table3", "Fig. 11"), ("fig9_10", "Figs. 9/10")):
        ds = {v: next((d for d in done if d.params == {"case": case, "variant": v}), None)
              for v in ("westwood_be", "westwood_re")}
        if not all(ds.values()):
            continue
        fig, ax = plots.new(f"{figname}: estimates of the TCPW flow ({case})", "time (s)", "estimate (Mb/s)")
        for v, d in ds.items():
            ts = d.results.flow_ts[d.results.flow_ts["flow"] == 0]
            col = "be_bps" if v == "westwood_be" else "re_bps"
            ax.plot(ts["time"], ts[col] / 1e6, label=f"{LABEL[v]} (TCPW {LABEL[v]} flow)", linewidth=0.8)
        if case == "fig9_10":
            ax.step([20 * k for k in range(6)], [5 - u for u in UDP_STEPS] + [5 - UDP_STEPS[-1]], where="post",
                    color="k", linestyle="--", linewidth=1, label="residual bandwidth")
        ax.legend(fontsize="small")
        figs.append(Figure(f"{case}_estimates", f"{figname}: estimates over time (seed {ds['westwood_be'].seed})", fig))


def analyse_estimators(done) -> Analysis:
    pv = paper_values("westwood")
    g = goodputs(done)
    tables, figs, findings = [], [], []
    analyse_estimator_figs(done, pv, tables, figs)
    analyse_on_off(done, pv, tables, figs)
    analyse_residual(done, tables, figs, findings)
    plot_estimates_over_time(done, figs)
    analyse_tables(done, g, pv, tables, findings)
    return Analysis(tables, figs, findings)


# --------------------------------------------------------------------------- section 5


LOSS_CAUSE_CASES = {
    # Fig. 12: congestion only; Fig. 13: random errors only; Fig. 14: both.
    "congestion (Fig. 12)": dict(n=2, rate=5e6, rtt=0.070, buffer=32, loss=0.0, expect="RE"),
    "errors (Fig. 13)": dict(n=1, rate=2e6, rtt=0.100, buffer=200, loss=0.01, expect="BE"),
    "mixed (Fig. 14)": dict(n=4, rate=5e6, rtt=0.070, buffer=32, loss=0.01, expect=None),
}


@experiment("westwood_loss_cause", "cwnd against RE·RTTmin at loss events and CRB's estimator choice (Figs. 12-14)",
            PAPER)
def westwood_loss_cause(size: str) -> Plan:
    z = SIZES[size]
    runs = [Run({"case": case}, bottleneck_spec(["westwood_crb"] * c["n"], c["rate"], c["rtt"], c["buffer"], c["loss"],
                                                  z["duration"], s), s, wall_limit=600)
            for case, c in LOSS_CAUSE_CASES.items() for s in z["seeds"]]
    return Plan(runs, analyse_loss_cause, {"cases": LOSS_CAUSE_CASES, "theta": 1.4, "duration_s": z["duration"]})


def loss_events(d) -> pd.DataFrame:
    """cwnd (before the reaction) and RE·RTTmin (segments) at each 3-dup-ACK loss event."""
    e = d.results.events
    fr = e[e["event"] == "fast_retransmit"][["time", "flow", "value"]].rename(columns={"value": "cwnd"})
    re = e[e["event"] == "re_window"][["time", "flow", "value"]].rename(columns={"value": "re_window"})
    use = e[e["event"] == "crb_uses_re"][["time", "flow", "value"]].rename(columns={"value": "uses_re"})
    m = fr.merge(re, on=["time", "flow"]).merge(use, on=["time", "flow"])
    return m.drop_duplicates(["time", "flow"])


def analyse_loss_cause(done) -> Analysis:
    rows, pts = [], []
    for case, c in LOSS_CAUSE_CASES.items():
        per_run = [(d.seed, loss_events(d)) for d in done if d.params["case"] == case]
        evs = pd.concat([e for _, e in per_run] or [pd.DataFrame()])
        if evs.empty:
            continue
        ratio = evs["cwnd"] / evs["re_window"]
        picks_re = float(evs["uses_re"].mean())
        row = {"case": case, "loss events": len(evs), "median cwnd/(RE·RTTmin)": float(ratio.median()),
               "CRB picks RE": picks_re}
        if c["expect"]:
            right = [e["uses_re"].mean() if c["expect"] == "RE" else 1 - e["uses_re"].mean()
                     for _, e in per_run if len(e)]
            row.update(ci_cols(right, "right choice (per run)"))
            row["verdict"] = str(above(right, 0.5, f"CRB mostly picks {c['expect']} (share of loss events per run)"))
        else:
            row["verdict"] = "no single expected cause"
        rows.append(row)
        pts.append((case, evs))
    fig, ax = plots.new("Figs. 12-14: cwnd vs RE·RTTmin at 3-dup-ACK loss events", "RE·RTTmin (segments)",
                        "cwnd at the loss (segments)")
    for case, evs in pts:
        ax.scatter(evs["re_window"], evs["cwnd"], s=10, alpha=0.6, label=case)
    if pts:
        hi = max(float(e["re_window"].max()) for _, e in pts)
        ax.plot([0, hi], [0, hi], "k--", linewidth=1, label="cwnd = RE·RTTmin")
        ax.plot([0, hi], [0, 1.4 * hi], "k:", linewidth=1, label="θ = 1.4")
        ax.legend(fontsize="small")
    return Analysis([Table("loss_cause", "Loss-cause test at loss events (θ = 1.4)", pd.DataFrame(rows),
                           paper="Figs. 12-14 (qualitative)",
                           note="Congestion-only losses should show cwnd ≫ RE·RTTmin (CRB uses RE); random-error "
                                "losses cwnd ≈ RE·RTTmin (CRB uses BE).")],
                    [Figure("loss_cause", "cwnd against RE·RTTmin at loss events", fig)])


# --------------------------------------------------------------------------- section 6.1

ALGOS = ["newreno", "westwood_be", "westwood_crb", "westwood_re"]
LOSSY_GRID = {
    "quick": {"fig16": [0.001, 0.01, 0.03], "fig17": [0.005, 0.035, 0.1], "fig18": [2e6, 11e6, 20e6]},
    "full": {"fig16": [0.0, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.03, 0.05],
             "fig17": [0.0, 0.0025, 0.005, 0.0125, 0.025, 0.035, 0.05, 0.075, 0.1, 0.15, 0.2],
             "fig18": [1e6, 2e6, 5e6, 8e6, 11e6, 15e6, 20e6]},
}


@experiment("westwood_lossy_path", "Throughput on a lossy wired/wireless path vs loss, delay, capacity (Figs. 16-18)",
            PAPER)
def westwood_lossy_path(size: str) -> Plan:
    z, grid = SIZES[size], LOSSY_GRID[size]
    runs = []
    for cc in ALGOS:
        for s in z["seeds"]:
            for p in grid["fig16"]:
                runs.append(Run({"figure": "fig16", "x": p, "cc": cc}, wireless_spec(cc, 0.035, 11e6, p, z["duration"], s), s))
            for dly in grid["fig17"]:
                runs.append(Run({"figure": "fig17", "x": dly, "cc": cc},
                                wireless_spec(cc, dly, 11e6, 0.001, z["duration"], s), s))
            for cap in grid["fig18"]:
                runs.append(Run({"figure": "fig18", "x": cap, "cc": cc},
                                wireless_spec(cc, 0.035, cap, 0.001, z["duration"], s), s))
    return Plan(runs, analyse_lossy, {"wired": "45 Mb/s", "wireless": "11 Mb/s, 0.01 ms, Bernoulli loss on data",
                                      "buffers": "pipe size", "grid": grid, "duration_s": z["duration"]})


LOSSY_AXES = {"fig16": ("wireless loss rate", "loss", 1.0), "fig17": ("wired one-way delay (ms)", "delay", 1000.0),
              "fig18": ("wireless capacity (Mb/s)", "capacity", 1e-6)}


def ordering(per: dict) -> Verdict:
    """BE ≥ CRB ≥ RE ≥ NewReno, each '≥' with 5 % slack: mean(a) − mean(b) > −0.05·mean(b)."""
    parts = []
    for a, b in (("westwood_be", "westwood_crb"), ("westwood_crb", "westwood_re"), ("westwood_re", "newreno")):
        parts.append(greater(per[a], per[b], f"{LABEL[a]} ≥ {LABEL[b]}", margin=-0.05 * float(np.mean(per[b]))))
    return all_of(parts, "BE ≥ CRB ≥ RE ≥ NewReno (each within 5 % slack)")


def gains_by_seed(sub: pd.DataFrame) -> pd.DataFrame:
    """Per (x, seed): each algorithm's goodput and its gain over NewReno of the same seed (%)."""
    w = sub.pivot_table(index=["x", "seed"], columns="cc", values="mbps")
    for cc in ALGOS[1:]:
        w[f"gain {cc}"] = 100 * (w[cc] / w["newreno"] - 1)
    return w


def lossy_peak_table(figure: str, w: pd.DataFrame, scale: float, xlabel: str, pv) -> pd.DataFrame:
    """The measured peak gain of BE and CRB (and RE for Fig. 16) against the paper's number."""
    rows = []
    mean_gain = w.groupby(level="x").mean()
    for cc in ALGOS[1:]:
        if figure == "fig16":
            paper = pv["fig16"]["peak_gain_percent"].get(cc)
        elif figure == "fig17":
            paper = pv["fig17"]["peak_gain_percent"].get(cc)
        else:
            paper = pv["fig18"]["gain_percent_at_20mbps"].get(cc)
        if paper is None:
            continue
        if figure == "fig18":
            at = max(mean_gain.index)
            label = "gain % at the largest capacity"
        else:
            at = mean_gain[f"gain {cc}"].idxmax()
            label = "peak gain %"
        vals = w.xs(at, level="x")[f"gain {cc}"]
        rows.append({"TCPW": LABEL[cc], label: float(vals.mean()), f"{label} ±95%": mean_ci(vals).half_width,
                     f"at {xlabel}": at * scale, f"paper: {label}": paper,
                     **({"paper: at two-way ms": pv["fig17"]["peak_at_two_way_ms"]} if figure == "fig17" else {}),
                     f"band: {label}": band(float(vals.mean()), paper)})
    return pd.DataFrame(rows)


def lossy_claims(figure: str, w: pd.DataFrame) -> list[str]:
    """The paper's qualitative claims for Figs. 16-18 beyond the ordering."""
    xs = sorted(set(w.index.get_level_values("x")))
    out = []
    if figure == "fig16":
        for x in [x for x in xs if 0.001 <= x <= 0.01]:
            s = w.xs(x, level="x")
            out.append(str(greater(s["westwood_be"], s["newreno"], f"at loss {x:g} BE gains over NewReno")))
    elif figure == "fig17":
        for x in [x for x in xs if x <= 0.0025]:
            s = w.xs(x, level="x")
            out.append(str(all_of([ratio_within(s[cc], s["newreno"], 0.10, f"{LABEL[cc]} ≈ NewReno")
                                   for cc in ALGOS[1:]],
                                  f"at {1000 * x:g} ms one way all algorithms are equally effective (±10 %)")))
        gain = w.groupby(level="x")["gain westwood_be"].mean()
        peak = gain.idxmax()
        if peak < xs[-1]:
            s_peak, s_last = w.xs(peak, level="x"), w.xs(xs[-1], level="x")
            out.append(str(greater(s_peak["gain westwood_be"].values, s_last["gain westwood_be"].values,
                                   f"BE's gain falls beyond its peak ({1000 * peak:g} ms one way → {1000 * xs[-1]:g} ms)")))
    else:
        lo, hi = w.xs(xs[0], level="x"), w.xs(xs[-1], level="x")
        for cc in ("westwood_be", "westwood_crb"):
            out.append(str(greater(hi[f"gain {cc}"].values, lo[f"gain {cc}"].values,
                                   f"{LABEL[cc]}'s gain grows with capacity ({xs[0] / 1e6:g} → {xs[-1] / 1e6:g} Mb/s)")))
    return out


def analyse_lossy(done) -> Analysis:
    pv = paper_values("westwood")
    g = goodputs(done)
    tables, figs, findings = [], [], []
    for figure, (xlabel, xname, scale) in LOSSY_AXES.items():
        sub = g[g["figure"] == figure]
        if sub.empty:
            continue
        w = gains_by_seed(sub)
        rows = []
        for x, s in w.groupby(level="x"):
            row = {xlabel: x * scale}
            for cc in ALGOS:
                row.update(ci_cols(s[cc], f"{LABEL[cc]} Mb/s"))
            for cc in ALGOS[1:]:
                row[f"{LABEL[cc]} gain %"] = float(s[f"gain {cc}"].mean())
            row["verdict"] = str(ordering({cc: s[cc].values for cc in ALGOS}))
            rows.append(row)
        name = figure.replace("fig", "Fig. ")
        tables.append(Table(figure, f"{name}: throughput against {xname}", pd.DataFrame(rows),
                            paper=f"{name} (qualitative ordering)",
                            note="Gain % = mean over seeds of (X − NewReno) / NewReno × 100, same seed (SEED-NOTES "
                                 "reading of 'gain'); the paper's [R] ordering is BE ≥ CRB > RE > NewReno."))
        tables.append(Table(f"{figure}_peak", f"{name}: the largest gains against the paper's", 
                            lossy_peak_table(figure, w, scale, xlabel, pv), paper=f"{name} (peak gains)"))
        findings += lossy_claims(figure, w)
        m = sub.groupby(["x", "cc"])["mbps"].agg(["mean", lambda v: mean_ci(v).half_width]).reset_index()
        m.columns = ["x", "cc", "mbps", "ci"]
        fig = plots.errorbars(m.assign(x=m["x"] * scale, cc=m["cc"].map(LABEL)), "x", "mbps", "ci", "cc",
                              f"{name}: throughput", xlabel, "throughput (Mb/s)")
        if figure == "fig16":
            fig.axes[0].set_xscale("symlog", linthresh=0.0005)
        figs.append(Figure(figure, f"{name}: mean ± 95 % CI", fig))
    return Analysis(tables, figs, findings)


# --------------------------------------------------------------------------- topology (b)

ACK_PATH_GRID = {"quick": dict(losses=[0.0, 0.01]), "full": dict(losses=[0.0, 0.001, 0.005, 0.01, 0.02])}


@experiment("westwood_ack_path", "Topologies (a) and (b): ACKs on the data path or on a separate path; one flow "
            "alone and a CRB/NewReno pair on a lossy 5 Mb/s, 70 ms bottleneck", PAPER)
def westwood_ack_path(size: str) -> Plan:
    z, grid = SIZES[size], ACK_PATH_GRID[size]
    runs = []
    for s in z["seeds"]:
        for path in ("same", "separate"):
            for loss in grid["losses"]:
                for cc in ALGOS:
                    runs.append(Run({"ack_path": path, "loss": loss, "case": "alone", "cc": cc},
                                    bottleneck_spec([cc], 5e6, 0.070, 32, loss, z["duration"], s, ack_path=path), s))
                runs.append(Run({"ack_path": path, "loss": loss, "case": "CRB+NewReno", "cc": "westwood_crb"},
                                bottleneck_spec(["westwood_crb", "newreno"], 5e6, 0.070, 32, loss, z["duration"], s,
                                                ack_path=path), s))
    return Plan(runs, analyse_ack_path, {"bottleneck": "5 Mb/s, 70 ms RTT, buffer 32", "grid": grid,
                                         "separate ACK path": "r2→r3→r1, 5 Mb/s, same delay, no loss"})


def analyse_ack_path(done) -> Analysis:
    g = goodputs(done)
    g["who"] = np.where(g["case"] == "alone", g["cc"].map(LABEL), g["case"] + ": " + g["flow_cc"].map(LABEL))
    per = g.groupby(["loss", "who", "ack_path", "seed"])["mbps"].mean().unstack("ack_path")
    rows = []
    for (loss, who), x in per.groupby(level=["loss", "who"]):
        rows.append({"loss": loss, "who": who, **ci_cols(x["same"], "(a) same path Mb/s"),
                     **ci_cols(x["separate"], "(b) separate path Mb/s"),
                     "(b) / (a)": float(x["separate"].mean() / x["same"].mean()),
                     "verdict": str(ratio_within(x["separate"], x["same"], 0.10,
                                                 "the ACK path does not change the throughput (ratio within 1 ± 0.1, "
                                                 "same seed)"))})
    m = pd.DataFrame(rows)
    fig, ax = plots.new("Topology (b) against (a)", "throughput with ACKs on the data path (Mb/s)",
                        "throughput with ACKs on a separate path (Mb/s)")
    ax.scatter(m["(a) same path Mb/s"], m["(b) separate path Mb/s"])
    hi = float(max(m["(a) same path Mb/s"].max(), m["(b) separate path Mb/s"].max()))
    ax.plot([0, hi], [0, hi], "k--", linewidth=1)
    return Analysis([Table("ack_path", "Throughput in topologies (a) and (b)", m,
                           note="(b): the reverse path is uncongested and lossless; ACKs see no queue on r2→r1. "
                                "A tcplab check, not a claim of the paper.")],
                    [Figure("ack_path", "Topology (b) against (a), one point per algorithm and loss rate", fig)])


# --------------------------------------------------------------------------- section 6.2

FAIR_BUFFERS = {"quick": [8, 32, 64, 160], "full": [8, 16, 32, 48, 64, 96, 128, 160]}


@experiment("westwood_fairness", "Fairness of 10 CRB or 10 NewReno flows, friendliness pairs, buffer size (Figs. 19-22)",
            PAPER)
def westwood_fairness(size: str) -> Plan:
    z = SIZES[size]
    rate, rtt = 10e6, 0.070
    runs = []
    for s in z["seeds"]:
        for cc in ("westwood_crb", "newreno"):
            runs.append(Run({"figure": "fig19", "cc": cc}, bottleneck_spec([cc] * 10, rate, rtt, 64, 0.0, z["duration"], s), s))
        for loss, fig in ((0.001, "fig20"), (0.02, "fig21")):
            for cc in ("westwood_be", "westwood_crb", "newreno"):
                runs.append(Run({"figure": fig, "cc": cc},
                                bottleneck_spec([cc, "newreno"], rate, rtt, 64, loss, z["duration"], s), s))
        for b in FAIR_BUFFERS[size]:
            for cc in ("westwood_be", "westwood_re", "westwood_crb"):
                runs.append(Run({"figure": "fig22", "cc": cc, "buffer": b},
                                bottleneck_spec([cc, "newreno"], rate, rtt, b, 0.0, z["duration"], s), s))
    return Plan(runs, analyse_fairness, {"bottleneck": "10 Mb/s, 35 ms one way (RTT ≈ 70 ms)", "pipe_packets": 64,
                                         "buffers": FAIR_BUFFERS[size], "duration_s": z["duration"]})


def pair_measures(g: pd.DataFrame, fig: str) -> dict:
    """Figs. 20/21, per pair kind: per-seed goodput of the first flow, of the NewReno flow, and total."""
    sub = g[g["figure"] == fig]
    out = {}
    for cc in ("westwood_be", "westwood_crb", "newreno"):
        x = sub[sub["cc"] == cc]
        first = x[x["flow"] == 0].groupby("seed")["mbps"].mean()
        nr = x[x["flow"] == 1].groupby("seed")["mbps"].mean()
        out[cc] = pd.DataFrame({"first": first, "newreno": nr, "total": first + nr})
    return out


def pair_claims(fig: str, p: dict) -> list:
    be, crb, nrnr = p["westwood_be"], p["westwood_crb"], p["newreno"]
    claims = [all_of([greater(be["total"], crb["total"], "BE/NR total > CRB/NR total"),
                      greater(be["total"], nrnr["total"], "BE/NR total > NR/NR total")],
                     "BE/NewReno has the highest total")]
    if fig == "fig20":
        claims.append(close(crb["newreno"], nrnr["newreno"], 0.15,
                            "CRB barely affects NewReno (NewReno beside CRB within 15 % of NewReno beside NewReno)"))
        claims.append(all_of([greater(be["first"], crb["first"], "BE > CRB"),
                              greater(be["first"], nrnr["first"], "BE > NewReno")], "BE gets the most"))
    else:
        claims += [close(p[cc]["newreno"], nrnr["newreno"], 0.15,
                         f"at 2 % {LABEL[cc]} does not hurt NewReno (within 15 % of NewReno beside NewReno)")
                   for cc in ("westwood_be", "westwood_crb")]
    return claims


def analyse_fairness(done) -> Analysis:
    pv = paper_values("westwood")
    g = goodputs(done)
    tables, figs, findings = [], [], []
    f19 = g[g["figure"] == "fig19"]
    jain = {cc: [jain_index(x["mbps"]) for _, x in f19[f19["cc"] == cc].groupby("seed")] for cc in ("westwood_crb", "newreno")}
    rows = [{"flows": f"10 × {LABEL[cc]}", **ci_cols(j, "Jain index"), "paper: Jain index": pv["fig19"]["jain"][cc],
             "band: Jain index": band(float(np.mean(j)), pv["fig19"]["jain"][cc]) if j else ""} for cc, j in jain.items()]
    t19 = pd.DataFrame(rows)
    if all(jain.values()):
        t19["verdict"] = ["", str(close(jain["westwood_crb"], jain["newreno"], 0.05,
                                        "CRB's fairness is comparable to NewReno's (Jain index difference within "
                                        "± 0.05)", relative=False))]
    tables.append(Table("fig19", "Fig. 19: Jain's fairness index of 10 flows", t19, paper="Fig. 19",
                        note="band: ±25 % is wide for an index bounded by 1; the verdict uses ±0.05."))
    for fig, loss in (("fig20", "0.1 %"), ("fig21", "2 %")):
        p = pair_measures(g, fig)
        if any(x.empty for x in p.values()):
            continue
        rows = [{"pair": f"{LABEL[cc]} / NewReno", **ci_cols(x["first"], "first flow Mb/s"),
                 **ci_cols(x["newreno"], "NewReno flow Mb/s"), **ci_cols(x["total"], "total Mb/s")}
                for cc, x in p.items()]
        t = pd.DataFrame(rows)
        t["verdict"] = [str(v) for v in pair_claims(fig, p)]
        tables.append(Table(fig, f"{fig.replace('fig', 'Fig. ')}: pairs over 10 Mb/s with {loss} error", t,
                            paper=f"{fig.replace('fig', 'Fig. ')} (qualitative)",
                            note="The verdict column lists the paper's claims for this figure, one per row (not tied "
                                 "to the row's pair)."))
    f22 = g[g["figure"] == "fig22"]
    if len(f22):
        ratios = {}
        rows = []
        for (b, cc), x in f22.groupby(["buffer", "cc"]):
            r = x[x["flow"] == 0].set_index("seed")["mbps"] / x[x["flow"] == 1].set_index("seed")["mbps"]
            ratios[(b, cc)] = r
            rows.append({"buffer": b, "cc": LABEL[cc], **ci_cols(r, "TCPW/NewReno ratio")})
        r22 = pd.DataFrame(rows)
        buffers = sorted({b for b, _ in ratios})
        small, large = buffers[0], buffers[-1]
        out = []
        for b in buffers:
            row = {"buffer": b}
            for cc in ("westwood_be", "westwood_crb", "westwood_re"):
                row.update(ci_cols(ratios[(b, cc)], f"{LABEL[cc]}/NR"))
            if b == small:
                be = ratios[(b, "westwood_be")]
                row["paper: BE/NR at small buffer"] = pv["fig22"]["be_nr_ratio_small_buffer"]
                row["band: BE/NR"] = band(float(be.mean()), pv["fig22"]["be_nr_ratio_small_buffer"])
                row["verdict"] = str(all_of([greater(be, ratios[(b, cc)], f"BE/NR > {LABEL[cc]}/NR")
                                             for cc in ("westwood_crb", "westwood_re")],
                                            "buffer ≪ pipe: BE is the least friendly"))
            elif b == large and b > 120:
                row["verdict"] = str(all_of([below(ratios[(b, cc)], 1.0, f"{LABEL[cc]}/NR < 1")
                                             for cc in ("westwood_be", "westwood_crb", "westwood_re")],
                                            "buffer ≫ pipe: NewReno takes more than its share"))
            out.append(row)
        tables.append(Table("fig22", "Fig. 22: throughput ratio TCPW/NewReno against buffer size (pipe = 64)",
                            pd.DataFrame(out), paper="Fig. 22"))
        fig = plots.errorbars(r22, "buffer", "TCPW/NewReno ratio", "TCPW/NewReno ratio ±95%", "cc",
                              "Fig. 22: friendliness against buffer size", "bottleneck buffer (packets)",
                              "throughput ratio TCPW / NewReno")
        fig.axes[0].axhline(1.0, color="k", linewidth=1)
        figs.append(Figure("fig22", "Fig. 22: TCPW/NewReno throughput ratio (mean ± 95 % CI)", fig))
    return Analysis(tables, figs, findings)


# --------------------------------------------------------------------------- section 6.3

TRADEOFF_N = {"quick": [2, 10], "full": [2, 4, 6, 8, 10, 20]}
PATHS = {"a: 45 Mb/s, 0.1 %": (45e6, 0.074, 0.001), "b: 11 Mb/s, 2 %": (11e6, 0.074, 0.02)}


def g_and_l(base: pd.DataFrame, mixed: pd.DataFrame, capacity_mbps: float) -> tuple[float, float]:
    """The paper's G and L for one seed. base: run 1 (all NewReno); mixed: run 2 (half TCPW).

    G = U2/U1; L = (t_R2/t_R1_worst + t_R2/t_R1_best)/2, where t_R1_best/worst are the mean
    throughputs of the better and worse halves of run 1's flows and t_R2 the mean NewReno
    throughput in run 2."""
    u1 = base["mbps"].sum() / capacity_mbps
    u2 = mixed["mbps"].sum() / capacity_mbps
    r1 = np.sort(base["mbps"].values)
    half = len(r1) // 2
    worst, best = r1[:half].mean(), r1[half:].mean()
    t_r2 = mixed[mixed["flow_cc"] == "newreno"]["mbps"].mean()
    return u2 / u1, (t_r2 / worst + t_r2 / best) / 2


@experiment("westwood_tradeoff", "Efficiency/friendliness tradeoff graph G vs L for BE and CRB (Figs. 24-26)", PAPER)
def westwood_tradeoff(size: str) -> Plan:
    z = SIZES[size]
    runs = []
    for path, (rate, rtt, loss) in PATHS.items():
        buf = pipe(rate, rtt)
        for n in TRADEOFF_N[size]:
            for s in z["seeds"]:
                runs.append(Run({"figure": "fig24", "path": path, "n": n, "mix": "newreno"},
                                bottleneck_spec(["newreno"] * n, rate, rtt, buf, loss, z["duration"], s), s))
                for cc in ("westwood_be", "westwood_crb"):
                    ccs = [cc] * (n // 2) + ["newreno"] * (n - n // 2)
                    runs.append(Run({"figure": "fig24", "path": path, "n": n, "mix": cc},
                                    bottleneck_spec(ccs, rate, rtt, buf, loss, z["duration"], s), s))
    # Fig. 25: path (b) with 0.1 % or 1 % error and buffers of half, one and two pipes.
    rate, rtt, _ = PATHS["b: 11 Mb/s, 2 %"]
    for loss in (0.001, 0.01):
        for buf in (35, 70, 140):
            for n in TRADEOFF_N[size]:
                for s in z["seeds"]:
                    for mix in ("newreno", "westwood_be", "westwood_crb"):
                        ccs = ["newreno"] * n if mix == "newreno" else [mix] * (n // 2) + ["newreno"] * (n - n // 2)
                        runs.append(Run({"figure": "fig25", "loss": loss, "buffer": buf, "n": n, "mix": mix},
                                        bottleneck_spec(ccs, rate, rtt, buf, loss, z["duration"], s), s))
    # Fig. 26: two connections, 10 Mb/s, RTT 70 ms (pipe 63), error-free, four buffer sizes.
    for b in ([40, 63] if size == "quick" else [20, 40, 63, 126]):
        for s in z["seeds"]:
            runs.append(Run({"figure": "fig26", "buffer": b, "mix": "newreno"},
                            bottleneck_spec(["newreno", "newreno"], 10e6, 0.070, b, 0.0, z["duration"], s), s))
            for cc in ("westwood_be", "westwood_crb"):
                runs.append(Run({"figure": "fig26", "buffer": b, "mix": cc},
                                bottleneck_spec([cc, "newreno"], 10e6, 0.070, b, 0.0, z["duration"], s), s))
    return Plan(runs, analyse_tradeoff, {"paths": {k: {"rate_bps": v[0], "rtt_s": v[1], "loss": v[2]} for k, v in PATHS.items()},
                                         "n": TRADEOFF_N[size], "buffers": "pipe size (Fig. 24)",
                                         "duration_s": z["duration"]})


def g_and_l_by_seed(sub: pd.DataFrame, cc: str, capacity_mbps: float) -> pd.DataFrame:
    """Per seed, G and L of `cc`'s mix against the all-NewReno run of the same seed."""
    rows = []
    for s, xs in sub.groupby("seed"):
        base, mixed = xs[xs["mix"] == "newreno"], xs[xs["mix"] == cc]
        if len(base) and len(mixed):
            gv, lv = g_and_l(base, mixed, capacity_mbps)
            rows.append({"seed": s, "G": gv, "L": lv})
    return pd.DataFrame(rows, columns=["seed", "G", "L"]).set_index("seed")


TRADEOFF_FIGS = (("fig24", ["path", "n"], lambda k: PATHS[k[0]][0] / 1e6),
                 ("fig25", ["loss", "buffer", "n"], lambda k: 11.0),
                 ("fig26", ["buffer"], lambda k: 10.0))


def tradeoff_points(g: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """One row per (figure, key, TCPW) with G and L means ± CI; and the per-seed values."""
    rows, per = [], {}
    for fig, keys, cap_of in TRADEOFF_FIGS:
        sub = g[g["figure"] == fig]
        for key, x in sub.groupby(keys):
            key = key if isinstance(key, tuple) else (key,)
            for cc in ("westwood_be", "westwood_crb"):
                v = g_and_l_by_seed(x, cc, cap_of(key))
                per[(fig, key, cc)] = v
                rows.append({"figure": fig, **dict(zip(keys, key)), "TCPW": LABEL[cc], **ci_cols(v["G"], "G"),
                             **ci_cols(v["L"], "L")})
    return pd.DataFrame(rows), per


def distance_to_target(v: pd.DataFrame) -> np.ndarray:
    return np.hypot(v["G"] - 1, v["L"] - 1).to_numpy()


def closer_to_target(per, fig, key, what: str) -> Verdict:
    be, crb = per[(fig, key, "westwood_be")], per[(fig, key, "westwood_crb")]
    seeds = be.index.intersection(crb.index)
    if what == "L":
        a, b = (be.loc[seeds, "L"] - 1).abs().to_numpy(), (crb.loc[seeds, "L"] - 1).abs().to_numpy()
        return greater(a, b, "CRB is closer to L = 1 than BE (|L − 1|, same seed)", paired=True)
    a, b = distance_to_target(be.loc[seeds]), distance_to_target(crb.loc[seeds])
    return greater(a, b, "CRB is closer to (G, L) = (1, 1) than BE (same seed)", paired=True)


def fig26_claims(per, pv) -> list[str]:
    out = []
    if ("fig26", (63,), "westwood_be") in per:
        out.append(str(all_of([within(per[("fig26", (63,), cc)][q], 1.0, 0.10, f"{LABEL[cc]} {q} ≈ 1")
                               for cc in ("westwood_be", "westwood_crb") for q in ("G", "L")],
                              "Fig. 26: at buffer = pipe (63) both schemes are near (1, 1) (±10 %)")))
    if ("fig26", (40,), "westwood_be") in per:
        be_l, crb_l = per[("fig26", (40,), "westwood_be")]["L"], per[("fig26", (40,), "westwood_crb")]["L"]
        out.append(str(above(crb_l, 0.9, "Fig. 26: at buffer 40 NewReno keeps > 90 % against CRB (L > 0.9)")))
        drop = 100 * (1 - be_l.mean())
        out.append(f"Fig. 26: at buffer 40 NewReno's throughput beside BE is {drop:.0f} % below its all-NewReno value "
                   f"(paper: ≈ {pv['fig26']['nr_drop_vs_be_percent']} %; {band(drop, pv['fig26']['nr_drop_vs_be_percent'])})")
    return out


def analyse_tradeoff(done) -> Analysis:
    pv = paper_values("westwood")
    g = goodputs(done)
    t, per = tradeoff_points(g)
    tables, figs, findings = [], [], []
    if t.empty:
        return Analysis(tables, figs, findings)
    t24 = t[t["figure"] == "fig24"].drop(columns=["figure", "buffer", "loss"], errors="ignore")
    t24 = t24.sort_values(["path", "n", "TCPW"]).reset_index(drop=True)
    t24["verdict"] = [str(closer_to_target(per, "fig24", (r["path"], r["n"]), "L")) if r["TCPW"] == "CRB" else ""
                      for _, r in t24.iterrows()]
    tables.append(Table("fig24", "Fig. 24: utilisation gain G and NewReno throughput ratio L", t24,
                        paper="Fig. 24 (qualitative: CRB near L = 1, BE higher G and lower L)"))
    t25 = t[t["figure"] == "fig25"].drop(columns=["figure", "path"], errors="ignore")
    t25 = t25.sort_values(["loss", "buffer", "n", "TCPW"]).reset_index(drop=True)
    t25["verdict"] = [str(closer_to_target(per, "fig25", (r["loss"], r["buffer"], r["n"]), "GL"))
                      if r["TCPW"] == "CRB" else "" for _, r in t25.iterrows()]
    tables.append(Table("fig25", "Fig. 25: G and L on path (b) with 0.1 % / 1 % error and buffers 35, 70, 140", t25,
                        paper="Fig. 25 (qualitative: CRB closer to (1, 1); buffer size matters little)"))
    t26 = t[t["figure"] == "fig26"].drop(columns=["figure", "path", "n", "loss"], errors="ignore").reset_index(drop=True)
    tables.append(Table("fig26", "Fig. 26: G and L for two connections against buffer size (pipe 63)", t26,
                        paper="Fig. 26"))
    findings += fig26_claims(per, pv)
    fig, ax = plots.new("Figs. 24/26: efficiency/friendliness tradeoff", "L (NewReno throughput ratio)",
                        "G (utilisation gain)")
    for (fgr, cc), x in t.groupby(["figure", "TCPW"]):
        ax.scatter(x["L"], x["G"], label=f"{cc} ({fgr})")
    ax.axvline(1.0, color="k", linewidth=1)
    ax.axhline(1.0, color="k", linewidth=1)
    ax.legend(fontsize="small")
    figs.append(Figure("tradeoff", "G against L (target: L = 1, G > 1)", fig))
    return Analysis(tables, figs, findings)


# --------------------------------------------------------------------------- sensitivity

SENSITIVITY = {  # one assumption changed at a time, for every flow (the paper's ns-2 settings are unstated)
    "baseline": {},
    "min RTO 1 s": {"min_rto": 1.0},
    "timer tick 100 ms": {"tick": 0.1},
    "timer tick 500 ms": {"tick": 0.5},
    "delayed ACKs": {"delayed_ack": True},
    "limited transmit": {"limited_transmit": True},
    "initial RTO 1 s": {"initial_rto": 1.0},
}
SENSITIVITY_CASES = {  # name: (ccs, rate, rtt, buffer, loss)
    "fig22 BE+NR, buffer 8": (["westwood_be", "newreno"], 10e6, 0.070, 8, 0.0),
    "table1 BE+NR": (["westwood_be", "newreno"], 5e6, 0.070, 32, 0.005),
    "table1 NR+NR": (["newreno", "newreno"], 5e6, 0.070, 32, 0.005),
}


@experiment("westwood_sensitivity", "What moves the largest gaps to the paper (Fig. 22's BE/NewReno ratio at a small "
            "buffer, NewReno's throughput in Table 1) when one unstated TCP setting changes", PAPER)
def westwood_sensitivity(size: str) -> Plan:
    z = SIZES[size]
    runs = [Run({"setting": name, "case": case}, bottleneck_spec(ccs, rate, rtt, buf, loss, z["duration"], s, tcp=tcp), s)
            for s in z["seeds"] for name, tcp in SENSITIVITY.items()
            for case, (ccs, rate, rtt, buf, loss) in SENSITIVITY_CASES.items()]
    return Plan(runs, analyse_sensitivity, {"settings": SENSITIVITY, "cases": {k: {"ccs": v[0], "rate_bps": v[1],
                                            "rtt_s": v[2], "buffer": v[3], "loss": v[4]} for k, v in
                                            SENSITIVITY_CASES.items()}, "duration_s": z["duration"]})


def sensitivity_measures(g: pd.DataFrame) -> pd.DataFrame:
    """Per (setting, seed): Fig. 22's BE/NR ratio and Table 1's NewReno throughputs."""
    per = g.pivot_table(index=["setting", "seed"], columns=["case", "flow"], values="mbps")
    return pd.DataFrame({
        "fig22 BE/NR": per[("fig22 BE+NR, buffer 8", 0)] / per[("fig22 BE+NR, buffer 8", 1)],
        "table1 NR beside BE": per[("table1 BE+NR", 1)],
        "table1 NR+NR total": per[("table1 NR+NR", 0)] + per[("table1 NR+NR", 1)],
    })


def analyse_sensitivity(done) -> Analysis:
    pv = paper_values("westwood")
    m = sensitivity_measures(goodputs(done))
    targets = {"fig22 BE/NR": pv["fig22"]["be_nr_ratio_small_buffer"],
               "table1 NR beside BE": pv["table1"]["be+nr"]["newreno"], "table1 NR+NR total": pv["table1"]["nr+nr"]["total"]}
    base = m.xs("baseline", level="setting")
    rows = []
    for setting in SENSITIVITY:
        x = m.xs(setting, level="setting")
        row = {"setting": setting}
        for q, paper in targets.items():
            row.update(ci_cols(x[q], q))
            row[f"paper: {q}"] = paper
            row[f"band: {q}"] = band(float(x[q].mean()), paper)
            if setting != "baseline":
                row[f"verdict: {q}"] = str(greater(np.abs(base[q] - paper).values, np.abs(x[q] - paper).values,
                                                   f"{setting} moves {q} toward the paper's {paper:g}"))
        rows.append(row)
    return Analysis([Table("sensitivity", "Sensitivity of the largest gaps to unstated TCP settings (all flows)",
                           pd.DataFrame(rows), paper="Fig. 22 and Table 1",
                           note="One setting changed from tcplab's defaults at a time, for both flows; goodput over the "
                                "run (Mb/s); the verdicts compare the distance to the paper's value with the baseline's "
                                "(Welch 95 % CI over the seeds).")])
