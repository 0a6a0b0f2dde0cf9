"""Evaluate a VCSched placement: loads, feasibility, min yield and the average-yield phase."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from allockit.checks import first_bad_entry, real_array, real_number
from allockit.constants import MEM_TOL
from allockit.errors import InvalidInputError
from allockit.evaluation.answer_memo import memo
from allockit.instances.vcsched import VCInstance
from allockit.results import SolveStatus, VCResult

__all__ = [
    "MEM_TOL",
    "average_yield_phase",
    "checked_task_hosts",
    "counts_to_task_hosts",
    "empty_result",
    "host_index_problem",
    "host_loads",
    "max_sum_yields",
    "max_sum_yields_sparse",
    "migration_cost",
    "min_yield_of",
    "placement_violation",
    "result_from_placement",
    "thread_highs",
]



def host_index_problem(task_hosts: object, name: str = "task_hosts") -> str | None:
    """Why ``task_hosts`` is not an array of integer host indices, or None if it is.

    Integers, or floats of integer value (as solvers return them), are host indices
    (any length, any value: ``checked_task_hosts`` checks those against an instance);
    fractions, NaN, infinities, booleans, strings, other objects and ragged nestings
    are not, nor are integers beyond int64.

    Parameters
    ----------
    task_hosts : array_like
        The placement.
    name : str, default "task_hosts"
        How the message calls it.

    Returns
    -------
    str or None
        The reason, naming the first bad entry and its value; None for host indices.

    Examples
    --------
    >>> host_index_problem([1.0, 3]) is None
    True
    >>> host_index_problem([0, 2.5], "initial")
    'initial[1] must be a host index; got 2.5'
    """
    try:
        arr = np.asarray(task_hosts)
    except (TypeError, ValueError) as error:  # (a ragged nesting)
        return f"{name} must be an array of host indices: {error}"
    if arr.dtype.kind not in "iuf":
        return f"{name} must be an array of host indices (integers); got dtype {arr.dtype}"
    if arr.dtype == np.uint64:
        big = np.flatnonzero(arr.ravel() > np.iinfo(np.int64).max)
        if big.size:
            first = int(big[0])
            return f"{name}[{first}] must be a host index; got {int(arr.ravel()[first])}"
    if arr.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)))
        if bad.size:
            first = int(bad[0])
            return f"{name}[{first}] must be a host index; got {float(arr.ravel()[first])!r}"
    return None


def checked_task_hosts(
    instance: VCInstance, task_hosts: object, name: str = "task_hosts"
) -> np.ndarray:
    """A placement as host indices, or an error naming what makes it none.

    Parameters
    ----------
    instance : VCInstance
        The instance the placement is for.
    task_hosts : array_like, shape (n_tasks,)
        Host index of every task: integers, or floats of integer value (as solvers
        return them).
    name : str, default "task_hosts"
        How the error calls the placement.

    Returns
    -------
    numpy.ndarray of int64, shape (n_tasks,)
        The same hosts (the array itself when it is already int64).

    Raises
    ------
    InvalidInputError
        For a placement that is not one host index in ``[0, hosts)`` per task.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.25], mem=[0.1, 0.2])
    >>> checked_task_hosts(inst, [1.0, 0.0]).tolist()
    [1, 0]
    >>> checked_task_hosts(inst, [0.5, 0])
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: task_hosts[0] must be a host index; got 0.5
    """
    why = host_index_problem(task_hosts, name)
    if why is not None:
        raise InvalidInputError(why)
    arr = np.asarray(task_hosts)
    if arr.shape != (instance.n_tasks,):
        raise InvalidInputError(
            f"{name} must give one host per task ({instance.n_tasks}); got shape {arr.shape}"
        )
    # the range on the values as given (a float of 1e300 would not cast to int64)
    if arr.size and (arr.min() < 0 or arr.max() >= instance.hosts):
        first = int(np.flatnonzero((arr < 0) | (arr >= instance.hosts))[0])
        host = int(arr[first]) if arr.dtype.kind in "iu" else f"{float(arr[first]):g}"
        raise InvalidInputError(
            f"{name}[{first}] is host {host}; hosts are 0..{instance.hosts - 1}"
        )
    return arr if arr.dtype == np.int64 else arr.astype(np.int64)


def _checked_bound(name: str, bound: object) -> float | None:
    """A yield bound (None, or a number >= 0 that is not NaN), or an error naming it."""
    return real_number(name, bound, at_least=0, finite=False, optional=True)


def host_loads(instance: VCInstance, task_hosts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Summed CPU need and memory per host for a task placement.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host.
    task_hosts : numpy.ndarray, shape (n_tasks,)
        Host index in [0, hosts) of every task, tasks listed job by job.

    Returns
    -------
    cpu, mem : numpy.ndarray, shape (hosts,)
        Per host, the summed CPU need ``L_j`` (at yield 1; may exceed 1) and the summed
        memory, both in fractions of a host.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.25], mem=[0.1, 0.2])
    >>> [v.tolist() for v in host_loads(inst, np.array([1, 1]))]
    [[0.0, 0.75], [0.0, 0.30000000000000004]]
    """
    task_hosts = checked_task_hosts(instance, task_hosts)
    job = instance.task_job
    cpu = np.bincount(task_hosts, weights=instance.cpu[job], minlength=instance.hosts)
    mem = np.bincount(task_hosts, weights=instance.mem[job], minlength=instance.hosts)
    return cpu, mem


