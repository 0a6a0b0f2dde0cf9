"""Shared plumbing of the VCSched heuristics: task order and result packaging."""

from __future__ import annotations

import time

import numpy as np

from allockit.evaluation.placement import empty_result, result_from_placement
from allockit.instances.vcsched import VCInstance
from allockit.results import SolveStatus, VCResult

__all__ = ["finish", "load_kernels", "task_order"]


def load_kernels(*names: str) -> float:
    """Import the numba kernels and warm the named ones; the seconds it took (0 if warm).

    This is the one-time cost a heuristic's first call pays (importing numba, compiling
    or loading the cached kernels); results report it as ``setup_seconds``.

    Parameters
    ----------
    *names : str
        Names of kernels to compile or load now (``"greedy_kernel"``,
        ``"mcb_fill_kernel"``, ...: those registered with
        ``kernel_setup.warm_inputs``; the heuristics' kernel modules are imported
        first, a simulator imports its own before the call); with none, only the
        modules are imported.

    Returns
    -------
    float
        Seconds spent importing and warming; 0.0 when the modules were already imported
        and the named kernels already warm.

    Examples
    --------
    >>> load_kernels("greedy_kernel") >= 0.0, load_kernels("greedy_kernel")
    (True, 0.0)
    """
    import importlib
    import sys

    imported = all(name in sys.modules for name in _HEURISTIC_KERNELS)
    started = time.perf_counter()
    for name in _HEURISTIC_KERNELS:
        importlib.import_module(name)
    from allockit.heuristics.kernel_setup import warm_up

    if warm_up(*names) == 0.0 and imported:
        return 0.0
    return time.perf_counter() - started


#: The heuristics' kernel modules, imported (and so registered) by ``load_kernels``.
_HEURISTIC_KERNELS = (
    "allockit.heuristics.greedy_kernels",
    "allockit.heuristics.mcb_kernels",
    "allockit.heuristics.drfh_kernels",
    "allockit.heuristics.local_search_kernels",
)


def task_order(instance: VCInstance, job_order: np.ndarray) -> np.ndarray:
    """Task indices listing the tasks of each job together, jobs in ``job_order``.

    Tasks are numbered job by job (job 0's tasks first); the heuristics sort jobs and
    then place their tasks in this order.

    Parameters
    ----------
    instance : VCInstance
        Hosts and jobs (CPU need per task in (0, 1], memory per task in [0, 1], as
        fractions of a host).
    job_order : numpy.ndarray
        Job indices in the order wanted (a permutation of ``range(n_jobs)``, or a
        subset).

    Returns
    -------
    numpy.ndarray of int64
        Task indices, the tasks of each job consecutive and in their own order.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=1, cpu=[0.1, 0.2], mem=[0, 0], tasks=[2, 1])
    >>> task_order(inst, np.array([1, 0])).tolist()
    [2, 0, 1]
    """
    job_order = np.asarray(job_order, dtype=np.int64)
    tasks = instance.tasks[job_order]
    starts = (np.cumsum(instance.tasks) - instance.tasks)[job_order]
    offsets = np.arange(int(tasks.sum())) - np.repeat(np.cumsum(tasks) - tasks, tasks)
    return (np.repeat(starts, tasks) + offsets).astype(np.int64)


def finish(
    instance: VCInstance,
    task_hosts: np.ndarray | None,
    *,
    method: str,
    started: float,
    reason: str = "",
    setup_seconds: float = 0.0,
) -> VCResult:
    """Package a heuristic's placement (or its failure) as a ``VCResult``.

    The status is ``optimal`` when the placement reaches the LP bound (then it is proven
    optimal) and ``feasible`` otherwise. A heuristic that found no placement proved
    nothing by itself: the status is ``no_solution`` with ``reason``, unless memory
    alone proves the instance infeasible (``allockit.evaluation.bounds.
    infeasibility_proof``: a task above a host, the memory total, the bin-packing
    bound), then ``infeasible`` with that proof.

    Parameters
    ----------
    instance : VCInstance
        Hosts and jobs (CPU need per task in (0, 1], memory per task in [0, 1], as
        fractions of a host).
    task_hosts : numpy.ndarray or None
        The heuristic's host per task, or None if it found no placement.
    method : str
        Method name recorded in the result (``"mcb8"``, ``"gr"``, ...).
    started : float
        ``time.perf_counter()`` when the heuristic started; the time since is
        ``solve_seconds``.
    reason : str, default ""
        Why there is no placement (the result's message when ``task_hosts`` is None).
    setup_seconds : float, default 0.0
        One-time cost paid before ``started`` (see ``load_kernels``).

    Returns
    -------
    VCResult
        Scored by ``allockit.evaluation.result_from_placement`` (solver
        ``"heuristic"``), or an empty ``no_solution`` or ``infeasible`` result.

    Examples
    --------
    >>> import time
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0, 0])
    >>> r = finish(inst, np.array([0, 1]), method="demo", started=time.perf_counter())
    >>> str(r.status), r.min_yield, r.bound
    ('optimal', 1.0, 1.0)
    >>> r = finish(inst, None, method="demo", started=time.perf_counter(),
    ...            reason="demo: memory does not fit")
    >>> str(r.status), r.message
    ('no_solution', 'demo: memory does not fit; infeasibility not proven')
    >>> tight = VCInstance.from_lists(hosts=1, cpu=[0.5, 0.5], mem=[0.6, 0.6])
    >>> r = finish(tight, None, method="demo", started=time.perf_counter(), reason="demo")
    >>> str(r.status), r.bound_source, r.message
    ('infeasible', 'memory', 'demo; proven infeasible by memory: the total memory 1.2 \
exceeds the 1 hosts')
    """
    seconds = time.perf_counter() - started
    if task_hosts is None:
        from allockit.evaluation.bounds import infeasibility_proof

        proof = infeasibility_proof(instance)
        if proof is None:
            status, note, source = SolveStatus.NO_SOLUTION, "infeasibility not proven", ""
        else:
            status, note, source = SolveStatus.INFEASIBLE, f"proven infeasible by {proof}", "memory"
        return empty_result(
            instance,
            method=method,
            status=status,
            solver="heuristic",
            solve_seconds=seconds,
            message=f"{reason}; {note}" if reason else note,
            setup_seconds=setup_seconds,
            bound_source=source,
        )
    result = result_from_placement(
        instance,
        task_hosts,
        method=method,
        status=SolveStatus.FEASIBLE,
        solver="heuristic",
        solve_seconds=seconds,
        setup_seconds=setup_seconds,
    )
    if result.is_ok and result.bound is not None and result.min_yield >= result.bound - 1e-12:
        from dataclasses import replace

        return replace(result, status=SolveStatus.OPTIMAL)
    return result
