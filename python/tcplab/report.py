"""The HTML report: one self-contained page (images embedded) for any set of experiment
result directories written by `tcplab reproduce`: a scorecard of the papers' claims at the
top, then one section per experiment with its provenance, tables, findings and figures."""
from __future__ import annotations

import base64
import datetime
import html
import json
import os
import struct
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from tcplab.outdir import plan_output, write_output
from tcplab.verdicts import (FAILS, HOLDS, INCONCLUSIVE, INSIDE, OUTSIDE, band_outcome, is_band_column,
                             is_verdict_column, outcome_of, tally)

CSS = """
*, *::before, *::after { box-sizing: border-box; }
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1400px; padding: 0 1.5em; color: #222; }
h1 { border-bottom: 2px solid #345; } h2 { margin-top: 2em; margin-bottom: 0.2em; color: #234; }
p, li, summary, h3 { overflow-wrap: anywhere; }
.scroll { overflow-x: auto; max-width: 100%; margin: 0.5em 0 1.5em; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; vertical-align: top; }
td { white-space: nowrap; } .verdict, .long { white-space: normal; }
th { background: #eef2f6; } td.text, th.text { text-align: left; }
th.paper, td.paper { background: #fff6dd; }
td.holds, td.fails, td.inconclusive, td.inside, td.outside { text-align: left; }
.holds { background: #e1f3e1; } .fails { background: #fadcdc; } .inconclusive { background: #fdf0cc; }
.inside { background: #e1f3e1; } .outside { background: #fadcdc; }
.verdict { min-width: 16em; max-width: 36em; } .long { min-width: 14em; max-width: 30em; }
.rule { display: block; color: #555; font-size: 0.85em; margin-top: 0.15em; }
ul.findings { list-style: none; padding-left: 0; }
ul.findings li { margin: 0.3em 0; padding: 0.3em 0.6em; border-left: 4px solid #ccc; }
ul.findings li.holds { border-color: #3a8a3a; } ul.findings li.fails { border-color: #b33; }
ul.findings li.inconclusive { border-color: #c90; }
table.scorecard td.n { min-width: 4.5em; text-align: right; } table.scorecard tr.total td { font-weight: bold; background: #f3f5f8; }
table.scorecard td.zero { color: #999; background: none; }
.figs { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.fig { margin: 0; text-align: center; max-width: 100%; }
.fig.narrow { flex: 0 1 640px; } .fig.wide { flex: 1 1 100%; }
.fig img { max-width: 100%; height: auto; }
.meta { color: #555; font-size: 0.9em; } .failed { color: #a00; }
.stamp { color: #444; font-size: 0.9em; margin-top: 0; }
.size { font-weight: bold; padding: 0 0.4em; border-radius: 3px; background: #e4e9f0; }
.size.full { background: #d6e6fa; } .mixed { background: #fdf0cc; padding: 0.4em 0.6em; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }
"""

#: PNG figures wider than this (pixels) take the whole width of the page
WIDE_FIGURE = 900
#: text cells longer than this (characters) wrap within a column of their own width
LONG_TEXT = 60
#: the scorecard's count columns: (key in the scorecard, heading, CSS class)
COUNTS = [(HOLDS, "holds", "holds"), (FAILS, "does not hold", "fails"), (INCONCLUSIVE, "inconclusive", "inconclusive"),
          (INSIDE, "inside band", "inside"), (OUTSIDE, "outside band", "outside")]
_OUTCOME_CLASS = {HOLDS: "holds", FAILS: "fails", INCONCLUSIVE: "inconclusive", INSIDE: "inside",
                  OUTSIDE: "outside"}


# ---------------------------------------------------------------------------------------------
# Cells


def _fmt(v) -> str:
    if isinstance(v, float):
        return "" if v != v else f"{v:.4g}"
    return html.escape(str(v))


def split_rule(text: str) -> tuple[str, str | None]:
    """``"holds: CLAIM [RULE]"`` -> ``("holds: CLAIM", "RULE")``; the rule may hold brackets
    of its own (``[95 % CI [0.1, 0.2] vs 0]``). Text without a trailing rule -> (text, None)."""
    text = text.rstrip()
    if not text.endswith("]"):
        return text, None
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        depth += {"]": 1, "[": -1}.get(text[i], 0)
        if depth == 0:
            return text[:i].rstrip(), text[i + 1:-1]
    return text, None


