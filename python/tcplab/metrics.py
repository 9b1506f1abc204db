"""Metrics computed from run results."""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd


def jain_index(x: Sequence[float]) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²): 1 for equal shares, 1/n when one takes all."""
    a = np.asarray(x, dtype=float)
    if len(a) == 0 or not np.any(a):
        return float("nan")
    return float(a.sum() ** 2 / (len(a) * np.sum(a**2)))


def link_loss_rate(links: pd.DataFrame, src: str, dst: str) -> float:
    """Fraction of packets offered to the link direction src→dst that it dropped."""
    row = links[(links["src"] == src) & (links["dst"] == dst)].iloc[0]
    return float((row["drops_queue"] + row["drops_loss"]) / row["arrivals"]) if row["arrivals"] else 0.0


def loss_indication_rate(flows: pd.DataFrame) -> pd.Series:
    """Per flow: loss indications (fast retransmits + timeouts) per segment sent — PFTK's p."""
    return (flows["fast_retransmits"] + flows["timeouts"]) / flows["segments_sent"].where(flows["segments_sent"] > 0)


def mean_srtt(flow_ts: pd.DataFrame) -> pd.Series:
    """Per flow: mean of the sampled smoothed RTT (samples before the first RTT measurement excluded)."""
    ts = flow_ts[flow_ts["srtt"] > 0]
    return ts.groupby("flow")["srtt"].mean()


def pftk_inputs(results) -> pd.DataFrame:
    """Per flow, what the PFTK model needs, measured in one run: the send rate (packets/s
    since the flow started, retransmissions included), p (loss indications per packet sent),
    RTT (mean sampled srtt) and T0 (mean sampled RTO without back-off: PFTK's first timeout).
    Flows without an RTT sample are left out. Needs sampled time series."""
    f = results.flows
    ts = results.flow_ts[results.flow_ts["srtt"] > 0].groupby("flow")[["srtt", "rto_base"]].mean()
    dur = results.summary["duration"]
    out = pd.DataFrame({
        "flow": f["flow"],
        "send_rate_pps": f["segments_sent"] / (dur - f["start"]),
        "p": loss_indication_rate(f),
    })
    out = out[out["flow"].isin(ts.index)].copy()
    out["rtt"] = out["flow"].map(ts["srtt"])
    out["t0"] = out["flow"].map(ts["rto_base"])
    return out.reset_index(drop=True)


def cwnd_sawtooth(flow_ts: pd.DataFrame, start: float = 0.0, end: float = float("inf"), drop: float = 0.05) -> pd.DataFrame:
    """Per flow, the shape of the sampled congestion window over [start, end]: its mean, the
    number of cuts, the sawtooth's period and the mean window at the top and the bottom of
    each cut.

    A cut is a run of samples in which the window never grows, beginning with a decrease
    and falling by more than ``drop`` of the window it began at (and by at least one
    segment), so that a halving spread over a recovery (Linux's rate halving) counts once
    and a flat stretch does not count. ``period`` is the median time from one cut's
    beginning to the next (NaN with fewer than two cuts). Works on tcplab's ``flow_ts`` and
    on ``run_ns2(..., cwnd_interval=...)["cwnd"]`` alike (columns time, flow, cwnd)."""
    rows = []
    ts = flow_ts[(flow_ts["time"] >= start) & (flow_ts["time"] <= end)]
    for flow, g in ts.groupby("flow", sort=True):
        t = g["time"].to_numpy(dtype=float)
        w = g["cwnd"].to_numpy(dtype=float)
        tops, bottoms, starts = [], [], []
        i = 1
        while i < len(w):
            if w[i] < w[i - 1]:
                j = i
                while j + 1 < len(w) and w[j + 1] <= w[j]:
                    j += 1
                top, bottom = w[i - 1], w[j]
                if top - bottom > drop * top and top - bottom >= 1:
                    tops.append(top)
                    bottoms.append(bottom)
                    starts.append(t[i - 1])
                i = j + 1
            else:
                i += 1
        rows.append(
            dict(
                flow=flow,
                mean_cwnd=float(w.mean()) if len(w) else float("nan"),
                cuts=len(starts),
                period=float(np.median(np.diff(starts))) if len(starts) >= 2 else float("nan"),
                mean_top=float(np.mean(tops)) if tops else float("nan"),
                mean_bottom=float(np.mean(bottoms)) if bottoms else float("nan"),
            )
        )
    return pd.DataFrame(rows, columns=["flow", "mean_cwnd", "cuts", "period", "mean_top", "mean_bottom"])


