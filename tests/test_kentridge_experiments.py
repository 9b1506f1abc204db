"""Issue 20's KentRidge benchmark (tcplab/experiments/kentridge.py; ours, no paper values): the
plans (path suite, held-back separation, pairing of contenders), the verdict logic on synthetic
frames (holds / does not hold / inconclusive) and the four experiments end to end at quick
size, with what they show on their fixed seeds."""
import csv
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import tcplab
from tcplab.experiments import get, list_experiments
from tcplab.experiments import kentridge as kr
from tcplab.sweep import run_experiment
from tcplab.verdicts import FAILS, HOLDS, INCONCLUSIVE, outcome_of

EXPERIMENTS = ("kentridge_suite", "kentridge_heldback", "kentridge_harm", "kentridge_switch_cost")
KB = Path(__file__).resolve().parent.parent / "crates" / "tcplab-core" / "data" / "kentridge-kb.csv"


def kb_adaptations():
    lines = [ln for ln in KB.read_text().splitlines() if ln and not ln.startswith("#")]
    return ["+".join([row["adaptation"]] + [o for o in row["options"].split(";") if o])
            for row in csv.DictReader(lines)]


def test_the_experiments_are_registered_as_ours_with_both_sizes():
    names = dict(list_experiments())
    for name in EXPERIMENTS:
        assert name in names and "issue 20" in names[name] and "ours" in names[name]
        assert get(name).paper.startswith("issue 20 (our benchmark")
        for size in ("quick", "full"):
            plan = get(name).plan(size)
            assert plan.runs and plan.parameters
            assert len({r.seed for r in plan.runs}) >= (3 if size == "quick" else 5)
    # the quick sizes stay small: a few hundred short runs in all
    assert sum(len(get(n).plan("quick").runs) for n in EXPERIMENTS) <= 800


def test_contenders_are_the_agent_and_every_adaptation_of_the_knowledge_base():
    assert set(kb_adaptations()) <= set(kr.FIXED) and kr.AGENT not in kr.FIXED
    assert {c.split("+")[0] for c in kr.FIXED} <= set(tcplab.algorithms())
    plan = get("kentridge_suite").plan("quick")
    assert {r.params["contender"] for r in plan.runs} == set(kr.CONTENDERS)
    agent = [r for r in plan.runs if r.params["contender"] == kr.AGENT]
    assert all("kentridge" in r.spec["flows"][0] for r in agent)
    assert not any("kentridge" in r.spec["flows"][0] for r in plan.runs if r.params["contender"] != kr.AGENT)
    # a contender with options is its algorithm with those TCP options, the path's others kept
    undo = [r.spec["flows"][0] for r in plan.runs if r.params["contender"] == "newreno+undo"]
    assert undo and all(f["cc"] == "newreno" and f["tcp"]["undo"] and f["tcp"]["timestamps"] for f in undo)
    assert not any(r.spec["flows"][0]["tcp"].get("undo") for r in plan.runs if r.params["contender"] != "newreno+undo")


def test_the_suite_has_eight_path_types_with_several_instances_and_held_back_variants():
    assert set(kr.KINDS) == {"lfn_large_queue", "lfn_small_queue", "high_speed", "long_thin", "lossy", "mobile",
                             "reorder", "asymmetry"}
    for kind in kr.KINDS:
        tune, held = kr.instances(kind), kr.instances(kind, held=True)
        assert len(tune) >= 3 and len(held) >= 2
        strip = lambda i: {k: v for k, v in i.items() if k not in ("name", "held")}  # noqa: E731
        for h in held:
            assert h["held"] and h["name"].startswith(f"{kind}-held-")
            assert all(strip(h) != strip(t) for t in tune), f"{h['name']} repeats a tuning instance"
    for size in ("quick", "full"):
        suite, held = get("kentridge_suite").plan(size), get("kentridge_heldback").plan(size)
        assert {r.params["kind"] for r in suite.runs} == set(kr.KINDS) == {r.params["kind"] for r in held.runs}
        assert not {r.params["instance"] for r in suite.runs} & {r.params["instance"] for r in held.runs}
        assert not {r.seed for r in suite.runs} & {r.seed for r in held.runs}
        assert all(not r.params["held"] for r in suite.runs) and all(r.params["held"] for r in held.runs)
    full = get("kentridge_suite").plan("full")
    assert len({r.params["instance"] for r in full.runs}) == 3 * len(kr.KINDS)


