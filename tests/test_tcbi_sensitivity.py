"""The TCBI sensitivity study: one assumption at a time from the ensemble's scenario."""

import numpy as np
import pandas as pd
import pytest

import tcplab
from tcplab.experiments import Done, Run, get
from tcplab.experiments.tcbi import (NS2_OLD_TICK, SCENARIO_PLR, SENSITIVITY_CONTROLLERS, SENSITIVITY_VARIANTS,
                                     analyse_sensitivity, sensitivity_findings, sensitivity_metrics,
                                     sensitivity_quantities, sensitivity_spec, sensitivity_summary, sensitivity_table,
                                     tcbi_spec)
from tcplab.verdicts import FAILS, HOLDS, INCONCLUSIVE, outcome_of


def flatten(x, path=""):
    if isinstance(x, dict):
        out = {}
        for k, v in x.items():
            out.update(flatten(v, f"{path}.{k}" if path else k))
        return out
    if isinstance(x, list):
        out = {}
        for i, v in enumerate(x):
            out.update(flatten(v, f"{path}[{i}]"))
        return out
    return {path: x}


def changed(a: dict, b: dict) -> dict:
    fa, fb = flatten(a), flatten(b)
    return {k: fb.get(k) for k in set(fa) | set(fb) if fa.get(k, "<absent>") != fb.get(k, "<absent>")}


SENDERS = range(6)  # tcp1-3 and bg1-3
EXPECTED = {
    "lan_5M": {f"lans[{i}].rate": 5e6 for i in (0, 1)},
    "lan_2.5M": {f"lans[{i}].rate": 2.5e6 for i in (0, 1)},
    "lan_csma_cd": {f"lans[{i}].mac": "csma_cd" for i in (0, 1)},
    "lan_queue_50": {f"lans[{i}].queue": 50 for i in (0, 1)},
    "lan_queue_100": {f"lans[{i}].queue": 100 for i in (0, 1)},
    "ra_rb_40ms": {"links[0].delay": 0.040},
    "tick_100ms": {f"generators[{i}].tcp.tick": NS2_OLD_TICK for i in SENDERS},
    "ns2_2001_timers": {f"generators[{i}].tcp.{k}": v for i in SENDERS
                        for k, v in (("tick", 0.1), ("min_rto", 1.0), ("initial_rto", 6.0))},
    "delayed_ack": {f"generators[{i}].tcp.delayed_ack": True for i in SENDERS},
    "rwnd_20": {f"generators[{i}].tcp.rwnd": 20 for i in SENDERS},
}


@pytest.mark.parametrize("controller,plr", [("none", 0.0), ("mv", 0.05)])
def test_each_variant_changes_only_its_own_field(controller, plr):
    base = tcbi_spec(controller, plr, 1000.0)
    assert sensitivity_spec("baseline", controller, plr, 1000.0) == base
    for v, expected in EXPECTED.items():
        assert changed(base, sensitivity_spec(v, controller, plr, 1000.0)) == expected, v
    doubled = sensitivity_spec("background_x2", controller, plr, 1000.0)
    assert doubled["generators"][:6] == base["generators"] and {k: v for k, v in doubled.items() if k != "generators"} \
        == {k: v for k, v in base.items() if k != "generators"}
    extra = doubled["generators"][6:]
    assert [g["name"] for g in extra] == ["bg1b", "bg2b", "bg3b"]
    assert [{**g, "name": g["name"][:-1]} for g in extra] == base["generators"][3:]
    assert set(EXPECTED) | {"baseline", "background_x2"} == set(SENSITIVITY_VARIANTS)
    for v in SENSITIVITY_VARIANTS:  # every variant is a valid scenario
        tcplab.normalise(sensitivity_spec(v, controller, plr, 1000.0))


def test_the_plan_pairs_every_variant_with_the_baseline_per_seed():
    plan = get("tcbi_sensitivity").plan("quick")
    cells = {(r.params["variant"], r.params["scenario"], r.params["controller"], r.seed) for r in plan.runs}
    assert len(cells) == len(plan.runs) == len(SENSITIVITY_VARIANTS) * 2 * len(SENSITIVITY_CONTROLLERS) * 2
    full = get("tcbi_sensitivity").plan("full")
    assert {r.seed for r in full.runs} == {1, 2, 3, 4, 5}
    assert full.runs[0].spec["sim"]["duration"] > plan.runs[0].spec["sim"]["duration"]


