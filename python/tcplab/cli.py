"""The `tcplab` command."""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from tcplab import _core


class UsageError(Exception):
    """An error of the user's input: reported in one line, exit status 2."""


def _fmt_table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda r: "  ".join(str(x).rjust(w) if i else str(x).ljust(w) for i, (x, w) in enumerate(zip(r, widths)))
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def summary_text(res) -> str:
    """Per-flow and per-link summary tables of one run."""
    f = res.flows
    rows = [
        [
            r["name"],
            r["cc_final"] or r["transport"],
            f"{r['goodput_bps'] / 1e6:.3f}",
            int(r["segments_sent"]),
            int(r["retransmits"]),
            int(r["fast_retransmits"]),
            int(r["timeouts"]),
            "-" if r["completion_time"] != r["completion_time"] else f"{r['completion_time']:.3f}",
        ]
        for _, r in f.iterrows()
    ]
    out = [_fmt_table(rows, ["flow", "cc", "goodput Mb/s", "sent", "retx", "fast retx", "timeouts", "done s"])]
    links = res.links[res.links["arrivals"] > 0]
    lrows = [
        [
            f"{r['src']}->{r['dst']}",
            f"{r['rate_bps'] / 1e6:g}",
            f"{100 * r['utilisation']:.1f}",
            int(r["arrivals"]),
            int(r["drops_queue"]),
            int(r["drops_loss"]),
        ]
        for _, r in links.iterrows()
    ]
    out.append("")
    out.append(_fmt_table(lrows, ["link", "Mb/s", "util %", "packets", "queue drops", "loss drops"]))
    s = res.summary
    out.append("")
    out.append(
        f"seed {s['seed']}, {s['duration']:g} s simulated, {s['events']} events, "
        f"set-up {s['setup_seconds']:.3f} s, event loop {s['loop_seconds']:.3f} s"
    )
    return "\n".join(out)


def plot_cwnd(res) -> bytes:
    """The flows' congestion windows over time, as PNG bytes."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ts = res.flow_ts
    fig, ax = plt.subplots(figsize=(8, 4))
    names = dict(zip(res.flows["flow"], res.flows["name"]))
    for flow, g in ts.groupby("flow"):
        ax.plot(g["time"], g["cwnd"], label=names.get(flow, str(flow)), linewidth=1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.set_title("Congestion window")
    if len(names) <= 12:
        ax.legend(fontsize="small")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    plt.close(fig)
    return buf.getvalue()


def cmd_run(args) -> int:
    from tcplab.run import run
    from tcplab.scenario import load_scenario

    spec = load_scenario(args.scenario)
    # Progress on stderr for interactive use; pipes and logs stay clean.
    res = run(spec, seed=args.seed, progress=sys.stderr.isatty())
    out = Path(args.out) if args.out else Path("results") / Path(args.scenario).stem
    if args.plot and res.flow_ts.empty:
        raise UsageError("--plot needs time series: set sim.sample_interval in the scenario")
    # The plot is written together with the tables, so the directory appears complete or not at all.
    res.save(out, extra_files={"cwnd.png": plot_cwnd(res)} if args.plot else None)
    print(summary_text(res))
    print(f"\nresults written to {out}/")
    return 0


def cmd_validate(args) -> int:
    import json

    from tcplab.scenario import load_scenario, normalise

    print(json.dumps(normalise(load_scenario(args.scenario)), indent=2))
    return 0


def cmd_algorithms(args) -> int:
    print("\n".join(_core.algorithms()))
    return 0


def _optional(module: str, what: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise UsageError(f"{what} is not available: {e}") from None


def cmd_list(args) -> int:
    exps = _optional("tcplab.experiments", "the experiment registry").list_experiments()
    width = max((len(n) for n, _ in exps), default=0)
    for name, desc in exps:
        print(f"{name.ljust(width)}  {desc}")
    return 0


def cmd_reproduce(args) -> int:
    sweep = _optional("tcplab.sweep", "the experiment machinery")
    try:
        report, failures = sweep.reproduce(
            args.experiments,
            size=args.size,
            jobs=args.jobs,
            scheduler=args.scheduler,
            out=args.out,
            retry_failed=args.retry_failed,
        )
    except sweep.SweepEnvironmentError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"report: {report}")
    return 1 if failures else 0  # the failures are listed above, one line each


def cmd_report(args) -> int:
    report = _optional("tcplab.report", "the report writer")
    path = report.write_report(args.results, args.out)
    print(f"report: {path}")
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tcplab", description="A laboratory for TCP congestion control.")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="run one scenario file and write its results")
    r.add_argument("scenario", help="scenario TOML file")
    r.add_argument("--seed", type=int, default=None, help="master seed (default: the spec's sim.seed, else 1)")
    r.add_argument("--out", default=None, help="output directory (default: results/<scenario name>)")
    r.add_argument("--plot", action="store_true", help="also write cwnd.png")
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check a scenario and print it with every default filled in")
    v.add_argument("scenario")
    v.set_defaults(func=cmd_validate)

    a = sub.add_parser("algorithms", help="list the congestion-control algorithms")
    a.set_defaults(func=cmd_algorithms)

    ls = sub.add_parser("list", help="list the experiments that reproduce the papers")
    ls.set_defaults(func=cmd_list)

    rep = sub.add_parser("reproduce", help="run experiments and write the HTML report")
    rep.add_argument("experiments", nargs="*", help="experiment names (default: all)")
    rep.add_argument("--size", choices=["quick", "full"], default="quick")
    rep.add_argument("--jobs", type=int, default=None, help="parallel local processes (default: CPU count)")
    rep.add_argument("--scheduler", default=None, help="address of a Dask scheduler to run on instead")
    rep.add_argument("--out", default="results", help="result store and report directory")
    rep.add_argument("--retry-failed", action="store_true", help="rerun only the runs that failed before")
    rep.set_defaults(func=cmd_reproduce)

    rp = sub.add_parser("report", help="write the HTML report of stored experiment results")
    rp.add_argument("results", nargs="+", help="result directories")
    rp.add_argument("-o", "--out", default="report", help="report directory")
    rp.set_defaults(func=cmd_report)
    return p


def _experiment_error():
    try:
        from tcplab.experiments import ExperimentError

        return ExperimentError
    except ImportError:  # pragma: no cover
        return UsageError


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except (_core.ScenarioError, UsageError, _experiment_error()) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except _core.SimulationError as e:
        print(f"error: the simulation failed: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
