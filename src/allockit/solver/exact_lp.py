"""Small linear programs decided in exact rational arithmetic, not up to a tolerance.

A floating-point LP solver's "optimal" holds up to its tolerances (HiGHS: 1e-7 on
bounds and reduced costs). Where a verdict must rest on the data as given (the fairness
checker's "no better allocation", RESULTS 13.8), the LP is decided here on the rationals
the floats denote, with a bounded-variable primal simplex in ``fractions.Fraction``:
two phases (artificial variables on the rows the start leaves out of bounds), Bland's
rule (no cycling), started from a basis a floating-point solver found when that basis
is feasible (HiGHS's final basis is usually optimal: no pivot is then needed, only the
exact check of its values and reduced costs).

The program: maximise ``cost @ x`` subject to ``row_lower <= A x <= row_upper`` and
``col_lower <= x <= col_upper``, a bound of None being infinite.

Examples
--------
>>> lp = RationalLP.from_floats([1, 1], [[1, 2], [3, 1]], [None, None], [4, 6],
...                             [0, 0], [None, None])
>>> sol = solve_exact(lp)
>>> sol.status, sol.objective, sol.x
('optimal', Fraction(14, 5), (Fraction(8, 5), Fraction(6, 5)))
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["ExactLPLimit", "ExactSolution", "RationalLP", "highs_basis", "solve_exact"]

Bound = Fraction | None

#: Largest tableau (rows x columns) decided; larger programs raise ExactLPLimit.
MAX_CELLS = 250_000


class ExactLPLimit(Exception):
    """The exact simplex stopped before deciding: too large, too many pivots, or late.

    Examples
    --------
    >>> str(ExactLPLimit("more than 10 pivots"))
    'more than 10 pivots'
    """


def _exact(value: float | int | Fraction | None, field: str, where: int) -> Bound:
    if value is None or isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{field}[{where}] is NaN")
    if math.isinf(value):
        return None
    return Fraction(value)


def _bounds(values: Sequence, field: str, size: int, sign: int) -> tuple[Bound, ...]:
    if len(values) != size:
        raise ValueError(f"{field} has {len(values)} entries, expected {size}")
    out = tuple(_exact(v, field, k) for k, v in enumerate(values))
    for k, (raw, v) in enumerate(zip(values, out, strict=True)):
        if v is None and raw is not None and float(raw) * sign < 0:
            raise ValueError(f"{field}[{k}] is {raw!r}: a bound infinite on the wrong side")
    return out


@dataclass(frozen=True, slots=True)
class RationalLP:
    """Maximise ``cost @ x`` over ``row_lower <= A x <= row_upper`` and the column bounds.

    Attributes
    ----------
    cost : tuple of Fraction
        One per column.
    rows : tuple of tuple of Fraction
        The dense matrix ``A``, one tuple per row.
    row_lower, row_upper, col_lower, col_upper : tuple of Fraction or None
        Bounds; None is infinite (minus infinity below, plus infinity above).

    Examples
    --------
    >>> lp = RationalLP.from_floats([1.0], [[0.1]], [None], [1.0], [0.0], [None])
    >>> lp.rows[0][0] == Fraction(0.1), lp.row_upper
    (True, (Fraction(1, 1),))
    """

    cost: tuple[Fraction, ...]
    rows: tuple[tuple[Fraction, ...], ...]
    row_lower: tuple[Bound, ...]
    row_upper: tuple[Bound, ...]
    col_lower: tuple[Bound, ...]
    col_upper: tuple[Bound, ...]

    @classmethod
    def from_floats(
        cls,
        cost: Sequence,
        matrix: Sequence[Sequence],
        row_lower: Sequence,
        row_upper: Sequence,
        col_lower: Sequence,
        col_upper: Sequence,
    ) -> RationalLP:
        """The program on the exact values of floats (or ints, Fractions); inf/None: no bound.

        Parameters
        ----------
        cost : sequence of numbers
            The objective, maximised.
        matrix : sequence of sequences
            ``A`` row by row.
        row_lower, row_upper, col_lower, col_upper : sequences of numbers or None
            Bounds; None or an infinity of the right sign for none.

        Returns
        -------
        RationalLP

        Raises
        ------
        ValueError
            If a value is NaN or infinite in ``A`` or the cost, a bound is infinite on the
            wrong side, or the lengths do not match (the message names the field).

        Examples
        --------
        >>> RationalLP.from_floats([1], [[1]], [float("-inf")], [2], [0], [None]).row_lower
        (None,)
        """
        n = len(cost)
        c = _bounds(cost, "cost", n, 0)
        rows = []
        for r, row in enumerate(matrix):
            exact = _bounds(row, f"matrix row {r}", n, 0)
            if any(v is None for v in exact):
                raise ValueError(f"matrix row {r} has an infinite entry")
            rows.append(exact)
        if any(v is None for v in c):
            raise ValueError("cost has an infinite entry")
        m = len(rows)
        return cls(
            c,
            tuple(rows),
            _bounds(row_lower, "row_lower", m, -1),
            _bounds(row_upper, "row_upper", m, 1),
            _bounds(col_lower, "col_lower", n, -1),
            _bounds(col_upper, "col_upper", n, 1),
        )


@dataclass(frozen=True, slots=True)
class ExactSolution:
    """An exact answer: status, optimal point and value (when optimal), work done.

    Attributes
    ----------
    status : {"optimal", "infeasible", "unbounded"}
        Proven on the rational data.
    x : tuple of Fraction or None
        An optimal point (optimal only).
    objective : Fraction or None
        Its value (optimal only).
    pivots : int
        Simplex pivots after the start (0: the given basis was optimal as it was).
    warm : bool
        True when the simplex started from the given basis.

    Examples
    --------
    >>> lp = RationalLP.from_floats([1], [[1]], [2], [None], [0], [1])
    >>> solve_exact(lp).status
    'infeasible'
    """

    status: str
    x: tuple[Fraction, ...] | None
    objective: Fraction | None
    pivots: int
    warm: bool


def _resting(lower: Bound, upper: Bound, at_upper: bool) -> Fraction:
    """Where a nonbasic variable rests: its upper bound if asked and finite, else its
    lower bound, else its upper bound, else 0 (a free variable)."""
    if at_upper and upper is not None:
        return upper
    if lower is not None:
        return lower
    return upper if upper is not None else Fraction(0)


class _Simplex:
    """The dense tableau ``B^-1 [A | -I | artificials]`` of ``A x - s = 0`` and its values."""

    def __init__(self, lp: RationalLP, max_pivots: int, stop_at: float | None) -> None:
        self.n, self.m = len(lp.cost), len(lp.rows)
        self.lower = list(lp.col_lower) + list(lp.row_lower)
        self.upper = list(lp.col_upper) + list(lp.row_upper)
        self.rows = lp.rows
        self.pivots, self.max_pivots, self.stop_at = 0, max_pivots, stop_at
        n, m = self.n, self.m
        one, zero = Fraction(1), Fraction(0)
        # logical basis: B = -I, so the tableau is [-A | I]
        self.table = [
            [-v for v in lp.rows[r]] + [one if k == r else zero for k in range(m)]
            for r in range(m)
        ]
        self.basic = list(range(n, n + m))
        self.value: list[Fraction] = [zero] * (n + m)

    # ------------------------------------------------------------------ basics
    def pivot(self, r: int, j: int) -> None:
        table = self.table
        row = table[r]
        p = row[j]
        row = [v / p for v in row]
        table[r] = row
        for k, other in enumerate(table):
            f = other[j]
            if k != r and f:
                table[k] = [a - f * b for a, b in zip(other, row, strict=True)]
        self.basic[r] = j

    def _resting(self, j: int, at_upper: bool = False) -> Fraction:
        return _resting(self.lower[j], self.upper[j], at_upper)

    def _basic_values(self) -> None:
        inbasis = set(self.basic)
        for r, b in enumerate(self.basic):
            row = self.table[r]
            self.value[b] = -sum(
                (row[j] * self.value[j] for j in range(len(row))
                 if j not in inbasis and row[j] and self.value[j]),
                Fraction(0),
            )

    def _feasible(self) -> bool:
        return all(
            (lo is None or v >= lo) and (up is None or v <= up)
            for v, lo, up in zip(self.value, self.lower, self.upper, strict=True)
        )

    # ------------------------------------------------------------------ starts
    def start_from(self, basic_columns: Sequence[int], at_upper: Sequence[bool]) -> bool:
        """Pivot the given basis in; False when it is singular, incomplete or infeasible."""
        n, m = self.n, self.m
        if len(basic_columns) != m or len(set(basic_columns)) != m:
            return False
        wanted = set(basic_columns)
        for j in basic_columns:
            if j in self.basic:
                continue
            row = next(
                (r for r, b in enumerate(self.basic)
                 if b not in wanted and self.table[r][j] != 0),
                None,
            )
            if row is None:
                return False
            self.pivot(row, j)
        for j in range(n + m):
            if j not in wanted:
                self.value[j] = self._resting(j, at_upper[j])
        self._basic_values()
        return self._feasible()

    def start_cold(self) -> bool:
        """Logical basis; artificials on the rows out of bounds. True if none was needed."""
        n, m = self.n, self.m  # __init__ left the logical basis's tableau
        self.value = [self._resting(j) for j in range(n)] + [Fraction(0)] * m
        self._basic_values()
        bad = []
        for r in range(m):
            s = n + r
            v, lo, up = self.value[s], self.lower[s], self.upper[s]
            if lo is not None and v < lo:
                bad.append((r, lo))
            elif up is not None and v > up:
                bad.append((r, up))
        if not bad:
            return True
        # a x - s + sign * t = 0 with t >= 0 basic: t = |bound - a x|, s rests at the bound
        for row in self.table:
            row.extend([Fraction(0)] * len(bad))
        self.lower += [Fraction(0)] * len(bad)
        self.upper += [None] * len(bad)
        self.value += [Fraction(0)] * len(bad)
        for a, (r, bound) in enumerate(bad):
            s, t = n + r, n + m + a
            gap = bound - self.value[s]
            sign = Fraction(1 if gap > 0 else -1)
            # in the logical basis row r reads s - a x = 0; the artificial enters it as
            # -sign * t (the row is -(a x - s + sign t))
            self.table[r][t] = -sign
            self.value[s] = bound
            self.value[t] = abs(gap)
            self.pivot(r, t)
        return False

    # ------------------------------------------------------------------ iterations
    def run(self, cost: Sequence[Fraction]) -> str:
        """Primal simplex with Bland's rule: "optimal" or "unbounded"."""
        width = len(self.value)
        while True:
            inbasis = set(self.basic)
            weights = [(r, cost[b]) for r, b in enumerate(self.basic) if cost[b]]
            entering, direction = None, 0
            for j in range(width):
                if j in inbasis:
                    continue
                lo, up, v = self.lower[j], self.upper[j], self.value[j]
                if lo is not None and up is not None and lo == up:
                    continue
                d = cost[j] - sum((w * self.table[r][j] for r, w in weights), Fraction(0))
                if d > 0 and (up is None or v < up):
                    entering, direction = j, 1
                    break
                if d < 0 and (lo is None or v > lo):
                    entering, direction = j, -1
                    break
            if entering is None:
                return "optimal"
            if not self._step(entering, direction):
                return "unbounded"

    def _step(self, j: int, direction: int) -> bool:
        self.pivots += 1
        if self.pivots > self.max_pivots:
            raise ExactLPLimit(f"more than {self.max_pivots} pivots")
        if self.stop_at is not None and time.perf_counter() > self.stop_at:
            raise ExactLPLimit("the time limit passed")
        best: tuple[Fraction, int, int] | None = None  # (step, variable, row or -1)
        own = self.upper[j] if direction > 0 else self.lower[j]
        if own is not None:
            best = (abs(own - self.value[j]), j, -1)
        for r, b in enumerate(self.basic):
            rate = -direction * self.table[r][j]
            if rate > 0 and self.upper[b] is not None:
                limit = (self.upper[b] - self.value[b]) / rate
            elif rate < 0 and self.lower[b] is not None:
                limit = (self.lower[b] - self.value[b]) / rate
            else:
                continue
            if best is None or (limit, b) < (best[0], best[1]):
                best = (limit, b, r)
        if best is None:
            return False
        step, _, row = best
        if step:
            self.value[j] += direction * step
            for r, b in enumerate(self.basic):
                t = self.table[r][j]
                if t:
                    self.value[b] -= direction * step * t
        if row >= 0:
            leaving = self.basic[row]
            rate = -direction * self.table[row][j]
            self.value[leaving] = self.upper[leaving] if rate > 0 else self.lower[leaving]
            self.pivot(row, j)
        return True

    def drop_artificials(self) -> None:
        """After phase 1 at zero: pivot basic artificials out (or fix them), fix the rest."""
        first = self.n + self.m
        for r, b in enumerate(self.basic):
            if b < first:
                continue
            j = next((k for k in range(first) if k not in self.basic and self.table[r][k]),
                     None)
            if j is not None:
                self.pivot(r, j)  # degenerate: the artificial is 0
        for a in range(first, len(self.value)):
            self.lower[a] = self.upper[a] = Fraction(0)