def migration_cost(instance: VCInstance, task_hosts: np.ndarray) -> tuple[int, float]:
    """Number of migrated tasks and migrated memory (host-memory units), paper eq. 31.

    A task migrates when it ran before (``previous >= 0``) on another host.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host;
        ``instance.previous[t]`` is task ``t``'s former host or -1.
    task_hosts : numpy.ndarray, shape (n_tasks,)
        Host index in [0, hosts) of every task, tasks listed job by job.

    Returns
    -------
    count : int
        Tasks placed on another host than before.
    memory : float
        Their summed memory, in fractions of a host (what the migration budget limits).

    Raises
    ------
    InvalidInputError
        For a placement that is not one host index in ``[0, hosts)`` per task.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0.25, 0.5],
    ...                              previous=[0, None])
    >>> migration_cost(inst, np.array([1, 0]))
    (1, 0.25)
    """
    task_hosts = checked_task_hosts(instance, task_hosts)
    moved = (instance.previous >= 0) & (instance.previous != task_hosts)
    return int(moved.sum()), float(instance.mem[instance.task_job[moved]].sum())


def placement_violation(instance: VCInstance, task_hosts: np.ndarray) -> str | None:
    """Why ``task_hosts`` is not a valid placement, or None if it is.

    Checked in order: one host per task, host indices (integers, in range), memory of every host
    at most 1 (with tolerance ``MEM_TOL``), and for an adaptation instance the
    migration budget (memory) and the maximum number of migrations. CPU is never a
    violation: an overloaded host only lowers the yield.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host.
    task_hosts : array_like, shape (n_tasks,)
        The placement to check, a host index per task.

    Returns
    -------
    str or None
        A sentence naming the first violated constraint, or None for a valid placement.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=1, cpu=[0.5, 0.5], mem=[0.6, 0.6])
    >>> placement_violation(inst, np.array([0, 0]))
    'memory of host 0 is 1.2 > 1'
    """
    why = host_index_problem(task_hosts, "placement")
    if why is not None:
        return why
    task_hosts = np.asarray(task_hosts)
    if task_hosts.shape != (instance.n_tasks,):
        return f"placement must give one host per task ({instance.n_tasks}); got {task_hosts.size}"
    try:
        task_hosts = checked_task_hosts(instance, task_hosts, name="placement")
    except InvalidInputError as error:  # not integers, or out of range: says which
        return str(error)
    _, mem = host_loads(instance, task_hosts)
    over = np.flatnonzero(mem > 1.0 + MEM_TOL)
    if over.size:
        return f"memory of host {over[0]} is {mem[over[0]]:.6g} > 1"
    count, memory = migration_cost(instance, task_hosts)
    if instance.migration_budget is not None and memory > instance.migration_budget + MEM_TOL:
        return f"migrated memory {memory:.6g} exceeds the budget {instance.migration_budget:.6g}"
    if instance.max_migrations is not None and count > instance.max_migrations:
        return f"{count} migrations exceed the limit {instance.max_migrations}"
    return None


