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


@pytest.mark.parametrize(
    "p, rtt, t0, b, wmax, approx, full",
    [
        # Regression vectors computed by hand from the published equations (SEED-NOTES §4A).
        (0.01, 0.1, 1.0, 1, 20, 99.920, 98.829),
        (0.01, 0.1, 1.0, 2, 20, 70.654, 69.524),
        (0.05, 0.2, 1.0, 1, 20, 17.036, 17.613),
        (0.001, 0.1, 1.0, 1, 20, 200.000, 182.020),
        (0.1, 0.5, 2.0, 1, 64, 3.540, 4.226),
    ],
)
def test_pftk_regression_vectors(p, rtt, t0, b, wmax, approx, full):
    assert float(pftk_approx(p, rtt, t0, b, wmax)) == pytest.approx(approx, rel=2e-4)
    assert pftk_full(p, rtt, t0, b, wmax) == pytest.approx(full, rel=2e-4)


def test_qiu_synchronised_loss_and_regimes():
    from tcplab.models.qiu import regime, rtt_bias_bounds, sync_loss_approx, sync_loss_exact, w_opt

    # exact / approximate pairs (SEED-NOTES §4A): W=3 0.08333/0.08163, W=4 0.05556/0.05714, W=10 0.01515/0.01544
    assert sync_loss_exact(3) == pytest.approx(0.08333, abs=1e-5)
    assert sync_loss_approx(3) == pytest.approx(0.08163, abs=1e-5)
    assert sync_loss_exact(4) == pytest.approx(0.05556, abs=1e-5)
    assert sync_loss_approx(4) == pytest.approx(0.05714, abs=1e-5)
    assert sync_loss_exact(10) == pytest.approx(0.01515, abs=1e-5)
    assert sync_loss_approx(10) == pytest.approx(0.01544, abs=1e-5)
    # odd W: 8/(3W²+20W+9); even W: 8/(3W²+22W+8)
    assert sync_loss_exact(5) == pytest.approx(8 / (75 + 100 + 9))
    assert sync_loss_exact(6) == pytest.approx(8 / (108 + 132 + 8))
    # T1 (1.6 Mb/s), 500-byte packets: W_opt = 40 at 100 ms round trip, 160 at 400 ms.
    assert w_opt(0.1, 1.6e6) == pytest.approx(40)
    assert w_opt(0.4, 1.6e6) == pytest.approx(160)
    assert regime(440, 100) == "large" and regime(200, 100) == "medium" and regime(100, 300) == "small"
    assert rtt_bias_bounds(2.0) == (4.0, 8.0)
