"""Compact exact VCSched model: minimise the maximum host CPU load, tasks counted per host."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from allockit.clock import Deadline
from allockit.instances.vcsched import VCInstance

__all__ = ["build_load_milp", "extract_load_counts"]


def build_load_milp(
    instance: VCInstance,
    *,
    symmetry_breaking: bool = True,
    margin: float = 0.0,
    deadline: Deadline | None = None,
) -> Any:
    """Build the min-max-load form of VCSched (user guide (VCSched)), exact for parallel jobs too.

    Integer ``n[i, j]`` counts the tasks of job ``i`` on host ``j`` (binary for
    single-task jobs); ``L`` bounds every host's summed CPU need and is minimised. For
    a fixed placement the best minimum yield is ``min(1, 1 / max_j L_j)``, so the
    optimum yield is ``1 / L*`` with ``L`` bounded below by 1 (every load up to 1 gives
    yield 1, and the solver may stop there).

    Symmetry breaking for identical hosts: with single-task jobs and no previous
    placement, job ``i`` may only use hosts ``j <= i``, and host ``j`` holds a job only
    if host ``j - 1`` holds one with a smaller index (hosts ordered by their first
    job). Otherwise hosts that held no task before are ordered by non-increasing load.

    Migration-bounded adaptation: ``u[i, j] >= n[i, j] - nbar[i, j]`` counts the tasks
    of job ``i`` moved onto host ``j``; their memory (or number) is bounded.

    ``margin`` tightens the memory and migration-budget rows by that amount (the
    budget no lower than 0: moving nothing stays allowed); the solve drivers use it to
    get a placement feasible on the exact data when the solver's feasibility tolerance
    let a slightly infeasible one through.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host); for an adaptation instance,
        the previous placement and the migration budget or count.
    symmetry_breaking : bool, default True
        Add the symmetry-breaking constraints described above.
    margin : float, default 0.0
        Amount (fraction of a host's memory) subtracted from the right-hand sides of
        the memory and migration-budget rows.
    deadline : allockit.clock.Deadline, optional
        The run's deadline; building stops with ``allockit.clock.BuildTimeLimit``
        once it has passed (checked per variable
        and per row).

    Returns
    -------
    pyomo.environ.ConcreteModel
        Variables ``n[i, j]`` and ``L`` (>= 1), constraints ``all_tasks``, ``host_mem``,
        ``host_load`` (and the adaptation and symmetry rows), objective ``min L``.
        Solve it with ``allockit.solver.solve_pyomo``.

    Raises
    ------
    allockit.clock.BuildTimeLimit
        When ``deadline`` passes during the build.

    Examples
    --------
    >>> from allockit.solver import solve_pyomo
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> m = build_load_milp(inst)
    >>> _ = solve_pyomo(m)
    >>> round(m.L.value, 6)
    1.2
    """
    import pyomo.environ as pyo

    tick = Deadline.of(deadline).check

    # data
    n_jobs, hosts = instance.n_jobs, instance.hosts
    tasks = instance.tasks
    a, mem = instance.cpu, instance.mem
    nbar = instance.previous_counts()
    had_tasks = nbar.sum(axis=0) > 0
    ran_before = nbar.sum(axis=1) > 0

    m = pyo.ConcreteModel(name="vcsched_load_milp")
    m.J = pyo.RangeSet(0, n_jobs - 1)
    m.H = pyo.RangeSet(0, hosts - 1)

    # variables
    def n_domain(m: Any, i: int, j: int) -> Any:
        tick()
        return pyo.Binary if tasks[i] == 1 else pyo.NonNegativeIntegers

    m.n = pyo.Var(m.J, m.H, domain=n_domain, bounds=lambda m, i, j: (0, int(tasks[i])))
    m.L = pyo.Var(bounds=(1.0, None))

    # constraints
    m.all_tasks = pyo.Constraint(
        m.J, rule=lambda m, i: tick() or sum(m.n[i, j] for j in m.H) == int(tasks[i])
    )
    m.host_mem = pyo.Constraint(
        m.H,
        rule=lambda m, j: tick() or sum(float(mem[i]) * m.n[i, j] for i in m.J) <= 1 - margin,
    )

    def load(m: Any, j: int) -> Any:
        tick()
        return sum(float(a[i]) * m.n[i, j] for i in m.J)

    m.host_load = pyo.Constraint(m.H, rule=lambda m, j: load(m, j) <= m.L)

    if instance.is_adaptation and ran_before.any():
        moved = [(i, j) for i in range(n_jobs) for j in range(hosts) if ran_before[i]]
        m.Moved = pyo.Set(initialize=moved, dimen=2)
        m.u = pyo.Var(m.Moved, domain=pyo.NonNegativeReals)
        m.count_moves = pyo.Constraint(
            m.Moved, rule=lambda m, i, j: m.u[i, j] >= m.n[i, j] - int(nbar[i, j])
        )
        if instance.migration_budget is not None:
            m.migration_budget = pyo.Constraint(
                expr=sum(float(mem[i]) * m.u[i, j] for i, j in moved)
                <= max(instance.migration_budget - margin, 0.0)
            )
        if instance.max_migrations is not None:
            m.max_migrations = pyo.Constraint(
                expr=sum(m.u[i, j] for i, j in moved) <= instance.max_migrations
            )

    if symmetry_breaking:
        free = (
            [j for j in range(hosts) if not had_tasks[j]]
            if instance.is_adaptation
            else list(range(hosts))
        )
        sequential = not instance.is_parallel and not instance.is_adaptation
        if sequential:
            for i in range(n_jobs):
                for j in range(i + 1, hosts):
                    m.n[i, j].fix(0)
            # prefix counts z[i, j] = sum_{k <= i} n[k, j] keep the model linear in size
            prefix = [(i, j) for i in range(n_jobs) for j in range(min(i + 1, hosts - 1))]
            m.z = pyo.Var(prefix, bounds=(0, n_jobs))
            m.prefix_count = pyo.Constraint(
                prefix,
                rule=lambda m, i, j: tick()
                or (m.z[i, j] == (m.z[i - 1, j] if (i - 1, j) in m.z else 0) + m.n[i, j]),
            )
            m.first_job_order = pyo.Constraint(
                [(i, j) for i in range(1, n_jobs) for j in range(1, min(i + 1, hosts))],
                rule=lambda m, i, j: m.n[i, j] <= m.z[i - 1, j - 1],
            )
        elif len(free) > 1:
            pairs = list(itertools.pairwise(free))
            m.load_order = pyo.Constraint(
                range(len(pairs)),
                rule=lambda m, k: load(m, pairs[k][0]) >= load(m, pairs[k][1]),
            )

    # objective
    m.objective = pyo.Objective(expr=m.L, sense=pyo.minimize)
    return m


def extract_load_counts(model: Any, instance: VCInstance) -> np.ndarray:
    """Tasks of each job on each host, ``(n_jobs, hosts)``, from a solved model.

    Values are rounded to the nearest integer (solvers return integers up to their
    tolerance); unset variables count 0. ``counts_to_task_hosts`` turns the counts
    into a host per task.

    Parameters
    ----------
    model : pyomo.environ.ConcreteModel
        A model from ``build_load_milp`` whose solution was loaded.
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host); for an adaptation instance,
        the previous placement and the migration budget or count.

    Returns
    -------
    numpy.ndarray of int64, shape (n_jobs, hosts)
        ``counts[i, j]``: tasks of job ``i`` on host ``j``.

    Examples
    --------
    >>> from allockit.solver import solve_pyomo
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> m = build_load_milp(inst)
    >>> _ = solve_pyomo(m)
    >>> counts = extract_load_counts(m, inst)
    >>> counts.sum(axis=0).tolist(), counts.sum(axis=1).tolist()
    ([2, 1], [1, 1, 1])
    """
    return np.array(
        [
            [round(model.n[i, j].value or 0.0) for j in range(instance.hosts)]
            for i in range(instance.n_jobs)
        ],
        dtype=np.int64,
    )
