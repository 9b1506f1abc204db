"""The `tcplab` command."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tcplab import _core
from tcplab.outdir import OutputError

DEBUG_ENV = "TCPLAB_DEBUG"  # set to 1 to see the traceback of an internal error


class UsageError(Exception):
    """An error of the user's input: reported in one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        # One line, like every other error of the command (argparse prints the usage too).
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


class _VersionAction(argparse.Action):
    """--version, with the text made only when asked for (importlib.metadata takes ~10 ms)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit()


def _fmt_table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda r: "  ".join(str(x).rjust(w) if i else str(x).ljust(w) for i, (x, w) in enumerate(zip(r, widths)))
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def _rows(res, name: str, columns: list[str], limit: int, busiest: str | None = None):
    """Up to ``limit`` rows of the result table ``name`` (which may be empty, with or without
    columns) as records, and how many more there are. With ``busiest``, only rows with a
    positive value in that column count, and with more of them than the limit, those with
    the largest values are kept (in table order). A lazy run's preview of the table, picked
    by the core by the same rule, is used when it is the one asked for: then pandas is not
    needed."""
    preview = getattr(res, "preview", lambda _: None)(name)
    if preview is not None and preview["limit"] == limit and preview["busiest"] == busiest:
        if not set(columns) <= set(preview["columns"]):
            return [], 0
        return [{c: r[c] for c in columns} for r in preview["rows"]], preview["more"]
    table = getattr(res, name)
    if table is None or table.empty or not set(columns) <= set(table.columns):
        return [], 0
    if busiest is not None:
        table = table[table[busiest] > 0]
    more = max(0, len(table) - limit)
    if more and busiest is not None:
        table = table.loc[table[busiest].nlargest(limit, keep="first").index.sort_values()]
    return table.head(limit)[columns].to_dict("records"), more


# A terminal summary stays readable (and fast) for a million flows: the tables hold the rest.
SUMMARY_ROWS = 25

_FLOW_COLUMNS = ["name", "cc_final", "transport", "goodput_bps", "segments_sent", "retransmits",
                 "fast_retransmits", "timeouts", "completion_time"]
_LINK_COLUMNS = ["src", "dst", "rate_bps", "utilisation", "arrivals", "drops_queue", "drops_loss"]
# What `tcplab run` asks the core to pick for the summary (see _rows), so that it needs no pandas.
_SUMMARY_PREVIEWS = {"flows": (SUMMARY_ROWS, None), "links": (SUMMARY_ROWS, "arrivals")}


def summary_text(res, limit: int = SUMMARY_ROWS) -> str:
    """Per-flow and per-link summary tables of one run (a table without rows is left out):
    the first ``limit`` flows and the ``limit`` busiest links, with a line saying how many
    more are in the results."""
    flows, more_flows = _rows(res, "flows", _FLOW_COLUMNS, limit)
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
        for r in flows
    ]
    out = []
    if rows:
        out += [_fmt_table(rows, ["flow", "cc", "goodput Mb/s", "sent", "retx", "fast retx", "timeouts", "done s"])]
        if more_flows:
            out.append(f"... and {more_flows} more flows (all of them are in flows.parquet)")
        out.append("")
    # with link changes the links table also has drops_down
    links, more_links = _rows(res, "links", _LINK_COLUMNS + ["drops_down"], limit, busiest="arrivals")
    down = bool(links)
    if not down:
        links, more_links = _rows(res, "links", _LINK_COLUMNS, limit, busiest="arrivals")
    lrows = [
        [
            f"{r['src']}->{r['dst']}",
            f"{r['rate_bps'] / 1e6:g}",
            f"{100 * r['utilisation']:.1f}",
            int(r["arrivals"]),
            int(r["drops_queue"]),
            int(r["drops_loss"]),
        ] + ([int(r["drops_down"])] if down else [])
        for r in links
    ]
    if lrows:
        header = ["link", "Mb/s", "util %", "packets", "queue drops", "loss drops"] + (["down drops"] if down else [])
        out += [_fmt_table(lrows, header)]
        if more_links:
            out.append(f"... and {more_links} more links that carried packets, less than these "
                       "(all of them are in links.parquet)")
        out.append("")
    s = res.summary
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


_PLOT_NEEDS_SERIES = "--plot needs time series: set sim.sample_interval in the scenario"


def _with_time_sequence(spec: dict, flows: list[int]) -> dict:
    """The spec with the captures a time-sequence plot of each of `flows` needs (the flows'
    indices in the normalised spec, where count expands)."""
    from tcplab import plots
    from tcplab.scenario import normalise

    n = normalise(spec)["flows"]
    for f in flows:
        if not 0 <= f < len(n):
            raise UsageError(f"--time-sequence {f}: the scenario has flows 0 to {len(n) - 1}")
        if n[f].get("transport", "tcp") != "tcp":
            raise UsageError(f"--time-sequence {f}: flow {f} is not a TCP flow")
        spec = plots.with_time_sequence(spec, n[f]["src"])
    return spec


def _png(fig) -> bytes:
    import io

    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    return buf.getvalue()


def cmd_run(args) -> int:
    from tcplab.results import Results, run
    from tcplab.scenario import load_scenario

    spec = load_scenario(args.scenario)
    out = Path(args.out) if args.out else Path("results") / Path(args.scenario).stem
    # Refuse what would fail after the run before it, not after the user waited for it.
    Results.check_target(out, force=args.force)
    sim = spec.get("sim")
    if args.plot and not (isinstance(sim, dict) and sim.get("sample_interval")):
        raise UsageError(_PLOT_NEEDS_SERIES)
    # Progress on stderr for interactive use; pipes and logs stay clean.
    ts_flows = args.time_sequence or []
    if ts_flows:
        spec = _with_time_sequence(spec, ts_flows)
    res = run(spec, seed=args.seed, progress=sys.stderr.isatty(), lazy=True, previews=_SUMMARY_PREVIEWS)
    # The summary comes first: a save that fails does not lose what the user waited for.
    print(summary_text(res), flush=True)
    if args.plot and res.flow_ts.empty:
        raise UsageError(_PLOT_NEEDS_SERIES)
    # The plot is written together with the tables, so the directory appears complete or not at all.
    extra = {"cwnd.png": plot_cwnd(res)} if args.plot else {}
    for f in ts_flows:
        from tcplab import plots  # numpy, pandas, matplotlib: only when asked for

        extra[f"time_sequence_flow{f}.png"] = _png(plots.time_sequence(res, f))
    res.save(out, extra_files=extra or None, force=args.force)
    print(f"\nresults written to {out}/")
    return 0


def cmd_console(args) -> int:
    from tcplab import console

    return console.main(args.scenario, seed=args.seed)


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
        report = sweep.reproduce(
            args.experiments,
            size=args.size,
            jobs=args.jobs,
            scheduler=args.scheduler,
            out=args.out,
            retry_failed=args.retry_failed,
            connect_timeout=args.scheduler_timeout,
            force=args.force,
            replications=args.replications,
        )
    except sweep.RunsFailed as e:  # the report is written and the failures listed, one line each
        print(f"report: {e.report}")
        return 1
    except sweep.SweepEnvironmentError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"report: {report}")
    return 0


def cmd_report(args) -> int:
    report = _optional("tcplab.report", "the report writer")
    path = report.write_report(args.results, args.out, force=args.force, progress=True)
    print(f"report: {path}")
    return 0


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="tcplab", description="A laboratory for TCP congestion control.")
    p.add_argument("--version", action=_VersionAction, help="show the version and exit")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="run one scenario file and write its results")
    r.add_argument("scenario", help="scenario TOML file")
    r.add_argument("--seed", type=int, default=None, help="master seed (default: the spec's sim.seed, else 1)")
    r.add_argument("--out", default=None, help="output directory (default: results/<scenario name>)")
    r.add_argument("--plot", action="store_true", help="also write cwnd.png")
    r.add_argument("--time-sequence", type=int, action="append", metavar="FLOW",
                   help="also write time_sequence_flowFLOW.png (segments sent, retransmissions, ACKs, cwnd), "
                        "capturing the flow's first hop; may be repeated")
    r.add_argument("--force", action="store_true",
                   help="write into an existing directory tcplab did not write (files with tcplab's "
                        "output names are replaced, nothing else is touched)")
    r.set_defaults(func=cmd_run)

    c = sub.add_parser("console", help="run a scenario interactively: run to a time, view and switch "
                                       "connections' algorithms, save the results")
    c.add_argument("scenario", help="scenario TOML file")
    c.add_argument("--seed", type=int, default=None, help="master seed (default: the spec's sim.seed, else 1)")
    c.set_defaults(func=cmd_console)

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
    rep.add_argument("--replications", type=int, default=None, metavar="N",
                     help="run only the first N seeds of each configuration (default: all the size's); "
                          "a later reproduction with more reuses the runs stored")
    rep.add_argument("--scheduler-timeout", type=float, default=None, metavar="SECONDS",
                     help="give up connecting to --scheduler after this long (default 10 s, "
                          "or TCPLAB_SCHEDULER_TIMEOUT)")
    rep.add_argument("--force", action="store_true",
                     help="use --out even if it holds files tcplab did not write (they are kept; "
                          "files with tcplab's output names are replaced)")
    rep.set_defaults(func=cmd_reproduce)

    rp = sub.add_parser("report", help="write the HTML report of stored experiment results")
    rp.add_argument("results", nargs="+", help="result directories")
    rp.add_argument("-o", "--out", default="report", help="report directory")
    rp.add_argument("--force", action="store_true",
                    help="write into an existing directory tcplab did not write (only index.html is replaced)")
    rp.set_defaults(func=cmd_report)
    return p


def version_text() -> str:
    from importlib import metadata

    import tcplab

    try:
        package = metadata.version("tcplab")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
        package = tcplab.__version__
    return f"tcplab {package} (core {_core.__version__})"


def _experiment_error():
    try:
        from tcplab.experiments import ExperimentError

        return ExperimentError
    except ImportError:  # pragma: no cover
        return UsageError


def _report_error():
    try:
        from tcplab.report import ReportError

        return ReportError
    except ImportError:  # pragma: no cover
        return UsageError


def _error(message: str) -> None:
    print("error: " + " ".join(str(message).split("\n")), file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except (_core.ScenarioError, UsageError, _experiment_error(), _report_error()) as e:
        _error(e)
        return 2
    except OutputError as e:
        _error(e)
        return e.status
    except _core.SimulationError as e:
        _error(f"the simulation failed: {e}")
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except MemoryError:
        _error("not enough memory")
        return 1
    except OSError as e:
        if os.environ.get(DEBUG_ENV):
            raise
        where = f"{e.filename}: " if e.filename else ""
        _error(f"{where}{e.strerror or e}")
        return 1
    except Exception as e:  # noqa: BLE001 - every failure gets one line, not a traceback
        if os.environ.get(DEBUG_ENV):
            raise
        first = (str(e).splitlines() or [""])[0]
        _error(f"internal error: {type(e).__name__}: {first} (rerun with {DEBUG_ENV}=1 to see the traceback)")
        return 1


if __name__ == "__main__":
    sys.exit(main())
