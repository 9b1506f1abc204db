"""Running one simulation and holding its results as pandas DataFrames."""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from tcplab import _core
from tcplab.scenario import as_spec, to_json

TABLES = ("flows", "links", "flow_ts", "link_ts", "events", "lans", "parallel_intervals", "generators")
# Tables added later: results saved before them load with an empty frame.
_OPTIONAL_TABLES = ("lans", "parallel_intervals", "generators")


@dataclass
class Results:
    """What one run produced.

    - ``flows``: one row per flow (counters, goodput, completion time, final state)
    - ``links``: one row per link direction (arrivals, departures, drops by cause, utilisation)
    - ``flow_ts``, ``link_ts``: sampled time series (cwnd, ssthresh, srtt, ...; queue length)
    - ``events``: loss reactions and algorithm decisions per flow
    - ``lans``: one row per LAN member interface (arrivals, departures, drops by cause)
    - ``parallel_intervals``: TCBI, one row per (interval of constant set membership with
      n >= 2, member flow): ``host, set, interval, t0, t1, n, flow, name, acked_bytes``
    - ``generators``: one row per flow generator: flows created and completed, and the
      completed flows' totals (segments, Σ completion time, Σ size/completion time,
      delivered bytes, retransmissions, timeouts); a generator with ``record = "summary"``
      appears only here, not in ``flows``
    - ``pcaps``: packet captures requested by the spec (name -> pcap bytes)
    - ``summary``: seed, duration, event count, wall times, and ``spec``, the normalised spec
      with every effective default
    """

    flows: pd.DataFrame
    links: pd.DataFrame
    flow_ts: pd.DataFrame
    link_ts: pd.DataFrame
    events: pd.DataFrame
    summary: dict
    pcaps: dict = field(default_factory=dict)
    lans: pd.DataFrame = field(default_factory=pd.DataFrame)
    parallel_intervals: pd.DataFrame = field(default_factory=pd.DataFrame)
    generators: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def spec(self) -> dict:
        return self.summary["spec"]

    @property
    def seed(self) -> int:
        return self.summary["seed"]

    def save(self, directory: str | os.PathLike, extra_files: dict[str, str | bytes] | None = None) -> Path:
        """Write the results into ``directory`` atomically: either every file is there, or
        the directory is left as it was. ``extra_files`` (name -> text or bytes, e.g. a plot)
        are written with them."""
        target = Path(directory)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        try:
            for name in TABLES:
                frame = getattr(self, name)
                if name in _OPTIONAL_TABLES and frame.empty:
                    continue  # runs without LANs / TCBI save what they always saved
                frame.to_parquet(tmp / f"{name}.parquet", index=False)
            (tmp / "summary.json").write_text(json.dumps(self.summary, indent=2, allow_nan=True))
            for name, data in self.pcaps.items():
                (tmp / f"{name}.pcap").write_bytes(data)
            for name, data in (extra_files or {}).items():
                if isinstance(data, bytes):
                    (tmp / name).write_bytes(data)
                else:
                    (tmp / name).write_text(data)
            old = None
            if target.exists():
                old = target.with_name(f".{target.name}.old-{os.getpid()}")
                target.rename(old)
            tmp.rename(target)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return target

    @classmethod
    def load(cls, directory: str | os.PathLike) -> "Results":
        d = Path(directory)
        tables = {name: pd.read_parquet(d / f"{name}.parquet") for name in TABLES
                  if name not in _OPTIONAL_TABLES or (d / f"{name}.parquet").exists()}
        summary = json.loads((d / "summary.json").read_text())
        pcaps = {p.stem: p.read_bytes() for p in sorted(d.glob("*.pcap"))}
        return cls(summary=summary, pcaps=pcaps, **tables)


_INT64_MAX = np.iinfo(np.int64).max


def _column(values):
    # Counters arrive as uint64; int64 is what pandas and arithmetic on differences expect.
    if isinstance(values, np.ndarray) and values.dtype == np.uint64:
        if values.size == 0 or values.max() <= _INT64_MAX:
            return values.astype(np.int64)
    return values


def _frame(columns: dict) -> pd.DataFrame:
    return pd.DataFrame({k: _column(v) for k, v in columns.items()})


def print_progress(now: float, end: float, events: int, stream=None) -> None:
    """A one-line progress report (simulated time, share done, events) on stderr."""
    stream = stream or sys.stderr
    stream.write(f"\rsimulated {now:.1f} of {end:.1f} s ({100 * now / end if end else 100:.0f} %), "
                 f"{events / 1e6:.1f} M events")
    stream.flush()


def run(spec: Any, seed: int | None = None, wall_limit: float | None = None,
        progress: bool | Callable[[float, float, int], Any] = False) -> Results:
    """Run one simulation of ``spec`` (a dict, a :class:`Scenario`, or a TOML path).

    ``seed`` defaults to the spec's ``sim.seed`` (1 if absent). Raises
    :class:`tcplab.ScenarioError` for an invalid spec, naming the field, and
    :class:`tcplab.SimulationError` if the run fails or exceeds ``wall_limit`` seconds.
    ``progress=True`` prints the simulated time on stderr about once a second; a callable
    is called instead as ``progress(simulated_now, simulated_end, events)``. Ctrl-C stops
    the run with ``KeyboardInterrupt``.
    """
    d = as_spec(spec)
    if seed is None:
        seed = (d.get("sim") or {}).get("seed", 1)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0 or seed >= 2**64:
        raise _core.ScenarioError(f"seed: {seed!r} is not allowed; must be an integer in [0, 2^64)")
    callback = print_progress if progress is True else (progress or None)
    out = _core.run(to_json(d), seed, wall_limit, callback)
    if progress is True:
        sys.stderr.write("\n")
    return Results(
        summary=out["summary"],
        pcaps=dict(out["pcaps"]),
        **{name: _frame(out[name]) for name in TABLES if name in out},
    )
