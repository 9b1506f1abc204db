"""Issue 20's benchmark of TCP KentRidge (thesis of Wu Xiuchao, chapter 4) — ours.

The thesis gives KentRidge no quantitative evaluation (SEED-NOTES §2.3): every table here is
our own measurement, with no ``paper:`` or ``band:`` column. The agent (a flow with a
``kentridge`` table, starting on NewReno, the knowledge base's default row, built-in KB and
thresholds) runs against every fixed adaptation of the built-in knowledge base on a suite of
path types that the classifier's rules name, several instances each, plus held-back variants
that were not looked at while the suite and its readings were chosen.

Experiments (one function each; ``quick`` for CI, ``full`` for more instances, seeds and time):

- ``kentridge_suite``: the main comparison on the tuning instances;
- ``kentridge_heldback``: the same comparison on the held-back instances;
- ``kentridge_harm``: a competing NewReno or CUBIC flow beside each contender;
- ``kentridge_switch_cost``: the right adaptation from the start against the agent, a late
  switch to it and a switch to a wrong one.

Readings (chosen here, stated so the results can be judged):

- Paths: sender hosts — r1 — bottleneck r1→r2 — r2 — receiver hosts, access links 1 Gb/s,
  1 ms; the bottleneck is a DropTail queue of the instance's size written as a discipline
  (``{type = "droptail"}``) so that its per-packet queueing delay is measured. Random loss and
  reordering act on the bottleneck's data direction only. Asymmetric paths return the ACKs over
  r2 — r3 — r1 with a slow r3→r1 link (the direct r2→r1 direction has routing cost 10). Mobile
  paths are a WAN r1 — r2 and a wireless hop r2 → receiver driven by a scripted handoff
  schedule (:func:`tcplab.mobility.scripted`; link changes and TCP-HO notifications), the same
  schedule for every contender and seed.
- TCP options: 1460-byte segments, timestamps on (the classifier's Eifel detection of spurious
  retransmissions needs them), SACK off, and a receive window of 2 × (BDP + buffer) of the path
  (at least 16 segments; on mobile paths of its fastest cell), as receive-buffer auto-tuning
  would give: windows never limit a contender below the path's capacity, and no algorithm can
  have tens of thousands of segments in flight (with rwnd = 100 000, Hybla's slow start of
  2^ρ segments per ACK sends 65 535 segments into the long-thin paths' 2-packet buffers). The knowledge base's
  capabilities ask nothing else except ``tcp_ho``, which a flow with handoff records offers;
  the same options for every contender on a path, and the handoff records on mobile paths for
  every contender (only TCP-HO acts on them).
- Contenders: the agent (``kentridge``) and every adaptation of the built-in knowledge base,
  fixed for the whole run: sync_tcp, cubic, highspeed, hybla, tcp_ho, westwood_crb,
  westwood_be, newreno.
- Replications: the seed draws the flows' start times (uniform in [0, 0.5) s) and the loss and
  reordering streams; contender c on instance i with seed s is paired with every other
  contender on (i, s).
- Goodput: the test flow's delivered payload over [its start, the end], divided by the path's
  capacity (the bottleneck's rate; on mobile paths the wireless hop's per-user rate averaged
  over the run with 0 during outages), so that paths can be pooled. Payload over wire rate:
  1460/1500 (without the 12 timestamp bytes) bounds it at about 0.97.
- Delay: the links table's ``qdelay_p95`` of the bottleneck direction (95th percentile of the
  time each packet waited before its transmission began, over the whole run, from the core's
  histogram, within 1/32 of its value). Loss: the bottleneck direction's drops (overflow and
  random loss, and drops while a wireless hop is down) over its arrivals, and the test flow's
  retransmissions over its segments sent.
- Best fixed with hindsight: per path instance, the fixed adaptation with the highest mean
  normalised goodput over the seeds (chosen after the fact on the same runs, so it is biased
  upward: a hard reference for the agent).
- "Never far from the per-path best": on every path instance the agent's per-seed ratio of
  normalised goodput to the best fixed's has a 95 % CI above ``FAR`` = 0.9 (holds), below it
  (does not hold), else inconclusive; the suite's verdict is the conjunction over instances.
- "Beats every fixed algorithm over the suite": for each fixed adaptation, the 95 % CI of the
  paired difference of normalised goodput (agent − fixed, paired by instance and seed) lies
  above 0; the suite's verdict is the conjunction over the adaptations.
- Delay and loss against a fixed adaptation (or, per instance, the best fixed): the paired
  ratio agent / fixed of the bottleneck's p95 queueing delay and of its drop rate, per
  (instance, seed), averaged in logarithms (a geometric mean, so that a 200-ms path and a
  0.5-ms one weigh alike); "lower" holds when the 95 % CI of the mean log ratio lies below 0,
  does not hold above 0. Values below ``DELAY_FLOOR_MS`` and ``DROP_FLOOR`` count as the floor
  (a path whose queue never builds under either contender gives ratio 1, not 0/0).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from tcplab import mobility as mo
from tcplab import plots
from tcplab.experiments import Analysis, Figure, Plan, Run, Table, experiment
from tcplab.stats import ci_cols
from tcplab.verdicts import FAILS, HOLDS, INCONCLUSIVE, Verdict, above, all_of, below, greater, interval

SOURCE = "issue 20 (our benchmark; the thesis gives KentRidge no quantitative results)"
OURS = ("Ours: the thesis reports no quantitative results for KentRidge; no paper column. ")
MSS = 1460
WIRE = MSS + 40
TCP = {"mss": MSS, "timestamps": True, "sack": False}
RWND_BDPS = 2.0  # the receive window: this many times (BDP + buffer) of the path, at least RWND_MIN
RWND_MIN = 16
AGENT = "kentridge"
#: every adaptation of the built-in knowledge base (crates/tcplab-core/data/kentridge-kb.csv), with
#: its options: "newreno+undo" is NewReno with `tcp.undo` for the whole run (the reorder row's)
FIXED = ("sync_tcp", "cubic", "highspeed", "hybla", "tcp_ho", "westwood_crb", "westwood_be", "newreno",
         "newreno+undo")
CONTENDERS = (AGENT,) + FIXED
KR_TABLE = {"interval": 1.0}
#: The agent's initial algorithm on every path: NewReno, the knowledge base's default row. (On
#: mobile paths its SYN still offers TCP-HO, so that the agent can switch to it: the core does
#: that for any KentRidge flow with handoffs.)
AGENT_START = {"mobile": "newreno", "other": "newreno"}
FAR = 0.9  # "never far": at least this fraction of the best fixed's normalised goodput
#: floors of the delay and loss ratios: the histogram's smallest meaningful delay at these
#: paths' rates (a 1500-byte packet at 120 Mb/s or more takes 0.1 ms) and one drop in 10^5
DELAY_FLOOR_MS, DROP_FLOOR = 0.1, 1e-5
#: (column of the measures, floor, name in the tables) of the delay and loss comparisons
LOWER_METRICS = (("p95 queueing delay ms", DELAY_FLOOR_MS, "p95 qdelay"), ("drop rate", DROP_FLOOR, "drop rate"))
ACCESS = {"rate": 1e9, "delay": 0.001, "queue": 100000}

#: the built-in knowledge base's choice per pipe type (first row wins; tcp_ho with handoffs)
KB_CHOICE = {"lfn_large_queue": "sync_tcp", "lfn_small_queue": "cubic", "lfn": "cubic", "high_speed": "cubic",
             "long_thin": "sync_tcp", "lossy": "westwood_be", "reliable_wireless": "westwood_be", "mobile": "tcp_ho",
             "reorder": "newreno+undo", "asymmetry": "hybla", "default": "newreno"}
#: pipe types in the order of the `pipe_type` time-series codes (PipeType::ALL)
PIPE_CODES = ("default", "reorder", "lfn", "lfn_small_queue", "lfn_large_queue", "high_speed", "long_thin",
              "reliable_wireless", "lossy", "mobile", "asymmetry")

# --------------------------------------------------------------------------- the path suite
#
# Each path type with the pipe type its rules should name ("expect") and instances. Rates in b/s,
# delays one-way in s (the bottleneck's; RTT = 2 (delay + 2 ms)), queues in packets.
# "held" instances are the held-back variants: other values of the same parameters, not used
# while the suite and its readings were chosen.

WCDMA, WLAN = mo.WCDMA, mo.WLAN

PATH_TYPES = {
    "lfn_large_queue": {
        "expect": "lfn_large_queue",
        "tune": [dict(rate=50e6, delay=0.060, queue_bdp=1.0), dict(rate=30e6, delay=0.080, queue_bdp=1.5),
                 dict(rate=80e6, delay=0.050, queue_bdp=0.8)],
        "held": [dict(rate=40e6, delay=0.070, queue_bdp=1.2), dict(rate=60e6, delay=0.100, queue_bdp=1.0)],
    },
    "lfn_small_queue": {
        "expect": "lfn_small_queue",
        # queue ≤ 6 ms of delay: below the 12 ms large-queue threshold
        "tune": [dict(rate=50e6, delay=0.060, queue_ms=5), dict(rate=80e6, delay=0.080, queue_ms=4),
                 dict(rate=30e6, delay=0.070, queue_ms=6)],
        "held": [dict(rate=60e6, delay=0.075, queue_ms=5), dict(rate=40e6, delay=0.090, queue_ms=3)],
    },
    "high_speed": {
        "expect": "high_speed",
        "tune": [dict(rate=200e6, delay=0.005, queue_bdp=1.0), dict(rate=150e6, delay=0.008, queue_bdp=0.5),
                 dict(rate=300e6, delay=0.004, queue_bdp=1.0)],
        "held": [dict(rate=250e6, delay=0.006, queue_bdp=0.7), dict(rate=120e6, delay=0.010, queue_bdp=1.0)],
    },
    "long_thin": {
        "expect": "long_thin",
        # BDP + queue below the 8-segment small-cwnd threshold
        "tune": [dict(rate=128e3, delay=0.250, queue=2), dict(rate=200e3, delay=0.150, queue=2),
                 dict(rate=96e3, delay=0.300, queue=2)],
        "held": [dict(rate=150e3, delay=0.200, queue=2), dict(rate=64e3, delay=0.350, queue=3)],
    },
    "lossy": {
        "expect": "lossy",
        "tune": [dict(rate=10e6, delay=0.010, queue=1000, loss=0.02), dict(rate=5e6, delay=0.020, queue=500, loss=0.01),
                 dict(rate=20e6, delay=0.015, queue=1000, loss=0.03)],
        "held": [dict(rate=8e6, delay=0.025, queue=800, loss=0.015),
                 dict(rate=15e6, delay=0.008, queue=1000, loss=0.04)],
    },
    "mobile": {
        "expect": "mobile",
        # (technology, users, dwell s, outage s after it): WLAN and WCDMA cells, WAN one-way delay
        "tune": [dict(wan_delay=0.020, cells=[(WLAN, 1, 8.0, 2.0), (WCDMA, 10, 8.0, 3.0), (WLAN, 2, 8.0, 2.0),
                                               (WLAN, 1, 10.0, 0.0)]),
                 dict(wan_delay=0.050, cells=[(WCDMA, 10, 6.0, 3.0), (WLAN, 1, 8.0, 5.0), (WLAN, 9, 8.0, 2.0),
                                               (WLAN, 2, 10.0, 0.0)]),
                 dict(wan_delay=0.010, cells=[(WLAN, 2, 6.0, 2.0), (WLAN, 1, 6.0, 2.0), (WCDMA, 10, 6.0, 3.0),
                                               (WLAN, 1, 6.0, 2.0), (WLAN, 10, 8.0, 0.0)])],
        "held": [dict(wan_delay=0.030, cells=[(WLAN, 1, 10.0, 3.0), (WLAN, 10, 6.0, 2.0), (WCDMA, 10, 8.0, 5.0),
                                               (WLAN, 2, 9.0, 0.0)]),
                 dict(wan_delay=0.080, cells=[(WCDMA, 10, 10.0, 5.0), (WLAN, 1, 10.0, 3.0), (WLAN, 2, 10.0, 0.0)])],
    },
    "reorder": {
        "expect": "reorder",
        "tune": [dict(rate=10e6, delay=0.010, queue=100, reorder=(0.005, 0.005)),
                 dict(rate=20e6, delay=0.020, queue=200, reorder=(0.01, 0.003)),
                 dict(rate=5e6, delay=0.015, queue=100, reorder=(0.005, 0.010))],
        "held": [dict(rate=15e6, delay=0.012, queue=150, reorder=(0.008, 0.004)),
                 dict(rate=8e6, delay=0.030, queue=100, reorder=(0.003, 0.008))],
    },
    "asymmetry": {
        "expect": "asymmetry",
        # the ACKs return over a slow link (b/s): 10 Mb/s of data needs about 200 kb/s of ACKs
        "tune": [dict(rate=10e6, delay=0.010, queue=100, reverse=32e3),
                 dict(rate=20e6, delay=0.020, queue=200, reverse=64e3),
                 dict(rate=6e6, delay=0.015, queue=100, reverse=24e3)],
        "held": [dict(rate=12e6, delay=0.025, queue=150, reverse=40e3),
                 dict(rate=8e6, delay=0.008, queue=100, reverse=20e3)],
    },
}
KINDS = tuple(PATH_TYPES)

SIZES = {
    # quick: the first tuning (held-back) instance of each type, 3 seeds, 20 s
    "quick": dict(instances=1, seeds=(1, 2, 3), duration=20.0, mobile_duration=None),
    "full": dict(instances=3, seeds=(1, 2, 3, 4, 5, 6, 7, 8), duration=60.0, mobile_duration=None),
}
HELD_SEED_BASE = 1000  # held-back runs use other seeds as well


def instances(kind: str, held: bool = False) -> list[dict]:
    """The instances of a path type with their names and expected pipe type."""
    t = PATH_TYPES[kind]
    out = []
    for k, p in enumerate(t["held" if held else "tune"]):
        name = f"{kind}{'-held' if held else ''}-{k + 1}"
        out.append({"name": name, "kind": kind, "held": held, "expect": t["expect"], **p})
    return out


def suite(size: str, held: bool = False) -> list[dict]:
    n = SIZES[size]["instances"]
    return [inst for kind in KINDS for inst in instances(kind, held)[:n]]


def bdp_packets(rate: float, rtt: float) -> float:
    return rate * rtt / (WIRE * 8)


def rtt_of(inst: dict) -> float:
    if inst["kind"] == "mobile":
        return float("nan")
    return 2 * (inst["delay"] + 2 * ACCESS["delay"])


def queue_packets(inst: dict) -> int:
    if "queue" in inst:
        return int(inst["queue"])
    if "queue_ms" in inst:
        return max(1, int(round(inst["queue_ms"] / 1000 * inst["rate"] / (WIRE * 8))))
    return max(1, int(round(inst["queue_bdp"] * bdp_packets(inst["rate"], rtt_of(inst)))))


def rwnd_of(inst: dict) -> int:
    """The receive window (segments): RWND_BDPS × (BDP + buffer), at least RWND_MIN; on a
    mobile path for its fastest cell (WAN and wireless delays, the wireless buffer)."""
    if inst["kind"] == "mobile":
        m = mobility(inst)
        rate = max(c.rate for c in m.cells)
        delay = max(2 * (inst["wan_delay"] + c.delay + 2 * ACCESS["delay"]) for c in m.cells)
        pipe = bdp_packets(rate, delay) + mo.QUEUE
    else:
        pipe = bdp_packets(inst["rate"], rtt_of(inst)) + queue_packets(inst)
    return max(RWND_MIN, int(math.ceil(RWND_BDPS * pipe)))


def tcp_for(inst: dict) -> dict:
    return {**TCP, "rwnd": rwnd_of(inst)}


def mobility(inst: dict) -> mo.Mobility:
    return mo.scripted(inst["cells"], inst["wan_delay"], mss=WIRE, name=inst["name"])


def capacity(inst: dict, duration: float) -> float:
    """The path's capacity (b/s) for normalising: the bottleneck's rate; on a mobile path the
    wireless hop's per-user rate averaged over [0, duration], 0 during outages."""
    if inst["kind"] != "mobile":
        return float(inst["rate"])
    m = mobility(inst)
    up = sum(c.rate * max(0.0, min(c.end, duration) - c.start) for c in m.cells)
    return up / duration