def datagram_delay(flows: pd.DataFrame, by: str = "direction") -> pd.DataFrame:
    """One-way delay, jitter and loss of the measured datagram flows (VoIP calls, and UDP flows
    with ``delay_stats``) of a flows table, pooled per value of ``by`` (default: the call
    direction, ``forward``/``reverse``; ``""`` for UDP flows).

    Columns: ``flows``, ``sent``, ``received``, ``lost`` (RFC 3550 count), ``loss_rate``
    (lost / (received + lost)), ``delay_mean`` (over all datagrams received), ``delay_std``
    (population deviation of all of them, pooled exactly from the flows' means and
    deviations), ``delay_min``, ``delay_max``, ``jitter_mean`` (mean of the flows' RFC 3550
    jitter). Times in seconds. Empty when the table has no delay columns.
    """
    if "delay_mean" not in flows.columns:
        return pd.DataFrame()
    f = flows[flows["transport"].isin(["voip", "udp"]) & flows["delay_mean"].notna()]
    rows = {}
    for key, g in f.groupby(by, sort=True):
        n = g["delivered_segments"].astype(float)
        total = n.sum()
        mean = (n * g["delay_mean"]).sum() / total
        spread = (n * (g["delay_std"] ** 2 + (g["delay_mean"] - mean) ** 2)).sum() / total
        lost = int(g["datagrams_lost"].sum())
        rows[key] = {
            "flows": len(g),
            "sent": int(g["segments_sent"].sum()),
            "received": int(total),
            "lost": lost,
            "loss_rate": lost / (total + lost),
            "delay_mean": mean,
            "delay_std": spread**0.5,
            "delay_min": g["delay_min"].min(),
            "delay_max": g["delay_max"].max(),
            "jitter_mean": g["jitter_rfc3550"].mean(),
        }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis(by)


def interval_throughput(flow_ts: pd.DataFrame, flows: pd.DataFrame, interval: float = 1.0,
                        start: float = 0.0, end: float = float("inf")) -> pd.DataFrame:
    """Per flow and interval of ``interval`` seconds within [start, end]: the goodput in bit/s,
    from the in-order delivered segments of the sampled time series (`delivered`) and each
    flow's payload per segment (its delivered bytes over delivered segments).

    Rows: ``time`` (the interval's end), ``flow``, ``throughput_bps``. The samples must fall
    on the interval grid (a sample interval that divides ``interval``); the thesis's metrics
    use 1-s intervals over [100, 1000] s. Only whole intervals inside [start, end] count.
    """
    if not interval > 0:
        raise ValueError(f"interval: {interval!r}; allowed: a positive number of seconds")
    ts = flow_ts[["time", "flow", "delivered"]]
    k = np.round(ts["time"].to_numpy() / interval)
    on_grid = np.abs(ts["time"].to_numpy() - k * interval) < 1e-9 * max(1.0, interval)
    grid = ts[on_grid].assign(k=k[on_grid].astype(np.int64))
    grid = grid[(grid["k"] * interval >= start - 1e-9) & (grid["k"] * interval <= end + 1e-9)]
    by_flow = flows.set_index("flow")
    payload = by_flow["delivered_bytes"] / by_flow["delivered_segments"].where(by_flow["delivered_segments"] > 0)
    out = []
    for f, g in grid.sort_values("k").groupby("flow"):
        g = g.drop_duplicates("k", keep="last")
        kk, d = g["k"].to_numpy(), g["delivered"].to_numpy(dtype=float)
        whole = np.diff(kk) == 1
        bps = np.diff(d)[whole] * payload.get(f, np.nan) * 8 / interval
        out.append(pd.DataFrame({"time": kk[1:][whole] * interval, "flow": f, "throughput_bps": bps}))
    if not out:
        return pd.DataFrame(columns=["time", "flow", "throughput_bps"])
    return pd.concat(out, ignore_index=True)


