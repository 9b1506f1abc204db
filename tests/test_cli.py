import subprocess
import sys
from pathlib import Path

import pytest
from pandas.testing import assert_frame_equal

import tcplab
from tcplab.results import TABLES
from tcplab.scenario import to_toml
from cli_support import TINY, main, one_line_error

ROOT = Path(__file__).resolve().parent.parent
TCPLAB = [sys.executable, "-m", "tcplab.cli"]


def cli(*args, cwd=None):
    return subprocess.run(TCPLAB + list(args), capture_output=True, text=True, cwd=cwd)


def test_run_writes_results_and_prints_a_summary(tmp_path):
    out = tmp_path / "out"
    p = cli("run", str(ROOT / "examples" / "dumbbell.toml"), "--seed", "3", "--out", str(out), "--plot")
    assert p.returncode == 0, p.stderr
    assert "goodput Mb/s" in p.stdout and "lossy" in p.stdout
    assert (out / "flows.parquet").exists() and (out / "cwnd.png").stat().st_size > 10_000
    import json

    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 3
    assert summary["spec"]["flows"][0]["tcp"]["delayed_ack"] is False


def test_invalid_scenario_exits_2_with_one_line_and_no_output(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[sim]\nduration = 10\n[[nodes]]\nname = "a"\n[[nodes]]\nname = "b"\n'
                   '[[links]]\na = "a"\nb = "b"\nrate = "-5Mbps"\ndelay = "1ms"\n'
                   '[[flows]]\nsrc = "a"\ndst = "b"\n')
    out = tmp_path / "out"
    p = cli("run", str(bad), "--out", str(out))
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0, p.stderr
    assert p.stderr.startswith("error: links[0].rate:")
    assert "Traceback" not in p.stderr
    assert not out.exists()


