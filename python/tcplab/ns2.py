"""Run a tcplab scenario in ns-2.35 for validation and benchmarking.

`run_ns2(spec, seed)` takes a (raw or normalised) tcplab spec, writes an ns-2 Tcl script
that builds the same scenario (nodes, duplex links with DropTail queue limits and Bernoulli
error models per direction, one-way TCP agents with TCPSink or TCPSink/DelAck, FTP
sources), runs `ns`, and returns per-flow and per-link tables with tcplab's column names.
The mapping of every option, and every ns-2 behaviour found while validating tcplab, is in
docs/ns2-parity.md.

Two knobs exist for diagnosis (both default to what an ordinary ns-2 script does):

- ``loss_position``: ``"head"`` puts each error model where ``$ns lossmodel`` puts it, at the
  head of the link, before the queue (a lost packet never queues nor uses the link);
  ``"link"`` puts it where ``$ns link-lossmodel`` puts it, after the link (the lost packet was
  queued and transmitted, and is dropped on arrival at the far end).
- ``agent_options``: extra ``Agent/TCP`` instance variables, e.g. ``{"precisionReduce_":
  "false"}``, set on every TCP agent after the mapped options.

And one for comparing like with like:

- ``losses``: ``"ns2"`` (default) draws each lossy direction's losses from an ns-2 RNG
  seeded from the run seed (Bernoulli, like tcplab's, but another realisation);
  ``"tcplab"`` replays tcplab's own realisation for the same seed: an ``ErrorModel/List``
  after the link (where tcplab loses packets) drops exactly the packets, counted in the order
  they leave the link, that tcplab's loss stream for that direction drops
  (``tcplab._core.loss_pattern``). The two simulators then see the same losses (common
  random numbers), and what differs is their TCP; a run's goodput then agrees to about
  0.1 % instead of scattering by several per cent (docs/ns2-parity.md).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pandas as pd

from tcplab.scenario import normalise

AGENTS = {"newreno": "Agent/TCP/Newreno", "reno": "Agent/TCP/Reno", "tahoe": "Agent/TCP"}
# tcplab algorithm -> the Linux 2.6.22 module ns-2.35's TCP-Linux (Agent/TCP/Linux) selects
# with `select_ca`. TCP-Linux always runs with SACK and timestamps.
LINUX_CA = {"cubic_linux": "cubic", "highspeed_linux": "highspeed", "scalable": "scalable", "htcp": "htcp",
            "bic": "bic", "hybla": "hybla", "illinois": "illinois", "veno": "veno",
            "westwood_plus": "westwood", "vegas": "vegas", "yeah": "yeah", "lp": "lp",
            "compound": "compound"}
INT_MAX = 2**31 - 1
LOSS_POSITIONS = ("head", "link")
LOSS_SOURCES = ("ns2", "tcplab")
# ns-2's acknowledgements are 40 bytes (TCPSink's packetSize_), whatever tcplab's ack_size.
NS2_ACK_BYTES = 40


class Ns2Error(RuntimeError):
    pass


def ns_binary() -> str | None:
    return shutil.which("ns")


def _num(x: float) -> str:
    return repr(float(x))


def _int_window(x: float) -> int:
    return max(1, min(int(x), INT_MAX))


def _check_flow(i: int, f: dict) -> None:
    if f.get("transport", "tcp") != "tcp":
        raise Ns2Error(f"flows[{i}]: only TCP flows are translated to ns-2")
    if f["cc"] not in AGENTS and f["cc"] not in LINUX_CA:
        raise Ns2Error(f"flows[{i}].cc: {f['cc']} has no ns-2 counterpart here; allowed: "
                       f"{', '.join([*AGENTS, *LINUX_CA])}")
    if f["cc"] in LINUX_CA and not (f["tcp"]["timestamps"] and f["tcp"].get("sack")):
        raise Ns2Error(f"flows[{i}].tcp: ns-2's TCP-Linux ({f['cc']}) always uses SACK and timestamps; "
                       "set sack = true and timestamps = true")
    if f["switch"]:
        raise Ns2Error(f"flows[{i}].switch: ns-2 cannot switch algorithms")
    if f.get("handoffs"):
        raise Ns2Error(f"flows[{i}].handoffs: ns-2's agents get no handoff notifications")
    t = f["tcp"]
    if t["handshake"]:
        raise Ns2Error(f"flows[{i}].tcp.handshake: ns-2's one-way TCP has no handshake")
    if t["delayed_ack"] and t["delack_count"] != 2:
        raise Ns2Error(f"flows[{i}].tcp.delack_count: ns-2's TCPSink/DelAck acknowledges every 2nd segment only")
    if t.get("sack") and f["cc"] not in ("newreno", "reno", *LINUX_CA):
        raise Ns2Error(f"flows[{i}].tcp.sack: ns-2's Agent/TCP/Sack1 is a Reno/NewReno sender, not {f['cc']}")
    if t.get("ecn") and f["cc"] in LINUX_CA:
        raise Ns2Error(f"flows[{i}].tcp.ecn: ECN is translated for ns-2's own agents only, not for TCP-Linux ({f['cc']})")
    for k in ("dsack", "undo"):
        if t.get(k):
            raise Ns2Error(f"flows[{i}].tcp.{k}: ns-2's agents and sinks have no D-SACK or undo")
    if t.get("pacing", "off") != "off":
        raise Ns2Error(f"flows[{i}].tcp.pacing: ns-2's TCP agents do not pace")
    if t.get("rtt_sample_interval", 0.0) > 0 and not t["timestamps"]:
        raise Ns2Error(f"flows[{i}].tcp.rtt_sample_interval: ns-2's agents time one segment per window")
    if float(t["init_cwnd"]) != int(t["init_cwnd"]):
        raise Ns2Error(f"flows[{i}].tcp.init_cwnd: ns-2's windowInit_ is a whole number of segments")


def _agent(f: dict) -> str:
    if f["cc"] in LINUX_CA:
        return "Agent/TCP/Linux"
    return "Agent/TCP/Sack1" if f["tcp"].get("sack") else AGENTS[f["cc"]]


def _ns2_queue(k: int, d: str, q) -> str:
    """The ns-2 queue class of a link direction's (normalised) queue."""
    if not isinstance(q, dict) or q["type"] == "droptail":
        return "DropTail"
    if q["type"] == "red":
        return "RED"
    raise Ns2Error(f"links[{k}].queue_{d}.type: {q['type']} has no counterpart in ns-2.35; allowed: droptail, red")