def _without_cc(spec):
    s = json.loads(json.dumps(spec))
    for k in ("cc", "kentridge", "switch"):
        s["flows"][0].pop(k, None)
    s["flows"][0]["tcp"].pop("undo", None)  # the newreno+undo contender's option
    return s


def test_contenders_are_paired_on_the_same_path_options_and_start():
    for name in ("kentridge_suite", "kentridge_heldback", "kentridge_harm", "kentridge_switch_cost"):
        plan = get(name).plan("quick")
        groups = {}
        for r in plan.runs:
            key = (r.params["instance"], r.params.get("competitor"), r.seed)
            groups.setdefault(key, []).append(r)
        for key, runs in groups.items():
            cs = [r.params["contender"] for r in runs]
            assert len(cs) == len(set(cs)), key
            want = set(kr.VARIANTS) if name == "kentridge_switch_cost" else set(kr.CONTENDERS)
            assert set(cs) == want, key
            base = _without_cc(runs[0].spec)
            for r in runs[1:]:
                assert _without_cc(r.spec) == base, (key, r.params["contender"])
            inst = next(i for i in kr.instances(runs[0].params["kind"], runs[0].params["held"])
                        if i["name"] == key[0])
            assert all({k: v for k, v in f["tcp"].items() if k != "undo"} == {**kr.TCP, "rwnd": kr.rwnd_of(inst)}
                       for r in runs for f in r.spec["flows"])


def test_paths_are_what_their_type_says_and_valid():
    by = {}
    for r in get("kentridge_suite").plan("quick").runs:
        by.setdefault(r.params["kind"], r)
    for kind, r in by.items():
        tcplab.normalise(r.spec)  # valid (raises otherwise)
        links = {(l["a"], l["b"]): l for l in r.spec["links"]}
        inst = kr.instances(kind)[0]
        if kind == "mobile":
            assert r.spec["link_changes"] and r.spec["flows"][0]["handoffs"]
            assert r.params["bottleneck"] == ["r2", "d0"]
            assert 0 < r.params["capacity_bps"] < 7e6
            continue
        bn = links[("r1", "r2")]
        assert bn["queue_ab"]["type"] == "droptail" and r.params["capacity_bps"] == inst["rate"]
        rtt, q = kr.rtt_of(inst), kr.queue_packets(inst)
        bdp = kr.bdp_packets(inst["rate"], rtt)
        if kind == "lfn_large_queue":
            assert rtt > 0.1 and bdp > 100 and q * kr.WIRE * 8 / inst["rate"] > 0.012
        if kind == "lfn_small_queue":
            assert rtt > 0.1 and bdp > 100 and q * kr.WIRE * 8 / inst["rate"] < 0.012
        if kind == "high_speed":
            assert rtt < 0.1 and bdp + q > 100
        if kind == "long_thin":
            assert rtt > 0.1 and bdp + q < 8
        if kind == "lossy":
            assert bn["loss_ab"] >= 0.01
        if kind == "reorder":
            assert bn["reorder_ab"]["prob"] > 0
        if kind == "asymmetry":
            assert bn["cost_ba"] == 10 and links[("r3", "r1")]["rate"] < inst["rate"] / 100
    # TCP-HO is offered on mobile paths only by the handoff records, which every contender has
    mob = [r for r in get("kentridge_suite").plan("quick").runs if r.params["kind"] == "mobile"]
    assert all(r.spec["flows"][0]["handoffs"] for r in mob)
    assert {r.spec["flows"][0]["cc"] for r in mob if r.params["contender"] == kr.AGENT} == {"newreno"}


# --------------------------------------------------------------------------- analysis on synthetic frames


def frame(values: dict, seeds=(1, 2, 3), noise=0.0):
    """values: instance -> {contender: mean goodput}; per seed ± noise (alternating)."""
    rows = []
    for inst, per in values.items():
        for c, g in per.items():
            for k, s in enumerate(seeds):
                e = noise * (k - (len(seeds) - 1) / 2)
                rows.append({"instance": inst, "kind": inst.split("-")[0], "expect": "lossy", "held": False,
                             "contender": c, "seed": s, "goodput": g + e, "goodput Mb/s": g,
                             "p95 queueing delay ms": 10.0, "drop rate": 0.01, "retransmission rate": 0.01,
                             "cc_final": c})
    return pd.DataFrame(rows)


