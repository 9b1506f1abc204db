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
from tcplab.experiments import Analysis, Figure, Plan, Run, Table, experiment, paper_values, verdict
from tcplab.metrics import jain_index
from tcplab.stats import mean_ci

PAPER = "Gerla et al., TCP Westwood with adaptive bandwidth estimation (CRB)"
MSS = 1400
WIRE = (MSS + 40) * 8  # bits per packet on the wire
SIZES = {"quick": dict(duration=60.0, seeds=[1, 2]), "full": dict(duration=200.0, seeds=[1, 2, 3, 4, 5])}
LABEL = {"newreno": "NewReno", "westwood_be": "BE", "westwood_re": "RE", "westwood_crb": "CRB"}


def pipe(rate_bps: float, rtt_s: float) -> int:
    return max(4, int(round(rate_bps * rtt_s / WIRE)))


def bottleneck_spec(ccs, rate_bps, rtt_s, buffer, loss, duration, seed, udp=None, sample=0.0, starts=None,
                    stops=None, ack_path="same"):
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
             "tcp": {"mss": MSS, "rwnd": 10000}}
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


def ci_cols(values, prefix):
    c = mean_ci(values)
    return {prefix: c.mean, f"{prefix} ±95%": c.half_width}


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


def analyse_estimators(done) -> Analysis:
    pv = paper_values("westwood")
    g = goodputs(done)
    tables, figs, findings = [], [], []
    # Figs. 3 and 4: estimates of one TCPW flow against one (four) NewReno flows.
    for case, share, title in (("fig3", 2.5, "Fig. 3: one TCPW and one NewReno flow on 5 Mb/s"),
                               ("fig4", 2.0, "Fig. 4: one TCPW and four NewReno flows on 10 Mb/s")):
        rows = []
        for v in ("westwood_be", "westwood_re"):
            ds = [d for d in done if d.params == {"case": case, "variant": v}]
            if not ds:
                continue
            be = [estimate_means(d, 0)[0] for d in ds]
            re = [estimate_means(d, 0)[1] for d in ds]
            row = {"TCPW flow": LABEL[v], **ci_cols(be, "BE estimate Mb/s"), **ci_cols(re, "RE estimate Mb/s"),
                   "fair share Mb/s": share}
            if case == "fig3":
                row.update({"paper: BE estimate": pv["fig3"]["be_estimate"], "paper: RE estimate": pv["fig3"]["re_estimate"]})
            rows.append(row)
        t = pd.DataFrame(rows)
        if len(t) == 2:
            b = t.iloc[0]
            t["verdict"] = [
                verdict(b["BE estimate Mb/s"] > share * 1.1, f"BE overestimates the {share} Mb/s fair share"),
                verdict(abs(b["RE estimate Mb/s"] - share) < abs(b["BE estimate Mb/s"] - share),
                        "RE is closer to the fair share than BE"),
            ]
        tables.append(Table(case, f"{title}: time-averaged estimates of the TCPW flow", t,
                            paper="Fig. 3" if case == "fig3" else "Fig. 4 (qualitative)",
                            note="Averages after 10 s of flow 0's estimates; rows: the TCPW variant run."))
        d0 = next((d for d in done if d.params == {"case": case, "variant": "westwood_be"}), None)
        if d0 is not None:
            ts = d0.results.flow_ts[d0.results.flow_ts["flow"] == 0]
            fig, ax = plots.new(f"{title}: estimates of a TCPW BE flow", "time (s)", "estimate (Mb/s)")
            ax.plot(ts["time"], ts["be_bps"] / 1e6, label="BE")
            ax.plot(ts["time"], ts["re_bps"] / 1e6, label="RE")
            ax.axhline(share, color="k", linestyle="--", linewidth=1, label="fair share")
            ax.legend(fontsize="small")
            figs.append(Figure(f"{case}_estimates", f"{title.split(':')[0]}: estimates over time (seed {d0.seed})", fig))
    # Figs. 5/6: two TCPW flows, the second switching on and off.
    rows = []
    for v in ("westwood_be", "westwood_re"):
        ds = [d for d in done if d.params == {"case": "fig5_6", "variant": v}]
        if not ds:
            continue
        est, shares = [], []
        for d in ds:
            ts = d.results.flow_ts
            both = ts[ts["time"].between(30, 60) | ts["time"].between(110, 140)]
            col = "be_bps" if v == "westwood_be" else "re_bps"
            est.append(both[both["flow"] == 0][col].mean() / 1e6)
            late = both[both["flow"].isin([1, 2])].groupby("time")[col].sum() / 1e6
            shares.append(late.mean())
        rows.append({"estimator": LABEL[v], **ci_cols(est, "always-on flow estimate Mb/s"),
                     **ci_cols(shares, "on/off flow estimate Mb/s"), "fair share Mb/s": 2.5,
                     "paper: estimate with both on": pv["fig5_6"]["be_estimate" if v == "westwood_be" else "re_estimate"]})
    if rows:
        t = pd.DataFrame(rows)
        t["verdict"] = [verdict(abs(r["always-on flow estimate Mb/s"] - r["on/off flow estimate Mb/s"])
                                < 0.25 * r["always-on flow estimate Mb/s"], "the two flows' estimates agree (25 %)")
                        for _, r in t.iterrows()]
        tables.append(Table("fig5_6", "Figs. 5/6: two TCPW flows, one on at 20-60 s and 100-140 s (5 Mb/s)", t,
                            paper="Figs. 5 and 6", note="Estimates averaged over 30-60 s and 110-140 s, when both are on."))
        d0 = next(d for d in done if d.params == {"case": "fig5_6", "variant": "westwood_be"})
        ts = d0.results.flow_ts
        fig, ax = plots.new("Figs. 5/6: BE estimates of two TCPW flows", "time (s)", "BE estimate (Mb/s)")
        for f, lbl in ((0, "always on"), (1, "on 20-60 s"), (2, "on 100-140 s")):
            x = ts[ts["flow"] == f]
            ax.plot(x["time"], x["be_bps"] / 1e6, label=lbl)
        ax.legend(fontsize="small")
        figs.append(Figure("fig5_6_estimates", f"Figs. 5/6: estimates over time (seed {d0.seed})", fig))
    # Figs. 9/10: a TCPW flow alone with a time-varying UDP flow.
    rows = []
    for v in ("westwood_be", "westwood_re"):
        for d in [d for d in done if d.params == {"case": "fig9_10", "variant": v}]:
            ts = d.results.flow_ts[d.results.flow_ts["flow"] == 0]
            col = "be_bps" if v == "westwood_be" else "re_bps"
            for k, udp in enumerate([0, 1, 2, 3, 1]):
                x = ts[ts["time"].between(20 * k + 5, 20 * k + 20)][col] / 1e6
                rows.append({"estimator": LABEL[v], "seed": d.seed, "interval s": f"{20 * k + 5}-{20 * k + 20}",
                             "UDP Mb/s": udp, "residual Mb/s": 5 - udp, "estimate": x.mean(), "std": x.std()})
    if rows:
        r = pd.DataFrame(rows).groupby(["estimator", "interval s", "UDP Mb/s", "residual Mb/s"], as_index=False)[
            ["estimate", "std"]].mean()
        r = r.rename(columns={"estimate": "estimate Mb/s", "std": "std within interval Mb/s"})
        stab = r.groupby("estimator")["std within interval Mb/s"].mean()
        r["verdict"] = [verdict(abs(x["estimate Mb/s"] - x["residual Mb/s"]) < 0.3 * x["residual Mb/s"],
                                "tracks the residual bandwidth (30 %)") for _, x in r.iterrows()]
        tables.append(Table("fig9_10", "Figs. 9/10: TCPW alone with UDP at 0, 1, 2, 3, 1 Mb/s (5 Mb/s link)", r,
                            paper="Figs. 9 and 10 (qualitative)"))
        findings.append(f"With time-varying UDP, the mean within-interval standard deviation is "
                        f"{stab.get('BE', float('nan')):.2f} Mb/s for BE and {stab.get('RE', float('nan')):.2f} Mb/s "
                        "for RE (the paper: RE is the more stable).")
    # Figs. 7, 8 and 11: the estimates of the TCPW flow over time in the Tables 1-3 scenarios,
    # and Figs. 9/10 with the time-varying UDP flow.
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
            steps = [0, 1, 2, 3, 1]
            ax.step([20 * k for k in range(6)], [5 - u for u in steps] + [5 - steps[-1]], where="post", color="k",
                    linestyle="--", linewidth=1, label="residual bandwidth")
        ax.legend(fontsize="small")
        figs.append(Figure(f"{case}_estimates", f"{figname}: estimates over time (seed {ds['westwood_be'].seed})", fig))
    # Tables 1-3
    for case, key, title in (("table1", "table1", "Table 1: 5 Mb/s, 0.5 % error, one TCPW + one NewReno"),
                             ("table2", "table2", "Table 2: 10 Mb/s, 1 % error, one TCPW + four NewReno"),
                             ("table3", "table3", "Table 3: 5 Mb/s, 0.5 % error, 2 Mb/s UDP, one TCPW + one NewReno")):
        rows = []
        paper = pv[key]
        for v in ("newreno", "westwood_be", "westwood_re"):
            sub = g[(g["case"] == case) & (g["variant"] == v) & (g["transport"] == "tcp")]
            if sub.empty:
                continue
            pkey = {"newreno": "nr+nr" if "nr+nr" in paper else "nr", "westwood_be": "be+nr",
                    "westwood_re": "re+nr"}[v]
            tcpw = sub[sub["flow"] == 0] if v != "newreno" else None
            nr = sub[sub["flow_cc"] == "newreno"] if v == "newreno" else sub[sub["flow"] > 0]
            per_seed_total = sub.groupby("seed")["mbps"].sum()
            ds = [d for d in done if d.params == {"case": case, "variant": v}]
            est = [estimate_means(d, 0)[0 if v == "westwood_be" else 1] for d in ds] if v != "newreno" else []
            rows.append({
                "combination": {"newreno": "all NewReno", "westwood_be": "BE & NewReno", "westwood_re": "RE & NewReno"}[v],
                "TCPW estimate Mb/s": mean_ci(est).mean if est else float("nan"),
                "NewReno per flow Mb/s": nr.groupby("seed")["mbps"].mean().mean(),
                "TCPW Mb/s": tcpw.groupby("seed")["mbps"].mean().mean() if tcpw is not None else float("nan"),
                **ci_cols(per_seed_total, "total Mb/s"),
                "paper: estimate": paper[pkey].get("estimate", float("nan")),
                "paper: NewReno": paper[pkey]["newreno"],
                "paper: TCPW": paper[pkey].get("tcpw", float("nan")),
                "paper: total": paper[pkey]["total"],
            })
        t = pd.DataFrame(rows)
        if len(t) == 3:
            nr_alone = t.iloc[0]["NewReno per flow Mb/s"]
            t["verdict"] = [
                verdict(t.iloc[1]["total Mb/s"] > t.iloc[0]["total Mb/s"], "BE raises the total over all-NewReno"),
                verdict(t.iloc[1]["TCPW Mb/s"] > t.iloc[2]["TCPW Mb/s"], "TCPW BE gets more than TCPW RE"),
                verdict(abs(t.iloc[2]["NewReno per flow Mb/s"] - nr_alone) / nr_alone < 0.15,
                        "NewReno keeps its share (within 15 %) beside RE"),
            ]
        tables.append(Table(key, title, t, paper=f"{key.capitalize()} of the paper"))
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
        evs = pd.concat([loss_events(d) for d in done if d.params["case"] == case] or [pd.DataFrame()])
        if evs.empty:
            continue
        ratio = evs["cwnd"] / evs["re_window"]
        picks_re = float(evs["uses_re"].mean())
        right = picks_re if c["expect"] == "RE" else (1 - picks_re if c["expect"] == "BE" else float("nan"))
        rows.append({"case": case, "loss events": len(evs), "median cwnd/(RE·RTTmin)": float(ratio.median()),
                     "CRB picks RE": picks_re, "right choice": right,
                     "verdict": verdict(right > 0.5, f"CRB mostly picks {c['expect']}") if c["expect"] else
                     "no single expected cause"})
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
             "fig17": [0.0, 0.0025, 0.005, 0.0125, 0.025, 0.035, 0.05, 0.075, 0.1],
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


