"""Aggregate-behaviour formulas of Qiu, Zhang and Keshav, "On Individual and Aggregate TCP
Performance", section 5 (readings from SEED-NOTES §4A: round-trip propagation in W_opt,
a 1.6 Mb/s "T1")."""
from __future__ import annotations


def w_opt(round_trip_s: float, bottleneck_bps: float, packet_bytes: int = 500) -> float:
    """Packets the pipe holds: round-trip propagation delay × bottleneck bandwidth."""
    return round_trip_s * bottleneck_bps / (8 * packet_bytes)


def w_c(round_trip_s: float, bottleneck_bps: float, buffer: int, packet_bytes: int = 500) -> float:
    """Packets the pipe plus the buffer hold: W_c = W_opt + B."""
    return w_opt(round_trip_s, bottleneck_bps, packet_bytes) + buffer


def regime(wc: float, conns: int) -> str:
    """'large' (W_c > 3·Conn), 'medium' (Conn < W_c ≤ 3·Conn) or 'small' (W_c ≤ Conn) pipe."""
    if wc > 3 * conns:
        return "large"
    return "medium" if wc > conns else "small"


def sync_loss_exact(w: int, b: int = 1) -> float:
    """Loss probability of synchronised flows in a large pipe, W = W_c/Conn an integer:
    1/S with S = b·Σ_{x=⌊(W+1)/2⌋}^{W} x + 2W + 1 packets per epoch."""
    if w < 1:
        raise ValueError("W must be >= 1")
    lo = (w + 1) // 2
    s = b * sum(range(lo, w + 1)) + 2 * w + 1
    return 1.0 / s


def sync_loss_approx(w: float) -> float:
    """The paper's approximation for b = 1: 8 / (3W² + 21W + 8) (real W allowed)."""
    return 8.0 / (3 * w * w + 21 * w + 8)


def rtt_bias_bounds(rtt_ratio: float) -> tuple[float, float]:
    """Bounds on Thr1/Thr2 for RTT2/RTT1 = rtt_ratio: (ratio², 2·ratio²)."""
    r2 = rtt_ratio * rtt_ratio
    return r2, 2 * r2
