"""The HTML report: scorecard, paper values, verdicts, failures and figures, checked in a real
browser; a reproduction's report keeps the experiments of earlier runs; progress on stderr."""
import io
import json
import re
import subprocess
import time

import pandas as pd
import pytest

from tcplab import experiments as ex
from tcplab import sweep, verdicts
from tcplab.report import reproduction_dirs, split_rule, write_report
from tcplab.sweep import Progress, reproduce, run_experiment

from conftest import require_tool

SPEC = {"sim": {"duration": 1}, "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"a": "a", "b": "b", "rate": 1e6, "delay": 0.01}], "flows": [{"src": "a", "dst": "b"}]}
WIDE_COLUMNS = 40


def three_panels():
    from tcplab import plots

    fig = plots.plt.figure(figsize=(18, 4.5))
    for i in range(3):
        ax = fig.add_subplot(1, 3, i + 1)
        ax.plot([0, 1, 2], [0, i, 2 * i])
        ax.set_title(f"panel {i + 1}")
    return fig


def fake_experiment(size):
    runs = [ex.Run({"x": 1}, SPEC, 1)]

    def analyse(done):
        goodput = done[0].results.flows["goodput_bps"][0] / 1e6
        df = pd.DataFrame({"case": ["A"], "ours": [goodput], "paper: value": [0.9]})
        df["band: ours"] = [verdicts.band(goodput, 0.9)]
        df["verdict"] = [str(verdicts.deterministic(goodput > 0.5, "goodput above 0.5 Mb/s",
                                                    f"measured {goodput:.3g} vs 0.5"))]
        wide = pd.DataFrame({f"a rather long column name {i}": [i * 1000.5] for i in range(WIDE_COLUMNS)})
        return ex.Analysis(tables=[ex.Table("t", "A table with paper values", df, paper="A paper, Table 9"),
                                   ex.Table("wide", "A wide table", wide)],
                           figures=[ex.Figure("panels", "Three panels", three_panels())],
                           findings=["inconclusive: a claim we cannot decide [1 replication(s): no confidence "
                                     "interval]", "a plain finding"])

    return ex.Plan(runs, analyse, {"link": "1 Mb/s"})


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setitem(ex.REGISTRY, "fake", ex.Experiment("fake", "a fake experiment", "A paper", fake_experiment))
    return "fake"


def browser_measure(chromium, page, tmp_path, width=1400):
    """Open the page at `width` px in headless Chromium and return what a script measured once
    everything (the embedded figures too) was laid out."""
    probe = """<script>window.addEventListener('load', () => {
      const boxes = [...document.querySelectorAll('.scroll')];
      const card = document.getElementById('scorecard');
      const firstSection = document.querySelector('h2[id]:not(#scorecard-heading)');
      const figs = [...document.querySelectorAll('.fig.wide img')];
      const out = {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
        bodyWidth: document.body.getBoundingClientRect().width,
        scorecardTop: card.getBoundingClientRect().top, firstSectionTop: firstSection.getBoundingClientRect().top,
        scrollingBoxes: boxes.filter(b => b.scrollWidth > b.clientWidth).length,
        boxesWiderThanPage: boxes.filter(b => b.getBoundingClientRect().right > window.innerWidth).length,
        wideFigureWidths: figs.map(f => f.getBoundingClientRect().width)};
      const pre = document.createElement('pre'); pre.id = 'measured'; pre.textContent = JSON.stringify(out);
      document.body.appendChild(pre);
    });</script>"""
    probed = tmp_path / "probed.html"
    probed.write_text(page.replace("</body>", probe + "</body>"))
    p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", f"--window-size={width},1000",
                        "--hide-scrollbars", "--virtual-time-budget=10000", "--dump-dom", probed.as_uri()],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="measured">(.*?)</pre>', p.stdout)
    assert m, p.stderr[-2000:]
    return json.loads(m.group(1).replace("&quot;", '"'))


