"""Result tables in the docs, generated from stored results, never typed.

Workflow (docs/experiments.md, "Publishing results in the docs")::

    tcplab reproduce EXP --size full --out results-full
    python -m tcplab.publish collect results-full EXP   # compact copy into docs/results/EXP/
    make docs                                           # python -m tcplab.publish render
    git commit docs/ docs/results/

``collect`` copies an experiment's tables and a compact ``experiment.json`` (provenance, size,
seeds, run counts and wall times, table titles, findings, scorecard; no per-run list) from a
reproduction directory into ``docs/results/<experiment>/``. ``render`` rewrites, in each
``docs/*.md``, the blocks between a marker and ``<!-- tcplab:end -->`` from ``docs/results``;
``check`` lists the blocks that ``render`` would change or cannot produce, and exits 1.

Markers are HTML comments that start a line, outside fenced code blocks (they may span lines);
options are ``key=value`` words, quoted when they hold spaces (shell quoting)::

    <!-- tcplab:table EXPERIMENT/TABLE [columns="SPEC; SPEC; ..."] [rows="QUERY"] [digits=N] -->
    <!-- tcplab:findings EXPERIMENT -->
    <!-- tcplab:provenance EXPERIMENT -->
    <!-- tcplab:scorecard [EXPERIMENT...] -->
    ...generated text...
    <!-- tcplab:end -->

A column SPEC is ``COLUMN``, ``COLUMN as LABEL`` or ``MEAN +- HALFWIDTH [as LABEL]`` (one cell
"3.41 ± 0.12": the half-width to 2 significant digits, the mean to the same decimal place);
without ``columns`` every column is shown under its own name. ``rows`` is a pandas
``DataFrame.query`` expression (column names with spaces in backticks). Numbers are shown to
``digits`` significant digits (default 4), integers in full, missing values as "—"; ``|`` in a
cell is escaped. Each table and findings list is followed by its provenance line.

Only files under the docs directory (this checkout's ``docs/`` unless ``--docs`` names another)
and its ``results/`` are written, each atomically; nothing outside the marked blocks changes.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from tcplab.memory import human
from tcplab.verdicts import FAILS, HOLDS, INCONCLUSIVE, INSIDE, OUTSIDE

CHECKOUT = Path(__file__).resolve().parents[2]
DOCS_DIR = CHECKOUT / "docs"
RESULTS = "results"
DEFAULT_DIGITS = 4
MAX_PARAMETERS_CHARS = 2000
MISSING = "—"
NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
MARKER = re.compile(r"<!--\s*tcplab:([A-Za-z_-]*)(.*?)-->", re.S)
FENCE = re.compile(r"^\s*(```|~~~)")


class PublishError(Exception):
    """A marker that cannot be rendered (unknown experiment, table or column, bad option)."""


class Refused(Exception):
    """Results that collect will not publish (failed runs, failed analysis, not full size)."""


class NoDocs(Exception):
    """No docs directory given and tcplab does not run from a checkout."""


def docs_dir(docs=None) -> Path:
    """`docs` when given, else the docs/ of the checkout this module lives in (refused when it
    is an installed copy, so as never to write next to site-packages)."""
    if docs is not None:
        return Path(docs)
    if not ((CHECKOUT / "pyproject.toml").is_file() and (CHECKOUT / "python" / "tcplab").is_dir()
            and DOCS_DIR.is_dir()):
        raise NoDocs(f"tcplab does not run from a checkout ({CHECKOUT}): pass --docs DIR")
    return DOCS_DIR


# --------------------------------------------------------------------------- files


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same directory and os.replace,
    keeping the file's permission bits when it exists."""
    path = Path(path)
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def replace_directory(new: Path, dest: Path) -> None:
    """Put the finished directory `new` at `dest`, removing what was there."""
    old = None
    if dest.exists():
        old = dest.with_name(f".{dest.name}.old-{os.getpid()}")
        os.replace(dest, old)
    os.replace(new, dest)
    if old is not None:
        shutil.rmtree(old)


