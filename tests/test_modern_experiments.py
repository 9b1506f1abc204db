"""The issue's expected results for the modern TCP core (tcplab/experiments/modern_tcp.py): the
plans, the verdict logic on synthetic measurements (holds / does not hold / inconclusive), and
the quick sizes end to end, with the outcomes they give on their fixed seeds.

Vegas, FAST and Compound come from another branch: while tcplab does not register them their
cases are not planned (a finding says so); once it does, the tests below require their rows and
verdicts, so they start covering them without being edited."""
import json

import numpy as np
import pandas as pd
import pytest

import tcplab
from tcplab import publish
from tcplab.experiments import get, list_experiments
from tcplab.experiments import modern_tcp as mt
from tcplab.sweep import run_experiment
from tcplab.verdicts import FAILS, HOLDS, INCONCLUSIVE, outcome_of

EXPERIMENTS = ("modern_long_fat_pipe", "modern_rtt_fairness", "modern_queue", "modern_friendliness")
CLAIM_CCS = {  # the algorithms each experiment makes a claim about
    "modern_long_fat_pipe": ("cubic_linux", "cubic", "highspeed", "scalable", "htcp", "fast"),
    "modern_rtt_fairness": ("cubic_linux", "cubic"),
    "modern_queue": ("vegas", "fast", "compound"),
    "modern_friendliness": ("cubic_linux", "cubic", "compound"),
}
TABLE = {"modern_long_fat_pipe": "utilisation", "modern_rtt_fairness": "fairness", "modern_queue": "queue",
         "modern_friendliness": "friendliness"}


def outcome(cell):
    return outcome_of(cell) if isinstance(cell, str) else None


def ccs_of(plan):
    return {f["cc"] for r in plan.runs for f in r.spec["flows"]}


# --------------------------------------------------------------------------- plans


def test_the_four_experiments_are_registered_with_both_sizes():
    names = dict(list_experiments())
    for name in EXPERIMENTS:
        assert name in names and "issue 17" in names[name]
        for size in ("quick", "full"):
            plan = get(name).plan(size)
            assert plan.runs and plan.parameters
            seeds = {r.seed for r in plan.runs}
            assert len(seeds) >= 3 if size == "quick" else len(seeds) >= 5
            for r in plan.runs:
                assert set(r.params) >= {"cc", "warmup"}
                assert all(f["tcp"]["sack"] for f in r.spec["flows"])
                assert r.spec["sim"]["duration"] > r.params["warmup"]


def test_quick_plans_are_valid_scenarios_and_replications_differ():
    for name in EXPERIMENTS:
        plan = get(name).plan("quick")
        for r in plan.runs:
            tcplab.normalise(r.spec)
        by_params = {}
        for r in plan.runs:
            by_params.setdefault(json.dumps(r.params, sort_keys=True), []).append(r)
        for runs in by_params.values():
            first_starts = {r.spec["flows"][0]["start"] for r in runs}
            assert len(first_starts) == len(runs), f"{name}: replications differ by their start times"


def test_paths_are_the_stated_ones():
    lfp = mt.modern_long_fat_pipe("full").runs[0].spec["dumbbell"]
    assert lfp["bottleneck"]["rate"] == 1e9 and lfp["bottleneck"]["loss"] == 1e-6
    assert 2 * (lfp["bottleneck"]["delay"] + 2 * lfp["access"]["delay"][0]) == pytest.approx(0.100)
    for size in ("quick", "full"):
        spec = mt.modern_rtt_fairness(size).runs[0].spec["dumbbell"]
        rtts = [2 * (spec["bottleneck"]["delay"] + 2 * side) for side in spec["access"]["delay"]]
        assert rtts == pytest.approx([0.060, 0.240])
    assert mt.modern_rtt_fairness("full").runs[0].spec["dumbbell"]["bottleneck"]["rate"] == 1e9
    fr = mt.modern_friendliness("full").runs[0]
    assert fr.spec["dumbbell"]["bottleneck"]["rate"] == 1e9 and fr.params["k"] == 2
    assert [f["cc"] for f in fr.spec["flows"]][:2] == ["newreno", "newreno"]
    # 0.5 BDP with BDP = C × 2 × bottleneck delay (the thesis's definition): 1 Gb/s, 50 ms
    assert fr.spec["dumbbell"]["bottleneck"]["queue"]["limit"] == round(1e9 * 0.1 / mt.WIRE) // 2


