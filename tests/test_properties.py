"""Property-based tests over generated scenarios (Hypothesis).

For random valid scenarios: the run neither aborts, hangs nor prints a panic; two runs of
the same spec and seed are bit-identical; and the invariants the results expose hold (per
link and LAN interface, arrivals = departures + drops + in system; a fixed-size flow that
completed delivered exactly its size; nothing delivered that was not sent; no link busier
than the run is long or carrying more than its capacity). For invalid mutations of them:
the outcome is a ScenarioError whose message starts with the field's path, or, when the
mutation happens to be valid, a run that passes the same checks.

`make test` runs a bounded number of examples (TCPLAB_PROPERTY_EXAMPLES, default below);
`make fuzz` runs batches with fresh seeds for as long as asked (tests/fuzz.py).
"""
from __future__ import annotations

import json
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings

from property_runner import IsolatedRunner, dumps
from scenario_strategies import mutated_scenarios, valid_scenarios

EXAMPLES = int(os.environ.get("TCPLAB_PROPERTY_EXAMPLES", "40"))
# A field path as the validator writes it: `sim.duration`, `flows[2].tcp.mss`, `spec`, ...
FIELD_PATH = re.compile(r"^[A-Za-z_]\w*(\[\d+\])?(\.\w+(\[\d+\])?)*: \S")
PANIC_TEXT = re.compile(r"panicked at|RUST_BACKTRACE|thread '.*' panicked")

common = settings(max_examples=EXAMPLES, deadline=None, derandomize=False, print_blob=True,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                         HealthCheck.filter_too_much])


@pytest.fixture(scope="module")
def runner():
    r = IsolatedRunner(timeout=float(os.environ.get("TCPLAB_PROPERTY_TIMEOUT", "120")))
    yield r
    stats = os.environ.get("TCPLAB_PROPERTY_STATS")
    if stats:
        with open(stats, "a") as f:
            f.write(json.dumps({"examples": r.examples}) + "\n")
    r.close()


def _no_panic_text(runner, spec):
    text = runner.stderr_text()
    assert not PANIC_TEXT.search(text), f"panic text on stderr for {dumps(spec)}:\n{text[-1000:]}"


@common
@given(spec=valid_scenarios())
def test_valid_scenarios_run_deterministically_and_keep_the_invariants(runner, spec):
    check_valid_run(runner, spec)


def check_valid_run(runner, spec):
    """A valid scenario runs, keeps the invariants and prints no panic text."""
    kind, detail = runner.call("run", spec, seed=1)
    assert kind == "ok", f"{kind}: {detail}\nspec: {dumps(spec)}"
    assert detail == [], "invariants violated:\n" + "\n".join(detail) + f"\nspec: {dumps(spec)}"
    _no_panic_text(runner, spec)


@common
@given(case=mutated_scenarios())
def test_invalid_mutations_are_one_scenario_error_naming_the_field(runner, case):
    check_mutation(runner, case)


def check_mutation(runner, case):
    """A mutated scenario is either valid and runs like any other, or is refused with one
    scenario error naming the field; never panic text."""
    spec, mutation = case
    kind, detail = runner.call("validate", spec)
    if kind == "valid":
        # The mutation produced a valid scenario: it must run like any other, or stop at the
        # run's wall-clock limit (a valid but long scenario is not a defect).
        kind, detail = runner.call("run", spec, seed=3, wall_limit=20.0)
        if kind == "simulation_error" and "wall-clock limit" in detail:
            return
        assert kind == "ok", f"{mutation}: {kind}: {detail}\nspec: {dumps(spec)}"
        assert detail == [], f"{mutation}: invariants violated: {detail}\nspec: {dumps(spec)}"
    else:
        assert kind == "scenario_error", f"{mutation}: {kind}: {detail}\nspec: {dumps(spec)}"
        assert "\n" not in detail, f"{mutation}: the message is not one line: {detail!r}"
        assert FIELD_PATH.match(detail), f"{mutation}: the message does not start with a field: {detail!r}"
    _no_panic_text(runner, spec)
