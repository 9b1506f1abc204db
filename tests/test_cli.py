import subprocess
import sys
from pathlib import Path

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

    monkeypatch.setitem(sys.modules, "tcplab.sweep", types.SimpleNamespace(reproduce=reproduce))
    argv = ["reproduce", "a", "b", "--size", "full", "--jobs", "3", "--scheduler", "tcp://h:1", "--out", "O", "--retry-failed"]
    assert tcli.main(argv) == 0
    assert seen == dict(names=["a", "b"], size="full", jobs=3, scheduler="tcp://h:1", out="O", retry_failed=True)
    assert "R/index.html" in capsys.readouterr().out
