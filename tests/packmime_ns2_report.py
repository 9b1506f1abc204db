"""Compare tcplab's packmime generator with ns-2.35's PackMime-HTTP and write the result
into docs/web-traffic.md (between the `packmime-ns2` markers).

    .venv/bin/python tests/packmime_ns2_report.py [--quick | --large] [--print]

--large: 60 000 connections at 150 and 1500/s only (where the long-range dependence is
weaker), written between the `packmime-ns2-large` markers: the marginals' check.

At each rate (15, 150, 1500 new connections/s) both simulators run HTTP/1.1 web traffic
between one client and one server on a fast, clean link, for about the same number of
connections (9000; --quick: 1800). Compared (two-sample Kolmogorov-Smirnov distance and
p-value, quantiles side by side):

- request size and response size, per request (ns-2: its `set-samples-outfile` records;
  tcplab: the `web_*` rows of `log_requests`), and the request size per connection (ns-2:
  its `RandomVariable/PackMimeHTTPFileSize` drawn in sequence; tcplab: each connection's);
- connection inter-arrival: tcplab's gaps between connection starts; ns-2's are the values
  of its `RandomVariable/PackMimeHTTPFlowArrive` drawn in sequence (what PackMime draws
  once per connection; its connection starts are not in its output);
- requests per connection: tcplab's from its log; ns-2's from its persistence, page and
  object random variables (PackMimeHTTPPersistent/NumPages/SingleObj/ObjsPerPage) combined
  as its client does, plus its own mean from the run (requests / `total-connections`);
- long-range dependence: lag-1 rank autocorrelation of the connection gaps and of the
  sequence of per-connection request sizes, ns-2 against tcplab with `lrd = true` and with
  i.i.d. draws (`lrd = false`): the marginals are the same either way.

The streams differ (ns-2 uses MRG32k3a substreams), so agreement is statistical.
"""
from __future__ import annotations

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

RATES = (15.0, 150.0, 1500.0)
CONNECTIONS = 9000
QUICK_CONNECTIONS = 1800
# ns-2 keeps running this long after PackMime stops opening connections, and tcplab's
# generator stops this long before the end, so that the persistent connections finish.
DRAIN = 200.0
DOC = ROOT / "docs" / "web-traffic.md"
BEGIN, END = "<!-- packmime-ns2 begin -->", "<!-- packmime-ns2 end -->"
LARGE_BEGIN, LARGE_END = "<!-- packmime-ns2-large begin -->", "<!-- packmime-ns2-large end -->"
LARGE_RATES = (150.0, 1500.0)
LARGE_CONNECTIONS = 60000

RUN_TCL = r"""
remove-all-packet-headers
add-packet-header IP TCP
set ns [new Simulator]
$ns use-scheduler Heap
set n(0) [$ns node]
set n(1) [$ns node]
$ns duplex-link $n(0) $n(1) 10Gb 1ms DropTail
$ns queue-limit $n(0) $n(1) 100000
$ns queue-limit $n(1) $n(0) 100000
set rate [lindex $argv 0]
set dur [lindex $argv 1]
set seed [lindex $argv 2]
set drain [lindex $argv 3]
set pm [new PackMimeHTTP]
$pm set-client $n(0)
$pm set-server $n(1)
$pm set-rate $rate
$pm set-http-1.1
set k 0
foreach v {flow req rsp} { set rng($v) [new RNG]; $rng($v) seed [expr $seed * 10 + [incr k]] }
set fa [new RandomVariable/PackMimeHTTPFlowArrive $rate]
set rq [new RandomVariable/PackMimeHTTPFileSize $rate 0]
set rs [new RandomVariable/PackMimeHTTPFileSize $rate 1]
$fa use-rng $rng(flow)
$rq use-rng $rng(req)
$rs use-rng $rng(rsp)
$pm set-flow_arrive $fa
$pm set-req_size $rq
$pm set-rsp_size $rs
$pm set-samples-outfile "samples.dat"
$ns at 0.0 "$pm start"
$ns at $dur "$pm stop"
proc finish {} { global pm; set f [open "connections.dat" w]; puts $f [$pm get-pairs]; close $f; $pm total-connections; exit 0 }
$ns at [expr $dur + $drain] "finish"
$ns run
"""

