"""Sync-TCP's evaluation: the thesis's chapter 3 (§3.5 simulations, §3.6 testbed) and Appendix A
(Wu Xiuchao, PhD thesis NUS 2009; issue 18). This module holds what the experiments share: the
scenario (Fig. 3.6's dumbbell with the thesis's background traffic), the sizes, the measurement
of one run over the window [100, 1000] s, and the table, verdict and figure helpers. The
experiments are in ``sync_tcp_sim.py`` (§3.5), ``sync_tcp_appendix.py`` (App. A) and
``sync_tcp_testbed.py`` (§3.6, simulated equivalents of T1–T4).

Every experiment runs the thesis's five algorithms (``newreno`` as "TCP", ``cubic_linux``,
``compound`` as CTCP, ``fast``, ``sync_tcp``) in each configuration, one run per algorithm per
configuration and seed, and reports the thesis's exact numbers ([E] in SEED-NOTES §2.2 D) in
``paper:`` columns with ``band:`` columns (±25 %), and verdicts on its qualitative claims ([R])
decided on 95 % confidence intervals over the seeds (often inconclusive at the quick sizes).

Readings (SEED-NOTES §2.2 B, C; each marked ⚠ there), also stated in docs/sync-tcp.md:

- BDP = C × 2 × bottleneck delay (1 Gb/s, 50 ms: 8333 packets of 1500 B); the alternative
  that counts the side links (10 000 packets) is ``topologies.thesis_bdp(include_sides=True)``.
- 1500-byte packets (1460 B of payload). The packet error rate applies to the bottleneck in both
  directions (data and ACKs). Side links and cloud links are error-free and 10 × the
  bottleneck's rate; DropTail everywhere; a sender's link queues up to 2 × (BDP + buffer),
  the other fast-link directions 1000 packets, cloud links 10 000.
- Flows under test: SACK on (ns-2 TCP-Linux runs it), unlimited receive window, timestamps on
  except for Sync-TCP (which samples the RTT itself, §3.4.2), up to 0.2 ms of random sender
  processing time (as crates/tcplab-core/tests/sync_tcp.rs). They start at times uniform in
  [0, 1) s drawn from the seed (replications differ by these, by the cloud delays and by the
  loss streams).
- Background (§3.5): two clouds, cloud hosts' access delays uniform in [5, 25] ms (one draw per
  host); 10 bidirectional VoIP calls (200 B every 20 ms each way) running over exactly the
  measurement window; 10 legacy FTP flows (NewReno, 64 KiB receive window); web traffic of
  3200 (forward) and 800 (reverse) new connections/s from the PackMime-HTTP generator, wired
  in one place (``topologies.add_web``); the quick sizes run without it.
- Metrics over [t0, t1] = [100, 1000] s at the full size (the quick sizes scale both): see
  ``measure``; docs/sync-tcp.md lists each definition.
- Quick sizes: a 100 Mb/s bottleneck instead of 1 Gb/s (buffers stay in BDP units, so the
  maximum queueing delays are the thesis's), 60 s runs measured over [10, 60] s (dynamic
  scenarios: 100 s, all times × 0.1), 1 legacy FTP flow instead of 10 (the background scaled
  with the capacity), no web load, 3 seeds, fewer grid points (each experiment's parameters say
  which).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

import tcplab
from tcplab import metrics as mx
from tcplab import plots
from tcplab import topologies as tp
from tcplab.experiments import Figure, Run, paper_values
from tcplab.stats import ci_cols
from tcplab.verdicts import Verdict, all_of, band, greater

PAPER = "Wu Xiuchao, PhD thesis (NUS 2009), chapter 3 and Appendix A: Sync-TCP"
CCS = ("newreno", "cubic_linux", "compound", "fast", "sync_tcp")
SYNC = "sync_tcp"
FORCED = "sync_tcp_forced"  # §3.5.2: Sync-TCP forced into SYNC mode (a label, not a registry name)
LABEL = {"newreno": "TCP", "cubic_linux": "CUBIC", "compound": "CTCP", "fast": "FAST", "sync_tcp": "Sync-TCP",
         FORCED: "Sync-TCP (forced on)"}
PACKET_BITS = tp.THESIS_PACKET * 8
VOIP_BPS = 200 * 8 / 0.020  # one direction of a call
T_WAIT = 0.5

SIZES = {
    "quick": dict(rate=100e6, duration=60.0, t0=10.0, dyn_duration=100.0, seeds=[1, 2, 3], voip=10, ftp=1,
                  web=False),
    "full": dict(rate=1e9, duration=1000.0, t0=100.0, dyn_duration=1000.0, seeds=[1, 2, 3, 4, 5], voip=10, ftp=10,
                 web=True),
}
WEB_RATES = (3200.0, 800.0)  # new connections/s forward and reverse (§3.5)


def label(cc: str) -> str:
    return LABEL.get(cc, cc)


def thesis() -> dict:
    return paper_values("thesis_ch3")


def web_rates(z: dict) -> tuple[float, float]:
    return WEB_RATES if z["web"] else (0.0, 0.0)


def starts(n: int, seed: int) -> list[float]:
    return np.random.default_rng([seed, 31]).uniform(0, 1, n).round(6).tolist()


def ftp_count(z: dict) -> int:
    return z["ftp"]


def scaled(z: dict, x: float) -> float:
    """A time of the thesis's 1000-s dynamic scenarios scaled to this size's length."""
    return x * z["dyn_duration"] / 1000.0


# --------------------------------------------------------------------------- scenario


def flow_ids(spec: dict) -> dict:
    """Flow name → flow id (the flows table's order: a VoIP call in both directions is two
    flows, the second named ``<name>.back``)."""
    ids, i = {}, 0
    for f in spec["flows"]:
        ids[f["name"]] = i
        i += 1
        if f.get("transport") == "voip" and f.get("direction", "both") == "both":
            ids[f["name"] + ".back"] = i
            i += 1
    return ids


def overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return max(0.0, min(a1, b1) - max(a0, b0))


def cbr_on_time(f: dict, t0: float, t1: float, end: float) -> float:
    """Seconds within [t0, t1] in which a CBR flow with `on_off` (or always on) sends."""
    start, stop = float(f.get("start", 0.0)), float(f.get("stop", end))
    oo = f.get("on_off")
    if not oo:
        return overlap(start, stop, t0, t1)
    on, off, t, total, state = float(oo["on"]), float(oo["off"]), start, 0.0, oo.get("start_on", True)
    while t < stop:
        d = on if state else off
        if state:
            total += overlap(t, min(t + d, stop), t0, t1)
        t += d
        state = not state
    return total


def case(z: dict, cc: str, seed: int, params: dict, *, n: int | None = None, delay: float = 0.05,
         per: float = 1e-6, qsize: float = 0.5, sides: list[float] | None = None, flows: list[dict] | None = None,
         rate: float | None = None, duration: float | None = None, t0: float | None = None, sample: float = 0.1,
         bg: dict | None = None, cc_params: dict | None = None, wall_limit: float = 7200) -> Run:
    """One run of the thesis's dumbbell: `n` flows of `cc` (block: starting in [0, 1) s, running
    to the end) with side-link delays `sides` (default 5 ms), or the given `flows` (dicts for
    ``topologies.thesis_dumbbell``); background as `bg` overrides (``add_background``'s
    arguments); measured over [t0, duration]."""
    rate = rate or z["rate"]
    duration = duration or z["duration"]
    t0 = z["t0"] if t0 is None else t0
    if flows is None:
        sides = sides if sides is not None else [0.005] * n
        flows = [{"cc": cc, "side": s, "start": t, **({"cc_params": cc_params} if cc_params else {})}
                 for s, t in zip(sides, starts(len(sides), seed))]
    spec = tp.thesis_dumbbell(rate, delay, per, qsize, flows, duration, sample=sample)
    spec["sim"]["drop_trace"] = True
    fwd, rev = web_rates(z)
    b = dict(voip=z["voip"], ftp=ftp_count(z), web_fwd=fwd, web_rev=rev, measure=(t0, duration))
    b.update(bg or {})
    tp.add_background(spec, seed, rate, **b)
    return Run(dict(params, cc=cc, t0=t0, t1=duration), spec, seed, wall_limit=wall_limit)


def is_background(f: dict) -> bool:
    return f.get("transport") in ("voip", "udp") or f["name"].split(".")[0].startswith("ftp")


def meta(spec: dict, t0: float, t1: float) -> dict:
    """What the analysis needs to measure a run, read from its scenario: the window [t0, t1],
    the flows under test (the leading flows before the background, ids 0..n−1), the bottleneck
    (the first link, R1→R2: links-table id 0) with the TCP flows and the datagram flows that
    cross it forward, the buffer's drain time and the VoIP calls' one-way propagation delay."""
    ids = flow_ids(spec)
    link = spec["links"][0]
    limit = link["queue"]["limit"] if isinstance(link["queue"], dict) else link["queue"]
    n = next((i for i, f in enumerate(spec["flows"]) if is_background(f)), len(spec["flows"]))
    access = {lk["a"]: float(lk["delay"]) for lk in spec["links"][1:]}
    ftp = [ids[f["name"]] for f in spec["flows"] if is_background(f) and f.get("transport") is None]
    voip = [f for f in spec["flows"] if f.get("transport") == "voip"]
    dgram = [[ids[f["name"]], VOIP_BPS * overlap(float(f.get("start", 0)), float(f.get("stop", t1)), t0, t1)]
             for f in voip]
    for f in spec["flows"]:
        if f.get("transport") == "udp":
            dgram.append([ids[f["name"]], float(f["rate"]) * cbr_on_time(f, t0, t1, spec["sim"]["duration"])])
    prop = [access.get(f["src"], 0.0) + access.get(f["dst"], 0.0) + float(link["delay"]) for f in voip]
    return {"t0": t0, "t1": t1, "n": n, "rate": float(link["rate"]), "delay": float(link["delay"]), "link": 0,
            "limit": int(limit), "tcp": list(range(n)) + ftp, "ftp": ftp, "dgram": dgram,
            "voip_prop": float(np.mean(prop)) if prop else None, "web": bool(spec.get("generators"))}


# --------------------------------------------------------------------------- measurement


def datagram_window(flows: pd.DataFrame, dgram: list) -> tuple[float, float]:
    """(bits, packets) of the datagram flows that crossed the bottleneck in the window: the
    planned bits (rate × active time in the window) times the flow's delivered fraction."""
    by = flows.set_index("flow")
    bits = pkts = 0.0
    for fid, planned in dgram:
        row = by.loc[fid]
        frac = float(row["delivered_segments"]) / float(row["segments_sent"]) if row["segments_sent"] else 1.0
        size = float(row["bytes_sent"]) / float(row["segments_sent"]) if row["segments_sent"] else 200.0
        bits += planned * frac
        pkts += planned * frac / (size * 8)
    return bits, pkts