def _managed_queue(k: int, d: str, x: int, y: int, q: dict) -> list[str]:
    """The Tcl that sets up a link direction's queue given as a table (droptail or red)."""
    limit = q["limit"]
    if q["type"] == "droptail":
        if limit < 2:
            raise Ns2Error(f"links[{k}].queue_{d}.limit: {limit}; ns-2's DropTail with queue-limit 1 drops every packet")
        return [f"$ns queue-limit $n({x}) $n({y}) {limit}"]
    if limit < 2:
        raise Ns2Error(f"links[{k}].queue_{d}.limit: {limit}; tcplab's RED limit counts the packet in service, "
                       "ns-2's does not: at least 2")
    r = f"red_{k}_{d}"
    flag = lambda v: "true" if v else "false"  # noqa: E731
    return [
        # ns-2's RED drops an arrival that finds `limit` packets waiting; tcplab's limit
        # counts the one being sent as well
        f"$ns queue-limit $n({x}) $n({y}) {limit - 1}",
        f"set {r} [[$ns link $n({x}) $n({y})] queue]",
        # packet mode, the classic RED: every unforced drop may be a mark, forced drops above
        # the drop region (ns-2.35's defaults are byte mode and use_mark_p_ true)
        f"${r} set bytes_ false",
        f"${r} set queue_in_bytes_ false",
        f"${r} set use_mark_p_ false",
        f"${r} set drop_tail_ true",
        f"${r} set thresh_ {_num(q['min_th'])}",
        f"${r} set maxthresh_ {_num(q['max_th'])}",
        f"${r} set q_weight_ {_num(q['q_weight'])}",
        f"${r} set linterm_ {_num(1.0 / q['max_p'])}",
        f"${r} set gentle_ {flag(q['gentle'])}",
        f"${r} set wait_ {flag(q['wait'])}",
        f"${r} set mean_pktsize_ {int(q['mean_pktsize'])}",
        f"${r} set setbit_ {flag(q['ecn'])}",
    ]


