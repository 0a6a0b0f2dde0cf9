"""Compiled (numba) loops of the DFRS simulator's policies and state.

- ``greedy_start_kernel``: Greedy's placements of waiting jobs, in a given order, and
  ``greedy_waiting_kernel``: all of Greedy's pass over the waiting jobs after a
  completion (``dfrs_policies.GreedyPolicy.start_waiting``);
- ``mcb8_memory_prefix_kernel`` and ``mcb8_largest_yield_kernel``: MCB8's drop loop and
  its yield bisection (``dfrs_policies.Mcb8Policy``);
- ``mcb8_remap_kernel`` and ``mcb8_stretch_remap_kernel``: all of ``Mcb8Policy.remap``
  and of MCB8-stretch's (without ``hold``) in one call; their packings take each job's
  tasks as one group of identical tasks (``heuristics.mcb_kernels.mcb_fill_groups_kernel``:
  the same hosts as packing the tasks one by one, with trees over the jobs);
- ``start_kernel``: ``DfrsState.start_jobs`` (the starts of Greedy's pass);
- ``greedy_submit_kernel``: the choices of Greedy, GreedyP and GreedyPM on a submission
  (``dfrs_policies.GreedyPolicy.on_submit``), which the state then carries out;
- ``apply_kernel``: ``DfrsState.apply``'s array updates (``add_rows_kernel``: the
  memory and load updates of its numpy steps, kept for comparison).

Each does the same floating-point steps as the numpy or Python code it replaces, so
the schedules are the same (property tests in ``tests/simulation/test_dfrs.py`` and
``tests/simulation/test_dfrs_event_kernels.py``, against the Python steps kept behind
``Mcb8Policy.fused``, ``DfrsState.fused_apply``, ``GreedyPolicy.batch_starts`` and
``GreedyPolicy.fused_submit``).
"""

from __future__ import annotations

import numpy as np

from allockit.constants import MEM_EPS
from allockit.heuristics.greedy_kernels import greedy_fill_kernel
from allockit.heuristics.kernel_setup import njit, warm_inputs
from allockit.heuristics.mcb_kernels import mcb_fill_groups_kernel
from allockit.results.base import readonly_array
from allockit.simulation.allocation_kernels import index_row
from allockit.simulation.dfrs_event_kernels import (
    _sum,
    fit_mask_kernel,
    fits_kernel,
    greedy_mark_kernel,
)

__all__ = [
    "add_rows_kernel",
    "apply_kernel",
    "greedy_start_kernel",
    "greedy_submit_kernel",
    "greedy_waiting_kernel",
    "mcb8_largest_yield_kernel",
    "mcb8_memory_prefix_kernel",
    "mcb8_remap_kernel",
    "mcb8_stretch_remap_kernel",
    "start_kernel",
]


@warm_inputs(lambda: (
    # (the workload's tasks, CPU and memory arrays are read-only: their own signature)
    np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.bool_),
    readonly_array([1], np.int64), readonly_array([1.0], float), readonly_array([0.0], float),
    np.zeros(1), np.zeros(1),
))
@njit(cache=True)
def greedy_start_kernel(
    order: np.ndarray,
    shape: np.ndarray,
    dead: np.ndarray,
    tasks: np.ndarray,
    cpu: np.ndarray,
    mem: np.ndarray,
    load: np.ndarray,
    mem_used: np.ndarray,
):
    """DFRS Greedy's pass over waiting jobs: start, in ``order``, each job that fits.

    A job fits when ``sum_n floor((1 - mem_used[n] + MEM_EPS) / mem) >= tasks`` (any
    job with memory at most ``MEM_EPS`` fits: ``DfrsState.fits``); it then goes where
    ``greedy_fill_kernel`` puts its tasks on the current CPU ``load`` and free memory,
    and ``mem_used`` and ``load`` grow by its tasks per node times its memory and CPU
    need (in place, as ``DfrsState.place``). Jobs of one ``shape`` (memory per task and
    tasks) fit or not together, and starting a job only takes memory: a shape found not
    to fit is marked in ``dead`` (in place) and its jobs are skipped, as are those of
    shapes marked before the call. Returns the started jobs (in ``order``'s order) and
    their tasks per node (float rows).
    """
    nodes = load.shape[0]
    started = np.empty(order.shape[0], dtype=np.int64)
    rows = np.zeros((order.shape[0], nodes))
    count = 0
    for j in order:
        if dead[shape[j]]:
            continue
        m = mem[j]
        k = tasks[j]
        if m > MEM_EPS:
            slots = 0.0
            for n in range(nodes):
                slots += np.floor((1.0 - mem_used[n] + MEM_EPS) / m)
            if slots < k:
                dead[shape[j]] = True
                continue
        row = rows[count]
        if not _greedy_row(j, cpu, mem, tasks, load, mem_used, row):
            continue  # (the fit count and Greedy's placements differ by rounding: waits)
        _add_row(mem_used, load, row, m, cpu[j], 1.0)
        started[count] = j
        count += 1
    return started[:count].copy(), rows[:count].copy()


@warm_inputs(lambda: (
    readonly_array([0], np.int64), readonly_array([0.0], float), readonly_array([0.0], float),
    readonly_array([1], np.int8), readonly_array([0], np.int64), np.zeros(1, dtype=np.int64),
    np.full(1, 0.5), np.ones(1, dtype=np.int64), np.ones(1, dtype=np.int64), 1.0,
    readonly_array([1], np.int64), readonly_array([1.0], float), readonly_array([0.5], float),
    np.zeros(1), np.zeros(1), 64,
))
@njit(cache=True)
def greedy_waiting_kernel(
    active: np.ndarray,
    active_vt: np.ndarray,
    active_submit: np.ndarray,
    active_status: np.ndarray,
    active_shape: np.ndarray,
    shape: np.ndarray,
    shape_mem: np.ndarray,
    shape_tasks: np.ndarray,
    waiting_per_shape: np.ndarray,
    now: float,
    tasks: np.ndarray,
    cpu: np.ndarray,
    mem: np.ndarray,
    load: np.ndarray,
    mem_used: np.ndarray,
    chunk: int,
):
    """All of DFRS Greedy's pass over the waiting jobs (``GreedyPolicy.start_waiting``):
    the started jobs, in the order they start, and their tasks per node (float rows).

    The steps of the chunked pass, in one call: the shapes (memory per task, tasks)
    with waiting jobs that fit the free memory (``fit_mask_kernel``); the waiting
    ``active`` jobs of those shapes and their keys (``_priority_key``), read from the
    active jobs' virtual times, submission times, statuses and shapes
    (``DfrsState.active_view``); then, ``chunk``
    jobs at a time in priority order (``_first_by_priority``), ``greedy_start_kernel``,
    which updates ``mem_used`` and ``load`` in place; after a chunk that started a
    job, the shapes left are tested again and the jobs of those that no longer fit
    are dropped.
    """
    nodes = load.shape[0]
    none = np.empty(0, dtype=np.int64)
    shapes = np.flatnonzero(waiting_per_shape)
    fit = fit_mask_kernel(1.0 - mem_used, shape_mem[shapes], shape_tasks[shapes])
    dead = np.ones(shape_mem.shape[0], dtype=np.bool_)
    alive = 0
    for i in range(shapes.shape[0]):
        if fit[i]:
            dead[shapes[i]] = False
            alive += 1
    if alive == 0:
        return none, np.zeros((0, nodes))
    jobs = np.empty(active.shape[0], dtype=np.int64)
    keys = np.empty(active.shape[0])
    shapes_of = np.empty(active.shape[0], dtype=np.int64)  # (read in sequence below)
    n = 0
    for i in range(active.shape[0]):
        if active_status[i] == 1 and not dead[active_shape[i]]:  # (1: WAITING)
            jobs[n] = active[i]
            keys[n] = _priority_key(active_vt[i], active_submit[i], now)
            shapes_of[n] = active_shape[i]
            n += 1
    jobs, keys = jobs[:n], keys[:n]
    started = np.empty(jobs.shape[0], dtype=np.int64)
    rows = np.zeros((min(jobs.shape[0], chunk), nodes))
    count = 0
    while jobs.shape[0]:
        first, taken = _first_taken(jobs, keys, chunk)
        if first.shape[0] == 0:  # (NaN keys only: never taken)
            break
        got, got_rows = greedy_start_kernel(
            first, shape, dead, tasks, cpu, mem, load, mem_used
        )
        if count + got.shape[0] > rows.shape[0]:
            grown = np.zeros((max(2 * rows.shape[0], count + got.shape[0]), nodes))
            grown[:count] = rows[:count]
            rows = grown
        started[count : count + got.shape[0]] = got
        rows[count : count + got.shape[0]] = got_rows
        count += got.shape[0]
        if first.shape[0] == jobs.shape[0]:
            break
        if got.shape[0]:  # memory was taken: test the shapes left again
            left = np.flatnonzero(~dead)
            again = fit_mask_kernel(1.0 - mem_used, shape_mem[left], shape_tasks[left])
            alive = 0
            for i in range(left.shape[0]):
                dead[left[i]] = not again[i]
                if again[i]:
                    alive += 1
            if alive == 0:  # (no job left fits: the pass ends without the compaction)
                break
        keep = 0
        for i in range(jobs.shape[0]):
            if not taken[i] and not dead[shapes_of[i]]:
                jobs[keep] = jobs[i]
                keys[keep] = keys[i]
                shapes_of[keep] = shapes_of[i]
                keep += 1
        jobs, keys = jobs[:keep], keys[:keep]
    return started[:count].copy(), rows[:count].copy()


