"""The golden corpus (tests/golden): every scenario reproduces its stored hashes for every
seed, the corpus covers every feature the core offers (lists taken from the core where it
can say them), and hashing is canonical and deterministic.

After a change that alters results on purpose: `make golden-update` (docs/architecture.md,
"Golden corpus")."""
import copy
import functools
import importlib.util
import itertools
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from tcplab import _core

_CORPUS_PATH = Path(__file__).resolve().parent / "golden" / "corpus.py"
_module_spec = importlib.util.spec_from_file_location("golden_corpus", _CORPUS_PATH)
corpus = importlib.util.module_from_spec(_module_spec)
_module_spec.loader.exec_module(corpus)

SCENARIOS = corpus.scenario_files()
UPDATE_HINT = ("if the change of results is intended, run `make golden-update` and commit hashes.json "
               "saying why results changed")


@functools.lru_cache(maxsize=None)
def run(path: Path, seed: int) -> dict:
    return corpus.run_scenario(path, seed)


@functools.lru_cache(maxsize=None)
def stored_hashes() -> dict:
    return corpus.load_stored()


@functools.lru_cache(maxsize=None)
def raw_specs() -> dict:
    return {p.name: corpus.load_spec(p) for p in SCENARIOS}


@functools.lru_cache(maxsize=None)
def normalised_specs() -> dict:
    return {name: json.loads(_core.validate(json.dumps(spec))) for name, spec in raw_specs().items()}


# ------------------------------------------------------------------ the stored hashes

@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_reproduces_its_stored_hashes(path):
    fresh = {path.name: {str(seed): corpus.output_hashes(run(path, seed)) for seed in corpus.SEEDS}}
    found = corpus.mismatches(stored_hashes(), fresh)
    assert not found, "\n".join(map(corpus.format_mismatch, found)) + "\n" + UPDATE_HINT


def test_the_stored_hashes_are_for_these_scenarios_and_seeds():
    document = json.loads(corpus.HASH_FILE.read_text())
    assert document["seeds"] == list(corpus.SEEDS)
    assert sorted(document["scenarios"]) == [p.name for p in SCENARIOS], UPDATE_HINT
    for scenario, seeds in document["scenarios"].items():
        assert sorted(seeds, key=int) == [str(s) for s in corpus.SEEDS], scenario


def test_the_corpus_has_at_least_30_small_scenarios():
    assert len(SCENARIOS) >= 30
    for name, spec in normalised_specs().items():
        assert spec["sim"]["duration"] <= 60, name
    # The event count measures a run's cost independently of the machine; the whole corpus
    # (every scenario x 2 seeds) takes well under a second of CPU.
    for path in SCENARIOS:
        assert run(path, 1)["summary"]["events"] <= 400_000, path.name


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_every_scenario_runs_the_same_twice_in_one_process(path):
    seed = corpus.SEEDS[-1]
    assert corpus.output_hashes(corpus.run_scenario(path, seed)) == corpus.output_hashes(run(path, seed))


# ------------------------------------------------------------------ canonical hashing

def test_table_hash_sees_every_bit_type_order_and_boundary():
    base = corpus.table_hash("t", {"x": np.array([0.0, 1.5]), "s": ["ab", "c"]})
    assert corpus.table_hash("t", {"x": np.array([0.0, 1.5]), "s": ["ab", "c"]}) == base
    assert corpus.table_hash("t", {"x": np.array([-0.0, 1.5]), "s": ["ab", "c"]}) != base
    assert corpus.table_hash("t", {"x": np.array([0.0, np.nextafter(1.5, 2)]), "s": ["ab", "c"]}) != base
    assert corpus.table_hash("t", {"x": np.array([0.0, 1.5]), "s": ["a", "bc"]}) != base
    assert corpus.table_hash("t", {"s": ["ab", "c"], "x": np.array([0.0, 1.5])}) != base
    assert corpus.table_hash("u", {"x": np.array([0.0, 1.5]), "s": ["ab", "c"]}) != base
    assert (corpus.table_hash("t", {"n": np.array([1], dtype=np.uint64)})
            != corpus.table_hash("t", {"n": np.array([1.0])}))
    nan = np.array([math.nan])
    assert corpus.table_hash("t", {"x": nan}) == corpus.table_hash("t", {"x": nan.copy()})
    with pytest.raises(TypeError):
        corpus.table_hash("t", {"x": [1.0, 2.0]})