def fixed(v, **over):
    d = {c: v for c in kr.FIXED}
    d.update(over)
    return d


def test_best_fixed_is_chosen_with_hindsight_and_ties_go_to_the_earlier():
    m = frame({"a-1": {kr.AGENT: 0.5, **fixed(0.4, cubic=0.7)}, "b-1": {kr.AGENT: 0.5, **fixed(0.6)}})
    b = kr.best_fixed(m)
    assert b["a-1"] == "cubic" and b["b-1"] == kr.FIXED[0]


def test_goals_hold_when_the_agent_is_near_the_best_everywhere_and_beats_each_fixed():
    # each fixed algorithm is best on one instance and poor on the others; the agent is near
    # the best on every one
    vals = {f"p{i}-1": {kr.AGENT: 0.88, **fixed(0.3, **{c: 0.9})} for i, c in enumerate(kr.FIXED)}
    m = frame(vals, noise=0.01)
    g1, g2 = kr.goals(m, "test")
    assert (g1.outcome, g2.outcome) == (HOLDS, HOLDS), (g1, g2)
    t = kr.instance_table(m)
    assert (t["agent / best"].round(3) == round(0.88 / 0.9, 3)).all()
    assert all(outcome_of(v) == HOLDS for v in t["verdict"])
    c = kr.contender_table(m).set_index("contender")
    assert c.loc["cubic", "best on"] == "p1-1" and outcome_of(c.loc["cubic", "verdict"]) == HOLDS


def test_goals_do_not_hold_when_the_agent_is_far_behind_somewhere_or_below_a_fixed():
    vals = {f"p{i}-1": {kr.AGENT: 0.88, **fixed(0.3, **{c: 0.9})} for i, c in enumerate(kr.FIXED)}
    vals["p0-1"][kr.AGENT] = 0.45  # half of the best there
    m = frame(vals, noise=0.01)
    g1, g2 = kr.goals(m, "test")
    assert g1.outcome == FAILS and "p0-1" in g1.rule and g2.outcome == HOLDS
    t = kr.instance_table(m).set_index("instance")
    assert outcome_of(t.loc["p0-1", "verdict"]) == FAILS and outcome_of(t.loc["p1-1", "verdict"]) == HOLDS
    # CUBIC is better than the agent on every instance: the agent does not beat every fixed one
    vals = {f"p{i}-1": {kr.AGENT: 0.6, **fixed(0.3, cubic=0.8)} for i in range(4)}
    g1, g2 = kr.goals(frame(vals, noise=0.01), "test")
    assert g1.outcome == FAILS and g2.outcome == FAILS and "cubic" in g2.rule


def test_goals_are_inconclusive_when_the_intervals_straddle():
    vals = {f"p{i}-1": {kr.AGENT: 0.9, **fixed(0.3, **{c: 1.0})} for i, c in enumerate(kr.FIXED)}
    m = frame(vals, noise=0.2)  # the agent's ratio 0.9 ± a lot; differences to the fixed wide too
    m.loc[m["contender"] != kr.AGENT, "goodput"] = m.loc[m["contender"] != kr.AGENT, "goodput"].to_numpy()[::-1]
    g1, _ = kr.goals(m, "test")
    assert g1.outcome == INCONCLUSIVE
    two = frame({"a-1": {kr.AGENT: 0.5, **fixed(0.5)}}, seeds=(1,))  # one seed: no interval
    assert all(v.outcome == INCONCLUSIVE for v in kr.goals(two, "test"))


