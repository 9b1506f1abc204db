"""tcplab against ns-2.35, side by side in one run, on the scenarios of the performance issue.

1. Event loop: the thesis-era dumbbell (10 Mb/s, 20 ms, 100-packet buffer, 100 Mb/s / 1 ms
   access links, 1000 B segments, NewReno, an ACK per segment), 1000 s simulated (200 s for
   1000 flows), at 1, 10, 100 and 1000 flows: packets forwarded per second of event loop.
2. Whole process: `tcplab run` of the 100-flow case from the shell against the `ns` process
   (wall time and peak memory).
3. 1 Gb/s: 1500 B packets, 100 ms RTT, a buffer of half the BDP, 16 flows, 1000 s (ns-2
   runs 100 s of it: the loop rate is what is compared).
4. Scale: 10^5 flows on 10^5 host pairs (set-up time, memory per flow) and 10^6 flows
   between one host pair (peak memory), without time series, in the core alone.
5. Instructions and events per forwarded packet (valgrind's callgrind, on the core alone):
   the difference between two simulated durations, so set-up and output cancel. They do
   not move with machine load, unlike the times.

Loop rates are the best of REPEATS runs of each simulator (3; one for 1000 flows, whose ns-2
set-up alone takes a minute), run alternately: on a shared 2-core machine two runs of the
same binary ten minutes apart differed by 20 %, in both simulators.

"Packets forwarded" counts a packet once per link it crosses, in both simulators (a
dumbbell path has 3 links). Writes bench/out/bench.json and bench/out/bench.md; with
--readme it also replaces the table between the bench markers in README.md.
Usage: python bench/bench.py [--quick] [--readme] [--skip-ns2] [--skip-callgrind]
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
CORE_BIN = ROOT / "target" / "release" / "examples" / "dumbbell"  # --core-bin replaces it
README = ROOT / "README.md"
REPEATS = 3
BEGIN, END = "<!-- bench:begin (written by make bench) -->", "<!-- bench:end -->"


def dumbbell(flows: int, duration: float, *, rate="10Mbps", delay="20ms", queue=100, access_delay="1ms",
             access_rate="100Mbps", access_queue=1000, mss=1000, pairs: int | None = None, rwnd=None) -> dict:
    """The benchmark's dumbbell without time series: one flow per host pair, or `flows` flows
    between the first pair when `pairs` is given."""
    from tcplab.scenario import Scenario

    tcp = {"mss": mss, **({"rwnd": rwnd} if rwnd else {})}
    pairs = flows if pairs is None else pairs
    ends = ("s{i}", "d{i}") if pairs == flows else ("s0", "d0")
    return (Scenario(duration=duration, sample_interval=0)
            .dumbbell(pairs, bottleneck=dict(rate=rate, delay=delay, queue=queue),
                      access=dict(rate=access_rate, delay=access_delay, queue=access_queue))
            .flow(src=ends[0], dst=ends[1], count=flows, tcp=tcp)
            .to_dict())


def gigabit(duration: float) -> dict:
    # 1500 B packets (1460 B of payload); RTT 2 x (48 + 2 x 1) ms = 100 ms; BDP 8333 packets.
    bdp = 1e9 * 0.1 / 8 / 1500
    return dumbbell(16, duration, rate="1Gbps", delay="48ms", queue=int(bdp / 2), access_rate="10Gbps",
                    access_queue=20_000, mss=1460, rwnd=100_000)


def measure(cmd: list[str], **kw) -> tuple[str, float, float]:
    """Run `cmd`; (stdout, wall seconds, its peak RSS in MiB). GNU time reports the peak: wait4's
    figure for a child of this process would include this process's own (pandas included),
    which a fork's high-water mark keeps across the exec."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file:
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file.name, *cmd], stdout=subprocess.PIPE,
                           text=True, **kw)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            raise RuntimeError(f"{cmd[0]} failed")
        rss_kb = int(rss_file.read().split()[-1])
    return p.stdout, wall, rss_kb / 1024


def core_run(spec: dict, tmp: Path) -> dict:
    path = tmp / "spec.json"
    path.write_text(json.dumps(spec))
    out, wall, rss = measure([str(CORE_BIN), "--spec", str(path)])
    d = json.loads(out)
    d.update(wall=wall, rss_mb=rss)
    return d


def cli_run(spec: dict, tmp: Path) -> dict:
    from tcplab.scenario import to_toml

    path = tmp / "scenario.toml"
    path.write_text(to_toml(spec))
    out_dir = tmp / "results"
    shutil.rmtree(out_dir, ignore_errors=True)
    tcplab = Path(sys.executable).parent / "tcplab"
    _, wall, rss = measure([str(tcplab), "run", str(path), "--out", str(out_dir)], cwd=tmp)
    return {"wall": wall, "rss_mb": rss}


def ns2_run(spec: dict) -> dict:
    from tcplab.ns2 import run_ns2

    r = run_ns2(spec, 1)
    return {"setup_seconds": r["setup_seconds"], "loop_seconds": r["loop_seconds"],
            "packets_forwarded": int(r["links"]["departures"].sum()), "wall": r["wall_seconds"],
            "rss_mb": r["peak_rss_kb"] / 1024}


