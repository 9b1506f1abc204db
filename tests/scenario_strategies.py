"""Hypothesis strategies: random valid scenarios, and invalid mutations of them.

The valid scenarios are small (a few nodes and flows, a few simulated seconds at a few
Mb/s) so that hundreds run in a minute, but they reach every part of the spec: explicit
topologies, dumbbells and LANs, queue disciplines, every algorithm, fixed-size and bulk TCP flows with the TCP
options, UDP sources with rate schedules, the three flow generators in both record modes,
TCBI hosts, pcap captures, link changes and time series, TCP KentRidge on flows (`kentridge`:
period, thresholds, precedence, expectations, port expectations, platform, built-in or inline
knowledge base; the flows' destination ports, D-SACK and undo among the TCP options) and link
reordering (`reorder`, `reorder_ab`, `reorder_ba` on any link direction, whatever its queue,
codel and fq_codel included, and on links with link changes).
"""
from __future__ import annotations

import copy

from hypothesis import strategies as st

ALGORITHMS = ["tahoe", "reno", "newreno", "westwood_be", "westwood_re", "westwood_crb", "rfs", "wpp", "esse",
              "rfs+wpp+esse", "rfs+esse", "cubic_linux", "cubic", "highspeed", "highspeed_linux", "scalable", "htcp", "bic", "hybla",
              "illinois", "veno", "westwood_plus", "vegas", "compound", "fast", "yeah", "lp", "bbr", "sync_tcp"]

rates = st.sampled_from(["500kbps", "1Mbps", "2Mbps", "5Mbps", "10Mbps", 3e6, "1.5Mb/s"])
fast_rates = st.sampled_from(["10Mbps", "20Mbps", "100Mbps", 5e7])
delays = st.sampled_from([0, "100us", "1ms", "5ms", "20ms", 0.05])
queues = st.integers(min_value=1, max_value=60)


@st.composite
def disciplines(draw) -> dict:
    """A queue discipline's table, with some of its fields."""
    kind = draw(st.sampled_from(["droptail", "red", "codel", "fq_codel"]))
    q = {"type": kind}
    if draw(st.booleans()):
        q["limit"] = draw(queues)
    if kind == "red":
        lo = draw(st.sampled_from([1, 2.5, 5, "auto"]))
        q["min_th"] = lo
        q["max_th"] = "auto" if lo == "auto" else lo * draw(st.sampled_from([2, 3]))
        pool = {"q_weight": st.sampled_from([0.002, 0.05, 1, "auto"]), "max_p": st.sampled_from([0.02, 0.1, 1]),
                "gentle": st.booleans(), "wait": st.booleans(), "mean_pktsize": st.sampled_from([100, 500, 1500]),
                "ecn": st.booleans()}
    elif kind == "droptail":
        pool = {}
    else:
        pool = {"target": st.sampled_from(["1ms", "5ms", 0.02]), "interval": st.sampled_from(["10ms", "100ms"]),
                "ecn": st.booleans()}
        if kind == "fq_codel":
            pool.update(flows=st.sampled_from([1, 2, 16, 1024]), quantum=st.sampled_from([64, 300, 1514]))
    for k in draw(st.lists(st.sampled_from(sorted(pool)), max_size=4, unique=True)) if pool else []:
        q[k] = draw(pool[k])
    return q


# a link direction's queue: mostly a DropTail size, sometimes a discipline
link_queues = st.one_of(queues, queues, disciplines())
losses = st.sampled_from([0.0, 0.0, 0.001, 0.01, 0.05])
times_in = lambda hi: st.floats(min_value=0.0, max_value=hi, allow_nan=False).map(lambda x: round(x, 3))


