"""RRND and RRNZ: randomised rounding of the LP relaxation (Stillwell et al. 2009, Sec. 3.2)."""

from __future__ import annotations

import time

import numpy as np

from allockit.checks import real_number
from allockit.clock import Deadline
from allockit.heuristics.common import finish
from allockit.instances.vcsched import VCInstance
from allockit.results import VCResult
from allockit.rng import as_generator

__all__ = ["randomized_rounding"]


def randomized_rounding(
    instance: VCInstance,
    *,
    epsilon: float = 0.0,
    seed: int | np.random.Generator | None = None,
    method: str | None = None,
    time_limit: float | Deadline | None = None,
    threads: int = 1,
) -> VCResult:
    """Round the LP relaxation's solution at random, task by task.

    The relaxation is solved with HiGHS (not the closed form, which is uniform); task
    ``t`` then goes to host ``j`` with probability ``e[t, j]``, hosts without enough free
    memory get probability 0 and the rest are renormalised; the heuristic fails when no
    host fits. RRNZ (``epsilon = 0.01``) first replaces zero entries of ``e`` by
    ``epsilon`` so that every host stays possible.

    Parameters
    ----------
    instance : VCInstance
    epsilon : float
        Replacement for zero probabilities, in [0, 1] (0: RRND; 0.01: RRNZ).
    seed : int, numpy Generator or None
        Seed of the rounding.
    method : str, optional
        Name recorded in the result (default ``rrnd`` or ``rrnz``).
    time_limit : float or Deadline, optional
        Seconds (or the caller's deadline) for the LP relaxation; when it runs out
        the result has status ``time_limit`` and no placement.
    threads : int, default 1
        HiGHS threads for the relaxation.

    Returns
    -------
    VCResult

    Raises
    ------
    InvalidInputError
        For an ``epsilon`` outside [0, 1], or bad ``threads`` / ``time_limit``.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.5, 0.5, 0.5])
    >>> a = randomized_rounding(inst, seed=1)
    >>> b = randomized_rounding(inst, seed=1)
    >>> a.task_hosts.tolist() == b.task_hosts.tolist(), str(a.status)
    (True, 'feasible')
    """
    from allockit.evaluation.relaxation import solve_relaxation_highs

    real_number("epsilon", epsilon, at_least=0, at_most=1, finite=False)
    name = method or ("rrnz" if epsilon > 0 else "rrnd")
    rng = as_generator(seed)
    started = time.perf_counter()
    from allockit.evaluation.relaxation import RelaxationTimeLimit

    try:
        solved = solve_relaxation_highs(instance, threads=threads, time_limit=time_limit)
    except RelaxationTimeLimit as exc:
        from allockit.evaluation.placement import empty_result
        from allockit.results import SolveStatus

        return empty_result(
            instance,
            method=name,
            status=SolveStatus.TIME_LIMIT,
            solver="heuristic",
            solve_seconds=time.perf_counter() - started,
            message=f"{name}: {exc}",
        )
    if solved is None:
        return finish(
            instance,
            None,
            method=name,
            started=started,
            reason=f"{name}: the LP relaxation is infeasible",
        )
    _, e = solved
    prob = np.where(e > 1e-12, e, epsilon)
    job = instance.task_job
    mem = instance.mem[job]
    free = np.ones(instance.hosts)
    task_hosts = np.empty(instance.n_tasks, dtype=np.int64)
    for t in range(instance.n_tasks):
        p = np.where(free + 1e-12 >= mem[t], prob[t], 0.0)
        total = p.sum()
        if total <= 0:
            return finish(
                instance,
                None,
                method=name,
                started=started,
                reason=f"{name}: no host with nonzero probability fits job "
                f"{instance.job_names[job[t]]!r}",
            )
        j = int(rng.choice(instance.hosts, p=p / total))
        task_hosts[t] = j
        free[j] -= mem[t]
    return finish(instance, task_hosts, method=name, started=started)
