"""tcplab against ns-2.35 on the same dumbbell scenarios, side by side.

Prints wall time (set-up, event loop, total), peak memory, packets carried per wall-second
and the tcplab/ns-2 ratios; writes bench/out/bench.json and bench/out/bench.md.
Usage: python bench/bench.py [--flows 100 1000] [--duration 60]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

OUT = Path(__file__).resolve().parent / "out"


def scenario(flows: int, duration: float) -> dict:
    return {
        "sim": {"duration": duration},
        "dumbbell": {
            "pairs": flows,
            "bottleneck": {"rate": "100Mbps", "delay": "20ms", "queue": 500},
            "access": {"rate": "1Gbps", "delay": "1ms", "queue": 10000},
        },
        "flows": [{"src": "s{i}", "dst": "d{i}", "count": flows, "tcp": {"rwnd": 10000}}],
    }


CHILD = """
import json, sys, time
t0 = time.time()
import tcplab
spec = json.loads(sys.argv[1])
r = tcplab.run(spec, seed=1)
s = r.summary
print(json.dumps({"setup": s["setup_seconds"], "loop": s["loop_seconds"], "packets": s["packets_forwarded"],
                  "events": s["events"], "goodput": float(r.flows["goodput_bps"].sum())}))
"""


def run_tcplab(spec: dict) -> dict:
    t0 = time.time()
    p = subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(spec)], stdout=subprocess.PIPE, text=True)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("tcplab run failed")
    d = json.loads(out)
    d["wall"] = time.time() - t0
    d["rss_mb"] = usage.ru_maxrss / 1024
    return d


def run_ns2(spec: dict) -> dict:
    from tcplab.ns2 import run_ns2 as ns2

    r = ns2(spec, 1)
    links = r["links"]
    return {
        "setup": r["setup_seconds"],
        "loop": r["loop_seconds"],
        "packets": int(links["departures"].sum()),
        "wall": r["wall_seconds"],
        "rss_mb": r["peak_rss_kb"] / 1024,
        "goodput": float(r["flows"]["goodput_bps"].sum()),
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--flows", type=int, nargs="+", default=[100, 1000])
    ap.add_argument("--duration", type=float, default=60.0)
    args = ap.parse_args()
    rows = []
    for n in args.flows:
        spec = scenario(n, args.duration)
        print(f"dumbbell, {n} NewReno flows, 100 Mb/s bottleneck, {args.duration:g} s simulated ...", flush=True)
        t = run_tcplab(spec)
        ns = run_ns2(spec)
        rows.append({"flows": n, "tcplab": t, "ns2": ns})
    lines = [
        "| flows | simulator | set-up s | event loop s | total wall s | peak RSS MB | packets forwarded | packets / wall-s | goodput Mb/s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        for name in ("tcplab", "ns2"):
            m = r[name]
            lines.append(
                f"| {r['flows']} | {name} | {m['setup']:.3f} | {m['loop']:.3f} | {m['wall']:.2f} | {m['rss_mb']:.0f} | "
                f"{m['packets']} | {m['packets'] / m['wall']:.3g} | {m['goodput'] / 1e6:.2f} |"
            )
    lines += ["", "| flows | ns-2 / tcplab wall time | ns-2 / tcplab event loop | tcplab / ns-2 packets per wall-s | ns-2 / tcplab peak RSS |",
              "|---|---|---|---|---|"]
    for r in rows:
        t, ns = r["tcplab"], r["ns2"]
        lines.append(
            f"| {r['flows']} | {ns['wall'] / t['wall']:.1f}x | {ns['loop'] / max(t['loop'], 1e-9):.1f}x | "
            f"{(t['packets'] / t['wall']) / (ns['packets'] / ns['wall']):.1f}x | {ns['rss_mb'] / t['rss_mb']:.1f}x |"
        )
    text = "\n".join(lines)
    print(text)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "bench.json").write_text(json.dumps(rows, indent=2))
    (OUT / "bench.md").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
