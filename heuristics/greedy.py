"""Greedy VCSched heuristics GR, SG, GB and SGB (Stillwell et al. 2009, Sec. 3.3)."""

from __future__ import annotations

import numbers
import time

import numpy as np

from allockit.errors import InvalidInputError
from allockit.heuristics.common import finish, load_kernels, task_order
from allockit.instances.vcsched import VCInstance
from allockit.results import VCResult

__all__ = ["greedy"]


def greedy(
    instance: VCInstance,
    *,
    sort_by_memory: bool = False,
    backtrack: bool = False,
    max_attempts: int = 500_000,
    method: str | None = None,
) -> VCResult:
    """Place jobs one by one on the least-loaded host whose free memory fits them.

    Jobs are taken in the given order (GR) or by decreasing memory (SG, stable). The
    hosts are ranked by the summed CPU need of the jobs already on them (ties: lower
    index first) and the job goes to the first one with enough free memory. With
    ``backtrack`` (GB, SGB) a job that fits nowhere undoes the previous placement and
    tries its next host, depth first, up to ``max_attempts`` placements. The tasks of a
    parallel job are placed one after the other. The minimum yield is then
    ``min(1, 1 / max load)`` and the average-yield phase distributes the rest.

    Parameters
    ----------
    instance : VCInstance
    sort_by_memory : bool
        Sort jobs by decreasing memory first (SG, SGB).
    backtrack : bool
        Backtrack on failure (GB, SGB).
    max_attempts : int
        Bound on placement attempts when backtracking (the paper's 500,000).
    method : str, optional
        Name recorded in the result (default: ``gr``, ``sg``, ``gb`` or ``sgb``).

    Returns
    -------
    VCResult
        Status ``infeasible`` with the reason when the rule fails.

    Raises
    ------
    InvalidInputError
        If ``max_attempts`` < 1.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.5, 0.4, 0.5])
    >>> r = greedy(inst)
    >>> str(r.status), r.task_hosts.tolist(), round(r.min_yield, 4)
    ('feasible', [0, 1, 0], 0.8333)
    >>> str(greedy(VCInstance.from_lists(hosts=1, cpu=[0.5, 0.5], mem=[0.6, 0.6])).status)
    'infeasible'

    References
    ----------
    .. [1] Stillwell, Schanzenbach, Vivien, Casanova (2009), Resource allocation using
       virtual clusters, Sec. 3.3.
    """
    if (isinstance(max_attempts, bool) or not isinstance(max_attempts, numbers.Integral)
            or max_attempts < 1):
        raise InvalidInputError(f"max_attempts must be an integer >= 1; got {max_attempts!r}")
    for flag, value in (("sort_by_memory", sort_by_memory), ("backtrack", backtrack)):
        if not isinstance(value, bool | np.bool_):
            raise InvalidInputError(f"{flag} must be True or False; got {value!r}")
    sort_by_memory, backtrack = bool(sort_by_memory), bool(backtrack)
    name = (
        method
        or {(False, False): "gr", (True, False): "sg", (False, True): "gb", (True, True): "sgb"}[
            (sort_by_memory, backtrack)
        ]
    )
    setup = load_kernels("greedy_backtrack_kernel" if backtrack else "greedy_kernel")
    from allockit.heuristics.greedy_kernels import greedy_backtrack_kernel, greedy_kernel

    started = time.perf_counter()
    if sort_by_memory:
        job_order = np.argsort(-instance.mem, kind="stable")
    else:
        job_order = np.arange(instance.n_jobs)
    order = task_order(instance, job_order)
    job = instance.task_job[order]
    cpu = np.ascontiguousarray(instance.cpu[job])
    mem = np.ascontiguousarray(instance.mem[job])
    if backtrack:
        placed, attempts = greedy_backtrack_kernel(cpu, mem, instance.hosts, int(max_attempts))
        if placed[0] < 0:
            return finish(
                instance,
                None,
                method=name,
                started=started,
                setup_seconds=setup,
                reason=f"{name}: no placement found within {attempts} attempts "
                f"(bound {max_attempts})",
            )
    else:
        placed = greedy_kernel(cpu, mem, instance.hosts)
        missing = np.flatnonzero(placed < 0)
        if missing.size:
            blocked = instance.job_names[job[missing[0]]]
            return finish(
                instance,
                None,
                method=name,
                started=started,
                setup_seconds=setup,
                reason=f"{name}: no host has enough free memory for job {blocked!r}",
            )
    task_hosts = np.empty(instance.n_tasks, dtype=np.int64)
    task_hosts[order] = placed
    return finish(instance, task_hosts, method=name, started=started, setup_seconds=setup)
