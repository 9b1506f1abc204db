"""Verdicts on a paper's claims, decided on confidence intervals over replications.

Every check returns a :class:`Verdict` with one of three outcomes and the rule that decided it:

- **holds**: the 95 % confidence interval of the measured quantity lies entirely on the side
  the claim needs;
- **does not hold**: it lies entirely on the other side;
- **inconclusive**: it straddles the boundary, or there are too few replications for an
  interval (fewer than 2 values).

A verdict is written into a table's ``verdict`` column (or a column named ``verdict: ...``) or
into the findings as ``"<outcome>: <claim> [<rule>]"``; the report and the scorecard read the
outcome from the prefix (:func:`outcome_of`).

A paper's exact numbers ([E]) are compared with :func:`band`: the measured mean inside or outside
a tolerance band around the paper's value (±25 % unless the reading notes say otherwise), written
into columns whose names start with ``band:``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
from scipy import stats as sps

HOLDS = "holds"
FAILS = "does not hold"
INCONCLUSIVE = "inconclusive"
OUTCOMES = (HOLDS, FAILS, INCONCLUSIVE)
CONFIDENCE = 0.95
INSIDE = "inside"
OUTSIDE = "outside"


@dataclass(frozen=True)
class Verdict:
    outcome: str
    claim: str
    rule: str

    def __post_init__(self):
        if self.outcome not in OUTCOMES:
            raise ValueError(f"verdict outcome {self.outcome!r}; allowed: {', '.join(OUTCOMES)}")

    def __str__(self) -> str:
        return f"{self.outcome}: {self.claim} [{self.rule}]"

    @property
    def holds(self) -> bool:
        return self.outcome == HOLDS


def outcome_of(cell) -> str | None:
    """The outcome a verdict cell or finding starts with, or None when it is not a verdict."""
    if not isinstance(cell, str):
        return None
    for o in (FAILS, HOLDS, INCONCLUSIVE):  # "does not hold" before "holds"
        if cell.startswith(o + ":"):
            return o
    return None


def _values(x) -> np.ndarray:
    a = np.asarray(list(x) if not isinstance(x, np.ndarray) else x, dtype=float).ravel()
    return a[np.isfinite(a)]


def interval(values: Iterable[float], confidence: float = CONFIDENCE) -> tuple[float, float, float, int]:
    """(mean, low, high, n) of the Student-t interval of the mean; NaN bounds for n < 2."""
    x = _values(values)
    n = len(x)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    m = float(x.mean())
    if n < 2:
        return m, math.nan, math.nan, n
    h = float(sps.t.ppf(0.5 + confidence / 2, n - 1)) * float(x.std(ddof=1)) / math.sqrt(n)
    return m, m - h, m + h, n


def difference_interval(a: Iterable[float], b: Iterable[float], confidence: float = CONFIDENCE,
                        paired: bool = False) -> tuple[float, float, float, str]:
    """(difference of means a − b, low, high, description) at `confidence`.

    Paired: a Student-t interval of the per-replication differences (a and b aligned, e.g. by
    seed). Unpaired: Welch's interval with Welch–Satterthwaite degrees of freedom."""
    if paired:
        a, b = np.asarray(list(a), dtype=float), np.asarray(list(b), dtype=float)
        if len(a) != len(b):
            raise ValueError("a paired comparison needs as many values of each alternative")
        m, lo, hi, n = interval(a - b, confidence)
        return m, lo, hi, f"paired over {n} replications"
    a, b = _values(a), _values(b)
    na, nb = len(a), len(b)
    if na == 0 or nb == 0:
        return math.nan, math.nan, math.nan, f"{na} vs {nb} replications"
    d = float(a.mean() - b.mean())
    if na < 2 or nb < 2:
        return d, math.nan, math.nan, f"{na} vs {nb} replications"
    va, vb = a.var(ddof=1) / na, b.var(ddof=1) / nb
    if va + vb == 0:
        return d, d, d, f"Welch, {na} vs {nb} replications (no variance)"
    dof = (va + vb) ** 2 / (va**2 / (na - 1) + vb**2 / (nb - 1))
    h = float(sps.t.ppf(0.5 + confidence / 2, dof)) * math.sqrt(va + vb)
    return d, d - h, d + h, f"Welch, {na} vs {nb} replications"


