"""Compiled (numba) water-filling of the DFRS yields for a fixed mapping (``allocation``).

``maxmin_fill_kernel`` (``opt=min``), its dense-matrix entry ``maxmin_dense_kernel`` and
its entry on a pool of indexed rows ``maxmin_rows_kernel`` (the simulator's), and
``affine_fill_kernel`` (max-min fair inverse stretch estimates, ``/stretch-per``).
``index_rows_kernel`` keeps the index of nonzero entries that ``maxmin_rows_kernel`` reads;
``avg_lp_rows_kernel`` reads the opt=avg LP's coefficients through it, and
``indexed_weights_kernel`` any rows' weighted entries (the ``/stretch-per`` yields').
"""

from __future__ import annotations

import numpy as np

from allockit.heuristics.kernel_setup import njit, warm_inputs
from allockit.results.base import readonly_array

__all__ = [
    "affine_fill_kernel", "avg_lp_rows_kernel", "index_rows_kernel", "indexed_weights_kernel",
    "maxmin_dense_kernel", "maxmin_fill_kernel", "maxmin_rows_kernel",
]


_BIG = np.finfo(np.float64).max  # the largest finite float


@njit(cache=True)
def _node_usage(n, ptr, entries, job, weight, a, b, yields, active, level):
    """Node ``n``'s load at ``level``: ``weight * yield`` of its entries
    ``entries[ptr[n]:ptr[n + 1]]``, added in entry order from 0 (an active job's yield is
    ``clip((level - a_j) / b_j, 0, 1)``, a frozen job's is ``yields[j]``)."""
    used = 0.0
    for i in range(ptr[n], ptr[n + 1]):
        k = entries[i]
        j = job[k]
        y = yields[j]
        if active[j]:
            y = min(1.0, max(0.0, (level - a[j]) / b[j]))
        used += weight[k] * y
    return used


