"""Reproduction of Savorić, Karl, Wolisz: "The TCP Control Block Interdependence in Fixed
Networks — Some Performance Results" (Tables 2–5), and temporal sharing (RFC 2140), which the
paper describes but does not evaluate.

Readings where the paper is silent (SEED-NOTES §1, stated in docs/tcbi.md): BR1 and BR2 hang
off RB by 100 Mb/s, 0.25 ms links like BS2 and BS3 off RA; background flows run BS_i → BR_i
and TCBI flows S_i → R_i; each WWW source is one sequential user (session, exponential gap,
next session; the reading time starts when a page's transfer ends); one page is one
connection of ⌈size/1000⌉ segments; the short source's inter-connection time is the reading
time's gamma; the LANs are a shared collision-free 10 Mb/s channel with 20-packet interface
queues (docs/scenario.md); PLR applies to every frame on the receiver LAN; initial RTO 3 s,
minimum RTO 0.2 s, 10 ms timer tick and receiver window 256 segments (ns-2 defaults; the
window must not clamp the MV initial cwnd). Connection sets are the receiver LAN's /24.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from tcplab import plots
from tcplab.experiments import Analysis, Figure, Plan, Run, Table, experiment, paper_values
from tcplab.stats import ci_cols, mean_ci, unpaired_t_test
from tcplab.verdicts import FAILS, HOLDS, above, all_of, band, below, close, greater, outcome_of

PAPER = "Savorić, Karl, Wolisz: The TCP Control Block Interdependence in Fixed Networks"
MSS = 1000
CONTROLLERS = ["none", "mv", "fs"]
CONTROLLER_LABEL = {"none": "no TCBI", "mv": "MV-TCBI", "fs": "FS-TCBI"}
SOURCES = ["tcp1", "tcp2", "tcp3"]
SOURCE_LABEL = {"tcp1": "TCP 1 (short)", "tcp2": "TCP 2 (WWW)", "tcp3": "TCP 3 (WWW)"}
SCENARIO_PLR = {1: 0.0, 2: 0.05}

# Table 1 of the paper (means and standard deviations of the variables themselves).
INTER_SESSION = {"dist": "exponential", "mean": 5.0}
PAGES = {"dist": "lognormal", "mean": 25.807, "std": 78.752}
READING = {"dist": "gamma", "mean": 35.286, "std": 147.390}
PAGE_SIZE = {"dist": "pareto", "shape": 1.7584, "scale": 30458.0}  # bytes; β is the minimum
SHORT_SEGMENTS = 5

TCP = {"mss": MSS, "init_cwnd": 2, "init_ssthresh": 64, "rwnd": 256, "initial_rto": 3.0, "min_rto": 0.2,
       "tick": 0.01}
WARMUP = 100.0


def tcbi_spec(controller: str, plr: float, duration: float, temporal: float | None = None) -> dict:
    """Figure 2 of the paper: the TCBI host and BS1 on the sender LAN, R1–R3 and BR3 on the
    receiver LAN, RA–RB 100 Mb/s 10 ms, BS2/BS3 (BR1/BR2) on 100 Mb/s 0.25 ms links to RA (RB).
    `temporal`: lifetime in seconds of the per-set cache of closed connections (None: off)."""
    tcbi = {"controller": controller, "prefix": 24}
    if temporal is not None:
        tcbi["temporal"] = {"lifetime": temporal}
    fast = {"rate": 100e6, "delay": 0.25e-3, "queue": 20}
    nodes = [
        {"name": "tcbi", "address": "10.0.1.1", "tcbi": tcbi},
        {"name": "bs1", "address": "10.0.1.2"},
        {"name": "ra", "kind": "router", "address": "10.0.1.254"},
        {"name": "bs2", "address": "10.0.3.1"},
        {"name": "bs3", "address": "10.0.4.1"},
        {"name": "rb", "kind": "router", "address": "10.0.2.254"},
        {"name": "r1", "address": "10.0.2.1"},
        {"name": "r2", "address": "10.0.2.2"},
        {"name": "r3", "address": "10.0.2.3"},
        {"name": "br3", "address": "10.0.2.4"},
        {"name": "br1", "address": "10.0.5.1"},
        {"name": "br2", "address": "10.0.6.1"},
    ]
    links = [{"a": "ra", "b": "rb", "rate": 100e6, "delay": 0.010, "queue": 20},
             {"a": "bs2", "b": "ra", **fast}, {"a": "bs3", "b": "ra", **fast},
             {"a": "rb", "b": "br1", **fast}, {"a": "rb", "b": "br2", **fast}]
    lan = {"rate": 10e6, "delay": 0.5e-6, "queue": 20}
    lans = [{"name": "sender_lan", "members": ["tcbi", "bs1", "ra"], **lan, "loss": 0.0},
            {"name": "receiver_lan", "members": ["rb", "r1", "r2", "r3", "br3"], **lan, "loss": plr}]
    www = {"kind": "sessions", "session_gap": INTER_SESSION, "pages": PAGES, "reading": READING,
           "size": PAGE_SIZE, "size_unit": "bytes"}
    generators = [
        {"name": "tcp1", "kind": "closed", "src": "tcbi", "dst": "r1",
         "size": {"dist": "constant", "value": SHORT_SEGMENTS}, "think": READING, "tcp": TCP},
        {"name": "tcp2", "src": "tcbi", "dst": "r2", **www, "tcp": TCP},
        {"name": "tcp3", "src": "tcbi", "dst": "r3", **www, "tcp": TCP},
    ] + [{"name": f"bg{i}", "kind": "closed", "src": f"bs{i}", "dst": f"br{i}", "size": PAGE_SIZE,
          "size_unit": "bytes", "think": {"dist": "constant", "value": 0.0}, "tcp": TCP, "record": "summary"}
         for i in (1, 2, 3)]
    return {"sim": {"duration": duration, "sample_interval": duration}, "nodes": nodes, "links": links,
            "lans": lans, "generators": generators}


def jain(x) -> float:
    x = np.asarray(x, dtype=float)
    s2 = float((x * x).sum())
    return float(x.sum() ** 2 / (len(x) * s2)) if s2 > 0 else float("nan")


def connection_metrics(flows: pd.DataFrame) -> dict:
    """T̄1 = Σs/Σd and T̄2 = mean(s/d) in segments/s, and the mean initial variables, over the
    given connections (s = size in segments, d = first segment to last ACK)."""
    f = flows[flows["completion_time"] > 0]
    s, d = f["size"].astype(float), f["completion_time"].astype(float)
    out = {"n": len(f), "T1": float(s.sum() / d.sum()) if len(f) else float("nan"),
           "T2": float((s / d).mean()) if len(f) else float("nan")}
    for v in ("init_cwnd", "init_ssthresh", "init_srtt", "init_rttvar"):
        out[v] = float(f[v].mean()) if len(f) and f[v].notna().any() else float("nan")
    return out


def fairness(intervals: pd.DataFrame) -> dict:
    """Jain's index of connections existing in parallel: per maximal interval of constant
    membership (n ≥ 2), t_i = member i's acknowledged segments / interval length; Ī_f is the
    unweighted mean over intervals, also reported weighted by the interval's length."""
    if intervals is None or len(intervals) == 0:
        return {"If": float("nan"), "If_weighted": float("nan"), "intervals": 0}
    x = intervals[intervals["t1"] > intervals["t0"]].copy()
    x["length"] = x["t1"] - x["t0"]
    x["rate"] = x["acked_bytes"] / MSS / x["length"]
    per = x.groupby(["set", "interval"]).agg(length=("length", "first"), index=("rate", jain))
    per = per[per["index"].notna()]
    return {"If": float(per["index"].mean()),
            "If_weighted": float((per["index"] * per["length"]).sum() / per["length"].sum()),
            "intervals": len(per)}


