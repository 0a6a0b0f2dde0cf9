"""Run a Pyomo model on the solver the user names; report an honest status."""

from __future__ import annotations

import math
import time
from typing import Any

from allockit.clock import Deadline
from allockit.constants import DEFAULT_REL_GAP, HIGHS_QP_ITERATION_LIMIT
from allockit.errors import SolverUnavailableError
from allockit.results import SolveStatus
from allockit.solver.catalog import DEFAULT_SOLVER, PyomoSolver, resolve_solver
from allockit.solver.report import SolverReport, check_limits

__all__ = ["HIGHS_PRESOLVE_MAX_INTEGERS", "solve_pyomo"]

#: With a time limit, HiGHS runs without presolve on models with more integer variables
#: than this: HiGHS checks its limit only between presolve rounds, and one round of the
#: load MILP of a 250-job, 64-host instance (16,000 integer variables) took 22 s of a
#: 10 s limit (RESULTS 16.1; without presolve the same solve stopped at 10.5 s); a
#: 100-job one (6,400) took 27.5 s of a 20 s limit on the loaded machine.
HIGHS_PRESOLVE_MAX_INTEGERS = 5_000


def solve_pyomo(
    model: Any,
    *,
    solver: str = DEFAULT_SOLVER,
    time_limit: float | Deadline | None = None,
    threads: int | None = None,
    rel_gap: float = DEFAULT_REL_GAP,
    seed: int = 0,
    warm_start: bool = False,
) -> SolverReport:
    """Solve a Pyomo model and load the solution when there is one.

    The model is first passed to the solver (Pyomo's persistent interfaces for HiGHS,
    SCIP and Gurobi); the time limit covers that translation and the solve together,
    so the solver gets what the translation left. A translation that uses up the limit
    returns ``time_limit`` without running the solver.

    Parameters
    ----------
    model : pyomo.environ.ConcreteModel
        A model with one objective.
    solver : str, default "highs"
        A name of ``allockit.solver.SOLVERS`` (``"highs"``, ``"scip"``, ``"gurobi"``,
        ``"cbc"``, ``"glpk"``, ``"cplex"``, ``"xpress"``) or any solver name Pyomo's
        factory knows (run with its own defaults).
    time_limit : float or Deadline, optional
        Seconds (> 0), or the caller's deadline, for translation and solve; on expiry
        the incumbent (if any) is loaded and the status is ``time_limit``.
    threads : int, optional
        Solver threads, 1 to ``max_threads()`` (default: the solver's choice).
    rel_gap : float
        Relative MIP gap under which the solve counts as optimal.
    seed : int, default 0
        The solver's random seed (where it has one).
    warm_start : bool, default False
        Give the solver the variables' current values as a starting solution (HiGHS:
        ``Highs.setSolution``, checked by HiGHS, which ignores an infeasible one;
        SCIP: a partial solution of the integer variables). Variables without a
        value are left for the solver to complete.

    Returns
    -------
    SolverReport
        ``seconds`` counts translation and solve; ``solver`` is the name given.

    Raises
    ------
    InvalidInputError
        For a non-positive time limit, a thread count outside ``[1, max_threads()]``,
        a relative gap outside [0, 1) or a solver name nobody knows.
    SolverUnavailableError
        If pyomo or the solver is missing (the message says what to install).

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
    check_limits(time_limit, threads, rel_gap)
    deadline = Deadline.of(time_limit)
    try:
        import pyomo.environ  # noqa: F401
    except ImportError as exc:  # pragma: no cover - pyomo is a hard dependency
        raise SolverUnavailableError("pyomo is required: pip install allockit") from exc
    chosen = resolve_solver(solver)
    run = _run_contrib if chosen.interface == "contrib" else _run_legacy
    return run(model, chosen, deadline, threads, rel_gap, int(seed), warm_start)


def _failed(chosen: PyomoSolver, started: float, status: SolveStatus, text: str) -> SolverReport:
    """A report without a solution; ``started`` is the call's ``time.perf_counter()``."""
    return SolverReport(status, False, None, None, time.perf_counter() - started, chosen.name, text)


def _run_contrib(
    model: Any,
    chosen: PyomoSolver,
    deadline: Deadline,
    threads: int | None,
    rel_gap: float,
    seed: int,
    warm_start: bool,
) -> SolverReport:
    """HiGHS, SCIP, Gurobi: Pyomo's persistent interfaces (``pyomo.contrib.solver``)."""
    from pyomo.contrib.solver.common.factory import SolverFactory

    solver = SolverFactory(chosen.pyomo_name)
    if not solver.available():
        raise SolverUnavailableError(f"solver {chosen.name!r} is not installed: {chosen.install}")
    # HiGHS's default feasibility tolerances are kept on purpose: tightening them to
    # 1e-10 made HiGHS return wrong "optimal" answers on the paper's small set. Callers
    # re-check every solution on the exact data instead (models/vcsched_solve.py).
    config: dict[str, Any] = {
        "load_solutions": False,
        "raise_exception_on_nonoptimal_result": False,
    }
    if chosen.name == "highs":
        config["solver_options"] = {"mip_rel_gap": rel_gap, "random_seed": seed,
                                    "qp_iteration_limit": HIGHS_QP_ITERATION_LIMIT}
        if deadline.at is not None and _integers(model) > HIGHS_PRESOLVE_MAX_INTEGERS:
            config["solver_options"]["presolve"] = "off"
    else:
        config["rel_gap"] = rel_gap
        config["solver_options"] = {chosen.seed_option: seed % 2**31} if chosen.seed_option else {}
        if chosen.name == "scip":
            config["solver_options"]["timing/clocktype"] = 2  # the limit on the wall clock
    if threads is not None:
        config["threads"] = int(threads)
    started = time.perf_counter()
    try:
        solver.set_instance(model)
        if warm_start:
            _warm_start(solver, chosen, model, config)
    except Exception as exc:  # the translation itself failed: report, don't raise
        return _failed(chosen, started, SolveStatus.ERROR, str(exc))
    if deadline.at is not None:
        if deadline.expired():
            return _failed(
                chosen,
                started,
                SolveStatus.TIME_LIMIT,
                f"time limit reached while passing the model to {chosen.name}",
            )
        config["time_limit"] = deadline.left()
    try:
        res = solver.solve(model, **config)
    except Exception as exc:  # the solver itself failed: report, don't raise
        return _failed(chosen, started, SolveStatus.ERROR, str(exc))
    seconds = time.perf_counter() - started
    return _contrib_report(model, res, chosen.name, seconds)


