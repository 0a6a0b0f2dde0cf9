"""The rational LP relaxation of VCSched in closed form: its optimum (the LP bound) and solution."""

from __future__ import annotations

import numpy as np

from allockit.evaluation.bounds import memory_exceeds
from allockit.instances.vcsched import VCInstance

__all__ = ["closed_form_allocation", "lp_bound", "relaxed_average_yield"]


def lp_bound(instance: VCInstance) -> float | None:
    """Closed-form optimum of the rational relaxation: ``min(1, H / sum a)`` (user guide (VCSched)).

    Valid when the total memory fits (``sum m <= H``, to ``MEM_TOL``); returns None otherwise (the
    relaxation is infeasible, hence so is the instance). Without a migration budget this
    is the LP's optimum; with one it is still an upper bound on it.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host.

    Returns
    -------
    float or None
        ``Y_LP = min(1, H / sum_t a_t)`` in (0, 1], an upper bound on the best minimum
        yield of any placement; None when the tasks' total memory exceeds ``H``.

    Examples
    --------
    >>> lp_bound(VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.5, 0.5, 0.5]))
    1.0
    >>> round(lp_bound(VCInstance.from_lists(hosts=1, cpu=[0.6, 0.6], mem=[0.5, 0.5])), 6)
    0.833333

    References
    ----------
    .. [1] Stillwell, Schanzenbach, Vivien, Casanova (2009), Resource allocation using
       virtual clusters, Sec. 3.1 (the rational relaxation of the MILP).
    """
    tasks = instance.tasks
    if memory_exceeds(float((tasks * instance.mem).sum()), instance.hosts):
        return None
    return float(min(1.0, instance.hosts / float((tasks * instance.cpu).sum())))


def closed_form_allocation(instance: VCInstance) -> tuple[np.ndarray, np.ndarray] | None:
    """The explicit optimal fractional solution: every task spread evenly over the hosts.

    Returns ``(e, alpha)`` of shape ``(n_tasks, hosts)`` with ``e = 1/H`` and
    ``alpha = Y_LP * a / H``, or None when the relaxation is infeasible.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host.

    Returns
    -------
    tuple of numpy.ndarray or None
        ``e[t, j]``: the share of task ``t`` on host ``j``; ``alpha[t, j]``: the CPU
        (fraction of a host) it gets there. None if ``lp_bound`` is None.

    Examples
    --------
    >>> e, alpha = closed_form_allocation(VCInstance.from_lists(hosts=2, cpu=[1.0], mem=[0]))
    >>> e.tolist(), alpha.tolist()
    ([[0.5, 0.5]], [[0.5, 0.5]])
    """
    y = lp_bound(instance)
    if y is None:
        return None
    a = instance.cpu[instance.task_job]
    e = np.full((instance.n_tasks, instance.hosts), 1.0 / instance.hosts)
    alpha = np.repeat((y * a / instance.hosts)[:, None], instance.hosts, axis=1)
    return e, alpha


def relaxed_average_yield(instance: VCInstance) -> np.ndarray | None:
    """Per-job yields of the relaxation's average-yield phase, in closed form.

    Spread evenly, the hosts act as one pool of CPU ``H``: every job gets ``Y_LP`` and
    the rest goes to jobs in increasing order of total need (a fractional knapsack).
    None when the relaxation is infeasible.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host.

    Returns
    -------
    numpy.ndarray or None
        Yield of each job in [``Y_LP``, 1] (shape ``(n_jobs,)``); None if
        ``lp_bound`` is None. Their mean is the relaxation's best average yield.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=1, cpu=[0.2, 0.5, 0.6], mem=[0, 0, 0])
    >>> [round(float(y), 6) for y in relaxed_average_yield(inst)]
    [0.769231, 0.769231, 0.769231]
    """
    y = lp_bound(instance)
    if y is None:
        return None
    cost = instance.tasks * instance.cpu
    spare = max(0.0, instance.hosts - y * float(cost.sum()))
    order = np.argsort(cost, kind="stable")
    extra = (1.0 - y) * cost[order]
    before = np.cumsum(extra) - extra
    granted = np.clip(spare - before, 0.0, extra)
    yields = np.empty(instance.n_jobs)
    yields[order] = y + granted / cost[order]
    return np.minimum(yields, 1.0)
