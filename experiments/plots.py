"""The paper's figures for a comparison (matplotlib, optional: ``allockit[plot]``)."""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

from allockit.errors import SolverUnavailableError

__all__ = ["plot_comparison", "plot_simulation", "save_figure"]


def _pyplot() -> Any:
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        raise SolverUnavailableError("plots need matplotlib: pip install 'allockit[plot]'")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


#: Formats matplotlib writes, by file suffix.
FIGURE_FORMATS = ("png", "svg", "pdf", "jpg", "jpeg", "eps", "ps", "tif", "tiff", "webp")


def save_figure(fig: Any, path: str | Path, *, dpi: int = 120) -> Path:
    """Save ``fig`` to exactly ``path``: the suffix's format, else PNG; the path returned.

    matplotlib appends ``.png`` to a name without a suffix and refuses a suffix it does
    not know; with the format given, the file written is always the one named (and the
    one a command reports).

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    path : str or Path
        Where to write it (its folder must exist).
    dpi : int, default 120
        Resolution of raster formats.

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    >>> import os, tempfile
    >>> plt = _pyplot()
    >>> fig = plt.figure()
    >>> out = save_figure(fig, os.path.join(tempfile.mkdtemp(), "shares"))
    >>> out.name, out.read_bytes()[1:4]
    ('shares', b'PNG')
    >>> plt.close(fig)
    """
    out = Path(path)
    suffix = out.suffix.lower().lstrip(".")
    fig.savefig(out, dpi=dpi, format=suffix if suffix in FIGURE_FORMATS else "png")
    return out


