import pytest

from tcplab.models import pftk_approx, pftk_full


def test_approximate_model_by_hand():
    # p = 0.01, RTT = 0.1 s, T0 = 1 s, b = 1:
    # 0.1·sqrt(0.02/3) = 0.00816497; 1·min(1, 3·sqrt(0.03/8))·0.01·(1 + 0.0032) = 0.00184300
    assert float(pftk_approx(0.01, 0.1, 1.0)) == pytest.approx(1 / 0.01000797, rel=1e-5)
    # The window limit caps it at Wmax/RTT.
    assert float(pftk_approx(0.01, 0.1, 1.0, wmax=5)) == pytest.approx(50.0)


def test_full_model_by_hand():
    # E[W] = 1 + sqrt(264 + 1) = 17.27882; Q̂ = 0.210486; f(p) = 1.010204
    # B = (99 + 17.27882 + 0.212612) / (0.1·(8.63941 + 1) + 0.210486·1.010204/0.99) = 98.828
    assert pftk_full(0.01, 0.1, 1.0) == pytest.approx(98.828, rel=1e-3)


def test_models_agree_at_low_loss_and_full_model_respects_wmax():
    assert pftk_full(0.001, 0.1, 1.0) == pytest.approx(float(pftk_approx(0.001, 0.1, 1.0)), rel=0.15)
    assert pftk_full(0.0001, 0.1, 1.0, wmax=20) <= 20 / 0.1 + 1e-9