def short_term_fairness(throughput: pd.DataFrame) -> float:
    """The mean over intervals of Jain's index of the flows' throughputs in each interval
    (thesis §3.5: short-term fairness, with 1-s throughputs over [100, 1000] s). Takes the
    table of `interval_throughput`; intervals in which no flow delivered anything are left out."""
    per_interval = throughput.groupby("time")["throughput_bps"].apply(jain_index)
    return float(per_interval.dropna().mean()) if len(per_interval.dropna()) else float("nan")


def stability_index(throughput: pd.DataFrame) -> pd.Series:
    """Per flow, the stability index S = (1/x̄)·√(Σ_k (x(k) − x̄)² / (m − 1)) of its interval
    throughputs x(k) (thesis §3.5: the coefficient of variation of the 1-s throughputs; the
    thesis reports the mean over the flows). Takes the table of `interval_throughput`."""
    g = throughput.groupby("flow")["throughput_bps"]
    return (g.std(ddof=1) / g.mean()).rename("stability_index")


def congestion_signals(events: pd.DataFrame, flows: Sequence[int] | None = None,
                       detection: str = "sync_congestion", gap: float = 0.5) -> pd.DataFrame:
    """The congestion signals the competing flows detected, and which flows detected each
    (thesis §3.5.1: "122 congestion signals are detected ... and no single Sync-TCP flow misses
    any of these"). A signal is a group of ``detection`` events (Sync-TCP's entry into Waiting)
    that begins with one and takes every detection less than ``gap`` seconds after it; the
    default 0.5 s is T_wait, during which a flow that detected cannot detect again, so a flow
    appears at most once per signal. ``flows``: the competing flows (default: those that
    entered SYNC mode, a ``sync_mode`` event of 1).

    Rows: ``time`` (first detection), ``spread`` (last − first, s), ``detected_by`` (number of
    the competing flows that detected it), ``by_all`` (every competing flow did).
    """
    if not gap > 0:
        raise ValueError(f"gap: {gap!r}; allowed: a positive number of seconds")
    if flows is None:
        flows = sorted(events.loc[(events["event"] == "sync_mode") & (events["value"] == 1.0), "flow"].unique())
    competing = set(int(f) for f in flows)
    d = events[(events["event"] == detection) & events["flow"].isin(competing)].sort_values("time", kind="stable")
    rows, group, start = [], [], None
    for t, f in zip(d["time"].to_numpy(), d["flow"].to_numpy()):
        if start is not None and t - start >= gap:
            rows.append((start, group[-1][0] - start, {g[1] for g in group}))
            group, start = [], None
        if start is None:
            start = t
        group.append((t, int(f)))
    if group:
        rows.append((start, group[-1][0] - start, {g[1] for g in group}))
    return pd.DataFrame({
        "time": [r[0] for r in rows],
        "spread": [r[1] for r in rows],
        "detected_by": [len(r[2]) for r in rows],
        "by_all": [bool(competing) and r[2] >= competing for r in rows],
    })


# --------------------------------------------------------------------------- thesis chapter 3 (Sync-TCP)
# Metrics of the thesis's §3.5 over a window [t0, t1] ([100, 1000] s in the thesis; scaled for
# the quick sizes). SEED-NOTES §2.2 C; docs/sync-tcp.md states each reading.