def results_dir(docs: Path) -> Path:
    return Path(docs) / RESULTS


# --------------------------------------------------------------------------- collect


def run_wall_times(runs: list) -> tuple[float, float]:
    """(total, longest) wall time of the runs that report one."""
    walls = [r["wall_seconds"] for r in runs if isinstance(r.get("wall_seconds"), (int, float))]
    return float(sum(walls)), float(max(walls, default=0.0))


# experiment.json's peak resident memory of the largest run, the sweep process and the analysis
PEAK_MEMORY_KINDS = ("run", "sweep", "analysis")


def compact(doc: dict) -> dict:
    """The part of a reproduction's experiment.json kept in the repository."""
    runs = doc.get("runs", [])
    total, longest = run_wall_times(runs)
    out = {
        "name": doc["name"],
        "description": doc.get("description"),
        "paper": doc.get("paper"),
        "size": doc.get("size"),
        "provenance": doc.get("provenance"),
        "seeds": doc.get("seeds", []),
        "replications": doc.get("replications"),
        "planned_replications": doc.get("planned_replications"),
        "runs": len(runs),
        "reused": doc.get("reused"),
        "run_wall_seconds": {"total": round(total, 3), "max": round(longest, 3)},
        "sweep_wall_seconds": round(float(doc.get("sweep_wall_seconds") or 0.0), 3),
        "tables": [{k: t.get(k) for k in ("name", "title", "paper", "note", "csv")} for t in doc.get("tables", [])],
        "findings": doc.get("findings", []),
        "scorecard": doc.get("scorecard"),
    }
    peaks = {k: doc.get(f"{k}_peak_rss_bytes") for k in PEAK_MEMORY_KINDS}
    if any(isinstance(v, int) for v in peaks.values()):
        out["peak_rss_bytes"] = peaks
    params = doc.get("parameters")
    if params is not None and len(json.dumps(params, default=str)) <= MAX_PARAMETERS_CHARS:
        out["parameters"] = params
    return out


def refusal(doc: dict, exp_dir: Path, allow_quick: bool) -> str | None:
    """Why these results may not be published, or None."""
    if doc.get("analysis_error"):
        first = str(doc["analysis_error"]).strip().splitlines()[0]
        return f"its analysis failed ({first})"
    failed = [r for r in doc.get("runs", []) if r.get("status") != "done"]
    if failed:
        return f"{len(failed)} of {len(doc.get('runs', []))} runs failed"
    if not doc.get("runs") and not doc.get("tables"):  # a model's experiment has tables and no runs
        return "it has no runs"
    if doc.get("size") != "full" and not allow_quick:
        return f"its size is {doc.get('size')!r}, not 'full' (pass --allow-quick to publish it anyway)"
    if not doc.get("provenance"):
        return "its experiment.json has no provenance (rerun it with this tcplab)"
    bad = [t["name"] for t in doc.get("tables", []) if not NAME.match(str(t["name"]))]
    if bad:
        return f"table name(s) not usable as file names: {', '.join(map(repr, bad))}"
    missing = [t["csv"] for t in doc.get("tables", []) if not (exp_dir / t["csv"]).is_file()]
    if missing:
        return f"table file(s) missing: {', '.join(missing)}"
    return None


def read_reproduction(exp_dir: Path) -> dict:
    path = exp_dir / "experiment.json"
    if not path.is_file():
        raise Refused(f"{exp_dir.name}: no results ({path} does not exist)")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise Refused(f"{exp_dir.name}: cannot read {path}: {e}") from None


def experiments_in(source: Path) -> list[str]:
    return sorted(p.name for p in source.iterdir() if (p / "experiment.json").is_file())


def checked_reproductions(source: Path, names: list[str], allow_quick: bool) -> list[tuple[Path, dict]]:
    """Every named experiment's results, or Refused for the first that may not be published."""
    if not source.is_dir():
        raise Refused(f"{source} is not a directory")
    names = list(names) or experiments_in(source)
    if not names:
        raise Refused(f"no experiment results (*/experiment.json) in {source}")
    checked = []
    for name in names:
        if not NAME.match(name):
            raise Refused(f"{name!r} is not an experiment name")
        doc = read_reproduction(source / name)
        why = refusal(doc, source / name, allow_quick)
        if why:
            raise Refused(f"{name}: refused: {why}")
        checked.append((source / name, doc))
    return checked


