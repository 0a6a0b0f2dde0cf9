"""Exact VCSched solves: build, solve, extract, re-check on the original data."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from allockit.constants import DEFAULT_REL_GAP
from allockit.evaluation.placement import (
    counts_to_task_hosts,
    empty_result,
    min_yield_of,
    result_from_placement,
)
from allockit.instances.vcsched import VCInstance
from allockit.results import SolveStatus, VCResult
from allockit.solver import solve_cpsat, solve_pyomo

__all__ = [
    "canonical_hosts",
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


def _note(message: str, note: str) -> str:
    return f"{message}; {note}" if message else note


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
    incumbent_source: str | None = None,
    bound_source: str = "",
    bounds: tuple[tuple[float | None, str], ...] = (),
) -> VCResult:
    from dataclasses import replace

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
        incumbent_source=solver if incumbent_source is None else incumbent_source,
        bound_source=bound_source,
        bounds=bounds,
    )
    if result.min_yield is None:
        return result
    if (
        result.status is not SolveStatus.OPTIMAL
        and result.gap is not None
        and (result.gap <= rel_gap)
    ):
        # the bound (solver's, the LP's or bin packing's) proves the incumbent optimal
        return replace(
            result,
            status=SolveStatus.OPTIMAL,
            message=_note(message, "proven optimal by the bound"),
        )
    checked = _status_after_check(result.status, result.min_yield, result.bound, rel_gap)
    if checked is result.status:
        return result
    return replace(
        result, status=checked, message=_note(message, "optimality not confirmed on exact data")
    )


def _infeasible(instance: VCInstance, method: str, reason: str, solver: str) -> VCResult:
    return empty_result(
        instance,
        method=method,
        status=SolveStatus.INFEASIBLE,
        solver=solver,
        message=reason,
        bound_source="memory",
    )


#: Tightening of the memory rows when HiGHS's tolerance let a placement through that
#: is infeasible on the exact data (HiGHS's default feasibility tolerance is 1e-7).
RETRY_MARGIN = 1e-5
#: Seconds per (job or task, host) pair to build a Pyomo model and pass it to HiGHS,
#: measured on the project's shared 2-core machine under load (about 60 us to build,
#: 150-200 us to translate): a model whose estimate exceeds the time left is not built.
PYOMO_SECONDS_PER_CELL = 2.5e-4
#: Passing a built Pyomo model to HiGHS took 3-4 times as long as building it: after the
#: build, a translation that would overrun the time left is not started.
TRANSLATE_PER_BUILD = 3.0
#: Seconds per (job, host) pair to build the CP-SAT model (measured 25-35 us).
CPSAT_SECONDS_PER_CELL = 4e-5


class _Clock:
    """The whole run's time limit: build, solve, average-yield phase and re-check."""

    def __init__(self, time_limit: float | None) -> None:
        self.start = time.perf_counter()
        self.deadline = None if time_limit is None else self.start + float(time_limit)

    def left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.perf_counter()

    def out(self, need: float = 0.0) -> bool:
        left = self.left()
        return left is not None and left <= need

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


def _closed_form_bound(instance: VCInstance) -> tuple[float | None, str]:
    from allockit.evaluation.bounds import yield_upper_bound

    return yield_upper_bound(instance)


def _certified(min_yield: float, bound: float | None, rel_gap: float) -> bool:
    return bound is not None and bound - min_yield <= rel_gap * bound + 1e-15


def _valid(instance: VCInstance, task_hosts: np.ndarray | None) -> np.ndarray | None:
    from allockit.evaluation.placement import placement_violation

    if task_hosts is None:
        return None
    task_hosts = np.asarray(task_hosts, dtype=np.int64)
    return task_hosts if placement_violation(instance, task_hosts) is None else None


