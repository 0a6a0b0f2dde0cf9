"""Plot a cluster simulation's shares over time, as Li and Parker's Figs 4-8 do."""

from __future__ import annotations

from typing import Any

from allockit.results import ClusterSimResult

__all__ = ["plot_shares"]


def plot_shares(result: ClusterSimResult, *, ax: Any = None, title: str | None = None) -> Any:
    """Draw each class's cluster-wide share against time, targets dashed.

    Restarts of a stopped class are marked with red vertical lines (the paper's Fig. 8),
    failures with grey ones, the warm-up is shaded. Nothing is written: the caller saves
    the figure (``fig.savefig(path)``).

    Parameters
    ----------
    result : ClusterSimResult
    ax : matplotlib Axes, optional
        Where to draw (a new figure by default).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    SolverUnavailableError
        If matplotlib is not installed (``pip install allockit[plot]``).

    Examples
    --------
    >>> from allockit.simulation.cluster import simulate_cluster
    >>> from allockit.simulation.cluster_scenarios import fig4
    >>> res = simulate_cluster(fig4(duration=3.0, warmup=1.0), seed=0)
    >>> fig = plot_shares(res)
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['class 1', 'class 2', 'class 3']
    """
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - optional dependency
        from allockit.errors import SolverUnavailableError

        raise SolverUnavailableError(
            "plotting needs matplotlib: pip install allockit[plot]"
        ) from exc
    if ax is None:  # a bare Figure: no pyplot state, no backend switch
        fig = Figure(figsize=(8, 4))
        ax = fig.subplots()
    else:
        fig = ax.figure
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    for j in range(len(result.targets)):
        color = colors[j % len(colors)]
        ax.plot(result.times, result.shares[:, j], color=color, label=f"class {j + 1}")
        ax.axhline(result.targets[j], color=color, linestyle="--", linewidth=0.8)
    warmup = float(result.config.get("warmup", 0.0))
    if warmup > 0:
        ax.axvspan(0.0, warmup, color="0.9", zorder=0)
    for kind, at in zip(result.event_kind, result.event_time, strict=True):
        ax.axvline(at, color="red" if kind == "restart" else "0.5", linewidth=1.0)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cluster-wide share of the work served (%)")
    ax.set_ylim(0, 100)
    ax.legend(loc="upper right")
    if title:
        ax.set_title(title)
    return fig