def _g(x: float) -> str:
    return f"{x:.3g}"


def _decide(low: float, high: float, threshold: float, greater: bool) -> str:
    if not (math.isfinite(low) and math.isfinite(high)):
        return INCONCLUSIVE
    if greater:
        return HOLDS if low > threshold else FAILS if high < threshold else INCONCLUSIVE
    return HOLDS if high < threshold else FAILS if low > threshold else INCONCLUSIVE


def above(values, threshold: float, claim: str, quantity: str = "mean", confidence: float = CONFIDENCE) -> Verdict:
    """Claim: the mean of `values` exceeds `threshold`."""
    m, lo, hi, n = interval(values, confidence)
    rule = (f"{confidence:.0%} CI of the {quantity} over {n} replications [{_g(lo)}, {_g(hi)}] vs {_g(threshold)}"
            if n >= 2 else f"{n} replication(s): no confidence interval")
    return Verdict(_decide(lo, hi, threshold, True), claim, rule)


def below(values, threshold: float, claim: str, quantity: str = "mean", confidence: float = CONFIDENCE) -> Verdict:
    """Claim: the mean of `values` is below `threshold`."""
    m, lo, hi, n = interval(values, confidence)
    rule = (f"{confidence:.0%} CI of the {quantity} over {n} replications [{_g(lo)}, {_g(hi)}] vs {_g(threshold)}"
            if n >= 2 else f"{n} replication(s): no confidence interval")
    return Verdict(_decide(lo, hi, threshold, False), claim, rule)


def greater(a, b, claim: str, margin: float = 0.0, paired: bool = False, confidence: float = CONFIDENCE) -> Verdict:
    """Claim: mean(a) − mean(b) > margin."""
    d, lo, hi, how = difference_interval(a, b, confidence, paired)
    vs = "0" if margin == 0 else _g(margin)
    rule = (f"{confidence:.0%} CI of the difference ({how}) [{_g(lo)}, {_g(hi)}] vs {vs}"
            if math.isfinite(lo) else f"{how}: no confidence interval")
    return Verdict(_decide(lo, hi, margin, True), claim, rule)


def within(values, target: float, tolerance: float, claim: str, relative: bool = True,
           confidence: float = CONFIDENCE) -> Verdict:
    """Claim: the mean of `values` is within ±tolerance of `target` (relative to |target| by
    default). Holds when the whole CI is inside the band, does not hold when the CI and the band
    do not meet."""
    m, lo, hi, n = interval(values, confidence)
    half = tolerance * abs(target) if relative else tolerance
    blo, bhi = target - half, target + half
    band_text = f"[{_g(blo)}, {_g(bhi)}]"
    if n < 2:
        return Verdict(INCONCLUSIVE, claim, f"{n} replication(s): no confidence interval; band {band_text}")
    outcome = HOLDS if blo <= lo and hi <= bhi else FAILS if hi < blo or lo > bhi else INCONCLUSIVE
    return Verdict(outcome, claim, f"{confidence:.0%} CI over {n} replications [{_g(lo)}, {_g(hi)}] vs band {band_text}")


