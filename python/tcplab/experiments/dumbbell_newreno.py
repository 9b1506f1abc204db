"""NewReno on a dumbbell: goodput and loss against the number of flows and the buffer
size, with the PFTK approximate model's prediction beside each flow's measured send rate.
(The machinery's first end-to-end experiment; no paper reports these exact numbers.)"""
from __future__ import annotations

import numpy as np
import pandas as pd

from tcplab import plots
from tcplab.experiments import Analysis, Figure, Plan, Run, Table, experiment
from tcplab.metrics import jain_index, link_loss_rate, pftk_inputs
from tcplab.models import pftk_approx
from tcplab.stats import mean_ci

RATE_MBPS = 10.0
ONE_WAY_MS = 20.0
GRID = {
    "quick": dict(flows=[2, 8], buffers=[10, 100], seeds=[1, 2, 3], duration=30.0),
    "full": dict(flows=[1, 2, 4, 8, 16, 32], buffers=[5, 10, 25, 50, 100, 200], seeds=[1, 2, 3, 4, 5], duration=200.0),
}


def scenario(flows: int, buffer: int, duration: float, seed: int) -> dict:
    # Replications differ by their start times, drawn from the seed (uniform in [0, 1) s):
    # without random loss the seed would change nothing else.
    starts = np.random.default_rng(seed).uniform(0, 1, flows).round(6).tolist()
    return {
        "sim": {"duration": duration, "sample_interval": 0.5},
        "dumbbell": {
            "pairs": flows,
            "bottleneck": {"rate": f"{RATE_MBPS}Mbps", "delay": f"{ONE_WAY_MS}ms", "queue": buffer},
            "access": {"rate": "100Mbps", "delay": "1ms", "queue": 1000},
        },
        "flows": [{"src": "s{i}", "dst": "d{i}", "count": flows, "cc": "newreno", "start": starts,
                   "tcp": {"rwnd": 1000}}],
    }


@experiment("dumbbell_newreno", "NewReno on a dumbbell: goodput and loss vs flows and buffer, PFTK beside the measurement")
def dumbbell_newreno(size: str) -> Plan:
    g = GRID[size]
    runs = [
        Run(params={"flows": n, "buffer": b}, spec=scenario(n, b, g["duration"], s), seed=s, wall_limit=600)
        for n in g["flows"]
        for b in g["buffers"]
        for s in g["seeds"]
    ]
    params = {"bottleneck": f"{RATE_MBPS} Mb/s, {ONE_WAY_MS} ms one way, DropTail", "access": "100 Mb/s, 1 ms",
              "mss": "1000 B (+40 B header)", "rwnd": 1000, "duration_s": g["duration"], "flows": g["flows"],
              "buffers_packets": g["buffers"], "seeds": g["seeds"],
              "start_times": "uniform in [0, 1) s, drawn from the seed"}
    return Plan(runs, analyse, params)


def per_flow(done) -> pd.DataFrame:
    frames = []
    for d in done:
        x = pftk_inputs(d.results).assign(**d.params, seed=d.seed)
        x["pftk_pps"] = pftk_approx(x["p"], x["rtt"], x["t0"], b=1.0, wmax=1000)
        frames.append(x)
    return pd.concat(frames, ignore_index=True)


def analyse(done) -> Analysis:
    runs = pd.DataFrame([
        {**d.params, "seed": d.seed,
         "goodput_mbps": d.results.flows["goodput_bps"].sum() / 1e6,
         "loss_rate": link_loss_rate(d.results.links, "r1", "r2"),
         "jain": jain_index(d.results.flows["goodput_bps"])}
        for d in done
    ])
    rows = []
    for (n, b), g in runs.groupby(["flows", "buffer"]):
        gp, loss, jain = mean_ci(g["goodput_mbps"]), mean_ci(g["loss_rate"]), mean_ci(g["jain"])
        rows.append({"flows": n, "buffer": b, "runs": gp.n, "goodput Mb/s": gp.mean, "± 95% CI": gp.half_width,
                     "loss rate": loss.mean, "loss ± 95% CI": loss.half_width, "Jain index": jain.mean})
    summary = pd.DataFrame(rows)

    pf = per_flow(done)
    pf = pf[pf["p"] > 0]
    pf["ratio"] = pf["pftk_pps"] / pf["send_rate_pps"]
    acc = []
    for (n, b), g in pf.groupby(["flows", "buffer"]):
        r = g["ratio"]
        acc.append({"flows": n, "buffer": b, "flows measured": len(g),
                    "send rate pkts/s": g["send_rate_pps"].mean(), "PFTK pkts/s": g["pftk_pps"].mean(),
                    "median PFTK/measured": r.median(),
                    "within 1.5x": np.mean((r < 1.5) & (r > 1 / 1.5)), "within 2x": np.mean((r < 2) & (r > 0.5))})
    accuracy = pd.DataFrame(acc)

    figs = [
        Figure("goodput", "Aggregate goodput (mean ± 95 % CI)",
               plots.errorbars(summary, "flows", "goodput Mb/s", "± 95% CI", "buffer", "NewReno on a 10 Mb/s dumbbell",
                               "flows", "aggregate goodput (Mb/s)", "buffer = ")),
        Figure("loss", "Bottleneck loss rate (mean ± 95 % CI)",
               plots.errorbars(summary, "flows", "loss rate", "loss ± 95% CI", "buffer", "Bottleneck drop rate",
                               "flows", "packets dropped / packets offered", "buffer = ")),
        Figure("pftk", "PFTK approximate model against the measured send rate, per flow",
               plots.versus(pf["send_rate_pps"], pf["pftk_pps"], "PFTK vs simulation",
                            "measured send rate (packets/s)", "PFTK prediction (packets/s)")),
    ]
    within2 = float(np.mean((pf["ratio"] < 2) & (pf["ratio"] > 0.5))) if len(pf) else float("nan")
    findings = [
        f"Aggregate goodput ranges from {summary['goodput Mb/s'].min():.2f} to {summary['goodput Mb/s'].max():.2f} Mb/s "
        f"on the {RATE_MBPS:g} Mb/s bottleneck.",
        f"PFTK (approximate) predicts {100 * within2:.0f} % of {len(pf)} per-flow send rates within a factor of 2, "
        "from each flow's measured loss-indication rate, mean srtt and mean RTO (without back-off).",
    ]
    return Analysis(
        tables=[Table("summary", "Goodput, loss and fairness against flows and buffer", summary),
                Table("pftk", "PFTK approximate model against the measured per-flow send rate", accuracy,
                      note="p = (fast retransmits + timeouts) / segments sent; RTT = mean srtt; T0 = mean RTO without "
                           "back-off; b = 1.")],
        figures=figs,
        findings=findings,
    )