def test_report_shows_paper_values_and_verdicts_in_a_real_browser(tmp_path, fake):
    d, _ = run_experiment("fake", out=tmp_path, progress=False)
    d2, _ = run_experiment("dumbbell_newreno", size="quick", jobs=2, out=tmp_path, progress=False)
    index = write_report([d, d2], tmp_path / "report")
    page = index.read_text()
    assert 'class="paper">paper: value' in page and "A paper, Table 9" in page
    assert ('<td class="holds"><div class="verdict">holds: goodput above 0.5 Mb/s'
            '<span class="rule">rule: measured ') in page, "the verdict coloured, its rule visible"
    assert '<td class="inside">inside ±25%</td>' in page
    assert '<li class="inconclusive">inconclusive: a claim we cannot decide<span class="rule">rule: 1 replication' in page
    assert "<li>a plain finding</li>" in page
    assert page.count("data:image/png;base64,") == 4, "figures are embedded"
    assert page.index('id="scorecard"') < page.index('<h2 id="fake">'), "the scorecard comes first"
    assert '<figure class="fig wide">' in page and '<figure class="fig narrow">' in page
    chromium = require_tool("chromium")
    shot = tmp_path / "shot.png"
    p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,3000",
                        f"--screenshot={shot}", index.as_uri()], capture_output=True, text=True, timeout=120)
    assert shot.exists(), p.stderr[-2000:]
    assert shot.stat().st_size > 50_000, "a rendered page with tables and figures, not a blank one"
    seen = browser_measure(chromium, page, tmp_path)
    assert seen["scrollWidth"] <= 1400, f"the page overflows sideways at 1400 px: {seen}"
    assert seen["scorecardTop"] < 400 and seen["scorecardTop"] < seen["firstSectionTop"], seen
    assert seen["scrollingBoxes"] >= 1 and seen["boxesWiderThanPage"] == 0, "the wide table scrolls in its own box"
    assert seen["bodyWidth"] > 1300, "the content uses a 1400 px window"
    assert seen["wideFigureWidths"] and min(seen["wideFigureWidths"]) > 1200, "a three-panel figure spans the page"


def test_wide_tables_are_inside_a_scrolling_box(tmp_path, fake):
    d, _ = run_experiment("fake", out=tmp_path, progress=False)
    page = write_report([d], tmp_path / "report").read_text()
    css = page[page.index("<style>"):page.index("</style>")]
    assert re.search(r"\.scroll \{[^}]*overflow-x: auto", css)
    tables = re.findall(r"(.{0,40})<table>(?:(?!</table>).)*a rather long column name 39", page, re.S)
    assert tables and tables[0].endswith('<div class="scroll">')
    assert page.count("<table") == page.count('<div class="scroll"><table'), "every table has its box"


def write_experiment_dir(root, name, *, verdict_cells, band_cells, findings, stored=None, runs=None,
                         analysis_error=None, size="quick"):
    d = root / name
    (d / "tables").mkdir(parents=True)
    pd.DataFrame({"x": range(len(verdict_cells)), "verdict": verdict_cells,
                  "band: y": band_cells}).to_csv(d / "tables" / "t.csv", index=False)
    doc = {"name": name, "description": "constructed", "size": size, "reused": 0, "seeds": [1, 2],
           "runs": runs if runs is not None else [{"params": {}, "seed": 1, "key": "k", "status": "done",
                                                    "wall_seconds": 0.5}],
           "tables": [{"name": "t", "title": "T", "csv": "tables/t.csv"}], "figures": [], "findings": findings,
           "analysis_error": analysis_error}
    if stored is not None or analysis_error:
        doc["scorecard"] = stored
        doc["provenance"] = {"tcplab": "0.0", "commit": "abc123", "date": "2026-01-02 03:04 UTC", "machine": "x"}
    (d / "experiment.json").write_text(json.dumps(doc))
    return d


def scorecard_rows(page):
    """{experiment: (counts, status)} from the scorecard table."""
    table = re.search(r'<table class="scorecard".*?</table>', page, re.S).group(0)
    rows = {}
    for tr in re.findall(r"<tr(?: class=\"total\")?>(.*?)</tr>", table, re.S)[1:]:
        name = re.sub(r"<[^>]+>", "", re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)[0])
        counts = [None if c == "–" else int(c) for c in re.findall(r'<td class="n[^"]*">([^<]*)</td>', tr)]
        status = re.sub(r"<[^>]+>", "", re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)[-1])
        rows[name] = (counts, status)
    return rows


