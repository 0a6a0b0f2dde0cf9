"""The CP-SAT form of VCSched solved exactly: the rounded-down model (a relaxation) for
the bound, the rounded-up one (a restriction) when rounding broke the placement."""

from __future__ import annotations

from typing import Any

import numpy as np

from allockit.clock import Deadline
from allockit.constants import DEFAULT_REL_GAP
from allockit.evaluation.placement import counts_to_task_hosts, placement_violation
from allockit.instances.vcsched import VCInstance
from allockit.models.vcsched_exact import CPSAT_SECONDS_PER_CELL, ExactRun
from allockit.results import SolveStatus, VCResult
from allockit.solver import SolverReport, solve_cpsat

__all__ = ["solve_cpsat_form"]


def _solve_rounded(
    run: ExactRun, rounding: str, *, threads: int | None, seed: int, rel_gap: float
) -> tuple[SolverReport, np.ndarray | None] | None:
    """Build the model rounded ``rounding``, hint the incumbent, solve: (report, placement).

    The placement is None when the solver has none, or when it breaks memory on the
    exact data. Returns None instead when the deadline passed before the solve (the
    rounded-down model stops the run then).
    """
    from allockit.models.vcsched_cpsat import build_cpsat
    from allockit.models.vcsched_warm import hint_cpsat

    instance = run.instance

    def make(deadline: Deadline) -> Any:
        built = build_cpsat(instance, rounding=rounding, deadline=deadline)
        if run.incumbent is not None:
            hint_cpsat(built, instance, run.incumbent)
        return built

    if rounding == "up" and run.deadline.expired(0.01):
        return None
    built = run.build(make, stop=rounding == "down")
    if built is None or run.deadline.expired(0.01):
        if rounding == "down":
            run.stop("time limit reached while building the model")
        return None
    report, solver = solve_cpsat(
        built.model, time_limit=run.deadline, threads=threads, seed=seed, rel_gap=rel_gap
    )
    run.solve_seconds += report.seconds
    task_hosts = None
    if report.has_solution:
        counts = np.array([[solver.value(v) for v in row] for row in built.n])
        task_hosts = counts_to_task_hosts(instance, counts)
        if placement_violation(instance, task_hosts) is not None:
            task_hosts = None
    return report, task_hosts


def _solve(run: ExactRun, *, threads: int | None, seed: int, rel_gap: float) -> VCResult:
    from allockit.models.vcsched_cpsat import SCALE

    instance = run.instance
    # Integer rounding moves the optimum by at most n_tasks / SCALE in relative terms.
    run.rel_gap = rel_gap + instance.n_tasks / SCALE
    run.refuse_large(instance.n_jobs * instance.hosts, CPSAT_SECONDS_PER_CELL, "(job, host)")
    report, task_hosts = _solve_rounded(run, "down", threads=threads, seed=seed, rel_gap=rel_gap)
    if report.status is SolveStatus.INFEASIBLE:
        return run.empty(
            SolveStatus.INFEASIBLE,
            bound_source="cpsat",
            message="the rounded-down (relaxed) integer model is infeasible",
        )
    bound = None if report.bound is None else 1.0 / max(1.0, report.bound / SCALE)
    message = ""
    status = report.status
    if task_hosts is None and report.has_solution:
        message = "rounded-down solution infeasible on exact data; "
        up = _solve_rounded(run, "up", threads=threads, seed=seed, rel_gap=rel_gap)
        if up is not None and up[1] is not None:
            task_hosts = up[1]
            message += "used the rounded-up (restricted) model"
            # an OPTIMAL status stands only if finish's exact gap check confirms it
        else:
            timed_out = up is None or up[0].status is SolveStatus.TIME_LIMIT
            status = SolveStatus.TIME_LIMIT if timed_out else SolveStatus.ERROR
            message += "no placement feasible on exact data was found after scaling"
    task_hosts, source = run.better(task_hosts, "cpsat")
    if status is SolveStatus.ERROR and task_hosts is not None and task_hosts is run.incumbent:
        status = SolveStatus.FEASIBLE
    if task_hosts is None:
        return run.empty(
            status, bound=bound, bound_source="cpsat", message=message or report.message
        )
    return run.finish(
        task_hosts, status=status, bound=bound, message=message, source=source,
        bound_source="cpsat",
    )


def solve_cpsat_form(
    instance: VCInstance,
    *,
    time_limit: float | Deadline | None = None,
    threads: int | None = None,
    rel_gap: float = DEFAULT_REL_GAP,
    seed: int = 0,
    method: str = "cpsat",
    initial: np.ndarray | None = None,
    initial_source: str = "initial",
    shortcut: bool = False,
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
    time_limit : float or Deadline, optional
        Seconds (> 0), or the caller's deadline, for the whole call: bounds, model
        building, solving, a retry, the re-check and the average-yield phase. A model
        whose estimated build time exceeds what is left is not built; on expiry the
        best placement known (the solver's or ``initial``) is returned with status
        ``time_limit`` (or none).
    threads : int, optional
        Solver threads (>= 1; default: 1 CP-SAT worker).
    rel_gap : float, default DEFAULT_REL_GAP
        Relative gap: CP-SAT stops once within it (``relative_gap_limit``), and the
        exact re-check confirms optimality within it (widened by ``n_tasks / SCALE``
        for the integer rounding).
    seed : int, default 0
        CP-SAT's random seed.
    method : str, default "cpsat"
        Method name recorded in the result.
    initial : numpy.ndarray, optional
        A placement (host per task) to start from: the incumbent and CP-SAT's solution
        hint.
    initial_source : str, default "initial"
        The component that produced ``initial`` (recorded in ``incumbent_source``).
    shortcut : bool, default False
        If ``initial`` reaches the closed-form bound (LP or bin packing), answer
        ``optimal`` at once without building a model (``proof`` ``"bound"``).

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
    run = ExactRun(
        instance,
        method=method,
        solver="cpsat",
        time_limit=time_limit,  # the limit covers the imports too
        rel_gap=rel_gap,
        initial=initial,
        initial_source=initial_source,
        shortcut=shortcut,
    )
    import ortools.sat.python.cp_model  # noqa: F401  (import outside the timed build)

    return run.run(lambda: _solve(run, threads=threads, seed=seed, rel_gap=rel_gap))
