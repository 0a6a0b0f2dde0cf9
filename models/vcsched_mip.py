"""The VCSched MILPs solved exactly: build, solve (HiGHS, SCIP or any Pyomo solver),
re-check on the original data, retry once with a margin, and have CP-SAT decide where the
solver's tolerance makes its claims unreliable."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from allockit.clock import Deadline
from allockit.constants import DEFAULT_REL_GAP
from allockit.evaluation.placement import counts_to_task_hosts, placement_violation
from allockit.instances.vcsched import VCInstance
from allockit.models.vcsched_exact import (
    PYOMO_SECONDS_PER_CELL,
    RETRY_MARGIN,
    TRANSLATE_PER_BUILD,
    ExactRun,
    tolerance_edge,
    valid_placement,
)
from allockit.results import SolveStatus, VCResult
from allockit.solver import DEFAULT_SOLVER, solve_pyomo

__all__ = ["MipForm", "load_form", "paper_form", "solve_load_milp", "solve_paper_milp"]


@dataclass(frozen=True, slots=True)
class MipForm:
    """One MILP form of VCSched: how to build it, start it and read it.

    Attributes
    ----------
    build : callable
        ``build(margin, deadline) -> model``: the Pyomo model with the memory rows
        tightened by ``margin``.
    extract : callable
        ``extract(model) -> task_hosts`` after a solve.
    to_yield_bound : callable
        The solver's bound on the objective -> a bound on the minimum yield.
    set_start : callable
        ``set_start(model, task_hosts)``: the warm start's values.
    cells : int
        The model's size in (task or job, host) pairs, for the build-time estimate.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> load_form(inst).cells, paper_form(inst).cells
    (6, 6)
    """

    build: Callable[[float, Deadline | None], Any]
    extract: Callable[[Any], np.ndarray]
    to_yield_bound: Callable[[float], float]
    set_start: Callable[[Any, np.ndarray], None]
    cells: int


def load_form(instance: VCInstance, *, symmetry_breaking: bool = True) -> MipForm:
    """The min-max-load MILP (``build_load_milp``) as a ``MipForm``.

    Parameters
    ----------
    instance : VCInstance
        The instance.
    symmetry_breaking : bool, default True
        Add the identical-host symmetry-breaking rows.

    Returns
    -------
    MipForm

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> load_form(inst).to_yield_bound(1.2) == 1 / 1.2
    True
    """
    from allockit.models.vcsched_load import build_load_milp, extract_load_counts
    from allockit.models.vcsched_warm import start_load_milp

    return MipForm(
        build=lambda margin, deadline: build_load_milp(
            instance, symmetry_breaking=symmetry_breaking, margin=margin, deadline=deadline
        ),
        extract=lambda model: counts_to_task_hosts(instance, extract_load_counts(model, instance)),
        to_yield_bound=lambda load: 1.0 / max(1.0, load),
        set_start=lambda model, hosts: start_load_milp(model, instance, hosts),
        cells=instance.n_jobs * instance.hosts,
    )


def paper_form(instance: VCInstance) -> MipForm:
    """The paper's e/alpha/Y MILP (``build_paper_milp``) as a ``MipForm``.

    Parameters
    ----------
    instance : VCInstance
        The instance.

    Returns
    -------
    MipForm

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> paper_form(inst).to_yield_bound(1.5)
    1.0
    """
    from allockit.models.vcsched_milp import build_paper_milp, extract_paper_placement
    from allockit.models.vcsched_warm import start_paper_milp

    return MipForm(
        build=lambda margin, deadline: build_paper_milp(
            instance, margin=margin, deadline=deadline
        ),
        extract=lambda model: extract_paper_placement(model, instance),
        to_yield_bound=lambda y: min(1.0, y),
        set_start=lambda model, hosts: start_paper_milp(model, instance, hosts),
        cells=instance.n_tasks * instance.hosts,
    )


def _solve_mip(
    run: ExactRun,
    form: MipForm,
    *,
    threads: int | None,
    seed: int,
) -> VCResult:
    """Solve on the floating-point solver; at the tolerance edge, have CP-SAT check it."""
    claimed, unresolved = _float_solve(run, form, threads=threads, seed=seed)
    # unless the LP or bin-packing bound proves the placement optimal, the answer stands
    # on the solver's claims (its bound, its infeasibility, its "optimal")
    edge = None if run.closed_proves(claimed.min_yield) else tolerance_edge(run.instance)
    if unresolved:
        why = (
            f"{run.solver}'s tolerance admitted a placement infeasible on the exact data "
            "and the re-solve with a margin gave none"
        )
    elif edge is not None:
        why = f"{edge} is at floating-point tolerance"
    else:
        return claimed
    return _checked_by_cpsat(run, claimed, why, threads=threads, seed=seed)


def _checked_by_cpsat(
    run: ExactRun, claimed: VCResult, why: str, *, threads: int | None, seed: int
) -> VCResult:
    """CP-SAT, on integer data, started from the claimed placement: its bound stands.

    The floating-point solver's bound and infeasibility proofs are not trusted at the
    tolerance edge (``why`` says what put it there); CP-SAT's are (rounded-down data: a
    relaxation). The answer is CP-SAT's (never worse than the claimed placement), its
    message saying whether the claim was confirmed, refuted or could not be checked in
    the time left.
    """
    from allockit.models.vcsched_cpsat_solve import solve_cpsat_form

    name = run.solver
    check = solve_cpsat_form(
        run.instance,
        time_limit=run.deadline,
        threads=threads,
        rel_gap=run.rel_gap,
        seed=seed,
        method=run.method,
        initial=claimed.task_hosts,
        initial_source=claimed.incumbent_source or name,
    )
    said = _claim(claimed, name)
    if claimed.bound is not None and check.min_yield is not None and (
        check.min_yield > claimed.bound * (1 + 1e-9) + 1e-12
    ):
        verdict = f"refuted by cpsat's placement (yield {check.min_yield:.6g})"
    elif claimed.status is SolveStatus.INFEASIBLE and check.min_yield is not None:
        verdict = "refuted by cpsat's placement"
    elif check.status in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE):
        verdict = f"checked by cpsat: {check.status}"
    else:
        verdict = f"not checked: cpsat stopped with status {check.status}"
    note = f"{why}: {said} {verdict}"
    return replace(
        check,
        solver=f"{name}+cpsat",
        build_seconds=claimed.build_seconds + check.build_seconds,
        solve_seconds=claimed.solve_seconds + check.solve_seconds,
        message=f"{note}; {check.message}" if check.message else note,
    )


def _claim(claimed: VCResult, name: str) -> str:
    """What the floating-point solver said, as a phrase."""
    if claimed.min_yield is None:
        return f"{name}'s answer ({claimed.status})"
    bound = "no bound" if claimed.bound is None else f"bound {claimed.bound:.6g}"
    return f"{name}'s answer ({claimed.status}, yield {claimed.min_yield:.6g}, {bound})"


def _float_solve(
    run: ExactRun,
    form: MipForm,
    *,
    threads: int | None,
    seed: int,
) -> tuple[VCResult, bool]:
    """Build, solve, re-check on exact data, retry once with a margin.

    Returns the result and whether the solver's tolerance was left unresolved: its
    placement broke the exact data and the re-solve with a margin gave no valid one.
    """
    instance, name = run.instance, run.solver
    # Imported only once a model is needed (a warm start that proves optimality
    # needs none) and outside the timed build; the clock covers it.
    import pyomo.environ  # noqa: F401

    run.refuse_large(form.cells, PYOMO_SECONDS_PER_CELL, "(task, host)")
    model = run.build(lambda deadline: form.build(0.0, deadline))
    if run.deadline.expired(TRANSLATE_PER_BUILD * run.build_seconds):
        run.stop(f"time limit: too little time left to pass the model to {name}")
    if run.incumbent is not None:
        form.set_start(model, run.incumbent)

    def solve(model: Any, warm: bool) -> Any:
        report = solve_pyomo(
            model,
            solver=name,
            time_limit=run.deadline,
            threads=threads,
            rel_gap=run.rel_gap,
            seed=seed,
            warm_start=warm,
        )
        run.solve_seconds += report.seconds
        return report

    report = solve(model, run.incumbent is not None)
    bound = None if report.bound is None else form.to_yield_bound(report.bound)
    message = ""
    task_hosts = form.extract(model) if report.has_solution else None
    if task_hosts is not None and placement_violation(instance, task_hosts) is not None:
        # The first model's bound stays valid: with the tolerance it was a relaxation.
        task_hosts = None
        message = f"{name} tolerance admitted an infeasible placement"
        if not run.deadline.expired(0.05):
            message += "; re-solved with margin"
            model = run.build(lambda deadline: form.build(RETRY_MARGIN, deadline), stop=False)
            if model is not None and not run.deadline.expired(0.01):
                retry = solve(model, False)
                task_hosts = valid_placement(
                    instance, form.extract(model) if retry.has_solution else None
                )
                if task_hosts is None:
                    report = retry
    unresolved = bool(message) and task_hosts is None
    task_hosts, source = run.better(task_hosts, name)
    status = report.status
    if task_hosts is None:
        if status is SolveStatus.INFEASIBLE and message:
            status = SolveStatus.ERROR  # infeasible with margin proves nothing
        return run.empty(
            status,
            bound=bound if status is not SolveStatus.INFEASIBLE else None,
            bound_source=name,
            message=message or report.message,
        ), unresolved
    if status in (SolveStatus.INFEASIBLE, SolveStatus.ERROR):
        # a valid placement is known: the solver's failure proves nothing about it
        message = f"{message}; {name}: {report.message}" if message else f"{name}: {report.message}"
        status = SolveStatus.FEASIBLE
    return run.finish(
        task_hosts, status=status, bound=bound, message=message, source=source, bound_source=name
    ), unresolved


def solve_load_milp(
    instance: VCInstance,
    *,
    time_limit: float | Deadline | None = None,
    threads: int | None = None,
    rel_gap: float = DEFAULT_REL_GAP,
    symmetry_breaking: bool = True,
    method: str = "milp",
    initial: np.ndarray | None = None,
    initial_source: str = "initial",
    solver: str = DEFAULT_SOLVER,
    seed: int = 0,
    shortcut: bool = False,
) -> VCResult:
    """Solve VCSched exactly with the min-max-load MILP.

    The model is ``build_load_milp`` (tasks counted per host, minimise the largest
    host load ``L``; the best minimum yield is ``1 / max(1, L)``). A placement that
    the solver's feasibility tolerance let through but that breaks memory on the exact
    data triggers one re-solve with the memory rows tightened by ``RETRY_MARGIN``.
    This is the ``"milp"`` method of ``allockit.vcsched.solve``.

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
        Solver threads (>= 1; default: the solver's choice).
    rel_gap : float, default DEFAULT_REL_GAP
        Relative gap under which the solve counts as optimal.
    symmetry_breaking : bool, default True
        Add the identical-host symmetry-breaking constraints (see ``build_load_milp``).
    method : str, default "milp"
        Method name recorded in the result.
    initial : numpy.ndarray, optional
        A placement (host per task) to start from: the incumbent and the solver's
        warm start.
    initial_source : str, default "initial"
        The component that produced ``initial`` (recorded in ``incumbent_source``).
    solver : str, default "highs"
        The solver (``allockit.solver.SOLVERS``: ``"highs"``, ``"scip"``, ... or any
        name Pyomo knows).
    seed : int, default 0
        The solver's random seed.
    shortcut : bool, default False
        If ``initial`` reaches the closed-form bound (LP or bin packing), answer
        ``optimal`` at once without running the solver (``proof`` ``"bound"``).

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
    >>> str(r.status), round(r.min_yield, 6), round(r.bound, 6), r.solver
    ('optimal', 0.833333, 0.833333, 'highs')

    References
    ----------
    .. [1] Stillwell, Schanzenbach, Vivien, Casanova (2009), Resource allocation using
       virtual clusters, Sec. 3.1 (restated as a min-max load in user guide (VCSched)).
    """
    run = ExactRun(
        instance,
        method=method,
        solver=solver,
        time_limit=time_limit,  # the limit covers the imports too
        rel_gap=rel_gap,
        initial=initial,
        initial_source=initial_source,
        shortcut=shortcut,
    )
    form = load_form(instance, symmetry_breaking=symmetry_breaking)
    return run.run(lambda: _solve_mip(run, form, threads=threads, seed=seed))


def solve_paper_milp(
    instance: VCInstance,
    *,
    time_limit: float | Deadline | None = None,
    threads: int | None = None,
    rel_gap: float = DEFAULT_REL_GAP,
    method: str = "milp-paper",
    initial: np.ndarray | None = None,
    initial_source: str = "initial",
    solver: str = DEFAULT_SOLVER,
    seed: int = 0,
    shortcut: bool = False,
) -> VCResult:
    """Solve VCSched exactly with the paper's (e, alpha, Y) MILP.

    The model is ``build_paper_milp`` (one binary per task and host). It is larger and
    slower than ``solve_load_milp`` but states the paper's model literally; both must
    agree. Re-checked and retried with a margin like ``solve_load_milp``, with the same
    options (``symmetry_breaking`` aside). This is the ``"milp-paper"`` method of
    ``allockit.vcsched.solve``.

    Parameters
    ----------
    instance : VCInstance
        The instance, as for ``solve_load_milp``.
    time_limit, threads, rel_gap, method, initial, initial_source, solver, seed, shortcut
        As for ``solve_load_milp`` (``method`` defaults to ``"milp-paper"``).

    Returns
    -------
    VCResult
        As for ``solve_load_milp``.

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
    run = ExactRun(
        instance,
        method=method,
        solver=solver,
        time_limit=time_limit,
        rel_gap=rel_gap,
        initial=initial,
        initial_source=initial_source,
        shortcut=shortcut,
    )
    return run.run(lambda: _solve_mip(run, paper_form(instance), threads=threads, seed=seed))
