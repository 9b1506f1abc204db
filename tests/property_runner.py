"""Runs generated scenarios in an isolated child process for the property-based tests.

An abort, a hang or a panic message on stderr in the simulator would take pytest down with
it or go unnoticed, so every example runs in a persistent forked child: the parent sends a
(spec, seed) pair, the child runs it (twice, to check determinism), checks the invariants
the results expose and answers with a short verdict. A child that dies or does not answer
within the time limit is reported with the spec that killed it, and replaced.
"""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import resource
import tempfile

import numpy as np

# The child may not use more than this much address space: an input that needs more must
# be refused by validation (memory estimate), not abort the process.
CHILD_ADDRESS_SPACE = 8 << 30
# Smallest packet on the wire (a pure ACK without options), bytes.
_MIN_WIRE_BYTES = 40
_MAX_WIRE_BYTES = 65535 + 65535


def digest(res) -> str:
    """Hash of every table, bit for bit (NaN equals NaN), and of the pcaps."""
    h = hashlib.sha256()
    for name in ("flows", "links", "flow_ts", "link_ts", "events", "lans", "parallel_intervals", "generators"):
        frame = getattr(res, name)
        h.update(name.encode())
        for col in frame.columns:
            h.update(str(col).encode())
            values = frame[col].to_numpy()
            if values.dtype.kind in "fiub":
                h.update(np.ascontiguousarray(values).tobytes())
            else:
                h.update("\x1f".join(map(str, values)).encode())
    for name, data in sorted(res.pcaps.items()):
        h.update(name.encode())
        h.update(data)
    return h.hexdigest()


def invariant_violations(res) -> list[str]:
    """The invariants every run must satisfy, as readable violations (empty when all hold)."""
    bad = []
    duration = float(res.summary["duration"])
    for table in ("links", "lans"):
        t = getattr(res, table)
        if t.empty:
            continue
        lhs = t["arrivals"]
        rhs = t["departures"] + t["drops_queue"] + t["drops_loss"] + t["in_system"]
        if "drops_down" in t:  # link changes: drops while a direction was down
            rhs = rhs + t["drops_down"]
        for i in np.flatnonzero((lhs != rhs).to_numpy()):
            bad.append(f"{table} row {i}: arrivals {lhs.iloc[i]} != departures + drops + in system {rhs.iloc[i]}")
    if "reordered" in res.links:
        # a held-back packet is delivered once, or still on its way at the end (never dropped)
        t = res.links
        over = t["reordered"] > t["departures"] + t["in_system"]
        for i in np.flatnonzero(over.to_numpy()):
            bad.append(f"links row {i}: {t['reordered'].iloc[i]} held back, more than delivered + in system")
    drops = res.drops
    if res.summary["spec"]["sim"].get("drop_trace"):
        # One row per drop the counters count: per link direction by reason, in all with LANs.
        total = int(res.links["drops_queue"].sum() + res.links["drops_loss"].sum()) if not res.links.empty else 0
        if "drops_down" in res.links:
            total += int(res.links["drops_down"].sum())
        if not res.lans.empty:
            total += int(res.lans["drops_queue"].sum() + res.lans["drops_loss"].sum())
        if len(drops) != total:
            bad.append(f"drops table: {len(drops)} rows for {total} counted drops")
        for i, row in res.links.iterrows():
            here = drops[drops["hop"] == i] if len(drops) else drops
            queue = int(here["reason"].isin(["queue", "aqm"]).sum()) if len(here) else 0
            loss = int((here["reason"] == "loss").sum()) if len(here) else 0
            down = int((here["reason"] == "down").sum()) if len(here) else 0
            if down != row.get("drops_down", 0):
                bad.append(f"drops table, link {i}: {down} down rows for drops_down {row.get('drops_down', 0)}")
            if (queue, loss) != (row["drops_queue"], row["drops_loss"]):
                bad.append(f"drops table, link {i}: {queue} queue and {loss} loss rows for counters "
                           f"{row['drops_queue']} and {row['drops_loss']}")
    elif len(drops):
        bad.append(f"drops table has {len(drops)} rows without sim.drop_trace")
    links = res.links
    if not links.empty:
        # A link direction cannot be busy longer than the run (work still queued at the end
        # is not counted), nor send more bits than its rate allows.
        rate = links["rate_bps"].copy()
        for c in res.summary["spec"].get("link_changes", []):  # the fastest a direction ever ran
            if "rate" in c:
                ends = {"ab": [(c["a"], c["b"])], "ba": [(c["b"], c["a"])]}.get(c["direction"])
                for a, b in ends or [(c["a"], c["b"]), (c["b"], c["a"])]:
                    row = (links["src"] == a) & (links["dst"] == b)
                    rate[row] = rate[row].clip(lower=c["rate"])
        slack = _MAX_WIRE_BYTES * 8 / rate
        over = links["busy_time"] > duration + 1e-9
        for i in np.flatnonzero(over.to_numpy()):
            bad.append(f"links row {i}: busy {links['busy_time'].iloc[i]} s in a {duration} s run")
        min_bits = links["departures"] * _MIN_WIRE_BYTES * 8
        over = min_bits > rate * (duration + slack) * (1 + 1e-9)
        for i in np.flatnonzero(over.to_numpy()):
            bad.append(f"links row {i}: {links['departures'].iloc[i]} departures exceed the capacity")
    f = res.flows
    if not f.empty:
        tcp = f[f["transport"] == "tcp"]
        done = tcp[tcp["size"].notna() & tcp["completion_time"].notna()]
        wrong = done[done["delivered_segments"] != done["size"]]
        for _, r in wrong.iterrows():
            bad.append(f"flow {r['name']}: completed with {r['delivered_segments']} of {r['size']} segments")
        over = f[f["delivered_segments"] > f["segments_sent"]]
        for _, r in over.iterrows():
            bad.append(f"flow {r['name']}: delivered {r['delivered_segments']} > sent {r['segments_sent']}")
        over = f[f["delivered_bytes"] > f["bytes_sent"]]
        for _, r in over.iterrows():
            bad.append(f"flow {r['name']}: delivered {r['delivered_bytes']} B > sent {r['bytes_sent']} B")
        late = f[f["completion_time"].notna() & (f["completion_time"] > duration + 1e-9)]
        for _, r in late.iterrows():
            bad.append(f"flow {r['name']}: completion time {r['completion_time']} after the end")
    g = res.generators
    if not g.empty:
        for _, r in g[g["completed"] > g["created"]].iterrows():
            bad.append(f"generator {r['generator']}: completed {r['completed']} > created {r['created']}")
    return bad