def synthetic(shift: dict, seeds=(1, 2, 3)) -> pd.DataFrame:
    """Metric rows for every (variant in shift, scenario, controller, seed): the baseline's
    values plus the variant's shift, with a little per-seed noise shared by all variants."""
    base = {"eligible_share": 0.01, "tcp1:init_srtt": 0.025, "tcp1:T1": 60.0, "tcp1:T2": 100.0, "parallel:If": 0.70,
            "host:srtt": 0.024, "receiver_lan:utilisation": 0.35, "all_short:T2": 100.0,
            "host:timeouts_per_connection": 0.1, "background:T1": 430.0, "connections_per_s": 0.085}
    rows = []
    for v, d in shift.items():
        for sc in (1, 2):
            for c in SENSITIVITY_CONTROLLERS:
                for s in seeds:
                    noise = 1 + 0.01 * (s - 2)
                    rows.append({"variant": v, "scenario": sc, "controller": c, "seed": s,
                                 **{k: (x + d.get(k, 0.0)) * noise for k, x in base.items()}})
    return pd.DataFrame(rows)


def test_verdicts_follow_the_distance_to_the_paper():
    m = synthetic({"baseline": {}, "lan_5M": {"eligible_share": 0.02, "tcp1:T2": -40.0},
                   "tick_100ms": {"tcp1:init_srtt": 0.075, "eligible_share": -0.005},
                   "rwnd_20": {"tcp1:T2": -200.0}})  # T2 overshoots: 100 -> -100 is farther from 24.5 than 100
    t = sensitivity_table(m)
    assert {"scenario", "variant", "assumption", "reading", "quantity", "key", "seeds", "value", "value ±95%",
            "change", "change ±95%", "paper: value", "ours / paper", "verdict: toward the paper"} <= set(t.columns)
    assert len(t) == 2 * 4 * len(sensitivity_quantities(1))
    cell = t.set_index(["scenario", "variant", "key"])
    v = cell["verdict: toward the paper"]
    assert v[(1, "baseline", "eligible_share")] == ""
    assert outcome_of(v[(1, "lan_5M", "eligible_share")]) == HOLDS  # 0.01 -> 0.03, paper 0.045
    assert outcome_of(v[(2, "lan_5M", "eligible_share")]) == HOLDS  # paper 0.09
    assert outcome_of(v[(1, "lan_5M", "T2:none")]) == HOLDS and outcome_of(v[(1, "lan_5M", "T2:mv")]) == HOLDS
    assert outcome_of(v[(1, "lan_5M", "If:mv")]) == INCONCLUSIVE, "no change, no verdict either way"
    assert outcome_of(v[(1, "tick_100ms", "eligible_share")]) == FAILS
    assert outcome_of(v[(1, "tick_100ms", "init_srtt")]) == HOLDS  # 0.025 -> 0.1 s against the paper's 0.092 s
    assert outcome_of(v[(2, "tick_100ms", "init_srtt")]) == FAILS  # the paper's scenario-2 srtt reads as 0.033 s
    assert outcome_of(v[(1, "rwnd_20", "T2:none")]) == FAILS, "an overshoot beyond the baseline's distance is away"
    assert cell.loc[(1, "lan_5M", "eligible_share"), "change"] == pytest.approx(0.02)
    assert cell.loc[(1, "tick_100ms", "init_srtt"), "paper: value"] == pytest.approx(7.35 / 8 * 0.1)
    assert cell.loc[(2, "lan_5M", "eligible_share"), "paper: value"] == 0.09
    assert cell.loc[(1, "baseline", "T1:none"), "paper: value"] == 12.06
    assert cell.loc[(1, "baseline", "If:mv"), "paper: value"] == 0.9151
    w = sensitivity_summary(t).set_index(["scenario", "variant"])
    assert len(w) == 2 * 4 and w.loc[(1, "lan_5M"), "eligible_share"] == pytest.approx(0.03)
    assert w.loc[(1, "lan_5M"), "paper: eligible_share"] == 0.045 and "T2:mv ±95%" in w.columns
    assert w.loc[(1, "lan_5M"), "toward the paper"].startswith("eligible_share, ")
    assert w.loc[(1, "tick_100ms"), "toward the paper"] == "init_srtt"
    assert w.loc[(1, "tick_100ms"), "away from the paper"] == "eligible_share"
    assert w.loc[(1, "baseline"), "toward the paper"] == "(reference)"
    assert w.loc[(1, "rwnd_20"), "toward the paper"] == "none"
    f = sensitivity_findings(t)
    assert len(f) == 2 * 3 and f[0].startswith("scenario 1, lan_5M: toward the paper: eligible_share")


