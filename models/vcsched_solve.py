"""Exact VCSched solves: build, solve, extract, re-check on the original data."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from allockit.constants import DEFAULT_REL_GAP
from allockit.evaluation.placement import (
    counts_to_task_hosts,
    empty_result,
    result_from_placement,
)
from allockit.instances.vcsched import VCInstance
from allockit.results import SolveStatus, VCResult
from allockit.solver import solve_cpsat, solve_pyomo

__all__ = [
    "obviously_infeasible",
    "solve_cpsat_form",
    "solve_load_milp",
    "solve_lp",
    "solve_paper_milp",
]


def obviously_infeasible(instance: VCInstance) -> str | None:
    """A one-line proof of infeasibility from memory alone, or None.

    Two necessary conditions: every task fits a host's memory (``mem <= 1``) and the
    tasks' total memory fits all hosts. The exact solvers check them before building
    a model, so a trivially infeasible instance is answered at once.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host); for an adaptation instance,
        the previous placement and the migration budget or count.

    Returns
    -------
    str or None
        The violated condition as a sentence, or None when neither is violated (which
        does not prove feasibility).

    Examples
    --------
    >>> obviously_infeasible(VCInstance.from_lists(hosts=2, cpu=[0.5], mem=[1.5]))
    "job 'j0' needs memory 1.5 > 1 per task"
    """
    big = np.flatnonzero(instance.mem > 1.0)
    if big.size:
        i = int(big[0])
        return f"job {instance.job_names[i]!r} needs memory {instance.mem[i]:.6g} > 1 per task"
    total = float((instance.tasks * instance.mem).sum())
    if total > instance.hosts:
        return f"total memory {total:.6g} exceeds the {instance.hosts} hosts"
    return None


def _status_after_check(
    status: SolveStatus, min_yield: float, bound: float | None, rel_gap: float
) -> SolveStatus:
    if status is SolveStatus.OPTIMAL and bound is not None and bound > 0:
        if (bound - min_yield) / bound > max(rel_gap, 1e-7):
            return SolveStatus.FEASIBLE
    return status


def _finish(
    instance: VCInstance,
    task_hosts: np.ndarray,
    *,
    method: str,
    status: SolveStatus,
    bound: float | None,
    solver: str,
    build_seconds: float,
    solve_seconds: float,
    rel_gap: float,
    message: str = "",
) -> VCResult:
    result = result_from_placement(
        instance,
        task_hosts,
        method=method,
        status=status,
        bound=bound,
        solver=solver,
        build_seconds=build_seconds,
        solve_seconds=solve_seconds,
        message=message,
    )
    if result.min_yield is None:
        return result
    if (
        result.status is not SolveStatus.OPTIMAL
        and result.gap is not None
        and (result.gap <= rel_gap)
    ):
        # the bound (solver's or the LP's) proves the incumbent optimal
        from dataclasses import replace

        note = "proven optimal by the bound"
        return replace(
            result, status=SolveStatus.OPTIMAL, message=f"{message}; {note}" if message else note
        )
    checked = _status_after_check(result.status, result.min_yield, result.bound, rel_gap)
    if checked is result.status:
        return result
    from dataclasses import replace

    note = "optimality not confirmed on exact data"
    return replace(result, status=checked, message=f"{message}; {note}" if message else note)


def _infeasible(instance: VCInstance, method: str, reason: str, solver: str) -> VCResult:
    return empty_result(
        instance, method=method, status=SolveStatus.INFEASIBLE, solver=solver, message=reason
    )


#: Tightening of the memory rows when HiGHS's tolerance let a placement through that
#: is infeasible on the exact data (HiGHS's default feasibility tolerance is 1e-7).
RETRY_MARGIN = 1e-5


def _solve_highs_form(
    instance: VCInstance,
    *,
    build: Any,
    extract: Any,
    to_yield_bound: Any,
    method: str,
    time_limit: float | None,
    threads: int | None,
    rel_gap: float,
) -> VCResult:
    """Build, solve with HiGHS, re-check on exact data, retry once with a margin."""
    from allockit.evaluation.placement import placement_violation

    start = time.perf_counter()
    model = build(0.0)
    build_seconds = time.perf_counter() - start
    report = solve_pyomo(model, time_limit=time_limit, threads=threads, rel_gap=rel_gap)
    solve_seconds = report.seconds
    bound = None if report.bound is None else to_yield_bound(report.bound)
    message = ""
    task_hosts = extract(model) if report.has_solution else None
    if task_hosts is not None and placement_violation(instance, task_hosts) is not None:
        # The first model's bound stays valid: with the tolerance it was a relaxation.
        message = "HiGHS tolerance admitted an infeasible placement; re-solved with margin"
        remaining = None if time_limit is None else max(0.01, time_limit - solve_seconds)
        start = time.perf_counter()
        model = build(RETRY_MARGIN)
        build_seconds += time.perf_counter() - start
        retry = solve_pyomo(model, time_limit=remaining, threads=threads, rel_gap=rel_gap)
        solve_seconds += retry.seconds
        task_hosts = extract(model) if retry.has_solution else None
        if task_hosts is None:
            report = retry
    if task_hosts is None:
        status = report.status
        if status is SolveStatus.INFEASIBLE and message:
            status = SolveStatus.ERROR  # infeasible with margin proves nothing
        return empty_result(
            instance,
            method=method,
            status=status,
            bound=bound if status is not SolveStatus.INFEASIBLE else None,
            solver="highs",
            build_seconds=build_seconds,
            solve_seconds=solve_seconds,
            message=message or report.message,
        )
    return _finish(
        instance,
        task_hosts,
        method=method,
        status=report.status,
        bound=bound,
        solver="highs",
        build_seconds=build_seconds,
        solve_seconds=solve_seconds,
        rel_gap=rel_gap,
        message=message,
    )


def solve_load_milp(
    instance: VCInstance,
    *,
    time_limit: float | None = None,
    threads: int | None = None,
    rel_gap: float = DEFAULT_REL_GAP,
    symmetry_breaking: bool = True,
    method: str = "milp",
) -> VCResult:
    """Solve VCSched exactly with the min-max-load MILP and HiGHS.

    The model is ``build_load_milp`` (tasks counted per host, minimise the largest
    host load ``L``; the best minimum yield is ``1 / max(1, L)``). A placement that
    HiGHS's feasibility tolerance let through but that breaks memory on the exact
    data triggers one re-solve with the memory rows tightened by ``RETRY_MARGIN``.
    This is the ``"milp"`` method of ``allockit.vcsched.solve``.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host); for an adaptation instance,
        the previous placement and the migration budget or count.
    time_limit : float, optional
        Seconds (> 0) of solver time (a retry gets what is left, at least 0.01 s); on
        expiry the incumbent is returned with status ``time_limit`` (or no placement
        if there is none).
    threads : int, optional
        Solver threads (>= 1; default: the solver's choice).
    rel_gap : float, default DEFAULT_REL_GAP (1e-6)
        Relative gap under which the solve counts as optimal.
    symmetry_breaking : bool, default True
        Add the identical-host symmetry-breaking constraints (see ``build_load_milp``).
    method : str, default "milp"
        Method name recorded in the result.

    Returns
    -------
    VCResult
        Status ``optimal`` only when optimality holds on the original data (the
        placement is re-evaluated exactly and compared with the proven bound);
        ``feasible``, ``time_limit``, ``infeasible`` (with the reason) or ``error``
        otherwise. Placement, min and average yield, bound, gap and timings.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> r = solve_load_milp(inst)
    >>> str(r.status), round(r.min_yield, 6), round(r.bound, 6)
    ('optimal', 0.833333, 0.833333)

    References
    ----------
    .. [1] Stillwell, Schanzenbach, Vivien, Casanova (2009), Resource allocation using
       virtual clusters, Sec. 3.1 (restated as a min-max load in FORMULAS §1).
    """
    import pyomo.environ  # noqa: F401  (import outside the timed build)

    from allockit.models.vcsched_load import build_load_milp, extract_load_counts

    reason = obviously_infeasible(instance)
    if reason:
        return _infeasible(instance, method, reason, "highs")
    return _solve_highs_form(
        instance,
        build=lambda margin: build_load_milp(
            instance, symmetry_breaking=symmetry_breaking, margin=margin
        ),
        extract=lambda model: counts_to_task_hosts(instance, extract_load_counts(model, instance)),
        to_yield_bound=lambda load: 1.0 / max(1.0, load),
        method=method,
        time_limit=time_limit,
        threads=threads,
        rel_gap=rel_gap,
    )


def solve_paper_milp(
    instance: VCInstance,
    *,
    time_limit: float | None = None,
    threads: int | None = None,
    rel_gap: float = DEFAULT_REL_GAP,
    method: str = "milp-paper",
) -> VCResult:
    """Solve VCSched exactly with the paper's (e, alpha, Y) MILP and HiGHS.

    The model is ``build_paper_milp`` (one binary per task and host). It is larger and
    slower than ``solve_load_milp`` but states the paper's model literally; both must
    agree. Re-checked and retried with a margin like ``solve_load_milp``. This is the
    ``"milp-paper"`` method of ``allockit.vcsched.solve``.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host); for an adaptation instance,
        the previous placement and the migration budget or count.
    time_limit : float, optional
        Seconds (> 0) of solver time (a retry gets what is left, at least 0.01 s); on
        expiry the incumbent is returned with status ``time_limit`` (or no placement
        if there is none).
    threads : int, optional
        Solver threads (>= 1; default: the solver's choice).
    rel_gap : float, default DEFAULT_REL_GAP (1e-6)
        Relative gap under which the solve counts as optimal.
    method : str, default "milp-paper"
        Method name recorded in the result.

    Returns
    -------
    VCResult
        Status ``optimal`` only when optimality holds on the original data (the
        placement is re-evaluated exactly and compared with the proven bound);
        ``feasible``, ``time_limit``, ``infeasible`` (with the reason) or ``error``
        otherwise. Placement, min and average yield, bound, gap and timings.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> round(solve_paper_milp(inst).min_yield, 6)
    0.833333

    References
    ----------
    .. [1] Stillwell, Schanzenbach, Vivien, Casanova (2009), Resource allocation using
       virtual clusters, Sec. 3.1, eqs. 3-11.
    """
    import pyomo.environ  # noqa: F401  (import outside the timed build)

    from allockit.models.vcsched_milp import build_paper_milp, extract_paper_placement

    reason = obviously_infeasible(instance)
    if reason:
        return _infeasible(instance, method, reason, "highs")
    return _solve_highs_form(
        instance,
        build=lambda margin: build_paper_milp(instance, margin=margin),
        extract=lambda model: extract_paper_placement(model, instance),
        to_yield_bound=lambda y: min(1.0, y),
        method=method,
        time_limit=time_limit,
        threads=threads,
        rel_gap=rel_gap,
    )


def solve_cpsat_form(
    instance: VCInstance,
    *,
    time_limit: float | None = None,
    threads: int | None = None,
    rel_gap: float = DEFAULT_REL_GAP,
    seed: int = 0,
    method: str = "cpsat",
) -> VCResult:
    """Solve the compact integer form with CP-SAT, never claiming more than is proven.

    First the rounded-down model (a relaxation) gives a valid bound and, usually, a
    placement that is feasible on the exact data. If rounding made that placement
    infeasible, the rounded-up model (a restriction) is solved for a truly feasible one;
    optimality is claimed only if it meets the relaxation's bound.

    This is the ``"cpsat"`` method of ``allockit.vcsched.solve``.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host); for an adaptation instance,
        the previous placement and the migration budget or count.
    time_limit : float, optional
        Seconds (> 0) of solver time (a retry gets what is left, at least 0.01 s); on
        expiry the incumbent is returned with status ``time_limit`` (or no placement
        if there is none).
    threads : int, optional
        Solver threads (>= 1; default: 1 CP-SAT worker).
    rel_gap : float, default DEFAULT_REL_GAP (1e-6)
        Relative gap under which the exact re-check confirms optimality (widened by
        ``n_tasks / SCALE`` for the integer rounding). It is not passed to CP-SAT,
        which stops at its own proven optimum or at the time limit.
    seed : int, default 0
        CP-SAT's random seed.
    method : str, default "cpsat"
        Method name recorded in the result.

    Returns
    -------
    VCResult
        Status ``optimal`` only when optimality holds on the original data (the
        placement is re-evaluated exactly and compared with the proven bound);
        ``feasible``, ``time_limit``, ``infeasible`` (with the reason) or ``error``
        otherwise. Placement, min and average yield, bound, gap and timings.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> r = solve_cpsat_form(inst)
    >>> str(r.status), round(r.min_yield, 6)
    ('optimal', 0.833333)
    """
    import ortools.sat.python.cp_model  # noqa: F401  (import outside the timed build)

    from allockit.evaluation.placement import placement_violation
    from allockit.models.vcsched_cpsat import SCALE, build_cpsat

    reason = obviously_infeasible(instance)
    if reason:
        return _infeasible(instance, method, reason, "cpsat")
    start = time.perf_counter()
    built = build_cpsat(instance, rounding="down")
    build = time.perf_counter() - start
    report, solver = solve_cpsat(built.model, time_limit=time_limit, threads=threads, seed=seed)
    solve_seconds = report.seconds
    if report.status is SolveStatus.INFEASIBLE:
        return empty_result(
            instance,
            method=method,
            status=SolveStatus.INFEASIBLE,
            solver="cpsat",
            build_seconds=build,
            solve_seconds=solve_seconds,
            message="the rounded-down (relaxed) integer model is infeasible",
        )
    bound = None if report.bound is None else 1.0 / max(1.0, report.bound / SCALE)
    # Integer rounding moves the optimum by at most n_tasks / SCALE in relative terms.
    tolerance = rel_gap + instance.n_tasks / SCALE
    task_hosts = None
    message = ""
    if report.has_solution:
        counts = np.array([[solver.value(v) for v in row] for row in built.n])
        task_hosts = counts_to_task_hosts(instance, counts)
        if placement_violation(instance, task_hosts) is not None:
            task_hosts = None
            message = "rounded-down solution infeasible on exact data; "
    status = report.status
    if task_hosts is None and report.has_solution:
        remaining = None if time_limit is None else max(0.01, time_limit - solve_seconds)
        start = time.perf_counter()
        up = build_cpsat(instance, rounding="up")
        build += time.perf_counter() - start
        up_report, up_solver = solve_cpsat(
            up.model, time_limit=remaining, threads=threads, seed=seed
        )
        solve_seconds += up_report.seconds
        if up_report.has_solution:
            counts = np.array([[up_solver.value(v) for v in row] for row in up.n])
            task_hosts = counts_to_task_hosts(instance, counts)
            message += "used the rounded-up (restricted) model"
            # an OPTIMAL status stands only if _finish's exact gap check confirms it
        else:
            status = (
                up_report.status
                if up_report.status is SolveStatus.TIME_LIMIT
                else (SolveStatus.ERROR)
            )
            message += "no placement feasible on exact data was found after scaling"
    if task_hosts is None:
        return empty_result(
            instance,
            method=method,
            status=status,
            bound=bound,
            solver="cpsat",
            build_seconds=build,
            solve_seconds=solve_seconds,
            message=message or report.message,
        )
    return _finish(
        instance,
        task_hosts,
        method=method,
        status=status,
        bound=bound,
        solver="cpsat",
        build_seconds=build,
        solve_seconds=solve_seconds,
        rel_gap=tolerance,
        message=message,
    )


def solve_lp(
    instance: VCInstance,
    *,
    time_limit: float | None = None,
    threads: int | None = None,
    method: str = "lp",
) -> VCResult:
    """Solve the rational LP relaxation (both phases) with HiGHS: an upper bound.

    Phase 1 maximises the minimum yield ``Y``; phase 2 fixes ``Y`` and maximises the
    sum of job yields. The result is fractional: ``task_hosts`` is None and
    ``fraction[t, j]`` is the share of task ``t`` on host ``j``.

    The LP is ``build_paper_milp(instance, relax=True)``, solved with HiGHS via Pyomo.
    This is the ``"lp"`` method of ``allockit.vcsched.solve``.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host); for an adaptation instance,
        the previous placement and the migration budget or count.
    time_limit : float, optional
        Seconds (> 0) for each of the two phases.
    threads : int, optional
        HiGHS threads (>= 1; default: HiGHS's choice).
    method : str, default "lp"
        Method name recorded in the result.

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
    import pyomo.environ as pyo

    from allockit.models.vcsched_milp import build_paper_milp

    start = time.perf_counter()
    model = build_paper_milp(instance, relax=True)
    build = time.perf_counter() - start
    report = solve_pyomo(model, time_limit=time_limit, threads=threads)
    if report.status is not SolveStatus.OPTIMAL:
        return empty_result(
            instance,
            method=method,
            status=report.status,
            solver="highs",
            build_seconds=build,
            solve_seconds=report.seconds,
            message=report.message,
        )
    y_star = float(model.Y.value)
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
    second = solve_pyomo(model, time_limit=time_limit, threads=threads)
    seconds = report.seconds + second.seconds
    if second.status is not SolveStatus.OPTIMAL:
        return empty_result(
            instance,
            method=method,
            status=second.status,
            solver="highs",
            build_seconds=build,
            solve_seconds=seconds,
            message="phase 2: " + second.message,
        )
    e = np.array([[model.e[t, j].value for j in model.H] for t in model.T], dtype=float)
    alpha = np.array([[model.alpha[t, j].value for j in model.H] for t in model.T], dtype=float)
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
        solver="highs",
        build_seconds=build,
        solve_seconds=seconds,
        message="fractional relaxation: an upper bound, not a placement",
    )
