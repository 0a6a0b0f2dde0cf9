"""The rational LP relaxation of VCSched solved in two phases: an upper bound."""

from __future__ import annotations

from typing import Any

import numpy as np

from allockit.clock import Deadline
from allockit.instances.vcsched import VCInstance
from allockit.models.vcsched_exact import PYOMO_SECONDS_PER_CELL, TRANSLATE_PER_BUILD, ExactRun
from allockit.results import SolveStatus, VCResult
from allockit.solver import DEFAULT_SOLVER, solve_pyomo

__all__ = ["solve_lp"]


def solve_lp(
    instance: VCInstance,
    *,
    time_limit: float | Deadline | None = None,
    threads: int | None = None,
    method: str = "lp",
    solver: str = DEFAULT_SOLVER,
) -> VCResult:
    """Solve the rational LP relaxation (both phases) with HiGHS: an upper bound.

    Phase 1 maximises the minimum yield ``Y``; phase 2 fixes ``Y`` and maximises the
    sum of job yields. The result is fractional: ``task_hosts`` is None and
    ``fraction[t, j]`` is the share of task ``t`` on host ``j``.

    The LP is ``build_paper_milp(instance, relax=True)``, solved via Pyomo (HiGHS by
    default).
    This is the ``"lp"`` method of ``allockit.vcsched.solve``.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host); for an adaptation instance,
        the previous placement and the migration budget or count.
    time_limit : float or Deadline, optional
        Seconds (> 0), or the caller's deadline, for the whole call: building, both
        phases and the read-out (phase 2 gets what phase 1 left). A model whose
        estimated build time exceeds the limit is not built: status ``time_limit``.
    threads : int, optional
        HiGHS threads (>= 1; default: HiGHS's choice).
    method : str, default "lp"
        Method name recorded in the result.
    solver : str, default "highs"
        The LP solver (``allockit.solver.SOLVERS`` or any name Pyomo knows).

    Returns
    -------
    VCResult
        Status ``optimal`` with ``min_yield = bound = Y_LP`` (an upper bound on any
        placement's minimum yield), the phase-2 job yields and ``fraction``; or the
        solver's status (``infeasible``, ``time_limit``, ...) and no yields.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> r = solve_lp(inst)
    >>> str(r.status), round(r.min_yield, 6), round(r.avg_yield, 6)
    ('optimal', 1.0, 1.0)

    References
    ----------
    .. [1] Stillwell, Schanzenbach, Vivien, Casanova (2009), Resource allocation using
       virtual clusters, Sec. 3.1 (the rational relaxation).
    """
    run = ExactRun(
        instance, method=method, solver=solver, time_limit=time_limit, rel_gap=0.0
    )  # the limit covers the imports too
    return run.run(lambda: _solve(run, threads), prologue=False)


def _solve(run: ExactRun, threads: int | None) -> VCResult:
    import pyomo.environ as pyo

    from allockit.models.vcsched_milp import build_paper_milp

    instance, method = run.instance, run.method
    run.refuse_large(instance.n_tasks * instance.hosts, PYOMO_SECONDS_PER_CELL, "(task, host)")
    model = run.build(lambda deadline: build_paper_milp(instance, relax=True, deadline=deadline))
    if run.deadline.expired(TRANSLATE_PER_BUILD * run.build_seconds):
        run.stop(f"time limit: too little time left to pass the model to {run.solver}")
    report = solve_pyomo(model, solver=run.solver, time_limit=run.deadline, threads=threads)
    run.solve_seconds += report.seconds
    if report.status is not SolveStatus.OPTIMAL:
        return run.empty(report.status, message=report.message)
    y_star = float(model.Y.value)
    phase_one = _allocation(model)
    need = instance.tasks * instance.cpu
    first = np.concatenate(([0], np.cumsum(instance.tasks)[:-1]))
    model.objective.deactivate()
    model.Y.fix(y_star * (1 - 1e-9))
    model.average = pyo.Objective(
        expr=sum(
            sum(
                model.alpha[t, j]
                for t in range(int(first[i]), int(first[i] + instance.tasks[i]))
                for j in model.H
            )
            / float(need[i])
            for i in range(instance.n_jobs)
        ),
        sense=pyo.maximize,
    )
    if run.deadline.expired(0.01):
        run.stop("time limit reached after phase 1")
    message = "fractional relaxation: an upper bound, not a placement"
    second = solve_pyomo(model, solver=run.solver, time_limit=run.deadline, threads=threads)
    run.solve_seconds += second.seconds
    if second.status is SolveStatus.OPTIMAL:
        e, alpha = _allocation(model)
    elif second.status is SolveStatus.INFEASIBLE:
        # phase 1 found the LP feasible at the minimum yield, so phase 2 is feasible:
        # HiGHS 1.12's presolve has said otherwise on data at its tolerance (RESULTS
        # 13.10). The minimum yield stands; the average yield is phase 1's, not maximised.
        e, alpha = phase_one
        message += ("; the average yield was not maximised (phase 2: the solver called "
                    f"the feasible LP infeasible: {second.message})")
    else:
        return run.empty(second.status, message="phase 2: " + second.message)
    task_cpu = alpha.sum(axis=1)
    job_yield = np.bincount(instance.task_job, weights=task_cpu, minlength=instance.n_jobs) / need
    return VCResult(
        method=method,
        status=SolveStatus.OPTIMAL,
        job_names=instance.job_names,
        tasks=instance.tasks,
        min_yield=y_star,
        avg_yield=float(job_yield.mean()),
        bound=y_star,
        gap=0.0,
        fraction=np.clip(e, 0.0, 1.0),
        task_cpu=task_cpu,
        job_yield=np.clip(job_yield, 0.0, 1.0),
        solver=run.solver,
        build_seconds=run.build_seconds,
        solve_seconds=run.solve_seconds,
        message=message,
    )


def _allocation(model: Any) -> tuple[np.ndarray, np.ndarray]:
    """The relaxation's fractions ``e`` and CPU shares ``alpha``, (tasks, hosts) each."""
    e = np.array([[model.e[t, j].value for j in model.H] for t in model.T], dtype=float)
    alpha = np.array([[model.alpha[t, j].value for j in model.H] for t in model.T], dtype=float)
    return e, alpha
