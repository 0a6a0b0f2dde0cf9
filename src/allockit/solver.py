"""The solver layer: run a Pyomo model with HiGHS or a CP-SAT model, report an honest status."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from allockit.constants import DEFAULT_REL_GAP
from allockit.errors import InvalidInputError, SolverUnavailableError
from allockit.results import SolveStatus

__all__ = [
    "MAX_THREADS_PER_CORE",
    "BuildTimeLimit",
    "SolverReport",
    "check_solver_options",
    "deadline_clock",
    "max_threads",
    "solve_cpsat",
    "solve_pyomo",
    "solver_versions",
]

#: Solver threads accepted per core of the machine (more only oversubscribes it; far
#: more makes CP-SAT refuse the model).
MAX_THREADS_PER_CORE = 4


class BuildTimeLimit(Exception):
    """Raised inside a model builder when its deadline has passed (see ``deadline_clock``).

    The solve drivers catch it and report status ``time_limit``; it never reaches a user.

    Examples
    --------
    >>> issubclass(BuildTimeLimit, Exception)
    True
    """


def deadline_clock(deadline: float | None) -> Any:
    """A function to call inside a model builder: it raises ``BuildTimeLimit`` once
    ``time.perf_counter()`` has passed ``deadline`` (None: never).

    Parameters
    ----------
    deadline : float or None
        A ``time.perf_counter()`` value, or None for no deadline.

    Returns
    -------
    callable
        ``tick() -> None``; cheap enough to call once per model row or variable.

    Raises
    ------
    BuildTimeLimit
        From the returned function, once the deadline has passed.

    Examples
    --------
    >>> tick = deadline_clock(None)
    >>> tick()
    >>> late = deadline_clock(time.perf_counter() - 1.0)
    >>> late()
    Traceback (most recent call last):
    ...
    allockit.solver.BuildTimeLimit: model building reached the time limit
    """
    if deadline is None:
        return lambda: None
    clock = time.perf_counter

    def tick() -> None:
        if clock() > deadline:
            raise BuildTimeLimit("model building reached the time limit")

    return tick


def max_threads() -> int:
    """The largest thread count a solver call accepts: 4 per core of this machine.

    Returns
    -------
    int
        ``MAX_THREADS_PER_CORE * os.cpu_count()`` (at least 4).

    Examples
    --------
    >>> max_threads() >= MAX_THREADS_PER_CORE
    True
    """
    import os

    return MAX_THREADS_PER_CORE * max(1, os.cpu_count() or 1)


@dataclass(frozen=True, slots=True)
class SolverReport:
    """What a solver said: status, incumbent objective, proven bound, seconds.

    ``has_solution`` tells whether a solution was loaded (for Pyomo, into the model's
    variables). ``bound`` is the solver's proven dual bound in the model's own sense.

    Attributes
    ----------
    status : SolveStatus
        ``optimal`` (within the relative gap), ``feasible``, ``infeasible``,
        ``time_limit`` or ``error``.
    has_solution : bool
        Whether the solver produced a solution that can be read.
    objective : float or None
        Objective value of the incumbent, None without one.
    bound : float or None
        Proven bound on the objective (an upper bound when maximising), None when the
        solver has none (infinite or infeasible).
    seconds : float
        Wall time of the solver call in seconds (model building excluded).
    solver : str
        ``"highs"`` or ``"cpsat"``.
    message : str
        The solver's own termination name (``"convergenceCriteriaSatisfied"``,
        ``"OPTIMAL"``, ...) or the error text.

    Examples
    --------
    >>> r = SolverReport(SolveStatus.TIME_LIMIT, True, 0.8, 0.9, 10.0, "highs", "maxTimeLimit")
    >>> r.status, r.has_solution, r.bound
    (<Status.TIME_LIMIT: 'time_limit'>, True, 0.9)
    >>> r.to_dict()["status"]
    'time_limit'
    """

    status: SolveStatus
    has_solution: bool
    objective: float | None
    bound: float | None
    seconds: float
    solver: str
    message: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", SolveStatus(self.status))

    def to_dict(self) -> dict[str, Any]:
        """JSON form.

        Examples
        --------
        >>> r = SolverReport(SolveStatus.OPTIMAL, True, 1.0, 1.0, 0.1, "highs")
        >>> SolverReport.from_dict(r.to_dict()) == r
        True
        """
        return {
            "status": str(self.status),
            "has_solution": self.has_solution,
            "objective": self.objective,
            "bound": self.bound,
            "seconds": self.seconds,
            "solver": self.solver,
            "message": self.message,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SolverReport:
        """Rebuild a report from ``to_dict``'s output."""
        try:
            return cls(
                status=SolveStatus(data["status"]),
                has_solution=bool(data["has_solution"]),
                objective=data["objective"],
                bound=data["bound"],
                seconds=float(data["seconds"]),
                solver=str(data["solver"]),
                message=str(data.get("message", "")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"solver report is malformed: {exc}") from exc


def _check_limits(
    time_limit: float | None, threads: int | None, rel_gap: float | None = None
) -> None:
    if time_limit is not None and not (time_limit > 0):
        raise InvalidInputError(f"time_limit must be > 0 seconds; got {time_limit!r}")
    if threads is not None and (
        isinstance(threads, bool) or int(threads) != threads or threads < 1
    ):
        raise InvalidInputError(f"threads must be an integer >= 1; got {threads!r}")
    if threads is not None and threads > max_threads():
        raise InvalidInputError(
            f"threads must be at most {max_threads()} ({MAX_THREADS_PER_CORE} per core); "
            f"got {threads!r}"
        )
    if rel_gap is not None and (
        isinstance(rel_gap, bool) or not isinstance(rel_gap, int | float) or not 0 <= rel_gap < 1
    ):
        raise InvalidInputError(f"rel_gap must be a number in [0, 1); got {rel_gap!r}")


def check_solver_options(
    *, time_limit: float | None = None, threads: int | None = None, rel_gap: float | None = None
) -> None:
    """Refuse solver options that a solver would reject or that make no sense.

    Called before any model is built, so a bad value is an ``InvalidInputError``
    (exit 2 on the command line), never a solver error after the work.

    Parameters
    ----------
    time_limit : float, optional
        Seconds; must be > 0.
    threads : int, optional
        Must be an integer in ``[1, max_threads()]`` (4 per core).
    rel_gap : float, optional
        Relative gap; must be in [0, 1).

    Raises
    ------
    InvalidInputError
        Naming the option, the allowed range and the value.

    Examples
    --------
    >>> check_solver_options(threads=1, rel_gap=1e-6)
    >>> check_solver_options(threads=100000)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: threads must be at most ... per core); got 100000
    """
    _check_limits(time_limit, threads, rel_gap)


def solver_versions() -> dict[str, str]:
    """Versions of the installed solver packages, for result records.

    Reads package metadata only; no solver is imported.

    Returns
    -------
    dict[str, str]
        ``{"highspy": ..., "ortools": ..., "pyomo": ...}``, each a version string or
        ``"not installed"``.

    Examples
    --------
    >>> sorted(solver_versions())
    ['highspy', 'ortools', 'pyomo']
    """
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("highspy", "ortools", "pyomo"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out


def solve_pyomo(
    model: Any,
    *,
    time_limit: float | None = None,
    threads: int | None = None,
    rel_gap: float = DEFAULT_REL_GAP,
    warm_start: bool = False,
) -> SolverReport:
    """Solve a Pyomo model with HiGHS and load the solution when there is one.

    The model is first translated into HiGHS (Pyomo's persistent interface); the time
    limit covers the translation and the solve together, so HiGHS gets what the
    translation left. A translation that uses up the limit returns ``time_limit``
    without running HiGHS.

    Parameters
    ----------
    model : pyomo.environ.ConcreteModel
        A model with one objective.
    time_limit : float, optional
        Seconds (> 0) for translation and solve; on expiry the incumbent (if any) is
        loaded and the status is ``time_limit``.
    threads : int, optional
        HiGHS threads, 1 to ``max_threads()`` (default: HiGHS's choice).
    rel_gap : float
        Relative MIP gap under which the solve counts as optimal.
    warm_start : bool, default False
        Give HiGHS the variables' current values as a starting solution
        (``Highs.setSolution``; HiGHS checks it and ignores an infeasible one).
        Variables without a value are left for HiGHS to complete.

    Returns
    -------
    SolverReport
        ``seconds`` counts translation and solve.

    Raises
    ------
    InvalidInputError
        For a non-positive time limit, a thread count outside ``[1, max_threads()]``
        or a relative gap outside [0, 1).
    SolverUnavailableError
        If pyomo or highspy is missing.

    Examples
    --------
    >>> import pyomo.environ as pyo
    >>> m = pyo.ConcreteModel()
    >>> m.x = pyo.Var(domain=pyo.Binary)
    >>> m.obj = pyo.Objective(expr=m.x, sense=pyo.maximize)
    >>> rep = solve_pyomo(m)
    >>> rep.status, rep.objective, m.x.value
    (<Status.OPTIMAL: 'optimal'>, 1.0, 1.0)
    >>> m.x.set_value(1)
    >>> solve_pyomo(m, warm_start=True).objective
    1.0
    """
    _check_limits(time_limit, threads, rel_gap)
    try:
        import pyomo.environ as pyo
        from pyomo.contrib.solver.common.factory import SolverFactory
        from pyomo.contrib.solver.common.results import SolutionStatus, TerminationCondition
    except ImportError as exc:  # pragma: no cover - pyomo is a hard dependency
        raise SolverUnavailableError("pyomo is required: pip install allockit") from exc

    solver = SolverFactory("highs")
    if not solver.available():
        raise SolverUnavailableError("HiGHS is not available: pip install highspy==1.12.0")
    # HiGHS's default feasibility tolerances are kept on purpose: tightening them to
    # 1e-10 made HiGHS return wrong "optimal" answers on the paper's small set. Callers
    # re-check every solution on the exact data instead (models/vcsched_solve.py).
    options: dict[str, Any] = {"mip_rel_gap": rel_gap, "random_seed": 0}
    config: dict[str, Any] = {
        "load_solutions": False,
        "raise_exception_on_nonoptimal_result": False,
        "solver_options": options,
    }
    if threads is not None:
        config["threads"] = int(threads)
    start = time.perf_counter()
    try:
        solver.set_instance(model)
        if warm_start:
            import numpy as np

            columns = solver._pyomo_var_to_solver_var_map
            index, value = [], []
            for var in model.component_data_objects(pyo.Var, active=True):
                if var.value is not None and id(var) in columns:
                    index.append(columns[id(var)])
                    value.append(float(var.value))
            if index:
                solver._solver_model.setSolution(
                    len(index), np.asarray(index, dtype=np.int32), np.asarray(value, dtype=float)
                )
    except Exception as exc:  # the translation itself failed: report, don't raise
        return SolverReport(
            SolveStatus.ERROR, False, None, None, time.perf_counter() - start, "highs", str(exc)
        )
    if time_limit is not None:
        left = float(time_limit) - (time.perf_counter() - start)
        if left <= 0:
            return SolverReport(
                SolveStatus.TIME_LIMIT,
                False,
                None,
                None,
                time.perf_counter() - start,
                "highs",
                "time limit reached while passing the model to HiGHS",
            )
        config["time_limit"] = left
    try:
        res = solver.solve(model, **config)
    except Exception as exc:  # the solver itself failed: report, don't raise
        return SolverReport(
            SolveStatus.ERROR, False, None, None, time.perf_counter() - start, "highs", str(exc)
        )
    seconds = time.perf_counter() - start
    tc = res.termination_condition
    has_solution = res.solution_status in (SolutionStatus.optimal, SolutionStatus.feasible)
    if has_solution:
        res.solution_loader.load_vars()
    objective = None if res.incumbent_objective is None else float(res.incumbent_objective)
    bound = res.objective_bound
    bound = None if bound is None or abs(bound) == float("inf") else float(bound)
    if tc == TerminationCondition.convergenceCriteriaSatisfied:
        status = SolveStatus.OPTIMAL
    elif tc == TerminationCondition.maxTimeLimit:
        status = SolveStatus.TIME_LIMIT
    elif tc in (
        TerminationCondition.provenInfeasible,
        TerminationCondition.locallyInfeasible,
        TerminationCondition.infeasibleOrUnbounded,
    ):
        # allockit's models are bounded, so "infeasible or unbounded" means infeasible.
        status = SolveStatus.INFEASIBLE
    elif has_solution:
        status = SolveStatus.FEASIBLE
    else:
        status = SolveStatus.ERROR
    return SolverReport(status, has_solution, objective, bound, seconds, "highs", str(tc.name))


def solve_cpsat(
    model: Any,
    *,
    time_limit: float | None = None,
    threads: int | None = None,
    seed: int = 0,
    rel_gap: float | None = None,
) -> tuple[SolverReport, Any]:
    """Solve a CP-SAT model; return the report and the solver (to read values).

    Solution hints added to the model (``model.add_hint``) are CP-SAT's warm start.

    Parameters
    ----------
    model : ortools.sat.python.cp_model.CpModel
        A model, usually with an objective.
    time_limit : float, optional
        Seconds (> 0). A solve that stops without proving optimality or infeasibility
        while a time limit was set is reported ``time_limit``, with its incumbent if
        it has one (CP-SAT's ``UNKNOWN`` and ``FEASIBLE`` both mean it was stopped).
    threads : int, optional
        CP-SAT workers, 1 to ``max_threads()``; default 1, so that runs are
        reproducible.
    seed : int, default 0
        CP-SAT's ``random_seed``.
    rel_gap : float, optional
        CP-SAT's ``relative_gap_limit``: it stops (status ``optimal``) once its
        incumbent is within this relative gap of its bound.

    Returns
    -------
    report : SolverReport
        Status, objective, proven bound (None when infeasible), seconds and CP-SAT's
        status name as the message.
    solver : ortools.sat.python.cp_model.CpSolver
        The solver after the solve; read values with ``solver.value(var)``.

    Raises
    ------
    InvalidInputError
        For a time limit that is not > 0, a thread count that is not an integer in
        ``[1, max_threads()]``, or a relative gap outside [0, 1).
    SolverUnavailableError
        If OR-Tools is not installed.

    Examples
    --------
    >>> from ortools.sat.python import cp_model
    >>> m = cp_model.CpModel()
    >>> x = m.new_int_var(0, 5, "x")
    >>> m.maximize(x)
    >>> rep, s = solve_cpsat(m)
    >>> rep.status, s.value(x)
    (<Status.OPTIMAL: 'optimal'>, 5)
    """
    _check_limits(time_limit, threads, rel_gap)
    try:
        from ortools.sat.python import cp_model
    except ImportError as exc:  # pragma: no cover - ortools is a hard dependency
        raise SolverUnavailableError(
            "OR-Tools is required: pip install ortools==9.15.6755"
        ) from exc

    solver = cp_model.CpSolver()
    solver.parameters.random_seed = int(seed) % 2**31
    solver.parameters.num_workers = int(threads) if threads is not None else 1
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = float(time_limit)
    if rel_gap is not None:
        solver.parameters.relative_gap_limit = float(rel_gap)
    start = time.perf_counter()
    code = solver.solve(model)
    seconds = time.perf_counter() - start
    has_solution = code in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    if code == cp_model.OPTIMAL:
        status = SolveStatus.OPTIMAL
    elif code == cp_model.INFEASIBLE:
        status = SolveStatus.INFEASIBLE
    elif code in (cp_model.FEASIBLE, cp_model.UNKNOWN) and time_limit is not None:
        # the only limit set is time: stopping without a proof means the limit was hit
        # (under load CP-SAT may stop before our wall clock shows the whole limit)
        status = SolveStatus.TIME_LIMIT
    elif code == cp_model.FEASIBLE:
        status = SolveStatus.FEASIBLE
    else:
        status = SolveStatus.ERROR
    objective = solver.objective_value if has_solution else None
    bound = solver.best_objective_bound if code != cp_model.INFEASIBLE else None
    return (
        SolverReport(
            status, has_solution, objective, bound, seconds, "cpsat", solver.status_name(code)
        ),
        solver,
    )
