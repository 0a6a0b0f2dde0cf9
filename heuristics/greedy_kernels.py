"""Compiled (numba) loops of GR and GB (``allockit.heuristics.greedy``): each task in turn
on the least-loaded host with room for its memory; GB's bounded depth-first search.

Plain-Python twins live in ``tests/reference_heuristics.py`` and must agree placement
for placement.
"""

from __future__ import annotations

import numpy as np

from allockit.constants import MEM_EPS
from allockit.heuristics.kernel_setup import njit, warm_inputs

__all__ = ["greedy_backtrack_kernel", "greedy_fill_kernel", "greedy_kernel"]


@warm_inputs(lambda: (np.zeros(1), np.zeros(1), np.zeros(1), np.ones(1)))
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


@warm_inputs(lambda: (np.zeros(1), np.zeros(1), 1))
@njit(cache=True)
def greedy_kernel(cpu: np.ndarray, mem: np.ndarray, hosts: int) -> np.ndarray:
    """GR on tasks in the given order on empty hosts; ``out[t] = -1`` from the first
    task that fails."""
    return greedy_fill_kernel(cpu, mem, np.zeros(hosts), np.ones(hosts))


@njit(cache=True)
def _host_order(load: np.ndarray) -> np.ndarray:
    return np.argsort(load, kind="mergesort")


@warm_inputs(lambda: (np.zeros(1), np.zeros(1), 1, 1))
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
