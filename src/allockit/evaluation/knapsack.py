"""The bounded two-dimensional knapsack (numba): the pricing problem of the configuration LP.

Maximise ``sum_i v_i x_i`` over integers ``0 <= x_i <= d_i`` with
``sum_i a_i x_i <= A`` and ``sum_i m_i x_i <= M``. A depth-first branch and bound
(Martello and Toth's MT1 scheme, bounded items) over the items sorted by value per
unit of a *surrogate* weight ``w_i = mu a_i / A + (1 - mu) m_i / M``: every pattern
that fits both capacities has ``sum_i w_i x_i <= 1``, so Dantzig's fractional bound
of that one-constraint knapsack bounds every subtree (``mu`` is chosen where the
root bound is lowest). When the node budget runs out, the unexplored subtrees are
bounded the same way, so the answer is always an interval: the best pattern found
and a proven upper bound on the optimum (equal to it when the search completed).

The compiled code is cached where ``allockit.heuristics.kernel_setup`` caches the others
(``allockit.numba_cache.numba_cache_dir``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np

from allockit.checks import first_bad_entry, real_array, real_number
from allockit.errors import InvalidInputError
from allockit.numba_cache import numba_cache_dir

__all__ = ["KnapsackOutcome", "first_fit_patterns", "knapsack_2d", "load_knapsack_kernel"]

#: Surrogate multipliers tried at the root (the one with the lowest bound is kept).
SURROGATE_GRID = 11
_WARM = False  # whether load_knapsack_kernel has run in this process

#: Most cells (units x items) ``first_fit_patterns`` lays its packings out in.
MAX_PATTERN_CELLS = 100_000_000
#: Nodes between two looks at the clock.
CHUNK_NODES = 20_000
#: Relative margin on a proven upper bound: covers every floating-point rounding of
#: the sums and bounds of the search (errors of order 1e-15, far below it).
UPPER_MARGIN = 1e-9


def _use_user_cache() -> None:
    """Point numba's cache where ``allockit.heuristics.kernel_setup`` points it."""
    from numba.core import config

    if not os.environ.get("NUMBA_CACHE_DIR"):
        config.CACHE_DIR = numba_cache_dir()


_use_user_cache()

from numba import njit  # noqa: E402 - after the cache directory is set


@njit(cache=True)
def _dantzig(start, value, wa, wm, w, dem, first_cap, cap_a, cap_m, cap_s):  # pragma: no cover
    """Dantzig's bound on the value items ``start..`` can add to a partial pattern.

    ``cap_a``, ``cap_m`` are the capacities left in both dimensions and ``cap_s`` the
    surrogate capacity left; an item that alone exceeds ``cap_a`` or ``cap_m`` is
    skipped, and an item's count is capped by what fits of it in each dimension.
    ``first_cap >= 0`` replaces the demand of item ``start``.
    """
    n = value.shape[0]
    bound = 0.0
    s = cap_s
    for i in range(start, n):
        d = dem[i]
        if i == start and first_cap >= 0:
            d = first_cap
        if d <= 0 or wa[i] > cap_a or wm[i] > cap_m:
            continue
        fit = np.floor(cap_a / wa[i])
        if fit < d:
            d = int(fit)
        if wm[i] > 0.0:
            fit = np.floor(cap_m / wm[i])
            if fit < d:
                d = int(fit)
        if w[i] <= 0.0:
            bound += d * value[i]
            continue
        if s <= 0.0:
            break
        take = s / w[i]
        if take >= d:
            bound += d * value[i]
            s -= d * w[i]
        else:
            bound += take * value[i]
            break
    return bound


@njit(cache=True)
def _order(value, wa, wm, cap_a, cap_m, mu):  # pragma: no cover
    """Surrogate weights for ``mu`` and the items sorted by value per weight (desc)."""
    n = value.shape[0]
    w = mu * wa / cap_a + (1.0 - mu) * wm / cap_m
    key = np.empty(n)
    for i in range(n):
        key[i] = -value[i] / w[i] if w[i] > 0.0 else -np.inf
    return w, np.argsort(key, kind="mergesort")


