"""Output directories: tcplab never destroys what it did not write, never writes outside the
directory it was given, and never leaves half-written results (docs/safety.md)."""
import dataclasses
import errno
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tcplab
from tcplab import OutputError, OutputRefused, outdir
from tcplab.outdir import MARKER
from cli_support import TINY, main, one_line_error

SPEC = {"sim": {"duration": 1}, "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"a": "a", "b": "b", "rate": 1e6, "delay": 0.01}], "flows": [{"src": "a", "dst": "b"}]}


@pytest.fixture(scope="module")
def res():
    return tcplab.run(SPEC, seed=1)


def tree(d: Path) -> dict:
    """Every file under d with its bytes."""
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_a_directory_tcplab_did_not_write_is_refused_and_left_untouched(tmp_path, res):
    d = tmp_path / "thesis"
    d.mkdir()
    (d / "chapter1.tex").write_text("years of work")
    (d / "summary.json").write_text("mine")
    before = tree(d)
    with pytest.raises(OutputRefused, match=r"thesis: holds files tcplab did not write \(2: 'chapter1.tex', "
                                            r"'summary.json'\); choose a new directory, or pass --force"):
        res.save(d)
    assert tree(d) == before and sorted(os.listdir(tmp_path)) == ["thesis"]


def test_force_replaces_only_files_with_tcplab_names(tmp_path, res):
    d = tmp_path / "mine"
    d.mkdir()
    (d / "chapter1.tex").write_text("years of work")
    (d / "summary.json").write_text("mine")
    res.save(d, force=True)
    assert (d / "chapter1.tex").read_text() == "years of work"
    assert json.loads((d / "summary.json").read_text())["seed"] == 1
    assert tcplab.Results.load(d).flows.equals(res.flows)
    # From now on it holds a marked tcplab output: saving again needs no force, keeps the user's file.
    res.save(d)
    assert (d / "chapter1.tex").read_text() == "years of work"


def test_a_previous_output_is_replaced_keeping_the_files_the_user_added(tmp_path, res):
    d = tmp_path / "res"
    with_pcap = dataclasses.replace(res, pcaps={"a-b": b"pcap bytes"})
    with_pcap.save(d, extra_files={"plot.png": b"png"})
    (d / "notes.txt").write_text("my notes")
    res.save(d)
    assert sorted(os.listdir(d)) == sorted(["notes.txt", MARKER, "summary.json", "events.parquet", "flows.parquet",
                                            "links.parquet", "flow_ts.parquet", "link_ts.parquet"])
    marker = outdir.read_marker(d)
    assert marker["complete"] is True and marker["kind"] == "run" and "notes.txt" not in marker["files"]
    assert sorted(os.listdir(tmp_path)) == ["res"], "no work directories left"


def test_files_paths_and_system_directories_are_refused_even_with_force(tmp_path, res):
    f = tmp_path / "draft.tex"
    f.write_text("draft")
    for target, why in [(f, "exists and is not a directory"),
                        (f / "sub", f"cannot be created because {f} is a file"),
                        (Path("/proc/tcplab-test"), "is under /proc, a system directory"),
                        (Path("/sys/kernel"), "is under /sys, a system directory")]:
        for force in (False, True):
            with pytest.raises(OutputRefused, match=why):
                res.save(target, force=force)
    assert f.read_text() == "draft" and sorted(os.listdir(tmp_path)) == ["draft.tex"]


def test_an_empty_directory_is_used_with_the_users_permissions(tmp_path, res):
    d = tmp_path / "empty"
    d.mkdir()
    old = os.umask(0o027)
    try:
        res.save(d)
        res.save(tmp_path / "new" / "deeper")
    finally:
        os.umask(old)
    for out in (d, tmp_path / "new" / "deeper"):
        assert stat.S_IMODE(out.stat().st_mode) == 0o750, "not mkdtemp's 0700"
        assert stat.S_IMODE((out / "summary.json").stat().st_mode) == 0o640
        assert stat.S_IMODE((out / "flows.parquet").stat().st_mode) == 0o640


def test_names_never_leave_the_output_directory_and_load_back(tmp_path, res):
    long = "n" * 300
    names = ["../../x-b", "a/b-c", f"{long}-b", ".hidden-b", "A-B", "a-b", "nul\0-b"]
    r = dataclasses.replace(res, pcaps={n: n.encode() for n in names})
    d = tmp_path / "deep" / "out"
    r.save(d)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deep"]
    assert sorted(p.name for p in (tmp_path / "deep").iterdir()) == ["out"]
    files = [p.name for p in d.iterdir() if p.suffix == ".pcap"]
    assert len(files) == len(names)
    assert all(len(f.encode()) <= 200 and not f.startswith(".") and "/" not in f for f in files)
    assert len({f.casefold() for f in files}) == len(files), "unique on case-insensitive file systems"
    assert "A-B.pcap" in files, "an unchanged name keeps its file name"
    assert tcplab.Results.load(d).pcaps == r.pcaps


def test_a_crash_while_replacing_beside_user_files_is_detected_and_repaired(tmp_path, res, monkeypatch):
    d = tmp_path / "res"
    res.save(d)
    (d / "notes.txt").write_text("my notes")
    real_replace = os.replace
    moved = []

    def crash_after_two(src, dst):
        if Path(dst).name not in (MARKER,) and len(moved) == 2:
            raise OSError(errno.EIO, "Input/output error")
        moved.append(dst)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash_after_two)
    with pytest.raises(OutputError, match="res: cannot write the results: Input/output error"):
        res.save(d)
    monkeypatch.undo()
    with pytest.raises(OutputError, match="res: the results are incomplete"):
        tcplab.Results.load(d)
    assert outdir.read_marker(d)["complete"] is False
    res.save(d)
    assert tcplab.Results.load(d).flows.equals(res.flows) and (d / "notes.txt").read_text() == "my notes"
    assert sorted(os.listdir(tmp_path)) == ["res"]


