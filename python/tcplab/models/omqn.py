"""OMQN + fixed-point model of short-lived TCP NewReno flows and of the RFS, WpP and ESSE
sender-side modifications (issue 6; SEED-NOTES section 3; docs/omqn-model.md).

Public API (stable; the experiments in ``tcplab.experiments.omqn`` call ``sweep_load``)::

    from tcplab.models.omqn import OmqnScenario, Variant, solve, sweep_load

    sc = OmqnScenario.access(load=0.9, flow_packets=100, mws=32)
    res = solve(sc, Variant.from_cc("rfs+wpp+esse", error="bbe"))   # -> OmqnResult
    df = sweep_load(sc, Variant(), loads=(0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.94, 0.95))

``sweep_load(scenario, variant=Variant(), loads=DEFAULT_LOADS, *, warm_start=True,
**solve_kwargs) -> pandas.DataFrame`` returns one row per load with the columns
``load, drop_rate, completion_time, throughput_bps, mean_active_flows, rtt, iterations``
followed by ``goodput_bps, offered_load_bps, utilization, queueing_delay, t0, w_fs,
mean_window, timeouts_per_flow, fast_recoveries_per_flow, solve_time_s, variant, error``.
``scenario.load`` is ignored by the sweep (each row uses its own load).

- ``OmqnScenario(capacity_bps, rtt, buffer, packet_bytes, flow_packets, mws,
  init_ssthresh=None, min_rto=1.0, load=0.8, max_rto=64.0, max_backoff=6)``: ``rtt`` is
  the two-way propagation delay (s); ``buffer`` the bottleneck's system capacity in packets
  (waiting + in transmission, as ns-2's queue-limit and tcplab's ``queue_limit``);
  ``flow_packets`` an int (fixed size) or a mapping {size in packets: probability};
  ``load`` the nominal normalised load rho = lambda * E[L] * S / C (0 < rho < 1).
- ``Variant(rfs=False, wpp=False, wpp_p=0.5, esse=False, error="bbe", delta_minus=0.25,
  delta_plus=0.25, esse_error=None, esse_min_window=5, fair_share="ensemble")``.
- ``solve(scenario, variant=Variant(), *, tol=1e-6, damping=1.0, max_iter=3000,
  initial=None, burst="window")``: the fixed point of the OMQN and the M^[D]/M/1/B
  bottleneck; raises ``OmqnConvergenceError`` (naming the scenario and the last residuals)
  when it does not converge.
- ``solve_given_loss(scenario, variant, p, rtt, t0=None, w_fs=None)``: the OMQN alone for a
  given per-packet loss probability p (first loss geometric, rest of the round lost) and RTT.
- ``batch_queue(rates, mu, capacity)``: the M^[D]/M/1/B queue (``BatchQueue``).
- ``error_distribution(kind, w_fs, mws, delta_minus, delta_plus)``: BBE/NBE/TBE vectors.
- ``stop_and_wait(...)`` and ``solve_traffic_equations(...)``: the paper's worked example.
"""
from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve_triangular

__all__ = [
    "BURSTS",
    "DEFAULT_LOADS",
    "BatchQueue",
    "OmqnConvergenceError",
    "OmqnResult",
    "OmqnScenario",
    "StopAndWaitResult",
    "Variant",
    "batch_queue",
    "error_distribution",
    "solve",
    "solve_given_loss",
    "solve_traffic_equations",
    "stop_and_wait",
    "sweep_load",
]

DEFAULT_LOADS = (0.65, 0.70, 0.75, 0.80, 0.85, 0.90, 0.94, 0.95)
ERRORS = ("bbe", "nbe", "tbe")
FAIR_SHARES = ("ensemble", "capacity")
BURSTS = ("window", "slow_start")


class OmqnConvergenceError(RuntimeError):
    """The fixed-point iteration did not converge."""


# --------------------------------------------------------------------------------------
# Parameters
# --------------------------------------------------------------------------------------


def _bad(name, value, allowed):
    raise ValueError(f"{name}={value!r} is not allowed: {allowed}")


def _positive(name, value):
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        _bad(name, value, "a finite number > 0")


def _int_at_least(name, value, lo):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < lo:
        _bad(name, value, f"an integer >= {lo}")


