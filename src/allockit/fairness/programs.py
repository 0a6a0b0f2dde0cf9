"""The LPs and MIPs of the fairness checker: is there a better allocation, and where.

Every question the checker asks a solver is one program over ``x[i, e]``, the tasks of
user ``i`` on entry ``e``: entries are server classes (divisible tasks, a class pooled:
LPs decided in exact rational arithmetic, ``fairness.exact_pareto``) or individual
servers (whole tasks, which cannot straddle two servers: an integer program, CP-SAT on
integer data, ``fairness.whole_tasks``). No "no better allocation" and no
counterexample rests on a floating-point tolerance: at demands of 1e-8 to 5e-6 HiGHS
proved such claims falsely both ways (RESULTS 13.8). Each entry's capacity bounds
``sum_i x[i, e] D_i``; each user's total lies in ``[lower_i, upper_i]`` (its task cap
above). A program not decided (time limit, too large) raises ``Undecided``.

Examples
--------
>>> from allockit.instances.drfh import DRFHInstance
>>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
...     "servers": [{"capacity": [2, 2]}],
...     "users": [{"demand": [0.1, 0.1], "tasks": 5}, {"demand": [0.1, 0.1], "tasks": 5}]})
>>> gain, x = improvement(inst, np.array([5.0, 0.0]), whole=True)
>>> gain, x.sum(axis=1).tolist()
(5.0, [5.0, 5.0])
"""

from __future__ import annotations

import numpy as np

from allockit.constants import FAIRNESS_MAX_INTEGERS, FAIRNESS_SOLVE_SECONDS
from allockit.fairness.whole_tasks import CHECK
from allockit.instances.drfh import DRFHInstance

__all__ = ["Undecided", "entry_capacity", "improvement", "place_whole", "raise_one"]

#: Relative slack of the exact re-checks of a solver's answer (one value with whole_tasks).
_CHECK = CHECK


class Undecided(Exception):
    """A question the checker could not decide (a solve that did not finish, a problem
    too large); the example it belongs to is reported as an error, never as held.

    Examples
    --------
    >>> str(Undecided("the Pareto MIP reached its time limit"))
    'the Pareto MIP reached its time limit'
    """


def entry_capacity(instance: DRFHInstance, whole: bool) -> np.ndarray:
    """Capacity of each entry, ``(entries, resources)``: servers (whole) or class totals.

    Parameters
    ----------
    instance : DRFHInstance
        The servers.
    whole : bool
        True: one row per individual server (classes expanded, in class order); False:
        one row per class holding the class total (capacity x count).

    Returns
    -------
    numpy.ndarray
        The capacities in input units.

    Examples
    --------
    >>> from allockit.instances.drfh import DRFHInstance
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
    ...     "servers": [{"capacity": [2], "count": 2}], "users": [{"demand": [1]}]})
    >>> entry_capacity(inst, True).tolist(), entry_capacity(inst, False).tolist()
    ([[2.0], [2.0]], [[4.0]])
    """
    if whole:
        return np.repeat(instance.capacity, instance.count, axis=0)
    return instance.capacity * instance.count[:, None]


def _fits(instance: DRFHInstance, capacity: np.ndarray) -> np.ndarray:
    """Most tasks of each user one entry holds alone, ``(users, entries)``."""
    ratio = capacity[None, :, :] / instance.demand[:, None, :]
    return np.min(ratio, axis=2)


def _solve(
    instance: DRFHInstance,
    capacity: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    *,
    cost: np.ndarray,
    what: str,
    fixed: np.ndarray | None = None,
) -> np.ndarray | None:
    """Maximise ``cost . x`` over whole-task allocations with ``lower <= sum_e x[i, e] <= upper``.

    Decided by CP-SAT on integer data (``fairness.whole_tasks``): a tolerance must not
    decide "no allocation". ``fixed[i, e]`` (optional) pins ``x[i, e]`` (the placement
    MIP). Returns ``x`` after checking it, or None when the program is proven infeasible.
    """
    from allockit.fairness.whole_tasks import UndecidedProgram, WholeTaskProgram, solve_whole

    n, entries = instance.n_users, capacity.shape[0]
    if n * entries > FAIRNESS_MAX_INTEGERS:
        raise Undecided(
            f"{what}: {n} users x {entries} servers is more than {FAIRNESS_MAX_INTEGERS} "
            "integer variables; check with semantics 'fractional'"
        )
    col_upper = np.floor(_fits(instance, capacity) + 1e-9)
    col_upper = np.minimum(col_upper, np.where(np.isfinite(upper), upper, np.inf)[:, None])
    col_lower = np.zeros((n, entries))
    if fixed is not None:
        col_lower = np.where(np.isnan(fixed), col_lower, fixed)
        col_upper = np.where(np.isnan(fixed), col_upper, fixed)
    program = WholeTaskProgram(instance.demand, capacity, col_lower, col_upper, lower,
                               upper, cost)
    try:
        x = solve_whole(program, seconds=FAIRNESS_SOLVE_SECONDS)
    except UndecidedProgram as exc:
        raise Undecided(f"{what}: {exc}") from None
    if x is not None:
        _verify(instance, capacity, x, lower, upper, what)
    return x