KILLED_SAVE = textwrap.dedent("""
    import os, signal, sys
    import pandas as pd
    import tcplab
    r = tcplab.run({spec!r}, seed=1)
    real = pd.DataFrame.to_parquet
    calls = []
    def dies(self, path, **kw):
        calls.append(path)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        real(self, path, **kw)
    pd.DataFrame.to_parquet = dies
    r.save(sys.argv[1])
""")


def test_a_killed_save_leaves_a_work_directory_that_the_next_save_removes(tmp_path, res):
    p = subprocess.run([sys.executable, "-c", KILLED_SAVE.format(spec=SPEC), str(tmp_path / "a")],
                       capture_output=True, text=True)
    assert p.returncode == -signal.SIGKILL, p.stderr
    left = [n for n in os.listdir(tmp_path) if n.startswith(".tcplab-tmp-")]
    assert len(left) == 1 and not (tmp_path / "a").exists()
    # Work directories of a live process, of another host, or holding a file tcplab did not
    # write are kept.
    dead_pid = left[0].split("-")[2]
    live = tmp_path / f".tcplab-tmp-{os.getpid()}-0000beef-{outdir._host()}"
    other_host = tmp_path / f".tcplab-tmp-{dead_pid}-0000abcd-elsewhere"
    foreign = tmp_path / f".tcplab-tmp-{dead_pid}-0000cdef-{outdir._host()}"
    for d in (live, other_host, foreign):
        d.mkdir()
    (foreign / "keep.txt").write_text("x")
    res.save(tmp_path / "b")
    assert sorted(os.listdir(tmp_path)) == sorted(["b", live.name, other_host.name, foreign.name])


KILLED_RUN = textwrap.dedent("""
    import os, signal, sys
    from tcplab import cli, outdir
    real = outdir._write
    calls = []
    def dies(path, data):
        calls.append(path)
        if len(calls) == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        real(path, data)
    outdir._write = dies
    cli.main(["run", sys.argv[1], "--out", sys.argv[2]])
""")