def run_metrics(r) -> dict:
    """Everything one run contributes: per TCBI source over its eligible new connections
    (at least one parallel connection in the set at the start), the parallel connections,
    the background, and the share of eligible connections."""
    f = r.flows[r.flows["start"] >= WARMUP]
    host = f[f["generator"].isin(SOURCES)]
    eligible = host[host["tcbi_parallel"] >= 1]
    out = {"eligible_share": len(eligible) / len(host) if len(host) else float("nan"),
           "connections": len(host),
           "connections_per_s": len(host) / (r.summary["duration"] - WARMUP)}
    for src in SOURCES:
        for k, v in connection_metrics(eligible[eligible["generator"] == src]).items():
            out[f"{src}:{k}"] = v
    iv = r.parallel_intervals
    if len(iv):
        iv = iv[iv["t0"] >= WARMUP]
    # connections existing in parallel: those that overlapped another one of the set at any
    # time of their life; T̄1 and T̄2 over their whole transfers
    overlapped = host[host["name"].isin(set(iv["name"])) if len(iv) else host["tcbi_parallel"] >= 1]
    for k, v in {**connection_metrics(overlapped), **fairness(iv)}.items():
        out[f"parallel:{k}"] = v
    out.update(background_metrics(r))
    return out


def background_metrics(r) -> dict:
    """The background senders (recorded as generator totals over the whole run, warm-up
    included): T̄1 = Σ segments / Σ durations of their completed connections, and goodput."""
    g = r.generators[r.generators["generator"].str.startswith("bg")]
    return {"background:T1": float(g["completed_segments"].sum() / g["completed_duration"].sum()),
            "background:T2": float(g["sum_rate"].sum() / g["completed"].sum()),
            "background:goodput_bps": float(g["delivered_bytes"].sum() * 8 / r.summary["duration"])}


METRIC_ROWS = [("T1", "T̄1 new connections [seg/s]"), ("T2", "T̄2 new connections [seg/s]"),
               ("init_cwnd", "initial cwnd [seg]"), ("init_ssthresh", "initial ssthresh [seg]"),
               ("init_srtt", "initial srtt [s]"), ("init_rttvar", "initial rttvar [s]")]
PARALLEL_ROWS = [("T1", "parallel connections T̄1 [seg/s]"), ("T2", "parallel connections T̄2 [seg/s]"),
                 ("If", "parallel connections Ī_f")]


