import numpy as np
import pytest

from tcplab.metrics import jain_index
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


def test_unpaired_t_test_reports_not_significant_when_intervals_overlap():
    t = unpaired_t_test([5.36, 16.57, 0.62, 1.41, 0.64, 7.26], [19.12, 3.52, 3.38, 2.50, 3.60, 1.74])
    assert t.level is None and not t.significant
    # The 0.95 level is chosen when 0.99 includes zero but 0.95 does not.
    t = unpaired_t_test([10.0, 11.0, 12.0], [8.2, 9.2, 10.2])
    assert t.level in (0.95, 0.90)


def test_hyperbolic_fit_recovers_parameters():
    x = np.array([1, 2, 5, 10, 20, 50, 100, 300, 600], dtype=float)
    y = 0.02 * x / (x + 40)
    f = fit_hyperbolic(x, y)
    assert f.params["a"] == pytest.approx(40, rel=1e-4)
    assert f.params["b"] == pytest.approx(0.02, rel=1e-4)
    assert f.r_squared == pytest.approx(1.0)