def duration_of(inst: dict, size: str) -> float:
    if inst["kind"] == "mobile":
        return float(mobility(inst).duration)
    return SIZES[size]["duration"]


def starts(n: int, seed: int) -> list[float]:
    return np.random.default_rng(seed).uniform(0, 0.5, n).round(6).tolist()


def contender_flow(contender: str, switch: list | None = None, mobile: bool = False) -> dict:
    """The test flow's congestion control: a fixed adaptation, or the agent (a kentridge table
    on NewReno, the knowledge base's default row), or NewReno with scheduled switches."""
    if contender == AGENT:
        return {"cc": AGENT_START["mobile" if mobile else "other"], "kentridge": dict(KR_TABLE)}
    cc, *options = contender.split("+")
    f = {"cc": cc, **({"tcp": {o: True for o in options}} if options else {})}
    if switch:
        f["switch"] = [dict(s) for s in switch]
    return f


def path_spec(inst: dict, test: dict, duration: float, seed: int, competitor: str | None = None,
              sample: float = 0.5) -> dict:
    """The scenario of instance `inst` with the test flow (flow 0, "test": `test` holds its cc,
    kentridge or switch fields) and, with `competitor`, a second flow of that algorithm over the
    same bottleneck (flow 1, "competitor")."""
    n = 2 if competitor else 1
    t0 = starts(n, seed)
    nodes = [{"name": f"s{i}"} for i in range(n)] + [{"name": f"d{i}"} for i in range(n)]
    nodes += [{"name": "r1", "kind": "router"}, {"name": "r2", "kind": "router"}]
    links = [{"a": f"s{i}", "b": "r1", **ACCESS} for i in range(n)]
    spec: dict = {"sim": {"duration": duration, "sample_interval": sample}}
    tcp = tcp_for(inst)
    flows = [{"name": "test", "src": "s0", "dst": "d0", "start": t0[0], **test, "tcp": {**tcp, **test.get("tcp", {})}}]
    if competitor:
        flows.append({"name": "competitor", "src": "s1", "dst": "d1", "cc": competitor, "start": t0[1],
                      "tcp": dict(tcp)})
    if inst["kind"] == "mobile":
        if competitor:
            raise ValueError("mobile paths have no competitor (the wireless hop is the receiver's own)")
        m = mobility(inst)
        first = m.first()
        links += [{"a": "r1", "b": "r2", "rate": 100e6, "delay": inst["wan_delay"], "queue": 1000},
                  {"a": "r2", "b": "d0", "rate": first.rate, "delay": first.delay,
                   "queue_ab": {"type": "droptail", "limit": mo.QUEUE}, "queue_ba": 1000}]
        spec["link_changes"] = m.link_changes("r2-d0")
        flows[0]["handoffs"] = m.handoff_records()
    else:
        bn = {"a": "r1", "b": "r2", "rate": inst["rate"], "delay": inst["delay"],
              "queue_ab": {"type": "droptail", "limit": queue_packets(inst)}, "queue_ba": 100000}
        if inst.get("loss"):
            bn["loss_ab"] = inst["loss"]
        if inst.get("reorder"):
            p, d = inst["reorder"]
            bn["reorder_ab"] = {"prob": p, "delay": d}
        links.append(bn)
        if inst.get("reverse"):
            # ACKs return r2 -> r3 -> r1 over the slow r3 -> r1 link; the direct r2 -> r1 costs 10
            bn["cost_ba"] = 10
            nodes.append({"name": "r3", "kind": "router"})
            links += [{"a": "r2", "b": "r3", **ACCESS},
                      {"a": "r3", "b": "r1", "rate": inst["reverse"], "delay": inst["delay"], "queue": 20}]
        links += [{"a": "r2", "b": f"d{i}", **ACCESS} for i in range(n)]
    spec.update({"nodes": nodes, "links": links, "flows": flows})
    return spec


