"""Scenario specs: TOML files and the equivalent Python builder.

Both produce the same plain dict, which the Rust core validates and normalises (every
default filled in); see docs/scenario.md for the fields.
"""
from __future__ import annotations

import copy
import json
import math
import os
import re
import stat
import sys
from typing import Any

from tcplab import _core

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ScenarioError = _core.ScenarioError


MAX_SCENARIO_BYTES = 64 << 20


def load_scenario(path: str | os.PathLike) -> dict:
    """Read a TOML scenario file into a spec dict (not yet validated). Only regular files of
    at most MAX_SCENARIO_BYTES are read."""
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            raise ScenarioError(f"{path}: is a directory, not a scenario file")
        if not stat.S_ISREG(st.st_mode):
            raise ScenarioError(f"{path}: is not a regular file (a device, pipe or socket); give a TOML file")
        too_large = st.st_size > MAX_SCENARIO_BYTES
        if not too_large:
            with open(path, "rb") as f:
                data = f.read(MAX_SCENARIO_BYTES + 1)  # bounded even when the size changes or lies
            too_large = len(data) > MAX_SCENARIO_BYTES
    except FileNotFoundError:
        raise ScenarioError(f"{path}: no such scenario file") from None
    except OSError as e:
        raise ScenarioError(f"{path}: cannot read the scenario file: {e.strerror or e}") from None
    if too_large:
        raise ScenarioError(f"{path}: the file is larger than {MAX_SCENARIO_BYTES >> 20} MiB, "
                            "the limit for a scenario file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        column = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise ScenarioError(f"{path}, line {line}, column {column}: not valid UTF-8 "
                            f"(byte 0x{data[e.start]:02x}); save the file as UTF-8") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(_toml_error(path, e, text)) from None
    except RecursionError:
        raise ScenarioError(f"{path}: arrays or tables are nested too deeply") from None


def _toml_error(path, e: Exception, text: str) -> str:
    """One line naming the file and the line of a TOML syntax error."""
    msg = str(e)
    m = re.search(r"\s*\(at line (\d+), column (\d+)\)$", msg)
    if m:
        return f"{path}, line {m.group(1)}, column {m.group(2)}: not valid TOML: {msg[: m.start()]}"
    m = re.search(r"\s*\(at end of document\)$", msg)
    if m:
        lines = text.count("\n") + 1
        return f"{path}, line {lines} (end of file): not valid TOML: {msg[: m.start()]}"
    return f"{path}: not valid TOML: {msg}"


def as_spec(spec: Any) -> dict:
    """Accept a dict, a Scenario, or a path to a TOML file; return the spec dict."""
    if isinstance(spec, Scenario):
        return spec.to_dict()
    if isinstance(spec, dict):
        return spec
    if isinstance(spec, (str, os.PathLike)):
        return load_scenario(spec)
    raise ScenarioError(f"spec: expected a dict, a Scenario or a TOML path, got {type(spec).__name__}")


def to_json(spec: Any) -> str:
    return json.dumps(plain(as_spec(spec)), allow_nan=False)


def _path(where: str, key) -> str:
    return f"{where}[{key}]" if isinstance(key, int) else (f"{where}.{key}" if where else str(key))


def plain(value: Any, where: str = "") -> Any:
    """The spec as plain JSON values: numpy scalars and arrays become numbers and lists,
    tuples lists. NaN, infinities and unsupported types raise ScenarioError naming the
    field (e.g. ``flows[0].tcp.init_cwnd``). Plain values are returned unchanged."""
    try:
        return _plain(value, where)
    except RecursionError:
        raise ScenarioError(f"{where or 'spec'}: nested too deeply") from None


def _plain(v: Any, where: str) -> Any:
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ScenarioError(f"{where or 'spec'}: {v} is not allowed; give a finite number")
        return float(v)
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if not isinstance(k, (str, int, float, type(None))):  # the keys JSON writes as strings
                np = sys.modules.get("numpy")
                if np is None or not isinstance(k, np.integer):
                    raise ScenarioError(f"{_path(where, repr(k))}: field names must be strings, "
                                        f"not {type(k).__name__}")
                k = int(k)
            out[k] = _plain(x, _path(where, k))
        return out
    if isinstance(v, (list, tuple)):
        return [_plain(x, _path(where, i)) for i, x in enumerate(v)]
    np = sys.modules.get("numpy")
    if np is not None:
        if isinstance(v, np.bool_):
            return bool(v)
        if isinstance(v, np.integer):
            return int(v)
        if isinstance(v, np.floating):
            return _plain(float(v), where)
        if isinstance(v, np.ndarray):
            return _plain(v.tolist(), where)
    raise ScenarioError(f"{where or 'spec'}: a value of type {type(v).__name__} is not supported; "
                        "use numbers, strings, booleans, lists and tables")


def normalise(spec: Any) -> dict:
    """Validate a spec and return its normalised form (all defaults filled in)."""
    return json.loads(_core.validate(to_json(spec)))