def test_every_claimed_algorithm_is_planned_where_it_is_judged():
    for name in EXPERIMENTS:
        assert set(CLAIM_CCS[name]) <= ccs_of(get(name).plan("quick")), name
    queue = mt.modern_queue("quick")
    compound = {r.params["buffer_bdp"] for r in queue.runs if r.params["cc"] == "compound"}
    assert compound and min(compound) >= mt.LARGE_BDP, "at the quick size Compound runs only where it is judged"
    assert {r.params["buffer_bdp"] for r in queue.runs if r.params["cc"] == "vegas"} == {1.0, 4.0}
    full = mt.modern_queue("full")
    assert {r.params["buffer_bdp"] for r in full.runs if r.params["cc"] == "compound"} == {0.5, 1.0, 2.0, 4.0}


# --------------------------------------------------------------------------- measures


def test_window_goodput_and_l_on_synthetic_series():
    t = np.arange(0, 20.5, 0.5)
    ts = pd.DataFrame({"time": np.tile(t, 2), "flow": np.repeat([0, 1], len(t)),
                       "delivered": np.concatenate([np.minimum(t, 5) * 100 + np.maximum(t - 5, 0) * 1000, t * 250])})
    assert mt.window_mbps(ts, 0, 5.0, 20.0) == pytest.approx(1000 * mt.MSS * 8 / 1e6)
    assert mt.window_mbps(ts, 1, 2.0, 12.0) == pytest.approx(250 * mt.MSS * 8 / 1e6)
    m = pd.DataFrame({"cc": ["newreno", "newreno", "cubic", "cubic"], "k": 2, "loss": 0.0, "seed": [1, 2, 1, 2],
                      "newreno Mb/s": [30.0, 60.0, 10.0, 30.0], "other Mb/s": [70.0, 60.0, 90.0, 90.0]})
    m = mt.with_l(m)
    # L: the NewReno flows' goodput over half the all-NewReno run's total, same seed
    assert m["L"].tolist() == pytest.approx([0.6, 1.0, 0.2, 0.5])
    assert m["share"].tolist() == pytest.approx([0.3, 0.5, 0.1, 0.25])


# --------------------------------------------------------------------------- verdict logic on synthetic data


def lfp(rows):
    return pd.DataFrame([{"cc": cc, "seed": i + 1, "mbps": u * 1000, "utilisation": u, "loss events": 3.0,
                          "timeouts": 0.0} for cc, us in rows.items() for i, u in enumerate(us)])


def test_long_fat_pipe_verdicts_on_synthetic_data():
    t = mt.lfp_table(lfp({"newreno": [0.20, 0.21, 0.19], "cubic_linux": [0.80, 0.82, 0.79],
                          "highspeed": [0.25, 0.26, 0.24], "htcp": [0.10, 0.90, 0.50]})).set_index("cc")
    assert list(t.index) == ["newreno", "cubic_linux", "highspeed", "htcp"], "rows in LFP_CCS order"
    assert {"algorithm", "runs", "utilisation", "utilisation ±95%", "goodput Mb/s", "× NewReno", "verdict"} <= set(t)
    assert t.loc["newreno", "verdict"] == ""
    assert outcome(t.loc["cubic_linux", "verdict"]) == HOLDS
    # 0.25 is higher than NewReno's 0.2, but not 1.5 × higher: "far higher" does not hold
    assert outcome(t.loc["highspeed", "verdict"]) == FAILS
    assert outcome(t.loc["htcp", "verdict"]) == INCONCLUSIVE
    assert t.loc["cubic_linux", "× NewReno"] == pytest.approx(0.80333 / 0.2, rel=1e-3)


def test_rtt_fairness_verdicts_on_synthetic_data():
    def rows(cc, jains, loss=0.0):
        return [{"cc": cc, "loss": loss, "seed": i + 1, "short Mb/s": 1.0, "long Mb/s": 1.0, "ratio": 1.0, "jain": j}
                for i, j in enumerate(jains)]
    m = pd.DataFrame(rows("newreno", [0.60, 0.62, 0.58]) + rows("cubic_linux", [0.90, 0.92, 0.91])
                     + rows("cubic", [0.50, 0.52, 0.51]) + rows("newreno", [0.7, 0.75, 0.72], 1e-6)
                     + rows("cubic", [0.5, 0.95, 0.7], 1e-6))
    t = mt.rtt_table(m)
    assert list(zip(t["loss"], t["cc"])) == [(0.0, "newreno"), (0.0, "cubic_linux"), (0.0, "cubic"),
                                            (1e-6, "newreno"), (1e-6, "cubic")]
    assert [outcome(v) for v in t["verdict"]] == [None, HOLDS, FAILS, None, INCONCLUSIVE]
    assert {"60 ms flow Mb/s", "240 ms flow Mb/s", "throughput ratio 60/240", "Jain index",
            "Jain index ±95%"} <= set(t)


