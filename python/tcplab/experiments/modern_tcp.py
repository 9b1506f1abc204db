"""The expected results of the modern TCP core (issue 17, "Expected results to check").

These are the issue's expectations and textbook claims about the high-speed and delay-based
algorithms, not a paper's numbers: no ``paper:`` or ``band:`` columns, only verdicts decided on
95 % confidence intervals over replications (:mod:`tcplab.verdicts`). Where a claim is
qualitative ("far higher", "short", "close") the threshold we chose is written into the claim.

1. ``modern_long_fat_pipe``: on a 1 Gb/s, 100 ms path with a 1e-6 packet error rate, CUBIC (both
   variants), HighSpeed, Scalable, H-TCP and FAST reach far higher utilisation than NewReno —
   read as "at least 1.5 × NewReno's".
2. ``modern_rtt_fairness``: two CUBIC flows with round-trip propagation delays of 60 and 240 ms
   share more fairly (Jain's index of their goodputs) than two NewReno flows on the same path
   (the thesis's §3.5.3 geometry: bottleneck delay 20 ms, buffer 0.5 BDP with BDP = C × 40 ms).
3. ``modern_queue``: two Vegas flows and two FAST flows keep a short queue — read as "a mean
   queueing delay at most half of two NewReno flows'" — and Compound behaves like Reno when the
   buffer is large (several BDP): goodput within ±10 % and mean queueing delay within ±25 % of
   NewReno's.
4. ``modern_friendliness``: CUBIC takes bandwidth from competing NewReno flows, Compound does
   not (the thesis's App. A.4: k NewReno flows against k flows of the algorithm, k = 2, 1 Gb/s,
   bottleneck delay 50 ms, side links 5 ms, buffer 0.5 BDP). L = the NewReno flows' goodput
   divided by what k flows get in the all-NewReno run of the same seed (k × its mean per-flow
   goodput); CUBIC: L < 1; Compound: L > 0.9 (NewReno keeps at least 90 %).

Readings common to all four (chosen here, stated so the results can be judged):

- Dumbbells; 1000-byte segments (1040 bytes on the wire); access links 10 × the bottleneck's
  rate; a DropTail bottleneck whose queueing delay is measured; the packet error rate applies
  to the bottleneck in both directions (data and ACKs).
- SACK and timestamps on for every flow (ns-2 TCP-Linux, which the thesis used, always runs
  both, and Vegas, Compound and FAST need an RTT per ACK); the window rules are each
  algorithm's own. FAST paces itself; no other flow is paced.
- Replications differ by the flows' start times (uniform in [0, 1) s, drawn from the seed) and
  by the loss streams (the seed). Goodput is measured over [warm-up, end] from the in-order
  delivered segments, so the initial slow start is left out.
- The quick sizes run on smaller or shorter paths than the full ones (given in each
  experiment's parameters) so that ``make run`` stays short; the full sizes follow the issue
  (1 Gb/s) and the thesis.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

import tcplab
from tcplab import plots
from tcplab.experiments import Analysis, Figure, Plan, Run, Table, experiment
from tcplab.metrics import jain_index
from tcplab.stats import ci_cols
from tcplab.verdicts import Verdict, above, all_of, below, close, greater

SOURCE = "issue 17 (expected results; textbook claims, not a paper's numbers)"
EXPECTATION = "The claims are issue 17's expectations (textbook claims), not a paper's numbers."
MSS = 1000
WIRE = (MSS + 40) * 8  # bits per data packet on the wire
TCP = {"mss": MSS, "sack": True, "timestamps": True}
NEWRENO = "newreno"
LABEL = {"newreno": "NewReno", "cubic_linux": "CUBIC (Linux 2.6.22)", "cubic": "CUBIC (RFC 9438)",
         "highspeed": "HighSpeed", "scalable": "Scalable", "htcp": "H-TCP", "fast": "FAST", "vegas": "Vegas",
         "compound": "Compound"}


def bdp_packets(rate_bps: float, rtt_s: float) -> int:
    return max(1, int(round(rate_bps * rtt_s / WIRE)))


def starts(n: int, seed: int) -> list[float]:
    return np.random.default_rng(seed).uniform(0, 1, n).round(6).tolist()


def dumbbell_spec(ccs, rate_bps, delay_s, sides_s, buffer, loss, duration, seed, sample=1.0, rwnd=None) -> dict:
    """One flow per algorithm in `ccs`, pair i with side-link delay `sides_s[i]` on both sides
    (round-trip propagation 2·(delay + 2·side)); a DropTail bottleneck of `buffer` packets whose
    queueing delay is measured, with Bernoulli loss `loss` in both directions."""
    tcp = dict(TCP, **({"rwnd": rwnd} if rwnd else {}))
    return {
        "sim": {"duration": duration, "sample_interval": sample},
        "dumbbell": {"pairs": len(ccs),
                     "bottleneck": {"rate": rate_bps, "delay": delay_s,
                                    "queue": {"type": "droptail", "limit": int(buffer)}, "loss": loss},
                     "access": {"rate": 10 * rate_bps, "delay": list(sides_s), "queue": 100000}},
        "flows": [{"name": f"{cc}{i}", "src": f"s{i}", "dst": f"d{i}", "cc": cc, "start": t, "tcp": dict(tcp)}
                  for i, (cc, t) in enumerate(zip(ccs, starts(len(ccs), seed)))],
    }


def window_mbps(ts: pd.DataFrame, flow: int, t0: float, t1: float) -> float:
    """A flow's goodput (payload Mb/s) over [t0, t1], from the cumulative in-order `delivered`
    segments of the time series."""
    x = ts[ts["flow"] == flow].set_index("time")["delivered"]
    return float((x.asof(t1) - x.asof(t0)) * MSS * 8 / (t1 - t0) / 1e6)


def bottleneck(links: pd.DataFrame) -> pd.Series:
    return links[(links["src"] == "r1") & (links["dst"] == "r2")].iloc[0]


def bar_figure(df: pd.DataFrame, label: str, y: str, title: str, ylabel: str, line: float | None = None):
    fig, ax = plots.new(title, "", ylabel)
    ax.bar(df[label], df[y], yerr=df[f"{y} ±95%"].fillna(0), capsize=3, color="tab:blue", alpha=0.8)
    if line is not None:
        ax.axhline(line, color="k", linestyle="--", linewidth=1)
    ax.tick_params(axis="x", labelrotation=30, labelsize="small")
    fig.tight_layout()
    return fig


def label(cc: str) -> str:
    return LABEL.get(cc, cc)


# --------------------------------------------------------------------------- 1. long fat pipe

LFP_CCS = ("newreno", "cubic_linux", "cubic", "highspeed", "scalable", "htcp", "fast")
#: the Rust test's scenario (tests/cc_algorithms.rs): 1 Gb/s, RTT 100 ms, buffer BDP/2, 1e-6
#: packet errors; rwnd 15 000 segments (BDP + buffer is 18 000) so that after the initial slow
#: start the random errors are the only losses
LFP_PATH = dict(rate_bps=1e9, delay_s=0.048, side_s=0.001, buffer=6000, rwnd=15000, loss=1e-6)
LFP_SIZES = {"quick": dict(duration=12.0, warmup=3.0, seeds=[1, 2, 3, 4]),
             "full": dict(duration=300.0, warmup=60.0, seeds=list(range(1, 11)))}
FAR = 1.5  # "far higher": at least this many times NewReno's utilisation


@experiment("modern_long_fat_pipe", "High-speed algorithms against NewReno on a 1 Gb/s, 100 ms path with 1e-6 "
            "packet errors (issue 17's expectation)", SOURCE)
def modern_long_fat_pipe(size: str) -> Plan:
    z, p = LFP_SIZES[size], LFP_PATH
    runs = [Run({"cc": cc, "warmup": z["warmup"]},
                dumbbell_spec([cc], p["rate_bps"], p["delay_s"], [p["side_s"]], p["buffer"], p["loss"],
                              z["duration"], s, sample=0.5, rwnd=p["rwnd"]), s, wall_limit=3600)
            for cc in LFP_CCS for s in z["seeds"]]
    return Plan(runs, analyse_long_fat_pipe, {**p, "rtt_s": 2 * (p["delay_s"] + 2 * p["side_s"]),
                                              "duration_s": z["duration"], "warmup_s": z["warmup"],
                                              "algorithms": list(LFP_CCS), "far_higher_factor": FAR, "tcp": TCP})


def lfp_measures(done) -> pd.DataFrame:
    """One row per run: cc, seed, utilisation of the bottleneck by delivered data over [warm-up,
    end], goodput, loss reactions and timeouts."""
    rows = []
    for d in done:
        r = d.results
        dur = float(r.summary["duration"])
        mbps = window_mbps(r.flow_ts, 0, d.params["warmup"], dur)
        f = r.flows.iloc[0]
        rows.append({"cc": d.params["cc"], "seed": d.seed, "mbps": mbps,
                     "utilisation": mbps * 1e6 * WIRE / (MSS * 8) / LFP_PATH["rate_bps"],
                     "loss events": float(f["fast_retransmits"] + f["timeouts"]), "timeouts": float(f["timeouts"])})
    return pd.DataFrame(rows, columns=["cc", "seed", "mbps", "utilisation", "loss events", "timeouts"])


def far_higher(u, u_newreno, cc: str) -> Verdict:
    return greater(np.asarray(u, float), FAR * np.asarray(u_newreno, float),
                   f"{label(cc)} reaches far higher utilisation than NewReno (≥ {FAR:g} × NewReno's)")


def lfp_table(m: pd.DataFrame) -> pd.DataFrame:
    """Per algorithm: utilisation and goodput (mean, ±95 %), loss reactions, the ratio to
    NewReno's mean utilisation and the verdict."""
    base = m[m["cc"] == NEWRENO]["utilisation"]
    rows = []
    for cc in [c for c in LFP_CCS if c in set(m["cc"])]:
        x = m[m["cc"] == cc]
        row = {"algorithm": label(cc), "cc": cc, "runs": len(x), **ci_cols(x["utilisation"], "utilisation"),
               **ci_cols(x["mbps"], "goodput Mb/s"), "loss events per run": x["loss events"].mean(),
               "timeouts per run": x["timeouts"].mean(),
               "× NewReno": x["utilisation"].mean() / base.mean() if len(base) and base.mean() > 0 else np.nan,
               "verdict": ""}
        if cc != NEWRENO and len(base):
            row["verdict"] = str(far_higher(x["utilisation"], base, cc))
        rows.append(row)
    return pd.DataFrame(rows)