def _sparse_solve(
    rows: list[dict[int, Fraction]], rhs: list[Fraction], size: int
) -> list[Fraction] | None:
    """Solve a square sparse system exactly (Gauss-Jordan); None when it is singular."""
    rows = [dict(r) for r in rows]
    rhs = list(rhs)
    where: dict[int, int] = {}  # column -> its pivot row
    for col in range(size):
        pivot = next((i for i in range(size) if i not in where.values() and rows[i].get(col)),
                     None)
        if pivot is None:
            return None
        where[col] = pivot
        prow, pval = rows[pivot], rows[pivot][col]
        for i in range(size):
            f = rows[i].get(col) if i != pivot else None
            if not f:
                continue
            f = f / pval
            target = rows[i]
            for j, v in prow.items():
                w = target.get(j, 0) - f * v
                if w:
                    target[j] = w
                else:
                    target.pop(j, None)
            rhs[i] -= f * rhs[pivot]
    return [rhs[where[col]] / rows[where[col]][col] for col in range(size)]


def _verify_basis(
    lp: RationalLP, basic: Sequence[int], at_upper: Sequence[bool]
) -> ExactSolution | None:
    """The basis's point and reduced costs computed exactly: optimal, or None.

    Only the tight rows (those whose row activity is nonbasic) and the basic columns
    enter a linear system, solved twice (the point, the duals): a basis HiGHS found is
    checked without a tableau.
    """
    n, m = len(lp.cost), len(lp.rows)
    if len(basic) != m or len(set(basic)) != m or len(at_upper) != n + m:
        return None
    lower = list(lp.col_lower) + list(lp.row_lower)
    upper = list(lp.col_upper) + list(lp.row_upper)
    inbasis = set(basic)

    def resting(j: int) -> Fraction:
        return _resting(lower[j], upper[j], at_upper[j])

    columns = sorted(j for j in basic if j < n)
    tight = [r for r in range(m) if n + r not in inbasis]
    if len(tight) != len(columns):
        return None
    x = [Fraction(0) if j in inbasis else resting(j) for j in range(n)]
    position = {j: k for k, j in enumerate(columns)}
    system, rhs = [], []
    for r in tight:
        row = lp.rows[r]
        system.append({position[j]: v for j, v in enumerate(row) if v and j in position})
        rhs.append(resting(n + r) - sum((v * x[j] for j, v in enumerate(row)
                                         if v and j not in position), Fraction(0)))
    solved = _sparse_solve(system, rhs, len(columns))
    if solved is None:
        return None
    for j, v in zip(columns, solved, strict=True):
        x[j] = v
    activity = [sum((v * x[j] for j, v in enumerate(row) if v), Fraction(0))
                for row in lp.rows]
    values = x + activity
    if any((lower[j] is not None and values[j] < lower[j])
           or (upper[j] is not None and values[j] > upper[j]) for j in range(n + m)):
        return None
    transposed: list[dict[int, Fraction]] = [{} for _ in columns]
    for k, row in enumerate(system):
        for j, v in row.items():
            transposed[j][k] = v
    duals = _sparse_solve(transposed, [lp.cost[j] for j in columns], len(columns))
    if duals is None:
        return None
    y = dict(zip(tight, duals, strict=True))
    for j in range(n + m):
        if j in inbasis:
            continue
        if j < n:
            d = lp.cost[j] - sum((y[r] * lp.rows[r][j] for r in tight if lp.rows[r][j]),
                                 Fraction(0))
        else:
            d = y[j - n]  # the row activity's column is -e_r
        can_rise = upper[j] is None or values[j] < upper[j]
        can_fall = lower[j] is None or values[j] > lower[j]
        if (can_rise and d > 0) or (can_fall and d < 0):
            return None
    point = tuple(x)
    objective = sum((c * v for c, v in zip(lp.cost, point, strict=True)), Fraction(0))
    return ExactSolution("optimal", point, objective, 0, True)


