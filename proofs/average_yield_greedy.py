"""Optimality of the greedy average-yield phase, by the exchange argument (Sec. 3.5)."""

from __future__ import annotations

import numpy as np

from allockit.checks import first_bad_entry, real_array, real_number
from allockit.errors import InvalidInputError
from allockit.evaluation.placement import checked_task_hosts
from allockit.instances.vcsched import VCInstance

__all__ = ["MAX_TOL", "exchange_violations"]

#: Largest ``tol`` ``exchange_violations`` takes: a larger slack (on yields and CPU
#: fractions of a host) would hide exchanges that visibly improve the average yield.
MAX_TOL = 1e-3


def _job_hosts(instance: VCInstance, task_hosts: object) -> np.ndarray:
    """Each job's host, or an error when a job's tasks are not all on one host."""
    hosts = checked_task_hosts(instance, task_hosts)
    first = np.r_[0, np.cumsum(instance.tasks)[:-1]]
    job_host = hosts[first]
    split = np.flatnonzero(hosts != job_host[instance.task_job])
    if split.size:
        t = int(split[0])
        job = int(instance.task_job[t])
        raise InvalidInputError(
            f"task_hosts[{t}] is host {int(hosts[t])} but job {job}'s first task is on host "
            f"{int(job_host[job])}: the exchange argument needs every job on one host"
        )
    return job_host


def _checked_yields(
    instance: VCInstance, job_host: np.ndarray, floor: float, yields: object, tol: float
) -> np.ndarray:
    """``yields`` as floats, or an error unless they are a feasible allocation."""
    arr = real_array("yields", yields)
    if arr.shape != (instance.n_jobs,):
        raise InvalidInputError(
            f"yields must give one yield per job ({instance.n_jobs}); got shape {arr.shape}"
        )
    inside = (arr >= floor - tol) & (arr <= 1 + tol)
    first_bad_entry("yields", arr, inside, f"in [floor, 1] = [{floor:g}, 1]")
    used = np.bincount(job_host, weights=instance.tasks * instance.cpu * arr,
                       minlength=instance.hosts)
    over = np.flatnonzero(used > 1 + tol)
    if over.size:
        h = int(over[0])
        raise InvalidInputError(
            f"yields overcommit host {h}: its jobs use CPU {float(used[h]):g} > 1 "
            "(sum of tasks * cpu * yield); the exchange argument needs a feasible allocation"
        )
    return arr


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
        Hosts and jobs (CPU need per task in (0, 1], as a fraction of a host).
    task_hosts : numpy.ndarray, shape (n_tasks,)
        Host index in ``[0, hosts)`` per task; every job's tasks must sit on one host.
    floor : float
        The minimum yield every job keeps, in [0, 1].
    yields : numpy.ndarray, shape (n_jobs,)
        The yields to check, e.g. from ``allockit.evaluation.average_yield_phase``: a
        feasible allocation (each in ``[floor, 1]``, each host's CPU
        ``sum_i t_i c_i y_i <= 1``, both to ``tol``), since only feasible allocations
        are compared by the exchange argument.
    tol : float, default 1e-9
        Slack on spare CPU, on ``y < 1``, ``y > floor``, on comparing CPU needs and on
        the feasibility above; in ``[0, MAX_TOL]`` (1e-3).

    Returns
    -------
    list of tuple (int, int)
        ``(i, k)``: moving CPU from job ``k`` to the smaller job ``i`` on the same host
        raises the sum of yields; ``(i, i)``: job ``i`` is below 1 although its host
        has spare CPU. Empty when the yields are optimal for this placement.

    Raises
    ------
    InvalidInputError
        If ``instance`` is not a ``VCInstance``; ``task_hosts`` is not one host index
        in ``[0, hosts)`` per task or splits a job over hosts; ``floor`` is not in
        [0, 1] or ``tol`` not in ``[0, MAX_TOL]``; or ``yields`` is not one number per
        job forming a feasible allocation (an infeasible allocation is refused, never
        reported as optimal).

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=1, cpu=[0.5, 0.75], mem=[0, 0])
    >>> exchange_violations(inst, np.array([0, 0]), 0.5, np.array([0.5, 1.0]))
    [(0, 1)]
    >>> exchange_violations(inst, np.array([0, 0]), 0.5, np.array([1.0, 2 / 3]))
    []
    >>> exchange_violations(inst, np.array([0, 0]), 0.5, np.array([1.0, 1.0]))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: yields overcommit host 0: its jobs use CPU 1.25 > 1 ...

    References
    ----------
    .. [1] Stillwell, Schanzenbach, Vivien, Casanova (2009), Resource allocation using
       virtual clusters, Sec. 3.5.
    """
    if not isinstance(instance, VCInstance):
        raise InvalidInputError(f"instance must be a VCInstance; got {type(instance).__name__}")
    job_host = _job_hosts(instance, task_hosts)
    floor = real_number("floor", floor, at_least=0, at_most=1)
    tol = real_number("tol", tol, at_least=0, at_most=MAX_TOL)
    yields = _checked_yields(instance, job_host, floor, yields, tol)
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
