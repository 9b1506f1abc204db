"""PackMime-HTTP web traffic helpers: clouds of hosts behind a router, the per-request log
of a ``packmime`` generator, and the chapter-3 web background on the Fig. 3.6 dumbbell.

The ``packmime`` generator kind itself is in the core (crates/tcplab-core/src/traffic/packmime.rs;
fields in docs/scenario.md, model and measurements in docs/web-traffic.md).
"""
from __future__ import annotations

import random
from typing import Any

# The clouds' access delays of the thesis's background traffic (SEED-NOTES §2.2 B): uniform
# in [5, 25] ms, one draw per cloud host (our reading: "per cloud node").
ACCESS_DELAY = (0.005, 0.025)

# The web transfers' receive window, in segments. The thesis ran ns-2's PackMime-HTTP, whose
# TCP agents (Agent/TCP/FullTcp) keep Agent/TCP's default window_ of 20 packets, and gives no
# other (our reading). Unlimited windows let a heavy-tailed download overshoot a 1 Gb/s path in
# slow start and lose thousands of packets at once.
WEB_RWND = 20


def cloud(name: str, router: str, hosts: int, seed: int, rate: float = 10e9,
          delay: tuple[float, float] = ACCESS_DELAY, queue: int = 100_000) -> tuple[list, list]:
    """The nodes and links of a cloud of ``hosts`` hosts ``{name}{k}`` each attached to
    ``router`` by its own link of ``rate`` bit/s and a one-way delay drawn uniformly from
    ``delay`` (seconds). The delays come from ``seed`` and the cloud's name only (Python's
    ``random.Random`` on a string seed: the same on every platform and version), so the
    same seed gives the same cloud. Returns ``(nodes, links)`` to add to a spec."""
    rng = random.Random(f"tcplab-cloud:{name}:{seed}")
    nodes, links = [], []
    for k in range(hosts):
        host = f"{name}{k}"
        nodes.append({"name": host})
        links.append({"a": host, "b": router, "rate": rate, "delay": rng.uniform(*delay), "queue": queue})
    return nodes, links


def request_log(results: Any) -> "Any":
    """The per-request records of a run whose packmime generator has ``log_requests = true``
    (rows ``web_request_bytes``, ``web_response_bytes``, ``web_response_time`` of the events
    table), one row per request: ``connection, time`` (the request's start), ``request_bytes,
    response_bytes, response_time`` (seconds; NaN if the response had not arrived by the
    end of the run). In order of request start."""
    import numpy as np
    import pandas as pd

    ev = results.events
    web = ev[ev["event"].str.startswith("web_")] if len(ev) else ev
    req = web[web["event"] == "web_request_bytes"]
    rsp = web[web["event"] == "web_response_bytes"]
    done = web[web["event"] == "web_response_time"]
    out = pd.DataFrame({
        "connection": req["flow"].to_numpy(np.uint64),
        "time": req["time"].to_numpy(float),
        "request_bytes": req["value"].to_numpy(float),
        "response_bytes": rsp["value"].to_numpy(float),
    })
    # The k-th response time of a connection belongs to its k-th request (a connection's
    # requests are one after another).
    out["k"] = out.groupby("connection").cumcount()
    d = pd.DataFrame({"connection": done["flow"].to_numpy(np.uint64), "response_time": done["value"].to_numpy(float)})
    d["k"] = d.groupby("connection").cumcount()
    out = out.merge(d, on=["connection", "k"], how="left").drop(columns="k")
    return out.sort_values(["time", "connection"], kind="stable").reset_index(drop=True)


def thesis_web_background(duration: float = 1000.0, forward_rate: float = 3200.0, reverse_rate: float = 800.0,
                          hosts: int = 8, seed: int = 1, bottleneck_delay: float = 0.050,
                          capacity: float = 1e9, packet: int = 1500, buffer_bdp: float = 0.5,
                          tcp: dict | None = None, lrd: bool = True) -> dict:
    """The thesis's Fig. 3.6 dumbbell (R1 ==capacity, bottleneck_delay== R2, DropTail
    buffer ``buffer_bdp`` × BDP with BDP = C × 2 × delay in ``packet``-byte packets) with
    only the web background: a cloud of ``hosts`` hosts at each router (access links
    10 Gb/s, delays uniform in [5, 25] ms from ``seed``); the transfers' receive window is
    ``WEB_RWND`` segments unless ``tcp`` says otherwise.

    Direction convention: *forward* is R1 → R2. The forward web generator's servers are
    the R1 cloud and its clients the R2 cloud, so its responses (the bulk of the bytes) go
    R1 → R2 at ``forward_rate`` new connections/s; the reverse generator swaps the roles
    (servers behind R2, responses R2 → R1) at ``reverse_rate``."""
    bdp_packets = capacity * 2 * bottleneck_delay / (8 * packet)
    queue = max(1, round(buffer_bdp * bdp_packets))
    n1, l1 = cloud("a", "R1", hosts, seed)
    n2, l2 = cloud("b", "R2", hosts, seed)
    a = [n["name"] for n in n1]
    b = [n["name"] for n in n2]
    tcp = {"mss": packet - 40, "header": 40, "handshake": True, "init_cwnd": 2, "rwnd": WEB_RWND, **(tcp or {})}
    common = {"kind": "packmime", "record": "summary", "tcp": tcp, "lrd": lrd}
    generators = [
        {"name": "web_fwd", "rate": forward_rate, "servers": a, "clients": b, **common},
        {"name": "web_rev", "rate": reverse_rate, "servers": b, "clients": a, **common},
    ]
    generators = [g for g in generators if g["rate"] > 0]
    return {
        "sim": {"duration": duration, "sample_interval": 0},
        "nodes": [{"name": "R1", "kind": "router"}, {"name": "R2", "kind": "router"}] + n1 + n2,
        "links": [{"a": "R1", "b": "R2", "rate": capacity, "delay": bottleneck_delay, "queue": queue}] + l1 + l2,
        "generators": generators,
    }