class Scenario:
    """Build a scenario in Python; ``to_dict()`` gives exactly what a TOML file would.

    >>> s = (Scenario(duration=60, sample_interval=0.1)
    ...      .dumbbell(pairs=4, bottleneck=dict(rate="10Mbps", delay="20ms", queue=50),
    ...                access=dict(rate="100Mbps", delay="1ms", queue=1000))
    ...      .flow(src="s{i}", dst="d{i}", count=4, cc="newreno"))
    """

    def __init__(self, duration: float | str, sample_interval: float | str | None = None, seed: int | None = None):
        self._d: dict[str, Any] = {"sim": {"duration": duration}}
        if sample_interval is not None:
            self._d["sim"]["sample_interval"] = sample_interval
        if seed is not None:
            self._d["sim"]["seed"] = seed

    def node(self, name: str, kind: str = "host") -> "Scenario":
        self._d.setdefault("nodes", []).append({"name": name, "kind": kind})
        return self

    def link(self, a: str, b: str, rate, delay, *, reorder=None, reorder_ab=None, reorder_ba=None,
             **options) -> "Scenario":
        """A duplex link; ``options`` are the fields of ``[[links]]`` (docs/scenario.md).
        ``reorder`` (both directions), ``reorder_ab``, ``reorder_ba``: the reordering model,
        a table ``{"prob": p, "delay": t}`` or a pair ``(p, t)``: each packet held back by t
        with probability p (docs/kentridge.md, "Link reordering")."""
        where = f"links[{len(self._d.get('links', []))}]"
        link = {"a": a, "b": b, "rate": rate, "delay": delay, **options}
        for name, value in (("reorder", reorder), ("reorder_ab", reorder_ab), ("reorder_ba", reorder_ba)):
            if value is not None:
                link[name] = _reorder_table(f"{where}.{name}", value)
        self._d.setdefault("links", []).append(link)
        return self

    def dumbbell(self, pairs: int, bottleneck: dict, access: dict) -> "Scenario":
        self._d["dumbbell"] = {"pairs": pairs, "bottleneck": dict(bottleneck), "access": dict(access)}
        return self

    def flow(self, src: str, dst: str, *, kentridge=None, **options) -> "Scenario":
        """A ``[[flows]]`` entry; ``options`` are its fields (docs/scenario.md).
        ``kentridge``: TCP KentRidge's table (``interval``, ``thresholds``, ``precedence``,
        ``expectations``, ``port_expectations``, ``platform``, ``kb``; docs/kentridge.md), or
        True for its defaults; None or False: off."""
        f = {"src": src, "dst": dst, **options}
        if kentridge is True:
            f["kentridge"] = {}
        elif isinstance(kentridge, dict):
            f["kentridge"] = copy.deepcopy(kentridge)
        elif kentridge is not None and kentridge is not False:
            where = f"flows[{len(self._d.get('flows', []))}].kentridge"
            raise ScenarioError(f"{where}: {kentridge!r} is not allowed; allowed: a table (dict) of KentRidge's "
                                "fields, True for the defaults, or None/False for off")
        self._d.setdefault("flows", []).append(f)
        return self

    def voip(self, src: str, dst: str, **options) -> "Scenario":
        """A VoIP call: a ``transport = "voip"`` flow (``packet`` bytes every ``interval``,
        200 B and 20 ms by default, in both directions unless ``direction`` says otherwise;
        the receivers measure one-way delay, jitter and loss)."""
        return self.flow(src, dst, transport="voip", **options)

    def generator(self, kind: str, src: str, dst: str, **options) -> "Scenario":
        self._d.setdefault("generators", []).append({"kind": kind, "src": src, "dst": dst, **options})
        return self

    def link_change(self, link: str, at, **changes) -> "Scenario":
        """A change of link ``link`` (``"a-b"``, e.g. ``"r2-d0"``) at time ``at``:
        ``delay, rate, queue, loss, state ("down"/"up"), queued ("keep"/"drop"), direction
        ("ab"/"ba"/"both")`` as in ``[[link_changes]]`` (docs/scenario.md)."""
        self._d.setdefault("link_changes", []).append({"link": link, "at": at, **changes})
        return self

    def pcap(self, a: str, b: str) -> "Scenario":
        self._d.setdefault("pcap", []).append({"a": a, "b": b})
        return self

    def to_dict(self) -> dict:
        return copy.deepcopy(self._d)

    def to_toml(self) -> str:
        return to_toml(self._d)

    def normalised(self) -> dict:
        return normalise(self._d)


def _reorder_table(where: str, value) -> dict:
    """A reordering model given to the builder: a table, or a pair (prob, delay)."""
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return {"prob": value[0], "delay": value[1]}
    raise ScenarioError(f"{where}: {value!r} is not allowed; allowed: a table {{\"prob\": p, \"delay\": t}} "
                        "or a pair (p, t)")


def to_toml(spec: dict) -> str:
    """A spec dict as the text of a scenario file."""
    return _toml(plain(spec))


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    if v is None:
        raise ScenarioError("spec: TOML has no null; leave the field out instead")
    raise ScenarioError(f"spec: cannot write {type(v).__name__} to TOML")


def _toml(d: dict) -> str:
    out = []
    for key, val in d.items():
        if isinstance(val, dict):
            out.append(f"[{key}]")
            out.extend(f"{k} = {_toml_value(x)}" for k, x in val.items())
            out.append("")
        elif isinstance(val, list) and all(isinstance(x, dict) for x in val):
            for item in val:
                out.append(f"[[{key}]]")
                out.extend(f"{k} = {_toml_value(x)}" for k, x in item.items())
                out.append("")
        else:
            out.insert(0, f"{key} = {_toml_value(val)}")
    return "\n".join(out)
