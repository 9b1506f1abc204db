"""The generated scenarios of the property-based tests reach TCP KentRidge (`kentridge` on
flows) and link reordering (`reorder`, `reorder_ab`, `reorder_ba`), and the properties hold
for them: valid ones run deterministically and keep the invariants; mutations at or inside
those fields are one scenario error naming the field (tests/test_properties.py's checks)."""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from property_runner import IsolatedRunner, dumps
from scenario_strategies import kentridge_tables, mutated_scenarios, reorders, scheduled, uses, valid_scenarios
from test_properties import check_mutation, check_valid_run

EXAMPLES = max(5, int(os.environ.get("TCPLAB_PROPERTY_EXAMPLES", "40")) // 3)
common = settings(max_examples=EXAMPLES, deadline=None, derandomize=False, print_blob=True,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                         HealthCheck.filter_too_much])
# Generation only (no shrinking, no example database), the same examples every time.
sample = settings(max_examples=300, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))


def flows_with(spec, key):
    return [f for f in spec.get("flows", []) if key in f]


FEATURES = {
    "a KentRidge flow": lambda s: bool(flows_with(s, "kentridge")),
    "a KentRidge flow with thresholds and a precedence":
        lambda s: any({"thresholds", "precedence"} <= set(f["kentridge"]) for f in flows_with(s, "kentridge")),
    "a KentRidge flow with an inline knowledge base and expectations":
        lambda s: any(isinstance(f["kentridge"].get("kb"), list) and "expectations" in f["kentridge"]
                      for f in flows_with(s, "kentridge")),
    "a KentRidge flow with port expectations": lambda s: any("port_expectations" in f["kentridge"]
                                                             for f in flows_with(s, "kentridge")),
    "a KentRidge flow with a platform": lambda s: any("platform" in f["kentridge"] for f in flows_with(s, "kentridge")),
    "a KentRidge flow to a port of the built-in map":
        lambda s: any(f.get("tcp", {}).get("dport") in (22, 80, 443, 5060) for f in flows_with(s, "kentridge")),
    "a flow with D-SACK": lambda s: any(f.get("tcp", {}).get("dsack") for f in s.get("flows", [])),
    "a flow with undo": lambda s: any(f.get("tcp", {}).get("undo") for f in s.get("flows", [])),
    "a link reordering both directions": lambda s: any("reorder" in link for link in s.get("links", [])),
    "a link reordering one direction":
        lambda s: any("reorder_ab" in link or "reorder_ba" in link for link in s.get("links", [])),
    "a reordering link and link changes":
        lambda s: any(reorders(link) for link in s.get("links", [])) and bool(s.get("link_changes")),
    "a reordering codel or fq_codel direction": lambda s: any(
        ("reorder" in link or "reorder_ab" in link) and scheduled(link.get("queue_ab", link.get("queue")))
        or ("reorder" in link or "reorder_ba" in link) and scheduled(link.get("queue_ba", link.get("queue")))
        for link in s.get("links", [])),
    "a change of a reordering link": lambda s: bool(changed_reordering_links(s)),
    "KentRidge over a reordering link":
        lambda s: bool(flows_with(s, "kentridge")) and any(reorders(link) for link in s.get("links", [])),
}


def changed_reordering_links(spec) -> set:
    """The ends of the reordering links that link changes change."""
    reordering = {frozenset((link["a"], link["b"])) for link in spec.get("links", []) if reorders(link)}
    changed = {frozenset(c["link"].split("-", 1)) if "link" in c else frozenset((c["a"], c["b"]))
               for c in spec.get("link_changes", [])}
    return reordering & changed


def test_the_generated_scenarios_include_kentridge_and_reordering_on_codel_and_changed_links():
    seen = dict.fromkeys(FEATURES, 0)

    @sample
    @given(valid_scenarios())
    def look(spec):
        for what, found in FEATURES.items():
            seen[what] += bool(found(spec))

    look()
    assert all(seen.values()), seen


def test_every_generated_kentridge_table_is_valid():
    import tcplab

    base = {"sim": {"duration": 1}, "nodes": [{"name": "a"}, {"name": "b"}],
            "links": [{"a": "a", "b": "b", "rate": "1Mbps", "delay": "10ms"}],
            "flows": [{"src": "a", "dst": "b", "tcp": {"timestamps": True}}]}
    fields = set()

    @settings(sample, max_examples=100)
    @given(kentridge_tables())
    def check(table):
        fields.update(table)
        spec = {**base, "flows": [{**base["flows"][0], "kentridge": table}]}
        tcplab.normalise(spec)

    check()
    assert fields == {"interval", "thresholds", "precedence", "kb", "expectations", "port_expectations", "platform"}


@pytest.fixture(scope="module")
def runner():
    r = IsolatedRunner(timeout=float(os.environ.get("TCPLAB_PROPERTY_TIMEOUT", "120")))
    yield r
    r.close()


@common
@given(spec=valid_scenarios().filter(uses))
def test_valid_scenarios_with_kentridge_or_reordering_run_deterministically(runner, spec):
    check_valid_run(runner, spec)


@common
@given(case=mutated_scenarios(within=("kentridge", "reorder", "reorder_ab", "reorder_ba")))
def test_mutations_of_kentridge_and_reordering_are_one_error_naming_the_field(runner, case):
    check_mutation(runner, case)
