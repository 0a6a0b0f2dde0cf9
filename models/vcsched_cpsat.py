"""VCSched's compact integer form for OR-Tools CP-SAT, with exact re-checking of scaled data."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from allockit.clock import Deadline
from allockit.instances.vcsched import VCInstance

__all__ = ["SCALE", "CpsatModel", "build_cpsat"]

#: Rational data are scaled by this factor and rounded to integers for CP-SAT.
SCALE = 10**8


@dataclass(frozen=True, slots=True)
class CpsatModel:
    """A built CP-SAT model and its ``n[i][j]`` and ``L`` variables.

    Attributes
    ----------
    model : ortools.sat.python.cp_model.CpModel
        The model (minimises ``load``).
    n : list of list of IntVar
        ``n[i][j]``: tasks of job ``i`` on host ``j``.
    load : IntVar
        ``L``: the largest host CPU load, scaled by ``SCALE`` (at least ``SCALE``).
    rounding : str
        ``"down"`` (a relaxation) or ``"up"`` (a restriction), see ``build_cpsat``.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0.1, 0.1])
    >>> built = build_cpsat(inst, rounding="up")
    >>> built.rounding, len(built.n), len(built.n[0])
    ('up', 2, 2)
    """

    model: Any
    n: list[list[Any]]
    load: Any
    rounding: str


def _scaled(values: np.ndarray, rounding: str) -> list[int]:
    op = math.floor if rounding == "down" else math.ceil
    return [int(op(v * SCALE)) for v in values]


def build_cpsat(
    instance: VCInstance, *, rounding: str = "down", deadline: Deadline | None = None
) -> CpsatModel:
    """Build the min-max-load form (tasks per host) as a CP-SAT model on integer data.

    CP-SAT needs integers: CPU needs, memory and the migration budget are multiplied by
    ``SCALE = 1e8`` and rounded. ``rounding="down"`` rounds every job's data down, so
    the integer model is a *relaxation* of the real one: its optimum load (divided by
    ``SCALE``) is a valid lower bound on the true optimum and "infeasible" is a true
    proof. ``rounding="up"`` rounds memory and budget use up and capacities stay exact,
    so the model is a *restriction*: every solution is truly feasible. The caller
    re-checks every placement on the original data (see
    ``allockit.models.vcsched_solve.solve_cpsat_form``).

    Identical hosts are ordered by non-increasing load (symmetry breaking) unless the
    instance is an adaptation; migration limits add ``u[i][j]`` move counters.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host); for an adaptation instance,
        the previous placement and the migration budget or count.
    rounding : {"down", "up"}, default "down"
        How the scaled data are rounded to integers (see above).
    deadline : allockit.clock.Deadline, optional
        The run's deadline; building stops with ``allockit.clock.BuildTimeLimit``
        once it has passed (checked per job and
        per host).

    Returns
    -------
    CpsatModel
        The model and its variables; solve it with ``allockit.solver.solve_cpsat``.
        The optimal ``load / SCALE`` is ``L*``, and the yield ``1 / max(1, L*)``.

    Raises
    ------
    allockit.clock.BuildTimeLimit
        When ``deadline`` passes during the build.

    Examples
    --------
    >>> from allockit.solver import solve_cpsat
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> built = build_cpsat(inst)
    >>> report, solver = solve_cpsat(built.model)
    >>> solver.value(built.load) / SCALE
    1.2
    """
    from ortools.sat.python import cp_model

    tick = Deadline.of(deadline).check

    # data
    n_jobs, hosts = instance.n_jobs, instance.hosts
    tasks = [int(t) for t in instance.tasks]
    cpu = _scaled(instance.cpu, "down" if rounding == "down" else "up")
    mem = _scaled(instance.mem, rounding)
    nbar = instance.previous_counts()
    ran_before = nbar.sum(axis=1) > 0
    model = cp_model.CpModel()

    # variables
    n = []
    for i in range(n_jobs):
        tick()
        n.append([model.new_int_var(0, tasks[i], f"n_{i}_{j}") for j in range(hosts)])
    total = sum(c * t for c, t in zip(cpu, tasks, strict=True))
    load = model.new_int_var(SCALE, max(SCALE, total), "L")

    # constraints
    for i in range(n_jobs):
        model.add(sum(n[i]) == tasks[i])
    for j in range(hosts):
        tick()
        model.add(sum(mem[i] * n[i][j] for i in range(n_jobs)) <= SCALE)
        model.add(sum(cpu[i] * n[i][j] for i in range(n_jobs)) <= load)
    if instance.is_adaptation:
        moves = []
        for i in range(n_jobs):
            if not ran_before[i]:
                continue
            for j in range(hosts):
                u = model.new_int_var(0, tasks[i], f"u_{i}_{j}")
                model.add(u >= n[i][j] - int(nbar[i, j]))
                moves.append((i, u))
        if instance.migration_budget is not None:
            budget = instance.migration_budget * SCALE
            cap = math.ceil(budget) if rounding == "down" else math.floor(budget)
            model.add(sum(mem[i] * u for i, u in moves) <= cap)
        if instance.max_migrations is not None:
            model.add(sum(u for _, u in moves) <= instance.max_migrations)
    if not instance.is_adaptation and hosts > 1:
        for j in range(hosts - 1):  # identical hosts: order them by load
            tick()
            model.add(
                sum(cpu[i] * n[i][j] for i in range(n_jobs))
                >= sum(cpu[i] * n[i][j + 1] for i in range(n_jobs))
            )

    # objective
    model.minimize(load)
    return CpsatModel(model=model, n=n, load=load, rounding=rounding)
