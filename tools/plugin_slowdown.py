"""How much slower a Python congestion-control plug-in makes a run.

Runs one scenario with the built-in ``newreno`` and with examples/plugins/aimd.py's AIMD
(the same arithmetic in Python, giving the same tables bit for bit), ``--repeat`` times
each, and prints the best event-loop rate of each and their ratio:

    .venv/bin/python tools/plugin_slowdown.py [SCENARIO] [--seed N] [--repeat N]

Default scenario: examples/dumbbell.toml (4 flows, 60 s). The figure is in
docs/kentridge.md, "Python plug-ins"."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    import tcplab
    from tcplab.scenario import load_scenario

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("scenario", nargs="?", default=str(ROOT / "examples" / "dumbbell.toml"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    plugin = f"python:{ROOT / 'examples' / 'plugins' / 'aimd.py'}:AIMD"
    best = {}
    acks = events = 0
    for _ in range(args.repeat):
        for name, cc in (("rust newreno", "newreno"), ("python AIMD", plugin)):
            spec = load_scenario(args.scenario)
            for f in spec.get("flows", []):
                if f.get("transport", "tcp") == "tcp":
                    f["cc"] = cc
            r = tcplab.run(spec, seed=args.seed)
            s = r.summary
            rate = s["events"] / s["loop_seconds"]
            best[name] = max(best.get(name, 0.0), rate)
            acks = int(r.flows["segments_sent"].sum())
            events = s["events"]
    rust, py = best["rust newreno"], best["python AIMD"]
    print(json.dumps({
        "scenario": Path(args.scenario).name,
        "segments_sent": acks,
        "rust_events_per_s": round(rust),
        "python_events_per_s": round(py),
        "slowdown": round(rust / py, 1),
        # extra loop time per segment sent (about one on_ack call, and a few on_congestion)
        "extra_us_per_segment": round(1e6 * (events / py - events / rust) / acks, 2),
    }))


if __name__ == "__main__":
    main()
