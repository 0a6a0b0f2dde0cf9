"""Compiled (numba) inner loops of the sequential VCSched heuristics.

Each kernel is the step of an algorithm that cannot be vectorised (jobs are placed one
after the other). Plain-Python twins of GR and MCB live in ``tests/reference_heuristics.py``
and must agree placement for placement.

The compiled machine code is cached in a user cache directory, not in the installed
package: ``$NUMBA_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/allockit/numba`` (default
``~/.cache/allockit/numba``); see ``numba_cache_dir``. Numba falls back to its own
places if that directory cannot be written.
"""

from __future__ import annotations

import os

import numpy as np


def numba_cache_dir() -> str:
    """Where numba caches allockit's compiled kernels.

    ``$NUMBA_CACHE_DIR`` if set (numba's own setting, which wins), else
    ``$XDG_CACHE_HOME/allockit/numba``, else ``~/.cache/allockit/numba``.

    Returns
    -------
    str
        The directory (not created here; numba creates it on first write).

    Examples
    --------
    >>> import os
    >>> numba_cache_dir() == os.environ.get("NUMBA_CACHE_DIR", numba_cache_dir())
    True
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.environ["NUMBA_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "allockit", "numba")


def _use_user_cache() -> None:
    """Point numba's cache at ``numba_cache_dir()`` before the kernels are decorated."""
    from numba.core import config

    if not os.environ.get("NUMBA_CACHE_DIR"):
        config.CACHE_DIR = numba_cache_dir()


_use_user_cache()

from numba import njit  # noqa: E402 - after the cache directory is set

from allockit.constants import MEM_EPS  # noqa: E402
from allockit.errors import InvalidInputError  # noqa: E402

__all__ = [
    "affine_fill_kernel",
    "drfh_tasks_kernel",
    "greedy_backtrack_kernel",
    "greedy_fill_kernel",
    "greedy_kernel",
    "local_search_kernel",
    "maxmin_fill_kernel",
    "mcb_fill_kernel",
    "mcb_pack_kernel",
    "numba_cache_dir",
    "warm_up",
]


@njit(cache=True)
def greedy_fill_kernel(
    cpu: np.ndarray, mem: np.ndarray, load: np.ndarray, free: np.ndarray
) -> np.ndarray:
    """GR from a given node state: each task in turn goes to the least-loaded node with
    room for its memory (lowest index on ties). ``load`` (CPU) and ``free`` (memory) are
    updated in place; ``out[t] = -1`` from the first task that fails."""
    n = cpu.shape[0]
    hosts = load.shape[0]
    out = np.full(n, -1, dtype=np.int64)
    for t in range(n):
        best = -1
        for j in range(hosts):
            if free[j] + MEM_EPS >= mem[t] and (best < 0 or load[j] < load[best]):
                best = j
        if best < 0:
            return out
        out[t] = best
        load[best] += cpu[t]
        free[best] -= mem[t]
    return out


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
        placed = greedy_fill_kernel(np.full(k, cpu[j]), np.full(k, m), load.copy(),
                                    1.0 - mem_used)
        if k and placed[k - 1] < 0:
            continue  # (the fit count and Greedy's placements differ by rounding: waits)
        row = rows[count]
        for t in range(k):
            row[placed[t]] += 1.0
        _add_row(mem_used, load, row, m, cpu[j], 1.0)
        started[count] = j
        count += 1
    return started[:count].copy(), rows[:count].copy()


@njit(cache=True)
def greedy_kernel(cpu: np.ndarray, mem: np.ndarray, hosts: int) -> np.ndarray:
    """GR on tasks in the given order on empty hosts; ``out[t] = -1`` from the first
    task that fails."""
    return greedy_fill_kernel(cpu, mem, np.zeros(hosts), np.ones(hosts))


@njit(cache=True)
def _host_order(load: np.ndarray) -> np.ndarray:
    return np.argsort(load, kind="mergesort")