def test_unknown_algorithm_and_missing_file_exit_2(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('[sim]\nduration = 1\n[[nodes]]\nname="a"\n[[nodes]]\nname="b"\n'
                 '[[links]]\na="a"\nb="b"\nrate=1e6\ndelay=0.01\n[[flows]]\nsrc="a"\ndst="b"\ncc="cubic2"\n')
    p = cli("run", str(f))
    assert p.returncode == 2 and "flows[0].cc: unknown congestion-control algorithm" in p.stderr
    p = cli("run", str(tmp_path / "missing.toml"))
    assert p.returncode == 2 and "no such scenario file" in p.stderr


def test_algorithms_and_validate():
    p = cli("algorithms")
    assert p.returncode == 0 and "newreno" in p.stdout.split()
    p = cli("validate", str(ROOT / "examples" / "single_lossy.toml"))
    assert p.returncode == 0 and '"min_rto": 0.2' in p.stdout


def test_bad_toml_exits_2_with_one_line_naming_the_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[sim]\nduration = 10\nsample_interval = \n")
    out = tmp_path / "out"
    p = cli("run", str(bad), "--out", str(out))
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith(f"error: {bad}, line 3, column 19: not valid TOML:"), p.stderr
    assert p.stderr.strip().count("\n") == 0 and not out.exists()


def test_default_output_directory_is_results_slash_stem(tmp_path):
    spec = (ROOT / "examples" / "single_lossy.toml").read_text().replace('"120s"', '"3s"')
    (tmp_path / "tiny.toml").write_text(spec)
    p = cli("run", "tiny.toml", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "results" / "tiny" / "summary.json").exists()
    assert sorted(x.name for x in (tmp_path / "results").iterdir()) == ["tiny"]


def test_experiment_subcommands_report_missing_machinery(monkeypatch, capsys):
    from tcplab import cli as tcli

    for mod, argv in [
        ("tcplab.experiments", ["list"]),
        ("tcplab.sweep", ["reproduce", "x", "--size", "quick"]),
        ("tcplab.report", ["report", "somewhere", "-o", "r"]),
    ]:
        monkeypatch.setitem(sys.modules, mod, None)  # makes `import mod` raise ImportError
        assert tcli.main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and "not available" in err and err.count("\n") == 1, err
        monkeypatch.undo()


def test_reproduce_passes_its_options_to_the_sweep(monkeypatch, capsys):
    import types

    from tcplab import cli as tcli

    seen = {}

    def reproduce(names, **kw):
        seen.update(names=names, **kw)
        return "R/index.html"

    class Never(Exception):
        pass

    monkeypatch.setitem(sys.modules, "tcplab.sweep",
                        types.SimpleNamespace(reproduce=reproduce, RunsFailed=Never, SweepEnvironmentError=Never))
    argv = ["reproduce", "a", "b", "--size", "full", "--jobs", "3", "--scheduler", "tcp://h:1", "--out", "O", "--retry-failed",
            "--scheduler-timeout", "2.5", "--force", "--replications", "2"]
    assert tcli.main(argv) == 0
    assert seen == dict(names=["a", "b"], size="full", jobs=3, scheduler="tcp://h:1", out="O", retry_failed=True,
                        connect_timeout=2.5, force=True, replications=2)
    assert "R/index.html" in capsys.readouterr().out


def test_unreadable_scenario_files_get_one_line(tmp_path, capsys):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes(b'[sim]\nduration = 1\n# caf\xe9\n')
    huge = tmp_path / "huge.toml"
    with open(huge, "wb") as f:
        f.truncate((64 << 20) + 1)  # sparse: costs nothing
    cases = [
        (bad, f"error: {bad}, line 3, column 6: not valid UTF-8 (byte 0xe9)"),
        ("/dev/zero", "error: /dev/zero: is not a regular file"),
        (tmp_path, f"error: {tmp_path}: is a directory, not a scenario file"),
        (huge, f"error: {huge}: the file is larger than 64 MiB"),
    ]
    for path, start in cases:
        for command in ("run", "validate"):
            status, out, err = main(capsys, command, path, *(["--out", tmp_path / "o"] if command == "run" else []))
            assert status == 2 and one_line_error(err) and err.startswith(start), (path, err)
    assert not (tmp_path / "o").exists()


def test_sim_that_is_not_a_table_nan_and_seeds_out_of_range_exit_2(tmp_path, capsys):
    s = tmp_path / "s.toml"
    s.write_text('sim = "x"\n')
    status, _, err = main(capsys, "run", s, "--out", tmp_path / "o")
    assert status == 2 and one_line_error(err) and err.startswith("error: sim: "), err
    s.write_text(TINY.replace("duration = 1", "duration = nan"))
    status, _, err = main(capsys, "run", s, "--out", tmp_path / "o")
    assert status == 2 and one_line_error(err) and err.startswith("error: sim.duration: nan is not allowed"), err
    s.write_text(TINY)
    for seed in ("-1", str(2**64)):
        status, _, err = main(capsys, "run", s, "--seed", seed, "--out", tmp_path / "o")
        assert status == 2 and one_line_error(err) and err.startswith(f"error: seed: {seed} is not allowed"), err
    with pytest.raises(SystemExit) as e:
        main(capsys, "run", s, "--seed", "abc")
    err = capsys.readouterr().err
    assert e.value.code == 2 and one_line_error(err) and "--seed: invalid int value" in err, err
    assert not (tmp_path / "o").exists()


def test_version_names_the_package_and_the_core():
    from tcplab import _core

    p = cli("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"tcplab {tcplab.__version__} (core {_core.__version__})"


def test_an_unexpected_exception_is_one_line_with_a_hint_and_exit_1(monkeypatch, capsys, tmp_path):
    from tcplab import cli as tcli

    def broken(args):
        raise RuntimeError("something broke\nsecond line")

    monkeypatch.setattr(tcli, "cmd_algorithms", broken)
    monkeypatch.delenv("TCPLAB_DEBUG", raising=False)
    status, _, err = main(capsys, "algorithms")
    assert status == 1 and one_line_error(err), err
    assert err.startswith("error: internal error: RuntimeError: something broke (rerun with TCPLAB_DEBUG=1"), err
    monkeypatch.setenv("TCPLAB_DEBUG", "1")
    with pytest.raises(RuntimeError):
        tcli.main(["algorithms"])

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(tcli, "cmd_algorithms", interrupted)
    status, _, err = main(capsys, "algorithms")
    assert status == 130 and err == "interrupted\n"


def test_scenarios_without_point_to_point_links_print_their_summary(tmp_path, capsys):
    lan = tmp_path / "lan.toml"
    lan.write_text('[sim]\nduration = 1\n[[nodes]]\nname = "a"\n[[nodes]]\nname = "b"\n'
                   '[[lans]]\nname = "l"\nmembers = ["a", "b"]\nrate = "10Mb/s"\n[[flows]]\nsrc = "a"\ndst = "b"\n')
    nothing = tmp_path / "nothing.toml"
    nothing.write_text('[sim]\nduration = 1\n[[nodes]]\nname = "a"\n')
    for spec in (lan, nothing):
        status, out, err = main(capsys, "run", spec, "--out", tmp_path / spec.stem)
        assert status == 0, err
        assert "seed 1, 1 s simulated" in out and "results written to" in out
    assert "flow0" in main(capsys, "run", lan, "--out", tmp_path / "lan")[1]


def test_report_of_a_run_directory_or_a_missing_one_exits_2(tmp_path, capsys):
    s = tmp_path / "s.toml"
    s.write_text(TINY)
    assert main(capsys, "run", s, "--out", tmp_path / "run")[0] == 0
    status, _, err = main(capsys, "report", tmp_path / "run", "-o", tmp_path / "rep")
    assert status == 2 and one_line_error(err) and "holds the results of one run (tcplab run)" in err, err
    status, _, err = main(capsys, "report", tmp_path / "missing", "-o", tmp_path / "rep")
    assert status == 2 and one_line_error(err) and err.startswith(f"error: {tmp_path / 'missing'}: no such directory")
    assert not (tmp_path / "rep").exists()


def test_plot_without_time_series_is_refused_before_the_run(tmp_path, capsys):
    s = tmp_path / "s.toml"
    s.write_text(TINY)
    status, out, err = main(capsys, "run", s, "--plot", "--out", tmp_path / "o")
    assert status == 2 and out == "" and err == "error: --plot needs time series: set sim.sample_interval in the scenario\n"
    assert not (tmp_path / "o").exists()


def test_the_terminal_summary_of_a_large_run_is_bounded_and_keeps_the_busiest_links():
    from tcplab.cli import summary_text

    spec = {"sim": {"duration": 0.5},
            "dumbbell": {"pairs": 30, "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": 50},
                         "access": {"rate": "100Mbps", "delay": "1ms"}},
            "flows": [{"name": "f{i}", "src": "s{i}", "dst": "d{i}", "count": 30}]}
    res = tcplab.run(spec, seed=1)
    text = summary_text(res, limit=25)
    lines = text.splitlines()
    assert [ln.split()[0] for ln in lines[2:27]] == [f"f{i}" for i in range(25)]
    assert lines[27] == "... and 5 more flows (all of them are in flows.parquet)"
    busy = res.links[res.links["arrivals"] > 0]
    shown = [ln.split()[0] for ln in lines if ln.strip() and "->" in ln.split()[0]]
    assert len(shown) == 25 and "r1->r2" in shown
    assert f"... and {len(busy) - 25} more links that carried packets" in text
    least_shown = min(busy.set_index(busy["src"] + "->" + busy["dst"]).loc[shown, "arrivals"])
    hidden = busy[~(busy["src"] + "->" + busy["dst"]).isin(shown)]
    assert (hidden["arrivals"] <= least_shown).all()
    assert " more " not in summary_text(res, limit=200)


def test_commands_that_need_no_data_frames_start_without_pandas():
    """Importing tcplab, checking a scenario and listing algorithms do not import pandas (half
    a second and 100 MB); `tcplab.run` still works, imported on first use, and brings pandas
    for its DataFrames."""
    probe = (
        "import sys, runpy\n"
        "import tcplab\n"
        "assert 'pandas' not in sys.modules, 'import tcplab'\n"
        f"sys.argv = ['tcplab', 'validate', {str(ROOT / 'examples' / 'dumbbell.toml')!r}]\n"
        "try:\n"
        "    runpy.run_module('tcplab.cli', run_name='__main__')\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "assert 'pandas' not in sys.modules, 'tcplab validate'\n"
        "from tcplab import run, Results\n"
        "assert 'pandas' not in sys.modules and callable(run) and tcplab.Results is Results\n"
        "assert len(run({'sim': {'duration': 1}, 'nodes': [{'name': 'a'}, {'name': 'b'}], "
        "'links': [{'a': 'a', 'b': 'b', 'rate': 1e6, 'delay': 0.01}], 'flows': [{'src': 'a', 'dst': 'b'}]}).flows) == 1\n"
        "assert 'pandas' in sys.modules\n"
    )
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "run" in dir(tcplab)
    with pytest.raises(AttributeError):
        tcplab.no_such_thing


DATA_FRAME_MODULES = ("numpy", "pandas", "pyarrow")


def test_tcplab_run_from_the_shell_imports_neither_numpy_nor_pandas_nor_pyarrow(tmp_path):
    """`tcplab run` keeps the tables as the Parquet files the core wrote and prints the summary
    from the rows the core picked: the same text as from the DataFrames, and loadable results."""
    spec = {"sim": {"duration": 2},
            "dumbbell": {"pairs": 4, "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": 20},
                         "access": {"rate": "100Mbps", "delay": "1ms"}},
            "flows": [{"name": "f{i}", "src": "s{i}", "dst": "d{i}", "count": 4}]}
    scenario = tmp_path / "s.toml"
    scenario.write_text(to_toml(spec))
    out = tmp_path / "out"
    probe = (
        "import sys\n"
        "from tcplab.cli import main\n"
        f"status = main(['run', {str(scenario)!r}, '--out', {str(out)!r}])\n"
        f"loaded = sorted(m for m in sys.modules if m.split('.')[0] in {DATA_FRAME_MODULES!r})\n"
        "print('modules:', loaded)\n"
        "sys.exit(status)\n"
    )
    p = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-2000:]
    text = p.stdout.rpartition("\nresults written to ")[0]
    assert p.stdout.rstrip().endswith("modules: []"), p.stdout[-500:]
    res = tcplab.Results.load(out)
    eager = tcplab.run(spec, seed=1)
    eager.summary = res.summary  # the wall times differ between runs
    from tcplab.cli import summary_text

    assert text == summary_text(eager) + "\n"
    for name in TABLES:
        loaded, ran = getattr(res, name), getattr(eager, name)
        if loaded.shape == (0, 0):  # tables without rows of what a run did not have are not saved
            assert ran.empty and name in ("lans", "parallel_intervals", "generators", "drops")
            continue
        assert_frame_equal(loaded, ran, check_dtype=True)