def highs_basis(
    lp: RationalLP, *, seconds: float | None = None
) -> tuple[list[int], list[bool]] | None:
    """HiGHS's final basis of the float copy of ``lp``: a start for ``solve_exact``.

    Parameters
    ----------
    lp : RationalLP
        The program (its values rounded to floats for HiGHS).
    seconds : float, optional
        HiGHS's time limit.

    Returns
    -------
    (list of int, list of bool) or None
        The basic variables and, per variable, whether it rests at its upper bound, in
        ``solve_exact``'s ``basis`` form; None unless HiGHS ends optimal.

    Examples
    --------
    >>> lp = RationalLP.from_floats([1, 1], [[1, 2], [3, 1]], [None, None], [4, 6],
    ...                             [0, 0], [None, None])
    >>> highs_basis(lp)
    ([0, 1], [False, False, True, True])
    """
    import highspy

    def floats(values: tuple, infinite: float) -> np.ndarray:
        return np.array([infinite if v is None else float(v) for v in values])

    n, m = len(lp.cost), len(lp.rows)
    model = highspy.HighsLp()
    model.num_col_, model.num_row_ = n, m
    model.col_cost_ = floats(lp.cost, 0.0)
    model.col_lower_ = floats(lp.col_lower, -highspy.kHighsInf)
    model.col_upper_ = floats(lp.col_upper, highspy.kHighsInf)
    model.row_lower_ = floats(lp.row_lower, -highspy.kHighsInf)
    model.row_upper_ = floats(lp.row_upper, highspy.kHighsInf)
    starts, index, value = [0], [], []
    for row in lp.rows:
        for j, v in enumerate(row):
            if v:
                index.append(j)
                value.append(float(v))
        starts.append(len(index))
    model.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    model.a_matrix_.start_ = np.array(starts, dtype=np.int32)
    model.a_matrix_.index_ = np.array(index, dtype=np.int32)
    model.a_matrix_.value_ = np.array(value, dtype=float)
    model.sense_ = highspy.ObjSense.kMaximize
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    if seconds is not None:
        h.setOptionValue("time_limit", float(seconds))
    h.passModel(model)
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    basis = h.getBasis()
    status = list(basis.col_status) + list(basis.row_status)
    kinds = highspy.HighsBasisStatus
    return ([j for j, s in enumerate(status) if s == kinds.kBasic],
            [s == kinds.kUpper for s in status])