@njit(cache=True)
def greedy_backtrack_kernel(
    cpu: np.ndarray, mem: np.ndarray, hosts: int, max_attempts: int
) -> tuple[np.ndarray, int]:
    """GB: depth-first search in GR's order, bounded by ``max_attempts`` placements.

    Returns the placement (all -1 on failure) and the number of attempts made. The first
    leaf reached is GR's own placement whenever GR succeeds.
    """
    n = cpu.shape[0]
    load = np.zeros(hosts)
    free = np.ones(hosts)
    out = np.full(n, -1, dtype=np.int64)
    orders = np.empty((n, hosts), dtype=np.int64)
    position = np.zeros(n, dtype=np.int64)
    attempts = 0
    depth = 0
    if n == 0:
        return out, 0
    orders[0] = _host_order(load)
    while True:
        placed = False
        while position[depth] < hosts:
            j = orders[depth, position[depth]]
            position[depth] += 1
            if free[j] + MEM_EPS >= mem[depth]:
                attempts += 1
                out[depth] = j
                load[j] += cpu[depth]
                free[j] -= mem[depth]
                placed = True
                break
        if placed:
            if depth == n - 1:
                return out, attempts
            if attempts >= max_attempts:
                break
            depth += 1
            orders[depth] = _host_order(load)
            position[depth] = 0
            continue
        # no host left for this task: undo the previous one and try its next host
        out[depth] = -1
        if depth == 0:
            break
        depth -= 1
        j = out[depth]
        load[j] -= cpu[depth]
        free[j] += mem[depth]
        out[depth] = -1
        if attempts >= max_attempts:
            break
    return np.full(n, -1, dtype=np.int64), attempts


@njit(cache=True)
def _tree_build(items: np.ndarray, cpu_req: np.ndarray, mem: np.ndarray, size: int):
    """Min-trees of the CPU and memory needs of a list's tasks (leaf ``k``: ``items[k]``)."""
    low_cpu = np.full(2 * size, np.inf)
    low_mem = np.full(2 * size, np.inf)
    for k in range(items.shape[0]):
        low_cpu[size + k] = cpu_req[items[k]]
        low_mem[size + k] = mem[items[k]]
    for i in range(size - 1, 0, -1):
        low_cpu[i] = min(low_cpu[2 * i], low_cpu[2 * i + 1])
        low_mem[i] = min(low_mem[2 * i], low_mem[2 * i + 1])
    return low_cpu, low_mem


@njit(cache=True)
def _tree_take(low_cpu: np.ndarray, low_mem: np.ndarray, size: int, free_cpu: float,
               free_mem: float, stack: np.ndarray) -> int:
    """The first list position whose task fits, removed from the trees; -1 if none.

    Depth-first from the left, pruning subtrees whose smallest CPU or memory need does
    not fit: the first fitting task of the list in O(log n) steps in practice (the
    scan of a list past tasks too large for a nearly full host was O(n) per host).
    ``stack`` is work space of at least 130 entries (depth-first: two per level).
    """
    cap_cpu = free_cpu + MEM_EPS
    cap_mem = free_mem + MEM_EPS
    if low_cpu[1] > cap_cpu or low_mem[1] > cap_mem:
        return -1
    stack[0] = 1
    top = 1
    while top > 0:
        top -= 1
        i = stack[top]
        if low_cpu[i] > cap_cpu or low_mem[i] > cap_mem:
            continue
        if i >= size:
            low_cpu[i] = np.inf
            low_mem[i] = np.inf
            j = i // 2
            while j >= 1:
                low_cpu[j] = min(low_cpu[2 * j], low_cpu[2 * j + 1])
                low_mem[j] = min(low_mem[2 * j], low_mem[2 * j + 1])
                j //= 2
            return i - size
        stack[top] = 2 * i + 1
        stack[top + 1] = 2 * i
        top += 2
    return -1


