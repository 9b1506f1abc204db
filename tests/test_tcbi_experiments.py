"""The TCBI paper's metrics and experiments (Savorić, Karl, Wolisz)."""
import json

import numpy as np
import pandas as pd
import pytest

from tcplab.experiments.tcbi import (connection_metrics, fairness, jain, significance_table, tcbi_spec,
                                     results_table)
from tcplab.sweep import run_experiment
import tcplab


def test_throughput_definitions_by_hand():
    f = pd.DataFrame({"size": [5, 10, 100], "completion_time": [1.0, 0.5, 4.0],
                      "init_cwnd": [2, 4, 6], "init_ssthresh": [64, 32, 16],
                      "init_srtt": [np.nan, 0.1, 0.2], "init_rttvar": [np.nan, 0.05, 0.1]})
    m = connection_metrics(f)
    assert m["T1"] == pytest.approx(115 / 5.5)  # Σs/Σd
    assert m["T2"] == pytest.approx((5 + 20 + 25) / 3)  # mean of s/d
    assert m["init_cwnd"] == 4 and m["init_ssthresh"] == pytest.approx(112 / 3)
    assert m["init_srtt"] == pytest.approx(0.15)  # standard connections have no srtt


def test_jain_index_and_parallel_intervals():
    assert jain([1, 1, 1]) == 1.0
    assert jain([1, 0]) == 0.5
    iv = pd.DataFrame({"set": ["a"] * 5, "interval": [0, 0, 1, 1, 1], "t0": [0, 0, 2, 2, 2],
                       "t1": [2, 2, 3, 3, 3], "n": [2, 2, 3, 3, 3], "flow": [1, 2, 1, 2, 3],
                       "acked_bytes": [40_000, 40_000, 30_000, 10_000, 20_000]})
    m = fairness(iv)
    assert m["If"] == pytest.approx((1.0 + 60**2 / (3 * (30**2 + 10**2 + 20**2))) / 2)
    assert m["If_weighted"] == pytest.approx((2 * 1.0 + 1 * 60**2 / (3 * 1400)) / 3)
    assert m["intervals"] == 2
