"""Write the sync_signals two-flow scenario (§3.5.1) with the full web background, `DURATION`
seconds simulated, as JSON for the core example (`--spec FILE`): the measurement of issue 18
("Speed"; docs/sync-tcp.md, "What a full size costs"). With --no-web, the same scenario without
the web background. Usage: web_scenario.py DURATION OUT.json [--no-web]"""
import json
import sys

from tcplab.experiments import sync_tcp as st

duration = float(sys.argv[1])
bg = {"web_fwd": 0.0, "web_rev": 0.0} if "--no-web" in sys.argv[3:] else None
run = st.case(st.SIZES["full"], st.SYNC, 1, {"case": "block"}, n=2, per=1e-8, duration=duration, t0=0.0, bg=bg)
with open(sys.argv[2], "w") as f:
    json.dump(run.spec, f)
