"""A complete branch and bound for VCSched's min-max load (numba): proofs on small instances."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from allockit.checks import real_number
from allockit.clock import Deadline
from allockit.constants import MEM_TOL
from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance

__all__ = ["BnbOutcome", "branch_and_bound"]

#: Relative improvement the search asks of a new placement (an optimum is proven to
#: this relative accuracy, well inside the reporting gap of 1e-6).
IMPROVE = 1e-9
#: Nodes per second assumed when a time limit is turned into a node budget (measured
#: 30-80 million per second on the project's machine; a third of the slowest).
NODES_PER_SECOND = 10_000_000
#: Largest node budget the kernel takes (int64).
_MAX_BUDGET = 2**63 - 1


@njit(cache=True)
def _bnb_kernel(cpu, mem, same, hosts, best_load, stop, max_nodes, out):  # pragma: no cover
    """Depth-first search over tasks sorted by decreasing CPU need.

    Task ``d`` goes to a host already opened or to the next empty one (identical hosts);
    a task identical to the previous one goes to the same host or a later one. A branch
    dies when a host's load would reach ``best_load * (1 - IMPROVE)`` or its memory
    exceed ``1 + MEM_TOL``. Returns ``(code, best, nodes)``: code 0 when the search is
    complete, 1 when it stopped at the node budget, 2 when a placement reached
    ``stop`` (a proven lower bound); ``out`` holds the best placement found.
    """
    n = cpu.shape[0]
    cap = 1.0 + MEM_TOL
    place = np.full(n, -1, dtype=np.int64)
    nxt = np.zeros(n + 1, dtype=np.int64)
    opened = np.zeros(n + 1, dtype=np.int64)
    curmax = np.zeros(n + 1)
    load = np.zeros(hosts)
    used = np.zeros(hosts)
    thr = best_load * (1.0 - 1e-9)
    nodes = 0
    d = 0
    nxt[0] = 0
    while True:
        if d == n:
            best_load = curmax[n]
            out[:] = place
            thr = best_load * (1.0 - 1e-9)
            if best_load <= stop:
                return 2, best_load, nodes
            d -= 1
            h = place[d]
            load[h] -= cpu[d]
            used[h] -= mem[d]
            place[d] = -1
            continue
        nodes += 1
        if nodes > max_nodes:
            return 1, best_load, nodes
        hi = min(opened[d] + 1, hosts)
        h = nxt[d]
        placed = False
        while h < hi:
            if used[h] + mem[d] <= cap and load[h] + cpu[d] < thr:
                place[d] = h
                load[h] += cpu[d]
                used[h] += mem[d]
                nxt[d] = h + 1
                opened[d + 1] = max(opened[d], h + 1)
                curmax[d + 1] = max(curmax[d], load[h])
                d += 1
                if d < n:
                    nxt[d] = place[d - 1] if same[d] else 0
                placed = True
                break
            h += 1
        if placed:
            continue
        d -= 1
        if d < 0:
            return 0, best_load, nodes
        h = place[d]
        load[h] -= cpu[d]
        used[h] -= mem[d]
        place[d] = -1


@dataclass(frozen=True, slots=True)
class BnbOutcome:
    """What the branch and bound found and proved.

    Attributes
    ----------
    complete : bool
        The search space was exhausted (or a placement reached ``stop``): the best
        load is then optimal to a relative ``IMPROVE`` (1e-9), or, with no placement
        and no incumbent, the instance is infeasible.
    load : float or None
        The largest host load of the best placement found, or ``incumbent_load`` if
        nothing beat it; None if there is neither.
    task_hosts : numpy.ndarray or None
        The best placement found (host per task, tasks listed job by job), None when
        the search found nothing better than the incumbent.
    nodes : int
        Search nodes visited.
    seconds : float
        Wall time of the search (one-time numba loading excluded).

    Examples
    --------
    >>> o = BnbOutcome(True, 1.2, None, 10, 0.0)
    >>> o.complete, o.lower_bound
    (True, 1.1999999988)
    """

    complete: bool
    load: float | None
    task_hosts: np.ndarray | None
    nodes: int
    seconds: float

    @property
    def lower_bound(self) -> float | None:
        """A proven lower bound on the optimal largest load, when the search is complete.

        ``load * (1 - IMPROVE)`` (the search only looked for placements below it);
        ``inf`` for a proven infeasible instance; None for an incomplete search.
        """
        if not self.complete:
            return None
        if self.load is None:
            return float("inf")
        return self.load * (1.0 - IMPROVE)


def branch_and_bound(
    instance: VCInstance,
    *,
    incumbent_load: float | None = None,
    stop_load: float = 1.0,
    time_limit: float | Deadline | None = None,
    max_nodes: int = 200_000_000,
) -> BnbOutcome:
    """Minimise the largest host CPU load by a complete depth-first search (numba).

    Tasks are placed by decreasing CPU need (then memory) on the hosts already used or
    the next empty one (the hosts are identical); identical tasks take hosts in
    non-decreasing order; a branch is cut as soon as a host's load reaches the best
    load found so far (or ``incumbent_load``) less a relative 1e-9, or its memory
    exceeds 1. When the search ends, the best load is optimal (to 1e-9 relative): this
    proves the minimum yield ``1 / max(1, load)`` of small instances in microseconds
    to milliseconds. ``stop_load`` (a proven lower bound, at least 1 since any load up
    to 1 gives yield 1) ends the search as soon as a placement reaches it. A search
    cut by ``max_nodes`` or ``time_limit`` proves nothing.

    Parameters
    ----------
    instance : VCInstance
        Hosts and jobs (CPU need per task in (0, 1], memory per task in [0, 1], as
        fractions of a host), without a previous placement.
    incumbent_load : float, optional
        Largest load of a known placement: only better ones are searched. A finite
        number, at least the largest task CPU need (no placement has a smaller load).
    stop_load : float, default 1.0
        A proven lower bound on the optimal largest load (e.g. ``max(1, sum a / H)``):
        a finite number >= 0.
    time_limit : float or Deadline, optional
        Seconds (> 0), or the caller's deadline; the seconds left become a node budget
        of ``NODES_PER_SECOND`` per second. None, ``inf`` seconds or a deadline that
        never passes mean no time limit (``max_nodes`` alone caps the search).
    max_nodes : int, default 200,000,000
        Cap on search nodes: an integer >= 1 (values beyond the int64 range are capped
        to it).

    Returns
    -------
    BnbOutcome

    Raises
    ------
    InvalidInputError
        For an adaptation instance (migration limits are not modelled here), an
        ``incumbent_load`` that is not a finite number >= the largest task CPU need, a
        ``stop_load`` that is not a finite number >= 0, a time limit that is not > 0, or
        a ``max_nodes`` that is not an integer >= 1.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> out = branch_and_bound(inst)
    >>> out.complete, round(out.load, 6), sorted(out.task_hosts.tolist())
    (True, 1.2, [0, 0, 1])
    >>> infeasible = VCInstance.from_lists(hosts=2, cpu=[0.1] * 3, mem=[0.6] * 3)
    >>> out = branch_and_bound(infeasible)
    >>> out.complete, out.load, out.lower_bound
    (True, None, inf)
    >>> branch_and_bound(inst, incumbent_load=float("nan"))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: incumbent_load must be None or a finite number ...; got nan
    """
    if instance.is_adaptation:
        raise InvalidInputError("branch_and_bound does not model migration limits")
    least = float(instance.cpu[instance.task_job].max()) if instance.n_tasks else 0.0
    real_number(
        "incumbent_load", incumbent_load, at_least=least, optional=True,
        note="the largest task CPU need: no placement has a smaller load",
    )
    real_number("stop_load", stop_load, at_least=0)
    if (
        isinstance(max_nodes, bool)
        or not isinstance(max_nodes, int | np.integer)
        or max_nodes < 1
    ):
        raise InvalidInputError(f"max_nodes must be an integer >= 1; got {max_nodes!r}")
    deadline = Deadline.of(time_limit)
    budget = min(int(max_nodes), _MAX_BUDGET)
    left = deadline.left()
    if left is not None and left < math.inf:  # inf seconds: no time limit
        budget = max(1, min(budget, int(left * NODES_PER_SECOND)))
    job = instance.task_job
    cpu = instance.cpu[job]
    mem = instance.mem[job]
    order = np.lexsort((np.arange(cpu.size), -mem, -cpu))
    s_cpu = np.ascontiguousarray(cpu[order], dtype=float)
    s_mem = np.ascontiguousarray(mem[order], dtype=float)
    same = np.zeros(order.size, dtype=np.bool_)
    same[1:] = (s_cpu[1:] == s_cpu[:-1]) & (s_mem[1:] == s_mem[:-1])
    start_load = np.inf if incumbent_load is None else float(incumbent_load)
    out = np.full(order.size, -1, dtype=np.int64)
    started = time.perf_counter()
    code, best, nodes = _bnb_kernel(
        s_cpu, s_mem, same, instance.hosts, start_load, float(stop_load), budget, out
    )
    seconds = time.perf_counter() - started
    found = (bool(out.size) and out[0] >= 0) or (out.size == 0 and np.isfinite(best))
    task_hosts = None
    if found and out.size:
        task_hosts = np.empty(order.size, dtype=np.int64)
        task_hosts[order] = out
    load = float(best) if np.isfinite(best) else None
    return BnbOutcome(code != 1, load, task_hosts, int(nodes), seconds)