def bottleneck_ends(inst: dict) -> tuple[str, str]:
    return ("r2", "d0") if inst["kind"] == "mobile" else ("r1", "r2")


def _inst_params(inst: dict, size: str) -> dict:
    d = duration_of(inst, size)
    return {"instance": inst["name"], "kind": inst["kind"], "held": inst["held"], "expect": inst["expect"],
            "capacity_bps": capacity(inst, d), "bottleneck": list(bottleneck_ends(inst))}


def comparison_runs(size: str, held: bool) -> list[Run]:
    z = SIZES[size]
    base = HELD_SEED_BASE if held else 0
    runs = []
    for inst in suite(size, held):
        d = duration_of(inst, size)
        p = _inst_params(inst, size)
        for c in CONTENDERS:
            for s in z["seeds"]:
                flow = contender_flow(c, mobile=inst["kind"] == "mobile")
                runs.append(Run({**p, "contender": c}, path_spec(inst, flow, d, base + s), base + s,
                                wall_limit=1800))
    return runs


def suite_parameters(size: str, held: bool) -> dict:
    z = SIZES[size]
    out = {"instances": {}, "contenders": list(CONTENDERS), "seeds": [(HELD_SEED_BASE if held else 0) + s
                                                                        for s in z["seeds"]],
           "duration (s)": z["duration"], "tcp": TCP, "rwnd (× (BDP + buffer) of the path)": RWND_BDPS,
           "kentridge": KR_TABLE, "far (fraction of the best)": FAR}
    for inst in suite(size, held):
        row = {k: v for k, v in inst.items() if k not in ("name", "held")}
        if inst["kind"] != "mobile":
            row["queue (packets)"] = queue_packets(inst)
            row["rtt (s)"] = rtt_of(inst)
        else:
            row["duration (s)"] = duration_of(inst, size)
            row["cells"] = [list(c) for c in inst["cells"]]
        row["capacity (b/s)"] = capacity(inst, duration_of(inst, size))
        row["rwnd (segments)"] = rwnd_of(inst)
        out["instances"][inst["name"]] = row
    return out


