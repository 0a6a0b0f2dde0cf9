"""The checker's Pareto question for divisible tasks, decided in exact rational arithmetic.

Can another allocation, within the capacities and task caps, give every user at least
its tasks and some user more than its tolerance? HiGHS answers such LPs up to 1e-7 on
each row, and a user whose demand is 1e-8 gains 10 tasks from 1e-7 of capacity: on such
data it reported improvements of Pareto-optimal allocations that do not exist (RESULTS
13.8). Here every LP is decided by ``allockit.solver.exact_lp`` on the exact values of
the floats, started from HiGHS's basis (so a typical check needs no exact pivot).

Two sets of capacities (per class and resource):

- the *relaxation*: the larger of the real capacity and what the mechanism's own
  allocation uses (a mechanism's floats may exceed a capacity by rounding); its own
  allocation then fits exactly, and "no user gains more than its tolerance" here holds
  on the real capacities too;
- the *real* capacities: an improving allocation is reported only when it fits them
  exactly.

Examples
--------
>>> import numpy as np
>>> from allockit.instances.drfh import DRFHInstance
>>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
...     "servers": [{"capacity": [1]}], "users": [{"demand": [0.3]}, {"demand": [0.2]}]})
>>> gain, x = pareto_gain(inst, np.array([1.0, 2.0]), None, np.zeros(2))
>>> round(gain, 12), x.round(12).tolist()
(1.5, [[1.0], [3.5]])
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from allockit.constants import FAIRNESS_SOLVE_SECONDS
from allockit.instances.drfh import DRFHInstance
from allockit.solver.exact_lp import (
    ExactLPLimit,
    ExactSolution,
    RationalLP,
    highs_basis,
    solve_exact,
)

__all__ = ["ExactUndecided", "pareto_gain"]

Matrix = list[list[Fraction]]

#: Largest dense matrix (users x classes columns, times rows) decided in fractions.
MAX_CELLS = 5_000_000


class ExactUndecided(Exception):
    """The exact LPs did not settle the question (too large, too slow, or only rounding).

    Examples
    --------
    >>> str(ExactUndecided("more than 20000 pivots"))
    'more than 20000 pivots'
    """


class _Programs:
    """The LPs over ``x[i, c]`` (row-major columns) of one instance and one base."""

    def __init__(self, instance: DRFHInstance, lower: list[Fraction]) -> None:
        self.n, self.k = instance.n_users, instance.n_classes
        self.demand = [[Fraction(float(v)) for v in row] for row in instance.demand]
        self.caps = [Fraction(float(t)) if np.isfinite(t) else None for t in instance.tasks]
        self.lower = lower

    def solve(self, capacity: Matrix, cost: list[int]) -> ExactSolution:
        """Maximise ``sum_i cost[i] * total_i`` within ``capacity``; exact."""
        n, k, m = self.n, self.k, len(self.demand[0])
        rows: list[list[Fraction]] = []
        zero = Fraction(0)
        for c in range(k):
            for r in range(m):
                row = [zero] * (n * k)
                for i in range(n):
                    row[i * k + c] = self.demand[i][r]
                rows.append(row)
        for i in range(n):
            row = [zero] * (n * k)
            row[i * k:(i + 1) * k] = [Fraction(1)] * k
            rows.append(row)
        lp = RationalLP(
            tuple(Fraction(cost[i]) for i in range(n) for _ in range(k)),
            tuple(tuple(row) for row in rows),
            tuple([None] * (k * m) + self.lower),
            tuple([capacity[c][r] for c in range(k) for r in range(m)] + self.caps),
            tuple([zero] * (n * k)),
            tuple([None] * (n * k)),
        )
        try:
            return solve_exact(lp, basis=highs_basis(lp, seconds=FAIRNESS_SOLVE_SECONDS),
                               seconds=FAIRNESS_SOLVE_SECONDS)
        except ExactLPLimit as exc:
            raise ExactUndecided(str(exc)) from None

    def totals(self, x: tuple[Fraction, ...]) -> list[Fraction]:
        k = self.k
        return [sum(x[i * k:(i + 1) * k], Fraction(0)) for i in range(self.n)]

    def fits(self, x: tuple[Fraction, ...], capacity: Matrix) -> bool:
        k = self.k
        return all(
            sum((x[i * k + c] * self.demand[i][r] for i in range(self.n)), Fraction(0))
            <= capacity[c][r]
            for c in range(k)
            for r in range(len(self.demand[0]))
        )


def _start(
    per_class: np.ndarray, caps: list[Fraction | None]
) -> Matrix:
    """The mechanism's tasks per user and class, exactly, scaled down to each cap."""
    start = [[Fraction(float(v)) for v in row] for row in per_class]
    for i, row in enumerate(start):
        total = sum(row, Fraction(0))
        cap = caps[i]
        if cap is not None and total > cap:
            start[i] = [v * cap / total for v in row]
    return start