def callgrind(spec_a: dict, spec_b: dict, tmp: Path) -> dict:
    """Instructions and events per forwarded packet between two durations of one scenario."""
    rows = []
    for spec in (spec_a, spec_b):
        path, prof = tmp / "cg-spec.json", tmp / "callgrind.out"
        path.write_text(json.dumps(spec))
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={prof}", str(CORE_BIN),
                            "--spec", str(path)], capture_output=True, text=True, check=True)
        total = next(int(line.split()[-1].replace(",", "")) for line in p.stderr.splitlines()
                     if "Collected" in line)
        s = json.loads(p.stdout)
        rows.append((s["packets_forwarded"], s["events"], total))
        prof.unlink()
    (pa, ea, ia), (pb, eb, ib) = rows
    return {"instructions_per_packet": (ib - ia) / (pb - pa), "events_per_packet": (eb - ea) / (pb - pa)}


def event_loop(flow_counts, quick: bool, skip_ns2: bool, skip_cg: bool, tmp: Path) -> list[dict]:
    rows = []
    for n in flow_counts:
        duration = (200.0 if n >= 1000 else 1000.0) / (10 if quick else 1)
        spec = dumbbell(n, duration)
        print(f"event loop: {n} flows, {duration:g} s simulated ...", flush=True)
        reps = 1 if n >= 1000 else REPEATS
        ours, theirs = [], []
        for _ in range(reps):
            ours.append(core_run(spec, tmp))
            if not skip_ns2:
                theirs.append(ns2_run(spec))
        row = {"flows": n, "duration": duration, "repeats": reps,
               "tcplab": max(ours, key=lambda r: r["packets_forwarded"] / r["loop_seconds"])}
        if not skip_ns2:
            row["ns2"] = max(theirs, key=lambda r: r["packets_forwarded"] / r["loop_seconds"])
        if not skip_cg:
            short = 20.0 if n == 1 else 10.0
            row["callgrind"] = callgrind(dumbbell(n, short), dumbbell(n, 2 * short), tmp)
        rows.append(row)
    return rows


def whole_process(quick: bool, skip_ns2: bool, tmp: Path) -> dict:
    spec = dumbbell(100, 100.0 if quick else 1000.0)
    print("whole process: tcplab run, 100 flows ...", flush=True)
    row = {"flows": 100, "duration": spec["sim"]["duration"], "tcplab": cli_run(spec, tmp)}
    if not skip_ns2:
        row["ns2"] = ns2_run(spec)
    return row


def gigabit_run(quick: bool, skip_ns2: bool, tmp: Path) -> dict:
    duration = 100.0 if quick else 1000.0
    print(f"1 Gb/s dumbbell, 16 flows, {duration:g} s simulated ...", flush=True)
    row = {"duration": duration, "tcplab": cli_run(gigabit(duration), tmp),
           "tcplab_core": core_run(gigabit(duration), tmp)}
    if not skip_ns2:
        row["ns2_duration"] = 100.0 if not quick else 10.0
        row["ns2"] = ns2_run(gigabit(row["ns2_duration"]))
    return row


def scale(quick: bool, tmp: Path) -> dict:
    big = 10_000 if quick else 100_000
    print(f"scale: {big} flows on {big} host pairs, and 10^6 flows on one pair ...", flush=True)
    small_run = core_run(dumbbell(1000, 0.001), tmp)
    big_run = core_run(dumbbell(big, 0.001), tmp)
    per_flow_kb = (big_run["rss_mb"] - small_run["rss_mb"]) * 1024 / (big - 1000)
    row = {"pairs": big, "setup_seconds": big_run["setup_seconds"], "rss_mb": big_run["rss_mb"],
           "kb_per_flow": per_flow_kb}
    if not quick:
        million = core_run(dumbbell(1_000_000, 0.001, pairs=1), tmp)
        row["million_one_pair"] = {"rss_mb": million["rss_mb"], "wall": million["wall"]}
    return row


def fmt_rate(x: float) -> str:
    return f"{x / 1e6:.2f} M"