def _replayed_losses(spec: dict, seed: int, link: dict, d: str) -> str:
    """tcplab's losses on one link direction for `seed`, as an ErrorModel/List drop list
    covering every packet the direction can carry in the run (duration · rate / the
    smallest packet ns-2 sends)."""
    from tcplab import _core

    smallest = min([NS2_ACK_BYTES] + [f["tcp"]["mss"] + f["tcp"]["header"] for f in spec["flows"]])
    n = int(spec["sim"]["duration"] * link["rate"] / (8 * smallest)) + 1
    lost = _core.loss_pattern(seed, link["a"], link["b"], d, float(link[f"loss_{d}"]), n)
    return " ".join(map(str, lost.tolist()))


def tcl_script(
    spec: dict,
    seed: int,
    loss_position: str | None = None,
    agent_options: dict | None = None,
    losses: str = "ns2",
    cwnd_interval: float | None = None,
) -> str:
    """The ns-2 Tcl script for a normalised spec. ``loss_position`` defaults to ``"head"``,
    or ``"link"`` with ``losses="tcplab"``. ``cwnd_interval`` (seconds) samples every
    agent's ``cwnd_`` and ``ssthresh_`` at that period from time 0 (lines ``CWND t i cwnd
    ssthresh``)."""
    if loss_position is None:
        loss_position = "link" if losses == "tcplab" else "head"
    if losses not in LOSS_SOURCES:
        raise Ns2Error(f"losses: {losses!r}; allowed: {', '.join(LOSS_SOURCES)}")
    if losses == "tcplab" and loss_position != "link":
        raise Ns2Error("losses='tcplab' replays tcplab's losses where tcplab loses packets: loss_position='link'")
    if spec.get("generators"):
        raise Ns2Error("ns-2 translation supports explicit flows only, not generators")
    if spec.get("lans") or any(n.get("tcbi") for n in spec.get("nodes", [])):
        raise Ns2Error("ns-2 translation does not cover lans or tcbi hosts")
    for i, c in enumerate(spec.get("link_changes", [])):
        other = sorted(k for k in ("rate", "queue", "loss", "state") if k in c)
        if other:
            raise Ns2Error(f"link_changes[{i}].{other[0]}: ns-2 translation covers delay changes only")
    if loss_position not in LOSS_POSITIONS:
        raise Ns2Error(f"loss_position: {loss_position!r}; allowed: {', '.join(LOSS_POSITIONS)}")
    lossmodel = "lossmodel" if loss_position == "head" else "link-lossmodel"
    L = [
        "set ns [new Simulator]",
        # The loop's clock starts at the first event: `$ns run` computes the routes first
        # (quadratic in the nodes, the bulk of the run with 2000 nodes), which is set-up.
        '$ns at 0.0 {set t_loop [clock milliseconds]; puts "SETUP_DONE $t_loop"}',
        "global defaultRNG",
        f"$defaultRNG seed {seed % INT_MAX + 1}",
    ]
    node_ids = {}
    for i, n in enumerate(spec["nodes"]):
        node_ids[n["name"]] = i
        L.append(f"set n({i}) [$ns node]")
    L.append("set qms {}")
    for k, l in enumerate(spec["links"]):
        a, b = node_ids[l["a"]], node_ids[l["b"]]
        kinds = [_ns2_queue(k, d, l[f"queue_{d}"]) for d in ("ab", "ba")]
        if kinds == ["DropTail", "DropTail"]:
            L.append(f"$ns duplex-link $n({a}) $n({b}) {_num(l['rate'])} {_num(l['delay'])} DropTail")
        else:
            # a duplex link is these two simplex links, each with its own queue type
            for (x, y), kind in zip(((a, b), (b, a)), kinds):
                L.append(f"$ns simplex-link $n({x}) $n({y}) {_num(l['rate'])} {_num(l['delay'])} {kind}")
        for (x, y, q, p, d) in ((a, b, l["queue_ab"], l["loss_ab"], "ab"), (b, a, l["queue_ba"], l["loss_ba"], "ba")):
            if isinstance(q, dict):
                L += _managed_queue(k, d, x, y, q)
            else:
                if q < 2:
                    # DropTail drops an arrival when waiting + 1 >= limit: with limit 1 every
                    # packet is dropped, even on an idle link.
                    raise Ns2Error(f"links[{k}].queue_{d}: {q}; ns-2's DropTail with queue-limit 1 drops every packet")
                L.append(f"$ns queue-limit $n({x}) $n({y}) {q}")
            c = l.get(f"cost_{d}", 1.0)
            if c != 1.0:
                if c != int(c):
                    raise Ns2Error(f"links[{k}].cost_{d}: {c}; ns-2's static routing takes whole-number costs")
                L.append(f"$ns cost $n({x}) $n({y}) {int(c)}")
            L.append(f"lappend qms [list {k} {x} {y} [$ns monitor-queue $n({x}) $n({y}) \"\"]]")
            if p == 0:
                continue
            if losses == "tcplab":
                drops = _replayed_losses(spec, seed, l, d)
                if not drops:  # nothing lost (an empty list would make ns-2 warn per packet)
                    continue
                L += [
                    f"set em_{k}_{d} [new ErrorModel/List]",
                    f"$em_{k}_{d} unit pkt",
                    f"$em_{k}_{d} droplist {{{drops}}}",
                ]
            else:
                # Each error model draws from its own RNG stream, seeded from the run seed.
                s = (seed * 7919 + k * 31 + (1 if d == "ab" else 2)) % INT_MAX + 1
                L += [
                    f"set rng_{k}_{d} [new RNG]",
                    f"$rng_{k}_{d} seed {s}",
                    f"set rv_{k}_{d} [new RandomVariable/Uniform]",
                    f"$rv_{k}_{d} use-rng $rng_{k}_{d}",
                    f"set em_{k}_{d} [new ErrorModel]",
                    f"$em_{k}_{d} unit pkt",
                    f"$em_{k}_{d} set rate_ {_num(p)}",
                    f"$em_{k}_{d} ranvar $rv_{k}_{d}",
                ]
            L += [
                f"$ns {lossmodel} $em_{k}_{d} $n({x}) $n({y})",
                # Count the error model's drops on their own monitor (left at the link's
                # drop head, they would be mixed into the queue monitor's drops).
                f"set lm_{k}_{d} [new QueueMonitor]",
                f"set ls_{k}_{d} [new SnoopQueue/Drop]",
                f"$ls_{k}_{d} set-monitor $lm_{k}_{d}",
                f"$ls_{k}_{d} target [$ns set nullAgent_]",
                f"$em_{k}_{d} drop-target $ls_{k}_{d}",
                f"set lossmon({k},{x},{y}) $lm_{k}_{d}",
            ]
    dur = spec["sim"]["duration"]
    if cwnd_interval is not None and not (cwnd_interval > 0 and cwnd_interval <= dur):
        raise Ns2Error(f"cwnd_interval: {cwnd_interval!r}; allowed: a period in seconds in (0, duration]")
    for i, f in enumerate(spec["flows"]):
        _check_flow(i, f)
        t = f["tcp"]
        src, dst = node_ids[f["src"]], node_ids[f["dst"]]
        L += [
            f"set tcp({i}) [new {_agent(f)}]",
            f"$tcp({i}) set fid_ {i}",
            f"$tcp({i}) set packetSize_ {t['mss']}",
            f"$tcp({i}) set tcpip_base_hdr_size_ {t['header']}",
            f"$tcp({i}) set windowInit_ {int(t['init_cwnd'])}",
            f"$tcp({i}) set window_ {_int_window(t['rwnd'])}",
            f"$tcp({i}) set numdupacks_ {t['dupthresh']}",
            f"$tcp({i}) set timestamps_ {'true' if t['timestamps'] else 'false'}",
            f"$tcp({i}) set minrto_ {_num(t['min_rto'])}",
            f"$tcp({i}) set maxrto_ {_num(t['max_rto'])}",
            f"$tcp({i}) set rtxcur_init_ {_num(t['initial_rto'])}",
            f"$tcp({i}) set tcpTick_ {_num(t['tick'] if t['tick'] > 0 else 1e-6)}",
            f"$tcp({i}) set maxburst_ 0",
            # ns-2.35 defaults to syn_ true: segment 0 is a 40-byte pseudo-SYN that delays
            # the data by one round trip. tcplab's default has no handshake.
            f"$tcp({i}) set syn_ false",
            f"$tcp({i}) set delay_growth_ false",
            f"$tcp({i}) set singledup_ {1 if t.get('limited_transmit') else 0}",
            f"$tcp({i}) set ecn_ {1 if t.get('ecn') else 0}",
            # ns-2's random send overhead: each packet waits U[0, overhead_] before it goes out.
            f"$tcp({i}) set overhead_ {_num(t.get('send_jitter', 0.0))}",
        ]
        if f["cc"] in LINUX_CA:
            L.append(f"$ns at 0 \"$tcp({i}) select_ca {LINUX_CA[f['cc']]}\"")
        for k, v in (agent_options or {}).items():
            L.append(f"$tcp({i}) set {k} {v}")
        L.append(f"$ns attach-agent $n({src}) $tcp({i})")
        if t["delayed_ack"]:
            L += [
                f"set sink({i}) [new Agent/TCPSink{'/Sack1' if t.get('sack') else ''}/DelAck]",
                f"$sink({i}) set interval_ {_num(t['delack_timeout'])}",
                # ns-2.35 acknowledges segment 0 at once, taking it for a SYN; without the
                # pseudo-SYN (syn_ false) it is the first data segment, whose ACK tcplab
                # delays like any other (as ns-2 did before 2010).
                f"$sink({i}) set SYN_immediate_ack_ false",
            ]
        else:
            L.append(f"set sink({i}) [new Agent/TCPSink{'/Sack1' if t.get('sack') else ''}]")
        if f["cc"] in LINUX_CA:
            L.append(f"$sink({i}) set ts_echo_rfc1323_ true")
        L += [
            f"$ns attach-agent $n({dst}) $sink({i})",
            f"$ns connect $tcp({i}) $sink({i})",
            f"set ftp({i}) [$tcp({i}) attach-app FTP]",
        ]
        # ns-2 resets every agent when the simulation starts, and its reset sets
        # ssthresh_ = window_: an ssthresh_ set in the script before `$ns run` is lost. It is
        # therefore set when the flow starts, just before the first segment.
        ssthresh = min(_int_window(t["init_ssthresh"]), _int_window(t["rwnd"]))
        start_cmds = [f"$tcp({i}) set ssthresh_ {ssthresh}"]
        if f["size"] is not None:
            start_cmds.append(f"$tcp({i}) advanceby {int(f['size'])}")
            L.append(f"set done({i}) -1")
            L.append(f"$tcp({i}) proc done {{}} {{ global done ns; set done({i}) [$ns now] }}")
        else:
            start_cmds.append(f"$ftp({i}) start")
        L.append(f"$ns at {_num(f['start'])} \"{'; '.join(start_cmds)}\"")
        if f["stop"] is not None:
            L.append(f"$ns at {_num(f['stop'])} \"$ftp({i}) stop\"")
    if cwnd_interval is not None:
        # Sampled at k * interval (not by accumulating the period, which drifts in floating
        # point), the instants tcplab's sample_interval uses.
        L += [
            "proc sample_cwnd {k} {",
            "  global ns tcp",
            f"  set t [expr {{$k * {cwnd_interval!r}}}]",
            "  foreach i [lsort -integer [array names tcp]] {",
            '    puts "CWND $t $i [$tcp($i) set cwnd_] [$tcp($i) set ssthresh_]"',
            "  }",
            f"  set next [expr {{($k + 1) * {cwnd_interval!r}}}]",
            f"  if {{$next < {_num(dur)}}} {{ $ns at $next \"sample_cwnd [expr {{$k + 1}}]\" }}",
            "}",
            '$ns at 0.0 "sample_cwnd 0"',
        ]
    # A delay change sets the link's DelayLink `delay_`: ns-2 applies it to the packets whose
    # transmission starts after the change (tcplab: whose transmission ends after it) and,
    # after a decrease, lets later packets overtake earlier ones (tcplab keeps them in order).
    for c in spec.get("link_changes", []):
        a, b = node_ids[c["a"]], node_ids[c["b"]]
        ends = {"ab": [(a, b)], "ba": [(b, a)]}.get(c["direction"], [(a, b), (b, a)])
        for x, y in ends:
            L.append(f"$ns at {_num(c['at'])} \"[[$ns link $n({x}) $n({y})] link] set delay_ {_num(c['delay'])}\"")
    L += [
        "proc finish {} {",
        "  global ns tcp qms t_loop done lossmon",
        "  set t_end [clock milliseconds]",
        '  puts "TIMING [expr {$t_loop}] $t_end"',
        "  foreach i [array names tcp] {",
        "    set d -1; if {[info exists done($i)]} { set d $done($i) }",
        '    puts "FLOW $i [$tcp($i) set ack_] [$tcp($i) set ndatapack_] [$tcp($i) set nrexmitpack_] '
        '[$tcp($i) set nrexmit_] [$tcp($i) set ncwndcuts_] $d [$tcp($i) set cwnd_] [$tcp($i) set ssthresh_]"',
        "  }",
        "  foreach q $qms {",
        "    set m [lindex $q 3]",
        "    set key [lindex $q 0],[lindex $q 1],[lindex $q 2]",
        "    set lost 0; if {[info exists lossmon($key)]} { set lost [$lossmon($key) set pdrops_] }",
        '    puts "LINK [lindex $q 0] [lindex $q 1] [lindex $q 2] [$m set parrivals_] [$m set pdepartures_] '
        '[$m set pdrops_] [$m set pkts_] $lost [[$m get-pkts-integrator] set sum_]"',
        "  }",
        # The process's own peak memory: wait4's figure also counts the Python process it
        # was forked from (its high-water mark survives the exec).
        "  set hwm -1",
        "  if {![catch {open /proc/self/status} fh]} {",
        '    foreach l [split [read $fh] "\\n"] { if {[string match VmHWM:* $l]} { set hwm [lindex $l 1] } }',
        "    close $fh",
        "  }",
        '  puts "PEAK_KB $hwm"',
        "  exit 0",
        "}",
        f"$ns at {_num(dur)} \"finish\"",
        "$ns run",
    ]
    return "\n".join(L) + "\n"