def test_summary_hash_leaves_out_wall_times_and_version_only():
    summary = {"seed": 1, "events": 10, "setup_seconds": 0.1, "loop_seconds": 0.2, "version": "0.1.0",
               "spec": {"sim": {"duration": 1.0}}}
    base = corpus.summary_hash(summary)
    assert corpus.summary_hash({**summary, "setup_seconds": 9.0, "loop_seconds": 9.0, "version": "9"}) == base
    assert corpus.summary_hash({**summary, "events": 11}) != base
    assert corpus.summary_hash({**summary, "spec": {"sim": {"duration": 1.0000000000000002}}}) != base


def test_every_output_of_a_run_is_hashed():
    out = run(corpus.SCENARIO_DIR / "lan_fifo_frame_loss_pcap.toml", 1)
    hashes = corpus.output_hashes(out)
    tables = set(out) - {"summary", "pcaps"}
    assert tables >= {"flows", "links", "flow_ts", "link_ts", "events", "lans", "parallel_intervals", "generators"}
    assert set(hashes) == tables | {"summary"} | {f"pcap:{name}" for name in out["pcaps"]}


# ------------------------------------------------------------------ coverage: the spec
#
# The lists of fields, values, algorithms and parameters come from the core's own error
# messages for an unknown name, so a field or algorithm added to the core without a corpus
# scenario fails here.

BASE_SPEC = {
    "sim": {"duration": 1},
    "nodes": [{"name": "a"}, {"name": "b"}],
    "links": [{"a": "a", "b": "b", "rate": 1e6, "delay": 0.01}],
    "dumbbell": {"pairs": 1, "bottleneck": {"rate": 1e6, "delay": 0.01}, "access": {"rate": 1e6, "delay": 0.01}},
    "flows": [{"src": "a", "dst": "b"}],
    "generators": [{"kind": "poisson", "rate": 1, "src": "a", "dst": "b", "size": {"dist": "constant", "value": 1}}],
    "lans": [{"name": "lan", "members": ["a", "b"], "rate": 1e6}],
    "pcap": [{"a": "a", "b": "b"}],
    "link_changes": [{"a": "a", "b": "b", "at": 0.5, "delay": 0.01}],
}

UNKNOWN = "zz_unknown"


def allowed_by_core(mutate) -> list:
    """What the core's error for the mutated BASE_SPEC says is allowed."""
    spec = copy.deepcopy(BASE_SPEC)
    mutate(spec)
    with pytest.raises(_core.ScenarioError) as error:
        _core.validate(json.dumps(spec))
    message = str(error.value)
    if "allowed:" in message:  # ours: '...; allowed: a, b (and ...)', '"a", "b"', 'none'
        listed = message.split("allowed:", 1)[1].split("(")[0]
        names = [n.strip().strip('"') for n in listed.split(",")]
        return [] if names == ["none"] else names
    expected = message.split("expected", 1)[-1]
    names = re.findall(r"`([^`]+)`", expected)  # serde: 'expected one of `a`, `b`' / '`a` or `b`'
    names = names or re.findall(r'"([^"]+)"', expected.split(", got")[0])  # 'expected "a" or "b", got'
    assert names, f"cannot read what is allowed from: {message}"
    return names


def _table(spec: dict, keys: list):
    """The table of `spec` at `keys` ("flows", "0", "tcp"), created empty where missing."""
    table = spec
    for key in keys:
        table = table[int(key)] if key.isdigit() else table.setdefault(key, {})
    return table


def setter(path: str, value):
    """A mutation of BASE_SPEC: the field at `path` ("flows.0.cc") becomes `value`, or
    `value(old)` if it is callable."""
    def mutate(spec):
        *parents, last = path.split(".")
        table = _table(spec, parents)
        key = int(last) if last.isdigit() else last
        table[key] = value(table[key] if last.isdigit() else table.get(key)) if callable(value) else value
    return mutate


def unknown_field(path: str):
    """A mutation of BASE_SPEC adding an unknown field to the table at `path`."""
    def mutate(spec):
        _table(spec, path.split(".") if path else [])[UNKNOWN] = 1
    return mutate


FIELD_TABLES = {  # corpus path -> where BASE_SPEC has (or gets) such a table
    "": "",
    "sim": "sim",
    "nodes[]": "nodes.0",
    "nodes[].tcbi": "nodes.0.tcbi",
    "nodes[].tcbi.temporal": "nodes.0.tcbi.temporal",
    "links[]": "links.0",
    "dumbbell": "dumbbell",
    "dumbbell.bottleneck": "dumbbell.bottleneck",
    "dumbbell.access": "dumbbell.access",
    "flows[]": "flows.0",
    "flows[].tcp": "flows.0.tcp",
    "generators[]": "generators.0",
    "lans[]": "lans.0",
    "pcap[]": "pcap.0",
    "link_changes[]": "link_changes.0",
}