@st.composite
def tcp_options(draw) -> dict:
    pool = {
        "mss": st.sampled_from([200, 536, 1000, 1460]),
        "delayed_ack": st.booleans(),
        "init_cwnd": st.sampled_from([1, 2, 4, 10]),
        "init_ssthresh": st.sampled_from([2, 8, 64, 1e9]),
        "rwnd": st.sampled_from([4, 20, 64, 1e9]),
        "dupthresh": st.integers(min_value=1, max_value=5),
        "timestamps": st.booleans(),
        "tick": st.sampled_from([0, "1ms", "10ms", 0.5]),
        "handshake": st.booleans(),
        "limited_transmit": st.booleans(),
        "min_rto": st.sampled_from(["200ms", "1s"]),
        "send_jitter": st.sampled_from([0, "1ms"]),
        "rtt_sample_interval": st.sampled_from([0, "1ms", "10ms"]),
        "sack": st.booleans(),
        "dsack": st.booleans(),
        "undo": st.booleans(),
        "pacing": st.sampled_from(["off", "window"]),
        "ecn": st.booleans(),
        "dport": st.sampled_from(PORTS),
    }
    keys = draw(st.lists(st.sampled_from(sorted(pool)), max_size=5, unique=True))
    opts = {k: draw(pool[k]) for k in keys}
    # the parser's rules: D-SACK reports in SACK blocks; undo needs D-SACK or timestamps
    if opts.get("dsack"):
        opts["sack"] = True
    if opts.get("undo") and not opts.get("dsack") and not opts.get("timestamps"):
        opts[draw(st.sampled_from(["dsack", "timestamps"]))] = True
        if opts.get("dsack"):
            opts["sack"] = True
    return opts


def dist(mean_hi: float):
    return st.one_of(
        st.builds(lambda v: {"dist": "constant", "value": v}, st.floats(1, mean_hi).map(lambda x: round(x, 2))),
        st.builds(lambda m: {"dist": "exponential", "mean": m}, st.floats(0.5, mean_hi).map(lambda x: round(x, 2))),
        st.builds(lambda s, c: {"dist": "pareto", "shape": s, "scale": c},
                  st.sampled_from([1.2, 1.5, 2.5]), st.sampled_from([1.0, 2.0, 5.0])),
        st.builds(lambda lo, w: {"dist": "uniform", "low": lo, "high": lo + w},
                  st.sampled_from([1.0, 2.0]), st.sampled_from([0.0, 3.0, 10.0])),
    )


PIPE_TYPES = ["reorder", "lfn", "lfn_small_queue", "lfn_large_queue", "high_speed", "long_thin",
              "reliable_wireless", "lossy", "mobile", "asymmetry"]
KB_TERMS = ["utilisation", "friendliness", "low_delay", "fairness", "loss_tolerance"]
# destination ports: some in the built-in port map (docs/kentridge.md, "Agent"), 5001 the default
PORTS = [22, 80, 443, 5001, 5060, 9000]
PLATFORM_COSTS = ["cpu_cost", "memory_cost", "energy_cost"]
PLATFORM = {"cpu": ["normal", "low"], "memory": ["normal", "low"], "power": ["mains", "battery"]}


@st.composite
def kb_rows(draw) -> list[dict]:
    """An inline knowledge base: a few rows naming built-in algorithms (no peer capability
    a flow may lack is required of every row)."""
    rows = []
    for _ in range(draw(st.integers(1, 4))):
        row = {"adaptation": draw(st.sampled_from(ALGORITHMS[:12])),
               "pipe_types": draw(st.lists(st.sampled_from(["default"] + PIPE_TYPES), min_size=1, max_size=3,
                                           unique=True))}
        if draw(st.booleans()):
            row["advantages"] = draw(st.lists(st.sampled_from(KB_TERMS), min_size=1, max_size=2, unique=True))
        if draw(st.integers(0, 3)) == 0:
            row["shortcomings"] = draw(st.lists(st.sampled_from(KB_TERMS + PLATFORM_COSTS), min_size=1, max_size=2,
                                                unique=True))
        if draw(st.integers(0, 3)) == 0:
            row["capabilities"] = [draw(st.sampled_from(["sack", "timestamps", "ecn", "dsack"]))]
            if row["capabilities"][0] in ("timestamps", "dsack") and draw(st.booleans()):
                row["options"] = ["undo"]  # a row that can detect may turn undo on
        rows.append(row)
    return rows


