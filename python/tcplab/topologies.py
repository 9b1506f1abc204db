"""Scenario generators for the papers' topologies."""
from __future__ import annotations

# Access-link types of Qiu, Zhang, Keshav section 2 (T1 at 1.6 Mb/s, SEED-NOTES §4A).
ACCESS_TYPES = {1: ("ISDN", 64e3), 2: ("T1", 1.6e6), 3: ("T3", 45e6)}


def abstract_internet(prop_delay: float, buffer_r1: int, buffer_r4: int, conns: dict, domains: int = 1,
                      mss: int = 500, cc: str = "reno", duration: float = 100.0, core_rate: float = 10e6,
                      core_delay: float = 1e-6, tcp: dict | None = None) -> dict:
    """The abstract network model of section 2 with its twelve parameters: the propagation
    delay, the buffers of the routers in front of the ingress (R1) and egress (R4) access
    links, and C_ij = conns[(i, j)], the number of connections entering through a type-i and
    leaving through a type-j access link (types 1 ISDN, 2 T1, 3 T3).

    Each of `domains` independent copies has one ingress and one egress access link per type.
    The high-capacity backbone is one link per (ingress type, egress type) pair in use, so
    that connections interact only through the access links, as the model assumes (the
    decomposition then groups them exactly as the paper's access-link graph does).
    `prop_delay` is the one-way delay of the backbone links; hosts attach with links of
    `core_rate` and `core_delay`."""
    nodes, links, flows = [], [], []
    for d in range(domains):
        p = f"D{d}"
        for t, (label, rate) in ACCESS_TYPES.items():
            r1, x, y, r4 = f"{p}.R1.{label}", f"{p}.in.{label}", f"{p}.out.{label}", f"{p}.R4.{label}"
            nodes += [{"name": n, "kind": "router"} for n in (r1, x, y, r4)]
            links.append({"a": r1, "b": x, "rate": rate, "delay": core_delay, "queue_ab": buffer_r1, "queue_ba": 100000})
            links.append({"a": y, "b": r4, "rate": rate, "delay": core_delay, "queue_ab": buffer_r4, "queue_ba": 100000})
        for (i, j), n in sorted(conns.items()):
            if n > 0:
                links.append({"a": f"{p}.in.{ACCESS_TYPES[i][0]}", "b": f"{p}.out.{ACCESS_TYPES[j][0]}",
                              "rate": 1e9, "delay": prop_delay, "queue": 100000})
        k = 0
        for (i, j), n in sorted(conns.items()):
            for _ in range(n):
                src, dst = f"{p}.h{k}", f"{p}.g{k}"
                nodes += [{"name": src}, {"name": dst}]
                links.append({"a": src, "b": f"{p}.R1.{ACCESS_TYPES[i][0]}", "rate": core_rate, "delay": core_delay,
                              "queue": 100000})
                links.append({"a": f"{p}.R4.{ACCESS_TYPES[j][0]}", "b": dst, "rate": core_rate, "delay": core_delay,
                              "queue": 100000})
                flows.append({"name": f"{p}.c{i}{j}.{k}", "src": src, "dst": dst, "cc": cc,
                              "tcp": {"mss": mss, "rwnd": 10000, **(tcp or {})}})
                k += 1
    return {"sim": {"duration": duration}, "nodes": nodes, "links": links, "flows": flows}
