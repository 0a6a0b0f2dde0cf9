"""CPU allocation for a fixed task mapping, as in DFRS (Casanova et al. 2011, Sec. 4.6).

Given how many tasks of each job sit on each node (``counts[j, n]``) and each job's CPU
need per task ``cpu[j]``, every job first gets the yield ``1 / max(1, L)`` (``L`` the
largest node load ``sum_j counts[j, n] cpu[j]``), which maximises the minimum yield.
The rest is shared in one of two ways:

- ``opt=min``: iterative max-min (water-filling): raise the yields of all unfrozen jobs
  together until a node saturates or a job reaches yield 1; freeze those jobs; repeat.
- ``opt=avg``: the LP (2) of the paper, ``max sum_j y_j`` with ``1/max(1, L) <= y_j <= 1``
  and every node's CPU at most 1, solved with HiGHS directly (the event loop calls it
  often); ``build_avg_yield_lp`` is the Pyomo reference.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from allockit.errors import InvalidInputError

__all__ = ["base_yield", "build_avg_yield_lp", "max_avg_yields", "max_min_yields"]


def _check(counts: np.ndarray, cpu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    counts = np.asarray(counts, dtype=float)
    cpu = np.asarray(cpu, dtype=float)
    if counts.ndim != 2 or counts.shape[0] != cpu.size:
        raise InvalidInputError(
            f"counts must be (jobs, nodes) with one row per job; got "
            f"{counts.shape} for {cpu.size} jobs"
        )
    if (counts < 0).any() or (cpu <= 0).any() or (cpu > 1).any():
        raise InvalidInputError("counts must be >= 0 and cpu in (0, 1]")
    return counts, cpu


def base_yield(counts: np.ndarray, cpu: np.ndarray) -> float:
    """``1 / max(1, L)`` with ``L`` the largest node CPU load.

    Examples
    --------
    >>> base_yield(np.array([[1, 0], [1, 0]]), np.array([1.0, 0.5]))
    0.6666666666666666
    """
    counts, cpu = _check(counts, cpu)
    load = (counts * cpu[:, None]).sum(axis=0)
    return float(1.0 / max(1.0, load.max(initial=0.0)))


def max_min_yields(counts: np.ndarray, cpu: np.ndarray, *, tol: float = 1e-12) -> np.ndarray:
    """Yields by iterative max-min water-filling (``opt=min``).

    Examples
    --------
    >>> # node 0 holds jobs 0 and 1 (load 1.5); job 2 is alone on node 1
    >>> max_min_yields(np.array([[1, 0], [1, 0], [0, 1]]), np.array([1.0, 0.5, 0.4])).round(4)
    array([0.6667, 0.6667, 1.    ])
    """
    counts, cpu = _check(counts, cpu)
    weight = counts * cpu[:, None]  # CPU per unit of yield, per node
    yields = np.zeros(cpu.size)
    active = weight.sum(axis=1) > 0
    yields[~active] = 1.0  # a job with no task placed is not constrained here
    while active.any():
        used = (weight * yields[:, None]).sum(axis=0)
        rate = weight[active].sum(axis=0)
        room = np.where(rate > tol, (1.0 - used) / np.where(rate > tol, rate, 1.0), np.inf)
        step = min(float(room.min()), float((1.0 - yields[active]).min()))
        step = max(step, 0.0)
        yields[active] += step
        saturated = np.flatnonzero((rate > tol) & (room <= step + tol))
        full = active & (yields >= 1.0 - tol)
        on_saturated = active & (weight[:, saturated] > 0).any(axis=1)
        frozen = full | on_saturated
        if not frozen.any():  # pragma: no cover - a step always freezes someone
            break
        active &= ~frozen
    return np.minimum(yields, 1.0)


def max_avg_yields(counts: np.ndarray, cpu: np.ndarray) -> np.ndarray:
    """Yields maximising the average yield above ``1/max(1, L)`` (``opt=avg``, LP (2)).

    Examples
    --------
    >>> counts = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    >>> max_avg_yields(counts, np.array([1.0, 0.5, 0.4, 0.8])).round(4)
    array([0.6667, 0.6667, 1.    , 0.75  ])
    >>> max_min_yields(counts, np.array([1.0, 0.5, 0.4, 0.8])).round(4)
    array([0.6667, 0.6667, 0.8333, 0.8333])
    """
    from allockit.heuristics.placement import max_sum_yields

    counts, cpu = _check(counts, cpu)
    return max_sum_yields(counts * cpu[:, None], base_yield(counts, cpu))


def build_avg_yield_lp(counts: np.ndarray, cpu: np.ndarray) -> Any:
    """The LP (2) as a Pyomo model (the reference for ``max_avg_yields``).

    Examples
    --------
    >>> from allockit.solver import solve_pyomo
    >>> counts = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    >>> m = build_avg_yield_lp(counts, np.array([1.0, 0.5, 0.4, 0.8]))
    >>> round(solve_pyomo(m).objective, 6)
    3.083333
    """
    import pyomo.environ as pyo

    counts, cpu = _check(counts, cpu)
    floor = base_yield(counts, cpu)
    jobs, nodes = range(cpu.size), range(counts.shape[1])
    m = pyo.ConcreteModel(name="dfrs_avg_yield")
    m.y = pyo.Var(jobs, bounds=(floor, 1.0))
    m.power = pyo.Constraint(
        nodes,
        rule=lambda m, n: (
            sum(float(counts[j, n] * cpu[j]) * m.y[j] for j in jobs) <= 1
            if counts[:, n].any()
            else pyo.Constraint.Skip
        ),
    )
    m.objective = pyo.Objective(expr=sum(m.y[j] for j in jobs), sense=pyo.maximize)
    return m
