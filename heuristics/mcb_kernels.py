"""Compiled (numba) multi-capacity packing of MCB1-MCB8 (``allockit.heuristics.mcb``).

Hosts are filled one at a time from two sorted task lists kept in min-trees of their
CPU and memory needs; a plain-Python twin lives in ``tests/reference_heuristics.py``.
``mcb_fill_groups_kernel`` packs groups of identical tasks (a DFRS job's tasks) with the
same choices as ``mcb_fill_kernel`` on the tasks, its trees over the groups.
"""

from __future__ import annotations

import numpy as np

from allockit.constants import MEM_EPS
from allockit.heuristics.kernel_setup import njit, warm_inputs

__all__ = ["mcb_fill_groups_kernel", "mcb_fill_kernel", "mcb_pack_kernel"]


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


@warm_inputs(lambda: (
    np.zeros(1), np.zeros(1), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64),
    np.ones(1), np.ones(1),
))
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
    placed. Each list is kept in min-trees of its tasks' needs (``_tree_find``), so a
    pack of 100,000 tasks on 20,000 hosts takes milliseconds, not seconds.
    """
    n = cpu_req.shape[0]
    return mcb_fill_groups_kernel(
        cpu_req, mem, np.ones(n, dtype=np.int64), cpu_list, mem_list, free_cpu0, free_mem0
    )


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
def _tree_find(low_cpu: np.ndarray, low_mem: np.ndarray, size: int, free_cpu: float,
               free_mem: float, stack: np.ndarray) -> int:
    """The leaf (tree index) of the first list position that fits, not removed; -1 if none.

    Depth-first from the left, pruning subtrees whose smallest CPU or memory need does
    not fit: O(log n) steps in practice. ``stack``: work space of at least 130 entries.
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
            return i
        stack[top] = 2 * i + 1
        stack[top + 1] = 2 * i
        top += 2
    return -1


@njit(cache=True)
def _tree_remove(low_cpu: np.ndarray, low_mem: np.ndarray, i: int) -> None:
    """Take leaf ``i`` out of the trees (its needs become infinite)."""
    low_cpu[i] = np.inf
    low_mem[i] = np.inf
    j = i // 2
    while j >= 1:
        low_cpu[j] = min(low_cpu[2 * j], low_cpu[2 * j + 1])
        low_mem[j] = min(low_mem[2 * j], low_mem[2 * j + 1])
        j //= 2


@warm_inputs(lambda: (
    np.zeros(1), np.zeros(1), np.ones(1, dtype=np.int64), np.zeros(1, dtype=np.int64),
    np.zeros(0, dtype=np.int64), np.ones(1), np.ones(1),
))
@njit(cache=True)
def mcb_fill_groups_kernel(
    cpu_req: np.ndarray,
    mem: np.ndarray,
    count: np.ndarray,
    cpu_list: np.ndarray,
    mem_list: np.ndarray,
    free_cpu0: np.ndarray,
    free_mem0: np.ndarray,
) -> np.ndarray:
    """``mcb_fill_kernel`` on groups of identical tasks: group ``g`` is ``count[g]`` tasks
    of needs ``cpu_req[g]`` and ``mem[g]``, and the lists hold groups, not tasks.

    The tasks are numbered group by group (group 0's first); the lists are those of
    the tasks with each group's tasks side by side, in task order, as a stable sort of
    the tasks gives them. The packing takes the first fitting task of a list, so the
    next task of the first group that fits and has tasks left: the same choices, with
    trees over the groups (one leaf per group, removed when its last task is placed)
    instead of the tasks. Returns the host of each task, numbered so, as
    ``mcb_fill_kernel`` on the tasks would; all -1 when some task could not be placed.
    """
    groups = count.shape[0]
    start = np.zeros(groups + 1, dtype=np.int64)
    for g in range(groups):
        start[g + 1] = start[g] + count[g]
    n = start[groups]
    out = np.full(n, -1, dtype=np.int64)
    left = n
    if left == 0:
        return out
    placed = np.zeros(groups, dtype=np.int64)
    size_c = 1
    while size_c < max(1, cpu_list.shape[0]):
        size_c *= 2
    size_m = 1
    while size_m < max(1, mem_list.shape[0]):
        size_m *= 2
    stack = np.empty(130, dtype=np.int64)
    c_cpu, c_mem = _tree_build(cpu_list, cpu_req, mem, size_c)
    m_cpu, m_mem = _tree_build(mem_list, cpu_req, mem, size_m)
    for k in range(cpu_list.shape[0]):  # (a group without tasks is never taken)
        if count[cpu_list[k]] == 0:
            _tree_remove(c_cpu, c_mem, size_c + k)
    for k in range(mem_list.shape[0]):
        if count[mem_list[k]] == 0:
            _tree_remove(m_cpu, m_mem, size_m + k)
    hosts = free_cpu0.shape[0]
    room_cpu = np.zeros(hosts + 1)  # free CPU and memory of hosts h.. (suffix sums)
    room_mem = np.zeros(hosts + 1)
    for h in range(hosts - 1, -1, -1):
        room_cpu[h] = room_cpu[h + 1] + max(free_cpu0[h], 0.0)
        room_mem[h] = room_mem[h + 1] + max(free_mem0[h], 0.0)
    need_cpu = 0.0
    need_mem = 0.0
    for g in range(groups):  # (task by task, in task order: the same sums)
        for _ in range(count[g]):
            need_cpu += cpu_req[g]
            need_mem += mem[g]
    for h in range(hosts):
        if need_cpu > room_cpu[h] + left * MEM_EPS or need_mem > room_mem[h] + left * MEM_EPS:
            break
        free_cpu = free_cpu0[h]
        free_mem = free_mem0[h]
        while left > 0:
            memory_first = free_mem > free_cpu
            found = -1
            for attempt in range(2):
                if memory_first == (attempt == 0):
                    leaf = _tree_find(m_cpu, m_mem, size_m, free_cpu, free_mem, stack)
                    if leaf >= 0:
                        found = mem_list[leaf - size_m]
                        if placed[found] + 1 == count[found]:
                            _tree_remove(m_cpu, m_mem, leaf)
                else:
                    leaf = _tree_find(c_cpu, c_mem, size_c, free_cpu, free_mem, stack)
                    if leaf >= 0:
                        found = cpu_list[leaf - size_c]
                        if placed[found] + 1 == count[found]:
                            _tree_remove(c_cpu, c_mem, leaf)
                if found >= 0:
                    break
            if found < 0:
                break
            out[start[found] + placed[found]] = h
            placed[found] += 1
            free_cpu -= cpu_req[found]
            free_mem -= mem[found]
            need_cpu -= cpu_req[found]
            need_mem -= mem[found]
            left -= 1
        if left == 0:
            return out
    return np.full(n, -1, dtype=np.int64)
