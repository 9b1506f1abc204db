"""Sweeps: run an experiment's grid of scenarios × seeds in parallel local processes or on a
Dask cluster (same code path), store every finished run once, resume, report failures,
and write each experiment's tables and figures for the report."""
from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing
import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tcplab import experiments as ex
from tcplab import plots
from tcplab.store import Store, run_key


def simulate(spec: dict, seed: int, wall_limit: float | None):
    """Run one simulation in a worker. Never raises: returns (results, error, wall seconds)."""
    t0 = time.time()
    try:
        from tcplab.run import run

        return run(spec, seed=seed, wall_limit=wall_limit), None, time.time() - t0
    except BaseException as e:  # noqa: BLE001 - every failure is recorded, none is lost
        detail = f"{type(e).__name__}: {e}"
        if not isinstance(e, ValueError):
            detail += "\n" + "".join(traceback.format_exception(e))[-2000:]
        return None, detail, time.time() - t0


@dataclass
class SweepReport:
    done: list = field(default_factory=list)  # (Run, key)
    failed: list = field(default_factory=list)  # (Run, key, error)
    reused: int = 0
    wall_seconds: float = 0.0


class Progress:
    def __init__(self, label: str, total: int, stream=sys.stderr):
        self.label, self.total, self.stream = label, total, stream
        self.done = self.failed = 0
        self.t0 = self.last = time.time()
        self.tty = hasattr(stream, "isatty") and stream.isatty()

    def update(self, ok: bool) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        now = time.time()
        finished = self.done == self.total
        if not (self.tty or finished or now - self.last >= 5):
            return  # into a file or pipe: a line every 5 s and at the end
        self.last = now
        el = now - self.t0
        eta = el / self.done * (self.total - self.done)
        line = (f"[{self.label}] {self.done}/{self.total} runs, {self.failed} failed, "
                f"elapsed {el:.1f} s, remaining ~{eta:.1f} s")
        self.stream.write(f"\r{line}   " + ("\n" if finished else "") if self.tty else line + "\n")
        self.stream.flush()


class _Local:
    """Parallel local processes."""

    def __init__(self, jobs: int | None):
        # fork: workers start at once and scripts without a __main__ guard still work (the
        # core runs no threads of its own); spawn where fork does not exist.
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self.pool = cf.ProcessPoolExecutor(max_workers=jobs or os.cpu_count() or 1, mp_context=ctx)

    def submit(self, fn, *args):
        return self.pool.submit(fn, *args)

    def as_completed(self, futures):
        return cf.as_completed(futures)

    @staticmethod
    def result(f):
        return f.result()

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=True)


class _Dask:
    """A Dask cluster given by its scheduler address (or a Client)."""

    def __init__(self, scheduler):
        from dask.distributed import Client

        self.own = not hasattr(scheduler, "submit")
        self.client = Client(scheduler) if self.own else scheduler

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False)

    def as_completed(self, futures):
        from dask.distributed import as_completed

        return as_completed(futures)

    @staticmethod
    def result(f):
        return f.result()

    def close(self):
        if self.own:
            self.client.close()