def verdict_html(text: str) -> str:
    """A verdict with its rule visible beneath it in smaller, grey text."""
    claim, rule = split_rule(text)
    if rule is None:
        return html.escape(claim)
    return f'{html.escape(claim)}<span class="rule">rule: {html.escape(rule)}</span>'


def _cell(column, value) -> str:
    paper = "paper" if str(column).startswith("paper:") else ""
    if is_verdict_column(column) and outcome_of(value):
        cls = _OUTCOME_CLASS[outcome_of(value)]
        return f'<td class="{cls}"><div class="verdict">{verdict_html(value)}</div></td>'
    if is_band_column(column) and band_outcome(value):
        return f'<td class="{_OUTCOME_CLASS[band_outcome(value)]}">{_fmt(value)}</td>'
    cls = " ".join(c for c in (paper, "text" if isinstance(value, str) else "") if c)
    if isinstance(value, str) and len(value) > LONG_TEXT:
        return f'<td class="{cls}"><div class="long">{_fmt(value)}</div></td>'
    return f'<td class="{cls}">{_fmt(value)}</td>'


def _header_class(column) -> str:
    if str(column).startswith("paper:"):
        return "paper"
    return "text" if is_verdict_column(column) or is_band_column(column) else ""


def table_html(df: pd.DataFrame) -> str:
    """A table in a box of its own that scrolls sideways when the table is wider than the page."""
    cols = list(df.columns)
    head = "".join(f'<th class="{_header_class(c)}">{html.escape(str(c))}</th>' for c in cols)
    rows = ["<tr>" + "".join(_cell(c, v) for c, v in zip(cols, r)) + "</tr>"
            for r in df.itertuples(index=False, name=None)]
    return f'<div class="scroll"><table><tr>{head}</tr>{"".join(rows)}</table></div>'


def findings_html(findings: list) -> str:
    items = []
    for f in findings:
        o = outcome_of(f)
        cls = f' class="{_OUTCOME_CLASS[o]}"' if o else ""
        items.append(f"<li{cls}>{verdict_html(f) if o else html.escape(str(f))}</li>")
    return '<ul class="findings">' + "".join(items) + "</ul>"


# ---------------------------------------------------------------------------------------------
# Figures


def png_width(data: bytes) -> int | None:
    """The width in pixels of a PNG image, from its header."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or len(data) < 24:
        return None
    return struct.unpack(">I", data[16:20])[0]


def figure_html(path: Path, title: str) -> str:
    """A figure embedded in the page: narrow ones side by side, wide (multi-panel) ones across
    the whole width of the page, never wider than it."""
    data = path.read_bytes()
    width = png_width(data) or 0
    size = "wide" if width > WIDE_FIGURE else "narrow"
    img = (f'<img src="data:image/png;base64,{base64.b64encode(data).decode()}" '
           f'alt="{html.escape(path.stem)}" title="{html.escape(title)}">')
    return f'<figure class="fig {size}">{img}<figcaption>{html.escape(title)}</figcaption></figure>'


# ---------------------------------------------------------------------------------------------
# One experiment


@dataclass
class Section:
    """An experiment result directory as the report shows it."""

    dir: Path
    doc: dict
    anchor: str

    @property
    def name(self) -> str:
        return str(self.doc.get("name", self.dir.name))

    @property
    def runs(self) -> list:
        return self.doc.get("runs") or []

    @property
    def failed_runs(self) -> list:
        return [r for r in self.runs if r.get("status") == "failed"]

    @property
    def size(self) -> str:
        return str(self.doc.get("size", "?"))

    @property
    def date(self) -> str:
        """When the experiment was written: its provenance, else the file's time."""
        date = (self.doc.get("provenance") or {}).get("date")
        if date:
            return str(date)
        t = (self.dir / "experiment.json").stat().st_mtime
        return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def scorecard(s: Section) -> dict | None:
    """The counts of verdicts and bands: stored by tcplab since they existed, else counted
    from the tables and findings; None when there was no analysis (it failed, or no run
    finished)."""
    if "scorecard" in s.doc:
        return s.doc["scorecard"]
    if s.doc.get("analysis_error") or (s.runs and len(s.failed_runs) == len(s.runs)):
        return None
    tables = [pd.read_csv(s.dir / t["csv"]) for t in s.doc.get("tables", [])]
    return tally(tables, s.doc.get("findings") or [])


