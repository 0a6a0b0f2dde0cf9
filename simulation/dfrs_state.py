"""The state of a DFRS simulation: jobs, their placement, progress and the cluster's loads.

``DfrsState`` holds per-job arrays (indexed by job position in the workload) and per-node
memory and CPU load, and the bookkeeping every policy shares: placing and releasing a
job's tasks, starting, pausing, migrating and finishing jobs (with the preemption and
migration counts and bytes), advancing progress to a new time, and the debug-mode
invariant checks. Policies (``allockit.simulation.dfrs_policies``) decide *what* to
do; this class does it. The rules (seed 002, restated in ``FORMULAS.md`` §3):

- virtual time = progress = the integral of the yield while the job is running and not
  paying a penalty, so it reaches the processing time exactly at completion;
- priority = flow time / virtual time², infinite at zero virtual time, ties by
  submission order;
- a job resumed after a pause, or migrated, makes no progress for ``penalty`` seconds;
- a preemption counts once per pause, a migration once per move of one or more tasks
  of a running job; bytes moved: a pause saves and a resume restores the job's memory
  (``tasks * mem * node_memory`` each), a migration saves and restores the moved tasks.
"""

from __future__ import annotations

import math

import numpy as np

from allockit.constants import CAPACITY_TOL, MEM_EPS
from allockit.errors import AllocKitError
from allockit.instances.workload import Workload

__all__ = ["FINISHED", "FUTURE", "RUNNING", "WAITING", "DfrsState", "SimulationInvariantError"]

FUTURE, WAITING, RUNNING, FINISHED = 0, 1, 2, 3


class SimulationInvariantError(AllocKitError):
    """A capacity or accounting invariant broke during a debug-mode simulation."""


_FLOAT_MAX = float(np.finfo(float).max)


