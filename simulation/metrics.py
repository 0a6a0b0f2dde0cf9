"""Schedule metrics shared by the simulators: underutilisation and the CPU timeline.

The per-job metrics of a result (bounded stretch and slowdown) are in the results
layer, ``allockit.results.job_metrics``.
"""

from __future__ import annotations

import numpy as np

from allockit.checks import first_bad_entry, real_array
from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload

__all__ = ["batch_timeline", "underutilization"]


def _checked_schedule(
    workload: Workload, start: object, end: object
) -> tuple[np.ndarray, np.ndarray]:
    """``start`` and ``end`` as float arrays of one finite time per job, ``end >= start``."""
    start, end = real_array("start", start), real_array("end", end)
    for name, arr in (("start", start), ("end", end)):
        if arr.shape != (workload.n_jobs,):
            raise InvalidInputError(
                f"{name} must have one time per job ({workload.n_jobs}); got shape {arr.shape}"
            )
        first_bad_entry(name, arr, np.isfinite(arr), "a finite time (s)")
    first_bad_entry("end", end, end >= start, "at or after its job's start")
    return start, end


def underutilization(workload: Workload, start: np.ndarray, end: np.ndarray) -> float:
    """``integral of min(|P|, D(t)) - u(t) dt`` for an exclusive (batch) schedule (Sec. 6.4.1).

    ``D(t)`` sums the CPU needs (``cpu * tasks``) of jobs submitted and not completed;
    ``u(t)`` those of running jobs. Both are step functions of the event times.

    The CPU the platform could have used but did not (Casanova et al. 2011, Sec.
    6.4.1), integrated from the first to the last event.

    Parameters
    ----------
    workload : Workload
        The jobs (submit times in seconds, ``tasks``, ``cpu`` per task as a fraction of
        a node) and the platform (``nodes``).
    start, end : numpy.ndarray, shape (n_jobs,)
        Start and completion time of each job in seconds (a batch schedule: each job
        runs at full speed from start to end).

    Returns
    -------
    float
        Node-seconds of unused CPU (>= 0 for a valid schedule).

    Raises
    ------
    InvalidInputError
        If ``start`` or ``end`` is not one finite time per job, or a job ends before it
        starts.

    Examples
    --------
    One node; job 1 arrives at 5 s but waits until job 0 ends at 10 s, while the node
    could only have run one of them: nothing is lost. A 5 s idle gap is lost.

    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 5], runtime=[10, 10],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.1, 0.1])
    >>> underutilization(w, np.array([0.0, 10.0]), np.array([10.0, 20.0]))
    0.0
    >>> underutilization(w, np.array([0.0, 15.0]), np.array([10.0, 25.0]))
    5.0
    """
    start, end = _checked_schedule(workload, start, end)
    need = workload.cpu * workload.tasks
    # step functions as sorted change points (a sweep line: O(n log n))
    t_demand = np.concatenate([workload.submit, end])
    d_demand = np.concatenate([need, -need])
    t_used = np.concatenate([start, end])
    d_used = np.concatenate([need, -need])
    times = np.unique(np.concatenate([t_demand, t_used]))

    def level(at: np.ndarray, delta: np.ndarray) -> np.ndarray:
        order = np.argsort(at, kind="stable")
        steps = np.cumsum(delta[order])
        idx = np.searchsorted(at[order], times[:-1], side="right") - 1
        return np.where(idx >= 0, steps[np.maximum(idx, 0)], 0.0)

    demand = level(t_demand, d_demand)
    used = level(t_used, d_used)
    gap = np.minimum(workload.platform.nodes, demand) - used
    return float((gap * np.diff(times)).sum())


def batch_timeline(workload: Workload, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Rows ``(time, allocated CPU, CPU demand)`` after each event of a batch schedule.

    The data of the utilisation plots: allocated CPU counts running jobs, CPU demand
    counts jobs submitted and not completed; both in nodes (sums of ``cpu * tasks``).

    Parameters
    ----------
    workload : Workload
        The jobs (submit times in seconds, ``tasks``, ``cpu`` per task).
    start, end : numpy.ndarray, shape (n_jobs,)
        Start and completion time of each job in seconds.

    Returns
    -------
    numpy.ndarray, shape (n_events, 3)
        One row per distinct event time (submissions, starts, ends), sorted, with the
        levels just after that time.

    Raises
    ------
    InvalidInputError
        If ``start`` or ``end`` is not one finite time per job, or a job ends before it
        starts.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 5], runtime=[10, 10],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.1, 0.1])
    >>> batch_timeline(w, np.array([0.0, 10.0]), np.array([10.0, 20.0])).tolist()
    [[0.0, 1.0, 1.0], [5.0, 1.0, 2.0], [10.0, 1.0, 1.0], [20.0, 0.0, 0.0]]
    """
    start, end = _checked_schedule(workload, start, end)
    need = workload.cpu * workload.tasks
    times = np.unique(np.concatenate([workload.submit, start, end]))

    def level(at: np.ndarray, delta: np.ndarray) -> np.ndarray:
        order = np.argsort(at, kind="stable")
        steps = np.cumsum(delta[order])
        idx = np.searchsorted(at[order], times, side="right") - 1
        return np.where(idx >= 0, steps[np.maximum(idx, 0)], 0.0)

    used = level(np.concatenate([start, end]), np.concatenate([need, -need]))
    demand = level(np.concatenate([workload.submit, end]), np.concatenate([need, -need]))
    return np.column_stack([times, np.maximum(used, 0.0), np.maximum(demand, 0.0)])