def results_table(m: pd.DataFrame, scenario: int) -> pd.DataFrame:
    """Table 2 (scenario 1) or 4 (scenario 2): our mean over runs beside the paper's value."""
    paper = paper_values("tcbi")["table2" if scenario == 1 else "table4"]
    rows = []

    def row(quantity, source, col, ref):
        r = {"quantity": quantity, "source": source}
        for i, c in enumerate(CONTROLLERS):
            vals = m.loc[m["controller"] == c, col]
            ci = mean_ci(vals) if vals.notna().sum() >= 2 else None
            r[CONTROLLER_LABEL[c]] = float(vals.mean()) if vals.notna().any() else float("nan")
            r[f"{CONTROLLER_LABEL[c]} ±"] = ci.half_width if ci else float("nan")
            r[f"paper: {CONTROLLER_LABEL[c]}"] = ref[i] if ref and ref[i] is not None else float("nan")
        for c in CONTROLLERS:  # srtt and rttvar are in different units: no band (compare ratios)
            ours, theirs = r[CONTROLLER_LABEL[c]], r[f"paper: {CONTROLLER_LABEL[c]}"]
            r[f"band: {CONTROLLER_LABEL[c]}"] = "" if "srtt" in quantity or "rttvar" in quantity else band(ours, theirs)
        rows.append(r)

    for key, label in METRIC_ROWS:
        for src in SOURCES:
            row(label, SOURCE_LABEL[src], f"{src}:{key}", paper[key][src])
    for key, label in PARALLEL_ROWS:
        row(label, "all", f"parallel:{key}", paper["parallel"][key])
    row("parallel connections Ī_f, weighted by duration", "all", "parallel:If_weighted", None)
    row("background connections T̄1 [seg/s]", "BS1–BS3", "background:T1", None)
    run = paper_values("tcbi")["connections_in_run"]
    row("new connections per second at the TCBI host", "TCP 1–3", "connections_per_s",
        [run["count"] / run["seconds"]] * 3)
    row("share of eligible new connections", "TCP 1–3", "eligible_share",
        [paper_values("tcbi")["eligible_share"][f"scenario{scenario}"]] * 3)
    return pd.DataFrame(rows)


def _fmt_test(level, lo, hi) -> str:
    return f"{level:.2f}: ({lo:+.2f}, {hi:+.2f})"


def significance_table(m: pd.DataFrame, scenario: int) -> pd.DataFrame:
    """Table 3 (scenario 1) or 5 (scenario 2): the unpaired t-test of (no TCBI) − (TCBI) per
    quantity, at the highest of 0.99/0.95/0.90 whose interval excludes 0 (else the 0.90 one)."""
    paper = paper_values("tcbi")["table3" if scenario == 1 else "table5"]
    base = m[m["controller"] == "none"]
    rows = []
    items = [(k, SOURCE_LABEL[s], f"{s}:{k}", paper[k][s]) for k in ("T1", "T2") for s in SOURCES]
    items += [(k, "parallel", f"parallel:{k}", paper["parallel"][k]) for k in ("T1", "T2", "If")]
    for key, source, col, ref in items:
        r = {"quantity": key, "source": source}
        for c in ("mv", "fs"):
            other = m[m["controller"] == c]
            try:
                t = unpaired_t_test(base[col], other[col])
                r[f"no↔{c.upper()}"] = _fmt_test(t.interval_level, *t.interval)
                r[f"no↔{c.upper()} decision"] = ("TCBI better" if t.level and t.difference < 0 else
                                                  "no TCBI better" if t.level else "indistinguishable")
            except ValueError as e:
                r[f"no↔{c.upper()}"] = f"n/a ({e})"
                r[f"no↔{c.upper()} decision"] = "n/a"
            r[f"paper: no↔{c.upper()}"] = _fmt_test(*ref[c])
        rows.append(r)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- Tables 2–5

GRID = {
    "quick": dict(duration=10_000.0, seeds=[1, 2]),
    "full": dict(duration=250_000.0, seeds=[1, 2, 3, 4, 5]),
}


@experiment("tcbi_ensemble", "Ensemble TCBI: no TCBI, MV-TCBI and FS-TCBI with a reliable (scenario 1) and a "
            "5 % lossy (scenario 2) receiver LAN (Tables 2-5)", PAPER)
def tcbi_ensemble(size: str) -> Plan:
    g = GRID[size]
    runs = [Run({"scenario": sc, "controller": c}, tcbi_spec(c, SCENARIO_PLR[sc], g["duration"]), seed,
                wall_limit=4 * 3600)
            for seed in g["seeds"] for sc in (1, 2) for c in CONTROLLERS]
    return Plan(runs, analyse_ensemble, {"duration_s": g["duration"], "seeds": g["seeds"], "warm-up_s": WARMUP,
                                         "segment": MSS, "connection set": "receiver LAN /24"})


def metrics_frame(done) -> pd.DataFrame:
    return pd.DataFrame([{**d.params, "seed": d.seed, **run_metrics(d.results)} for d in done])