@njit(cache=True)
def _failed(placed: np.ndarray) -> bool:
    """Did a packing kernel fail (its placement all -1)?"""
    return placed.shape[0] > 0 and placed[0] < 0


@njit(cache=True)
def _fill_groups(
    cpu_req: np.ndarray, mem: np.ndarray, count: np.ndarray, free_cpu: np.ndarray,
    free_mem: np.ndarray,
):
    """``heuristics.mcb.mcb_fill`` (MCB8: key max, descending) of ``count[g]`` tasks of
    needs ``(cpu_req[g], mem[g])`` per group ``g``, tasks numbered group by group: a host
    per task, or all -1.

    The lists are those of a stable sort of the tasks by decreasing key (a group's tasks
    share a key, so they stay side by side, and groups keep their order among equal
    keys): sorting the groups gives them, and ``mcb_fill_groups_kernel`` packs them, the
    answer of ``mcb_fill`` on the tasks themselves.
    """
    n = cpu_req.shape[0]
    keys = np.maximum(cpu_req, mem)
    order = np.argsort(-keys, kind="mergesort")
    n_cpu = 0
    for g in range(n):
        if cpu_req[g] > mem[g]:
            n_cpu += 1
    cpu_list = np.empty(n_cpu, dtype=np.int64)
    mem_list = np.empty(n - n_cpu, dtype=np.int64)
    a = 0
    b = 0
    for k in range(n):
        g = order[k]
        if cpu_req[g] > mem[g]:
            cpu_list[a] = g
            a += 1
        else:
            mem_list[b] = g
            b += 1
    return mcb_fill_groups_kernel(cpu_req, mem, count, cpu_list, mem_list, free_cpu, free_mem)


@njit(cache=True)
def _mcb8_fill_at(
    target: float, cpu: np.ndarray, mem: np.ndarray, count: np.ndarray,
    base_load: np.ndarray, free_mem: np.ndarray,
) -> np.ndarray:
    """MCB8 (``key="max"``, descending) of ``count[g]`` tasks needing ``target * cpu[g]``
    and ``mem[g]`` per group ``g`` (tasks numbered group by group) on hosts with
    ``base_load`` CPU already used at yield ``target``; all -1 if it fails."""
    free_cpu = 1.0 - target * base_load
    for h in range(free_cpu.shape[0]):
        if free_cpu[h] < -MEM_EPS:
            return np.full(max(_total(count), 1), -1, dtype=np.int64)
    return _fill_groups(target * cpu, mem, count, free_cpu, free_mem)


@njit(cache=True)
def _total(count: np.ndarray) -> int:
    total = 0
    for g in range(count.shape[0]):
        total += count[g]
    return total


@warm_inputs(lambda: (
    np.zeros(1, dtype=np.bool_), np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64),
    np.zeros(1), np.zeros((0, 1)),
))
@njit(cache=True)
def mcb8_memory_prefix_kernel(
    pinned: np.ndarray,
    index: np.ndarray,
    tasks: np.ndarray,
    mem: np.ndarray,
    pinned_rows: np.ndarray,
) -> int:
    """The longest prefix of a priority list whose memory MCB8 packs (DFRS's MCB8 drop loop).

    Jobs ``0..K-1`` in priority order: ``pinned`` ones keep their tasks per node
    (``pinned_rows``, one row per pinned job in list order), the others are packed by
    MCB8 at yield 0 (memory alone) around them, tasks in job ``index`` order. Tries
    ``K``, then drops the last job and tries again: the ``k`` of the first prefix that
    packs, 0 if none (yield 0 needs no CPU: the jobs' CPU needs do not matter).

    The answer of ``_mcb8_fill_at(0, ...)`` on each prefix, without packing each one
    from scratch: at yield 0 every task is on MCB8's memory list, sorted by decreasing
    memory, and each node in turn takes the first task of the list that fits its free
    memory until none does. So only how many tasks of each memory size are left
    matters: the sizes are counted once (``_memory_fill_fits``) and a dropped job
    takes its tasks off its size. The same floating-point steps as the full packing
    (free memory per node, the pinned jobs' memory summed in list order, the packing's
    early stop on total memory), so the same answer.
    """
    total = pinned.shape[0]
    nodes = pinned_rows.shape[1]
    # memory sizes of the movable jobs, largest first, and each job's size class
    n_movable = 0
    for i in range(total):
        if not pinned[i]:
            n_movable += 1
    movable = np.empty(n_movable, dtype=np.int64)
    c = 0
    for i in range(total):
        if not pinned[i]:
            movable[c] = i
            c += 1
    sizes = np.unique(mem[movable])[::-1].copy()
    size_of = np.zeros(total, dtype=np.int64)
    count = np.zeros(sizes.shape[0], dtype=np.int64)
    for i in movable:
        cls = sizes.shape[0] - 1 - np.searchsorted(sizes[::-1], mem[i])
        size_of[i] = cls
        count[cls] += tasks[i]
    by_index = movable[np.argsort(index[movable])]  # the packing's task order
    # pinned memory per node of the first p pinned jobs, summed in list order
    n_pinned = total - n_movable
    pinned_mem = np.zeros((n_pinned + 1, nodes))
    p = 0
    for i in range(total):
        if pinned[i]:
            for n in range(nodes):
                pinned_mem[p + 1, n] = pinned_mem[p, n] + pinned_rows[p, n] * mem[i]
            p += 1
    for k in range(total, 0, -1):
        if _memory_fill_fits(k, by_index, tasks, mem, sizes, count, 1.0 - pinned_mem[p]):
            return k
        i = k - 1  # drop the last job
        if pinned[i]:
            p -= 1
        else:
            count[size_of[i]] -= tasks[i]
    return 0


@njit(cache=True)
def _memory_fill_fits(
    k: int,
    by_index: np.ndarray,
    tasks: np.ndarray,
    mem: np.ndarray,
    sizes: np.ndarray,
    count: np.ndarray,
    free_mem0: np.ndarray,
) -> bool:
    """Does ``mcb_fill_kernel`` place every task at yield 0 (memory only)?

    The tasks are ``count[c]`` of memory ``sizes[c]`` (sizes decreasing); those of the
    jobs ``by_index`` before position ``k``, in that order, give the packing's running
    total. Nodes in turn take the largest task that fits (``free + MEM_EPS``), the
    packing's "first fitting task of the sorted memory list"; the CPU list is empty and
    CPU never binds at yield 0.
    """
    left = 0
    for c in range(count.shape[0]):
        left += count[c]
    if left == 0:
        return True
    need_mem = 0.0  # (summed task by task in the packing's order)
    for i in by_index:
        if i < k:
            for _ in range(tasks[i]):
                need_mem += mem[i]
    hosts = free_mem0.shape[0]
    room_mem = np.zeros(hosts + 1)  # free memory of nodes h.. (the packing's early stop)
    for h in range(hosts - 1, -1, -1):
        room_mem[h] = room_mem[h + 1] + max(free_mem0[h], 0.0)
    rest = count.copy()
    first = 0  # the largest size with tasks left
    for h in range(hosts):
        if need_mem > room_mem[h] + left * MEM_EPS:
            return False
        free_mem = free_mem0[h]
        c = first
        while left > 0:
            cap = free_mem + MEM_EPS
            while c < rest.shape[0] and (rest[c] == 0 or sizes[c] > cap):
                c += 1
            if c == rest.shape[0]:
                break
            rest[c] -= 1
            free_mem -= sizes[c]
            need_mem -= sizes[c]
            left -= 1
        if left == 0:
            return True
        while first < rest.shape[0] and rest[first] == 0:
            first += 1
    return False