def walk(value, path=""):
    """(path, value) for every table field of a spec; list items become "[]"."""
    if isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else key
            yield child, item
            yield from walk(item, child)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item, path + "[]")


def corpus_fields() -> set:
    return {path for spec in raw_specs().values() for path, _ in walk(spec)}


def corpus_values(*paths) -> set:
    """Values at `paths` in the raw and the normalised specs (names as written, defaults as
    filled in)."""
    values = set()
    for spec in list(raw_specs().values()) + list(normalised_specs().values()):
        for path, value in walk(spec):
            if path in paths and isinstance(value, (str, int, float)):
                values.add(value)
    return values


def test_every_spec_field_appears_in_the_corpus():
    fields = corpus_fields()
    missing = []
    for table, where in FIELD_TABLES.items():
        for name in allowed_by_core(unknown_field(where)):
            path = f"{table}.{name}" if table else name
            also = path.replace("flows[].tcp.", "generators[].tcp.")
            if path not in fields and also not in fields:
                missing.append(path)
    for where, table in (("flows.0.switch", "flows[].switch[]"), ("flows.0.rate_schedule", "flows[].rate_schedule[]")):
        for name in allowed_by_core(setter(where, [{UNKNOWN: 1}])):
            if f"{table}.{name}" not in fields:
                missing.append(f"{table}.{name}")
    assert not missing, f"no golden scenario sets {missing}"


def test_every_tcp_option_is_set_to_a_non_default_value():
    defaults = json.loads(_core.validate(json.dumps(BASE_SPEC)))["flows"][0]["tcp"]
    options = allowed_by_core(unknown_field("flows.0.tcp"))
    # Options the normalised spec turns into others (rwnd_bytes -> rwnd), or leaves out at
    # their default (the handoff options' formats: specs without them normalise as before
    # they existed): set in some scenario's own file.
    aliases = set(options) - set(defaults)
    handoff_formats = {"ho_capability_kind", "ho_capability_len", "ho_capability_bit",
                       "ho_bandwidth_kind", "ho_bandwidth_len"}
    spurious = {"dsack", "undo"}  # D-SACK and undo: left out when false, as the formats
    port = {"dport"}  # the destination port: left out at its default (5001), as the formats
    assert aliases == {"rwnd_bytes"} | handoff_formats | spurious | port, aliases
    raw = "\n".join(p.read_text() for p in SCENARIOS)
    assert all(re.search(rf"\b{a}\s*=", raw) for a in aliases), aliases
    options = [o for o in options if o not in aliases]
    assert set(options) == set(defaults)
    changed = {option for spec in normalised_specs().values()
               for endpoint in spec["flows"] + spec.get("generators", [])
               for option, value in endpoint["tcp"].items()
               if option not in handoff_formats | spurious | port and value != defaults[option]}
    assert set(options) <= changed, f"TCP options only ever at their default: {set(options) - changed}"


ENUMERATIONS = {  # corpus paths -> a mutation whose error lists the allowed values
    ("generators[].kind",): setter("generators.0.kind", UNKNOWN),
    ("generators[].record",): setter("generators.0.record", UNKNOWN),
    ("generators[].size_unit",): setter("generators.0.size_unit", UNKNOWN),
    ("flows[].transport",): setter("flows.0.transport", UNKNOWN),
    ("lans[].mac",): setter("lans.0.mac", UNKNOWN),
    ("nodes[].kind",): setter("nodes.0.kind", UNKNOWN),
    ("nodes[].tcbi.controller",): setter("nodes.0.tcbi", {"controller": UNKNOWN}),
    ("nodes[].tcbi.temporal.ageing",): setter("nodes.0.tcbi", {"temporal": {"ageing": UNKNOWN}}),
    tuple(f"generators[].{d}.dist" for d in ("size", "think", "pages", "reading", "session_gap")):
        setter("generators.0.size", {"dist": UNKNOWN}),
    ("flows[].tcp.pacing", "generators[].tcp.pacing"): setter("flows.0.tcp", {"pacing": UNKNOWN}),
    ("pcap[].at",): setter("pcap.0.at", UNKNOWN),
    ("flows[].cc_params.error", "generators[].cc_params.error"):
        setter("flows.0", lambda flow: {**flow, "cc": "rfs", "cc_params": {"error": UNKNOWN}}),
    tuple(f"{q}.type" for q in ("links[].queue", "links[].queue_ab", "links[].queue_ba",
                                "dumbbell.bottleneck.queue", "dumbbell.access.queue")):
        setter("links.0.queue", {"type": UNKNOWN}),
}