def min_yield_of(instance: VCInstance, task_hosts: np.ndarray) -> float:
    """Best minimum yield of a placement: ``min(1, 1 / max_j L_j)`` (user guide (VCSched)).

    ``L_j`` is the summed CPU need of the tasks on host ``j``; sharing each host's CPU
    in proportion to need gives every job this yield, and no sharing does better.
    Memory is not checked (see ``placement_violation``); the host indices are.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host.
    task_hosts : numpy.ndarray, shape (n_tasks,)
        Host index in [0, hosts) of every task, tasks listed job by job.

    Returns
    -------
    float
        The minimum yield in (0, 1].

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0, 0, 0])
    >>> round(min_yield_of(inst, np.array([0, 0, 1])), 6)
    0.833333
    """
    cpu, _ = host_loads(instance, task_hosts)
    return float(min(1.0, 1.0 / cpu.max()))


def average_yield_phase(
    instance: VCInstance, task_hosts: np.ndarray, min_yield: float
) -> np.ndarray:
    """Per-job yields maximising the average yield for a fixed placement (paper Sec. 3.5).

    Every job keeps at least ``min_yield``; all tasks of a job get the same CPU
    fraction. When every job sits on one host the problem splits into one fractional
    knapsack per host, solved greedily in increasing order of CPU need (vectorised);
    otherwise (a parallel job spread over hosts) it is the LP
    ``max sum y_i  s.t.  min_yield <= y_i <= 1,  sum_i n_ij a_i y_i <= 1``, solved with
    HiGHS.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host.
    task_hosts : numpy.ndarray, shape (n_tasks,)
        Host index in [0, hosts) of every task, tasks listed job by job.
    min_yield : float
        The floor every job keeps, normally ``min_yield_of(instance, task_hosts)``;
        clipped to [0, 1].

    Returns
    -------
    numpy.ndarray, shape (n_jobs,)
        The yield of each job in [``min_yield``, 1]; all tasks of a job get CPU
        ``yield * cpu``.

    Raises
    ------
    InvalidInputError
        For a placement that is not one host index in ``[0, hosts)`` per task, or a
        ``min_yield`` that is not a number.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=1, cpu=[0.2, 0.5, 0.6], mem=[0, 0, 0])
    >>> [round(float(y), 6) for y in average_yield_phase(inst, np.array([0, 0, 0]), 0.5)]
    [1.0, 1.0, 0.5]
    """
    task_hosts = checked_task_hosts(instance, task_hosts)
    real_number("min_yield", min_yield, finite=False)
    n_jobs, hosts = instance.n_jobs, instance.hosts
    floor = float(min(1.0, max(0.0, min_yield)))
    task_job = instance.task_job
    first = task_hosts[np.concatenate(([0], np.cumsum(instance.tasks)[:-1]))]
    if (task_hosts == first[task_job]).all():  # every job on one host: no (jobs x hosts)
        return _greedy_single_host(instance, first, floor)
    # (job, host) pairs with their task counts: sparse, never a dense jobs x hosts matrix
    pair = np.unique(task_job * hosts + task_hosts, return_counts=True)
    jobs, on = np.divmod(pair[0], hosts)
    need = pair[1] * instance.cpu[jobs]
    yields = max_sum_yields_sparse(jobs, on, need, n_jobs, hosts, floor)
    return _within_hosts(yields, jobs, on, need, hosts, floor)


#: A host's CPU above 1 by more than this after the average-yield LP is HiGHS's
#: tolerance (up to 1e-7), not rounding: the yields above the floor are scaled back.
CPU_OVER = 1e-12


