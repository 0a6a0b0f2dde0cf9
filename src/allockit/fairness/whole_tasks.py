"""The checker's whole-task programs decided on integer data (CP-SAT), never on a tolerance.

A floating-point MIP solver decides "no allocation gives more" up to its feasibility
tolerance, and near it (demands of 1e-8 to 5e-6 beside capacities filled exactly) HiGHS
1.12 proved such claims falsely: a false "held" (RESULTS 13.8). Here every whole-task
program is solved twice at most by CP-SAT, whose arithmetic is exact on integers:

- the *relaxation*: demands scaled and rounded down, capacities rounded up. Every
  allocation of the real data is one of it, so "infeasible" is a proof, and so is its
  optimum as an upper bound;
- if the relaxation's answer breaks a real capacity, the *restriction*: demands rounded
  up, capacities down. Every allocation of it is one of the real data; when its optimum
  meets the relaxation's, it is the real optimum. Otherwise the question is undecided.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["SCALE", "UndecidedProgram", "WholeTaskProgram", "solve_whole"]

#: Each resource's largest capacity becomes this many integer units.
SCALE = 10**8
#: Relative slack of the exact re-check of an answer against the real capacities.
CHECK = 1e-9


class UndecidedProgram(Exception):
    """CP-SAT did not settle the program (time limit, or rounding left it open).

    Examples
    --------
    >>> str(UndecidedProgram("CP-SAT ended with status UNKNOWN"))
    'CP-SAT ended with status UNKNOWN'
    """


@dataclass(frozen=True, slots=True)
class WholeTaskProgram:
    """Maximise the users' weighted task totals over whole-task allocations ``x[i, e]``.

    Attributes
    ----------
    demand : numpy.ndarray, shape (users, resources)
        Each user's demand per task.
    capacity : numpy.ndarray, shape (entries, resources)
        Each server's capacity.
    col_lower, col_upper : numpy.ndarray, shape (users, entries)
        Bounds of each ``x[i, e]`` (integers).
    lower, upper : numpy.ndarray, shape (users,)
        Bounds of each user's total (``upper`` may be infinite).
    cost : numpy.ndarray, shape (users,)
        Integer weights of the users' totals (ones, or zeros for a feasibility question).

    Examples
    --------
    >>> p = WholeTaskProgram(np.array([[0.5]]), np.array([[1.0]]), np.zeros((1, 1)),
    ...                      np.array([[4.0]]), np.array([0.0]), np.array([4.0]),
    ...                      np.array([1.0]))
    >>> solve_whole(p, seconds=10).tolist()
    [[2.0]]
    """

    demand: np.ndarray
    capacity: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    cost: np.ndarray


def _scales(program: WholeTaskProgram) -> np.ndarray:
    biggest = np.maximum(program.capacity.max(axis=0), program.demand.max(axis=0))
    return SCALE / np.where(biggest > 0, biggest, 1.0)


def _solve_rounded(
    program: WholeTaskProgram, relax: bool, seconds: float
) -> tuple[np.ndarray, int] | None:
    """``(x, objective)`` of the rounded program, or None if it is infeasible."""
    from ortools.sat.python import cp_model

    scale = _scales(program)
    down, up = (math.floor, math.ceil) if relax else (math.ceil, math.floor)
    demand = [[down(d * s) for d, s in zip(row, scale, strict=True)]
              for row in program.demand.tolist()]
    capacity = [[up(c * s) for c, s in zip(row, scale, strict=True)]
                for row in program.capacity.tolist()]
    n, entries = program.col_lower.shape
    model = cp_model.CpModel()
    x = [[model.new_int_var(int(program.col_lower[i, e]), int(program.col_upper[i, e]),
                            f"x{i}_{e}") for e in range(entries)] for i in range(n)]
    for e in range(entries):
        for r, cap in enumerate(capacity[e]):
            model.add(sum(demand[i][r] * x[i][e] for i in range(n)) <= cap)
    for i in range(n):
        total = sum(x[i])
        model.add(total >= math.ceil(program.lower[i] - 1e-9))
        if math.isfinite(program.upper[i]):
            model.add(total <= math.floor(program.upper[i] + 1e-9))
    model.maximize(sum(int(program.cost[i]) * x[i][e] for i in range(n) for e in range(entries)))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = seconds
    code = solver.solve(model)
    if code == cp_model.INFEASIBLE:
        return None
    if code != cp_model.OPTIMAL:
        raise UndecidedProgram(f"CP-SAT ended with status {solver.status_name(code)}")
    values = np.array([[solver.value(v) for v in row] for row in x], dtype=float)
    return values, round(solver.objective_value)


def _fits_real_data(program: WholeTaskProgram, x: np.ndarray) -> bool:
    used = x.T @ program.demand
    return bool((used <= program.capacity * (1 + CHECK) + CHECK).all())


def solve_whole(program: WholeTaskProgram, *, seconds: float) -> np.ndarray | None:
    """The optimal whole-task allocation of ``program``, or None when none exists.

    Parameters
    ----------
    program : WholeTaskProgram
        The program.
    seconds : float
        CP-SAT's time limit per solve.

    Returns
    -------
    numpy.ndarray or None
        ``x[i, e]`` (whole numbers as floats), optimal for the real data; None when no
        allocation exists (the relaxation is infeasible).

    Raises
    ------
    UndecidedProgram
        When a solve does not finish, or rounding leaves the answer open (the
        relaxation's optimum breaks a real capacity and the restriction's is lower).

    Examples
    --------
    Two tasks of 0.5 fill a server of 1 exactly; a third does not fit:

    >>> one = np.array([[1.0]])
    >>> p = WholeTaskProgram(np.array([[0.5]]), one, np.zeros((1, 1)), np.array([[3.0]]),
    ...                      np.array([3.0]), np.array([3.0]), np.array([1.0]))
    >>> solve_whole(p, seconds=10) is None
    True
    """
    relaxed = _solve_rounded(program, True, seconds)
    if relaxed is None:
        return None
    x, best = relaxed
    if _fits_real_data(program, x):
        return x
    restricted = _solve_rounded(program, False, seconds)
    if restricted is not None and restricted[1] == best and _fits_real_data(
        program, restricted[0]
    ):
        return restricted[0]
    raise UndecidedProgram(
        "the data rounded to integers leave it open (the relaxation's optimum breaks a "
        "real capacity and no allocation of the real data was proven to reach it)"
    )