def run_ns2(
    spec,
    seed: int = 1,
    workdir: str | os.PathLike | None = None,
    loss_position: str | None = None,
    agent_options: dict | None = None,
    losses: str = "ns2",
    cwnd_interval: float | None = None,
) -> dict:
    """Run `spec` in ns-2. Returns {"flows": DataFrame, "links": DataFrame, "setup_seconds",
    "loop_seconds", "wall_seconds", "peak_rss_kb"}, and with ``cwnd_interval`` (seconds)
    "cwnd": a DataFrame (time, flow, cwnd, ssthresh) of every agent's window sampled at that
    period, as tcplab's ``flow_ts`` with ``sim.sample_interval``.

    ``setup_seconds`` runs from starting ``ns`` to its first event (interpreter start,
    scenario building, and the routes `$ns run` computes before it starts the scheduler),
    ``loop_seconds`` from there to the end of the simulated
    time, both measured inside the Tcl script; ``peak_rss_kb`` is the ns process's own peak
    resident set size (VmHWM at the end of the run; wait4's figure where /proc is missing).

    ``loss_position`` defaults to ``"head"``, or ``"link"`` with ``losses="tcplab"``."""
    if loss_position is None:
        loss_position = "link" if losses == "tcplab" else "head"
    ns = ns_binary()
    if ns is None:
        raise Ns2Error("ns-2 is not installed (Debian package ns2)")
    spec = normalise(spec)
    script = tcl_script(spec, seed, loss_position=loss_position, agent_options=agent_options, losses=losses,
                        cwnd_interval=cwnd_interval)
    own_dir = workdir is None
    wd = Path(tempfile.mkdtemp(prefix="tcplab-ns2-")) if own_dir else Path(workdir)
    try:
        path = wd / "scenario.tcl"
        path.write_text(script)
        out_path, err_path = wd / "stdout", wd / "stderr"
        t0 = time.time()
        with open(out_path, "w") as o, open(err_path, "w") as e:
            proc = subprocess.Popen([ns, str(path)], stdout=o, stderr=e, cwd=wd)
            # wait4 reaps the child and gives its own resource usage (peak RSS).
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.time() - t0
        if proc.returncode != 0:
            raise Ns2Error(f"ns exited with {proc.returncode}: {err_path.read_text().strip()[-2000:]}")
        result = _parse(out_path.read_text(), spec, t0, wall, usage.ru_maxrss, loss_position)
        if cwnd_interval is None:
            del result["cwnd"]
        return result
    finally:
        if own_dir:
            shutil.rmtree(wd, ignore_errors=True)