@njit(cache=True)
def _node_last_level(n, ptr, entries, job, weight, a, b, yields, active, cap):
    """The largest float level at which node ``n``'s load is at most ``cap``.

    The load is ``_node_usage``. Every operation in it is monotone in the level under IEEE
    rounding, so the test "load <= cap" is true up to one float and false above it:
    that float is returned (``inf`` if the node fits at every level, ``-inf`` at none).
    Found without bisecting the whole range: a binary search over the node's active
    jobs' breakpoints ``a_j`` and ``a_j + b_j`` (where its load changes slope) brackets
    it; within the bracket the load is linear, so interpolation lands within a few
    ulps; a galloping search and a bisection with the exact test settle the last float.
    """
    if _node_usage(n, ptr, entries, job, weight, a, b, yields, active, np.inf) <= cap:
        return np.inf
    if _node_usage(n, ptr, entries, job, weight, a, b, yields, active, -np.inf) > cap:
        return -np.inf
    count = 0
    for i in range(ptr[n], ptr[n + 1]):
        if active[job[entries[i]]]:
            count += 2
    points = np.empty(count)
    c = 0
    for i in range(ptr[n], ptr[n + 1]):
        j = job[entries[i]]
        if active[j]:
            points[c] = a[j]
            points[c + 1] = a[j] + b[j]
            c += 2
    points.sort()
    # points[0], the smallest a_j, fits: every active job's yield is 0 there, as at -inf
    first, last = 0, count - 1
    if _node_usage(n, ptr, entries, job, weight, a, b, yields, active, points[last]) <= cap:
        low = points[last]
        step = np.nextafter(low, np.inf) - low
        while True:  # gallop up to a level that does not fit
            probe = low + step
            if probe > _BIG:
                probe = _BIG
            if not _node_usage(n, ptr, entries, job, weight, a, b, yields, active, probe) <= cap:
                high = probe
                break
            if probe == low:  # the largest float fits; the next one, inf, does not
                return low
            low = probe
            step *= 2.0
    else:
        while last - first > 1:
            middle = (first + last) // 2
            load = _node_usage(n, ptr, entries, job, weight, a, b, yields, active, points[middle])
            if load <= cap:
                first = middle
            else:
                last = middle
        low, high = points[first], points[last]
        # linear on [low, high]: interpolate, then gallop to a bracket of the exact test
        u_low = _node_usage(n, ptr, entries, job, weight, a, b, yields, active, low)
        u_high = _node_usage(n, ptr, entries, job, weight, a, b, yields, active, high)
        guess = high
        if u_high > u_low:
            guess = low + (cap - u_low) / (u_high - u_low) * (high - low)
        guess = min(max(guess, low), high)
        if _node_usage(n, ptr, entries, job, weight, a, b, yields, active, guess) <= cap:
            low = guess
            step = np.nextafter(guess, np.inf) - guess
            while True:
                probe = min(low + step, high)
                if probe >= high:
                    break
                if _node_usage(n, ptr, entries, job, weight, a, b, yields, active, probe) <= cap:
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
                if _node_usage(n, ptr, entries, job, weight, a, b, yields, active, probe) <= cap:
                    low = probe
                    break
                high = probe
                step *= 2.0
    # bisect [low, high] (low fits, high does not) down to adjacent floats
    while True:
        mid = 0.5 * low + 0.5 * high
        if mid <= low or mid >= high:
            return low
        if _node_usage(n, ptr, entries, job, weight, a, b, yields, active, mid) <= cap:
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
    saturated nodes and those at yield 1. A node's load is monotone in the level, so
    the bisection's test "every node fits at mid" is "mid is at most the smallest of
    the nodes' last fitting levels" (``_node_last_level``). Each node's level is kept
    from round to round until one of its jobs freezes (its load curve changes only
    then), and a node's overload at a level is read from its own: the same levels, bit
    for bit, as summing every node's load at every midpoint, in a few sums per node.
    """
    n = a.shape[0]
    size = job.shape[0]
    yields = np.ones(n)
    active = np.zeros(n, dtype=np.bool_)
    for k in range(size):
        active[job[k]] = True
    for j in range(n):
        if active[j]:
            yields[j] = 0.0
    # the entries of each node, in entry order
    ptr = np.zeros(nodes + 1, dtype=np.int64)
    for k in range(size):
        ptr[node[k] + 1] += 1
    for i in range(nodes):
        ptr[i + 1] += ptr[i]
    fill = ptr[:-1].copy()
    entries = np.empty(size, dtype=np.int64)
    for k in range(size):
        entries[fill[node[k]]] = k
        fill[node[k]] += 1
    cap = 1.0 + tol
    node_last = np.empty(nodes)
    stale = np.ones(nodes, dtype=np.bool_)
    over = np.zeros(nodes, dtype=np.bool_)
    live = np.zeros(nodes, dtype=np.bool_)
    used = np.zeros(nodes)
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
        last = np.inf
        for i in range(nodes):
            if stale[i]:
                node_last[i] = _node_last_level(i, ptr, entries, job, weight, a, b, yields,
                                                active, cap)
                stale[i] = False
            last = min(last, node_last[i])
        if top <= last:  # every node fits at the top level (the load is monotone)
            for j in range(n):
                if active[j]:
                    yields[j] = min(1.0, max(0.0, (top - a[j]) / b[j]))
            break
        hi = top
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            if mid <= last:
                lo = mid
            else:
                hi = mid
        # a node is over at hi iff hi is above its last fitting level; its load at lo
        # is its _node_usage (only the nodes holding an active job matter)
        for i in range(nodes):
            over[i] = hi > node_last[i]
            live[i] = False
        for k in range(size):
            if active[job[k]]:
                live[node[k]] = True
        for i in range(nodes):
            if live[i]:
                used[i] = _node_usage(i, ptr, entries, job, weight, a, b, yields, active, lo)
        for j in range(n):
            if active[j]:
                yields[j] = min(1.0, max(0.0, (lo - a[j]) / b[j]))
        frozen = np.zeros(n, dtype=np.bool_)
        any_frozen = False
        for k in range(size):
            j = job[k]
            if active[j] and (over[node[k]] or used[node[k]] >= 1.0 - 1e-9):
                frozen[j] = True
        for j in range(n):
            if active[j] and (frozen[j] or yields[j] >= 1.0 - tol):
                active[j] = False
                frozen[j] = True
                any_frozen = True
        if not any_frozen:
            break
        for k in range(size):  # the nodes of the jobs just frozen have a new load curve
            if frozen[job[k]]:
                stale[node[k]] = True
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
    intermediate arrays. It is ``maxmin_rows_kernel`` with row ``j`` of the matrix as
    job ``j``'s row.
    """
    index = np.arange(counts.shape[0])
    nz = np.empty((counts.shape[0], counts.shape[1] + 1), dtype=np.int32)
    for j in range(counts.shape[0]):
        index_row(nz, j, counts[j])
    return maxmin_rows_kernel(counts, nz, index, index, cpu, tol)