RV_TCL = r"""
set rate [lindex $argv 0]
set n [lindex $argv 1]
set seed [lindex $argv 2]
set r1 [new RNG]; $r1 seed [expr $seed * 10 + 5]
set fa [new RandomVariable/PackMimeHTTPFlowArrive $rate]; $fa use-rng $r1
set f [open gaps.dat w]; for {set i 0} {$i < $n} {incr i} { puts $f [$fa value] }; close $f
set r2 [new RNG]; $r2 seed [expr $seed * 10 + 6]
set rq [new RandomVariable/PackMimeHTTPFileSize $rate 0]; $rq use-rng $r2
set f [open reqsizes.dat w]; for {set i 0} {$i < $n} {incr i} { puts $f [$rq value] }; close $f
set r3 [new RNG]; $r3 seed [expr $seed * 10 + 7]
set pv [new RandomVariable/PackMimeHTTPPersistent 0.09]; $pv use-rng $r3
set np [new RandomVariable/PackMimeHTTPNumPages 0.82 1 0.417]; $np use-rng $r3
set so [new RandomVariable/PackMimeHTTPSingleObj 0.69]; $so use-rng $r3
set op [new RandomVariable/PackMimeHTTPObjsPerPage 1 1.578]; $op use-rng $r3
set f [open perconn.dat w]
for {set i 0} {$i < $n} {incr i} {
  if {[$pv value] == 0} { puts $f 1; continue }
  set pages [expr int(ceil([$np value]))]
  set total 0
  for {set p 0} {$p < $pages} {incr p} {
    set single 0
    if {$pages > 1} { set single [expr int([$so value])] }
    if {$single == 0} {
      set objs [expr int(ceil([$op value]))]
      if {$objs == 1} { set objs 2 }
    } else { set objs 1 }
    incr total $objs
  }
  puts $f $total
}
close $f
"""


def ns2_available() -> bool:
    return shutil.which("ns") is not None


def run_ns2(rate: float, connections: int, seed: int = 1) -> dict:
    """ns-2.35's PackMime at `rate` for about `connections` connections: per-request sizes,
    the total connections and requests of the run, and `connections` draws of its
    arrival, request-size and per-connection random variables."""
    duration = connections / rate
    with tempfile.TemporaryDirectory(prefix="tcplab-packmime-") as d:
        Path(d, "run.tcl").write_text(RUN_TCL)
        Path(d, "rv.tcl").write_text(RV_TCL)
        run = subprocess.run(["ns", "run.tcl", f"{rate:g}", f"{duration:g}", str(seed), f"{DRAIN:g}"],
                             cwd=d, capture_output=True, text=True, timeout=3600)
        if run.returncode != 0:
            raise RuntimeError(f"ns run.tcl failed: {run.stderr[-2000:]}")
        total = int(run.stderr.split()[-1])
        samples = np.loadtxt(Path(d, "samples.dat"), usecols=(0, 1, 2), ndmin=2)
        rv = subprocess.run(["ns", "rv.tcl", f"{rate:g}", str(connections), str(seed)],
                            cwd=d, capture_output=True, text=True, timeout=3600)
        if rv.returncode != 0:
            raise RuntimeError(f"ns rv.tcl failed: {rv.stderr[-2000:]}")
        gaps = np.loadtxt(Path(d, "gaps.dat"))
        reqsizes = np.loadtxt(Path(d, "reqsizes.dat"))
        perconn = np.loadtxt(Path(d, "perconn.dat"))
    return {
        "request": samples[:, 1],
        "response": samples[:, 2],
        "gap": gaps,
        "per_connection": perconn,
        "request_sequence": reqsizes,
        "mean_per_connection": len(samples) / total,
        "connections": total,
        "requests": len(samples),
    }


def tcplab_spec(rate: float, connections: int, lrd: bool = True) -> dict:
    duration = connections / rate
    return {
        "sim": {"duration": duration + DRAIN},
        "nodes": [{"name": "client"}, {"name": "server"}],
        "links": [{"a": "client", "b": "server", "rate": "10Gbps", "delay": "1ms", "queue": 100000}],
        "generators": [{"name": "web", "kind": "packmime", "rate": rate, "clients": ["client"],
                        "servers": ["server"], "stop": duration, "record": "summary",
                        "log_requests": True, "lrd": lrd, "tcp": {"mss": 1460, "handshake": True}}],
    }


def run_tcplab(rate: float, connections: int, seed: int = 1, lrd: bool = True) -> dict:
    import tcplab
    from tcplab.web import request_log

    r = tcplab.run(tcplab_spec(rate, connections, lrd), seed=seed)
    log = request_log(r)
    first = log.groupby("connection", sort=True)
    starts = first["time"].min().to_numpy()
    per_conn = first.size().to_numpy()
    return {
        "request": log["request_bytes"].to_numpy(),
        "response": log["response_bytes"].to_numpy(),
        "gap": np.diff(np.sort(starts)),
        "per_connection": per_conn.astype(float),
        "request_sequence": first["request_bytes"].first().to_numpy(),
        "mean_per_connection": per_conn.mean(),
        "connections": len(per_conn),
        "requests": len(log),
        "unanswered": int(log["response_time"].isna().sum()),
    }