def analyse_ensemble(done) -> Analysis:
    m = metrics_frame(done)
    tables, findings = [], []
    for sc in (1, 2):
        x = m[m["scenario"] == sc]
        if x.empty:
            continue
        t = results_table(x, sc)
        tables.append(Table(f"table{2 if sc == 1 else 4}",
                            f"Table {2 if sc == 1 else 4}: scenario {sc} (PLR {SCENARIO_PLR[sc]:.0%}), eligible new "
                            "connections per source and parallel connections; mean over runs ± 95 % CI", t,
                            paper=f"Table {2 if sc == 1 else 4}",
                            note="srtt/rttvar: ours in seconds, the paper's in its ns-2 time unit (compare ratios)"))
        tables.append(Table(f"table{3 if sc == 1 else 5}",
                            f"Table {3 if sc == 1 else 5}: scenario {sc}, unpaired t-test of (no TCBI) − (TCBI)",
                            significance_table(x, sc), paper=f"Table {3 if sc == 1 else 5}"))
        findings += ensemble_findings(x, sc)
    if set(m["scenario"]) == {1, 2}:
        findings.append(fairness_lossy_hop_finding(m))
        findings.append(scenario_two_faster_finding(m))
    return Analysis(tables, [], findings)


def by_seed(x: pd.DataFrame, controller: str, col: str) -> pd.Series:
    return x[x["controller"] == controller].set_index("seed")[col].sort_index()


def fairness_lossy_hop_finding(m: pd.DataFrame) -> str:
    """The paper's conclusion that TCBI improves fairness only with a reliable last hop: we read
    'only' as the Ī_f gain with 5 % loss being less than half the gain without loss, per
    controller, decided per seed (runs of one seed share their random streams)."""
    parts = []
    for c in ("mv", "fs"):
        g = {sc: by_seed(m[m["scenario"] == sc], c, "parallel:If") - by_seed(m[m["scenario"] == sc], "none", "parallel:If")
             for sc in (1, 2)}
        d = (0.5 * g[1] - g[2]).dropna()
        parts.append(above(d.values, 0.0, f"{CONTROLLER_LABEL[c]}: gain(S2) < gain(S1)/2 (gains {g[1].mean():+.3f} / "
                                          f"{g[2].mean():+.3f})", quantity="per-seed 0.5·gain(S1) − gain(S2)"))
    return str(all_of(parts, "the fairness gain is confined to the reliable last hop"))


def scenario_two_faster_finding(m: pd.DataFrame) -> str:
    """The paper's counter-intuitive result: T̄2 of the eligible new connections is higher with the
    lossy last hop (scenario 2) than with the reliable one, because the background sends less."""
    parts = []
    for c in CONTROLLERS:
        for src in SOURCES:
            a, b = (m[(m["scenario"] == sc) & (m["controller"] == c)][f"{src}:T2"] for sc in (2, 1))
            parts.append(greater(a, b, f"{CONTROLLER_LABEL[c]} {SOURCE_LABEL[src]}: T̄2 S2 > S1 "
                                       f"({a.mean():.1f} vs {b.mean():.1f})"))
    return str(all_of(parts, "scenario 2 (lossy LAN) gives the eligible new connections a higher T̄2 than scenario 1, "
                             "for every controller and source"))


def ensemble_findings(x: pd.DataFrame, sc: int) -> list[str]:
    def col(c, name):
        return x.loc[x["controller"] == c, name]

    out = []
    for c in ("mv", "fs"):
        out.append(all_of([greater(col(c, "tcp1:T1"), col("none", "tcp1:T1"), "T̄1 higher"),
                           greater(col(c, "tcp1:T2"), col("none", "tcp1:T2"), "T̄2 higher")],
                          f"scenario {sc}: {CONTROLLER_LABEL[c]} speeds up short connections (T̄1 and T̄2)"))
    out.append(all_of([greater(col("fs", f"{s}:T1"), col("mv", f"{s}:T1"), f"{SOURCE_LABEL[s]}") for s in SOURCES],
                      f"scenario {sc}: FS beats MV on T̄1 of new connections for every source"))
    if sc == 1:
        out.append(all_of([greater(col(c, "parallel:If"), col("none", "parallel:If"), f"{CONTROLLER_LABEL[c]}")
                           for c in ("mv", "fs")], "scenario 1: both controllers raise the fairness Ī_f of parallel "
                                                   "connections"))
    else:
        out.append(all_of([close(col(c, "parallel:If"), col("none", "parallel:If"), 0.03, f"{CONTROLLER_LABEL[c]}",
                                 relative=False) for c in ("mv", "fs")],
                          "scenario 2: no fairness gain from either controller (Ī_f within ±0.03 of no TCBI)"))
    bg = col("none", "background:T1")
    out.append(all_of([greater(col(c, "background:T1"), bg, CONTROLLER_LABEL[c], margin=-0.03 * float(bg.mean()))
                       for c in ("mv", "fs")],
                      f"scenario {sc}: the background is not harmed (T̄1 no more than 3 % lower than without TCBI)"))
    cw = {c: col(c, "tcp1:init_cwnd") for c in CONTROLLERS}
    ss = {c: col(c, "tcp1:init_ssthresh") for c in CONTROLLERS}
    out.append(all_of([greater(cw["mv"], cw["fs"], "cwnd MV > FS"), above(cw["fs"], 2.0, "cwnd FS > 2"),
                       greater(ss["fs"], ss["mv"], "ssthresh MV < FS"), below(ss["fs"], 64.0, "ssthresh FS < 64")],
                      f"scenario {sc}: initial cwnd MV > FS > 2 and ssthresh MV < FS < 64 (short source)"))
    out = [str(v) for v in out]
    share = float(x["eligible_share"].mean())
    paper = paper_values("tcbi")["eligible_share"][f"scenario{sc}"]
    out.append(f"scenario {sc}: {100 * share:.1f} % of the TCBI host's new connections had a parallel connection "
               f"(paper: {100 * paper:.1f} %; {band(share, paper)})")
    return out