QUEUE_FIELDS = ("links[].queue", "links[].queue_ab", "links[].queue_ba", "dumbbell.bottleneck.queue",
                "dumbbell.access.queue")


def test_every_queue_discipline_parameter_is_set():
    """Each discipline's parameters (from the core's error for an unknown one) appear in a
    corpus queue table of that type."""
    tables = [v for spec in raw_specs().values() for path, v in walk(spec)
              if path in QUEUE_FIELDS and isinstance(v, dict)]
    for kind in allowed_by_core(ENUMERATIONS[tuple(f"{q}.type" for q in QUEUE_FIELDS)]):
        fields = allowed_by_core(setter("links.0.queue", {"type": kind, UNKNOWN: 1}))
        used = {k for t in tables if t.get("type") == kind for k in t}
        assert set(fields) <= used, f"no golden {kind} queue sets {sorted(set(fields) - used)}"
    assert any(path == "links[].queue_ab" for t in tables for spec in raw_specs().values()
               for path, v in walk(spec) if v is t), "a per-direction queue table"


@pytest.mark.parametrize("paths", list(ENUMERATIONS), ids=[p[0] for p in ENUMERATIONS])
def test_every_allowed_value_appears_in_the_corpus(paths):
    allowed = allowed_by_core(ENUMERATIONS[paths])
    assert len(allowed) >= 2
    missing = set(allowed) - corpus_values(*paths)
    assert not missing, f"no golden scenario has {paths[0]} = {sorted(missing)}"


def test_a_distribution_is_given_by_mean_and_std():
    assert any(path.endswith(".std") for path in corpus_fields())


def corpus_ccs() -> set:
    """The algorithms connections start with (switch targets are not counted)."""
    return corpus_values("flows[].cc", "generators[].cc")


def test_every_registered_algorithm_is_a_cc_in_the_corpus():
    missing = set(_core.algorithms()) - corpus_ccs()
    assert not missing, f"no golden scenario uses cc = {sorted(missing)}"


def test_every_combination_of_the_sender_side_modifications_is_a_cc():
    spec = copy.deepcopy(BASE_SPEC)
    spec["flows"][0]["cc"] = UNKNOWN
    with pytest.raises(_core.ScenarioError) as error:
        _core.validate(json.dumps(spec))
    combinable = re.search(r"combinations of ([\w, ]+) joined by", str(error.value)).group(1).split(", ")
    used = {frozenset(cc.split("+")) for cc in corpus_ccs()}
    for n in range(2, len(combinable) + 1):
        for combination in itertools.combinations(combinable, n):
            assert frozenset(combination) in used, f"no golden scenario combines {'+'.join(combination)}"


def test_every_algorithm_parameter_is_set():
    accepting = {}
    for algorithm in _core.algorithms():
        mutate = setter("flows.0", lambda flow, a=algorithm: {**flow, "cc": a, "cc_params": {UNKNOWN: 1}})
        for parameter in allowed_by_core(mutate):
            accepting.setdefault(parameter, set()).add(algorithm)
    assert accepting, "no algorithm takes parameters?"
    set_with = {}
    for spec in raw_specs().values():
        for endpoint in spec.get("flows", []) + spec.get("generators", []):
            parts = set(endpoint.get("cc", "newreno").split("+"))
            for parameter in endpoint.get("cc_params", {}):
                set_with.setdefault(parameter, set()).update(parts)
    missing = [p for p, algorithms in accepting.items() if not algorithms & set_with.get(p, set())]
    assert not missing, f"no golden scenario sets the cc parameters {missing}"


# ------------------------------------------------------------------ coverage: what runs do

def outputs(seed=1):
    return {p.name: run(p, seed) for p in SCENARIOS}


def column(out, table, name):
    return list(out[table][name])


def test_the_corpus_has_loss_reactions_and_every_algorithm_and_tcbi_event():
    events = {e for out in outputs().values() for e in column(out, "events", "event")}
    expected = {"fast_retransmit", "timeout", "ssthresh", "rfs_window", "esse_exit", "westwood_ratio",
                "re_window", "be_window", "crb_uses_re", "tcbi_peer_cwnd", "tcbi_peer_ssthresh", "tcbi_fs_cwnd"}
    assert expected <= events, f"never logged: {expected - events}"


