"""Sound upper bounds on VCSched's minimum yield beyond the LP bound: bin-packing arguments."""

from __future__ import annotations

import math

import numpy as np

from allockit.constants import MEM_TOL
from allockit.instances.vcsched import VCInstance

__all__ = ["bins_lower_bound", "load_lower_bound", "yield_upper_bound"]

#: Bisection steps of ``load_lower_bound`` (the interval shrinks by 2**-60).
BISECTION_STEPS = 60


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

    Examples
    --------
    >>> bins_lower_bound(np.array([0.6, 0.6, 0.6, 0.3]), 1.0)
    3
    >>> bins_lower_bound(np.array([0.4, 0.4, 0.4]), 1.0)
    2
    """
    s = np.sort(np.asarray(sizes, dtype=float))
    if s.size == 0:
        return 0
    if s[-1] > capacity:
        return int(s.size) + 1
    half = capacity / 2.0
    total = float(s.sum())
    best = math.ceil(total / capacity - 1e-9)
    big = s[s > half]
    small = s[s <= half]
    prefix_small = np.concatenate(([0.0], np.cumsum(small)))
    prefix_big = np.concatenate(([0.0], np.cumsum(big)))
    ks = np.unique(np.concatenate(([0.0], small)))
    n1 = big.size - np.searchsorted(big, capacity - ks, side="right")
    n2 = big.size - n1
    sum2 = prefix_big[n2]
    sum3 = prefix_small[-1] - prefix_small[np.searchsorted(small, ks, side="left")]
    extra = np.ceil((sum3 - (n2 * capacity - sum2)) / capacity - 1e-9)
    best = max(best, int((n1 + n2 + np.maximum(0.0, extra)).max()))
    return int(best)


def load_lower_bound(instance: VCInstance) -> tuple[float, str]:
    """A proven lower bound on the smallest achievable largest host CPU load ``L*``.

    Two arguments, the larger wins: the LP bound ``sum a / H`` (the load spread evenly)
    and bin packing on the CPU needs: if the tasks cannot be packed into ``H`` bins of
    capacity ``C`` (Martello-Toth L2, which contains the pigeonhole argument "among the
    ``kH + 1`` largest tasks some host holds ``k + 1``"), then ``L* > C``; the largest
    such ``C`` is found by bisection. Memory is not used (``yield_upper_bound`` adds
    the memory argument for infeasibility).

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
        Which argument gave it.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0, 0, 0])
    >>> load, source = load_lower_bound(inst)           # the LP says 0.9
    >>> round(load, 6), source
    (1.2, 'bin-packing')
    """
    cpu = instance.cpu[instance.task_job]
    hosts = instance.hosts
    lp = float(cpu.sum()) / hosts
    lo = max(lp, float(cpu.max()))
    if cpu.size <= hosts or bins_lower_bound(cpu, lo) <= hosts:
        return lp, "lp"
    hi = float(cpu.sum())
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if bins_lower_bound(cpu, mid) > hosts:
            lo = mid
        else:
            hi = mid
    return (lo, "bin-packing") if lo > lp else (lp, "lp")


def yield_upper_bound(instance: VCInstance) -> tuple[float | None, str]:
    """The best proven upper bound on the minimum yield from the closed-form arguments.

    ``min(1, 1 / L)`` for ``L`` from ``load_lower_bound``; None (infeasible) when the
    total memory exceeds ``H`` or the memories cannot be packed into ``H`` hosts
    (Martello-Toth L2 on memory, capacity ``1 + MEM_TOL`` as the placement check).

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
    if float(mem.sum()) > instance.hosts or bins_lower_bound(mem, 1.0 + MEM_TOL) > instance.hosts:
        return None, "memory"
    load, source = load_lower_bound(instance)
    if load <= 1.0:
        return 1.0, "lp"
    return 1.0 / load, source
