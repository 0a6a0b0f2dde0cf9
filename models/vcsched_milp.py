"""The paper's VCSched MILP (e, alpha, Y), per task, with parallel jobs and adaptation."""

from __future__ import annotations

from typing import Any

import numpy as np

from allockit.clock import Deadline
from allockit.instances.vcsched import VCInstance

__all__ = ["build_paper_milp", "extract_paper_placement"]


def build_paper_milp(
    instance: VCInstance,
    *,
    relax: bool = False,
    margin: float = 0.0,
    deadline: Deadline | None = None,
) -> Any:
    """Build the MILP of Stillwell et al. (2009): eqs. 3-11, 12-21 and 22-31.

    One binary ``e[t, j]`` per task ``t`` and host ``j`` (task ``t`` runs on ``j``), its
    CPU fraction ``alpha[t, j]`` and the minimum yield ``Y`` (maximised). Tasks of a
    job get equal CPU; the yield of job ``i`` is its total CPU over ``tasks[i] * cpu[i]``.
    With a migration budget or count (paper Sec. 6) a task that ran before on host
    ``p`` pays its memory (or 1) when placed elsewhere; new jobs pay nothing.

    ``margin`` tightens the memory and migration-budget rows by that amount (the
    budget no lower than 0); the
    solve drivers use it to get a placement feasible on the exact data when the
    solver's feasibility tolerance let a slightly infeasible one through.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host); for an adaptation instance,
        the previous placement and the migration budget or count.
    relax : bool, default False
        Make ``e`` continuous in [0, 1]: the rational LP relaxation (paper Sec. 3.1).
    margin : float, default 0.0
        Amount (fraction of a host's memory) subtracted from the right-hand sides of
        the memory and migration-budget rows.
    deadline : allockit.clock.Deadline, optional
        The run's deadline; building stops with ``allockit.clock.BuildTimeLimit``
        once it has passed (checked per row).

    Returns
    -------
    pyomo.environ.ConcreteModel
        Variables ``e[t, j]``, ``alpha[t, j]`` and ``Y``; objective ``max Y``. Solve it
        with ``allockit.solver.solve_pyomo``.

    Raises
    ------
    allockit.clock.BuildTimeLimit
        When ``deadline`` passes during the build.

    Examples
    --------
    >>> from allockit.solver import solve_pyomo
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> m = build_paper_milp(inst)
    >>> _ = solve_pyomo(m)
    >>> round(m.Y.value, 6)
    0.833333
    """
    import pyomo.environ as pyo

    tick = Deadline.of(deadline).check

    # data
    job = instance.task_job
    a = instance.cpu[job]
    mem = instance.mem[job]
    need = instance.tasks * instance.cpu  # CPU of a whole job at yield 1
    prev = instance.previous
    first = np.concatenate(([0], np.cumsum(instance.tasks)[:-1]))

    m = pyo.ConcreteModel(name="vcsched_paper_milp")
    m.T = pyo.RangeSet(0, instance.n_tasks - 1)
    m.H = pyo.RangeSet(0, instance.hosts - 1)
    m.J = pyo.RangeSet(0, instance.n_jobs - 1)

    # variables
    m.e = pyo.Var(m.T, m.H, domain=pyo.UnitInterval if relax else pyo.Binary)
    m.alpha = pyo.Var(m.T, m.H, bounds=(0.0, 1.0))
    m.Y = pyo.Var(bounds=(0.0, 1.0))

    # constraints
    m.alpha_le_e = pyo.Constraint(
        m.T, m.H, rule=lambda m, t, j: tick() or m.alpha[t, j] <= m.e[t, j]
    )
    m.one_host = pyo.Constraint(m.T, rule=lambda m, t: sum(m.e[t, j] for j in m.H) == 1)
    m.host_cpu = pyo.Constraint(
        m.H, rule=lambda m, j: tick() or sum(m.alpha[t, j] for t in m.T) <= 1
    )
    m.host_mem = pyo.Constraint(
        m.H, rule=lambda m, j: sum(float(mem[t]) * m.e[t, j] for t in m.T) <= 1 - margin
    )
    m.at_most_need = pyo.Constraint(
        m.T, rule=lambda m, t: sum(m.alpha[t, j] for j in m.H) <= float(a[t])
    )

    def equal_tasks(m: Any, t: int) -> Any:
        head = int(first[job[t]])
        if head == t:
            return pyo.Constraint.Skip
        return sum(m.alpha[t, j] for j in m.H) == sum(m.alpha[head, j] for j in m.H)

    m.equal_tasks = pyo.Constraint(m.T, rule=equal_tasks)

    def job_yield(m: Any, i: int) -> Any:
        tasks = range(int(first[i]), int(first[i] + instance.tasks[i]))
        return sum(m.alpha[t, j] for t in tasks for j in m.H) >= float(need[i]) * m.Y

    m.min_yield = pyo.Constraint(m.J, rule=job_yield)

    moved = [
        (t, j)
        for t in range(instance.n_tasks)
        for j in range(instance.hosts)
        if prev[t] >= 0 and prev[t] != j
    ]
    if moved and instance.migration_budget is not None:
        m.migration_budget = pyo.Constraint(
            expr=sum(float(mem[t]) * m.e[t, j] for t, j in moved)
            <= max(instance.migration_budget - margin, 0.0)
        )
    if moved and instance.max_migrations is not None:
        m.max_migrations = pyo.Constraint(
            expr=sum(m.e[t, j] for t, j in moved) <= instance.max_migrations
        )

    # objective
    m.objective = pyo.Objective(expr=m.Y, sense=pyo.maximize)
    return m


def extract_paper_placement(model: Any, instance: VCInstance) -> np.ndarray:
    """Host of every task from a solved ``build_paper_milp`` model (largest ``e``).

    For the MILP, ``e`` is binary up to the solver's tolerance, so the largest entry
    is the host. For the relaxation it picks each task's largest share (ties: the
    lowest host), which is not in general a valid placement.

    Parameters
    ----------
    model : pyomo.environ.ConcreteModel
        A model from ``build_paper_milp`` whose solution was loaded.
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host); for an adaptation instance,
        the previous placement and the migration budget or count.

    Returns
    -------
    numpy.ndarray of int64, shape (n_tasks,)
        Host index per task, tasks listed job by job.

    Examples
    --------
    >>> from allockit.solver import solve_pyomo
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> m = build_paper_milp(inst)
    >>> _ = solve_pyomo(m)
    >>> hosts = extract_paper_placement(m, inst)
    >>> hosts.shape, sorted(np.bincount(hosts, minlength=2).tolist())   # two jobs share a host
    ((3,), [1, 2])
    """
    e = np.array(
        [
            [model.e[t, j].value or 0.0 for j in range(instance.hosts)]
            for t in range(instance.n_tasks)
        ]
    )
    return e.argmax(axis=1).astype(np.int64)
