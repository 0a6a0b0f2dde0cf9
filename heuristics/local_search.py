"""Local search on a VCSched placement: moves, swaps and two-host repartitions (numba)."""

from __future__ import annotations

import time

import numpy as np

from allockit.checks import MAX_INTEGER, integer
from allockit.clock import Deadline
from allockit.errors import InvalidInputError
from allockit.evaluation.placement import host_loads, placement_violation
from allockit.heuristics.common import load_kernels
from allockit.instances.vcsched import VCInstance

__all__ = ["improve_placement", "memory_first_fit"]

#: Most tasks on two hosts for the exact two-host repartition (2**(k-1) splits).
PAIR_LIMIT = 16


def improve_placement(
    instance: VCInstance,
    task_hosts: np.ndarray,
    *,
    stop_load: float = 0.0,
    time_limit: float | Deadline = 1.0,
    max_steps: int = 1_000_000,
    kicks: int = 200,
    kick_size: int = 3,
    pair_limit: int = PAIR_LIMIT,
    seed: int = 0,
) -> np.ndarray:
    """Lower the largest host CPU load of a valid placement by iterated local search.

    The bottleneck host (largest summed CPU need ``L_j``) is improved by the best of:
    moving one of its tasks to another host, swapping one of its tasks with a smaller
    one elsewhere, or, when neither helps, re-splitting its tasks and a partner's
    optimally (every split of at most ``pair_limit`` tasks is tried: multi-task
    moves). Memory is never over-committed. At a local optimum, ``kick_size`` random
    tasks move to random hosts with room and the descent starts again; the best
    placement is kept. The loop runs in chunks of ``kicks`` kicks until ``time_limit``
    seconds have passed, a chunk brings no improvement, or the largest load is at most
    ``stop_load`` (the bound: nothing better exists). The minimum yield of a placement
    is ``min(1, 1 / max_j L_j)``, so this raises it.

    Parameters
    ----------
    instance : VCInstance
        Hosts and jobs (CPU need per task in (0, 1], memory per task in [0, 1], as
        fractions of a host). Migration limits are not looked at: use it on instances
        without them.
    task_hosts : numpy.ndarray, shape (n_tasks,)
        A valid starting placement (host per task); not modified.
    stop_load : float, default 0.0
        Stop as soon as the largest load is at most this (e.g. ``1`` or ``1 / bound``).
    time_limit : float or Deadline, default 1.0
        Seconds (> 0) of search, or the caller's deadline, checked between chunks
        (a chunk is a few milliseconds on the paper's large set).
    max_steps : int, default 1,000,000
        Cap on host scans per chunk (each scan looks at the bottleneck host against
        every other; the chunk's budget also follows the measured time per scan, so a
        chunk ends well before ``time_limit``).
    kicks : int, default 200
        Random restarts per chunk.
    kick_size : int, default 3
        Tasks moved by a kick.
    pair_limit : int, default 16
        Most tasks on two hosts for the exact repartition (at most 24).
    seed : int, default 0
        Seed of the kicks (a chunk ``c`` uses ``seed + c``).

    Returns
    -------
    numpy.ndarray of int64, shape (n_tasks,)
        A valid placement whose largest load is at most the starting one.

    Raises
    ------
    InvalidInputError
        If ``task_hosts`` is not a valid placement, or an option is out of range.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.5, 0.4, 0.3], mem=[0.1] * 4)
    >>> start = np.array([0, 0, 1, 1])               # loads 1.1 and 0.7
    >>> better = improve_placement(inst, start, stop_load=0.9)
    >>> host_loads(inst, better)[0].round(6).tolist()
    [0.9, 0.9]
    """
    violation = placement_violation(instance, task_hosts)
    if violation is not None:
        raise InvalidInputError(f"task_hosts is not a valid placement: {violation}")
    task_hosts = np.asarray(task_hosts).astype(np.int64)  # (integer values: checked above)
    Deadline.of(time_limit)  # (checks the limit now; the clock starts below)
    pair_limit = integer("pair_limit", pair_limit, minimum=2, maximum=24)
    max_steps = integer("max_steps", max_steps, minimum=1)
    kicks = integer("kicks", kicks, minimum=0)
    kick_size = integer("kick_size", kick_size, minimum=1)
    seed = integer("seed", seed, minimum=0, maximum=2**64 - 1)  # (any seed the options take)
    load_kernels("local_search_kernel")  # (before the clock: compiling is not search time)
    deadline = Deadline.of(time_limit)
    from allockit.heuristics.local_search_kernels import local_search_kernel

    job = instance.task_job
    cpu = np.ascontiguousarray(instance.cpu[job], dtype=float)
    mem = np.ascontiguousarray(instance.mem[job], dtype=float)
    place = task_hosts.copy()
    best = float(host_loads(instance, place)[0].max()) if place.size else 0.0
    chunk = 0
    stale = 0
    # Each kernel call makes at most `budget` host scans; the budget follows the
    # measured seconds per scan so that a call ends well before the deadline.
    budget = 1
    per_scan = None
    while stale < 3 and best > stop_load:
        left = deadline.left()
        if left is not None and left <= 0:
            break
        if per_scan is not None:
            room = max_steps if left is None else 0.25 * left / per_scan
            budget = int(min(max_steps, max(1, room)))
        t0 = time.perf_counter()
        top, scans = local_search_kernel(
            cpu,
            mem,
            place,
            instance.hosts,
            float(stop_load),
            budget,
            int(kicks) if chunk else 0,
            int(kick_size),
            int(pair_limit),
            (seed + chunk) % MAX_INTEGER,  # (the kernel's int64; the same below 2**62)
        )
        spent = time.perf_counter() - t0
        if scans:
            per_scan = max(spent / scans, 1e-7)
        chunk += 1
        if top < best - 1e-15:
            best, stale = float(top), 0
        elif scans < budget and (chunk > 1 or kicks == 0):
            # the call ended on its own (local optimum, kicks used up): no progress
            stale += 1 if kicks else 3
    if placement_violation(instance, place) is not None:  # pragma: no cover - safety net
        return task_hosts.copy()
    return place


def memory_first_fit(instance: VCInstance) -> np.ndarray | None:
    """First-fit decreasing on memory alone: a valid placement when CPU-aware packing fails.

    Tasks in decreasing order of memory (then CPU) go to the first host whose memory
    still fits them; CPU is ignored (``improve_placement`` balances it afterwards).
    This finds a placement on memory-tight instances where MCB's packings fail.

    Parameters
    ----------
    instance : VCInstance
        Hosts and jobs (CPU need per task in (0, 1], memory per task in [0, 1], as
        fractions of a host).

    Returns
    -------
    numpy.ndarray of int64 or None
        A host per task (tasks listed job by job), or None if some task fits nowhere.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5] * 4, mem=[0.6, 0.5, 0.4, 0.5])
    >>> memory_first_fit(inst).tolist()
    [0, 1, 0, 1]
    """
    job = instance.task_job
    mem = instance.mem[job]
    cpu = instance.cpu[job]
    order = np.lexsort((np.arange(mem.size), -cpu, -mem))
    used = np.zeros(instance.hosts)
    out = np.empty(mem.size, dtype=np.int64)
    cap = 1.0 + 1e-12
    for t in order:
        fits = np.flatnonzero(used + mem[t] <= cap)
        if fits.size == 0:
            return None
        out[t] = fits[0]
        used[fits[0]] += mem[t]
    return out
