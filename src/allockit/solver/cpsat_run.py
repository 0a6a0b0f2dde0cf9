"""Run a CP-SAT model (OR-Tools); report an honest status."""

from __future__ import annotations

import time
from typing import Any

from allockit.clock import Deadline
from allockit.errors import SolverUnavailableError
from allockit.results import SolveStatus
from allockit.solver.report import SolverReport, check_limits

__all__ = ["solve_cpsat"]


def solve_cpsat(
    model: Any,
    *,
    time_limit: float | Deadline | None = None,
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
    time_limit : float or Deadline, optional
        Seconds (> 0), or the caller's deadline. A solve that stops without proving
        optimality or infeasibility while a time limit was set is reported
        ``time_limit``, with its incumbent if
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
    check_limits(time_limit, threads, rel_gap)
    deadline = Deadline.of(time_limit)
    try:
        from ortools.sat.python import cp_model
    except ImportError as exc:  # pragma: no cover - ortools is a hard dependency
        raise SolverUnavailableError(
            "OR-Tools is required: pip install ortools==9.15.6755"
        ) from exc

    solver = cp_model.CpSolver()
    solver.parameters.random_seed = int(seed) % 2**31
    solver.parameters.num_workers = int(threads) if threads is not None else 1
    if deadline.at is not None:
        solver.parameters.max_time_in_seconds = deadline.seconds()
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
    elif code in (cp_model.FEASIBLE, cp_model.UNKNOWN) and deadline.at is not None:
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