def _within_hosts(
    yields: np.ndarray, jobs: np.ndarray, on: np.ndarray, need: np.ndarray, hosts: int,
    floor: float,
) -> np.ndarray:
    """The LP's yields with every host's CPU at most 1 (HiGHS accepts rows to 1e-7).

    On each host above ``1 + CPU_OVER`` the part above the floor is scaled to fit; a job
    takes the smallest factor of its hosts (which only unloads its other hosts).
    """
    load = np.bincount(on, weights=need * yields[jobs], minlength=hosts)
    over = load > 1.0 + CPU_OVER
    if not over.any():
        return yields
    base = np.bincount(on, weights=need * floor, minlength=hosts)
    extra = load - base
    factor = np.ones(hosts)
    room = np.divide(1.0 - base[over], extra[over], out=np.zeros(int(over.sum())),
                     where=extra[over] > 0)
    factor[over] = np.clip(room, 0.0, 1.0) * (1.0 - 1e-15)
    per_job = np.ones(yields.size)
    np.minimum.at(per_job, jobs, factor[on])
    return floor + (yields - floor) * per_job


def _greedy_single_host(instance: VCInstance, host: np.ndarray, floor: float) -> np.ndarray:
    cost = instance.tasks * instance.cpu  # CPU needed for yield 1 by the whole job
    base = np.bincount(host, weights=cost * floor, minlength=instance.hosts)
    spare = np.maximum(0.0, 1.0 - base)
    order = np.lexsort((np.arange(instance.n_jobs), cost, host))
    extra = (1.0 - floor) * cost[order]
    h = host[order]
    cum = np.cumsum(extra)
    group_start = np.searchsorted(h, h, side="left")
    before = cum - extra - np.where(group_start > 0, cum[group_start - 1], 0.0)
    granted = np.clip(spare[h] - before, 0.0, extra)
    yields = np.empty(instance.n_jobs)
    yields[order] = floor + granted / cost[order]
    return np.minimum(yields, 1.0)


def max_sum_yields(coeff: np.ndarray, floor: float) -> np.ndarray:
    """``max sum_i y_i`` s.t. ``floor <= y_i <= 1`` and ``sum_i coeff[i, j] y_i <= 1``.

    ``coeff[i, j]`` is the CPU job ``i`` uses on host ``j`` at yield 1. Solved with
    HiGHS's low-level API (no model-building layer: it runs inside event loops).

    Parameters
    ----------
    coeff : numpy.ndarray, shape (n_jobs, n_hosts)
        CPU (fraction of a host) each job uses on each host at yield 1, >= 0.
    floor : float
        Lower bound of every yield, in [0, 1]; it must be feasible (every host's
        ``sum_i coeff[i, j] * floor <= 1``), as the minimum yield of a placement is.

    Returns
    -------
    numpy.ndarray, shape (n_jobs,)
        Yields in [``floor``, 1] maximising their sum; all equal to ``floor`` if
        HiGHS does not report an optimum. A new array at every call: the answer to an
        LP met before in the process is a copy of the one kept then
        (``allockit.evaluation.answer_memo``), the same bits as a new solve.

    Raises
    ------
    InvalidInputError
        For a ``coeff`` that is not a matrix of finite numbers >= 0 (the first bad
        entry is named) or a ``floor`` outside [0, 1].

    Examples
    --------
    >>> max_sum_yields(np.array([[0.4], [0.8]]), 0.5).round(4).tolist()
    [1.0, 0.75]
    """
    coeff = real_array("coeff", coeff, ndim=2)
    first_bad_entry("coeff", coeff, coeff >= 0, "finite and >= 0")
    if isinstance(floor, bool) or not isinstance(floor, int | float | np.number) or not (
        0.0 <= float(floor) <= 1.0
    ):
        raise InvalidInputError(f"floor must be a number in [0, 1]; got {floor!r}")
    n_jobs, n_hosts = coeff.shape
    jobs, hosts = np.nonzero(coeff)
    return max_sum_yields_sparse(jobs, hosts, coeff[jobs, hosts], n_jobs, n_hosts, floor)