def _prologue(
    instance: VCInstance,
    *,
    method: str,
    solver: str,
    initial: np.ndarray | None,
    initial_source: str,
    rel_gap: float,
    clock: _Clock,
) -> tuple[VCResult | None, np.ndarray | None, tuple[float | None, str]]:
    """Memory proofs, the closed-form bound, and the warm start's early exit."""
    reason = obviously_infeasible(instance)
    if reason:
        return _infeasible(instance, method, reason, solver), None, (None, "memory")
    bound = _closed_form_bound(instance)
    if bound[0] is None:
        reason = f"the tasks' memories cannot be packed into {instance.hosts} hosts (bin packing)"
        return _infeasible(instance, method, reason, solver), None, bound
    incumbent = _valid(instance, initial)
    if incumbent is not None and _certified(min_yield_of(instance, incumbent), bound[0], rel_gap):
        result = _finish(
            instance,
            incumbent,
            method=method,
            status=SolveStatus.OPTIMAL,
            bound=None,
            solver="heuristic",
            build_seconds=0.0,
            solve_seconds=clock.elapsed(),
            rel_gap=rel_gap,
            message=f"{initial_source} reached the {bound[1]} bound: proven optimal "
            "without a solver run",
            incumbent_source=initial_source,
            bounds=(bound,),
        )
        return result, incumbent, bound
    return None, incumbent, bound


def _stopped(
    instance: VCInstance,
    incumbent: np.ndarray | None,
    *,
    method: str,
    solver: str,
    bound: tuple[float | None, str],
    build_seconds: float,
    solve_seconds: float,
    rel_gap: float,
    message: str,
    initial_source: str,
    status: SolveStatus = SolveStatus.TIME_LIMIT,
) -> VCResult:
    """Status ``time_limit`` (or ``status``) with the warm start's placement if any."""
    if incumbent is None:
        return empty_result(
            instance,
            method=method,
            status=status,
            bound=bound[0],
            bound_source=bound[1],
            solver=solver,
            build_seconds=build_seconds,
            solve_seconds=solve_seconds,
            message=message,
        )
    return _finish(
        instance,
        incumbent,
        method=method,
        status=status,
        bound=None,
        solver=solver,
        build_seconds=build_seconds,
        solve_seconds=solve_seconds,
        rel_gap=rel_gap,
        message=message,
        incumbent_source=initial_source,
        bounds=(bound,),
    )


def canonical_hosts(instance: VCInstance, task_hosts: np.ndarray, *, by: str) -> np.ndarray:
    """Relabel the identical hosts of a placement to satisfy a model's symmetry breaking.

    ``by="first-job"``: hosts numbered in the order of the first job placed on them
    (``build_load_milp`` for single-task jobs); ``by="load"``: hosts by non-increasing
    summed CPU need (``build_load_milp`` otherwise, ``build_cpsat``). For an
    adaptation instance only hosts that held no task before are relabelled. The
    placement's quality is unchanged; a warm start must satisfy the model's rows.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host).
    task_hosts : numpy.ndarray, shape (n_tasks,)
        A host per task.
    by : {"first-job", "load"}
        The ordering to produce.

    Returns
    -------
    numpy.ndarray of int64, shape (n_tasks,)
        The relabelled placement.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=3, cpu=[0.2, 0.5, 0.4], mem=[0.1] * 3)
    >>> canonical_hosts(inst, np.array([2, 0, 2]), by="first-job").tolist()
    [0, 1, 0]
    >>> canonical_hosts(inst, np.array([2, 0, 1]), by="load").tolist()
    [2, 0, 1]
    """
    from allockit.evaluation.placement import host_loads

    task_hosts = np.asarray(task_hosts, dtype=np.int64)
    hosts = instance.hosts
    free = np.ones(hosts, dtype=bool)
    if instance.is_adaptation:
        free[instance.previous[instance.previous >= 0]] = False
    free_hosts = np.flatnonzero(free)
    if by == "first-job":
        seen: list[int] = []
        for h in task_hosts:
            if free[h] and h not in seen:
                seen.append(int(h))
        rest = [int(h) for h in free_hosts if h not in seen]
        old = np.asarray(seen + rest, dtype=np.int64)
    else:
        load = host_loads(instance, task_hosts)[0]
        old = free_hosts[np.argsort(-load[free_hosts], kind="stable")]
    relabel = np.arange(hosts)
    relabel[old] = free_hosts
    return relabel[task_hosts]


