"""Scenario generators for the papers' topologies."""
from __future__ import annotations

from tcplab.web import ACCESS_DELAY, WEB_RWND

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


# --------------------------------------------------------------------------- thesis chapter 3 (Sync-TCP)
# The simulation setting of Wu Xiuchao's thesis, §3.5 and Appendix A (SEED-NOTES §2.2 B). The
# readings taken where the thesis is silent are stated in python/tcplab/experiments/sync_tcp.py
# and docs/sync-tcp.md.

#: bytes on the wire of a data packet (1460 payload + 40 header): the thesis's 1500-byte packets
THESIS_PACKET = 1500
THESIS_MSS = THESIS_PACKET - 40
#: cloud hosts' access delays are uniform in this range (s), one draw per host (the web clouds' range)
CLOUD_DELAY = ACCESS_DELAY
#: rate of the fast side and cloud links, as a multiple of the bottleneck's
FAST_FACTOR = 10
#: queues (packets) of the fast links where nothing but a sender's own burst can wait: the
#: directions toward a receiver or carrying ACKs, and cloud hosts' links
SMALL_QUEUE = 1000
CLOUD_QUEUE = 10000


def thesis_bdp(rate_bps: float, delay_s: float, side_s: float = 0.0, include_sides: bool = False,
               packet: int = THESIS_PACKET) -> int:
    """The bandwidth-delay product in packets: C × 2 × `delay_s` (the bottleneck's one-way
    delay; SEED-NOTES's reading, which matches the testbed's "RTPD 50 ms, maximum queueing
    delay 25 ms at 0.5 BDP"), or C × 2 × (delay + 2 × side) with `include_sides` (the
    alternative that counts the side links: 1 Gb/s, 50 + 5 ms → 10 000 packets)."""
    rtt = 2 * (delay_s + (2 * side_s if include_sides else 0.0))
    return max(1, int(round(rate_bps * rtt / (packet * 8))))


def side_for_rtpd(rtpd_s: float, delay_s: float) -> float:
    """The side-link delay (the same on the sender's and the receiver's side) that gives a
    round-trip propagation delay `rtpd_s` = 2 × (delay + 2 × side) across a bottleneck of
    one-way delay `delay_s`."""
    side = (rtpd_s / 2 - delay_s) / 2
    if side < 0:
        raise ValueError(f"rtpd {rtpd_s!r} s is below 2 × the bottleneck delay {delay_s!r} s; allowed: "
                         f"at least {2 * delay_s!r} s")
    return round(side, 9)


def thesis_tcp(cc: str) -> dict:
    """The TCP options of a flow under test: 1500-byte packets, SACK (ns-2 TCP-Linux always
    runs it), an unlimited receive window ("a large socket buffer"), timestamps for every
    algorithm except Sync-TCP, which samples the RTT itself and must not use them (§3.4.2),
    and up to 0.2 ms of random sender processing time (as tests/sync_tcp.rs; it breaks the
    phase effects of a deterministic simulator)."""
    return {"mss": THESIS_MSS, "header": 40, "sack": True, "timestamps": cc != "sync_tcp", "send_jitter": 0.0002}


def thesis_dumbbell(rate_bps: float, delay_s: float, per: float, qsize_bdp: float, flows: list[dict],
                    duration: float, sample: float = 0.1, per_reverse: float | None = None,
                    bdp_include_sides: bool = False, bdp_side_s: float = 0.005) -> dict:
    """The dumbbell of the thesis's Fig. 3.6: S_i → R1 ══ R2 → D_i, with the R1–R2 link the only
    bottleneck (rate `rate_bps`, one-way delay `delay_s`, Bernoulli packet error rate `per` on
    the data direction, `per_reverse` on the ACK direction (default: `per`, both directions),
    a DropTail queue of `qsize_bdp` BDP in each direction whose queueing delay is measured).
    BDP as in `thesis_bdp` (`bdp_include_sides` with `bdp_side_s` for the alternative).

    `flows`: one dict per flow under test with `cc`, `side` (the side-link delay of its pair,
    both sides, s), and optional `start`, `stop`, `cc_params`; pair i is s{i} → d{i}. Side
    links are error-free and `FAST_FACTOR` × faster than the bottleneck. Background traffic is
    added by `add_background`."""
    q = max(2, int(round(qsize_bdp * thesis_bdp(rate_bps, delay_s, bdp_side_s, bdp_include_sides))))
    rev = per if per_reverse is None else per_reverse
    spec = {
        "sim": {"duration": duration, "sample_interval": sample},
        "nodes": [{"name": "r1", "kind": "router"}, {"name": "r2", "kind": "router"}],
        "links": [{"a": "r1", "b": "r2", "rate": rate_bps, "delay": delay_s,
                   "queue": {"type": "droptail", "limit": q}, "loss_ab": per, "loss_ba": rev}],
        "flows": [],
    }
    for i, f in enumerate(flows):
        add_pair(spec, f"s{i}", f"d{i}", "r1", "r2", f["side"], rate_bps, sender_queue(rate_bps, delay_s, f["side"], q))
        spec["flows"].append(test_flow(f, f"s{i}", f"d{i}", i))
    return spec