def problems(s: Section) -> list[str]:
    """What went wrong in an experiment, in a few words each."""
    out = []
    if s.failed_runs:
        out.append(f"{len(s.failed_runs)} of {len(s.runs)} runs failed")
    if s.doc.get("analysis_error"):
        out.append("the analysis failed")
    elif s.runs and len(s.failed_runs) == len(s.runs):
        out.append("no analysis: no run finished")
    return out


def provenance_html(s: Section) -> str:
    """One line under the heading: size, date, commit, machine, seeds and wall time."""
    doc = s.doc
    prov = doc.get("provenance") or {}
    walls = [r["wall_seconds"] for r in s.runs
             if r.get("status") == "done" and isinstance(r.get("wall_seconds"), (int, float))]
    seeds = doc.get("seeds") or []
    parts = [f'<span class="size {html.escape(s.size)}">{html.escape(s.size)}</span>',
             f"run {html.escape(s.date)}"]
    if prov:
        parts.append(f"tcplab {html.escape(str(prov.get('tcplab', '?')))}, "
                     f"commit {html.escape(str(prov.get('commit') or 'unknown'))}, {html.escape(str(prov.get('machine', '')))}")
    parts.append(f"seeds {html.escape(', '.join(map(str, seeds)))}")
    from tcplab.publish import fewer_replications

    if fewer := fewer_replications(doc):
        parts.append(f"{fewer} of the size's {doc['planned_replications']} replications")
    sweep = doc.get("sweep_wall_seconds")
    if isinstance(sweep, (int, float)):
        parts.append(f"sweep {sweep:.1f} s")
    parts.append(f"run wall time total {sum(walls):.1f} s, max {max(walls, default=0):.2f} s")
    return f'<p class="stamp">{" · ".join(parts)}</p>'


def _failures_html(s: Section) -> list[str]:
    out = []
    if s.failed_runs:
        out.append(f'<p class="failed">{len(s.failed_runs)} run(s) failed:</p><ul class="failed">')
        out += [f"<li>{html.escape(json.dumps(r.get('params')))} seed {r.get('seed')}: "
                f"{html.escape((str(r.get('error') or 'failed').splitlines() or ['failed'])[0])}</li>"
                for r in s.failed_runs]
        out.append("</ul>")
    if s.doc.get("analysis_error"):
        out.append(f'<p class="failed">The analysis failed:</p><pre>{html.escape(s.doc["analysis_error"])}</pre>')
    return out


def _details_html(s: Section) -> list[str]:
    out = []
    if s.doc.get("parameters"):
        out.append("<details><summary>Scenario parameters</summary><pre>"
                   f"{html.escape(json.dumps(s.doc['parameters'], indent=2))}</pre></details>")
    if s.runs:
        listing = pd.DataFrame([{**(r.get("params") or {}), "seed": r.get("seed"), "status": r.get("status"),
                                 "wall s": r.get("wall_seconds"), "store key": r.get("key")} for r in s.runs])
        out.append(f"<details><summary>Runs ({len(s.runs)}): parameters, seeds, wall times</summary>"
                   f"{table_html(listing)}</details>")
    return out


def _tables_html(s: Section) -> list[str]:
    out = []
    for t in s.doc.get("tables", []):
        out.append(f"<h3>{html.escape(t['title'])}</h3>")
        if t.get("paper"):
            out.append(f'<p class="meta">Columns marked "paper:" are the values reported in {html.escape(t["paper"])}; '
                       "the others are measured by tcplab.</p>")
        if t.get("note"):
            out.append(f'<p class="meta">{html.escape(t["note"])}</p>')
        out.append(table_html(pd.read_csv(s.dir / t["csv"])))
    return out


def section_html(s: Section) -> str:
    doc = s.doc
    out = [f'<h2 id="{html.escape(s.anchor)}">{html.escape(s.name)}</h2>', provenance_html(s),
           f"<p>{html.escape(str(doc.get('description', '')))}</p>"]
    if doc.get("paper"):
        out.append(f'<p class="meta">Paper: {html.escape(doc["paper"])}</p>')
    done = len(s.runs) - len(s.failed_runs)
    out.append(f'<p class="meta">{_counted(done, "run")} ({doc.get("reused", 0)} reused from the store).</p>')
    out += _failures_html(s)
    out += _details_html(s)
    if doc.get("findings"):
        out.append(findings_html(doc["findings"]))
    out += _tables_html(s)
    if doc.get("figures"):
        out.append('<div class="figs">' + "".join(figure_html(s.dir / f["png"], f["title"]) for f in doc["figures"])
                   + "</div>")
    return "\n".join(out)