# --------------------------------------------------------------------------- temporal sharing

TEMPORAL_GRID = {
    "quick": dict(duration=4000.0, seeds=[1, 2, 3], lifetimes=[None, 600.0]),
    "full": dict(duration=20_000.0, seeds=[1, 2, 3, 4, 5], lifetimes=[None, 60.0, 600.0, 3600.0]),
}


@experiment("tcbi_temporal", "Temporal TCBI (RFC 2140): a per-set cache of closed connections initialises new "
            "ones; its effect on short connections against the cache's lifetime (our design; not in the paper)",
            PAPER)
def tcbi_temporal(size: str) -> Plan:
    g = TEMPORAL_GRID[size]
    runs = [Run({"controller": c, "lifetime": -1.0 if life is None else life},
                tcbi_spec(c, 0.0, g["duration"], temporal=life), seed, wall_limit=4 * 3600)
            for seed in g["seeds"] for c in ("mv", "fs") for life in g["lifetimes"]]
    return Plan(runs, analyse_temporal, {"scenario": 1, **{k: v for k, v in g.items() if k != "lifetimes"},
                                         "lifetimes_s": [x or "off" for x in g["lifetimes"]]})


def temporal_metrics(r) -> dict:
    f = r.flows[(r.flows["start"] >= WARMUP) & (r.flows["generator"] == "tcp1")]
    out = {f"short:{k}": v for k, v in connection_metrics(f).items()}
    for src in ("none", "ensemble", "temporal"):
        out[f"initialised:{src}"] = float((f["tcbi_source"] == src).mean()) if len(f) else float("nan")
    out.update(background_metrics(r))
    return out


def analyse_temporal(done) -> Analysis:
    m = pd.DataFrame([{**d.params, "seed": d.seed, **temporal_metrics(d.results)} for d in done])
    rows = []
    for (c, life), g in m.groupby(["controller", "lifetime"]):
        row = {"controller": CONTROLLER_LABEL[c], "lifetime_s": "off" if life < 0 else life, "runs": len(g)}
        for col in ("short:T1", "short:T2", "short:init_cwnd", "short:init_ssthresh", "initialised:temporal",
                    "initialised:ensemble", "background:T1"):
            ci = mean_ci(g[col])
            row[col] = ci.mean
            row[f"{col} ±"] = ci.half_width
        rows.append(row)
    t = pd.DataFrame(rows)
    findings = []
    for c in ("mv", "fs"):
        x = m[m["controller"] == c]
        off, on = x[x["lifetime"] < 0], x[x["lifetime"] == x["lifetime"].max()]
        if len(off) >= 2 and len(on) >= 2:
            findings.append(str(greater(on["short:T2"], off["short:T2"],
                                        f"{CONTROLLER_LABEL[c]}: temporal sharing (lifetime {on['lifetime'].iloc[0]:g} s) "
                                        f"speeds up short connections: T̄2 {on['short:T2'].mean():.1f} against "
                                        f"{off['short:T2'].mean():.1f} seg/s")))
    f, ax = plots.new("Temporal TCBI: short connections", "cache lifetime (s, 0 = off)", "T̄2 [seg/s]")
    for c, g in t.groupby("controller"):
        xs = [0.0 if v == "off" else float(v) for v in g["lifetime_s"]]
        ax.errorbar(xs, g["short:T2"], yerr=g["short:T2 ±"].fillna(0), fmt="o-", capsize=3, label=c)
    ax.legend()
    fig = Figure("temporal_short", "Short connections' T̄2 against the cache lifetime", f)
    return Analysis([Table("temporal", "Temporal TCBI: short connections (TCP 1), scenario 1", t,
                           note="our design (RFC 2140 temporal sharing); the paper has no values")],
                    [fig], findings)


# --------------------------------------------------------------------------- sensitivity of the gap to the paper
#
# Which of our readings of the paper's unstated model moves the eligible share, the inherited
# srtt, the short connections' throughput and the fairness toward the paper's values? One
# assumption is changed at a time from the ensemble's scenario (tcbi_spec), every other field
# kept; runs of one seed share their random streams, so each variant is compared with the
# baseline per seed.

SENSITIVITY_CONTROLLERS = ["none", "mv"]
NS2_OLD_TICK = 0.1  # ns-2's tcpTick_ before 2002-03-07 (ns-default.tcl); the paper used 2.1b8a (2001)
T_SRTT_SCALE = 8  # ns-2 keeps srtt as t_srtt_ = 8 × srtt in ticks (T_SRTT_BITS = 3)


