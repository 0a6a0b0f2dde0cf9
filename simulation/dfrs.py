"""DFRS: online, non-clairvoyant dynamic fractional scheduling (Casanova et al. 2011, §4-5).

A discrete-event simulation of a homogeneous cluster. Each node's CPU is one share
(at most 100 % allocated) and its memory is never over-committed. A running job has all
its tasks placed and progresses at its yield (the same for all its tasks); it completes
when its progress equals its processing time. A job that is paused (preempted) and later
resumed, or migrated, makes no progress for ``penalty`` seconds (default 300) after it
resumes or moves; the schedulers do not know about the penalty.

Events are kept on one heap ordered by ``(time, kind, key)`` — completions, then
submissions (by job index), then the periodic tick — so ties break deterministically.
A job's completion event is re-pushed whenever its yield or penalty changes; superseded
entries carry an old version number and are skipped. Times are exact floating-point
event times (no time step).

Modelling choices (documented because the paper leaves them open):

- virtual time = progress = the integral of the yield while the job is running and not
  paying a penalty, so it reaches the processing time exactly at completion;
- priority = flow time / virtual time², infinite at zero virtual time, ties by
  submission order; GreedyP and GreedyPM only pause jobs of lower priority than the
  incoming one;
- after every event the yields are recomputed for the current mapping (``opt=min``,
  ``opt=avg``; for ``/stretch-per`` ``opt=max`` or ``opt=avg`` on the stretch estimates
  up to the next tick);
- MCB8 packs jobs in submission order with the library's ``mcb_fill`` (the static
  heuristic's code): a yield bisection to 0.01, after checking memory alone (yield 0);
  when even that fails the lowest-priority job is dropped and the search restarts
  (job sets whose total memory exceeds the cluster are skipped without packing: they
  would fail anyway).
  Jobs protected by ``minft``/``minvt`` keep their nodes if they keep running (they are
  pre-placed and the others are packed around them);
- a preemption counts once per pause, a migration once per move of one or more tasks
  of a running job; bytes moved: a pause saves and a resume restores the job's memory
  (``tasks * mem * node_memory`` each), a migration saves and restores the moved tasks.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field

import numpy as np

from allockit.errors import AllocKitError, InvalidInputError
from allockit.heuristics.kernels import MEM_EPS, greedy_fill_kernel
from allockit.heuristics.mcb import largest_target, mcb_fill
from allockit.instances.workload import Workload
from allockit.simulation.allocation import (
    max_avg_yields,
    max_min_affine,
    max_min_yields,
    min_avg_stretch,
)
from allockit.simulation.batch import SimulationResult
from allockit.simulation.names import AlgorithmName, parse_algorithm

__all__ = ["SimulationInvariantError", "simulate_dfrs"]

_DONE, _SUBMIT, _TICK = 0, 1, 2
_FUTURE, _WAITING, _RUNNING, _FINISHED = 0, 1, 2, 3
#: Accuracy of MCB8's binary search on the yield (the paper's 0.01).
YIELD_ACCURACY = 0.01
_CAPACITY_TOL = 1e-9


class SimulationInvariantError(AllocKitError):
    """A capacity or accounting invariant broke during a debug-mode simulation."""


@dataclass
class _Log:
    """Progress segments recorded with ``record=True``: (job, t0, t1, yield, useful s)."""

    segments: list[tuple[int, float, float, float, float]] = field(default_factory=list)


class _Simulator:
    """State and event handlers of one run (per-job arrays indexed by job position)."""

    def __init__(
        self,
        workload: Workload,
        algorithm: AlgorithmName,
        penalty: float,
        period: float,
        debug: bool,
        record: bool,
    ) -> None:
        self.w = workload
        self.alg = algorithm
        self.penalty = penalty
        self.period = period
        self.debug = debug
        self.log = _Log() if record else None
        n, nodes = workload.n_jobs, workload.platform.nodes
        self.n, self.nodes = n, nodes
        self.cpu = workload.cpu
        self.mem = workload.mem
        self.tasks = workload.tasks
        self.runtime = workload.runtime
        self.submit_time = workload.submit
        self.status = np.full(n, _FUTURE, dtype=np.int8)
        self.ever_ran = np.zeros(n, dtype=bool)
        self.vt = np.zeros(n)
        self.penalty_until = np.full(n, -math.inf)
        self.yields = np.zeros(n)
        self.predicted = np.full(n, math.inf)
        self.version = np.zeros(n, dtype=np.int64)
        self.start = np.full(n, np.nan)
        self.end = np.full(n, np.nan)
        self.n_preempt = np.zeros(n, dtype=np.int64)
        self.n_migrate = np.zeros(n, dtype=np.int64)
        self.bytes_preempt = 0.0  # memory images saved on pauses and restored on resumes
        self.bytes_migrate = 0.0  # moved tasks, saved and restored
        self.nodes_of: dict[int, np.ndarray] = {}
        self.rows: dict[int, np.ndarray] = {}  # job -> tasks per node
        self.mem_used = np.zeros(nodes)
        self.load = np.zeros(nodes)  # sum of CPU needs of the tasks on each node
        self.running: set[int] = set()
        self.waiting: set[int] = set()
        self.demand = 0.0
        self.clock = float(workload.submit[0]) if n else 0.0
        self.origin = self.clock
        self.under = 0.0
        self.heap: list[tuple[float, int, int, int]] = []
        self.tick_pending = False
        self.next_tick = math.inf
        self.timeline: list[tuple[float, float, float]] = []
        self.remap_stats: list[tuple[int, float]] = []  # (jobs considered, seconds)

    # ------------------------------------------------------------------ bookkeeping
    def priority_key(self, j: int, now: float) -> tuple[int, float, int]:
        """Sorts by decreasing priority: zero virtual time first, then flow/vt²."""
        vt = self.vt[j]
        if vt <= 0.0:
            return (0, 0.0, j)
        return (1, -(now - self.submit_time[j]) / (vt * vt), j)

    def by_priority(self, jobs, now: float) -> list[int]:
        return sorted(jobs, key=lambda j: self.priority_key(j, now))

    def place(self, j: int, nodes: np.ndarray) -> None:
        self.nodes_of[j] = nodes
        row = np.bincount(nodes, minlength=self.nodes).astype(float)
        self.rows[j] = row
        self.mem_used += row * self.mem[j]
        self.load += row * self.cpu[j]

    def release(self, j: int) -> np.ndarray:
        nodes = self.nodes_of.pop(j)
        row = self.rows.pop(j)
        self.mem_used -= row * self.mem[j]
        self.load -= row * self.cpu[j]
        return nodes

    def footprint(self, j: int, tasks: int | None = None) -> float:
        count = self.tasks[j] if tasks is None else tasks
        return float(count * self.mem[j] * self.w.platform.node_memory)

    def invalidate(self, j: int) -> None:
        """Forget job ``j``'s predicted completion (its heap entry becomes stale)."""
        self.version[j] += 1
        self.predicted[j] = math.inf

    def start_job(self, j: int, nodes: np.ndarray, now: float) -> None:
        self.place(j, nodes)
        self.waiting.discard(j)
        self.running.add(j)
        self.status[j] = _RUNNING
        if self.ever_ran[j]:
            self.penalty_until[j] = now + self.penalty
            self.bytes_preempt += self.footprint(j)  # restore
        else:
            self.ever_ran[j] = True
            self.start[j] = now
        self.invalidate(j)

    def pause_job(self, j: int) -> None:
        """Pause a running job whose nodes were already released."""
        self.running.discard(j)
        self.waiting.add(j)
        self.status[j] = _WAITING
        self.n_preempt[j] += 1
        self.bytes_preempt += self.footprint(j)  # save
        self.yields[j] = 0.0
        self.invalidate(j)

    def settle(self, j: int, old: np.ndarray, new: np.ndarray, now: float) -> None:
        """A running job released from ``old`` continues on ``new`` (maybe a migration)."""
        self.place(j, new)
        old_row = np.bincount(old, minlength=self.nodes)
        new_row = np.bincount(new, minlength=self.nodes)
        moved = int(self.tasks[j] - np.minimum(old_row, new_row).sum())
        if moved:
            self.n_migrate[j] += 1
            self.bytes_migrate += 2 * self.footprint(j, moved)  # save + restore
            self.penalty_until[j] = now + self.penalty
            self.invalidate(j)

    # ------------------------------------------------------------------ time
    def advance(self, now: float) -> None:
        """Progress every running job to ``now`` and integrate the underutilisation."""
        span = now - self.clock
        if span <= 0:
            return
        used = 0.0
        if self.running:
            jobs = np.fromiter(self.running, dtype=np.int64, count=len(self.running))
            useful = np.maximum(0.0, now - np.maximum(self.clock, self.penalty_until[jobs]))
            y = self.yields[jobs]
            progress = self.vt[jobs] + y * useful
            if self.debug and (progress > self.runtime[jobs] * (1 + 1e-9) + 1e-6).any():
                raise SimulationInvariantError(f"t={now}: a job progressed beyond its work")
            self.vt[jobs] = np.minimum(progress, self.runtime[jobs])
            used = float((y * self.cpu[jobs] * self.tasks[jobs] * useful).sum())
            if self.log is not None:
                for j, u, yy in zip(jobs.tolist(), useful.tolist(), y.tolist(), strict=True):
                    self.log.segments.append((j, self.clock, now, yy, u))
        self.under += min(self.nodes, self.demand) * span - used
        self.clock = now

    def finish_job(self, j: int, now: float) -> None:
        self.release(j)
        self.running.discard(j)
        self.status[j] = _FINISHED
        self.vt[j] = self.runtime[j]
        self.end[j] = now
        self.yields[j] = 0.0
        self.demand -= float(self.cpu[j] * self.tasks[j])
        if not self.running and not self.waiting:
            self.demand = 0.0

    # ------------------------------------------------------------------ Greedy family
    def fits(self, j: int, free: np.ndarray) -> bool:
        """Can Greedy place all of job ``j``'s tasks given free memory ``free``?"""
        m = self.mem[j]
        if m <= MEM_EPS:
            return True
        return int(np.floor((free + MEM_EPS) / m).sum()) >= self.tasks[j]

    def greedy(self, j: int) -> np.ndarray | None:
        k = int(self.tasks[j])
        nodes = greedy_fill_kernel(
            np.full(k, self.cpu[j]),
            np.full(k, self.mem[j]),
            self.load.copy(),
            1.0 - self.mem_used,
        )
        return None if (nodes < 0).any() else nodes

    def try_greedy(self, j: int, now: float) -> bool:
        if not self.fits(j, 1.0 - self.mem_used):
            return False
        nodes = self.greedy(j)
        if nodes is None:  # pragma: no cover - fits() is exact for equal-size tasks
            return False
        self.start_job(j, nodes, now)
        return True

    def greedy_preempt(self, j: int, now: float, migrate: bool) -> None:
        """GreedyP (``migrate=False``) or GreedyPM on the submission of job ``j``."""
        if self.try_greedy(j, now):
            return
        mine = self.priority_key(j, now)
        lower = [r for r in self.running if self.priority_key(r, now) > mine]
        lower.sort(key=lambda r: self.priority_key(r, now), reverse=True)  # increasing
        free = 1.0 - self.mem_used
        marked: list[int] = []
        for r in lower:
            marked.append(r)
            free += self.rows[r] * self.mem[r]
            if self.fits(j, free):
                break
        else:
            return  # even pausing every lower-priority job would not make room
        for r in reversed(marked[:-1]):  # decreasing priority: can it stay?
            trial = free - self.rows[r] * self.mem[r]
            if self.fits(j, trial):
                free = trial
                marked.remove(r)
        old = {r: self.release(r) for r in marked}
        self.running.difference_update(marked)
        nodes = self.greedy(j)
        if nodes is None:  # pragma: no cover - guaranteed by fits()
            raise SimulationInvariantError(f"GreedyP could not place job {j}")
        self.start_job(j, nodes, now)
        for r in sorted(marked, key=lambda r: self.priority_key(r, now)):
            new = self.greedy(r) if migrate and self.fits(r, 1.0 - self.mem_used) else None
            if new is None:
                self.running.add(r)
                self.pause_job(r)
            else:
                self.running.add(r)
                self.settle(r, old[r], new, now)

    def greedy_waiting(self, now: float) -> None:
        """On completion (``*`` with a Greedy family): start waiting jobs that fit.

        Jobs are tried by decreasing priority. Starting a job only takes memory, so a job
        that does not fit before the loop cannot fit later: those are filtered out at
        once (one array operation) before the ordered pass.
        """
        if not self.waiting:
            return
        jobs = np.fromiter(self.waiting, dtype=np.int64, count=len(self.waiting))
        mem = self.mem[jobs]
        free = 1.0 - self.mem_used
        with np.errstate(divide="ignore"):
            slots = np.floor((free[None, :] + MEM_EPS) / mem[:, None]).sum(axis=1)
        may_fit = (mem <= MEM_EPS) | (slots >= self.tasks[jobs])
        for j in self.by_priority(jobs[may_fit].tolist(), now):
            self.try_greedy(j, now)

    # ------------------------------------------------------------------ MCB8
    def protected(self, j: int, now: float) -> bool:
        """``minft``/``minvt``: a young running job keeps its nodes if it keeps running."""
        if self.alg.minvt is not None and self.vt[j] < self.alg.minvt:
            return True
        return self.alg.minft is not None and now - self.submit_time[j] < self.alg.minft

    def remap(self, now: float, stretch: bool = False) -> None:
        """MCB8 (or MCB8-stretch) over every job in the system, then apply the mapping."""
        jobs = self.by_priority(self.running | self.waiting, now)
        if not jobs:
            return
        began = time.perf_counter()
        pinned = {j for j in self.running if self.protected(j, now)}
        if stretch:
            period = self.period
            ft = np.maximum(now - self.submit_time, 0.0)  # unsubmitted jobs are unused
            slope_a = self.vt / (ft + period)
            slope_b = period / (ft + period)
        keep = jobs[: self.memory_prefix(jobs)]
        mapping = None
        while keep:
            if stretch:
                mapping = self.pack_stretch(keep, pinned, slope_a, slope_b)
            else:
                mapping = self.pack_yield(keep, pinned)
            if mapping is not None:
                break
            keep.pop()  # drop the lowest-priority job and try again
        self.remap_stats.append((len(jobs), time.perf_counter() - began))
        self.apply(mapping or {}, now)

    def memory_prefix(self, jobs: list[int]) -> int:
        """How many of ``jobs`` (by priority) can possibly fit in memory together.

        A necessary condition only (total memory and tasks over half a node each must
        not exceed the node count), so skipping the longer prefixes changes nothing: the
        packing would fail on them too.
        """
        order = np.asarray(jobs, dtype=np.int64)
        total = np.cumsum(self.tasks[order] * self.mem[order])
        big = np.cumsum(np.where(self.mem[order] > 0.5 + MEM_EPS, self.tasks[order], 0))
        ok = (total <= self.nodes + 1e-9) & (big <= self.nodes)
        return int(np.argmin(ok)) if not ok.all() else len(jobs)

    def _pinned_state(self, keep: list[int], pinned: set[int]):
        fixed = [j for j in keep if j in pinned]
        base_mem = np.zeros(self.nodes)
        for j in fixed:
            base_mem += self.rows[j] * self.mem[j]
        movable = sorted(j for j in keep if j not in pinned)
        counts = self.tasks[movable] if movable else np.zeros(0, dtype=np.int64)
        task_job = np.repeat(np.asarray(movable, dtype=np.int64), counts)
        return fixed, base_mem, movable, task_job

    def _mapping(self, fixed, movable, task_job, placed) -> dict[int, np.ndarray]:
        mapping = {j: self.nodes_of[j] for j in fixed}
        if movable:
            order = np.argsort(task_job, kind="stable")
            bounds = np.cumsum(self.tasks[movable])[:-1]
            for j, nodes in zip(movable, np.split(placed[order], bounds), strict=True):
                mapping[j] = nodes
        return mapping

    def pack_yield(self, keep: list[int], pinned: set[int]) -> dict[int, np.ndarray] | None:
        fixed, base_mem, movable, task_job = self._pinned_state(keep, pinned)
        base_load = np.zeros(self.nodes)
        for j in fixed:
            base_load += self.rows[j] * self.cpu[j]
        cpu = self.cpu[task_job]
        mem = self.mem[task_job]
        free_mem = 1.0 - base_mem

        def pack(target: float) -> np.ndarray | None:
            free_cpu = 1.0 - target * base_load
            if (free_cpu < -MEM_EPS).any():
                return None
            return mcb_fill(target * cpu, mem, free_cpu, free_mem)

        hi = min(1.0, self.nodes / float((self.cpu[keep] * self.tasks[keep]).sum()))
        best = largest_target(pack, hi, lambda lo, hi: hi - lo < YIELD_ACCURACY, zero_first=True)
        if best is None:
            return None
        return self._mapping(fixed, movable, task_job, best)

    def pack_stretch(
        self, keep: list[int], pinned: set[int], a: np.ndarray, b: np.ndarray
    ) -> dict[int, np.ndarray] | None:
        """MCB8-stretch: the largest inverse stretch estimate whose yields pack."""
        fixed, base_mem, movable, task_job = self._pinned_state(keep, pinned)
        free_mem = 1.0 - base_mem
        keep_arr = np.asarray(keep, dtype=np.int64)

        def pack(inverse: float) -> np.ndarray | None:
            need = (inverse - a[keep_arr]) / b[keep_arr]
            if (need > 1.0 + 1e-12).any():
                return None
            y = np.zeros(self.n)
            y[keep_arr] = np.clip(need, 0.0, 1.0)
            base_load = np.zeros(self.nodes)
            for j in fixed:
                base_load += self.rows[j] * self.cpu[j] * y[j]
            free_cpu = 1.0 - base_load
            if (free_cpu < -MEM_EPS).any():
                return None
            return mcb_fill(
                y[task_job] * self.cpu[task_job], self.mem[task_job], free_cpu, free_mem
            )

        # 1 % relative accuracy on the stretch
        best = largest_target(
            pack, 1.0, lambda lo, hi: hi - lo <= YIELD_ACCURACY * hi, zero_first=True
        )
        if best is None:
            return None
        return self._mapping(fixed, movable, task_job, best)

    def apply(self, mapping: dict[int, np.ndarray], now: float) -> None:
        """Move the system to ``mapping``: pause, migrate, resume and start jobs."""
        old: dict[int, np.ndarray] = {}
        for j in sorted(self.running):
            new = mapping.get(j)
            if new is None or not np.array_equal(
                np.bincount(new, minlength=self.nodes), self.rows[j]
            ):
                old[j] = self.release(j)
        for j, nodes in old.items():
            if j not in mapping:
                self.pause_job(j)
            else:
                self.settle(j, nodes, mapping[j], now)
        for j in sorted(mapping):
            if self.status[j] == _WAITING:
                self.start_job(j, mapping[j], now)

    # ------------------------------------------------------------------ allocation
    def allocate(self, now: float) -> None:
        """Yields for the current mapping, then the next completion of each job."""
        if not self.running:
            return
        jobs = np.array(sorted(self.running), dtype=np.int64)
        counts = np.stack([self.rows[j] for j in jobs])
        cpu = self.cpu[jobs]
        if self.alg.periodic == "mcb8-stretch":
            # stretch estimates (ft + T) / (vt + y T) up to the next tick
            horizon = self.next_tick - now if self.tick_pending else self.period
            horizon = max(horizon, 1e-9)
            ft = now - self.submit_time[jobs]
            a, b = self.vt[jobs] / (ft + horizon), horizon / (ft + horizon)
            if self.alg.opt == "avg":
                y = min_avg_stretch(counts, cpu, a, b)
            else:
                y = max_min_affine(counts, cpu, a, b)
        elif self.alg.opt == "avg":
            y = max_avg_yields(counts, cpu)
        else:
            y = max_min_yields(counts, cpu)
        self.yields[jobs] = y
        begin = np.maximum(now, self.penalty_until[jobs])
        with np.errstate(divide="ignore"):
            ends = np.where(y > 0, begin + (self.runtime[jobs] - self.vt[jobs]) / y, math.inf)
        for j, t_end in zip(jobs.tolist(), ends.tolist(), strict=True):
            if t_end != self.predicted[j]:
                self.predicted[j] = t_end
                self.version[j] += 1
                if t_end < math.inf:
                    heapq.heappush(self.heap, (t_end, _DONE, j, int(self.version[j])))

    # ------------------------------------------------------------------ checks
    def check(self, now: float) -> None:
        mem = np.zeros(self.nodes)
        cpu = np.zeros(self.nodes)
        for j in self.running:
            nodes = self.nodes_of[j]
            if nodes.size != self.tasks[j] or (nodes < 0).any() or (nodes >= self.nodes).any():
                raise SimulationInvariantError(f"t={now}: job {j} is not fully placed")
            np.add.at(mem, nodes, self.mem[j])
            np.add.at(cpu, nodes, self.cpu[j] * self.yields[j])
            if not 0.0 <= self.yields[j] <= 1.0 + _CAPACITY_TOL:
                raise SimulationInvariantError(f"t={now}: job {j} has yield {self.yields[j]}")
        if (mem > 1.0 + _CAPACITY_TOL).any():
            raise SimulationInvariantError(f"t={now}: memory over-committed: {mem.max()}")
        if (cpu > 1.0 + _CAPACITY_TOL).any():
            raise SimulationInvariantError(f"t={now}: CPU over 100 %: {cpu.max()}")
        if not np.allclose(mem, self.mem_used, atol=1e-9):
            raise SimulationInvariantError(f"t={now}: memory bookkeeping drifted")
        if (self.vt > self.runtime * (1 + 1e-12)).any():
            raise SimulationInvariantError(f"t={now}: a job progressed beyond its work")

    # ------------------------------------------------------------------ main loop
    def push_tick(self, now: float) -> None:
        if self.alg.periodic and not self.tick_pending:
            k = math.floor((now - self.origin) / self.period) + 1
            self.next_tick = self.origin + k * self.period
            heapq.heappush(self.heap, (self.next_tick, _TICK, 0, 0))
            self.tick_pending = True

    def on_submit(self, j: int, now: float) -> None:
        self.status[j] = _WAITING
        self.waiting.add(j)
        self.demand += float(self.cpu[j] * self.tasks[j])
        self.push_tick(now)
        policy = self.alg.on_submit
        if policy == "Greedy":
            self.try_greedy(j, now)
        elif policy == "GreedyP":
            self.greedy_preempt(j, now, migrate=False)
        elif policy == "GreedyPM":
            self.greedy_preempt(j, now, migrate=True)
        elif policy == "MCB8":
            self.remap(now)

    def on_complete(self, j: int, now: float) -> None:
        self.finish_job(j, now)
        policy = self.alg.on_completion_policy
        if policy == "Greedy":
            self.greedy_waiting(now)
        elif policy == "MCB8":
            self.remap(now)

    def on_tick(self, now: float) -> None:
        self.tick_pending = False
        if not self.running and not self.waiting:
            return
        self.remap(now, stretch=self.alg.periodic == "mcb8-stretch")
        self.push_tick(now)

    def run(self) -> None:
        for j in range(self.n):
            heapq.heappush(self.heap, (float(self.submit_time[j]), _SUBMIT, j, 0))
        while self.heap:
            now, kind, key, stamp = heapq.heappop(self.heap)
            if kind == _DONE and (stamp != self.version[key] or self.status[key] != _RUNNING):
                continue
            self.advance(now)
            if kind == _DONE:
                self.on_complete(key, now)
            elif kind == _SUBMIT:
                self.on_submit(key, now)
            else:
                self.on_tick(now)
            self.finish_negligible(now)
            self.allocate(now)
            if self.debug:
                self.check(now)
            self.timeline.append((now, self.allocated(), self.demand))
        left = np.flatnonzero(self.status != _FINISHED)
        if left.size:  # pragma: no cover - every Table 1 policy eventually starts jobs
            raise SimulationInvariantError(
                f"{left.size} jobs never completed (first: {int(self.w.ids[left[0]])})"
            )

    def allocated(self) -> float:
        """CPU allocated to running jobs, in nodes."""
        if not self.running:
            return 0.0
        jobs = np.fromiter(self.running, dtype=np.int64, count=len(self.running))
        return float((self.yields[jobs] * self.cpu[jobs] * self.tasks[jobs]).sum())

    def finish_negligible(self, now: float) -> None:
        """Complete running jobs whose remaining work is a rounding residue."""
        for j in sorted(self.running):
            if self.runtime[j] - self.vt[j] <= 1e-9 * max(1.0, self.runtime[j]):
                self.finish_job(j, now)
                if self.alg.on_completion_policy == "Greedy":
                    self.greedy_waiting(now)
                elif self.alg.on_completion_policy == "MCB8":
                    self.remap(now)