@njit(cache=True)
def mcb_fill_kernel(
    cpu_req: np.ndarray,
    mem: np.ndarray,
    cpu_list: np.ndarray,
    mem_list: np.ndarray,
    free_cpu0: np.ndarray,
    free_mem0: np.ndarray,
) -> np.ndarray:
    """Multi-capacity packing for fixed CPU requirements (Leinberger et al.).

    ``cpu_list`` and ``mem_list`` are the task indices of the CPU-heavy and memory-heavy
    lists, each in its sorted order. Hosts start with free CPU ``free_cpu0`` and memory
    ``free_mem0`` (all ones for empty hosts) and are filled one at a time: take the
    first fitting task of the list that counters the host's imbalance (more free memory
    than free CPU: the memory-heavy list), else of the other list; when nothing fits,
    open the next host. Returns the placement, or all -1 when some task could not be
    placed. Each list is kept in min-trees of its tasks' needs (``_tree_take``), so a
    pack of 100,000 tasks on 20,000 hosts takes milliseconds, not seconds.
    """
    n = cpu_req.shape[0]
    out = np.full(n, -1, dtype=np.int64)
    left = n
    if left == 0:
        return out
    size_c = 1
    while size_c < max(1, cpu_list.shape[0]):
        size_c *= 2
    size_m = 1
    while size_m < max(1, mem_list.shape[0]):
        size_m *= 2
    stack = np.empty(130, dtype=np.int64)
    c_cpu, c_mem = _tree_build(cpu_list, cpu_req, mem, size_c)
    m_cpu, m_mem = _tree_build(mem_list, cpu_req, mem, size_m)
    hosts = free_cpu0.shape[0]
    room_cpu = np.zeros(hosts + 1)  # free CPU and memory of hosts h.. (suffix sums)
    room_mem = np.zeros(hosts + 1)
    for h in range(hosts - 1, -1, -1):
        room_cpu[h] = room_cpu[h + 1] + max(free_cpu0[h], 0.0)
        room_mem[h] = room_mem[h + 1] + max(free_mem0[h], 0.0)
    need_cpu = 0.0
    need_mem = 0.0
    for t in range(n):
        need_cpu += cpu_req[t]
        need_mem += mem[t]
    for h in range(hosts):
        # what is left cannot fit in the hosts left (each fit allows MEM_EPS): fail now
        if need_cpu > room_cpu[h] + left * MEM_EPS or need_mem > room_mem[h] + left * MEM_EPS:
            break
        free_cpu = free_cpu0[h]
        free_mem = free_mem0[h]
        while left > 0:
            memory_first = free_mem > free_cpu
            found = -1
            for attempt in range(2):
                if memory_first == (attempt == 0):
                    k = _tree_take(m_cpu, m_mem, size_m, free_cpu, free_mem, stack)
                    if k >= 0:
                        found = mem_list[k]
                else:
                    k = _tree_take(c_cpu, c_mem, size_c, free_cpu, free_mem, stack)
                    if k >= 0:
                        found = cpu_list[k]
                if found >= 0:
                    break
            if found < 0:
                break
            out[found] = h
            free_cpu -= cpu_req[found]
            free_mem -= mem[found]
            need_cpu -= cpu_req[found]
            need_mem -= mem[found]
            left -= 1
        if left == 0:
            return out
    return np.full(n, -1, dtype=np.int64)


@njit(cache=True)
def mcb_pack_kernel(
    cpu_req: np.ndarray,
    mem: np.ndarray,
    cpu_list: np.ndarray,
    mem_list: np.ndarray,
    hosts: int,
) -> np.ndarray:
    """``mcb_fill_kernel`` on ``hosts`` empty hosts."""
    return mcb_fill_kernel(cpu_req, mem, cpu_list, mem_list, np.ones(hosts), np.ones(hosts))


@njit(cache=True)
def _failed(placed: np.ndarray) -> bool:
    """Did a packing kernel fail (its placement all -1)?"""
    return placed.shape[0] > 0 and placed[0] < 0