def ks(a, b) -> tuple[float, float]:
    from scipy.stats import ks_2samp

    res = ks_2samp(a, b)
    return float(res.statistic), float(res.pvalue)


# The long-range-dependent variables: (d, noise-ratio intercept, slope) of their drivers.
LRD_PARAMS = {"gap": (0.33, 0.333, 0.414), "request": (0.31, 0.123, 0.494), "request_sequence": (0.31, 0.123, 0.494)}


def lrd_shift_sd(key: str, rate: float, n: int) -> float:
    """The standard deviation of the KS distance that two independent samples of n values
    of a long-range-dependent variable get from their levels alone. The driver's sample
    mean has variance f·V_n, with f = 1 − logit⁻¹(a + b·log₂r) the series' share of the
    unit variance and V_n the variance of the mean of n values of the normalised
    x_t + x_{t−1} fractional-noise sum (from its autocorrelations); two samples differ by
    √2 times that, which moves a CDF by at most φ(0) ≈ 0.4 times the shift."""
    from math import lgamma, exp, log2, sqrt

    if key not in LRD_PARAMS:
        return 0.0
    d, a, b = LRD_PARAMS[key]
    f = 1 - 2 ** (a + b * log2(rate)) / (1 + 2 ** (a + b * log2(rate)))
    rho = [1.0] + [exp(lgamma(k + d) + lgamma(1 - d) - lgamma(k - d + 1) - lgamma(d)) for k in range(1, n + 2)]
    k = np.arange(1, n)
    ry = (2 * np.array(rho[1:n]) + np.array(rho[0:n - 1]) + np.array(rho[2:n + 1])) / (2 + 2 * rho[1])
    vn = (1 + 2 * np.sum((1 - k / n) * ry)) / n
    return 0.4 * sqrt(2) * sqrt(f * vn)


def ks_bound(key: str, rate: float, n: int, m: int, connections: int) -> float:
    """The KS distance the comparison allows: 1.95·√((n+m)/(n·m)), the two-sample critical
    value at α = 0.001 for independent samples, with
    - per-request request sizes counted once per connection (a persistent connection
      repeats its request size), and response sizes counted as half as many (they come in
      runs of cache validations and downloads of about two on average);
    - plus three standard deviations of the level difference long-range dependence gives
      two samples (`lrd_shift_sd`): at 15 connections/s it dominates."""
    if key == "request":
        n = m = min(n, m, connections)
    if key == "response":
        n, m = n / 2, m / 2
    return 1.95 * np.sqrt((n + m) / (n * m)) + 3 * lrd_shift_sd(key, rate, int(min(n, m)))


def lag1_rank(x) -> float:
    from scipy.stats import spearmanr

    x = np.asarray(x, dtype=float)
    return float(spearmanr(x[:-1], x[1:]).statistic)


VARIABLES = (("request", "request size (B), per request"), ("request_sequence", "request size (B), per connection"),
             ("response", "response size (B)"), ("gap", "connection gap (ms)"),
             ("per_connection", "requests per connection"))
QUANTILES = (0.1, 0.5, 0.9, 0.99)


def compare(rate: float, connections: int, seed: int = 1) -> dict:
    theirs = run_ns2(rate, connections, seed)
    ours = run_tcplab(rate, connections, seed)
    iid = run_tcplab(rate, connections, seed, lrd=False)
    rows = {}
    for key, _ in VARIABLES:
        a, b = ours[key], theirs[key]
        d, p = ks(a, b)
        bound = ks_bound(key, rate, len(a), len(b), min(ours["connections"], theirs["connections"]))
        rows[key] = {"n": (len(a), len(b)), "ks": d, "p": p, "bound": bound,
                     "mean": (float(np.mean(a)), float(np.mean(b))),
                     "quantiles": [(float(np.quantile(a, q)), float(np.quantile(b, q))) for q in QUANTILES]}
    lrd = {
        "gap": (lag1_rank(theirs["gap"]), lag1_rank(ours["gap"]), lag1_rank(iid["gap"])),
        "request_sequence": (lag1_rank(theirs["request_sequence"]), lag1_rank(ours["request_sequence"]),
                             lag1_rank(iid["request_sequence"])),
    }
    iid_ks = {key: ks(iid[key], theirs[key])[0] for key in ("request", "response", "gap")}
    return {"rate": rate, "rows": rows, "ours": ours, "theirs": theirs, "lrd": lrd, "iid_ks": iid_ks}