@warm_inputs(lambda: (
    # (zero_packs given: DFRS passes it, and an omitted argument is another signature)
    np.ones(1), np.zeros(1), np.zeros(1), np.ones(1), 1.0, 0.01, False
))
@njit(cache=True)
def mcb8_largest_yield_kernel(
    cpu: np.ndarray,
    mem: np.ndarray,
    base_load: np.ndarray,
    free_mem: np.ndarray,
    hi: float,
    accuracy: float,
    zero_packs: bool = False,
):
    """The MCB8 packing at the largest yield in ``[0, hi]`` that packs (DFRS's MCB8).

    Compiled twin of ``heuristics.mcb.largest_target(..., zero_first=True)``
    with ``mcb_fill`` at ``target * cpu`` on hosts whose pinned tasks use ``target *
    base_load`` CPU and leave ``free_mem``: yield 0 first (its failure ends the search),
    then ``hi``, then bisection until the bracket is narrower than ``accuracy``. The same
    floating-point steps, so the same placement. Returns ``(found, placement)``.
    ``zero_packs=True`` says the caller knows yield 0 packs (``mcb8_memory_prefix_kernel``
    said so): its packing is then computed only if it is the answer.
    """
    return _largest_yield(
        cpu, mem, np.ones(cpu.shape[0], dtype=np.int64), base_load, free_mem, hi, accuracy,
        zero_packs,
    )


@njit(cache=True)
def _largest_yield(
    cpu: np.ndarray,
    mem: np.ndarray,
    count: np.ndarray,
    base_load: np.ndarray,
    free_mem: np.ndarray,
    hi: float,
    accuracy: float,
    zero_packs: bool,
):
    """``mcb8_largest_yield_kernel`` on groups of ``count[g]`` identical tasks (numbered
    group by group): the same search, each packing ``_mcb8_fill_at``'s."""
    if not zero_packs:
        zero = _mcb8_fill_at(0.0, cpu, mem, count, base_load, free_mem)
        if _failed(zero):
            return False, zero
    best = _mcb8_fill_at(hi, cpu, mem, count, base_load, free_mem)
    if not _failed(best):
        return True, best
    found = False
    lo = 0.0
    for _ in range(200):
        if hi - lo < accuracy:
            break
        mid = 0.5 * (lo + hi)
        placed = _mcb8_fill_at(mid, cpu, mem, count, base_load, free_mem)
        if _failed(placed):
            hi = mid
        else:
            lo = mid
            best = placed
            found = True
    if not found:
        best = _mcb8_fill_at(0.0, cpu, mem, count, base_load, free_mem)  # (as zero)
        if _failed(best):
            return False, best
    return True, best


@warm_inputs(lambda: (
    np.zeros(1), np.zeros(1), np.ones((1, 1)), np.ones(1), np.ones(1), np.ones(1)
))
@njit(cache=True)
def add_rows_kernel(
    mem_used: np.ndarray,
    load: np.ndarray,
    rows: np.ndarray,
    mem: np.ndarray,
    cpu: np.ndarray,
    sign: np.ndarray,
) -> None:
    """``mem_used += sign[i] * rows[i] * mem[i]`` and the same for ``load``, row by row.

    In place, in row order, each product rounded before the sum, as numpy's
    ``mem_used += rows[i] * mem[i]`` (or ``-=`` for ``sign[i] < 0``) one row at a time:
    the same floating-point results.
    """
    for i in range(rows.shape[0]):
        _add_row(mem_used, load, rows[i], mem[i], cpu[i], sign[i])


@njit(cache=True)
def _add_row(
    mem_used: np.ndarray, load: np.ndarray, row: np.ndarray, m: float, c: float, sign: float
) -> None:
    """``mem_used += row * m`` and ``load += row * c`` (``-=`` for ``sign < 0``), in place."""
    if sign > 0:
        for n in range(row.shape[0]):
            mem_used[n] += row[n] * m
            load[n] += row[n] * c
    else:
        for n in range(row.shape[0]):
            mem_used[n] -= row[n] * m
            load[n] -= row[n] * c


_FLOAT_MAX = np.finfo(np.float64).max


@njit(cache=True, error_model="numpy")
def _priority_key(v: float, submitted: float, now: float) -> float:
    """``dfrs_priority.priority_key``'s number for one job of virtual time ``v``:
    ``-flow/vt²`` (finite), ``-inf`` at zero vt.

    IEEE division (numba's numpy error model): a virtual time so small that ``vt²``
    is 0 gives ``-inf``, kept at ``-FLOAT_MAX`` as ``numpy.maximum`` keeps it (and a
    NaN stays NaN, as there).
    """
    if v > 0.0:
        key = -(now - submitted) / (v * v)
        return key if key != key else max(key, -_FLOAT_MAX)
    return -np.inf


@njit(cache=True, error_model="numpy")
def _priority_keys_of(vt: np.ndarray, submit: np.ndarray, now: float):
    """``dfrs_priority.priority_keys`` of the jobs whose virtual and submission times
    are ``vt[i]`` and ``submit[i]`` (``DfrsState.active_view``'s copies)."""
    keys = np.empty(vt.shape[0])
    for i in range(vt.shape[0]):
        keys[i] = _priority_key(vt[i], submit[i], now)
    return keys


@njit(cache=True)
def _first_by_priority(jobs: np.ndarray, keys: np.ndarray, count: int):
    """``dfrs_priority.first_by_priority``: the first ``count`` jobs in order, and
    whether some were left out (``_first_taken`` without the mask)."""
    n = jobs.shape[0]
    if count < 1 or count >= n:
        first, _ = _first_taken(jobs, keys, count)
        return first, first.shape[0] < n
    return jobs[_first_positions(keys, count, SAMPLED_MIN_JOBS)], True


@njit(cache=True)
def _first_taken(jobs: np.ndarray, keys: np.ndarray, count: int):
    """``dfrs_priority.first_by_priority``: the first ``count`` jobs in order, and the
    mask of those taken (all of them when ``count`` covers every job).

    The ``count`` smallest (key, position) pairs in order (``_first_positions``).
    NaN keys come last in the order; if fewer than ``count`` keys are numbers (and
    ``count`` is below the number of jobs), none is taken (the heap never fills).
    """
    return _first_taken_cut(jobs, keys, count, SAMPLED_MIN_JOBS)


@njit(cache=True)
def _first_taken_cut(jobs: np.ndarray, keys: np.ndarray, count: int, min_jobs: int):
    """``_first_taken``, cutting lists of at least ``min_jobs`` keys (tests set it low)."""
    n = jobs.shape[0]
    if count < 1:  # (the callers take at least one; none asked, none taken)
        return jobs[:0].copy(), np.zeros(n, np.bool_)
    if count >= n:
        return jobs[np.argsort(keys, kind="mergesort")], np.ones(n, np.bool_)
    order = _first_positions(keys, count, min_jobs)
    taken = np.zeros(n, np.bool_)
    for h in range(order.shape[0]):
        taken[order[h]] = True
    return jobs[order], taken


