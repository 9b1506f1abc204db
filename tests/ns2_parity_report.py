"""Print the measured agreement with ns-2.35 as the Markdown tables of docs/ns2-parity.md.

    .venv/bin/python tests/ns2_parity_report.py [--aggregate] [--same] [--own] [--own-seeds N]

--aggregate: the aggregate scenarios of test_agrees_with_ns2 (seeds 1-4, means);
--same: every scenario of test_lossy_flows_match_ns2_on_the_same_losses (ns-2 replays
tcplab's losses; seeds 1-20);
--sack: the SACK flows of test_sack_flows_agree_with_ns2_sack1_on_the_same_losses (ns-2's
Sack1 replaying tcplab's losses; seeds 1-10);
--linux: the TCP-Linux algorithms on the clean and shared paths of
test_linux_algorithms_agree_with_ns2_tcp_linux and on a lossy path (seeds 1-2, means);
--lfp: each TCP-Linux algorithm alone on a long fat pipe (linux_long_fat_pipe; seeds 1-2,
means, each simulator's own losses);
--trajectory: the window trajectories of test_linux_window_trajectories_agree_with_ns2_tcp_linux
(lossy path and long fat pipe, ns-2 replaying tcplab's losses; per-seed means);
--link-changes: the delay-change scenarios of test_link_delay_changes_agree_with_ns2 (per
flow, seed 1: no random loss, both runs deterministic);
--ecn: the ECN scenarios of test_ecn_newreno_over_red_agrees_with_ns2 (seeds 1-4, means);
--own: each lone lossy flow on each simulator's own losses (300 s runs, --own-seeds seeds,
default 60, as test_lone_lossy_flow_agrees_with_ns2_on_its_own_losses).
Without options, all three. Uses the scenarios and seeds the tests use.
"""
import argparse
import sys

import numpy as np
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import tcplab  # noqa: E402
from test_ns2_parity import (  # noqa: E402
    LINK_CHANGE_SCENARIOS,
    LONE_LOSSY,
    OWN_LOSS_SEEDS,
    SAME_LOSS_SEEDS,
    LINUX_ALGORITHMS,
    LINUX_SCENARIOS,
    KNOWN_TRAJECTORY_GAPS,
    TRAJECTORY_PATHS,
    linux_trajectory,
    trajectory_disagreements,
    SACK_SAME_LOSSES,
    SAME_LOSSES,
    SCENARIOS,
    ECN_SCENARIOS,
    ecn_means,
    linux_long_fat_pipe,
    measure,
    linux_dumbbell,
    link_change_flows,
    per_seed,
    t_interval,
)


def duration(spec):
    return tcplab.normalise(spec)["sim"]["duration"]


def interval_row(name, spec, seeds, losses):
    ours, theirs = per_seed(spec, seeds, losses=losses)
    m, h = t_interval(ours["goodput_bps"] / theirs["goodput_bps"] - 1)
    return (
        f"| {name} | {len(seeds)} × {duration(spec):g} s | {ours['goodput_bps'].mean() / 1e6:.4f} | "
        f"{theirs['goodput_bps'].mean() / 1e6:.4f} | {m:+.2%} | [{m - h:+.2%}, {m + h:+.2%}] | "
        f"{ours['retransmits'].mean():.1f} / {theirs['retransmits'].mean():.1f} | "
        f"{ours['timeouts'].mean():.2f} / {theirs['timeouts'].mean():.2f} |"
    )