def test_delay_and_loss_verdicts_compare_paired_ratios_on_every_scale():
    # two paths 1000 x apart in delay: the agent queues half of what NewReno does on both,
    # twice what Sync-TCP does on both, and as much as CUBIC; its drops are those of every
    # fixed one except Hybla's, which drops ten times more
    vals = {"slow-1": {kr.AGENT: 0.8, **fixed(0.5, cubic=0.9)}, "fast-1": {kr.AGENT: 0.8, **fixed(0.5, cubic=0.9)}}
    m = frame(vals, seeds=(1, 2, 3, 4))
    scale = {"slow-1": 200.0, "fast-1": 0.2}
    rel = {kr.AGENT: 1.0, "newreno": 2.0, "sync_tcp": 0.5}
    jitter = m["seed"].map({1: 0.98, 2: 1.02, 3: 0.99, 4: 1.01})
    m["p95 queueing delay ms"] = [scale[i] * rel.get(c, 1.0) for i, c in zip(m["instance"], m["contender"])]
    m["p95 queueing delay ms"] *= jitter.where(m["contender"] == kr.AGENT, 1.0)
    m["drop rate"] = [0.01 * (10 if c == "hybla" else 1) for c in m["contender"]]
    m["drop rate"] *= jitter.where(m["contender"] == kr.AGENT, 1.0)
    c = kr.contender_table(m).set_index("contender")
    assert outcome_of(c.loc["newreno", "verdict: p95 qdelay"]) == HOLDS
    assert c.loc["newreno", "agent / it p95 qdelay"] == pytest.approx(0.5, rel=0.01)
    assert outcome_of(c.loc["sync_tcp", "verdict: p95 qdelay"]) == FAILS
    assert outcome_of(c.loc["cubic", "verdict: p95 qdelay"]) == INCONCLUSIVE
    assert c.loc["cubic", "agent / it p95 qdelay 95% low"] < 1 < c.loc["cubic", "agent / it p95 qdelay 95% high"]
    assert outcome_of(c.loc["hybla", "verdict: drop rate"]) == HOLDS
    assert outcome_of(c.loc["newreno", "verdict: drop rate"]) == INCONCLUSIVE
    # per instance against the best fixed (CUBIC on both): neither lower nor higher
    t = kr.instance_table(m).set_index("instance")
    assert all(outcome_of(v) == INCONCLUSIVE for v in t["verdict: p95 qdelay"])
    f = kr.delay_loss_findings(m, "test")
    assert "lower than newreno; higher than sync_tcp;" in f[0] and "lower on 0, higher on 0" in f[0]
    assert "lower than hybla;" in f[1]
    # a path where neither queues at all: the floor makes the ratio 1, not 0/0
    m["p95 queueing delay ms"] = 0.0
    c = kr.contender_table(m).set_index("contender")
    assert (c.loc[list(kr.FIXED), "agent / it p95 qdelay"] == 1.0).all()


def test_classification_timeline_first_correct_and_share():
    tl = [(1.2, "high_speed"), (2.2, "lossy"), (12.2, "default"), (14.2, "lossy")]
    c = kr.classification(tl, "lossy", start=0.2, end=20.2)
    assert c["first correct (s)"] == pytest.approx(2.0)
    assert c["correct share"] == pytest.approx((10 + 6) / 20)
    assert c["types"] == "high_speed;lossy;default" and c["final type"] == "lossy"
    never = kr.classification([], "mobile", 0.0, 10.0)
    assert np.isnan(never["first correct (s)"]) and never["correct share"] == 0 and never["final type"] == "default"


def test_harm_is_relative_to_the_competitor_beside_newreno():
    rows = []
    for s in (1, 2, 3):
        for c, g in (("newreno", 0.4), ("cubic", 0.2), (kr.AGENT, 0.36)):
            rows.append({"instance": "x-1", "competitor": "newreno", "contender": c, "seed": s, "goodput": 0.5,
                         "competitor goodput": g + 0.01 * s, "p95 queueing delay ms": 1.0, "drop rate": 0.0})
    m = kr.harm_frame(pd.DataFrame(rows))
    t = kr.harm_table(m).set_index("contender")
    assert t.loc["newreno", "competitor / beside NewReno"] == pytest.approx(1.0) and t.loc["newreno", "verdict"] == ""
    assert outcome_of(t.loc["cubic", "verdict"]) == FAILS  # ~0.5 < 0.75
    assert outcome_of(t.loc[kr.AGENT, "verdict"]) == HOLDS  # ~0.9 > 0.75
    # over the suite: a second instance where the agent leaves the competitor a third
    more = pd.DataFrame(rows).assign(instance="y-1")
    more.loc[more["contender"] == kr.AGENT, "competitor goodput"] = 0.13 + 0.01 * more["seed"]
    tc = kr.harm_contender_table(kr.harm_frame(pd.concat([pd.DataFrame(rows), more]))).set_index("contender")
    assert tc.loc[kr.AGENT, "worst instance"] == "y-1" and tc.loc[kr.AGENT, "instances below 0.75"] == "y-1"
    assert tc.loc[kr.AGENT, "competitor / beside NewReno (geometric mean)"] == pytest.approx((0.9 * 0.35) ** 0.5,
                                                                                           abs=0.03)
    assert outcome_of(tc.loc["cubic", "verdict"]) == FAILS and tc.loc["newreno", "verdict"] == ""