def analyse_long_fat_pipe(done) -> Analysis:
    m = lfp_measures(done)
    t = lfp_table(m)
    tables = [Table("utilisation", "Utilisation of a 1 Gb/s, 100 ms bottleneck with 1e-6 packet errors", t,
                    note=f"{EXPECTATION} Utilisation: delivered data (on-the-wire size) over [warm-up, end] divided by "
                         f"the capacity; verdict: Welch 95 % CI of u − {FAR:g}·u(NewReno) over the seeds lies above 0. "
                         "Loss events: fast retransmits and timeouts per run (whole run).")]
    figs = [Figure("utilisation", "Utilisation per algorithm (mean ± 95 % CI)",
                   bar_figure(t, "algorithm", "utilisation", "Long fat pipe: 1 Gb/s, 100 ms, 1e-6 packet errors",
                              "utilisation"))]
    first = {}
    for d in done:
        first.setdefault(d.params["cc"], d)
    if first:
        fig, ax = plots.new("Long fat pipe: congestion window", "time (s)", "cwnd (segments)")
        seed = None
        for cc, d in first.items():
            ts = d.results.flow_ts
            ax.plot(ts["time"], ts["cwnd"], label=label(cc), linewidth=1)
            seed = d.seed
        ax.legend(fontsize="small")
        fig.tight_layout()
        figs.append(Figure("cwnd", f"Congestion window of each algorithm (seed {seed})", fig))
    return Analysis(tables, figs, [])


