"""Sweeps: run an experiment's grid of scenarios × seeds in parallel local processes or on a
Dask cluster (same code path), store every finished run once, resume, report failures,
and write each experiment's tables and figures for the report."""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import json
import os
import sys
import threading
import time
import traceback
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tcplab import experiments as ex
from tcplab import plots
from tcplab.memory import PeakMeter, human, peak_rss_bytes
from tcplab.store import Store, run_key
from tcplab.verdicts import tally
from tcplab.worker_pool import WorkerPool


def simulate(spec: dict, seed: int, wall_limit: float | None):
    """Run one simulation in a worker. Never raises: returns (results, error, wall seconds)."""
    t0 = time.time()
    try:
        from tcplab.results import run

        return run(spec, seed=seed, wall_limit=wall_limit), None, time.time() - t0
    except BaseException as e:  # noqa: BLE001 - every failure is recorded, none is lost
        detail = f"{type(e).__name__}: {e}"
        if not isinstance(e, ValueError):
            detail += "\n" + "".join(traceback.format_exception(e))[-2000:]
        return None, detail, time.time() - t0


class _RunAndStore:
    """What a local worker process does for one run: simulate it with `worker`, then save the
    results into the store itself, so that they never travel to the sweep process (they were
    pickled, sent, unpickled and saved there, holding several copies at once). The process
    runs nothing else (a fresh one per run), so its peak resident memory is this run's:
    recorded in run.json as ``peak_rss_bytes``."""

    def __init__(self, worker: Callable, root: Path, plugins: dict | None = None):
        self.worker, self.root = worker, root
        self.plugins = plugins or {}  # the registered algorithms the runs use (register_algorithm)

    def __call__(self, spec: dict, seed: int, wall_limit: float | None, key: str, params: dict, attempt: int):
        _install_plugins(self.plugins)
        results, error, wall = self.worker(spec, seed, wall_limit)
        info = {"stored": False, "environmental": False, "peak_rss_bytes": None}
        if error is None:
            meta = {"params": params, "seed": seed, "key": key, "wall_seconds": wall, "attempts": attempt}
            try:
                meta = Store(self.root).save(key, results, meta, measure_peak=True)
                info["stored"] = True
                info["peak_rss_bytes"] = meta["peak_rss_bytes"]
            except OSError as e:  # OutputError included: disk full, permissions
                error = f"the results could not be stored: {type(e).__name__}: {e}"
                info["environmental"] = True
        del results
        if not info["stored"]:
            info["peak_rss_bytes"] = peak_rss_bytes()
        return None, error, wall, info


class _MeasuredRun:
    """A run on a Dask worker, whose process is long-lived and may run tasks in several
    threads: no peak of the run alone can be read there. ``worker_max_rss_bytes`` is the
    worker process's high-water mark when the run ended (at least the run's peak, and shared
    with whatever else that process ran)."""

    def __init__(self, worker: Callable, plugins: dict | None = None):
        self.worker = worker
        self.plugins = plugins or {}  # sent with every task (cloudpickle): see _Dask

    def __call__(self, spec: dict, seed: int, wall_limit: float | None):
        _install_plugins(self.plugins)
        results, error, wall = self.worker(spec, seed, wall_limit)
        return results, error, wall, {"peak_rss_bytes": None, "worker_max_rss_bytes": peak_rss_bytes()}


def _install_plugins(plugins: dict) -> None:
    """Register, in a worker process, the algorithms the sweep's process had registered
    (``tcplab.register_algorithm``) and its runs use: a worker made by fork has them
    already, one made by spawn or a Dask worker does not."""
    if plugins:
        from tcplab.plugins import install

        install(plugins)


def _plugins_for(runs: list, backend: str) -> dict:
    """The registered algorithms the runs use, checked up front to reach the workers of
    ``backend`` ("fork": inherited; "spawn": pickled; "dask": pickled with cloudpickle).
    A class that cannot be sent is refused in one line before any run starts."""
    from tcplab.plugins import registrations_used

    used: dict = {}
    for r in runs:
        used.update(registrations_used(r.spec))
    if not used or backend == "fork":
        return used
    if backend == "dask":
        try:
            from distributed.protocol.pickle import dumps
        except ImportError:  # pragma: no cover - dask without distributed
            import pickle

            dumps = pickle.dumps
    else:
        import pickle

        dumps = pickle.dumps
    for name, cls in sorted(used.items()):
        try:
            dumps(cls)
        except Exception as e:  # noqa: BLE001 - whatever the pickler raises, the class cannot go
            first = " ".join(str(e).split())
            where = "the Dask workers" if backend == "dask" else "the sweep's worker processes (spawn)"
            raise ex.ExperimentError(
                f"cc: registered algorithm {name!r} ({getattr(cls, '__qualname__', cls)!r}) cannot be sent to "
                f"{where}: {type(e).__name__}: {first}; allowed: a class defined at the top level of an importable "
                f"module, or cc = \"python:MODULE:CLASS\"") from None
    return used