@njit(cache=True)
def prepare_kernel(value, wa, wm, dem, cap_a, cap_m):  # pragma: no cover
    """The search order: items by value per surrogate weight for the multiplier ``mu``
    (of ``SURROGATE_GRID`` tried) whose Dantzig bound at the root is lowest. Returns
    ``(order, w, root)``: the order, the surrogate weights (input order) and the root
    bound."""
    best_mu = 0.0
    best_root = np.inf
    for g in range(SURROGATE_GRID):
        mu = g / (SURROGATE_GRID - 1.0)
        w, order = _order(value, wa, wm, cap_a, cap_m, mu)
        root = _dantzig(0, value[order], wa[order], wm[order], w[order], dem[order], -1,
                        cap_a, cap_m, 1.0)
        if root < best_root:
            best_root, best_mu = root, mu
    w, order = _order(value, wa, wm, cap_a, cap_m, best_mu)
    return order, w, best_root


@njit(cache=True)
def _units_fitting(demand, room_a, room_m, a, m):  # pragma: no cover
    """How many units of an item (at most ``demand``) fit in the room left on both
    resources: ``min(demand, floor(room_a / a), floor(room_m / m))``, at least 0 (an
    item without memory fits by its CPU alone)."""
    t = demand
    f = np.floor(room_a / a)
    if f < t:
        t = int(max(f, 0.0))
    if m > 0.0:
        f = np.floor(room_m / m)
        if f < t:
            t = int(max(f, 0.0))
    return t


@njit(cache=True)
def search_kernel(
    v, a, m, ws, d, cap_a, cap_m, x, fs, ints, node_limit, out_x, order
):  # pragma: no cover
    """Depth-first branch and bound over items ``v, a, m, ws, d`` (sorted), resumable.

    The state lives in ``x`` (units of each item in the current pattern), ``fs`` =
    ``[load_a, load_m, load_s, val, best, target]`` and ``ints`` = ``[k, found,
    nodes]``: the search runs until ``node_limit`` more nodes and can be called again
    with the same state. ``out_x`` (``keep x n``) receives the improving patterns
    cyclically, counts in the input order (``order`` maps sorted to input). Only
    patterns of value above ``target`` (initially the floor) are searched for. Returns
    True when the search is complete.
    """
    n = v.shape[0]
    keep = out_x.shape[0]
    # suffix minima: nothing fits when the capacity left is below them
    min_a = np.full(n + 1, np.inf)
    min_m = np.full(n + 1, np.inf)
    for i in range(n - 1, -1, -1):
        min_a[i] = min(min_a[i + 1], a[i])
        min_m[i] = min(min_m[i + 1], m[i])
    load_a, load_m, load_s, val, best, target = fs[0], fs[1], fs[2], fs[3], fs[4], fs[5]
    k, found, nodes = ints[0], ints[1], ints[2]
    stop = nodes + node_limit
    complete = False
    while True:
        if nodes >= stop:
            break
        # forward: greedy descent from level k
        while k < n:
            if cap_a - load_a < min_a[k] or cap_m - load_m < min_m[k]:
                k = n
                break
            t = _units_fitting(d[k], cap_a - load_a, cap_m - load_m, a[k], m[k])
            if t > 0:
                x[k] = t
                load_a += t * a[k]
                load_m += t * m[k]
                load_s += t * ws[k]
                val += t * v[k]
            k += 1
            nodes += 1
        if val > target:
            best = val
            target = val
            row = out_x[found % keep]
            row[:] = 0
            for i in range(n):
                row[order[i]] = x[i]
            found += 1
        # backtrack: the deepest level with a unit to give back whose bound beats
        # target, one unit at a time (with the skipping of items that do not fit,
        # fewer units of an item can bound higher: more items fit)
        j = n - 1
        moved = False
        while j >= 0:
            while x[j] > 0:
                x[j] -= 1
                load_a -= a[j]
                load_m -= m[j]
                load_s -= ws[j]
                val -= v[j]
                nodes += 1
                ub = val + _dantzig(j + 1, v, a, m, ws, d, -1, cap_a - load_a,
                                    cap_m - load_m, 1.0 - load_s)
                if ub > target:
                    k = j + 1
                    moved = True
                    break
            if moved:
                break
            j -= 1
        if not moved:
            complete = True
            break
    fs[0], fs[1], fs[2], fs[3], fs[4], fs[5] = load_a, load_m, load_s, val, best, target
    ints[0], ints[1], ints[2] = k, found, nodes
    return complete