def queue_rows(cc, b, qs, mbps=96.0):
    return [{"cc": cc, "buffer_bdp": b, "seed": i + 1, "queue ms": q, "qdelay ms": q, "mbps": mbps + i * 0.1,
             "utilisation": 0.99, "loss rate": 0.01} for i, q in enumerate(qs)]


def test_queue_verdicts_on_synthetic_data():
    m = pd.DataFrame(queue_rows("newreno", 1.0, [40, 42, 38]) + queue_rows("vegas", 1.0, [2, 3, 2.5])
                     + queue_rows("fast", 1.0, [39, 41, 40]) + queue_rows("compound", 1.0, [5, 6, 7])
                     + queue_rows("newreno", 4.0, [190, 200, 195]) + queue_rows("vegas", 4.0, [2, 60, 140])
                     + queue_rows("compound", 4.0, [188, 198, 196]))
    t = mt.queue_table(m).set_index(["buffer (BDP)", "cc"])
    assert outcome(t.loc[(1.0, "vegas"), "verdict"]) == HOLDS
    assert outcome(t.loc[(1.0, "fast"), "verdict"]) == FAILS, "a queue as long as NewReno's is not short"
    assert t.loc[(1.0, "compound"), "verdict"] == "", "Compound is judged only with a large buffer"
    assert outcome(t.loc[(4.0, "vegas"), "verdict"]) == INCONCLUSIVE
    assert outcome(t.loc[(4.0, "compound"), "verdict"]) == HOLDS
    assert t.loc[(1.0, "vegas"), "× NewReno"] == pytest.approx(2.5 / 40)
    # Compound with half NewReno's goodput at a large buffer is not Reno-like
    m2 = pd.DataFrame(queue_rows("newreno", 4.0, [190, 200, 195]) + queue_rows("compound", 4.0, [190, 200, 195], 48.0))
    v = mt.queue_table(m2).set_index("cc").loc["compound", "verdict"]
    assert outcome(v) == FAILS and "goodput" in v


def friend_rows(cc, nr, other, loss=0.0, k=2):
    return [{"cc": cc, "k": k, "loss": loss, "seed": i + 1, "newreno Mb/s": a, "other Mb/s": b}
            for i, (a, b) in enumerate(zip(nr, other))]


def test_friendliness_verdicts_on_synthetic_data():
    m = pd.DataFrame(friend_rows("newreno", [50, 52, 48], [50, 48, 52])
                     + friend_rows("cubic", [20, 22, 18], [80, 78, 82])
                     + friend_rows("cubic_linux", [20, 60, 100], [80, 40, 0])
                     + friend_rows("compound", [49, 51, 50], [51, 49, 50]))
    t = mt.friend_table(m).set_index("cc")
    assert outcome(t.loc["cubic", "verdict"]) == HOLDS
    assert outcome(t.loc["cubic_linux", "verdict"]) == INCONCLUSIVE
    assert outcome(t.loc["compound", "verdict"]) == HOLDS
    assert t.loc["newreno", "verdict"] == "" and t.loc["newreno", "L"] == pytest.approx(1.0)
    assert {"NewReno flows Mb/s", "other flows Mb/s", "NewReno share", "L", "L ±95%"} <= set(t)
    m = pd.DataFrame(friend_rows("newreno", [50, 52, 48], [50, 48, 52])
                     + friend_rows("compound", [20, 22, 18], [80, 78, 82]))
    assert outcome(mt.friend_table(m).set_index("cc").loc["compound", "verdict"]) == FAILS


# --------------------------------------------------------------------------- quick sizes end to end


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("modern")
    dirs = {}
    for name in EXPERIMENTS:
        d, rep = run_experiment(name, size="quick", jobs=2, out=out, progress=False)
        assert not rep.failed and not rep.analysis_error, name
        dirs[name] = d
    return out, dirs


def table(d, name):
    return pd.read_csv(d / "tables" / f"{name}.csv")


def findings(d):
    return json.loads((d / "experiment.json").read_text())["findings"]


def test_quick_claims_have_rows_and_verdicts_for_every_registered_algorithm(quick):
    _, dirs = quick
    have = set(tcplab.algorithms())
    for name, ccs in CLAIM_CCS.items():
        t = table(dirs[name], TABLE[name])
        judged = {cc for cc, v in zip(t["cc"], t["verdict"]) if outcome(v)}
        for cc in ccs:
            assert cc in have and cc in judged, f"{name}: {cc} must be run and judged"
        seeds = {r.seed for r in get(name).plan("quick").runs}
        assert (t["runs"] == len(seeds)).all(), f"{name}: every row has one run per seed"