# --------------------------------------------------------------------------- measures


def _events(r) -> pd.DataFrame:
    e = r.events
    if "detail" not in e.columns:
        e = e.assign(detail="")
    return e


def pipe_timeline(events: pd.DataFrame, flow: int = 0) -> list[tuple[float, str]]:
    """(time, pipe type) of each classification change of `flow` (events rows `pipe_type`; the
    detail starts with the type's name)."""
    e = events[(events["flow"] == flow) & (events["event"] == "pipe_type")]
    return [(float(t), str(d).split(" (")[0]) for t, d in zip(e["time"], e["detail"])]


def switches(events: pd.DataFrame, flow: int = 0) -> list[tuple[float, str]]:
    """(time, "old -> new") of each switch the agent made."""
    e = events[(events["flow"] == flow) & (events["event"] == "kr_switch")]
    return [(float(t), str(d).split(":")[0]) for t, d in zip(e["time"], e["detail"])]


def classification(timeline: list[tuple[float, str]], expect: str, start: float, end: float) -> dict:
    """Time to the first classification as `expect` (s after the flow's start; NaN if never),
    and the share of [start, end] spent classified as `expect` (default before the first)."""
    first = next((t for t, p in timeline if p == expect), math.nan)
    share, cur, t_prev = 0.0, "default", start
    for t, p in timeline + [(end, None)]:
        if cur == expect:
            share += max(0.0, t - t_prev)
        cur, t_prev = p, t
    return {"first correct (s)": first - start if math.isfinite(first) else math.nan,
            "correct share": share / (end - start) if end > start else math.nan,
            "types": ";".join(dict.fromkeys(p for _, p in timeline)),
            "final type": timeline[-1][1] if timeline else "default"}


def flow_measures(res, flow: int, capacity_bps: float, duration: float) -> dict:
    f = res.flows.iloc[flow]
    span = duration - float(f["start"])
    gp = float(f["delivered_bytes"]) * 8 / span if span > 0 else math.nan
    sent = float(f["segments_sent"])
    return {"goodput Mb/s": gp / 1e6, "goodput": gp / capacity_bps if capacity_bps > 0 else math.nan,
            "retransmission rate": float(f["retransmits"]) / sent if sent > 0 else math.nan,
            "cc_final": str(f["cc_final"]) if "cc_final" in res.flows.columns else str(f["cc"])}