def _set_lans(spec: dict, **fields) -> None:
    for lan in spec["lans"]:
        lan.update(fields)


def _set_tcp(spec: dict, **fields) -> None:
    for g in spec["generators"]:
        g["tcp"] = {**g["tcp"], **fields}


def _set_core_delay(spec: dict, delay: float) -> None:
    (link,) = [x for x in spec["links"] if {x["a"], x["b"]} == {"ra", "rb"}]
    link["delay"] = delay


def _double_background(spec: dict) -> None:
    spec["generators"] += [{**g, "name": g["name"] + "b"} for g in spec["generators"] if g["name"].startswith("bg")]


# name -> (assumption, the variant's reading, change applied to the baseline spec); the TCP
# options apply to every sender (TCBI host and background), as an ns-2 default would
SENSITIVITY_VARIANTS: dict[str, tuple[str, str, object]] = {
    "baseline": ("none (the ensemble's scenario)", "LANs 10 Mb/s, queue 20; RA–RB 10 ms; 3 background senders; "
                 "tick 10 ms, min RTO 0.2 s, initial RTO 3 s; no delayed ACK; rwnd 256", None),
    "lan_5M": ("LAN rate", "5 Mb/s (a crude stand-in for CSMA/CD overhead)", lambda s: _set_lans(s, rate=5e6)),
    "lan_2.5M": ("LAN rate", "2.5 Mb/s", lambda s: _set_lans(s, rate=2.5e6)),
    "lan_csma_cd": ("LAN medium access", "IEEE 802.3 CSMA/CD (lans.mac = \"csma_cd\": slot 51.2 µs, gap 9.6 µs, "
                    "jam, binary exponential backoff, 16 attempts)", lambda s: _set_lans(s, mac="csma_cd")),
    "lan_queue_50": ("LAN interface queue", "50 packets (ns-2's default Queue limit_)",
                     lambda s: _set_lans(s, queue=50)),
    "lan_queue_100": ("LAN interface queue", "100 packets", lambda s: _set_lans(s, queue=100)),
    "ra_rb_40ms": ("RA–RB delay", "40 ms (the paper states 10 ms)", lambda s: _set_core_delay(s, 0.040)),
    "background_x2": ("background load", "two back-to-back transfers per background sender", _double_background),
    "tick_100ms": ("TCP timer tick", "0.1 s (ns-2's tcpTick_ until 2002-03-07)",
                   lambda s: _set_tcp(s, tick=NS2_OLD_TICK)),
    "ns2_2001_timers": ("ns-2 timer defaults of 2001", "tick 0.1 s, min RTO 1 s, initial RTO 6 s",
                        lambda s: _set_tcp(s, tick=NS2_OLD_TICK, min_rto=1.0, initial_rto=6.0)),
    "delayed_ack": ("receiver ACKs", "delayed ACKs, every 2nd segment or 100 ms (ns-2's TCPSink/DelAck)",
                    lambda s: _set_tcp(s, delayed_ack=True)),
    "rwnd_20": ("receiver window", "20 segments (ns-2's window_ default; cwnd itself is not capped)",
                lambda s: _set_tcp(s, rwnd=20)),
}


def sensitivity_spec(variant: str, controller: str, plr: float, duration: float) -> dict:
    """tcbi_spec with one assumption changed (SENSITIVITY_VARIANTS)."""
    spec = tcbi_spec(controller, plr, duration)
    change = SENSITIVITY_VARIANTS[variant][2]
    if change is not None:
        change(spec)
    return spec


SENSITIVITY_GRID = {
    "quick": dict(duration=2_000.0, seeds=[1, 2]),  # 88 runs: keep `make run` short
    "full": dict(duration=20_000.0, seeds=[1, 2, 3, 4, 5]),
}


@experiment("tcbi_sensitivity", "TCBI: what moves the gap to the paper - the eligible share, the inherited srtt, "
            "short connections' T1/T2 and the fairness against one assumption at a time (LAN rate and queue, RA-RB "
            "delay, background load, ns-2 timer tick and RTO defaults, delayed ACKs, receiver window, CSMA/CD)", PAPER)
def tcbi_sensitivity(size: str) -> Plan:
    g = SENSITIVITY_GRID[size]
    runs = [Run({"variant": v, "scenario": sc, "controller": c},
                sensitivity_spec(v, c, SCENARIO_PLR[sc], g["duration"]), seed, wall_limit=4 * 3600)
            for seed in g["seeds"] for v in SENSITIVITY_VARIANTS for sc in (1, 2) for c in SENSITIVITY_CONTROLLERS]
    return Plan(runs, analyse_sensitivity,
                {"duration_s": g["duration"], "seeds": g["seeds"], "warm-up_s": WARMUP,
                 "controllers": SENSITIVITY_CONTROLLERS, "variants": list(SENSITIVITY_VARIANTS)})