def test_flow(f: dict, src: str, dst: str, i: int) -> dict:
    flow = {"name": f.get("name", f"{f['cc']}{i}"), "src": src, "dst": dst, "cc": f["cc"],
            "start": f.get("start", 0.0), "tcp": thesis_tcp(f["cc"])}
    if f.get("stop") is not None:
        flow["stop"] = f["stop"]
    if f.get("cc_params"):
        flow["cc_params"] = dict(f["cc_params"])
    return flow


def sender_queue(rate_bps: float, delay_s: float, side_s: float, buffer: int) -> int:
    """The queue of a sender's link toward its router: room for twice the most the flow can
    have in flight (its path's bandwidth-delay product plus the bottleneck buffer), so that the
    bursts of an unpaced window never overflow it."""
    return max(SMALL_QUEUE, 2 * (thesis_bdp(rate_bps, delay_s + 2 * side_s) + buffer))


def add_pair(spec: dict, src: str, dst: str, r_src: str, r_dst: str, side_s: float, rate_bps: float,
             queue_src: int = SMALL_QUEUE) -> None:
    """Hosts `src` (attached to router `r_src`) and `dst` (attached to `r_dst`), each by a fast,
    error-free link of delay `side_s`; `queue_src` packets in the sender's direction toward its
    router, `SMALL_QUEUE` in the others (the data reaches the receiver's 10 × faster link at the
    bottleneck's rate at most)."""
    spec["nodes"] += [{"name": src}, {"name": dst}]
    spec["links"].append({"a": src, "b": r_src, "rate": FAST_FACTOR * rate_bps, "delay": side_s,
                          "queue_ab": queue_src, "queue_ba": SMALL_QUEUE})
    spec["links"].append({"a": dst, "b": r_dst, "rate": FAST_FACTOR * rate_bps, "delay": side_s,
                          "queue": SMALL_QUEUE})


def parking_lot(rate_bps: float, delay_s: float, per: float, qsize_bdp: float, ccs: list[str], duration: float,
                side_s: float = 0.005, middle_delay_s: float = 0.001, sample: float = 0.1,
                starts: list[float] | None = None) -> dict:
    """The parking lot of the thesis's App. A.3 (Fig. A.11 is missing; SEED-NOTES's reading):
    two congested links R1–R2 and R3–R4 (rate `rate_bps`, one-way delay `delay_s`, packet
    error rate `per` both ways, DropTail `qsize_bdp` × C × 2 × delay each), joined by a fast
    link R2–R3 (`middle_delay_s`). Six flows under test, the thesis's flows 1–6 (ours 0–5,
    named p1…p6): flows 1 and 2 go S → R1 → R2 → R3 → R4 → D across both congested links, 3
    and 4 cross only R1–R2 (S at R1, D at R2), 5 and 6 only R3–R4 (S at R3, D at R4). `ccs`:
    the six flows' algorithms."""
    if len(ccs) != 6:
        raise ValueError(f"ccs: {len(ccs)} algorithms; allowed: exactly 6 (the thesis's flows 1-6)")
    q = max(2, int(round(qsize_bdp * thesis_bdp(rate_bps, delay_s))))
    spec = {"sim": {"duration": duration, "sample_interval": sample},
            "nodes": [{"name": r, "kind": "router"} for r in ("r1", "r2", "r3", "r4")],
            "links": [], "flows": []}
    for a, b in (("r1", "r2"), ("r3", "r4")):
        spec["links"].append({"a": a, "b": b, "rate": rate_bps, "delay": delay_s,
                              "queue": {"type": "droptail", "limit": q}, "loss": per})
    spec["links"].append({"a": "r2", "b": "r3", "rate": FAST_FACTOR * rate_bps, "delay": middle_delay_s,
                          "queue": SMALL_QUEUE})
    routes = PARKING_ROUTES
    starts = starts or [0.0] * 6
    for i, cc in enumerate(ccs):
        ra, rb = routes[i]
        hops = 2 if ra == "r1" and rb == "r4" else 1
        add_pair(spec, f"s{i}", f"d{i}", ra, rb, side_s, rate_bps,
                 sender_queue(rate_bps, hops * delay_s + middle_delay_s, side_s, hops * q))
        spec["flows"].append(test_flow({"cc": cc, "start": starts[i], "name": f"p{i + 1}"}, f"s{i}", f"d{i}", i))
    return spec