@njit(cache=True)
def _mcb8_fill_at(
    target: float, cpu: np.ndarray, mem: np.ndarray, base_load: np.ndarray, free_mem: np.ndarray
) -> np.ndarray:
    """MCB8 (``key="max"``, descending) of tasks needing ``target * cpu`` on hosts with
    ``base_load`` CPU already used at yield ``target``; all -1 if it fails."""
    n = cpu.shape[0]
    free_cpu = 1.0 - target * base_load
    for h in range(free_cpu.shape[0]):
        if free_cpu[h] < -MEM_EPS:
            return np.full(max(n, 1), -1, dtype=np.int64)
    cpu_req = target * cpu
    keys = np.maximum(cpu_req, mem)
    order = np.argsort(-keys, kind="mergesort")  # stable, as numpy's
    n_cpu = 0
    for t in range(n):
        if cpu_req[t] > mem[t]:
            n_cpu += 1
    cpu_list = np.empty(n_cpu, dtype=np.int64)
    mem_list = np.empty(n - n_cpu, dtype=np.int64)
    a = 0
    b = 0
    for k in range(n):
        t = order[k]
        if cpu_req[t] > mem[t]:
            cpu_list[a] = t
            a += 1
        else:
            mem_list[b] = t
            b += 1
    return mcb_fill_kernel(cpu_req, mem, cpu_list, mem_list, free_cpu, free_mem)


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
    if not zero_packs:
        zero = _mcb8_fill_at(0.0, cpu, mem, base_load, free_mem)
        if _failed(zero):
            return False, zero
    best = _mcb8_fill_at(hi, cpu, mem, base_load, free_mem)
    if not _failed(best):
        return True, best
    found = False
    lo = 0.0
    for _ in range(200):
        if hi - lo < accuracy:
            break
        mid = 0.5 * (lo + hi)
        placed = _mcb8_fill_at(mid, cpu, mem, base_load, free_mem)
        if _failed(placed):
            hi = mid
        else:
            lo = mid
            best = placed
            found = True
    if not found:
        best = _mcb8_fill_at(0.0, cpu, mem, base_load, free_mem)  # (the same as zero)
        if _failed(best):
            return False, best
    return True, best


@njit(cache=True)
def drfh_tasks_kernel(
    free: np.ndarray,
    demand: np.ndarray,
    dominant: np.ndarray,
    weight: np.ndarray,
    remaining: np.ndarray,
    best: bool,
    share: np.ndarray,
) -> np.ndarray:
    """First-Fit / Best-Fit DRFH task placement; returns tasks per (user, machine).

    ``free`` (machines x resources), ``remaining`` and ``share`` (the users' current
    global dominant shares) are updated in place.
    """
    n, m = demand.shape
    S = free.shape[0]
    placed = np.zeros((n, S))
    blocked = np.zeros(n, dtype=np.bool_)
    while True:
        user = -1
        for i in range(n):
            if blocked[i] or remaining[i] <= 0:
                continue
            if user < 0 or share[i] / weight[i] < share[user] / weight[user]:
                user = i
        if user < 0:
            return placed
        chosen = -1
        best_h = np.inf
        for s in range(S):
            ok = True
            for r in range(m):
                if free[s, r] < demand[user, r] - MEM_EPS:
                    ok = False
                    break
            if not ok:
                continue
            if not best:
                chosen = s
                break
            h = 0.0
            for r in range(m):
                h += abs(demand[user, r] / demand[user, 0] - free[s, r] / free[s, 0])
            if h < best_h:
                best_h = h
                chosen = s
        if chosen < 0:
            blocked[user] = True
            continue
        for r in range(m):
            free[chosen, r] -= demand[user, r]
        placed[user, chosen] += 1
        share[user] += dominant[user]
        remaining[user] -= 1


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
    saturated nodes and those at yield 1.
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
        hi = top
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            if (
                _affine_usage(job, node, weight, a, b, yields, active, mid, nodes).max()
                <= 1.0 + tol
            ):
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