@njit(cache=True)
def open_bound_kernel(v, a, m, ws, d, cap_a, cap_m, x, fs, ints):  # pragma: no cover
    """An upper bound on every pattern a paused search has not yet examined: the
    subtree of the current node, and at every level ``i`` with ``x[i] > 0`` the
    alternatives with fewer units of item ``i`` (pruned subtrees bound no higher than
    ``target``, which the result includes)."""
    k = ints[0]
    target = fs[5]
    upper = max(target, fs[3] + _dantzig(k, v, a, m, ws, d, -1, cap_a - fs[0],
                                         cap_m - fs[1], 1.0 - fs[2]))
    pa = 0.0
    pm = 0.0
    ps = 0.0
    pv = 0.0
    for i in range(k):
        if x[i] > 0:
            ub = pv + _dantzig(i, v, a, m, ws, d, x[i] - 1, cap_a - pa, cap_m - pm, 1.0 - ps)
            if ub > upper:
                upper = ub
        pa += x[i] * a[i]
        pm += x[i] * m[i]
        ps += x[i] * ws[i]
        pv += x[i] * v[i]
    return upper


@njit(cache=True)
def greedy_patterns_kernel(value, wa, wm, dem, cap_a, cap_m, floor, out_x):  # pragma: no cover
    """Cheap extra patterns: one per item among the first ``out_x.shape[0]`` by value per
    surrogate weight (``mu = 0.5``), that item first, then the others in that order
    while they fit. Returns how many rows of ``out_x`` hold a pattern of value above
    ``floor``."""
    n = value.shape[0]
    _, order = _order(value, wa, wm, cap_a, cap_m, 0.5)
    count = 0
    for s in range(min(n, out_x.shape[0])):
        row = out_x[count]
        row[:] = 0
        load_a = 0.0
        load_m = 0.0
        val = 0.0
        for r in range(-1, n):
            i = order[s] if r < 0 else order[r]
            if r == s:
                continue
            t = _units_fitting(dem[i], cap_a - load_a, cap_m - load_m, wa[i], wm[i])
            if t > 0:
                row[i] = t
                load_a += t * wa[i]
                load_m += t * wm[i]
                val += t * value[i]
        if val > floor:
            count += 1
    return count


@njit(cache=True)
def first_fit_kernel(order, cpu, mem, demand, cap_a, cap_m, out):  # pragma: no cover
    """First fit of every unit of the items, in ``order``, into bins of capacity
    ``(cap_a, cap_m)``; ``out[b, i]`` counts item ``i`` in bin ``b`` (rows enough for
    every unit). Returns the bins used (an item too large for a bin is skipped)."""
    bins = 0
    load_a = np.zeros(out.shape[0])
    load_m = np.zeros(out.shape[0])
    for i in order:
        if cpu[i] > cap_a or mem[i] > cap_m:
            continue
        for _ in range(demand[i]):
            b = 0
            while b < bins and (load_a[b] + cpu[i] > cap_a or load_m[b] + mem[i] > cap_m):
                b += 1
            if b == bins:
                bins += 1
            out[b, i] += 1
            load_a[b] += cpu[i]
            load_m[b] += mem[i]
    return bins


def first_fit_patterns(
    cpu: np.ndarray, mem: np.ndarray, demand: np.ndarray, cap_cpu: float, cap_mem: float
) -> np.ndarray:
    """Bins of first-fit decreasing packings (three sort keys): starting columns.

    Items are sorted by decreasing CPU need, memory, and the larger of the two
    relative to the capacities; every bin of every packing is a row of counts.

    Parameters
    ----------
    cpu, mem : numpy.ndarray
        Size of one unit of each item in each dimension (``cpu > 0``, ``mem >= 0``).
    demand : numpy.ndarray
        Units of each item (integers >= 0).
    cap_cpu, cap_mem : float
        Bin capacities (> 0).

    Returns
    -------
    numpy.ndarray of int64, shape (bins, items)
        The bins of the three packings (items larger than a bin are left out).

    Raises
    ------
    InvalidInputError
        As ``knapsack_2d`` for the items and capacities; and when the units times
        the items exceed ``MAX_PATTERN_CELLS`` (the packings' room).

    Examples
    --------
    >>> first_fit_patterns(np.array([0.6, 0.5, 0.4]), np.zeros(3), np.ones(3, np.int64),
    ...                    1.0, 1.0).tolist()[:2]
    [[1, 0, 1], [0, 1, 0]]
    """
    _, cpu, mem, demand = _checked_items(None, cpu, mem, demand, cap_cpu, cap_mem)
    cells = int(demand.sum()) * max(1, cpu.size)
    if cells > MAX_PATTERN_CELLS:
        raise InvalidInputError(
            f"demand: {int(demand.sum())} units of {cpu.size} items would need {cells} "
            f"pattern cells, more than {MAX_PATTERN_CELLS}"
        )
    keys = (cpu, mem, np.maximum(cpu / cap_cpu, mem / cap_mem))
    packings = []
    for key in keys:
        out = np.zeros((int(demand.sum()), cpu.size), dtype=np.int64)
        order = np.argsort(-key, kind="stable").astype(np.int64)
        bins = first_fit_kernel(order, cpu, mem, demand, float(cap_cpu), float(cap_mem), out)
        packings.append(out[:bins].copy())  # (not a view: the room is freed at once)
    return np.concatenate(packings)