@st.composite
def kentridge_tables(draw) -> dict:
    """A flow's `kentridge` table: some of its fields, every one valid."""
    k: dict = {}
    if draw(st.booleans()):
        k["interval"] = draw(st.sampled_from(["100ms", "250ms", 0.5, "1s"]))
    pool = {
        "long_rtt": st.sampled_from(["5ms", "50ms", 0.1]),
        "large_queue": st.sampled_from(["1ms", "12ms"]),
        "small_queue": st.sampled_from(["500us", "3ms"]),
        "large_jitter": st.sampled_from([0.1, 0.5, 2]),
        "window": st.sampled_from(["1s", "10s"]),
        "asymmetry": st.sampled_from([1.5, 4]),
        "hysteresis": st.sampled_from([0, 0.2, 0.9]),
        "bdp_size": st.booleans(),
        "lfn_after_slow_start": st.booleans(),
        "spurious_timeout_jitter": st.booleans(),
    }
    th = {key: draw(pool[key]) for key in draw(st.lists(st.sampled_from(sorted(pool)), max_size=3, unique=True))}
    if draw(st.booleans()):
        th["small_cwnd"], th["large_cwnd"] = draw(st.sampled_from([(2, 10), (8, 100), (0.5, 4)]))
    if draw(st.booleans()):
        th["frequent_off"], th["frequent"] = draw(st.sampled_from([(0, 1), (1, 3), (2, 5)]))
    if th:
        k["thresholds"] = th
    if draw(st.booleans()):
        k["precedence"] = draw(st.lists(st.sampled_from(PIPE_TYPES), min_size=1, max_size=5, unique=True))
    terms = KB_TERMS
    if draw(st.booleans()):
        rows = draw(kb_rows())
        k["kb"] = rows
        terms = sorted({t for r in rows for t in r.get("advantages", []) + r.get("shortcomings", [])}
                       - set(PLATFORM_COSTS))
        if terms and draw(st.booleans()):
            k["expectations"] = draw(st.lists(st.sampled_from(terms), min_size=1, max_size=2, unique=True))
    elif draw(st.booleans()):
        k["kb"] = "builtin"
    if draw(st.integers(0, 2)) == 0:
        ports = draw(st.lists(st.sampled_from(PORTS), max_size=3, unique=True))
        k["port_expectations"] = {str(p): draw(st.lists(st.sampled_from(terms), min_size=1, max_size=2, unique=True))
                                  for p in ports} if terms else {}
    if draw(st.integers(0, 2)) == 0:
        inputs = draw(st.lists(st.sampled_from(sorted(PLATFORM)), min_size=1, max_size=3, unique=True))
        k["platform"] = {i: draw(st.sampled_from(PLATFORM[i])) for i in inputs}
    return k


reorder_models = st.builds(lambda p, d: {"prob": p, "delay": d}, st.sampled_from([0.001, 0.01, 0.2, 0.9]),
                           st.sampled_from(["100us", "2ms", 0.01]))


def scheduled(q) -> bool:
    """A codel or fq_codel queue (it sends from its own queue)."""
    return isinstance(q, dict) and q.get("type") in ("codel", "fq_codel")


@st.composite
def with_reordering(draw, link: dict) -> dict:
    """The link, with a reordering model on some of its directions (any queue)."""
    how = draw(st.sampled_from(["none", "none", "both", "ab", "ba"]))
    if how == "both":
        link["reorder"] = draw(reorder_models)
    elif how in ("ab", "ba"):
        link[f"reorder_{how}"] = draw(reorder_models)
    return link


def reorders(link: dict) -> bool:
    return any(k in link for k in ("reorder", "reorder_ab", "reorder_ba"))