class DfrsState:
    """Jobs, placement and loads of one DFRS run (see the module docstring).

    Parameters
    ----------
    workload : Workload
        Jobs in submission order and the platform.
    penalty : float
        Rescheduling penalty (s).
    debug : bool
        Check the progress invariant while advancing.
    record : bool
        Keep the progress segments ``(job, t0, t1, yield, useful seconds)``.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0], runtime=[10, 10],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.4, 0.4])
    >>> s = DfrsState(w, penalty=0.0)
    >>> s.submit(0); s.start_job(0, np.array([1]), 0.0)
    >>> s.mem_used.tolist(), sorted(s.running), sorted(s.waiting)
    ([0.0, 0.4], [0], [])
    """

    def __init__(
        self, workload: Workload, *, penalty: float, debug: bool = False, record: bool = False
    ) -> None:
        self.w = workload
        self.penalty = penalty
        self.debug = debug
        self.segments: list[tuple[int, float, float, float, float]] | None = (
            [] if record else None
        )
        n, nodes = workload.n_jobs, workload.platform.nodes
        self.n, self.nodes = n, nodes
        self.cpu = workload.cpu
        self.mem = workload.mem
        self.tasks = workload.tasks
        self.runtime = workload.runtime
        self.submit_time = workload.submit
        self.status = np.full(n, FUTURE, dtype=np.int8)
        self.ever_ran = np.zeros(n, dtype=bool)
        self.vt = np.zeros(n)
        self.penalty_until = np.full(n, -math.inf)
        self.last_move = np.full(n, -math.inf)  # last start, resume or migration
        self.yields = np.zeros(n)
        self.start = np.full(n, np.nan)
        self.end = np.full(n, np.nan)
        self.n_preempt = np.zeros(n, dtype=np.int64)
        self.n_migrate = np.zeros(n, dtype=np.int64)
        # other ways of counting, for comparisons with the paper's Table 3
        self.n_resume = np.zeros(n, dtype=np.int64)  # resumes after a pause
        self.n_resume_elsewhere = np.zeros(n, dtype=np.int64)  # ... not on the same nodes
        self.task_preemptions = 0  # tasks paused
        self.task_migrations = 0  # tasks moved while running
        self.last_rows: dict[int, np.ndarray] = {}  # tasks per node a paused job had
        self.bytes_preempt = 0.0  # memory images saved on pauses and restored on resumes
        self.bytes_migrate = 0.0  # moved tasks, saved and restored
        self.nodes_of: dict[int, np.ndarray] = {}
        self.rows: dict[int, np.ndarray] = {}  # job -> tasks per node
        self.mem_used = np.zeros(nodes)
        self.load = np.zeros(nodes)  # sum of CPU needs of the tasks on each node
        self.running: set[int] = set()
        self.waiting: set[int] = set()
        # job shapes (memory per task, tasks): jobs of one shape fit or not together, so
        # a long backlog is tested one shape at a time
        shapes, shape = (
            np.unique(np.column_stack([self.mem, self.tasks]), axis=0, return_inverse=True)
            if n
            else (np.zeros((0, 2)), np.zeros(0, dtype=np.int64))
        )
        self.shape = np.asarray(shape, dtype=np.int64).ravel()  # job -> shape
        self.shape_mem = shapes[:, 0].copy()
        self.shape_tasks = shapes[:, 1].astype(np.int64)
        self.waiting_per_shape = np.zeros(self.shape_mem.size, dtype=np.int64)
        # the jobs in the system (submitted, not finished) in index order, as an array:
        # submissions come in index order, finished jobs are dropped when next asked
        self._active = np.empty(n, dtype=np.int64)
        self._n_active = 0
        self._finished_since = 0
        self.demand = 0.0
        self.clock = float(workload.submit[0]) if n else 0.0
        self.under = 0.0
        self.allocated_cpu_seconds = 0.0  # CPU given to running jobs, in node-seconds
        self.penalty_cpu_seconds = 0.0  # of which given to jobs serving a penalty
        self.layout = 0  # counts placements and releases: the mapping changed
        # inside ``apply``: the memory and load updates, applied together at its end
        self._pending: list[tuple[int, float, np.ndarray]] | None = None

    # ------------------------------------------------------------------ priorities
    def priority_key(self, j: int, now: float) -> tuple[int, float, int]:
        """Sorts by decreasing priority: zero virtual time first, then flow/vt²."""
        vt = self.vt[j]
        if vt <= 0.0:
            return (0, 0.0, j)
        return (1, -(now - self.submit_time[j]) / (vt * vt), j)

    def by_priority(self, jobs, now: float) -> list[int]:
        """``jobs`` sorted by decreasing priority (the order of ``priority_key``).

        Vectorised: the same keys computed with numpy, in the same floating-point
        operations, ordered by one stable sort of the index-sorted jobs (zero virtual
        time first, then flow/vt² decreasing, ties by index).
        """
        arr = np.sort(np.fromiter(jobs, dtype=np.int64))  # ties go by index: sort first
        if arr.size < 2:
            return arr.tolist()
        return arr[np.argsort(self.priority_keys(arr, now), kind="stable")].tolist()

    def priority_keys(self, jobs: np.ndarray, now: float) -> np.ndarray:
        """Sort keys of ``jobs`` (lower first = higher priority), as ``by_priority``'s.

        Zero virtual time gives ``-inf``; otherwise ``-flow/vt²``, kept finite so that
        it never ties with them. Ties go by job index: sort ``jobs`` first and use a
        stable order on the keys.
        """
        vt = self.vt[jobs]
        positive = vt > 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            key = -(now - self.submit_time[jobs]) / (vt * vt)
        return np.where(positive, np.maximum(key, -_FLOAT_MAX), -np.inf)

    @staticmethod
    def first_by_priority(
        jobs: np.ndarray, keys: np.ndarray, count: int
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The first ``count`` (or more) of index-sorted ``jobs`` in priority order.

        Every job whose key ties with the last one taken comes too, so the answer is
        exactly the start of the full order (``by_priority``) without sorting the rest.
        Returns the taken jobs in order and the mask of the others (None when all were
        taken).

        Examples
        --------
        >>> jobs, keys = np.array([3, 5, 7, 9]), np.array([0.5, -1.0, 0.5, 2.0])
        >>> first, rest = DfrsState.first_by_priority(jobs, keys, 2)
        >>> first.tolist(), jobs[rest].tolist()
        ([5, 3, 7], [9])
        """
        if count >= jobs.size:
            return jobs[np.argsort(keys, kind="stable")], None
        kth = np.partition(keys, count - 1)[count - 1]
        taken = keys <= kth
        where = np.flatnonzero(taken)
        first = jobs[where[np.argsort(keys[where], kind="stable")]]
        return first, (None if where.size == jobs.size else ~taken)

    # ------------------------------------------------------------------ placement
    def place(self, j: int, nodes: np.ndarray, row: np.ndarray | None = None) -> None:
        """Put job ``j``'s tasks on ``nodes`` (one node index per task).

        ``row``, if given, is the float count of tasks per node of ``nodes``.
        """
        self.layout += 1
        self.nodes_of[j] = nodes
        if row is None:
            row = np.bincount(nodes, minlength=self.nodes).astype(float)
        else:
            row = row.copy()  # (a row of a larger array would keep all of it alive)
        self.rows[j] = row
        if self._pending is not None:
            self._pending.append((j, 1.0, row))
        else:
            self.mem_used += row * self.mem[j]
            self.load += row * self.cpu[j]

    def release(self, j: int) -> np.ndarray:
        """Take job ``j``'s tasks off their nodes; returns the nodes they were on."""
        self.layout += 1
        nodes = self.nodes_of.pop(j)
        row = self.rows.pop(j)
        if self._pending is not None:
            self._pending.append((j, -1.0, row))
        else:
            self.mem_used -= row * self.mem[j]
            self.load -= row * self.cpu[j]
        self.last_rows[j] = row
        return nodes

    def counts(self, jobs: np.ndarray) -> np.ndarray:
        """Tasks per node of running ``jobs``: one row per job (a new array)."""
        return np.stack([self.rows[j] for j in jobs.tolist()])

    def footprint(self, j: int, tasks: int | None = None) -> float:
        """Bytes of memory image of ``tasks`` of job ``j``'s tasks (default: all)."""
        count = self.tasks[j] if tasks is None else tasks
        return float(count * self.mem[j] * self.w.platform.node_memory)

    def fits(self, j: int, free: np.ndarray) -> bool:
        """Can all of job ``j``'s tasks be placed given free memory ``free``?"""
        m = self.mem[j]
        if m <= MEM_EPS:
            return True
        return int(np.floor((free + MEM_EPS) / m).sum()) >= self.tasks[j]

    # ------------------------------------------------------------------ job life
    def submit(self, j: int) -> None:
        """Job ``j`` arrives: it waits and its CPU need joins the demand."""
        self.status[j] = WAITING
        self._wait(j)
        self._active[self._n_active] = j
        self._n_active += 1
        self.demand += float(self.cpu[j] * self.tasks[j])

    def _wait(self, j: int) -> None:
        self.waiting.add(j)
        self.waiting_per_shape[self.shape[j]] += 1

    def active_jobs(self) -> np.ndarray:
        """The jobs in the system (running or waiting), by index: a read-only array.

        Examples
        --------
        >>> from allockit.instances.workload import Platform
        >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0, 0], runtime=[5, 5, 5],
        ...                        tasks=[1, 1, 1], cpu=[1.0, 1.0, 1.0], mem=[0.1, 0.1, 0.1])
        >>> s = DfrsState(w, penalty=0.0)
        >>> for j in range(3):
        ...     s.submit(j)
        >>> s.start_job(1, np.array([0]), 0.0); s.finish_job(1, 5.0)
        >>> s.active_jobs().tolist()
        [0, 2]
        """
        if self._finished_since:
            jobs = self._active[: self._n_active]
            jobs = jobs[self.status[jobs] != FINISHED]
            self._n_active = jobs.size
            self._active[: jobs.size] = jobs
            self._finished_since = 0
        out = self._active[: self._n_active]
        out.flags.writeable = False
        return out

    def start_job(
        self, j: int, nodes: np.ndarray, now: float, row: np.ndarray | None = None
    ) -> None:
        """Start (or resume, paying the penalty) waiting job ``j`` on ``nodes``."""
        self.place(j, nodes, row)
        if j in self.waiting:
            self.waiting.discard(j)
            self.waiting_per_shape[self.shape[j]] -= 1
        self.running.add(j)
        self.status[j] = RUNNING
        self.last_move[j] = now
        if self.ever_ran[j]:
            self.penalty_until[j] = now + self.penalty
            self.bytes_preempt += self.footprint(j)  # restore
            self.n_resume[j] += 1
            before = self.last_rows.get(j)
            if before is not None and (before != self.rows[j]).any():
                self.n_resume_elsewhere[j] += 1
        else:
            self.ever_ran[j] = True
            self.start[j] = now

    def pause_job(self, j: int) -> None:
        """Pause a running job whose nodes were already released."""
        self.running.discard(j)
        self._wait(j)
        self.status[j] = WAITING
        self.n_preempt[j] += 1
        self.task_preemptions += int(self.tasks[j])
        self.bytes_preempt += self.footprint(j)  # save
        self.yields[j] = 0.0

    def settle(
        self, j: int, old: np.ndarray, new: np.ndarray, now: float, row: np.ndarray | None = None
    ) -> None:
        """A running job released from ``old`` continues on ``new`` (maybe a migration).

        ``row``, if given, is the float count of tasks per node of ``new``.
        """
        self.place(j, new, row)
        old_row = self.last_rows[j]  # (released from ``old``)
        moved = int(self.tasks[j] - np.minimum(old_row, self.rows[j]).sum())
        if moved:
            self.last_move[j] = now
            self.n_migrate[j] += 1
            self.task_migrations += moved
            self.bytes_migrate += 2 * self.footprint(j, moved)  # save + restore
            self.penalty_until[j] = now + self.penalty

    def apply(
        self,
        mapping: dict[int, np.ndarray],
        now: float,
        rows: dict[int, np.ndarray] | None = None,
    ) -> None:
        """Move the system to ``mapping``: pause, migrate, resume and start jobs.

        ``rows``, if given, holds the float count of tasks per node of some of the
        mapped jobs (those not given are counted here). A job mapped to its own node
        array (``nodes_of``) stays.
        """
        rows = {} if rows is None else rows
        leave: list[int] = []
        check: list[int] = []
        for j in sorted(self.running):
            new = mapping.get(j)
            if new is None:
                leave.append(j)
            elif new is not self.nodes_of[j]:
                check.append(j)
        if check:
            after = np.stack([
                rows[j] if j in rows else np.bincount(mapping[j], minlength=self.nodes)
                for j in check
            ])
            same = (after == np.stack([self.rows[j] for j in check])).all(axis=1)
            leave += [j for j, stays in zip(check, same.tolist(), strict=True) if not stays]
            leave.sort()
        self._pending = []  # nothing below reads the loads: add them up at the end
        try:
            old = {j: self.release(j) for j in leave}  # in index order
            for j, nodes in old.items():
                if j not in mapping:
                    self.pause_job(j)
                else:
                    self.settle(j, nodes, mapping[j], now, rows.get(j))
            for j in sorted(mapping):
                if self.status[j] == WAITING:
                    self.start_job(j, mapping[j], now, rows.get(j))
        finally:
            pending, self._pending = self._pending, None
            self._add_rows(pending)

    def _add_rows(self, pending: list[tuple[int, float, np.ndarray]]) -> None:
        """Add (sign +1) or take off (-1) each job's row to the loads, in list order."""
        if not pending:
            return
        from allockit.heuristics.kernels import add_rows_kernel

        jobs = np.fromiter((p[0] for p in pending), dtype=np.int64, count=len(pending))
        sign = np.fromiter((p[1] for p in pending), dtype=float, count=len(pending))
        add_rows_kernel(
            self.mem_used, self.load, np.stack([p[2] for p in pending]),
            self.mem[jobs], self.cpu[jobs], sign,
        )

    def finish_job(self, j: int, now: float) -> None:
        """Job ``j`` completes at ``now``."""
        self.release(j)
        self.last_rows.pop(j, None)
        self.running.discard(j)
        self.status[j] = FINISHED
        self._finished_since += 1
        self.vt[j] = self.runtime[j]
        self.end[j] = now
        self.yields[j] = 0.0
        self.demand -= float(self.cpu[j] * self.tasks[j])
        if not self.running and not self.waiting:
            self.demand = 0.0

    def negligible(self) -> list[int]:
        """Running jobs whose remaining work is a rounding residue, in index order."""
        if not self.running:
            return []
        jobs = np.fromiter(self.running, dtype=np.int64, count=len(self.running))
        work = self.runtime[jobs]
        done = work - self.vt[jobs] <= 1e-9 * np.maximum(1.0, work)
        return sorted(jobs[done].tolist())

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
            need = y * self.cpu[jobs] * self.tasks[jobs]
            used = float((need * useful).sum())
            given = float(need.sum()) * span
            self.allocated_cpu_seconds += given
            self.penalty_cpu_seconds += given - used
            if self.segments is not None:
                for j, u, yy in zip(jobs.tolist(), useful.tolist(), y.tolist(), strict=True):
                    self.segments.append((j, self.clock, now, yy, u))
        self.under += min(self.nodes, self.demand) * span - used
        self.clock = now

    def allocated(self) -> float:
        """CPU allocated to running jobs, in nodes."""
        if not self.running:
            return 0.0
        jobs = np.fromiter(self.running, dtype=np.int64, count=len(self.running))
        return float((self.yields[jobs] * self.cpu[jobs] * self.tasks[jobs]).sum())

    def progressing(self, now: float) -> float:
        """CPU allocated to running jobs not serving a penalty at ``now``, in nodes."""
        if not self.running:
            return 0.0
        jobs = np.fromiter(self.running, dtype=np.int64, count=len(self.running))
        free = self.penalty_until[jobs] <= now
        return float((self.yields[jobs] * self.cpu[jobs] * self.tasks[jobs])[free].sum())

    # ------------------------------------------------------------------ checks
    def check(self, now: float) -> None:
        """Raise ``SimulationInvariantError`` if a capacity or progress invariant broke."""
        mem = np.zeros(self.nodes)
        cpu = np.zeros(self.nodes)
        for j in self.running:
            nodes = self.nodes_of[j]
            if nodes.size != self.tasks[j] or (nodes < 0).any() or (nodes >= self.nodes).any():
                raise SimulationInvariantError(f"t={now}: job {j} is not fully placed")
            np.add.at(mem, nodes, self.mem[j])
            np.add.at(cpu, nodes, self.cpu[j] * self.yields[j])
            if not 0.0 <= self.yields[j] <= 1.0 + CAPACITY_TOL:
                raise SimulationInvariantError(f"t={now}: job {j} has yield {self.yields[j]}")
        if (mem > 1.0 + CAPACITY_TOL).any():
            raise SimulationInvariantError(f"t={now}: memory over-committed: {mem.max()}")
        if (cpu > 1.0 + CAPACITY_TOL).any():
            raise SimulationInvariantError(f"t={now}: CPU over 100 %: {cpu.max()}")
        if not np.allclose(mem, self.mem_used, atol=1e-9):
            raise SimulationInvariantError(f"t={now}: memory bookkeeping drifted")
        if (self.vt > self.runtime * (1 + 1e-12)).any():
            raise SimulationInvariantError(f"t={now}: a job progressed beyond its work")