#: attempts of a run whose worker process dies: the first and two retries
WORKER_DEATH_ATTEMPTS = 3
#: seconds to wait for a Dask scheduler to answer; TCPLAB_SCHEDULER_TIMEOUT overrides it
SCHEDULER_TIMEOUT = 10.0
MAX_JOBS = 1024


class SweepEnvironmentError(RuntimeError):
    """The sweep cannot go on for a reason outside the user's input (a scheduler that does
    not answer, a missing package): reported in one line, exit status 1."""


class RunsFailed(Exception):
    """Raised by `reproduce` once it has written the report, when runs failed or an
    experiment's analysis failed: `failures` are (experiment, params, seed, error) and
    `analysis_failures` (experiment, error), already listed on stderr one line each."""

    def __init__(self, report: Path, failures: list, analysis_failures: list | None = None):
        self.analysis_failures = analysis_failures or []
        super().__init__(f"{len(failures)} run(s) and {len(self.analysis_failures)} analysis(es) failed; "
                         f"the report of the rest is {report}")
        self.report, self.failures = report, failures


@dataclass
class SweepReport:
    done: list = field(default_factory=list)  # (Run, key), in the order of the runs given
    failed: list = field(default_factory=list)  # (Run, key, error), in the order of the runs given
    analysis_error: str | None = None  # set by run_experiment when the analysis raised
    reused: int = 0
    wall_seconds: float = 0.0
    environmental: set = field(default_factory=set)  # keys of failures a later sweep reruns unasked
    retries: int = 0  # runs started again because their worker process died
    reused_keys: set = field(default_factory=set)  # keys of the runs (done or failed) taken from the store, not run
    parent_peak_rss_bytes: int | None = None  # the sweep process's peak while it ran the sweep