def write_compact(exp_dir: Path, doc: dict, dest: Path) -> None:
    """Write the compact copy of one experiment's results to `dest` (replaced as a whole)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        (tmp / "tables").mkdir(parents=True)
        summary = compact(doc)
        for t, source in zip(summary["tables"], doc["tables"]):
            t["csv"] = f"tables/{t['name']}.csv"
            shutil.copyfile(exp_dir / source["csv"], tmp / t["csv"])
        text = json.dumps(summary, indent=2, ensure_ascii=False, default=str) + "\n"
        (tmp / "experiment.json").write_text(text, encoding="utf-8")
        replace_directory(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def collect(source, names=(), docs: Path | None = None, allow_quick: bool = False) -> list[Path]:
    """Copy the compact results of `names` (all when empty) from the reproduction directory
    `source` into docs/results. All are checked before any is written; raises Refused."""
    docs = docs_dir(docs)
    checked = checked_reproductions(Path(source), list(names), allow_quick)
    written = []
    for exp_dir, doc in checked:
        dest = results_dir(docs) / doc["name"]
        write_compact(exp_dir, doc, dest)
        written.append(dest)
    return written


# --------------------------------------------------------------------------- markers


@dataclass(frozen=True)
class Marker:
    kind: str
    args: str
    start: int  # offset of "<!--"
    end: int  # offset just after "-->"
    line: int

    def __str__(self) -> str:
        return " ".join(f"<!-- tcplab:{self.kind} {self.args.strip()}".split()) + " -->"


@dataclass(frozen=True)
class Block:
    opening: Marker
    closing: Marker


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    marker: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.marker}: {self.message}"


def line_starts(text: str) -> list[int]:
    """Offsets at which the lines of `text` start (lines end at "\\n" only)."""
    starts = [0]
    starts += [m.end() for m in re.finditer("\n", text)]
    return starts[:-1] if starts[-1] == len(text) and len(starts) > 1 else starts


def find_markers(text: str) -> list[Marker]:
    """The tcplab markers of a markdown text: comments starting a line, outside code fences."""
    markers, in_fence, skip_until = [], False, 0
    for number, start in enumerate(line_starts(text), 1):
        if start < skip_until:
            continue
        end = text.find("\n", start)
        line = text[start:end if end >= 0 else len(text)]
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        stripped = line.lstrip()
        if in_fence or not stripped.startswith("<!--"):
            continue
        m = MARKER.match(text, start + len(line) - len(stripped))
        if m is None:
            continue
        markers.append(Marker(m.group(1), m.group(2), m.start(), m.end(), number))
        skip_until = m.end()
    return markers


def pair_blocks(markers: list[Marker], path: str) -> tuple[list[Block], list[Problem]]:
    """Openings matched with their tcplab:end; a problem for each marker left unmatched."""
    blocks, problems, opening = [], [], None
    for m in markers:
        if m.kind != "end":
            if opening is not None:
                problems.append(Problem(path, opening.line, str(opening),
                                        "no <!-- tcplab:end --> before the next marker"))
            opening = m
        elif opening is None:
            problems.append(Problem(path, m.line, str(m), "tcplab:end without an opening marker"))
        else:
            blocks.append(Block(opening, m))
            opening = None
    if opening is not None:
        problems.append(Problem(path, opening.line, str(opening), "no <!-- tcplab:end --> after it"))
    return blocks, problems


def split_args(args: str) -> tuple[list[str], dict[str, str]]:
    """Positional words and key=value options of a marker (shell quoting)."""
    if "<!--" in args:
        raise PublishError("the marker is not closed with -->")
    try:
        words = shlex.split(args)
    except ValueError as e:
        raise PublishError(f"cannot read the marker's options: {e}") from None
    positional, options = [], {}
    for w in words:
        key, eq, value = w.partition("=")
        if eq and re.fullmatch(r"[a-z_]+", key):
            if key in options:
                raise PublishError(f"option {key} given twice")
            options[key] = value
        else:
            positional.append(w)
    return positional, options


def allow_options(options: dict, allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise PublishError(f"unknown option(s) {', '.join(unknown)}; allowed: {', '.join(allowed) or 'none'}")


# --------------------------------------------------------------------------- stored results


class Results:
    """The compact results under docs/results, read once each."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self._docs: dict[str, dict] = {}

    def names(self) -> list[str]:
        if not self.directory.is_dir():
            return []
        return sorted(p.name for p in self.directory.iterdir()
                      if NAME.match(p.name) and (p / "experiment.json").is_file())

    def experiment(self, name: str) -> dict:
        if name not in self._docs:
            path = self.directory / name / "experiment.json"
            if not NAME.match(name) or not path.is_file():
                raise PublishError(f"no stored results for experiment {name!r} ({self.shown(path)})")
            self._docs[name] = json.loads(path.read_text(encoding="utf-8"))
        return self._docs[name]

    def table(self, name: str, table: str) -> pd.DataFrame:
        entry = next((t for t in self.experiment(name)["tables"] if t["name"] == table), None)
        if entry is None:
            known = ", ".join(t["name"] for t in self.experiment(name)["tables"]) or "none"
            raise PublishError(f"experiment {name!r} has no table {table!r} (tables: {known})")
        # Only empty cells are missing: "n/a", "None" and the like stay text.
        return pd.read_csv(self.directory / name / entry["csv"], keep_default_na=False, na_values=[""])

    def shown(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.directory.parent.parent))
        except ValueError:
            return str(path)