def _integers(model: Any) -> int:
    import pyomo.environ as pyo

    return sum(1 for v in model.component_data_objects(pyo.Var, active=True) if v.is_integer())


def _warm_start(solver: Any, chosen: PyomoSolver, model: Any, config: dict[str, Any]) -> None:
    """Give the solver the variables' current values as a start."""
    import pyomo.environ as pyo

    if chosen.name == "highs":
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
        return
    integers = [v for v in model.component_data_objects(pyo.Var, active=True) if v.is_integer()]
    # SCIP's partial solution takes every integer variable: only a complete start
    if "warmstart_discrete_vars" in solver.config and all(v.value is not None for v in integers):
        config["warmstart_discrete_vars"] = True


def _contrib_report(model: Any, res: Any, name: str, seconds: float) -> SolverReport:
    from pyomo.contrib.solver.common.results import SolutionStatus, TerminationCondition

    tc = res.termination_condition
    has_solution = res.solution_status in (SolutionStatus.optimal, SolutionStatus.feasible)
    if has_solution:
        res.solution_loader.load_vars()
    objective = _finite_or_none(res.incumbent_objective)
    bound = _finite_or_none(res.objective_bound)  # infinite or NaN: nothing proven
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
    return SolverReport(status, has_solution, objective, bound, seconds, name, str(tc.name))


def _run_legacy(
    model: Any,
    chosen: PyomoSolver,
    deadline: Deadline,
    threads: int | None,
    rel_gap: float,
    seed: int,
    warm_start: bool,
) -> SolverReport:
    """CBC, GLPK, CPLEX, Xpress and any other solver of ``pyomo.environ.SolverFactory``."""
    import pyomo.environ as pyo

    solver = pyo.SolverFactory(chosen.pyomo_name)
    if not solver.available(exception_flag=False):
        raise SolverUnavailableError(f"solver {chosen.name!r} is not installed: {chosen.install}")
    options = chosen.options(
        time_limit=deadline.seconds(), threads=threads, rel_gap=rel_gap, seed=seed
    )
    keywords: dict[str, Any] = {"load_solutions": False, "options": options}
    if warm_start and getattr(solver, "warm_start_capable", lambda: False)():
        keywords["warmstart"] = True
    if deadline.at is not None and chosen.time_option is None:
        # a solver allockit passes no limit to: Pyomo stops a solver process at it
        keywords["timelimit"] = deadline.seconds()
    started = time.perf_counter()
    try:
        res = solver.solve(model, **keywords)
    except Exception as exc:  # the solver itself failed: report, don't raise
        return _failed(chosen, started, SolveStatus.ERROR, str(exc))
    seconds = time.perf_counter() - started
    return _legacy_report(model, res, chosen.name, seconds)


def _finite_or_none(value: Any) -> float | None:
    """A solver's number as a float, or None when it has none (None, infinite, NaN)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _legacy_report(model: Any, res: Any, name: str, seconds: float) -> SolverReport:
    import pyomo.environ as pyo
    from pyomo.opt import TerminationCondition as TC

    tc = res.solver.termination_condition
    has_solution = len(res.solution) > 0 and tc not in (TC.infeasible, TC.error)
    objective = None
    if has_solution:
        model.solutions.load_from(res)
        active = next(model.component_data_objects(pyo.Objective, active=True))
        objective = _finite_or_none(pyo.value(active))
        maximise = active.sense == pyo.maximize
    else:
        active = next(model.component_data_objects(pyo.Objective, active=True), None)
        maximise = active is not None and active.sense == pyo.maximize
    raw = res.problem.upper_bound if maximise else res.problem.lower_bound
    bound = None
    if raw is not None:
        try:
            bound = float(raw)
        except (TypeError, ValueError):
            bound = None
    if bound is not None and not math.isfinite(bound):
        bound = None
    if tc in (TC.optimal, TC.globallyOptimal, TC.locallyOptimal):
        status = SolveStatus.OPTIMAL
        bound = objective if bound is None else bound
    elif tc in (TC.maxTimeLimit, TC.maxEvaluations, TC.maxIterations):
        status = SolveStatus.TIME_LIMIT
    elif tc in (TC.infeasible, TC.infeasibleOrUnbounded, TC.noSolution) and not has_solution:
        status = SolveStatus.INFEASIBLE if tc != TC.noSolution else SolveStatus.ERROR
    elif has_solution:
        status = SolveStatus.FEASIBLE
    else:
        status = SolveStatus.ERROR
    return SolverReport(status, has_solution, objective, bound, seconds, name, str(tc))
