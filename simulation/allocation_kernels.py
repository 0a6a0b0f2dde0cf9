"""Compiled (numba) water-filling of the DFRS yields for a fixed mapping (``allocation``).

``maxmin_fill_kernel`` (``opt=min``), its dense-matrix entry ``maxmin_dense_kernel`` (the
simulator's), and ``affine_fill_kernel`` (max-min fair inverse stretch estimates,
``/stretch-per``).
"""

from __future__ import annotations

import numpy as np

from allockit.heuristics.kernel_setup import njit, warm_inputs

__all__ = ["affine_fill_kernel", "maxmin_dense_kernel", "maxmin_fill_kernel"]


@njit(cache=True)
def _affine_usage(job, node, weight, a, b, yields, active, level, nodes):
    used = np.zeros(nodes)
    for k in range(job.shape[0]):
        j = job[k]
        y = yields[j]
        if active[j]:
            y = min(1.0, max(0.0, (level - a[j]) / b[j]))
        used[node[k]] += weight[k] * y
    return used


@njit(cache=True)
def _fits(job, node, weight, a, b, yields, active, level, nodes, cap):
    return _affine_usage(job, node, weight, a, b, yields, active, level, nodes).max() <= cap


@njit(cache=True)
def _last_fitting_level(job, node, weight, a, b, yields, active, lo, top, nodes, cap):
    """The largest float level in ``[lo, top)`` at which every node fits (``-inf`` if none).

    "Fits" is ``_affine_usage(level).max() <= cap`` computed as the bisection computes
    it; every operation in that sum is monotone in ``level`` under IEEE rounding, so the
    test is true up to one float and false above it, and the bisection's path is decided
    by that float. Found without bisecting the whole range: a binary search over the
    jobs' breakpoints ``a_j`` and ``a_j + b_j`` (where the node loads change slope)
    brackets it; within the bracket each load is linear, so interpolation lands within a
    few ulps; a galloping search with the exact test settles the last float. ``top`` is
    known not to fit.
    """
    count = 0
    for j in range(a.shape[0]):
        if active[j]:
            count += 2
    points = np.empty(count + 2)
    points[0] = lo
    points[1] = top
    i = 2
    for j in range(a.shape[0]):
        if active[j]:
            points[i] = a[j]
            points[i + 1] = a[j] + b[j]
            i += 2
    points = np.unique(points)
    first = 0
    while points[first] < lo:
        first += 1
    last = points.shape[0] - 1
    while points[last] > top:
        last -= 1
    if not _fits(job, node, weight, a, b, yields, active, points[first], nodes, cap):
        return -np.inf
    # invariant: points[first] fits, points[last] (top) does not
    while last - first > 1:
        middle = (first + last) // 2
        if _fits(job, node, weight, a, b, yields, active, points[middle], nodes, cap):
            first = middle
        else:
            last = middle
    low, high = points[first], points[last]
    # each node's load is linear on [low, high]: where does the first one pass cap?
    load_low = _affine_usage(job, node, weight, a, b, yields, active, low, nodes)
    load_high = _affine_usage(job, node, weight, a, b, yields, active, high, nodes)
    guess = high
    for n in range(nodes):
        if load_high[n] > cap and load_high[n] > load_low[n]:
            at = low + (cap - load_low[n]) / (load_high[n] - load_low[n]) * (high - low)
            guess = min(guess, at)
    guess = min(max(guess, low), high)
    # gallop from the guess to a bracket of the exact test, then bisect it to one ulp
    if _fits(job, node, weight, a, b, yields, active, guess, nodes, cap):
        low = guess
        step = np.nextafter(guess, np.inf) - guess
        while True:
            probe = min(low + step, high)
            if probe >= high:
                break
            if _fits(job, node, weight, a, b, yields, active, probe, nodes, cap):
                low = probe
                step *= 2.0
            else:
                high = probe
                break
    else:
        high = guess
        step = guess - np.nextafter(guess, -np.inf)
        while True:
            probe = max(high - step, low)
            if probe <= low:
                break
            if _fits(job, node, weight, a, b, yields, active, probe, nodes, cap):
                low = probe
                break
            high = probe
            step *= 2.0
    while True:
        mid = 0.5 * (low + high)
        if mid <= low or mid >= high:
            return low
        if _fits(job, node, weight, a, b, yields, active, mid, nodes, cap):
            low = mid
        else:
            high = mid


