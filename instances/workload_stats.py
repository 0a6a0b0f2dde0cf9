"""Summary statistics of a workload, as JSON-safe values (``allockit workload stats``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload

__all__ = ["workload_statistics"]


def _num(value: Any) -> float | None:
    """A finite float, or None (JSON has no NaN or infinity)."""
    value = float(value)
    return value if math.isfinite(value) else None


def workload_statistics(workload: Workload) -> dict[str, Any]:
    """Size, runtime, arrival and load statistics of ``workload``.

    Parameters
    ----------
    workload : Workload

    Returns
    -------
    dict
        JSON-safe (no NaN or infinity: an undefined value is None):

        - ``jobs``, ``nodes``, ``cores``;
        - ``offered_load``: ``Workload.offered_load()`` (work weighed by ``cpu``);
        - ``span_seconds``: last minus first submit time;
        - ``tasks``: ``mean``, ``median``, ``max`` and ``serial_fraction`` (share of
          one-task jobs);
        - ``runtime``: ``mean``, ``median``, ``max`` (s);
        - ``requested_time_known``: share of jobs with a requested time;
        - ``power_of_two_fraction``: share of jobs whose task count is 2, 4, 8, ...
          (one-task jobs do not count);
        - ``mean_interarrival``, ``median_interarrival``: between consecutive submits (s);
        - ``process_load``: ``sum(runtime * tasks) / (nodes * cores * span)``, the load
          counting every task as one whole core (the MEASY ``--load`` on single-core
          nodes, whatever the CPU usage);
        - ``chained_fraction``: share of jobs that wait for a preceding job (SWF field 17).

    Raises
    ------
    InvalidInputError
        If ``workload`` is not a Workload.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=4), submit=[0, 10, 30], runtime=[100, 50, 10],
    ...                        tasks=[1, 2, 3], cpu=[1.0, 0.5, 1.0], mem=[0.1] * 3)
    >>> s = workload_statistics(w)
    >>> s["tasks"]["mean"], s["tasks"]["max"], s["power_of_two_fraction"], s["mean_interarrival"]
    (2.0, 3, 0.3333333333333333, 15.0)
    >>> s["offered_load"], round(s["process_load"], 4)
    (1.5, 1.9167)
    """
    if not isinstance(workload, Workload):
        raise InvalidInputError(f"workload must be a Workload; got {type(workload).__name__}")
    p = workload.platform
    n = workload.n_jobs
    out: dict[str, Any] = {"jobs": n, "nodes": p.nodes, "cores": p.cores}
    if n == 0:
        out.update(
            offered_load=None,
            span_seconds=None,
            tasks={"mean": None, "median": None, "max": None, "serial_fraction": None},
            runtime={"mean": None, "median": None, "max": None},
            requested_time_known=None,
            power_of_two_fraction=None,
            mean_interarrival=None,
            median_interarrival=None,
            process_load=None,
            chained_fraction=None,
        )
        return out
    size = workload.tasks
    runtime = workload.runtime
    span = float(workload.submit[-1] - workload.submit[0])
    gaps = np.diff(workload.submit)
    busy_span = span if span > 0 else float(runtime.max())
    out.update(
        offered_load=_num(workload.offered_load()),
        span_seconds=_num(span),
        tasks={
            "mean": _num(size.mean()),
            "median": _num(np.median(size)),
            "max": int(size.max()),
            "serial_fraction": _num((size == 1).mean()),
        },
        runtime={
            "mean": _num(runtime.mean()),
            "median": _num(np.median(runtime)),
            "max": _num(runtime.max()),
        },
        requested_time_known=_num(np.isfinite(workload.requested_time).mean()),
        power_of_two_fraction=_num(((size >= 2) & ((size & (size - 1)) == 0)).mean()),
        mean_interarrival=_num(gaps.mean()) if gaps.size else None,
        median_interarrival=_num(np.median(gaps)) if gaps.size else None,
        process_load=_num((runtime * size).sum() / (p.nodes * p.cores * busy_span)),
        chained_fraction=_num((workload.preceding > 0).mean()),
    )
    return out
