"""Plot helpers: matplotlib (Agg), axes labelled with units, saved as PNG and SVG."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def new(title: str, xlabel: str, ylabel: str, size=(6.4, 4.0)):
    fig, ax = plt.subplots(figsize=size)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    return fig, ax


def errorbars(df: pd.DataFrame, x: str, y: str, err: str, group: str | None, title: str, xlabel: str, ylabel: str,
              group_label: str = ""):
    """Mean ± CI against x, one line per group."""
    fig, ax = new(title, xlabel, ylabel)
    groups = [(None, df)] if group is None else list(df.groupby(group))
    for key, g in groups:
        g = g.sort_values(x)
        ax.errorbar(g[x], g[y], yerr=g[err].fillna(0), marker="o", capsize=3,
                    label=None if key is None else f"{group_label}{key}")
    if group is not None:
        ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def versus(x, y, title: str, xlabel: str, ylabel: str, log: bool = True):
    """Scatter of y against x with the y = x line (model against measurement)."""
    fig, ax = new(title, xlabel, ylabel)
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ax.scatter(x, y, s=12, alpha=0.7)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    if ok.any():
        lo, hi = min(x[ok].min(), y[ok].min()), max(x[ok].max(), y[ok].max())
        ax.plot([lo, hi], [lo, hi], "k--", linewidth=1, label="y = x")
        ax.legend(fontsize="small")
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    fig.tight_layout()
    return fig


def save(fig, directory: str | Path, name: str) -> list[Path]:
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    paths = [d / f"{name}.png", d / f"{name}.svg"]
    fig.savefig(paths[0], dpi=110)
    fig.savefig(paths[1])
    plt.close(fig)
    return paths
