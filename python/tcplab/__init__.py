"""tcplab: a laboratory for TCP congestion control.

A deterministic packet-level simulator (Rust core) with pluggable congestion control, driven
from Python. Start with :func:`run` and :class:`Scenario`.
"""
from tcplab._core import ScenarioError, SimulationError, algorithms
from tcplab.outdir import OutputError, OutputRefused
from tcplab.scenario import Scenario, load_scenario, normalise
from tcplab.run import Results, run

__all__ = [
    "OutputError",
    "OutputRefused",
    "Results",
    "Scenario",
    "ScenarioError",
    "SimulationError",
    "algorithms",
    "load_scenario",
    "normalise",
    "run",
]
__version__ = "0.1.0"