def test_scorecard_counts_each_experiment_and_the_total(tmp_path):
    rule = " [95% CI over 3 replications [0.1, 0.2] vs 0.5]"
    old = write_experiment_dir(  # written before experiment.json kept a scorecard: counted from the CSVs
        tmp_path, "old", verdict_cells=["holds: a" + rule, "holds: b", "does not hold: c" + rule,
                                        "inconclusive: d" + rule, "not a verdict"],
        band_cells=["inside ±25%", "inside ±25%", "outside ±25%", "", "inside ±10%"],
        findings=["holds: e [rule]", "does not hold: f", "a plain finding"])
    new = write_experiment_dir(  # the stored scorecard is used as it is
        tmp_path, "new", verdict_cells=["holds: a"], band_cells=[""], findings=[],
        stored={"holds": 7, "does not hold": 0, "inconclusive": 2, "inside": 1, "outside": 4}, size="full")
    broken = write_experiment_dir(tmp_path, "broken", verdict_cells=[], band_cells=[], findings=[],
                                  analysis_error="ZeroDivisionError: no points")
    failing = write_experiment_dir(
        tmp_path, "failing", verdict_cells=["holds: a"], band_cells=["outside ±25%"], findings=[],
        runs=[{"params": {}, "seed": 1, "key": "k1", "status": "done", "wall_seconds": 1.0},
              {"params": {}, "seed": 2, "key": "k2", "status": "failed", "error": "boom"}])
    page = write_report([old, new, broken, failing], tmp_path / "report").read_text()
    rows = scorecard_rows(page)
    assert rows["old"] == ([3, 2, 1, 3, 1], "complete")
    assert rows["new"] == ([7, 0, 2, 1, 4], "complete")
    assert rows["broken"] == ([None] * 5, "the analysis failed")
    assert rows["failing"] == ([1, 0, 0, 0, 1], "1 of 2 runs failed")
    assert rows["total (4 experiments)"] == ([11, 2, 3, 4, 6], "2 with failures")
    assert '<a href="#old">old</a>' in page and '<h2 id="old">old</h2>' in page, "rows link to their sections"
    assert "different sizes (3 quick, 1 full)" in page, "mixed sizes are pointed out"
    assert "commit abc123" in page and "2026-01-02 03:04 UTC" in page, "each section says where it comes from"
    assert '<td class="fails"><div class="verdict">does not hold: c<span class="rule">rule: 95% CI over 3' in page
    assert '<td class="inconclusive"><div class="verdict">inconclusive: d' in page
    assert '<td class="outside">outside ±25%</td>' in page and '<td class="text">not a verdict</td>' in page


def test_rules_are_split_off_with_their_own_brackets():
    assert split_rule("holds: a [95% CI [0.1, 0.2] vs 0]") == ("holds: a", "95% CI [0.1, 0.2] vs 0")
    assert split_rule("holds: a") == ("holds: a", None)
    assert split_rule("holds: [x] y") == ("holds: [x] y", None)


def tiny_experiment(name, sleep=0.0):
    def plan(size):
        def analyse(done):
            time.sleep(sleep)  # long enough for the progress to show the phase
            g = done[0].results.flows["goodput_bps"][0]
            df = pd.DataFrame({"goodput": [g], "verdict": [f"holds: {name} ran [measured {g:.3g}]"]})
            return ex.Analysis(tables=[ex.Table("t", f"{name}'s table", df)])

        return ex.Plan([ex.Run({"x": 1}, SPEC, 1)], analyse)

    return ex.Experiment(name, f"tiny experiment {name}", None, plan)


def test_a_second_reproduction_keeps_the_other_experiments(tmp_path, monkeypatch):
    for name in ("tiny_b", "tiny_a"):
        monkeypatch.setitem(ex.REGISTRY, name, tiny_experiment(name))
    out = tmp_path / "results"
    reproduce(["tiny_b"], out=out, jobs=1)
    first = (out / "tiny_b" / "experiment.json").read_text()
    page = (out / "report" / "index.html").read_text()
    assert '<h2 id="tiny_b">' in page and '<h2 id="tiny_a">' not in page
    # The user's own directory that looks like an experiment is not tcplab's: left out.
    (out / "notes").mkdir()
    (out / "notes" / "experiment.json").write_text(json.dumps({"name": "notes", "runs": [], "tables": []}))
    index = reproduce(["tiny_a"], out=out, jobs=1, size="full")
    page = index.read_text()
    assert (out / "tiny_b" / "experiment.json").read_text() == first, "tiny_b was not run again"
    assert '<h2 id="tiny_a">' in page and '<h2 id="tiny_b">' in page, "both sections are in the report"
    assert page.index('<h2 id="tiny_a">') < page.index('<h2 id="tiny_b">'), "in the registry's order"
    assert "notes" not in page
    assert "different sizes (1 full, 1 quick)" in page
    assert set(scorecard_rows(page)) == {"tiny_a", "tiny_b", "total (2 experiments)"}
    assert reproduction_dirs(out, ["tiny_a", "tiny_b", "notes_missing"]) == ([out / "tiny_a", out / "tiny_b"], [])


