"""Compiled (numba) local search on a VCSched placement (``allockit.heuristics.local_search``).

Moves, swaps and two-host repartitions that lower the largest CPU load without ever
over-committing memory, with a seeded xorshift generator.
"""

from __future__ import annotations

import numpy as np

from allockit.constants import MEM_EPS
from allockit.heuristics.kernel_setup import njit, warm_inputs

__all__ = ["local_search_kernel"]


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


@warm_inputs(lambda: (
    np.full(2, 0.5), np.zeros(2), np.zeros(2, dtype=np.int64), 2, 0.0, 10, 1, 1, 4, 0
))
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