@njit(cache=True)
def affine_fill_kernel(
    job: np.ndarray,
    node: np.ndarray,
    weight: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    nodes: int,
    tol: float,
) -> np.ndarray:
    """Max-min fair ``a_j + b_j y_j`` by water-filling (see ``max_min_affine``).

    The mapping is sparse: job ``job[k]`` uses CPU ``weight[k] * y`` on ``node[k]``.
    Each round bisects the common level to machine precision, then freezes the jobs on
    saturated nodes and those at yield 1. The bisection's tests are answered by the last
    level that fits (``_last_fitting_level``: a few usage sums instead of one per
    midpoint), which gives the same levels bit for bit.
    """
    n = a.shape[0]
    yields = np.ones(n)
    active = np.zeros(n, dtype=np.bool_)
    for k in range(job.shape[0]):
        active[job[k]] = True
    for j in range(n):
        if active[j]:
            yields[j] = 0.0
    while True:
        lo = np.inf
        top = -np.inf
        count = 0
        for j in range(n):
            if active[j]:
                count += 1
                lo = min(lo, a[j])
                top = max(top, a[j] + b[j])
        if count == 0:
            break
        used = _affine_usage(job, node, weight, a, b, yields, active, top, nodes)
        if used.max() <= 1.0 + tol:
            for j in range(n):
                if active[j]:
                    yields[j] = min(1.0, max(0.0, (top - a[j]) / b[j]))
            break
        # the bisection of the level, with each test "the nodes fit at mid" answered by
        # comparing mid with the last level that fits (the test is monotone in floating
        # point): the same lo and hi as testing every midpoint, in a few usage sums
        last = _last_fitting_level(job, node, weight, a, b, yields, active, lo, top, nodes,
                                   1.0 + tol)
        hi = top
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            if mid <= last:
                lo = mid
            else:
                hi = mid
        over = _affine_usage(job, node, weight, a, b, yields, active, hi, nodes)
        for j in range(n):
            if active[j]:
                yields[j] = min(1.0, max(0.0, (lo - a[j]) / b[j]))
        used = _affine_usage(job, node, weight, a, b, yields, active, lo, nodes)
        frozen = np.zeros(n, dtype=np.bool_)
        any_frozen = False
        for k in range(job.shape[0]):
            j = job[k]
            if active[j] and (over[node[k]] > 1.0 + tol or used[node[k]] >= 1.0 - 1e-9):
                frozen[j] = True
        for j in range(n):
            if active[j] and (frozen[j] or yields[j] >= 1.0 - tol):
                active[j] = False
                any_frozen = True
        if not any_frozen:
            break
    return yields


@njit(cache=True)
def maxmin_fill_kernel(
    job: np.ndarray, node: np.ndarray, weight: np.ndarray, n: int, nodes: int, tol: float
) -> np.ndarray:
    """Max-min fair yields in [0, 1] by exact water-filling (see ``max_min_yields``).

    Sparse mapping: job ``job[k]`` uses CPU ``weight[k] * y`` on ``node[k]``. Each round
    raises every unfrozen job's yield by the largest common step that keeps all nodes
    within capacity and all yields at most 1, then freezes the jobs on saturated nodes
    and those at 1. Jobs without a task get yield 1.
    """
    yields = np.ones(n)
    active = np.zeros(n, dtype=np.bool_)
    for k in range(job.shape[0]):
        active[job[k]] = True
    left = 0
    for j in range(n):
        if active[j]:
            yields[j] = 0.0
            left += 1
    used = np.zeros(nodes)
    rate = np.zeros(nodes)
    while left > 0:
        used[:] = 0.0
        rate[:] = 0.0
        for k in range(job.shape[0]):
            used[node[k]] += weight[k] * yields[job[k]]
            if active[job[k]]:
                rate[node[k]] += weight[k]
        step = np.inf
        for j in range(n):
            if active[j]:
                step = min(step, 1.0 - yields[j])
        for i in range(nodes):
            if rate[i] > tol:
                step = min(step, (1.0 - used[i]) / rate[i])
        step = max(step, 0.0)
        for j in range(n):
            if active[j]:
                yields[j] += step
        frozen = np.zeros(n, dtype=np.bool_)
        for k in range(job.shape[0]):
            i = node[k]
            if active[job[k]] and rate[i] > tol and (1.0 - used[i]) / rate[i] <= step + tol:
                frozen[job[k]] = True
        changed = False
        for j in range(n):
            if active[j] and (frozen[j] or yields[j] >= 1.0 - tol):
                active[j] = False
                left -= 1
                changed = True
        if not changed:
            break
    for j in range(n):
        yields[j] = min(yields[j], 1.0)
    return yields


@warm_inputs(lambda: (np.ones((1, 1)), np.ones(1), 1e-12))
@njit(cache=True)
def maxmin_dense_kernel(counts: np.ndarray, cpu: np.ndarray, tol: float) -> np.ndarray:
    """``maxmin_fill_kernel`` on a dense ``counts[job, node]`` matrix.

    The nonzero entries in row-major order (as ``numpy.nonzero``), weight
    ``counts[j, n] * cpu[j]``: the same inputs, so the same yields, without the
    intermediate arrays.
    """
    jobs, nodes = counts.shape
    size = 0
    for j in range(jobs):
        for n in range(nodes):
            if counts[j, n] != 0:
                size += 1
    job = np.empty(size, dtype=np.int64)
    node = np.empty(size, dtype=np.int64)
    weight = np.empty(size)
    k = 0
    for j in range(jobs):
        for n in range(nodes):
            if counts[j, n] != 0:
                job[k] = j
                node[k] = n
                weight[k] = counts[j, n] * cpu[j]
                k += 1
    return maxmin_fill_kernel(job, node, weight, jobs, nodes, tol)
