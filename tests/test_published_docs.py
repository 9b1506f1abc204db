"""Result pages generated, never typed: every block between tcplab markers in docs/*.md must be
what `python -m tcplab.publish render` produces from docs/results; and the machinery itself
(collect, render, check) on a small synthetic reproduction."""
from __future__ import annotations

import json
import os

import pandas as pd
import pytest

from tcplab import publish
from tcplab.experiments import Analysis, Experiment, Plan, Run, Table
from tcplab.sweep import SweepReport, write_experiment


def test_docs_match_their_stored_results():
    problems = publish.check()
    assert not problems, "stale or broken generated blocks (run `make docs`):\n" + "\n".join(map(str, problems))


# --------------------------------------------------------------------------- a synthetic reproduction


class FakeStore:
    def meta(self, key):
        return {"wall_seconds": {"k1": 2.0, "k2": 3.5, "k3": 1.0}.get(key)}


def toy_tables() -> list[Table]:
    summary = pd.DataFrame({
        "flows": [1, 2, 4],
        "goodput Mb/s": [3.41234, 7.0, 9.87654],
        "goodput ±": [0.1234, float("nan"), 0.00456],
        "loss": [0.000123456, 0.0, 12345.678],
        "verdict": ["holds: a | b [95% CI]", "does not hold: c [rule]", "inconclusive: d [rule]"],
        "note": ["n/a", "", "x"],
    })
    other = pd.DataFrame({"k": ["a"], "v": [1.5]})
    return [Table("summary", "Toy summary", summary, paper="Table 9", note="a note"),
            Table("other", "Other", other)]


def reproduction(root, name="toy", size="full", failed=False, analysis_error=None, tables=None):
    """A reproduction directory written by the real write_experiment, with stand-ins for the
    sweep."""
    exp = Experiment(name, "A toy experiment", "Someone et al.", plan=lambda s: None)
    runs = [Run({"n": i}, {}, seed=s) for i, s in ((1, 1), (2, 2), (3, 3))]
    plan = Plan(runs, analyse=lambda d: None, parameters={"rate": "1 Mb/s"})
    rep = SweepReport(done=[(r, f"k{i + 1}") for i, r in enumerate(runs)], wall_seconds=4.25)
    if failed:
        rep.failed = [(rep.done[-1][0], "k3", "simulator error")]
        rep.done = rep.done[:-1]
    findings = ["holds: x [rule]", "plain"]
    analysis = None if analysis_error else Analysis(tables=tables or toy_tables(), findings=findings)
    write_experiment(root, exp, size, plan, rep, FakeStore(), analysis, analysis_error)
    return root


@pytest.fixture
def setup(tmp_path):
    """(reproduction directory, docs directory with the toy results collected)."""
    src = reproduction(tmp_path / "repro")
    docs = tmp_path / "docs"
    docs.mkdir()
    publish.collect(src, ["toy"], docs)
    return src, docs


# --------------------------------------------------------------------------- collect


def test_collect_keeps_a_compact_summary_and_the_tables(setup):
    src, docs = setup
    d = docs / "results" / "toy"
    doc = json.loads((d / "experiment.json").read_text())
    assert set(doc["provenance"]) == {"tcplab", "core", "commit", "date", "machine"}
    assert doc["size"] == "full" and doc["seeds"] == [1, 2, 3] and doc["runs"] == 3
    assert doc["run_wall_seconds"] == {"total": 6.5, "max": 3.5}
    assert doc["sweep_wall_seconds"] == 4.25
    assert doc["scorecard"]["holds"] == 2 and doc["scorecard"]["does not hold"] == 1
    assert doc["findings"] == ["holds: x [rule]", "plain"]
    assert [t["name"] for t in doc["tables"]] == ["summary", "other"]
    assert doc["tables"][0] == {"name": "summary", "title": "Toy summary", "paper": "Table 9", "note": "a note",
                                "csv": "tables/summary.csv"}
    assert "keys" not in json.dumps(doc) and "analysis_error" not in doc
    assert sorted(p.name for p in (d / "tables").iterdir()) == ["other.csv", "summary.csv"]
    assert (d / "tables" / "summary.csv").read_bytes() == (src / "toy" / "tables" / "summary.csv").read_bytes()
    assert sorted(p.name for p in d.iterdir()) == ["experiment.json", "tables"]


