"""A simulation run in steps: look at its live connections and change one's algorithm
between the steps (TCP KentRidge's console, as an API; ``tcplab console`` is the
interactive session on it).

Running in steps to the end gives the tables :func:`tcplab.run` gives for the same spec and
seed, bit for bit, and a switch made at time t gives the results of the spec's scheduled
``switch`` at t (plus a ``manual_switch:<algorithm>`` row in the events table)."""
from __future__ import annotations

import math
import numbers
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from tcplab import _core
from tcplab.results import Results, print_progress, results_from_output, run_seed
from tcplab.scenario import as_spec, to_json

if TYPE_CHECKING:
    import pandas as pd

# The columns of `connections()`, in order.
CONNECTION_COLUMNS = ("flow", "name", "src", "sport", "dst", "dport", "algorithm", "state", "phase",
                      "cwnd", "ssthresh", "srtt", "rttvar", "min_rtt", "flight", "delivered",
                      "retransmits", "timeouts", "pipe")


class Simulation:
    """One run of ``spec`` (a dict, a :class:`tcplab.Scenario` or a TOML path) with master
    seed ``seed`` (default: the spec's ``sim.seed``, else 1), built and stopped at time 0.

    - :meth:`run` ``(until=t)`` runs to simulated time t (seconds): the events before t;
      those at t come with the next step, so a switch made at t acts before them, where a
      scheduled ``switch`` at t acts. Time only moves forward and stops at the duration.
    - :meth:`connections` lists the live TCP connections with their 4-tuples (as the
      packet captures write them: ``src:1024+flow -> dst:tcp.dport``, 5001 by default), algorithm, phase,
      window, RTT estimates and counters, and ``pipe``, the KentRidge classifier's
      network-pipe type ("unclassified" while no classifier is attached).
    - :meth:`switch` changes one connection's algorithm now, by flow name or 4-tuple.
    - :meth:`finish` runs to the end and returns the :class:`tcplab.Results`
      :func:`tcplab.run` returns; :meth:`save` writes them (docs/safety.md).

    Bad input (a time, a connection or an algorithm that is not allowed) raises
    :class:`tcplab.ScenarioError` with one line naming the field and what is allowed, and
    the simulation goes on; a plug-in's failure (:class:`tcplab.PluginError`) or a
    :class:`tcplab.SimulationError` closes it; after an interrupt (Ctrl-C) it goes on from
    the event it stopped at (``now`` is that event's time).
    """

    def __init__(self, spec: Any, seed: int | None = None,
                 progress: bool | Callable[[float, float, int], Any] = False):
        d = as_spec(spec)
        self.seed = run_seed(d, seed)
        self._progress = print_progress if progress is True else (progress or None)
        self._session = _core.Session(to_json(d), self.seed, self._progress)
        self._duration = self._session.duration
        self._results: Results | None = None
        self.switches: list[tuple[float, int, str, str]] = []
        """The manual switches made: (time, flow, connection as given, algorithm)."""

    # -- time --------------------------------------------------------------------------
    @property
    def now(self) -> float:
        """Simulated seconds reached (the duration once finished)."""
        return self._duration if self._results is not None else self._session.now

    @property
    def duration(self) -> float:
        return self._duration

    @property
    def finished(self) -> bool:
        return self._results is not None

    @property
    def events(self) -> int:
        """Events processed so far."""
        if self._results is not None:
            return self._results.summary["events"]
        return self._session.events

    def _open(self):
        if self._results is not None:
            raise _core.ScenarioError("the simulation is finished: its results are in finish() and save()")
        return self._session

    def run(self, until: float | None = None, wall_limit: float | None = None) -> float:
        """Run to ``until`` seconds (default: the duration, leaving only the events at the
        very end to :meth:`finish`); returns the time reached."""
        session = self._open()
        if until is None:
            until = self._duration
        if isinstance(until, bool) or not isinstance(until, numbers.Real):
            raise _core.ScenarioError(f"until: {until!r} is not allowed; must be a number of seconds")
        session.run_until(float(until), wall_limit, self._progress)
        return session.now

    def step(self, dt: float) -> float:
        """Run ``dt`` seconds further (up to the duration); returns the time reached."""
        if isinstance(dt, bool) or not isinstance(dt, numbers.Real) or not (dt > 0 and math.isfinite(dt)):
            raise _core.ScenarioError(f"dt: {dt!r} is not allowed; must be a positive number of seconds")
        return self.run(min(self.now + float(dt), self._duration))

    # -- looking -----------------------------------------------------------------------
    def connections(self) -> pd.DataFrame:
        """The live TCP connections now, one row each: ``flow, name, src, sport, dst,
        dport, algorithm, state, phase, cwnd, ssthresh, srtt, rttvar, min_rtt, flight,
        delivered, retransmits, timeouts, pipe`` (RTTs in seconds, 0 and inf before the
        first sample; windows and counts in segments)."""
        from tcplab.results import _frame

        return _frame(self._open().connections())

    def connection(self, conn: str) -> dict:
        """One connection's row (see :meth:`connections`), by flow name or 4-tuple
        ``src:sport-dst:dport``."""
        table = self._open().connections()
        flow = self._find(conn)
        i = list(table["flow"]).index(flow)
        return {name: (v[i].item() if hasattr(v[i], "item") else v[i]) for name, v in table.items()}

    def _find(self, conn: str) -> int:
        return self._open().find(str(conn))

    # -- changing ----------------------------------------------------------------------
    def switch(self, conn: str, algorithm: str) -> str:
        """Switch connection ``conn`` (a flow name, or its 4-tuple ``src:sport-dst:dport``)
        to ``algorithm`` now, with the flow's ``cc_params``; returns the algorithm's name.
        The events table gets a row ``manual_switch:<algorithm>`` (value: cwnd then)."""
        if not isinstance(conn, str) or not isinstance(algorithm, str):
            raise _core.ScenarioError(f"switch: connection and algorithm must be strings, not {conn!r}, {algorithm!r}")
        session = self._open()
        flow, name = session.switch(conn, algorithm)
        self.switches.append((session.now, flow, conn, name))
        return name

    # -- ending ------------------------------------------------------------------------
    def finish(self, lazy: bool = False, wall_limit: float | None = None) -> Results:
        """Run to the end and return the results (the same :class:`tcplab.Results` as
        :func:`tcplab.run`); later calls return the same object."""
        if self._results is None:
            if lazy:
                out = self._session.finish(wall_limit, self._progress, output="parquet")
            else:
                out = self._session.finish(wall_limit, self._progress)
            if self._progress is print_progress:
                sys.stderr.write("\n")
            self._results = results_from_output(out, lazy)
        return self._results

    def save(self, directory: str | os.PathLike, force: bool = False) -> Path:
        """Finish the run if it is not finished, and write its results into ``directory``
        as :meth:`tcplab.Results.save` does (all or nothing; only where tcplab may write)."""
        Results.check_target(directory, force=force)
        return self.finish(lazy=True).save(directory, force=force)

    def __repr__(self) -> str:
        state = "finished" if self.finished else f"at {self.now:g} s"
        return f"<tcplab.Simulation seed={self.seed} {state} of {self._duration:g} s>"