def run_measures(d) -> dict:
    """One row per run: the test flow's normalised goodput, the bottleneck's p95 queueing delay
    and drop rate, and the agent's classification and switches."""
    res, p = d.results, d.params
    dur = float(res.summary["duration"])
    row = {k: p[k] for k in ("instance", "kind", "held", "expect") if k in p}
    row.update({k: p[k] for k in ("contender", "competitor", "variant") if k in p})
    row["seed"] = d.seed
    row.update(flow_measures(res, 0, p["capacity_bps"], dur))
    links = res.links
    a, b = p["bottleneck"]
    bn = links[(links["src"] == a) & (links["dst"] == b)].iloc[0]
    drops = float(bn["drops_queue"] + bn["drops_loss"] + (bn["drops_down"] if "drops_down" in bn.index else 0.0))
    row["p95 queueing delay ms"] = float(bn["qdelay_p95"]) * 1e3
    row["drop rate"] = drops / max(float(bn["arrivals"]), 1.0)
    if "competitor" in p:
        c = flow_measures(res, 1, p["capacity_bps"], dur)
        row["competitor goodput"] = c["goodput"]
    if p.get("contender") == AGENT or p.get("variant") == "agent":
        ev = _events(res)
        tl = pipe_timeline(ev)
        start = float(res.flows.iloc[0]["start"])
        row.update(classification(tl, p["expect"], start, dur))
        sw = switches(ev)
        row["switches"] = len(sw)
        if sw:  # the adaptation with its options (`newreno+undo`), which the flows table's cc lacks
            row["cc_final"] = sw[-1][1].split(" -> ")[-1]
        row["first switch (s)"] = sw[0][0] - start if sw else math.nan
        row["timeline"] = "; ".join(f"{t:.0f}s {x}" for t, x in tl)
    return row


def measures(done) -> pd.DataFrame:
    return pd.DataFrame([run_measures(d) for d in done])


# --------------------------------------------------------------------------- analysis (pure)


def mean_by(m: pd.DataFrame, col: str = "goodput") -> pd.DataFrame:
    """Mean of `col` per (instance, contender)."""
    return m.groupby(["instance", "contender"])[col].mean().unstack("contender")


def best_fixed(m: pd.DataFrame) -> pd.Series:
    """Per instance, the fixed adaptation with the highest mean normalised goodput (hindsight);
    ties go to the earlier one in FIXED."""
    means = mean_by(m)
    fixed = [c for c in FIXED if c in means.columns]
    return means[fixed].apply(lambda r: max(fixed, key=lambda c: (r[c], -fixed.index(c))), axis=1)


def paired(m: pd.DataFrame, a: str, b: str, col: str = "goodput", instance: str | None = None) -> tuple:
    """Aligned values of contenders a and b, by (instance, seed)."""
    x = m if instance is None else m[m["instance"] == instance]
    piv = x.pivot_table(index=["instance", "seed"], columns="contender", values=col, aggfunc="first")
    if a not in piv.columns or b not in piv.columns:
        return np.array([]), np.array([])
    piv = piv[[a, b]].dropna()
    return piv[a].to_numpy(float), piv[b].to_numpy(float)


def never_far(m: pd.DataFrame, instance: str, best: str, far: float = FAR) -> Verdict:
    a, b = paired(m, AGENT, best, instance=instance)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = a / b
    return above(ratio, far, f"{instance}: the agent reaches ≥ {far:.0%} of the best fixed ({best})'s normalised "
                             f"goodput", "agent / best per seed")


def log_ratios(m: pd.DataFrame, a: str, b: str, col: str, floor: float, instance: str | None = None) -> np.ndarray:
    """log(a / b) of `col` per (instance, seed), both floored at `floor`."""
    x, y = paired(m, a, b, col, instance)
    return np.log(np.maximum(x, floor) / np.maximum(y, floor))


def lower(m: pd.DataFrame, other: str, col: str, floor: float, name: str, instance: str | None = None) -> tuple:
    """The agent against `other` on `col` (lower is better): table columns (the geometric-mean
    ratio agent / other with its 95 % CI bounds) and the verdict that the agent's is lower."""
    lr = log_ratios(m, AGENT, other, col, floor, instance)
    mean, lo, hi, _ = interval(lr)
    where = f"{instance}: " if instance else ""
    v = below(lr, 0.0, f"{where}the agent's {name} is lower than {other}'s (geometric mean of the paired ratio "
                       "< 1)", "log ratio agent / " + other)
    return {f"agent / {'best' if instance else 'it'} {name}": math.exp(mean) if math.isfinite(mean) else math.nan,
            f"agent / {'best' if instance else 'it'} {name} 95% low": math.exp(lo) if math.isfinite(lo) else math.nan,
            f"agent / {'best' if instance else 'it'} {name} 95% high": math.exp(hi) if math.isfinite(hi) else math.nan,
            f"verdict: {name}": str(v)}, v


def instance_table(m: pd.DataFrame) -> pd.DataFrame:
    """Per path instance: the agent, the best fixed with hindsight, the ratio and the verdict."""
    best = best_fixed(m)
    rows = []
    for inst in dict.fromkeys(m["instance"]):
        x = m[m["instance"] == inst]
        ag = x[x["contender"] == AGENT]
        b = best[inst]
        bx = x[x["contender"] == b]
        a, bb = paired(m, AGENT, b, instance=inst)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = a / bb
        worst = x.groupby("contender")["goodput"].mean().drop(AGENT, errors="ignore")
        row = {"instance": inst, "kind": x["kind"].iloc[0], "expected pipe": x["expect"].iloc[0],
               "KB's choice": KB_CHOICE.get(x["expect"].iloc[0], ""), "seeds": ag["seed"].nunique(),
               **ci_cols(ag["goodput"], "agent goodput"), "best fixed": b, **ci_cols(bx["goodput"], "best goodput"),
               "worst fixed": worst.idxmin() if len(worst) else "",
               **ci_cols(ratio, "agent / best"),
               "agent p95 qdelay ms": ag["p95 queueing delay ms"].mean(),
               "best p95 qdelay ms": bx["p95 queueing delay ms"].mean(),
               "agent drop rate": ag["drop rate"].mean(), "best drop rate": bx["drop rate"].mean(),
               "verdict": str(never_far(m, inst, b))}
        for col, floor, name in LOWER_METRICS:
            row.update(lower(m, b, col, floor, name, instance=inst)[0])
        if "final type" in ag.columns:
            row.update({"agent final cc": ";".join(sorted(set(ag["cc_final"]))),
                        "first correct (s)": ag["first correct (s)"].mean(),
                        "correct share": ag["correct share"].mean()})
        rows.append(row)
    return pd.DataFrame(rows)