def sensitivity_metrics(r) -> dict:
    """run_metrics plus what tells how fast and how busy the path was: the mean final srtt and
    the timeouts of the TCBI host's connections, T̄2 of all its short connections (eligible or
    not) and the receiver LAN's utilisation."""
    out = run_metrics(r)
    f = r.flows[(r.flows["start"] >= WARMUP) & r.flows["generator"].isin(SOURCES)]
    out["host:srtt"] = float(f["srtt"].mean()) if len(f) else float("nan")
    out["host:timeouts_per_connection"] = float(f["timeouts"].mean()) if len(f) else float("nan")
    out["all_short:T2"] = connection_metrics(f[f["generator"] == "tcp1"])["T2"]
    lans = r.lans
    out["receiver_lan:utilisation"] = float(lans.loc[lans["lan"] == "receiver_lan", "utilisation"].sum())
    return out


def sensitivity_quantities(scenario: int) -> list[tuple[str, str, str | None, str, float]]:
    """(key, label, controller (None: the mean over the controllers of a seed), metric column,
    the paper's value). The paper's srtt is read as ns-2's t_srtt_ (8 × srtt in ticks) with
    the 0.1 s tick of 2001 (SEED-NOTES §1C; our reading)."""
    p = paper_values("tcbi")
    t = p["table2" if scenario == 1 else "table4"]
    q = [("eligible_share", "share of eligible new connections", None, "eligible_share",
          p["eligible_share"][f"scenario{scenario}"]),
         ("init_srtt", "MV: inherited srtt of new short connections [s]", "mv", "tcp1:init_srtt",
          t["init_srtt"]["tcp1"][1] / T_SRTT_SCALE * NS2_OLD_TICK)]
    for key, label in (("T1", "T̄1"), ("T2", "T̄2")):
        for i, c in enumerate(SENSITIVITY_CONTROLLERS):
            q.append((f"{key}:{c}", f"{CONTROLLER_LABEL[c]}: {label} of new short connections [seg/s]", c,
                      f"tcp1:{key}", t[key]["tcp1"][CONTROLLERS.index(c)]))
    for c in SENSITIVITY_CONTROLLERS:
        q.append((f"If:{c}", f"{CONTROLLER_LABEL[c]}: Ī_f of parallel connections", c, "parallel:If",
                  t["parallel"]["If"][CONTROLLERS.index(c)]))
    return q


def per_seed(m: pd.DataFrame, variant: str, scenario: int, controller: str | None, col: str) -> pd.Series:
    """One value per seed: the run's, or the mean over the controllers' runs of the seed."""
    x = m[(m["variant"] == variant) & (m["scenario"] == scenario)]
    if controller is not None:
        x = x[x["controller"] == controller]
    return x.groupby("seed")[col].mean().sort_index()


def toward_paper(base: pd.Series, var: pd.Series, paper: float, claim: str):
    """Verdict: the variant lies nearer the paper's value than the baseline, decided on the 95 %
    CI of the per-seed reduction of the distance |x − paper| (an overshoot counts as a move
    away only when it lands farther from the paper than the baseline)."""
    both = pd.concat([base.rename("b"), var.rename("v")], axis=1).dropna()
    gain = (both["b"] - paper).abs() - (both["v"] - paper).abs()
    return above(gain.values, 0.0, claim, quantity="per-seed reduction of |x − paper|")


def sensitivity_table(m: pd.DataFrame) -> pd.DataFrame:
    """One row per (scenario, variant, quantity): mean ± 95 % CI over seeds, the change against
    the baseline (per-seed differences, mean ± 95 % CI), the paper's value and the verdict on
    whether the variant moves the quantity toward it."""
    rows = []
    variants = [v for v in SENSITIVITY_VARIANTS if v in set(m["variant"])]
    for sc in sorted(set(m["scenario"])):
        for key, label, ctrl, col, paper in sensitivity_quantities(sc):
            base = per_seed(m, "baseline", sc, ctrl, col)
            for v in variants:
                x = per_seed(m, v, sc, ctrl, col)
                assumption, reading, _ = SENSITIVITY_VARIANTS[v]
                row = {"scenario": sc, "variant": v, "assumption": assumption, "reading": reading,
                       "quantity": label, "key": key, "seeds": int(x.notna().sum()), **ci_cols(x, "value")}
                if v == "baseline":
                    row.update({"change": float("nan"), "change ±95%": float("nan")})
                else:
                    row.update(ci_cols((x - base).dropna(), "change"))
                row["paper: value"] = paper
                row["ours / paper"] = row["value"] / paper if paper else float("nan")
                row["verdict: toward the paper"] = "" if v == "baseline" else str(toward_paper(
                    base, x, paper, f"scenario {sc}: {v} moves '{label}' toward the paper's {paper:.4g} "
                                    f"({base.mean():.4g} → {x.mean():.4g})"))
                rows.append(row)
    return pd.DataFrame(rows)


