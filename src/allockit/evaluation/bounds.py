"""Sound upper bounds on VCSched's minimum yield beyond the LP bound: bin-packing arguments."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from allockit.checks import first_bad_entry, real_array, real_number
from allockit.constants import MEM_TOL
from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance

__all__ = [
    "MARGIN",
    "bins_lower_bound",
    "infeasibility_proof",
    "load_lower_bound",
    "memory_exceeds",
    "pair_hosts_lower_bound",
    "yield_upper_bound",
]

#: Bisection steps of ``load_lower_bound`` (the interval shrinks by 2**-60).
BISECTION_STEPS = 60

#: Relative margin of the packing arguments' float comparisons (8 units of roundoff):
#: a computed sum, third or difference never decides a tie the exact values decide the
#: other way, so every count is a bound on the exact data (RESULTS 13.10).
MARGIN = 8 * float(np.finfo(float).eps)


def memory_exceeds(total: float, hosts: int) -> bool:
    """Whether a total memory exceeds ``hosts`` hosts of ``1 + MEM_TOL`` each (a proof).

    Placements are accepted up to ``MEM_TOL`` per host, so a total above ``hosts``
    by rounding (three tasks of 1/3 sum to 1.0000000000000002) proves nothing.

    Parameters
    ----------
    total : float
        The tasks' memories, summed.
    hosts : int
        The number of hosts.

    Returns
    -------
    bool

    Examples
    --------
    >>> memory_exceeds(sum([0.1, 0.2, 0.3, 0.4] * 3), 3), memory_exceeds(3.01, 3)
    (False, True)
    """
    return total > hosts * (1.0 + MEM_TOL) * (1.0 + MARGIN)


def _checked_sizes(name: str, values: object) -> np.ndarray:
    """``values`` as a 1-D float array of finite numbers >= 0, or an error naming them."""
    arr = real_array(name, values)
    first_bad_entry(name, arr, arr >= 0, "finite and >= 0")
    return arr


def _checked_capacity(capacity: object, *, infinite: bool = False) -> float:
    """``capacity`` as a float > 0 (``inf`` too when ``infinite``), or an error naming it."""
    return real_number(
        "capacity", capacity, above=0, finite=not infinite, note="inf allowed" if infinite else ""
    )


def bins_lower_bound(sizes: np.ndarray, capacity: float) -> int:
    """Martello and Toth's L2: fewest bins of ``capacity`` that can hold ``sizes``.

    For every threshold ``K`` in ``[0, capacity / 2]`` (the item sizes there and 0),
    items above ``capacity - K`` and those in ``(capacity / 2, capacity - K]`` each
    need a bin of their own, and the items in ``[K, capacity / 2]`` need whatever the
    second group leaves free, in whole bins. The largest count over ``K`` is a lower
    bound (each rounding is made downward, so float error never overstates it).

    Parameters
    ----------
    sizes : numpy.ndarray
        Item sizes (>= 0), in the unit of ``capacity``.
    capacity : float
        Bin capacity (> 0).

    Returns
    -------
    int
        A lower bound on the number of bins; ``len(sizes) + 1`` when an item is
        larger than the capacity (it fits in no bin).

    Raises
    ------
    InvalidInputError
        For sizes that are not finite and >= 0 (the first is named), or a capacity
        that is not a finite number > 0.

    Examples
    --------
    >>> bins_lower_bound(np.array([0.6, 0.6, 0.6, 0.3]), 1.0)
    3
    >>> bins_lower_bound(np.array([0.4, 0.4, 0.4]), 1.0)
    2
    """
    s = np.sort(_checked_sizes("sizes", sizes))
    capacity = _checked_capacity(capacity)
    if s.size == 0:
        return 0
    if s[-1] > capacity:
        return int(s.size) + 1
    half = capacity / 2.0
    total = float(s.sum())
    # the sums below are float sums of up to n terms (error up to n eps times the
    # total): the slack before each ceiling grows with them, so rounding never adds a bin
    slack = 1e-9 + 4.0 * s.size * float(np.finfo(float).eps) * (total / capacity)
    best = math.ceil(total / capacity - slack)
    big = s[s > half]
    small = s[s <= half]
    prefix_small = np.concatenate(([0.0], np.cumsum(small)))
    prefix_big = np.concatenate(([0.0], np.cumsum(big)))
    ks = np.unique(np.concatenate(([0.0], small)))
    # items above capacity - K need a bin of their own; a tie decided by the rounded
    # difference would move an item to J1 and overstate the count: test with a margin
    n1 = big.size - np.searchsorted(big, (capacity - ks) * (1.0 + MARGIN), side="right")
    n2 = big.size - n1
    sum2 = prefix_big[n2]
    sum3 = prefix_small[-1] - prefix_small[np.searchsorted(small, ks, side="left")]
    extra = np.ceil((sum3 - (n2 * capacity - sum2)) / capacity - slack)
    best = max(best, int((n1 + n2 + np.maximum(0.0, extra)).max()))
    return int(best)


def _pair_groups(
    cpu: np.ndarray, mem: np.ndarray, capacity: float, more_than: int
) -> Iterator[np.ndarray]:
    """For each group of tasks that fit at most two to a host, which pairs may share one.

    The groups: memory above a third of ``1 + MEM_TOL``, CPU need above a third of
    ``capacity`` (only groups of more than ``more_than`` tasks). Both tests are made so
    that rounding can only weaken the argument: a task joins a group only if it is
    surely above the third (by ``MARGIN``), and a pair may share a host unless its sum
    is surely above the capacity.
    """
    cap_m = 1.0 + MEM_TOL
    loose = 1.0 + MARGIN
    for group in (np.flatnonzero(3.0 * mem > cap_m * loose),
                  np.flatnonzero(3.0 * cpu > capacity * loose)):
        if group.size <= more_than:
            continue
        a, m = cpu[group], mem[group]
        yield (m[:, None] + m[None, :] <= cap_m * loose) & (
            a[:, None] + a[None, :] <= capacity * loose
        )


def pair_hosts_lower_bound(cpu: np.ndarray, mem: np.ndarray, capacity: float) -> int:
    """Fewest hosts for tasks that fit at most two to a host: a matching argument.

    A host holds at most two tasks of memory above 1/3 (and at most two of CPU need
    above ``capacity / 3``). Two such tasks can share a host only if their memories sum
    to at most 1 and their CPU needs to at most ``capacity``; with a maximum matching
    ``nu`` of the pairs that can, the ``k`` tasks need at least ``k - nu`` hosts (the
    other tasks, ignored, can only add hosts). Both groups are tried; the larger count
    is returned.

    Parameters
    ----------
    cpu, mem : numpy.ndarray
        CPU need and memory of every task (fractions of a host).
    capacity : float
        The largest CPU load allowed on a host (``inf``: memory alone).

    Returns
    -------
    int
        A lower bound on the hosts needed so that no host exceeds memory 1 or CPU
        ``capacity`` (0 when no group has more than one task).

    Raises
    ------
    InvalidInputError
        For needs that are not finite and >= 0, ``cpu`` and ``mem`` of different
        lengths, or a capacity that is not a number > 0.

    Examples
    --------
    >>> mem = np.array([0.6, 0.6, 0.4, 0.4])                 # pairs: (0.6, 0.4) only
    >>> pair_hosts_lower_bound(np.array([0.5, 0.5, 0.6, 0.6]), mem, 1.0)  # CPU forbids them
    4
    >>> pair_hosts_lower_bound(np.array([0.4, 0.4, 0.6, 0.6]), mem, 1.0)
    2
    """
    import networkx as nx

    cpu, mem = _checked_sizes("cpu", cpu), _checked_sizes("mem", mem)
    if cpu.size != mem.size:
        raise InvalidInputError(
            f"cpu and mem must have one entry per task; got {cpu.size} and {mem.size}"
        )
    capacity = _checked_capacity(capacity, infinite=True)
    best = 0
    for ok in _pair_groups(cpu, mem, capacity, 1):
        k = int(ok.shape[0])
        rows, cols = np.nonzero(np.triu(ok, 1))
        if rows.size == 0:
            best = max(best, k)
            continue
        graph = nx.Graph()
        graph.add_edges_from(zip(rows.tolist(), cols.tolist(), strict=True))
        nu = len(nx.max_weight_matching(graph, maxcardinality=True))
        best = max(best, k - nu)
    return best


def _pair_exceeds(cpu: np.ndarray, mem: np.ndarray, capacity: float, hosts: int) -> bool:
    """``pair_hosts_lower_bound(cpu, mem, capacity) > hosts``, deciding cheaply when it can.

    With ``k`` tasks in a group, ``nu`` is at most half the tasks that have a partner
    and at least a greedy matching's size; the exact matching is computed only when
    these two do not decide (networkx is imported only then).
    """
    for ok in _pair_groups(cpu, mem, capacity, hosts):
        k = int(ok.shape[0])
        np.fill_diagonal(ok, False)
        degree = ok.sum(axis=1)
        if k - int((degree > 0).sum()) // 2 > hosts:
            return True
        free = np.ones(k, dtype=bool)
        greedy = 0
        for i in np.argsort(degree, kind="stable"):
            if free[i]:
                partners = np.flatnonzero(ok[i] & free)
                partners = partners[partners != i]
                if partners.size:
                    j = partners[np.argmin(degree[partners])]
                    free[i] = free[j] = False
                    greedy += 1
        if k - greedy <= hosts:
            continue
        import networkx as nx

        rows, cols = np.nonzero(np.triu(ok, 1))
        graph = nx.Graph()
        graph.add_edges_from(zip(rows.tolist(), cols.tolist(), strict=True))
        if k - len(nx.max_weight_matching(graph, maxcardinality=True)) > hosts:
            return True
    return False


def _pair_breakpoints(cpu: np.ndarray, mem: np.ndarray, lo: float) -> np.ndarray:
    """The CPU capacities above ``lo`` where the matching argument can change."""
    cand = np.flatnonzero((mem > (1.0 + MEM_TOL) / 3.0) | (cpu > lo / 3.0))
    a = cpu[cand]
    sums = (a[:, None] + a[None, :])[np.triu_indices(a.size, 1)]
    points = np.unique(np.concatenate((sums, 3.0 * a)))
    return points[points > lo]


def load_lower_bound(instance: VCInstance) -> tuple[float, str]:
    """A proven lower bound on the smallest achievable largest host CPU load ``L*``.

    Two arguments, the larger wins: the LP bound ``sum a / H`` (the load spread evenly)
    and bin packing: if the tasks cannot be placed on ``H`` hosts with every CPU load
    at most ``C`` — by Martello-Toth L2 on the CPU needs (which contains the pigeonhole
    argument "among the ``kH + 1`` largest tasks some host holds ``k + 1``") or by the
    matching argument of ``pair_hosts_lower_bound`` (memory-aware) — then ``L* > C``;
    the largest such ``C`` is found by bisection (the counts only fall as ``C`` grows).

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host.

    Returns
    -------
    load : float
        ``L* >= load``.
    source : {"lp", "bin-packing"}
        Which argument gave it (``"bin-packing"`` for both packing arguments).

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0, 0, 0])
    >>> load, source = load_lower_bound(inst)           # the LP says 0.9
    >>> round(load, 6), source
    (1.2, 'bin-packing')
    """
    cpu = instance.cpu[instance.task_job]
    mem = instance.mem[instance.task_job]
    hosts = instance.hosts
    lp = float(cpu.sum()) / hosts
    start = max(lp, float(cpu.max()))
    if cpu.size <= hosts:
        return lp, "lp"
    best = start
    # Martello-Toth L2 on the CPU needs: bisection on the capacity
    if bins_lower_bound(cpu, start) > hosts:
        lo, hi = start, 2.0 * start
        for _ in range(BISECTION_STEPS):  # at capacity sum(a) one bin suffices
            if bins_lower_bound(cpu, hi) <= hosts:
                break
            lo, hi = hi, 2.0 * hi
        for _ in range(BISECTION_STEPS):
            mid = 0.5 * (lo + hi)
            if hi - lo <= 1e-12 * hi or not lo < mid < hi:
                break
            if bins_lower_bound(cpu, mid) > hosts:
                lo = mid
            else:
                hi = mid
        best = max(best, lo)
    # the matching argument: a step function of the capacity that changes only at a sum
    # of two CPU needs or three times one. It is asked just below each step (a few
    # units of roundoff under the float value of the step, which may be below the exact
    # one): "exceeds" there proves L* above that point, the step in all but rounding.
    if _pair_exceeds(cpu, mem, best, hosts):
        points = _pair_breakpoints(cpu, mem, best) * (1.0 - 4.0 * MARGIN)
        points = points[points > best]
        lo_i, hi_i = 0, points.size  # the first point where it stops exceeding
        while lo_i < hi_i:
            mid_i = (lo_i + hi_i) // 2
            if _pair_exceeds(cpu, mem, float(points[mid_i]), hosts):
                lo_i = mid_i + 1
            else:
                hi_i = mid_i
        if lo_i > 0:
            best = max(best, float(points[lo_i - 1]))
    return (best, "bin-packing") if best > lp else (lp, "lp")


def yield_upper_bound(instance: VCInstance) -> tuple[float | None, str]:
    """The best proven upper bound on the minimum yield from the closed-form arguments.

    ``min(1, 1 / L)`` for ``L`` from ``load_lower_bound``; None (infeasible) when the
    total memory exceeds ``H`` or the memories cannot be packed into ``H`` hosts
    (Martello-Toth L2 on memory, capacity ``1 + MEM_TOL`` as the placement check, or
    the matching argument on the tasks of memory above 1/3).

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host.

    Returns
    -------
    bound : float or None
        Upper bound on the minimum yield of any placement, None when proven infeasible.
    source : {"lp", "bin-packing", "memory"}
        Which argument gave it (``"memory"``: infeasibility by memory).

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> round(yield_upper_bound(inst)[0], 6), yield_upper_bound(inst)[1]
    (0.833333, 'bin-packing')
    >>> yield_upper_bound(VCInstance.from_lists(hosts=2, cpu=[0.1] * 3, mem=[0.6] * 3))
    (None, 'memory')
    """
    mem = instance.mem[instance.task_job]
    cpu = instance.cpu[instance.task_job]
    if (
        memory_exceeds(float(mem.sum()), instance.hosts)
        or bins_lower_bound(mem, 1.0 + MEM_TOL) > instance.hosts
        or _pair_exceeds(cpu, mem, np.inf, instance.hosts)
    ):
        return None, "memory"
    load, source = load_lower_bound(instance)
    if load <= 1.0:
        return 1.0, "lp"
    return 1.0 / load, source


def infeasibility_proof(instance: VCInstance) -> str | None:
    """Why no placement exists, when memory alone proves it; None when it does not.

    The arguments of ``yield_upper_bound``, named: a task whose memory exceeds a host,
    the total memory above the hosts', or the bin-packing bound on the memories (which
    includes the matching argument on the tasks above 1/3 of a host).

    Parameters
    ----------
    instance : VCInstance
        Hosts (capacity 1) and jobs with memory per task, as fractions of a host.

    Returns
    -------
    str or None
        The proof as a sentence naming the argument, or None (no proof: the instance
        may still be infeasible).

    Examples
    --------
    >>> infeasibility_proof(VCInstance.from_lists(hosts=2, cpu=[0.1] * 3, mem=[0.6] * 3))
    "memory: the tasks' memories need at least 3 hosts, more than the 2 hosts (bin-packing \
bound)"
    >>> infeasibility_proof(VCInstance.from_lists(hosts=2, cpu=[0.1] * 3, mem=[0.3] * 3))
    """
    mem = instance.mem[instance.task_job]
    cpu = instance.cpu[instance.task_job]
    if mem.size and float(mem.max()) > 1.0 + MEM_TOL:
        return f"memory: a task needs {float(mem.max()):.6g} > 1 host of memory"
    total = float(mem.sum())
    if memory_exceeds(total, instance.hosts):
        return f"memory: the total memory {total:.6g} exceeds the {instance.hosts} hosts"
    bins = bins_lower_bound(mem, 1.0 + MEM_TOL)
    if bins > instance.hosts:
        return (
            f"memory: the tasks' memories need at least {bins} hosts, more than the "
            f"{instance.hosts} hosts (bin-packing bound)"
        )
    if _pair_exceeds(cpu, mem, np.inf, instance.hosts):
        return (
            "memory: the tasks above 1/3 of a host's memory cannot be paired onto the "
            f"{instance.hosts} hosts (matching bound)"
        )
    return None
