"""A migration-bounded adaptation heuristic for VCSched (the paper left this open, Sec. 6)."""

from __future__ import annotations

import time

import numpy as np

from allockit.checks import integer
from allockit.heuristics.common import finish
from allockit.instances.vcsched import VCInstance
from allockit.results import VCResult

__all__ = ["adapt"]

_EPS = 1e-12


class _State:
    """Placement under construction, with loads, memory and the migration spent."""

    def __init__(self, instance: VCInstance) -> None:
        self.inst = instance
        job = instance.task_job
        self.a = instance.cpu[job]
        self.m = instance.mem[job]
        self.prev = instance.previous
        self.host = instance.previous.copy()
        self.load = np.zeros(instance.hosts)
        self.used = np.zeros(instance.hosts)
        placed = self.host >= 0
        np.add.at(self.load, self.host[placed], self.a[placed])
        np.add.at(self.used, self.host[placed], self.m[placed])
        budget = instance.migration_budget
        count = instance.max_migrations
        self.budget_left = np.inf if budget is None else budget
        self.moves_left = np.inf if count is None else count

    def cost(self, t: int, h: int) -> tuple[float, int]:
        """Migrated memory and count of task ``t`` sitting on host ``h``."""
        if self.prev[t] < 0 or self.prev[t] == h:
            return 0.0, 0
        return float(self.m[t]), 1

    def move_cost(self, t: int, dst: int) -> tuple[float, int]:
        new_mem, new_n = self.cost(t, dst)
        old_mem, old_n = self.cost(t, self.host[t]) if self.host[t] >= 0 else (0.0, 0)
        return new_mem - old_mem, new_n - old_n

    def affordable(self, t: int, dst: int) -> bool:
        d_mem, d_n = self.move_cost(t, dst)
        return d_mem <= self.budget_left + _EPS and d_n <= self.moves_left

    def move(self, t: int, dst: int) -> None:
        d_mem, d_n = self.move_cost(t, dst)
        src = self.host[t]
        if src >= 0:
            self.load[src] -= self.a[t]
            self.used[src] -= self.m[t]
        self.host[t] = dst
        self.load[dst] += self.a[t]
        self.used[dst] += self.m[t]
        self.budget_left -= d_mem
        self.moves_left -= d_n

    def fits(self, t: int) -> np.ndarray:
        """Hosts with enough free memory for task ``t`` (its own host excluded)."""
        ok = self.used + self.m[t] <= 1.0 + _EPS
        if self.host[t] >= 0:
            ok[self.host[t]] = False
        return ok


def _repair_memory(s: _State) -> str | None:
    """Move tasks off hosts whose memory overflows (the workload grew); cheapest first."""
    for h in np.flatnonzero(s.used > 1.0 + _EPS):
        while s.used[h] > 1.0 + _EPS:
            tasks = np.flatnonzero(s.host == h)
            best = None
            for t in tasks[np.argsort(s.m[tasks], kind="stable")]:
                dests = np.flatnonzero(s.fits(t))
                dests = [
                    d for d in dests[np.argsort(s.load[dests], kind="stable")] if s.affordable(t, d)
                ]
                if dests:
                    best = (t, dests[0])
                    break
            if best is None:
                return f"host {h} is over memory and no affordable move relieves it"
            s.move(*best)
    return None


def _place_new(s: _State) -> str | None:
    """Place new tasks, largest first (MCB8's key), on the least-loaded host that fits."""
    new = np.flatnonzero(s.host < 0)
    order = new[np.argsort(-np.maximum(s.a[new], s.m[new]), kind="stable")]
    for t in order:
        ok = s.used + s.m[t] <= 1.0 + _EPS
        if not ok.any():
            return (
                f"no host has enough free memory for job {s.inst.job_names[s.inst.task_job[t]]!r}"
            )
        candidates = np.flatnonzero(ok)
        s.move(t, int(candidates[np.argmin(s.load[candidates] + s.a[t])]))
    return None


def _improve(s: _State, max_moves: int) -> None:
    """Move tasks off the most loaded host while that lowers the maximum load."""
    for _ in range(max_moves):
        src = int(np.argmax(s.load))
        current = s.load[src]
        best: tuple[float, float, int, int] | None = None
        for t in np.flatnonzero(s.host == src):
            base = s.load.copy()
            base[src] -= s.a[t]
            order = np.argsort(-base, kind="stable")
            top, second = order[0], order[1] if s.inst.hosts > 1 else order[0]
            for dst in np.flatnonzero(s.fits(t)):
                if not s.affordable(t, dst):
                    continue
                others = base[second] if dst == top else base[top]
                new_max = max(others, base[dst] + s.a[t])
                if new_max < current - 1e-12:
                    key = (new_max, s.move_cost(t, dst)[0], int(t), int(dst))
                    if best is None or key < best:
                        best = key
        if best is None:
            return
        s.move(best[2], best[3])


def adapt(instance: VCInstance, *, max_moves: int = 10_000, method: str = "adapt") -> VCResult:
    """Adapt a previous placement to a changed workload within the migration budget.

    Three steps: (1) keep every task on its previous host, and if a host's memory now
    overflows, move its tasks away cheapest first; (2) place new jobs' tasks, largest
    ``max(cpu, mem)`` first (MCB8's key), on the least-loaded host with enough memory;
    (3) repeatedly move a task off the most loaded host to the host that lowers the
    maximum load most, while the migrated memory and the number of migrations stay
    within ``migration_budget`` and ``max_migrations`` (moving a task back to its previous
    host refunds its cost; new jobs move for free).

    Parameters
    ----------
    instance : VCInstance
        With ``previous`` hosts (tasks of new jobs have -1) and the migration limits.
    max_moves : int
        Bound on improving moves in step 3.
    method : str
        Name recorded in the result.

    Returns
    -------
    VCResult
        Status ``infeasible`` with the reason when memory cannot be repaired or a new job
        fits nowhere.

    Raises
    ------
    InvalidInputError
        If ``max_moves`` is not an integer >= 0.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[1.0, 1.0], mem=[0.25, 0.25],
    ...                              previous=[0, 0], migration_budget=0.25)
    >>> r = adapt(inst)
    >>> r.min_yield, r.migrations, r.migrated_memory
    (1.0, 1, 0.25)
    """
    max_moves = integer("max_moves", max_moves, minimum=0)
    started = time.perf_counter()
    state = _State(instance)
    reason = _repair_memory(state) or _place_new(state)
    if reason:
        return finish(instance, None, method=method, started=started, reason=f"{method}: {reason}")
    _improve(state, max_moves)
    return finish(instance, state.host.copy(), method=method, started=started)