def ratio_within(a, b, tolerance: float, claim: str, confidence: float = CONFIDENCE) -> Verdict:
    """Claim: mean(a)/mean(b) is within 1 ± tolerance; decided on the per-replication ratios
    a_i/b_i (a and b aligned by replication)."""
    a, b = np.asarray(list(a), dtype=float), np.asarray(list(b), dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = a / b
    return within(r, 1.0, tolerance, claim, relative=False, confidence=confidence)


def close(a, b, tolerance: float, claim: str, relative: bool = True, paired: bool = False,
          confidence: float = CONFIDENCE) -> Verdict:
    """Claim: mean(a) is within ±tolerance of mean(b) (relative to mean(b) by default).
    Decided on the confidence interval of the difference, divided by mean(b) when relative:
    holds when it lies inside ±tolerance, does not hold when it lies outside."""
    d, lo, hi, how = difference_interval(a, b, confidence, paired)
    ref = abs(float(np.mean(_values(b)))) if relative and len(_values(b)) else 1.0
    what = "difference relative to the second" if relative else "difference"
    if not (math.isfinite(lo) and math.isfinite(hi)) or ref == 0:
        return Verdict(INCONCLUSIVE, claim, f"{how}: no confidence interval")
    lo, hi = lo / ref, hi / ref
    outcome = HOLDS if -tolerance <= lo and hi <= tolerance else FAILS if hi < -tolerance or lo > tolerance \
        else INCONCLUSIVE
    return Verdict(outcome, claim, f"{confidence:.0%} CI of the {what} ({how}) [{_g(lo)}, {_g(hi)}] "
                                   f"vs ±{_g(tolerance)}")


def all_of(verdicts: Sequence[Verdict], claim: str) -> Verdict:
    """A claim that needs every part: holds if all hold, does not hold if any does not,
    otherwise inconclusive. The rule names the parts that decided it."""
    outs = [v.outcome for v in verdicts]
    if not verdicts:
        return Verdict(INCONCLUSIVE, claim, "no measurements")
    if FAILS in outs:
        bad = [v for v in verdicts if v.outcome == FAILS]
        return Verdict(FAILS, claim, f"{len(bad)} of {len(verdicts)} parts do not hold; first: {bad[0].claim} "
                                     f"[{bad[0].rule}]")
    if all(o == HOLDS for o in outs):
        return Verdict(HOLDS, claim, f"all {len(verdicts)} parts hold, each on its {CONFIDENCE:.0%} CI")
    unsure = [v for v in verdicts if v.outcome == INCONCLUSIVE]
    return Verdict(INCONCLUSIVE, claim, f"{len(unsure)} of {len(verdicts)} parts inconclusive; first: "
                                        f"{unsure[0].claim} [{unsure[0].rule}]")


def deterministic(holds: bool, claim: str, rule: str) -> Verdict:
    """A claim about deterministic quantities (an analytical model, a property of the
    configuration) where no replication noise enters; the rule says what was compared."""
    return Verdict(HOLDS if holds else FAILS, claim, rule)


BAND = 0.25


def band(measured: float, paper: float, tolerance: float = BAND) -> str:
    """Whether a measured mean lies within ±tolerance (relative) of a paper's exact number."""
    if not (isinstance(measured, (int, float)) and math.isfinite(measured)) or paper is None:
        return ""
    lo, hi = paper * (1 - tolerance), paper * (1 + tolerance)
    lo, hi = min(lo, hi), max(lo, hi)
    return f"{INSIDE if lo <= measured <= hi else OUTSIDE} ±{tolerance:.0%}"


def band_outcome(cell) -> str | None:
    if not isinstance(cell, str):
        return None
    if cell.startswith(INSIDE):
        return INSIDE
    if cell.startswith(OUTSIDE):
        return OUTSIDE
    return None


def is_verdict_column(name) -> bool:
    return str(name) == "verdict" or str(name).startswith("verdict:")


def is_band_column(name) -> bool:
    return str(name).startswith("band:")


def tally(tables: Iterable, findings: Iterable[str] = ()) -> dict:
    """Counts of verdict outcomes and band cells over tables (DataFrames) and findings."""
    counts = {HOLDS: 0, FAILS: 0, INCONCLUSIVE: 0, INSIDE: 0, OUTSIDE: 0}
    for df in tables:
        for c in df.columns:
            if is_verdict_column(c):
                for v in df[c]:
                    o = outcome_of(v)
                    if o:
                        counts[o] += 1
            elif is_band_column(c):
                for v in df[c]:
                    o = band_outcome(v)
                    if o:
                        counts[o] += 1
    for f in findings:
        o = outcome_of(f)
        if o:
            counts[o] += 1
    return counts
