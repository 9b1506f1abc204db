"""Split a scenario into independent groups of flows and simulate the groups separately
(Qiu, Zhang, Keshav section 2.2: connections that share no link cannot affect each other).

Flows are grouped when their packets (data or ACKs) cross a common link. Each group becomes
a scenario of its own with the nodes and links its flows use; because random streams are
keyed by component names and routes are kept, every flow gets exactly the results it gets
in the undivided run.
"""
from __future__ import annotations

import concurrent.futures as cf
from collections import deque

import pandas as pd

from tcplab.results import Results, run
from tcplab.scenario import normalise


def _adjacency(spec: dict) -> dict:
    # The same neighbour order as the core's router: per link, a→b into a, b→a into b.
    adj: dict[str, list[tuple[str, int]]] = {n["name"]: [] for n in spec["nodes"]}
    for i, l in enumerate(spec["links"]):
        adj[l["a"]].append((l["b"], i))
        adj[l["b"]].append((l["a"], i))
    return adj


def _path_links(adj: dict, src: str, dst: str) -> list[int]:
    prev: dict[str, tuple[str, int]] = {}
    seen = {src}
    q = deque([src])
    while q:
        u = q.popleft()
        if u == dst:
            out = []
            while u != src:
                u, link = prev[u]
                out.append(link)
            return out
        for v, link in adj[u]:
            if v not in seen:
                seen.add(v)
                prev[v] = (u, link)
                q.append(v)
    raise ValueError(f"no route from {src} to {dst}")


def components(spec) -> list[dict]:
    """The independent sub-scenarios of `spec` (flows only; generators are not split)."""
    spec = normalise(spec)
    if spec.get("generators"):
        raise ValueError("decomposition supports explicit flows only")
    if spec.get("lans") or any(n.get("tcbi") for n in spec["nodes"]):
        raise ValueError("decomposition does not support lans or tcbi hosts (they couple flows)")
    if spec.get("link_changes"):
        raise ValueError("decomposition does not support link_changes")
    adj = _adjacency(spec)
    flows = spec["flows"]
    links_of = [set(_path_links(adj, f["src"], f["dst"])) | set(_path_links(adj, f["dst"], f["src"])) for f in flows]
    parent = list(range(len(flows)))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    owner: dict[int, int] = {}
    for i, ls in enumerate(links_of):
        for link in ls:
            if link in owner:
                parent[find(i)] = find(owner[link])
            else:
                owner[link] = i
    groups: dict[int, list[int]] = {}
    for i in range(len(flows)):
        groups.setdefault(find(i), []).append(i)
    out = []
    for members in sorted(groups.values()):
        used = sorted(set().union(*(links_of[i] for i in members)))
        names = {spec["links"][k]["a"] for k in used} | {spec["links"][k]["b"] for k in used}
        sub = {
            "sim": spec["sim"],
            "nodes": [n for n in spec["nodes"] if n["name"] in names],
            "links": [spec["links"][k] for k in used],
            "flows": [flows[i] for i in members],
        }
        if spec.get("pcap"):
            sub["pcap"] = [c for c in spec["pcap"] if c["a"] in names and c["b"] in names]
        out.append(sub)
    return out


def _run_one(args):
    sub, seed = args
    return run(sub, seed=seed)


def run_decomposed(spec, seed: int = 1, jobs: int | None = None) -> Results:
    """Run the independent groups of `spec` in parallel processes and merge their results.
    Flow and link indices refer to the undivided spec."""
    full = normalise(spec)
    subs = components(full)
    if jobs == 1 or len(subs) == 1:
        parts = [_run_one((s, seed)) for s in subs]
    else:
        with cf.ProcessPoolExecutor(max_workers=jobs) as ex:
            parts = list(ex.map(_run_one, [(s, seed) for s in subs]))
    flow_index = {f["name"]: i for i, f in enumerate(full["flows"])}
    link_index = {}
    for i, l in enumerate(full["links"]):
        link_index[(l["a"], l["b"])] = 2 * i
        link_index[(l["b"], l["a"])] = 2 * i + 1

    def remap_flows(r: Results, df: pd.DataFrame) -> pd.DataFrame:
        ids = dict(zip(r.flows["flow"], r.flows["name"].map(flow_index)))
        return df.assign(flow=df["flow"].map(ids).astype("int64"))

    def remap_links(r: Results, df: pd.DataFrame) -> pd.DataFrame:
        ids = {row.link: link_index[(row.src, row.dst)] for row in r.links.itertuples()}
        return df.assign(link=df["link"].map(ids).astype("int64"))

    def cat(frames, key):
        frames = [f for f in frames if len(f)]
        if not frames:
            return parts[0].__getattribute__(key).iloc[0:0]
        out = pd.concat(frames, ignore_index=True)
        sort = [c for c in ("time", "flow", "link") if c in out.columns]
        return out.sort_values(sort, kind="stable").reset_index(drop=True)

    flows = cat([remap_flows(r, r.flows) for r in parts], "flows")
    links = cat([remap_links(r, r.links) for r in parts], "links")
    summary = dict(parts[0].summary)
    summary.update(
        spec=full,
        events=sum(r.summary["events"] for r in parts),
        loop_seconds=sum(r.summary["loop_seconds"] for r in parts),
        setup_seconds=sum(r.summary["setup_seconds"] for r in parts),
        packets_forwarded=sum(r.summary["packets_forwarded"] for r in parts),
        components=len(parts),
    )
    return Results(
        flows=flows,
        links=links,
        flow_ts=cat([remap_flows(r, r.flow_ts) for r in parts], "flow_ts"),
        link_ts=cat([remap_links(r, r.link_ts) for r in parts], "link_ts"),
        events=cat([remap_flows(r, r.events) for r in parts], "events"),
        summary=summary,
        pcaps={k: v for r in parts for k, v in r.pcaps.items()},
    )
