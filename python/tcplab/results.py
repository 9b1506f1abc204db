"""Running one simulation and holding its results as pandas DataFrames.

numpy and pandas (half a second and 100 MB to import) are imported where they are used: a
lazy run that is only saved (`tcplab run`) keeps its tables as the Parquet files the core
wrote and never imports them."""
from __future__ import annotations

import functools
import io
import json
import operator
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from tcplab import _core
from tcplab.outdir import check_complete, plan_output, safe_file_names, write_output
from tcplab.scenario import as_spec, to_json

if TYPE_CHECKING:
    import pandas as pd

TABLES = ("flows", "links", "flow_ts", "link_ts", "events", "lans", "parallel_intervals", "generators", "drops")
# Tables added later: results saved before them load with an empty frame.
_OPTIONAL_TABLES = ("lans", "parallel_intervals", "generators", "drops")


def _empty_frame() -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame()


@dataclass
class Results:
    """What one run produced.

    - ``flows``: one row per flow (counters, goodput, completion time, final state; with VoIP
      flows or UDP flows with ``delay_stats``, also ``direction, datagrams_lost, delay_mean,
      delay_std, delay_min, delay_max, jitter_rfc3550``: ``tcplab.metrics.datagram_delay``)
    - ``links``: one row per link direction (arrivals, departures, drops by cause, utilisation;
      with ``[[link_changes]]`` also ``drops_down``)
    - ``flow_ts``, ``link_ts``: sampled time series (cwnd, ssthresh, srtt, ...; queue length)
    - ``events``: loss reactions and algorithm decisions per flow (and ``datagram_delay`` per
      datagram of flows with ``delay_trace``; ``web_*`` rows per request of a packmime
      generator with ``log_requests``: ``tcplab.web.request_log``); with ``[[link_changes]]`` a
      ``link`` column and a row per change applied (``link_delay``, ``link_rate``, ``link_queue``,
      ``link_loss``, ``link_down``, ``link_up``; ``flow`` is 2**64 - 1 on those rows, ``link`` on
      flow rows)
    - ``lans``: one row per LAN member interface (arrivals, departures, drops by cause)
    - ``parallel_intervals``: TCBI, one row per (interval of constant set membership with
      n >= 2, member flow): ``host, set, interval, t0, t1, n, flow, name, acked_bytes``
    - ``generators``: one row per flow generator: flows created and completed, and the
      completed flows' totals (segments, Σ completion time, Σ size/completion time,
      delivered bytes, retransmissions, timeouts; with a packmime generator also the
      ``web_*`` request-level columns); a generator with ``record = "summary"``
      appears only here, not in ``flows``
    - ``drops``: with ``sim.drop_trace = true``, one row per dropped packet: ``time, hop``
      (the links table's row, or a LAN hop), ``src, dst, reason`` (queue, aqm, loss, down),
      ``flow, kind, seq, size, ecn``; empty otherwise
    - ``pcaps``: packet captures requested by the spec (name -> pcap bytes)
    - ``summary``: seed, duration, event count, wall times, and ``spec``, the normalised spec
      with every effective default

    A lazy result (``run(..., lazy=True)``, ``Results.load(..., lazy=True)``) reads each table
    into a DataFrame when it is first used.
    """

    flows: pd.DataFrame
    links: pd.DataFrame
    flow_ts: pd.DataFrame
    link_ts: pd.DataFrame
    events: pd.DataFrame
    summary: dict
    pcaps: dict = field(default_factory=dict)
    lans: pd.DataFrame = field(default_factory=_empty_frame)
    parallel_intervals: pd.DataFrame = field(default_factory=_empty_frame)
    generators: pd.DataFrame = field(default_factory=_empty_frame)
    drops: pd.DataFrame = field(default_factory=_empty_frame)

    _normalised_spec: dict | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def spec(self) -> dict:
        """The normalised spec. Very large runs carry the spec as given (``spec_input``)
        instead, normalised here on first use."""
        if "spec" in self.summary:
            return self.summary["spec"]
        if self._normalised_spec is None:
            from tcplab.scenario import normalise

            self._normalised_spec = normalise(self.summary["spec_input"])
        return self._normalised_spec

    @property
    def seed(self) -> int:
        return self.summary["seed"]

    def save(self, directory: str | os.PathLike, extra_files: dict[str, Any] | None = None,
             force: bool = False) -> Path:
        """Write the results into ``directory``, all or nothing, with a marker file saying
        tcplab wrote them. ``extra_files`` (name -> text, bytes, or a function writing the
        path it is given, e.g. a plot) are written with them. Files are written in the order
        of their names.

        An existing directory is replaced only if it holds a previous tcplab run, and then
        only the files tcplab wrote; anything else raises :class:`tcplab.OutputRefused`
        unless ``force=True``, which writes into the directory replacing only files with
        the names written here. A failure of the environment (disk full, permissions,
        memory) raises :class:`tcplab.OutputError`. See docs/safety.md."""
        pcap_files = safe_file_names(self.pcaps, ".pcap")
        parquet = self.__dict__.get("_parquet", {})
        files: dict[str, Any] = {}
        for name in TABLES:
            if name in parquet:  # not used since the run: the core's file as it is
                data, rows = parquet[name]
                if not (name in _OPTIONAL_TABLES and rows == 0):
                    files[f"{name}.parquet"] = data
                continue
            frame = getattr(self, name)
            if name in _OPTIONAL_TABLES and frame.empty:
                continue  # runs without LANs / TCBI save what they always saved
            files[f"{name}.parquet"] = lambda path, frame=frame: frame.to_parquet(path, index=False)
        files["summary.json"] = lambda path: path.write_text(json.dumps(self.summary, indent=2, allow_nan=True))
        for name, data in self.pcaps.items():
            files[pcap_files[name]] = data
        for name, data in (extra_files or {}).items():
            if name in files:
                raise ValueError(f"extra file {name!r} would replace one of the results")
            files[name] = data
        return write_output(directory, files, kind="run", force=force, meta={"pcaps": pcap_files},
                            legacy=_legacy_run_dir)

    @staticmethod
    def check_target(directory: str | os.PathLike, force: bool = False) -> None:
        """Raise :class:`tcplab.OutputRefused` if :meth:`save` would refuse ``directory``;
        writes nothing. Call it before a long run."""
        plan_output(directory, "run", force=force, legacy=_legacy_run_dir)

    @classmethod
    def load(cls, directory: str | os.PathLike, lazy: bool = False) -> "Results":
        """Read results written by :meth:`save`. Raises :class:`tcplab.OutputError` for a
        directory whose save was interrupted, FileNotFoundError for one that holds no results.

        ``lazy=True`` reads only the summary now and each table (and the pcaps) when it is
        first used, so that code that looks at the flows and links of many runs does not
        read their time series and events (the run store loads this way)."""
        d = Path(directory)
        marker = check_complete(d)
        if not (d / "summary.json").is_file():
            raise FileNotFoundError(f"{d}: not a tcplab result directory (no summary.json)")
        table_files = {name: d / f"{name}.parquet" for name in TABLES
                       if name not in _OPTIONAL_TABLES or (d / f"{name}.parquet").exists()}
        summary = json.loads((d / "summary.json").read_text())
        index = (marker or {}).get("pcaps")
        if isinstance(index, dict):
            pcap_files = {name: d / file for name, file in index.items()
                          if isinstance(file, str) and file in marker["files"]}
        else:  # saved before the marker existed: names were the file names
            pcap_files = {p.stem: p for p in sorted(d.glob("*.pcap"))}

        def read_pcaps():
            return {name: path.read_bytes() for name, path in pcap_files.items()}

        if not lazy:
            return cls(summary=summary, pcaps=read_pcaps(),
                       **{name: _read_table(path) for name, path in table_files.items()})
        pending = {name: functools.partial(_read_table, table_files[name]) if name in table_files
                   else _empty_frame for name in TABLES}
        pending["pcaps"] = read_pcaps
        return cls._lazy(summary, pending)

    @classmethod
    def _lazy(cls, summary: dict, pending: dict[str, Callable[[], Any]], **state) -> "Results":
        """Results whose attributes named in ``pending`` are made by calling their function
        on first use; ``state`` goes into the instance as it is (``_parquet``, ``_previews``)."""
        r = cls(summary=summary, **{name: None for name in TABLES})
        for name in pending:
            delattr(r, name)  # made on first use, by __getattr__
        r.__dict__.update(_pending=pending, **state)
        return r

    def preview(self, name: str) -> dict | None:
        """The rows of table ``name`` the core picked for a short view (``run(...,
        previews=...)``): ``{"limit", "busiest", "columns", "rows", "more"}``, as long as
        the table was not used since the run; None otherwise (the table itself has them)."""
        if name not in self.__dict__.get("_parquet", {}):
            return None
        return self.__dict__.get("_previews", {}).get(name)

    def __getattr__(self, name: str):
        # Only called for attributes that are missing: the tables of a lazy result not read yet.
        pending = self.__dict__.get("_pending")
        if pending is None or name not in pending:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value = pending[name]()
        setattr(self, name, value)
        return value

    def __setattr__(self, name: str, value) -> None:
        # From now on the value is the table (it may change): save writes the frame, not the
        # core's file, and the core's preview of it no longer counts.
        self.__dict__.get("_pending", {}).pop(name, None)
        self.__dict__.get("_parquet", {}).pop(name, None)
        object.__setattr__(self, name, value)

    def __getstate__(self):
        for name in list(self.__dict__.get("_pending", ())):
            getattr(self, name)
        return {k: v for k, v in self.__dict__.items() if k not in ("_pending", "_parquet", "_previews")}