def _start_load_milp(model: Any, instance: VCInstance, task_hosts: np.ndarray) -> None:
    """Set the load MILP's variables to a placement (a warm start for HiGHS)."""
    from allockit.evaluation.placement import host_loads

    sequential = not instance.is_parallel and not instance.is_adaptation
    hosts = canonical_hosts(instance, task_hosts, by="first-job" if sequential else "load")
    counts = np.zeros((instance.n_jobs, instance.hosts), dtype=np.int64)
    np.add.at(counts, (instance.task_job, hosts), 1)
    for (i, j), var in model.n.items():
        if not var.fixed:
            var.set_value(int(counts[i, j]), skip_validation=True)
    model.L.set_value(max(1.0, float(host_loads(instance, hosts)[0].max())))
    if hasattr(model, "z"):
        prefix = np.cumsum(counts, axis=0)
        for (i, j), var in model.z.items():
            var.set_value(int(prefix[i, j]), skip_validation=True)
    if hasattr(model, "u"):
        nbar = instance.previous_counts()
        for (i, j), var in model.u.items():
            var.set_value(max(0, int(counts[i, j] - nbar[i, j])), skip_validation=True)


def _start_paper_milp(model: Any, instance: VCInstance, task_hosts: np.ndarray) -> None:
    """Set the paper MILP's variables to a placement at its best minimum yield."""
    y = min_yield_of(instance, task_hosts)
    a = instance.cpu[instance.task_job]
    for (t, j), var in model.e.items():
        on = int(task_hosts[t] == j)
        var.set_value(on, skip_validation=True)
        model.alpha[t, j].set_value(on * y * float(a[t]), skip_validation=True)
    model.Y.set_value(y, skip_validation=True)


def _solve_highs_form(
    instance: VCInstance,
    *,
    build: Any,
    extract: Any,
    to_yield_bound: Any,
    set_start: Any,
    cells: int,
    method: str,
    time_limit: float | None,
    threads: int | None,
    rel_gap: float,
    initial: np.ndarray | None,
    initial_source: str,
    clock: _Clock,
) -> VCResult:
    """Build, solve with HiGHS, re-check on exact data, retry once with a margin."""
    from allockit.evaluation.placement import placement_violation
    from allockit.solver import BuildTimeLimit
    done, incumbent, closed = _prologue(
        instance,
        method=method,
        solver="highs",
        initial=initial,
        initial_source=initial_source,
        rel_gap=rel_gap,
        clock=clock,
    )
    if done is not None:
        return done
    common = dict(
        method=method, solver="highs", bound=closed, rel_gap=rel_gap, initial_source=initial_source
    )
    # Imported only once a model is needed (a warm start that proves optimality
    # needs none) and outside the timed build; the clock covers it.
    import pyomo.environ  # noqa: F401
    left = clock.left()
    if left is not None and cells * PYOMO_SECONDS_PER_CELL > left:
        return _stopped(
            instance,
            incumbent,
            build_seconds=0.0,
            solve_seconds=clock.elapsed(),
            message=f"time limit: a model of {cells} (task, host) pairs needs about "
            f"{cells * PYOMO_SECONDS_PER_CELL:.1f} s to build, {left:.2f} s were left",
            **common,
        )
    start = time.perf_counter()
    try:
        model = build(0.0, clock.deadline)
    except BuildTimeLimit:
        return _stopped(
            instance,
            incumbent,
            build_seconds=time.perf_counter() - start,
            solve_seconds=0.0,
            message="time limit reached while building the model",
            **common,
        )
    build_seconds = time.perf_counter() - start
    if clock.out(TRANSLATE_PER_BUILD * build_seconds):
        return _stopped(
            instance,
            incumbent,
            build_seconds=build_seconds,
            solve_seconds=0.0,
            message="time limit: too little time left to pass the model to HiGHS",
            **common,
        )
    if incumbent is not None:
        set_start(model, incumbent)
    report = solve_pyomo(
        model,
        time_limit=clock.left(),
        threads=threads,
        rel_gap=rel_gap,
        warm_start=incumbent is not None,
    )
    solve_seconds = report.seconds
    bound = None if report.bound is None else to_yield_bound(report.bound)
    message = ""
    task_hosts = extract(model) if report.has_solution else None
    if task_hosts is not None and placement_violation(instance, task_hosts) is not None:
        # The first model's bound stays valid: with the tolerance it was a relaxation.
        task_hosts = None
        message = "HiGHS tolerance admitted an infeasible placement"
        if not clock.out(0.05):
            message += "; re-solved with margin"
            start = time.perf_counter()
            try:
                model = build(RETRY_MARGIN, clock.deadline)
            except BuildTimeLimit:
                model = None
            build_seconds += time.perf_counter() - start
            if model is not None and not clock.out(0.01):
                retry = solve_pyomo(
                    model, time_limit=clock.left(), threads=threads, rel_gap=rel_gap
                )
                solve_seconds += retry.seconds
                task_hosts = _valid(instance, extract(model) if retry.has_solution else None)
                if task_hosts is None:
                    report = retry
    source = "highs"
    if incumbent is not None and (
        task_hosts is None
        or min_yield_of(instance, task_hosts) <= min_yield_of(instance, incumbent) + 1e-12
    ):
        task_hosts, source = incumbent, initial_source
    if task_hosts is None:
        status = report.status
        if status is SolveStatus.INFEASIBLE and message:
            status = SolveStatus.ERROR  # infeasible with margin proves nothing
        return empty_result(
            instance,
            method=method,
            status=status,
            bound=bound if status is not SolveStatus.INFEASIBLE else None,
            bound_source="highs",
            solver="highs",
            build_seconds=build_seconds,
            solve_seconds=solve_seconds,
            message=message or report.message,
        )
    status = report.status
    if status in (SolveStatus.INFEASIBLE, SolveStatus.ERROR):
        # a valid placement is known: the solver's failure proves nothing about it
        message = _note(message, f"HiGHS: {report.message}")
        status = SolveStatus.FEASIBLE
    return _finish(
        instance,
        task_hosts,
        method=method,
        status=status,
        bound=bound,
        solver="highs",
        build_seconds=build_seconds,
        solve_seconds=solve_seconds,
        rel_gap=rel_gap,
        message=message,
        incumbent_source=source,
        bound_source="highs",
        bounds=(closed,),
    )


