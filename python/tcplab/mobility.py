"""Mobility generators: the handoff sequences of the thesis's testbed (Wu Xiuchao, chapter 2,
§2.6 and Table 2.2), drawn from a seed and expanded into the scenario before the run.

A :class:`Mobility` is a sequence of wireless cells separated by outages. It becomes

- the wireless hop's ``[[link_changes]]`` (:meth:`Mobility.link_changes`): at each outage's start
  the hop goes down in both directions with its queued packets dropped (the base station's
  buffer belongs to the cell the host leaves; the thesis's handoff emulator does not say, and a
  packet held across a 3–10 s outage would arrive after the sender's retransmission anyway);
  at its end it comes up with the new cell's per-user rate and one-way delay;
- the flow's ``handoffs`` records (:meth:`Mobility.handoff_records`): ``at`` = reconnection,
  ``bandwidth`` = the new cell's per-user rate, ``disconnect`` = the outage's start, so that the
  mobile host is told (TCP-HO's notification, Freeze-TCP's zero window).

Python rather than Rust: a schedule is a few hundred records drawn once per run, and having it in
the spec makes the run reproducible from its normalised spec alone and lets the analysis read
the handoff classes without re-drawing.

Readings (SEED-NOTES §2.1 B, each ⚠ there):

- dwell times are exponential with the thesis's mean (WCDMA 50 s, WLAN 12 s; in WCDMA&WLAN
  WCDMA 20 s, WLAN 8 s); outages have the fixed length of the thesis (WCDMA 3 s, WLAN 10 s;
  Table 2.2's per-transition times in WCDMA&WLAN);
- a WLAN cell is "large" (9 or 10 users, uniform) or "small" (1 or 2) with probability 0.5
  each; its per-user rate is 7 Mb/s / users. WCDMA gives 200 kb/s per user;
- one-way wireless delay WCDMA 150 ms, WLAN 5 ms; the wireless buffer is 20 packets;
- the run starts in a cell of the first technology listed (WCDMA for WCDMA and WCDMA&WLAN)
  at time 0 with a fresh dwell; the last cell is cut at the end of the run, and an outage that
  runs past the end gives a link change down but no handoff record (no reconnection).

Handoff classes (Fig. 2.1, Table 2.1) by the bandwidth-delay products of the old and the new
path, b = per-user rate × (2 × (WAN one-way delay + wireless one-way delay)) in segments of
``mss`` bytes: U-VH when b_new ≥ ``VH_RATIO`` × b_old, D-VH when b_old ≥ ``VH_RATIO`` × b_new,
otherwise H-HH when both are ≥ ``HIGH_BDP`` segments and L-HH when not. ``VH_RATIO`` = 3 and
``HIGH_BDP`` = 20 segments (the wireless buffer: a window above it is what a slow start from
one segment takes several round trips to reach) are our choices; the thesis gives none.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

WCDMA, WLAN = "WCDMA", "WLAN"

WCDMA_RATE = 200e3  # b/s per user (2 Mb/s shared by 10 users)
WLAN_SHARED = 7e6  # b/s (802.11b effective rate), shared by the cell's users
WLAN_LARGE = (9, 10)
WLAN_SMALL = (1, 2)
P_LARGE = 0.5
DELAY = {WCDMA: 0.150, WLAN: 0.005}  # one-way wireless delay, s
QUEUE = 20  # packets, wireless buffer

VH_RATIO = 3.0
HIGH_BDP = 20.0  # segments
KINDS = ("L-HH", "H-HH", "U-VH", "D-VH")

#: Table 2.2 (WCDMA&WLAN): from -> {to: (probability, outage s)}.
TABLE_2_2 = {
    WCDMA: {WCDMA: (0.33, 3.0), WLAN: (0.67, 5.0)},
    WLAN: {WCDMA: (0.9, 5.0), WLAN: (0.1, 10.0)},
}

#: The three mobility scenarios: technologies' mean dwell (s), transitions, duration (s).
SCENARIOS = {
    "wcdma": {"dwell": {WCDMA: 50.0}, "transitions": {WCDMA: {WCDMA: (1.0, 3.0)}}, "duration": 1800.0},
    "wlan": {"dwell": {WLAN: 12.0}, "transitions": {WLAN: {WLAN: (1.0, 10.0)}}, "duration": 900.0},
    "wcdma_wlan": {"dwell": {WCDMA: 20.0, WLAN: 8.0}, "transitions": TABLE_2_2, "duration": 1200.0},
}


class MobilityError(ValueError):
    pass


@dataclass(frozen=True)
class Cell:
    tech: str
    start: float  # s: when the host is connected to it
    end: float  # s: when it leaves it (the next outage's start, or the end of the run)
    rate: float  # b/s per user
    delay: float  # one-way, s
    users: int


@dataclass(frozen=True)
class Handoff:
    disconnect: float
    at: float  # reconnection
    old: Cell
    new: Cell
    kind: str  # L-HH | H-HH | U-VH | D-VH


@dataclass
class Mobility:
    name: str
    seed: int
    duration: float
    wan_delay: float
    mss: int
    cells: list[Cell]
    handoffs: list[Handoff] = field(default_factory=list)
    #: an outage still under way at the end: its start (link down, no reconnection)
    final_outage: float | None = None

    def link_changes(self, link: str) -> list[dict]:
        out = []
        for h in self.handoffs:
            out.append({"link": link, "at": h.disconnect, "state": "down", "queued": "drop"})
            out.append({"link": link, "at": h.at, "rate": h.new.rate, "delay": h.new.delay, "state": "up"})
        if self.final_outage is not None:
            out.append({"link": link, "at": self.final_outage, "state": "down", "queued": "drop"})
        return out

    def handoff_records(self) -> list[dict]:
        return [{"at": h.at, "bandwidth": h.new.rate, "disconnect": h.disconnect} for h in self.handoffs]

    def first(self) -> Cell:
        return self.cells[0]

    def kinds(self) -> dict[str, int]:
        return {k: sum(h.kind == k for h in self.handoffs) for k in KINDS}

    def outage_time(self) -> float:
        total = sum(h.at - h.disconnect for h in self.handoffs)
        if self.final_outage is not None:
            total += self.duration - self.final_outage
        return total


def bdp_segments(cell: Cell, wan_delay: float, mss: int) -> float:
    return cell.rate * 2 * (wan_delay + cell.delay) / 8 / mss


def classify(old: Cell, new: Cell, wan_delay: float, mss: int = 1500) -> str:
    b_old, b_new = bdp_segments(old, wan_delay, mss), bdp_segments(new, wan_delay, mss)
    if b_new >= VH_RATIO * b_old:
        return "U-VH"
    if b_old >= VH_RATIO * b_new:
        return "D-VH"
    return "H-HH" if min(b_old, b_new) >= HIGH_BDP else "L-HH"


def _users(rng: np.random.Generator) -> int:
    pool = WLAN_LARGE if rng.random() < P_LARGE else WLAN_SMALL
    return int(pool[int(rng.integers(len(pool)))])


def _cell_params(tech: str, rng: np.random.Generator) -> tuple[float, float, int]:
    if tech == WCDMA:
        return WCDMA_RATE, DELAY[WCDMA], 10
    users = _users(rng)
    return WLAN_SHARED / users, DELAY[WLAN], users


def generate(name: str, seed: int, duration: float | None = None, wan_delay: float = 0.010,
             mss: int = 1500) -> Mobility:
    """The handoff sequence of mobility scenario `name` ("wcdma", "wlan", "wcdma_wlan") for
    `seed`; `duration` defaults to the thesis's (30, 15, 20 min); `wan_delay` (one-way, s) and
    `mss` (bytes) only set the handoff classes."""
    if name not in SCENARIOS:
        raise MobilityError(f"mobility: {name!r} is not a scenario; allowed: {', '.join(SCENARIOS)}")
    sc = SCENARIOS[name]
    duration = float(sc["duration"] if duration is None else duration)
    if not duration > 0:
        raise MobilityError(f"mobility {name}: duration {duration!r} must be > 0")
    rng = np.random.default_rng(seed)
    tech = next(iter(sc["dwell"]))
    rate, delay, users = _cell_params(tech, rng)
    start = 0.0
    cells, handoffs, final = [], [], None
    while True:
        leave = start + rng.exponential(sc["dwell"][tech])
        if leave >= duration:
            cells.append(Cell(tech, start, duration, rate, delay, users))
            break
        cell = Cell(tech, start, leave, rate, delay, users)
        cells.append(cell)
        options = sc["transitions"][tech]
        targets = list(options)
        probs = np.array([options[t][0] for t in targets], dtype=float)
        nxt = targets[int(rng.choice(len(targets), p=probs / probs.sum()))]
        outage = options[nxt][1]
        n_rate, n_delay, n_users = _cell_params(nxt, rng)
        back = leave + outage
        if back >= duration:
            final = leave
            break
        new = Cell(nxt, back, duration, n_rate, n_delay, n_users)  # end fixed below
        handoffs.append(Handoff(leave, back, cell, new, classify(cell, new, wan_delay, mss)))
        tech, rate, delay, users, start = nxt, n_rate, n_delay, n_users, back
    # the handoffs' `new` cells were made before their end was drawn: point them at the cells
    handoffs = [Handoff(h.disconnect, h.at, cells[i], cells[i + 1], h.kind) for i, h in enumerate(handoffs)]
    return Mobility(name, seed, duration, wan_delay, mss, cells, handoffs, final)


def transition_counts(m: Mobility) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for h in m.handoffs:
        key = (h.old.tech, h.new.tech)
        out[key] = out.get(key, 0) + 1
    return out


#: Web background (SURGE-like, our reading): each of `web_users` users fetches a file, reads for
#: a Pareto time (shape 1.5, scale 1 s: mean 3 s), fetches the next; file sizes Pareto
#: (shape 1.2, scale 4 segments: mean 24 segments, 36 kB). The `closed` generator is used, not
#: PackMime: SURGE's users are closed loops, PackMime's connection arrivals are open-loop.
WEB_SIZE = {"dist": "pareto", "shape": 1.2, "scale": 4.0}
WEB_THINK = {"dist": "pareto", "shape": 1.5, "scale": 1.0}


def testbed(m: Mobility, cc: str, wan_delay: float | None = None, cross: bool = True, web_users: int = 10,
            bandwidth_error: float = 0.0, sample_interval: float = 0.0, min_rto: float = 1.0,
            pcap: bool = False) -> dict:
    """The thesis's testbed (Fig. 2.6) as a scenario: server and cross/web sources — r1 —
    WAN (10 Mb/s, `wan_delay` one-way, 20 packets) — r2 (base station) — wireless hop to the
    mobile host "mh" driven by `m`; the cross flow (NewReno) and the web traffic cross the
    WAN to sinks beside r2. The flow under test is flow 0 ("test"), the cross flow flow 1.
    `min_rto` 1 s as FreeBSD 5.4's (RFC 2988); 1500-byte segments."""
    d = m.wan_delay if wan_delay is None else wan_delay
    first = m.first()
    links = [
        {"a": "server", "b": "r1", "rate": "100Mbps", "delay": "0.5ms", "queue": 1000},
        {"a": "xsrc", "b": "r1", "rate": "100Mbps", "delay": "0.5ms", "queue": 1000},
        {"a": "wsrc", "b": "r1", "rate": "100Mbps", "delay": "0.5ms", "queue": 1000},
        {"a": "r1", "b": "r2", "rate": "10Mbps", "delay": d, "queue": QUEUE},
        {"a": "r2", "b": "mh", "rate": first.rate, "delay": first.delay, "queue": QUEUE},
        {"a": "r2", "b": "xdst", "rate": "100Mbps", "delay": "0.5ms", "queue": 1000},
        {"a": "r2", "b": "wdst", "rate": "100Mbps", "delay": "0.5ms", "queue": 1000},
    ]
    tcp = {"mss": m.mss - 40, "min_rto": min_rto}
    test = {"name": "test", "src": "server", "dst": "mh", "cc": cc, "tcp": dict(tcp)}
    if m.handoffs:
        test["handoffs"] = m.handoff_records()
        if bandwidth_error:
            test["bandwidth_error"] = bandwidth_error
    flows = [test]
    if cross:
        flows.append({"name": "cross", "src": "xsrc", "dst": "xdst", "cc": "newreno", "tcp": dict(tcp)})
    spec = {
        "sim": {"duration": m.duration, "sample_interval": sample_interval},
        "nodes": [{"name": n} for n in ("server", "xsrc", "wsrc", "r1", "r2", "mh", "xdst", "wdst")],
        "links": links,
        "link_changes": m.link_changes("r2-mh"),
        "flows": flows,
    }
    if web_users:
        spec["generators"] = [{"name": "web", "kind": "closed", "src": "wsrc", "dst": "wdst", "count": web_users,
                               "size": WEB_SIZE, "size_unit": "segments", "think": WEB_THINK,
                               "record": "summary", "cc": "newreno", "tcp": dict(tcp)}]
    if pcap:
        spec["pcap"] = [{"a": "server", "b": "r1", "at": "entry"}, {"a": "r1", "b": "server"}]
    return spec


def scripted(cells: list[tuple[str, int, float, float]], wan_delay: float = 0.05, mss: int = 1500,
             name: str = "scripted") -> Mobility:
    """A hand-written sequence: each cell as (technology, users, dwell s, outage s after it; the
    last cell's outage is ignored). Rates and delays as in the generated scenarios."""
    out, handoffs, t = [], [], 0.0
    for i, (tech, users, dwell, outage) in enumerate(cells):
        rate = WCDMA_RATE if tech == WCDMA else WLAN_SHARED / users
        out.append(Cell(tech, t, t + dwell, rate, DELAY[tech], users))
        t += dwell + (outage if i + 1 < len(cells) else 0.0)
    for a, b in zip(out, out[1:]):
        handoffs.append(Handoff(a.end, b.start, a, b, classify(a, b, wan_delay, mss)))
    return Mobility(name, 0, out[-1].end, wan_delay, mss, out, handoffs)