def test_a_run_killed_while_writing_its_parquet_bytes_leaves_nothing_a_later_run_keeps(tmp_path):
    s = tmp_path / "s.toml"
    s.write_text(TINY)
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-c", KILLED_RUN, str(s), str(out)], capture_output=True, text=True)
    assert p.returncode == -signal.SIGKILL, p.stderr
    assert not out.exists()
    assert [n for n in os.listdir(tmp_path) if n.startswith(".tcplab-tmp-")]
    p = subprocess.run([sys.executable, "-m", "tcplab.cli", "run", str(s), "--out", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert sorted(os.listdir(tmp_path)) == ["out", "s.toml"]
    assert len(tcplab.Results.load(out).flows) == 1


def failing_tables(monkeypatch, fail) -> None:
    """Make writing a table file call ``fail(path)`` instead, whoever writes it (`tcplab run`
    writes the core's Parquet bytes, a saved DataFrame goes through pandas)."""
    real = outdir._write

    def write(path, data):
        if path.name.endswith(".parquet"):
            fail(path)
        real(path, data)

    monkeypatch.setattr(outdir, "_write", write)


def test_disk_full_while_saving_is_one_line_exit_1_after_the_summary(tmp_path, monkeypatch, capsys):
    s = tmp_path / "s.toml"
    s.write_text(TINY)
    out = tmp_path / "out"
    assert main(capsys, "run", s, "--out", out)[0] == 0
    before = tree(out)

    def full(path):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    failing_tables(monkeypatch, full)
    status, stdout, err = main(capsys, "run", s, "--out", out)
    assert status == 1 and one_line_error(err), err
    assert err == f"error: {out}: cannot write the results: no space left on the device\n"
    assert "goodput Mb/s" in stdout and "results written" not in stdout, "the summary is printed before saving"
    assert tree(out) == before and sorted(os.listdir(tmp_path)) == ["out", "s.toml"]


def test_memory_and_permission_errors_while_saving_exit_1(tmp_path, monkeypatch, capsys):
    s = tmp_path / "s.toml"
    s.write_text(TINY)

    def no_memory(path):
        raise MemoryError()

    with monkeypatch.context() as m:
        failing_tables(m, no_memory)
        status, _, err = main(capsys, "run", s, "--out", tmp_path / "out")
    assert status == 1 and err == f"error: {tmp_path / 'out'}: not enough memory to write the results\n"

    real_mkdir = Path.mkdir

    def denied(self, *a, **k):
        if self.name.startswith(".tcplab-tmp-"):
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_mkdir(self, *a, **k)

    with monkeypatch.context() as m:
        m.setattr(Path, "mkdir", denied)
        status, _, err = main(capsys, "run", s, "--out", tmp_path / "out")
    assert status == 1 and err == f"error: {tmp_path / 'out'}: cannot write the results: Permission denied\n"
    assert sorted(os.listdir(tmp_path)) == ["s.toml"]


def test_an_unwritable_parent_falls_back_to_working_inside_the_directory(tmp_path, monkeypatch, res):
    d = tmp_path / "mount"
    d.mkdir()
    real_mkdir = Path.mkdir

    def parent_denied(self, *a, **k):
        if self.name.startswith(".tcplab-tmp-") and self.parent == tmp_path:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_mkdir(self, *a, **k)

    monkeypatch.setattr(Path, "mkdir", parent_denied)
    res.save(d)
    assert tcplab.Results.load(d).flows.equals(res.flows)
    assert not [n for n in os.listdir(d) if n.startswith(".tcplab-tmp")]


def test_cli_refuses_bad_output_directories_before_running(tmp_path, capsys, monkeypatch):
    exp = tmp_path / "exp"
    exp.mkdir()
    s = exp / "s.toml"
    s.write_text(TINY)
    (tmp_path / "file").write_text("x")
    monkeypatch.chdir(exp)
    before = tree(tmp_path)
    for out, why in [(".", "is the current directory and holds files tcplab did not write"),
                     (exp, "holds files tcplab did not write (1: 's.toml')"),
                     (tmp_path / "file", "exists and is not a directory"),
                     (tmp_path / "file" / "x", "is a file, not a directory"),
                     ("/proc/x", "is under /proc"),
                     ("/sys/x", "is under /sys")]:
        status, stdout, err = main(capsys, "run", s, "--out", out)
        assert status == 2 and one_line_error(err) and why in err, err
        assert stdout == "", "refused before the run"
    assert tree(tmp_path) == before
    status, _, err = main(capsys, "run", s, "--out", ".", "--force")
    assert status == 0, err
    assert s.read_text() == TINY and (exp / "summary.json").exists()


def test_forged_markers_do_not_make_a_directory_tcplab_s(tmp_path, res):
    d = tmp_path / "d"
    d.mkdir()
    (d / "keep").write_text("x")
    for doc in ({"tool": "tcplab", "kind": "run", "complete": True, "files": ["../outside"]},
                {"tool": "other", "kind": "run", "complete": True, "files": []},
                "not json"):
        (d / MARKER).write_text(doc if isinstance(doc, str) else json.dumps(doc))
        with pytest.raises(OutputRefused):
            res.save(d)
    (d / MARKER).write_text(json.dumps({"tool": "tcplab", "kind": "report", "complete": True, "files": []}))
    with pytest.raises(OutputRefused, match="holds a tcplab report output, not a run output"):
        res.save(d)


def test_results_written_before_markers_are_recognised_and_replaced(tmp_path, res):
    d = tmp_path / "old"
    d.mkdir()
    for name in ("flows", "links", "flow_ts", "link_ts", "events"):
        getattr(res, name).to_parquet(d / f"{name}.parquet")
    (d / "summary.json").write_text(json.dumps(res.summary, indent=2))
    res.save(d)
    assert outdir.read_marker(d)["complete"] is True
    # ... but not when something else is in the directory.
    (d / MARKER).unlink()
    (d / "notes.txt").write_text("x")
    with pytest.raises(OutputRefused):
        res.save(d)


def test_report_directories_follow_the_same_rules(tmp_path, capsys):
    from tcplab.report import write_report

    exp = tmp_path / "exp"
    exp.mkdir()
    (exp / "experiment.json").write_text(json.dumps(
        {"name": "e", "description": "d", "size": "quick", "reused": 0, "seeds": [1], "runs": [],
         "tables": [], "figures": []}))
    mine = tmp_path / "site"
    mine.mkdir()
    (mine / "index.html").write_text("my home page")
    status, _, err = main(capsys, "report", exp, "-o", mine)
    assert status == 2 and one_line_error(err) and "holds files tcplab did not write" in err
    assert (mine / "index.html").read_text() == "my home page"
    # A report written before markers existed is recognised by its content.
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "index.html").write_text("<!doctype html><html><head><meta charset='utf-8'>"
                                       "<title>tcplab report</title>old")
    page = write_report([exp], legacy)
    assert "<h2 id=\"e\">e</h2>" in page.read_text() and outdir.read_marker(legacy)["kind"] == "report"
    assert write_report([exp], legacy) == page


def test_reproduce_refuses_a_directory_it_did_not_write_before_any_run(tmp_path, capsys, monkeypatch):
    from tcplab import sweep

    monkeypatch.setattr(sweep, "run_experiment", lambda *a, **k: pytest.fail("a run started"))
    d = tmp_path / "thesis"
    d.mkdir()
    (d / "draft.tex").write_text("chapter 1")
    status, _, err = main(capsys, "reproduce", "dumbbell_newreno", "--out", d)
    assert status == 2 and err.count("\n") == 1 and "did not write" in err
    assert tree(d) == {"draft.tex": b"chapter 1"}
    # The report directory of a reproduction is checked before any run, too.
    (tmp_path / "r" / "report").mkdir(parents=True)
    (tmp_path / "r" / "report" / "mine.txt").write_text("x")
    status, _, err = main(capsys, "reproduce", "dumbbell_newreno", "--out", tmp_path / "r")
    assert status == 2 and "report" in err


def test_a_reproduction_root_is_marked_and_reused(tmp_path):
    from tcplab.sweep import claim_reproduction_root

    new = claim_reproduction_root(tmp_path / "new")
    assert outdir.read_marker(new)["kind"] == "reproduction"
    assert claim_reproduction_root(new) == new  # a later reproduction reuses it
    # Laid out as before markers existed: the store, experiment pages, a run's output beside them.
    old = tmp_path / "old"
    (old / "store" / "runs").mkdir(parents=True)
    (old / "dumbbell_newreno").mkdir()
    tcplab.run(SPEC, seed=1).save(old / "mine")
    claim_reproduction_root(old)
    assert outdir.read_marker(old)["kind"] == "reproduction"
    # A run's output directory is not a reproduction's.
    with pytest.raises(OutputRefused):
        claim_reproduction_root(old / "mine")
