"""Aron et al.'s cluster reserves: step 1 (LP), step 2 (convex QP), step 3 (redistribution).

Notation (Li and Parker, Sec. 3.2; user guide (reserves)): ``N`` nodes (rows), ``S`` service
classes, previous allocation ``r``, usage ``u`` and new allocation ``R`` in percent of a
node, cluster-wide targets ``D`` in percent. A row may stand for a group of ``w_i``
nodes (a manager's child in the hierarchy, ``allockit.simulation.cluster``); then class
totals are ``T_j = sum_i w_i R_ij`` and the goal is ``W D_j`` with ``W = sum_i w_i``.
Plain instances have ``w_i = 1``.

- Step 1 (LP): ``V = min sum_j |T_j - W D_j|`` subject to ``sum_j R_ij <= 100``,
  ``R_ij <= u_ij`` where ``r_ij > u_ij``, ``R_ij >= 1``. The absolute values are
  linearised with ``T_j - W D_j = dev_pos_j - dev_neg_j``, ``dev_pos, dev_neg >= 0``.
- Step 2 (convex QP): ``min sum_ij w_i (R_ij - (u_ij + k_ij))^2`` subject to the same
  constraints and ``sum_j (dev_pos_j + dev_neg_j) <= V + slack``. The paper writes
  "= V"; as V is the least deviation, "<= V" is the same set and keeps the problem
  convex. ``slack = 1e-7 + 1e-9 * sum_j W D_j`` absorbs the step-1 solver's round-off.
  HiGHS solves it in its exact-penalty form (``build_step2(penalty=...)``), which has
  the same solution and which HiGHS's QP solver handles reliably; the bound form is
  the fallback.
- Step 3 (rule, ``redistribute``): hand the capacity left unassigned on each node to
  the classes that are idle there and below their cluster-wide target.

Two modelling choices the paper leaves open:

- The lower bound ``R_ij >= 1`` and the cap ``R_ij <= u_ij`` contradict each other
  when ``u_ij < 1`` (a class with no requests on a node): the cap is
  ``max(u_ij, floor)``, so such a class keeps exactly its floor (``floor=1`` is the
  paper's 1 %).
- ``k_ij`` divides by ``D_j``; for a zero target its limit is used: ``k = 5`` when
  ``u_ij = 0`` and ``-5`` otherwise.

Backends: ``"pyomo"`` builds both steps with ``build_step1``/``build_step2`` and solves
them with HiGHS through ``allockit.solver.solve_pyomo`` (Pyomo's HiGHS interface takes
the quadratic objective); ``"highspy"`` passes the same matrices, built with numpy, to
HiGHS's own API (LP, then QP with a diagonal Hessian); ``"fast"`` (the default)
computes V exactly by a max-flow/min-cut formula and solves step 2 on the optimal face
that the cut names by a dual Newton method (``allockit.models.cluster_reserves_fast``),
because HiGHS's active-set QP needs thousands of iterations once many bounds are active
(292 s on 1,000 nodes x 10 classes). With more than 12 classes below their goal the
fast path falls back to ``"highspy"``. The three agree (tests).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from allockit.clock import Deadline
from allockit.errors import InvalidInputError
from allockit.instances.reserves import NODE_TOL, ReservesInstance
from allockit.models.cluster_reserves_problem import (
    CAPACITY,
    K_CAP,
    K_GAIN,
    PENALTIES,
    CRProblem,
    adjustment,
    class_totals,
    deviation_total,
    qp_objective,
    step2_slack,
)
from allockit.results import ReservesResult, SolveStatus

__all__ = [
    "BACKENDS",
    "CAPACITY",
    "K_CAP",
    "K_GAIN",
    "PENALTIES",
    "CRProblem",
    "CRSolution",
    "adjustment",
    "build_step1",
    "build_step2",
    "class_totals",
    "cluster_reserves",
    "deviation_total",
    "extract_allocation",
    "qp_objective",
    "redistribute",
    "solve_cluster_reserves",
    "step2_slack",
]

#: Solver paths of ``solve_cluster_reserves``.
BACKENDS = ("fast", "highspy", "pyomo")


def _base_model(problem: CRProblem) -> Any:
    import pyomo.environ as pyo

    n, s = problem.shape
    lower, upper, w, goal = problem.lower, problem.upper, problem.weights, problem.goal
    m = pyo.ConcreteModel(name="cluster_reserves")
    # data
    m.I = pyo.RangeSet(0, n - 1)
    m.J = pyo.RangeSet(0, s - 1)
    # variables
    m.R = pyo.Var(
        m.I, m.J, bounds=lambda _m, i, j: (float(lower[i, j]), float(upper[i, j]))
    )
    m.dev_pos = pyo.Var(m.J, domain=pyo.NonNegativeReals)
    m.dev_neg = pyo.Var(m.J, domain=pyo.NonNegativeReals)
    # constraints
    m.node_capacity = pyo.Constraint(
        m.I, rule=lambda _m, i: sum(_m.R[i, j] for j in _m.J) <= CAPACITY
    )
    m.class_deviation = pyo.Constraint(
        m.J,
        rule=lambda _m, j: sum(float(w[i]) * _m.R[i, j] for i in _m.I) - float(goal[j])
        == _m.dev_pos[j] - _m.dev_neg[j],
    )
    return m


def build_step1(problem: CRProblem | ReservesInstance) -> Any:
    """Step 1 as a Pyomo LP: the least total deviation ``V`` from the targets.

    Parameters
    ----------
    problem : CRProblem or ReservesInstance
        An instance is prepared with ``CRProblem.from_instance`` (floor 1, weights 1).

    Returns
    -------
    pyomo.environ.ConcreteModel
        Variables ``R[i, j]``, ``dev_pos[j]``, ``dev_neg[j]``; constraints
        ``node_capacity[i]`` and ``class_deviation[j]``; objective ``V``.

    Raises
    ------
    InvalidInputError
        As ``CRProblem.from_instance``.

    Examples
    --------
    >>> from allockit.solver import solve_pyomo
    >>> inst = ReservesInstance.from_dict({"targets": [60, 30, 10],
    ...     "allocation": [[60, 30, 10]] * 4, "usage": [[66, 34, 0]] * 3 + [[60, 30, 10]]})
    >>> m = build_step1(inst)
    >>> solve_pyomo(m).objective
    0.0
    """
    import pyomo.environ as pyo

    if isinstance(problem, ReservesInstance):
        problem = CRProblem.from_instance(problem)
    m = _base_model(problem)
    # objective
    m.V = pyo.Objective(expr=sum(m.dev_pos[j] + m.dev_neg[j] for j in m.J))
    return m


def build_step2(
    problem: CRProblem | ReservesInstance, V: float, *, penalty: float | None = None
) -> Any:
    """Step 2 as a Pyomo convex QP: closest to ``u + k`` with deviation at most ``V``.

    Parameters
    ----------
    problem : CRProblem or ReservesInstance
    V : float
        Step 1's least deviation; the bound is ``V + step2_slack(problem)``.
    penalty : float, optional
        Build the exact-penalty form instead: no ``deviation_bound`` row, and
        ``penalty * sum_j (dev_pos_j + dev_neg_j)`` added to the objective. As the
        deviation can never go below V, this is the exact penalty of the bound, so for
        a penalty above the bound's multiplier both forms have the same solution. The
        solvers use it first (``PENALTIES``, checking that the deviation stays within
        ``V + 10 * step2_slack``) because HiGHS 1.12's active-set QP handles the thin
        bound form badly: in about one small random case in seven it ends with "Solve
        error" (optimal but 1e-7 infeasible on the bound row), and on some degenerate
        ones (all usage and targets zero) it cycles until its time limit.

    Returns
    -------
    pyomo.environ.ConcreteModel
        Step 1's variables and constraints, ``deviation_bound`` (bound form) and the
        objective ``distance``.

    Raises
    ------
    InvalidInputError
        For a negative or non-finite ``V`` or ``penalty``.

    Examples
    --------
    HiGHS 1.12 often rejects the bound form when V = 0 (status ``error``); the exact
    penalty form gives the same allocation:

    >>> from allockit.solver import solve_pyomo
    >>> inst = ReservesInstance.from_dict({"targets": [50, 50],
    ...     "allocation": [[50, 50], [50, 50]], "usage": [[70, 30], [50, 50]]})
    >>> m = build_step2(inst, 0.0, penalty=1e4)
    >>> solve_pyomo(m).status, extract_allocation(m).round(3).tolist()
    (<Status.OPTIMAL: 'optimal'>, [[70.0, 30.0], [30.0, 70.0]])
    """
    import pyomo.environ as pyo

    if not (np.isfinite(V) and V >= 0):
        raise InvalidInputError(f"V must be a finite number >= 0; got {V!r}")
    if penalty is not None and not (np.isfinite(penalty) and penalty > 0):
        raise InvalidInputError(f"penalty must be a finite number > 0; got {penalty!r}")
    if isinstance(problem, ReservesInstance):
        problem = CRProblem.from_instance(problem)
    m = _base_model(problem)
    anchor, w = problem.anchor, problem.weights
    distance = sum(
        float(w[i]) * (m.R[i, j] - float(anchor[i, j])) ** 2 for i in m.I for j in m.J
    )
    deviation = sum(m.dev_pos[j] + m.dev_neg[j] for j in m.J)
    if penalty is None:
        m.deviation_bound = pyo.Constraint(expr=deviation <= float(V) + step2_slack(problem))
        m.distance = pyo.Objective(expr=distance)
    else:
        m.distance = pyo.Objective(expr=distance + float(penalty) * deviation)
    return m


def extract_allocation(model: Any) -> np.ndarray:
    """The solved model's ``R`` as an (N, S) array.

    Parameters
    ----------
    model : pyomo.environ.ConcreteModel
        A model of ``build_step1`` or ``build_step2``, after ``solve_pyomo``.

    Returns
    -------
    numpy.ndarray
        ``R[i, j]`` in percent of row ``i``, shape (N, S); NaN where a variable has no
        value (the model was not solved).

    Examples
    --------
    >>> from allockit.solver import solve_pyomo
    >>> inst = ReservesInstance.from_dict({"targets": [50, 50], "allocation": [[50, 50]],
    ...                                    "usage": [[50, 50]]})
    >>> m = build_step2(inst, 0.0, penalty=1e4); _ = solve_pyomo(m)
    >>> extract_allocation(m).round(6).tolist()
    [[50.0, 50.0]]
    """
    n = len(model.I)
    s = len(model.J)
    out = np.array([[model.R[i, j].value for j in range(s)] for i in range(n)], dtype=float)
    return out


# ---------------------------------------------------------------------------- step 3
def redistribute(problem: CRProblem, allocation: np.ndarray) -> np.ndarray:
    """Step 3: give unassigned capacity to idle classes below their target.

    The rule (the paper gives only its intent): on node ``i`` the unassigned capacity
    ``U_i = 100 - sum_j R_ij`` goes to the classes that are *idle* there (``r_ij >
    u_ij``: they left part of their allocation unused, which is also where step 1
    capped them) and whose cluster-wide total is below target, in proportion to their
    deficits ``d_j = W D_j - T_j``. A class's gifts over all nodes are then scaled down
    so that they add up to at most ``d_j``: no class is pushed past its target, so the
    total deviation never grows. What is still unassigned stays so (a work-conserving
    node hands it to backlogged classes anyway).

    Parameters
    ----------
    problem : CRProblem
    allocation : array (N, S)
        Step 2's allocation.

    Returns
    -------
    numpy.ndarray
        The new (N, S) allocation.

    Examples
    --------
    >>> p = CRProblem.from_arrays([[50, 50], [50, 50]], [[0, 50], [0, 50]], [50, 50])
    >>> redistribute(p, np.array([[1.0, 50.0], [1.0, 50.0]])).tolist()
    [[50.0, 50.0], [50.0, 50.0]]
    """
    R = np.asarray(allocation, dtype=float)
    w = problem.weights
    free = np.maximum(CAPACITY - R.sum(axis=1), 0.0)
    deficit = np.maximum(problem.goal - w @ R, 0.0)
    eligible = problem.idle & (deficit > 0)[None, :]
    share = np.where(eligible, deficit[None, :], 0.0)
    norm = share.sum(axis=1, keepdims=True)
    gift = np.divide(free[:, None] * share, norm, out=np.zeros_like(share), where=norm > 0)
    given = w @ gift
    scale = np.divide(deficit, given, out=np.ones_like(deficit), where=given > deficit)
    return R + gift * np.minimum(scale, 1.0)[None, :]


# ---------------------------------------------------------------------------- solving
@dataclass(frozen=True, slots=True)
class CRSolution:
    """One cluster-reserves round: step 2's and step 3's allocations, V, status.

    ``allocation`` is the final (step-3) allocation, ``step2`` the QP's; when a step
    fails (time limit, solver error) both are the previous allocation and ``status``
    and ``message`` say what happened.

    Parameters
    ----------
    allocation : array (N, S)
        The new allocation after step 3 (percent of each row).
    step2 : array (N, S)
        Step 2's allocation (percent of each row), before step 3.
    V : float or None
        Step 1's least deviation ``sum_j |T_j - W D_j|`` (percent-nodes); None if step 1
        failed.
    qp_objective : float or None
        Step 2's objective at ``step2`` (squared percentage points, weighted by rows);
        None if step 2 failed.
    status : SolveStatus
        ``optimal``, or what stopped a step (``time_limit``, ``error``, ...).
    backend : {"fast", "highspy", "pyomo"}
        The solver path that produced it.
    build_seconds, solve_seconds : float
        Wall time to build the models and to solve them (s).
    message : str
        Empty, or what went wrong or which fallback was used.

    Examples
    --------
    The first class used nothing on either node, so step 1 caps it at the floor of 1 %
    (V = 98) and step 3 gives it the 49 % left free on each node:

    >>> sol = solve_cluster_reserves([[50, 50], [50, 50]], [[0, 50], [0, 50]], [50, 50])
    >>> sol.status, sol.backend, sol.V
    (<Status.OPTIMAL: 'optimal'>, 'fast', 98.0)
    >>> sol.step2.round(6).tolist(), sol.allocation.round(6).tolist()
    ([[1.0, 50.0], [1.0, 50.0]], [[50.0, 50.0], [50.0, 50.0]])
    >>> round(sol.qp_objective, 6), sol.message
    (32.0, '')
    """

    allocation: np.ndarray
    step2: np.ndarray
    V: float | None
    qp_objective: float | None
    status: SolveStatus
    backend: str
    build_seconds: float
    solve_seconds: float
    message: str = ""


def _pyomo_steps(
    problem: CRProblem, deadline: Deadline, threads: int | None, solver: str
) -> tuple[float | None, np.ndarray | None, SolveStatus, float, float, str]:
    from allockit.solver import solve_pyomo

    t0 = time.perf_counter()
    m1 = build_step1(problem)
    build = time.perf_counter() - t0
    rep = solve_pyomo(m1, solver=solver, time_limit=deadline, threads=threads)
    solve = rep.seconds
    if rep.status != SolveStatus.OPTIMAL or rep.objective is None:
        return None, None, rep.status, build, solve, f"step 1: {rep.message}"
    V = max(float(rep.objective), 0.0)
    R, status, message = None, SolveStatus.ERROR, ""
    for penalty in (*PENALTIES, None):
        t0 = time.perf_counter()
        m2 = build_step2(problem, V, penalty=penalty)
        build += time.perf_counter() - t0
        rep = solve_pyomo(m2, solver=solver, time_limit=deadline, threads=threads)
        solve += rep.seconds
        status, message = rep.status, f"step 2: {rep.message}"
        if rep.status == SolveStatus.TIME_LIMIT:
            break
        if rep.status != SolveStatus.OPTIMAL:
            continue
        R = extract_allocation(m2)
        if penalty is None or deviation_total(problem, R) <= V + 10 * step2_slack(problem):
            message = "" if penalty is not None else "step 2: bound form (penalties too small)"
            break
        R, status = None, SolveStatus.ERROR
    return V, R, status, build, solve, message


def solve_cluster_reserves(
    allocation: Any,
    usage: Any,
    targets: Any,
    *,
    weights: Any = None,
    floor: float = 1.0,
    backend: str = "fast",
    step3: bool = True,
    time_limit: float | Deadline | None = None,
    threads: int | None = None,
    idle: Any = None,
    solver: str = "highs",
) -> CRSolution:
    """Run steps 1-3 on arrays (the simulator's entry point; no instance checks).

    Parameters
    ----------
    allocation, usage : array (N, S)
        Previous allocation ``r`` and usage ``u`` (percent of each row).
    targets : array (S,)
        Cluster-wide targets ``D`` (percent).
    weights : array (N,), optional
        Nodes per row (default 1 each).
    floor : float
        Step 1's lower bound on every ``R_ij`` (the paper's 1 %).
    backend : {"fast", "highspy", "pyomo"}
        See the module docstring.
    step3 : bool
        Apply step 3 (``redistribute``); False returns step 2's allocation.
    time_limit : float or Deadline, optional
        Seconds (or the caller's deadline) for both steps together.
    threads : int, optional
        HiGHS threads (``"highspy"``, ``"pyomo"``).
    idle : array (N, S) of bool, optional
        Overrides the marks ``r > u`` that cap a class at its usage (step 1) and let
        step 3 give to it (``CRProblem.from_arrays``).
    solver : str, default "highs"
        The solver of the ``"pyomo"`` backend's LP and QP (``allockit.solver.SOLVERS``;
        step 2 needs one that takes a quadratic objective, e.g. HiGHS, SCIP, Gurobi).

    Returns
    -------
    CRSolution

    Raises
    ------
    InvalidInputError
        For an unknown backend or the checks of ``CRProblem.from_arrays``.

    Examples
    --------
    >>> sol = solve_cluster_reserves([[60, 30, 10]] * 4, [[66, 34, 0]] * 3 + [[60, 30, 10]],
    ...                              [60, 30, 10])
    >>> sol.V, sol.allocation[3].round(1).tolist()
    (0.0, [45.8, 17.3, 37.0])
    """
    if backend not in BACKENDS:
        raise InvalidInputError(f"backend must be one of {list(BACKENDS)}; got {backend!r}")
    deadline = Deadline.of(time_limit)
    t0 = time.perf_counter()
    problem = CRProblem.from_arrays(
        allocation, usage, targets, weights=weights, floor=floor, idle=idle
    )
    build = time.perf_counter() - t0
    previous = np.asarray(allocation, dtype=float)
    if backend == "pyomo":
        V, R, status, b, solve, message = _pyomo_steps(problem, deadline, threads, solver)
        build += b
    else:
        from allockit.models import cluster_reserves_fast as fast
        from allockit.models import cluster_reserves_highs as highs

        t1 = time.perf_counter()
        cut = fast.min_cut(problem) if backend == "fast" else None
        if cut is not None:
            V, status, message = cut.V, SolveStatus.OPTIMAL, ""
        else:  # the highspy backend, or too many classes for the min-cut formula
            V, status, message = highs.step1_highspy(
                problem, time_limit=deadline.seconds(), threads=threads
            )
        R = None
        if status == SolveStatus.OPTIMAL and V is not None:
            if cut is not None:
                R, status, message = fast.step2_fast(problem, cut, time_limit=deadline)
            else:
                R, status, message = highs.step2_highspy(
                    problem, V, time_limit=deadline, threads=threads
                )
        solve = time.perf_counter() - t1
    if R is None:
        return CRSolution(previous.copy(), previous.copy(), V, None, status, backend, build,
                          solve, message or "no solution; the previous allocation is kept")
    R = np.clip(R, problem.lower, problem.upper)
    final = redistribute(problem, R) if step3 else R.copy()
    return CRSolution(final, R, V, qp_objective(problem, R), status, backend, build, solve,
                      message)


def cluster_reserves(
    instance: ReservesInstance,
    *,
    backend: str = "fast",
    floor: float = 1.0,
    redistribute: bool = True,
    time_limit: float | Deadline | None = None,
    threads: int | None = None,
    solver: str = "highs",
) -> ReservesResult:
    """Aron et al.'s cluster reserves on one instance: steps 1-3.

    Parameters
    ----------
    instance : ReservesInstance
    backend : {"fast", "highspy", "pyomo"}
        ``"pyomo"``: both steps as Pyomo models solved by HiGHS; ``"highspy"``: the same
        models on HiGHS's own API; ``"fast"``: exact V by min-cut and step 2 by a
        dual Newton method on the optimal face (module docstring).
    floor : float
        Lower bound on every ``R_ij`` (1 in the paper).
    redistribute : bool
        Apply step 3 (default True).
    time_limit : float or Deadline, optional
        Seconds (or the caller's deadline) for both steps.
    threads : int, optional
        HiGHS threads.
    solver : str, default "highs"
        The solver of the ``"pyomo"`` backend (``allockit.solver.SOLVERS``; step 2's QP
        needs one that takes a quadratic objective: HiGHS, SCIP, Gurobi, ...).

    Returns
    -------
    ReservesResult
        ``allocation`` after step 3, ``V``, ``qp_objective`` (at step 2's allocation),
        ``class_totals`` and ``deviation`` (percent of the cluster), the status and
        the seconds.

    Raises
    ------
    InvalidInputError
        For an unknown backend or a floor with ``S * floor > 100``.

    Examples
    --------
    Fig. 3 of Li and Parker: class 3 only gets requests on node 4.

    >>> inst = ReservesInstance.from_dict({"targets": [60, 30, 10],
    ...     "allocation": [[60, 30, 10]] * 4, "usage": [[66.7, 33.3, 0]] * 3 + [[60, 30, 10]]})
    >>> res = cluster_reserves(inst)
    >>> res.status, res.V, res.class_totals.round(3).tolist()
    (<Status.OPTIMAL: 'optimal'>, 0.0, [60.0, 30.0, 10.0])

    References
    ----------
    .. [1] M. Aron, P. Druschel, W. Zwaenepoel (2000), Cluster Reserves, SIGMETRICS.
    .. [2] N. Li and J. Parker, Cluster Resource Management: A Scalable Approach, Sec. 3.2.
    """
    t0 = time.perf_counter()
    sol = solve_cluster_reserves(
        instance.allocation,
        instance.usage,
        instance.targets,
        floor=floor,
        backend=backend,
        step3=redistribute,
        time_limit=time_limit,
        threads=threads,
        solver=solver,
    )
    totals = class_totals(sol.allocation)
    over = sol.allocation.sum(axis=1).max() - CAPACITY
    message = sol.message
    if over > NODE_TOL:
        message = (message + "; " if message else "") + f"a node exceeds 100 by {over:.2e}"
    return ReservesResult(
        method="cluster-reserves",
        status=sol.status,
        allocation=sol.allocation,
        class_totals=totals,
        deviation=totals - instance.targets,
        qp_objective=sol.qp_objective,
        V=sol.V,
        seconds=time.perf_counter() - t0,
        build_seconds=sol.build_seconds,
        solve_seconds=sol.solve_seconds,
        message=message,
    )
