"""Statistics over replications: Student-t confidence intervals, Jain's unpaired t-test,
least-squares curve fits."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from scipy import optimize
from scipy import stats as sps


@dataclass(frozen=True)
class MeanCI:
    mean: float
    half_width: float
    n: int
    confidence: float

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def __str__(self) -> str:
        return f"{self.mean:.4g} ± {self.half_width:.2g}"


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> MeanCI:
    """Mean and the half-width of its Student-t confidence interval (NaN half-width for n < 2)."""
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    n = len(x)
    if n == 0:
        return MeanCI(float("nan"), float("nan"), 0, confidence)
    m = float(x.mean())
    if n < 2:
        return MeanCI(m, float("nan"), n, confidence)
    s = float(x.std(ddof=1))
    t = float(sps.t.ppf(0.5 + confidence / 2, n - 1))
    return MeanCI(m, t * s / np.sqrt(n), n, confidence)


def ci_cols(values: Sequence[float], prefix: str) -> dict:
    """Table columns {prefix: mean, "prefix ±95%": half-width of its 95 % interval}."""
    c = mean_ci(values)
    return {prefix: c.mean, f"{prefix} ±95%": c.half_width}


@dataclass(frozen=True)
class TTest:
    """Jain's unpaired t-test for two alternatives (The Art of Computer Systems Performance
    Analysis, section 13.4.2)."""

    mean_a: float
    mean_b: float
    difference: float  # mean_a - mean_b
    std_difference: float
    dof: float
    #: the highest of 0.99, 0.95, 0.90 at which the interval excludes zero, or None
    level: float | None
    #: CI of the difference at `level`; when no level excludes zero, the CI at the lowest
    #: level (0.90), which contains zero
    interval: tuple[float, float]
    interval_level: float

    @property
    def significant(self) -> bool:
        return self.level is not None

    def verdict(self, name_a: str = "A", name_b: str = "B") -> str:
        lo, hi = self.interval
        if self.level is None:
            return f"not significant ({self.interval_level:.2f} CI of {name_a} − {name_b} [{lo:.4g}, {hi:.4g}] contains 0)"
        better = name_a if self.difference > 0 else name_b
        return f"{better} higher (significant at {self.level:.2f}: CI [{lo:.4g}, {hi:.4g}])"


def unpaired_t_test(a: Sequence[float], b: Sequence[float], levels=(0.99, 0.95, 0.90)) -> TTest:
    """Compare the means of two unpaired samples of possibly different sizes and variances.

    s = sqrt(s_a²/n_a + s_b²/n_b); effective degrees of freedom (Jain's formula)
    ν = (s_a²/n_a + s_b²/n_b)² / [ (s_a²/n_a)²/(n_a+1) + (s_b²/n_b)²/(n_b+1) ] − 2;
    confidence interval (x̄_a − x̄_b) ∓ t[1−α/2; ν]·s. Reported at the highest of `levels` at
    which the interval excludes zero.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]  # as mean_ci: a missing value is no observation
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        raise ValueError("the unpaired t-test needs at least two observations of each alternative")
    va, vb = a.var(ddof=1) / na, b.var(ddof=1) / nb
    diff = float(a.mean() - b.mean())
    s = float(np.sqrt(va + vb))
    if va + vb == 0:
        dof = float("inf")
    else:
        dof = float((va + vb) ** 2 / (va**2 / (na + 1) + vb**2 / (nb + 1)) - 2)
    for level in sorted(levels, reverse=True):
        t = float(sps.t.ppf(0.5 + level / 2, dof)) if np.isfinite(dof) else float(sps.norm.ppf(0.5 + level / 2))
        lo, hi = diff - t * s, diff + t * s
        if lo > 0 or hi < 0:
            return TTest(float(a.mean()), float(b.mean()), diff, s, dof, level, (lo, hi), level)
    # Not significant at any level: report the interval at the lowest one, as Jain does.
    return TTest(float(a.mean()), float(b.mean()), diff, s, dof, None, (lo, hi), level)


MIN_FIT_POINTS = 4


class FitError(ValueError):
    """A fit asked for on too few points to say anything about its uncertainty."""


@dataclass(frozen=True)
class Fit:
    params: dict
    covariance: np.ndarray
    residual_ss: float
    r_squared: float
    points: int
    model: Callable = None  # type: ignore[assignment]

    def __call__(self, x):
        return self.model(np.asarray(x, dtype=float), *self.params.values())

    @property
    def stderr(self) -> dict:
        """Standard error of each parameter (square root of the covariance's diagonal)."""
        d = np.sqrt(np.clip(np.diag(self.covariance), 0, None)) if self.covariance.size else []
        return dict(zip(self.params, map(float, d)))

    def describe(self, name: str) -> str:
        """e.g. "a = 145 ± 12" with the standard error."""
        return f"{name} = {self.params[name]:.4g} ± {self.stderr[name]:.2g}"


def curve_fit(model: Callable, x, y, p0=None, names: Sequence[str] | None = None, bounds=(-np.inf, np.inf)) -> Fit:
    """Least-squares fit of y = model(x, *params) on at least MIN_FIT_POINTS points and more
    points than parameters (with as many points as parameters the fit is exact and R² = 1 by
    construction). The covariance gives each parameter's standard error (`Fit.stderr`)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    nparams = len(p0) if p0 is not None else None
    need = max(MIN_FIT_POINTS, (nparams or 0) + 1)
    if len(x) < need:
        raise FitError(f"a fit needs at least {need} points; got {len(x)}")
    popt, pcov = optimize.curve_fit(model, x, y, p0=p0, bounds=bounds, maxfev=20000)
    resid = y - model(x, *popt)
    ss_res = float(np.sum(resid**2))
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    names = list(names) if names else [f"p{i}" for i in range(len(popt))]
    return Fit(dict(zip(names, map(float, popt))), pcov, ss_res, 1 - ss_res / ss_tot if ss_tot > 0 else 1.0,
               len(x), model)


def hyperbolic(x, a, b):
    """y = b·x / (x + a): Qiu, Zhang and Keshav's fit of loss rate against the number of flows."""
    return b * x / (x + a)


def fit_hyperbolic(x, y) -> Fit:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    return curve_fit(hyperbolic, x, y, p0=[float(np.median(x)), float(y.max())], names=["a", "b"], bounds=(0, np.inf))
