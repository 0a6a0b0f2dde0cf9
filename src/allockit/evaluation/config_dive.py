"""Placements from the configuration LP's columns: a price-and-dive heuristic.

At a largest host load ``C``, column generation packs the tasks fractionally
(``ConfigurationLP.test``); the dive then fixes columns one round at a time (every
column the LP uses at least once, else the one it uses most), lowers the demands and
the hosts by what they cover, and generates columns again for what is left, until
every task is covered (a placement whose every host load is at most ``C``) or the
residual does not fit the hosts left (the dive fails; nothing is claimed from it).
Columns that cover a task type more often than needed lose the extra tasks, from
the most loaded host first. Diving on column-generation solutions is a classic
primal heuristic of branch and price [1]_.

References
----------
.. [1] Vanderbeck (1999), Computational study of a column generation algorithm for
   bin packing and cutting stock problems; Sadykov, Vanderbeck, Pessoa, Tahiri,
   Uchoa (2019), Primal heuristics for branch and price: the assets of diving methods.
"""

from __future__ import annotations

import numpy as np

from allockit.evaluation.config_lp import MAX_ITERATIONS, ConfigurationLP, checked_capacity

__all__ = ["dive_placement", "patterns_to_placement"]

#: Columns the LP uses a fraction at least this above a whole number are rounded up,
#: at most ``ROUND_UPS`` of them a round (the largest fractions).
ROUND_UP = 0.8
ROUND_UPS = 3
#: A column the LP uses at least ``1 - INTEGRAL_TOL`` times counts as used once.
INTEGRAL_TOL = 1e-6


def patterns_to_placement(lp: ConfigurationLP, chosen: list[np.ndarray]) -> np.ndarray:
    """Task hosts from one pattern per host, dropping tasks covered more than once.

    Parameters
    ----------
    lp : ConfigurationLP
        The master whose types the patterns count (``task_type``, ``demand``, ``cpu``).
    chosen : list of numpy.ndarray
        At most ``hosts`` patterns (counts per type) that together cover every demand.

    Returns
    -------
    numpy.ndarray of int64
        The host of every task (host ``j`` takes pattern ``j``'s tasks).

    Raises
    ------
    ValueError
        If there are more patterns than hosts or they do not cover every task.

    Examples
    --------
    >>> from allockit.instances.vcsched import VCInstance
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
    >>> lp = ConfigurationLP(inst)
    >>> patterns_to_placement(lp, [np.array([2]), np.array([2])]).tolist()  # 4 for 3 tasks
    [0, 1, 1]
    """
    if len(chosen) > lp.hosts:
        raise ValueError(f"{len(chosen)} patterns for {lp.hosts} hosts")
    counts = np.array(chosen, dtype=np.int64).reshape(len(chosen), lp.n_types)
    loads = counts @ lp.cpu
    extra = counts.sum(axis=0) - lp.demand
    if (extra < 0).any():
        raise ValueError("the patterns do not cover every task")
    for i in np.flatnonzero(extra > 0):
        for j in np.argsort(-loads, kind="stable"):  # the most loaded hosts give first
            if extra[i] == 0:
                break
            take = min(extra[i], counts[j, i])
            counts[j, i] -= take
            loads[j] -= take * lp.cpu[i]
            extra[i] -= take
    task_hosts = np.empty(lp.task_type.size, dtype=np.int64)
    for i in range(lp.n_types):
        tasks = np.flatnonzero(lp.task_type == i)
        task_hosts[tasks] = np.repeat(np.arange(counts.shape[0]), counts[:, i])
    return task_hosts


def dive_placement(
    lp: ConfigurationLP,
    capacity: float,
    *,
    deadline: float | None = None,
    max_iterations: int = MAX_ITERATIONS,
) -> np.ndarray | None:
    """A placement with every host load at most ``capacity``, by diving on the columns.

    Parameters
    ----------
    lp : ConfigurationLP
        The master (its columns are re-used and grow; its demands are restored).
    capacity : float
        The largest host CPU load allowed.
    deadline : float, optional
        A ``time.perf_counter()`` value at which to give up.
    max_iterations : int, default MAX_ITERATIONS
        Column-generation iterations per round.

    Returns
    -------
    numpy.ndarray or None
        The host of every task (memory within ``1 + MEM_TOL`` and CPU load within
        ``capacity`` up to the LP's relative margin of 1e-9 on every host; the
        caller re-checks it), or None when the dive failed or ran out of time.

    Raises
    ------
    InvalidInputError
        For a capacity that is not a finite number > 0.

    Examples
    --------
    >>> from allockit.instances.vcsched import VCInstance
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.5, 0.4, 0.3], mem=[0.1] * 4)
    >>> hosts = dive_placement(ConfigurationLP(inst), 0.9)
    >>> sorted(np.bincount(hosts, weights=inst.cpu).round(6).tolist())
    [0.9, 0.9]
    >>> dive_placement(ConfigurationLP(inst), 0.85) is None
    True
    """
    checked_capacity(capacity)
    residual = lp.demand.copy()
    hosts_left = lp.hosts
    chosen: list[np.ndarray] = []
    try:
        while residual.any():
            lp.set_demand(residual)
            test = lp.test(
                capacity, hosts=hosts_left, deadline=deadline, max_iterations=max_iterations
            )
            if test.status != "fractional":
                return None
            x = lp.x
            # every copy the LP uses whole, and one more of the (at most ROUND_UPS)
            # columns of largest fractional use above ROUND_UP; when that is nothing,
            # the column of largest fractional use
            whole = np.floor(x + INTEGRAL_TOL).astype(np.int64)
            frac = np.where(x - whole > INTEGRAL_TOL, x - whole, 0.0)
            top = np.argsort(-frac, kind="stable")[:ROUND_UPS]
            whole[top[frac[top] >= ROUND_UP]] += 1
            if not whole.any():
                whole[int(np.argmax(frac))] = 1
            for k in np.flatnonzero(whole):
                for _ in range(int(whole[k])):
                    if not residual.any() or hosts_left == 0:
                        break
                    pattern = np.minimum(lp.patterns[k], residual)
                    if not pattern.any():
                        break
                    chosen.append(pattern)
                    residual = residual - pattern
                    hosts_left -= 1
            if residual.any() and hosts_left == 0:
                return None
    finally:
        lp.set_demand(lp.demand)
    return patterns_to_placement(lp, chosen)