def web_window(g, spec: dict, t0: float, t1: float) -> tuple[float, float]:
    """(bits, packets) of the forward web traffic in the window, approximated from each forward
    generator's whole-run totals (payload delivered plus 40 B per segment sent) spread evenly
    over its active time: the generators have no time series."""
    if g is None or not len(g) or "delivered_bytes" not in g.columns:
        return 0.0, 0.0
    gens = {x["name"]: x for x in spec.get("generators", []) if "web_fwd" in x["name"]}
    bits = pkts = 0.0
    for _, row in g.iterrows():
        x = gens.get(row["generator"])
        if x is None:
            continue
        a, b = float(x.get("start", 0.0)), float(x.get("stop", spec["sim"]["duration"]))
        share = overlap(a, b, t0, t1) / (b - a) if b > a else 0.0
        bits += share * (float(row["delivered_bytes"]) + 40.0 * float(row["segments_sent"])) * 8
        pkts += share * float(row["segments_sent"])
    return bits, pkts


def measure(d) -> dict:
    """One row of metrics for a finished run, over its window [t0, t1]:

    - ``utilisation``: ``metrics.window_utilisation`` of the bottleneck (R1→R2) by the TCP flows
      crossing it (under test and legacy FTP; delivered segments with headers) and the
      datagrams; web traffic is not counted (it has no time series);
    - ``qdelay ms``, ``jitter ms``: mean and standard deviation of the bottleneck's sampled
      queueing delay in the window (``metrics.sampled_queue_delay``); ``pkt qdelay ms``,
      ``pkt jitter ms``: the links table's per-packet ``qdelay_mean``, ``qdelay_std`` (whole run);
    - ``loss rate``: ``metrics.window_loss_rate`` (drop trace; departures from the delivered
      traffic);
    - ``jain``: Jain's index of the flows under test's average throughputs; ``short-term
      fairness`` and ``stability`` (mean over the flows) from their 1-s throughputs;
    - ``voip delay ms``, ``voip jitter ms`` (standard deviation of the one-way delay), ``voip
      rfc3550 ms``, ``voip loss``: forward halves of the calls (``metrics.datagram_delay``);
      ``buffer occupancy``: ``metrics.normalised_buffer_occupancy``;
    - ``ftp Mb/s``: mean goodput of a legacy FTP flow; ``web response s``: mean completion time
      of the web connections (when there is web traffic);
    - ``signals``, ``signals by all``, ``signals missed``: Sync-TCP's congestion signals
      (``metrics.signal_synchronisation`` over the flows under test in SYNC mode).
    """
    p, r = meta(d.run.spec, d.params["t0"], d.params["t1"]), d.results
    flows, ts, links = r.flows, r.flow_ts, r.links
    t0, t1, n, rate = p["t0"], p["t1"], p["n"], p["rate"]
    test = list(range(n))
    thr = mx.window_throughput(ts, flows, test, t0, t1)
    it = mx.interval_throughput(ts, flows, 1.0, t0, t1)
    it = it[it["flow"].isin(test)]
    bits, pkts = datagram_window(flows, p["dgram"])
    g = getattr(r, "generators", None)
    web_bits, web_pkts = web_window(g, d.run.spec, t0, t1) if p.get("web") else (0.0, 0.0)
    bits, pkts = bits + web_bits, pkts + web_pkts
    util = mx.window_utilisation(ts, flows, p["tcp"], rate, t0, t1, 40, bits)
    seg = mx.window_delivered(ts, p["tcp"], t0, t1).sum()
    service = PACKET_BITS / rate
    qd, jit = mx.sampled_queue_delay(r.link_ts, p["link"], t0, t1, service)
    bn = links[links["link"] == p["link"]].iloc[0]
    row = {"seed": d.seed, "t0": t0, "t1": t1, "utilisation": util, "qdelay ms": qd * 1e3, "jitter ms": jit * 1e3,
           "pkt qdelay ms": float(bn["qdelay_mean"]) * 1e3, "pkt jitter ms": float(bn["qdelay_std"]) * 1e3,
           "loss rate": mx.window_loss_rate(r.drops, p["link"], t0, t1, seg + pkts),
           "total Mb/s": float(thr.sum()) / 1e6, "jain": mx.jain_index(thr.to_numpy()),
           "short-term fairness": mx.short_term_fairness(it) if n > 1 else np.nan,
           "stability": float(mx.stability_index(it).mean()) if len(it) else np.nan,
           "thr": [float(x) / 1e6 for x in thr.to_numpy()]}
    dd = mx.datagram_delay(flows[flows["flow"].isin([f for f, _ in p["dgram"]])])
    if len(dd) and "forward" in dd.index and p["voip_prop"] is not None:
        v = dd.loc["forward"]
        qmax = p["limit"] * service
        row.update({"voip delay ms": float(v["delay_mean"]) * 1e3, "voip jitter ms": float(v["delay_std"]) * 1e3,
                    "voip rfc3550 ms": float(v["jitter_mean"]) * 1e3, "voip loss": float(v["loss_rate"]),
                    "buffer occupancy": mx.normalised_buffer_occupancy(float(v["delay_mean"]), p["voip_prop"], qmax)})
    if p["ftp"]:
        row["ftp Mb/s"] = float(mx.window_throughput(ts, flows, p["ftp"], t0, t1).mean()) / 1e6
    if p.get("web") and g is not None and len(g) and "web_responses" in g.columns:
        # the generators' mean response times (request sent -> response received), weighted by
        # the responses each completed
        w = g["web_responses"].fillna(0).astype(float)
        row["web response s"] = float((g["web_response_time_mean"].fillna(0) * w).sum() / w.sum()) if w.sum() else np.nan
    if d.params["cc"] == SYNC:
        s = mx.signal_synchronisation(r.events, None, T_WAIT, t0, t1)
        row.update({"signals": s["signals"], "signals by all": s["by_all"], "signals missed": s["missed"],
                    "fraction by all": s["fraction_by_all"]})
    if d.run.spec["flows"][0]["cc"] == SYNC:
        e = r.events
        entered = e.loc[(e["event"] == "sync_mode") & (e["value"] == 1.0) & e["flow"].isin(test), "flow"].nunique()
        row["share in SYNC"] = entered / n if n else np.nan
    return row


