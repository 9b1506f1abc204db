"""`make fuzz`: the property-based tests in batches with fresh seeds, for as long as asked.

    python tests/fuzz.py --minutes 30 [--batch 500]

Each batch runs tests/test_properties.py with another Hypothesis seed and `--batch` examples
per property. Failures are kept in Hypothesis' example database (.hypothesis/), so the next
`make test` replays them; the run stops at the first failing batch and exits 1. At the end
it prints how many inputs ran.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=float(os.environ.get("FUZZ_MINUTES", "10")))
    ap.add_argument("--batch", type=int, default=500, help="examples per property per batch")
    ap.add_argument("--first-seed", type=int, default=int(time.time()) % 1_000_000)
    args = ap.parse_args()
    deadline = time.time() + 60 * args.minutes
    stats = Path(tempfile.mkstemp(prefix="tcplab-fuzz-", suffix=".jsonl")[1])
    env = {**os.environ, "TCPLAB_PROPERTY_EXAMPLES": str(args.batch), "TCPLAB_PROPERTY_STATS": str(stats)}
    seed, status = args.first_seed, 0
    try:
        while time.time() < deadline:
            print(f"fuzz: batch with seed {seed}, {args.batch} examples per property", flush=True)
            cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--hypothesis-seed={seed}",
                   str(HERE / "test_properties.py")]
            if subprocess.run(cmd, env=env, cwd=HERE.parent).returncode != 0:
                print(f"fuzz: the batch with seed {seed} failed (rerun: {' '.join(cmd)})", flush=True)
                status = 1
                break
            seed += 1
        inputs = sum(json.loads(line)["examples"] for line in stats.read_text().splitlines() if line.strip())
        print(f"fuzz: {inputs} inputs run (each valid one twice), {'a failure' if status else 'no failure'} found")
    finally:
        stats.unlink(missing_ok=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
