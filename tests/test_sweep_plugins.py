"""Sweeps whose runs use an algorithm registered with `tcplab.register_algorithm`: the
registration goes with the runs to the worker processes (fork, spawn, Dask), or the sweep is
refused in one line before any run when the class cannot be sent."""
import sys
from pathlib import Path

import pytest
from pandas.testing import assert_frame_equal

import tcplab
from tcplab.experiments import ExperimentError, Run
from tcplab.store import Store
from tcplab.sweep import execute
from tcplab.worker_pool import WorkerPool

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "plugins"))
from aimd import AIMD  # noqa: E402


class Gentle(AIMD):
    """AIMD with a gentler decrease: its runs differ from NewReno's."""

    def __init__(self, a=1.0, b=0.7):
        super().__init__(a, b)


NAME = "gentle_sweep_test"


def spec(cc=NAME, switch=False):
    s = (tcplab.Scenario(duration=4)
         .node("a").node("b")
         .link("a", "b", rate="5Mbps", delay="10ms", queue=20, loss_ab=0.01)
         .flow(src="a", dst="b", cc="newreno" if switch else cc,
               **({"switch": [{"at": 1, "cc": cc}]} if switch else {}))
         .to_dict())
    return s


@pytest.fixture
def registered():
    tcplab.register_algorithm(NAME, Gentle)
    yield NAME
    tcplab.unregister_algorithm(NAME)


def runs():
    return [Run({"seed": s}, spec(), s) for s in (1, 2)] + [Run({"switch": True}, spec(switch=True), 3)]


def check_results(store, rep):
    assert not rep.failed, [e for _, _, e in rep.failed]
    assert len(rep.done) == 3
    for r, key in rep.done:
        got = store.load(key).flows
        want = tcplab.run(r.spec, seed=r.seed).flows  # in this process, with the registration
        assert_frame_equal(got, want, check_exact=True)
        assert got["cc_final"].iloc[0] == NAME
    # and the algorithm did run: not NewReno's tables
    newreno = tcplab.run(spec(cc="newreno"), seed=1).flows
    first = store.load(rep.done[0][1]).flows
    assert first["segments_sent"].iloc[0] != newreno["segments_sent"].iloc[0]


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_local_sweep_of_a_registered_algorithm_runs_in_several_worker_processes(registered, tmp_path,
                                                                                  monkeypatch, method):
    monkeypatch.setattr(WorkerPool, "START_METHOD", method)
    store = Store(tmp_path)
    rep = execute(runs(), store, jobs=2, progress=False)
    check_results(store, rep)


def test_a_registered_class_that_cannot_reach_spawned_workers_is_refused_before_any_run(tmp_path, monkeypatch):
    class Local(AIMD):  # defined in a function: pickle cannot name it
        pass

    monkeypatch.setattr(WorkerPool, "START_METHOD", "spawn")
    tcplab.register_algorithm("local_sweep_test", Local)
    try:
        with pytest.raises(ExperimentError) as e:
            execute([Run({}, spec(cc="local_sweep_test"), 1)], Store(tmp_path / "store"), jobs=2, progress=False)
    finally:
        tcplab.unregister_algorithm("local_sweep_test")
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith("cc: registered algorithm 'local_sweep_test' (")
    assert "cannot be sent to the sweep's worker processes (spawn)" in msg
    assert msg.endswith('allowed: a class defined at the top level of an importable module, '
                        'or cc = "python:MODULE:CLASS"')
    store = tmp_path / "store"
    assert not store.exists() or not any(p.suffix in (".parquet", ".json") for p in store.rglob("*"))


def test_registrations_the_runs_do_not_use_are_not_sent(tmp_path, monkeypatch):
    class Unsendable(AIMD):
        pass

    monkeypatch.setattr(WorkerPool, "START_METHOD", "spawn")
    tcplab.register_algorithm("unsendable_sweep_test", Unsendable)
    try:
        store = Store(tmp_path)
        rep = execute([Run({}, spec(cc="newreno"), 1)], store, jobs=1, progress=False)
    finally:
        tcplab.unregister_algorithm("unsendable_sweep_test")
    assert len(rep.done) == 1 and not rep.failed


def test_a_dask_sweep_of_a_registered_algorithm(registered, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
        store = Store(tmp_path)
        rep = execute(runs(), store, scheduler=cl.scheduler_address, progress=False)
    check_results(store, rep)