def test_reproduce_shows_each_phase_in_a_log(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(ex.REGISTRY, "tiny_slow", tiny_experiment("tiny_slow", sleep=1.0))
    monkeypatch.setattr(Progress, "EVERY", 0.2)
    monkeypatch.setattr(Progress, "QUIET", 0.4)
    monkeypatch.setattr(Progress, "BEAT", 0.05)
    reproduce(["tiny_slow"], out=tmp_path / "r", jobs=1)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert "[tiny_slow] 1/1 runs, 0 failed, elapsed " in err, "the sweep"
    assert any(line.startswith("[tiny_slow] analysing 1 run: ") for line in lines), err
    assert re.search(r"^\[tiny_slow\] done in [\d.]+ s: planning [\d.]+ s; 1 run [\d.]+ s; analysis [\d.]+ s; "
                     r"1 table and 0 figures written in [\d.]+ s; peak memory: largest run [\d.]+ [MG]B "
                     r"\(1 of 1 runs measured\), sweep [\d.]+ [MG]B, analysis [\d.]+ [MG]B$", err, re.M), err
    assert re.search(r"^\[report\] 1 experiment, [\d.]+ MB, written in [\d.]+ s$", err, re.M), err
    assert "\r" not in err, "a log gets whole lines"


class Clock:
    def __init__(self):
        self.now = 1000.0

    def time(self):
        return self.now


def test_progress_into_a_log_is_never_flooded_nor_silent_for_long(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(sweep, "time", clock)
    monkeypatch.setattr(Progress, "BEAT", 3600)  # no heartbeat: the test ticks
    out = io.StringIO()
    bar = Progress("exp", stream=out)
    with bar.phase("analysing 80 runs", 80, "read"):
        for i in range(80):  # a run read every 1/8 s: a line every EVERY seconds, no more
            clock.now += 0.125
            bar.update()
            bar.tick()
        lines = out.getvalue().splitlines()
        assert lines == ["[exp] analysing 80 runs: 40/80 read, 5 s", "[exp] analysing 80 runs: 80/80 read, 10 s"]
        for _ in range(21):  # nothing read for 21 s: a line every QUIET seconds
            clock.now += 1
            bar.tick()
        assert out.getvalue().splitlines()[2:] == ["[exp] analysing 80 runs: 80/80 read, 20 s",
                                                   "[exp] analysing 80 runs: 80/80 read, 30 s"]
    # The next phase (another Progress on the same stream) counts from the last line written.
    other = Progress("report", stream=out)
    with other.phase("3 experiments"):
        for _ in range(4):
            clock.now += 1
            other.tick()
        assert len(out.getvalue().splitlines()) == 5 and out.getvalue().endswith("[report] 3 experiments, 4 s\n")


def test_progress_on_a_terminal_keeps_one_line_current(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    clock = Clock()
    monkeypatch.setattr(sweep, "time", clock)
    monkeypatch.setattr(Progress, "BEAT", 3600)  # no heartbeat: the test ticks
    out = Terminal()
    bar = Progress("exp", stream=out)
    with bar.phase("planning"):
        for _ in range(3):
            clock.now += 1
            bar.tick()
    bar.finish("done in 3.0 s")
    assert out.getvalue() == ("\r\x1b[K[exp] planning, 1 s\r\x1b[K[exp] planning, 2 s\r\x1b[K[exp] planning, 3 s"
                              "\r\x1b[K[exp] done in 3.0 s\n")


def failing_experiment(size):
    bad = json.loads(json.dumps(SPEC))
    bad["flows"][0]["cc"] = "nosuch"
    runs = [ex.Run({"case": "good"}, SPEC, 1), ex.Run({"case": "bad"}, bad, 1)]

    def analyse(done):
        raise RuntimeError("analysis blew up")

    return ex.Plan(runs, analyse, {})


def test_report_lists_failed_runs_and_a_failed_analysis(tmp_path, monkeypatch):
    monkeypatch.setitem(ex.REGISTRY, "failing", ex.Experiment("failing", "fails", None, failing_experiment))
    d, rep = run_experiment("failing", out=tmp_path, progress=False)
    assert len(rep.failed) == 1 and len(rep.done) == 1
    page = write_report([d], tmp_path / "report").read_text()
    assert "1 run(s) failed" in page and "flows[0].cc" in page
    assert "The analysis failed" in page and "analysis blew up" in page
    assert "Runs (2): parameters, seeds, wall times" in page
    assert scorecard_rows(page)["failing"] == ([None] * 5, "1 of 2 runs failed; the analysis failed")


def test_the_browser_check_skips_locally_but_fails_in_ci(monkeypatch):
    import conftest

    monkeypatch.setattr(conftest.shutil, "which", lambda name: None)
    monkeypatch.setattr(conftest, "IN_CI", False)
    with pytest.raises(pytest.skip.Exception):
        require_tool("chromium")
    monkeypatch.setattr(conftest, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception, match="required in CI"):
        require_tool("chromium")


def test_a_section_says_when_fewer_replications_ran_than_its_size_plans(tmp_path):
    d = write_experiment_dir(tmp_path, "cut", verdict_cells=["holds: a"], band_cells=[""], findings=[], size="full")
    doc = json.loads((d / "experiment.json").read_text())
    page = write_report([d], tmp_path / "r1").read_text()
    assert "replications" not in page.split("seeds 1, 2", 1)[1].split("</", 1)[0]
    doc.update(replications=2, planned_replications=5)
    (d / "experiment.json").write_text(json.dumps(doc))
    page = write_report([d], tmp_path / "r2").read_text()
    assert "seeds 1, 2 · 2 of the size's 5 replications · " in page