HEAD = (
    "| scenario | seeds × run | goodput tcplab (Mb/s) | goodput ns-2 (Mb/s) | mean ratio − 1 | 95 % CI | "
    "retransmits tcplab / ns-2 | timeouts tcplab / ns-2 |\n|---|---|---|---|---|---|---|---|"
)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--aggregate", action="store_true")
    ap.add_argument("--same", action="store_true")
    ap.add_argument("--own", action="store_true")
    ap.add_argument("--sack", action="store_true")
    ap.add_argument("--linux", action="store_true")
    ap.add_argument("--ecn", action="store_true")
    ap.add_argument("--lfp", action="store_true")
    ap.add_argument("--trajectory", action="store_true")
    ap.add_argument("--link-changes", action="store_true")
    ap.add_argument("--own-seeds", type=int, default=len(OWN_LOSS_SEEDS))
    a = ap.parse_args()
    everything = not (a.aggregate or a.same or a.own or a.sack or a.linux or a.ecn or a.lfp or a.trajectory
                      or a.link_changes)
    if a.aggregate or everything:
        print("| scenario | goodput tcplab (Mb/s) | goodput ns-2 (Mb/s) | diff | retransmits tcplab / ns-2 | "
              "timeouts tcplab / ns-2 |\n|---|---|---|---|---|---|")
        for name, spec in SCENARIOS.items():
            m = measure(spec)
            (g, gn), (r, rn), (t, tn) = m["goodput_bps"], m["retransmits"], m["timeouts"]
            print(f"| {name} | {g / 1e6:.3f} | {gn / 1e6:.3f} | {g / gn - 1:+.1%} | {r:.0f} / {rn:.0f} | "
                  f"{t:.1f} / {tn:.1f} |", flush=True)
        print()
    if a.same or everything:
        print(HEAD)
        for name, spec in SAME_LOSSES.items():
            print(interval_row(name, spec, SAME_LOSS_SEEDS, "tcplab"), flush=True)
        print()
    if a.sack or everything:
        print(HEAD)
        for name, spec in SACK_SAME_LOSSES.items():
            print(interval_row(name, spec, range(1, 11), "tcplab"), flush=True)
        print()
    if a.linux or everything:
        print("| algorithm | path | goodput tcplab (Mb/s) | goodput ns-2 TCP-Linux (Mb/s) | diff | "
              "retransmits tcplab / ns-2 |\n|---|---|---|---|---|---|")
        paths = {**LINUX_SCENARIOS, "1 flow, 1% loss, own losses": (1, 1000, 0.01)}
        for cc in LINUX_ALGORITHMS:
            for name, args in paths.items():
                ours, theirs = per_seed(linux_dumbbell(cc, *args), (1, 2))
                g, gn = ours["goodput_bps"].mean(), theirs["goodput_bps"].mean()
                print(f"| {cc} | {name} | {g / 1e6:.3f} | {gn / 1e6:.3f} | {g / gn - 1:+.1%} | "
                      f"{ours['retransmits'].mean():.0f} / {theirs['retransmits'].mean():.0f} |", flush=True)
        print()
    if a.lfp or everything:
        print("| algorithm | goodput tcplab (Mb/s) | goodput ns-2 TCP-Linux (Mb/s) | diff | retransmits tcplab / ns-2 |"
              "\n|---|---|---|---|---|")
        for cc in LINUX_ALGORITHMS:
            ours, theirs = per_seed(linux_long_fat_pipe(cc), (1, 2))
            g, gn = ours["goodput_bps"].mean(), theirs["goodput_bps"].mean()
            print(f"| {cc} | {g / 1e6:.1f} | {gn / 1e6:.1f} | {g / gn - 1:+.1%} | "
                  f"{ours['retransmits'].mean():.0f} / {theirs['retransmits'].mean():.0f} |", flush=True)
        print()
    if a.trajectory or everything:
        print("| algorithm | path | goodput tcplab / ns-2 (Mb/s) | loss events tcplab / ns-2 | "
              "mean cwnd tcplab / ns-2 | cuts tcplab / ns-2 | period tcplab / ns-2 (s) | outside tolerance |"
              "\n|---|---|---|---|---|---|---|---|")
        for cc in LINUX_ALGORITHMS:
            for path in TRAJECTORY_PATHS:
                o, t = linux_trajectory(cc, path)
                bad = trajectory_disagreements(o, t)

                def pair(k, scale=1.0, fmt=".1f"):
                    a, b = o[k].mean() / scale, t[k].mean() / scale
                    if np.isnan(a) or np.isnan(b):
                        return "—"
                    d = f" ({a / b - 1:+.1%})" if b else ""
                    return f"{a:{fmt}} / {b:{fmt}}{d}"
                known = " (known)" if (cc, path) in KNOWN_TRAJECTORY_GAPS else ""
                print(f"| {cc} | {path} | {pair('goodput_bps', 1e6, '.3f')} | {pair('loss_events')} | "
                      f"{pair('mean_cwnd')} | {pair('cuts')} | {pair('period', fmt='.3f')} | "
                      f"{', '.join(bad) or '—'}{known if bad else ''} |", flush=True)
        print()
    if a.ecn or everything:
        print("| scenario | goodput tcplab / ns-2 (Mb/s) | drops tcplab / ns-2 (without ECN: tcplab) | "
              "mean waiting tcplab / ns-2 | retransmits tcplab / ns-2 |\n|---|---|---|---|---|")
        for name, args in ECN_SCENARIOS.items():
            m = ecn_means(*args)
            (g, gn), (d, dn), (w, wn), (r, rn) = m["goodput_bps"], m["drops"], m["mean_waiting"], m["retransmits"]
            print(f"| {name} | {g / 1e6:.3f} / {gn / 1e6:.3f} ({g / gn - 1:+.2%}) | {d:.1f} / {dn:.1f} "
                  f"({d / dn - 1:+.1%}; {m['drops_without_ecn']:.0f}) | {w:.2f} / {wn:.2f} ({w / wn - 1:+.1%}) | "
                  f"{r:.1f} / {rn:.1f} ({r / rn - 1:+.1%}) |", flush=True)
        print()
    if a.link_changes or everything:
        print("| scenario | flow | delivered segments tcplab / ns-2 | diff | retransmits tcplab / ns-2 | "
              "timeouts tcplab / ns-2 |\n|---|---|---|---|---|---|")
        for name, spec in LINK_CHANGE_SCENARIOS.items():
            o, t = link_change_flows(spec)
            for f in range(len(o)):
                d, dn = o.delivered_segments[f], t.delivered_segments[f]
                print(f"| {name} | {f} | {d} / {dn} | {d / dn - 1:+.2%} | {o.retransmits[f]} / {t.retransmits[f]} | "
                      f"{o.timeouts[f]} / {t.timeouts[f]} |", flush=True)
        print()
    if a.own or everything:
        print(HEAD)
        for name, spec in LONE_LOSSY.items():
            s = tcplab.normalise(spec)
            s["sim"]["duration"] = 300.0
            print(interval_row(name, s, range(1, a.own_seeds + 1), "ns2"), flush=True)


if __name__ == "__main__":
    main()
