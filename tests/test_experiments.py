import json
import subprocess
import sys

import pandas as pd
import pytest

from tcplab import experiments as ex
from tcplab.report import write_report
from tcplab.sweep import reproduce, run_experiment

from conftest import require_tool


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


def fake_experiment(size):
    runs = [ex.Run({"x": 1}, {"sim": {"duration": 1}, "nodes": [{"name": "a"}, {"name": "b"}],
                               "links": [{"a": "a", "b": "b", "rate": 1e6, "delay": 0.01}],
                               "flows": [{"src": "a", "dst": "b"}]}, 1)]

    def analyse(done):
        df = pd.DataFrame({"case": ["A"], "ours": [done[0].results.flows["goodput_bps"][0] / 1e6],
                           "paper: value": [0.9]})
        df["verdict"] = [ex.verdict(df["ours"][0] > 0.5, "goodput above 0.5 Mb/s")]
        return ex.Analysis(tables=[ex.Table("t", "A table with paper values", df, paper="A paper, Table 9")])

    return ex.Plan(runs, analyse, {"link": "1 Mb/s"})


def test_report_shows_paper_values_and_verdicts_in_a_real_browser(tmp_path, monkeypatch):
    monkeypatch.setitem(ex.REGISTRY, "fake", ex.Experiment("fake", "a fake experiment", "A paper", fake_experiment))
    d, _ = run_experiment("fake", out=tmp_path)
    d2, _ = run_experiment("dumbbell_newreno", size="quick", jobs=2, out=tmp_path)
    index = write_report([d, d2], tmp_path / "report")
    page = index.read_text()
    assert 'class="paper">paper: value' in page and "A paper, Table 9" in page
    assert 'class="ok">holds: goodput above 0.5 Mb/s' in page
    assert page.count("data:image/png;base64,") == 3, "figures are embedded"
    chromium = require_tool("chromium")
    shot = tmp_path / "shot.png"
    p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,3000",
                        f"--screenshot={shot}", index.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.exists(), p.stderr[-2000:]
    assert shot.stat().st_size > 50_000, "a rendered page with tables and figures, not a blank one"


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
