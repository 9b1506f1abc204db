"""The HTML report: one self-contained page (images embedded) for any set of experiment
result directories written by `tcplab reproduce`."""
from __future__ import annotations

import base64
import html
import json
import os
from pathlib import Path

import pandas as pd

from tcplab.outdir import plan_output, write_output

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { border-bottom: 2px solid #345; } h2 { margin-top: 2em; color: #234; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #eef2f6; } td.text { text-align: left; }
th.paper, td.paper { background: #fff6dd; }
td.ok { background: #e3f6e3; text-align: left; } td.bad { background: #fbe3e3; text-align: left; }
.fig { display: inline-block; margin: 0.5em; text-align: center; } .fig img { max-width: 520px; }
.meta { color: #555; font-size: 0.9em; } .failed { color: #a00; } pre { background: #f6f6f6; padding: 0.5em; }
"""


def _img(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(path.stem)}">'


def _fmt(v) -> str:
    if isinstance(v, float):
        return "" if v != v else f"{v:.4g}"
    return html.escape(str(v))


def table_html(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    head = "".join(f'<th class="{"paper" if str(c).startswith("paper:") else ""}">{html.escape(str(c))}</th>' for c in cols)
    rows = []
    for _, r in df.iterrows():
        cells = []
        for c in cols:
            v = r[c]
            cls = "paper" if str(c).startswith("paper:") else ""
            if c == "verdict" and isinstance(v, str):
                cls = "ok" if v.startswith("holds") else "bad" if v.startswith("does not hold") else "text"
            elif isinstance(v, str):
                cls = (cls + " text").strip()
            cells.append(f'<td class="{cls}">{_fmt(v)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def experiment_html(d: Path) -> str:
    doc = json.loads((d / "experiment.json").read_text())
    out = [f'<h2 id="{html.escape(doc["name"])}">{html.escape(doc["name"])}</h2>',
           f"<p>{html.escape(doc['description'])}</p>"]
    if doc.get("paper"):
        out.append(f'<p class="meta">Paper: {html.escape(doc["paper"])}</p>')
    runs = doc["runs"]
    ok = [r for r in runs if r["status"] == "done"]
    failed = [r for r in runs if r["status"] == "failed"]
    walls = [r["wall_seconds"] for r in ok if isinstance(r.get("wall_seconds"), (int, float))]
    out.append(
        f'<p class="meta">Size <b>{doc["size"]}</b>; {len(ok)} runs ({doc["reused"]} reused from the store), '
        f'seeds {", ".join(map(str, doc["seeds"]))}; run wall time total {sum(walls):.1f} s, '
        f'max {max(walls, default=0):.2f} s.</p>'
    )
    if failed:
        out.append(f'<p class="failed">{len(failed)} run(s) failed:</p><ul class="failed">')
        out += [f"<li>{html.escape(json.dumps(r['params']))} seed {r['seed']}: "
                f"{html.escape(r['error'].splitlines()[0])}</li>" for r in failed]
        out.append("</ul>")
    if doc.get("analysis_error"):
        out.append(f'<p class="failed">The analysis failed:</p><pre>{html.escape(doc["analysis_error"])}</pre>')
    if doc.get("parameters"):
        out.append("<details><summary>Scenario parameters</summary><pre>"
                   f"{html.escape(json.dumps(doc['parameters'], indent=2))}</pre></details>")
    if runs:
        listing = pd.DataFrame([{**r["params"], "seed": r["seed"], "status": r["status"],
                                 "wall s": r.get("wall_seconds"), "store key": r["key"]} for r in runs])
        out.append(f"<details><summary>Runs ({len(runs)}): parameters, seeds, wall times</summary>"
                   f"{table_html(listing)}</details>")
    if doc.get("findings"):
        out.append("<ul>" + "".join(f"<li>{html.escape(f)}</li>" for f in doc["findings"]) + "</ul>")
    for t in doc["tables"]:
        out.append(f"<h3>{html.escape(t['title'])}</h3>")
        if t.get("paper"):
            out.append(f'<p class="meta">Columns marked "paper:" are the values reported in {html.escape(t["paper"])}; '
                       "the others are measured by tcplab.</p>")
        if t.get("note"):
            out.append(f'<p class="meta">{html.escape(t["note"])}</p>')
        out.append(table_html(pd.read_csv(d / t["csv"])))
    if doc["figures"]:
        out.append("<div>")
        for f in doc["figures"]:
            out.append(f'<div class="fig">{_img(d / f["png"])}<br>{html.escape(f["title"])}</div>')
        out.append("</div>")
    return "\n".join(out)


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


def write_report(result_dirs, out_dir, force: bool = False) -> Path:
    """Write `out_dir/index.html` for the given experiment result directories. The output
    directory follows the rules of tcplab.outdir (docs/safety.md): a directory tcplab did not
    write is refused unless ``force``."""
    dirs = [Path(d) for d in result_dirs]
    for d in dirs:
        _check_experiment_dir(d)
    out = Path(out_dir)
    plan_output(out, "report", ["index.html"], force, _legacy_report_dir)  # refuse before the work
    names = [json.loads((d / "experiment.json").read_text())["name"] for d in dirs]
    toc = "".join(f'<li><a href="#{html.escape(n)}">{html.escape(n)}</a></li>' for n in names)
    body = "\n".join(experiment_html(d) for d in dirs)
    page = (f"{_PAGE_START}"
            f"<style>{CSS}</style></head><body><h1>tcplab report</h1><ul>{toc}</ul>{body}</body></html>")
    write_output(out, {"index.html": page}, kind="report", force=force, legacy=_legacy_report_dir)
    return out / "index.html"
