"""tcplab: a laboratory for TCP congestion control.

A deterministic packet-level simulator (Rust core) with pluggable congestion control, driven
from Python. Start with :func:`run` and :class:`Scenario`.
"""
from tcplab._core import PluginError, ScenarioError, SimulationError, algorithms
from tcplab.outdir import OutputError, OutputRefused
from tcplab.plugins import register_algorithm, unregister_algorithm
from tcplab.scenario import Scenario, load_scenario, normalise

# `run` and `Results` are imported on first use; they import pandas (about half a second
# and 100 MB) only when a table is made into a DataFrame, so that `tcplab run`, scenario
# checking and the command line's other commands start without it.
_LAZY = {"run": "tcplab.results", "Results": "tcplab.results", "Simulation": "tcplab.simulation"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tcplab' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "OutputError",
    "OutputRefused",
    "PluginError",
    "Results",
    "Scenario",
    "Simulation",
    "ScenarioError",
    "SimulationError",
    "algorithms",
    "load_scenario",
    "normalise",
    "register_algorithm",
    "run",
    "unregister_algorithm",
]
__version__ = "0.1.0"