def solve_exact(
    lp: RationalLP,
    *,
    basis: tuple[Sequence[int], Sequence[bool]] | None = None,
    max_pivots: int = 20_000,
    seconds: float | None = None,
) -> ExactSolution:
    """Decide ``lp`` exactly: optimal (with a point), infeasible or unbounded.

    Parameters
    ----------
    lp : RationalLP
        The program.
    basis : (sequence of int, sequence of bool), optional
        A starting basis: the basic variables (columns ``0..n-1``, then row activities
        ``n..n+m-1``, ``m`` of them) and, for every variable, whether it rests at its
        upper bound when nonbasic. When its point and reduced costs, computed exactly,
        prove it optimal, that is the answer (no tableau is built, whatever the size);
        else the simplex starts from it if it is nonsingular and feasible, or from the
        logical basis.
    max_pivots : int
        Pivots allowed after the start.
    seconds : float, optional
        Wall-clock limit.

    Returns
    -------
    ExactSolution

    Raises
    ------
    ExactLPLimit
        If the simplex is needed and its tableau would have more than ``MAX_CELLS``
        cells, or the pivots or the time run out before the program is decided.

    Examples
    --------
    A basis handed in that is already optimal needs no pivot:

    >>> lp = RationalLP.from_floats([1, 1], [[1, 2], [3, 1]], [None, None], [4, 6],
    ...                             [0, 0], [None, None])
    >>> sol = solve_exact(lp, basis=([0, 1], [False] * 4))
    >>> sol.objective, sol.pivots, sol.warm
    (Fraction(14, 5), 0, True)
    """
    n, m = len(lp.cost), len(lp.rows)
    for lows, ups in ((lp.col_lower, lp.col_upper), (lp.row_lower, lp.row_upper)):
        if any(lo is not None and up is not None and lo > up
               for lo, up in zip(lows, ups, strict=True)):
            return ExactSolution("infeasible", None, None, 0, False)  # a bound crosses
    if basis is not None and not all(0 <= j < n + m for j in basis[0]):
        basis = None  # not a basis of this program: start cold
    if basis is not None:
        proved = _verify_basis(lp, *basis)
        if proved is not None:
            return proved
    if m * (n + 2 * m) > MAX_CELLS:
        raise ExactLPLimit(f"{m} rows x {n} columns is beyond the exact simplex's size")
    stop_at = None if seconds is None else time.perf_counter() + seconds
    simplex = _Simplex(lp, max_pivots, stop_at)
    cost = list(lp.cost) + [Fraction(0)] * m
    warm = basis is not None and len(basis[1]) == n + m and simplex.start_from(*basis)
    if not warm:
        simplex = _Simplex(lp, max_pivots, stop_at)
        if not simplex.start_cold():
            extra = len(simplex.value) - n - m
            phase_one = [Fraction(0)] * (n + m) + [Fraction(-1)] * extra
            simplex.run(phase_one)
            if any(simplex.value[n + m:]):
                return ExactSolution("infeasible", None, None, simplex.pivots, False)
            simplex.drop_artificials()
            cost += [Fraction(0)] * extra
    if simplex.run(cost) == "unbounded":
        return ExactSolution("unbounded", None, None, simplex.pivots, warm)
    x = tuple(simplex.value[:n])
    objective = sum((c * v for c, v in zip(lp.cost, x, strict=True)), Fraction(0))
    return ExactSolution("optimal", x, objective, simplex.pivots, warm)
