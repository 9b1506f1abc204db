"""Sweeps that survive faults: dying workers, a killed sweep, completion order, an unreachable
scheduler, temporary files left by a killed sweep. Fake-fast: tiny one-flow runs."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import tcplab
from tcplab import cli
from tcplab import experiments as ex
from tcplab import sweep
from tcplab.experiments import Analysis, Plan, Run, Table
from tcplab.store import Store
from tcplab.sweep import execute, run_experiment, simulate

TINY = "sweep_faults_tiny"


def tiny_spec():
    return (
        tcplab.Scenario(duration=1)
        .node("a")
        .node("b")
        .link("a", "b", rate="10Mbps", delay="10ms", queue=50)
        .flow(src="a", dst="b")
        .to_dict()
    )


def tiny_runs(n=4):
    return [Run({"i": s}, tiny_spec(), s) for s in range(1, n + 1)]


class Killer:
    """A worker that kills its own process with SIGKILL, as the out-of-memory killer does, for
    the chosen seeds: on every attempt, or only on the first `times`. Logs every call, so that
    the test sees which runs were started how often, across processes."""

    def __init__(self, log: Path, seeds, times=None):
        self.log, self.seeds, self.times = Path(log), set(seeds), times
        self.log.mkdir(parents=True, exist_ok=True)

    def __call__(self, spec, seed, wall_limit):
        with open(self.log / str(seed), "a") as f:
            f.write("call\n")
        if seed in self.seeds and (self.times is None or self.calls(seed) <= self.times):
            os.kill(os.getpid(), signal.SIGKILL)
        return simulate(spec, seed, wall_limit)

    def calls(self, seed) -> int:
        p = self.log / str(seed)
        return len(p.read_text().splitlines()) if p.exists() else 0


def test_a_killed_worker_is_retried_alone_then_recorded_and_queued_runs_are_not_charged(tmp_path):
    store = Store(tmp_path / "store")
    killer = Killer(tmp_path / "calls", seeds={2})
    rep = execute(tiny_runs(), store, jobs=2, worker=killer, progress=False)
    [(r, key, err)] = rep.failed
    assert r.seed == 2 and err == "worker process died (signal 9) on 3 attempts"
    assert rep.retries == 2 and killer.calls(2) == 3
    record = json.loads((store.runs / f"{key}.failed.json").read_text())
    assert record["attempts"] == 3 and record["environmental"] is True
    # The other runs ran once each, in the pool that was rebuilt around them.
    assert [r.seed for r, _ in rep.done] == [1, 3, 4]
    for r, k in rep.done:
        assert killer.calls(r.seed) == 1 and store.meta(k)["attempts"] == 1 and store.status(k) == "done"


def test_runs_whose_workers_died_once_succeed_on_retry(tmp_path):
    store = Store(tmp_path / "store")
    # Both runs in flight die at the same time; the two queued behind them are untouched.
    killer = Killer(tmp_path / "calls", seeds={1, 2}, times=1)
    rep = execute(tiny_runs(), store, jobs=2, worker=killer, progress=False)
    assert not rep.failed and [r.seed for r, _ in rep.done] == [1, 2, 3, 4]
    assert {r.seed: store.meta(k)["attempts"] for r, k in rep.done} == {1: 2, 2: 2, 3: 1, 4: 1}
    assert [killer.calls(s) for s in (1, 2, 3, 4)] == [2, 2, 1, 1]
    assert not list(store.runs.glob("*.failed.json"))


def test_environmental_failures_are_rerun_deterministic_ones_are_not(tmp_path):
    store = Store(tmp_path / "store")
    execute(tiny_runs(), store, jobs=2, worker=Killer(tmp_path / "calls", seeds={1}), progress=False)

    def error_on_seed_2(spec, seed, wall_limit):
        return (None, "RuntimeError: deterministic", 0.0) if seed == 2 else simulate(spec, seed, wall_limit)

    store2 = Store(tmp_path / "store2")
    execute(tiny_runs(), store2, jobs=2, worker=error_on_seed_2, progress=False)
    for s in (store, store2):
        rep = execute(tiny_runs(), s, jobs=2, progress=False)
        if s is store:  # the killed run is rerun without being asked; its failure record goes
            assert not rep.failed and rep.reused == 3 and not list(s.runs.glob("*.failed.json"))
        else:  # the simulation error stays until --retry-failed
            assert [(r.seed, e) for r, _, e in rep.failed] == [(2, "RuntimeError: deterministic")]
            assert rep.reused == 3


@pytest.fixture
def tiny_experiment():
    """A registered four-run experiment whose table lists the runs in the order it gets them."""

    def plan(size):
        def analyse(done):
            rows = [{"seed": d.seed, "goodput": d.results.flows["goodput_bps"].iloc[0]} for d in done]
            return Analysis(tables=[Table("runs", "runs in the order given", pd.DataFrame(rows))])

        return Plan(tiny_runs(), analyse)

    ex.get("dumbbell_newreno")  # load the real ones first, so that they do not clash with ours
    ex.experiment(TINY, "four tiny runs")(plan)
    yield TINY
    ex.REGISTRY.pop(TINY)


def slow_first(spec, seed, wall_limit):
    """Later seeds finish first."""
    time.sleep(0.15 * (5 - seed))
    return simulate(spec, seed, wall_limit)


def test_tables_do_not_depend_on_completion_order(tmp_path, tiny_experiment):
    a, _ = run_experiment(TINY, jobs=1, out=tmp_path / "a", progress=False)
    b, rep = run_experiment(TINY, jobs=4, out=tmp_path / "b", worker=slow_first, progress=False)
    assert [r.seed for r, _ in rep.done] == [1, 2, 3, 4]
    assert (a / "tables" / "runs.csv").read_bytes() == (b / "tables" / "runs.csv").read_bytes()
    runs_a = json.loads((a / "experiment.json").read_text())["runs"]
    runs_b = json.loads((b / "experiment.json").read_text())["runs"]
    assert [r["key"] for r in runs_a] == [r["key"] for r in runs_b]


def test_reproduce_writes_what_succeeded_lists_failures_and_exits_1(tmp_path, tiny_experiment, monkeypatch, capfd):
    monkeypatch.setattr(sweep, "simulate", Killer(tmp_path / "calls", seeds={3}))
    assert cli.main(["reproduce", TINY, "--out", str(tmp_path / "out"), "--jobs", "2"]) == 1
    err = capfd.readouterr().err
    assert "1 run(s) failed:\n" in err
    assert (f"  {TINY} {{'i': 3}} seed 3: worker process died (signal 9) on 3 attempts "
            "(the next sweep reruns it)\n") in err
    assert "Traceback" not in err
    assert (tmp_path / "out" / "report" / "index.html").exists()
    assert list(pd.read_csv(tmp_path / "out" / TINY / "tables" / "runs.csv")["seed"]) == [1, 2, 4]
    # Without the fault the next sweep completes the table and exits 0.
    monkeypatch.setattr(sweep, "simulate", simulate)
    assert cli.main(["reproduce", TINY, "--out", str(tmp_path / "out"), "--jobs", "2"]) == 0
    assert list(pd.read_csv(tmp_path / "out" / TINY / "tables" / "runs.csv")["seed"]) == [1, 2, 3, 4]


KILLED_SWEEP = """
import functools, json, os, sys, time
import tcplab.worker_pool as wp
from tcplab.experiments import Run
from tcplab.store import Store
from tcplab.sweep import execute

