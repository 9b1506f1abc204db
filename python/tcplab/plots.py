"""Plot helpers: matplotlib (Agg), axes labelled with units, saved as PNG and SVG."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def new(title: str, xlabel: str, ylabel: str, size=(6.4, 4.0)):
    fig, ax = plt.subplots(figsize=size)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    return fig, ax


def errorbars(df: pd.DataFrame, x: str, y: str, err: str, group: str | None, title: str, xlabel: str, ylabel: str,
              group_label: str = ""):
    """Mean ± CI against x, one line per group."""
    fig, ax = new(title, xlabel, ylabel)
    groups = [(None, df)] if group is None else list(df.groupby(group))
    for key, g in groups:
        g = g.sort_values(x)
        ax.errorbar(g[x], g[y], yerr=g[err].fillna(0), marker="o", capsize=3,
                    label=None if key is None else f"{group_label}{key}")
    if group is not None:
        ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def versus(x, y, title: str, xlabel: str, ylabel: str, log: bool = True):
    """Scatter of y against x with the y = x line (model against measurement)."""
    fig, ax = new(title, xlabel, ylabel)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ax.scatter(x, y, s=12, alpha=0.7)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if ok.any():
        lo, hi = min(x[ok].min(), y[ok].min()), max(x[ok].max(), y[ok].max())
        ax.plot([lo, hi], [lo, hi], "k--", linewidth=1, label="y = x")
        ax.legend(fontsize="small")
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    fig.tight_layout()
    return fig


def save(fig, directory: str | Path, name: str) -> list[Path]:
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    paths = [d / f"{name}.png", d / f"{name}.svg"]
    fig.savefig(paths[0], dpi=110)
    fig.savefig(paths[1])
    plt.close(fig)
    return paths


# ---------------------------------------------------------------------------------------------
# Time–sequence plots
#
# The source is the run's packet captures (docs/scenario.md, [[pcap]]): every segment a flow's
# sender offers to its first hop (a capture at that hop's entry, so segments its queue drops are
# included and the time is when they were sent) and every ACK that reaches the sender (a capture
# of the reverse direction at its exit). Captures are opt-in per link and cost nothing when
# absent; no per-segment trace is needed in the core. The window comes from the `flow_ts` time
# series (sample_interval > 0).


def first_hop(spec: dict, node: str) -> str:
    """The node a host's only link leads to, from a spec (its [[links]] or the dumbbell)."""
    for link in spec.get("links", []) or []:
        if link["a"] == node:
            return link["b"]
        if link["b"] == node:
            return link["a"]
    if "dumbbell" in spec and node[:1] in "sd" and node[1:].isdigit():
        return "r1" if node[0] == "s" else "r2"
    raise ValueError(f"time_sequence: node {node!r} has no link in the spec")


def with_time_sequence(spec: dict, src: str) -> dict:
    """`spec` with the two captures :func:`time_sequence` reads for flows sent by host `src`."""
    out = dict(spec)
    hop = first_hop(spec, src)
    caps = list(out.get("pcap", []) or [])
    for c in ({"a": src, "b": hop, "at": "entry"}, {"a": hop, "b": src}):
        if c not in caps:
            caps.append(c)
    out["pcap"] = caps
    return out


def _tcp_packets(pcap: bytes) -> pd.DataFrame:
    rows, at = [], 24
    while at + 16 <= len(pcap):
        sec, ns, caplen = np.frombuffer(pcap[at:at + 12], dtype="<u4")
        ip = pcap[at + 16: at + 16 + int(caplen)]
        at += 16 + int(caplen)
        if ip[9] != 6:
            continue
        tcp = ip[20:]
        sport, dport = int.from_bytes(tcp[0:2], "big"), int.from_bytes(tcp[2:4], "big")
        seq, ack = int.from_bytes(tcp[4:8], "big"), int.from_bytes(tcp[8:12], "big")
        rows.append((sec + ns * 1e-9, sport, dport, seq, ack, tcp[13]))
    return pd.DataFrame(rows, columns=["time", "sport", "dport", "seq", "ack", "tcpflags"])