@dataclass(frozen=True, slots=True)
class KnapsackOutcome:
    """What the pricing search proved and found.

    Attributes
    ----------
    best : float
        Value of the best pattern found above the floor (0.0 when none).
    upper : float
        A proven upper bound on every pattern's value (the search's bound enlarged by
        ``UPPER_MARGIN`` for rounding); the optimum itself when ``complete`` and a
        pattern above the floor was found.
    patterns : numpy.ndarray
        Improving patterns found (rows of counts per item, best last); may be empty.
    complete : bool
        Whether the search finished within its node budget.
    nodes : int
        Nodes visited.

    Examples
    --------
    >>> out = knapsack_2d(np.array([1.0]), np.array([0.4]), np.array([0.3]),
    ...                   np.array([3]), 1.0, 1.0)
    >>> round(out.best, 6), out.complete, out.patterns[-1].tolist()
    (2.0, True, [2])
    """

    best: float
    upper: float
    patterns: np.ndarray
    complete: bool
    nodes: int


def _checked_items(
    value: object, cpu: object, mem: object, demand: object, cap_cpu: object, cap_mem: object
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, np.ndarray]:
    """``knapsack_2d``'s items as arrays, or an error naming the first value out of range."""
    arrays = {}
    for name, raw in (("value", value), ("cpu", cpu), ("mem", mem), ("demand", demand)):
        if raw is not None:  # (first_fit_patterns: no values)
            arrays[name] = real_array(name, raw)
    sizes = {name: arr.size for name, arr in arrays.items()}
    if len(set(sizes.values())) > 1:
        raise InvalidInputError(f"{', '.join(sizes)} must have one entry per item; got {sizes}")
    tests = {"value": (np.isfinite, "finite"), "cpu": (lambda x: x > 0, "> 0 and finite"),
             "mem": (lambda x: x >= 0, ">= 0 and finite"),
             "demand": (lambda x: (x >= 0) & (x == np.floor(x)), "an integer >= 0")}
    for name, (test, wanted) in tests.items():
        if name in arrays:
            first_bad_entry(name, arrays[name], test(arrays[name]), wanted)
    for name, cap in (("cap_cpu", cap_cpu), ("cap_mem", cap_mem)):
        real_number(name, cap, above=0)
    return (arrays.get("value"), arrays["cpu"], arrays["mem"],
            arrays["demand"].astype(np.int64))