if sys.argv[3] == "watchdog":
    wp.die_with_parent = functools.partial(wp.die_with_parent, use_prctl=False)

def sleeper(spec, seed, wall_limit):
    open(os.path.join(sys.argv[1], f"worker-{os.getpid()}"), "w").close()
    time.sleep(120)

spec = json.loads(sys.argv[2])
execute([Run({}, spec, s) for s in (1, 2, 3)], Store(os.path.join(sys.argv[1], "store")), jobs=2,
        worker=sleeper, progress=False)
"""


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["prctl", "watchdog", "ctrl-c"])
def test_workers_end_when_the_sweep_is_killed_or_interrupted(tmp_path, how):
    p = subprocess.Popen([sys.executable, "-c", KILLED_SWEEP, str(tmp_path), json.dumps(tiny_spec()), how],
                         start_new_session=True, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while len(list(tmp_path.glob("worker-*"))) < 2:
            assert time.time() < deadline and p.poll() is None, "the workers did not start"
            time.sleep(0.05)
        pids = [int(f.name.split("-")[1]) for f in tmp_path.glob("worker-*")]
        assert all(_running(pid) for pid in pids)
        if how == "ctrl-c":  # the terminal sends SIGINT to the whole process group
            os.killpg(p.pid, signal.SIGINT)
            # generous: on a loaded 2-core machine the sweep may be starting a fresh worker
            # process (importing numpy) when the signal arrives (timed out at 10 s once)
            p.wait(30)
    finally:
        p.kill()
        p.wait()
    deadline = time.time() + 5
    while any(_running(pid) for pid in pids) and time.time() < deadline:
        time.sleep(0.05)
    alive = [pid for pid in pids if _running(pid)]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, "workers outlived their sweep"
    assert not list((tmp_path / "store" / "runs").iterdir()), "an interrupted run is not a failed one"


def test_unreachable_scheduler_is_one_line_and_exit_1(tmp_path, monkeypatch, capsys):
    pytest.importorskip("dask.distributed")
    monkeypatch.setenv("TCPLAB_SCHEDULER_TIMEOUT", "1")
    t0 = time.time()
    args = ["reproduce", "dumbbell_newreno", "--out", str(tmp_path), "--scheduler"]
    assert cli.main(args + ["tcp://127.0.0.1:1"]) == 1
    assert time.time() - t0 < 10
    err = capsys.readouterr().err
    assert err.startswith("error: cannot reach the Dask scheduler at tcp://127.0.0.1:1") and err.count("\n") == 1
    assert cli.main(args + ["nonsense"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: scheduler address 'nonsense' is not allowed") and err.count("\n") == 1


@pytest.mark.parametrize("jobs", [0, -1, 10**6])
def test_jobs_out_of_range_is_one_line_and_exit_2(tmp_path, jobs, capsys):
    assert cli.main(["reproduce", "dumbbell_newreno", "--jobs", str(jobs), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == f"error: jobs {jobs} is not allowed; allowed: a whole number from 1 to 1024\n"
    assert not (tmp_path / "o").exists()


def _killed_while_recording_a_failure(store: Store, key: str) -> None:
    """A process that dies half-way through Store.fail, leaving its temporary file."""
    pid = os.fork()
    if pid == 0:
        os.replace = lambda *a: os._exit(9)
        store.fail(key, "x", {})
        os._exit(0)
    os.waitpid(pid, 0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_stale_temporary_failure_records_are_removed_by_the_next_sweep(tmp_path):
    store = Store(tmp_path / "store")
    key = "0123456789abcdef01234567"
    _killed_while_recording_a_failure(store, key)
    [stale] = store.runs.iterdir()
    assert stale.name.startswith(f".{key}.failed.json.")
    os.utime(stale, (time.time() - 3600,) * 2)
    live = store.runs / f".{key}.failed.json.{os.getpid()}.q1w2e3r4"  # a sweep still writing
    other = store.runs / ".notes.txt"  # not ours
    for p in (live, other):
        p.write_text("{}")
        os.utime(p, (time.time() - 3600,) * 2)
    _killed_while_recording_a_failure(store, key)
    fresh = next(p for p in store.runs.iterdir() if p not in (stale, live, other))  # newer than the sweep
    os.utime(fresh, (time.time() + 3600,) * 2)
    execute([], store, progress=False)
    assert not stale.exists() and live.exists() and fresh.exists() and other.exists()
    assert store.status(key) is None


def test_a_failed_analysis_is_listed_and_exits_1_after_the_report(tmp_path, monkeypatch, capfd):
    name = "tiny_broken_analysis"

    def plan(size):
        def analyse(done):
            raise ZeroDivisionError("the fit had no points")

        return Plan(tiny_runs()[:1], analyse)

    ex.get("dumbbell_newreno")
    ex.experiment(name, "an analysis that raises")(plan)
    try:
        assert cli.main(["reproduce", name, "--out", str(tmp_path / "out"), "--jobs", "1"]) == 1
    finally:
        ex.REGISTRY.pop(name)
    err = capfd.readouterr().err
    assert ("1 analysis(es) failed:\n  tiny_broken_analysis: ZeroDivisionError: the fit had no points "
            "(the traceback is on its report page)\n") in err
    assert "Traceback" not in err
    page = (tmp_path / "out" / "report" / "index.html").read_text()
    assert "The analysis failed" in page and "the fit had no points" in page