@njit(cache=True)
def _first_positions(keys: np.ndarray, count: int, min_jobs: int) -> np.ndarray:
    """The positions of the ``count`` smallest (key, position) pairs, in that order (a
    stable sort's first ``count``), for ``0 < count < len(keys)``; none if fewer than
    ``count`` keys are numbers (NaN keys are never taken).

    A list of at least ``min_jobs`` keys is cut first (``_sampled_bound``): if at least
    ``count`` keys are at most a bound, the first ``count`` pairs are among them (every
    other key is larger than the ``count``-th smallest), so only those go to
    ``_smallest_in_order``; otherwise all keys do. Any bound gives the same answer; a
    good one only makes it faster.
    """
    n = keys.shape[0]
    positions = np.empty(n, dtype=np.int64)
    if n >= min_jobs and n >= SAMPLED_MIN_RATIO * count:
        bound = _sampled_bound(keys, count)
        if bound == bound:  # (not NaN)
            m = 0
            for i in range(n):
                if keys[i] <= bound:
                    positions[m] = i
                    m += 1
            if m >= count:
                return _smallest_in_order(keys, positions[:m], count)
    for i in range(n):
        positions[i] = i
    return _smallest_in_order(keys, positions, count)


#: ``_first_positions`` cuts a list first when it holds at least this many keys, and this
#: many times ``count`` (below, one pass of the heap costs about as much as the cut).
SAMPLED_MIN_JOBS = 2048
SAMPLED_MIN_RATIO = 8
#: keys in the sample of ``_sampled_bound`` (about; every ``n // SAMPLE`` th key)
SAMPLE = 1024