def _warm_inputs() -> dict[str, tuple]:
    """Tiny inputs of exactly the types the heuristics pass, per kernel."""
    one = np.ones(1)
    idx = np.zeros(1, dtype=np.int64)
    return {
        "greedy_kernel": (np.zeros(1), np.zeros(1), 1),
        "greedy_backtrack_kernel": (np.zeros(1), np.zeros(1), 1, 1),
        "mcb_fill_kernel": (np.zeros(1), np.zeros(1), idx, idx[:0].copy(), one, one.copy()),
        # (zero_packs given: DFRS passes it, and an omitted argument is another signature)
        "mcb8_largest_yield_kernel": (
            one, np.zeros(1), np.zeros(1), one.copy(), 1.0, 0.01, False
        ),
        "maxmin_dense_kernel": (np.ones((1, 1)), one.copy(), 1e-12),
        "add_rows_kernel": (
            np.zeros(1), np.zeros(1), np.ones((1, 1)), one.copy(), one.copy(), one.copy()
        ),
        "mcb8_memory_prefix_kernel": (
            np.zeros(1, dtype=np.bool_), idx, np.ones(1, dtype=np.int64), np.zeros(1),
            np.zeros((0, 1)),
        ),
        "greedy_fill_kernel": (np.zeros(1), np.zeros(1), np.zeros(1), np.ones(1)),
        "greedy_start_kernel": (
            idx, idx.copy(), np.zeros(1, dtype=np.bool_), np.ones(1, dtype=np.int64),
            one.copy(), np.zeros(1), np.zeros(1), np.zeros(1),
        ),
        "local_search_kernel": (
            np.full(2, 0.5), np.zeros(2), np.zeros(2, dtype=np.int64), 2, 0.0, 10, 1, 1, 4, 0
        ),
    }


_WARM: set[str] = set()


def warm_up(*names: str) -> float:
    """Compile (or load from numba's cache) the named kernels; the seconds it took.

    The first call of a numba kernel in a process pays its compilation, or the loading
    of the cached machine code; the heuristics call this before timing their work and
    report the seconds as ``setup_seconds``, apart from ``solve_seconds``. A kernel
    already warm in this process costs nothing.

    Parameters
    ----------
    *names : str
        Kernels to warm, among ``"greedy_kernel"``, ``"greedy_backtrack_kernel"``,
        ``"mcb_fill_kernel"``, ``"mcb8_largest_yield_kernel"``,
        ``"mcb8_memory_prefix_kernel"``, ``"maxmin_dense_kernel"``,
        ``"add_rows_kernel"``, ``"greedy_fill_kernel"``, ``"greedy_start_kernel"`` and
        ``"local_search_kernel"``
        (the ones with warm-up inputs).

    Returns
    -------
    float
        Seconds spent compiling or loading; 0.0 if all were already warm.

    Raises
    ------
    InvalidInputError
        For a name without warm-up inputs (the message lists the known ones).

    Examples
    --------
    >>> warm_up("greedy_kernel") >= 0.0, warm_up("greedy_kernel")
    (True, 0.0)
    >>> warm_up("no_such_kernel")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: kernel must be one of [...]; got 'no_such_kernel'
    """
    import time

    inputs = _warm_inputs()
    for name in names:
        if name not in inputs:
            raise InvalidInputError(f"kernel must be one of {sorted(inputs)}; got {name!r}")
    todo = [n for n in names if n not in _WARM]
    if not todo:
        return 0.0
    started = time.perf_counter()
    for name in todo:
        globals()[name](*inputs[name])
        _WARM.add(name)
    return time.perf_counter() - started


# ----------------------------------------------------------------------------------
# Local search on a VCSched placement (min-max CPU load, memory never over-committed)


@njit(cache=True)
def _xorshift(state: np.ndarray) -> int:
    """Next value of a 64-bit xorshift generator kept in ``state[0]`` (non-negative)."""
    x = state[0]
    x ^= (x << np.uint64(13)) & np.uint64(0xFFFFFFFFFFFFFFFF)
    x ^= x >> np.uint64(7)
    x ^= (x << np.uint64(17)) & np.uint64(0xFFFFFFFFFFFFFFFF)
    state[0] = x
    return int(x >> np.uint64(1))