# --------------------------------------------------------------------------- 2. RTT fairness

RTT_CCS = ("newreno", "cubic_linux", "cubic")
RTTS = (0.060, 0.240)  # round-trip propagation delays of the two flows (s)
RTT_DELAY = 0.020  # bottleneck one-way delay (thesis §3.5.3)
RTT_SIZES = {"quick": dict(rate_bps=150e6, duration=60.0, warmup=15.0, losses=[0.0], seeds=[1, 2, 3, 4, 5, 6]),
             "full": dict(rate_bps=1e9, duration=1000.0, warmup=100.0, losses=[0.0, 1e-6], seeds=[1, 2, 3, 4, 5])}


def rtt_sides(rtts=RTTS, delay=RTT_DELAY) -> list[float]:
    """Side-link delays (both sides) that give each flow its round-trip propagation delay."""
    return [round((rtt / 2 - delay) / 2, 9) for rtt in rtts]


def rtt_buffer(rate_bps: float) -> int:
    return max(2, bdp_packets(rate_bps, 2 * RTT_DELAY) // 2)  # 0.5 BDP, BDP = C × 2 × bottleneck delay


@experiment("modern_rtt_fairness", "Two flows with RTTs of 60 and 240 ms: CUBIC shares more fairly than NewReno "
            "(issue 17's expectation)", SOURCE)
def modern_rtt_fairness(size: str) -> Plan:
    z = RTT_SIZES[size]
    runs = [Run({"cc": cc, "loss": loss, "warmup": z["warmup"]},
                dumbbell_spec([cc, cc], z["rate_bps"], RTT_DELAY, rtt_sides(), rtt_buffer(z["rate_bps"]), loss,
                              z["duration"], s), s, wall_limit=3600)
            for loss in z["losses"] for cc in RTT_CCS for s in z["seeds"]]
    return Plan(runs, analyse_rtt_fairness, {"rate_bps": z["rate_bps"], "bottleneck_delay_s": RTT_DELAY,
                                             "rtts_s": list(RTTS), "side_delays_s": rtt_sides(),
                                             "buffer": rtt_buffer(z["rate_bps"]), "losses": z["losses"],
                                             "duration_s": z["duration"], "warmup_s": z["warmup"], "tcp": TCP})


def rtt_measures(done) -> pd.DataFrame:
    rows = []
    for d in done:
        r = d.results
        dur = float(r.summary["duration"])
        a, b = (window_mbps(r.flow_ts, f, d.params["warmup"], dur) for f in (0, 1))
        rows.append({"cc": d.params["cc"], "loss": d.params["loss"], "seed": d.seed, "short Mb/s": a, "long Mb/s": b,
                     "ratio": a / b if b > 0 else np.nan, "jain": jain_index([a, b])})
    return pd.DataFrame(rows, columns=["cc", "loss", "seed", "short Mb/s", "long Mb/s", "ratio", "jain"])


def fairer(j, j_newreno, cc: str) -> Verdict:
    return greater(j, j_newreno, f"{label(cc)} shares more fairly than NewReno (Jain's index of the two goodputs)")


def rtt_table(m: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for loss, ml in m.groupby("loss", sort=True):
        base = ml[ml["cc"] == NEWRENO]["jain"]
        for cc in [c for c in RTT_CCS if c in set(ml["cc"])]:
            x = ml[ml["cc"] == cc]
            rows.append({"loss": loss, "algorithm": label(cc), "cc": cc, "runs": len(x),
                         **ci_cols(x["short Mb/s"], "60 ms flow Mb/s"), **ci_cols(x["long Mb/s"], "240 ms flow Mb/s"),
                         **ci_cols(x["ratio"], "throughput ratio 60/240"), **ci_cols(x["jain"], "Jain index"),
                         "verdict": str(fairer(x["jain"], base, cc)) if cc != NEWRENO and len(base) else ""})
    return pd.DataFrame(rows)


def analyse_rtt_fairness(done) -> Analysis:
    t = rtt_table(rtt_measures(done))
    tables = [Table("fairness", "Two flows with round-trip propagation delays of 60 and 240 ms", t,
                    note=f"{EXPECTATION} Geometry of the thesis's §3.5.3. Goodput over [warm-up, end]; "
                         "Jain's index of the two flows' goodputs per run; verdict: Welch 95 % CI of the difference "
                         "of mean Jain indices (algorithm − NewReno, same loss rate) lies above 0.")]
    figs = []
    for loss, x in t.groupby("loss"):
        figs.append(Figure(f"jain_loss_{loss:g}", f"Jain's index per algorithm, packet error rate {loss:g}",
                           bar_figure(x, "algorithm", "Jain index", f"RTT fairness (60 vs 240 ms), loss {loss:g}",
                                      "Jain's index", line=1.0)))
    return Analysis(tables, figs, [])


# --------------------------------------------------------------------------- 3. queue

QUEUE_CCS = ("newreno", "vegas", "fast", "compound")
SHORT_QUEUE = ("vegas", "fast")  # two flows keep a short queue
RENO_LIKE = ("compound",)  # behaves like Reno with a large buffer
SHORT = 0.5  # "short": mean queueing delay at most this fraction of NewReno's
LARGE_BDP = 3.0  # buffers of at least this many BDP are "large"
GOODPUT_TOL, QUEUE_TOL = 0.10, 0.25  # "close to NewReno's"
QUEUE_PATH = dict(rate_bps=100e6, delay_s=0.048, side_s=0.001)  # RTT 100 ms, BDP ≈ 1202 packets
# Two NewReno flows with a 4-BDP buffer regrow from a halving in about (BDP + buffer)/4 RTTs of up
# to 0.5 s (≈ 450 s): the full size runs 900 s and measures after 200 s; the quick size's 60 s
# see only the first regrowth, so its Compound verdict is a smoke check.
QUEUE_SIZES = {"quick": dict(duration=60.0, warmup=20.0, buffers_bdp=[1.0, 4.0], seeds=[1, 2, 3]),
               "full": dict(duration=900.0, warmup=200.0, buffers_bdp=[0.5, 1.0, 2.0, 4.0],
                            seeds=list(range(1, 11)))}


def queue_case(cc: str, buffer_bdp: float, size: str) -> bool:
    """Whether `cc` runs at this buffer: at the full size every algorithm at every buffer; at
    the quick size only where a claim is checked (NewReno everywhere, Vegas and FAST at every
    buffer, Compound at the large ones)."""
    return size == "full" or cc == NEWRENO or cc in SHORT_QUEUE or (cc in RENO_LIKE and buffer_bdp >= LARGE_BDP)


def queue_bdp() -> int:
    p = QUEUE_PATH
    return bdp_packets(p["rate_bps"], 2 * (p["delay_s"] + 2 * p["side_s"]))


@experiment("modern_queue", "Queueing delay of two Vegas, FAST, Compound or NewReno flows; Compound like Reno "
            "with a large buffer (issue 17's expectation)", SOURCE)
def modern_queue(size: str) -> Plan:
    z, p = QUEUE_SIZES[size], QUEUE_PATH
    runs = [Run({"cc": cc, "buffer_bdp": b, "warmup": z["warmup"]},
                dumbbell_spec([cc, cc], p["rate_bps"], p["delay_s"], [p["side_s"]] * 2, round(b * queue_bdp()), 0.0,
                              z["duration"], s, sample=0.1), s, wall_limit=3600)
            for b in z["buffers_bdp"] for cc in QUEUE_CCS if queue_case(cc, b, size) for s in z["seeds"]]
    return Plan(runs, analyse_queue, {**p, "rtt_s": 2 * (p["delay_s"] + 2 * p["side_s"]), "bdp_packets": queue_bdp(),
                                      "buffers_bdp": z["buffers_bdp"], "duration_s": z["duration"],
                                      "warmup_s": z["warmup"], "short_fraction": SHORT, "large_buffer_bdp": LARGE_BDP,
                                      "goodput_tolerance": GOODPUT_TOL, "queue_tolerance": QUEUE_TOL, "tcp": TCP})


def queue_measures(done) -> pd.DataFrame:
    """One row per run: the time-averaged bottleneck queue over [warm-up, end] as a delay (ms;
    packets × a data packet's transmission time), the per-packet mean queueing delay over the
    whole run, total goodput and utilisation over [warm-up, end], and the loss rate."""
    rows = []
    rate = QUEUE_PATH["rate_bps"]
    for d in done:
        r = d.results
        dur, w = float(r.summary["duration"]), d.params["warmup"]
        links = r.links
        bn = bottleneck(links)
        q = r.link_ts
        q = q[(q["link"] == bn["link"]) & (q["time"] >= w)]["queue"]
        ts = r.flow_ts
        mbps = sum(window_mbps(ts, f, w, dur) for f in sorted(set(ts["flow"])))
        rows.append({"cc": d.params["cc"], "buffer_bdp": d.params["buffer_bdp"], "seed": d.seed,
                     "queue ms": float(q.mean()) * WIRE / rate * 1e3, "qdelay ms": float(bn["qdelay_mean"]) * 1e3,
                     "mbps": mbps, "utilisation": mbps * 1e6 * WIRE / (MSS * 8) / rate,
                     "loss rate": float(bn["drops_queue"] + bn["drops_loss"]) / max(float(bn["arrivals"]), 1.0)})
    return pd.DataFrame(rows, columns=["cc", "buffer_bdp", "seed", "queue ms", "qdelay ms", "mbps", "utilisation",
                                       "loss rate"])


def short_queue(q, q_newreno, cc: str) -> Verdict:
    return greater(SHORT * np.asarray(q_newreno, float), np.asarray(q, float),
                   f"two {label(cc)} flows keep a short queue "
                   f"(mean queueing delay ≤ {SHORT:g} × two NewReno flows')")


def reno_like(x: pd.DataFrame, base: pd.DataFrame, cc: str) -> Verdict:
    return all_of([close(x["mbps"], base["mbps"], GOODPUT_TOL, f"goodput within ±{GOODPUT_TOL:.0%} of NewReno's"),
                   close(x["queue ms"], base["queue ms"], QUEUE_TOL,
                         f"mean queueing delay within ±{QUEUE_TOL:.0%} of NewReno's")],
                  f"with a large buffer two {label(cc)} flows behave like NewReno")


def queue_table(m: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for b, mb in m.groupby("buffer_bdp", sort=True):
        base = mb[mb["cc"] == NEWRENO]
        for cc in [c for c in QUEUE_CCS if c in set(mb["cc"])]:
            x = mb[mb["cc"] == cc]
            verdict = ""
            if len(base) and cc in SHORT_QUEUE:
                verdict = str(short_queue(x["queue ms"], base["queue ms"], cc))
            elif len(base) and cc in RENO_LIKE and b >= LARGE_BDP:
                verdict = str(reno_like(x, base, cc))
            rows.append({"buffer (BDP)": b, "algorithm": label(cc), "cc": cc, "runs": len(x),
                         **ci_cols(x["queue ms"], "queueing delay ms"),
                         "× NewReno": x["queue ms"].mean() / base["queue ms"].mean() if len(base) else np.nan,
                         **ci_cols(x["qdelay ms"], "per-packet qdelay ms (whole run)"),
                         **ci_cols(x["mbps"], "goodput Mb/s"), **ci_cols(x["utilisation"], "utilisation"),
                         **ci_cols(x["loss rate"], "loss rate"), "verdict": verdict})
    return pd.DataFrame(rows)


def analyse_queue(done) -> Analysis:
    t = queue_table(queue_measures(done))
    bdp = queue_bdp()
    tables = [Table("queue", f"Two flows on 100 Mb/s, RTT 100 ms (BDP {bdp} packets): queueing delay and goodput", t,
                    note=f"{EXPECTATION} Queueing delay: the bottleneck queue sampled every 0.1 s over [warm-up, end], "
                         "times a data packet's transmission time; the whole-run per-packet mean beside it includes "
                         "the initial slow start. Verdicts (Welch 95 % CIs over the seeds, same buffer): Vegas/FAST: "
                         f"{SHORT:g}·NewReno − algorithm > 0; Compound at buffers ≥ {LARGE_BDP:g} BDP: goodput and "
                         f"queueing delay relative to NewReno's inside ±{GOODPUT_TOL:.0%} and ±{QUEUE_TOL:.0%}.")]
    figs = []
    if len(t):
        fig, ax = plots.new("Mean queueing delay of two flows", "buffer (BDP)", "queueing delay (ms)")
        for cc, x in t.groupby("cc", sort=False):
            ax.errorbar(x["buffer (BDP)"], x["queueing delay ms"], yerr=x["queueing delay ms ±95%"].fillna(0),
                        marker="o", capsize=3, label=label(cc))
        ax.legend(fontsize="small")
        fig.tight_layout()
        figs.append(Figure("queue_delay", "Mean queueing delay against buffer size (mean ± 95 % CI)", fig))
        largest = max(d.params["buffer_bdp"] for d in done)
        fig, ax = plots.new(f"Bottleneck queue, buffer {largest:g} BDP", "time (s)", "queue (packets)")
        seen, seed = set(), None
        for d in done:
            cc = d.params["cc"]
            if d.params["buffer_bdp"] != largest or cc in seen:
                continue
            seen.add(cc)
            r = d.results
            q = r.link_ts[r.link_ts["link"] == bottleneck(r.links)["link"]]
            ax.plot(q["time"], q["queue"], label=label(cc), linewidth=1)
            seed = d.seed
        ax.legend(fontsize="small")
        fig.tight_layout()
        figs.append(Figure("queue_trace", f"Bottleneck queue over time, buffer {largest:g} BDP (seed {seed})", fig))
    return Analysis(tables, figs, [])


# --------------------------------------------------------------------------- 4. friendliness

FRIEND_CCS = ("newreno", "cubic_linux", "cubic", "compound")
TAKES = ("cubic_linux", "cubic")  # take bandwidth from NewReno
FRIENDLY = ("compound",)  # do not
KEEPS = 0.9  # "does not take": NewReno keeps more than this fraction
FRIEND_PATH = dict(delay_s=0.050, side_s=0.005)  # thesis App. A.4: RTT 120 ms
FRIEND_SIZES = {"quick": dict(rate_bps=150e6, k=[2], losses=[0.0], duration=60.0, warmup=15.0, seeds=[1, 2, 3, 4]),
                "full": dict(rate_bps=1e9, k=[2], losses=[0.0, 1e-6, 1e-4], duration=1000.0, warmup=100.0,
                             seeds=[1, 2, 3, 4, 5])}


def friend_buffer(rate_bps: float) -> int:
    return max(2, bdp_packets(rate_bps, 2 * FRIEND_PATH["delay_s"]) // 2)  # 0.5 BDP, BDP = C × 2 × delay


@experiment("modern_friendliness", "NewReno's throughput beside k CUBIC or Compound flows against beside k NewReno "
            "flows (issue 17's expectation; thesis App. A.4)", SOURCE)
def modern_friendliness(size: str) -> Plan:
    z, p = FRIEND_SIZES[size], FRIEND_PATH
    runs = [Run({"cc": cc, "k": k, "loss": loss, "warmup": z["warmup"]},
                dumbbell_spec([NEWRENO] * k + [cc] * k, z["rate_bps"], p["delay_s"], [p["side_s"]] * (2 * k),
                              friend_buffer(z["rate_bps"]), loss, z["duration"], s), s, wall_limit=3600)
            for loss in z["losses"] for k in z["k"] for cc in FRIEND_CCS for s in z["seeds"]]
    return Plan(runs, analyse_friendliness, {**p, "rate_bps": z["rate_bps"], "buffer": friend_buffer(z["rate_bps"]),
                                             "k": z["k"], "losses": z["losses"], "duration_s": z["duration"],
                                             "warmup_s": z["warmup"], "keeps": KEEPS, "tcp": TCP})


def friend_measures(done) -> pd.DataFrame:
    """One row per run: the goodput of the k NewReno flows (flows 0..k-1) and of the k flows of
    the algorithm under test, over [warm-up, end]."""
    rows = []
    for d in done:
        r = d.results
        k, dur, w = d.params["k"], float(r.summary["duration"]), d.params["warmup"]
        g = [window_mbps(r.flow_ts, f, w, dur) for f in range(2 * k)]
        rows.append({"cc": d.params["cc"], "k": k, "loss": d.params["loss"], "seed": d.seed,
                     "newreno Mb/s": sum(g[:k]), "other Mb/s": sum(g[k:])})
    return pd.DataFrame(rows, columns=["cc", "k", "loss", "seed", "newreno Mb/s", "other Mb/s"])


def with_l(m: pd.DataFrame) -> pd.DataFrame:
    """Adds L: the NewReno flows' goodput divided by what k flows get in the all-NewReno run of
    the same seed, k loss rate (k × that run's mean per-flow goodput), and NewReno's share."""
    base = m[m["cc"] == NEWRENO].set_index(["k", "loss", "seed"])
    ref = (base["newreno Mb/s"] + base["other Mb/s"]) / 2  # k flows' expected goodput in the all-NewReno run
    out = m.copy()
    keys = list(zip(out["k"], out["loss"], out["seed"]))
    out["L"] = [row / ref.get(key, np.nan) if ref.get(key, 0) > 0 else np.nan
                for row, key in zip(out["newreno Mb/s"], keys)]
    total = out["newreno Mb/s"] + out["other Mb/s"]
    out["share"] = np.where(total > 0, out["newreno Mb/s"] / total.where(total > 0, 1), np.nan)
    return out


def takes(l_values, cc: str) -> Verdict:
    return below(l_values, 1.0, f"{label(cc)} takes bandwidth from NewReno (L < 1)")


def does_not_take(l_values, cc: str) -> Verdict:
    return above(l_values, KEEPS, f"{label(cc)} does not take bandwidth from NewReno (L > {KEEPS:g})")


def friend_table(m: pd.DataFrame) -> pd.DataFrame:
    m = with_l(m)
    rows = []
    for (loss, k), ml in m.groupby(["loss", "k"], sort=True):
        for cc in [c for c in FRIEND_CCS if c in set(ml["cc"])]:
            x = ml[ml["cc"] == cc]
            verdict = ""
            if cc in TAKES:
                verdict = str(takes(x["L"], cc))
            elif cc in FRIENDLY:
                verdict = str(does_not_take(x["L"], cc))
            rows.append({"loss": loss, "k": k, "algorithm": label(cc), "cc": cc, "runs": len(x),
                         **ci_cols(x["newreno Mb/s"], "NewReno flows Mb/s"),
                         **ci_cols(x["other Mb/s"], "other flows Mb/s"),
                         **ci_cols(x["share"], "NewReno share"), **ci_cols(x["L"], "L"), "verdict": verdict})
    return pd.DataFrame(rows)


def analyse_friendliness(done) -> Analysis:
    t = friend_table(friend_measures(done))
    tables = [Table("friendliness", "k NewReno flows against k flows of another algorithm", t,
                    note=f"{EXPECTATION} Geometry of the thesis's App. A.4. Goodput over [warm-up, end]. L: the k "
                         "NewReno flows' goodput beside the algorithm divided by k × the mean per-flow goodput of the "
                         "all-NewReno run with the same seed (so L ≈ 1 in the NewReno row); share: the NewReno flows' "
                         "part of the total. Verdicts: Student 95 % CI of L over the seeds below 1 (CUBIC) or above "
                         f"{KEEPS:g} (Compound).")]
    figs = []
    for (loss, k), x in t.groupby(["loss", "k"]):
        figs.append(Figure(f"l_loss_{loss:g}_k{k}", f"NewReno's L beside each algorithm (k = {k}, loss {loss:g})",
                           bar_figure(x, "algorithm", "L", f"Friendliness to NewReno (k = {k}, loss {loss:g})",
                                      "L (NewReno goodput ratio)", line=1.0)))
    return Analysis(tables, figs, [])