def sensitivity_summary(t: pd.DataFrame) -> pd.DataFrame:
    """The long table in one row per (scenario, variant): each quantity's mean and 95 % CI
    half-width (columns `key`, `key ±95%`), the paper's values (`paper: key`) and the
    quantities the variant moves toward the paper's value or away from it (their verdicts
    are in the long table)."""
    rows = []
    for (sc, v), g in t.groupby(["scenario", "variant"], sort=False):
        row = {"scenario": sc, "variant": v, "assumption": g["assumption"].iloc[0], "reading": g["reading"].iloc[0]}
        for _, r in g.iterrows():
            row[r["key"]] = r["value"]
            row[f"{r['key']} ±95%"] = r["value ±95%"]
        for _, r in g.iterrows():
            row[f"paper: {r['key']}"] = r["paper: value"]
        outcomes = [(k, outcome_of(o)) for k, o in zip(g["key"], g["verdict: toward the paper"])]
        none = "(reference)" if v == "baseline" else "none"
        row["toward the paper"] = ", ".join(k for k, o in outcomes if o == HOLDS) or none
        row["away from the paper"] = ", ".join(k for k, o in outcomes if o == FAILS) or none
        rows.append(row)
    return pd.DataFrame(rows)


DIAGNOSTICS = [("host:srtt", "mean final srtt of the TCBI host's connections [s]"),
               ("receiver_lan:utilisation", "receiver LAN utilisation"),
               ("all_short:T2", "T̄2 of all new short connections [seg/s]"),
               ("host:timeouts_per_connection", "timeouts per TCBI-host connection"),
               ("background:T1", "background T̄1 [seg/s]"),
               ("connections_per_s", "new connections per second at the TCBI host")]


def diagnostics_table(m: pd.DataFrame) -> pd.DataFrame:
    """How fast and busy the path is per variant (means over every run of the variant, both
    controllers): no paper values."""
    rows = []
    for sc in sorted(set(m["scenario"])):
        for v in [v for v in SENSITIVITY_VARIANTS if v in set(m["variant"])]:
            row = {"scenario": sc, "variant": v}
            for col, label in DIAGNOSTICS:
                row.update(ci_cols(per_seed(m, v, sc, None, col), label))
            rows.append(row)
    return pd.DataFrame(rows)


def sensitivity_findings(t: pd.DataFrame) -> list[str]:
    """Per scenario and variant: the quantities it moves toward the paper (holds) and away from
    it (does not hold), the rest inconclusive."""
    out = []
    for (sc, v), g in t[t["variant"] != "baseline"].groupby(["scenario", "variant"], sort=False):
        toward = [f"{k} ({r:.2g}× the paper)" for k, r, o in zip(g["key"], g["ours / paper"],
                                                                  g["verdict: toward the paper"])
                  if outcome_of(o) == HOLDS]
        away = [k for k, o in zip(g["key"], g["verdict: toward the paper"]) if outcome_of(o) == FAILS]
        out.append(f"scenario {sc}, {v}: toward the paper: {', '.join(toward) or 'nothing'}; away: "
                   f"{', '.join(away) or 'nothing'}; inconclusive: {len(g) - len(toward) - len(away)} of {len(g)}")
    return out


def sensitivity_figure(t: pd.DataFrame):
    import matplotlib.pyplot as plt

    scenarios = sorted(set(t["scenario"]))
    fig, axes = plt.subplots(1, len(scenarios), figsize=(6.4 * len(scenarios), 4.6), squeeze=False)
    variants = list(dict.fromkeys(t["variant"]))
    for ax, sc in zip(axes[0], scenarios):
        x = t[t["scenario"] == sc]
        for j, (key, g) in enumerate(x.groupby("key", sort=False)):
            g = g.set_index("variant").reindex(variants)
            ax.plot(np.arange(len(variants)) + 0.06 * (j - 3), g["ours / paper"], "o", label=key)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_yscale("log")
        ax.set_xticks(range(len(variants)), variants, rotation=45, ha="right", fontsize="small")
        ax.set_title(f"scenario {sc} (PLR {SCENARIO_PLR[sc]:.0%})")
        ax.set_ylabel("ours / paper (mean over seeds)")
        ax.grid(True, alpha=0.3)
    axes[0][-1].legend(fontsize="small", ncol=2)
    fig.tight_layout()
    return fig


def analyse_sensitivity(done) -> Analysis:
    m = pd.DataFrame([{**d.params, "seed": d.seed, **sensitivity_metrics(d.results)} for d in done])
    t = sensitivity_table(m)
    note = ("paper's srtt (Table 2/4, 'ns-2 time unit') read as ns-2's t_srtt_ = 8 × srtt in 0.1 s ticks; the share "
            "is the mean over the controllers' runs of a seed; change = per-seed difference from the baseline")
    return Analysis([Table("sensitivity", "One assumption at a time: each variant's mean ± 95 % CI over seeds, its "
                                          "change against the baseline and whether it moves toward the paper", t,
                           paper="Tables 2 and 4, section 7 (eligible share)", note=note),
                     Table("summary", "One row per scenario and variant: mean and 95 % CI of each quantity, the "
                                      "quantities it moves toward the paper's value (verdict holds) and away from it "
                                      "(does not hold)", sensitivity_summary(t),
                           paper="Tables 2 and 4, section 7 (eligible share)", note=note),
                     Table("diagnostics", "How fast and how busy the path is in each variant (no paper values)",
                           diagnostics_table(m))],
                    [Figure("sensitivity", "Each quantity relative to the paper's value, per variant",
                            sensitivity_figure(t))],
                    sensitivity_findings(t))