@njit(cache=True)
def _members(place: np.ndarray, host: int, out: np.ndarray) -> int:
    count = 0
    for t in range(place.shape[0]):
        if place[t] == host:
            out[count] = t
            count += 1
    return count


@njit(cache=True)
def _pair_repartition(
    cpu: np.ndarray,
    mem: np.ndarray,
    items: np.ndarray,
    p: int,
    limit: float,
    cap: float,
) -> tuple[int, float]:
    """Best split of ``items[:p]`` over two hosts: a bit mask (bit set: first host) and
    its larger load, among splits whose two memories fit ``cap`` and whose larger load
    is below ``limit``; mask -1 when there is none. Gray-code enumeration, item 0 fixed
    on the first host (the hosts are interchangeable)."""
    tot_a = 0.0
    tot_m = 0.0
    for k in range(p):
        tot_a += cpu[items[k]]
        tot_m += mem[items[k]]
    sa = cpu[items[0]]
    sm = mem[items[0]]
    mask = 1
    best_mask = -1
    best = limit
    if sm <= cap and tot_m - sm <= cap:
        v = max(sa, tot_a - sa)
        if v < best:
            best = v
            best_mask = mask
    gray_prev = 0
    for i in range(1, 1 << (p - 1)):
        gray = i ^ (i >> 1)
        diff = gray ^ gray_prev
        gray_prev = gray
        bit = 0
        while (diff >> bit) != 1:
            bit += 1
        t = items[bit + 1]
        if gray & diff:
            sa += cpu[t]
            sm += mem[t]
            mask |= 1 << (bit + 1)
        else:
            sa -= cpu[t]
            sm -= mem[t]
            mask &= ~(1 << (bit + 1))
        if sm <= cap and tot_m - sm <= cap:
            v = max(sa, tot_a - sa)
            if v < best:
                best = v
                best_mask = mask
    return best_mask, best


@njit(cache=True)
def _descend(
    cpu: np.ndarray,
    mem: np.ndarray,
    place: np.ndarray,
    load: np.ndarray,
    used: np.ndarray,
    stop: float,
    max_steps: int,
    pair_limit: int,
    cap: float,
) -> int:
    """Bottleneck descent: improve the most loaded host by a move, a swap or an exact
    two-host repartition (multi-task moves) until no step helps; returns the searches
    made (each costs one scan of the hosts, the last, failed one included)."""
    hosts = load.shape[0]
    n = cpu.shape[0]
    mine = np.empty(n, dtype=np.int64)
    theirs = np.empty(n, dtype=np.int64)
    items = np.empty(n, dtype=np.int64)
    eps = 1e-12
    steps = 0
    while steps < max_steps:
        j = int(np.argmax(load))
        top = load[j]
        if top <= stop:
            break
        nj = _members(place, j, mine)
        best = top - eps * max(1.0, top)
        kind = 0
        bt = -1
        bu = -1
        bk = -1
        for k in range(hosts):
            if k == j:
                continue
            if load[k] >= top:
                continue
            for x in range(nj):
                t = mine[x]
                if used[k] + mem[t] <= cap:
                    v = max(top - cpu[t], load[k] + cpu[t])
                    if v < best:
                        best = v
                        kind = 1
                        bt = t
                        bk = k
            nk = _members(place, k, theirs)
            if nj * nk > 40_000:  # very full hosts: moves only (bounded scan cost)
                continue
            for x in range(nj):
                t = mine[x]
                for y in range(nk):
                    u = theirs[y]
                    d = cpu[t] - cpu[u]
                    if d <= 0.0:
                        continue
                    if used[k] - mem[u] + mem[t] > cap or used[j] - mem[t] + mem[u] > cap:
                        continue
                    v = max(top - d, load[k] + d)
                    if v < best:
                        best = v
                        kind = 2
                        bt = t
                        bu = u
                        bk = k
        if kind == 1:
            place[bt] = bk
            load[j] -= cpu[bt]
            load[bk] += cpu[bt]
            used[j] -= mem[bt]
            used[bk] += mem[bt]
            steps += 1
            continue
        if kind == 2:
            place[bt] = bk
            place[bu] = j
            d = cpu[bt] - cpu[bu]
            load[j] -= d
            load[bk] += d
            used[j] += mem[bu] - mem[bt]
            used[bk] += mem[bt] - mem[bu]
            steps += 1
            continue
        # exact repartition of the bottleneck host with one partner, lightest first
        order = np.argsort(load)
        done = False
        for z in range(hosts):
            k = order[z]
            if k == j or load[k] >= top:
                continue
            nk = _members(place, k, theirs)
            p = nj + nk
            if p > pair_limit or p < 2:
                continue
            for x in range(nj):
                items[x] = mine[x]
            for y in range(nk):
                items[nj + y] = theirs[y]
            mask, v = _pair_repartition(cpu, mem, items, p, top - eps * max(1.0, top), cap)
            if mask < 0:
                continue
            la = 0.0
            ma = 0.0
            for x in range(p):
                t = items[x]
                if (mask >> x) & 1:
                    place[t] = j
                    la += cpu[t]
                    ma += mem[t]
                else:
                    place[t] = k
            tot_a = load[j] + load[k]
            tot_m = used[j] + used[k]
            load[j] = la
            used[j] = ma
            load[k] = tot_a - la
            used[k] = tot_m - ma
            done = True
            break
        steps += 1
        if not done:
            break
    return steps