def measures(done, keys: list[str]) -> pd.DataFrame:
    rows = []
    for d in done:
        rows.append({**{k: d.params[k] for k in keys}, "cc": d.params["cc"], **measure(d)})
    return pd.DataFrame(rows)


SUMMARY = ("utilisation", "qdelay ms", "jitter ms", "loss rate", "jain", "short-term fairness", "stability",
           "voip delay ms", "voip jitter ms", "voip loss", "buffer occupancy", "ftp Mb/s", "web response s",
           "fraction by all")


def summary(m: pd.DataFrame, keys: list[str], columns=SUMMARY) -> pd.DataFrame:
    """Per configuration and algorithm: the number of runs and each metric's mean and ±95 %."""
    rows = []
    for k, g in m.groupby(keys + ["cc"], sort=False):
        k = k if isinstance(k, tuple) else (k,)
        row = dict(zip(keys + ["cc"], k))
        row = {**{x: row[x] for x in keys}, "algorithm": label(row["cc"]), "cc": row["cc"], "runs": len(g)}
        for c in columns:
            if c in g.columns and g[c].notna().any():
                row.update(ci_cols(g[c].dropna(), c))
        rows.append(row)
    return pd.DataFrame(rows)


def order_ccs(t: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    rank = {c: i for i, c in enumerate(CCS + (FORCED,))}
    return t.assign(_r=t["cc"].map(rank)).sort_values(keys + ["_r"], kind="stable").drop(columns="_r").reset_index(
        drop=True)


# --------------------------------------------------------------------------- verdicts


def compare(g: pd.DataFrame, a: str, b: str, metric: str, claim: str, margin: float = 0.0,
            col: str = "cc") -> Verdict:
    """Claim: the mean `metric` of the runs with `col` == a exceeds that of `col` == b by more
    than `margin`. Paired by seed when both have the same seeds (the runs of one seed share the
    flows' start times, the cloud delays and the loss streams, whatever the algorithm), else
    Welch's interval."""
    x = g.loc[g[col] == a].set_index("seed")[metric]
    y = g.loc[g[col] == b].set_index("seed")[metric]
    if len(x) >= 2 and x.index.is_unique and y.index.is_unique and set(x.index) == set(y.index):
        k = sorted(x.index)
        return greater(x.loc[k].to_numpy(), y.loc[k].to_numpy(), claim, margin, paired=True)
    return greater(x, y, claim, margin)


def sync_best(g: pd.DataFrame, metric: str, lower: bool, what: str, margin: float = 0.0) -> Verdict:
    """Claim: Sync-TCP's mean `metric` is the lowest (`lower`) or highest of the five, i.e.
    better than each other algorithm's (intervals paired by seed, all must hold)."""
    parts = []
    for cc in CCS:
        if cc == SYNC or not (g["cc"] == cc).any():
            continue
        parts.append(compare(g, cc, SYNC, metric, f"below {label(cc)}'s", margin) if lower else
                     compare(g, SYNC, cc, metric, f"above {label(cc)}'s", margin))
    return all_of(parts, f"Sync-TCP has the {'lowest' if lower else 'highest'} {what} of the five")


def with_band(row: dict, name: str, ours: float, paper: float | None) -> None:
    row[f"paper: {name}"] = paper
    row[f"band: {name}"] = band(ours, paper) if paper is not None and np.isfinite(ours) else ""


# --------------------------------------------------------------------------- figures


def first_runs(done, **match) -> dict:
    """The first replication of each algorithm among the runs whose parameters match."""
    out = {}
    for d in done:
        if all(d.params.get(k) == v for k, v in match.items()):
            out.setdefault(d.params["cc"], d)
    return {cc: out[cc] for cc in CCS if cc in out}


def queue_figure(runs: dict, title: str) -> Figure | None:
    """The bottleneck queue over time (bytes, as the thesis's Figs. 3.18, 3.21), one panel per
    algorithm."""
    if not runs:
        return None
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(runs), 1, figsize=(9, 1.9 * len(runs)), sharex=True, squeeze=False)
    for ax, (cc, d) in zip(axes[:, 0], runs.items()):
        r = d.results
        q = r.link_ts[r.link_ts["link"] == 0]
        ax.plot(q["time"], q["queue"] * tp.THESIS_PACKET / 1e6, linewidth=0.7)
        ax.set_ylabel(f"{label(cc)}\nMB", fontsize="small")
        ax.axhline(meta(d.run.spec, 0, 1)["limit"] * tp.THESIS_PACKET / 1e6, color="k", linestyle=":", linewidth=0.8)
    axes[-1, 0].set_xlabel("time (s)")
    fig.suptitle(title)
    fig.tight_layout()
    seed = next(iter(runs.values())).seed
    return Figure("queue", f"{title} (seed {seed}; dotted: the buffer)", fig)