def _overshoot(instance: DRFHInstance, real: Matrix, relaxed: Matrix) -> str:
    """Where the mechanism's allocation exceeds a real capacity the most."""
    _, c, r = max(
        (relaxed[c][r] - real[c][r], c, r) for c in range(len(real)) for r in range(len(real[c]))
    )
    return (f"{float(relaxed[c][r] - real[c][r]):.2g} of {instance.resources[r]!r} on "
            f"class {instance.server_names[c]!r}")


def pareto_gain(
    instance: DRFHInstance,
    base: np.ndarray,
    per_class: np.ndarray | None,
    tolerance: np.ndarray,
) -> tuple[float, np.ndarray | None]:
    """An allocation giving no user less and some user more than its tolerance, or none.

    Parameters
    ----------
    instance : DRFHInstance
        Servers, demands and task caps.
    base : numpy.ndarray, shape (n_users,)
        Each user's tasks; used when ``per_class`` is None (and must then fit exactly).
    per_class : numpy.ndarray, shape (n_users, n_classes), or None
        The mechanism's tasks per user and class; their exact capped totals are the base.
    tolerance : numpy.ndarray, shape (n_users,)
        The gain each user must exceed.

    Returns
    -------
    (float, numpy.ndarray or None)
        The total gain of the improving allocation and the allocation ``x[i, c]`` (it
        fits the real capacities exactly; shown as floats), or ``(0.0, None)``.

    Raises
    ------
    ExactUndecided
        If an LP is too large (``MAX_CELLS``) or slow for exact arithmetic, ``base``
        does not fit the capacities exactly (without ``per_class``), or the only
        improvements found use capacity the mechanism's allocation exceeds by rounding.

    Examples
    --------
    A gain of 1e-9 tasks is within a tolerance of 1e-6:

    >>> from allockit.instances.drfh import DRFHInstance
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
    ...     "servers": [{"capacity": [1]}], "users": [{"demand": [0.5]}]})
    >>> pareto_gain(inst, np.array([2 - 1e-9]), None, np.array([1e-6]))
    (0.0, None)
    """
    n, k = instance.n_users, instance.n_classes
    cells = n * k * (k * len(instance.resources) + n)
    if cells > MAX_CELLS:
        raise ExactUndecided(
            f"{n} users x {k} server classes is too large for the exact LP ({cells:,} matrix "
            f"cells, at most {MAX_CELLS:,}); check fewer users or classes"
        )
    real = [
        [Fraction(float(c)) * int(count) for c in row]
        for row, count in zip(instance.capacity, instance.count, strict=True)
    ]
    caps = [Fraction(float(t)) if np.isfinite(t) else None for t in instance.tasks]
    if per_class is None:
        lower = [Fraction(float(min(b, t))) for b, t in zip(base, instance.tasks, strict=True)]
        relaxed = real
    else:
        start = _start(np.asarray(per_class, dtype=float), caps)
        lower = [sum(row, Fraction(0)) for row in start]
        relaxed = [
            [max(real[c][r], sum((start[i][c] * Fraction(float(instance.demand[i, r]))
                                  for i in range(n)), Fraction(0)))
             for r in range(len(instance.resources))]
            for c in range(k)
        ]
    programs = _Programs(instance, lower)
    tol = [Fraction(float(t)) for t in tolerance]

    def gains(solution: ExactSolution) -> list[Fraction]:
        assert solution.x is not None
        return [t - b for t, b in zip(programs.totals(solution.x), lower, strict=True)]

    def witness(solution: ExactSolution) -> tuple[float, np.ndarray]:
        assert solution.x is not None
        x = np.array([float(v) for v in solution.x]).reshape(n, k)
        return float(sum(gains(solution), Fraction(0))), x

    total = programs.solve(relaxed, [1] * n)
    if total.status != "optimal":
        raise ExactUndecided(
            "the base allocation does not fit the capacities exactly"
            if total.status == "infeasible" else f"the LP is {total.status}"
        )
    most = sum(gains(total), Fraction(0))
    if all(most <= t for t in tol):
        return 0.0, None
    if programs.fits(total.x, real) and any(g > t for g, t in zip(gains(total), tol, strict=True)):
        return witness(total)
    for i in range(n):
        if most <= tol[i]:
            continue
        alone = programs.solve(relaxed, [int(u == i) for u in range(n)])
        if alone.status != "optimal" or gains(alone)[i] <= tol[i]:
            continue
        if programs.fits(alone.x, real):
            return witness(alone)
        strict = programs.solve(real, [int(u == i) for u in range(n)])
        if strict.status == "optimal" and gains(strict)[i] > tol[i]:
            return witness(strict)
        raise ExactUndecided(
            f"user {instance.user_names[i]!r} gains {float(gains(alone)[i]):.3g} tasks if "
            f"the mechanism's allocation keeps what it takes beyond a capacity by rounding "
            f"({_overshoot(instance, real, relaxed)}), and none within the real capacities: "
            "the verdict rests on that rounding"
        )
    return 0.0, None