@njit(cache=True)
def local_search_kernel(
    cpu: np.ndarray,
    mem: np.ndarray,
    place: np.ndarray,
    hosts: int,
    stop: float,
    max_steps: int,
    kicks: int,
    kick_size: int,
    pair_limit: int,
    seed: int,
) -> tuple[float, int]:
    """Iterated local search minimising the largest host CPU load of a placement.

    ``place`` (a host per task, memory feasible) is improved in place and left at the
    best placement found. Each round runs the bottleneck descent (moves, swaps, exact
    two-host repartitions of at most ``pair_limit`` tasks), then, ``kicks`` times,
    moves ``kick_size`` random tasks to random hosts with room and descends again,
    going back to the best placement when the kick did not help. Stops early when
    the largest load is at most ``stop``. At most ``max_steps`` searches are made (each
    a scan of the bottleneck host against every other, the failed ones included), which
    bounds the work of a call. Returns the best largest load and the searches made.
    """
    n = cpu.shape[0]
    cap = 1.0 + MEM_EPS
    load = np.zeros(hosts)
    used = np.zeros(hosts)
    for t in range(n):
        load[place[t]] += cpu[t]
        used[place[t]] += mem[t]
    steps = _descend(cpu, mem, place, load, used, stop, max_steps, pair_limit, cap)
    best = load.max()
    best_place = place.copy()
    state = np.empty(1, dtype=np.uint64)
    state[0] = np.uint64(seed) * np.uint64(2654435761) + np.uint64(88172645463325252)
    if state[0] == 0:
        state[0] = np.uint64(88172645463325252)
    for _ in range(kicks):
        if best <= stop or steps >= max_steps or n == 0:
            break
        for _k in range(kick_size):
            t = _xorshift(state) % n
            h = _xorshift(state) % hosts
            if h != place[t] and used[h] + mem[t] <= cap:
                load[place[t]] -= cpu[t]
                used[place[t]] -= mem[t]
                place[t] = h
                load[h] += cpu[t]
                used[h] += mem[t]
        steps += _descend(cpu, mem, place, load, used, stop, max_steps - steps, pair_limit, cap)
        top = load.max()
        if top < best - 1e-15:
            best = top
            best_place[:] = place
        elif top > best:
            place[:] = best_place
            load[:] = 0.0
            used[:] = 0.0
            for t in range(n):
                load[place[t]] += cpu[t]
                used[place[t]] += mem[t]
        else:
            best_place[:] = place
    place[:] = best_place
    return best, steps