def _verify(
    instance: DRFHInstance,
    capacity: np.ndarray,
    x: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    what: str,
) -> None:
    """CP-SAT's answer, re-checked on the real data to 1e-9 (else Undecided).

    Its integer data is rounded (``whole_tasks``); a restriction's answer fits exactly,
    a relaxation's only when it is used; this re-check is the last guard.
    """
    slack = _CHECK
    used = x.T @ instance.demand
    totals = x.sum(axis=1)
    if (used > capacity * (1 + slack) + slack).any():
        raise Undecided(f"{what}: the solver's allocation exceeds a capacity")
    if (totals > upper * (1 + slack) + slack).any() or (
        totals < lower - slack * np.maximum(1.0, np.abs(lower)) - slack
    ).any():
        raise Undecided(f"{what}: the solver's allocation breaks a task bound")


def improvement(
    instance: DRFHInstance,
    base: np.ndarray,
    *,
    whole: bool,
    per_class: np.ndarray | None = None,
    tolerance: np.ndarray | None = None,
) -> tuple[float, np.ndarray | None]:
    """The gain in total tasks of an allocation with every user at least at ``base``.

    Decides Pareto optimality (Wang, Li, Liang 2014, Sec. III-C): ``base`` is not
    Pareto optimal iff another allocation within capacities and task caps gives every
    user at least ``base_i`` tasks and some user more. ``whole=True`` asks for whole
    tasks on individual servers (a MIP: a user's more means one more task,
    ``x_i >= floor(base_i) + 1``; the largest gain), ``whole=False`` for divisible tasks
    on pooled classes (LPs decided in exact arithmetic, see below).

    Divisible tasks: a user's more must exceed ``tolerance[i]``, and the answer rests on
    no solver tolerance. The LPs are decided on the rationals the floats denote
    (``allockit.solver.exact_lp``, started from HiGHS's basis). With ``per_class`` (the
    mechanism's own tasks per user and class), "no user can gain more than its
    tolerance" is proven on the *relaxation* whose capacities are the larger of the
    real ones and what the mechanism's allocation uses (it may exceed them by
    rounding); an improving allocation is reported only when it fits the real
    capacities exactly. The total gain first, then each user whose tolerance the total
    exceeds on its own. An improvement that exists only in the rounding the
    mechanism's allocation took is undecided (the example becomes an error).

    Parameters
    ----------
    instance : DRFHInstance
        Servers, demands and task caps.
    base : numpy.ndarray, shape (n_users,)
        Tasks the mechanism gives each user (at most its cap).
    whole : bool
        Whole tasks per server (MIP) or divisible tasks per class (exact LPs).
    per_class : numpy.ndarray, shape (n_users, n_classes), optional
        Divisible tasks only: the mechanism's tasks per user and class, whose exact
        totals (capped) replace ``base``. Without it, ``base`` itself must fit the real
        capacities exactly, or the question is undecided.
    tolerance : numpy.ndarray, shape (n_users,), optional
        Divisible tasks only: the gain each user must exceed (default 0).

    Returns
    -------
    (float, numpy.ndarray or None)
        The gain ``sum_i x_i - sum_i base_i`` and the allocation ``x[i, e]`` that
        achieves it (per server when ``whole``, per class otherwise), or ``(0.0, None)``
        when no user can gain.

    Raises
    ------
    Undecided
        If a solver does not prove its answer (time limit, numerical trouble, an LP too
        large for exact arithmetic), the MIP would be too large, or an improvement uses
        only the mechanism's rounding.

    Examples
    --------
    The issue's false pass: user 0 holds its 5 tasks, user 1 gets none, the server is
    three quarters idle.

    >>> from allockit.instances.drfh import DRFHInstance
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"capacity": [2, 2]}],
    ...     "users": [{"demand": [0.1, 0.1], "tasks": 5}, {"demand": [0.1, 0.1], "tasks": 5}]})
    >>> improvement(inst, np.array([5.0, 0.0]), whole=False)[0]
    5.0
    >>> improvement(inst, np.array([5.0, 5.0]), whole=True)
    (0.0, None)
    """
    if not whole:
        from allockit.fairness.exact_pareto import ExactUndecided, pareto_gain

        tol = np.zeros(instance.n_users) if tolerance is None else np.asarray(tolerance)
        try:
            return pareto_gain(instance, base, per_class, tol)
        except ExactUndecided as exc:
            raise Undecided(f"the Pareto LP (divisible tasks): {exc}") from None
    capacity = entry_capacity(instance, whole)
    upper = instance.tasks.astype(float)
    lower = np.minimum(base, upper)
    lower = np.ceil(np.where(lower < 1e-12, 0.0, lower * (1 - 1e-12)) - 1e-9)
    what = "the Pareto MIP (whole tasks)"
    x = _solve(
        instance, capacity, lower, upper, cost=np.ones(instance.n_users), what=what
    )
    if x is None:  # no whole-task allocation reaches every user's base: nothing dominates
        return 0.0, None
    better = x.sum(axis=1) >= np.floor(base + 1e-9) + 1 - 1e-9
    if not better.any():
        return 0.0, None
    return float(x.sum() - base.sum()), x