def report(res: dict) -> str:
    date = res["date"]
    L = [f"Measured {date} on {res['machine']} (`make bench`; commit {res['commit']}; {res['build']}).", "",
         "**Event loop** (dumbbell 10 Mb/s, 20 ms, 100-packet buffer, NewReno, 1000 B segments, an ACK per "
         "segment; packets forwarded per second of event loop, each link crossing counted; the best of "
         f"{REPEATS} alternating runs of each simulator, one at 1000 flows):", "",
         "| flows | simulated s | tcplab | ns-2.35 | tcplab / ns-2 | instructions / packet | events / packet | "
         "set-up s, tcplab / ns-2 |",
         "|---|---|---|---|---|---|---|---|"]
    for r in res["event_loop"]:
        t = r["tcplab"]
        rate = t["packets_forwarded"] / t["loop_seconds"]
        ns = r.get("ns2")
        ns_rate = ns["packets_forwarded"] / ns["loop_seconds"] if ns else None
        cg = r.get("callgrind")
        counts = f"{cg['instructions_per_packet']:.0f} | {cg['events_per_packet']:.3f}" if cg else "– | –"
        ns_setup = f"{ns['setup_seconds']:.2f}" if ns else "–"
        L.append(f"| {r['flows']} | {r['duration']:g} | {fmt_rate(rate)} | "
                 f"{fmt_rate(ns_rate) if ns else '–'} | {f'{rate / ns_rate:.1f}×' if ns else '–'} | {counts} | "
                 f"{t['setup_seconds']:.3f} / {ns_setup} |")
    w = res["whole_process"]
    L += ["", "**Whole process** (`tcplab run` from the shell against the `ns` process, 100 flows, "
          f"{w['duration']:g} s simulated):", "",
          "| | wall s | peak memory MiB |", "|---|---|---|",
          f"| tcplab | {w['tcplab']['wall']:.2f} | {w['tcplab']['rss_mb']:.0f} |"]
    if "ns2" in w:
        L += [f"| ns-2.35 | {w['ns2']['wall']:.2f} | {w['ns2']['rss_mb']:.0f} |",
              f"| ns-2 / tcplab | {w['ns2']['wall'] / w['tcplab']['wall']:.1f}× | "
              f"{w['ns2']['rss_mb'] / w['tcplab']['rss_mb']:.2f}× |"]
    g = res["gigabit"]
    core = g["tcplab_core"]
    L += ["", f"**1 Gb/s** (1500 B packets, 100 ms RTT, buffer 0.5 BDP, 16 flows, {g['duration']:g} s simulated): "
          f"`tcplab run` {g['tcplab']['wall']:.1f} s wall, {g['tcplab']['rss_mb']:.0f} MiB; event loop "
          f"{fmt_rate(core['packets_forwarded'] / core['loop_seconds'])}packets/s"]
    if "ns2" in g:
        ns = g["ns2"]
        ns_rate = ns["packets_forwarded"] / ns["loop_seconds"]
        L[-1] += (f"; ns-2.35 ({g['ns2_duration']:g} s simulated) {fmt_rate(ns_rate)}packets/s, "
                  f"tcplab / ns-2 {core['packets_forwarded'] / core['loop_seconds'] / ns_rate:.1f}×")
    L[-1] += "."
    s = res["scale"]
    L += ["", f"**Scale** (core alone, no time series): {s['pairs']} flows on as many host pairs set up in "
          f"{s['setup_seconds']:.2f} s, {s['kb_per_flow']:.1f} KB per flow ({s['rss_mb']:.0f} MiB peak)"]
    if "million_one_pair" in s:
        m = s["million_one_pair"]
        L[-1] += f"; 10^6 flows on one host pair: {m['rss_mb'] / 1024:.2f} GiB peak, {m['wall']:.1f} s in all"
    L[-1] += "."
    return "\n".join(L) + "\n"


def update_readme(text: str) -> None:
    readme = README.read_text()
    if BEGIN not in readme or END not in readme:
        raise SystemExit(f"README.md has no {BEGIN} … {END} block")
    head, rest = readme.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    tmp = README.with_suffix(".md.tmp")
    tmp.write_text(f"{head}{BEGIN}\n{text}{END}{tail}")
    os.replace(tmp, README)


def main() -> int:
    global CORE_BIN
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="a tenth of the simulated time, 10^4 flows for scale")
    ap.add_argument("--readme", action="store_true", help="write the table into README.md")
    ap.add_argument("--skip-ns2", action="store_true")
    ap.add_argument("--skip-callgrind", action="store_true")
    ap.add_argument("--flows", type=int, nargs="+", default=[1, 10, 100, 1000])
    ap.add_argument("--core-bin", type=Path, default=CORE_BIN, help="the core's dumbbell example to time")
    ap.add_argument("--build", default="release build", help="how the core and the extension were built")
    args = ap.parse_args()
    CORE_BIN = args.core_bin.resolve()
    if not Path("/usr/bin/time").exists():
        raise SystemExit("/usr/bin/time is missing (Debian package time)")
    if not CORE_BIN.exists():
        raise SystemExit(f"{CORE_BIN} is missing: cargo build --release --example dumbbell -p tcplab-core")
    skip_cg = args.skip_callgrind or shutil.which("valgrind") is None
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip() or "unknown"
    res = {"date": datetime.date.today().isoformat(), "commit": commit,
           "machine": f"{os.cpu_count()} cores, {os.uname().machine}", "build": args.build}
    with tempfile.TemporaryDirectory(prefix="tcplab-bench-") as t:
        tmp = Path(t)
        res["event_loop"] = event_loop(args.flows, args.quick, args.skip_ns2, skip_cg, tmp)
        res["whole_process"] = whole_process(args.quick, args.skip_ns2, tmp)
        res["gigabit"] = gigabit_run(args.quick, args.skip_ns2, tmp)
        res["scale"] = scale(args.quick, tmp)
    text = report(res)
    print(text)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "bench.json").write_text(json.dumps(res, indent=2))
    (OUT / "bench.md").write_text(text)
    if args.readme:
        update_readme(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