# --------------------------------------------------------------------------- formatting


def escape(text) -> str:
    """A table cell: one line, with | escaped."""
    return " ".join(str(text).splitlines()).replace("|", "\\|")


def is_missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and not is_missing(x)


def format_number(x, digits: int = DEFAULT_DIGITS) -> str:
    """Integers in full; other numbers to `digits` significant digits, without an exponent
    below 10^15."""
    if is_missing(x):
        return MISSING
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return escape(x)
    if isinstance(x, int):
        return str(x)
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if 10**digits <= abs(x) < 1e15:
        s = f"{x:.0f}"
    else:
        s = f"{x:.{digits}g}"
    return "0" if s in ("-0", "0") else s


def format_mean_pm(mean, half, digits: int = DEFAULT_DIGITS) -> str:
    """"mean ± half": the half-width to 2 significant digits, the mean rounded to the same
    decimal place but to at most `digits` significant digits."""
    if not is_number(mean) or not math.isfinite(mean):
        return format_number(mean, digits)
    if not is_number(half) or not math.isfinite(half):
        return format_number(mean, digits)
    half = abs(float(half))
    if half == 0:
        return f"{format_number(mean, digits)} ± 0"
    half2 = float(f"{half:.2g}")
    places = 1 - math.floor(math.log10(half2))
    half_text = f"{half2:.{max(places, 0)}f}" if places <= 9 else f"{half2:.2g}"
    if mean != 0:
        places = min(places, digits - 1 - math.floor(math.log10(abs(mean))))
    m = round(float(mean), places)
    m = 0.0 if m == 0 else m  # no "-0.00"
    return f"{m:.{max(places, 0)}f} ± {half_text}"


def seeds_text(seeds: list) -> str:
    """1–5, or 1, 3, 7–9."""
    seeds = sorted(int(s) for s in seeds)
    parts, i = [], 0
    while i < len(seeds):
        j = i
        while j + 1 < len(seeds) and seeds[j + 1] == seeds[j] + 1:
            j += 1
        parts.append(str(seeds[i]) if j == i else f"{seeds[i]}–{seeds[j]}")
        i = j + 1
    return ", ".join(parts) or "none"


