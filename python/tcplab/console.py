"""``tcplab console SCENARIO``: an interactive session on a running simulation (TCP
KentRidge's console: view every connection's adaptation, change one by 4-tuple), on
:class:`tcplab.Simulation`.

One command a line; a bad command prints one line and the session goes on; end with
``quit`` or end of input (Ctrl-D)."""
from __future__ import annotations

import math
import re
import shlex
import sys
from typing import TextIO

from tcplab import _core
from tcplab.outdir import OutputError

HELP = """\
commands (times in seconds; "500ms" and "2s" work too):
  run [T]          run to time T (default: to the end of the run)
  step DT          run DT seconds further
  time             the simulated time now
  ls [all]         the live TCP connections (the first 25 unless "all")
  show CONN        everything about one connection
  set CONN ALGO    switch connection CONN to algorithm ALGO now
  algorithms       the algorithms one can switch to
  switches         the switches made in this session
  save DIR [--force]  run to the end and write the results into DIR
  help [CMD]       this text
  quit             end the session (also: exit, end of input)
CONN is a flow name or a 4-tuple src:sport-dst:dport, as "ls" shows it."""

LS_ROWS = 25

_TIME = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(s|ms|us)?\s*$")


class ConsoleError(Exception):
    """A command the console cannot carry out: its message is printed as one line."""


def parse_time(text: str, what: str) -> float:
    m = _TIME.match(text)
    if not m:
        raise ConsoleError(f"{what}: {text!r} is not a time; give seconds, e.g. 5, 2.5s or 500ms")
    value = float(m.group(1)) * {"s": 1.0, None: 1.0, "ms": 1e-3, "us": 1e-6}[m.group(2)]
    if not math.isfinite(value):
        raise ConsoleError(f"{what}: {text!r} is not a finite time")
    return value


def _fmt(v, width=None) -> str:
    if isinstance(v, float):
        if math.isinf(v):
            return "-"
        return f"{v:.6g}"
    return str(v)


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(x) for x in col) for col in zip(header, *rows)]
    line = lambda r: "  ".join(x.ljust(w) if i < 4 else x.rjust(w) for i, (x, w) in enumerate(zip(r, widths)))
    return "\n".join([line(header)] + [line(r) for r in rows])