def analyse_lossy(done) -> Analysis:
    pv = paper_values("westwood")
    g = goodputs(done)
    tables, figs = [], []
    spec = {"fig16": ("wireless loss rate", "loss", 1.0), "fig17": ("wired one-way delay (ms)", "delay", 1000.0),
            "fig18": ("wireless capacity (Mb/s)", "capacity", 1e-6)}
    for figure, (xlabel, xname, scale) in spec.items():
        sub = g[g["figure"] == figure]
        if sub.empty:
            continue
        m = sub.groupby(["x", "cc"])["mbps"].agg(["mean", lambda v: mean_ci(v).half_width]).reset_index()
        m.columns = ["x", "cc", "mbps", "ci"]
        wide = m.pivot(index="x", columns="cc", values="mbps")
        t = pd.DataFrame({xlabel: wide.index * scale})
        for cc in ALGOS:
            t[f"{LABEL[cc]} Mb/s"] = wide[cc].values
        for cc in ALGOS[1:]:
            t[f"{LABEL[cc]} gain %"] = (100 * (wide[cc] / wide["newreno"] - 1)).values
        order = (wide["westwood_be"] >= 0.95 * wide["westwood_crb"]) & (wide["westwood_crb"] >= 0.95 * wide["westwood_re"]) \
            & (wide["westwood_re"] >= 0.95 * wide["newreno"])
        t["verdict"] = [verdict(bool(o), "BE ≥ CRB ≥ RE ≥ NewReno (5 % slack)") for o in order]
        if figure == "fig16":
            for cc in ALGOS[1:]:
                t[f"paper: peak {LABEL[cc]} gain %"] = pv["fig16"]["peak_gain_percent"].get(cc, float("nan"))
        elif figure == "fig17":
            for cc in ("westwood_be", "westwood_crb"):
                t[f"paper: peak {LABEL[cc]} gain %"] = pv["fig17"]["peak_gain_percent"][cc]
        else:
            for cc in ("westwood_be", "westwood_crb"):
                t[f"paper: {LABEL[cc]} gain % at 20 Mb/s"] = pv["fig18"]["gain_percent_at_20mbps"][cc]
        tables.append(Table(figure, f"{figure.replace('fig', 'Fig. ')}: throughput against {xname}", t,
                            paper=f"{figure.replace('fig', 'Fig. ')} (the paper's peak gains, one value per column)",
                            note="Gain % = (X − NewReno) / NewReno × 100 (SEED-NOTES reading of 'gain')."))
        fig = plots.errorbars(m.assign(x=m["x"] * scale, cc=m["cc"].map(LABEL)), "x", "mbps", "ci", "cc",
                              f"{figure.replace('fig', 'Fig. ')}: throughput", xlabel, "throughput (Mb/s)")
        if figure == "fig16":
            fig.axes[0].set_xscale("symlog", linthresh=0.0005)
        figs.append(Figure(figure, f"{figure.replace('fig', 'Fig. ')}: mean ± 95 % CI", fig))
    return Analysis(tables, figs)


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
    m = g.groupby(["loss", "who", "ack_path"])["mbps"].mean().unstack("ack_path").reset_index()
    m["(b) / (a)"] = m["separate"] / m["same"]
    m = m.rename(columns={"same": "(a) same path Mb/s", "separate": "(b) separate path Mb/s"})
    m["verdict"] = [verdict(abs(r - 1) < 0.1, "the ACK path does not change the throughput (±10 %)")
                    for r in m["(b) / (a)"]]
    fig, ax = plots.new("Topology (b) against (a)", "throughput with ACKs on the data path (Mb/s)",
                        "throughput with ACKs on a separate path (Mb/s)")
    ax.scatter(m["(a) same path Mb/s"], m["(b) separate path Mb/s"])
    hi = float(max(m["(a) same path Mb/s"].max(), m["(b) separate path Mb/s"].max()))
    ax.plot([0, hi], [0, hi], "k--", linewidth=1)
    return Analysis([Table("ack_path", "Throughput in topologies (a) and (b)", m,
                           note="(b): the reverse path is uncongested and lossless; ACKs see no queue on r2→r1.")],
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


def analyse_fairness(done) -> Analysis:
    pv = paper_values("westwood")
    g = goodputs(done)
    tables, figs = [], []
    f19 = g[g["figure"] == "fig19"]
    rows = []
    for cc in ("westwood_crb", "newreno"):
        j = [jain_index(x["mbps"]) for _, x in f19[f19["cc"] == cc].groupby("seed")]
        rows.append({"flows": f"10 × {LABEL[cc]}", **ci_cols(j, "Jain index"), "paper: Jain index": pv["fig19"]["jain"][cc]})
    t19 = pd.DataFrame(rows)
    if len(t19) == 2:
        t19["verdict"] = verdict(abs(t19.iloc[0]["Jain index"] - t19.iloc[1]["Jain index"]) < 0.05,
                                 "CRB's fairness is comparable to NewReno's (within 0.05)")
    tables.append(Table("fig19", "Fig. 19: Jain's fairness index of 10 flows", t19, paper="Fig. 19"))
    for fig, loss in (("fig20", "0.1 %"), ("fig21", "2 %")):
        sub = g[g["figure"] == fig]
        rows = []
        for cc in ("westwood_be", "westwood_crb", "newreno"):
            x = sub[sub["cc"] == cc]
            first = x[x["flow"] == 0].groupby("seed")["mbps"].mean()
            nr = x[x["flow"] == 1].groupby("seed")["mbps"].mean()
            rows.append({"pair": f"{LABEL[cc]} / NewReno", **ci_cols(first, "first flow Mb/s"),
                         **ci_cols(nr, "NewReno flow Mb/s"), "total Mb/s": (first + nr).mean()})
        t = pd.DataFrame(rows)
        if len(t) == 3:
            nrnr = t.iloc[2]["NewReno flow Mb/s"]
            t["verdict"] = [
                verdict(t.iloc[0]["total Mb/s"] >= t["total Mb/s"].max() * 0.98, "BE/NewReno has the highest total"),
                verdict(abs(t.iloc[1]["NewReno flow Mb/s"] - nrnr) / nrnr < 0.15, "CRB barely affects NewReno (15 %)"),
                verdict(t.iloc[0]["first flow Mb/s"] >= t["first flow Mb/s"].max() * 0.98, "BE gets the most")
                if fig == "fig20" else
                verdict(abs(t.iloc[0]["NewReno flow Mb/s"] - nrnr) / nrnr < 0.15, "at 2 % BE does not hurt NewReno (15 %)"),
            ]
        tables.append(Table(fig, f"{fig.replace('fig', 'Fig. ')}: pairs over 10 Mb/s with {loss} error", t,
                            paper=f"{fig.replace('fig', 'Fig. ')} (qualitative)"))
    f22 = g[g["figure"] == "fig22"]
    rows = []
    for (b, cc), x in f22.groupby(["buffer", "cc"]):
        ratio = (x[x["flow"] == 0].set_index("seed")["mbps"] / x[x["flow"] == 1].set_index("seed")["mbps"])
        rows.append({"buffer": b, "cc": LABEL[cc], **ci_cols(ratio, "TCPW/NewReno ratio")})
    r22 = pd.DataFrame(rows)
    if len(r22):
        wide = r22.pivot(index="buffer", columns="cc", values="TCPW/NewReno ratio").reset_index()
        small = wide.iloc[0]
        wide["paper: BE/NR at small buffer"] = pv["fig22"]["be_nr_ratio_small_buffer"]
        wide["verdict"] = [verdict(bool(r["BE"] > r["CRB"] and r["BE"] > r["RE"]), "BE is the least friendly")
                           if i == 0 else "" for i, r in wide.iterrows()]
        tables.append(Table("fig22", "Fig. 22: throughput ratio TCPW/NewReno against buffer size (pipe = 64)", wide,
                            paper="Fig. 22"))
        fig = plots.errorbars(r22, "buffer", "TCPW/NewReno ratio", "TCPW/NewReno ratio ±95%", "cc",
                              "Fig. 22: friendliness against buffer size", "bottleneck buffer (packets)",
                              "throughput ratio TCPW / NewReno")
        fig.axes[0].axhline(1.0, color="k", linewidth=1)
        figs.append(Figure("fig22", "Fig. 22: TCPW/NewReno throughput ratio (mean ± 95 % CI)", fig))
        findings = [f"At the smallest buffer ({int(small['buffer'])} packets) BE/NewReno = {small['BE']:.2f} "
                    f"(paper ≈ 2), CRB/NewReno = {small['CRB']:.2f}, RE/NewReno = {small['RE']:.2f}."]
    else:
        findings = []
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
    for b in ([20, 63] if size == "quick" else [20, 40, 63, 126]):
        for s in z["seeds"]:
            runs.append(Run({"figure": "fig26", "buffer": b, "mix": "newreno"},
                            bottleneck_spec(["newreno", "newreno"], 10e6, 0.070, b, 0.0, z["duration"], s), s))
            for cc in ("westwood_be", "westwood_crb"):
                runs.append(Run({"figure": "fig26", "buffer": b, "mix": cc},
                                bottleneck_spec([cc, "newreno"], 10e6, 0.070, b, 0.0, z["duration"], s), s))
    return Plan(runs, analyse_tradeoff, {"paths": {k: {"rate_bps": v[0], "rtt_s": v[1], "loss": v[2]} for k, v in PATHS.items()},
                                         "n": TRADEOFF_N[size], "buffers": "pipe size (Fig. 24)",
                                         "duration_s": z["duration"]})


def analyse_tradeoff(done) -> Analysis:
    pv = paper_values("westwood")
    g = goodputs(done)
    rows = []
    for fig, keys, cap_of in (("fig24", ["path", "n"], lambda k: PATHS[k[0]][0] / 1e6),
                              ("fig25", ["loss", "buffer", "n"], lambda k: 11.0),
                              ("fig26", ["buffer"], lambda k: 10.0)):
        sub = g[g["figure"] == fig]
        for key, x in sub.groupby(keys):
            key = key if isinstance(key, tuple) else (key,)
            for cc in ("westwood_be", "westwood_crb"):
                gs, ls = [], []
                for s, xs in x.groupby("seed"):
                    base, mixed = xs[xs["mix"] == "newreno"], xs[xs["mix"] == cc]
                    if len(base) and len(mixed):
                        gv, lv = g_and_l(base, mixed, cap_of(key))
                        gs.append(gv)
                        ls.append(lv)
                rows.append({"figure": fig, **dict(zip(keys, key)), "TCPW": LABEL[cc], **ci_cols(gs, "G"),
                             **ci_cols(ls, "L")})
    t = pd.DataFrame(rows)
    tables, figs, findings = [], [], []
    if len(t):
        t24 = t[t["figure"] == "fig24"].drop(columns=["figure", "buffer", "loss"], errors="ignore")
        closer = []
        for (path, n), x in t24.groupby(["path", "n"]):
            be, crb = x[x["TCPW"] == "BE"].iloc[0], x[x["TCPW"] == "CRB"].iloc[0]
            closer.append(verdict(abs(crb["L"] - 1) <= abs(be["L"] - 1) + 0.02, "CRB is closer to L = 1 than BE"))
        t24 = t24.sort_values(["path", "n", "TCPW"]).reset_index(drop=True)
        t24["verdict"] = [closer[i // 2] if i % 2 == 1 else "" for i in range(len(t24))]
        tables.append(Table("fig24", "Fig. 24: utilisation gain G and NewReno throughput ratio L", t24,
                            paper="Fig. 24 (qualitative: CRB near L = 1, BE higher G and lower L)"))
        t25 = t[t["figure"] == "fig25"].drop(columns=["figure", "path"], errors="ignore").reset_index(drop=True)
        tables.append(Table("fig25", "Fig. 25: G and L on path (b) with 0.1 % / 1 % error and buffers 35, 70, 140", t25,
                            paper="Fig. 25 (qualitative: CRB closer to (1, 1); buffer size matters little)"))
        t26 = t[t["figure"] == "fig26"].drop(columns=["figure", "path", "n", "loss"], errors="ignore").reset_index(drop=True)
        t26["paper: NR drop vs BE at 40 % (63→40)"] = pv["fig26"]["nr_drop_vs_be_percent"]
        tables.append(Table("fig26", "Fig. 26: G and L for two connections against buffer size (pipe 63)", t26,
                            paper="Fig. 26"))
        fig, ax = plots.new("Figs. 24/26: efficiency/friendliness tradeoff", "L (NewReno throughput ratio)",
                            "G (utilisation gain)")
        for (fgr, cc), x in t.groupby(["figure", "TCPW"]):
            ax.scatter(x["L"], x["G"], label=f"{cc} ({fgr})")
        ax.axvline(1.0, color="k", linewidth=1)
        ax.axhline(1.0, color="k", linewidth=1)
        ax.legend(fontsize="small")
        figs.append(Figure("tradeoff", "G against L (target: L = 1, G > 1)", fig))
    return Analysis(tables, figs, findings)
