"""The chapter-2 testbed experiments (tcplab/experiments/tcpho.py): plans, the verdict logic on
synthetic measurements, and each experiment end to end at quick size with its table columns and
verdicts."""
import json

import numpy as np
import pandas as pd
import pytest

from tcplab.experiments import get, paper_values
from tcplab.experiments import tcpho as t
from tcplab.sweep import run_experiment
from tcplab.verdicts import FAILS, HOLDS, INCONCLUSIVE, outcome_of


def test_testbed_plan_pairs_protocols_on_one_schedule_and_sizes():
    quick, full = (get("tcpho_testbed").plan(s) for s in ("quick", "full"))
    assert len(quick.runs) == 3 * 2 * 5 * 3
    assert len(full.runs) == 3 * 4 * 5 * 10
    by = {}
    for r in quick.runs:
        p = r.params
        by.setdefault((p["mobility"], p["wan_delay_ms"], p["run"]), []).append(r)
    for runs in by.values():
        assert sorted(r.params["cc"] for r in runs) == sorted(t.PROTOCOLS)
        # the same seed and the same wireless schedule for every protocol of a replication
        assert len({r.seed for r in runs}) == 1
        assert len({json.dumps(r.spec["link_changes"]) for r in runs}) == 1
    f = next(r for r in full.runs if r.params["mobility"] == "wcdma")
    assert f.spec["sim"]["duration"] == 1800
    wan = next(li for li in f.spec["links"] if (li["a"], li["b"]) == ("r1", "r2"))
    assert (wan["rate"], wan["queue"]) == ("10Mbps", 20)
    err = get("tcpho_estimation_error_sim").plan("quick")
    assert {r.params["cc"] for r in err.runs} == {"newreno", "tcp_ho"}
    assert all(r.spec["flows"][0].get("bandwidth_error") == 0.15 for r in err.runs if r.spec["flows"][0].get("handoffs"))
    assert not {r.seed for r in err.runs} & {r.seed for r in quick.runs}  # new seeds (§2.6.3)


def synthetic(ratios: dict, cross: dict, n=10, spread=0.02):
    """A testbed frame with per-run ratios around the given means (newreno = 1)."""
    rng = np.random.default_rng(1)
    rows = []
    for i in range(n):
        for cc in t.PROTOCOLS:
            r = ratios.get(cc, 1.0) * (1 + spread * rng.standard_normal())
            c = cross.get(cc, 1.0) * (1 + spread * rng.standard_normal())
            rows.append({"mobility": "wlan", "wan_delay_ms": 20, "run": i, "cc": cc, "test_bps": 1e5 * r,
                         "cross_bps": 5e6 * c, "test / NewReno": r if cc != "newreno" else 1.0,
                         "cross / beside NewReno": c if cc != "newreno" else 1.0})
    return pd.DataFrame(rows)


def claims(df):
    found = t.testbed_claims(df, paper_values("thesis_ch2"), ("wlan",))
    assert len(found) == 4  # about +100 %, highest, Aggressive below NewReno, Freeze hurts cross
    return {f: outcome_of(f) for f in found}


def test_wlan_claims_hold_fail_or_are_inconclusive_as_the_intervals_say():
    good = claims(synthetic({"tcp_ho": 2.0, "freeze_tcp": 1.6, "tcp_ho_immediate": 1.1, "tcp_ho_aggressive": 0.8},
                            {"freeze_tcp": 0.8}))
    assert set(good.values()) == {HOLDS}, good
    bad = claims(synthetic({"tcp_ho": 1.2, "freeze_tcp": 1.6, "tcp_ho_aggressive": 1.3}, {"freeze_tcp": 1.1}))
    assert set(bad.values()) == {FAILS}, bad
    noisy = claims(synthetic({"tcp_ho": 2.0, "freeze_tcp": 1.9, "tcp_ho_aggressive": 1.0}, {}, n=3, spread=0.5))
    assert INCONCLUSIVE in noisy.values()


def run(name, tmp_path):
    d, rep = run_experiment(name, size="quick", jobs=1, out=tmp_path, progress=False)
    assert not rep.failed
    doc = json.loads((d / "experiment.json").read_text())
    assert doc["analysis_error"] is None
    return d, doc


def test_tcpho_testbed_quick_end_to_end(tmp_path):
    d, doc = run("tcpho_testbed", tmp_path)
    tab = pd.read_csv(d / "tables" / "testbed.csv")
    assert len(tab) == 3 * 2 * 5
    for col in ("test flow (kb/s)", "test flow (kb/s) ±95%", "cross flow (Mb/s)", "cross flow (Mb/s) ±95%",
                "gain over NewReno", "cross / beside NewReno", "paper: gain"):
        assert col in tab.columns
    assert (tab["test flow (kb/s)"] > 0).all()
    # the cross flow crosses a 10 Mb/s WAN: it cannot exceed it
    assert (tab["cross flow (Mb/s)"] < 10).all() and (tab["cross flow (Mb/s)"] > 1).all()
    assert tab[tab.protocol == "NewReno"]["gain over NewReno"].abs().max() == 0
    outs = [outcome_of(f) for f in doc["findings"]]
    assert len(outs) == 11 and all(o in (HOLDS, FAILS, INCONCLUSIVE) for o in outs)
    # seeds 1-3, 1001-1003, 2001-2003: the WCDMA cross flow is unaffected (±10 %) by every variant
    assert doc["findings"][4].startswith("holds: WCDMA: the cross traffic is unaffected")
    assert (d / "figures" / "throughput.png").stat().st_size > 5000


def test_tcpho_estimation_error_sim_quick_end_to_end(tmp_path):
    d, doc = run("tcpho_estimation_error_sim", tmp_path)
    tab = pd.read_csv(d / "tables" / "estimation_error_sim.csv")
    assert set(tab.protocol) == {"NewReno", "TCP-HO"} and len(tab) == 3 * 2 * 2
    assert len(doc["findings"]) == 6 and all(outcome_of(f) for f in doc["findings"])


def test_tcpho_immediate_gain_quick_follows_the_back_off_timeline(tmp_path):
    d, doc = run("tcpho_immediate_gain", tmp_path)
    tab = pd.read_csv(d / "tables" / "immediate_gain.csv")
    assert len(tab) == 10
    # NewReno resumes at its 6th expiry (63 RTOs after the timer's origin), HO-Immediate one
    # wireless + wired crossing (55 ms) after the reconnection
    assert tab["NewReno resumes (s after origin)"].to_numpy() == pytest.approx(63.0, abs=0.01)
    assert (tab["HO-Immediate resumes (s after origin)"] - tab["x (s)"]).to_numpy() == pytest.approx(0.055, abs=0.005)
    assert outcome_of(doc["findings"][0]) == HOLDS
    s = pd.read_csv(d / "tables" / "immediate_gain_summary.csv")
    assert s["paper: 2 ln 2 − 1"].iloc[0] == pytest.approx(2 * np.log(2) - 1, abs=1e-4)


def test_tcpho_fig_2_4_has_the_four_handoff_kinds_and_tcp_ho_resumes_first(tmp_path):
    d, doc = run("tcpho_fig_2_4", tmp_path)
    tab = pd.read_csv(d / "tables" / "handoffs.csv")
    assert sorted(set(tab.handoff)) == ["D-VH", "H-HH", "L-HH", "U-VH"]
    first = tab.pivot_table(index="handoff", columns="protocol", values="first segment after reconnection (s)")
    assert (first["TCP-HO"] < 0.5).all() and (first["NewReno"] > 1.0).all()
    assert (d / "figures" / "fig_2_4.png").stat().st_size > 20000