@pytest.fixture(scope="module")
def tiny_runs():
    """Scenario 1, both controllers, 2 seeds × 1000 s of the baseline, a 2.5 Mb/s LAN and the
    0.1 s tick (a few seconds of simulation each)."""
    done = []
    for v in ("baseline", "lan_2.5M", "tick_100ms"):
        for c in SENSITIVITY_CONTROLLERS:
            for seed in (1, 2):
                spec = sensitivity_spec(v, c, SCENARIO_PLR[1], 1000.0)
                run = Run({"variant": v, "scenario": 1, "controller": c}, spec, seed)
                done.append(Done(run, tcplab.run(run.spec, seed=seed)))
    return done


def test_a_slower_lan_raises_the_measured_srtt_and_a_coarse_tick_clamps_it(tiny_runs):
    m = {(d.params["variant"], d.params["controller"], d.seed): sensitivity_metrics(d.results) for d in tiny_runs}
    for c in SENSITIVITY_CONTROLLERS:
        for seed in (1, 2):
            base, slow, tick = (m[(v, c, seed)] for v in ("baseline", "lan_2.5M", "tick_100ms"))
            assert slow["host:srtt"] > 1.5 * base["host:srtt"], "queueing on a quarter-rate LAN"
            assert slow["receiver_lan:utilisation"] > 1.5 * base["receiver_lan:utilisation"]
            # every RTT sample (20-60 ms) rounds to at least one 0.1 s tick, as in ns-2 before 2002
            assert tick["host:srtt"] == pytest.approx(NS2_OLD_TICK, rel=0.02)
            assert base["host:srtt"] < 0.05
    for d in tiny_runs:
        if d.params["variant"] == "tick_100ms" and d.params["controller"] == "mv":
            srtt = d.results.flows["init_srtt"].dropna()
            assert np.allclose(srtt, NS2_OLD_TICK), "inherited srtt = one tick"


def test_analysis_of_real_runs_gives_both_tables_and_the_figure(tiny_runs):
    a = analyse_sensitivity(tiny_runs)
    t, wide, diag = (x.data for x in a.tables)
    assert len(wide) == 3 and {"eligible_share ±95%", "toward the paper", "away from the paper"} <= set(wide.columns)
    assert set(t["variant"]) == {"baseline", "lan_2.5M", "tick_100ms"} and set(t["scenario"]) == {1}
    assert len(t) == 3 * len(sensitivity_quantities(1)) and (t["seeds"] <= 2).all()
    assert all(outcome_of(x) for x in t.loc[t["variant"] != "baseline", "verdict: toward the paper"])
    assert [c for c in t.columns if c.startswith("paper:")] == ["paper: value"]
    assert "mean final srtt of the TCBI host's connections [s] ±95%" in diag.columns and len(diag) == 3
    assert len(a.figures) == 1 and len(a.findings) == 2


def test_csma_cd_lans_collide_and_conserve_frames():
    """The opt-in 802.3 MAC in the TCBI scenario: collisions on both LANs, every frame
    accounted for, none discarded for excessive collisions at this load; FIFO LANs report
    no collisions."""
    fifo = tcplab.run(sensitivity_spec("baseline", "mv", 0.0, 300.0), seed=1).lans
    csma = tcplab.run(sensitivity_spec("lan_csma_cd", "mv", 0.0, 300.0), seed=1).lans
    assert (fifo["collisions"] == 0).all() and (fifo["drops_collision"] == 0).all()
    for lans in (fifo, csma):
        assert (lans.arrivals == lans.departures + lans.drops_queue + lans.drops_loss + lans.in_system).all()
    by_lan = csma.groupby("lan")["collisions"].sum()
    assert by_lan["sender_lan"] > 1000 and by_lan["receiver_lan"] > 1000
    assert csma["drops_collision"].sum() == 0
    # the channel loses little capacity: the busy time (collisions included) stays near FIFO's
    assert csma["busy_time"].sum() < 1.2 * fifo["busy_time"].sum()