def throughput_figure(runs: dict, title: str, flows: list[int] | None = None, interval: float = 1.0,
                      name: str = "throughput") -> Figure | None:
    """Throughput trajectories (Mb/s per `interval`) of the flows under test, one panel per
    algorithm (the thesis's Figs. 3.14, 3.16, 3.19, 3.27)."""
    if not runs:
        return None
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(runs), 1, figsize=(9, 1.9 * len(runs)), sharex=True, squeeze=False)
    for ax, (cc, d) in zip(axes[:, 0], runs.items()):
        r = d.results
        sel = flows if flows is not None else list(range(meta(d.run.spec, 0, 1)["n"]))
        it = mx.interval_throughput(r.flow_ts, r.flows, interval)
        for f in sel:
            x = it[it["flow"] == f]
            ax.plot(x["time"], x["throughput_bps"] / 1e6, linewidth=0.7, label=f"flow {f}")
        ax.set_ylabel(f"{label(cc)}\nMb/s", fontsize="small")
    if len(sel) <= 6:
        axes[0, 0].legend(fontsize="x-small", ncol=len(sel))
    axes[-1, 0].set_xlabel("time (s)")
    fig.suptitle(title)
    fig.tight_layout()
    seed = next(iter(runs.values())).seed
    return Figure(name, f"{title} (seed {seed})", fig)