def test_tcbi_initial_values_come_from_every_source():
    sources = {s for out in outputs().values() for s in column(out, "flows", "tcbi_source")}
    assert {"none", "ensemble", "temporal"} <= sources
    # a retired flow of a summary generator still appears in the parallel intervals by name
    assert any(set(column(out, "parallel_intervals", "name")) - set(column(out, "flows", "name"))
               for out in outputs().values())


def lan_rows(mac):
    for name, out in outputs().items():
        macs = {lan["name"]: lan.get("mac", "fifo") for lan in normalised_specs()[name].get("lans", [])}
        lans = out["lans"]
        for i, lan in enumerate(lans["lan"]):
            if macs[lan] == mac:
                yield {c: lans[c][i] for c in lans}


def test_lans_collide_and_lose_frames():
    csma = list(lan_rows("csma_cd"))
    assert sum(r["collisions"] for r in csma) > 0 and sum(r["drops_collision"] for r in csma) > 0
    fifo = list(lan_rows("fifo"))
    assert sum(r["drops_loss"] for r in fifo) > 0 and sum(r["drops_queue"] for r in fifo) > 0
    assert all(r["collisions"] == 0 for r in fifo)


def test_links_drop_by_queue_and_by_loss_in_both_directions():
    assert any(sum(out["links"]["drops_queue"]) > 0 for out in outputs().values())
    lossy_both_ways = False
    for out in outputs().values():
        links = out["links"]
        lossy = {(a, b) for a, b, d in zip(links["src"], links["dst"], links["drops_loss"]) if d > 0}
        lossy_both_ways |= any((b, a) in lossy for a, b in lossy)
    assert lossy_both_ways


def test_every_generator_kind_creates_flows_and_summary_generators_retire_them():
    kinds = allowed_by_core(ENUMERATIONS[("generators[].kind",)])
    created = {}
    retired = 0
    for out in outputs().values():
        g = out["generators"]
        for kind, record, n, r in zip(g["kind"], g["record"], g["created"], g["retired"]):
            created[kind] = created.get(kind, 0) + int(n)
            retired += int(r) if record == "summary" else 0
    assert all(created.get(kind, 0) > 0 for kind in kinds), created
    assert retired > 0


def test_pcaps_capture_a_link_and_a_lan():
    captured = set()
    for name, out in outputs().items():
        spec = normalised_specs()[name]
        links = {(link["a"], link["b"]) for link in spec["links"]}
        links |= {(b, a) for a, b in links}
        for entry in spec.get("pcap", []):
            data = out["pcaps"][f"{entry['a']}-{entry['b']}"]
            assert len(data) > 24, f"{name}: empty capture"
            captured.add("link" if (entry["a"], entry["b"]) in links else "lan")
    assert captured == {"link", "lan"}


def test_switched_flows_end_with_their_last_algorithm_and_udp_flows_deliver():
    switched = udp = 0
    for name, out in outputs().items():
        for i, flow in enumerate(normalised_specs()[name]["flows"]):
            if flow["switch"]:
                assert out["flows"]["cc_final"][i] == flow["switch"][-1]["cc"], (name, flow["name"])
                switched += 1
            if flow["transport"] == "udp":
                assert out["flows"]["delivered_segments"][i] > 0, (name, flow["name"])
                udp += 1
    assert switched >= 2 and udp >= 2


def test_time_series_with_algorithm_columns_and_without_sampling():
    base_columns = {"time", "flow", "cwnd", "ssthresh", "srtt", "rto", "rto_base", "flight", "delivered"}
    extra = {c for out in outputs().values() for c in out["flow_ts"]} - base_columns
    assert {"be_bps", "re_bps", "crb_uses_re"} <= extra
    unsampled = [name for name, spec in normalised_specs().items() if spec["sim"]["sample_interval"] == 0]
    assert unsampled
    for name in unsampled:
        out = outputs()[name]
        assert len(out["flow_ts"]["time"]) == 0 and len(out["link_ts"]["time"]) == 0


def test_fixed_size_flows_with_the_handshake_complete():
    completed = 0
    for name, out in outputs().items():
        for i, flow in enumerate(normalised_specs()[name]["flows"]):
            if flow["tcp"]["handshake"] and flow["size"] is not None:
                assert math.isfinite(out["flows"]["completion_time"][i]), (name, flow["name"])
                completed += 1
    assert completed >= 2
