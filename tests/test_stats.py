import numpy as np
import pytest

import pandas as pd

from tcplab.metrics import cwnd_sawtooth, jain_index
from tcplab.stats import fit_hyperbolic, mean_ci, unpaired_t_test


def test_mean_ci_by_hand():
    # mean 3, s = 1.58114, t(0.975; 4) = 2.77645 -> half width 1.96324
    ci = mean_ci([1, 2, 3, 4, 5])
    assert ci.mean == 3
    assert ci.half_width == pytest.approx(1.96324, rel=1e-4)
    assert ci.n == 5
    assert np.isnan(mean_ci([7.0]).half_width)


def test_jain_index_by_hand():
    assert jain_index([1, 1, 1, 1]) == 1
    assert jain_index([1, 0, 0, 0]) == 0.25
    assert jain_index([1, 2, 3]) == pytest.approx(36 / 42)


def test_unpaired_t_test_by_hand():
    # a: mean 11.5, s²/n = 0.416667; b: mean 6, s²/n = 0.166667; s = 0.763763
    # ν = 0.583333² / (0.416667²/5 + 0.166667²/5) − 2 = 6.44828
    t = unpaired_t_test([10, 12, 11, 13], [5, 6, 7, 6])
    assert t.difference == pytest.approx(5.5)
    assert t.std_difference == pytest.approx(0.763763, rel=1e-5)
    assert t.dof == pytest.approx(6.44828, rel=1e-4)
    assert t.level == 0.99
    lo, hi = t.interval
    assert lo > 0 and hi > lo
    assert "A higher" in t.verdict()


def test_unpaired_t_test_on_jains_worked_example():
    # Jain, The Art of Computer Systems Performance Analysis, section 13.4.2: processor times
    # on two systems. Means 5.31 and 5.64, variances 37.92 and 44.11, s = 3.698,
    # effective dof 11.921, 0.90 CI of the difference (-6.92, 6.26): not significant.
    t = unpaired_t_test([5.36, 16.57, 0.62, 1.41, 0.64, 7.26], [19.12, 3.52, 3.38, 2.50, 3.60, 1.74])
    assert t.mean_a == pytest.approx(5.31) and t.mean_b == pytest.approx(5.6433, rel=1e-4)
    assert t.std_difference == pytest.approx(3.698, rel=1e-3)
    assert t.dof == pytest.approx(11.921, rel=1e-4)
    assert t.level is None and not t.significant
    assert t.interval_level == 0.90
    lo, hi = t.interval
    assert lo == pytest.approx(-6.927, abs=2e-3) and hi == pytest.approx(6.260, abs=2e-3)
    assert t.verdict().startswith("not significant (0.90 CI")


# a = [10, 11, 12] against b = a - d: both variances 1, s = sqrt(2/3) = 0.816497, dof =
# (2/3)² / (2·(1/3)²/4) − 2 = 6; t(0.995; 6) = 3.707428, t(0.975; 6) = 2.446912,
# t(0.95; 6) = 1.943180, so the half-widths are 3.027102, 1.997895 and 1.586600.
@pytest.mark.parametrize(
    "d, level, lo, hi",
    [
        (3.5, 0.99, 3.5 - 3.027102, 3.5 + 3.027102),
        (2.5, 0.95, 2.5 - 1.997895, 2.5 + 1.997895),
        (1.8, 0.90, 1.8 - 1.586600, 1.8 + 1.586600),
        (1.0, None, 1.0 - 1.586600, 1.0 + 1.586600),
    ],
)
def test_unpaired_t_test_picks_the_highest_level_that_excludes_zero(d, level, lo, hi):
    a = np.array([10.0, 11.0, 12.0])
    t = unpaired_t_test(a, a - d)
    assert t.dof == pytest.approx(6.0)
    assert t.std_difference == pytest.approx(0.816497, rel=1e-5)
    assert t.level == level
    assert t.interval == pytest.approx((lo, hi), abs=2e-6)
    assert t.interval_level == (level or 0.90)
    # The sign of the difference names the better alternative.
    if level is not None:
        assert unpaired_t_test(a - d, a).verdict("x", "y").startswith("y higher")


def test_unpaired_t_test_needs_two_observations_each():
    with pytest.raises(ValueError, match="at least two"):
        unpaired_t_test([1.0], [1.0, 2.0])
    with pytest.raises(ValueError):
        unpaired_t_test([1.0, float("nan")], [1.0, 2.0])


def test_hyperbolic_fit_recovers_parameters():
    x = np.array([1, 2, 5, 10, 20, 50, 100, 300, 600], dtype=float)
    y = 0.02 * x / (x + 40)
    f = fit_hyperbolic(x, y)
    assert f.params["a"] == pytest.approx(40, rel=1e-4)
    assert f.params["b"] == pytest.approx(0.02, rel=1e-4)
    assert f.r_squared == pytest.approx(1.0)


def test_fits_need_four_points_and_report_standard_errors():
    from tcplab.stats import FitError

    with pytest.raises(FitError, match="at least 4 points; got 2"):
        fit_hyperbolic([100, 200], [0.1, 0.15])  # two points: R² = 1 by construction
    with pytest.raises(FitError):
        fit_hyperbolic([100, 200, 300, np.nan], [0.1, 0.15, 0.17, 0.2])
    rng = np.random.default_rng(3)
    x = np.array([50, 100, 150, 200, 300, 400, 500, 600], dtype=float)
    y = 0.4 * x / (x + 150) * (1 + rng.normal(0, 0.02, len(x)))
    f = fit_hyperbolic(x, y)
    assert f.points == 8 and 0 < f.stderr["a"] < f.params["a"] and 0 < f.stderr["b"] < f.params["b"]
    assert f.params["a"] == pytest.approx(150, abs=4 * f.stderr["a"])
    assert f.describe("a").startswith(f"a = {f.params['a']:.4g} ± ")


def test_cwnd_sawtooth_by_hand():
    # flow 0: a cut 14 -> 7 spread over three samples (one cut), a flat top then a halving
    # 10 -> 5, and a dip of 0.2 segment (no cut); flow 1: one cut, so no period.
    w0 = [10, 12, 14, 13, 11, 7, 8, 9, 10, 10, 5, 6, 7, 7, 6.8]
    w1 = [4, 8, 16, 8, 9]
    ts = pd.DataFrame(
        [(float(t), 0, w) for t, w in enumerate(w0)] + [(float(t), 1, w) for t, w in enumerate(w1)],
        columns=["time", "flow", "cwnd"],
    )
    saw = cwnd_sawtooth(ts, drop=0.05).set_index("flow")
    assert saw.loc[0, "cuts"] == 2
    assert saw.loc[0, "period"] == 9 - 2
    assert saw.loc[0, "mean_top"] == (14 + 10) / 2 and saw.loc[0, "mean_bottom"] == (7 + 5) / 2
    assert saw.loc[0, "mean_cwnd"] == pytest.approx(np.mean(w0))
    assert saw.loc[1, "cuts"] == 1 and np.isnan(saw.loc[1, "period"])
    # a window from t = 5 on sees only the second cut of flow 0
    late = cwnd_sawtooth(ts, start=5).set_index("flow")
    assert late.loc[0, "cuts"] == 1 and late.loc[0, "mean_top"] == 10
    # with a 60 % threshold neither halving is a cut
    assert cwnd_sawtooth(ts, drop=0.6).set_index("flow").loc[0, "cuts"] == 0