_LEGACY_RUN_FILES = {f"{name}.parquet" for name in TABLES} | {"summary.json", "run.json", "cwnd.png"}


def _legacy_run_dir(d: Path, entries: list[str]) -> set | None:
    """A run directory written before markers existed: only tcplab's file names, all regular
    files, the required ones present, and a summary.json that starts like tcplab's."""
    if not {"summary.json", "flows.parquet", "links.parquet"} <= set(entries):
        return None
    if not all((e in _LEGACY_RUN_FILES or e.endswith(".pcap")) and os.path.isfile(d / e)
               and not os.path.islink(d / e) for e in entries):
        return None
    try:
        with open(d / "summary.json", "rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    if not (head.lstrip().startswith(b"{") and b'"duration":' in head and b'"events":' in head):
        return None
    return set(entries)


_INT64_MAX = 2**63 - 1


def _column(values):
    # Counters arrive as uint64; int64 is what pandas and arithmetic on differences expect.
    # Below 2^63 both types have the same bits, so the array is reinterpreted, not copied.
    import numpy as np

    if isinstance(values, np.ndarray) and values.dtype == np.uint64:
        if values.size == 0 or values.max() <= _INT64_MAX:
            return values.view(np.int64)
    return values


def _frame(columns: dict) -> pd.DataFrame:
    # copy=False: the frame uses the arrays the core returned (one block per column) instead
    # of copying them into one block per type, which doubled a run's memory for a moment.
    import pandas as pd

    return pd.DataFrame({k: _column(v) for k, v in columns.items()}, copy=False)


def _read_table(source: bytes | os.PathLike) -> pd.DataFrame:
    """A table from a Parquet file (its bytes or its path), as ``_frame`` makes it from the
    core's columns. A table without rows is remade by ``_frame``: pandas gives a column of
    no strings the type it infers for an empty list (float64 in pandas 3), not str."""
    import pandas as pd
    from pandas.api.types import is_string_dtype

    frame = pd.read_parquet(io.BytesIO(source) if isinstance(source, bytes) else source)
    if len(frame) == 0 and any(is_string_dtype(c) for _, c in frame.items()):
        frame = _frame({name: [] if is_string_dtype(c) else c.to_numpy() for name, c in frame.items()})
    return frame


def print_progress(now: float, end: float, events: int, stream=None) -> None:
    """A one-line progress report (simulated time, share done, events) on stderr."""
    stream = stream or sys.stderr
    stream.write(f"\rsimulated {now:.1f} of {end:.1f} s ({100 * now / end if end else 100:.0f} %), "
                 f"{events / 1e6:.1f} M events")
    stream.flush()


def run(spec: Any, seed: int | None = None, wall_limit: float | None = None,
        progress: bool | Callable[[float, float, int], Any] = False, lazy: bool = False,
        previews: dict[str, tuple[int, str | None]] | None = None) -> Results:
    """Run one simulation of ``spec`` (a dict, a :class:`Scenario`, or a TOML path).

    ``seed`` defaults to the spec's ``sim.seed`` (1 if absent). Raises
    :class:`tcplab.ScenarioError` for an invalid spec, naming the field, and
    :class:`tcplab.SimulationError` if the run fails or exceeds ``wall_limit`` seconds.
    ``progress=True`` prints the simulated time on stderr about once a second; a callable
    is called instead as ``progress(simulated_now, simulated_end, events)``. Ctrl-C stops
    the run with ``KeyboardInterrupt``.

    ``lazy=True`` keeps each table as the Parquet file the core wrote and reads it into a
    DataFrame on first use; :meth:`Results.save` writes the tables not used as they are, so
    a run that is only saved never imports numpy or pandas. ``previews`` (lazy runs only:
    table name -> ``(limit, busiest)``) asks the core for the rows a short view of a table
    shows (:meth:`Results.preview`): the first ``limit``, or the ``limit`` with the largest
    positive values of column ``busiest``.
    """
    d = as_spec(spec)
    seed = run_seed(d, seed)
    if previews and not lazy:
        raise ValueError("previews: only for a lazy run (lazy=True)")
    callback = print_progress if progress is True else (progress or None)
    if lazy:
        out = _core.run(to_json(d), seed, wall_limit, callback, output="parquet", previews=previews)
    else:
        out = _core.run(to_json(d), seed, wall_limit, callback)
    if progress is True:
        sys.stderr.write("\n")
    return results_from_output(out, lazy)


def run_seed(d: dict, seed: Any) -> int:
    """The master seed of a run of spec ``d``: ``seed``, or the spec's ``sim.seed`` (1 if
    absent); anything but an integer in [0, 2^64) is a :class:`tcplab.ScenarioError`."""
    field_name = "seed"
    if seed is None:
        sim = d.get("sim")
        # A `sim` that is not a table is reported by the core's validation.
        seed = sim.get("seed", 1) if isinstance(sim, dict) else 1
        field_name = "sim.seed"
    np = sys.modules.get("numpy")  # a numpy integer comes only from a caller that imported numpy
    if np is not None and isinstance(seed, np.integer):
        seed = operator.index(seed)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0 or seed >= 2**64:
        raise _core.ScenarioError(f"{field_name}: {seed!r} is not allowed; must be an integer in [0, 2^64)")
    return seed


def results_from_output(out: dict, lazy: bool) -> Results:
    """The :class:`Results` of the dict the core returns for a run (``_core.run``, or a
    stepped simulation's ``finish``), with ``output="parquet"`` when ``lazy``."""
    summary, pcaps = out.pop("summary"), dict(out.pop("pcaps"))
    if not lazy:
        return Results(summary=summary, pcaps=pcaps, **{name: _frame(out.pop(name)) for name in TABLES})
    rows = out.pop("rows")
    parquet = {name: (out.pop(name), rows[name]) for name in TABLES}
    pending = {name: functools.partial(_read_table, data) for name, (data, _) in parquet.items()}
    r = Results._lazy(summary, pending, _parquet=parquet, _previews=out.pop("previews"))
    r.pcaps = pcaps
    return r
