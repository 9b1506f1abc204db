"""The golden corpus: small scenarios that together exercise every feature of the core
(tests/golden/scenarios/*.toml), and the sha256 of every table, pcap and the deterministic
part of the summary each of them produces per seed (tests/golden/hashes.json).

    python tests/golden/corpus.py            # check: print each mismatch, exit 1 if any
    python tests/golden/corpus.py --update   # rewrite hashes.json (changes printed too)
    python tests/golden/corpus.py NAME ...   # only these scenarios (file names, .toml optional)

The hashes are over the raw columns the core returns (`_core.run`), not over pandas or
Parquet bytes, so they do not move with library versions. Update them only in a commit that
says why results changed (docs/architecture.md, "Golden corpus").
"""
from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
import time
from pathlib import Path

import numpy as np

from tcplab import _core
from tcplab.scenario import load_scenario, to_json

GOLDEN_DIR = Path(__file__).resolve().parent
SCENARIO_DIR = GOLDEN_DIR / "scenarios"
HASH_FILE = GOLDEN_DIR / "hashes.json"
SEEDS = (1, 2)
# Wall-clock times differ between runs of one spec and seed; the version between builds.
UNHASHED_SUMMARY_FIELDS = frozenset({"setup_seconds", "loop_seconds", "version"})
HASH_FILE_ABOUT = (
    "sha256 of every output of every golden scenario per seed: tables over their raw columns "
    "(name, column names in order, type tag, values; floats by their IEEE-754 bits), pcaps over "
    "their bytes, summary without wall times and version. Written by tests/golden/corpus.py --update."
)

_NUMPY_TAGS = {("f", 8): "f64", ("u", 8): "u64", ("i", 8): "i64"}


def scenario_files(names: list[str] | None = None) -> list[Path]:
    """The corpus's scenario files, sorted; `names` selects some (with or without .toml)."""
    files = sorted(SCENARIO_DIR.glob("*.toml"))
    if not names:
        return files
    by_name = {f.name: f for f in files}
    wanted = [n if n.endswith(".toml") else n + ".toml" for n in names]
    unknown = [n for n in wanted if n not in by_name]
    if unknown:
        raise SystemExit(f"no such golden scenario: {', '.join(unknown)} (in {SCENARIO_DIR})")
    return [by_name[n] for n in wanted]


def load_spec(path: Path) -> dict:
    return load_scenario(path)


def run_scenario(path: Path, seed: int) -> dict:
    """What the core returns for one scenario and seed: table name -> columns, `summary`, `pcaps`."""
    return _core.run(to_json(load_spec(path)), seed, None, None)


def _column_bytes(values) -> tuple[str, bytes]:
    """A type tag and the canonical bytes of one column."""
    if isinstance(values, np.ndarray):
        tag = _NUMPY_TAGS.get((values.dtype.kind, values.dtype.itemsize))
        if tag is None:
            raise TypeError(f"no canonical form for a column of dtype {values.dtype}")
        return tag, values.astype(values.dtype.newbyteorder("<"), copy=False).tobytes()
    if isinstance(values, list) and all(isinstance(v, str) for v in values):
        return "str", b"".join(_framed(v.encode("utf-8")) for v in values)
    raise TypeError(f"no canonical form for a column of type {type(values).__name__}")


def _framed(data: bytes) -> bytes:
    # A length prefix keeps field boundaries: ("ab", "c") and ("a", "bc") hash differently.
    return struct.pack("<Q", len(data)) + data


def table_hash(name: str, columns: dict) -> str:
    """sha256 over the table name and, per column in order, its name, type tag, length and values."""
    h = hashlib.sha256(_framed(b"table") + _framed(name.encode("utf-8")))
    for column, values in columns.items():
        tag, data = _column_bytes(values)
        h.update(_framed(column.encode("utf-8")) + _framed(tag.encode()) + struct.pack("<Q", len(values)))
        h.update(_framed(data))
    return h.hexdigest()