_KEYWORDS = ("SETUP_DONE", "PEAK_KB", "TIMING", "FLOW", "LINK", "CWND")


def _parse(out: str, spec: dict, t0: float, wall: float, peak_kb: int, loss_position: str) -> dict:
    flows, links, cwnd = [], [], []
    setup_ms = loop_start = loop_end = None
    for line in out.splitlines():
        if line.startswith("TCP-LP:"):
            # TCP-LP's module prints a debug line per ACK (pr_debug is printf in ns-2) through
            # C's stdout buffer, which flushes in blocks: a fragment may precede our output.
            at = [line.find(k) for k in _KEYWORDS if k in line]
            line = line[min(at):] if at else ""
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "SETUP_DONE":
            setup_ms = int(parts[1])
        elif parts[0] == "PEAK_KB" and int(parts[1]) > 0:
            peak_kb = int(parts[1])
        elif parts[0] == "TIMING":
            loop_start, loop_end = int(parts[1]), int(parts[2])
        elif parts[0] == "FLOW":
            i = int(parts[1])
            f = spec["flows"][i]
            # ns-2's ack_ is the highest segment acknowledged in order (segments count from 0).
            delivered = int(parts[2]) + 1
            timeouts, cuts = int(parts[5]), int(parts[6])
            done = float(parts[7])
            start = f["start"]
            end = done if done >= 0 else spec["sim"]["duration"]
            flows.append(
                dict(
                    flow=i,
                    name=f["name"],
                    src=f["src"],
                    dst=f["dst"],
                    cc=f["cc"],
                    delivered_segments=delivered,
                    delivered_bytes=delivered * f["tcp"]["mss"],
                    segments_sent=int(parts[3]),
                    retransmits=int(parts[4]),
                    timeouts=timeouts,
                    # every window cut is a fast retransmit or a timeout (no ECN here)
                    fast_retransmits=max(cuts - timeouts, 0),
                    window_cuts=cuts,
                    completion_time=(done - start) if done >= 0 else float("nan"),
                    goodput_bps=delivered * f["tcp"]["mss"] * 8 / (end - start) if end > start else 0.0,
                    final_cwnd=float(parts[8]),
                    final_ssthresh=float(parts[9]),
                )
            )
        elif parts[0] == "CWND":
            cwnd.append((float(parts[1]), int(parts[2]), float(parts[3]), float(parts[4])))
        elif parts[0] == "LINK":
            k, x, y = int(parts[1]), int(parts[2]), int(parts[3])
            p_arr, p_dep, drops_queue, waiting, drops_loss = (int(v) for v in parts[4:9])
            # the time integral of the packets waiting (not the one being sent)
            waiting_integral = float(parts[9])
            # The queue monitor counts packets entering the queue (after a head error
            # model), leaving it for the transmitter, and dropped by it. tcplab counts as
            # arrivals every packet offered to the link, lost ones included.
            arrivals = p_arr + drops_loss if loss_position == "head" else p_arr
            links.append(
                dict(
                    link=k,
                    src=spec["nodes"][x]["name"],
                    dst=spec["nodes"][y]["name"],
                    arrivals=arrivals,
                    departures=p_dep,
                    drops_queue=drops_queue,
                    drops_loss=drops_loss,
                    drops=drops_queue + drops_loss,
                    waiting=waiting,
                    mean_waiting=waiting_integral / spec["sim"]["duration"],
                )
            )
    if loop_start is None:
        raise Ns2Error("ns-2 output had no timing line; the script did not finish")
    return {
        "flows": pd.DataFrame(flows).sort_values("flow").reset_index(drop=True),
        "links": pd.DataFrame(links),
        "cwnd": pd.DataFrame(cwnd, columns=["time", "flow", "cwnd", "ssthresh"]),
        "setup_seconds": (setup_ms / 1000.0 - t0) if setup_ms else float("nan"),
        "loop_seconds": (loop_end - loop_start) / 1000.0,
        "wall_seconds": wall,
        "peak_rss_kb": peak_kb,
    }
