"""Experiment definitions.

An experiment is one function, registered with :func:`experiment`, that takes a size
(``"quick"`` for tests and the default ``make run``, ``"full"`` for the paper's scale) and
returns a :class:`Plan`: the runs (scenario × seed, with the grid parameters that produced
them) and an ``analyse`` function that turns the finished runs into tables and figures.
Tables may carry the paper's values in columns whose names start with ``paper:`` (the
numbers live in ``tcplab/paperdata``, citing the paper, table or figure), ``band:`` columns
placing our mean inside or outside a tolerance band around the paper's exact numbers, and
``verdict`` columns (or findings) where the paper makes a checkable claim, decided on
confidence intervals over replications by :mod:`tcplab.verdicts`. See docs/experiments.md.
"""
from __future__ import annotations

import importlib
import json
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pandas as pd

SIZES = ("quick", "full")


class ExperimentError(ValueError):
    """A request for an experiment that does not exist, or a size that is not allowed."""


@dataclass(frozen=True)
class Run:
    params: dict  # grid parameters, JSON-able: what the analysis groups by
    spec: dict  # the scenario
    seed: int
    wall_limit: float | None = None  # seconds of wall-clock time before the run is failed


class Done:
    """A finished run handed to the analysis. `results` is read from the store each time it
    is used and not kept, so that an analysis over hundreds of large runs does not hold them
    all in memory; bind it to a local name when a function needs it several times. What it
    returns reads each table only when it is first used (`Results.load(..., lazy=True)`)."""

    def __init__(self, run: Run, results: Any = None, load: Callable[[], Any] | None = None):
        self.run = run
        self._results = results
        self._load = load

    @property
    def results(self):  # tcplab.Results
        return self._results if self._results is not None else self._load()

    @property
    def params(self) -> dict:
        return self.run.params

    @property
    def seed(self) -> int:
        return self.run.seed


@dataclass
class Table:
    name: str
    title: str
    data: pd.DataFrame
    #: where the values in the "paper: ..." columns come from (paper, table or figure)
    paper: str | None = None
    note: str = ""


@dataclass
class Figure:
    name: str
    title: str
    figure: Any  # a matplotlib Figure


@dataclass
class Analysis:
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)


@dataclass
class Plan:
    runs: list[Run]
    analyse: Callable[[list[Done]], Analysis]
    parameters: dict = field(default_factory=dict)  # the scenario parameters, for the report


@dataclass
class Experiment:
    name: str
    description: str
    paper: str | None
    plan: Callable[[str], Plan]


REGISTRY: dict[str, Experiment] = {}


def experiment(name: str, description: str, paper: str | None = None):
    """Register an experiment function ``f(size) -> Plan``."""

    def register(fn: Callable[[str], Plan]):
        if name in REGISTRY:
            raise ExperimentError(f"experiment {name!r} is registered twice")
        REGISTRY[name] = Experiment(name, description, paper, fn)
        return fn

    return register


def planned_replications(runs: list[Run]) -> int:
    """The most seeds any one parameter set of a plan runs (its replications)."""
    seeds: dict[str, set] = {}
    for r in runs:
        seeds.setdefault(_params_key(r.params), set()).add(r.seed)
    return max((len(s) for s in seeds.values()), default=0)


def first_replications(runs: list[Run], n: int | None) -> list[Run]:
    """The runs of each parameter set's first `n` seeds, in the plan's order (all of them when
    `n` is None). A store holding these is extended, not redone, by a later sweep of more."""
    if n is None:
        return list(runs)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ExperimentError(f"replications {n!r} is not allowed; allowed: an integer of at least 1")
    kept: dict[str, list] = {}
    out = []
    for r in runs:
        seeds = kept.setdefault(_params_key(r.params), [])
        if r.seed not in seeds:
            if len(seeds) == n:
                continue
            seeds.append(r.seed)
        out.append(r)
    return out


def _params_key(params: dict) -> str:
    return json.dumps(params, sort_keys=True, default=str)


def _load_all() -> None:
    for m in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{m.name}")


def list_experiments() -> list[tuple[str, str]]:
    _load_all()
    return [(e.name, e.description) for e in sorted(REGISTRY.values(), key=lambda e: e.name)]


def get(name: str) -> Experiment:
    _load_all()
    if name not in REGISTRY:
        raise ExperimentError(f"unknown experiment {name!r}; allowed: {', '.join(sorted(REGISTRY))}")
    return REGISTRY[name]


def paper_values(paper: str) -> dict:
    """The values a paper reports, stored as data in tcplab/paperdata/<paper>.json."""
    path = Path(__file__).resolve().parent.parent / "paperdata" / f"{paper}.json"
    return json.loads(path.read_text())
