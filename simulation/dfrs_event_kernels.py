"""Compiled (numba) per-event steps of the DFRS driver and state.

After every event the simulator advances the running jobs' progress, looks for jobs
whose remaining work is a rounding residue, predicts the earliest completion and adds
up the CPU in use. Each of these was a handful of numpy calls over the running jobs,
costing more in call overheads than in arithmetic (about 0.1 ms per event on ~1,100-job
weeks). The kernels here do the same floating-point operations in the same order:

- elementwise steps are the same IEEE operations (numba compiles without fast-math, so
  nothing is fused or reordered);
- sums are added in numpy's order (``pairwise_sum``: numpy's pairwise summation of a
  contiguous float64 array, blocks of 8 partial sums up to 128 items, halves above);
- the earliest completion is the first of equal minima, as ``numpy.argmin``.

So the schedules and every summary number are the same bits as the numpy code's
(``tests/simulation/test_dfrs_event_kernels.py`` checks each kernel against it).

- ``advance_kernel``: ``DfrsState.advance`` (progress and CPU integrals);
- ``residue_kernel``: ``DfrsState.negligible``;
- ``completion_kernel``: the driver's ``allocate`` (yields in, earliest completion out);
- ``cpu_in_use_kernel``: ``DfrsState.cpu_in_use``;
- ``fits_kernel``: ``DfrsState.fits``'s count of the tasks that fit, and
  ``fit_mask_kernel``: its answer for many job shapes at once (Greedy's pass over the
  waiting jobs);
- ``greedy_mark_kernel``: GreedyP's choice of the running jobs to pause for an incoming
  job;
- ``view_sync_kernel`` and ``view_vt_kernel``: the upkeep of the copies of
  ``DfrsState.active_view`` (no arithmetic: copies and a compaction).

MCB8's remap has its own fused kernel (``dfrs_kernels.mcb8_remap_kernel``), which sums
with ``pairwise_sum``'s helper too.
"""

from __future__ import annotations

import numpy as np

from allockit.constants import MEM_EPS
from allockit.heuristics.kernel_setup import njit, warm_inputs
from allockit.results.base import readonly_array

__all__ = [
    "advance_kernel",
    "completion_kernel",
    "cpu_in_use_kernel",
    "fit_mask_kernel",
    "fits_kernel",
    "greedy_mark_kernel",
    "pairwise_sum",
    "residue_kernel",
    "view_sync_kernel",
    "view_vt_kernel",
]