#: the routers at which each parking-lot flow enters and leaves (flows 1-6 of App. A.3)
PARKING_ROUTES = [("r1", "r4"), ("r1", "r4"), ("r1", "r2"), ("r1", "r2"), ("r3", "r4"), ("r3", "r4")]


def cloud_delays(n: int, seed: int, salt: int = 0) -> list[float]:
    import numpy as np

    rng = np.random.default_rng([seed, 7919, salt])
    return rng.uniform(*CLOUD_DELAY, n).round(6).tolist()


def add_cloud_host(spec: dict, name: str, router: str, delay_s: float, rate_bps: float) -> None:
    spec["nodes"].append({"name": name})
    spec["links"].append({"a": name, "b": router, "rate": FAST_FACTOR * rate_bps, "delay": delay_s,
                          "queue": CLOUD_QUEUE})


def add_background(spec: dict, seed: int, rate_bps: float, left: str = "r1", right: str = "r2", prefix: str = "",
                   voip: int = 10, ftp: int = 10, web_fwd: float = 0.0, web_rev: float = 0.0, web_hosts: int = 8,
                   measure: tuple[float, float] | None = None, ftp_schedule: list[tuple[float, float, int]] | None = None,
                   cbr_bps: float = 0.0, cbr_on_off: dict | None = None, cbr_start: float = 0.0,
                   cbr_stop: float | None = None) -> dict:
    """The thesis's background traffic between two clouds attached to routers `left` (R1,
    the senders' side) and `right` (R2); cloud hosts have fast error-free links with delays
    uniform in [5, 25] ms drawn from `seed`:

    - `voip` bidirectional VoIP calls (G.711-like: 200 B every 20 ms each way), host pairs
      `{prefix}vs{k}` → `{prefix}vd{k}`; with `measure` = (t0, t1) they run over exactly that
      window so their delay, jitter and loss are the window's (a call stopped before the end
      loses only what was dropped);
    - `ftp` legacy FTP flows: NewReno, 1500-byte packets, a 64 KiB receive window
      (`rwnd_bytes`), infinite bulk transfers `{prefix}fs{k}` → `{prefix}fd{k}`; or, with
      `ftp_schedule` = [(start, stop, count), ...], `count` flows active over each interval
      (the hosts are reused across intervals);
    - web traffic, `web_fwd` new connections/s with servers on the left (data flowing
      forward) and `web_rev` the other way (`add_web`; not added while the rates are 0);
    - a CBR UDP flow of `cbr_bps` (App. A.2, A.4) from `{prefix}us` to `{prefix}ud`, with
      `cbr_on_off` (the spec's `on_off`), from `cbr_start` to `cbr_stop`, its delay measured.

    Returns a description of what was added (host names, delays), for the analysis."""
    info = {"voip": [], "ftp": [], "cbr": None, "web": None}
    vd = cloud_delays(2 * voip, seed, 1)
    for k in range(voip):
        s, d = f"{prefix}vs{k}", f"{prefix}vd{k}"
        add_cloud_host(spec, s, left, vd[2 * k], rate_bps)
        add_cloud_host(spec, d, right, vd[2 * k + 1], rate_bps)
        call = {"name": f"{prefix}voip{k}", "src": s, "dst": d, "transport": "voip"}
        t0 = measure[0] if measure else 0.0
        call["start"] = round(t0 + 0.02 * k / max(voip, 1), 6)  # spread the calls' phases over one interval
        if measure:
            call["stop"] = measure[1]
        spec["flows"].append(call)
        info["voip"].append({"name": call["name"], "one_way_prop": vd[2 * k] + vd[2 * k + 1]})
    schedule = ftp_schedule if ftp_schedule is not None else ([(0.0, None, ftp)] if ftp else [])
    hosts = max((c for _, _, c in schedule), default=0)
    fd = cloud_delays(2 * hosts, seed, 2)
    for k in range(hosts):
        add_cloud_host(spec, f"{prefix}fs{k}", left, fd[2 * k], rate_bps)
        add_cloud_host(spec, f"{prefix}fd{k}", right, fd[2 * k + 1], rate_bps)
    n = 0
    for j, (start, stop, count) in enumerate(schedule):
        for k in range(count):
            f = {"name": f"{prefix}ftp{j}.{k}", "src": f"{prefix}fs{k}", "dst": f"{prefix}fd{k}", "cc": "newreno",
                 "start": round(start + 0.01 * k, 6),
                 "tcp": {"mss": THESIS_MSS, "header": 40, "sack": True, "rwnd_bytes": "64KiB"}}
            if stop is not None:
                f["stop"] = stop
            spec["flows"].append(f)
            info["ftp"].append(f["name"])
            n += 1
    if cbr_bps > 0:
        add_cloud_host(spec, f"{prefix}us", left, CLOUD_DELAY[0], rate_bps)
        add_cloud_host(spec, f"{prefix}ud", right, CLOUD_DELAY[0], rate_bps)
        f = {"name": f"{prefix}cbr", "src": f"{prefix}us", "dst": f"{prefix}ud", "transport": "udp",
             "packet": THESIS_PACKET, "rate": cbr_bps, "start": cbr_start, "delay_stats": True}
        if cbr_on_off:
            f["on_off"] = dict(cbr_on_off)
        if cbr_stop is not None:
            f["stop"] = cbr_stop
        spec["flows"].append(f)
        info["cbr"] = f["name"]
    info["web"] = add_web(spec, web_fwd, web_rev, seed, rate_bps, left, right, prefix, web_hosts)
    return info


