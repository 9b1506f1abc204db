"""`tcplab console`, driven as a person would: a script on stdin, and a pseudo-terminal."""
import contextlib
import copy
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pandas.testing import assert_frame_equal

import tcplab
from tcplab.scenario import load_scenario, to_toml

ROOT = Path(__file__).resolve().parent.parent
TCPLAB = [sys.executable, "-m", "tcplab.cli"]


@pytest.fixture
def scenario(tmp_path):
    spec = load_scenario(ROOT / "examples" / "dumbbell.toml")
    spec["sim"]["duration"] = 10
    path = tmp_path / "dumbbell.toml"
    path.write_text(to_toml(spec))
    return path, spec


def console(path, script, *extra, cwd=None):
    return subprocess.run(TCPLAB + ["console", str(path), *extra], input=script, capture_output=True,
                          text=True, cwd=cwd, timeout=120)


def test_a_scripted_session_views_switches_saves_and_matches_a_scheduled_switch(scenario, tmp_path):
    path, spec = scenario
    out = tmp_path / "out"
    script = "\n".join([
        "help",
        "ls",
        "run 2",
        "ls",
        "show clean1",
        "set lossy cubic",
        "set nosuch cubic",
        "set clean0 cubic2",
        "frobnicate",
        "run 1",
        "run 99",
        "step 500ms",
        "step -1",
        "time",
        "switches",
        f"save {out}",
        "run 5",
        "quit",
        "ls",  # never read: the session ended
    ]) + "\n"
    p = console(path, script, "--seed", "3")
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    o = p.stdout
    assert "Traceback" not in o and "panic" not in o
    lines = o.splitlines()
    assert lines[0].startswith("tcplab console: dumbbell.toml, seed 3, 10 s to simulate, 4 TCP connections now.")
    assert "set CONN ALGO" in o  # help
    assert "t = 2 s (" in o
    lossy = next(line for line in lines if line.startswith("lossy ") and " newreno " in line)
    assert ":1027-" in lossy and ":5001" in lossy and "unclassified" in lossy
    assert "  name " in o and "clean1" in o  # show
    assert any(line.startswith("lossy (") and line.endswith(": newreno -> cubic at t = 2 s") for line in lines)
    errors = [line for line in lines if line.startswith("error: ")]
    assert errors[0].startswith('error: connection: "nosuch" matches no live TCP connection; allowed:')
    assert errors[1].startswith('error: algorithm: unknown congestion-control algorithm "cubic2"; allowed: tahoe')
    assert errors[2].startswith("error: unknown command 'frobnicate'; commands: run, step")
    assert errors[3] == "error: run: 1 is before the time now (2 s); time only moves forward"
    assert errors[4] == "error: run: 99 is beyond the end of the run (10 s); allowed: 2 to 10"
    assert errors[5] == "error: step: '-1' is not a time; give seconds, e.g. 5, 2.5s or 500ms"
    assert errors[6].startswith("error: the run is finished and saved in ")
    assert len(errors) == 7
    assert "t = 2.5 s (" in o and "t = 2.5 s of 10 s" in o
    assert "t = 2 s: lossy (flow 3) -> cubic" in o
    assert f"results written to {out}/" in o
    assert lines[-1].startswith("error: the run is finished")  # "quit" ended it; "ls" was not read
    # What it wrote is what a run with the switch scheduled at 2 s writes.
    scheduled = copy.deepcopy(spec)
    scheduled["flows"][1]["switch"] = [{"at": 2, "cc": "cubic"}]
    expected = tcplab.run(scheduled, seed=3)
    saved = tcplab.Results.load(out)
    for name in ("flows", "links", "flow_ts", "link_ts"):
        assert_frame_equal(getattr(saved, name), getattr(expected, name), check_exact=True, obj=name)
    ev = saved.events
    assert list(ev.loc[ev["event"].str.startswith("manual_switch"), ["time", "event"]].itertuples(index=False,
                                                                                                  name=None)) \
        == [(2.0, "manual_switch:cubic")]


def test_the_time_is_said_once_after_run_and_step(scenario):
    path, _ = scenario
    p = console(path, "ls\nrun 2\nls\nshow clean1\nset lossy cubic\nls\nstep 1\nls\ntime\nls\n")
    assert p.returncode == 0 and p.stderr == ""
    told = [line for line in p.stdout.splitlines() if line.startswith("t = ")]
    # the listing at 0 s says when it is; after `run` and `step` the listings do not repeat it
    assert told[0] == "t = 0 s"
    assert told[1].startswith("t = 2 s (") and told[2].startswith("t = 3 s (")
    assert told[3] == "t = 3 s of 10 s"
    assert len(told) == 4, told
    assert p.stdout.count("t = 2 s") == 1 + p.stdout.count("at t = 2 s")  # `set` says when it switched
    assert sum(line.startswith("clean0 ") for line in p.stdout.splitlines()) == 5  # five listings


def test_end_of_input_ends_the_session_and_nothing_is_written(scenario, tmp_path):
    path, _ = scenario
    p = console(path, "run 1\nls\n", cwd=tmp_path)
    assert p.returncode == 0 and p.stderr == ""
    assert "t = 1 s (" in p.stdout
    assert sorted(x.name for x in tmp_path.iterdir()) == ["dumbbell.toml"]