def contender_table(m: pd.DataFrame) -> pd.DataFrame:
    """Over the suite, per contender: mean normalised goodput, p95 queueing delay, drop and
    retransmission rates, instances where it is the best fixed, and the agent's paired
    comparison against it."""
    best = best_fixed(m)
    rows = []
    for c in [x for x in CONTENDERS if x in set(m["contender"])]:
        x = m[m["contender"] == c]
        row = {"contender": c, "runs": len(x), **ci_cols(x["goodput"], "goodput"),
               **ci_cols(x["p95 queueing delay ms"], "p95 qdelay ms"), "drop rate": x["drop rate"].mean(),
               "retransmission rate": x["retransmission rate"].mean(),
               "best on": ";".join(i for i, b in best.items() if b == c), "verdict": ""}
        if c != AGENT:
            a, b = paired(m, AGENT, c)
            d = a - b
            row.update(**ci_cols(d, "agent − it"))
            row["agent wins (instance×seed)"] = f"{int((d > 0).sum())}/{len(d)}"
            row["verdict"] = str(beats(m, c))
            for col, floor, name in LOWER_METRICS:
                row.update(lower(m, c, col, floor, name)[0])
        rows.append(row)
    return pd.DataFrame(rows)


def beats(m: pd.DataFrame, fixed: str) -> Verdict:
    a, b = paired(m, AGENT, fixed)
    return greater(a, b, f"the agent's normalised goodput exceeds {fixed}'s over the suite", paired=True)


def goals(m: pd.DataFrame, label: str) -> list[Verdict]:
    best = best_fixed(m)
    g1 = all_of([never_far(m, i, b) for i, b in best.items()],
                f"{label}: the agent is never far from the per-path best fixed adaptation (≥ {FAR:.0%} of its "
                "normalised goodput on every path instance, per-seed ratio's 95 % CI)")
    g2 = all_of([beats(m, c) for c in FIXED if c in set(m["contender"])],
                f"{label}: the agent beats every single fixed adaptation over the suite (paired by instance and "
                "seed, 95 % CI of the difference of normalised goodput above 0)")
    return [g1, g2]


def delay_loss_findings(m: pd.DataFrame, label: str) -> list[str]:
    """One line per metric: against which fixed adaptations the agent's delay (loss) over the
    suite is lower, higher or not distinguishable, and on how many path instances it is lower
    or higher than the per-path best's."""
    out = []
    best = best_fixed(m)
    fixed = [c for c in FIXED if c in set(m["contender"])]
    for col, floor, name in LOWER_METRICS:
        by = {o: [] for o in (HOLDS, FAILS, INCONCLUSIVE)}
        for c in fixed:
            by[lower(m, c, col, floor, name)[1].outcome].append(c)
        inst = {o: [] for o in (HOLDS, FAILS, INCONCLUSIVE)}
        for i, b in best.items():
            inst[lower(m, b, col, floor, name, instance=i)[1].outcome].append(i)
        out.append(f"{label}, {name} (geometric mean of agent / fixed, 95 % CI): lower than "
                   f"{', '.join(by[HOLDS]) or 'none'}; higher than {', '.join(by[FAILS]) or 'none'}; "
                   f"not distinguishable from {', '.join(by[INCONCLUSIVE]) or 'none'}. Against the per-path best: "
                   f"lower on {len(inst[HOLDS])}, higher on {len(inst[FAILS])} "
                   f"({', '.join(inst[FAILS]) or 'none'}), not distinguishable on {len(inst[INCONCLUSIVE])} of "
                   f"{len(best)} instances")
    return out


def where_findings(m: pd.DataFrame) -> list[str]:
    """Plain-text readings: where the agent wins and loses against the best fixed, and why (what
    it classified and switched to)."""
    out = []
    t = instance_table(m)
    for _, r in t.iterrows():
        why = ""
        ag = m[(m["instance"] == r["instance"]) & (m["contender"] == AGENT)]
        if "timeline" in ag.columns:
            why = "; ".join(f"seed {s}: {tl or 'never classified'} → ends on {cc}"
                            for s, tl, cc in zip(ag["seed"], ag["timeline"], ag["cc_final"]))
        out.append(f"{r['instance']}: agent {r['agent goodput']:.3f} vs best fixed {r['best fixed']} "
                   f"{r['best goodput']:.3f} (ratio {r['agent / best']:.2f}); {why}")
    return out


def suite_figure(t: pd.DataFrame, title: str):
    fig, ax = plots.new(title, "", "normalised goodput (mean over instances × seeds)")
    ax.bar(t["contender"], t["goodput"], yerr=t["goodput ±95%"].fillna(0), capsize=3,
           color=["tab:red" if c == AGENT else "tab:blue" for c in t["contender"]], alpha=0.8)
    ax.tick_params(axis="x", labelrotation=30, labelsize="small")
    fig.tight_layout()
    return fig


def analyse_comparison(done, label: str) -> Analysis:
    m = measures(done)
    it, ct = instance_table(m), contender_table(m)
    per = m.groupby(["instance", "contender"], sort=False).agg(
        kind=("kind", "first"), runs=("seed", "count"), goodput=("goodput", "mean"),
        goodput_sd=("goodput", "std"), **{"goodput Mb/s": ("goodput Mb/s", "mean"),
                                          "p95 qdelay ms": ("p95 queueing delay ms", "mean"),
                                          "drop rate": ("drop rate", "mean"),
                                          "retransmission rate": ("retransmission rate", "mean")}).reset_index()
    agent_cols = [c for c in ("instance", "seed", "expect", "types", "final type", "first correct (s)",
                              "correct share", "switches", "first switch (s)", "cc_final", "timeline", "goodput")
                  if c in m.columns]
    cls = m[m["contender"] == AGENT][agent_cols].rename(columns={"expect": "expected pipe", "cc_final": "final cc"})
    note = (OURS + "Goodput: the test flow's delivered payload over [start, end] / the path's capacity; p95 qdelay: "
            "links table qdelay_p95 of the bottleneck direction (whole run); drop rate: its drops / arrivals. "
            f"Verdict: the agent's per-seed ratio to the best fixed (hindsight) has a 95 % CI above {FAR:g}.")
    tables = [
        Table("instances", f"{label}: the agent against the best fixed adaptation per path instance (ours)",
              it.round(4), note=note),
        Table("contenders", f"{label}: every contender over the suite, and the agent against each (ours)",
              ct.round(4), note=OURS + "Paired by (instance, seed); verdict: 95 % CI of agent − fixed above 0."),
        Table("per_path", f"{label}: mean per path instance and contender (ours)", per.round(4), note=OURS),
        Table("classification", f"{label}: the agent's pipe-type timeline and switches per run (ours)",
              cls.round(3), note=OURS + "first correct: s after the flow's start until the classifier first names "
                                        "the expected type; correct share: of the run's time."),
    ]
    figs = [Figure("goodput", f"{label}: normalised goodput per contender (ours)",
                   suite_figure(ct, f"{label}: normalised goodput (ours)"))]
    return Analysis(tables, figs, [str(v) for v in goals(m, label)] + delay_loss_findings(m, label)
                    + where_findings(m))


