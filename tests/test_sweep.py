import json
import os

import pytest

import tcplab
from tcplab.experiments import Run
from tcplab.store import Store, run_key
from tcplab.sweep import execute, simulate


def spec(loss=0.0, duration=5):
    return (
        tcplab.Scenario(duration=duration)
        .node("a")
        .node("b")
        .link("a", "b", rate="10Mbps", delay="10ms", queue=50, loss_ab=loss)
        .flow(src="a", dst="b")
        .to_dict()
    )


def runs():
    return [Run({"loss": p}, spec(p), seed) for p in (0.0, 0.01) for seed in (1, 2)]


def failing_worker(spec, seed, wall_limit):
    """Fails for seed 2: stands in for a crashing or erroring run."""
    if seed == 2:
        return None, "RuntimeError: injected failure", 0.0
    return simulate(spec, seed, wall_limit)


def crashing_worker(spec, seed, wall_limit):
    if seed == 2:
        os._exit(3)  # the worker process dies
    return simulate(spec, seed, wall_limit)


def test_store_key_depends_on_normalised_spec_and_seed():
    a = spec()
    b = dict(a, sim={"duration": "5s"})  # same after normalisation
    assert run_key(a, 1) == run_key(b, 1)
    assert run_key(a, 1) != run_key(a, 2)
    assert run_key(a, 1) != run_key(spec(duration=6), 1)


def test_store_key_depends_on_the_core_build(monkeypatch):
    from tcplab import _core

    assert _core.__build__.startswith(_core.__version__ + "+src.")
    before = run_key(spec(), 1)
    monkeypatch.setattr(_core, "__build__", _core.__version__ + "+src.0000000000000000", raising=False)
    assert run_key(spec(), 1) != before  # a rebuilt core never reuses an older core's results


def test_sweep_stores_each_run_once_and_reuses_it(tmp_path):
    store = Store(tmp_path)
    rep = execute(runs(), store, jobs=2, progress=False)
    assert len(rep.done) == 4 and not rep.failed and rep.reused == 0
    assert len([p for p in store.runs.iterdir() if p.is_dir()]) == 4
    again = execute(runs(), store, jobs=2, progress=False)
    assert again.reused == 4 and len(again.done) == 4
    r0, key = again.done[0]
    assert json.loads((store.runs / key / "run.json").read_text())["seed"] == r0.seed
    assert not [p for p in store.runs.iterdir() if p.name.startswith(".")], "no temporary files left"


def test_interrupted_sweep_resumes_where_it_stopped(tmp_path):
    store = Store(tmp_path)
    first = execute(runs()[:2], store, jobs=1, progress=False)
    assert len(first.done) == 2
    rest = execute(runs(), store, jobs=2, progress=False)
    assert rest.reused == 2 and len(rest.done) == 4


def test_failures_are_recorded_reported_and_retried_only_on_request(tmp_path):
    store = Store(tmp_path)
    rep = execute(runs(), store, jobs=2, worker=failing_worker, progress=False)
    assert len(rep.done) == 2 and len(rep.failed) == 2
    assert all("injected failure" in err for _, _, err in rep.failed)
    failed_keys = {k for _, k, _ in rep.failed}
    assert all(store.status(k) == "failed" for k in failed_keys)
    # A repeated sweep neither loses nor reruns them ...
    rep2 = execute(runs(), store, jobs=2, progress=False)
    assert len(rep2.failed) == 2 and rep2.reused == 2
    # ... --retry-failed reruns only those.
    rep3 = execute(runs(), store, jobs=2, retry_failed=True, progress=False)
    assert not rep3.failed and rep3.reused == 2 and len(rep3.done) == 4
    assert all(store.status(k) == "done" for k in failed_keys)


def test_a_worker_that_keeps_dying_is_retried_then_recorded_and_rerun_by_the_next_sweep(tmp_path):
    store = Store(tmp_path)
    rep = execute(runs(), store, jobs=2, worker=crashing_worker, progress=False)
    assert len(rep.done) == 2 and len(rep.failed) == 2, "no run disappears"
    for _, key, err in rep.failed:
        assert err == "worker process died (exit status 3) on 3 attempts"
        assert store.status(key) == "failed" and store.failed_by_environment(key)
    # Environmental: the next sweep reruns them without --retry-failed, and their success
    # removes the failure records.
    again = execute(runs(), store, jobs=2, progress=False)
    assert not again.failed and again.reused == 2
    assert not list(store.runs.glob("*.failed.json"))


def test_invalid_scenario_and_time_limit_fail_cleanly(tmp_path):
    bad = spec()
    bad["flows"][0]["cc"] = "nosuch"
    long = spec(duration=1e6)
    store = Store(tmp_path)
    rep = execute([Run({}, bad, 1), Run({}, long, 1, wall_limit=0.2)], store, jobs=2, progress=False)
    errors = sorted(err for _, _, err in rep.failed)
    assert len(errors) == 2
    assert any("flows[0].cc" in e for e in errors)
    assert any("wall-clock limit" in e for e in errors)


def test_dask_local_cluster_gives_the_same_results(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cl:
        # By address, as `tcplab reproduce --scheduler tcp://...` passes it.
        rep = execute(runs(), Store(tmp_path / "dask"), scheduler=cl.scheduler_address, progress=False)
        # A failing run on the cluster is recorded like a local one.
        bad = execute(runs(), Store(tmp_path / "dask-failing"), scheduler=cl.scheduler_address,
                      worker=failing_worker, progress=False)
    assert len(bad.failed) == 2 and all("injected failure" in e for _, _, e in bad.failed)
    local = execute(runs(), Store(tmp_path / "local"), jobs=2, progress=False)
    assert len(rep.done) == 4 and not rep.failed
    a = {k: Store(tmp_path / "dask").load(k).flows for _, k in rep.done}
    for _, k in local.done:
        assert Store(tmp_path / "local").load(k).flows.equals(a[k])


def test_progress_shows_done_total_elapsed_and_remaining():
    import io

    from tcplab.sweep import Progress

    out = io.StringIO()
    bar = Progress("exp", 3, stream=out)
    bar.update(True)
    bar.update(False)
    bar.update(True)
    last = out.getvalue().strip().splitlines()[-1]
    assert last.startswith("[exp] 3/3 runs, 1 failed, elapsed ") and "remaining ~0.0 s" in last


def test_progress_shows_retries():
    import io

    from tcplab.sweep import Progress

    out = io.StringIO()
    bar = Progress("exp", 2, stream=out)
    bar.retry("worker process died (signal 9) running {} seed 1; it runs again")
    bar.update(True)
    bar.update(True)
    lines = out.getvalue().strip().splitlines()
    assert lines[0] == "[exp] worker process died (signal 9) running {} seed 1; it runs again"
    assert lines[-1].startswith("[exp] 2/2 runs, 0 failed, 1 retried, elapsed ")