def _serve(conn, stderr_path: str) -> None:
    """The child's loop: run what arrives, answer with (kind, detail)."""
    fd = os.open(stderr_path, os.O_WRONLY | os.O_APPEND)
    os.dup2(fd, 2)
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_ADDRESS_SPACE, CHILD_ADDRESS_SPACE))
    from tcplab import _core
    from tcplab.results import run
    from tcplab.scenario import ScenarioError, normalise

    while True:
        try:
            mode, spec, seed, wall_limit = conn.recv()
        except EOFError:
            return
        try:
            if mode == "validate":
                normalise(spec)
                conn.send(("valid", ""))
                continue
            first = run(spec, seed=seed, wall_limit=wall_limit)
            second = run(spec, seed=seed, wall_limit=wall_limit)
            d1, d2 = digest(first), digest(second)
            problems = invariant_violations(first)
            if d1 != d2:
                problems.append("two runs of the same spec and seed differ")
            conn.send(("ok", problems))
        except ScenarioError as e:
            conn.send(("scenario_error", str(e)))
        except _core.SimulationError as e:
            conn.send(("simulation_error", str(e)))
        except BaseException as e:  # noqa: BLE001 - reported to the test, which fails on it
            conn.send(("exception", f"{type(e).__name__}: {e}"))


class IsolatedRunner:
    """A persistent child process that runs specs; restarted after a crash or a hang."""

    def __init__(self, timeout: float = 120.0):
        self.timeout = timeout
        self.ctx = multiprocessing.get_context("fork")
        fd, self.stderr_path = tempfile.mkstemp(prefix="tcplab-property-", suffix=".stderr")
        os.close(fd)
        self.proc = None
        self.conn = None
        self.examples = 0

    def _start(self) -> None:
        parent, child = self.ctx.Pipe()
        self.proc = self.ctx.Process(target=_serve, args=(child, self.stderr_path), daemon=True)
        self.proc.start()
        child.close()
        self.conn = parent

    def _stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.join()
            self.conn.close()
        self.proc = self.conn = None

    def stderr_text(self) -> str:
        with open(self.stderr_path, errors="replace") as f:
            return f.read()

    def call(self, mode: str, spec: dict, seed: int = 1, wall_limit: float | None = 30.0) -> tuple[str, object]:
        """Run `spec` in the child: ("valid" | "ok" | "scenario_error" | "simulation_error" |
        "exception" | "crash" | "hang", detail)."""
        if self.proc is None or not self.proc.is_alive():
            self._start()
        self.examples += 1
        with open(self.stderr_path, "w"):
            pass  # the child appends: each call starts with an empty stderr
        self.conn.send((mode, spec, seed, wall_limit))
        if not self.conn.poll(self.timeout):
            self._stop()
            return "hang", f"no answer within {self.timeout} s"
        try:
            kind, detail = self.conn.recv()
        except EOFError:
            self.proc.join()
            code = self.proc.exitcode
            self._stop()
            return "crash", f"the child process died (exit status {code}); stderr: {self.stderr_text()[-500:]}"
        return kind, detail

    def close(self) -> None:
        self._stop()
        os.unlink(self.stderr_path)


def dumps(spec: dict) -> str:
    return json.dumps(spec, default=repr)
