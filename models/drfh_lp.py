"""The DRFH LP (7) with weights and server classes, and progressive filling for finite tasks.

Wang, Li, Liang (2014), Sec. IV-V; user guide (DRFH). Servers of a class are aggregated
(capacity x count); the optimum does not change (checked by the tests).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from allockit.errors import InvalidInputError
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
    """LP (7) in HiGHS, by column generation; kept between solves (warm starts).

    Rows: the class capacities ``sum_i g_il d_ir <= c_lr`` (``k * m``), then one row per
    user, ``sum_l g_il - alpha_i g = beta_i``: LP (7) is ``alpha = w, beta = 0``; a user
    frozen at share ``G_i`` has ``alpha_i = 0, beta_i = G_i``. Columns: ``g`` (the
    objective), then the ``g_il`` generated so far. With ``n * k`` above ``_FULL`` pairs
    only the columns that can improve the objective are added: each solve prices every
    ``(i, l)`` pair with the row duals (reduced cost ``-(d_i . y_l + y_i)``, vectorised)
    and adds the best ones per user until none is attractive, which proves the
    restricted optimum optimal for the whole LP.
    """

    def __init__(self, instance: DRFHInstance) -> None:
        import highspy

        _, d, cap = _normalised(instance)
        n, k, m = instance.n_users, instance.n_classes, len(instance.resources)
        self.n, self.k, self.m, self.base = n, k, m, k * m
        self.d, self.cap = d, cap
        self.hs = highspy
        inf = highspy.kHighsInf
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = 1, self.base + n
        lp.col_cost_ = np.ones(1)
        lp.col_lower_ = np.zeros(1)
        lp.col_upper_ = np.full(1, inf)
        lp.row_lower_ = np.concatenate([np.full(self.base, -inf), np.zeros(n)])
        lp.row_upper_ = np.concatenate([cap.ravel(), np.zeros(n)])
        lp.sense_ = highspy.ObjSense.kMaximize
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        alpha = instance.weight.astype(float)
        lp.a_matrix_.start_ = np.array([0, n], dtype=np.int32)
        lp.a_matrix_.index_ = (self.base + np.arange(n)).astype(np.int32)
        lp.a_matrix_.value_ = -alpha
        self.alpha, self.beta = alpha.copy(), np.zeros(n)
        self.h = highspy.Highs()
        self.h.setOptionValue("output_flag", False)
        self.h.setOptionValue("threads", 1)
        self.h.passModel(lp)
        self.present = np.zeros((n, k), dtype=bool)
        self.col_user = np.zeros(0, dtype=np.int64)
        self.col_class = np.zeros(0, dtype=np.int64)
        self.rounds = 0
        if n * k <= _FULL:
            users, classes = np.nonzero(np.ones((n, k), dtype=bool))
        else:  # each user's classes that alone give it the largest dominant share
            fit = np.min(cap[None, :, :] / d[:, None, :], axis=2)
            best = np.argsort(-fit, axis=1, kind="stable")[:, :_SEED_COLUMNS]
            users, classes = np.repeat(np.arange(n), best.shape[1]), best.ravel()
        self._add(users, classes)

    def _add(self, users: np.ndarray, classes: np.ndarray) -> None:
        count = users.size
        if count == 0:
            return
        m = self.m
        rows = np.empty((count, m + 1), dtype=np.int32)
        rows[:, :m] = classes[:, None] * m + np.arange(m)[None, :]
        rows[:, m] = self.base + users
        values = np.empty((count, m + 1))
        values[:, :m] = self.d[users]
        values[:, m] = 1.0
        self.h.addCols(
            count,
            np.zeros(count),
            np.zeros(count),
            np.full(count, self.hs.kHighsInf),
            count * (m + 1),
            (np.arange(count) * (m + 1)).astype(np.int32),
            rows.ravel(),
            values.ravel(),
        )
        self.present[users, classes] = True
        self.col_user = np.concatenate([self.col_user, users])
        self.col_class = np.concatenate([self.col_class, classes])

    def targets(
        self, alpha: np.ndarray, beta: np.ndarray, lower: float = 0.0, upper: float = np.inf
    ) -> None:
        """User ``i`` gets ``alpha_i g + beta_i``; ``g`` within ``[lower, upper]``."""
        for i in np.flatnonzero(alpha != self.alpha):
            self.h.changeCoeff(int(self.base + i), 0, float(-alpha[i]))
        self.alpha = np.array(alpha, dtype=float)
        for i in np.flatnonzero(beta != self.beta):
            self.h.changeRowBounds(int(self.base + i), float(beta[i]), float(beta[i]))
        self.beta = np.array(beta, dtype=float)
        top = self.hs.kHighsInf if not np.isfinite(upper) else float(upper)
        self.h.changeColBounds(0, float(lower), top)

    def solve(self) -> tuple[float, np.ndarray] | None:
        """Maximise ``g``; ``g`` and ``g[i, l]``, or None if the LP is infeasible."""
        while True:
            self.h.run()
            if self.h.getModelStatus() != self.hs.HighsModelStatus.kOptimal:
                return None
            self.rounds += 1
            if self.present.all():
                break
            duals = np.asarray(self.h.getSolution().row_dual)
            y = duals[: self.base].reshape(self.k, self.m)
            reduced = -(self.d @ y.T + duals[self.base :, None])
            reduced[self.present] = -np.inf
            per_user = min(_PER_ROUND, self.k)
            if self.rounds > _MAX_ROUNDS:  # the cap: add every attractive column at once
                per_user = self.k
            best = np.argpartition(-reduced, per_user - 1, axis=1)[:, :per_user]
            gain = np.take_along_axis(reduced, best, axis=1)
            users, slot = np.nonzero(gain > _PRICE_TOL)
            if users.size == 0:
                break
            self._add(users, best[users, slot])
        x = np.asarray(self.h.getSolution().col_value)
        shares = np.zeros((self.n, self.k))
        np.add.at(shares, (self.col_user, self.col_class), np.maximum(0.0, x[1:]))
        return float(x[0]), shares


#: Pairs (users x classes) up to which every column is in the LP from the start.
_FULL = 20_000
#: Columns per user in the first LP, and added per user and round at most.
_SEED_COLUMNS = 3
_PER_ROUND = 2
#: Reduced cost above which a column improves the objective.
_PRICE_TOL = 1e-10
#: Pricing rounds before every attractive column is added at once.
_MAX_ROUNDS = 200


#: How far the shares ``result_from_shares`` is given may exceed a class's capacity: far
#: above an LP solver's feasibility tolerance (1e-7), so that only a caller's mistake is
#: refused, never a solver's round-off (``check_result`` holds results to ``TOL``).
SHARES_CAP_TOL = 1e-6


def _check_shares(
    instance: DRFHInstance, g: Any, d: np.ndarray, cap: np.ndarray
) -> np.ndarray:
    """``g`` as an array; refused if of another shape, not finite and >= 0 or over capacity."""
    n, k = instance.n_users, instance.n_classes
    try:
        g = np.asarray(g, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"g must be an array of numbers: {exc}") from None
    shape = g.shape
    if shape != (n, k):
        raise InvalidInputError(
            f"g must have shape (n_users, n_classes) = ({n}, {k}); got {shape}"
        )
    bad = ~((g >= 0) & (g < np.inf))  # NaN fails both
    if bad.any():
        i, c = np.argwhere(bad)[0]
        raise InvalidInputError(
            f"g[{i}, {c}] must be finite and >= 0; got {float(g[i, c])!r} (user "
            f"{instance.user_names[i]!r}, class {instance.server_names[c]!r})"
        )
    used = np.einsum("il,ir->lr", g, d)  # shares of each resource's pool, per class
    over = used > cap * (1 + SHARES_CAP_TOL) + SHARES_CAP_TOL
    if over.any():
        c, r = np.argwhere(over)[0]
        raise InvalidInputError(
            f"g uses {used[c, r]:.6g} of {instance.resources[r]} on class "
            f"{instance.server_names[c]!r}, more than its capacity {cap[c, r]:.6g} (shares "
            "of the pool's total)"
        )
    return g


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
        Global dominant share of each user on each class: finite, >= 0, and together
        within every class's capacity (relative and absolute tolerance
        ``SHARES_CAP_TOL``).
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

    Raises
    ------
    InvalidInputError
        If ``g`` is not of shape ``(n_users, n_classes)``, holds a value that is not
        finite and >= 0, or takes more of a resource on a class than the class holds;
        the message names ``g``, the entry (user and class, or class and resource)
        and the value.

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
    >>> result_from_shares(inst, np.array([[1.2]]), method="demo",
    ...                    status=SolveStatus.OPTIMAL, seconds=0.0)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: g uses 1.2 of cpu on class 's', more than its \
capacity 1 (shares of the pool's total)
    """
    D, d, cap = _normalised(instance)
    g = _check_shares(instance, g, d, cap)
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


