"""The PFTK model of TCP Reno throughput (Padhye, Firoiu, Towsley, Kurose, SIGCOMM '98).

Both functions return the send rate in packets per second as a function of the loss
indication probability p, the round-trip time `rtt` (s), the base timeout `t0` (s), the
number of packets acknowledged per ACK `b` and the maximum window `wmax` (packets).
"""
from __future__ import annotations

import numpy as np


def pftk_approx(p, rtt, t0, b=1.0, wmax=np.inf):
    """The approximate model (PFTK eq. 31; Qiu, Zhang, Keshav section 3):

    B(p) = min( Wmax/RTT, 1 / ( RTT·sqrt(2bp/3) + T0·min(1, 3·sqrt(3bp/8))·p·(1 + 32p²) ) )
    """
    p = np.asarray(p, dtype=float)
    denom = rtt * np.sqrt(2 * b * p / 3) + t0 * np.minimum(1.0, 3 * np.sqrt(3 * b * p / 8)) * p * (1 + 32 * p**2)
    with np.errstate(divide="ignore"):
        rate = np.where(p > 0, 1.0 / denom, np.inf)
    return np.minimum(wmax / rtt, rate)


def _f(p):
    return 1 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6


def _expected_window(p, b):
    """E[W] in the unconstrained case (PFTK eq. 13)."""
    return (2 + b) / (3 * b) + np.sqrt(8 * (1 - p) / (3 * b * p) + ((2 + b) / (3 * b)) ** 2)


def _q_hat(p, w):
    """Probability that a loss in a window of w is a timeout (PFTK eq. 24)."""
    w = np.maximum(w, 1.0)
    num = (1 - (1 - p) ** 3) * (1 + (1 - p) ** 3 * (1 - (1 - p) ** (w - 3)))
    den = 1 - (1 - p) ** w
    return np.minimum(1.0, np.where(den > 0, num / den, 1.0))


def pftk_full(p, rtt, t0, b=1.0, wmax=np.inf):
    """The full model (PFTK eq. 30), with the window limit Wmax."""
    p = float(p)
    if p <= 0:
        return wmax / rtt
    ew = _expected_window(p, b)
    if ew < wmax:
        q = _q_hat(p, ew)
        num = (1 - p) / p + ew + q / (1 - p)
        den = rtt * (b / 2 * ew + 1) + q * t0 * _f(p) / (1 - p)
    else:
        q = _q_hat(p, wmax)
        num = (1 - p) / p + wmax + q / (1 - p)
        den = rtt * (b / 8 * wmax + (1 - p) / (p * wmax) + 2) + q * t0 * _f(p) / (1 - p)
    return num / den