class Console:
    """The session: commands in, one or more lines out per command."""

    def __init__(self, sim, out: TextIO, name: str = "scenario"):
        self.sim = sim
        self.out = out
        self.name = name
        self.saved_to: str | None = None
        # The simulated time the last line saying it gave (None: none yet): a listing after
        # `run` or `step` does not say it again.
        self._told: float | None = None

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def banner(self) -> None:
        n = len(self.sim.connections())
        self.say(f"tcplab console: {self.name}, seed {self.sim.seed}, {self.sim.duration:g} s to simulate, "
                 f"{n} TCP connection{'s' if n != 1 else ''} now. Type \"help\" for the commands.")

    # -- the loop ------------------------------------------------------------------------
    def execute(self, line: str) -> bool:
        """Carry out one command line; False when the session ends. Never raises for a
        bad command or a failed run: they are reported in one line."""
        try:
            words = shlex.split(line)
        except ValueError as e:
            self.say(f"error: {e}")
            return True
        if not words:
            return True
        cmd, args = words[0].lower(), words[1:]
        handler = getattr(self, f"do_{cmd}", None) if cmd.isidentifier() else None
        if cmd in ("quit", "exit", "q"):
            return False
        if handler is None:
            self.say(f"error: unknown command {cmd!r}; commands: run, step, time, ls, show, set, "
                     "algorithms, switches, save, help, quit")
            return True
        try:
            handler(args)
        except KeyboardInterrupt:
            try:
                self.say(f"interrupted at t = {self.sim.now:.6g} s")
                self._told = self.sim.now
            except Exception:  # noqa: BLE001 - the simulation closed
                self.say("interrupted")
        except (ConsoleError, _core.ScenarioError, OutputError, ValueError, TypeError, RuntimeError) as e:
            self.say("error: " + " ".join(str(e).split()))
        except Exception as e:  # noqa: BLE001 - a console never prints a traceback
            first = " ".join(str(e).split())
            self.say(f"error: {type(e).__name__}: {first}")
        return True

    def loop(self, stdin: TextIO, interactive: bool) -> int:
        while True:
            try:
                if interactive:
                    line = input("tcplab> ")
                else:
                    line = stdin.readline()
                    if not line:
                        break
            except EOFError:
                self.say()
                break
            except KeyboardInterrupt:
                self.say("^C (type quit to end)")
                continue
            if not self.execute(line):
                break
        return 0

    # -- commands ------------------------------------------------------------------------
    def _need(self, args: list[str], n: int, usage: str) -> None:
        if len(args) != n:
            raise ConsoleError(f"usage: {usage}")

    def _running(self):
        if self.sim.finished:
            where = f" and saved in {self.saved_to}" if self.saved_to else ""
            raise ConsoleError(f"the run is finished{where}; quit and start a new console to run it again")

    def _reached(self) -> None:
        self.say(f"t = {self.sim.now:.6g} s ({self.sim.events} events)")
        self._told = self.sim.now

    def _time_header(self) -> None:
        """The time a listing is of, unless the line before it said that time already."""
        now = self.sim.now
        if self._told != now:
            self.say(f"t = {now:.6g} s")
            self._told = now

    def do_help(self, args):
        self.say(HELP)

    def do_time(self, args):
        self._need(args, 0, "time")
        state = " (finished)" if self.sim.finished else ""
        self.say(f"t = {self.sim.now:.6g} s of {self.sim.duration:g} s{state}")
        self._told = self.sim.now

    do_now = do_time

    def do_run(self, args):
        if len(args) > 1:
            raise ConsoleError("usage: run [T]")
        self._running()
        until = parse_time(args[0], "run") if args else self.sim.duration
        if until > self.sim.duration:
            raise ConsoleError(f"run: {args[0]} is beyond the end of the run ({self.sim.duration:g} s); "
                               f"allowed: {self.sim.now:g} to {self.sim.duration:g}")
        if until < self.sim.now:
            raise ConsoleError(f"run: {args[0]} is before the time now ({self.sim.now:g} s); time only moves forward")
        self.sim.run(until)
        self._reached()

    def do_step(self, args):
        self._need(args, 1, "step DT")
        self._running()
        dt = parse_time(args[0], "step")
        if dt <= 0:
            raise ConsoleError(f"step: {args[0]} is not allowed; must be a positive time")
        if self.sim.now >= self.sim.duration:
            raise ConsoleError(f"step: the run is at its end ({self.sim.duration:g} s); save or quit")
        self.sim.step(dt)
        self._reached()

    def do_ls(self, args):
        if args not in ([], ["all"]):
            raise ConsoleError("usage: ls [all]")
        self._running()
        t = self.sim._session.connections()
        n = len(t["flow"])
        if n == 0:
            self.say("no live TCP connections")
            return
        show = n if args == ["all"] else min(n, LS_ROWS)
        rows = []
        for i in range(show):
            srtt = float(t["srtt"][i])
            rows.append([
                t["name"][i],
                f"{t['src'][i]}:{int(t['sport'][i])}-{t['dst'][i]}:{int(t['dport'][i])}",
                t["algorithm"][i],
                t["phase"][i] if t["state"][i] == "established" else t["state"][i],
                f"{float(t['cwnd'][i]):.2f}",
                _fmt(float(t["ssthresh"][i])),
                f"{1000 * srtt:.1f}" if srtt > 0 else "-",
                str(int(t["flight"][i])),
                str(int(t["delivered"][i])),
                str(int(t["retransmits"][i])),
                str(int(t["timeouts"][i])),
                t["pipe"][i],
            ])
        self._time_header()
        self.say(_table(rows, ["name", "4-tuple", "algorithm", "phase", "cwnd", "ssthresh", "srtt ms",
                               "flight", "delivered", "retx", "timeouts", "pipe"]))
        if show < n:
            self.say(f"... and {n - show} more (ls all)")

    do_list = do_ls

    def do_show(self, args):
        if len(args) != 1:
            raise ConsoleError("usage: show CONN (a flow name or src:sport-dst:dport)")
        self._running()
        row = self.sim.connection(args[0])
        width = max(len(k) for k in row)
        self._time_header()
        for k, v in row.items():
            self.say(f"  {k.ljust(width)}  {_fmt(v)}")

    def do_set(self, args):
        if len(args) != 2:
            raise ConsoleError("usage: set CONN ALGO (see ls and algorithms)")
        self._running()
        before = self.sim.connection(args[0])
        name = self.sim.switch(args[0], args[1])
        self.say(f"{before['name']} ({before['src']}:{before['sport']}-{before['dst']}:{before['dport']}): "
                 f"{before['algorithm']} -> {name} at t = {self.sim.now:.6g} s")

    do_switch = do_set

    def do_algorithms(self, args):
        from tcplab.plugins import registered_algorithms

        self.say("built in: " + ", ".join(_core.algorithms()))
        extra = registered_algorithms()
        if extra:
            self.say("registered plug-ins: " + ", ".join(extra))
        self.say("plug-ins: python:MODULE:CLASS or python:PATH.py:CLASS")

    def do_switches(self, args):
        if not self.sim.switches:
            self.say("no switches made")
        for t, flow, conn, name in self.sim.switches:
            self.say(f"t = {t:.6g} s: {conn} (flow {flow}) -> {name}")

    def do_save(self, args):
        force = "--force" in args
        rest = [a for a in args if a != "--force"]
        if len(rest) != 1:
            raise ConsoleError("usage: save DIR [--force]")
        if self.saved_to is not None:
            raise ConsoleError(f"the results are saved in {self.saved_to} already")
        path = self.sim.save(rest[0], force=force)
        self.saved_to = str(path)
        self.say(f"ran to the end ({self.sim.duration:g} s, {self.sim.events} events); results written to {path}/")


def main(scenario: str, seed: int | None = None, stdin: TextIO | None = None,
         stdout: TextIO | None = None) -> int:
    """Run the console on ``scenario``; returns the exit status. Errors of the scenario
    itself raise (the command line reports them)."""
    from pathlib import Path

    from tcplab.scenario import load_scenario
    from tcplab.simulation import Simulation

    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    sim = Simulation(load_scenario(scenario), seed=seed)
    console = Console(sim, stdout, name=Path(scenario).name)
    console.banner()
    interactive = stdin.isatty() and stdout.isatty()
    return console.loop(stdin, interactive)