@st.composite
def topology(draw) -> tuple[dict, list[str]]:
    """Nodes, links (and LANs) as a spec fragment, and the names of the hosts."""
    kind = draw(st.sampled_from(["dumbbell", "chain", "lan", "dumbbell+lan"]))
    spec: dict = {}
    hosts: list[str] = []
    if kind.startswith("dumbbell"):
        pairs = draw(st.integers(1, 4))
        access_delay = draw(st.one_of(delays, st.lists(delays, min_size=pairs, max_size=pairs)))
        spec["dumbbell"] = {
            "pairs": pairs,
            "bottleneck": {"rate": draw(rates), "delay": draw(delays), "queue": draw(link_queues), "loss": draw(losses)},
            "access": {"rate": draw(fast_rates), "delay": access_delay, "queue": draw(st.integers(5, 200))},
        }
        hosts = [f"s{i}" for i in range(pairs)] + [f"d{i}" for i in range(pairs)]
    if kind == "chain":
        routers = [f"r{i}" for i in range(draw(st.integers(1, 3)))]
        hosts = [f"h{i}" for i in range(draw(st.integers(2, 5)))]
        spec["nodes"] = [{"name": r, "kind": "router"} for r in routers] + [{"name": h} for h in hosts]
        links = []
        for a, b in zip(routers, routers[1:]):
            links.append({"a": a, "b": b, "rate": draw(rates), "delay": draw(delays), "queue": draw(link_queues)})
        for h in hosts:
            link = {"a": h, "b": draw(st.sampled_from(routers)), "rate": draw(fast_rates), "delay": draw(delays)}
            if draw(st.booleans()):
                link["loss_ab"] = draw(losses)
            if draw(st.booleans()):
                link["queue_ba"] = draw(link_queues)
            links.append(link)
        if len(routers) >= 2 and draw(st.booleans()):  # a parallel path with another cost
            links.append({"a": routers[0], "b": routers[-1], "rate": draw(rates), "delay": draw(delays),
                          "cost": draw(st.sampled_from([1, 2.5, 10]))})
        spec["links"] = [draw(with_reordering(link)) for link in links]
    if kind.endswith("lan"):
        members = [f"m{i}" for i in range(draw(st.integers(2, 4)))]
        spec.setdefault("nodes", []).extend({"name": m} for m in members)
        lan = {"name": "lan0", "members": list(members), "rate": draw(rates)}
        if draw(st.booleans()):
            lan["queue"] = draw(queues)
        if draw(st.booleans()):
            lan["loss"] = draw(losses)
        if kind == "dumbbell+lan":
            lan["members"].append("r1")
        spec["lans"] = [lan]
        hosts += members
    if draw(st.booleans()):  # TCBI on one host
        host = draw(st.sampled_from(hosts))
        tcbi = {"controller": draw(st.sampled_from(["none", "mv", "fs"])), "prefix": draw(st.sampled_from([0, 24, 32]))}
        if draw(st.booleans()):
            tcbi["temporal"] = {"lifetime": draw(st.sampled_from(["1s", "600s"]))}
        nodes = spec.setdefault("nodes", [])
        entry = next((n for n in nodes if n["name"] == host), None)
        if entry is None:
            if "dumbbell" in spec:  # dumbbell hosts cannot be redeclared: put TCBI on a new host
                host = "t0"
                nodes.append({"name": host, "tcbi": tcbi})
                spec.setdefault("links", []).append(
                    draw(with_reordering({"a": host, "b": "r1", "rate": "100Mbps", "delay": "1ms"})))
                hosts.append(host)
        else:
            entry["tcbi"] = tcbi
    return spec, hosts