def _exact(value):
    """The summary with every float written by its exact bits (float.hex)."""
    if isinstance(value, float):
        return {"float": value.hex()}
    if isinstance(value, dict):
        return {k: _exact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_exact(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    raise TypeError(f"no canonical form for a summary value of type {type(value).__name__}")


def summary_hash(summary: dict) -> str:
    kept = {k: v for k, v in summary.items() if k not in UNHASHED_SUMMARY_FIELDS}
    text = json.dumps(_exact(kept), sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def output_hashes(out: dict) -> dict[str, str]:
    """One hash per output of a run: every table (whatever tables the core returns), the
    summary, and `pcap:<name>` per capture."""
    hashes = {}
    for name, value in out.items():
        if name == "summary":
            hashes[name] = summary_hash(value)
        elif name == "pcaps":
            for capture, data in value.items():
                hashes[f"pcap:{capture}"] = hashlib.sha256(data).hexdigest()
        else:
            hashes[name] = table_hash(name, value)
    return hashes


def compute(paths: list[Path], seeds=SEEDS) -> dict[str, dict[str, dict[str, str]]]:
    """scenario file name -> seed (as a string, the JSON key) -> output -> hash."""
    return {p.name: {str(seed): output_hashes(run_scenario(p, seed)) for seed in seeds} for p in paths}


def load_stored() -> dict[str, dict[str, dict[str, str]]]:
    if not HASH_FILE.exists():
        return {}
    return json.loads(HASH_FILE.read_text())["scenarios"]


def write_stored(scenarios: dict) -> None:
    document = {"about": HASH_FILE_ABOUT, "seeds": list(SEEDS), "scenarios": scenarios}
    HASH_FILE.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")


def mismatches(stored: dict, fresh: dict) -> list[tuple[str, str, str, str, str]]:
    """(scenario, seed, output, old, new) for every hash of `fresh` that differs from `stored`,
    with "-" for a side that has no such entry. Only the scenarios in `fresh` are compared."""
    found = []
    for scenario in sorted(fresh):
        old_seeds = stored.get(scenario, {})
        new_seeds = fresh[scenario]
        for seed in sorted(set(old_seeds) | set(new_seeds), key=int):
            old = old_seeds.get(seed, {})
            new = new_seeds.get(seed, {})
            for output in sorted(set(old) | set(new)):
                if old.get(output) != new.get(output):
                    found.append((scenario, seed, output, old.get(output, "-"), new.get(output, "-")))
    return found


def format_mismatch(m: tuple[str, str, str, str, str]) -> str:
    scenario, seed, output, old, new = m
    return f"{scenario} {seed} {output}: {old[:16]} -> {new[:16]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="rewrite hashes.json with the current results")
    parser.add_argument("scenarios", nargs="*", help="only these scenario files (default: all)")
    args = parser.parse_args(argv)

    paths = scenario_files(args.scenarios)
    t0 = time.perf_counter()
    fresh = compute(paths)
    elapsed = time.perf_counter() - t0
    stored = load_stored()
    found = mismatches(stored, fresh)
    vanished = [] if args.scenarios else sorted(set(stored) - set(fresh))
    for m in found:
        print(format_mismatch(m))
    for scenario in vanished:
        print(f"{scenario}: stored, but the scenario file is gone")
    outputs = sum(len(h) for seeds in fresh.values() for h in seeds.values())
    print(f"{len(paths)} scenarios x {len(SEEDS)} seeds, {outputs} hashes in {elapsed:.1f} s: "
          f"{len(found)} mismatches" + (f", {len(vanished)} scenarios gone" if vanished else ""))
    if args.update:
        scenarios = dict(stored) if args.scenarios else {}
        scenarios.update(fresh)
        write_stored(scenarios)
        print(f"wrote {HASH_FILE}")
        return 0
    return 1 if found or vanished else 0


if __name__ == "__main__":
    sys.exit(main())