def test_collect_replaces_earlier_results_and_leaves_no_temporary_files(setup, tmp_path):
    src, docs = setup
    src2 = reproduction(tmp_path / "repro2", tables=[Table("only", "Only", pd.DataFrame({"a": [1]}))])
    publish.collect(src2, [], docs)
    assert sorted(p.name for p in (docs / "results" / "toy" / "tables").iterdir()) == ["only.csv"]
    assert sorted(p.name for p in (docs / "results").iterdir()) == ["toy"]


def test_collect_leaves_out_large_parameters(tmp_path):
    doc = {"name": "x", "runs": [], "parameters": {"grid": list(range(2000))}}
    assert "parameters" not in publish.compact(doc)
    assert publish.compact({"name": "x", "runs": [], "parameters": {"a": 1}})["parameters"] == {"a": 1}


@pytest.mark.parametrize("kind, message", [
    ("quick", "not 'full'"),
    ("failed", "1 of 3 runs failed"),
    ("analysis", "its analysis failed (ValueError: boom)"),
])
def test_collect_refuses_with_one_line_and_status_2(tmp_path, capsys, kind, message):
    src = reproduction(tmp_path / "repro", size="quick" if kind == "quick" else "full", failed=kind == "failed",
                       analysis_error="ValueError: boom\nTraceback ..." if kind == "analysis" else None)
    docs = tmp_path / "docs"
    docs.mkdir()
    assert publish.main(["collect", str(src), "toy", "--docs", str(docs)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "toy" in err
    assert not (docs / "results").exists()


def test_collect_publishes_quick_results_when_allowed(tmp_path):
    src = reproduction(tmp_path / "repro", size="quick")
    docs = tmp_path / "docs"
    assert publish.main(["collect", str(src), "--allow-quick", "--docs", str(docs)]) == 0
    assert json.loads((docs / "results" / "toy" / "experiment.json").read_text())["size"] == "quick"


def test_collect_checks_every_experiment_before_writing_any(tmp_path):
    src = reproduction(tmp_path / "repro")
    reproduction(tmp_path / "repro", name="bad", failed=True)
    docs = tmp_path / "docs"
    with pytest.raises(publish.Refused, match="bad: refused"):
        publish.collect(src, ["toy", "bad"], docs)
    assert not (docs / "results").exists()


def test_collect_refuses_an_unknown_experiment(tmp_path):
    src = reproduction(tmp_path / "repro")
    with pytest.raises(publish.Refused, match="nothere"):
        publish.collect(src, ["nothere"], tmp_path / "docs")


# --------------------------------------------------------------------------- render and check

BEFORE = "# Doc\r\n\r\nText with trailing spaces   \nand a tab\there.\n\n"
BETWEEN = "\nMore text, ü, and `<!-- tcplab:table nope/nope -->` inline.\n"
AFTER = "\n```\n<!-- tcplab:table nope/nope -->\n<!-- tcplab:end -->\n```\nno final newline"
TABLE_MARKER = ('<!-- tcplab:table toy/summary columns="flows as n; goodput Mb/s +- goodput ± as goodput; '
                'loss; verdict" -->')


def write_doc(docs, name="page.md", old_inner="\nhand-typed, out of date\n"):
    text = (BEFORE + TABLE_MARKER + old_inner + "<!-- tcplab:end -->" + BETWEEN +
            "<!-- tcplab:findings\n     toy -->\n<!-- tcplab:end -->" + AFTER)
    (docs / name).write_bytes(text.encode())
    return docs / name


def test_check_names_a_stale_block_and_render_fixes_it(setup, capsys):
    _, docs = setup
    write_doc(docs)
    assert publish.main(["check", "--docs", str(docs)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2
    assert err[0].startswith("docs/page.md:6: <!-- tcplab:table toy/summary columns=") and "stale" in err[0]
    assert err[1].startswith("docs/page.md:10: <!-- tcplab:findings toy -->") and "stale" in err[1]
    assert publish.main(["render", "--docs", str(docs)]) == 0
    assert publish.main(["check", "--docs", str(docs)]) == 0
    assert publish.check(docs) == []


def test_render_writes_the_expected_markdown(setup):
    _, docs = setup
    page = write_doc(docs)
    publish.render(docs)
    text = page.read_text()
    table = text[text.index(TABLE_MARKER) + len(TABLE_MARKER):text.index("<!-- tcplab:end -->")]
    lines = table.strip("\n").split("\n")
    assert lines[:5] == [
        "| n | goodput | loss | verdict |",
        "|---:|---:|---:|---|",
        "| 1 | 3.41 ± 0.12 | 0.0001235 | holds: a \\| b [95% CI] |",
        "| 2 | 7 | 0 | does not hold: c [rule] |",
        "| 4 | 9.877 ± 0.0046 | 12346 | inconclusive: d [rule] |",
    ]
    assert lines[5] == ""
    prov = lines[6]
    assert prov.startswith("<sub>Generated from `docs/results/toy`, table `summary`: full size, seeds 1–3, 3 runs")
    assert "6.5 s of run time, longest 3.5 s; sweep 4.25 s" in prov
    assert "tcplab reproduce toy --size full --out results-full && python -m tcplab.publish collect " \
           "results-full toy && make docs" in prov
    assert "- holds: x [rule]\n- plain\n\n<sub>Generated from `docs/results/toy`:" in text


def test_render_changes_nothing_outside_the_blocks(setup):
    _, docs = setup
    page = write_doc(docs)
    before = page.read_bytes()
    publish.render(docs)
    after = page.read_bytes()
    head = (BEFORE + TABLE_MARKER).encode()
    middle = ("<!-- tcplab:end -->" + BETWEEN + "<!-- tcplab:findings\n     toy -->").encode()
    assert before.startswith(head) and after.startswith(head)
    assert middle in after
    assert after.endswith(("<!-- tcplab:end -->" + AFTER).encode())
    # Rendering again changes nothing at all.
    publish.render(docs)
    assert page.read_bytes() == after


def test_render_leaves_a_current_file_untouched(setup):
    _, docs = setup
    page = write_doc(docs)
    publish.render(docs)
    stamp = page.stat().st_mtime_ns
    os.utime(page, ns=(stamp - 10**9, stamp - 10**9))
    publish.render(docs)
    assert page.stat().st_mtime_ns == stamp - 10**9


def test_render_is_atomic(setup, monkeypatch):
    _, docs = setup
    page = write_doc(docs)
    before = page.read_bytes()

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(publish.os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        publish.render(docs)
    assert page.read_bytes() == before
    assert sorted(p.name for p in docs.iterdir()) == ["page.md", "results"]


def test_a_stale_block_is_found_after_the_results_change(setup):
    _, docs = setup
    write_doc(docs)
    publish.render(docs)
    csv = docs / "results" / "toy" / "tables" / "summary.csv"
    csv.write_text(csv.read_text().replace("3.41234", "3.51234"))
    problems = publish.check(docs)
    assert [(p.path, p.line, "stale" in p.message) for p in problems] == [("docs/page.md", 6, True)]


@pytest.mark.parametrize("marker, message", [
    ("<!-- tcplab:table nope/summary -->", "no stored results for experiment 'nope'"),
    ("<!-- tcplab:table toy/nope -->", "has no table 'nope' (tables: summary, other)"),
    ('<!-- tcplab:table toy/summary columns="flows; nope" -->', "no column 'nope'"),
    ('<!-- tcplab:table toy/summary sort=flows -->', "unknown option(s) sort"),
    ('<!-- tcplab:table toy/summary rows="nope > 1" -->', "rows='nope > 1'"),
    ("<!-- tcplab:table toy -->", "expected <!-- tcplab:table EXPERIMENT/TABLE"),
    ("<!-- tcplab:findings ../toy -->", "no stored results for experiment '../toy'"),
    ("<!-- tcplab:provenance nope -->", "no stored results for experiment 'nope'"),
    ("<!-- tcplab:scorecard toy nope -->", "no stored results for experiment 'nope'"),
    ("<!-- tcplab:tabel toy/summary -->", "unknown marker tcplab:tabel"),
])
def test_a_marker_naming_what_does_not_exist_is_an_error(setup, capsys, marker, message):
    _, docs = setup
    page = docs / "page.md"
    page.write_text(f"intro\n\n{marker}\nold\n<!-- tcplab:end -->\n")
    before = page.read_bytes()
    assert publish.main(["check", "--docs", str(docs)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"docs/page.md:3: {marker}: ") and message in err
    assert publish.main(["render", "--docs", str(docs)]) == 1
    assert page.read_bytes() == before


@pytest.mark.parametrize("text, line, message", [
    ("a\n<!-- tcplab:provenance toy -->\nb\n", 2, "no <!-- tcplab:end --> after it"),
    ("a\n<!-- tcplab:end -->\n", 2, "tcplab:end without an opening marker"),
    ("<!-- tcplab:provenance toy -->\n<!-- tcplab:provenance toy -->\n<!-- tcplab:end -->\n", 1,
     "no <!-- tcplab:end --> before the next marker"),
])
def test_unpaired_markers_are_errors(setup, text, line, message):
    _, docs = setup
    (docs / "page.md").write_text(text)
    problems = publish.check(docs)
    assert (line, message) in [(p.line, p.message) for p in problems]


def test_rows_digits_and_other_blocks(setup):
    _, docs = setup
    page = docs / "page.md"
    page.write_text('<!-- tcplab:table toy/summary columns="flows; loss" rows="flows >= 2 and `goodput Mb/s` > 8" '
                    'digits=2 -->\n<!-- tcplab:end -->\n'
                    "<!-- tcplab:provenance toy -->\n<!-- tcplab:end -->\n"
                    "<!-- tcplab:scorecard -->\n<!-- tcplab:end -->\n")
    assert publish.render(docs) == []
    text = page.read_text()
    assert "| flows | loss |\n|---:|---:|\n| 4 | 12346 |\n\n<sub>" in text
    assert "<!-- tcplab:provenance toy -->\n<sub>Generated from `docs/results/toy`: full size" in text
    assert ("| toy | full | 2 | 1 | 1 | 0 | 0 |" in text and "| all |  | 2 | 1 | 1 | 0 | 0 |  |  |" in text)


def test_no_markers_means_nothing_to_do(tmp_path):
    (tmp_path / "plain.md").write_text("# nothing\n| a | b |\n")
    assert publish.check(tmp_path) == [] and publish.render(tmp_path) == []


@pytest.mark.parametrize("mean, half, expected", [
    (3.41234, 0.1234, "3.41 ± 0.12"),
    (0.05123, 0.0001234, "0.05123 ± 0.00012"),
    (123456.0, 1234.0, "123500 ± 1200"),
    (-0.001, 0.5, "0.00 ± 0.50"),
    (2.0, 0.0, "2 ± 0"),
    (9.87654, 0.00456, "9.877 ± 0.0046"),
    (3.41, 1e-12, "3.410 ± 1e-12"),
    (2.0, float("nan"), "2"),
    (float("nan"), 0.1, "—"),
])
def test_mean_and_half_width(mean, half, expected):
    assert publish.format_mean_pm(mean, half) == expected


@pytest.mark.parametrize("x, expected", [
    (5, "5"), (5.0, "5"), (0.000123456, "0.0001235"), (12345.678, "12346"), (1.5e-9, "1.5e-09"),
    (float("nan"), "—"), (-0.0, "0"), ("a|b", "a\\|b"), (True, "True"),
])
def test_numbers(x, expected):
    assert publish.format_number(x) == expected


def test_without_a_checkout_nothing_is_written_unless_docs_is_given(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(publish, "CHECKOUT", tmp_path / "site-packages")
    monkeypatch.setattr(publish, "DOCS_DIR", tmp_path / "site-packages" / "docs")
    assert publish.main(["render"]) == 2
    assert "pass --docs DIR" in capsys.readouterr().err
    assert not (tmp_path / "site-packages").exists()


def test_the_provenance_line_names_peak_memory_when_the_reproduction_measured_it(setup):
    src, docs = setup
    doc = json.loads((docs / "results" / "toy" / "experiment.json").read_text())
    assert "peak memory" not in publish.provenance_line(doc), "not measured: not mentioned"
    repro = json.loads((src / "toy" / "experiment.json").read_text())
    repro.update(run_peak_rss_bytes=1_074_884_608, sweep_peak_rss_bytes=100_000_000,
                 analysis_peak_rss_bytes=1_178_304_512)
    kept = publish.compact(repro)
    assert kept["peak_rss_bytes"] == {"run": 1_074_884_608, "sweep": 100_000_000, "analysis": 1_178_304_512}
    line = publish.provenance_line(kept)
    assert "sweep 4.25 s; peak memory 1.07 GB per run, 1.18 GB in the analysis)" in line


def test_the_provenance_line_says_when_fewer_replications_ran_and_how_to_regenerate_them(setup):
    src, _ = setup
    repro = json.loads((src / "toy" / "experiment.json").read_text())
    assert "replications" not in publish.provenance_line(publish.compact(repro)), "all of them ran"
    repro.update(replications=2, planned_replications=5)
    line = publish.provenance_line(publish.compact(repro))
    assert "full size (2 of its 5 replications), seeds 1–3" in line
    assert "tcplab reproduce toy --size full --replications 2 --out results-full" in line