@st.composite
def flows(draw, hosts: list[str], duration: float) -> list[dict]:
    out = []
    for _ in range(draw(st.integers(0, 4))):
        src, dst = draw(st.lists(st.sampled_from(hosts), min_size=2, max_size=2, unique=True))
        f: dict = {"src": src, "dst": dst}
        if draw(st.integers(0, 5)) == 0:
            f.update(transport="udp", packet=draw(st.sampled_from([64, 500, 1000])))
            if draw(st.booleans()):
                f["rate"] = draw(rates)
            else:
                f["rate_schedule"] = [{"at": 0, "rate": 0}, {"at": round(duration / 3, 3), "rate": draw(rates)},
                                      {"at": round(2 * duration / 3, 3), "rate": 0}]
        else:
            f["cc"] = draw(st.sampled_from(ALGORITHMS))
            if draw(st.booleans()):
                f["size"] = draw(st.integers(1, 300))
            opts = draw(tcp_options())
            if opts:
                f["tcp"] = opts
            if draw(st.integers(0, 4)) == 0:
                f["switch"] = [{"at": round(duration / 2, 3), "cc": draw(st.sampled_from(ALGORITHMS[:6]))}]
            if draw(st.integers(0, 3)) == 0:
                f["kentridge"] = draw(kentridge_tables())
                if draw(st.booleans()):  # a port the agent may infer expectations from
                    f.setdefault("tcp", {})["dport"] = draw(st.sampled_from(PORTS))
        f["start"] = draw(times_in(duration * 0.9))
        if draw(st.integers(0, 3)) == 0:
            f["stop"] = round(f["start"] + 0.001 + draw(times_in(duration)), 3)
        out.append(f)
    return out


@st.composite
def generators(draw, hosts: list[str], duration: float) -> list[dict]:
    out = []
    for k in range(draw(st.integers(0, 2))):
        src, dst = draw(st.lists(st.sampled_from(hosts), min_size=2, max_size=2, unique=True))
        kind = draw(st.sampled_from(["poisson", "closed", "sessions"]))
        g: dict = {"name": f"g{k}", "kind": kind, "src": src, "dst": dst, "size": draw(dist(40.0)),
                   "record": draw(st.sampled_from(["flows", "summary"])), "cc": draw(st.sampled_from(ALGORITHMS))}
        if kind == "poisson":
            g["rate"] = draw(st.sampled_from([0.5, 2.0, 10.0]))
        elif kind == "closed":
            g["think"] = draw(dist(1.0))
        else:
            g.update(pages=draw(dist(4.0)), reading=draw(dist(1.0)), session_gap=draw(dist(2.0)))
        if draw(st.booleans()):
            g["stop"] = round(duration / 2, 3)
        if draw(st.booleans()):
            g["max_flows"] = draw(st.integers(1, 50))
        out.append(g)
    return out


@st.composite
def link_changes(draw, spec: dict, duration: float) -> list[dict]:
    """Changes of the topology's links (explicit or the dumbbell's) at times within the run:
    delay, rate, queue, loss, and outages (kept or dropped queue) with or without an up."""
    ends = [(l["a"], l["b"]) for l in spec.get("links", [])]
    if "dumbbell" in spec:
        n = spec["dumbbell"]["pairs"]
        ends += [("r1", "r2")] + [(f"s{i}", "r1") for i in range(n)] + [("r2", f"d{i}") for i in range(n)]
    out = []
    for _ in range(draw(st.integers(1, 4)) if ends else 0):
        a, b = draw(st.sampled_from(ends))
        c = {"link": f"{a}-{b}"} if draw(st.booleans()) else {"a": a, "b": b}
        c["at"] = draw(times_in(duration * 0.9))
        if draw(st.booleans()):
            c["direction"] = draw(st.sampled_from(["ab", "ba", "both"]))
        kind = draw(st.sampled_from(["delay", "rate", "queue", "loss", "outage", "several"]))
        if kind in ("delay", "several"):
            c["delay"] = draw(delays)
        if kind in ("rate", "several"):
            c["rate"] = draw(rates)
        if kind == "queue":
            c["queue"] = draw(queues)
        if kind in ("loss", "several"):
            c["loss"] = draw(losses)
        if kind == "outage":
            c["state"] = "down"
            if draw(st.booleans()):
                c["queued"] = draw(st.sampled_from(["keep", "drop"]))
        out.append(c)
        if kind == "outage" and draw(st.booleans()):
            up = {k: v for k, v in c.items() if k in ("link", "a", "b", "direction")}
            out.append({**up, "at": round(c["at"] + (duration - c["at"]) / 2, 3), "state": "up"})
    return out