def execute(runs: list, store: Store, jobs: int | None = None, scheduler=None, retry_failed: bool = False,
            label: str = "sweep", worker: Callable = simulate, progress: bool = True) -> SweepReport:
    """Run every run not yet in the store. Failed runs are recorded, and rerun only with
    ``retry_failed``."""
    t0 = time.time()
    rep = SweepReport()
    todo = []
    for r in runs:
        key = run_key(r.spec, r.seed)
        st = store.status(key)
        if st == "done":
            rep.done.append((r, key))
            rep.reused += 1
        elif st == "failed" and not retry_failed:
            rep.failed.append((r, key, store.meta(key).get("error", "failed")))
        else:
            todo.append((r, key))
    if todo:
        backend = _Dask(scheduler) if scheduler is not None else _Local(jobs)
        bar = Progress(label, len(todo)) if progress else None
        try:
            futures = {backend.submit(worker, r.spec, r.seed, r.wall_limit): (r, key) for r, key in todo}
            for fut in backend.as_completed(list(futures)):
                r, key = futures[fut]
                meta = {"params": r.params, "seed": r.seed, "key": key}
                try:
                    results, error, wall = backend.result(fut)
                except BaseException as e:  # a worker process died, or the cluster lost it
                    results, error, wall = None, f"worker failed: {type(e).__name__}: {e}", float("nan")
                meta["wall_seconds"] = wall
                if error is None:
                    store.save(key, results, meta)
                    rep.done.append((r, key))
                else:
                    store.fail(key, error, meta)
                    rep.failed.append((r, key, error))
                if bar:
                    bar.update(error is None)
        finally:
            backend.close()
    rep.wall_seconds = time.time() - t0
    return rep


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if hasattr(x, "item"):
        return x.item()
    return x


def write_experiment(out: Path, exp: ex.Experiment, size: str, plan: ex.Plan, rep: SweepReport,
                     store: Store, analysis: ex.Analysis | None, error: str | None) -> Path:
    """Write one experiment's tables (CSV + JSON), figures (PNG + SVG) and description."""
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
    runs = []
    for r, key in rep.done:
        runs.append({"params": r.params, "seed": r.seed, "key": key, "status": "done",
                     "wall_seconds": store.meta(key).get("wall_seconds")})
    for r, key, err in rep.failed:
        runs.append({"params": r.params, "seed": r.seed, "key": key, "status": "failed", "error": err,
                     "wall_seconds": store.meta(key).get("wall_seconds")})
    doc = {
        "name": exp.name,
        "description": exp.description,
        "paper": exp.paper,
        "size": size,
        "parameters": plan.parameters,
        "seeds": sorted({r.seed for r in plan.runs}),
        "runs": runs,
        "reused": rep.reused,
        "sweep_wall_seconds": rep.wall_seconds,
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
                   worker: Callable = simulate) -> tuple[Path, SweepReport]:
    if size not in ex.SIZES:
        raise ex.ExperimentError(f"size {size!r} is not allowed; allowed: {', '.join(ex.SIZES)}")
    exp = ex.get(name)
    plan = exp.plan(size)
    out = Path(out)
    store = Store(out / "store")
    rep = execute(plan.runs, store, jobs=jobs, scheduler=scheduler, retry_failed=retry_failed, label=name,
                  worker=worker)
    analysis, error = None, None
    if rep.done:
        done = [ex.Done(r, load=lambda key=key: store.load(key)) for r, key in rep.done]
        try:
            analysis = plan.analyse(done)
        except Exception as e:  # noqa: BLE001 - reported in the experiment's page
            error = f"{type(e).__name__}: {e}\n" + traceback.format_exc()[-2000:]
    return write_experiment(out, exp, size, plan, rep, store, analysis, error), rep


def reproduce(names=None, size: str = "quick", jobs: int | None = None, scheduler=None,
              out: str | os.PathLike = "results", retry_failed: bool = False) -> Path:
    """Run experiments (all when `names` is empty), then write the HTML report. Returns the
    path of the report's index.html."""
    from tcplab.report import write_report

    names = list(names) if names else [n for n, _ in ex.list_experiments()]
    for n in names:
        ex.get(n)  # fail early on an unknown name
    dirs = []
    failures = []
    for n in names:
        d, rep = run_experiment(n, size=size, jobs=jobs, scheduler=scheduler, out=out, retry_failed=retry_failed)
        dirs.append(d)
        failures += [(n, r.params, r.seed, err) for r, _, err in rep.failed]
    if failures:
        sys.stderr.write(f"{len(failures)} run(s) failed (rerun them with --retry-failed):\n")
        for n, params, seed, err in failures:
            sys.stderr.write(f"  {n} {params} seed {seed}: {err.splitlines()[0]}\n")
    return write_report(dirs, Path(out) / "report")