def window_delivered(flow_ts: pd.DataFrame, flows: Sequence[int], t0: float, t1: float) -> pd.Series:
    """Per flow of `flows`: segments delivered in order to its receiver within [t0, t1], from
    the cumulative `delivered` of the sampled time series (the last sample at or before each
    end; 0 before the flow's first sample)."""
    out = {}
    for f in flows:
        x = flow_ts.loc[flow_ts["flow"] == f, ["time", "delivered"]].sort_values("time")
        if x.empty:
            out[f] = 0.0
            continue
        s = x.set_index("time")["delivered"]
        a = s.asof(t0) if t0 >= s.index[0] else 0.0
        b = s.asof(t1) if t1 >= s.index[0] else 0.0
        out[f] = float((0.0 if np.isnan(b) else b) - (0.0 if np.isnan(a) else a))
    return pd.Series(out, dtype=float)


def window_throughput(flow_ts: pd.DataFrame, flows_table: pd.DataFrame, flows: Sequence[int], t0: float,
                      t1: float) -> pd.Series:
    """Per flow of `flows`: the average goodput (payload bit/s) over [t0, t1] (the thesis's
    "average throughput" of a flow over [100, 1000] s), from `window_delivered` and each flow's
    payload per segment (delivered bytes over delivered segments)."""
    by = flows_table.set_index("flow")
    payload = by["delivered_bytes"] / by["delivered_segments"].where(by["delivered_segments"] > 0)
    seg = window_delivered(flow_ts, flows, t0, t1)
    return (seg * payload.reindex(seg.index).fillna(0.0) * 8 / (t1 - t0)).rename("throughput_bps")


def window_utilisation(flow_ts: pd.DataFrame, flows_table: pd.DataFrame, tcp_flows: Sequence[int], capacity_bps: float,
                       t0: float, t1: float, header: int = 40, datagram_bits: float = 0.0) -> float:
    """Utilisation of a link over [t0, t1] by the traffic that crossed it: the TCP flows
    `tcp_flows` (their in-order delivered segments in the window, each counted with its payload
    plus `header` bytes on the wire; retransmissions are not counted) plus `datagram_bits`
    (the bits of UDP/VoIP datagrams that crossed it in the window, computed by the caller),
    divided by capacity × (t1 − t0)."""
    by = flows_table.set_index("flow")
    seg = window_delivered(flow_ts, tcp_flows, t0, t1)
    payload = (by["delivered_bytes"] / by["delivered_segments"].where(by["delivered_segments"] > 0)).reindex(seg.index)
    bits = float((seg * (payload.fillna(0.0) + header) * 8).sum()) + datagram_bits
    return bits / (capacity_bps * (t1 - t0))


def window_loss_rate(drops: pd.DataFrame, hop: int, t0: float, t1: float, departures: float) -> float:
    """The loss rate of a link direction over [t0, t1]: its drops in the window (rows of the
    drop trace, `sim.drop_trace = true`, with `hop` the links table's `link`; every reason:
    overflow and packet errors) over the packets offered to it in the window, taken as those
    drops plus `departures` (the packets that crossed it in the window)."""
    n = int(((drops["hop"] == hop) & (drops["time"] >= t0) & (drops["time"] <= t1)).sum()) if len(drops) else 0
    total = n + departures
    return n / total if total > 0 else float("nan")


def sampled_queue_delay(link_ts: pd.DataFrame, link: int, t0: float, t1: float, service_s: float) -> tuple[float, float]:
    """(mean, standard deviation) over [t0, t1] of a link direction's sampled queue (packets in
    its system) times `service_s`, one data packet's transmission time: the queueing delay a
    packet arriving at the sampling instant would see, in seconds. The per-packet values over
    the whole run are the links table's `qdelay_mean`, `qdelay_std`; this one covers only the
    window (the thesis leaves out the initial slow start)."""
    q = link_ts.loc[(link_ts["link"] == link) & (link_ts["time"] >= t0) & (link_ts["time"] <= t1), "queue"]
    if q.empty:
        return float("nan"), float("nan")
    d = q.to_numpy(dtype=float) * service_s
    return float(d.mean()), float(d.std())