def _unwrap(values: np.ndarray) -> np.ndarray:
    """32-bit byte sequence numbers made monotone across wrap-arounds (long runs)."""
    v = values.astype(np.int64)
    d = np.diff(v, prepend=v[:1] if len(v) else v)
    wraps = np.cumsum(np.where(d < -(1 << 31), 1, 0) - np.where(d > (1 << 31), 1, 0))
    return v + (wraps << 32)


def time_sequence_data(results, flow: int) -> dict[str, pd.DataFrame]:
    """Segments sent (``sent``: time, seg; ``retransmit`` flags a segment number at or below
    the highest sent before) and ACKs received (``acks``: time, ack = next segment expected) of
    flow `flow`, in segments, from the captures :func:`with_time_sequence` asks for."""
    spec = results.summary["spec"]
    f = spec["flows"][flow] if flow < len(spec.get("flows", [])) else None
    row = results.flows[results.flows.flow == flow].iloc[0]
    src = row["src"]
    hop = first_hop(spec, src)
    mss = (f or {}).get("tcp", {}).get("mss", 1000)
    sent_cap, ack_cap = results.pcaps.get(f"{src}-{hop}.entry"), results.pcaps.get(f"{hop}-{src}")
    if sent_cap is None or ack_cap is None:
        raise ValueError(f"time_sequence: flow {flow} needs the captures {src}-{hop} (entry) and {hop}-{src}; "
                         f"build the scenario with plots.with_time_sequence(spec, {src!r})")
    port = 1024 + flow % 60000
    d = _tcp_packets(sent_cap)
    d = d[(d.sport == port) & ((d.tcpflags & 0x08) > 0)]  # data segments carry PSH
    seg = (_unwrap(d.seq.to_numpy()) - 1) // mss
    prev_max = np.maximum.accumulate(np.concatenate([[-1], seg]))[:-1]
    sent = pd.DataFrame({"time": d.time.to_numpy(), "seg": seg, "retransmit": seg <= prev_max})
    a = _tcp_packets(ack_cap)
    a = a[(a.dport == port) & (a.tcpflags == 0x10) & (a.seq == 1)]
    acks = pd.DataFrame({"time": a.time.to_numpy(), "ack": (_unwrap(a.ack.to_numpy()) - 1) // mss})
    return {"sent": sent, "acks": acks}


def time_sequence(results, flow: int, title: str | None = None, start: float = 0.0, end: float | None = None,
                  ax=None, label: str = ""):
    """Time–sequence plot of one flow: segments sent (dots), retransmissions (red crosses), ACKs
    received (line) and, on a second axis, the congestion window (segments) from `flow_ts`.
    Returns the figure (or draws into `ax`)."""
    data = time_sequence_data(results, flow)
    end = results.summary["duration"] if end is None else end
    fig = None
    if ax is None:
        fig, ax = new(title or f"Time–sequence, flow {flow}", "time (s)", "segment number")
    s, a = data["sent"], data["acks"]
    s = s[(s.time >= start) & (s.time <= end)]
    a = a[(a.time >= start) & (a.time <= end)]
    p = f"{label} " if label else ""
    ax.scatter(s.time[~s.retransmit], s.seg[~s.retransmit], s=2, label=f"{p}sent")
    ax.scatter(s.time[s.retransmit], s.seg[s.retransmit], s=12, marker="x", color="red", label=f"{p}retransmitted")
    ax.step(a.time, a.ack, where="post", linewidth=0.8, label=f"{p}ACKed")
    ts = getattr(results, "flow_ts", None)
    if ts is not None and len(ts):
        w = ts[(ts.flow == flow) & (ts.time >= start) & (ts.time <= end)]
        if len(w):
            ax2 = ax.twinx()
            ax2.plot(w.time, w.cwnd, color="grey", linewidth=0.7, alpha=0.8, label=f"{p}cwnd")
            ax2.set_ylabel("cwnd (segments)")
    ax.legend(fontsize="small", loc="upper left", markerscale=3)
    if fig is not None:
        fig.tight_layout()
    return fig if fig is not None else ax.figure