def add_web(spec: dict, fwd_rate: float, rev_rate: float, seed: int, rate_bps: float, left: str = "r1",
            right: str = "r2", prefix: str = "", hosts: int = 8, start: float = 0.0, stop: float | None = None,
            schedule: list[tuple[float, float, float]] | None = None) -> dict | None:
    """The web load between the two clouds, from the PackMime-HTTP generator (`[[generators]]`
    entries of `kind = "packmime"`, `rate` in new connections/s): the one place where it is
    wired. Forward connections (`fwd_rate`/s, the thesis's 3200) have their
    servers in the left cloud, so that their data crosses the bottleneck forward; reverse ones
    (`rev_rate`, 800) the other way. `schedule` = [(start, stop, fwd_rate), ...] replaces the
    constant forward rate with steps (App. A.5's Table A.2). Nothing is added, and None is
    returned, while every rate is 0 (the quick sizes run without web traffic)."""
    steps = schedule if schedule is not None else [(start, stop, fwd_rate)]
    if all(r <= 0 for _, _, r in steps) and rev_rate <= 0:
        return None
    left_hosts = [f"{prefix}c1.{k}" for k in range(hosts)]
    right_hosts = [f"{prefix}c2.{k}" for k in range(hosts)]
    delays = cloud_delays(2 * hosts, seed, 3)
    for k in range(hosts):
        add_cloud_host(spec, left_hosts[k], left, delays[k], rate_bps)
        add_cloud_host(spec, right_hosts[k], right, delays[hosts + k], rate_bps)
    # 1500-byte packets like the flows under test; a handshake on each connection's first request;
    # ns-2 PackMime's window of 20 packets (tcplab.web.WEB_RWND)
    tcp = {"mss": THESIS_MSS, "header": 40, "handshake": True, "init_cwnd": 2, "rwnd": WEB_RWND}
    gens = []
    for j, (t0, t1, r) in enumerate(steps):
        if r > 0:
            gens.append({"name": f"{prefix}web_fwd{j}", "kind": "packmime", "rate": r, "servers": left_hosts,
                         "clients": right_hosts, "start": t0, "record": "summary", "tcp": tcp,
                         **({"stop": t1} if t1 else {})})
    if rev_rate > 0:
        gens.append({"name": f"{prefix}web_rev", "kind": "packmime", "rate": rev_rate, "servers": right_hosts,
                     "clients": left_hosts, "start": start, "record": "summary", "tcp": tcp,
                     **({"stop": stop} if stop else {})})
    spec.setdefault("generators", []).extend(gens)
    return {"generators": [g["name"] for g in gens], "clients": right_hosts, "servers": left_hosts}