def test_quick_long_fat_pipe(quick):
    _, dirs = quick
    t = table(dirs["modern_long_fat_pipe"], "utilisation").set_index("cc")
    assert t.loc["newreno", "utilisation"] < 0.45, "NewReno cannot fill a 1 Gb/s, 100 ms path with 1e-6 errors"
    for cc in ("cubic_linux", "cubic", "highspeed", "scalable"):
        assert t.loc[cc, "utilisation"] > 1.5 * t.loc["newreno", "utilisation"], cc
    # H-TCP needs more than the quick size's 9 s after its first cut (its increase grows with
    # the time since the last loss), and on seeds 1-2 tcplab's H-TCP has one loss event more
    # than ns-2's TCP-Linux right after the slow-start recovery (docs/modern-tcp.md): only
    # "not refuted" is asked of it here.
    for cc in ("cubic_linux", "cubic", "highspeed", "scalable", "htcp"):
        assert outcome(t.loc[cc, "verdict"]) in (HOLDS, INCONCLUSIVE), cc
    for cc in ("cubic_linux", "highspeed", "scalable"):  # seeds 1-4: their intervals clear 1.5 × NewReno
        assert outcome(t.loc[cc, "verdict"]) == HOLDS, cc
    assert (t["utilisation"] <= 1.0).all() and (t["timeouts per run"] == 0).all()
    figs = json.loads((dirs["modern_long_fat_pipe"] / "experiment.json").read_text())["figures"]
    assert {f["name"] for f in figs} == {"utilisation", "cwnd"}


def test_quick_rtt_fairness(quick):
    _, dirs = quick
    t = table(dirs["modern_rtt_fairness"], "fairness").set_index("cc")
    assert t.loc["newreno", "throughput ratio 60/240"] > 3, "NewReno favours the short-RTT flow strongly"
    for cc in ("cubic_linux", "cubic"):
        assert t.loc[cc, "Jain index"] > t.loc["newreno", "Jain index"]
        assert outcome(t.loc[cc, "verdict"]) == HOLDS, cc


def test_quick_queue(quick):
    _, dirs = quick
    t = table(dirs["modern_queue"], "queue")
    nr = t[t["cc"] == "newreno"].set_index("buffer (BDP)")
    assert list(nr.index) == [1.0, 4.0]
    # NewReno fills what it is given: its queue grows with the buffer, the link stays busy
    assert nr.loc[4.0, "queueing delay ms"] > 3 * nr.loc[1.0, "queueing delay ms"]
    assert (nr["utilisation"] > 0.95).all()
    for _, r in t.iterrows():
        if r["cc"] in mt.SHORT_QUEUE or (r["cc"] in mt.RENO_LIKE and r["buffer (BDP)"] >= mt.LARGE_BDP):
            assert outcome(r["verdict"]) in (HOLDS, FAILS, INCONCLUSIVE)


def test_quick_friendliness(quick):
    _, dirs = quick
    t = table(dirs["modern_friendliness"], "friendliness").set_index("cc")
    assert abs(t.loc["newreno", "NewReno share"] - 0.5) < 0.15
    for cc in ("cubic_linux", "cubic"):
        assert t.loc[cc, "NewReno share"] < 0.3 and outcome(t.loc[cc, "verdict"]) == HOLDS, cc


def test_quick_results_can_be_published(quick, tmp_path):
    out, _ = quick
    docs = tmp_path / "docs"
    docs.mkdir()
    with pytest.raises(publish.Refused, match="not 'full'"):
        publish.collect(out, list(EXPERIMENTS), docs=docs)
    publish.collect(out, list(EXPERIMENTS), docs=docs, allow_quick=True)
    (docs / "modern.md").write_text(
        "<!-- tcplab:table modern_rtt_fairness/fairness columns=\"algorithm; Jain index +- Jain index ±95% as Jain; "
        "verdict\" -->\n<!-- tcplab:end -->\n\n"
        "<!-- tcplab:table modern_queue/queue columns=\"buffer (BDP); algorithm; "
        "queueing delay ms +- queueing delay ms ±95% as queue ms; verdict\" -->\n<!-- tcplab:end -->\n\n"
        "<!-- tcplab:findings modern_friendliness -->\n<!-- tcplab:end -->\n\n"
        "<!-- tcplab:scorecard modern_long_fat_pipe modern_rtt_fairness modern_queue modern_friendliness -->\n"
        "<!-- tcplab:end -->\n")
    assert publish.render(docs) == []
    text = (docs / "modern.md").read_text()
    assert "| CUBIC (Linux 2.6.22) |" in text and "holds: CUBIC" in text and "modern_long_fat_pipe | quick" in text
    assert publish.check(docs) == []

