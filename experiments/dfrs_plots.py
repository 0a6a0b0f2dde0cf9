"""The DFRS paper's figures from aggregated tables: Fig. 1 and the period sweeps (Figs 3, 4)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from allockit.experiments.dfrs_paper import BEST

__all__ = ["plot_fig1", "plot_period_sweep"]

_SET_LABELS = {"real": "Real-world (HPC2N weeks)", "unscaled": "Unscaled", "scaled": "Scaled"}


def plot_fig1(table: dict[str, Any], path: str | Path) -> Path:
    """Fig. 1: average degradation from bound vs load (log scale).

    One line per algorithm with scaled-trace data.

    Parameters
    ----------
    table : dict
        The output of ``aggregate`` (``"fig1"`` for the paper's algorithms).
    path : str or Path
        The PNG file to write; its directory is created if needed.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    SolverUnavailableError
        If matplotlib is not installed (``pip install 'allockit[plot]'``).

    Examples
    --------
    >>> import tempfile
    >>> table = {"rows": {"EASY": {"scaled": {"degradation_by_load": {"0.5": 3.0,
    ...                                                               "0.9": 10.0}}}}}
    >>> plot_fig1(table, Path(tempfile.mkdtemp(), "fig1.png")).name
    'fig1.png'
    """
    from allockit.experiments.plots import _pyplot, save_figure

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, entry in table["rows"].items():
        by = entry.get("scaled", {}).get("degradation_by_load", {})
        if by:
            xs = sorted(by, key=float)
            ax.plot([float(x) for x in xs], [by[x] for x in xs], marker="o", label=name)
    ax.set_yscale("log")
    ax.set_xlabel("load")
    ax.set_ylabel("average degradation from bound")
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_figure(fig, out, dpi=120)
    plt.close(fig)
    return out


def plot_period_sweep(table: dict[str, Any], path: str | Path) -> Path:
    """Fig. 3 or Fig. 4: underutilisation or degradation vs the period, one panel per set.

    Parameters
    ----------
    table : dict
        The output of ``aggregate`` for ``"fig3"`` or ``"fig4"``.
    path : str or Path
        The PNG file to write; its directory is created if needed.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    SolverUnavailableError
        If matplotlib is not installed (``pip install 'allockit[plot]'``).

    Examples
    --------
    >>> import tempfile
    >>> row = {"real": {"underutilization": {"avg": 0.1, "n": 1}}}
    >>> table = {"experiment": "fig3", "rows": {"EASY": row, f"{BEST[1]} @ 600 s": row}}
    >>> plot_period_sweep(table, Path(tempfile.mkdtemp(), "fig3.png")).name
    'fig3.png'
    """
    from allockit.experiments.plots import _pyplot, save_figure

    plt = _pyplot()
    metric = "underutilization" if table["experiment"] == "fig3" else "degradation"
    sets = [
        x for x in ("real", "unscaled", "scaled") if any(x in e for e in table["rows"].values())
    ]
    fig, axes = plt.subplots(1, max(1, len(sets)), figsize=(4 * max(1, len(sets)), 3.2))
    axes = np.atleast_1d(axes)
    for ax, set_name in zip(axes, sets, strict=False):
        points = []
        for name, entry in table["rows"].items():
            if set_name not in entry or " @ " not in name:
                continue
            period = float(name.split(" @ ")[1].split()[0])
            points.append((period, entry[set_name][metric]["avg"]))
        points.sort()
        if points:
            ax.plot([p for p, _ in points], [v for _, v in points], "o-", label=BEST[1])
        easy = table["rows"].get("EASY", {}).get(set_name, {}).get(metric)
        if easy is not None:
            ax.axhline(easy["avg"], color="k", lw=1, label="EASY")
        ax.set_xlabel("period (s)")
        ax.set_title(_SET_LABELS[set_name])
    axes[0].set_ylabel(
        "normalised underutilisation" if metric == "underutilization" else "degradation from bound"
    )
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    save_figure(fig, out, dpi=120)
    plt.close(fig)
    return out