@njit(cache=True)
def _sampled_bound(keys: np.ndarray, count: int) -> float:
    """A key likely to have between ``count`` and ``2 * count`` keys at most it (or NaN).

    From every ``step``-th key (about ``SAMPLE`` of them): the sample's ``rank``-th
    smallest, with ``rank * step`` about 1.5 times ``count`` (NaN keys last, as in
    ``numpy.partition``). Only a guess, which ``_first_positions`` checks by counting (a
    NaN from the sample: no guess).
    """
    n = keys.shape[0]
    step = max(1, n // SAMPLE)
    sample = np.empty((n + step - 1) // step)
    m = 0
    for i in range(0, n, step):
        k = keys[i]
        if k == k:  # (NaN keys left out: they would come last)
            sample[m] = k
            m += 1
    rank = min(sample.shape[0], (3 * count) // (2 * step) + 4)
    if rank > m:
        return np.nan
    return _select(sample[:m], rank - 1)


@njit(cache=True)
def _select(values: np.ndarray, k: int) -> float:
    """The ``k``-th smallest (from 0) of ``values`` (no NaN), for ``0 <= k < len(values)``
    (not checked: ``_sampled_bound`` asks for a rank it has).

    One pass with a max-heap of the ``k + 1`` smallest values seen: a value enters
    only when it is below the largest kept, so for a small ``k`` (the sampled bound's
    rank is a few dozen of about a thousand keys) most values cost one comparison.
    """
    size = k + 1
    heap = np.empty(size)
    for i in range(size):  # the first k + 1 values, sifted up
        v = values[i]
        c = i
        while c > 0:
            parent = (c - 1) >> 1
            if not heap[parent] < v:
                break
            heap[c] = heap[parent]
            c = parent
        heap[c] = v
    for i in range(size, values.shape[0]):
        v = values[i]
        if not v < heap[0]:
            continue
        c = 0  # v replaces the top, sifted down
        while True:
            child = 2 * c + 1
            if child >= size:
                break
            if child + 1 < size and heap[child + 1] > heap[child]:
                child += 1
            if not heap[child] > v:
                break
            heap[c] = heap[child]
            c = child
        heap[c] = v
    return heap[0]


@njit(cache=True)
def _smallest_in_order(keys: np.ndarray, positions: np.ndarray, count: int) -> np.ndarray:
    """Of ``positions`` (increasing), the ``count`` whose (key, position) pairs are the
    smallest, in that order; none if fewer than ``count`` of their keys are numbers.

    One pass with a max-heap of the ``count`` smallest pairs seen, from the last
    position to the first (the newest jobs, which lead the order behind a long backlog
    of jobs that have run, come first and keep most keys out); a key enters when it is
    at most the largest kept, since its position is earlier (ties go to the earlier
    position, as in a stable sort). Then the heap is sorted in place (heapsort).
    """
    m = positions.shape[0]
    hk = np.empty(count)
    hp = np.empty(count, dtype=np.int64)
    size = 0
    top = np.inf
    for r in range(m - 1, -1, -1):  # (backwards: the late jobs, newest, lead)
        i = positions[r]
        k = keys[i]
        if k != k:
            continue
        if size < count:
            c = size  # sift up
            size += 1
            while c > 0:
                parent = (c - 1) >> 1
                if not hk[parent] < k:  # (a tie: the parent's position is later, larger)
                    break
                hk[c], hp[c] = hk[parent], hp[parent]
                c = parent
        elif k <= top:  # (i is before every kept position: a tie is smaller)
            c = 0  # sift down from the top, which i replaces
            while True:
                child = 2 * c + 1
                if child >= count:
                    break
                other = child + 1
                if other < count and (
                    hk[other] > hk[child] or (hk[other] == hk[child] and hp[other] > hp[child])
                ):
                    child = other
                if not hk[child] >= k:  # (a tie: the child's position is later, larger)
                    break
                hk[c], hp[c] = hk[child], hp[child]
                c = child
        else:
            continue
        hk[c], hp[c] = k, i
        top = hk[0]
    if size < count:
        return hp[:0].copy()
    for end in range(count - 1, 0, -1):  # the largest pair left goes to the end
        k, i = hk[end], hp[end]
        hk[end], hp[end] = hk[0], hp[0]
        c = 0  # sift (k, i) down from the top of the heap hk[:end]
        while True:
            child = 2 * c + 1
            if child >= end:
                break
            other = child + 1
            if other < end and (
                hk[other] > hk[child] or (hk[other] == hk[child] and hp[other] > hp[child])
            ):
                child = other
            if hk[child] < k or (hk[child] == k and hp[child] < i):
                break
            hk[c], hp[c] = hk[child], hp[child]
            c = child
        hk[c], hp[c] = k, i
    return hp


@njit(cache=True)
def _memory_prefix(order: np.ndarray, tasks: np.ndarray, mem: np.ndarray, nodes: int) -> int:
    """``dfrs_policies.memory_prefix``: how many of ``order`` may fit in memory together."""
    total = 0.0
    big = 0
    for i in range(order.shape[0]):
        j = order[i]
        total += tasks[j] * mem[j]
        if mem[j] > 0.5 + MEM_EPS:
            big += tasks[j]
        if not (total <= nodes + 1e-9 and big <= nodes):
            return i
    return order.shape[0]


@njit(cache=True)
def _sum_rows_into(out: np.ndarray, pool: np.ndarray, slots: np.ndarray, weight: np.ndarray):
    """``dfrs_policies._sum_rows``: ``out = rows[0] * w[0] + rows[1] * w[1] + ...``."""
    for n in range(out.shape[0]):
        out[n] = 0.0
    for i in range(slots.shape[0]):
        row = pool[slots[i]]
        if i == 0:
            for n in range(out.shape[0]):
                out[n] = row[n] * weight[i]
        else:
            for n in range(out.shape[0]):
                out[n] += row[n] * weight[i]


@njit(cache=True)
def _sum_indexed_rows_into(
    out: np.ndarray, pool: np.ndarray, nz: np.ndarray, slots: np.ndarray, weight: np.ndarray
):
    """``_sum_rows_into`` reading only the indexed nonzero entries of the pool's rows.

    The same bits: the skipped terms are ``+0.0`` (whole task counts times a memory or
    CPU share, never negative), which leave a sum of such terms unchanged.
    """
    for n in range(out.shape[0]):
        out[n] = 0.0
    for i in range(slots.shape[0]):
        s = slots[i]
        for e in range(1, nz[s, 0] + 1):
            n = nz[s, e]
            out[n] += pool[s, n] * weight[i]


@njit(cache=True)
def _copy_indexed_row(out: np.ndarray, pool: np.ndarray, nz: np.ndarray, s: int) -> None:
    """Row ``s`` of the indexed pool into ``out``, a row of zeros (its nonzero entries)."""
    for e in range(1, nz[s, 0] + 1):
        n = nz[s, e]
        out[n] = pool[s, n]


@njit(cache=True)
def _remap_keep(
    active: np.ndarray,
    active_vt: np.ndarray,
    active_submit: np.ndarray,
    status: np.ndarray,
    vt: np.ndarray,
    submit: np.ndarray,
    tasks: np.ndarray,
    mem: np.ndarray,
    pool: np.ndarray,
    nz: np.ndarray,
    slot: np.ndarray,
    nodes: int,
    now: float,
    minvt: float,
    minft: float,
):
    """The start of both MCB8 remaps: the jobs that may fit, by priority (``_leaders``),
    which of them are pinned (``pinned``) and how many MCB8 packs at yield 0
    (``_memory_fit``)."""
    keys = _priority_keys_of(active_vt, active_submit, now)
    want = 2 * nodes + 16
    while True:
        first, more = _first_by_priority(active, keys, want)
        cut = _memory_prefix(first, tasks, mem, nodes)
        if cut < first.shape[0] or not more:
            keep = first[:cut].copy()
            break
        want *= 4
    pinned = np.zeros(keep.shape[0], dtype=np.bool_)
    n_pinned = 0
    for i in range(keep.shape[0]):
        j = keep[i]
        if status[j] == 2 and (vt[j] < minvt or now - submit[j] < minft):  # RUNNING
            pinned[i] = True
            n_pinned += 1
    pinned_rows = np.zeros((n_pinned, nodes))
    p = 0
    for i in range(keep.shape[0]):
        if pinned[i]:
            _copy_indexed_row(pinned_rows[p], pool, nz, slot[keep[i]])
            p += 1
    size = 0
    if keep.shape[0]:
        size = mcb8_memory_prefix_kernel(
            pinned, keep, tasks[keep], mem[keep], pinned_rows
        )
    return keep, pinned, size


@warm_inputs(lambda: (
    readonly_array([0], np.int64), readonly_array([0.0], float), readonly_array([0.0], float),
    np.zeros(1, dtype=np.int8), np.zeros(1),
    readonly_array([0.0], float), readonly_array([1], np.int64), readonly_array([1.0], float),
    readonly_array([1.0], float), np.zeros((1, 1)), np.zeros((1, 2), dtype=np.int32),
    np.full(1, -1, dtype=np.int64), 1, 0.0, -np.inf, -np.inf, 0.01,
))
@njit(cache=True)
def mcb8_remap_kernel(
    active: np.ndarray,
    active_vt: np.ndarray,
    active_submit: np.ndarray,
    status: np.ndarray,
    vt: np.ndarray,
    submit: np.ndarray,
    tasks: np.ndarray,
    mem: np.ndarray,
    cpu: np.ndarray,
    pool: np.ndarray,
    nz: np.ndarray,
    slot: np.ndarray,
    nodes: int,
    now: float,
    minvt: float,
    minft: float,
    accuracy: float,
):
    """DFRS MCB8's remap (``dfrs_policies.Mcb8Policy.remap`` without ``hold``) in one call.

    The jobs in the system (``active``, by index; ``active_vt`` and ``active_submit``:
    their virtual and submission times, ``DfrsState.active_view``) in priority order,
    cut to the prefix
    that may fit in memory and then to the one MCB8 packs at yield 0; the running jobs
    with virtual time below ``minvt`` or submitted less than ``minft`` seconds ago
    (``-inf``: no such rule) keep their rows (``pool[slot[j]]``, read through the pool's
    index ``nz``, ``dfrs_rows.RowPool.indexed``); the others are packed
    by MCB8 around them at the largest yield that packs, dropping the last job until
    one does. Each step is the compiled twin of the policy's Python step (the same
    floating-point operations in the same order), so the mapping is the same.

    Returns ``(jobs, rows)``: the mapped jobs (the pinned ones in priority order, then
    the others by index) and their tasks per node; no jobs if nothing packs.
    """
    keep, pinned, size = _remap_keep(
        active, active_vt, active_submit, status, vt, submit, tasks, mem, pool, nz, slot,
        nodes, now, minvt, minft,
    )
    zero_packs = True
    base_mem = np.empty(nodes)
    base_load = np.empty(nodes)
    while size > 0:
        order = keep[:size]
        is_pinned = pinned[:size]
        fixed = order[is_pinned]
        movable = np.sort(order[~is_pinned])
        fixed_slots = slot[fixed]
        _sum_indexed_rows_into(base_mem, pool, nz, fixed_slots, mem[fixed])
        _sum_indexed_rows_into(base_load, pool, nz, fixed_slots, cpu[fixed])
        need = np.empty(size)
        for i in range(size):
            need[i] = cpu[order[i]] * tasks[order[i]]
        hi = min(1.0, nodes / _sum(need, size))
        # the movable jobs' tasks, job by job, packed as groups of identical tasks
        count = tasks[movable]
        found, placed = _largest_yield(
            cpu[movable], mem[movable], count, base_load, 1.0 - base_mem, hi, accuracy,
            zero_packs,
        )
        if found:
            rows = np.zeros((size, nodes))
            for i in range(fixed.shape[0]):
                _copy_indexed_row(rows[i], pool, nz, fixed_slots[i])
            t = 0
            for m in range(movable.shape[0]):
                for _ in range(count[m]):
                    rows[fixed.shape[0] + m, placed[t]] += 1.0
                    t += 1
            return np.concatenate((fixed, movable)), rows
        size -= 1
        zero_packs = False
    return np.zeros(0, dtype=np.int64), np.zeros((0, nodes))


@warm_inputs(lambda: (
    np.zeros(1, dtype=np.int64), np.ones((1, 1)), np.full(1, -1, dtype=np.int64),
    readonly_array([], np.int64),
    np.ones(1, dtype=np.int8), np.zeros((1, 1)), np.zeros((1, 2), dtype=np.int32),
    np.zeros(1, dtype=np.int64), np.zeros(1),
    np.zeros(1), readonly_array([1.0], float), readonly_array([1.0], float),
    readonly_array([1], np.int64), np.zeros(1, dtype=np.int64),
    np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1), np.zeros(1),
    np.zeros(1, dtype=np.int64), np.zeros(1), np.zeros(1, dtype=np.bool_),
    np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(1),
    0.0, 300.0, 1.0, 0.0, 0.0,
))
@njit(cache=True)
def apply_kernel(
    jobs: np.ndarray,
    rows: np.ndarray,
    where: np.ndarray,
    running: np.ndarray,
    status: np.ndarray,
    pool: np.ndarray,
    nz: np.ndarray,
    slot: np.ndarray,
    mem_used: np.ndarray,
    load: np.ndarray,
    mem: np.ndarray,
    cpu: np.ndarray,
    tasks: np.ndarray,
    shape: np.ndarray,
    waiting_per_shape: np.ndarray,
    n_preempt: np.ndarray,
    yields: np.ndarray,
    last_move: np.ndarray,
    n_migrate: np.ndarray,
    penalty_until: np.ndarray,
    ever_ran: np.ndarray,
    n_resume_elsewhere: np.ndarray,
    n_resume: np.ndarray,
    start: np.ndarray,
    now: float,
    penalty: float,
    node_memory: float,
    bytes_migrate: float,
    bytes_preempt: float,
):
    """``DfrsState._apply``'s arrays in one pass: the system moves to ``jobs`` -> ``rows``.

    ``where`` is -1 for every job, and is again on return (``where[j]`` is job ``j``'s
    place in ``jobs`` meanwhile); ``running`` are the running jobs by index; every
    waiting job of ``jobs`` has a slot in ``pool`` already (``nz``: the pool's index of
    nonzero entries, ``dfrs_rows.RowPool.indexed``, kept up to date for the rows
    written). Running jobs not mapped are paused, those whose row changes migrate, the
    waiting ones of ``jobs`` start or resume (index order); every per-job array, the
    memory and load (releases, then the moves' new rows, then the starts, each in index
    order) and the byte counts (added job by job in that order) are updated in place
    with the floating-point steps of the numpy code. The Python set of running jobs and
    the count of waiting jobs (``DfrsState.n_waiting``) are the caller's.

    Returns ``(code, paused, starting, preempted_tasks, migrated_tasks, bytes_migrate,
    bytes_preempt, running_after)``; ``code`` is 1 when the system changed, 0 when
    nothing moves and -1 when a job is mapped twice (then nothing was written);
    ``running_after`` is the running jobs by index once the mapping applies (``running``
    itself when nothing moves).
    """
    none = np.zeros(0, dtype=np.int64)
    for i in range(jobs.shape[0]):
        if where[jobs[i]] >= 0:
            for k in range(i):
                where[jobs[k]] = -1
            return -1, none, none, 0, 0, bytes_migrate, bytes_preempt, running
        where[jobs[i]] = i
    out = _apply_mapped(
        jobs, rows, where, running, status, pool, nz, slot, mem_used, load, mem, cpu, tasks,
        shape, waiting_per_shape, n_preempt, yields, last_move, n_migrate, penalty_until,
        ever_ran, n_resume_elsewhere, n_resume, start, now, penalty, node_memory,
        bytes_migrate, bytes_preempt,
    )
    for i in range(jobs.shape[0]):
        where[jobs[i]] = -1
    return out


@njit(cache=True)
def _add_indexed_row(
    mem_used: np.ndarray, load: np.ndarray, pool: np.ndarray, nz: np.ndarray, s: int,
    m: float, c: float, sign: float,
) -> None:
    """``_add_row`` of the pool's row ``s``, reading only its indexed nonzero entries.

    The same bits: a skipped entry is ``+0.0`` and ``x - 0.0 * m`` (or ``+``) is ``x``
    for every ``x`` but ``-0.0 + 0.0``, which the sums of memory and load (of whole task
    counts times non-negative shares) never meet.
    """
    if sign > 0:
        for e in range(1, nz[s, 0] + 1):
            n = nz[s, e]
            mem_used[n] += pool[s, n] * m
            load[n] += pool[s, n] * c
    else:
        for e in range(1, nz[s, 0] + 1):
            n = nz[s, e]
            mem_used[n] -= pool[s, n] * m
            load[n] -= pool[s, n] * c


@njit(cache=True)
def _same_row_as_indexed(
    pool: np.ndarray, nz: np.ndarray, s: int, new: np.ndarray, new_nz: np.ndarray
) -> bool:
    """Is row ``s`` of the indexed pool equal to ``new``, whose nonzero entries ``new_nz``
    indexes (``allocation_kernels.index_row``)?

    The same answer as comparing all the entries, reading of the pool's row only its
    indexed nonzero entries: equal rows have as many nonzero entries, at the same nodes.
    """
    count = new_nz[0]
    if count != nz[s, 0]:
        return False
    for e in range(1, count + 1):
        n = nz[s, e]
        if pool[s, n] != new[n]:
            return False
    return True


@njit(cache=True)
def _add_new_indexed_row(
    mem_used: np.ndarray, load: np.ndarray, new: np.ndarray, new_nz: np.ndarray, m: float,
    c: float,
) -> None:
    """``_add_row(..., new, m, c, 1.0)`` over ``new``'s indexed nonzero entries only (the
    same bits, as ``_add_indexed_row``)."""
    for e in range(1, new_nz[0] + 1):
        n = new_nz[e]
        mem_used[n] += new[n] * m
        load[n] += new[n] * c


@njit(cache=True)
def _store_new_indexed_row(
    pool: np.ndarray, nz: np.ndarray, s: int, new: np.ndarray, new_nz: np.ndarray
) -> None:
    """``pool[s] = new`` and its index again (``new_nz``: ``new``'s nonzero entries,
    ``allocation_kernels.index_row``), writing only the entries that change.

    The old row's nonzero entries (read from the index) become ``+0.0``, then ``new``'s
    nonzero entries are written: a job on a few of 120 nodes writes a few entries, not
    the row. Every zero entry of the pool is ``+0.0`` (``RowPool.store`` keeps it so).
    """
    for e in range(1, nz[s, 0] + 1):
        pool[s, nz[s, e]] = 0.0
    k = new_nz[0]
    for e in range(1, k + 1):
        n = new_nz[e]
        pool[s, n] = new[n]
        nz[s, e] = n
    nz[s, 0] = k


@njit(cache=True)
def _apply_mapped(
    jobs, rows, where, running, status, pool, nz, slot, mem_used, load, mem, cpu, tasks,
    shape, waiting_per_shape, n_preempt, yields, last_move, n_migrate, penalty_until, ever_ran,
    n_resume_elsewhere, n_resume, start, now, penalty, node_memory, bytes_migrate,
    bytes_preempt,
):
    """``apply_kernel`` once ``where`` maps the jobs.

    Each new row's nonzero entries are found once (``allocation_kernels.index_row``);
    the comparisons, the memory and load added and the rows stored read them from there.
    """
    new_nz = np.empty((jobs.shape[0], rows.shape[1] + 1), dtype=nz.dtype)
    for k in range(jobs.shape[0]):
        index_row(new_nz, k, rows[k])
    starting = np.empty(jobs.shape[0], dtype=np.int64)
    n_start = 0
    for i in range(jobs.shape[0]):
        if status[jobs[i]] == 1:  # WAITING
            starting[n_start] = jobs[i]
            n_start += 1
    starting = np.sort(starting[:n_start])
    n_run = running.shape[0]
    leaves = np.zeros(n_run, dtype=np.bool_)  # paused or moving, in index order
    moves = np.zeros(n_run, dtype=np.bool_)
    n_paused = 0
    n_leave = 0
    for i in range(n_run):
        j = running[i]
        k = where[j]
        if k < 0:
            leaves[i] = True
            n_paused += 1
            n_leave += 1
            continue
        if not _same_row_as_indexed(pool, nz, slot[j], rows[k], new_nz[k]):
            moves[i] = True
            leaves[i] = True
            n_leave += 1
    if n_leave == 0 and starting.shape[0] == 0:
        return 0, starting, starting, 0, 0, bytes_migrate, bytes_preempt, running
    # memory and load: releases (old rows), then the moves' new rows, then the starts
    for i in range(n_run):
        if leaves[i]:
            j = running[i]
            _add_indexed_row(mem_used, load, pool, nz, slot[j], mem[j], cpu[j], -1.0)
    for i in range(n_run):
        if moves[i]:
            j = running[i]
            k = where[j]
            _add_new_indexed_row(mem_used, load, rows[k], new_nz[k], mem[j], cpu[j])
    for j in starting:
        k = where[j]
        _add_new_indexed_row(mem_used, load, rows[k], new_nz[k], mem[j], cpu[j])
    # pauses
    paused = np.empty(n_paused, dtype=np.int64)
    preempted = 0
    p = 0
    for i in range(n_run):
        j = running[i]
        if leaves[i] and not moves[i]:
            paused[p] = j
            p += 1
            waiting_per_shape[shape[j]] += 1
            status[j] = 1  # WAITING
            n_preempt[j] += 1
            preempted += tasks[j]
            yields[j] = 0.0
    # migrations (a row that changed moves at least one task)
    migrated = 0
    for i in range(n_run):
        if moves[i]:
            j = running[i]
            s = slot[j]
            k = where[j]
            new = rows[k]
            kept = 0.0  # (whole task counts: exact in any order, as numpy's pairwise sum;
            for e in range(1, nz[s, 0] + 1):  # the old row's zero entries keep nothing)
                n = nz[s, e]
                kept += min(pool[s, n], new[n])
            moved = np.int64(tasks[j] - kept)
            _store_new_indexed_row(pool, nz, s, new, new_nz[k])
            last_move[j] = now
            n_migrate[j] += 1
            migrated += moved
            bytes_migrate += 2 * (moved * mem[j] * node_memory)
            penalty_until[j] = now + penalty
    # pauses save their memory, then resumes restore theirs (added in that order)
    for j in paused:
        bytes_preempt += tasks[j] * mem[j] * node_memory
    for j in starting:
        k = where[j]
        new = rows[k]
        if ever_ran[j]:
            if not _same_row_as_indexed(pool, nz, slot[j], new, new_nz[k]):
                n_resume_elsewhere[j] += 1
            penalty_until[j] = now + penalty
            n_resume[j] += 1
            bytes_preempt += tasks[j] * mem[j] * node_memory
        else:
            ever_ran[j] = True
            start[j] = now
        _store_new_indexed_row(pool, nz, slot[j], new, new_nz[k])
        waiting_per_shape[shape[j]] -= 1
        status[j] = 2  # RUNNING
        last_move[j] = now
    # the running jobs after: those not paused, merged with the starts (both by index)
    stay = np.empty(n_run - n_paused, dtype=np.int64)
    a = 0
    for i in range(n_run):
        if moves[i] or not leaves[i]:
            stay[a] = running[i]
            a += 1
    after = _merged(stay, starting)
    return 1, paused, starting, preempted, migrated, bytes_migrate, bytes_preempt, after


@njit(cache=True)
def _stretch_pack(
    inverse: float,
    a: np.ndarray,
    b: np.ndarray,
    fixed_cpu: np.ndarray,
    fixed_rows: np.ndarray,
    fixed_at: np.ndarray,
    job_at: np.ndarray,
    job_cpu: np.ndarray,
    job_mem: np.ndarray,
    job_tasks: np.ndarray,
    free_mem: np.ndarray,
):
    """``Mcb8StretchPolicy.pack``'s ``pack(inverse)``: ``(packed, a host per task)``.

    ``fixed_cpu[fixed_rows[r]]`` is the CPU per node of pinned job ``r`` at yield 1 (its
    tasks per node times its CPU need), ``fixed_at[r]`` its place among the kept jobs.
    Movable job ``m`` (by index) is ``job_tasks[m]`` tasks of CPU need ``job_cpu[m]``
    and memory ``job_mem[m]``, at place ``job_at[m]`` among the kept jobs; its tasks
    are numbered job by job (``_fill_groups``).
    """
    size = a.shape[0]
    y = np.empty(size)
    for i in range(size):
        need = (inverse - a[i]) / b[i]
        if need > 1.0 + 1e-12:
            return False, np.zeros(0, dtype=np.int64)
        y[i] = min(max(need, 0.0), 1.0)
    nodes = free_mem.shape[0]
    base_load = np.empty(nodes)
    _sum_rows_into(base_load, fixed_cpu, fixed_rows, y[fixed_at])
    free_cpu = 1.0 - base_load
    for n in range(nodes):
        if free_cpu[n] < -MEM_EPS:
            return False, np.zeros(0, dtype=np.int64)
    cpu_req = np.empty(job_at.shape[0])
    for m in range(job_at.shape[0]):
        cpu_req[m] = y[job_at[m]] * job_cpu[m]
    placed = _fill_groups(cpu_req, job_mem, job_tasks, free_cpu, free_mem)
    return not _failed(placed), placed


@warm_inputs(lambda: (
    readonly_array([0], np.int64), readonly_array([0.0], float), readonly_array([0.0], float),
    np.zeros(1, dtype=np.int8), np.zeros(1),
    readonly_array([0.0], float), readonly_array([1], np.int64), readonly_array([1.0], float),
    readonly_array([1.0], float), np.zeros((1, 1)), np.zeros((1, 2), dtype=np.int32),
    np.full(1, -1, dtype=np.int64), 1, 0.0, -np.inf, -np.inf, 0.01, 600.0,
))
@njit(cache=True)
def mcb8_stretch_remap_kernel(
    active: np.ndarray,
    active_vt: np.ndarray,
    active_submit: np.ndarray,
    status: np.ndarray,
    vt: np.ndarray,
    submit: np.ndarray,
    tasks: np.ndarray,
    mem: np.ndarray,
    cpu: np.ndarray,
    pool: np.ndarray,
    nz: np.ndarray,
    slot: np.ndarray,
    nodes: int,
    now: float,
    minvt: float,
    minft: float,
    accuracy: float,
    period: float,
):
    """MCB8-stretch's remap (``Mcb8StretchPolicy`` without ``hold``) in one call.

    As ``mcb8_remap_kernel``, with ``Mcb8StretchPolicy.pack``: the largest inverse
    stretch estimate ``s`` (1 % relative accuracy, ``heuristics.mcb.largest_target``
    with ``zero_first``) at which every kept job gets the yield ``(s - a_j) / b_j``
    (at most 1, clipped to [0, 1]; ``a_j = vt_j / (ft_j + T)``, ``b_j = T / (ft_j +
    T)``, ``T = period``), the pinned jobs' CPU fits their nodes and MCB8 packs the
    others' tasks. The same floating-point steps as the Python code.
    """
    keep, pinned, size = _remap_keep(
        active, active_vt, active_submit, status, vt, submit, tasks, mem, pool, nz, slot,
        nodes, now, minvt, minft,
    )
    base_mem = np.empty(nodes)
    while size > 0:
        order = keep[:size]
        is_pinned = pinned[:size]
        a = np.empty(size)
        b = np.empty(size)
        for i in range(size):
            j = order[i]
            ft = max(now - submit[j], 0.0)
            a[i] = vt[j] / (ft + period)
            b[i] = period / (ft + period)
        fixed = order[is_pinned]
        fixed_at = np.flatnonzero(is_pinned)
        movable = np.sort(order[~is_pinned])
        fixed_slots = slot[fixed]
        _sum_indexed_rows_into(base_mem, pool, nz, fixed_slots, mem[fixed])
        free_mem = 1.0 - base_mem
        fixed_rows = np.arange(fixed.shape[0])
        fixed_cpu = np.zeros((fixed.shape[0], nodes))
        for r in range(fixed.shape[0]):
            s = fixed_slots[r]
            for e in range(1, nz[s, 0] + 1):
                n = nz[s, e]
                fixed_cpu[r, n] = pool[s, n] * cpu[fixed[r]]
        place = np.argsort(order, kind="mergesort")
        job_at = np.empty(movable.shape[0], dtype=np.int64)  # movable job m's place in order
        m = 0
        for k in range(size):
            i = place[k]
            if not is_pinned[i]:
                job_at[m] = i
                m += 1
        job_cpu = cpu[movable]
        job_mem = mem[movable]
        job_tasks = tasks[movable]
        # largest_target(pack, 1.0, hi - lo <= accuracy * hi, zero_first=True)
        ok, best = _stretch_pack(0.0, a, b, fixed_cpu, fixed_rows, fixed_at, job_at, job_cpu,
                                 job_mem, job_tasks, free_mem)
        if ok:
            hi = 1.0
            ok, top = _stretch_pack(hi, a, b, fixed_cpu, fixed_rows, fixed_at, job_at, job_cpu,
                                    job_mem, job_tasks, free_mem)
            if ok:
                best = top
            else:
                lo = 0.0
                for _ in range(200):
                    if hi - lo <= accuracy * hi:
                        break
                    mid = 0.5 * (lo + hi)
                    ok, placed = _stretch_pack(mid, a, b, fixed_cpu, fixed_rows, fixed_at, job_at,
                                               job_cpu, job_mem, job_tasks, free_mem)
                    if not ok:
                        hi = mid
                    else:
                        lo = mid
                        best = placed
            rows = np.zeros((size, nodes))
            for i in range(fixed.shape[0]):
                _copy_indexed_row(rows[i], pool, nz, fixed_slots[i])
            t = 0
            for m in range(movable.shape[0]):
                for _ in range(job_tasks[m]):
                    rows[fixed.shape[0] + m, best[t]] += 1.0
                    t += 1
            return np.concatenate((fixed, movable)), rows
        size -= 1
    return np.zeros(0, dtype=np.int64), np.zeros((0, nodes))


@warm_inputs(lambda: (
    np.zeros(1, dtype=np.int64), np.ones((1, 1)), np.zeros((1, 1)),
    np.zeros((1, 2), dtype=np.int32), np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int8),
    np.zeros(1, dtype=np.int64),
    np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.bool_), np.zeros(1, dtype=np.int64),
    np.zeros(1), np.zeros(1), np.zeros(1, dtype=np.int64), np.zeros(1),
    readonly_array([1.0], float), readonly_array([1], np.int64), 0.0, 300.0, 1.0, 0.0,
    readonly_array([], np.int64),
))
@njit(cache=True)
def start_kernel(
    jobs: np.ndarray,
    rows: np.ndarray,
    pool: np.ndarray,
    nz: np.ndarray,
    slot: np.ndarray,
    status: np.ndarray,
    shape: np.ndarray,
    waiting_per_shape: np.ndarray,
    ever_ran: np.ndarray,
    n_resume_elsewhere: np.ndarray,
    last_move: np.ndarray,
    penalty_until: np.ndarray,
    n_resume: np.ndarray,
    start: np.ndarray,
    mem: np.ndarray,
    tasks: np.ndarray,
    now: float,
    penalty: float,
    node_memory: float,
    bytes_preempt: float,
    running: np.ndarray,
):
    """``DfrsState.start_job`` for waiting ``jobs`` in order, rows already counted.

    Job ``jobs[i]`` gets the row ``rows[i]`` (its slot ``slot[j]`` in ``pool`` taken
    already; ``nz`` indexes it again): a resume elsewhere is counted when its last row
    differs, it pays the penalty and restores its memory image (added to
    ``bytes_preempt`` job by job, as the Python loop adds them); a first start records
    its start time. Returns the new ``bytes_preempt`` and the running jobs by index
    after the starts (``running``, the running jobs before, merged with ``jobs``); the
    arrays are updated in place.
    """
    new_nz = np.empty((1, pool.shape[1] + 1), dtype=nz.dtype)  # (each row's, in turn)
    for i in range(jobs.shape[0]):
        j = jobs[i]
        index_row(new_nz, 0, rows[i])
        if ever_ran[j] and not _same_row_as_indexed(pool, nz, slot[j], rows[i], new_nz[0]):
            n_resume_elsewhere[j] += 1
        _store_new_indexed_row(pool, nz, slot[j], rows[i], new_nz[0])
        if status[j] == 1:  # WAITING
            waiting_per_shape[shape[j]] -= 1
        status[j] = 2  # RUNNING
        last_move[j] = now
        if ever_ran[j]:
            penalty_until[j] = now + penalty
            bytes_preempt += tasks[j] * mem[j] * node_memory
            n_resume[j] += 1
        else:
            ever_ran[j] = True
            start[j] = now
    return bytes_preempt, _merged(running, np.sort(jobs))


