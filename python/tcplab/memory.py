"""Peak resident memory of this process, for the memory a sweep records (docs/experiments.md).

Nothing here resets the kernel's high-water mark (``/proc/self/clear_refs``): that would hide
earlier peaks from tools that measure the whole command, such as ``/usr/bin/time -v``.
"""
from __future__ import annotations

import sys
import threading


def _status_bytes(field: str) -> int | None:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    return None


def peak_rss_bytes() -> int | None:
    """The largest resident set size this process has had so far (Linux: VmHWM; elsewhere
    getrusage's ru_maxrss), or None where neither is available."""
    peak = _status_bytes("VmHWM")
    if peak is not None:
        return peak
    try:
        import resource
    except ImportError:
        return None
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(maxrss) * (1 if sys.platform == "darwin" else 1024) if maxrss > 0 else None


def rss_bytes() -> int | None:
    """The current resident set size of this process (Linux only), or None."""
    return _status_bytes("VmRSS")


class PeakMeter:
    """The peak resident memory of this process during a phase (``with PeakMeter() as m:``,
    then ``m.bytes``). When the phase raises the process's high-water mark, that mark is the
    phase's peak, exactly. Otherwise the phase stayed below an earlier peak and its own is
    estimated from samples of the resident size: every ``interval`` seconds by a thread when
    ``interval`` is given, and at every call of ``sample()``. None where nothing is readable."""

    def __init__(self, interval: float | None = None):
        self.interval = interval
        self.bytes: int | None = None
        self._sampled = 0
        self._stop = threading.Event()
        self._thread = None

    def sample(self) -> None:
        rss = rss_bytes()
        if rss is not None and rss > self._sampled:
            self._sampled = rss

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def start(self) -> "PeakMeter":
        self._start = peak_rss_bytes()
        self.sample()
        if self.interval:
            self._thread = threading.Thread(target=self._run, name="tcplab-peak-meter", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> int | None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
        self.sample()
        end = peak_rss_bytes()
        if end is not None and self._start is not None and end > self._start:
            self.bytes = end
        else:
            self.bytes = self._sampled or None
        return self.bytes

    def __enter__(self) -> "PeakMeter":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def human(n: int | float | None) -> str:
    """Bytes as "1.23 GB" / "456 MB" (decimal units), or "n/a"."""
    if n is None:
        return "n/a"
    return f"{n / 1e9:.2f} GB" if n >= 1e9 else f"{n / 1e6:.0f} MB"