def utilisation_figure(runs: dict, title: str, interval: float) -> Figure | None:
    """The bottleneck's utilisation by the flows under test and the legacy FTP flows per
    `interval` (the thesis's Figs. 3.17, 3.20; datagrams left out)."""
    if not runs:
        return None
    fig, ax = plots.new(title, "time (s)", "utilisation")
    for cc, d in runs.items():
        r, p = d.results, meta(d.run.spec, 0, 1)
        it = mx.interval_throughput(r.flow_ts, r.flows, interval)
        it = it[it["flow"].isin(p["tcp"])].groupby("time")["throughput_bps"].sum()
        ax.plot(it.index, it.to_numpy() * tp.THESIS_PACKET / tp.THESIS_MSS / p["rate"], label=label(cc),
                linewidth=0.8)
    ax.legend(fontsize="small")
    fig.tight_layout()
    seed = next(iter(runs.values())).seed
    return Figure("utilisation", f"{title} (seed {seed})", fig)


def qd_cwnd_figure(runs: dict, title: str, t0: float, t1: float) -> Figure | None:
    """Per algorithm: the queueing delay each flow under test sees (Sync-TCP: its own ``sync_qd``;
    others: srtt minus its smallest srtt) and its congestion window, over [t0, t1] (the thesis's
    Figs. 3.8, 3.9, 3.23; Sync-TCP's congestion decisions marked)."""
    if not runs:
        return None
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(runs), 2, figsize=(11, 1.9 * len(runs)), sharex=True, squeeze=False)
    for (ax_q, ax_w), (cc, d) in zip(axes, runs.items()):
        r = d.results
        ts = r.flow_ts[(r.flow_ts["time"] >= t0) & (r.flow_ts["time"] <= t1)]
        for f in range(meta(d.run.spec, 0, 1)["n"]):
            x = ts[ts["flow"] == f]
            if cc == SYNC and "sync_qd" in x.columns:
                qd = x["sync_qd"]
            else:
                s = x["srtt"].where(x["srtt"] > 0)
                qd = s - s.min()
            ax_q.plot(x["time"], qd * 1e3, linewidth=0.7)
            ax_w.plot(x["time"], x["cwnd"], linewidth=0.7)
        if cc == SYNC:
            e = r.events[(r.events["event"] == "sync_congestion") & (r.events["time"] >= t0) & (r.events["time"] <= t1)]
            ax_q.plot(e["time"], e["value"] * 1e3, "kx", markersize=3)
            ax_q.axhline(12, color="k", linestyle=":", linewidth=0.8)
        ax_q.set_ylabel(f"{label(cc)}\nqd (ms)", fontsize="small")
        ax_w.set_ylabel("cwnd (seg)", fontsize="small")
    axes[-1, 0].set_xlabel("time (s)")
    axes[-1, 1].set_xlabel("time (s)")
    fig.suptitle(title)
    fig.tight_layout()
    seed = next(iter(runs.values())).seed
    return Figure("qd_cwnd", f"{title} (seed {seed}; x: Sync-TCP's congestion decisions, dotted: Th_qd; the other "
                             "algorithms' qd is their srtt, kept at the sender's 10-ms clock granularity, minus its "
                             "smallest value)", fig)


def metric_figure(t: pd.DataFrame, x: str, y: str, title: str, xlabel: str, ylabel: str, name: str,
                  logx: bool = False) -> Figure:
    fig, ax = plots.new(title, xlabel, ylabel)
    for cc in CCS:
        g = t[t["cc"] == cc]
        if len(g) and y in g.columns:
            ax.errorbar(g[x], g[y], yerr=g.get(f"{y} ±95%", pd.Series(0, index=g.index)).fillna(0), marker="o",
                        capsize=3, label=label(cc))
    if logx:
        ax.set_xscale("log")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return Figure(name, title, fig)


def finite(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)