def test_switch_cost_compares_each_variant_with_the_right_adaptation_from_the_start():
    rows = []
    for s in (1, 2, 3):
        for v, g in (("right", 0.8), ("agent", 0.78), ("right_early", 0.79), ("right_late", 0.6), ("wrong_early", 0.3)):
            rows.append({"instance": "x-1", "variant": v, "contender": v, "seed": s, "goodput": g + 0.001 * s,
                         "p95 queueing delay ms": 1.0, "drop rate": 0.0, "cc_final": "c", "wrong": "sync_tcp",
                         "first switch (s)": 1.0, "switch at": 8.0 if v == "right_late" else 1.5})
    t = kr.switch_table(pd.DataFrame(rows)).set_index("variant")
    assert t.loc["right", "cost (1 − goodput / right's)"] == pytest.approx(0.0)
    assert t.loc["wrong_early", "cost (1 − goodput / right's)"] == pytest.approx(1 - 0.3 / 0.8, abs=0.01)
    assert all(outcome_of(t.loc[v, "verdict"]) == HOLDS for v in ("agent", "right_late", "wrong_early"))
    assert "late (at 8 s)" in t.loc["right_late", "verdict"]


# --------------------------------------------------------------------------- quick sizes end to end


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("kentridge")
    dirs = {}
    for name in EXPERIMENTS:
        d, rep = run_experiment(name, size="quick", jobs=2, out=out, progress=False)
        assert not rep.failed and not rep.analysis_error, (name, rep.analysis_error)
        dirs[name] = d
    return dirs


def table(d, name):
    return pd.read_csv(d / "tables" / f"{name}.csv")


def findings(d):
    return json.loads((d / "experiment.json").read_text())["findings"]


def test_quick_suite_classifies_and_switches_as_the_rules_and_kb_say(quick):
    d = quick["kentridge_suite"]
    cls = table(d, "classification")
    by = {k: g for k, g in cls.groupby("instance")}
    assert len(by) == len(kr.KINDS)
    # the lossy instance is named lossy within two intervals and ends on Westwood-BE
    lossy = by["lossy-1"]
    assert (lossy["types"].str.contains("lossy")).all() and (lossy["first correct (s)"] <= 2.0).all()
    assert set(lossy["final cc"]) == {"westwood_be"}
    # the long fat pipe with a large queue ends on Sync-TCP, the high-speed path on CUBIC
    assert set(by["lfn_large_queue-1"]["final cc"]) == {"sync_tcp"}
    assert set(by["high_speed-1"]["final cc"]) == {"cubic"} and (by["high_speed-1"]["correct share"] > 0.9).all()
    # the mobile host's first handoff completes at 10 s: named mobile then (notification), on TCP-HO
    mob = by["mobile-1"]
    assert ((mob["first correct (s)"] > 9) & (mob["first correct (s)"] < 10.5)).all()
    assert set(mob["final cc"]) == {"tcp_ho"}
    assert (by["reorder-1"]["types"].str.contains("reorder")).all()
    assert (by["asymmetry-1"]["types"].str.contains("asymmetry")).all()
    # the KB's rows for them are not the default's: Westwood BE and Hybla
    assert set(by["reorder-1"]["final cc"]) == {"newreno+undo"} and set(by["asymmetry-1"]["final cc"]) == {"hybla"}
    # the long fat pipe is named once, after slow start's recovery (no CUBIC period); the
    # long thin path stays long thin on Sync-TCP (the switch does not flip it to default)
    assert (by["lfn_large_queue-1"]["types"] == "lfn_large_queue").all()
    lt = by["long_thin-1"]
    assert (lt["final type"] == "long_thin").all() and set(lt["final cc"]) == {"sync_tcp"}