@st.composite
def valid_scenarios(draw) -> dict:
    duration = draw(st.sampled_from([0.5, 1.0, 2.0, 4.0]))
    spec, hosts = draw(topology())
    spec["sim"] = {"duration": duration}
    if draw(st.booleans()):
        spec["sim"]["sample_interval"] = draw(st.sampled_from([0.01, 0.1, "250ms"]))
    if draw(st.booleans()):
        spec["sim"]["drop_trace"] = True
    fl = draw(flows(hosts, duration))
    if fl:
        spec["flows"] = fl
    gens = draw(generators(hosts, duration))
    if gens:
        spec["generators"] = gens
    if spec.get("links") and draw(st.booleans()):
        link = draw(st.sampled_from(spec["links"]))
        spec["pcap"] = [{"a": link["a"], "b": link["b"]}]
    elif "dumbbell" in spec and draw(st.booleans()):
        spec["pcap"] = [{"a": "r1", "b": "r2"}]
    if spec.get("pcap") and draw(st.booleans()):
        spec["pcap"].append({**spec["pcap"][0], "at": "entry"})
    if draw(st.integers(0, 3)) == 0:
        changes = draw(link_changes(spec, duration))
        if changes:
            spec["link_changes"] = changes
    return spec


# ------------------------------------------------------------------ invalid mutations

BAD_VALUES = [
    -1, -1e-9, 0, 2.5, 1e19, 2**64, 1e300, -1e300, 1e-300, float("nan"), float("inf"), float("-inf"),
    "", "x", "-5ms", "1e400s", "10MB/s", "10furlongs", "1e-300bps", "nan", "\x00", "a/b", "../../x", "é" * 200,
    True, None, [], [1, 2], {}, {"zzz": 1}, [[1]], {"dist": "constant", "value": -1},
]


def paths(node, prefix=()):
    """Every (path, value) in a spec, containers included."""
    yield prefix, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from paths(v, prefix + (i,))


def set_path(spec, path, value):
    node = spec
    for p in path[:-1]:
        node = node[p]
    if value is None and isinstance(node, dict):
        del node[path[-1]]
    else:
        node[path[-1]] = value


KENTRIDGE_AND_REORDER = ("kentridge", "reorder", "reorder_ab", "reorder_ba")


def uses(spec: dict, keys=KENTRIDGE_AND_REORDER) -> bool:
    """The spec has one of these fields somewhere (by default: KentRidge or reordering)."""
    return any(p and p[-1] in keys for p, _ in paths(spec))


@st.composite
def mutated_scenarios(draw, within: tuple[str, ...] | None = None) -> tuple[dict, str]:
    """A valid scenario with one field replaced by a suspicious value, a field removed, or an
    unknown field added; and a description of the mutation. With ``within``, a scenario that
    has one of these fields, mutated at it or inside it."""
    base = valid_scenarios() if within is None else valid_scenarios().filter(lambda s: uses(s, within))
    spec = copy.deepcopy(draw(base))
    candidates = [p for p, _ in paths(spec) if p and (within is None or any(k in within for k in p))]
    path = draw(st.sampled_from(candidates))
    how = draw(st.sampled_from(["replace", "replace", "replace", "unknown_key"]))
    if how == "unknown_key":
        parent = spec
        for p in path[:-1]:
            parent = parent[p]
        target = parent[path[-1]] if isinstance(parent[path[-1]], dict) else parent
        if isinstance(target, dict):
            target["zz_unknown"] = 1
            return spec, f"unknown key beside {'.'.join(map(str, path))}"
    value = draw(st.sampled_from(BAD_VALUES))
    set_path(spec, path, copy.deepcopy(value))
    return spec, f"{'.'.join(map(str, path))} = {value!r}"
