"""The exact rational LP (``allockit.solver.exact_lp``) against vertex enumeration.

Every status and optimum is compared with an independent oracle in fractions
(``oracles.lp_by_vertices``) on small LPs, degenerate ones included (Beale's cycling
example), and started both cold and from HiGHS's basis.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.solver.exact_lp import ExactLPLimit, RationalLP, highs_basis, solve_exact
from tests.oracles import lp_by_vertices


@st.composite
def bounded_lps(draw):
    """LPs with 1-3 bounded columns, 1-3 rows, small integer or dyadic data."""
    n = draw(st.integers(1, 3))
    m = draw(st.integers(1, 3))
    value = st.sampled_from([-2, -1, -0.5, 0, 0, 0.25, 0.5, 1, 2, 3])
    cost = [draw(value) for _ in range(n)]
    matrix = [[draw(value) for _ in range(n)] for _ in range(m)]
    col_lower = [draw(st.integers(-2, 1)) for _ in range(n)]
    col_upper = [lo + draw(st.integers(0, 3)) for lo in col_lower]
    row_lower = [draw(st.one_of(st.none(), st.integers(-3, 2))) for _ in range(m)]
    row_upper = [
        draw(st.one_of(st.none(), st.integers(lo if lo is not None else -3, 4)))
        for lo in row_lower
    ]
    return cost, matrix, row_lower, row_upper, col_lower, col_upper


def _highs_basis(cost, matrix, row_lower, row_upper, col_lower, col_upper):
    return highs_basis(RationalLP.from_floats(cost, matrix, row_lower, row_upper, col_lower,
                                              col_upper))


@settings(max_examples=300, deadline=None)
@given(bounded_lps(), st.booleans())
def test_status_and_optimum_match_vertex_enumeration(data, warm):
    expected = lp_by_vertices(*data)
    basis = _highs_basis(*data) if warm else None
    solution = solve_exact(RationalLP.from_floats(*data), basis=basis)
    if expected is None:
        assert solution.status == "infeasible"
        return
    assert solution.status == "optimal"
    assert solution.objective == expected[0]
    _, matrix, row_lower, row_upper, col_lower, col_upper = data
    x = solution.x
    for j, v in enumerate(x):  # the point itself is feasible, exactly
        assert Fraction(col_lower[j]) <= v <= Fraction(col_upper[j])
    for row, lo, up in zip(matrix, row_lower, row_upper, strict=True):
        act = sum(Fraction(a) * v for a, v in zip(row, x, strict=True))
        assert (lo is None or act >= lo) and (up is None or act <= up)
    if basis is not None:
        assert solution.warm and solution.pivots == 0  # HiGHS's basis was optimal as it is


def test_beales_cycling_example_terminates_at_the_optimum():
    # Beale (1955): Dantzig's rule cycles on it; Bland's rule must not
    f = Fraction
    cost = [f(3, 4), -150, f(1, 50), -6]
    matrix = [[f(1, 4), -60, f(-1, 25), 9], [f(1, 2), -90, f(-1, 50), 3], [0, 0, 1, 0]]
    lp = RationalLP.from_floats(
        cost, matrix, [None] * 3, [0, 0, 1], [0] * 4, [None] * 4
    )
    solution = solve_exact(lp)
    assert solution.status == "optimal"
    assert solution.objective == Fraction(1, 20)
    assert solution.x == (Fraction(1, 25), 0, 1, 0)


def test_unbounded_and_free_columns():
    # max x0 - x1 with x0 - x1 free of bounds below, x1 free: unbounded along (t, 0)
    lp = RationalLP.from_floats([1, -1], [[1, -1]], [None], [None], [0, None], [None, None])
    assert solve_exact(lp).status == "unbounded"
    # a free column at its best: max -x with x >= -3 through a row, x free
    lp = RationalLP.from_floats([-1], [[1]], [-3], [None], [None], [None])
    solution = solve_exact(lp)
    assert solution.status == "optimal" and solution.x == (Fraction(-3),)


def test_the_exact_answer_where_highs_tolerance_decides():
    # one resource of 1, demand 0.5 and 1e-8: HiGHS may leave up to 1e-7 of capacity
    # (10 tasks of the small user) to its tolerance; exact: 2 - 1e-8 * 0 ... the optimum
    # fills the capacity exactly
    lp = RationalLP.from_floats([0, 1], [[0.5, 1e-8]], [None], [1.0], [2.0 - 1e-9, 0],
                                [None, None])
    solution = solve_exact(lp)
    assert solution.status == "optimal"
    assert Fraction(0.5) * solution.x[0] + Fraction(1e-8) * solution.x[1] == 1
    assert solution.x[0] == Fraction(2.0 - 1e-9)


def test_a_warm_basis_that_is_singular_or_infeasible_falls_back_to_a_cold_start():
    lp = RationalLP.from_floats([1, 1], [[1, 2], [3, 1]], [None, None], [4, 6],
                                [0, 0], [None, None])
    for basis in ([0, 0], [False] * 4), ([0, 3], [False, False, True, False]):
        solution = solve_exact(lp, basis=basis)
        assert solution.objective == Fraction(14, 5) and not solution.warm
    # feasible but not optimal (x = 0): the check refuses it, the simplex goes on from it
    solution = solve_exact(lp, basis=([2, 3], [False] * 4))
    assert solution.objective == Fraction(14, 5) and solution.warm and solution.pivots > 0


def test_an_optimal_basis_is_proven_without_a_tableau_beyond_its_size(monkeypatch):
    # 60 columns, 31 rows: a transportation-like LP; HiGHS's basis is checked exactly
    import allockit.solver.exact_lp as exact

    rng = np.random.default_rng(3)
    supply, demand = rng.integers(1, 9, size=6), rng.integers(1, 9, size=10)
    matrix = [[int(j // 10 == i) for j in range(60)] for i in range(6)]
    matrix += [[int(j % 10 == k) for j in range(60)] for k in range(10)]
    matrix += [[int(j == i * 10 + k) * int(rng.integers(1, 4)) for j in range(60)]
               for i, k in zip(range(6), range(15), strict=False)]
    data = (rng.integers(-3, 6, size=60).tolist(), matrix, [None] * 22,
            supply.tolist() + demand.tolist() + [5] * 6, [0] * 60, [None] * 60)
    basis = _highs_basis(*data)
    monkeypatch.setattr(exact, "MAX_CELLS", 10)  # no tableau may be built
    solution = solve_exact(RationalLP.from_floats(*data), basis=basis)
    assert solution.status == "optimal" and solution.pivots == 0
    with pytest.raises(ExactLPLimit, match="beyond the exact simplex's size"):
        solve_exact(RationalLP.from_floats(*data))


def test_limits_and_bad_input_are_named():
    lp = RationalLP.from_floats([1, 1], [[1, 2], [3, 1]], [None, None], [4, 6],
                                [0, 0], [None, None])
    with pytest.raises(ExactLPLimit, match="more than 0 pivots"):
        solve_exact(lp, max_pivots=0)
    with pytest.raises(ValueError, match=r"row_upper\[1\] is NaN"):
        RationalLP.from_floats([1], [[1], [1]], [0, 0], [1, float("nan")], [0], [1])
    with pytest.raises(ValueError, match=r"col_lower\[0\] is inf"):
        RationalLP.from_floats([1], [[1]], [0], [1], [float("inf")], [1])
    with pytest.raises(ValueError, match="matrix row 0 has 2 entries, expected 1"):
        RationalLP.from_floats([1], [[1, 2]], [0], [1], [0], [1])


def test_crossing_bounds_are_infeasible_and_a_foreign_basis_is_ignored():
    # a review found "optimal" for lower > upper, and a basis index of -1 read as the last
    # column (an "optimal" point that broke a row)
    assert solve_exact(RationalLP.from_floats([1], [[1]], [None], [None], [1], [0])).status \
        == "infeasible"
    assert solve_exact(RationalLP.from_floats([1], [[1]], [2], [1], [0], [5])).status \
        == "infeasible"
    lp = RationalLP.from_floats([1, 1], [[1, 2], [3, 1]], [None, None], [4, 6],
                                [0, 0], [None, None])
    for basic in ([-1, 0], [0, 9]):
        solution = solve_exact(lp, basis=(basic, [False] * 4))
        assert solution.objective == Fraction(14, 5) and not solution.warm