# ---------------------------------------------------------------------- two resources
def _cut_values(x: np.ndarray, mass: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """``sum_j mass_j * min(x_j, tau)`` at every ``tau`` (prefix sums over sorted ``x``)."""
    order = np.argsort(x, kind="stable")
    xs, ms = x[order], mass[order]
    below = np.concatenate(([0.0], np.cumsum(ms * xs)))
    above = np.concatenate((np.cumsum(ms[::-1])[::-1], [0.0]))
    k = np.searchsorted(xs, tau, side="right")
    return below[k] + tau * above[k]


def _two_resource_level(
    cap: np.ndarray, d: np.ndarray, fixed: np.ndarray, rate: np.ndarray
) -> float:
    """The largest ``g`` such that users at shares ``fixed_i + rate_i g`` fit the classes.

    Exact for two resources. With ``A_l, B_l`` a class's capacity, ``t_i = d_i2 / d_i1``
    a user's type and ``s_l = B_l / A_l`` a class's, the dual of the LP is a problem
    over concave nondecreasing functions ``h`` (a class costs ``A_l h(s_l)``, a user
    needs ``d_i1 h(t_i)``), whose extreme rays are ``h(t) = min(t, tau)``: the shares
    fit iff every cut ``sum_l A_l min(s_l, tau) >= sum_i G_i d_i1 min(t_i, tau)`` holds,
    and checking ``tau`` at the breakpoints ``{s_l} U {t_i}`` suffices (each ratio is
    linear-fractional between breakpoints). Returns ``inf`` when nothing grows with
    ``g`` and ``-inf`` when even ``g = 0`` does not fit.
    """
    a, b = cap[:, 0], cap[:, 1]
    s, t = b / a, d[:, 1] / d[:, 0]
    tau = np.unique(np.concatenate((s, t)))
    supply = _cut_values(s, a, tau)
    base = _cut_values(t, fixed * d[:, 0], tau)
    grow = _cut_values(t, rate * d[:, 0], tau)
    slack = supply - base
    if (slack < -1e-12 * supply).any():
        return -np.inf
    positive = grow > 0
    if not positive.any():
        return np.inf
    return float(np.min(np.maximum(slack[positive], 0.0) / grow[positive]))


def _two_resource_fill(cap: np.ndarray, d: np.ndarray, shares: np.ndarray) -> np.ndarray | None:
    """Users' dominant shares placed on the classes (two resources); None if it fails.

    In units of a class's first resource, user ``i`` brings mass ``G_i d_i1`` of type
    ``t_i`` and class ``l`` holds mass ``A_l`` with ``sum(mass * type) <= B_l``. Each
    class takes the types nearest its own ``s_l`` from both sides, in amounts that keep
    the mean type at ``s_l``: the least spread mix, which lowers the other classes'
    cuts no more than it must. The tests check that this places every user whenever
    the cuts allow it; the caller verifies the result and solves the LP otherwise.
    """
    a_cap, b_cap = cap[:, 0], cap[:, 1]
    n, k = d.shape[0], cap.shape[0]
    types = d[:, 1] / d[:, 0]
    order = np.argsort(types, kind="stable")
    ts = types[order].tolist()
    left = (shares * d[:, 0])[order].astype(float).tolist()
    total = sum(left)
    x = np.zeros((n, k))
    # skip links over used-up users: to the left (shifted by one, 0 = none) and right
    to_left = list(range(n + 1))
    to_right = list(range(n + 1))

    def find(links: list[int], j: int) -> int:
        root = j
        while links[root] != root:
            root = links[root]
        while links[j] != root and links[j] != j:
            links[j], j = root, links[j]
        return root

    def used_up(j: int) -> None:
        left[j] = 0.0
        to_left[j + 1] = j
        to_right[j] = j + 1

    for j in range(n):
        if left[j] <= 0.0:
            used_up(j)
    tiny = 1e-15 * max(total, 1e-300)
    for c in np.argsort(b_cap / a_cap, kind="stable").tolist():
        s = float(b_cap[c] / a_cap[c])
        room, budget = float(a_cap[c]), float(b_cap[c])
        start = int(np.searchsorted(ts, s, side="right"))
        for _ in range(2 * n + 2):
            if room <= 1e-15 * a_cap[c]:
                break
            lo, hi = find(to_left, start) - 1, find(to_right, start)
            if lo < 0 and hi >= n:
                break
            if lo >= 0 and (hi >= n or ts[lo] >= s * (1 - 1e-12)):  # lighter or equal only
                take = min(left[lo], room, max(budget, 0.0) / ts[lo] if ts[lo] > 0 else room)
                steps = ((lo, take),)
            elif lo < 0 or ts[hi] <= s * (1 + 1e-12):  # heavier types only: the budget binds
                take = min(left[hi], room, max(budget, 0.0) / ts[hi])
                if take <= 0.0:
                    break
                steps = ((hi, take),)
            else:  # units of (lighter, heavier) whose mean type is s
                light = (ts[hi] - s) / (ts[hi] - ts[lo])  # in (0, 1): both types differ from s
                unit = min(room, left[lo] / light, left[hi] / max(1.0 - light, 1e-300))
                steps = ((lo, unit * light), (hi, unit * (1.0 - light)))
            for j, take in steps:
                x[order[j], c] += take
                room -= take
                budget -= take * ts[j]
                left[j] -= take
                if left[j] <= tiny:
                    used_up(j)
    if sum(left) > 1e-9 * max(total, 1e-300):
        return None
    return x / d[:, [0]]


def _two_resource_shares(
    instance: DRFHInstance, fixed: np.ndarray, rate: np.ndarray, lower: float, upper: float
) -> tuple[float, np.ndarray] | None:
    """``g`` (largest in ``[lower, upper]``) and its allocation ``g[i, l]``, or None.

    Users get ``fixed_i + rate_i g``. Exact ``g`` by the cuts (``_two_resource_level``),
    allocation by ``_two_resource_fill``, checked against the capacities; None when the
    instance does not have two resources or the check fails (the LP then decides).
    """
    if len(instance.resources) > 2:
        return None
    _, d, cap = _normalised(instance)
    if d.shape[1] == 1:  # one resource: a second, identical one changes nothing
        d, cap = np.repeat(d, 2, axis=1), np.repeat(cap, 2, axis=1)
    level = _two_resource_level(cap, d, fixed, rate)
    if level < lower * (1 - 1e-12):
        return None
    g = float(min(max(level, lower), upper))
    if not np.isfinite(g):
        return None
    shares = fixed + rate * g
    alloc = _two_resource_fill(cap, d, shares)
    if alloc is None:
        return None
    used = np.einsum("il,ir->lr", alloc, d)
    if (used > cap * (1 + 1e-9) + 1e-15).any():
        return None
    return g, alloc


#: Values the result's allocation (users x server classes x resources) may hold.
_MAX_VALUES = 100_000_000


def _refuse_large(instance: DRFHInstance, split: bool) -> None:
    """Refuse at once an allocation too large to hold, naming the size that works."""
    n, m = instance.n_users, len(instance.resources)
    k = int(instance.count.sum()) if split else instance.n_classes
    if n * k * m > _MAX_VALUES:
        what = "servers (split)" if split else "server classes"
        raise InvalidInputError(
            f"the allocation of {n} users on {k} {what} x {m} resources holds "
            f"{n * k * m:.3g} values, more than {_MAX_VALUES:.0e}: at most "
            f"{_MAX_VALUES // max(1, n * m)} {what} for this many users"
            + ("; drop --split (per class)" if split else "")
        )


class _PyomoDRFHLP:
    """``_DRFHLP``'s LP as a Pyomo model solved by any solver (``solver=``).

    The same rows: class capacities, then ``sum_l g_il - alpha_i g = beta_i``; ``g`` in
    ``[lower, upper]`` (mutable parameters changed by ``targets``), maximised.
    """

    def __init__(self, instance: DRFHInstance, solver: str) -> None:
        import pyomo.environ as pyo

        _, d, cap = _normalised(instance)
        n, k, r = instance.n_users, instance.n_classes, len(instance.resources)
        self.solver, self.rounds = solver, 0
        self.col_user = np.repeat(np.arange(n), k)  # every column, as in the full LP
        m = pyo.ConcreteModel(name="drfh_targets")
        m.U, m.L, m.R = range(n), range(k), range(r)
        m.alpha = pyo.Param(m.U, initialize=lambda m, i: float(instance.weight[i]), mutable=True)
        m.beta = pyo.Param(m.U, initialize=0.0, mutable=True)
        m.lower = pyo.Param(initialize=0.0, mutable=True)
        m.gil = pyo.Var(m.U, m.L, domain=pyo.NonNegativeReals)
        m.g = pyo.Var(domain=pyo.NonNegativeReals)
        m.capacity = pyo.Constraint(
            m.L, m.R, rule=lambda m, c, s: sum(float(d[i, s]) * m.gil[i, c] for i in m.U)
            <= float(cap[c, s]),
        )
        m.share = pyo.Constraint(
            m.U, rule=lambda m, i: sum(m.gil[i, c] for c in m.L) - m.alpha[i] * m.g == m.beta[i]
        )
        m.floor = pyo.Constraint(expr=m.g >= m.lower)
        m.objective = pyo.Objective(expr=m.g, sense=pyo.maximize)
        self.m = m

    def targets(
        self, alpha: np.ndarray, beta: np.ndarray, lower: float = 0.0, upper: float = np.inf
    ) -> None:
        """User ``i`` gets ``alpha_i g + beta_i``; ``g`` within ``[lower, upper]``."""
        for i in self.m.U:
            self.m.alpha[i] = float(alpha[i])
            self.m.beta[i] = float(beta[i])
        self.m.lower = float(lower)
        self.m.g.setub(None if not np.isfinite(upper) else float(upper))

    def solve(self) -> tuple[float, np.ndarray] | None:
        """Maximise ``g``; ``g`` and ``g[i, l]``, or None if the LP is infeasible."""
        from allockit.solver import solve_pyomo

        report = solve_pyomo(self.m, solver=self.solver)
        self.rounds += 1
        if report.status is SolveStatus.INFEASIBLE:
            return None
        if report.status is not SolveStatus.OPTIMAL:
            raise RuntimeError(
                f"solver {self.solver!r} did not solve the DRFH LP: {report.message}"
            )
        m = self.m
        shares = np.array(
            [[max(0.0, float(m.gil[i, c].value or 0.0)) for c in m.L] for i in m.U], dtype=float
        )
        return float(m.g.value), shares


def _pyomo_shares(instance: DRFHInstance, solver: str) -> np.ndarray:
    """The dominant shares ``g[i, l]`` of LP (7) solved as the Pyomo model by ``solver``."""
    from allockit.solver import solve_pyomo

    m = build_drfh_lp(instance)
    report = solve_pyomo(m, solver=solver)
    if report.status is not SolveStatus.OPTIMAL:
        raise RuntimeError(f"solver {solver!r} did not solve the DRFH LP: {report.message}")
    return np.array(
        [[max(0.0, float(m.gil[i, c].value or 0.0)) for c in m.L] for i in m.U], dtype=float
    )


def drfh_lp(
    instance: DRFHInstance, *, split: bool = False, solver: str | None = None
) -> DRFHResult:
    """The DRFH allocation for users with unbounded tasks: the LP (7), weighted.

    Every user gets global dominant share ``w_i g`` with ``g`` as large as the servers
    allow. A finite task cap is honoured or refused: when the answer gives some user
    more tasks than it has, the call is refused (``progressive_filling`` is the DRFH
    allocation with task caps).

    With one or two resources (CPU and memory, as in the paper) ``g`` is computed
    exactly from the LP's dual, a minimum over the cuts ``min(t, tau)``
    (``_two_resource_level``), and the allocation is built without a solver and
    checked; with more resources, or if that check fails, the LP is solved with HiGHS
    directly (matrices, column generation). ``build_drfh_lp`` is the Pyomo reference
    model; the tests check that all give the same ``g``.

    Parameters
    ----------
    instance : DRFHInstance
        Server classes (capacity per resource and count) and users (demand per task
        in the same units, weight ``w_i > 0``, optional task cap).
    split : bool, default False
        Report the allocation per server (each class entry split evenly into its
        ``count`` servers, named ``name#k``) instead of per class.
    solver : str, optional
        Solve the Pyomo model ``build_drfh_lp`` with this solver
        (``allockit.solver.SOLVERS``: ``"highs"``, ``"scip"``, ...) instead of the
        exact cuts or HiGHS's matrices.

    Returns
    -------
    DRFHResult
        Status ``optimal``; fractional tasks per user, dominant shares ``w_i g`` and
        the allocation; ``message`` says how it was solved.

    Raises
    ------
    InvalidInputError
        If the allocation gives a user with a finite task cap more tasks than the cap
        (the message names the user and suggests ``progressive``), or would hold more
        than 1e8 values (users x classes x resources; refused at once).
    RuntimeError
        If the solver does not reach an optimum (not expected: ``g = 0`` is feasible
        and the LP is bounded).

    Examples
    --------
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"name": "s1", "capacity": [2, 12]}, {"name": "s2", "capacity": [12, 2]}],
    ...     "users": [{"name": "u1", "demand": [0.2, 1]}, {"name": "u2", "demand": [1, 0.2]}]})
    >>> r = drfh_lp(inst)
    >>> [round(float(t), 6) for t in r.tasks], [round(float(g), 6) for g in r.dominant_share]
    ([10.0, 10.0], [0.714286, 0.714286])
    >>> capped = DRFHInstance.from_dict({**inst.to_dict(), "users": [
    ...     {"name": "u1", "demand": [0.2, 1], "tasks": 4}, {"name": "u2", "demand": [1, 0.2]}]})
    >>> drfh_lp(capped)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: the DRFH LP (7) would give user 'u1' 10 tasks, more \
than its 4: LP (7) assumes unbounded tasks; use method 'progressive' (progressive filling \
honours task caps)

    References
    ----------
    .. [1] W. Wang, B. Li, B. Liang (2014), Dominant resource fairness in cloud
       computing systems with heterogeneous servers, INFOCOM, Sec. IV, LP (7).
    """
    _refuse_large(instance, split)
    start = time.perf_counter()
    n = instance.n_users
    weight = instance.weight.astype(float)
    if solver is not None:
        solved, how = (None, _pyomo_shares(instance, solver)), f"the Pyomo model, by {solver}"
    else:
        solved = _two_resource_shares(instance, np.zeros(n), weight, 0.0, np.inf)
        how = "exact cuts (two resources)"
    if solved is None:
        lp = _DRFHLP(instance)
        solved = lp.solve()
        if solved is None:  # pragma: no cover - g = 0 is always feasible
            raise RuntimeError("the DRFH LP failed")
        how = f"HiGHS, {lp.rounds} pricing rounds, {lp.col_user.size} columns"
    _, g = solved
    tasks = g.sum(axis=1) / instance.dominant
    over = np.flatnonzero(tasks > instance.tasks * (1 + 1e-9) + 1e-9)
    if over.size:
        i = int(over[0])
        raise InvalidInputError(
            f"the DRFH LP (7) would give user {instance.user_names[i]!r} {tasks[i]:.6g} tasks, "
            f"more than its {instance.tasks[i]:.6g}"
            + (f" (and {over.size - 1} more users)" if over.size > 1 else "")
            + ": LP (7) assumes unbounded tasks; use method 'progressive' (progressive "
            "filling honours task caps)"
        )
    return result_from_shares(
        instance,
        g,
        method="lp",
        status=SolveStatus.OPTIMAL,
        seconds=time.perf_counter() - start,
        split=split,
        message=how,
    )


def progressive_filling(
    instance: DRFHInstance, *, split: bool = False, tol: float = 1e-9, solver: str | None = None
) -> DRFHResult:
    """DRFH with finite tasks: raise all users' ``G_i / w_i`` together (Sec. V-A).

    Progressive filling raises a common level ``g``: user ``i`` gets the global
    dominant share ``min(w_i g, cap_i)`` (``cap_i = n_i D_i*``, the share that runs all
    of its tasks), until the servers stop ``g``. Its outcome is that of the largest
    feasible ``g``, found without replaying every freeze: a bisection over the
    breakpoints ``cap_i / w_i`` (is "everyone at ``min(w_i b, cap_i)``" feasible?),
    then the largest ``g`` between the last feasible breakpoint and the next, with the
    users capped below it fixed at their caps. With one or two resources each step is
    exact arithmetic on the cuts (see ``drfh_lp``); otherwise each is an LP solved by
    column generation in one warm-started HiGHS model.

    Parameters
    ----------
    instance : DRFHInstance
        Server classes (capacity per resource and count) and users (demand per task
        in the same units, weight ``w_i > 0``, optional task cap).
    split : bool, default False
        Report the allocation per server (each class entry split evenly into its
        ``count`` servers, named ``name#k``) instead of per class.
    tol : float, default 1e-9
        Relative tolerance of "feasible" for the LP path (``lambda >= 1 - tol``).
    solver : str, optional
        Solve the LPs as a Pyomo model with this solver (``allockit.solver.SOLVERS``:
        ``"highs"``, ``"scip"``, ...) instead of the exact cuts or HiGHS's matrices.

    Returns
    -------
    DRFHResult
        Status ``optimal``; fractional tasks per user (at most its cap), dominant
        shares and allocation; ``message`` says how it was solved.

    Raises
    ------
    InvalidInputError
        If the allocation would hold more than 1e8 values (users x classes x
        resources; refused at once, naming the size that works).
    RuntimeError
        If an LP fails (not expected: each one starts from a feasible point).

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
    _refuse_large(instance, split)
    start = time.perf_counter()
    n = instance.n_users
    weight = instance.weight.astype(float)
    cap = instance.tasks * instance.dominant  # inf for unbounded users
    finite = np.isfinite(cap)
    levels = np.unique(cap[finite] / weight[finite])
    zero = np.zeros(n)
    two = len(instance.resources) <= 2 and solver is None
    lp: _DRFHLP | _PyomoDRFHLP | None = None
    solves = 0

    def new_lp() -> _DRFHLP | _PyomoDRFHLP:
        return _DRFHLP(instance) if solver is None else _PyomoDRFHLP(instance, solver)

    def fits(level: float) -> bool:
        nonlocal lp, solves
        shares = np.minimum(weight * level, cap)
        if two:
            _, d, caps = _normalised(instance)
            if d.shape[1] == 1:
                d, caps = np.repeat(d, 2, axis=1), np.repeat(caps, 2, axis=1)
            return _two_resource_level(caps, d, shares, zero) > -np.inf
        lp = lp or new_lp()
        lp.targets(shares, zero, 0.0, 1.0)
        solves += 1
        solved = lp.solve()
        return solved is not None and solved[0] >= 1.0 - tol

    lo, hi = -1, levels.size  # levels[lo] fits (-1: level 0), levels[hi] does not
    for _ in range(64):  # a bisection over at most n breakpoints: log2(n) steps
        if hi - lo <= 1:
            break
        mid = (lo + hi) // 2
        if fits(float(levels[mid])):
            lo = mid
        else:
            hi = mid
    floor = float(levels[lo]) if lo >= 0 else 0.0
    if hi == levels.size and finite.all():  # every user reaches its cap
        fixed, rate, ceiling = cap.astype(float), zero, 1.0
    else:
        frozen = finite & (cap / weight <= floor)
        fixed, rate = np.where(frozen, cap, 0.0), np.where(frozen, 0.0, weight)
        ceiling = float(levels[hi]) if hi < levels.size else np.inf
    solved = _two_resource_shares(instance, fixed, rate, 0.0, ceiling) if two else None
    how = "exact cuts (two resources)"
    if solved is None:
        lp = lp or new_lp()
        if rate.any():
            lp.targets(rate, fixed, floor, ceiling)
        else:
            lp.targets(fixed, zero, 1.0, 1.0)
        solves += 1
        solved = lp.solve()
        if solved is None:  # pragma: no cover - the last feasible level is a feasible point
            raise RuntimeError("progressive filling lost feasibility")
        how = f"{solves} LPs ({lp.rounds} pricing rounds, {lp.col_user.size} columns)"
    return result_from_shares(
        instance,
        solved[1],
        method="progressive",
        status=SolveStatus.OPTIMAL,
        seconds=time.perf_counter() - start,
        split=split,
        message=how,
    )
