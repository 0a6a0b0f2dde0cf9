"""Cluster reserves on HiGHS's own API: steps 1 and 2 as numpy-built column-wise matrices.

The same models as ``build_step1``/``build_step2`` in ``allockit.models.cluster_reserves``
(variables ``R`` row-major, then ``dev_pos``, then ``dev_neg``; rows: node capacity,
class deviation ``T_j - W D_j - dev_pos_j + dev_neg_j = 0``, and for step 2 the
deviation bound), passed straight to ``highspy`` without Pyomo. Step 2's Hessian is
diagonal (``2 w_i``). HiGHS's QP solver is an active-set method: exact, fast on small
rows, slow when thousands of bounds are active (see ``cluster_reserves_fast``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from allockit.clock import Deadline
from allockit.constants import HIGHS_QP_ITERATION_LIMIT
from allockit.errors import SolverUnavailableError
from allockit.models.cluster_reserves_problem import (
    CAPACITY,
    PENALTIES,
    CRProblem,
    deviation_total,
    step2_slack,
)
from allockit.results import SolveStatus

__all__ = ["lp_matrices", "step1_highspy", "step2_highspy"]


def lp_matrices(problem: CRProblem, bound: float | None = None) -> dict[str, np.ndarray]:
    """Column-wise matrices of step 1 (``bound=None``) or step 2 (deviation <= ``bound``).

    Parameters
    ----------
    problem : CRProblem
        One round's bounds, weights and goals (percent of each row).
    bound : float, optional
        Step 2's bound on the total deviation (percent-nodes), which adds one row;
        None (default) for step 1's rows only.

    Returns
    -------
    dict
        ``start``, ``index``, ``value`` (CSC), ``col_lower``, ``col_upper``,
        ``row_lower``, ``row_upper``, ``n_rows``.

    Examples
    --------
    >>> p = CRProblem.from_arrays([[50, 50]], [[50, 50]], [50, 50])
    >>> mats = lp_matrices(p)
    >>> mats["start"].tolist(), mats["n_rows"]
    ([0, 2, 4, 5, 6, 7, 8], 3)
    """
    n, s = problem.shape
    w = problem.weights
    n_r = n * s
    node = np.repeat(np.arange(n), s)
    cls = np.tile(np.arange(s), n)
    # R_ij: node row i (1), class row n + j (w_i)
    r_index = np.stack([node, n + cls], axis=1).ravel()
    r_value = np.stack([np.ones(n_r), w[node]], axis=1).ravel()
    dev_rows = n + np.arange(s)
    if bound is None:
        pos_index, pos_value, per = dev_rows, -np.ones(s), 1
        neg_index, neg_value = dev_rows, np.ones(s)
    else:
        vrow = np.full(s, n + s)
        pos_index = np.stack([dev_rows, vrow], axis=1).ravel()
        pos_value = np.tile([-1.0, 1.0], s)
        neg_index = np.stack([dev_rows, vrow], axis=1).ravel()
        neg_value = np.tile([1.0, 1.0], s)
        per = 2
    start = np.concatenate(
        [np.arange(n_r + 1) * 2, 2 * n_r + np.arange(1, 2 * s + 1) * per]
    ).astype(np.int32)
    index = np.concatenate([r_index, pos_index, neg_index]).astype(np.int32)
    value = np.concatenate([r_value, pos_value, neg_value])
    inf = np.inf
    goal = problem.goal
    row_lower = [np.full(n, -inf), goal]
    row_upper = [np.full(n, CAPACITY), goal]
    if bound is not None:
        row_lower.append(np.array([-inf]))
        row_upper.append(np.array([float(bound)]))
    return {
        "start": start,
        "index": index,
        "value": value,
        "col_lower": np.concatenate([problem.lower.ravel(), np.zeros(2 * s)]),
        "col_upper": np.concatenate([problem.upper.ravel(), np.full(2 * s, inf)]),
        "row_lower": np.concatenate(row_lower),
        "row_upper": np.concatenate(row_upper),
        "n_rows": n + s + (0 if bound is None else 1),
    }


def _highs(time_limit: float | None, threads: int | None) -> Any:
    try:
        import highspy
    except ImportError as exc:  # pragma: no cover - highspy is a hard dependency
        raise SolverUnavailableError("HiGHS is required: pip install highspy==1.12.0") from exc
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("random_seed", 0)
    # HiGHS's QP solver can cycle on degenerate step-2 problems (rows filled to 2e-7 past
    # 100 %): without a time limit it never returned (RESULTS 13.12); a capped run ends
    # with "Iteration limit reached", an error status, and the other forms are tried
    h.setOptionValue("qp_iteration_limit", HIGHS_QP_ITERATION_LIMIT)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    if threads is not None:
        h.setOptionValue("threads", int(threads))
    return h


def _model(problem: CRProblem, bound: float | None, penalty: float | None = None) -> Any:
    import highspy

    mats = lp_matrices(problem, bound)
    n, s = problem.shape
    lp = highspy.HighsLp()
    lp.num_col_ = n * s + 2 * s
    lp.num_row_ = mats["n_rows"]
    lp.col_lower_ = mats["col_lower"]
    lp.col_upper_ = mats["col_upper"]
    lp.row_lower_ = mats["row_lower"]
    lp.row_upper_ = mats["row_upper"]
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_ = lp.num_col_
    lp.a_matrix_.num_row_ = lp.num_row_
    lp.a_matrix_.start_ = mats["start"]
    lp.a_matrix_.index_ = mats["index"]
    lp.a_matrix_.value_ = mats["value"]
    model = highspy.HighsModel()
    if bound is None and penalty is None:
        lp.col_cost_ = np.concatenate([np.zeros(n * s), np.ones(2 * s)])
    else:
        wi = np.repeat(problem.weights, s)
        anchor = problem.anchor.ravel()
        dev_cost = 0.0 if penalty is None else float(penalty)
        lp.col_cost_ = np.concatenate([-2.0 * wi * anchor, np.full(2 * s, dev_cost)])
        lp.offset_ = float(wi @ (anchor * anchor))
        hess = highspy.HighsHessian()
        hess.dim_ = n * s
        hess.format_ = highspy.HessianFormat.kTriangular
        hess.start_ = np.arange(n * s + 1, dtype=np.int32)
        hess.index_ = np.arange(n * s, dtype=np.int32)
        hess.value_ = 2.0 * wi
        model.hessian_ = hess
    model.lp_ = lp
    return model


def _status(h: Any) -> SolveStatus:
    import highspy

    st = h.getModelStatus()
    if st == highspy.HighsModelStatus.kOptimal:
        return SolveStatus.OPTIMAL
    if st == highspy.HighsModelStatus.kTimeLimit:
        return SolveStatus.TIME_LIMIT
    if st == highspy.HighsModelStatus.kInfeasible:
        return SolveStatus.INFEASIBLE
    return SolveStatus.ERROR


def step1_highspy(
    problem: CRProblem, *, time_limit: float | None = None, threads: int | None = None
) -> tuple[float | None, SolveStatus, str]:
    """Step 1's least deviation ``V`` with HiGHS's LP solver.

    Parameters
    ----------
    problem : CRProblem
        One round's bounds, weights and goals (percent of each row).
    time_limit : float, optional
        HiGHS's time limit (s); none by default.
    threads : int, optional
        HiGHS threads (HiGHS's default when None).

    Returns
    -------
    (V, status, message)
        ``V`` is None unless the status is optimal.

    Examples
    --------
    >>> p = CRProblem.from_arrays([[50, 50]], [[0, 50]], [50, 50])
    >>> step1_highspy(p)
    (49.0, <Status.OPTIMAL: 'optimal'>, '')
    """
    h = _highs(time_limit, threads)
    h.passModel(_model(problem, None))
    h.run()
    status = _status(h)
    if status != SolveStatus.OPTIMAL:
        return None, status, f"step 1: {h.modelStatusToString(h.getModelStatus())}"
    return max(float(h.getInfo().objective_function_value), 0.0), status, ""


def _solve_qp(
    problem: CRProblem,
    bound: float | None,
    penalty: float | None,
    time_limit: float | None,
    threads: int | None,
) -> tuple[np.ndarray | None, SolveStatus, str]:
    h = _highs(time_limit, threads)
    h.passModel(_model(problem, bound, penalty))
    h.run()
    status = _status(h)
    if status != SolveStatus.OPTIMAL:
        return None, status, h.modelStatusToString(h.getModelStatus())
    n, s = problem.shape
    values = np.asarray(h.getSolution().col_value[: n * s], dtype=float)
    return values.reshape(n, s), status, ""


def step2_highspy(
    problem: CRProblem,
    V: float,
    *,
    time_limit: float | Deadline | None = None,
    threads: int | None = None,
) -> tuple[np.ndarray | None, SolveStatus, str]:
    """Step 2's allocation with HiGHS's QP solver (deviation at most ``V`` plus slack).

    The exact-penalty forms of ``PENALTIES`` first (accepted when the deviation stays
    within ``V + 10 * step2_slack``), then the bound form (``build_step2``'s
    docstring says why).

    Parameters
    ----------
    problem : CRProblem
        One round's bounds, anchor ``u + k``, weights and goals (percent of each row).
    V : float
        Step 1's least deviation (percent-nodes).
    time_limit : float or Deadline, optional
        Seconds (or the caller's deadline) for all the forms tried together; none by
        default.
    threads : int, optional
        HiGHS threads (HiGHS's default when None).

    Returns
    -------
    (R, status, message)
        ``R`` of shape (N, S), None unless the status is optimal.

    Examples
    --------
    >>> p = CRProblem.from_arrays([[50, 50], [50, 50]], [[70, 30], [50, 50]], [50, 50])
    >>> R, status, _ = step2_highspy(p, 0.0)
    >>> R.round(3).tolist(), status
    ([[70.0, 30.0], [30.0, 70.0]], <Status.OPTIMAL: 'optimal'>)
    """
    slack = step2_slack(problem)
    clock = Deadline.of(time_limit)
    R, status, message = None, SolveStatus.ERROR, ""
    for penalty in (*PENALTIES, None):
        bound = V + slack if penalty is None else None
        if clock.expired():
            return None, SolveStatus.TIME_LIMIT, "step 2: time limit reached"
        R, status, message = _solve_qp(problem, bound, penalty, clock.seconds(), threads)
        if status == SolveStatus.TIME_LIMIT:
            return None, status, f"step 2: {message}"
        if R is None:
            continue
        if penalty is None:
            return R, status, "step 2: bound form (penalties too small)"
        if deviation_total(problem, R) <= V + 10 * slack:
            return R, status, ""
    return None, status, f"step 2: {message or 'no form of step 2 solved'}"