@njit(cache=True)
def _block(a: np.ndarray, lo: int, n: int) -> float:
    """numpy's sum of at most 128 items ``a[lo:lo + n]``: 8 partial sums, then the rest."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    last = n - n % 8
    while i < last:
        k = lo + i
        r0 += a[k]
        r1 += a[k + 1]
        r2 += a[k + 2]
        r3 += a[k + 3]
        r4 += a[k + 4]
        r5 += a[k + 5]
        r6 += a[k + 6]
        r7 += a[k + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True)
def _pairwise(a: np.ndarray, lo: int, n: int) -> float:
    """numpy's pairwise sum of ``a[lo:lo + n]`` (``loops_utils.h``'s ``pairwise_sum``).

    Blocks of at most 128 items are summed by ``_block``; a longer range is split at
    half its length rounded down to a multiple of 8 and its halves' sums are added.
    The recursion is unrolled on a stack of frames (numba's cache cannot load
    recursive functions).
    """
    if n <= 128:
        return _block(a, lo, n)
    frame_lo = np.empty(64, dtype=np.int64)
    frame_n = np.empty(64, dtype=np.int64)
    stage = np.empty(64, dtype=np.int64)  # 0: left half next, 1: right half next, 2: add
    left = np.empty(64)
    top = 0
    frame_lo[0], frame_n[0], stage[0] = lo, n, 0
    result = 0.0
    while top >= 0:
        first, size = frame_lo[top], frame_n[top]
        if size <= 128:
            result = _block(a, first, size)
            top -= 1
            continue
        half = size // 2
        half -= half % 8
        if stage[top] == 0:
            stage[top] = 1
            top += 1
            frame_lo[top], frame_n[top], stage[top] = first, half, 0
        elif stage[top] == 1:
            left[top] = result
            stage[top] = 2
            top += 1
            frame_lo[top], frame_n[top], stage[top] = first + half, size - half, 0
        else:
            result = left[top] + result
            top -= 1
    return result


@njit(cache=True)
def _sum(a: np.ndarray, n: int) -> float:
    """numpy's sum of ``a[:n]``: its reduction starts from 0.0 and adds the pairwise sum
    (so a sum of negative zeros is +0.0, as numpy's)."""
    return 0.0 + _pairwise(a, 0, n)


@warm_inputs(lambda: (np.ones(3),))
@njit(cache=True)
def pairwise_sum(a: np.ndarray) -> float:
    """The sum of a 1-D float64 array, added as ``numpy.sum`` adds it (same bits).

    Examples
    --------
    >>> x = np.random.default_rng(1).standard_normal(1000) * 1e8
    >>> pairwise_sum(x) == float(x.sum())
    True
    >>> pairwise_sum(np.full(9, -0.0))  # (numpy's reduction starts from +0.0)
    0.0
    """
    return _sum(a, a.shape[0])


@warm_inputs(lambda: (
    readonly_array([0], np.int64), 0.0, 1.0, np.zeros(1), np.zeros(1), np.zeros(1),
    readonly_array([1.0], float), readonly_array([1.0], float), readonly_array([1], np.int64),
    np.zeros(1),
))
@njit(cache=True)
def advance_kernel(
    jobs: np.ndarray,
    clock: float,
    now: float,
    penalty_until: np.ndarray,
    yields: np.ndarray,
    vt: np.ndarray,
    runtime: np.ndarray,
    cpu: np.ndarray,
    tasks: np.ndarray,
    useful: np.ndarray,
):
    """Progress ``jobs`` (running) from ``clock`` to ``now``; the CPU used and given.

    A job progresses at its yield for the part of the span it is not paying a penalty
    (``useful[i]``, written for each job), its virtual time capped at its run time.
    Returns ``(used, given, overshoot)``: the CPU-seconds that made progress, those
    allocated (``sum(yield * cpu * tasks) * span``), and whether some job progressed
    beyond its work by more than rounding (the debug check). ``vt`` and ``useful`` are
    written in place.
    """
    n = jobs.shape[0]
    need = np.empty(n)
    work = np.empty(n)
    overshoot = False
    for i in range(n):
        j = jobs[i]
        start = max(clock, penalty_until[j])
        u = max(0.0, now - start)
        useful[i] = u
        y = yields[j]
        progress = vt[j] + y * u
        if progress > runtime[j] * (1 + 1e-9) + 1e-6:
            overshoot = True
        vt[j] = min(progress, runtime[j])
        need[i] = y * cpu[j] * float(tasks[j])
        work[i] = need[i] * u
    return _sum(work, n), _sum(need, n) * (now - clock), overshoot


@warm_inputs(lambda: (
    readonly_array([0], np.int64), readonly_array([1.0], float), np.zeros(1)
))
@njit(cache=True)
def residue_kernel(jobs: np.ndarray, runtime: np.ndarray, vt: np.ndarray) -> np.ndarray:
    """The ``jobs`` whose remaining work is at most ``1e-9 * max(1, work)``, in order."""
    out = np.empty(jobs.shape[0], dtype=np.int64)
    count = 0
    for j in jobs:
        work = runtime[j]
        if work - vt[j] <= 1e-9 * max(1.0, work):
            out[count] = j
            count += 1
    return out[:count].copy()


@warm_inputs(lambda: (
    readonly_array([0], np.int64), np.ones(1), 0.0, np.zeros(1),
    readonly_array([1.0], float), np.zeros(1), np.zeros(1),
))
@njit(cache=True)
def completion_kernel(
    jobs: np.ndarray,
    y: np.ndarray,
    now: float,
    penalty_until: np.ndarray,
    runtime: np.ndarray,
    vt: np.ndarray,
    yields: np.ndarray,
):
    """Give ``jobs`` the yields ``y``; the earliest predicted completion and its job.

    Job ``jobs[i]`` progresses at ``y[i]`` from ``max(now, penalty_until)``; with no
    progress (yield 0) it never completes. Returns ``(time, job)``: the first of equal
    minima in ``jobs``' order (as ``numpy.argmin``), ``(inf, jobs[0])`` if no job
    progresses (or ``(inf, -1)`` for no jobs). ``yields`` is written in place.
    """
    best = np.inf
    first = -1
    for i in range(jobs.shape[0]):
        j = jobs[i]
        yields[j] = y[i]
        if y[i] > 0:
            end = max(now, penalty_until[j]) + (runtime[j] - vt[j]) / y[i]
        else:
            end = np.inf
        if first < 0 or end < best:
            best = end
            first = j
    return best, first


@warm_inputs(lambda: (
    readonly_array([0], np.int64), 0.0, np.zeros(1), readonly_array([1.0], float),
    readonly_array([1], np.int64), np.zeros(1),
))
@njit(cache=True)
def cpu_in_use_kernel(
    jobs: np.ndarray,
    now: float,
    yields: np.ndarray,
    cpu: np.ndarray,
    tasks: np.ndarray,
    penalty_until: np.ndarray,
):
    """CPU allocated to ``jobs`` (in nodes), and the part of jobs not paying a penalty."""
    n = jobs.shape[0]
    need = np.empty(n)
    free = np.empty(n)
    count = 0
    for i in range(n):
        j = jobs[i]
        need[i] = yields[j] * cpu[j] * float(tasks[j])
        if penalty_until[j] <= now:
            free[count] = need[i]
            count += 1
    return _sum(need, n), _sum(free, count)


@warm_inputs(lambda: (np.ones(1), 0.5))
@njit(cache=True)
def fits_kernel(free: np.ndarray, mem: float) -> float:
    """How many tasks of memory ``mem`` (above ``MEM_EPS``) fit nodes with free memory
    ``free``: ``DfrsState.fits``'s count.

    Each node takes ``floor((free + MEM_EPS) / mem)`` of them; the counts are summed in
    numpy's order (``_sum``), so the total is numpy's for any input (and exact, being a
    sum of whole numbers, whenever it is below 2**53).
    """
    n = free.shape[0]
    counts = np.empty(n)
    for k in range(n):
        counts[k] = np.floor((free[k] + MEM_EPS) / mem)
    return _sum(counts, n)


@warm_inputs(lambda: (np.ones(1), np.full(1, 0.5), np.ones(1, dtype=np.int64)))
@njit(cache=True)
def fit_mask_kernel(free: np.ndarray, mem: np.ndarray, tasks: np.ndarray) -> np.ndarray:
    """For each ``i``: do ``tasks[i]`` tasks of memory ``mem[i]`` fit (``DfrsState.fits``)?

    Shapes whose tasks need more memory than is free in all, or than the emptiest node
    has, are ruled out from those two numbers first (with a margin, so that rounding
    never rules out one the count would take); the others are counted
    (``fits_kernel``).
    """
    n = free.shape[0]
    room = (_sum(free, n) + n * MEM_EPS) * (1 + 1e-9) + 1e-12
    widest = 0.0
    for k in range(n):
        widest = max(widest, free[k])
    widest += MEM_EPS
    out = np.empty(mem.shape[0], dtype=np.bool_)
    for i in range(mem.shape[0]):
        m = mem[i]
        if m <= MEM_EPS:
            out[i] = True
        elif tasks[i] * m > room or m > widest * (1 + 1e-9):
            out[i] = False
        else:
            out[i] = fits_kernel(free, m) >= tasks[i]
    return out


@warm_inputs(
    lambda: (
        np.ones(1), np.zeros(1, dtype=np.int64), np.ones((1, 1)),
        np.zeros(1, dtype=np.int64), readonly_array([0.5], float), 0.5, 1,
    )
)
@njit(cache=True)
def greedy_mark_kernel(
    free: np.ndarray, lower: np.ndarray, pool: np.ndarray, slot: np.ndarray,
    mem: np.ndarray, need: float, tasks: int,
) -> np.ndarray:
    """GreedyP's choice of the running jobs to pause for a job of ``tasks`` tasks of
    memory ``need`` each, given free memory ``free`` (not modified).

    ``lower`` are the candidates by increasing priority and ``pool[slot[r]]`` is job
    ``r``'s tasks per node. Jobs are marked in that order until the job fits
    (``DfrsState.fits``'s count, ``fits_kernel``); then each marked job but the last,
    by decreasing priority, is kept running if the job still fits without its memory.
    Returns the marked jobs left, in marking order; an empty array if even marking
    every candidate leaves no room; ``[-1 - r]`` if job ``r`` has no row. Memory is
    added and taken back with the same operations, in the same order, as the loop of
    ``GreedyPolicy.on_submit`` it replaces.
    """
    n = free.shape[0]
    trial = free.copy()
    marked = np.empty(lower.shape[0], dtype=np.int64)
    count = 0
    found = False
    for i in range(lower.shape[0]):
        r = lower[i]
        s = slot[r]
        if s < 0:
            out = np.empty(1, dtype=np.int64)
            out[0] = -1 - r
            return out
        marked[count] = r
        count += 1
        for k in range(n):
            trial[k] += pool[s, k] * mem[r]
        if need <= MEM_EPS or fits_kernel(trial, need) >= tasks:
            found = True
            break
    if not found:
        return np.empty(0, dtype=np.int64)
    keep = np.ones(count, dtype=np.bool_)
    test = np.empty(n)
    for i in range(count - 2, -1, -1):
        r = marked[i]
        s = slot[r]
        for k in range(n):
            test[k] = trial[k] - pool[s, k] * mem[r]
        if need <= MEM_EPS or fits_kernel(test, need) >= tasks:
            trial[:] = test
            keep[i] = False
    return marked[:count][keep]


@njit(cache=True)
def _position(active: np.ndarray, lo: int, n: int, j: int) -> int:
    """The position of job ``j`` in the sorted ``active[lo:n]``, or -1."""
    hi = n
    while lo < hi:
        mid = (lo + hi) >> 1
        if active[mid] < j:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < n and active[lo] == j else -1


@warm_inputs(lambda: (
    np.zeros(1, dtype=np.int64), np.zeros(1), np.zeros(1), np.zeros(1, dtype=np.int8),
    np.zeros(1, dtype=np.int64), 1, np.zeros(1, dtype=np.int64), 0,
    np.zeros(1, dtype=np.int8), np.zeros(1), True,
))
@njit(cache=True)
def view_sync_kernel(
    active: np.ndarray,
    active_vt: np.ndarray,
    active_submit: np.ndarray,
    active_status: np.ndarray,
    active_shape: np.ndarray,
    n: int,
    touched: np.ndarray,
    n_touched: int,
    status: np.ndarray,
    vt: np.ndarray,
    drop_finished: bool,
) -> int:
    """``DfrsState``'s upkeep of the active jobs' copies, in place; returns their count.

    For each of ``touched[:n_touched]`` still in ``active[:n]`` (sorted; found by
    binary search), its status and virtual time are copied; then, with
    ``drop_finished``, the finished jobs (status 3) leave all five arrays, the others
    keeping their order.
    """
    for t in range(n_touched):
        j = touched[t]
        at = _position(active, 0, n, j)
        if at >= 0:
            active_status[at] = status[j]
            active_vt[at] = vt[j]
    if not drop_finished:
        return n
    kept = 0
    for i in range(n):
        if active_status[i] != 3:  # (3: FINISHED)
            if kept != i:
                active[kept] = active[i]
                active_vt[kept] = active_vt[i]
                active_submit[kept] = active_submit[i]
                active_status[kept] = active_status[i]
                active_shape[kept] = active_shape[i]
            kept += 1
    return kept


@warm_inputs(lambda: (
    np.zeros(1, dtype=np.int64), 1, np.zeros(1), readonly_array([0], np.int64), np.zeros(1),
))
@njit(cache=True)
def view_vt_kernel(
    active: np.ndarray, n: int, active_vt: np.ndarray, running: np.ndarray, vt: np.ndarray
) -> None:
    """Copy the virtual times of the ``running`` jobs (sorted, all in ``active[:n]``)."""
    lo = 0
    for r in range(running.shape[0]):
        j = running[r]
        at = _position(active, lo, n, j)
        if at >= 0:
            active_vt[at] = vt[j]
            lo = at + 1
