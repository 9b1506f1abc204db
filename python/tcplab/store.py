"""The result store: each finished run written once, atomically, keyed by the hash of its
normalised spec and seed, so that sweeps resume and repeated sweeps reuse what exists."""
from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from tcplab import _core
from tcplab.memory import peak_rss_bytes
from tcplab.results import Results
from tcplab.scenario import normalise


def run_key(spec: dict, seed: int) -> str:
    """Stable key of (normalised spec, seed, simulator build). The build is the version plus a
    fingerprint of the core's sources, so results of an older core are never reused after the
    core changes. An invalid spec is keyed by its raw form, so that its failure can be recorded
    like any other."""
    try:
        norm = normalise(spec)
    except _core.ScenarioError:
        norm = {"invalid": spec}
    doc = {"spec": norm, "seed": seed, "version": _core.__build__}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:24]


def _write_atomic(path: Path, text: str) -> None:
    # The writer's pid in the name tells a later sweep whether the file is abandoned.
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# ".<key>.failed.json.<pid>.<random>", as _write_atomic names its temporary files
_TEMPORARY = re.compile(r"\.[0-9a-f]+\.failed\.json\.(?P<pid>\d+)\.[A-Za-z0-9_]+")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


class Store:
    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self.runs = self.root / "runs"
        self.runs.mkdir(parents=True, exist_ok=True)

    def _dir(self, key: str) -> Path:
        return self.runs / key

    def _failed(self, key: str) -> Path:
        return self.runs / f"{key}.failed.json"

    def status(self, key: str) -> str | None:
        if (self._dir(key) / "summary.json").exists():
            return "done"
        if self._failed(key).exists():
            return "failed"
        return None

    def save(self, key: str, results: Results, meta: dict, measure_peak: bool = False) -> dict:
        """Store a finished run with `meta` (its run.json); returns the meta written. With
        `measure_peak` (in a process that ran only this run), meta gets ``peak_rss_bytes``:
        this process's peak resident memory, read once the tables are written."""
        meta = dict(meta)

        def run_json(path: Path) -> None:
            if measure_peak:
                meta["peak_rss_bytes"] = peak_rss_bytes()
            path.write_text(json.dumps(meta, indent=2))

        results.save(self._dir(key), extra_files={"run.json": run_json})
        self._failed(key).unlink(missing_ok=True)
        return meta

    def fail(self, key: str, error: str, meta: dict, environmental: bool = False) -> None:
        """Record a failed run. `environmental`: it failed because its worker process died,
        not because of its scenario, so a later sweep reruns it without being asked."""
        record = {**meta, "error": error, "environmental": environmental}
        _write_atomic(self._failed(key), json.dumps(record, indent=2))

    def failed_by_environment(self, key: str) -> bool:
        record = self.meta(key)
        # Sweeps before the distinction recorded every run queued behind a dying worker as
        # failed with BrokenProcessPool: those are environmental too.
        return bool(record.get("environmental")) or "BrokenProcessPool" in record.get("error", "")

    def remove_stale_temporary_files(self, before: float) -> list[Path]:
        """Remove the temporary files of failure records abandoned by a killed sweep: older
        than `before` and written by a process that no longer exists. Returns what it removed."""
        removed = []
        for p in self.runs.iterdir():
            m = _TEMPORARY.fullmatch(p.name)
            if not m or _alive(int(m["pid"])):
                continue
            try:
                if p.is_file() and p.stat().st_mtime < before:
                    p.unlink()
                    removed.append(p)
            except FileNotFoundError:  # another sweep removed it first
                pass
        return removed

    def load(self, key: str) -> Results:
        """The results of a stored run; each table is read from disk when first used."""
        return Results.load(self._dir(key), lazy=True)

    def meta(self, key: str) -> dict:
        d = self._dir(key) / "run.json"
        if d.exists():
            return json.loads(d.read_text())
        f = self._failed(key)
        return json.loads(f.read_text()) if f.exists() else {}