@dataclass(frozen=True)
class OmqnScenario:
    """A single-bottleneck scenario (SEED-NOTES 3B). Times in seconds, rates in bit/s."""

    capacity_bps: float
    rtt: float
    buffer: int
    packet_bytes: int
    flow_packets: int | Mapping = 100
    mws: int = 32
    init_ssthresh: int | None = None
    min_rto: float = 1.0
    load: float = 0.8
    max_rto: float = 64.0
    max_backoff: int = 6

    def __post_init__(self):
        _positive("capacity_bps", self.capacity_bps)
        _positive("rtt", self.rtt)
        _int_at_least("buffer", self.buffer, 1)
        _int_at_least("packet_bytes", self.packet_bytes, 1)
        _int_at_least("mws", self.mws, 2)
        if self.init_ssthresh is not None:
            _int_at_least("init_ssthresh", self.init_ssthresh, 2)
        _positive("min_rto", self.min_rto)
        _positive("max_rto", self.max_rto)
        if self.max_rto < self.min_rto:
            _bad("max_rto", self.max_rto, f"a number >= min_rto ({self.min_rto})")
        _int_at_least("max_backoff", self.max_backoff, 0)
        if not isinstance(self.load, (int, float)) or isinstance(self.load, bool) or not (0 < self.load < 1):
            _bad("load", self.load, "the nominal normalised load, 0 < load < 1")
        fp = self.flow_packets
        if isinstance(fp, Mapping):
            if not fp:
                _bad("flow_packets", fp, "a non-empty mapping {size in packets (int >= 1): probability}")
            for k, v in fp.items():
                if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
                    _bad("flow_packets", fp, "sizes must be integers >= 1")
                if not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                    _bad("flow_packets", fp, "probabilities must be finite and >= 0")
            if abs(sum(fp.values()) - 1.0) > 1e-9:
                _bad("flow_packets", fp, "probabilities must sum to 1")
            if max(fp.values()) <= 0:
                _bad("flow_packets", fp, "at least one size needs probability > 0")
            object.__setattr__(self, "flow_packets", dict(sorted((int(k), float(v)) for k, v in fp.items())))
        else:
            _int_at_least("flow_packets", fp, 1)

    # presets (SEED-NOTES 3B)
    @classmethod
    def access(cls, **kw) -> OmqnScenario:
        """ACCESS: 100 Mb/s bottleneck, 30 ms two-way propagation, 64-packet buffer, 1000 B."""
        base = dict(capacity_bps=100e6, rtt=0.030, buffer=64, packet_bytes=1000)
        return cls(**{**base, **kw})

    @classmethod
    def peering(cls, **kw) -> OmqnScenario:
        """PEERING: 10 Mb/s bottleneck, 100 ms two-way propagation, 64-packet buffer, 1000 B."""
        base = dict(capacity_bps=10e6, rtt=0.100, buffer=64, packet_bytes=1000)
        return cls(**{**base, **kw})

    @property
    def sizes(self) -> tuple[np.ndarray, np.ndarray]:
        """(sizes, probabilities) of the flow-size distribution, in packets."""
        if isinstance(self.flow_packets, Mapping):
            items = [(k, v) for k, v in self.flow_packets.items() if v > 0]
            return np.array([k for k, _ in items]), np.array([v for _, v in items])
        return np.array([int(self.flow_packets)]), np.array([1.0])

    @property
    def mean_flow_packets(self) -> float:
        s, q = self.sizes
        return float(np.dot(s, q))

    @property
    def service_rate(self) -> float:
        """Bottleneck packet service rate mu (packets/s)."""
        return self.capacity_bps / (8.0 * self.packet_bytes)

    @property
    def arrival_rate(self) -> float:
        """Flow arrival rate lambda from the nominal load rho = lambda E[L] S / C."""
        return self.load * self.service_rate / self.mean_flow_packets

    @property
    def ssthresh0(self) -> int:
        return self.mws if self.init_ssthresh is None else min(self.init_ssthresh, self.mws)