@njit(cache=True)
def index_row(nz: np.ndarray, s: int, row: np.ndarray) -> None:
    """Index row ``s`` of a pool (``row``): ``nz[s, 0]`` nonzero entries, at the nodes
    ``nz[s, 1 : 1 + nz[s, 0]]`` in increasing order (``numpy.flatnonzero(row)``)."""
    k = 0
    for n in range(row.shape[0]):
        if row[n] != 0:
            k += 1
            nz[s, k] = n
    nz[s, 0] = k


@warm_inputs(lambda: (np.ones((1, 1)), np.zeros((1, 2), dtype=np.int32),
                      np.zeros(1, dtype=np.int64)))
@njit(cache=True)
def index_rows_kernel(pool: np.ndarray, nz: np.ndarray, slots: np.ndarray) -> None:
    """``index_row`` for each of ``slots``: ``nz`` indexes those rows of ``pool`` again.

    Their zero entries become ``+0.0`` (a ``-0.0`` too), so that kernels may skip them
    in sums (``dfrs_kernels._add_indexed_row``) and clear a row through its index.

    >>> pool = np.array([[0.0, 2.0, -0.0, 1.0]]); nz = np.zeros((1, 5), dtype=np.int32)
    >>> index_rows_kernel(pool, nz, np.array([0])); nz[0, : 1 + nz[0, 0]].tolist()
    [2, 1, 3]
    >>> str(pool[0, 2])
    '0.0'
    """
    for s in slots:
        row = pool[s]
        for n in range(row.shape[0]):
            if row[n] == 0:
                row[n] = 0.0
        index_row(nz, s, row)


