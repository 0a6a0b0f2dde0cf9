"""What every exact VCSched solve shares: memory proofs, the closed-form bound, the warm
start's incumbent, the clock, and honest results re-checked on the exact data.

A solve driver (``vcsched_mip``, ``vcsched_cpsat_solve``, ``vcsched_lp``) makes one
``ExactRun`` and runs its own steps inside ``ExactRun.run``; any step may stop the run
with ``ExactRun.stop`` (time limit, nothing to build), which returns the best answer
known at that point.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any, NoReturn

import numpy as np

from allockit.clock import BuildTimeLimit, Deadline
from allockit.constants import MEM_TOL
from allockit.errors import InvalidInputError
from allockit.evaluation.bounds import memory_exceeds
from allockit.evaluation.placement import (
    empty_result,
    host_index_problem,
    min_yield_of,
    placement_violation,
    result_from_placement,
)
from allockit.instances.vcsched import VCInstance
from allockit.results import SolveStatus, VCResult
from allockit.solver.report import check_limits

__all__ = [
    "CPSAT_SECONDS_PER_CELL",
    "PYOMO_SECONDS_PER_CELL",
    "RETRY_MARGIN",
    "TOLERANCE_EDGE",
    "TRANSLATE_PER_BUILD",
    "ExactRun",
    "obviously_infeasible",
    "tolerance_edge",
    "valid_placement",
]

#: Tightening of the memory rows when a solver's tolerance let a placement through that
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
#: A nonzero memory or CPU need below this sits where a floating-point MILP solver's
#: tolerances act: HiGHS 1.12 proved false optima on memories of 1e-8 to 2e-6 beside
#: memory rows filled exactly (RESULTS 13.8), so such answers are checked by CP-SAT.
TOLERANCE_EDGE = 1e-4


def tolerance_edge(instance: VCInstance) -> str | None:
    """The datum a floating-point solver's tolerances may misread, or None.

    A job whose memory or CPU need per task is positive but below ``TOLERANCE_EDGE``
    (or a migration budget that small) is within a few orders of magnitude of the
    feasibility tolerances of floating-point MILP solvers (HiGHS: 1e-6 to 1e-7), whose
    cuts and presolve then may cut off optimal placements. The MILP drivers have such
    answers checked by CP-SAT, which works on integer data.

    Parameters
    ----------
    instance : VCInstance
        The instance.

    Returns
    -------
    str or None
        The first such datum as a phrase, or None when every datum is 0 or at least
        ``TOLERANCE_EDGE``.

    Examples
    --------
    >>> tolerance_edge(VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0.0, 1e-6]))
    "memory 1e-06 of job 'j1'"
    >>> tolerance_edge(VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0.0, 0.5])) is None
    True
    """
    for what, values in (("memory", instance.mem), ("CPU need", instance.cpu)):
        tiny = np.flatnonzero((values > 0) & (values < TOLERANCE_EDGE))
        if tiny.size:
            i = int(tiny[0])
            return f"{what} {values[i]:.6g} of job {instance.job_names[i]!r}"
    budget = instance.migration_budget
    if budget is not None and 0 < budget < TOLERANCE_EDGE:
        return f"migration budget {budget:.6g}"
    return None


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
    big = np.flatnonzero(instance.mem > 1.0 + MEM_TOL)
    if big.size:
        i = int(big[0])
        return f"job {instance.job_names[i]!r} needs memory {instance.mem[i]:.6g} > 1 per task"
    total = float((instance.tasks * instance.mem).sum())
    if memory_exceeds(total, instance.hosts):
        return f"total memory {total:.6g} exceeds the {instance.hosts} hosts"
    return None


def valid_placement(instance: VCInstance, task_hosts: Any) -> np.ndarray | None:
    """``task_hosts`` as int64 if it is a valid placement of ``instance``, else None.

    Valid means ``placement_violation`` finds nothing: one host per task, every entry
    an integer host index in ``[0, hosts)`` (integers, or floats of integer value),
    and the memory and migration limits met. Fractional, non-finite, boolean or string
    entries make a placement invalid (they are never truncated or parsed).

    Parameters
    ----------
    instance : VCInstance
        The instance.
    task_hosts : array-like or None
        A host per task.

    Returns
    -------
    numpy.ndarray or None

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0.6, 0.6])
    >>> valid_placement(inst, [0, 1]).tolist(), valid_placement(inst, [0, 0])
    ([0, 1], None)
    >>> valid_placement(inst, [0.5, 1]), valid_placement(inst, ["0", "1"])
    (None, None)
    """
    if task_hosts is None or host_index_problem(task_hosts) is not None:
        return None
    task_hosts = np.asarray(task_hosts)
    if task_hosts.dtype.kind == "f" and task_hosts.size and np.abs(task_hosts).max() >= 2**62:
        return None  # names no host (and would not cast to int64)
    task_hosts = task_hosts.astype(np.int64, copy=False)
    return task_hosts if placement_violation(instance, task_hosts) is None else None


def _note(message: str, note: str) -> str:
    return f"{message}; {note}" if message else note


class _Stop(Exception):
    """Ends an ``ExactRun`` early with the answer known at that point."""

    def __init__(self, result: VCResult) -> None:
        super().__init__(result.message)
        self.result = result


class ExactRun:
    """One exact solve of a VCSched instance: its clock, incumbent, bounds and times.

    Parameters
    ----------
    instance : VCInstance
        The instance.
    method : str
        Method name recorded in the result.
    solver : str
        The solver's name recorded in the result (``"highs"``, ``"scip"``, ``"cpsat"``).
    time_limit : float or Deadline, optional
        The whole run's limit (seconds from now, or the caller's deadline).
    rel_gap : float
        Relative gap under which an answer counts as optimal: a number in [0, 1).
    initial : numpy.ndarray, optional
        A placement to start from (the warm start): integer host indices (floats of
        integer value accepted); kept when valid (``valid_placement``), ignored when it
        breaks the memory or migration limits, has the wrong length or names no host.
    initial_source : str
        The component that produced ``initial``.
    shortcut : bool
        Answer ``optimal`` without a solver run when ``initial`` meets the closed-form
        bound (``"proof": "bound"``).

    Raises
    ------
    InvalidInputError
        If ``rel_gap`` is not a number in [0, 1), ``time_limit`` is a number that is
        not > 0, or ``initial`` holds entries that are not integer host indices
        (fractions, NaN, booleans, strings): they are refused, never truncated.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0.1, 0.1])
    >>> run = ExactRun(inst, method="x", solver="highs", time_limit=None, rel_gap=1e-4,
    ...                initial=np.array([0, 1]), initial_source="mcb8", shortcut=True)
    >>> r = run.run(lambda: run.stop("not reached"))
    >>> str(r.status), r.proof, r.bound_source, r.solver
    ('optimal', 'bound', 'lp', 'none')
    >>> ExactRun(inst, method="x", solver="highs", time_limit=None, rel_gap=5.0)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: rel_gap must be a number in [0, 1); got 5.0
    """

    def __init__(
        self,
        instance: VCInstance,
        *,
        method: str,
        solver: str,
        time_limit: float | Deadline | None,
        rel_gap: float,
        initial: np.ndarray | None = None,
        initial_source: str = "initial",
        shortcut: bool = False,
    ) -> None:
        if rel_gap is None:  # required here (check_limits takes None as "not given")
            raise InvalidInputError("rel_gap must be a number in [0, 1); got None")
        check_limits(rel_gap=rel_gap)
        if initial is not None:
            why = host_index_problem(initial, "initial")
            if why is not None:
                raise InvalidInputError(why)
        self.deadline = Deadline.of(time_limit)
        self.instance = instance
        self.method = method
        self.solver = solver
        self.rel_gap = rel_gap
        self.initial = initial
        self.initial_source = initial_source
        self.shortcut = shortcut
        self.incumbent: np.ndarray | None = None
        self.closed: tuple[float | None, str] = (None, "")
        self.build_seconds = 0.0
        self.solve_seconds = 0.0

    def run(self, body: Callable[[], VCResult], *, prologue: bool = True) -> VCResult:
        """Run the memory proofs and the warm-start check (``prologue``), then ``body``.

        Parameters
        ----------
        body : callable
            The driver's own steps; it may call ``stop``.
        prologue : bool, default True
            Run the memory proofs, the closed-form bound and the warm-start check
            first (the LP relaxation skips them: it is solved as it is).

        Returns
        -------
        VCResult
            ``body``'s result, or the result a step stopped with.
        """
        try:
            if prologue:
                self._open()
            return body()
        except _Stop as stop:
            return stop.result

    def _open(self) -> None:
        from allockit.evaluation.bounds import yield_upper_bound

        instance = self.instance
        reason = obviously_infeasible(instance)
        if reason:
            self.closed = (None, "memory")
            raise _Stop(self.infeasible(reason))
        self.closed = yield_upper_bound(instance)
        if self.closed[0] is None:
            raise _Stop(
                self.infeasible(
                    f"the tasks' memories cannot be packed into {instance.hosts} hosts "
                    "(bin packing)"
                )
            )
        self.incumbent = valid_placement(instance, self.initial)
        if self.incumbent is None or not self.shortcut:
            return
        y, source = min_yield_of(instance, self.incumbent), self.closed[1]
        if self.closed_proves(y):
            self.solve_seconds = self.deadline.elapsed()
            raise _Stop(
                replace(
                    self._scored(
                        self.incumbent,
                        status=SolveStatus.OPTIMAL,
                        bound=None,
                        solver="none",
                        message=f"{self.initial_source} reached the {source} bound: proven "
                        "optimal without a solver run",
                        source=self.initial_source,
                        bound_source="",
                    ),
                    proof="bound",
                )
            )

    def closed_proves(self, min_yield: float | None) -> bool:
        """Whether the closed-form bound (LP or bin packing) proves ``min_yield`` optimal.

        Parameters
        ----------
        min_yield : float or None
            A placement's minimum yield.

        Returns
        -------
        bool
            True when the bound is within the run's ``rel_gap`` of ``min_yield``.
        """
        bound = self.closed[0]
        return (bound is not None and min_yield is not None
                and bound - min_yield <= self.rel_gap * bound + 1e-15)

    def infeasible(self, reason: str) -> VCResult:
        """Status ``infeasible`` proven by memory alone (``bound_source`` ``memory``)."""
        return empty_result(
            self.instance,
            method=self.method,
            status=SolveStatus.INFEASIBLE,
            solver=self.solver,
            message=reason,
            bound_source="memory",
        )

    def stop(self, message: str, status: SolveStatus = SolveStatus.TIME_LIMIT) -> NoReturn:
        """End the run now with ``status`` and the warm start's placement, if any.

        Parameters
        ----------
        message : str
            Why the run stopped.
        status : SolveStatus, default ``time_limit``
            The status to report.

        Raises
        ------
        _Stop
            Always; ``run`` turns it into the result.
        """
        raise _Stop(self.stopped(message, status))

    def stopped(self, message: str, status: SolveStatus = SolveStatus.TIME_LIMIT) -> VCResult:
        """The result of a run that ends now: the incumbent (if any) with ``status``."""
        if self.incumbent is None:
            return self.empty(status, bound=self.closed[0], bound_source=self.closed[1],
                              message=message)
        return self.finish(
            self.incumbent, status=status, bound=None, message=message,
            source=self.initial_source, bound_source="",
        )

    def refuse_large(self, cells: int, per_cell: float, unit: str) -> None:
        """Stop before building a model whose estimated build time exceeds the time left.

        Parameters
        ----------
        cells : int
            The model's size in (``unit``) pairs.
        per_cell : float
            Estimated seconds per pair.
        unit : str
            What a pair is (``"(task, host)"``).
        """
        left = self.deadline.left()
        if left is not None and cells * per_cell > left:
            self.solve_seconds = self.deadline.elapsed()
            self.stop(
                f"time limit: a model of {cells} {unit} pairs needs about "
                f"{cells * per_cell:.1f} s to build, {left:.2f} s were left"
            )

    def build(self, make: Callable[[Deadline], Any], *, stop: bool = True) -> Any:
        """Build a model with the run's deadline; the seconds count as build time.

        Parameters
        ----------
        make : callable
            ``make(deadline) -> model``; may raise ``BuildTimeLimit``.
        stop : bool, default True
            Stop the run when the deadline passes during the build; else return None.

        Returns
        -------
        model or None
        """
        start = time.perf_counter()
        try:
            model = make(self.deadline)
        except BuildTimeLimit:
            model = None
        self.build_seconds += time.perf_counter() - start
        if model is None and stop:
            self.stop("time limit reached while building the model")
        return model

    def better(
        self, task_hosts: np.ndarray | None, source: str
    ) -> tuple[np.ndarray | None, str]:
        """The solver's placement, or the incumbent when the solver's is not better."""
        incumbent = self.incumbent
        if incumbent is not None and (
            task_hosts is None
            or min_yield_of(self.instance, task_hosts)
            <= min_yield_of(self.instance, incumbent) + 1e-12
        ):
            return incumbent, self.initial_source
        return task_hosts, source

    def empty(
        self,
        status: SolveStatus,
        *,
        bound: float | None = None,
        bound_source: str = "",
        message: str = "",
    ) -> VCResult:
        """A result without a placement, with the run's times."""
        return empty_result(
            self.instance,
            method=self.method,
            status=status,
            bound=bound,
            bound_source=bound_source,
            solver=self.solver,
            build_seconds=self.build_seconds,
            solve_seconds=self.solve_seconds,
            message=message,
        )

    def _scored(
        self,
        task_hosts: np.ndarray,
        *,
        status: SolveStatus,
        bound: float | None,
        message: str,
        source: str,
        bound_source: str,
        solver: str | None = None,
    ) -> VCResult:
        return result_from_placement(
            self.instance,
            task_hosts,
            method=self.method,
            status=status,
            bound=bound,
            solver=self.solver if solver is None else solver,
            build_seconds=self.build_seconds,
            solve_seconds=self.solve_seconds,
            message=message,
            incumbent_source=source,
            bound_source=bound_source,
            bounds=(self.closed,),
        )

    def finish(
        self,
        task_hosts: np.ndarray,
        *,
        status: SolveStatus,
        bound: float | None,
        message: str = "",
        source: str,
        bound_source: str,
    ) -> VCResult:
        """Score a placement on the exact data and report only what is proven.

        A gap within the run's ``rel_gap`` makes the answer ``optimal`` (the bound
        proves it); an ``optimal`` whose gap on the exact data is larger becomes
        ``feasible``.
        """
        rel_gap = self.rel_gap
        result = self._scored(
            task_hosts,
            status=status,
            bound=bound,
            message=message,
            source=source,
            bound_source=bound_source,
        )
        if result.min_yield is None:
            return result
        if result.status is not SolveStatus.OPTIMAL and result.gap is not None and (
            result.gap <= rel_gap
        ):
            # the bound (solver's, the LP's or bin packing's) proves the incumbent optimal
            return replace(
                result,
                status=SolveStatus.OPTIMAL,
                message=_note(message, "proven optimal by the bound"),
            )
        if result.status is SolveStatus.OPTIMAL and result.bound is not None and (
            result.bound > 0
            and (result.bound - result.min_yield) / result.bound > max(rel_gap, 1e-7)
        ):
            return replace(
                result,
                status=SolveStatus.FEASIBLE,
                message=_note(message, "optimality not confirmed on exact data"),
            )
        return result