SUMMARY_SPEC = {"sim": {"duration": 0.5},
                "dumbbell": {"pairs": 30, "bottleneck": {"rate": "10Mbps", "delay": "5ms", "queue": 50},
                             "access": {"rate": "100Mbps", "delay": "1ms"}},
                "flows": [{"name": "f{i}", "src": "s{i}", "dst": "d{i}", "count": 30}]}


@pytest.mark.parametrize("limit", [0, 1, 3, 25, 200])
def test_the_summary_from_the_cores_previews_equals_the_summary_from_the_data_frames(limit):
    """Equal links tie (every pair carries the same flow): the core breaks ties like pandas'
    nlargest(keep="first")."""
    from tcplab.cli import summary_text
    from tcplab.results import run

    previews = {"flows": (limit, None), "links": (limit, "arrivals")}
    lazy = run(SUMMARY_SPEC, seed=1, lazy=True, previews=previews)
    assert lazy.preview("flows") is not None and lazy.preview("links") is not None
    from_previews = summary_text(lazy, limit=limit)
    eager = run(SUMMARY_SPEC, seed=1)
    eager.summary = lazy.summary
    assert from_previews == summary_text(eager, limit=limit)
    lazy.flows, lazy.links  # now the tables: the previews are no longer used
    assert lazy.preview("flows") is None and lazy.preview("links") is None
    assert summary_text(lazy, limit=limit) == from_previews
    links = eager.links[eager.links["arrivals"] > 0]
    if 0 < limit < len(links):
        assert links["arrivals"].duplicated().any(), "the scenario should have ties"


def test_a_preview_of_another_size_or_rule_is_not_used():
    from tcplab.cli import summary_text
    from tcplab.results import run

    lazy = run(SUMMARY_SPEC, seed=1, lazy=True, previews={"flows": (5, None), "links": (5, "departures")})
    eager = run(SUMMARY_SPEC, seed=1)
    eager.summary = lazy.summary
    assert summary_text(lazy, limit=3) == summary_text(eager, limit=3)