def solve_load_milp(
    instance: VCInstance,
    *,
    time_limit: float | None = None,
    threads: int | None = None,
    rel_gap: float = DEFAULT_REL_GAP,
    symmetry_breaking: bool = True,
    method: str = "milp",
    initial: np.ndarray | None = None,
    initial_source: str = "initial",
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
        Seconds (> 0) for the whole call: bounds, model building, solving, a retry, the
        re-check and the average-yield phase. A model whose estimated build time
        exceeds what is left is not built; on expiry the best placement known (the
        solver's or ``initial``) is returned with status ``time_limit`` (or none).
    threads : int, optional
        Solver threads (>= 1; default: the solver's choice).
    rel_gap : float, default DEFAULT_REL_GAP (1e-6)
        Relative gap under which the solve counts as optimal.
    symmetry_breaking : bool, default True
        Add the identical-host symmetry-breaking constraints (see ``build_load_milp``).
    method : str, default "milp"
        Method name recorded in the result.
    initial : numpy.ndarray, optional
        A placement (host per task) to start from: the incumbent and the solver's
        warm start. If it reaches the closed-form bound (LP or bin packing) it is
        returned as ``optimal`` at once, without building a model.
    initial_source : str, default "initial"
        The component that produced ``initial`` (recorded in ``incumbent_source``).

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
       virtual clusters, Sec. 3.1 (restated as a min-max load in user guide (VCSched)).
    """
    clock = _Clock(time_limit)  # the limit covers the imports too

    from allockit.models.vcsched_load import build_load_milp, extract_load_counts

    return _solve_highs_form(
        instance,
        build=lambda margin, deadline: build_load_milp(
            instance, symmetry_breaking=symmetry_breaking, margin=margin, deadline=deadline
        ),
        extract=lambda model: counts_to_task_hosts(instance, extract_load_counts(model, instance)),
        to_yield_bound=lambda load: 1.0 / max(1.0, load),
        set_start=lambda model, hosts: _start_load_milp(model, instance, hosts),
        cells=instance.n_jobs * instance.hosts,
        method=method,
        time_limit=time_limit,
        threads=threads,
        rel_gap=rel_gap,
        initial=initial,
        initial_source=initial_source,
        clock=clock,
    )


def solve_paper_milp(
    instance: VCInstance,
    *,
    time_limit: float | None = None,
    threads: int | None = None,
    rel_gap: float = DEFAULT_REL_GAP,
    method: str = "milp-paper",
    initial: np.ndarray | None = None,
    initial_source: str = "initial",
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
        Seconds (> 0) for the whole call: bounds, model building, solving, a retry, the
        re-check and the average-yield phase. A model whose estimated build time
        exceeds what is left is not built; on expiry the best placement known (the
        solver's or ``initial``) is returned with status ``time_limit`` (or none).
    threads : int, optional
        Solver threads (>= 1; default: the solver's choice).
    rel_gap : float, default DEFAULT_REL_GAP (1e-6)
        Relative gap under which the solve counts as optimal.
    method : str, default "milp-paper"
        Method name recorded in the result.
    initial : numpy.ndarray, optional
        A placement (host per task) to start from: the incumbent and the solver's
        warm start. If it reaches the closed-form bound (LP or bin packing) it is
        returned as ``optimal`` at once, without building a model.
    initial_source : str, default "initial"
        The component that produced ``initial`` (recorded in ``incumbent_source``).

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
    clock = _Clock(time_limit)  # the limit covers the imports too

    from allockit.models.vcsched_milp import build_paper_milp, extract_paper_placement

    return _solve_highs_form(
        instance,
        build=lambda margin, deadline: build_paper_milp(
            instance, margin=margin, deadline=deadline
        ),
        extract=lambda model: extract_paper_placement(model, instance),
        to_yield_bound=lambda y: min(1.0, y),
        set_start=lambda model, hosts: _start_paper_milp(model, instance, hosts),
        cells=instance.n_tasks * instance.hosts,
        method=method,
        time_limit=time_limit,
        threads=threads,
        rel_gap=rel_gap,
        initial=initial,
        initial_source=initial_source,
        clock=clock,
    )


def solve_cpsat_form(
    instance: VCInstance,
    *,
    time_limit: float | None = None,
    threads: int | None = None,
    rel_gap: float = DEFAULT_REL_GAP,
    seed: int = 0,
    method: str = "cpsat",
    initial: np.ndarray | None = None,
    initial_source: str = "initial",
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
        Seconds (> 0) for the whole call: bounds, model building, solving, a retry, the
        re-check and the average-yield phase. A model whose estimated build time
        exceeds what is left is not built; on expiry the best placement known (the
        solver's or ``initial``) is returned with status ``time_limit`` (or none).
    threads : int, optional
        Solver threads (>= 1; default: 1 CP-SAT worker).
    rel_gap : float, default DEFAULT_REL_GAP (1e-6)
        Relative gap: CP-SAT stops once within it (``relative_gap_limit``), and the
        exact re-check confirms optimality within it (widened by ``n_tasks / SCALE``
        for the integer rounding).
    seed : int, default 0
        CP-SAT's random seed.
    method : str, default "cpsat"
        Method name recorded in the result.
    initial : numpy.ndarray, optional
        A placement (host per task) to start from: the incumbent and CP-SAT's solution
        hint. If it reaches the closed-form bound (LP or bin packing) it is returned as
        ``optimal`` at once, without building a model.
    initial_source : str, default "initial"
        The component that produced ``initial`` (recorded in ``incumbent_source``).

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
    clock = _Clock(time_limit)  # the limit covers the imports too
    import ortools.sat.python.cp_model  # noqa: F401  (import outside the timed build)

    from allockit.evaluation.placement import host_loads, placement_violation
    from allockit.models.vcsched_cpsat import SCALE, build_cpsat
    from allockit.solver import BuildTimeLimit
    done, incumbent, closed = _prologue(
        instance,
        method=method,
        solver="cpsat",
        initial=initial,
        initial_source=initial_source,
        rel_gap=rel_gap,
        clock=clock,
    )
    if done is not None:
        return done
    # Integer rounding moves the optimum by at most n_tasks / SCALE in relative terms.
    tolerance = rel_gap + instance.n_tasks / SCALE
    common = dict(
        method=method, solver="cpsat", bound=closed, rel_gap=tolerance,
        initial_source=initial_source,
    )
    cells = instance.n_jobs * instance.hosts
    left = clock.left()
    if left is not None and cells * CPSAT_SECONDS_PER_CELL > left:
        return _stopped(
            instance,
            incumbent,
            build_seconds=0.0,
            solve_seconds=clock.elapsed(),
            message=f"time limit: a model of {cells} (job, host) pairs needs about "
            f"{cells * CPSAT_SECONDS_PER_CELL:.1f} s to build, {left:.2f} s were left",
            **common,
        )

    def hinted(rounding: str) -> Any:
        built = build_cpsat(instance, rounding=rounding, deadline=clock.deadline)
        if incumbent is not None:
            hosts = (
                incumbent
                if instance.is_adaptation
                else canonical_hosts(instance, incumbent, by="load")
            )
            counts = np.zeros((instance.n_jobs, instance.hosts), dtype=np.int64)
            np.add.at(counts, (instance.task_job, hosts), 1)
            for i, row in enumerate(built.n):
                for j, var in enumerate(row):
                    built.model.add_hint(var, int(counts[i, j]))
            top = float(host_loads(instance, hosts)[0].max())
            built.model.add_hint(built.load, max(SCALE, int(np.ceil(top * SCALE))))
        return built

    start = time.perf_counter()
    try:
        built = hinted("down")
    except BuildTimeLimit:
        return _stopped(
            instance,
            incumbent,
            build_seconds=time.perf_counter() - start,
            solve_seconds=0.0,
            message="time limit reached while building the model",
            **common,
        )
    build = time.perf_counter() - start
    if clock.out(0.01):
        return _stopped(
            instance,
            incumbent,
            build_seconds=build,
            solve_seconds=0.0,
            message="time limit reached while building the model",
            **common,
        )
    report, solver = solve_cpsat(
        built.model, time_limit=clock.left(), threads=threads, seed=seed, rel_gap=rel_gap
    )
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
            bound_source="cpsat",
        )
    bound = None if report.bound is None else 1.0 / max(1.0, report.bound / SCALE)
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
        up_report = None
        if not clock.out(0.01):
            start = time.perf_counter()
            try:
                up = hinted("up")
            except BuildTimeLimit:
                up = None
            build += time.perf_counter() - start
            if up is not None and not clock.out(0.01):
                up_report, up_solver = solve_cpsat(
                    up.model, time_limit=clock.left(), threads=threads, seed=seed, rel_gap=rel_gap
                )
                solve_seconds += up_report.seconds
        if up_report is not None and up_report.has_solution:
            counts = np.array([[up_solver.value(v) for v in row] for row in up.n])
            task_hosts = counts_to_task_hosts(instance, counts)
            message += "used the rounded-up (restricted) model"
            # an OPTIMAL status stands only if _finish's exact gap check confirms it
        else:
            timed_out = up_report is None or up_report.status is SolveStatus.TIME_LIMIT
            status = SolveStatus.TIME_LIMIT if timed_out else SolveStatus.ERROR
            message += "no placement feasible on exact data was found after scaling"
    source = "cpsat"
    if incumbent is not None and (
        task_hosts is None
        or min_yield_of(instance, task_hosts) <= min_yield_of(instance, incumbent) + 1e-12
    ):
        task_hosts, source = incumbent, initial_source
        if status is SolveStatus.ERROR:
            status = SolveStatus.FEASIBLE
    if task_hosts is None:
        return empty_result(
            instance,
            method=method,
            status=status,
            bound=bound,
            bound_source="cpsat",
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
        incumbent_source=source,
        bound_source="cpsat",
        bounds=(closed,),
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
        Seconds (> 0) for the whole call: building, both phases and the read-out
        (phase 2 gets what phase 1 left). A model whose estimated build time exceeds
        the limit is not built: status ``time_limit``.
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
    clock = _Clock(time_limit)  # the limit covers the imports too
    import pyomo.environ as pyo

    from allockit.models.vcsched_milp import build_paper_milp
    from allockit.solver import BuildTimeLimit

    def stopped(message: str, build: float = 0.0, seconds: float = 0.0) -> VCResult:
        return empty_result(
            instance,
            method=method,
            status=SolveStatus.TIME_LIMIT,
            solver="highs",
            build_seconds=build,
            solve_seconds=seconds,
            message=message,
        )

    cells = instance.n_tasks * instance.hosts
    left = clock.left()
    if left is not None and cells * PYOMO_SECONDS_PER_CELL > left:
        return stopped(
            f"time limit: a model of {cells} (task, host) pairs needs about "
            f"{cells * PYOMO_SECONDS_PER_CELL:.1f} s to build, {left:.2f} s were left"
        )
    start = time.perf_counter()
    try:
        model = build_paper_milp(instance, relax=True, deadline=clock.deadline)
    except BuildTimeLimit:
        return stopped("time limit reached while building the model", clock.elapsed())
    build = time.perf_counter() - start
    if clock.out(TRANSLATE_PER_BUILD * build):
        return stopped("time limit: too little time left to pass the model to HiGHS", build)
    report = solve_pyomo(model, time_limit=clock.left(), threads=threads)
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
    if clock.out(0.01):
        return stopped("time limit reached after phase 1", build, report.seconds)
    second = solve_pyomo(model, time_limit=clock.left(), threads=threads)
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