def fmt(key: str, v: float, mean: bool = False) -> str:
    if key == "gap":
        return f"{v * 1000:.3g}"
    if key == "per_connection":
        return f"{v:.3f}" if mean else f"{v:.0f}"
    return f"{v:.0f}"


def markdown(results: list[dict], connections: int, seed: int) -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip() or "unknown"
    # The docs being regenerated do not count as changes.
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs"],
                           cwd=ROOT, capture_output=True, text=True).stdout.strip()
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [f"Generated by `tests/packmime_ns2_report.py` on {now}, commit {commit}"
           f"{' (with uncommitted changes)' if dirty else ''}; about {connections} connections per rate "
           f"and simulator, seed {seed}; ns-2.35 (`ns`) PackMime-HTTP with HTTP/1.1.", ""]
    for r in results:
        rate = r["rate"]
        o, t = r["ours"], r["theirs"]
        out += [f"**{rate:g} connections/s.** tcplab: {o['connections']} connections, {o['requests']} requests "
                f"({o['mean_per_connection']:.3f} per connection); ns-2: {t['connections']} connections, "
                f"{t['requests']} requests ({t['mean_per_connection']:.3f} per connection).", "",
                "| variable | n tcplab / ns-2 | mean tcplab / ns-2 | " + " | ".join(f"q{q:g} tcplab / ns-2" for q in QUANTILES)
                + " | KS D | KS p | bound |",
                "|---|---|---|" + "---|" * len(QUANTILES) + "---|---|---|"]
        for key, label in VARIABLES:
            x = r["rows"][key]
            qs = " | ".join(f"{fmt(key, a)} / {fmt(key, b)}" for a, b in x["quantiles"])
            means = " / ".join(fmt(key, m, mean=True) for m in x["mean"])
            out.append(f"| {label} | {x['n'][0]} / {x['n'][1]} | {means} | {qs} | "
                       f"{x['ks']:.4f} | {x['p']:.3g} | {x['bound']:.4f} |")
        out.append("")
    out += ["**Long-range dependence** (lag-1 rank autocorrelation; ns-2's from its random variables drawn in "
            "sequence, tcplab's from the runs above, `lrd = true`, and the same runs with `lrd = false`), and "
            "the KS distance of the i.i.d. runs' marginals to ns-2's:", "",
            "| rate | gaps: ns-2 / tcplab / tcplab i.i.d. | request sizes: ns-2 / tcplab / tcplab i.i.d. | "
            "i.i.d. KS D request / response / gap |", "|---|---|---|---|"]
    for r in results:
        g, q = r["lrd"]["gap"], r["lrd"]["request_sequence"]
        k = r["iid_ks"]
        out.append(f"| {r['rate']:g} | {g[0]:.3f} / {g[1]:.3f} / {g[2]:.3f} | {q[0]:.3f} / {q[1]:.3f} / {q[2]:.3f} | "
                   f"{k['request']:.4f} / {k['response']:.4f} / {k['gap']:.4f} |")
    return "\n".join(out) + "\n"


def write_doc(text: str, begin: str = BEGIN, end: str = END) -> None:
    doc = DOC.read_text()
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    if not pattern.search(doc):
        raise SystemExit(f"{DOC}: no {begin} ... {end} section")
    DOC.write_text(pattern.sub(lambda _: f"{begin}\n{text}{end}", doc))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"{QUICK_CONNECTIONS} connections per rate")
    ap.add_argument("--large", action="store_true", help=f"{LARGE_CONNECTIONS} connections at 150 and 1500/s")
    ap.add_argument("--print", action="store_true", help="print instead of writing docs/web-traffic.md")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if not ns2_available():
        raise SystemExit("ns (ns-2.35) is not installed")
    n = QUICK_CONNECTIONS if args.quick else LARGE_CONNECTIONS if args.large else CONNECTIONS
    results = []
    for rate in LARGE_RATES if args.large else RATES:
        print(f"rate {rate:g}...", file=sys.stderr)
        results.append(compare(rate, n, args.seed))
    text = markdown(results, n, args.seed)
    if args.print:
        print(text)
    elif args.large:
        write_doc(text, LARGE_BEGIN, LARGE_END)
    else:
        write_doc(text)
        print(f"wrote {DOC}", file=sys.stderr)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