def raise_one(
    instance: DRFHInstance, lower: np.ndarray, user: int
) -> np.ndarray | None:
    """A whole-task allocation with every user ``j`` at ``lower[j]`` or more, or None.

    The whole-task max-min test: ``lower[user]`` is the user's tasks plus one, and the
    others' lower bounds say how far each may be cut (see ``properties``).

    Parameters
    ----------
    instance : DRFHInstance
        Servers, demands and task caps.
    lower : numpy.ndarray, shape (n_users,)
        Whole tasks each user must get at least.
    user : int
        The user being raised (its bound is the binding one; used in messages).

    Returns
    -------
    numpy.ndarray or None
        ``x[i, s]`` whole tasks per user and individual server, or None if no
        allocation within capacities and caps meets the bounds.

    Raises
    ------
    Undecided
        If the MIP does not finish or is too large.

    Examples
    --------
    >>> from allockit.instances.drfh import DRFHInstance
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
    ...     "servers": [{"capacity": [1]}], "users": [{"demand": [0.5]}, {"demand": [0.5]}]})
    >>> raise_one(inst, np.array([1.0, 1.0]), 1).tolist()
    [[1.0], [1.0]]
    >>> raise_one(inst, np.array([2.0, 1.0]), 0) is None
    True
    """
    capacity = entry_capacity(instance, True)
    return _solve(
        instance,
        capacity,
        lower.astype(float),
        instance.tasks.astype(float),
        cost=np.ones(instance.n_users),
        what=f"the max-min MIP for user {instance.user_names[user]!r}",
    )


def place_whole(instance: DRFHInstance, per_class: np.ndarray) -> np.ndarray | None:
    """Whole tasks per user and class placed on the class's servers, or None.

    A mechanism that reports whole tasks per server class leaves open which server each
    task runs on; this finds a placement (servers of a class are identical) or proves
    that none exists (then the tasks must straddle servers: the allocation is not a
    whole-task one).

    Parameters
    ----------
    instance : DRFHInstance
        Servers and demands.
    per_class : numpy.ndarray, shape (n_users, n_classes)
        Whole tasks of each user on each class.

    Returns
    -------
    numpy.ndarray or None
        ``x[i, s]`` per individual server (classes expanded in order), or None.

    Raises
    ------
    Undecided
        If a MIP does not finish or is too large.

    Examples
    --------
    Three tasks of 0.6 do not fit on two servers of capacity 1, though the class holds
    1.8 of its 2:

    >>> from allockit.instances.drfh import DRFHInstance
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
    ...     "servers": [{"capacity": [1], "count": 2}], "users": [{"demand": [0.6]}]})
    >>> place_whole(inst, np.array([[2.0]])).tolist(), place_whole(inst, np.array([[3.0]]))
    ([[1.0, 1.0]], None)
    """
    n, k = per_class.shape
    capacity = entry_capacity(instance, True)
    class_of = np.repeat(np.arange(k), instance.count)
    fixed = np.full((n, capacity.shape[0]), np.nan)
    start = 0
    x = np.zeros((n, capacity.shape[0]))
    for c in range(k):
        stop = start + int(instance.count[c])
        if stop - start == 1:
            x[:, start] = per_class[:, c]
        else:
            pinned = fixed.copy()
            pinned[:, class_of != c] = 0.0
            placed = _solve(
                instance,
                capacity,
                per_class[:, c],
                per_class[:, c],
                cost=np.zeros(n),
                what=f"placing whole tasks on class {instance.server_names[c]!r}",
                fixed=pinned,
            )
            if placed is None:
                return None
            x[:, start:stop] = placed[:, start:stop]
        start = stop
    used = x.T @ instance.demand
    if (used > capacity * (1 + _CHECK) + _CHECK).any():
        return None
    return x
