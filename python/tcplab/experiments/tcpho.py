"""TCP-HO and handoffs (thesis of Wu Xiuchao, chapter 2).

``tcpho_estimation_error``: Fig. 2.15 from the model of §2.6.2 (eqs. 2.1 and 2.2,
:mod:`tcplab.models.handoff`): how many segments more than TCP TCP-HO sends until the new link is
well used, when the mobile host's bandwidth estimate has a normal error of σ = 5 … 50 % of the
new path's BDP b̂, for the thesis's four (b̂, ĉ) cases. The thesis's figure has no numbers that
survive; its claims are qualitative, so there are no ``paper:`` columns, and the verdicts are
exact (a deterministic model has no replications). Readings of the claims, chosen here:

- "insensitive for U-VH, the large gain persists": at σ = 0.5 b̂ the gain is positive and at
  least 80 % of the gain at σ = 0.05 b̂;
- "slightly worse than TCP for H-HH under large error": at σ ≥ 0.3 b̂ the gain is negative, and
  at σ = 0.5 b̂ the loss is less than 3 b̂ segments (a few windows of the new path).
"""
from __future__ import annotations

from tcplab import plots
from tcplab.experiments import Analysis, Figure, Plan, Table, experiment
from tcplab.models import handoff as ho
from tcplab.verdicts import deterministic

THESIS = "thesis of Wu Xiuchao, chapter 2 (TCP-HO)"
MODEL_RULE = "eqs. 2.1/2.2, midpoint rule from 1e-9; deterministic, every σ"


@experiment("tcpho_estimation_error", "TCP-HO's gain over TCP under bandwidth-estimation error, from the "
            "model of §2.6.2 (Fig. 2.15)", THESIS)
def tcpho_estimation_error(size: str) -> Plan:
    steps = 20_000 if size == "quick" else ho.STEPS
    return Plan(runs=[], analyse=lambda done: analyse_estimation_error(steps),
                parameters={"cases (handoff, b, c)": [list(c) for c in ho.FIG_2_15_CASES],
                            "sigma/b": list(ho.FIG_2_15_SIGMAS), "integration steps": steps})


def estimation_claims(t) -> list[str]:
    out = []
    for kind, b, c in ho.FIG_2_15_CASES:
        g = t[(t["b"] == b) & (t["c"] == c)].set_index("sigma/b")["gain (segments)"]
        lo, hi = g[min(g.index)], g[max(g.index)]
        if kind == "U-VH":
            holds = hi > 0 and hi >= 0.8 * lo
            claim = f"U-VH (b̂ {b}, ĉ {c}): TCP-HO's large gain persists under estimation error"
            detail = f"gain {lo:.1f} at σ 5 %, {hi:.1f} at σ 50 % (needs > 0 and ≥ 80 % of the first)"
        else:
            large = g[g.index >= 0.3]
            holds = bool((large < 0).all()) and hi > -3 * b
            claim = f"H-HH (b̂ {b}, ĉ {c}): TCP-HO is slightly worse than TCP under large estimation error"
            detail = (f"gain {', '.join(f'{v:.1f}' for v in large)} at σ ≥ 30 % (needs < 0), "
                      f"{hi:.1f} at σ 50 % (needs > −3 b̂ = {-3 * b})")
        out.append(str(deterministic(bool(holds), f"model: {claim}", f"{MODEL_RULE}; {detail}")))
    return out


def analyse_estimation_error(steps: int) -> Analysis:
    t = ho.fig_2_15(steps=steps)
    fig, ax = plots.new("TCP-HO against TCP under bandwidth-estimation error (model, Fig. 2.15)",
                        "σ / b̂", "segments TCP-HO sends more than TCP")
    for (kind, b, c), g in t.groupby(["handoff", "b", "c"], sort=False):
        ax.plot(g["sigma/b"], g["gain (segments)"], marker="o", label=f"{kind} (b̂ {b}, ĉ {c})")
    ax.axhline(0, color="k", linewidth=0.8)
    ax.set_yscale("symlog", linthresh=100)
    ax.legend(fontsize="small")
    fig.tight_layout()
    return Analysis(
        tables=[Table("estimation_error", "TCP-HO's gain over TCP (segments) by estimation error, eqs. 2.1/2.2",
                      t.round({"gain (segments)": 1}),
                      note="Computed from the model; the thesis's figure has no surviving numbers.")],
        figures=[Figure("fig_2_15", "Fig. 2.15 from the model", fig)],
        findings=estimation_claims(t))