def _validate(workload: Workload, penalty: float, period: float) -> None:
    if not (isinstance(penalty, int | float) and math.isfinite(penalty) and penalty >= 0):
        raise InvalidInputError(f"penalty must be a finite number >= 0; got {penalty!r}")
    if not (isinstance(period, int | float) and math.isfinite(period) and period > 0):
        raise InvalidInputError(f"period must be a finite number > 0; got {period!r}")
    nodes = workload.platform.nodes
    with np.errstate(divide="ignore"):
        per_node = np.where(workload.mem > MEM_EPS, np.floor((1 + MEM_EPS) / workload.mem), np.inf)
    too_big = np.flatnonzero(workload.tasks > per_node * nodes)
    if too_big.size:
        k = int(too_big[0])
        raise InvalidInputError(
            f"job {int(workload.ids[k])} needs {int(workload.tasks[k])} tasks of memory "
            f"{workload.mem[k]:g}; the {nodes} nodes hold at most {per_node[k] * nodes:g}"
        )


def simulate_dfrs(
    workload: Workload,
    algorithm: str | AlgorithmName,
    *,
    penalty: float = 300.0,
    period: float = 600.0,
    debug: bool = False,
    record: bool = False,
) -> SimulationResult:
    """Simulate a DFRS algorithm (named as in Table 1 of the paper) on ``workload``.

    Parameters
    ----------
    workload : Workload
        Jobs in submission order and the cluster (``platform.nodes`` nodes).
    algorithm : str or AlgorithmName
        e.g. ``"GreedyPM */per/opt=min/minvt=600"`` (see ``parse_algorithm``).
    penalty : float
        Rescheduling penalty in seconds (no progress after a resume or a migration).
    period : float
        Period of ``/per`` and ``/stretch-per`` in seconds.
    debug : bool
        Check memory, CPU and progress invariants after every event (slower).
    record : bool
        Keep the progress segments in ``result.extra["segments"]`` (for tests).
        ``result.extra["mcb8_calls"]`` always holds one row per MCB8 (or MCB8-stretch)
        call: the number of jobs it considered and its run time in seconds.

    Returns
    -------
    SimulationResult

    Raises
    ------
    InvalidInputError
        For a bad name, penalty or period, or a job that cannot fit the empty cluster.
    SimulationInvariantError
        In debug mode, if an invariant breaks (a bug).

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[100, 100],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.4, 0.4])
    >>> r = simulate_dfrs(w, "Greedy *")
    >>> r.end.tolist(), r.max_stretch   # both share the node at yield 1/2
    ([200.0, 200.0], 2.0)
    """
    name = algorithm if isinstance(algorithm, AlgorithmName) else parse_algorithm(algorithm)
    if name.batch:
        raise InvalidInputError(f"{name.batch} is a batch algorithm: use simulate_batch")
    _validate(workload, penalty, period)
    started = time.perf_counter()
    sim = _Simulator(workload, name, float(penalty), float(period), debug, record)
    sim.run()
    return SimulationResult.from_schedule(
        workload,
        str(name),
        sim.start,
        sim.end,
        underutilization=sim.under,
        seconds=time.perf_counter() - started,
        job_preemptions=sim.n_preempt,
        job_migrations=sim.n_migrate,
        preemption_bytes=sim.bytes_preempt,
        migration_bytes=sim.bytes_migrate,
        timeline=np.array(sim.timeline, dtype=float).reshape(-1, 3),
        extra={
            "mcb8_calls": np.array(sim.remap_stats, dtype=float).reshape(-1, 2),
            **({"segments": sim.log.segments} if sim.log is not None else {}),
        },
    )