class Progress:
    """Progress of long work on stderr: the sweep's runs (`update` per run), or a phase of other
    work (`phase`: planning, analysing, writing figures, the report) with a count if it has one.

    On a terminal one line is kept current (at most every REFRESH seconds). Into a file or
    pipe (a log) a line is written at most every EVERY seconds while the work advances, at
    least every QUIET seconds while it goes on, and at the end of the sweep; `note` and
    `finish` write a line of their own. The times are counted from the last line written to
    the stream by any Progress, so that one phase after another is never silent for long."""

    EVERY = 5.0
    QUIET = 10.0
    REFRESH = 1.0
    BEAT = 1.0  # seconds between the ticks of a phase's heartbeat
    _last_line: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # stream -> time of its last line

    def __init__(self, label: str, total: int = 0, stream=None):
        self.label, self.total = label, total
        self.stream = sys.stderr if stream is None else stream
        self.doing: str | None = None  # None: the sweep's runs
        self.unit = "runs"
        self.done = self.failed = self.retried = 0
        self.started = self.t0 = time.time()  # t0: the start of the current phase
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._news = False  # something to tell since the last line
        self._lock = threading.Lock()
        self.last = self._stream_clock(default=self.t0)

    def update(self, ok: bool = True) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        self._news = True
        self._show(self.EVERY)

    def retry(self, note: str) -> None:
        """A run starts again (its worker process died): say so on a line of its own."""
        self.retried += 1
        self.note(note)
        self._show(0)

    def tick(self) -> None:
        """Called while the work goes on: keeps a terminal's line current, and a log's every
        EVERY seconds when there is news (QUIET seconds when there is none)."""
        self._show(self.EVERY if self._news else self.QUIET, refresh=self.REFRESH)

    def note(self, text: str) -> None:
        """A line of its own, now."""
        with self._lock:
            self._write(f"[{self.label}] {text}", end=True)

    finish = note  # the last line of a piece of work

    def elapsed(self) -> float:
        return time.time() - self.t0

    @contextlib.contextmanager
    def phase(self, doing: str, total: int = 0, unit: str = ""):
        """Show `doing` (with "done/total unit" when there is a total; `update` counts) while
        the block runs: a thread calls `tick` every BEAT seconds."""
        self.doing, self.total, self.unit, self.done = doing, total, unit, 0
        self.t0, self._news = time.time(), True
        stop = threading.Event()
        beat = threading.Thread(target=self._beat, args=(stop,), name=f"progress {self.label}", daemon=True)
        beat.start()
        try:
            yield self
        except BaseException:
            if self.tty:  # what follows (an error, "interrupted") starts on a line of its own
                self.stream.write("\n")
            raise
        finally:
            stop.set()
            beat.join()

    def _beat(self, stop: threading.Event) -> None:
        while not stop.wait(self.BEAT):
            self.tick()

    def _stream_clock(self, default: float) -> float:
        try:
            return Progress._last_line.get(self.stream, default)
        except TypeError:  # a stream that cannot be weakly referenced
            return default

    def _line(self) -> str:
        el = time.time() - self.t0
        if self.doing is not None:
            count = f": {self.done}/{self.total} {self.unit}" if self.total else ""
            return f"[{self.label}] {self.doing}{count}, {el:.0f} s"
        eta = f"~{el / self.done * (self.total - self.done):.1f} s" if self.done else "?"
        retried = f"{self.retried} retried, " if self.retried else ""
        return (f"[{self.label}] {self.done}/{self.total} runs, {self.failed} failed, {retried}"
                f"elapsed {el:.1f} s, remaining {eta}")

    def _show(self, every: float, refresh: float = 0.0) -> None:
        with self._lock:
            now = time.time()
            self.last = max(self.last, self._stream_clock(default=self.last))
            finished = self.doing is None and self.done == self.total
            if self.tty:
                if now - self.last < refresh:
                    return
            elif not (finished or now - self.last >= every):
                return  # into a file or pipe: a line every few seconds and at the end
            self._write(self._line(), end=finished or not self.tty)

    def _write(self, text: str, end: bool) -> None:
        """A line: on a terminal it replaces the current one and stays current unless `end`."""
        if self.tty:
            self.stream.write(f"\r\x1b[K{text}" + ("\n" if end else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.last, self._news = time.time(), False
        try:
            Progress._last_line[self.stream] = self.last
        except TypeError:
            pass


@dataclass
class _Outcome:
    """What became of one attempt of task `index` (`retry`: its worker died, it runs again)."""

    index: int
    attempts: int
    results: Any = None
    error: str | None = None
    wall: float = float("nan")
    environmental: bool = False
    retry: bool = False
    #: what the worker measured and did: peak_rss_bytes, worker_max_rss_bytes (Dask), stored
    #: (the worker saved the results in the store itself), environmental
    info: dict = field(default_factory=dict)


def _answer(value) -> tuple:
    """(results, error, wall, info) from a worker's answer, with or without its info."""
    results, error, wall, *rest = value
    return results, error, wall, (rest[0] if rest else {})


class _Local:
    """Parallel local processes, a fresh one for every run: when a process dies, the run it
    was running is known; it is retried, and the runs still queued are untouched. A run's
    process ends with it, so its memory is returned and its peak is the run's.
    `worker(*task, attempt)` is called with the attempt number (1, 2, ...)."""

    def __init__(self, jobs: int):
        self.jobs = jobs

    @staticmethod
    def start_method() -> str:
        """How its worker processes start: "fork" (they inherit the sweep process's state,
        registered algorithms included) or "spawn"."""
        return WorkerPool.start_method()

    def run(self, worker: Callable, tasks: list[tuple], tick: Callable | None = None):
        try:  # imported once here rather than by every run's process when it saves its results
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            pass
        pool = WorkerPool(worker, min(self.jobs, len(tasks)), tasks_per_process=1)
        fresh = collections.deque(range(len(tasks)))
        again = collections.deque()
        attempts = [0] * len(tasks)
        finished = False
        try:
            while fresh or again or pool.busy:
                while fresh and pool.busy < pool.size:
                    i = fresh.popleft()
                    attempts[i] += 1
                    pool.start(i, tasks[i] + (attempts[i],))
                if again and not fresh and not pool.busy:
                    # A retry runs alone: if its worker was killed for memory that it shared with
                    # other runs, it now has the machine to itself.
                    i = again.popleft()
                    attempts[i] += 1
                    pool.start(i, tasks[i] + (attempts[i],))
                answers = pool.wait(timeout=1.0)
                if not answers and tick:
                    tick()
                for i, kind, value in answers:
                    n = attempts[i]
                    if kind == "ok":
                        results, error, wall, info = _answer(value)
                        del value
                        yield _Outcome(i, n, results, error, wall, environmental=bool(info.get("environmental")),
                                       info=info)
                        del results
                    elif kind == "raised":
                        yield _Outcome(i, n, error=f"the worker raised {value}")
                    elif n < WORKER_DEATH_ATTEMPTS:
                        again.append(i)
                        yield _Outcome(i, n, error=f"worker process died ({value})", environmental=True, retry=True)
                    else:
                        yield _Outcome(i, n, error=f"worker process died ({value}) on {n} attempts", environmental=True)
            finished = True
        finally:
            pool.close(kill=not finished)

    def close(self):
        pass


class _Dask:
    """A Dask cluster given by its scheduler address (or a Client). Dask itself reruns a task
    whose worker dies (up to `distributed.scheduler.allowed-failures` times)."""

    def __init__(self, scheduler, connect_timeout: float):
        try:
            from dask.distributed import Client
        except ImportError as e:
            raise SweepEnvironmentError(f"--scheduler needs dask.distributed, which is not available: {e}") from None

        self.own = not hasattr(scheduler, "submit")
        if not self.own:
            self.client = scheduler
            return
        try:
            self.client = Client(scheduler, timeout=connect_timeout)
        except (ValueError, TypeError) as e:
            raise ex.ExperimentError(f"scheduler address {scheduler!r} is not allowed: {e}") from None
        except (OSError, TimeoutError) as e:
            raise SweepEnvironmentError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None

    def run(self, worker: Callable, tasks: list[tuple], tick: Callable | None = None):
        from dask.distributed import as_completed

        measured = worker if isinstance(worker, _MeasuredRun) else _MeasuredRun(worker)
        futures = {self.client.submit(measured, *args, pure=False): i for i, args in enumerate(tasks)}
        try:
            for fut in as_completed(list(futures)):
                i = futures.pop(fut)
                try:
                    results, error, wall, info = _answer(fut.result())
                except Exception as e:  # noqa: BLE001 - every failure is recorded
                    # A worker that died on every attempt, a lost connection: not the run's fault.
                    env = isinstance(e, (OSError, TimeoutError)) or type(e).__name__ in (
                        "KilledWorker", "CancelledError", "FutureCancelledError")
                    yield _Outcome(i, 1, error=f"worker failed: {type(e).__name__}: {e}", environmental=env)
                else:
                    yield _Outcome(i, 1, results, error, wall, info=info)
                    del results
                del fut  # with the last reference gone, the cluster forgets the result
        finally:
            self.client.cancel([f for f in futures if not f.done()])

    def close(self):
        if self.own:
            self.client.close()


def _check_jobs(jobs) -> int:
    if jobs is None:
        return os.cpu_count() or 1
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise ex.ExperimentError(f"jobs {jobs!r} is not allowed; allowed: a whole number from 1 to {MAX_JOBS}")
    return jobs


def _scheduler_timeout(timeout) -> float:
    if timeout is None:
        text = os.environ.get("TCPLAB_SCHEDULER_TIMEOUT")
        if text is None:
            return SCHEDULER_TIMEOUT
        try:
            timeout = float(text)
        except ValueError:
            timeout = text
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 3600:
        raise ex.ExperimentError(f"scheduler timeout {timeout!r} is not allowed; allowed: seconds, more than 0 "
                                 f"and at most 3600 (TCPLAB_SCHEDULER_TIMEOUT)")
    return float(timeout)


def execute(runs: list, store: Store, jobs: int | None = None, scheduler=None, retry_failed: bool = False,
            label: str = "sweep", worker: Callable = simulate, progress: bool = True,
            connect_timeout: float | None = None) -> SweepReport:
    """Run every run not yet in the store; report them all in the order given.

    A run whose local worker process dies is retried, alone, up to WORKER_DEATH_ATTEMPTS
    attempts in all. A run that finally fails is recorded: a later sweep reruns it only with
    ``retry_failed``, unless the failure was environmental (its worker died), which a later
    sweep reruns by itself. ``connect_timeout``: seconds to wait for the scheduler.

    Local runs are saved by their worker processes; runs on a Dask cluster are sent back and
    saved here. Each run's record (run.json, or the failure record) has ``peak_rss_bytes``,
    the peak resident memory of the process that ran it (null when unknown: Dask, a worker
    that died).

    Algorithms registered in this process (``tcplab.register_algorithm``) that the runs name
    go with them and are registered in the worker before each run (spawned local workers
    and Dask workers need them pickled; a class that cannot be is refused with
    ExperimentError, one line, before any run). A knowledge-base CSV file is not read for
    names: an algorithm registered and named only there does not reach spawned or Dask
    workers (name it ``python:MODULE:CLASS`` in the file)."""
    t0 = time.time()
    jobs = _check_jobs(jobs)
    meter = PeakMeter().start()
    store.remove_stale_temporary_files(before=t0)
    rep = SweepReport()
    outcome: list = [None] * len(runs)  # (Run, key, error or None) per run
    todo = []
    for n, r in enumerate(runs):
        key = run_key(r.spec, r.seed)
        st = store.status(key)
        if st == "done":
            outcome[n] = (r, key, None)
            rep.reused += 1
            rep.reused_keys.add(key)
        elif st == "failed" and not retry_failed and not store.failed_by_environment(key):
            outcome[n] = (r, key, store.meta(key).get("error", "failed"))
            rep.reused_keys.add(key)
        else:
            todo.append((n, r, key))
    if todo:
        # The registered algorithms the runs use go with them (refused here, before any run,
        # if they cannot reach the workers).
        plugins = _plugins_for([r for _, r, _ in todo], "dask" if scheduler is not None else _Local.start_method())
        backend = (_Dask(scheduler, _scheduler_timeout(connect_timeout)) if scheduler is not None
                   else _Local(jobs))
        bar = Progress(label, len(todo)) if progress else None
        if isinstance(backend, _Local):
            fn, tasks = _RunAndStore(worker, store.root, plugins), [(r.spec, r.seed, r.wall_limit, key, r.params)
                                                                     for _, r, key in todo]
        else:
            fn, tasks = _MeasuredRun(worker, plugins), [(r.spec, r.seed, r.wall_limit) for _, r, _ in todo]

        def tick():
            meter.sample()
            if bar:
                bar.tick()

        outcomes = backend.run(fn, tasks, tick=tick)
        try:
            for o in outcomes:
                meter.sample()
                n, r, key = todo[o.index]
                if o.retry:
                    rep.retries += 1
                    if bar:
                        bar.retry(f"{o.error} running {r.params} seed {r.seed}; it runs again, alone "
                                  f"(attempt {o.attempts + 1} of {WORKER_DEATH_ATTEMPTS})")
                    continue
                meta = {"params": r.params, "seed": r.seed, "key": key, "wall_seconds": o.wall,
                        "attempts": o.attempts, "peak_rss_bytes": o.info.get("peak_rss_bytes")}
                if "worker_max_rss_bytes" in o.info:
                    meta["worker_max_rss_bytes"] = o.info["worker_max_rss_bytes"]
                if o.error is None:
                    if not o.info.get("stored"):
                        store.save(key, o.results, meta)  # also removes an earlier failure record
                    o.results = None
                else:
                    store.fail(key, o.error, meta, environmental=o.environmental)
                    if o.environmental:
                        rep.environmental.add(key)
                outcome[n] = (r, key, o.error)
                if bar:
                    bar.update(o.error is None)
        finally:
            outcomes.close()
            backend.close()
    for r, key, error in outcome:
        if error is None:
            rep.done.append((r, key))
        else:
            rep.failed.append((r, key, error))
            if store.failed_by_environment(key):
                rep.environmental.add(key)
    rep.wall_seconds = time.time() - t0
    rep.parent_peak_rss_bytes = meter.stop()
    return rep


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if hasattr(x, "item"):
        return x.item()
    return x


def provenance() -> dict:
    """What produced a result: tcplab's version, the source commit when run from a git
    checkout (with "+changes" when the tree differs from it), the date and the machine."""
    import datetime
    import platform
    import subprocess

    from tcplab import __version__, _core

    commit = None
    src = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "-C", str(src), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                              text=True, timeout=10)
        if head.returncode == 0:
            commit = head.stdout.strip()
            dirty = subprocess.run(["git", "-C", str(src), "status", "--porcelain", "--untracked-files=no"],
                                   capture_output=True, text=True, timeout=10)
            if dirty.returncode == 0 and dirty.stdout.strip():
                commit += "+changes"
    except (OSError, subprocess.SubprocessError):
        commit = None
    return {"tcplab": __version__, "core": _core.__build__, "commit": commit,
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores"}


def write_experiment(out: Path, exp: ex.Experiment, size: str, plan: ex.Plan, rep: SweepReport,
                     store: Store, analysis: ex.Analysis | None, error: str | None,
                     analysis_meter: PeakMeter | None = None, planned_replications: int | None = None) -> Path:
    """Write one experiment's tables (CSV + JSON), figures (PNG + SVG) and description.
    `analysis_meter`, started before the analysis, is stopped once the figures are written:
    its peak is the analysis's. `planned_replications`: the size's replications, when the
    plan was cut to fewer (``replications`` records how many ran)."""
    d = out / exp.name
    (d / "tables").mkdir(parents=True, exist_ok=True)
    tables = []
    figures = []
    if analysis is not None:
        for t in analysis.tables:
            t.data.to_csv(d / "tables" / f"{t.name}.csv", index=False)
            tables.append({"name": t.name, "title": t.title, "paper": t.paper, "note": t.note,
                           "csv": f"tables/{t.name}.csv"})
        for f in analysis.figures:
            paths = plots.save(f.figure, d / "figures", f.name)
            figures.append({"name": f.name, "title": f.title, "png": str(paths[0].relative_to(d)),
                            "svg": str(paths[1].relative_to(d))})
    analysis_peak = analysis_meter.stop() if analysis_meter is not None else None
    runs = []

    def record(r, key, status, **extra):
        # A reused run was not run by this sweep: its wall time and peak memory are the ones
        # stored when it ran (null if it was stored before peaks were recorded).
        meta = store.meta(key)
        doc = {"params": r.params, "seed": r.seed, "key": key, "status": status, **extra,
               "wall_seconds": meta.get("wall_seconds"), "peak_rss_bytes": meta.get("peak_rss_bytes"),
               "reused": key in rep.reused_keys}
        if "worker_max_rss_bytes" in meta:
            doc["worker_max_rss_bytes"] = meta["worker_max_rss_bytes"]
        runs.append(doc)

    for r, key in rep.done:
        record(r, key, "done")
    for r, key, err in rep.failed:
        record(r, key, "failed", error=err)
    peaks = [x["peak_rss_bytes"] for x in runs if isinstance(x["peak_rss_bytes"], int)]
    doc = {
        "name": exp.name,
        "description": exp.description,
        "paper": exp.paper,
        "size": size,
        "provenance": provenance(),
        "scorecard": tally([t.data for t in analysis.tables], analysis.findings) if analysis else None,
        "parameters": plan.parameters,
        "seeds": sorted({r.seed for r in plan.runs}),
        "replications": ex.planned_replications(plan.runs),
        "planned_replications": planned_replications or ex.planned_replications(plan.runs),
        "runs": runs,
        "reused": rep.reused,
        "sweep_wall_seconds": rep.wall_seconds,
        # peak resident memory: the largest of the runs' (each in a process of its own, reused
        # runs included), the sweep process's while it ran the sweep, the analysis's
        "run_peak_rss_bytes": max(peaks) if peaks else None,
        "sweep_peak_rss_bytes": rep.parent_peak_rss_bytes,
        "analysis_peak_rss_bytes": analysis_peak,
        "tables": tables,
        "figures": figures,
        "findings": analysis.findings if analysis else [],
        "analysis_error": error,
    }
    tmp = d / ".experiment.json.tmp"
    tmp.write_text(json.dumps(_jsonable(doc), indent=2, default=str))
    os.replace(tmp, d / "experiment.json")
    return d


def run_experiment(name: str, size: str = "quick", jobs: int | None = None, scheduler=None,
                   out: str | os.PathLike = "results", retry_failed: bool = False,
                   worker: Callable | None = None, connect_timeout: float | None = None,
                   progress: bool = True, replications: int | None = None) -> tuple[Path, SweepReport]:
    """Plan, sweep, analyse and write one experiment into ``out/<name>``. With ``progress``,
    each phase that takes long shows on stderr (see Progress) and a line sums it up at the end.
    ``replications``: run only the first that many seeds of each parameter set (all the
    plan's when None); a later sweep with more reuses the stored ones."""
    if size not in ex.SIZES:
        raise ex.ExperimentError(f"size {size!r} is not allowed; allowed: {', '.join(ex.SIZES)}")
    _check_jobs(jobs)
    ex.first_replications([], replications)  # refuse a bad count before any work
    exp = ex.get(name)
    bar = Progress(name) if progress else None
    took: dict[str, float] = {}
    with _phase(bar, took, "plan", "planning"):
        plan = exp.plan(size)
        planned = ex.planned_replications(plan.runs)
        plan = dataclasses.replace(plan, runs=ex.first_replications(plan.runs, replications))
    out = Path(out)
    store = Store(out / "store")
    t0 = time.time()
    rep = execute(plan.runs, store, jobs=jobs, scheduler=scheduler, retry_failed=retry_failed, label=name,
                  worker=worker or simulate, progress=progress, connect_timeout=connect_timeout)
    took["sweep"] = time.time() - t0
    # The analysis's peak memory: from here until its figures are written (write_experiment).
    meter = PeakMeter(interval=0.05).start() if rep.done else None
    analysis, error = _analyse(plan, rep, store, bar, took)
    rep.analysis_error = error
    with _phase(bar, took, "write", _writing(analysis)):
        d = write_experiment(out, exp, size, plan, rep, store, analysis, error, analysis_meter=meter,
                             planned_replications=planned)
    if bar:
        bar.finish(_experiment_summary(plan, rep, analysis, took, time.time() - bar.started)
                   + "; " + memory_summary(d))
    return d, rep


@contextlib.contextmanager
def _phase(bar: Progress | None, took: dict, key: str, doing: str, total: int = 0, unit: str = ""):
    """Time a phase of an experiment into ``took[key]``, showing ``doing`` on the bar meanwhile."""
    t0 = time.time()
    with bar.phase(doing, total, unit) if bar else contextlib.nullcontext():
        yield
    took[key] = time.time() - t0


def _analyse(plan: ex.Plan, rep: SweepReport, store: Store, bar: Progress | None,
             took: dict) -> tuple[ex.Analysis | None, str | None]:
    """The plan's analysis of the finished runs, in the plan's order whatever order they
    finished in (the same tables every sweep), counting on the bar the runs it has read.
    Returns (analysis, None), or (None, the error with its traceback) when it raised."""
    if not rep.done and plan.runs:  # a model's plan has no runs and is analysed all the same
        return None, None
    read: set = set()

    def load(key):
        results = store.load(key)
        if bar and key not in read:
            read.add(key)
            bar.update()
        return results

    done = [ex.Done(r, load=lambda key=key: load(key)) for r, key in rep.done]
    keys = len({key for _, key in rep.done})
    try:
        with _phase(bar, took, "analysis", f"analysing {_counted(len(done), 'run')}", keys, "read"):
            return plan.analyse(done), None
    except Exception as e:  # noqa: BLE001 - reported in the experiment's page
        return None, f"{type(e).__name__}: {e}\n" + traceback.format_exc()[-2000:]


def _counted(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _writing(analysis: ex.Analysis | None) -> str:
    if analysis is None:
        return "writing experiment.json"
    return f"writing {_counted(len(analysis.tables), 'table')} and {_counted(len(analysis.figures), 'figure')}"


def _experiment_summary(plan: ex.Plan, rep: SweepReport, analysis: ex.Analysis | None, took: dict,
                        total: float) -> str:
    """One line: what each phase of an experiment did and how long it took."""
    runs = _counted(len(plan.runs), "run")
    if rep.reused or rep.failed:
        runs += f" ({rep.reused} from the store, {len(rep.failed)} failed)"
    if rep.analysis_error:
        analysed = f"the analysis failed after {took.get('analysis', 0):.1f} s"
    elif analysis is None:
        analysed = "no analysis (no run finished)"
    else:
        analysed = f"analysis {took['analysis']:.1f} s"
    return (f"done in {total:.1f} s: planning {took['plan']:.1f} s; {runs} {took['sweep']:.1f} s; {analysed}; "
            f"{_writing(analysis)[len('writing '):]} written in {took['write']:.1f} s")


def memory_summary(directory: Path) -> str:
    """The peak memory an experiment's experiment.json records, in a few words."""
    doc = json.loads((directory / "experiment.json").read_text())
    measured = sum(isinstance(r.get("peak_rss_bytes"), int) for r in doc["runs"])
    return (f"peak memory: largest run {human(doc['run_peak_rss_bytes'])} ({measured} of {len(doc['runs'])} "
            f"runs measured), sweep {human(doc['sweep_peak_rss_bytes'])}, "
            f"analysis {human(doc['analysis_peak_rss_bytes'])}")


def _legacy_reproduction_root(directory: Path, entries: list[str]) -> set | None:
    """A reproduction directory written before markers existed: nothing but the store,
    experiment pages, the report, tcplab's work directories and other tcplab outputs."""
    from tcplab.outdir import read_marker

    known = {"store", "report"} | {n for n, _ in ex.list_experiments()}
    for e in entries:
        if e in known or e.startswith(".tcplab-"):
            continue
        if not (directory / e).is_dir() or read_marker(directory / e) is None:
            return None
    return set()


def claim_reproduction_root(out: str | os.PathLike, force: bool = False) -> Path:
    """Check, before any run, that ``out`` may hold a reproduction (new, empty, marked by an
    earlier reproduction, or laid out like one) and that its report directory may be
    written; then mark it. Raises OutputRefused otherwise (docs/safety.md)."""
    from tcplab.outdir import claim_directory, plan_output
    from tcplab.report import _legacy_report_dir

    root = claim_directory(out, "reproduction", force, _legacy_reproduction_root)
    plan_output(root / "report", "report", ["index.html"], force, _legacy_report_dir)
    return root


def _write_reproduction_report(root: Path, force: bool) -> Path:
    """The report of every experiment in ``root``: those just run and those of earlier
    reproductions, in the registry's order; an experiment.json that cannot be read is left
    out, with a line on stderr."""
    from tcplab.report import reproduction_dirs, write_report

    dirs, unreadable = reproduction_dirs(root, [n for n, _ in ex.list_experiments()])
    for d in unreadable:
        sys.stderr.write(f"[report] {d} is left out: its experiment.json cannot be read\n")
    return write_report(dirs, root / "report", force=force, progress=True)


def reproduce(names=None, size: str = "quick", jobs: int | None = None, scheduler=None,
              out: str | os.PathLike = "results", retry_failed: bool = False, worker: Callable | None = None,
              connect_timeout: float | None = None, force: bool = False,
              replications: int | None = None) -> Path:
    """Run experiments (all when `names` is empty), then write the HTML report of every
    experiment in ``out``: those just run (what succeeded) and those earlier reproductions
    left there, which keep their sections. Returns the path of the report's index.html; when
    runs failed, lists them on stderr, one line each, and raises RunsFailed. ``out`` must be
    new, empty or a previous reproduction's directory (see :func:`claim_reproduction_root`)
    unless ``force``. Progress goes to stderr (see Progress). ``replications``: as for
    :func:`run_experiment`."""
    names = list(names) if names else [n for n, _ in ex.list_experiments()]
    for n in names:
        ex.get(n)  # fail early on an unknown name
    _check_jobs(jobs)
    ex.first_replications([], replications)
    root = claim_reproduction_root(out, force)
    failures, analysis_failures = [], []
    for n in names:
        _, rep = run_experiment(n, size=size, jobs=jobs, scheduler=scheduler, out=out, retry_failed=retry_failed,
                                worker=worker, connect_timeout=connect_timeout, replications=replications)
        failures += [(n, r.params, r.seed, err, key in rep.environmental) for r, key, err in rep.failed]
        if rep.analysis_error:
            analysis_failures.append((n, rep.analysis_error))
    report = _write_reproduction_report(root, force)
    if failures:
        sys.stderr.write(f"{len(failures)} run(s) failed:\n")
        for n, params, seed, err, environmental in failures:
            again = "the next sweep reruns it" if environmental else "rerun it with --retry-failed"
            sys.stderr.write(f"  {n} {params} seed {seed}: {(err.splitlines() or ['failed'])[0]} ({again})\n")
    if analysis_failures:
        sys.stderr.write(f"{len(analysis_failures)} analysis(es) failed:\n")
        for n, err in analysis_failures:
            sys.stderr.write(f"  {n}: {(err.splitlines() or ['failed'])[0]} (the traceback is on its report page)\n")
    if failures or analysis_failures:
        raise RunsFailed(report, [f[:4] for f in failures], analysis_failures)
    return report
