"""Analytical models of TCP across a handoff (thesis of Wu Xiuchao, chapter 2).

1. **Immediate transmission** (§2.1): a sender that retransmits as soon as the mobile host says
   the handoff is complete, instead of waiting for its backed-off retransmission timer, shortens
   the data flow's disconnection. If the handoff completes at x, uniformly between the timeout
   at T and the next one at 2T, the standard sender resumes at 2T, so the disconnection grows by
   (2T − x)/x of the link's; on average (1/T)∫_T^{2T} (2T − x)/x dx = 2 ln 2 − 1 ≈ 0.386.
   :func:`resume_after_outage` gives the standard sender's resumption time on the real
   back-off timeline (RTO, 2·RTO, 4·RTO, … capped at 64 s), which the simulation check of the
   gain uses.
2. **Bandwidth-estimation error** (§2.6.2, eqs. 2.1 and 2.2): the mobile host's estimate of the
   new path's bandwidth-delay product, x̂ ~ N(b̂, σ²) truncated to (0, 2b̂], sets TCP-HO's
   ssthresh; the model gives the expected difference in segments sent until the link is well
   used between TCP-HO and TCP (positive: TCP-HO sends more), for ĉ (the ssthresh before the
   handoff) below b̂ (eq. 2.1) or between b̂ and 2b̂ (eq. 2.2).

The integrals are computed with the midpoint rule from ε = 1e-9 (log₂ x̂ diverges at 0, where
the normal density is negligible for σ ≤ 0.5 b̂), the reading SEED-NOTES §2.1 A suggests; its
self-computed values are what the tests check against.
"""
from __future__ import annotations

import math

import numpy as np

#: The mean gain of immediate transmission, as a fraction of the link disconnection time.
IMMEDIATE_GAIN = 2 * math.log(2) - 1

#: The four (b̂, ĉ) cases of the thesis's Fig. 2.15, in segments.
FIG_2_15_CASES = (
    ("U-VH", 117, 8),  # WCDMA 200 kb/s, RTT 500 ms -> WLAN 7 Mb/s, RTT 200 ms, MSS 1500 B
    ("U-VH", 58, 8),
    ("H-HH", 58, 50),
    ("H-HH", 58, 66),  # eq. 2.2 (b̂ < ĉ < 2b̂)
)
#: σ as a fraction of b̂ in Fig. 2.15.
FIG_2_15_SIGMAS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5)

EPS = 1e-9
STEPS = 200_000
MAX_RTO = 64.0


def immediate_gain_integral(steps: int = 100_000) -> float:
    """(1/T)∫_T^{2T} (2T − x)/x dx by the midpoint rule (T = 1; the ratio does not depend on T)."""
    h = 1.0 / steps
    x = 1.0 + h * (np.arange(steps) + 0.5)
    return float(np.sum((2.0 - x) / x) * h)


def resume_after_outage(completion: float, rto: float, max_rto: float = MAX_RTO) -> float:
    """When a standard sender retransmits after an outage that began right after it sent, its
    retransmission timer set to `rto` (s) and doubling on every expiry up to `max_rto`: the first
    expiry at or after `completion` (s from the start of the outage)."""
    if not (rto > 0 and max_rto > 0 and completion >= 0):
        raise ValueError(f"resume_after_outage: rto {rto!r}, max_rto {max_rto!r} must be > 0 and "
                         f"completion {completion!r} >= 0")
    t, interval = rto, min(rto, max_rto)
    while t < completion:
        interval = min(2 * interval, max_rto)
        t += interval
    return t


def _pdf(x, b, sigma):
    return np.exp(-0.5 * ((x - b) / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi))


def _midpoint(f, lo: float, hi: float, steps: int) -> float:
    h = (hi - lo) / steps
    x = lo + h * (np.arange(steps) + 0.5)
    return float(np.sum(f(x)) * h)


def _delta_low(x, b, c):
    """Δ1 = Δ2 of eq. 2.1 (x̂ < b̂)."""
    return -x**2 / 2 + (b + 1) * x - b * np.log2(x) + c**2 / 2 - (b + 1) * c + b * math.log2(c)


def _delta_high(b, c):
    """Δ3 of eq. 2.1 (x̂ > b̂): does not depend on x̂."""
    return (b * b + c * c) / 2 + b - c - b * c + b * math.log2(c) - b * math.log2(b)


def _nabla_low(x, b):
    """∇1 of eq. 2.2 (x̂ < b̂); ∇2 = ∇3 = 0."""
    return -x**2 / 2 + (b + 1) * x - b * np.log2(x) - b * b / 2 - b + b * math.log2(b)


def estimation_error_gain(b: float, c: float, sigma: float, steps: int = STEPS) -> float:
    """Expected segments TCP-HO sends more than TCP until the new link is well used, with the
    bandwidth estimate's standard deviation `sigma` (segments): eq. 2.1 for ĉ < b̂, eq. 2.2 for
    b̂ < ĉ < 2b̂ (b̂ = `b`, ĉ = `c`)."""
    if not (b > 0 and c > 0 and sigma > 0):
        raise ValueError(f"estimation_error_gain: b {b!r}, c {c!r} and sigma {sigma!r} must be > 0")
    if not (c < b or b < c < 2 * b):
        raise ValueError(f"estimation_error_gain: c {c!r} must be below b {b!r} (eq. 2.1) or between b and 2b "
                         "(eq. 2.2)")
    mass = _midpoint(lambda x: _pdf(x, b, sigma), EPS, 2 * b, steps)
    if c < b:
        low = _midpoint(lambda x: _delta_low(x, b, c) * _pdf(x, b, sigma), EPS, b, steps)
        high = _delta_high(b, c) * _midpoint(lambda x: _pdf(x, b, sigma), b, 2 * b, steps)
        return (low + high) / mass
    return _midpoint(lambda x: _nabla_low(x, b) * _pdf(x, b, sigma), EPS, b, steps) / mass


def fig_2_15(sigmas=FIG_2_15_SIGMAS, cases=FIG_2_15_CASES, steps: int = STEPS):
    """The model's curves of Fig. 2.15: one row per case and σ/b̂."""
    import pandas as pd

    rows = []
    for kind, b, c in cases:
        for r in sigmas:
            rows.append({"handoff": kind, "b": b, "c": c, "sigma/b": r, "equation": "2.1" if c < b else "2.2",
                         "gain (segments)": estimation_error_gain(b, c, r * b, steps)})
    return pd.DataFrame(rows)
