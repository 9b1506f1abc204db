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