def test_quick_suite_tables_and_goals(quick):
    d = quick["kentridge_suite"]
    it = table(d, "instances").set_index("instance")
    assert len(it) == len(kr.KINDS) and (it["seeds"] == 3).all()
    assert all(outcome_of(v) for v in it["verdict"])
    assert (it["agent / best"] > 0).all() and (it["agent / best"] < 1.2).all()
    # on the lossy path the agent (Westwood-BE after 1 s) is near the best and far above NewReno
    per = table(d, "per_path").set_index(["instance", "contender"])
    assert per.loc[("lossy-1", kr.AGENT), "goodput"] > 1.5 * per.loc[("lossy-1", "newreno"), "goodput"]
    assert outcome_of(it.loc["lossy-1", "verdict"]) in (HOLDS, INCONCLUSIVE)
    # Sync-TCP keeps the large queue short: the agent (NewReno through slow start's
    # overshoot, then Sync-TCP) queues less than CUBIC, and Sync-TCP fixed far less
    lq = per.loc["lfn_large_queue-1", "p95 qdelay ms"]
    assert lq[kr.AGENT] < 0.85 * lq["cubic"] and lq["sync_tcp"] < 0.5 * lq["cubic"]
    ct = table(d, "contenders").set_index("contender")
    assert set(ct.index) == set(kr.CONTENDERS) and (ct.loc[list(kr.FIXED), "runs"] == 3 * len(kr.KINDS)).all()
    assert all(outcome_of(ct.loc[c, "verdict"]) for c in kr.FIXED)
    f = findings(d)
    assert outcome_of(f[0]) and "never far" in f[0] and outcome_of(f[1]) and "beats every" in f[1]
    assert all(outcome_of(ct.loc[c, "verdict: p95 qdelay"]) and outcome_of(ct.loc[c, "verdict: drop rate"])
               for c in kr.FIXED)
    assert "p95 qdelay (geometric mean" in f[2] and "drop rate (geometric mean" in f[3]
    assert all(outcome_of(v) for v in it["verdict: p95 qdelay"])
    assert (d / "figures").exists()


def test_quick_heldback_uses_other_instances_and_still_names_them(quick):
    d = quick["kentridge_heldback"]
    cls = table(d, "classification")
    assert set(cls["instance"]) == {f"{k}-held-1" for k in kr.KINDS}
    assert set(cls["seed"]) == {kr.HELD_SEED_BASE + s for s in kr.SIZES["quick"]["seeds"]}
    lossy = cls[cls["instance"] == "lossy-held-1"]
    assert (lossy["types"].str.contains("lossy")).all() and set(lossy["final cc"]) == {"westwood_be"}
    assert len(findings(d)) >= 2 and all(outcome_of(x) for x in findings(d)[:2])


def test_quick_harm(quick):
    t = table(quick["kentridge_harm"], "harm")
    assert set(t["competitor"]) == set(kr.COMPETITORS) and set(t["contender"]) == set(kr.CONTENDERS)
    nr = t[t["contender"] == "newreno"]
    assert np.allclose(nr["competitor / beside NewReno"], 1.0)
    assert all(outcome_of(v) for v in t[t["contender"] != "newreno"]["verdict"])
    assert (t["competitor goodput"] > 0).all()
    tc = table(quick["kentridge_harm"], "harm_contenders")
    assert len(tc) == len(kr.COMPETITORS) * len(kr.CONTENDERS)
    assert all(outcome_of(v) for v in tc[tc["contender"] != "newreno"]["verdict"])
    assert outcome_of(findings(quick["kentridge_harm"])[0])


def test_quick_switch_cost(quick):
    t = table(quick["kentridge_switch_cost"], "switch_cost")
    assert set(t["variant"]) == set(kr.VARIANTS)
    right = t[t["variant"] == "right"]
    assert np.allclose(right["cost (1 − goodput / right's)"], 0.0)
    for inst, g in t.groupby("instance"):
        g = g.set_index("variant")
        kind = inst.rsplit("-", 1)[0]
        assert kr.SWITCH_CASES[kind][0] in g.loc["right_late", "final cc"]
        assert kr.SWITCH_CASES[kind][1] in g.loc["wrong_early", "final cc"]
    # on the lossy path a wrong switch (to Sync-TCP) costs far more than the agent's own
    lossy = t[t["instance"] == "lossy-1"].set_index("variant")
    assert lossy.loc["wrong_early", "cost (1 − goodput / right's)"] > 0.3
    assert lossy.loc["agent", "cost (1 − goodput / right's)"] < 0.15