def knapsack_2d(
    value: np.ndarray,
    cpu: np.ndarray,
    mem: np.ndarray,
    demand: np.ndarray,
    cap_cpu: float,
    cap_mem: float,
    *,
    floor: float = 0.0,
    node_limit: int = 1_000_000,
    keep: int = 8,
    greedy: int = 0,
    deadline: float | None = None,
) -> KnapsackOutcome:
    """The best pattern of a bounded two-dimensional knapsack, with a proven upper bound.

    Items with value at most 0 or that alone exceed a capacity are left out (they can
    only lower a pattern's value or cannot be in one).

    Parameters
    ----------
    value : numpy.ndarray
        Value of one unit of each item.
    cpu, mem : numpy.ndarray
        Size of one unit in each dimension (``cpu > 0``, ``mem >= 0``).
    demand : numpy.ndarray
        Most units of each item in a pattern (integers >= 0).
    cap_cpu, cap_mem : float
        The capacities (> 0).
    floor : float, default 0.0
        Only patterns of value above ``floor`` are searched for and recorded (the
        pricing problem asks for value above 1); the upper bound stays valid.
    node_limit : int, default 1,000,000
        Search budget; past it the unexplored subtrees are bounded, not searched.
    keep : int, default 8
        How many of the last improving patterns to return.
    greedy : int, default 0
        Also return up to this many greedy patterns of value above ``floor`` (each
        starts from one of the items of best value per size), for more columns per
        pricing round; they are not part of the bound.
    deadline : float, optional
        A ``time.perf_counter()`` value: the search pauses every ``CHUNK_NODES``
        nodes to look at the clock and stops once it has passed (the unexplored part
        is then bounded, as for ``node_limit``).

    Returns
    -------
    KnapsackOutcome
        The best value found, the proven upper bound, the patterns (counts per item in
        the input order), whether the search completed, and the nodes visited.

    Raises
    ------
    InvalidInputError
        For items of different lengths, a size, value or demand out of the ranges
        above (named with its index), a capacity that is not finite and > 0, or
        ``node_limit`` below 1.

    Examples
    --------
    >>> out = knapsack_2d(np.array([1.0, 0.7, 0.7]), np.array([0.7, 0.4, 0.4]),
    ...                   np.array([0.5, 0.5, 0.5]), np.array([1, 1, 1]), 1.0, 1.0)
    >>> round(out.best, 6), out.patterns[-1].tolist(), out.complete
    (1.4, [0, 1, 1], True)
    >>> out.upper >= out.best
    True
    """
    value, cpu, mem, demand = _checked_items(value, cpu, mem, demand, cap_cpu, cap_mem)
    if (isinstance(node_limit, bool) or not isinstance(node_limit, int | np.integer)
            or node_limit < 1):
        raise InvalidInputError(f"node_limit must be an integer >= 1; got {node_limit!r}")
    use = np.flatnonzero((value > 0.0) & (demand > 0) & (cpu <= cap_cpu) & (mem <= cap_mem))
    if use.size == 0:
        return KnapsackOutcome(0.0, 0.0, np.zeros((0, value.size), np.int64), True, 0)
    cap_cpu, cap_mem = float(cap_cpu), float(cap_mem)
    v, a, m, d = value[use], cpu[use], mem[use], demand[use]
    order, w, root = prepare_kernel(v, a, m, d, cap_cpu, cap_mem)
    out = np.zeros((max(1, keep), use.size), dtype=np.int64)
    best, upper, nodes, found, complete = 0.0, root, 1, 0, True
    if root > floor:
        v, a, m, ws, d = v[order], a[order], m[order], w[order], d[order]
        x = np.zeros(use.size, dtype=np.int64)
        fs = np.array([0.0, 0.0, 0.0, 0.0, 0.0, float(floor)])
        ints = np.zeros(3, dtype=np.int64)
        while True:
            chunk = min(CHUNK_NODES, node_limit - int(ints[2]))
            complete = search_kernel(v, a, m, ws, d, cap_cpu, cap_mem, x, fs, ints,
                                     max(chunk, 1), out, order)
            if complete or ints[2] >= node_limit or (
                deadline is not None and time.perf_counter() >= deadline
            ):
                break
        best, nodes, found = float(fs[4]), int(ints[2]), int(ints[1])
        upper = fs[5] if complete else open_bound_kernel(v, a, m, ws, d, cap_cpu, cap_mem,
                                                         x, fs, ints)
    count = min(found, out.shape[0])
    rows = [(found - count + r) % out.shape[0] for r in range(count)]
    chosen = out[rows]
    if greedy > 0:
        extra = np.zeros((greedy, use.size), dtype=np.int64)
        k = greedy_patterns_kernel(
            value[use], cpu[use], mem[use], demand[use], cap_cpu, cap_mem, float(floor), extra
        )
        chosen = np.concatenate((extra[:k], chosen))
    patterns = np.zeros((chosen.shape[0], value.size), dtype=np.int64)
    patterns[:, use] = chosen
    return KnapsackOutcome(
        best, float(upper) * (1.0 + UPPER_MARGIN), patterns, bool(complete), nodes
    )


def load_knapsack_kernel() -> float:
    """Compile (or load from numba's cache) the kernels; the seconds it took (0 if warm).

    This is the one-time cost of the first pricing in a process; callers report it as
    ``setup_seconds``, apart from the solving time.

    Returns
    -------
    float
        Seconds spent compiling or loading; 0.0 when the kernels were already warm.

    Examples
    --------
    >>> load_knapsack_kernel() >= 0.0, load_knapsack_kernel()
    (True, 0.0)
    """
    global _WARM
    if _WARM:
        return 0.0
    started = time.perf_counter()
    knapsack_2d(np.ones(2), np.full(2, 0.5), np.zeros(2), np.ones(2, np.int64), 1.0, 1.0,
                greedy=1, node_limit=1)
    first_fit_patterns(np.full(2, 0.5), np.zeros(2), np.ones(2, np.int64), 1.0, 1.0)
    _WARM = True
    return time.perf_counter() - started