def experiment_html(d: Path) -> str:
    """One experiment's section of the report."""
    d = Path(d)
    return section_html(Section(d, _read_doc(d), d.name))


# ---------------------------------------------------------------------------------------------
# The scorecard


def _count_cells(card: dict | None) -> str:
    if card is None:
        return "".join('<td class="n zero">–</td>' for _ in COUNTS)
    return "".join(f'<td class="n {cls if card.get(key) else "zero"}">{int(card.get(key) or 0)}</td>'
                   for key, _, cls in COUNTS)


def scorecard_row(s: Section, card: dict | None) -> str:
    trouble = problems(s)
    status = (f'<td class="text failed">{html.escape("; ".join(trouble))}</td>' if trouble
              else '<td class="text">complete</td>')
    return (f'<tr><td class="text"><a href="#{html.escape(s.anchor)}">{html.escape(s.name)}</a></td>'
            f'<td class="text"><span class="size {html.escape(s.size)}">{html.escape(s.size)}</span></td>'
            f'<td class="text">{html.escape(s.date)}</td>{_count_cells(card)}{status}</tr>')


def scorecard_html(sections: list[Section]) -> str:
    """Per experiment: how many claims hold, do not hold or are inconclusive, and how many of
    the paper's exact numbers lie inside or outside their band; a total row at the end."""
    cards = [scorecard(s) for s in sections]
    head = "".join(f'<th class="{cls}">{label}</th>' for _, label, cls in COUNTS)
    rows = [scorecard_row(s, c) for s, c in zip(sections, cards)]
    total = {key: sum(int((c or {}).get(key) or 0) for c in cards) for key, _, _ in COUNTS}
    troubled = sum(1 for s in sections if problems(s))
    rows.append(f'<tr class="total"><td class="text">total ({len(sections)} experiments)</td><td></td><td></td>'
                f'{_count_cells(total)}<td class="text{" failed" if troubled else ""}">'
                f'{f"{troubled} with failures" if troubled else "all complete"}</td></tr>')
    return ('<div class="scroll"><table class="scorecard" id="scorecard"><tr><th class="text">experiment</th>'
            f'<th class="text">size</th><th class="text">run</th>{head}<th class="text">runs and analysis</th></tr>'
            f'{"".join(rows)}</table></div>')


def _mixed_sizes_note(sections: list[Section]) -> str:
    sizes: dict[str, int] = {}
    for s in sections:
        sizes[s.size] = sizes.get(s.size, 0) + 1
    if len(sizes) < 2:
        return ""
    listing = ", ".join(f"{n} {html.escape(size)}" for size, n in sizes.items())
    return (f'<p class="mixed">The experiments were run at different sizes ({listing}) and possibly on '
            "different dates: each row and section says which.</p>")


LEGEND = ('<p class="meta">Claims are <span class="holds">holds</span>, <span class="fails">does not hold</span> or '
          '<span class="inconclusive">inconclusive</span>, decided on confidence intervals over replications '
          '(the rule is given under each verdict); the paper\'s exact numbers are <span class="inside">inside</span> '
          'or <span class="outside">outside</span> a tolerance band around them.</p>')


# ---------------------------------------------------------------------------------------------
# The page


class ReportError(ValueError):
    """A directory given to the report is not an experiment result directory."""


def _check_experiment_dir(d: Path) -> None:
    if not d.exists():
        raise ReportError(f"{d}: no such directory")
    if not d.is_dir():
        raise ReportError(f"{d}: is not a directory; give experiment result directories (results/<experiment>)")
    if (d / "experiment.json").is_file():
        return
    if (d / "summary.json").is_file():
        raise ReportError(f"{d}: holds the results of one run (tcplab run), not of an experiment; "
                          "the report takes directories written by tcplab reproduce, e.g. results/<experiment>")
    raise ReportError(f"{d}: not an experiment result directory (no experiment.json); "
                      "give directories written by tcplab reproduce, e.g. results/<experiment>")