@experiment("kentridge_suite", "KentRidge's agent against every fixed adaptation of its knowledge base and the "
            "per-path best (hindsight) on 8 path types (issue 20's benchmark, ours)", SOURCE)
def kentridge_suite(size: str) -> Plan:
    return Plan(comparison_runs(size, False), lambda done: analyse_comparison(done, "suite"),
                suite_parameters(size, False))


@experiment("kentridge_heldback", "KentRidge's agent against every fixed adaptation on held-back variants of the "
            "8 path types, not used for tuning (issue 20's benchmark, ours)", SOURCE)
def kentridge_heldback(size: str) -> Plan:
    return Plan(comparison_runs(size, True), lambda done: analyse_comparison(done, "held-back"),
                suite_parameters(size, True))


# --------------------------------------------------------------------------- harm


COMPETITORS = ("newreno", "cubic")
HARM_KINDS = {"quick": ("lfn_large_queue", "high_speed", "lossy"),
              "full": ("lfn_large_queue", "lfn_small_queue", "high_speed", "lossy", "reorder", "asymmetry")}
HARM_KEEP = 0.75  # "not harmful": the competitor keeps at least this share of its goodput beside NewReno
HARM_FLOOR = 1e-3  # the smallest ratio the suite-wide geometric mean counts


def harm_runs(size: str) -> list[Run]:
    z = SIZES[size]
    runs = []
    for kind in HARM_KINDS[size]:
        for inst in instances(kind)[:z["instances"]]:
            d = duration_of(inst, size)
            p = _inst_params(inst, size)
            for comp in COMPETITORS:
                for c in CONTENDERS:
                    for s in z["seeds"]:
                        runs.append(Run({**p, "contender": c, "competitor": comp},
                                        path_spec(inst, contender_flow(c), d, 2000 + s, competitor=comp), 2000 + s,
                                        wall_limit=1800))
    return runs


def harm_frame(m: pd.DataFrame) -> pd.DataFrame:
    """Adds the competitor's goodput relative to its goodput beside NewReno (same instance,
    competitor and seed)."""
    base = m[m["contender"] == "newreno"].set_index(["instance", "competitor", "seed"])["competitor goodput"]
    key = list(zip(m["instance"], m["competitor"], m["seed"]))
    m = m.copy()
    m["competitor / beside NewReno"] = [g / base.get(k, np.nan) for g, k in zip(m["competitor goodput"], key)]
    return m


