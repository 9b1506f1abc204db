"""What the web background costs per packet forwarded and per transfer (issue 18, "Speed";
docs/sync-tcp.md, "What a full size costs"): the core example runs the two-flow sync_signals
scenario with the full background (bench/web_scenario.py) for two durations under callgrind
with its cache simulation (first-level data 32 KB, second level 2 MB, as the development
machine), and the difference of the two runs is divided by the difference of their packets
forwarded and transfers completed, which removes set-up and the first seconds. The same is
measured without the web background; what the web adds (the difference of the two
differences) is divided by the transfers and by the packets it adds.

    web_cost.py CORE_BIN [--durations 10 20] [--out DIR]

A run measured before into DIR (its NAME.result.json) is not measured again.

Prints one JSON line. Instruction and simulated-miss counts repeat exactly whatever else
runs on the machine; wall time does not, so it is not reported."""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import tcplab

HERE = Path(__file__).resolve().parent
CACHE = ["--cache-sim=yes", "--D1=32768,8,64", "--I1=32768,8,64", "--LL=2097152,16,64"]
ALLOC = ("malloc", "free", "realloc", "calloc")


def callgrind(binary: str, spec: Path, out: Path) -> dict:
    run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *CACHE, binary,
                          "--spec", str(spec)], capture_output=True, text=True, check=True)
    line = json.loads(run.stdout.strip().splitlines()[-1])
    names, calls, current = {}, dict.fromkeys(ALLOC, 0), None
    events = totals = None
    for raw in out.read_text().splitlines():
        if raw.startswith("events:"):
            events = raw.split()[1:]
        elif raw.startswith("totals:") or raw.startswith("summary:"):
            totals = [int(x) for x in raw.split()[1:]]
        m = re.match(r"cfn=\((\d+)\)(?: (.*))?", raw)
        if m:
            if m.group(2):
                names[m.group(1)] = m.group(2)
            current = names.get(m.group(1))
        elif raw.startswith("fn=") or raw.startswith("fl="):
            m2 = re.match(r"fn=\((\d+)\)(?: (.*))?", raw)
            if m2 and m2.group(2):
                names[m2.group(1)] = m2.group(2)
        elif raw.startswith("calls=") and current in calls:
            calls[current] += int(raw.split("=")[1].split()[0])
            current = None
    ev = dict(zip(events, totals))
    return {"packets": line["packets_forwarded"], "Ir": ev["Ir"], "D1 misses": ev["D1mr"] + ev["D1mw"],
            "LL misses": ev["DLmr"] + ev["DLmw"], "allocations": calls["malloc"] + calls["calloc"] + calls["realloc"],
            "frees": calls["free"]}


def transfers(spec: dict) -> int:
    res = tcplab.run(spec, 1)
    g = res.generators
    return int(g["completed"].sum())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--durations", type=float, nargs=2, default=[10.0, 20.0])
    ap.add_argument("--out", default="/tmp/web-cost")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    result = {"durations": a.durations}
    diffs = {}
    for web in (True, False):
        runs = []
        for d in a.durations:
            name = f"{'web' if web else 'noweb'}{d:g}"
            spec, saved = out / f"{name}.json", out / f"{name}.result.json"
            if saved.exists():  # measured before into this directory
                runs.append(json.loads(saved.read_text()))
                continue
            subprocess.run([sys.executable, str(HERE / "web_scenario.py"), str(d), str(spec),
                            *([] if web else ["--no-web"])], check=True)
            r = callgrind(a.binary, spec, out / f"callgrind.{name}")
            r["transfers"] = transfers(json.loads(spec.read_text())) if web else 0
            saved.write_text(json.dumps(r))
            runs.append(r)
        lo, hi = runs
        diffs[web] = {k: hi[k] - lo[k] for k in lo}
        result["runs" if web else "runs without web"] = runs
    total = diffs[True]
    web = {k: total[k] - diffs[False][k] for k in total}
    keys = ("Ir", "D1 misses", "LL misses", "allocations")
    result["per packet"] = {k: round(total[k] / total["packets"], 2) for k in keys}
    result["web per transfer"] = {k: round(web[k] / web["transfers"], 1) for k in keys}
    result["web per web packet"] = {k: round(web[k] / web["packets"], 2) for k in keys}
    result["web share of Ir"] = round(web["Ir"] / total["Ir"], 3)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
