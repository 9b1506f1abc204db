"""Verdicts decided on confidence intervals: each rule's three outcomes, its edge cases, the
band for exact numbers and the tally the scorecard uses."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from tcplab.verdicts import (FAILS, HOLDS, INCONCLUSIVE, Verdict, above, all_of, band, below, close,
                             difference_interval, greater, interval, outcome_of, ratio_within, tally, within)


def test_interval_is_the_student_t_interval():
    x = [1.0, 2.0, 4.0, 7.0]
    m, lo, hi, n = interval(x)
    h = sps.t.ppf(0.975, 3) * np.std(x, ddof=1) / 2
    assert (m, n) == (3.5, 4) and lo == pytest.approx(3.5 - h) and hi == pytest.approx(3.5 + h)
    assert np.isnan(interval([3.0])[1]) and interval([])[3] == 0
    assert interval([1.0, np.nan, 3.0])[3] == 2, "a missing value is no observation"


@pytest.mark.parametrize("values, outcome", [([3.0, 3.1, 2.9, 3.05], HOLDS), ([1.0, 1.1, 0.9], FAILS),
                                             ([1.0, 3.0, 2.2, 1.6], INCONCLUSIVE), ([5.0], INCONCLUSIVE)])
def test_above_decides_on_the_interval_not_the_mean(values, outcome):
    v = above(values, 2.0, "x exceeds 2")
    assert v.outcome == outcome and str(v).startswith(outcome + ": x exceeds 2 [")
    assert below(values, 2.0, "x below 2").outcome == {HOLDS: FAILS, FAILS: HOLDS}.get(outcome, INCONCLUSIVE)


def test_a_mean_on_the_right_side_with_a_wide_interval_is_inconclusive():
    # mean 2.5 > 2, but the 95 % interval spans both sides: not "holds"
    assert above([1.0, 4.0, 2.5, 2.5], 2.0, "c").outcome == INCONCLUSIVE


def test_greater_unpaired_and_paired():
    a, b = [10.0, 11.0, 12.0, 13.0], [9.0, 10.0, 11.0, 12.0]
    assert greater(a, b, "a > b").outcome == INCONCLUSIVE, "unpaired: the spread hides a difference of 1"
    assert greater(a, b, "a > b", paired=True).outcome == HOLDS, "paired: every difference is exactly 1"
    assert greater(b, a, "b > a", paired=True).outcome == FAILS
    assert greater(a, b, "a exceeds b by 2", margin=2.0, paired=True).outcome == FAILS
    with pytest.raises(ValueError):
        difference_interval([1, 2], [1, 2, 3], paired=True)


def test_welch_interval_matches_scipy():
    a, b = [5.1, 4.9, 5.3, 5.0, 5.2], [4.0, 4.6, 3.9, 4.4]
    d, lo, hi, _ = difference_interval(a, b)
    r = sps.ttest_ind(a, b, equal_var=False)
    ci = r.confidence_interval(0.95)
    assert d == pytest.approx(np.mean(a) - np.mean(b)) and (lo, hi) == pytest.approx((ci.low, ci.high))


def test_within_and_ratio_within():
    assert within([1.0, 1.02, 0.98], 1.0, 0.1, "≈1").outcome == HOLDS
    assert within([2.0, 2.02, 1.98], 1.0, 0.1, "≈1").outcome == FAILS
    assert within([0.8, 1.2, 1.0], 1.0, 0.1, "≈1").outcome == INCONCLUSIVE
    assert ratio_within([2.0, 4.0, 6.0], [2.0, 4.1, 5.9], 0.1, "equal").outcome == HOLDS


def test_close_relative_and_absolute():
    b = [10.0, 10.1, 9.9, 10.0]
    assert close([10.2, 10.1, 10.3, 10.2], b, 0.15, "near").outcome == HOLDS
    assert close([5.0, 5.1, 4.9, 5.0], b, 0.15, "near").outcome == FAILS
    assert close([0.99, 0.995, 0.99], [0.996, 0.997, 0.995], 0.05, "jain", relative=False).outcome == HOLDS


def test_all_of_needs_every_part():
    h, f, i = (Verdict(o, "p", "r") for o in (HOLDS, FAILS, INCONCLUSIVE))
    assert all_of([h, h], "c").outcome == HOLDS
    assert all_of([h, i], "c").outcome == INCONCLUSIVE
    assert all_of([i, f, h], "c").outcome == FAILS
    assert all_of([], "c").outcome == INCONCLUSIVE
    with pytest.raises(ValueError):
        Verdict("maybe", "c", "r")


def test_band_is_relative_to_the_paper_value():
    assert band(3.0, 3.6) == "inside ±25%" and band(2.6, 3.6) == "outside ±25%"
    assert band(-1.1, -1.0) == "inside ±25%"
    assert band(float("nan"), 3.0) == "" and band(1.0, 1.0, 0.1) == "inside ±10%"


def test_outcome_and_tally_read_cells_and_findings():
    assert outcome_of("does not hold: x [r]") == FAILS and outcome_of("holds: x [r]") == HOLDS
    assert outcome_of("holds nothing") is None and outcome_of(float("nan")) is None
    t = pd.DataFrame({"verdict": ["holds: a [r]", "", "inconclusive: b [r]"],
                      "verdict: other": ["does not hold: c [r]", "holds: d [r]", None],
                      "band: x": ["inside ±25%", "outside ±25%", ""], "note": ["holds: not a verdict column"] * 3})
    counts = tally([t], ["holds: e [r]", "plain text"])
    assert counts == {HOLDS: 3, FAILS: 1, INCONCLUSIVE: 1, "inside": 1, "outside": 1}