@dataclass(frozen=True)
class Variant:
    """NewReno and its modifications (combinable). ``error`` is the fair-share estimation
    error of RFS (and of ESSE unless ``esse_error`` is given): "bbe", "nbe" or "tbe";
    ``delta_minus``/``delta_plus`` are TBE's maximum under/over-estimation relative to W_fs."""

    rfs: bool = False
    wpp: bool = False
    wpp_p: float = 0.5
    esse: bool = False
    error: str = "bbe"
    delta_minus: float = 0.25
    delta_plus: float = 0.25
    esse_error: str | None = None
    esse_min_window: int = 5
    fair_share: str = "ensemble"

    def __post_init__(self):
        for name in ("rfs", "wpp", "esse"):
            if not isinstance(getattr(self, name), bool):
                _bad(name, getattr(self, name), "True or False")
        if not isinstance(self.wpp_p, (int, float)) or isinstance(self.wpp_p, bool) or not (0 < self.wpp_p <= 1):
            _bad("wpp_p", self.wpp_p, "a probability 0 < wpp_p <= 1")
        if self.error not in ERRORS:
            _bad("error", self.error, f"one of {ERRORS}")
        if self.esse_error is not None and self.esse_error not in ERRORS:
            _bad("esse_error", self.esse_error, f"None or one of {ERRORS}")
        for name in ("delta_minus", "delta_plus"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not (0 < v <= 1):
                _bad(name, v, "a relative error 0 < delta <= 1")
        _int_at_least("esse_min_window", self.esse_min_window, 2)
        if self.fair_share not in FAIR_SHARES:
            _bad("fair_share", self.fair_share, f"one of {FAIR_SHARES}")

    @property
    def name(self) -> str:
        """The simulator's cc string: "newreno", "rfs", "rfs+wpp+esse", ..."""
        parts = [n for n in ("rfs", "wpp", "esse") if getattr(self, n)]
        return "+".join(parts) if parts else "newreno"

    @classmethod
    def from_cc(cls, cc: str, **kw) -> Variant:
        """Parse the simulator's cc names ("newreno", "rfs", "wpp", "esse", "rfs+wpp+esse", "all")."""
        cc = cc.strip().lower()
        if cc in ("newreno", "reno", ""):
            parts = []
        elif cc == "all":
            parts = ["rfs", "wpp", "esse"]
        else:
            parts = cc.split("+")
        for p in parts:
            if p not in ("rfs", "wpp", "esse"):
                _bad("cc", cc, "'newreno', 'all', or '+'-joined 'rfs', 'wpp', 'esse'")
        return cls(**{p: True for p in parts}, **kw)

    @property
    def needs_fair_share(self) -> bool:
        return self.rfs or self.esse


# --------------------------------------------------------------------------------------
# Estimation-error vectors (paper section 3.1; SEED-NOTES 3A RFS)
# --------------------------------------------------------------------------------------


def error_distribution(kind: str, w_fs: float, mws: int, delta_minus: float = 0.25,
                       delta_plus: float = 0.25) -> np.ndarray:
    """pi(j) for j = 2 .. mws (index j - 2): the window drawn when the fair share is W_fs.

    - "bbe": pi(floor W) = ceil W - W, pi(ceil W) = W - floor W (mean exactly W_fs);
    - "nbe": uniform, 1/(mws - 1);
    - "tbe": triangular with peak at W_fs, zero at W_fs(1 - delta_minus) and
      W_fs(1 + delta_plus), sampled on the integers and renormalised (BBE if no integer
      falls strictly inside the support).
    W_fs is clipped to [2, mws] first."""
    if kind not in ERRORS:
        _bad("error", kind, f"one of {ERRORS}")
    _int_at_least("mws", mws, 2)
    w = float(np.clip(w_fs, 2.0, mws))
    j = np.arange(2, mws + 1, dtype=float)
    if kind == "nbe":
        return np.full(j.size, 1.0 / j.size)
    if kind == "tbe":
        dm, dp = delta_minus * w, delta_plus * w
        tri = np.where(j <= w, 1.0 - (w - j) / dm, 1.0 - (j - w) / dp)
        tri = np.clip(tri, 0.0, None)
        if tri.sum() > 0:
            return tri / tri.sum()
    pi = np.zeros(j.size)
    lo = math.floor(w)
    if lo == w:
        pi[lo - 2] = 1.0
    else:
        pi[lo - 2] = lo + 1 - w
        pi[lo - 1] = w - lo
    return pi


# --------------------------------------------------------------------------------------
# The bottleneck: M^[D]/M/1/B with Poisson batch arrivals (SEED-NOTES 3A item 6)
# --------------------------------------------------------------------------------------


@dataclass
class BatchQueue:
    pi: np.ndarray           # stationary distribution of the number in system, 0..B
    loss: float              # per-packet loss probability
    sojourn: float           # mean sojourn (waiting + own transmission) of accepted packets, s
    sojourn_std: float       # its standard deviation, s
    utilization: float       # 1 - pi[0]
    offered: float           # packets/s offered
    first_loss: np.ndarray   # f[i-1] = P(a batch's first loss is its i-th packet), i = 1..B+1


def batch_queue(rates, mu: float, capacity: int) -> BatchQueue:
    """Poisson batch arrivals (``rates[n-1]`` = rate of batches of n packets), exponential
    service at rate ``mu``, ``capacity`` packets in the system. A batch arriving with j in
    the system keeps its first capacity - j packets and loses the rest (tail drop), so its
    losses are the tail of the batch.

    The stationary law comes from the level-crossing balance
    mu pi[j+1] = sum_{i<=j} pi[i] * (rate of batches larger than j - i),
    a sum of positive terms, which keeps pi[B] accurate down to 1e-300."""
    r = np.asarray(rates, dtype=float)
    if r.ndim != 1 or np.any(r < 0) or not np.all(np.isfinite(r)):
        _bad("rates", rates, "a 1-D array of batch rates >= 0")
    _positive("mu", mu)
    _int_at_least("capacity", capacity, 1)
    K = int(capacity)
    nmax = r.size
    sizes = np.arange(1, nmax + 1)
    tail = np.concatenate([np.cumsum(r[::-1])[::-1], [0.0]])   # tail[m] = sum_{n > m} r_n
    tail_m = np.concatenate([tail, np.zeros(K + 1)])             # indexable up to K
    pi = np.zeros(K + 1)
    pi[0] = 1.0
    for j in range(K):
        pi[j + 1] = np.dot(pi[: j + 1], tail_m[j::-1][: j + 1]) / mu
        if pi[j + 1] > 1e250:   # rescale (heavy overload)
            pi /= pi[j + 1]
    pi /= pi.sum()
    offered = float(np.dot(sizes, r))
    # losses, accepted packets and their sojourns, per (arrival state j, batch size n)
    jj = np.arange(K + 1)[:, None]
    nn = sizes[None, :]
    acc = np.minimum(nn, K - jj)
    lost = nn - acc
    w = pi[:, None] * r[None, :]
    tot_acc = float((w * acc).sum())
    loss = float((w * lost).sum()) / offered if offered > 0 else 0.0

    def tri(x):   # sum_{u=1}^{x} u
        return x * (x + 1) / 2.0

    def h(x):     # sum_{u=1}^{x} u (u + 1)
        return x * (x + 1) * (x + 2) / 3.0

    if tot_acc > 0:
        m1 = float((w * (tri(jj + acc) - tri(jj))).sum()) / tot_acc / mu
        m2 = float((w * (h(jj + acc) - h(jj))).sum()) / tot_acc / mu**2
    else:
        m1, m2 = 1.0 / mu, 2.0 / mu**2
    f = pi[::-1].copy()   # first loss at i <=> arrival state j = K - i + 1, i = 1..K+1
    return BatchQueue(pi=pi, loss=loss, sojourn=m1, sojourn_std=math.sqrt(max(m2 - m1 * m1, 0.0)),
                      utilization=float(1.0 - pi[0]), offered=offered, first_loss=f)


# --------------------------------------------------------------------------------------
# Generic OMQN traffic equations and the Stop&Wait worked example (SEED-NOTES 3A)
# --------------------------------------------------------------------------------------


def solve_traffic_equations(n_queues: int, n_classes: int, arrivals, transitions) -> np.ndarray:
    """lambda_{q,c} = lambda0_{q,c} + sum_{q'} sum_{c' >= c} lambda_{q',c'} P(q',c' -> q,c).

    ``arrivals[q, c-1]`` is the external arrival rate into queue q in class c;
    ``transitions`` is a list of (q_from, q_to, class_decrease >= 0, probability)
    (class-independent); customers whose class reaches 0 leave. Classes never increase, so
    the equations are solved from the highest class down, one linear system of the
    within-class transitions per class. Returns lambda[q, c-1]."""
    lam0 = np.asarray(arrivals, dtype=float)
    if lam0.shape != (n_queues, n_classes):
        _bad("arrivals", lam0.shape, f"shape ({n_queues}, {n_classes})")
    P0 = np.zeros((n_queues, n_queues))
    down = []
    for q, q2, d, prob in transitions:
        if d < 0:
            _bad("class_decrease", d, "an integer >= 0 (classes never increase)")
        if d == 0:
            P0[q, q2] += prob
        else:
            down.append((q, q2, int(d), float(prob)))
    A = np.eye(n_queues) - P0.T
    lam = np.zeros_like(lam0)
    pending = lam0.copy()
    for c in range(n_classes, 0, -1):
        lam[:, c - 1] = np.linalg.solve(A, pending[:, c - 1])
        for q, q2, d, prob in down:
            if c - d >= 1:
                pending[q2, c - d - 1] += lam[q, c - 1] * prob
    return lam


@dataclass
class StopAndWaitResult:
    rates: np.ndarray            # lambda[q, c-1], q = 0 Transmit, 1 Wait-for-ACK, 2 Timeout
    mean_customers: np.ndarray   # N[q, c-1] = lambda * t_q (M/G/inf, Little)
    offered_load: float          # packets/s, sum_c lambda_{Tx,c}
    completion_time: float       # sum N / lambda
    departure_rate: float


def stop_and_wait(flow_packets, p: float, rtt: float, t0: float, tx_time: float,
                  arrival_rate: float) -> StopAndWaitResult:
    """The paper's Fig. 1: queues Transmit (service tx_time), Wait-for-ACK (rtt), Timeout
    (t0, no back-off). Tx -> Wait (1); Wait -> Tx with class c -> c-1 (1 - p), leaving at
    c = 1; Wait -> Timeout (p); Timeout -> Tx (1). ``flow_packets`` is an int or a mapping
    {size: probability}."""
    if not (0 <= p < 1):
        _bad("p", p, "0 <= p < 1")
    sizes = {int(flow_packets): 1.0} if not isinstance(flow_packets, Mapping) else dict(flow_packets)
    C = max(sizes)
    lam0 = np.zeros((3, C))
    for s, q in sizes.items():
        lam0[0, s - 1] += arrival_rate * q
    trans = [(0, 1, 0, 1.0), (1, 0, 1, 1.0 - p), (1, 2, 0, p), (2, 0, 0, 1.0)]
    lam = solve_traffic_equations(3, C, lam0, trans)
    t = np.array([tx_time, rtt, t0])
    N = lam * t[:, None]
    return StopAndWaitResult(rates=lam, mean_customers=N, offered_load=float(lam[0].sum()),
                             completion_time=float(N.sum() / arrival_rate),
                             departure_rate=float(lam[1, 0] * (1 - p)))


# --------------------------------------------------------------------------------------
# The NewReno OMQN (docs/omqn-model.md)
# --------------------------------------------------------------------------------------

# edge kinds
_NOLOSS, _FR_OK, _FR_FAIL, _TIMEOUT, _DRAW = range(5)
# which loss reading an edge belongs to (burst="window" / "slow_start")
_MODE_ALL, _MODE_WINDOW, _MODE_SINGLE = range(3)
# which error vector multiplies an edge
_PV_NONE, _PV_RFS, _PV_ESSE = range(3)


_NET_CACHE: dict = {}


def _network(sc: OmqnScenario, v: Variant, burst: str = "window") -> "_Network":
    """The structure does not depend on the load: cache it (a few entries)."""
    key = repr((replace(sc, load=0.5), v, burst))
    net = _NET_CACHE.get(key)
    if net is None:
        if len(_NET_CACHE) >= 8:
            _NET_CACHE.pop(next(iter(_NET_CACHE)))
        net = _NET_CACHE[key] = _Network(sc, v, burst)
    return net


class _Network:
    """The OMQN's structure for one (scenario, variant): nodes (state, class) and edges with
    the indices from which their probabilities, times and loads are computed each iteration.

    Queues (per class c = packets still to deliver):
      E[w, th]  slow start, window w (1, 2, 4, ...) below the threshold th (first slow start:
                th = init_ssthresh capped at mws; later th = max(floor(W_loss/2), 2), or the
                ESSE target); one round per visit, service time RTT;
      L[w]      congestion avoidance, w = 2..mws, service RTT;
      R         (RFS only) a zero-time routing node: leaving fast recovery, draw the window;
      F         fast recovery, T_k timeouts with back-off k and the retransmission rounds that
                follow them are aggregated on the edges (M/G/inf: only mean sojourns matter).
    Node order: class descending, R first in its class, so every edge goes forward and the
    traffic equations are one sparse lower-triangular solve."""

    def __init__(self, sc: OmqnScenario, v: Variant, burst: str = "window"):
        self.sc, self.v = sc, v
        W = sc.mws
        th0 = sc.ssthresh0
        sizes, probs = sc.sizes
        C = int(sizes.max())
        self.C, self.W = C, W
        # local states
        kinds, wins, ths = [], [], []
        if v.rfs:
            kinds.append(0); wins.append(0); ths.append(0)
        e_index = {}
        if th0 > 1:
            e_index[(1, th0)] = len(kinds); kinds.append(1); wins.append(1); ths.append(th0)
        w = 2
        while w < W:
            for th in range(w + 1, W + 1):
                e_index[(w, th)] = len(kinds); kinds.append(1); wins.append(w); ths.append(th)
            w *= 2
        l_index = {}
        for w in range(2, W + 1):
            l_index[w] = len(kinds); kinds.append(2); wins.append(w); ths.append(0)
        self.kind = np.array(kinds); self.win = np.array(wins); self.th = np.array(ths)
        S = len(kinds)
        self.S = S
        self.N = S * C
        self.e_index, self.l_index = e_index, l_index
        r_local = 0 if v.rfs else -1

        def gid(c, s):  # c: array of classes >= 1
            return (C - c) * S + s

        def ss_next(w, th):
            """Local state after a successful slow-start round from E[w, th] (no ESSE draw)."""
            nw = 2 * w
            return l_index[th] if nw >= th else e_index[(nw, th)]

        def after_timeout(w):
            th = max(w // 2, 2)
            return l_index[2] if th <= 2 else e_index[(2, th)]

        cls = np.arange(1, C + 1)
        E = {k: [] for k in ("src", "dst", "kind", "n", "i", "k", "a", "mult", "pv", "pj",
                             "deliv", "chain", "mode")}

        counts = []

        def add(src_c, s, dst_c, s2, kind, n, i=0, k=0, a=0, mult=1.0, pv=_PV_NONE, pj=-1,
                deliv=0, chain=0, mode=_MODE_ALL):
            m = src_c.size
            if m == 0:
                return
            counts.append(m)
            E["src"].append((C - src_c) * S + s)
            E["dst"].append(np.where(dst_c <= 0, -1, (C - dst_c) * S + s2))
            E["kind"].append(kind); E["n"].append(n); E["i"].append(i); E["k"].append(k)
            E["a"].append(a); E["mult"].append(mult); E["pv"].append(pv); E["pj"].append(pj)
            E["deliv"].append(deliv); E["chain"].append(chain); E["mode"].append(mode)

        esse_min = v.esse_min_window
        for s in range(S):
            kd, w, th = kinds[s], wins[s], ths[s]
            if kd == 0:   # R -> L[j] with the RFS error vector
                for j in range(2, W + 1):
                    add(cls, s, cls, l_index[j], _DRAW, 0, pv=_PV_RFS, pj=j - 2)
                continue
            n = np.minimum(w, cls)
            # -- no loss: deliver n packets
            dc = cls - n
            if kd == 1:
                if v.esse and w < esse_min <= 2 * w:
                    for j in range(2, W + 1):
                        th2 = min(th, max(j, esse_min))
                        s2 = l_index[th2] if th2 <= 2 * w else e_index[(2 * w, th2)]
                        add(cls, s, dc, s2, _NOLOSS, n, pv=_PV_ESSE, pj=j - 2, deliv=n)
                else:
                    add(cls, s, dc, ss_next(w, th), _NOLOSS, n, deliv=n)
            else:
                up = l_index[min(w + 1, W)]
                if v.wpp:
                    add(cls, s, dc, up, _NOLOSS, n, mult=v.wpp_p, deliv=n)
                    add(cls, s, dc, s, _NOLOSS, n, mult=1.0 - v.wpp_p, deliv=n)
                else:
                    add(cls, s, dc, up, _NOLOSS, n, deliv=n)
            # -- first loss at position i; the rest of the round is lost (drop-tail burst)
            g = 2 if kd == 1 else 1
            to_state = after_timeout(w)
            fr_state = r_local if v.rfs else l_index[max(w // 2, 2)]
            for i in range(1, w + 1):
                m = cls >= i
                c = cls[m]
                nn = n[m]
                k = nn - i + 1
                a = np.minimum(g * (i - 1), c - nn)   # new packets clocked out by the i-1 ACKs
                fr = a >= 3                            # three duplicate ACKs
                to = ~fr
                md = _MODE_ALL if kd == 1 else _MODE_WINDOW
                if md == _MODE_WINDOW and burst != "window":
                    fr = np.zeros_like(fr)
                    to = fr
                # fast recovery (then CA at max(w/2, 2) or the RFS draw), or its failure
                cf, kf, af, nf = c[fr], k[fr], a[fr], nn[fr]
                add(cf, s, cf - nf - af, fr_state, _FR_OK, nf, i=i, k=kf, a=af, deliv=nf + af, mode=md)
                add(cf, s, cf - (i - 1) - af - 1, to_state, _FR_FAIL, nf, i=i, k=kf, a=af,
                    deliv=(i - 1) + af + 1, chain=1, mode=md)
                # retransmission timeout (back-off chain), then slow start from 2 segments
                ct, kt, at, nt = c[to], k[to], a[to], nn[to]
                add(ct, s, ct - (i - 1) - at - 1, to_state, _TIMEOUT, nt, i=i, k=kt, a=at,
                    deliv=(i - 1) + at + 1, chain=1, mode=md)
                if kd == 2 and burst == "slow_start":
                    # burst="slow_start": an ACK-clocked CA round loses one packet (single-loss
                    # approximation); the n - i later packets of the round also send dupacks
                    a1 = np.minimum(i - 1, c - nn)
                    fr1 = (nn - i) + a1 >= 3
                    to1 = ~fr1
                    one = np.ones(int(fr1.sum()), dtype=np.int64)
                    cf, af, nf = c[fr1], a1[fr1], nn[fr1]
                    add(cf, s, cf - nf - af, fr_state, _FR_OK, nf, i=i, k=one, a=af, deliv=nf + af,
                        mode=_MODE_SINGLE)
                    add(cf, s, cf - nf - af, to_state, _FR_FAIL, nf, i=i, k=one, a=af, deliv=nf + af,
                        chain=1, mode=_MODE_SINGLE)
                    ct, at, nt = c[to1], a1[to1], nn[to1]
                    add(ct, s, ct - nt - at, to_state, _TIMEOUT, nt, i=i, k=1, a=at, deliv=nt + at,
                        chain=1, mode=_MODE_SINGLE)
        cnt = np.array(counts, dtype=np.int64)
        for name in E:
            items = E[name]
            if not items:
                E[name] = np.zeros(0)
            elif not any(isinstance(x, np.ndarray) for x in items):
                E[name] = np.repeat(np.asarray(items), cnt)
            else:
                E[name] = np.concatenate([x if isinstance(x, np.ndarray) else np.full(m, x)
                                          for x, m in zip(items, cnt)])
        self.e = E
        for name in ("src", "dst", "kind", "n", "i", "k", "a", "pv", "pj", "deliv", "chain", "mode"):
            self.e[name] = self.e[name].astype(np.int64)
        self.e["mult"] = self.e["mult"].astype(float)
        inner = E["dst"] >= 0
        self.inner = inner
        # A = I - M^T (rows = destination): unique (dst, src) pairs and a CSR skeleton
        d, s_ = E["dst"][inner], E["src"][inner]
        key = d * self.N + s_
        ukey, inv = np.unique(key, return_inverse=True)
        self.inv = inv
        ud, us = ukey // self.N, ukey % self.N
        diag = np.arange(self.N)
        rows = np.concatenate([ud, diag]); cols = np.concatenate([us, diag])
        order = np.lexsort((cols, rows))
        self.csr_order = order
        self.csr_rows, self.csr_cols = rows[order], cols[order]
        self.indptr = np.searchsorted(self.csr_rows, np.arange(self.N + 1))
        self.n_unique = ukey.size
        # external arrivals: E[1, th0] (or L[2] if th0 <= 1 — not possible) at class L
        self.arr_nodes = gid(sizes, e_index[(1, th0)])
        self.arr_probs = probs
        # node properties per global id
        c_of = C - np.arange(self.N) // S
        s_of = np.arange(self.N) % S
        self.node_class = c_of
        self.node_kind = self.kind[s_of]
        self.node_win = self.win[s_of]
        self.node_n = np.minimum(self.node_win, c_of)
        self.window_node = self.node_kind > 0
        self.bmax = max(2 * W, W + 1)
        kd = E["kind"]
        self.ix = {kk: np.flatnonzero(kd == kk) for kk in range(5)}
        self.ix_pv = {pv: np.flatnonzero(E["pv"] == pv) for pv in (_PV_RFS, _PV_ESSE)}
        self.pj = {pv: E["pj"][ix] for pv, ix in self.ix_pv.items()}
        self.ix_chain = np.flatnonzero(E["chain"] == 1)
        self.ix_mode = {md: np.flatnonzero(E["mode"] == md) for md in (_MODE_WINDOW, _MODE_SINGLE)}
        self.ix_fr = np.concatenate([self.ix[_FR_OK], self.ix[_FR_FAIL]])
        self.ix_a = np.flatnonzero(E["a"] > 0)
        self.ix_exit = np.flatnonzero(E["dst"] < 0)
        self.ix_inner = np.flatnonzero(inner)
        self.wn_idx = np.flatnonzero(self.window_node)
        self.wn_batch = self.node_n[self.wn_idx] - 1
        self.wn_win = self.node_win[self.wn_idx].astype(float)
        self.ix_ss = np.flatnonzero(self.node_kind == 1)
        self.e_src_ca = (self.node_kind[E["src"]] == 2).astype(np.int64)
        self.wn_ca = self.node_kind[self.wn_idx] == 2
        self.ix_ca = np.flatnonzero(self.node_kind == 2)
        self.b = np.zeros(self.N)
        np.add.at(self.b, self.arr_nodes, self.arr_probs)

    # ---------------------------------------------------------------------------------
    def evaluate(self, f: np.ndarray, rtt: float, t0: float, w_fs: float, lam: float,
                 f_ca: np.ndarray | None = None):
        """One OMQN solution given the first-loss vector f (f[i-1] = P(first loss of a round at
        its i-th packet), per-packet-independent of the round size), the RTT, the base timeout
        and the fair-share window. ``f_ca`` (optional) is the first-loss vector of
        congestion-avoidance rounds, which are then offered to the bottleneck as single
        packets (``burst="slow_start"``). Returns a dict of rates and aggregates."""
        sc, v, e, W = self.sc, self.v, self.e, self.W
        fp2 = np.zeros((2, self.bmax + 2))
        for row, vec in ((0, f), (1, f if f_ca is None else f_ca)):
            m = min(vec.size, fp2.shape[1])
            fp2[row, :m] = vec[:m]
        F2 = np.concatenate([np.zeros((2, 1)), np.cumsum(fp2, axis=1)], axis=1)   # P(loss in n)
        p1 = float(fp2[0, 0])                               # a single packet's loss probability
        p1 = min(p1, 1.0 - 1e-12)
        # error vectors
        ws = float(np.clip(w_fs, 2.0, W))
        pis = {
            _PV_RFS: error_distribution(v.error, ws, W, v.delta_minus, v.delta_plus),
            _PV_ESSE: error_distribution(v.esse_error or v.error, ws, W, v.delta_minus, v.delta_plus),
        }
        row = self.e_src_ca
        val = np.empty(e["kind"].size)
        ix = self.ix
        i_nl = ix[_NOLOSS]
        val[i_nl] = np.clip(1.0 - F2[row[i_nl], np.minimum(e["n"][i_nl], F2.shape[1] - 1)], 0.0, 1.0)
        i_ok, i_fail = ix[_FR_OK], ix[_FR_FAIL]
        # NewReno "impatient" timer: recovery of k holes needs ~k RTTs; it fails when the
        # (k-1) RTTs after the first partial ACK exceed the RTO (linear over one RTT).
        # ok and fail edges are built pairwise in the same order.
        kk = e["k"][i_ok]
        q_ok = (1.0 - p1) ** kk * np.clip((t0 - (kk - 1) * rtt) / rtt + 0.5, 0.0, 1.0)
        fi = fp2[row[i_ok], e["i"][i_ok] - 1]
        val[i_ok] = fi * q_ok
        val[i_fail] = fi * (1.0 - q_ok)
        i_to = ix[_TIMEOUT]
        val[i_to] = fp2[row[i_to], e["i"][i_to] - 1]
        val[ix[_DRAW]] = 1.0
        val *= e["mult"]
        val[self.ix_mode[_MODE_SINGLE if f_ca is None else _MODE_WINDOW]] = 0.0
        for pv, vec in pis.items():
            sel = self.ix_pv[pv]
            if sel.size:
                val[sel] *= vec[self.pj[pv]]
        # traffic equations: (I - M^T) lambda = lambda0
        offd = -np.bincount(self.inv, weights=val[self.ix_inner], minlength=self.n_unique)
        data = np.concatenate([offd, np.ones(self.N)])[self.csr_order]
        A = sp.csr_matrix((data, self.csr_cols, self.indptr), shape=(self.N, self.N))
        x = spsolve_triangular(A, lam * self.b, lower=True)
        x = np.maximum(x, 0.0)
        flow = x[e["src"]] * val
        # timeout chain: T_0, retransmission round, T_1, ... (back-off capped)
        kmax = sc.max_backoff
        tk = np.minimum(t0 * 2.0 ** np.arange(kmax + 1), sc.max_rto)
        t_timeouts = float(np.sum(p1 ** np.arange(kmax) * tk[:kmax]) + p1**kmax / (1 - p1) * tk[kmax])
        visits = 1.0 / (1.0 - p1)                 # retransmission rounds per chain
        f_chain = float(flow[self.ix_chain].sum())
        f_fr = flow[self.ix_fr]
        k_fr = e["k"][self.ix_fr]
        # mean numbers of customers (Little): window rounds, fast recovery, timeouts
        xw = x[self.wn_idx]
        n_round = float(xw.sum() * rtt)
        n_chain_rounds = f_chain * visits * rtt
        n_fr = float(flow[i_ok] @ e["k"][i_ok] * rtt + flow[i_fail].sum() * rtt)
        n_to = f_chain * t_timeouts
        n_to_levels = f_chain * p1 ** np.arange(kmax + 1) * tk
        n_to_levels[kmax] = f_chain * p1**kmax / (1 - p1) * tk[kmax]
        n_ss = float(x[self.ix_ss].sum() * rtt) + n_chain_rounds
        n_ca = float(x[self.ix_ca].sum() * rtt)
        total = n_round + n_chain_rounds + n_fr + n_to
        # batches offered to the bottleneck: rounds (n), retransmissions (1), clocked-out (a)
        if f_ca is None:
            rates = np.bincount(self.wn_batch, weights=xw, minlength=self.bmax)[: self.bmax]
        else:
            ss = ~self.wn_ca
            rates = np.bincount(self.wn_batch[ss], weights=xw[ss], minlength=self.bmax)[: self.bmax]
            rates[0] += float(xw[self.wn_ca] @ (self.wn_batch[self.wn_ca] + 1))
        rates[0] += float(f_fr @ k_fr) + f_chain * visits
        rates += np.bincount(e["a"][self.ix_a] - 1, weights=flow[self.ix_a], minlength=self.bmax)[: self.bmax]
        # the ensemble-average window over the active (transmitting) states
        wsum = float(xw @ self.wn_win) + f_chain * visits
        vsum = float(xw.sum()) + f_chain * visits
        mean_window = wsum / vsum if vsum > 0 else 1.0
        exit_rate = float(flow[self.ix_exit].sum())
        delivered = float(flow @ e["deliv"])
        chain_flow, fr_flow = f_chain, float(f_fr.sum())
        return dict(lambda_nodes=x, batch_rates=rates, offered=float(np.arange(1, self.bmax + 1) @ rates),
                    mean_customers=total, n_to_levels=n_to_levels, n_ss=n_ss, n_ca=n_ca, n_fr=n_fr, n_to=n_to,
                    mean_window=mean_window, exit_rate=exit_rate, delivered=delivered,
                    timeouts=chain_flow, fast_recoveries=fr_flow,
                    w_fs=ws)


# --------------------------------------------------------------------------------------
# Results and the fixed point
# --------------------------------------------------------------------------------------


@dataclass
class OmqnResult:
    scenario: OmqnScenario
    variant: Variant
    drop_rate: float            # per-packet loss probability at the bottleneck
    completion_time: float      # mean flow completion time E[T] = sum N / lambda, s
    throughput_bps: float       # mean per-flow throughput E[L] S / E[T], bit/s
    mean_active_flows: float    # sum N (M/G/inf, Little)
    rtt: float                  # two-way propagation + mean bottleneck sojourn, s
    iterations: int
    goodput_bps: float          # aggregate delivered rate (= lambda E[L] S at the fixed point)
    offered_load_bps: float     # packets offered to the bottleneck incl. retransmissions, bit/s
    utilization: float          # bottleneck busy probability
    queueing_delay: float       # mean sojourn at the bottleneck (incl. transmission), s
    t0: float                   # base RTO, s
    w_fs: float                 # the fair-share window used by RFS/ESSE (packets)
    mean_window: float          # ensemble-average window over the transmitting states
    timeouts_per_flow: float
    fast_recoveries_per_flow: float
    occupancy: dict = field(default_factory=dict)   # mean customers per family of queues
    residuals: dict = field(default_factory=dict)
    departure_rate: float = 0.0  # flows/s leaving (= lambda)
    solve_time_s: float = 0.0
    state: tuple | None = field(default=None, repr=False)   # (batch rates, W_fs): warm start

    def row(self) -> dict:
        d = {k: getattr(self, k) for k in ("drop_rate", "completion_time", "throughput_bps",
                                          "mean_active_flows", "rtt", "iterations", "goodput_bps",
                                          "offered_load_bps", "utilization", "queueing_delay", "t0",
                                          "w_fs", "mean_window", "timeouts_per_flow",
                                          "fast_recoveries_per_flow", "solve_time_s")}
        return {"load": self.scenario.load, **d, "variant": self.variant.name, "error": self.variant.error}


def _result(sc, v, out, q_loss, rtt, sojourn, util, t0, iterations, residuals, t_start):
    lam = sc.arrival_rate
    bits = 8.0 * sc.packet_bytes
    et = out["mean_customers"] / lam
    return OmqnResult(
        scenario=sc, variant=v, drop_rate=q_loss, completion_time=et,
        throughput_bps=sc.mean_flow_packets * bits / et, mean_active_flows=out["mean_customers"],
        rtt=rtt, iterations=iterations, goodput_bps=out["delivered"] * bits,
        offered_load_bps=out["offered"] * bits, utilization=util, queueing_delay=sojourn, t0=t0,
        w_fs=out["w_fs"], mean_window=out["mean_window"], timeouts_per_flow=out["timeouts"] / lam,
        fast_recoveries_per_flow=out["fast_recoveries"] / lam,
        occupancy=dict(slow_start=out["n_ss"], congestion_avoidance=out["n_ca"],
                       fast_recovery=out["n_fr"], timeout=out["n_to"],
                       **{f"timeout_backoff_{k}": float(n) for k, n in enumerate(out["n_to_levels"])}),
        residuals=residuals, departure_rate=out["exit_rate"], solve_time_s=time.perf_counter() - t_start)


def _t0(sc, rtt, std):
    return min(max(sc.min_rto, rtt + 4.0 * std), sc.max_rto)


def _capacity_share(sc, rtt, n_active):
    return sc.capacity_bps * rtt / (8.0 * sc.packet_bytes * max(n_active, 1e-12))


def solve_given_loss(scenario: OmqnScenario, variant: Variant = Variant(), p: float = 0.0,
                     rtt: float | None = None, t0: float | None = None, w_fs: float | None = None,
                     tol: float = 1e-9, max_iter: int = 500) -> OmqnResult:
    """The OMQN alone (no bottleneck model): every round's first loss is geometric with the
    per-packet probability p and the rest of the round is lost; RTT defaults to the scenario's
    propagation RTT, t0 to max(min_rto, rtt). If RFS/ESSE need W_fs and none is given, the
    ensemble (or capacity) fair share is iterated to its own fixed point."""
    t_start = time.perf_counter()
    if not (0 <= p < 1):
        _bad("p", p, "0 <= p < 1")
    rtt = scenario.rtt if rtt is None else rtt
    _positive("rtt", rtt)
    t0 = max(scenario.min_rto, rtt) if t0 is None else t0
    net = _network(scenario, variant)
    f = p * (1.0 - p) ** np.arange(net.bmax + 1)
    lam = scenario.arrival_rate
    ws = float(scenario.mws) if w_fs is None else float(w_fs)
    it = 0
    while True:
        out = net.evaluate(f, rtt, t0, ws, lam)
        if w_fs is not None or not variant.needs_fair_share:
            break
        new = (out["mean_window"] if variant.fair_share == "ensemble"
               else _capacity_share(scenario, rtt, out["mean_customers"]))
        new = float(np.clip(new, 2.0, scenario.mws))
        it += 1
        if abs(new - ws) <= tol * ws or it >= max_iter:
            ws = new
            out = net.evaluate(f, rtt, t0, ws, lam)
            break
        ws = 0.5 * ws + 0.5 * new
    return _result(scenario, variant, out, p, rtt, 0.0, float("nan"), t0, it, {}, t_start)


def _rel(new, old, floor):
    return abs(new - old) / max(abs(old), floor)


def solve(scenario: OmqnScenario, variant: Variant = Variant(), *, tol: float = 1e-6,
          damping: float = 1.0, max_iter: int = 3000, initial: tuple | None = None,
          burst: str = "window") -> OmqnResult:
    """The fixed point of the OMQN and the M^[D]/M/1/B bottleneck (FPA).

    Iteration: the bottleneck queue, fed by the batch arrivals of the current iterate, gives the
    first-loss vector, the loss probability p, the mean sojourn (RTT = propagation + sojourn)
    and T0; the OMQN then gives the new batch arrivals (offered load Lambda) and the new
    ensemble-average window (W_fs). The iterate moves by a relaxation factor alpha (halved when
    the residual grows, floor 0.05; regrown by 10 % up to ``damping`` otherwise). Converged when the
    relative changes of p, RTT, Lambda (and W_fs when RFS/ESSE use it) between the input
    and the output of one step are all below ``tol``. ``initial`` = (batch_rates, w_fs) warm
    start (``OmqnResult.state``)."""
    t_start = time.perf_counter()
    _positive("tol", tol)
    if not (0 < damping <= 1):
        _bad("damping", damping, "0 < damping <= 1")
    _int_at_least("max_iter", max_iter, 1)
    if burst not in BURSTS:
        _bad("burst", burst, f"one of {BURSTS}")
    sc, v = scenario, variant
    net = _network(sc, v, burst)
    mu, K, lam = sc.service_rate, sc.buffer, sc.arrival_rate

    def share(out, rtt, ws):
        if not v.needs_fair_share:
            return ws
        new = out["mean_window"] if v.fair_share == "ensemble" else _capacity_share(sc, rtt, out["mean_customers"])
        return float(np.clip(new, 2.0, sc.mws))

    def f_ca(q):
        if burst == "window":
            return None
        p1 = float(q.first_loss[0])
        return p1 * (1.0 - p1) ** np.arange(net.bmax + 1)

    if initial is not None:
        r = np.array(initial[0], dtype=float)
        ws = float(initial[1])
        if r.size != net.bmax:
            r = np.resize(r, net.bmax)
    else:
        rtt0 = sc.rtt + 1.0 / mu
        out = net.evaluate(np.zeros(1), rtt0, _t0(sc, rtt0, 0.0), float(sc.mws), lam)
        r = out["batch_rates"]
        ws = share(out, rtt0, float(sc.mws))
    alpha = damping
    prev = math.inf
    res = {}
    for it in range(1, max_iter + 1):
        q = batch_queue(r, mu, K)
        rtt = sc.rtt + q.sojourn
        t0 = _t0(sc, rtt, q.sojourn_std)
        out = net.evaluate(q.first_loss, rtt, t0, ws, lam, f_ca(q))
        ws_new = share(out, rtt, ws)
        q2 = batch_queue(out["batch_rates"], mu, K)
        res = dict(loss=_rel(q2.loss, q.loss, 1e-300), rtt=_rel(sc.rtt + q2.sojourn, rtt, 1e-300),
                   load=_rel(out["offered"], q.offered, 1e-300))
        if v.needs_fair_share:
            res["w_fs"] = _rel(ws_new, ws, 1e-300)
        norm = max(res.values())
        if norm < tol:
            out_res = _result(sc, v, out, q.loss, rtt, q.sojourn, q.utilization, t0, it, res, t_start)
            out_res.state = (r.copy(), ws)
            return out_res
        if norm > prev:
            alpha = max(0.5 * alpha, 0.05)
        else:
            alpha = min(1.1 * alpha, damping)
        prev = norm
        r = (1.0 - alpha) * r + alpha * out["batch_rates"]
        ws = (1.0 - alpha) * ws + alpha * ws_new
    raise OmqnConvergenceError(
        f"OMQN fixed point did not converge in {max_iter} iterations (tol={tol}, damping={damping}) "
        f"for scenario {asdict(sc)} and variant {asdict(v)}; last relative residuals "
        + ", ".join(f"{k}={val:.3g}" for k, val in res.items()))


def sweep_load(scenario: OmqnScenario, variant: Variant = Variant(), loads=DEFAULT_LOADS, *,
               warm_start: bool = True, **solve_kwargs):
    """Solve at every nominal load in ``loads`` (``scenario.load`` is replaced); one row per
    load, columns as documented at the top of this module. With ``warm_start`` each load
    starts from the previous load's fixed point."""
    import pandas as pd

    loads = list(loads)
    if not loads:
        _bad("loads", loads, "a non-empty sequence of loads in (0, 1)")
    rows, init = [], None
    for rho in loads:
        sc = replace(scenario, load=float(rho))
        res = solve(sc, variant, initial=init if warm_start else None, **solve_kwargs)
        if warm_start:
            init = res.state
        rows.append(res.row())
    return pd.DataFrame(rows)