def max_sum_yields_sparse(
    jobs: np.ndarray,
    hosts: np.ndarray,
    values: np.ndarray,
    n_jobs: int,
    n_hosts: int,
    floor: float,
) -> np.ndarray:
    """``max_sum_yields`` with the coefficients as (job, host, value) triples.

    The triples must come in (job, host) order, the column-wise matrix HiGHS takes
    (as ``numpy.nonzero`` of a matrix lists them, or ``numpy.unique`` of
    ``job * hosts + host``); nothing is checked: it serves event loops. A floor of 1
    fixes every yield at 1 (no LP). Otherwise one HiGHS instance per thread is reused
    (its model cleared first: the same answers as a new instance, without the cost of
    building one at every event of a simulation), and the answers are kept in the
    process's ``max_sum_yields`` memo (``allockit.evaluation.answer_memo``): an LP met
    again is not solved again.

    Parameters
    ----------
    jobs, hosts : numpy.ndarray of int
        Job and host of each nonzero coefficient, sorted by job, then host.
    values : numpy.ndarray
        The coefficients: CPU job ``jobs[k]`` uses on host ``hosts[k]`` at yield 1, > 0.
    n_jobs, n_hosts : int
        The LP's numbers of jobs (columns) and hosts (rows).
    floor : float
        Lower bound of every yield, feasible (see ``max_sum_yields``).

    Returns
    -------
    numpy.ndarray, shape (n_jobs,)
        ``max_sum_yields`` of the matrix these triples make.

    Examples
    --------
    >>> coeff = np.array([[0.4], [0.8]])
    >>> jobs, hosts = np.nonzero(coeff)
    >>> max_sum_yields_sparse(jobs, hosts, coeff[jobs, hosts], 2, 1, 0.5).round(4).tolist()
    [1.0, 0.75]
    """
    if floor >= 1.0:  # every yield is fixed at 1 (clip(y, 1, 1) whatever HiGHS says)
        return np.ones(n_jobs)
    values = np.asarray(values, dtype=float)
    n_jobs, n_hosts, floor = int(n_jobs), int(n_hosts), float(floor)
    return memo("max_sum_yields").answer(
        (jobs, hosts, values, n_jobs, n_hosts, floor),
        lambda: _solve_max_sum_yields(jobs, hosts, values, n_jobs, n_hosts, floor),
    )


def _solve_max_sum_yields(
    jobs: np.ndarray,
    hosts: np.ndarray,
    values: np.ndarray,
    n_jobs: int,
    n_hosts: int,
    floor: float,
) -> np.ndarray:
    """Solve ``max_sum_yields_sparse``'s LP (floor < 1) on the thread's HiGHS instance."""
    import highspy

    h = thread_highs()
    h.clearModel()
    start = np.searchsorted(jobs, np.arange(n_jobs + 1)).astype(np.int32)
    h.passModel(
        n_jobs, n_hosts, values.size, int(highspy.MatrixFormat.kColwise),
        int(highspy.ObjSense.kMaximize), 0.0,
        np.ones(n_jobs), np.full(n_jobs, floor), np.ones(n_jobs),
        np.full(n_hosts, -highspy.kHighsInf), np.ones(n_hosts),
        start, hosts.astype(np.int32), values, np.zeros(n_jobs, dtype=np.int32),
    )
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        # The floor itself is feasible by construction; fall back to it.
        return np.full(n_jobs, floor)
    yields = np.asarray(h.getSolution().col_value, dtype=float)
    return np.clip(yields, floor, 1.0)


_SOLVERS = threading.local()


def thread_highs() -> Any:
    """This thread's reusable HiGHS instance (silent, one thread), its model not cleared.

    For LPs solved inside event loops (``max_sum_yields``, the DFRS stretch LPs): call
    ``clearModel()`` before passing a model; a cleared instance gives the answers of a
    new one without the cost of building one per event. Do not change its options:
    the answers are kept (``allockit.evaluation.answer_memo``) on the premise that they
    depend on the model alone.

    Returns
    -------
    highspy._core._Highs
        The bare HiGHS solver of the calling thread (output off, one thread).

    Examples
    --------
    >>> h = thread_highs()
    >>> h is thread_highs(), h.getOptionValue("threads")[1]
    (True, 1)
    """
    h = getattr(_SOLVERS, "highs", None)
    if h is None:
        from highspy import _core

        h = _core._Highs()  # (the bare solver: no callback objects to build)
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", 1)
        _SOLVERS.highs = h
    return h


