"""Plots of the two-tier (MEASY) family: tier utilisation over time and Figs 6-14.

matplotlib is optional (``allockit[plot]``); without it the functions raise
``SolverUnavailableError`` with the install line, as ``experiments.plots`` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["plot_measy_figure", "plot_tiers"]


def _pyplot() -> Any:
    from allockit.experiments.plots import _pyplot as pyplot

    return pyplot()


def plot_tiers(result: Any, out_dir: str | Path) -> Path:
    """Busy fg and bg VMs over time of a two-tier simulation, as ``tiers.png``.

    Parameters
    ----------
    result : SimulationResult
        A result of ``simulate_two_tier`` (``extra["tier_timeline"]`` rows
        ``(time, busy fg VMs, busy bg VMs)``); its ``timeline`` gives the unfinished
        processes (the demand).
    out_dir : str or Path
        Directory to write to (created if needed).

    Returns
    -------
    Path
        The PNG written.

    Raises
    ------
    SolverUnavailableError
        If matplotlib is not installed.

    Examples
    --------
    >>> import tempfile
    >>> from allockit.instances.workload import Platform, Workload
    >>> from allockit.simulation.two_tier import simulate_two_tier
    >>> w = Workload.from_jobs(Platform(nodes=2), submit=[0, 1], runtime=[50, 50],
    ...                        tasks=[1, 2], cpu=[0.5, 0.5], mem=[0.1, 0.1])
    >>> plot_tiers(simulate_two_tier(w, "MEASY", seed=0), tempfile.mkdtemp()).name
    'tiers.png'
    """
    import numpy as np

    plt = _pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tiers = np.asarray(result.extra.get("tier_timeline", np.zeros((0, 3))), dtype=float)
    processors = result.extra.get("summary_processors")
    fig, ax = plt.subplots(figsize=(8, 3.5))
    if len(tiers):
        hours = (tiers[:, 0] - tiers[0, 0]) / 3600.0
        ax.step(hours, tiers[:, 1], where="post", lw=0.8, label="busy fg VMs")
        ax.step(hours, tiers[:, 2], where="post", lw=0.8, label="busy bg VMs")
        if result.timeline is not None and len(result.timeline) == len(tiers):
            demand = np.asarray(result.timeline)[:, 2]
            if processors:
                demand = np.minimum(demand, processors)
            ax.step(hours, demand, where="post", lw=0.6, ls=":", label="processes (capped)")
    if processors:
        ax.axhline(processors, color="grey", lw=0.5)
    fg = result.extra.get("summary_fg_utilization", float("nan"))
    bg = result.extra.get("summary_bg_utilization", float("nan"))
    ax.set_title(f"{result.algorithm}: fg {fg:.1%}, bg {bg:.1%} of processor time")
    ax.set_xlabel("time since first submission (h)")
    ax.set_ylabel("VMs")
    ax.legend(loc="upper right", fontsize=7)
    fig.tight_layout()
    path = out / "tiers.png"
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_measy_figure(table: dict[str, Any], path: str | Path) -> Path:
    """One of the MEASY paper's figures from ``experiments.measy.aggregate``'s table.

    Load figures (6, 7, 9-12, traces): mean response time and mean bounded slowdown
    against load (or trace), one line per algorithm, with the 95 % batch-means
    intervals as error bars. Fig. 8: migrations per job against load, one line per
    workload. Figs 13-14: MEASY's response time and slowdown relative to KEASY against
    the migration cost, one line per load.

    Parameters
    ----------
    table : dict
        ``aggregate``'s output for one figure.
    path : str or Path
        PNG to write (its folder is created).

    Returns
    -------
    Path

    Raises
    ------
    SolverUnavailableError
        If matplotlib is not installed.

    Examples
    --------
    >>> import os, tempfile
    >>> table = {"figure": "fig6", "title": "FWload", "kind": "load", "series": {
    ...     "EASY": {"0.5": {"mean_response_time": 10.0, "mean_bounded_slowdown": 2.0}},
    ...     "MEASY": {"0.5": {"mean_response_time": 8.0, "mean_bounded_slowdown": 1.5}}}}
    >>> p = plot_measy_figure(table, os.path.join(tempfile.mkdtemp(), "f.png"))
    >>> p.exists()
    True
    """
    plt = _pyplot()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    kind = table.get("kind", "load")
    series: dict[str, dict[str, dict[str, Any]]] = table.get("series", {})
    if kind == "migrations":
        fig, axes = plt.subplots(1, 1, figsize=(6, 4))
        axes = [axes]
        panels = [("migrations_per_job", "migrations per job")]
    elif kind == "cost":
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        panels = [
            ("response_vs_keasy", "MEASY / KEASY mean response time"),
            ("slowdown_vs_keasy", "MEASY / KEASY mean bounded slowdown"),
        ]
    else:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        panels = [
            ("mean_response_time", "mean response time (s)"),
            ("mean_bounded_slowdown", "mean bounded slowdown"),
        ]
    for ax, (key, label) in zip(axes, panels, strict=True):
        for name, points in series.items():
            xs = list(points)
            try:
                order = sorted(xs, key=float)
                numeric = True
            except ValueError:
                order, numeric = xs, False
            values = [points[x].get(key) for x in order]
            if all(v is None for v in values):
                continue
            xv = [float(x) for x in order] if numeric else list(range(len(order)))
            ys = [float("nan") if v is None else float(v) for v in values]
            ci_key = {
                "mean_response_time": "response_time_ci95",
                "mean_bounded_slowdown": "bounded_slowdown_ci95",
            }.get(key)
            ci = [points[x].get(ci_key) if ci_key else None for x in order]
            if ci_key and all(c and None not in c for c in ci):
                # the interval is around the post-warm-up batch-means estimate, the point
                # is the mean over all jobs: bars are clipped at the point
                low = [max(0.0, y - c[0]) for y, c in zip(ys, ci, strict=True)]
                if key == "mean_bounded_slowdown":  # log axis: keep the bars above 0
                    low = [min(d, 0.9 * y) for d, y in zip(low, ys, strict=True)]
                high = [max(0.0, c[1] - y) for y, c in zip(ys, ci, strict=True)]
                ax.errorbar(xv, ys, yerr=[low, high], marker="o", ms=3, capsize=2, label=name)
            else:
                ax.plot(xv, ys, marker="o", ms=3, label=name)
            if not numeric:
                ax.set_xticks(xv, order, rotation=30, fontsize=7)
        if kind == "cost":
            ax.axhline(1.0, color="grey", lw=0.6)
            ax.set_xlabel("migration cost (s)")
        elif kind in ("load", "migrations"):
            ax.set_xlabel("load")
        if key == "mean_bounded_slowdown":
            ax.set_yscale("log")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"{table.get('figure', '')}: {table.get('title', '')}", fontsize=10)
    fig.tight_layout()
    from allockit.experiments.plots import save_figure

    save_figure(fig, out, dpi=120)
    plt.close(fig)
    return out
