"""Warm starts of the exact VCSched models: a placement set as each model's start values.

A heuristic's placement (MCB8's, or ``adapt``'s) becomes HiGHS's or SCIP's starting
solution of the MILPs and CP-SAT's hints. Each model breaks the symmetry of identical
hosts its own way, so the placement is first relabelled to satisfy the model's rows
(``canonical_hosts``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from allockit.evaluation.placement import host_loads, min_yield_of
from allockit.instances.vcsched import VCInstance

__all__ = ["canonical_hosts", "hint_cpsat", "start_load_milp", "start_paper_milp"]


def canonical_hosts(instance: VCInstance, task_hosts: np.ndarray, *, by: str) -> np.ndarray:
    """Relabel the identical hosts of a placement to satisfy a model's symmetry breaking.

    ``by="first-job"``: hosts numbered in the order of the first job placed on them
    (``build_load_milp`` for single-task jobs); ``by="load"``: hosts by non-increasing
    summed CPU need (``build_load_milp`` otherwise, ``build_cpsat``). For an
    adaptation instance only hosts that held no task before are relabelled. The
    placement's quality is unchanged; a warm start must satisfy the model's rows.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host).
    task_hosts : numpy.ndarray, shape (n_tasks,)
        A host per task.
    by : {"first-job", "load"}
        The ordering to produce.

    Returns
    -------
    numpy.ndarray of int64, shape (n_tasks,)
        The relabelled placement.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=3, cpu=[0.2, 0.5, 0.4], mem=[0.1] * 3)
    >>> canonical_hosts(inst, np.array([2, 0, 2]), by="first-job").tolist()
    [0, 1, 0]
    >>> canonical_hosts(inst, np.array([2, 0, 1]), by="load").tolist()
    [2, 0, 1]
    """
    task_hosts = np.asarray(task_hosts, dtype=np.int64)
    hosts = instance.hosts
    free = np.ones(hosts, dtype=bool)
    if instance.is_adaptation:
        free[instance.previous[instance.previous >= 0]] = False
    free_hosts = np.flatnonzero(free)
    if by == "first-job":
        seen: list[int] = []
        for h in task_hosts:
            if free[h] and h not in seen:
                seen.append(int(h))
        rest = [int(h) for h in free_hosts if h not in seen]
        old = np.asarray(seen + rest, dtype=np.int64)
    else:
        load = host_loads(instance, task_hosts)[0]
        old = free_hosts[np.argsort(-load[free_hosts], kind="stable")]
    relabel = np.arange(hosts)
    relabel[old] = free_hosts
    return relabel[task_hosts]


def start_load_milp(model: Any, instance: VCInstance, task_hosts: np.ndarray) -> None:
    """Set the load MILP's variables to a placement (a warm start for the solver).

    Parameters
    ----------
    model : pyomo.environ.ConcreteModel
        A model of ``build_load_milp(instance)``.
    instance : VCInstance
        Its instance.
    task_hosts : numpy.ndarray
        A valid placement (host per task).

    Examples
    --------
    >>> from allockit.models.vcsched_load import build_load_milp
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> m = build_load_milp(inst)
    >>> start_load_milp(m, inst, np.array([1, 1, 0]))
    >>> [int(m.n[i, 0].value) for i in range(3)], round(m.L.value, 6)
    ([1, 1, 0], 1.2)
    """
    sequential = not instance.is_parallel and not instance.is_adaptation
    hosts = canonical_hosts(instance, task_hosts, by="first-job" if sequential else "load")
    counts = np.zeros((instance.n_jobs, instance.hosts), dtype=np.int64)
    np.add.at(counts, (instance.task_job, hosts), 1)
    for (i, j), var in model.n.items():
        if not var.fixed:
            var.set_value(int(counts[i, j]), skip_validation=True)
    model.L.set_value(max(1.0, float(host_loads(instance, hosts)[0].max())))
    if hasattr(model, "z"):
        prefix = np.cumsum(counts, axis=0)
        for (i, j), var in model.z.items():
            var.set_value(int(prefix[i, j]), skip_validation=True)
    if hasattr(model, "u"):
        nbar = instance.previous_counts()
        for (i, j), var in model.u.items():
            var.set_value(max(0, int(counts[i, j] - nbar[i, j])), skip_validation=True)


def start_paper_milp(model: Any, instance: VCInstance, task_hosts: np.ndarray) -> None:
    """Set the paper MILP's variables to a placement at its best minimum yield.

    Parameters
    ----------
    model : pyomo.environ.ConcreteModel
        A model of ``build_paper_milp(instance)``.
    instance : VCInstance
        Its instance.
    task_hosts : numpy.ndarray
        A valid placement (host per task).

    Examples
    --------
    >>> from allockit.models.vcsched_milp import build_paper_milp
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> m = build_paper_milp(inst)
    >>> start_paper_milp(m, inst, np.array([1, 1, 0]))
    >>> round(m.Y.value, 6), int(m.e[2, 0].value)
    (0.833333, 1)
    """
    y = min_yield_of(instance, task_hosts)
    a = instance.cpu[instance.task_job]
    for (t, j), var in model.e.items():
        on = int(task_hosts[t] == j)
        var.set_value(on, skip_validation=True)
        model.alpha[t, j].set_value(on * y * float(a[t]), skip_validation=True)
    model.Y.set_value(y, skip_validation=True)


def hint_cpsat(built: Any, instance: VCInstance, task_hosts: np.ndarray) -> None:
    """Add a placement to a CP-SAT model as its solution hints.

    Parameters
    ----------
    built : CpsatModel
        A model of ``build_cpsat(instance)``.
    instance : VCInstance
        Its instance.
    task_hosts : numpy.ndarray
        A valid placement (host per task).

    Examples
    --------
    >>> from allockit.models.vcsched_cpsat import SCALE, build_cpsat
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> built = build_cpsat(inst)
    >>> hint_cpsat(built, inst, np.array([1, 1, 0]))
    >>> len(built.model.proto.solution_hint.vars)
    7
    """
    from allockit.models.vcsched_cpsat import SCALE

    hosts = (
        task_hosts if instance.is_adaptation else canonical_hosts(instance, task_hosts, by="load")
    )
    counts = np.zeros((instance.n_jobs, instance.hosts), dtype=np.int64)
    np.add.at(counts, (instance.task_job, hosts), 1)
    for i, row in enumerate(built.n):
        for j, var in enumerate(row):
            built.model.add_hint(var, int(counts[i, j]))
    top = float(host_loads(instance, hosts)[0].max())
    built.model.add_hint(built.load, max(SCALE, int(np.ceil(top * SCALE))))
