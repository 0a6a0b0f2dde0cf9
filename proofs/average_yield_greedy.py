"""Optimality of the greedy average-yield phase, by the exchange argument (Sec. 3.5)."""

from __future__ import annotations

import numpy as np

from allockit.instances.vcsched import VCInstance

__all__ = ["exchange_violations"]


def exchange_violations(
    instance: VCInstance,
    task_hosts: np.ndarray,
    floor: float,
    yields: np.ndarray,
    *,
    tol: float = 1e-9,
) -> list[tuple[int, int]]:
    """Pairs of jobs on one host that an exchange would improve; empty means optimal.

    For single-host jobs the phase is a fractional knapsack per host: maximise
    ``sum y_i`` with ``floor <= y_i <= 1`` and ``sum c_i y_i <= 1`` (``c_i`` the job's
    CPU need). Moving ``d`` CPU from job ``k`` to job ``i`` changes the sum by
    ``d (1/c_i - 1/c_k)``, a gain when ``c_i < c_k``. So an allocation is optimal iff no
    host has spare CPU while a job is below 1, and no pair ``c_i < c_k`` has
    ``y_i < 1`` and ``y_k > floor``. This function lists the pairs (and ``(i, i)`` for a
    job left short on a host with spare CPU).

    Parameters
    ----------
    instance : VCInstance
        Hosts and jobs (CPU need per task in (0, 1], as a fraction of a host); every
        job's tasks must sit on one host (the first task's host is used).
    task_hosts : numpy.ndarray, shape (n_tasks,)
        Host index per task.
    floor : float
        The minimum yield every job keeps, in [0, 1].
    yields : numpy.ndarray, shape (n_jobs,)
        The yields to check, e.g. from ``allockit.evaluation.average_yield_phase``.
    tol : float, default 1e-9
        Slack on spare CPU, on ``y < 1``, ``y > floor`` and on comparing CPU needs.

    Returns
    -------
    list of tuple (int, int)
        ``(i, k)``: moving CPU from job ``k`` to the smaller job ``i`` on the same host
        raises the sum of yields; ``(i, i)``: job ``i`` is below 1 although its host
        has spare CPU. Empty when the yields are optimal for this placement.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=1, cpu=[0.5, 0.75], mem=[0, 0])
    >>> exchange_violations(inst, np.array([0, 0]), 0.5, np.array([0.5, 1.0]))
    [(0, 1)]
    >>> exchange_violations(inst, np.array([0, 0]), 0.5, np.array([1.0, 2 / 3]))
    []

    References
    ----------
    .. [1] Stillwell, Schanzenbach, Vivien, Casanova (2009), Resource allocation using
       virtual clusters, Sec. 3.5.
    """
    job_host = np.asarray(task_hosts)[np.r_[0, np.cumsum(instance.tasks)[:-1]]]
    cost = instance.tasks * instance.cpu
    out: list[tuple[int, int]] = []
    for h in range(instance.hosts):
        jobs = np.flatnonzero(job_host == h)
        spare = 1.0 - float((cost[jobs] * yields[jobs]).sum())
        for i in jobs:
            if spare > tol and yields[i] < 1 - tol:
                out.append((int(i), int(i)))
            for k in jobs:
                if cost[i] < cost[k] - tol and yields[i] < 1 - tol and yields[k] > floor + tol:
                    out.append((int(i), int(k)))
    return out