def test_saving_into_a_directory_tcplab_did_not_write_is_refused_in_one_line(scenario, tmp_path):
    path, _ = scenario
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "keep.txt").write_text("x")
    p = console(path, f"run 1\nsave {theirs}\ntime\n")
    assert p.returncode == 0
    errors = [line for line in p.stdout.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and str(theirs) in errors[0], p.stdout
    assert "t = 1 s of 10 s" in p.stdout  # refused before running on
    assert sorted(x.name for x in theirs.iterdir()) == ["keep.txt"]


def test_a_bad_scenario_exits_2_with_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[sim]\nduration = 1\n[[nodes]]\nname = "a"\n[[nodes]]\nname = "b"\n'
                   '[[links]]\na = "a"\nb = "b"\nrate = "1Mbps"\ndelay = "1ms"\n'
                   '[[flows]]\nsrc = "a"\ndst = "b"\ncc = "cubic2"\n')
    p = console(bad, "ls\n")
    assert p.returncode == 2
    assert p.stderr.startswith('error: flows[0].cc: unknown congestion-control algorithm "cubic2"')
    assert p.stderr.count("\n") == 1 and p.stdout == ""
    p = console(tmp_path / "missing.toml", "")
    assert p.returncode != 0 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr


def test_a_failing_plugin_in_a_session_is_one_line_and_the_session_answers(scenario, tmp_path):
    path, spec = scenario
    failing = f"python:{ROOT / 'examples' / 'plugins' / 'aimd.py'}:Failing"
    p = console(path, f"run 1\nset lossy {failing}\nrun 9\nls\ntime\nquit\n")
    assert p.returncode == 0 and "Traceback" not in p.stdout + p.stderr
    errors = [line for line in p.stdout.splitlines() if line.startswith("error: ")]
    assert errors[0].startswith(f'error: plug-in "{failing}" raised RuntimeError: no idea what to do after')
    assert errors[1].startswith("error: the simulation is closed (it stopped: plug-in")
    assert len(errors) == 3, p.stdout


def _read_until(fd, marker: bytes, timeout=60.0) -> bytes:
    buf = b""
    end = time.monotonic() + timeout
    while marker not in buf:
        left = end - time.monotonic()
        if left <= 0:
            raise AssertionError(f"timed out waiting for {marker!r}; got {buf.decode(errors='replace')!r}")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            buf += chunk
    return buf


@contextlib.contextmanager
def console_on_a_terminal(*args, cwd=None):
    """`tcplab console ARGS` on a pseudo-terminal: yields its terminal and `finish`, which waits
    for the console to exit and returns its wait status; a console still running when the
    block ends is killed."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the console on the pseudo-terminal
        if cwd is not None:
            os.chdir(cwd)
        os.execv(sys.executable, TCPLAB + ["console", *args])
    running = [True]

    def finish():
        _, status = os.waitpid(pid, 0)
        running[0] = False
        return status

    try:
        yield fd, finish
    finally:
        if running[0]:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)


def test_an_interactive_session_on_a_terminal(scenario, tmp_path):
    path, _ = scenario
    out = tmp_path / "saved"
    with console_on_a_terminal(str(path), "--seed", "2", cwd=tmp_path) as (fd, finish):
        first = _read_until(fd, b"tcplab> ")
        assert b"tcplab console: dumbbell.toml, seed 2" in first
        os.write(fd, b"run 3\n")
        assert b"t = 3 s (" in _read_until(fd, b"tcplab> ")
        os.write(fd, b"set clean2 vegas\n")
        assert b"clean2 (" in _read_until(fd, b"tcplab> ")
        os.write(fd, b"ls\n")
        listing = _read_until(fd, b"tcplab> ").decode()
        clean2 = next(line for line in listing.splitlines() if line.startswith("clean2 "))
        assert "vegas" in clean2 and "unclassified" in clean2
        os.write(fd, b"bogus command\n")
        assert b"error: unknown command 'bogus'" in _read_until(fd, b"tcplab> ")
        os.write(fd, f"save {out}\n".encode())
        assert b"results written to" in _read_until(fd, b"tcplab> ")
        os.write(fd, b"\x04")  # Ctrl-D: end of input
        _read_until(fd, b"\n", timeout=30)
        status = finish()
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    r = tcplab.Results.load(out)
    assert r.flows.set_index("name").loc["clean2", "cc_final"] == "vegas"
    assert r.summary["seed"] == 2


def test_ctrl_c_stops_a_long_run_and_the_session_goes_on(tmp_path):
    spec = load_scenario(ROOT / "examples" / "dumbbell.toml")
    spec["sim"]["duration"] = 20000  # minutes of wall-clock time: only an interrupt ends it soon
    path = tmp_path / "long.toml"
    path.write_text(to_toml(spec))
    with console_on_a_terminal(str(path)) as (fd, finish):
        _read_until(fd, b"tcplab> ")
        os.write(fd, b"run\n")
        time.sleep(2.0)
        os.write(fd, b"\x03")  # Ctrl-C
        text = _read_until(fd, b"tcplab> ").decode()
        assert "interrupted at t = " in text and "Traceback" not in text, text
        stopped = float(text.split("interrupted at t = ")[1].split(" s")[0])
        assert 0 < stopped < 20000
        os.write(fd, b"set lossy cubic\n")
        assert b"newreno -> cubic" in _read_until(fd, b"tcplab> ")
        os.write(fd, f"run {stopped + 1}\n".encode())
        assert f"t = {stopped + 1:.6g} s (".encode() in _read_until(fd, b"tcplab> ")
        os.write(fd, b"quit\n")
        status = finish()
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
