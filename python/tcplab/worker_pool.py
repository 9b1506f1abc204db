"""Local worker processes for sweeps.

Each process runs one task at a time, so the parent always knows which task a process was
running when it died (killed by the out-of-memory killer, a crash in native code), and a
process that dies is replaced without disturbing the others. Workers end with their parent,
even when the parent is killed with SIGKILL.
"""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Any, Callable

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(parent_pid: int, use_prctl: bool = True) -> None:
    """End this process when `parent_pid` (its parent) ends, however it ends.

    On Linux the kernel sends SIGKILL on the parent's death (PR_SET_PDEATHSIG; it fires when
    the thread that forked us exits, and the sweep's pool lives inside one call of the thread
    that made it). Elsewhere, or if prctl fails, a thread watches for the parent to change."""
    if use_prctl and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
                if os.getppid() != parent_pid:  # the parent died before prctl took effect
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass
    threading.Thread(target=_watch_parent, args=(parent_pid,), name="watch-parent", daemon=True).start()


def _watch_parent(parent_pid: int, interval: float = 0.5) -> None:
    while os.getppid() == parent_pid:
        time.sleep(interval)
    os._exit(1)


def _serve(conn, fn: Callable, parent_pid: int, tasks: int | None = None) -> None:
    """A worker's loop: receive a task's arguments, send back ("ok", value) or ("raised", text);
    end after `tasks` tasks if given."""
    die_with_parent(parent_pid)
    # Ctrl-C reaches the whole process group; it is the parent's to handle (it stops the
    # workers), so that an interrupted run is not mistaken for a failed one.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    done = 0
    while tasks is None or done < tasks:
        done += 1
        try:
            args = conn.recv()
        except (EOFError, OSError):
            return
        if args is None:
            return
        try:
            out = ("ok", fn(*args))
        except Exception as e:  # noqa: BLE001 - reported to the parent as this task's failure
            out = ("raised", f"{type(e).__name__}: {e}\n" + traceback.format_exc()[-2000:])
        try:
            conn.send(out)
        except OSError:
            return  # the parent is gone
        except Exception as e:  # noqa: BLE001 - the value cannot be pickled
            conn.send(("raised", f"the result could not be sent back: {type(e).__name__}: {e}"))
        del args, out  # not kept while waiting for the next task


def death_cause(exitcode: int | None) -> str:
    if exitcode is None:
        return "no exit status"
    return f"signal {-exitcode}" if exitcode < 0 else f"exit status {exitcode}"


@dataclass
class _Worker:
    process: Any
    conn: Any
    task: Any = None  # the tag of the task it is running, None when idle
    served: int = 0  # tasks it answered


class WorkerPool:
    """Up to `size` processes running `fn(*args)`; `start` hands a task to an idle process
    (starting one if needed), `wait` returns what finished: (tag, "ok", value),
    (tag, "raised", error text) or (tag, "died", cause such as "signal 9").

    `tasks_per_process=1` gives every task a fresh process, which ends with its task: all its
    memory is returned when the task ends, and the process's peak resident size is that
    task's (sweeps run this way)."""

    #: how workers start: None for fork where it exists, else spawn (tests set "spawn")
    START_METHOD: str | None = None

    @classmethod
    def start_method(cls) -> str:
        # fork: workers start at once and scripts without a __main__ guard still work (the
        # core runs no threads of its own); spawn where fork does not exist.
        if cls.START_METHOD is not None:
            return cls.START_METHOD
        return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"

    def __init__(self, fn: Callable, size: int, tasks_per_process: int | None = None):
        self.ctx = multiprocessing.get_context(self.start_method())
        self.fn, self.size = fn, size
        self.tasks_per_process = tasks_per_process
        self.workers: list[_Worker] = []

    @property
    def busy(self) -> int:
        return sum(w.task is not None for w in self.workers)

    def start(self, tag, args: tuple) -> None:
        for w in [w for w in self.workers if w.task is None]:
            try:
                w.conn.send(args)
            except OSError:  # it died while idle
                self._bury(w)
                continue
            w.task = tag
            return
        if len(self.workers) >= self.size:
            raise RuntimeError("every worker is busy")
        w = self._spawn()
        w.task = tag
        try:
            w.conn.send(args)
        except OSError:
            pass  # it died at once: `wait` reports it

    def _spawn(self) -> _Worker:
        ours, theirs = self.ctx.Pipe()
        p = self.ctx.Process(target=_serve, args=(theirs, self.fn, os.getpid(), self.tasks_per_process),
                             name="tcplab-sweep-worker")
        p.start()
        theirs.close()  # so that the worker's death shows as end-of-file on our side
        w = _Worker(p, ours)
        self.workers.append(w)
        return w

    def wait(self, timeout: float | None = None) -> list[tuple]:
        busy = [w for w in self.workers if w.task is not None]
        ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in self.workers], timeout))
        out = []
        for w in list(self.workers):
            dead = w.process.sentinel in ready
            if w.task is None:
                if dead:  # an idle worker died: a new one starts when needed
                    self._bury(w)
                continue
            if not (w.conn in ready or dead):
                continue
            # A dead worker may have sent its answer just before it ended; take it if so.
            try:
                if dead and not w.conn.poll(0):
                    raise EOFError
                kind, value = w.conn.recv()
            except (EOFError, OSError):
                out.append((w.task, "died", self._bury(w)))
                continue
            out.append((w.task, kind, value))
            w.task = None
            w.served += 1
            if self.tasks_per_process is not None and w.served >= self.tasks_per_process:
                self._bury(w)  # it ends by itself: wait for it, so that its memory is free
        return out

    def _bury(self, w: _Worker) -> str:
        self.workers.remove(w)
        w.conn.close()
        w.process.join(5)
        if w.process.exitcode is None:
            w.process.kill()
            w.process.join()
        return death_cause(w.process.exitcode)

    def close(self, kill: bool = False) -> None:
        """Stop the workers: at once with `kill`, else once they finish their current task."""
        for w in self.workers:
            if kill:
                w.process.kill()
            else:
                try:
                    w.conn.send(None)
                except OSError:
                    pass
        for w in self.workers:
            w.process.join(None if kill else 10)
            if w.process.exitcode is None:
                w.process.kill()
                w.process.join()
            w.conn.close()
        self.workers = []