def normalised_buffer_occupancy(delay: float, propagation: float, max_queue_delay: float) -> float:
    """The thesis's normalised average buffer occupancy (§3.6.5): (VoIP average delay − RTPD)
    / maximum queueing delay, e.g. (61 − 50)/25 = 44 %. tcplab measures the VoIP delay one
    way, so `delay` is the mean one-way delay, `propagation` the one-way propagation delay of
    the calls' path, `max_queue_delay` the bottleneck buffer's drain time (buffer × a data
    packet's transmission time). With symmetric paths this equals the round-trip reading
    (one-way delay plus the return propagation, minus the RTPD)."""
    if not max_queue_delay > 0:
        raise ValueError(f"max_queue_delay: {max_queue_delay!r}; allowed: a positive number of seconds")
    return (delay - propagation) / max_queue_delay


def signal_synchronisation(events: pd.DataFrame, flows: Sequence[int] | None = None, gap: float = 0.5,
                           t0: float = 0.0, t1: float = float("inf")) -> dict:
    """The thesis's congestion-signal synchronisation (§3.5.1, §3.5.2's 5853/5651/202): the
    signals of `congestion_signals` whose first detection lies in [t0, t1], how many of them
    all competing flows detected, how many some missed, and the fraction detected by all
    (NaN without signals)."""
    s = congestion_signals(events, flows, gap=gap)
    s = s[(s["time"] >= t0) & (s["time"] <= t1)]
    n, a = len(s), int(s["by_all"].sum()) if len(s) else 0
    return {"signals": n, "by_all": a, "missed": n - a, "fraction_by_all": a / n if n else float("nan")}


def phase_fairness(throughput: pd.DataFrame, phases: Sequence[tuple[float, float, Sequence[int]]],
                   settle: float = 0.5) -> pd.DataFrame:
    """Fairness in a dynamic scenario (door, tower): per phase (t_a, t_b, active flows), Jain's
    index of the active flows' mean throughputs over the phase's last (1 − `settle`) part,
    [t_a + settle·(t_b − t_a), t_b], i.e. after they had time to converge. Takes the table of
    `interval_throughput`. Rows: ``start``, ``end``, ``flows`` (number active), ``jain``."""
    rows = []
    for ta, tb, active in phases:
        lo = ta + settle * (tb - ta)
        x = throughput[(throughput["time"] > lo + 1e-9) & (throughput["time"] <= tb + 1e-9)
                       & throughput["flow"].isin(list(active))]
        means = [float(x.loc[x["flow"] == f, "throughput_bps"].mean()) if (x["flow"] == f).any() else 0.0
                 for f in active]
        rows.append({"start": ta, "end": tb, "flows": len(active), "jain": jain_index(means)})
    return pd.DataFrame(rows, columns=["start", "end", "flows", "jain"])


def queue_emptied_fraction(link_ts: pd.DataFrame, link: int, t0: float, t1: float, period: float,
                           threshold: float) -> float:
    """The fraction of the consecutive periods of `period` seconds in [t0, t1] in which a link
    direction's sampled queue fell to at most `threshold` packets at least once: how regularly
    the queue is emptied (App. A.5's claim that adaptive λ empties it periodically under every
    load). Only whole periods count."""
    q = link_ts[(link_ts["link"] == link) & (link_ts["time"] >= t0) & (link_ts["time"] <= t1)]
    n = int(np.floor((t1 - t0) / period + 1e-9))
    if n < 1:
        return float("nan")
    hits = 0
    for k in range(n):
        a, b = t0 + k * period, t0 + (k + 1) * period
        w = q[(q["time"] >= a) & (q["time"] < b)]["queue"]
        hits += bool(len(w)) and float(w.min()) <= threshold
    return hits / n
