"""Congestion control written in Python: plug-ins, loaded into a run without rebuilding.

A plug-in is a class with the hooks of the core's ``CongestionControl`` trait
(crates/tcplab-core/src/cc/mod.rs), every one optional; a hook the class does not define
runs the core's default (Reno's) without calling Python::

    class AIMD:
        recovery = "newreno"          # or "reno", "none" (Tahoe); default "newreno"
        timer_interval = None         # seconds between on_timer calls, or None

        def __init__(self, **cc_params): ...       # the flow's cc_params, as keywords
        def init(self, st): ...                    # connection start: set cwnd, ssthresh
        def on_switch_in(self, st): ...            # replaces another algorithm mid-run
        def on_ack(self, st, ack): ...             # new cumulative ACK outside recovery
        def on_ack_arrival(self, st, ack): ...     # every ACK (st read-only)
        def on_congestion(self, st, signal): ...   # "dupacks", "timeout", "ecn", "explicit"
        def on_recovery_ack(self, st, ack): ...    # ACK during SACK recovery
        def on_recovery_exit(self, st): ...        # fast recovery ends
        def on_rtt_sample(self, st, rtt): ...      # st read-only; rtt in seconds
        def on_packet_sent(self, st, seq, retransmission): ...  # st read-only
        def on_timer(self, st): ...

``st`` holds the connection's variables for the duration of the call: ``cwnd``,
``ssthresh`` and ``recovery_base`` may be set (segments, positive); ``now``, ``rwnd``,
``init_cwnd``, ``init_ssthresh``, ``mss``, ``flight``, ``srtt``, ``rttvar``, ``min_rtt``
(seconds) and ``phase`` are read; ``st.window()`` is floor(min(cwnd, rwnd));
``st.log(name, value)`` records an event in the run's events table. ``ack`` has
``acked``, ``duplicate`` and ``rtt`` (seconds or None).

A scenario names a plug-in as ``cc = "python:package.module:Class"``, or
``cc = "python:path/to/file.py:Class"`` (a path relative to the working directory), or by
a name given to :func:`register_algorithm` in the same process. Plug-ins slow a run by the
Python calls they make (docs/kentridge.md, "Python plug-ins"); runs without them are not
touched. A hook that raises ends the run with :class:`tcplab.PluginError` (the plug-in's
name, the hook, the exception's type and message); nothing is written.
"""
from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from pathlib import Path

PREFIX = "python:"

_REGISTERED: dict[str, type] = {}
_FILES: dict[Path, object] = {}


class PluginLoadError(Exception):
    """A plug-in name that cannot be loaded (its message is the whole explanation)."""


def register_algorithm(name: str, cls: type) -> None:
    """Make the plug-in class ``cls`` available as ``cc = name`` in this process (for
    prototyping in a notebook). A sweep (:func:`tcplab.sweep.execute`) started afterwards
    sends the registrations its runs use to its worker processes, local or Dask (see
    docs/kentridge.md, "Python plug-ins"). Registering a name again replaces it."""
    from tcplab import _core

    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", name):
        raise ValueError(f"name: {name!r} is not allowed; must be a word (letters, digits, _ . -)")
    if name in _core.algorithms():
        raise ValueError(f"name: {name!r} is a built-in algorithm; choose another name")
    if not callable(cls):
        raise TypeError(f"cls: {cls!r} is not a class")
    _REGISTERED[name] = cls


def unregister_algorithm(name: str) -> None:
    """Forget a name given to :func:`register_algorithm`."""
    if _REGISTERED.pop(name, None) is None:
        raise KeyError(f"name: {name!r} is not registered; registered: {', '.join(sorted(_REGISTERED)) or 'none'}")


def registered_algorithms() -> list[str]:
    """The names given to :func:`register_algorithm`, sorted."""
    return sorted(_REGISTERED)


def registrations_used(spec) -> dict[str, type]:
    """The registrations (name -> class) a spec names anywhere (as ``cc``, in ``switch``, in
    an inline knowledge base): what a run of it in another process needs registered."""
    if not _REGISTERED:
        return {}
    used: dict[str, type] = {}
    stack = [spec]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if v in _REGISTERED:
                used[v] = _REGISTERED[v]
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return used


def install(registrations: dict[str, type]) -> None:
    """Register ``registrations`` (from :func:`registrations_used` in another process) in
    this one: a sweep's worker does it before each run."""
    _REGISTERED.update(registrations)


def _load_file(path: Path):
    key = path.resolve()
    if key in _FILES:
        return _FILES[key]
    if not key.is_file():
        raise PluginLoadError(f"no such file {str(path)!r} (a path is relative to the working directory)")
    mod_name = "tcplab_plugin_" + re.sub(r"\W", "_", str(key))
    spec = importlib.util.spec_from_file_location(mod_name, key)
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[mod_name]
        raise
    _FILES[key] = module
    return module


def _resolve(name: str):
    """The class a plug-in name stands for, or None when ``name`` is not a plug-in name.
    Called by the core (through the extension) for every algorithm name it does not know."""
    if name in _REGISTERED:
        return _REGISTERED[name]
    if not name.startswith(PREFIX):
        return None
    module_name, sep, class_name = name[len(PREFIX):].rpartition(":")
    if not sep or not module_name or not class_name:
        raise PluginLoadError(
            f"{name!r} is not a plug-in name; allowed: python:MODULE:CLASS "
            "(e.g. python:mypkg.aimd:AIMD) or python:PATH.py:CLASS")
    try:
        if module_name.endswith(".py"):
            module = _load_file(Path(module_name))
        else:
            module = importlib.import_module(module_name)
    except PluginLoadError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure of the import is the plug-in's
        first = " ".join(str(e).split())
        raise PluginLoadError(f"cannot load {module_name!r}: {type(e).__name__}: {first}") from None
    cls = getattr(module, class_name, None)
    if cls is None or not callable(cls):
        found = sorted(n for n, v in vars(module).items() if isinstance(v, type) and not n.startswith("_"))
        raise PluginLoadError(f"{module_name!r} has no class {class_name!r}; its classes: {', '.join(found) or 'none'}")
    return cls