def counts_to_task_hosts(instance: VCInstance, counts: np.ndarray) -> np.ndarray:
    """Turn tasks-per-host counts ``counts[i, j]`` into a host per task.

    Tasks that ran before keep their previous host where the counts allow it, so the
    migrations are the fewest possible for these counts.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host;
        ``instance.previous[t]`` is task ``t``'s former host or -1.
    counts : numpy.ndarray, shape (n_jobs, hosts)
        Tasks of job ``i`` on host ``j`` (rounded to the nearest integer, as a solver
        returns them); each row must sum to the job's ``tasks``.

    Returns
    -------
    numpy.ndarray, shape (n_tasks,)
        Host index per task, tasks listed job by job; tasks without a previous host
        fill the remaining counts in increasing host order.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5], mem=[0.1], tasks=[3],
    ...                              previous=[[1, 0, 1]])
    >>> counts_to_task_hosts(inst, np.array([[2, 1]])).tolist()
    [1, 0, 0]
    """
    counts = np.asarray(np.rint(counts), dtype=np.int64)
    out = np.empty(instance.n_tasks, dtype=np.int64)
    start = 0
    for i in range(instance.n_jobs):
        t = int(instance.tasks[i])
        prev = instance.previous[start : start + t]
        left = counts[i].copy()
        slot = np.full(t, -1, dtype=np.int64)
        for k in range(t):
            p = prev[k]
            if p >= 0 and left[p] > 0:
                slot[k] = p
                left[p] -= 1
        rest = np.repeat(np.arange(instance.hosts), left)
        slot[slot < 0] = rest
        out[start : start + t] = slot
        start += t
    return out


def result_from_placement(
    instance: VCInstance,
    task_hosts: np.ndarray,
    *,
    method: str,
    status: SolveStatus,
    bound: float | None = None,
    solver: str = "",
    build_seconds: float = 0.0,
    solve_seconds: float = 0.0,
    message: str = "",
    setup_seconds: float = 0.0,
    incumbent_source: str | None = None,
    bound_source: str = "",
    bounds: tuple[tuple[float | None, str], ...] = (),
) -> VCResult:
    """Evaluate a placement exactly and package it as a ``VCResult``.

    The minimum yield is recomputed from the placement on the original data (never
    taken from a solver's objective), then the average-yield phase sets every job's
    yield. ``bound`` (an upper bound on the min yield) is tightened with the LP bound
    and never reported below the achieved minimum yield. An invalid placement yields
    status ``error`` naming the violation.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host.
    task_hosts : numpy.ndarray, shape (n_tasks,)
        Host index in [0, hosts) of every task, tasks listed job by job.
    method : str
        The method name recorded in the result.
    status : SolveStatus
        Status to report for a valid placement (``optimal``, ``feasible``, ``time_limit``).
    bound : float, optional
        A proven upper bound on the minimum yield from the solver, if any.
    solver : str, default ""
        Solver name recorded in the result (``"highs"``, ``"cpsat"``, ...).
    build_seconds, solve_seconds, setup_seconds : float, default 0.0
        Seconds spent building the model, solving it, and on one-time set-up
        (numba kernels), recorded in the result.
    message : str, default ""
        Recorded in the result.
    incumbent_source : str, optional
        The component that produced the placement (default: ``method``).
    bound_source : str, default ""
        What proved ``bound`` (``"highs"``, ``"cpsat"``, ...).
    bounds : tuple of (float or None, str), default ()
        More proven upper bounds on the minimum yield with their sources (e.g. the
        bin-packing bound); the smallest of all, the LP bound included, is reported.

    Returns
    -------
    VCResult
        The placement with its min and average yield, per-task CPU, bound and gap
        (``(bound - min_yield) / bound``), and for an adaptation instance the
        migration count and memory; status ``error`` and no placement if invalid.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0, 0, 0])
    >>> r = result_from_placement(inst, np.array([0, 0, 1]), method="demo",
    ...                           status=SolveStatus.FEASIBLE)
    >>> round(r.min_yield, 4), round(r.avg_yield, 4), r.bound, round(r.gap, 4)
    (0.8333, 0.8889, 1.0, 0.1667)
    >>> r.incumbent_source, r.bound_source
    ('demo', 'lp')
    """
    from allockit.evaluation.lp_bound import lp_bound

    bound = _checked_bound("bound", bound)
    bounds = tuple((_checked_bound(f"bounds[{k}]", b), src) for k, (b, src) in enumerate(bounds))
    violation = placement_violation(instance, task_hosts)
    if violation is not None:
        return VCResult(
            method=method,
            status=SolveStatus.ERROR,
            job_names=instance.job_names,
            tasks=instance.tasks,
            solver=solver,
            build_seconds=build_seconds,
            solve_seconds=solve_seconds,
            message=f"invalid placement: {violation}",
            setup_seconds=setup_seconds,
        )
    task_hosts = checked_task_hosts(instance, task_hosts)
    min_yield = min_yield_of(instance, task_hosts)
    job_yield = average_yield_phase(instance, task_hosts, min_yield)
    proven = [
        (float(b), src)
        for b, src in ((bound, bound_source), (lp_bound(instance), "lp"), *bounds)
        if b is not None
    ]
    best_bound, source = min(proven, key=lambda p: p[0]) if proven else (None, "")
    if best_bound is not None:
        best_bound = max(best_bound, min_yield)
    gap = None if best_bound is None else max(0.0, (best_bound - min_yield) / best_bound)
    count, memory = migration_cost(instance, task_hosts)
    return VCResult(
        method=method,
        status=status,
        job_names=instance.job_names,
        tasks=instance.tasks,
        min_yield=min_yield,
        avg_yield=float(job_yield.mean()),
        bound=best_bound,
        gap=gap,
        task_hosts=task_hosts,
        task_cpu=job_yield[instance.task_job] * instance.cpu[instance.task_job],
        job_yield=job_yield,
        migrations=count if instance.is_adaptation else None,
        migrated_memory=memory if instance.is_adaptation else None,
        solver=solver,
        build_seconds=build_seconds,
        solve_seconds=solve_seconds,
        message=message,
        setup_seconds=setup_seconds,
        incumbent_source=method if incumbent_source is None else incumbent_source,
        bound_source=source,
    )


