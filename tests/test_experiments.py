import json
import subprocess
import sys

import pandas as pd
import pytest

from tcplab import experiments as ex
from tcplab.sweep import run_experiment


def test_registry_lists_the_experiments():
    names = dict(ex.list_experiments())
    assert "dumbbell_newreno" in names
    with pytest.raises(ex.ExperimentError, match="allowed: .*dumbbell_newreno"):
        ex.get("nosuch")


def test_quick_dumbbell_experiment_end_to_end(tmp_path):
    d, rep = run_experiment("dumbbell_newreno", size="quick", jobs=2, out=tmp_path)
    assert not rep.failed
    doc = json.loads((d / "experiment.json").read_text())
    assert doc["size"] == "quick" and doc["seeds"] == [1, 2, 3]
    summary = pd.read_csv(d / "tables" / "summary.csv")
    # 10 Mb/s bottleneck: goodput below capacity, above 70 % of it; CIs from 3 replications.
    assert (summary["goodput Mb/s"] < 10).all() and (summary["goodput Mb/s"] > 7).all()
    assert (summary["runs"] == 3).all() and (summary["± 95% CI"] > 0).all()
    # More flows on a small buffer lose more.
    small = summary[summary["buffer"] == 10].set_index("flows")["loss rate"]
    assert small[8] > small[2]
    pftk = pd.read_csv(d / "tables" / "pftk.csv")
    assert (pftk["within 2x"] > 0.5).all(), "PFTK tracks the simulated send rate"
    for f in doc["figures"]:
        assert (d / f["png"]).stat().st_size > 5000 and (d / f["svg"]).exists()
    # A second run reuses every stored run.
    _, again = run_experiment("dumbbell_newreno", size="quick", jobs=2, out=tmp_path)
    assert again.reused == len(again.done) == 12


def test_cli_list_and_reproduce(tmp_path):
    p = subprocess.run([sys.executable, "-m", "tcplab.cli", "list"], capture_output=True, text=True)
    assert p.returncode == 0 and "dumbbell_newreno" in p.stdout
    p = subprocess.run([sys.executable, "-m", "tcplab.cli", "reproduce", "nosuch"], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.startswith("error: unknown experiment")
    p = subprocess.run([sys.executable, "-m", "tcplab.cli", "reproduce", "dumbbell_newreno", "--out", str(tmp_path),
                        "--jobs", "2"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "report" / "index.html").exists() and "report:" in p.stdout
    p = subprocess.run([sys.executable, "-m", "tcplab.cli", "report", str(tmp_path / "dumbbell_newreno"), "-o",
                        str(tmp_path / "r2")], capture_output=True, text=True)
    assert p.returncode == 0 and (tmp_path / "r2" / "index.html").exists()


def test_first_replications_keeps_each_configurations_first_seeds_in_plan_order():
    runs = [ex.Run({"a": 1}, {}, s) for s in (1, 2, 3, 4, 5)] + [ex.Run({"a": 2}, {}, s) for s in (3, 1, 2)]
    runs.append(ex.Run({"a": 1}, {"other": True}, 2))  # a second run of a kept seed stays
    kept = ex.first_replications(runs, 2)
    assert [(r.params["a"], r.seed) for r in kept] == [(1, 1), (1, 2), (2, 3), (2, 1), (1, 2)]
    assert ex.planned_replications(runs) == 5 and ex.planned_replications(kept) == 2
    assert ex.first_replications(runs, None) == runs and ex.first_replications(runs, 9) == runs
    for bad in (0, -1, True, 2.5, "3"):
        with pytest.raises(ex.ExperimentError, match=r"replications .* is not allowed; allowed: an integer of at "
                                                     r"least 1"):
            ex.first_replications(runs, bad)


def test_fewer_replications_run_first_and_a_later_sweep_adds_the_rest(tmp_path):
    d, rep = run_experiment("dumbbell_newreno", size="quick", jobs=2, out=tmp_path, replications=1, progress=False)
    assert not rep.failed and len(rep.done) == 4
    doc = json.loads((d / "experiment.json").read_text())
    assert doc["seeds"] == [1] and (doc["replications"], doc["planned_replications"]) == (1, 3)
    summary = pd.read_csv(d / "tables" / "summary.csv")
    assert (summary["runs"] == 1).all() and summary["± 95% CI"].isna().all(), "no interval from one run"
    _, again = run_experiment("dumbbell_newreno", size="quick", jobs=2, out=tmp_path, progress=False)
    assert again.reused == 4 and len(again.done) == 12
    doc = json.loads((d / "experiment.json").read_text())
    assert doc["seeds"] == [1, 2, 3] and (doc["replications"], doc["planned_replications"]) == (3, 3)


def test_cli_refuses_a_bad_replication_count_in_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "out"
    for bad in ("0", "-2", "x"):
        p = subprocess.run([sys.executable, "-m", "tcplab.cli", "reproduce", "dumbbell_newreno", "--replications",
                            bad, "--out", str(out)], capture_output=True, text=True)
        assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert "--replications" in p.stderr or f"replications {bad} is not allowed" in p.stderr
        assert "Traceback" not in p.stderr and not out.exists()


# Building these plans alone takes seconds each (thousands of flows per spec); their full sizes
# use the same builders as their quick sizes, with more flows and longer runs.
SLOW_TO_PLAN = {"qiu_aggregate", "qiu_pftk", "qiu_random_processing"}


@pytest.mark.parametrize("name", [n for n, _ in ex.list_experiments() if n not in SLOW_TO_PLAN])
def test_every_configuration_of_the_full_size_is_a_valid_scenario(name):
    # The full sizes are never run by the suite, and some add what the quick sizes leave out
    # (the thesis's web load): each configuration's first seed is validated by the core.
    from tcplab import _core

    for r in ex.first_replications(ex.get(name).plan("full").runs, 1):
        try:
            _core.validate(json.dumps(r.spec))
        except _core.ScenarioError as e:
            pytest.fail(f"{name} {r.params} seed {r.seed}: {e}")