def harm_table(m: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (inst, comp, c), x in m.groupby(["instance", "competitor", "contender"], sort=False):
        row = {"instance": inst, "competitor": comp, "contender": c, "runs": len(x),
               **ci_cols(x["goodput"], "test goodput"), **ci_cols(x["competitor goodput"], "competitor goodput"),
               **ci_cols(x["competitor / beside NewReno"], "competitor / beside NewReno"),
               "p95 qdelay ms": x["p95 queueing delay ms"].mean(), "drop rate": x["drop rate"].mean(), "verdict": ""}
        if c != "newreno":
            row["verdict"] = str(above(x["competitor / beside NewReno"], HARM_KEEP,
                                       f"{inst}: {c} leaves the {comp} competitor ≥ {HARM_KEEP:.0%} of its goodput "
                                       "beside NewReno", "competitor / beside NewReno"))
        rows.append(row)
    return pd.DataFrame(rows)


def harm_contender_table(m: pd.DataFrame) -> pd.DataFrame:
    """Over every path instance, per competitor and contender: the competitor's goodput beside
    the contender relative to beside NewReno, as a geometric mean over instance × seed with its
    95 % CI (a competitor that starves beside NewReno on one path would dominate an arithmetic
    mean of ratios; ratios below ``HARM_FLOOR`` count as it), the instances where the contender
    leaves it less than ``HARM_KEEP``, and the verdict that it leaves ≥ ``HARM_KEEP``."""
    rows = []
    for (comp, c), x in m.groupby(["competitor", "contender"], sort=False):
        per = x.groupby("instance", sort=False)["competitor / beside NewReno"].mean()
        lr = np.log(np.maximum(x["competitor / beside NewReno"].to_numpy(float), HARM_FLOOR))
        mean, lo, hi, _ = interval(lr)
        row = {"competitor": comp, "contender": c, "runs": len(x),
               **{f"competitor / beside NewReno (geometric mean){k}": math.exp(v) if math.isfinite(v) else math.nan
                  for k, v in (("", mean), (" 95% low", lo), (" 95% high", hi))},
               "worst instance": per.idxmin() if len(per) else "", "worst": per.min() if len(per) else math.nan,
               f"instances below {HARM_KEEP:g}": ";".join(i for i, v in per.items() if v < HARM_KEEP), "verdict": ""}
        if c != "newreno":
            row["verdict"] = str(above(lr, math.log(HARM_KEEP),
                                       f"over the suite, {c} leaves the {comp} competitor ≥ {HARM_KEEP:.0%} of its "
                                       "goodput beside NewReno (geometric mean)",
                                       "log(competitor / beside NewReno) over instance × seed"))
        rows.append(row)
    return pd.DataFrame(rows)


def analyse_harm(done) -> Analysis:
    m = harm_frame(measures(done))
    t = harm_table(m)
    tc = harm_contender_table(m)
    findings = [r["verdict"] for _, r in tc.iterrows() if r["contender"] == AGENT]
    for (inst, comp), x in m.groupby(["instance", "competitor"], sort=False):
        ag = x[x["contender"] == AGENT]
        ranks = x.groupby("contender")["competitor / beside NewReno"].mean().sort_values(ascending=False)
        pos = list(ranks.index).index(AGENT) + 1 if AGENT in ranks.index else 0
        findings.append(f"{inst}, {comp} competitor: the agent leaves it {ranks.get(AGENT, np.nan):.2f} × its goodput "
                        f"beside NewReno (rank {pos} of {len(ranks)}, most friendly first); final cc "
                        f"{';'.join(sorted(set(ag['cc_final'])))}")
    return Analysis([Table("harm", "Harm to a competing NewReno or CUBIC flow (ours)", t.round(4),
                           note=OURS + "competitor / beside NewReno: the competitor's goodput beside the contender "
                                       "over "
                                       "its goodput beside a NewReno test flow (same instance and seed). Verdict: its "
                                       f"95 % CI above {HARM_KEEP:g}."),
                     Table("harm_contenders", "Harm over the suite per contender and competitor (ours)", tc.round(4),
                           note=OURS + "Geometric mean over instance × seed of the competitor's goodput beside the "
                                       "contender over its goodput beside NewReno; verdict: its 95 % CI above "
                                       f"{HARM_KEEP:g}.")], [], findings)


@experiment("kentridge_harm", "Harm KentRidge's agent and each fixed adaptation do to a competing NewReno or CUBIC "
            "flow on the same bottleneck (issue 20's benchmark, ours)", SOURCE)
def kentridge_harm(size: str) -> Plan:
    return Plan(harm_runs(size), analyse_harm,
                {"paths": list(HARM_KINDS[size]), "competitors": list(COMPETITORS), "contenders": list(CONTENDERS),
                 "seeds": [2000 + s for s in SIZES[size]["seeds"]], "keep": HARM_KEEP, "tcp": TCP})


# --------------------------------------------------------------------------- switch cost

#: per path type: the right adaptation (the KB's choice for its pipe type) and a wrong one (on
#: long thin paths Hybla, the KB's choice before the tuning instances showed it second-worst)
SWITCH_CASES = {"lfn_large_queue": ("sync_tcp", "westwood_be"), "lossy": ("westwood_be", "sync_tcp"),
                "long_thin": ("sync_tcp", "hybla"), "high_speed": ("cubic", "hybla")}
SWITCH_KINDS = {"quick": ("lfn_large_queue", "lossy", "long_thin", "high_speed"), "full": tuple(SWITCH_CASES)}
#: NewReno, then a switch at these times (s after 0): "early" where the agent typically switches
#: (its first classification, one interval after the start), "late" far later
EARLY, LATE = 1.5, {"quick": 8.0, "full": 20.0}
VARIANTS = ("right", "agent", "right_early", "right_late", "wrong_early")


def variant_flow(v: str, right: str, wrong: str, size: str) -> dict:
    if v == "right":
        return contender_flow(right)
    if v == "agent":
        return contender_flow(AGENT)
    at = LATE[size] if v == "right_late" else EARLY
    return contender_flow("newreno", [{"at": at, "cc": wrong if v == "wrong_early" else right}])


def switch_runs(size: str) -> list[Run]:
    z = SIZES[size]
    runs = []
    for kind in SWITCH_KINDS[size]:
        right, wrong = SWITCH_CASES[kind]
        for inst in instances(kind)[:z["instances"]]:
            d = duration_of(inst, size)
            p = _inst_params(inst, size)
            for v in VARIANTS:
                for s in z["seeds"]:
                    at = {"right_early": EARLY, "wrong_early": EARLY, "right_late": LATE[size]}.get(v)
                    runs.append(Run({**p, "variant": v, "contender": v, "right": right, "wrong": wrong,
                                     "switch at": at},
                                    path_spec(inst, variant_flow(v, right, wrong, size), d, 3000 + s), 3000 + s,
                                    wall_limit=1800))
    return runs


def switch_table(m: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for inst, x in m.groupby("instance", sort=False):
        for v in VARIANTS:
            y = x[x["variant"] == v]
            if y.empty:
                continue
            a, b = paired(x, v, "right")
            with np.errstate(divide="ignore", invalid="ignore"):
                cost = 1 - a / b
            row = {"instance": inst, "variant": v, "runs": len(y), **ci_cols(y["goodput"], "goodput"),
                   **ci_cols(cost, "cost (1 − goodput / right's)"),
                   "p95 qdelay ms": y["p95 queueing delay ms"].mean(), "drop rate": y["drop rate"].mean(),
                   "final cc": ";".join(sorted(set(y["cc_final"]))), "verdict": ""}
            if v == "agent":
                row["first switch (s)"] = y["first switch (s)"].mean()
                row["verdict"] = str(above(1 - cost, FAR, f"{inst}: the agent's classification and switch cost less "
                                                          f"than {1 - FAR:.0%} of the right adaptation's goodput",
                                           "agent / right per seed"))
            if v == "right_late":
                aa, ll = paired(x, "agent", "right_late")
                row["verdict"] = str(greater(aa, ll, f"{inst}: switching to the right adaptation late (at "
                                                     f"{y['switch at'].iloc[0]:g} s) costs more goodput than the "
                                                     "agent's own classification and switch",
                                             paired=True))
            if v == "wrong_early":
                rr, ww = paired(x, "right_early", "wrong_early")
                row["verdict"] = str(greater(rr, ww, f"{inst}: switching to a wrong adaptation "
                                                     f"({y['wrong'].iloc[0]}) costs goodput against switching to "
                                                     "the right one at the same time", paired=True))
            rows.append(row)
    return pd.DataFrame(rows)


def analyse_switch_cost(done) -> Analysis:
    m = measures(done)
    m["wrong"] = [d.params["wrong"] for d in done]
    m["switch at"] = [d.params.get("switch at") for d in done]
    t = switch_table(m)
    return Analysis([Table("switch_cost", "Cost of late and wrong switches (ours)", t.round(4),
                           note=OURS + "right: the KB's adaptation for the path's pipe type from the start; agent: "
                                       f"KentRidge; right_early / wrong_early: NewReno switched at {EARLY:g} s to the "
                                       "right / a wrong adaptation; right_late: switched to the right one late. Cost: "
                                       "1 − goodput / right's, per seed.")], [], [])


@experiment("kentridge_switch_cost", "Cost of a late or a wrong switch: KentRidge's agent against the right "
            "adaptation from the start and scheduled switches (issue 20's benchmark, ours)", SOURCE)
def kentridge_switch_cost(size: str) -> Plan:
    return Plan(switch_runs(size), analyse_switch_cost,
                {"paths": {k: {"right": SWITCH_CASES[k][0], "wrong": SWITCH_CASES[k][1]} for k in SWITCH_KINDS[size]},
                 "early switch (s)": EARLY, "late switch (s)": LATE[size], "variants": list(VARIANTS),
                 "seeds": [3000 + s for s in SIZES[size]["seeds"]], "tcp": TCP})