def _read_doc(d: Path) -> dict:
    try:
        doc = json.loads((d / "experiment.json").read_text(encoding="utf-8"))
    except ValueError as e:
        raise ReportError(f"{d / 'experiment.json'}: not readable as JSON ({e})") from None
    if not isinstance(doc, dict):
        raise ReportError(f"{d / 'experiment.json'}: not an experiment description")
    return doc


def _sections(dirs: list[Path]) -> list[Section]:
    """Read every directory, giving each section an anchor of its own (an experiment given
    twice, from two result directories, gets "name-2")."""
    out, taken = [], set()
    for d in dirs:
        doc = _read_doc(d)
        name = str(doc.get("name", d.name))
        anchor, i = name, 1
        while anchor in taken:
            i += 1
            anchor = f"{name}-{i}"
        taken.add(anchor)
        out.append(Section(d, doc, anchor))
    return out


def reproduction_dirs(root: str | os.PathLike, names: list[str]) -> tuple[list[Path], list[Path]]:
    """The experiment directories of a reproduction in ``root``, in the order of ``names``
    (the registry's): those tcplab wrote for that experiment (``root/<name>/experiment.json``
    naming it), and those it cannot read (listed apart, left out of the report)."""
    found, unreadable = [], []
    for name in names:
        d = Path(root) / name
        if not (d / "experiment.json").is_file():
            continue
        try:
            doc = _read_doc(d)
        except (ReportError, OSError):
            unreadable.append(d)
            continue
        (found if doc.get("name") == name else unreadable).append(d)
    return found, unreadable


_PAGE_START = "<!doctype html><html><head><meta charset='utf-8'><title>tcplab report</title>"


def _legacy_report_dir(d: Path, entries: list[str]) -> set | None:
    """A report directory written before markers existed: index.html alone, a tcplab page."""
    if set(entries) - {".index.html.tmp"} != {"index.html"} or not all(
            os.path.isfile(d / e) and not os.path.islink(d / e) for e in entries):
        return None
    try:
        with open(d / "index.html", "rb") as f:
            head = f.read(len(_PAGE_START))
    except OSError:
        return None
    return set(entries) if head == _PAGE_START.encode() else None


def page_html(sections: list[Section], bodies: list[str]) -> str:
    toc = "".join(f'<li><a href="#{html.escape(s.anchor)}">{html.escape(s.name)}</a></li>' for s in sections)
    return (f"{_PAGE_START}<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<style>{CSS}</style></head><body><h1>tcplab report</h1>"
            f"<h2 id='scorecard-heading'>Scorecard</h2>{LEGEND}{_mixed_sizes_note(sections)}{scorecard_html(sections)}"
            f"<details><summary>Contents</summary><ul>{toc}</ul></details>"
            f"{''.join(bodies)}</body></html>")


def _counted(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _progress(enabled: bool, total: int):
    if not enabled:
        return None
    from tcplab.sweep import Progress

    return Progress("report", total)


def write_report(result_dirs, out_dir, force: bool = False, progress: bool = False) -> Path:
    """Write `out_dir/index.html` for the given experiment result directories, in the order
    given. The output directory follows the rules of tcplab.outdir (docs/safety.md): a
    directory tcplab did not write is refused unless ``force``. ``progress``: say on stderr
    what is being done while it takes long (see tcplab.sweep.Progress)."""
    dirs = [Path(d) for d in result_dirs]
    for d in dirs:
        _check_experiment_dir(d)
    out = Path(out_dir)
    plan_output(out, "report", ["index.html"], force, _legacy_report_dir)  # refuse before the work
    sections = _sections(dirs)
    bar = _progress(progress, len(sections))
    bodies = []
    with bar.phase(_counted(len(sections), "experiment"), len(sections), "sections") if bar else nullcontext():
        for s in sections:
            bodies.append(section_html(s))
            if bar:
                bar.update()
        page = page_html(sections, bodies)
        write_output(out, {"index.html": page}, kind="report", force=force, legacy=_legacy_report_dir)
    if bar:
        bar.finish(f"{_counted(len(sections), 'experiment')}, {len(page) / 1e6:.1f} MB, "
                   f"written in {bar.elapsed():.1f} s")
    return out / "index.html"

