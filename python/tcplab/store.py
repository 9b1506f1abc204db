"""The result store: each finished run written once, atomically, keyed by the hash of its
normalised spec and seed, so that sweeps resume and repeated sweeps reuse what exists."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from tcplab import _core
from tcplab.run import Results
from tcplab.scenario import normalise


def run_key(spec: dict, seed: int) -> str:
    """Stable key of (normalised spec, seed, simulator version). An invalid spec is keyed by
    its raw form, so that its failure can be recorded like any other."""
    try:
        norm = normalise(spec)
    except _core.ScenarioError:
        norm = {"invalid": spec}
    doc = {"spec": norm, "seed": seed, "version": _core.__version__}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:24]


def _write_atomic(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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

    def save(self, key: str, results: Results, meta: dict) -> None:
        results.save(self._dir(key), extra_files={"run.json": json.dumps(meta, indent=2)})
        self._failed(key).unlink(missing_ok=True)

    def fail(self, key: str, error: str, meta: dict) -> None:
        _write_atomic(self._failed(key), json.dumps({**meta, "error": error}, indent=2))

    def load(self, key: str) -> Results:
        return Results.load(self._dir(key))

    def meta(self, key: str) -> dict:
        d = self._dir(key) / "run.json"
        if d.exists():
            return json.loads(d.read_text())
        f = self._failed(key)
        return json.loads(f.read_text()) if f.exists() else {}
