"""Compiled (numba) First-Fit / Best-Fit task placement of DRFH (``heuristics.drfh_tasks``)."""

from __future__ import annotations

import numpy as np

from allockit.constants import MEM_EPS
from allockit.heuristics.kernel_setup import njit

__all__ = ["drfh_tasks_kernel"]


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