def empty_result(
    instance: VCInstance,
    *,
    method: str,
    status: SolveStatus,
    bound: float | None = None,
    solver: str = "",
    build_seconds: float = 0.0,
    solve_seconds: float = 0.0,
    message: str = "",
    setup_seconds: float = 0.0,
    bound_source: str = "",
) -> VCResult:
    """A result without a placement (infeasible, timed out with no incumbent, error).

    A ``bound`` is tightened by the LP bound (as for a placement).

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host.
    method : str
        The method name recorded in the result.
    status : SolveStatus
        Usually ``infeasible``, ``time_limit`` or ``error``.
    bound : float, optional
        A proven upper bound on the minimum yield, if the solver has one.
    solver : str, default ""
        Solver name recorded in the result.
    build_seconds, solve_seconds, setup_seconds : float, default 0.0
        Seconds spent building, solving and on one-time set-up.
    message : str, default ""
        Why there is no placement.
    bound_source : str, default ""
        What proved ``bound``.

    Returns
    -------
    VCResult
        Job names and task counts of the instance, no placement and no yields.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=1, cpu=[0.5, 0.5], mem=[0.6, 0.6])
    >>> r = empty_result(inst, method="milp", status=SolveStatus.INFEASIBLE,
    ...                  message="memory does not fit")
    >>> str(r.status), r.min_yield, r.task_hosts
    ('infeasible', None, None)
    """
    bound = _checked_bound("bound", bound)
    if bound is not None:
        from allockit.evaluation.lp_bound import lp_bound

        lp = lp_bound(instance)
        if lp is not None and lp < bound:
            bound, bound_source = lp, "lp"
    return VCResult(
        method=method,
        status=status,
        job_names=instance.job_names,
        tasks=instance.tasks,
        bound=bound,
        solver=solver,
        build_seconds=build_seconds,
        solve_seconds=solve_seconds,
        message=message,
        setup_seconds=setup_seconds,
        bound_source=bound_source,
    )