def _series(flat, x_key, y_key, *, ok_only=True):
    data: dict[str, dict[float, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in flat:
        if x_key not in row or (ok_only and row["failed"]):
            continue
        value = row[y_key]
        if value is None:
            continue
        data[row["method"]][row[x_key]].append(float(value))
    return {m: sorted((x, statistics.fmean(v)) for x, v in xs.items()) for m, xs in data.items()}


def plot_comparison(flat: list[dict[str, Any]], out_dir: str | Path) -> list[Path]:
    """Draw min yield, average yield and failure rate vs slack, and run time vs jobs.

    Needs instances named as in the paper's sets (slack and job count in the stem);
    returns the PNG files written.

    One line per method (dashed for the ``lp`` bound), points averaged over the
    instances with the same slack or job count; yields only over solved instances.
    A figure without data is not written.

    Parameters
    ----------
    flat : list of dict
        Rows from ``allockit.experiments.compare.comparison_rows`` (with ``slack`` and
        ``jobs``).
    out_dir : str or Path
        Directory for the PNG files, created if needed.

    Returns
    -------
    list of Path
        Among ``min_yield_vs_slack.png``, ``avg_yield_vs_slack.png``,
        ``failures_vs_slack.png`` and ``runtime_vs_jobs.png``, those written.

    Raises
    ------
    SolverUnavailableError
        If matplotlib is not installed (``pip install 'allockit[plot]'``).

    Examples
    --------
    >>> import tempfile
    >>> flat = [{"method": m, "failed": False, "slack": slack, "jobs": 6, "min_yield": y,
    ...          "avg_yield": y, "seconds": 0.01}
    ...         for m, y in (("milp", 0.8), ("mcb8", 0.7)) for slack in (0.1, 0.5)]
    >>> [p.name for p in plot_comparison(flat, tempfile.mkdtemp())]
    ['min_yield_vs_slack.png', 'avg_yield_vs_slack.png', 'failures_vs_slack.png', \
'runtime_vs_jobs.png']
    """
    plt = _pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    failed = [dict(r, failure=100.0 * r["failed"]) for r in flat]
    figures = [
        (
            "min_yield_vs_slack.png",
            _series(flat, "slack", "min_yield"),
            "slack",
            "mean minimum yield",
        ),
        (
            "avg_yield_vs_slack.png",
            _series(flat, "slack", "avg_yield"),
            "slack",
            "mean average yield",
        ),
        (
            "failures_vs_slack.png",
            _series(failed, "slack", "failure", ok_only=False),
            "slack",
            "failure rate (%)",
        ),
        (
            "runtime_vs_jobs.png",
            _series(flat, "jobs", "seconds", ok_only=False),
            "jobs",
            "mean run time (s)",
        ),
    ]
    written = []
    for name, series, xlabel, ylabel in figures:
        if not series:
            continue
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        for method, points in sorted(series.items()):
            xs, ys = zip(*points, strict=True)
            style = "--" if method == "lp" else "-"
            ax.plot(xs, ys, style, marker="o", markersize=3, label=method)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if name.startswith("runtime"):
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        written.append(out / name)
    return written


def plot_simulation(result: Any, out_dir: str | Path) -> list[Path]:
    """Utilisation and demand over time, and the stretch distribution, of a simulation.

    Writes ``utilization.png`` (allocated CPU and CPU demand, in nodes, as step functions
    of time; for DFRS runs also the allocated CPU that made progress and the part given
    to jobs serving a penalty) and ``stretch.png`` (the empirical
    distribution of the bounded stretch, log scale). Returns the paths written.

    Parameters
    ----------
    result : SimulationResult
        A simulation's result (``allockit.simulation``): uses ``algorithm``,
        ``timeline``, ``stretch``, ``max_stretch`` and ``extra["progress_timeline"]``.
    out_dir : str or Path
        Directory for the PNG files, created if needed.

    Returns
    -------
    list of Path
        ``utilization.png`` and ``stretch.png``.

    Raises
    ------
    SolverUnavailableError
        If matplotlib is not installed (``pip install 'allockit[plot]'``).

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from allockit.instances.workload import Platform, Workload
    >>> from allockit.results import SimulationResult
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[100, 100],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.4, 0.4])
    >>> r = SimulationResult.from_schedule(
    ...     w, "FCFS", np.array([0.0, 100.0]), np.array([100.0, 200.0]),
    ...     underutilization=0.0, seconds=0.01,
    ...     timeline=np.array([[0.0, 1.0, 2.0], [100.0, 1.0, 1.0], [200.0, 0.0, 0.0]]))
    >>> [p.name for p in plot_simulation(r, tempfile.mkdtemp())]
    ['utilization.png', 'stretch.png']
    """
    import numpy as np

    plt = _pyplot()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    timeline = result.timeline
    fig, ax = plt.subplots(figsize=(8, 3.5))
    if timeline is not None and len(timeline):
        hours = (timeline[:, 0] - timeline[0, 0]) / 3600.0
        ax.step(hours, timeline[:, 2], where="post", label="CPU demand", lw=0.8)
        ax.step(hours, timeline[:, 1], where="post", label="allocated CPU", lw=0.8)
        progress = result.extra.get("progress_timeline")
        if progress is not None and len(progress):
            moving = np.asarray(progress)
            ax.step(hours, moving[:, 1], where="post", label="progressing CPU", lw=0.8)
            ax.step(
                hours,
                timeline[:, 1] - moving[:, 1],
                where="post",
                label="CPU serving a penalty",
                lw=0.8,
            )
    ax.set_xlabel("time since first submission (h)")
    ax.set_ylabel("nodes")
    ax.set_title(f"{result.algorithm}: utilisation and demand")
    ax.legend(loc="upper right")
    fig.tight_layout()
    paths.append(out / "utilization.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(5, 3.5))
    stretch = np.sort(result.stretch)
    ax.step(stretch, np.arange(1, stretch.size + 1) / stretch.size, where="post")
    ax.set_xscale("log")
    ax.set_xlabel("bounded stretch")
    ax.set_ylabel("fraction of jobs")
    ax.set_title(f"{result.algorithm}: max {result.max_stretch:.3g}")
    fig.tight_layout()
    paths.append(out / "stretch.png")
    fig.savefig(paths[-1], dpi=120)
    plt.close(fig)
    return paths