def peak_memory_text(peaks) -> str:
    """"; peak memory 1.07 GB per run, 1.18 GB in the analysis", or "" when not recorded."""
    if not isinstance(peaks, dict):
        return ""
    run, analysis = peaks.get("run"), peaks.get("analysis")
    parts = ([f"{human(run)} per run"] if isinstance(run, int) else []) + \
            ([f"{human(analysis)} in the analysis"] if isinstance(analysis, int) else [])
    return f"; peak memory {', '.join(parts)}" if parts else ""


def duration_text(seconds) -> str:
    if not isinstance(seconds, (int, float)):
        return "?"
    if seconds < 60:
        return f"{seconds:.3g} s"
    if seconds < 3600:
        return f"{seconds / 60:.3g} min"
    return f"{seconds / 3600:.3g} h"


def markdown_table(header: list[str], rows: list[list[str]], right: list[bool]) -> str:
    lines = ["| " + " | ".join(escape(h) for h in header) + " |",
             "|" + "|".join("---:" if r else "---" for r in right) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def fewer_replications(doc: dict) -> int | None:
    """How many replications ran, when that is fewer than the size plans."""
    n, planned = doc.get("replications"), doc.get("planned_replications")
    return n if isinstance(n, int) and isinstance(planned, int) and n < planned else None


def regenerate_command(doc: dict) -> str:
    name, size = doc["name"], doc.get("size", "full")
    out = f"results-{size}"
    fewer = fewer_replications(doc)
    cut = f" --replications {fewer}" if fewer else ""
    return (f"tcplab reproduce {name} --size {size}{cut} --out {out} && "
            f"python -m tcplab.publish collect {out} {name}{' --allow-quick' if size != 'full' else ''} && make docs")


def provenance_line(doc: dict, table: str | None = None) -> str:
    """Where a generated block comes from and how to regenerate it."""
    p = doc.get("provenance") or {}
    walls = doc.get("run_wall_seconds") or {}
    what = f"`docs/results/{doc['name']}`" + (f", table `{table}`" if table else "")
    fewer = fewer_replications(doc)
    cut = f" ({fewer} of its {doc['planned_replications']} replications)" if fewer else ""
    return (f"<sub>Generated from {what}: {doc.get('size')} size{cut}, seeds {seeds_text(doc.get('seeds', []))}, "
            f"{doc.get('runs')} runs ({duration_text(walls.get('total'))} of run time, longest "
            f"{duration_text(walls.get('max'))}; sweep {duration_text(doc.get('sweep_wall_seconds'))}"
            f"{peak_memory_text(doc.get('peak_rss_bytes'))}); "
            f"tcplab {p.get('tcplab')}{f' (core {core})' if (core := p.get('core')) else ''} at commit {p.get('commit') or 'unknown'}, {p.get('date')}, {p.get('machine')}. "
            f"Regenerate: `{regenerate_command(doc)}`.</sub>")


# --------------------------------------------------------------------------- blocks


@dataclass(frozen=True)
class Column:
    source: str
    half_width: str | None
    label: str


def parse_columns(spec: str) -> list[Column]:
    """"a; b as B; m +- h as M" -> columns."""
    columns = []
    for item in spec.split(";"):
        item = item.strip()
        if not item:
            continue
        source, has_label, label = item.rpartition(" as ")
        if not has_label:
            source, label = item, ""
        mean, has_pm, half = source.partition(" +- ")
        mean, half, label = mean.strip(), half.strip(), label.strip()
        if not mean or (has_pm and not half):
            raise PublishError(f"column {item!r}: expected COLUMN, COLUMN as LABEL or MEAN +- HALFWIDTH [as LABEL]")
        columns.append(Column(mean, half if has_pm else None, label or mean))
    if not columns:
        raise PublishError("columns= names no column")
    return columns


def parse_digits(value: str | None) -> int:
    if value is None:
        return DEFAULT_DIGITS
    if not value.isdigit() or not 1 <= int(value) <= 15:
        raise PublishError(f"digits={value}: expected a whole number from 1 to 15")
    return int(value)


def select_rows(df: pd.DataFrame, query: str) -> pd.DataFrame:
    try:
        return df.query(query, engine="python")
    except Exception as e:  # noqa: BLE001 - any error of the query is the marker's
        raise PublishError(f"rows={query!r}: {type(e).__name__}: {e}") from None


def check_columns(df: pd.DataFrame, columns: list[Column]) -> None:
    for c in columns:
        for name in (c.source, c.half_width):
            if name is not None and name not in df.columns:
                raise PublishError(f"no column {name!r} (columns: {'; '.join(df.columns)})")


def table_cells(df: pd.DataFrame, column: Column, digits: int) -> list[str]:
    means = df[column.source].tolist()
    if column.half_width is None:
        return [format_number(v, digits) for v in means]
    return [format_mean_pm(m, h, digits) for m, h in zip(means, df[column.half_width].tolist())]


def table_block(args: str, results: Results) -> str:
    positional, options = split_args(args)
    allow_options(options, ("columns", "rows", "digits"))
    if len(positional) != 1 or positional[0].count("/") != 1:
        raise PublishError("expected <!-- tcplab:table EXPERIMENT/TABLE [columns=...] [rows=...] [digits=N] -->")
    name, table = positional[0].split("/")
    doc = results.experiment(name)
    df = results.table(name, table)
    digits = parse_digits(options.get("digits"))
    if "rows" in options:
        df = select_rows(df, options["rows"])
    columns = parse_columns(options["columns"]) if "columns" in options else [Column(c, None, c) for c in df.columns]
    check_columns(df, columns)
    cells = [table_cells(df, c, digits) for c in columns]
    right = [pd.api.types.is_numeric_dtype(df[c.source]) and not pd.api.types.is_bool_dtype(df[c.source])
             for c in columns]
    rows = [list(r) for r in zip(*cells)]
    return markdown_table([c.label for c in columns], rows, right) + "\n\n" + provenance_line(doc, table)


def one_experiment(args: str, kind: str) -> str:
    positional, options = split_args(args)
    allow_options(options, ())
    if len(positional) != 1:
        raise PublishError(f"expected <!-- tcplab:{kind} EXPERIMENT -->")
    return positional[0]


def findings_block(args: str, results: Results) -> str:
    doc = results.experiment(one_experiment(args, "findings"))
    items = [f"- {' '.join(str(f).splitlines())}" for f in doc.get("findings", [])]
    return "\n".join(items or ["*(no findings)*"]) + "\n\n" + provenance_line(doc)


def provenance_block(args: str, results: Results) -> str:
    return provenance_line(results.experiment(one_experiment(args, "provenance")))


SCORECARD_COLUMNS = [(HOLDS, "holds"), (FAILS, "does not hold"), (INCONCLUSIVE, "inconclusive"),
                     (INSIDE, "inside band"), (OUTSIDE, "outside band")]


def scorecard_row(doc: dict) -> list[str]:
    card = doc.get("scorecard")
    counts = [str(card.get(k, 0)) if card else MISSING for k, _ in SCORECARD_COLUMNS]
    p = doc.get("provenance") or {}
    return [escape(doc["name"]), escape(doc.get("size")), *counts, escape(p.get("commit")), escape(p.get("date"))]


def scorecard_block(args: str, results: Results) -> str:
    names, options = split_args(args)
    allow_options(options, ())
    docs = [results.experiment(n) for n in (names or results.names())]
    if not docs:
        return "*(no stored results)*"
    totals = [str(sum((d.get("scorecard") or {}).get(k, 0) for d in docs)) for k, _ in SCORECARD_COLUMNS]
    header = ["experiment", "size", *[label for _, label in SCORECARD_COLUMNS], "commit", "date"]
    rows = [scorecard_row(d) for d in docs] + [["all", "", *totals, "", ""]]
    right = [False, False] + [True] * len(SCORECARD_COLUMNS) + [False, False]
    return (markdown_table(header, rows, right) +
            f"\n\n<sub>Generated from `docs/results` ({len(docs)} experiments); each experiment's tables "
            "name their provenance. Regenerate: `make docs`.</sub>")


GENERATORS = {"table": table_block, "findings": findings_block, "provenance": provenance_block,
              "scorecard": scorecard_block}


def generate(marker: Marker, results: Results) -> str:
    """The markdown between a marker and its tcplab:end (without the surrounding newlines)."""
    generator = GENERATORS.get(marker.kind)
    if generator is None:
        raise PublishError(f"unknown marker tcplab:{marker.kind}; known: {', '.join(GENERATORS)}, end")
    return generator(marker.args, results)


# --------------------------------------------------------------------------- render / check


def rendered(text: str, path: str, results: Results) -> tuple[str, list[Problem], list[Problem]]:
    """(the text with every block regenerated, stale blocks, errors). A block that cannot be
    generated keeps its text and is an error."""
    blocks, errors = pair_blocks(find_markers(text), path)
    stale, pieces, pos = [], [], 0
    for b in blocks:
        try:
            inner = "\n" + generate(b.opening, results) + "\n"
        except PublishError as e:
            errors.append(Problem(path, b.opening.line, str(b.opening), str(e)))
            continue
        if text[b.opening.end:b.closing.start] != inner:
            stale.append(Problem(path, b.opening.line, str(b.opening), "stale: differs from the stored results "
                                                                        "(run `make docs`)"))
        pieces += [text[pos:b.opening.end], inner]
        pos = b.closing.start
    pieces.append(text[pos:])
    return "".join(pieces), stale, sorted(errors, key=lambda p: p.line)


def doc_files(docs: Path) -> list[Path]:
    return sorted(p for p in Path(docs).glob("*.md") if p.is_file())


def shown_path(path: Path, docs: Path) -> str:
    return str(Path(docs).name / path.relative_to(docs))


def render(docs: Path | None = None) -> list[Problem]:
    """Regenerate every block of docs/*.md; files with an error are left as they are. Returns
    the errors."""
    docs = docs_dir(docs)
    results, errors = Results(results_dir(docs)), []
    for path in doc_files(docs):
        text = path.read_bytes().decode("utf-8")
        new, _, problems = rendered(text, shown_path(path, docs), results)
        errors += problems
        if not problems and new != text:
            atomic_write(path, new.encode("utf-8"))
    return errors


def check(docs: Path | None = None) -> list[Problem]:
    """Every block that render would change (stale) or cannot produce (error)."""
    docs = docs_dir(docs)
    results, problems = Results(results_dir(docs)), []
    for path in doc_files(docs):
        _, stale, errors = rendered(path.read_bytes().decode("utf-8"), shown_path(path, docs), results)
        problems += sorted(stale + errors, key=lambda p: p.line)
    return problems


# --------------------------------------------------------------------------- command line


def parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--docs", type=Path, default=None,
                        help=f"the docs directory (default: this checkout's, {DOCS_DIR}); results go to DOCS/results")
    p = argparse.ArgumentParser(prog="python -m tcplab.publish", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", parents=[common], help="copy compact results from a reproduction directory")
    c.add_argument("source", type=Path, metavar="DIR", help="a `tcplab reproduce --out` directory")
    c.add_argument("experiments", nargs="*", metavar="EXPERIMENT", help="default: every experiment in DIR")
    c.add_argument("--allow-quick", action="store_true", help="publish results of a size other than full")
    sub.add_parser("render", parents=[common], help="regenerate the marked blocks of docs/*.md")
    sub.add_parser("check", parents=[common], help="list stale or broken blocks; exit 1 if any")
    return p


def main(argv=None) -> int:
    a = parser().parse_args(argv)
    try:
        if a.command == "collect":
            for d in collect(a.source, a.experiments, a.docs, a.allow_quick):
                print(f"collected {d}")
            return 0
        problems = render(a.docs) if a.command == "render" else check(a.docs)
    except (Refused, NoDocs) as e:
        print(f"publish {a.command}: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