@njit(cache=True)
def _merged(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The increasing arrays ``a`` and ``b`` (no common value) merged, increasing."""
    out = np.empty(a.shape[0] + b.shape[0], dtype=np.int64)
    i = 0
    k = 0
    for o in range(out.shape[0]):
        if k == b.shape[0] or (i < a.shape[0] and a[i] < b[k]):
            out[o] = a[i]
            i += 1
        else:
            out[o] = b[k]
            k += 1
    return out


@njit(cache=True)
def _greedy_row(j: int, cpu: np.ndarray, mem: np.ndarray, tasks: np.ndarray,
                load: np.ndarray, mem_used: np.ndarray, row: np.ndarray) -> bool:
    """``dfrs_policies.greedy_nodes(state, j, load, mem_used)`` as a float row of tasks per
    node (``DfrsState._row``) written into ``row``; False (``row`` undefined) if Greedy
    cannot place the job. ``load`` and ``mem_used`` are not modified."""
    k = tasks[j]
    placed = greedy_fill_kernel(np.full(k, cpu[j]), np.full(k, mem[j]), load.copy(),
                                1.0 - mem_used)
    for n in range(row.shape[0]):
        row[n] = 0.0
    for t in range(k):
        if placed[t] < 0:
            return False
        row[placed[t]] += 1.0
    return True


@njit(cache=True)
def _fits(j: int, mem: np.ndarray, tasks: np.ndarray, mem_used: np.ndarray) -> bool:
    """``DfrsState.fits(j, 1.0 - mem_used)``."""
    if mem[j] <= MEM_EPS:
        return True
    return fits_kernel(1.0 - mem_used, mem[j]) >= tasks[j]


@warm_inputs(lambda: (
    0, readonly_array([], np.int64), True, True, np.zeros(1), readonly_array([0.0], float), 0.0,
    np.zeros((1, 1)), np.full(1, -1, dtype=np.int64),
    readonly_array([1.0], float), readonly_array([1.0], float), readonly_array([1], np.int64),
    np.zeros(1), np.zeros(1),
))
@njit(cache=True)
def greedy_submit_kernel(
    j: int,
    running: np.ndarray,
    preempt: bool,
    migrate: bool,
    vt: np.ndarray,
    submit: np.ndarray,
    now: float,
    pool: np.ndarray,
    slot: np.ndarray,
    mem: np.ndarray,
    cpu: np.ndarray,
    tasks: np.ndarray,
    mem_used: np.ndarray,
    load: np.ndarray,
):
    """What ``GreedyPolicy.on_submit`` does for the newly submitted job ``j``, decided in
    one call; nothing is modified (the state carries it out, ``DfrsState.start_job``,
    ``lift``, ``settle`` and ``pause_job``, with the same floating-point steps).

    ``running``: the running jobs by index (``pool[slot[r]]``: job ``r``'s tasks per
    node). Greedy starts ``j`` where ``greedy_nodes`` puts it if it ``fits``; otherwise
    GreedyP (``preempt``) takes the running jobs of lower priority than ``j``
    (``lower_priority``), marks those to pause (``greedy_mark_kernel``), and if ``j``
    would then be placed (``_places_after_release``) lifts them, starts ``j`` and, by
    increasing ``priority_key``, puts each marked job back where Greedy places it
    (GreedyPM, ``migrate``, when it fits) or pauses it. The memory and load are followed
    on copies, with the operations of ``release`` and ``place`` in their order.

    Returns ``(code, row, marked, order, placed, rows)``: ``code`` 0 when ``j`` waits, 1
    when it starts at once, 2 when it starts after lifting ``marked`` (in marking order),
    -1 when a marked job has no row (``marked[0]`` is that job); ``row`` is ``j``'s
    tasks per node; ``order`` the marked jobs by ``priority_key`` and ``placed[i]``
    whether ``order[i]`` goes back on ``rows[i]`` (else it is paused).
    """
    nodes = mem_used.shape[0]
    none = np.empty(0, dtype=np.int64)
    no_rows = np.empty((0, nodes))
    no_flags = np.empty(0, dtype=np.bool_)
    row = np.zeros(nodes)
    if _fits(j, mem, tasks, mem_used) and _greedy_row(j, cpu, mem, tasks, load, mem_used, row):
        return 1, row, none, none, no_flags, no_rows
    if not preempt:
        return 0, row, none, none, no_flags, no_rows
    # lower_priority: the running jobs after j in by_priority's order, reversed
    m = running.shape[0]
    both = np.empty(m + 1, dtype=np.int64)
    a = 0
    for i in range(m):
        if running[i] > j and a == i:
            both[a] = j
            a += 1
        both[a] = running[i]
        a += 1
    if a == m:
        both[m] = j
    keys = _priority_keys_of(vt[both], submit[both], now)
    order = both[np.argsort(keys, kind="mergesort")]
    at = 0
    while order[at] != j:
        at += 1
    lower = order[at + 1:][::-1].copy()
    marked = greedy_mark_kernel(1.0 - mem_used, lower, pool, slot, mem, mem[j], tasks[j])
    if marked.shape[0] == 0:
        return 0, row, none, none, no_flags, no_rows
    if marked[0] < 0:
        marked[0] = -1 - marked[0]
        return -1, row, marked[:1].copy(), none, no_flags, no_rows
    # _places_after_release, which is also the lift: release the marked jobs in order
    used = mem_used.copy()
    cpu_load = load.copy()
    for r in marked:
        _add_row(used, cpu_load, pool[slot[r]], mem[r], cpu[r], -1.0)
    if not _greedy_row(j, cpu, mem, tasks, cpu_load, used, row):
        return 0, row, none, none, no_flags, no_rows
    _add_row(used, cpu_load, row, mem[j], cpu[j], 1.0)  # start_job(j): place
    # the marked jobs by priority_key: (vt <= 0 first, then flow/vt² decreasing), index
    by_index = np.sort(marked)
    marked_keys = _priority_keys_of(vt[by_index], submit[by_index], now)
    back = by_index[np.argsort(marked_keys, kind="mergesort")]
    placed = np.zeros(back.shape[0], dtype=np.bool_)
    rows = np.zeros((back.shape[0], nodes))
    for i in range(back.shape[0]):
        r = back[i]
        if migrate and _fits(r, mem, tasks, used) and _greedy_row(
            r, cpu, mem, tasks, cpu_load, used, rows[i]
        ):
            placed[i] = True
            _add_row(used, cpu_load, rows[i], mem[r], cpu[r], 1.0)  # settle: place
    return 2, row, marked, back, placed, rows
