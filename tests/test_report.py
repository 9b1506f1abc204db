"""The HTML report: paper values, verdicts, failures and figures, checked in a real browser."""
import json
import subprocess

import pandas as pd

from tcplab import experiments as ex
from tcplab.report import write_report
from tcplab.sweep import run_experiment

from conftest import require_tool

SPEC = {"sim": {"duration": 1}, "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"a": "a", "b": "b", "rate": 1e6, "delay": 0.01}], "flows": [{"src": "a", "dst": "b"}]}


def fake_experiment(size):
    runs = [ex.Run({"x": 1}, SPEC, 1)]

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


def failing_experiment(size):
    bad = json.loads(json.dumps(SPEC))
    bad["flows"][0]["cc"] = "nosuch"
    runs = [ex.Run({"case": "good"}, SPEC, 1), ex.Run({"case": "bad"}, bad, 1)]

    def analyse(done):
        raise RuntimeError("analysis blew up")

    return ex.Plan(runs, analyse, {})


def test_report_lists_failed_runs_and_a_failed_analysis(tmp_path, monkeypatch):
    monkeypatch.setitem(ex.REGISTRY, "failing", ex.Experiment("failing", "fails", None, failing_experiment))
    d, rep = run_experiment("failing", out=tmp_path)
    assert len(rep.failed) == 1 and len(rep.done) == 1
    page = write_report([d], tmp_path / "report").read_text()
    assert "1 run(s) failed" in page and "flows[0].cc" in page
    assert "The analysis failed" in page and "analysis blew up" in page
    assert "Runs (2): parameters, seeds, wall times" in page


def test_the_browser_check_skips_locally_but_fails_in_ci(monkeypatch):
    import pytest

    import conftest

    monkeypatch.setattr(conftest.shutil, "which", lambda name: None)
    monkeypatch.setattr(conftest, "IN_CI", False)
    with pytest.raises(pytest.skip.Exception):
        require_tool("chromium")
    monkeypatch.setattr(conftest, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception, match="required in CI"):
        require_tool("chromium")
