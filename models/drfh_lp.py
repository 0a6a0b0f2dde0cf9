"""The DRFH LP (7) with weights and server classes, and progressive filling for finite tasks.

Wang, Li, Liang (2014), Sec. IV-V; FORMULAS §2. Servers of a class are aggregated
(capacity x count); the optimum does not change (checked by the tests).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from allockit.instances.drfh import DRFHInstance
from allockit.results import DRFHResult, SolveStatus

__all__ = ["build_drfh_lp", "drfh_lp", "progressive_filling", "result_from_shares"]


def _normalised(instance: DRFHInstance) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    D = instance.share_demand
    d = D / D.max(axis=1, keepdims=True)  # normalised demand, 1 on the dominant resource
    cap = instance.share_capacity * instance.count[:, None]  # class capacity in shares
    return D, d, cap


def build_drfh_lp(instance: DRFHInstance) -> Any:
    """The DRFH LP (7) as a Pyomo model: max g, sum_i g_il d_ir <= c_lr, sum_l g_il = w_i g.

    ``g_il`` is user ``i``'s dominant share (a fraction of the pool's total of its
    dominant resource) on server class ``l``, ``d_ir`` its demand normalised to 1 on
    the dominant resource and ``c_lr`` class ``l``'s capacity as a share of the total.
    The Pyomo reference of the HiGHS model ``drfh_lp`` solves; task caps are ignored.
    Solve it with ``allockit.solver.solve_pyomo``.

    Parameters
    ----------
    instance : DRFHInstance
        Server classes (capacity per resource and count) and users (demand per task
        in the same units, weight ``w_i > 0``, optional task cap).

    Returns
    -------
    pyomo.environ.ConcreteModel
        Variables ``gil[i, l]`` and ``g``, constraints ``capacity[l, r]`` and
        ``equal[i]``, objective ``max g``.

    Examples
    --------
    >>> from allockit.solver import solve_pyomo
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"name": "s1", "capacity": [2, 12]}, {"name": "s2", "capacity": [12, 2]}],
    ...     "users": [{"name": "u1", "demand": [0.2, 1]}, {"name": "u2", "demand": [1, 0.2]}]})
    >>> m = build_drfh_lp(inst)
    >>> _ = solve_pyomo(m)
    >>> round(m.g.value, 6)
    0.714286

    References
    ----------
    .. [1] W. Wang, B. Li, B. Liang (2014), Dominant resource fairness in cloud
       computing systems with heterogeneous servers, INFOCOM, Sec. IV, LP (7).
    """
    import pyomo.environ as pyo

    _, d, cap = _normalised(instance)
    n, k, r = instance.n_users, instance.n_classes, len(instance.resources)
    m = pyo.ConcreteModel(name="drfh_lp")
    m.U, m.L, m.R = range(n), range(k), range(r)
    m.gil = pyo.Var(m.U, m.L, domain=pyo.NonNegativeReals)
    m.g = pyo.Var(domain=pyo.NonNegativeReals)
    m.capacity = pyo.Constraint(
        m.L,
        m.R,
        rule=lambda m, c, s: sum(float(d[i, s]) * m.gil[i, c] for i in m.U) <= float(cap[c, s]),
    )
    m.equal = pyo.Constraint(
        m.U, rule=lambda m, i: sum(m.gil[i, c] for c in m.L) == float(instance.weight[i]) * m.g
    )
    m.objective = pyo.Objective(expr=m.g, sense=pyo.maximize)
    return m


class _DRFHLP:
    """The LP (7) in HiGHS, kept between the rounds of progressive filling (warm starts).

    Columns: ``g[i, l]`` then ``g``; rows: class capacities, then one row per user,
    ``sum_l g_il - w_i g = 0`` for an active user or ``= G_i`` (``g`` removed from the row)
    for a frozen one.
    """

    def __init__(self, instance: DRFHInstance) -> None:
        import highspy

        _, d, cap = _normalised(instance)
        n, k, m = instance.n_users, instance.n_classes, len(instance.resources)
        self.n, self.k, self.base = n, k, k * m
        self.g_col = n * k
        ncol = n * k + 1
        var = np.arange(n * k).reshape(n, k)
        rows, cols, vals = [], [], []
        for s in range(m):
            rows.append((np.arange(k)[None, :] * m + s).repeat(n, axis=0).ravel())
            cols.append(var.ravel())
            vals.append(np.repeat(d[:, s], k))
        rows.append(self.base + np.repeat(np.arange(n), k))
        cols.append(var.ravel())
        vals.append(np.ones(n * k))
        rows.append(self.base + np.arange(n))
        cols.append(np.full(n, self.g_col))
        vals.append(-instance.weight.astype(float))
        r_, c_, v_ = (np.concatenate(x) for x in (rows, cols, vals))
        order = np.lexsort((r_, c_))
        r_, c_, v_ = r_[order], c_[order], v_[order]
        inf = highspy.kHighsInf
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = ncol, self.base + n
        cost = np.zeros(ncol)
        cost[-1] = 1.0
        lp.col_cost_ = cost
        lp.col_lower_ = np.zeros(ncol)
        lp.col_upper_ = np.full(ncol, inf)
        lp.row_lower_ = np.concatenate([np.full(self.base, -inf), np.zeros(n)])
        lp.row_upper_ = np.concatenate([cap.ravel(), np.zeros(n)])
        lp.sense_ = highspy.ObjSense.kMaximize
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.searchsorted(c_, np.arange(ncol + 1)).astype(np.int32)
        lp.a_matrix_.index_ = r_.astype(np.int32)
        lp.a_matrix_.value_ = v_.astype(float)
        self.hs = highspy
        self.h = highspy.Highs()
        self.h.setOptionValue("output_flag", False)
        self.h.setOptionValue("threads", 1)
        self.h.passModel(lp)

    def freeze(self, users: np.ndarray, shares: np.ndarray) -> None:
        """Fix users at given global dominant shares (no longer tied to ``g``)."""
        for i, value in zip(users, shares, strict=True):
            row = self.base + int(i)
            self.h.changeCoeff(row, self.g_col, 0.0)
            self.h.changeRowBounds(row, float(value), float(value))

    def solve(self, g_max: float) -> tuple[float, np.ndarray] | None:
        """Maximise ``g`` up to ``g_max`` (warm-started); return ``g`` and ``g[i, l]``."""
        upper = self.hs.kHighsInf if not np.isfinite(g_max) else float(g_max)
        self.h.changeColBounds(self.g_col, 0.0, upper)
        self.h.run()
        if self.h.getModelStatus() != self.hs.HighsModelStatus.kOptimal:
            return None
        x = np.asarray(self.h.getSolution().col_value)
        return float(x[-1]), np.maximum(0.0, x[: self.n * self.k].reshape(self.n, self.k))


def result_from_shares(
    instance: DRFHInstance,
    g: np.ndarray,
    *,
    method: str,
    status: SolveStatus,
    seconds: float,
    split: bool = False,
    message: str = "",
) -> DRFHResult:
    """Package per-class dominant shares ``g[i, l]`` as a ``DRFHResult``.

    With ``split`` every class entry is split evenly into its servers.

    A user's tasks are ``G_i / D_i*`` (``G_i = sum_l g_il``, ``D_i*`` its per-task
    dominant share of the pool), fractional in general; its resources on class ``l``
    are ``g_il`` times its normalised demand, in input units.

    Parameters
    ----------
    instance : DRFHInstance
        Server classes (capacity per resource and count) and users (demand per task
        in the same units, weight ``w_i > 0``, optional task cap).
    g : numpy.ndarray, shape (n_users, n_classes)
        Global dominant share of each user on each class, >= 0.
    method : str
        Method name recorded in the result.
    status : SolveStatus
        Status recorded in the result.
    seconds : float
        Wall time recorded in the result.
    split : bool, default False
        Report the allocation per server (each class entry split evenly into its
        ``count`` servers, named ``name#k``) instead of per class.
    message : str, default ""
        Recorded in the result.

    Returns
    -------
    DRFHResult
        Tasks, dominant shares, allocation and utilisation (fraction of each
        resource's total in use).

    Examples
    --------
    One user with demand (0.2, 0.1) and half of two unit servers' CPU:

    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"name": "s", "capacity": [1, 1], "count": 2}],
    ...     "users": [{"name": "u", "demand": [0.2, 0.1]}]})
    >>> r = result_from_shares(inst, np.array([[0.5]]), method="demo",
    ...                        status=SolveStatus.OPTIMAL, seconds=0.0)
    >>> r.tasks.tolist(), r.allocation.tolist(), r.utilization.tolist()
    ([5.0], [[[1.0, 0.5]]], [0.5, 0.25])
    >>> r = result_from_shares(inst, np.array([[0.5]]), method="demo",
    ...                        status=SolveStatus.OPTIMAL, seconds=0.0, split=True)
    >>> r.server_names, r.allocation.tolist()
    (('s#0', 's#1'), [[[0.5, 0.25], [0.5, 0.25]]])
    """
    D, d, _ = _normalised(instance)
    total = instance.total
    alloc = g[:, :, None] * d[:, None, :] * total[None, None, :] + 0.0  # input units
    names = instance.server_names
    if split:
        alloc = np.repeat(alloc / instance.count[None, :, None], instance.count, axis=1)
        names = instance.expanded().server_names
    G = g.sum(axis=1)
    used = (g[:, :, None] * d[:, None, :]).sum(axis=(0, 1))
    return DRFHResult(
        method=method,
        status=status,
        user_names=instance.user_names,
        server_names=names,
        resources=instance.resources,
        tasks=G / D.max(axis=1),
        dominant_share=G,
        allocation=alloc,
        utilization=used,
        seconds=seconds,
        message=message,
    )


def drfh_lp(instance: DRFHInstance, *, split: bool = False) -> DRFHResult:
    """The DRFH allocation for users with unbounded tasks: the LP (7), weighted.

    Every user gets global dominant share ``w_i g`` with ``g`` as large as the servers
    allow. Task limits are ignored here (see ``progressive_filling``).

    Solved with HiGHS directly (no Pyomo; ``build_drfh_lp`` is the reference model).

    Parameters
    ----------
    instance : DRFHInstance
        Server classes (capacity per resource and count) and users (demand per task
        in the same units, weight ``w_i > 0``, optional task cap).
    split : bool, default False
        Report the allocation per server (each class entry split evenly into its
        ``count`` servers, named ``name#k``) instead of per class.

    Returns
    -------
    DRFHResult
        Status ``optimal``; fractional tasks per user, dominant shares ``w_i g`` and
        the allocation.

    Raises
    ------
    RuntimeError
        If HiGHS does not reach an optimum (not expected: ``g = 0`` is feasible and
        the LP is bounded).

    Examples
    --------
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"name": "s1", "capacity": [2, 12]}, {"name": "s2", "capacity": [12, 2]}],
    ...     "users": [{"name": "u1", "demand": [0.2, 1]}, {"name": "u2", "demand": [1, 0.2]}]})
    >>> r = drfh_lp(inst)
    >>> [round(float(t), 6) for t in r.tasks], [round(float(g), 6) for g in r.dominant_share]
    ([10.0, 10.0], [0.714286, 0.714286])

    References
    ----------
    .. [1] W. Wang, B. Li, B. Liang (2014), Dominant resource fairness in cloud
       computing systems with heterogeneous servers, INFOCOM, Sec. IV, LP (7).
    """
    start = time.perf_counter()
    solved = _DRFHLP(instance).solve(np.inf)
    if solved is None:  # pragma: no cover - g = 0 is always feasible
        raise RuntimeError("the DRFH LP failed")
    _, g = solved
    return result_from_shares(
        instance,
        g,
        method="lp",
        status=SolveStatus.OPTIMAL,
        seconds=time.perf_counter() - start,
        split=split,
    )


def progressive_filling(
    instance: DRFHInstance, *, split: bool = False, tol: float = 1e-9
) -> DRFHResult:
    """DRFH with finite tasks: raise all active users' ``G_i / w_i`` together (Sec. V-A).

    Each round solves the LP with the active users at ``w_i g`` (``g`` capped by the
    smallest ``cap_i / w_i``, ``cap_i = n_i D_i*`` the share that runs all of user ``i``'s
    tasks) and the frozen users at their share. Users that reach their cap are frozen
    there; when the servers stop ``g`` before any cap, the remaining users are frozen at
    ``w_i g`` and filling ends.

    Parameters
    ----------
    instance : DRFHInstance
        Server classes (capacity per resource and count) and users (demand per task
        in the same units, weight ``w_i > 0``, optional task cap).
    split : bool, default False
        Report the allocation per server (each class entry split evenly into its
        ``count`` servers, named ``name#k``) instead of per class.
    tol : float, default 1e-9
        Relative and absolute tolerance for deciding that a user reached its cap.

    Returns
    -------
    DRFHResult
        Status ``optimal``; fractional tasks per user (at most its cap), dominant
        shares and allocation; ``message`` gives the number of LP rounds.

    Raises
    ------
    RuntimeError
        If an LP round fails (not expected: the previous round's point is feasible).

    Examples
    --------
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"name": "s1", "capacity": [2, 12]}, {"name": "s2", "capacity": [12, 2]}],
    ...     "users": [{"name": "u1", "demand": [0.2, 1], "tasks": 4},
    ...               {"name": "u2", "demand": [1, 0.2]}]})
    >>> [round(float(t), 6) for t in progressive_filling(inst).tasks]
    [4.0, 11.2]

    References
    ----------
    .. [1] W. Wang, B. Li, B. Liang (2014), Dominant resource fairness in cloud
       computing systems with heterogeneous servers, INFOCOM, Sec. V-A.
    """
    start = time.perf_counter()
    cap = instance.tasks * instance.dominant
    lp = _DRFHLP(instance)
    active = cap > 0
    lp.freeze(np.flatnonzero(~active), np.zeros(int((~active).sum())))
    g_alloc = np.zeros((instance.n_users, instance.n_classes))
    rounds = 0
    while active.any():
        rounds += 1
        solved = lp.solve(float(np.min(cap[active] / instance.weight[active])))
        if solved is None:  # pragma: no cover - the previous round's point is feasible
            raise RuntimeError("progressive filling lost feasibility")
        g, g_alloc = solved
        hit = active & (cap / instance.weight <= g * (1 + tol) + tol)
        if not hit.any():
            break  # the servers stop g: the active users stay at w_i g
        lp.freeze(np.flatnonzero(hit), cap[hit])
        active &= ~hit
    if not active.any() and rounds:
        solved = lp.solve(0.0)
        if solved is not None:
            g_alloc = solved[1]
    return result_from_shares(
        instance,
        g_alloc,
        method="progressive",
        status=SolveStatus.OPTIMAL,
        seconds=time.perf_counter() - start,
        split=split,
        message=f"{rounds} LP rounds",
    )