@warm_inputs(lambda: (
    np.ones((1, 1)), np.array([[1, 0]], dtype=np.int32), np.zeros(1, dtype=np.int64),
    readonly_array([0], np.int64), readonly_array([1.0], float),
))
@njit(cache=True)
def indexed_weights_kernel(
    pool: np.ndarray, nz: np.ndarray, slot: np.ndarray, jobs: np.ndarray, cpu: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The nonzero entries of ``pool[slot[jobs]] * cpu[jobs][:, None]``, read through the index.

    As ``numpy.nonzero`` of that matrix lists them (job by job, node by node):
    ``(position in jobs, node, weight)``, int64, int64, float; the weight is the row's
    entry times the job's CPU need, the matrix's product. Raises ``ValueError`` for a job
    without a row.

    >>> pool = np.array([[1.0, 0.0, 2.0]]); nz = np.array([[2, 0, 2, 0]], dtype=np.int32)
    >>> job, node, weight = indexed_weights_kernel(
    ...     pool, nz, np.array([0]), np.array([0]), np.array([0.5]))
    >>> job.tolist(), node.tolist(), weight.tolist()
    ([0, 0], [0, 2], [0.5, 1.0])
    """
    size = 0
    for i in range(jobs.shape[0]):
        if slot[jobs[i]] < 0:
            raise ValueError("a job without a row")
        size += nz[slot[jobs[i]], 0]
    job = np.empty(size, dtype=np.int64)
    node = np.empty(size, dtype=np.int64)
    weight = np.empty(size)
    k = 0
    for i in range(jobs.shape[0]):
        s = slot[jobs[i]]
        c = cpu[jobs[i]]
        for e in range(1, nz[s, 0] + 1):
            n = nz[s, e]
            job[k] = i
            node[k] = n
            weight[k] = pool[s, n] * c
            k += 1
    return job, node, weight


@warm_inputs(lambda: (
    np.ones((1, 1)), np.array([[1, 0]], dtype=np.int32), np.zeros(1, dtype=np.int64),
    readonly_array([0], np.int64), readonly_array([1.0], float), 1e-12,
))
@njit(cache=True)
def maxmin_rows_kernel(
    pool: np.ndarray, nz: np.ndarray, slot: np.ndarray, jobs: np.ndarray, cpu: np.ndarray,
    tol: float,
) -> np.ndarray:
    """``maxmin_dense_kernel(pool[slot[jobs]], cpu[jobs], tol)`` without the matrix.

    DFRS keeps each job's tasks per node as a row of a pool (``dfrs_rows.RowPool``),
    with the index ``nz`` of each row's nonzero entries (``index_row``): those of
    ``jobs``' rows are read in the order of the dense matrix (job by job, node by node),
    with the same weights, so the same yields. Only the indexed entries are read: a
    job on two of 120 nodes costs two reads, not 120.
    """
    job, node, weight = indexed_weights_kernel(pool, nz, slot, jobs, cpu)
    return maxmin_fill_kernel(job, node, weight, jobs.shape[0], pool.shape[1], tol)


@warm_inputs(lambda: (
    np.ones((1, 2)), np.array([[2, 0, 1]], dtype=np.int32), np.zeros(1, dtype=np.int64),
    readonly_array([0], np.int64), readonly_array([1.0], float),
))
@njit(cache=True)
def avg_lp_rows_kernel(
    pool: np.ndarray, nz: np.ndarray, slot: np.ndarray, jobs: np.ndarray, cpu: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The inputs of the opt=avg LP of ``jobs`` read from a pool of indexed rows.

    With ``coeff = pool[slot[jobs]] * cpu[jobs][:, None]`` (tasks per node times the CPU
    need per task): ``numpy.nonzero(coeff)`` (positions in ``jobs`` and nodes, int64;
    an indexed entry whose product underflows to 0 is dropped as there), the nonzero
    values in that order, and ``coeff.sum(axis=0).max(initial=0.0)``, the
    largest node load. The loads add each node's weights in job order, as numpy sums a
    C-ordered matrix of two or more columns along axis 0 (one column it sums pairwise:
    ``allocation.max_avg_yields_rows`` leaves that case to the matrix).

    >>> pool = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]])
    >>> nz = np.array([[2, 0, 2, 0], [2, 1, 2, 0]], dtype=np.int32)
    >>> job, node, value, peak = avg_lp_rows_kernel(
    ...     pool, nz, np.array([1, 0]), np.array([0, 1]), np.array([0.25, 0.5]))
    >>> job.tolist(), node.tolist(), value.tolist(), peak
    ([0, 0, 1, 1], [1, 2, 0, 2], [0.25, 0.25, 0.5, 1.0], 1.25)
    """
    job, node, weight = indexed_weights_kernel(pool, nz, slot, jobs, cpu)
    load = np.zeros(pool.shape[1])
    for k in range(weight.shape[0]):
        load[node[k]] += weight[k]
    peak = 0.0
    for n in range(load.shape[0]):
        peak = max(peak, load[n])
    kept = 0  # a count times a CPU need may underflow to 0: numpy.nonzero drops it
    for k in range(weight.shape[0]):
        if weight[k] != 0:
            job[kept], node[kept], weight[kept] = job[k], node[k], weight[k]
            kept += 1
    if kept < weight.shape[0]:
        return job[:kept].copy(), node[:kept].copy(), weight[:kept].copy(), peak
    return job, node, weight, peak
