"""The state of a DFRS simulation: jobs, their placement, progress and the cluster's loads.

``DfrsState`` holds per-job arrays (indexed by job position in the workload), each
job's tasks per node (a row of a pool of rows, kept while the job is in the system:
where it runs, or where it last ran while paused), per-node memory and CPU load, and
the bookkeeping every policy shares: placing and releasing a job's tasks, starting,
pausing, migrating and finishing jobs (with the preemption and migration counts and
bytes), moving the whole system to a new mapping at once (``apply``), advancing
progress to a new time. Policies (``allockit.simulation.dfrs_policies``) decide *what*
to do; this class does it. The rows of tasks per node are kept by a ``RowPool``
(``dfrs_rows``), the priority order is computed by ``dfrs_priority``, the debug-mode
checks are ``dfrs_checks.check_invariants``. Copies of the active jobs' virtual times,
submission times, statuses and shapes, in the order of the list of active jobs
(``active_view``), let the kernels scan a long backlog in sequence. The rules (seed 002,
restated in the user guide (DFRS)):

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

from allockit.constants import MEM_EPS
from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload
from allockit.simulation.dfrs_rows import RowPool, SimulationInvariantError
from allockit.simulation.kernel_modules import kernel_module

__all__ = [
    "FINISHED", "FUTURE", "RUNNING", "WAITING", "DfrsState", "SimulationInvariantError",
    "check_view",
]

FUTURE, WAITING, RUNNING, FINISHED = 0, 1, 2, 3


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

    ``apply`` moves every job at once: job 1 starts on node 0, job 0 moves there too.

    >>> s.submit(1)
    >>> s.apply(np.array([0, 1]), np.array([[1.0, 0.0], [1.0, 0.0]]), 5.0)
    >>> s.mem_used.tolist(), s.n_migrate.tolist(), s.row(0).tolist()
    ([0.8, 0.0], [1, 0], [1.0, 0.0])
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
        self.bytes_preempt = 0.0  # memory images saved on pauses and restored on resumes
        self.bytes_migrate = 0.0  # moved tasks, saved and restored
        # tasks per node (floats) of each job in the system that has run: where it runs,
        # or where it ran last while paused (``row(j)``, ``counts(jobs)``)
        self.rows = RowPool(n, nodes)
        self.row = self.rows.row
        self.counts = self.rows.rows
        self._where = np.full(n, -1, dtype=np.int64)  # scratch of ``apply``
        self.mem_used = np.zeros(nodes)
        self.load = np.zeros(nodes)  # sum of CPU needs of the tasks on each node
        # running and waiting jobs: read them, change them through the methods below
        # (``waiting`` is read from ``status``: a backlog of thousands of jobs would make
        # a set of them costly to keep)
        self.running: set[int] = set()
        self.n_waiting = 0  # the jobs with status WAITING
        self._running_sorted: np.ndarray | None = None  # running_jobs(), kept until a change
        self._is_running = np.zeros(n, dtype=bool)  # the running set, as a mask
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
        self._active_sorted = True  # (False after a submission out of index order)
        self._finished_since = 0
        # the active jobs' virtual times, submission times, statuses and shapes, beside
        # ``_active`` in the same order (``active_view``): a scan of a long backlog reads
        # them in sequence instead of gathering from arrays over every job. Jobs whose
        # status may have changed are logged (``_touched``) and copied on the next read.
        self._act_vt = np.zeros(n)
        self._act_submit = np.zeros(n)
        self._act_status = np.zeros(n, dtype=np.int8)
        self._act_shape = np.zeros(n, dtype=np.int64)
        self._touched = np.empty(self.TOUCHED_BUFFER, dtype=np.int64)
        self._n_touched = 0
        self.demand = 0.0
        self.clock = float(workload.submit[0]) if n else 0.0
        self.under = 0.0
        self.allocated_cpu_seconds = 0.0  # CPU given to running jobs, in node-seconds
        self.penalty_cpu_seconds = 0.0  # of which given to jobs serving a penalty
        self.layout = 0  # changes whenever the mapping changes (place, release, apply)

    # ------------------------------------------------------------------ placement
    def place(self, j: int, row: np.ndarray, *, counted: bool = False) -> None:
        """Put job ``j``'s tasks on the nodes: ``row`` is its float count of tasks per node.

        The row replaces the one kept of the job's last placement. ``counted``: the
        caller already added the row to ``mem_used`` and ``load``.
        """
        self.layout += 1
        kept = self.rows.store_one(j, row)
        if not counted:
            self.mem_used += kept * self.mem[j]
            self.load += kept * self.cpu[j]

    def release(self, j: int) -> None:
        """Take job ``j``'s tasks off their nodes (their row is kept: ``row``)."""
        self.layout += 1
        row = self.row(j)
        self.mem_used -= row * self.mem[j]
        self.load -= row * self.cpu[j]

    def footprint(
        self, j: int | np.ndarray, tasks: int | np.ndarray | None = None
    ) -> float | np.ndarray:
        """Bytes of memory image of ``tasks`` of job ``j``'s tasks (default: all).

        ``j`` (and ``tasks``) may be arrays of jobs (and task counts): then an array.
        """
        count = self.tasks[j] if tasks is None else tasks
        return count * self.mem[j] * self.w.platform.node_memory

    def _row(self, nodes: np.ndarray) -> np.ndarray:
        """The float count of tasks per node of ``nodes`` (a node index per task)."""
        return np.bincount(nodes, minlength=self.nodes).astype(float)

    def fits(self, j: int, free: np.ndarray) -> bool:
        """Can all of job ``j``'s tasks be placed given free memory ``free``?

        Node ``n`` takes ``floor((free[n] + MEM_EPS) / mem[j])`` of them (any number when
        ``mem[j] <= MEM_EPS``); the count is one compiled call
        (``dfrs_event_kernels.fits_kernel``). ``free`` is one number per node (a
        sequence of numbers is taken); NaN is refused.
        """
        m = self.mem[j]
        if m <= MEM_EPS:
            return True
        free = np.asarray(free, dtype=np.float64)  # (a user policy may pass a list)
        if free.shape != (self.nodes,):
            raise InvalidInputError(
                f"fits: free must hold one number per node ({self.nodes}); got shape "
                f"{free.shape}"
            )
        count = kernel_module("dfrs_event_kernels").fits_kernel(free, m)
        if count != count:
            raise InvalidInputError("fits: free memory must be numbers; got NaN")
        return bool(count >= self.tasks[j])

    # ------------------------------------------------------------------ job life
    def submit(self, j: int) -> None:
        """Job ``j`` arrives: it waits and its CPU need joins the demand."""
        if self.status[j] != FUTURE:
            raise SimulationInvariantError(f"submit: job {j} was submitted already")
        self.status[j] = WAITING
        self._wait(j)
        if self._n_active and self._active[self._n_active - 1] > j:
            self._active_sorted = False
        at = self._n_active
        self._active[at] = j
        self._act_vt[at] = self.vt[j]
        self._act_submit[at] = self.submit_time[j]
        self._act_status[at] = WAITING
        self._act_shape[at] = self.shape[j]
        self._n_active += 1
        self.demand += float(self.cpu[j] * self.tasks[j])

    def _wait(self, j: int) -> None:
        self.n_waiting += 1
        self.waiting_per_shape[self.shape[j]] += 1

    @property
    def waiting(self) -> frozenset[int]:
        """The waiting jobs (submitted, not running, not finished), by index.

        Read from the statuses of the jobs in the system (``active_jobs``) at each
        access; ``n_waiting`` counts them without building the set.

        >>> from allockit.instances.workload import Platform
        >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[5, 5],
        ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.4, 0.4])
        >>> s = DfrsState(w, penalty=0.0)
        >>> s.submit(1); sorted(s.waiting), s.n_waiting
        ([1], 1)
        """
        active = self.active_jobs()
        return frozenset(active[self.status[active] == WAITING].tolist())

    def running_jobs(self) -> np.ndarray:
        """The running jobs by index (read-only): sums over them go in index order.

        Kept until the running set changes (every change goes through this class).
        Read from the mask over the active jobs, or, behind a backlog of waiting jobs
        many times longer (``RUNNING_SORT_RATIO``), by sorting the running set: the same
        array either way.
        """
        jobs = self._running_sorted
        if jobs is None:
            if len(self.running) * self.RUNNING_SORT_RATIO < self._n_active:
                jobs = np.fromiter(self.running, dtype=np.int64, count=len(self.running))
                jobs.sort()
            else:
                active = self.active_jobs()  # (the running jobs are active ones)
                jobs = active[self._is_running[active]]
            jobs.flags.writeable = False
            self._running_sorted = jobs
        return jobs

    #: ``running_jobs`` sorts the running set when the jobs in the system outnumber it
    #: this many times (a long backlog), and reads the mask over them otherwise.
    RUNNING_SORT_RATIO = 16

    def _run(self, j: int) -> None:
        self.running.add(j)
        self._is_running[j] = True
        self._running_sorted = None
        self._touch_one(j)

    def _stop(self, j: int) -> None:
        self.running.discard(j)
        self._is_running[j] = False
        self._running_sorted = None
        self._touch_one(j)

    def lift(self, jobs: list[int]) -> None:
        """Release the running ``jobs`` (in list order) and take them out of the running
        set, to be placed again (``settle``) or paused (``pause_job``) one by one."""
        for r in jobs:
            self.release(r)
        self.running.difference_update(jobs)
        lifted = np.asarray(jobs, dtype=np.int64)
        self._is_running[lifted] = False
        self._running_sorted = None
        self._touch(lifted)

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
        self._sort_active()
        if self._n_touched or self._finished_since:
            self._sync_view(drop_finished=self._finished_since > 0)
        out = self._active[: self._n_active]
        out.flags.writeable = False
        return out

    def active_view(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The active jobs (``active_jobs``) and, in the same order, their virtual times,
        submission times, statuses and shapes: ``vt[active]``, ``submit_time[active]``,
        ``status[active]`` and ``shape[active]`` without the gathers (read-only).

        The copies are brought up to date here: the jobs whose status changed since the
        last read (logged by every change of the running set) and the running jobs,
        whose virtual times grow (only running jobs progress). With ``debug`` the copies
        are compared with the gathers (``check_view``).

        Examples
        --------
        >>> from allockit.instances.workload import Platform
        >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[9, 9],
        ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.1, 0.1])
        >>> s = DfrsState(w, penalty=0.0)
        >>> s.submit(0); s.submit(1); s.start_job(1, np.array([0]), 0.0)
        >>> s.yields[1] = 1.0; s.advance(4.0)
        >>> active, vt, submit, status, shape = s.active_view()
        >>> active.tolist(), vt.tolist(), status.tolist()
        ([0, 1], [0.0, 4.0], [1, 2])
        """
        active = self.active_jobs()
        n = active.size
        if self.running:
            kernel_module("dfrs_event_kernels").view_vt_kernel(
                self._active, n, self._act_vt, self.running_jobs(), self.vt
            )
        view = [active] + [arr[:n] for arr in self._active_arrays()[1:]]
        for arr in view[1:]:
            arr.flags.writeable = False  # (the views, not the arrays they show)
        if self.debug:
            check_view(self, view, self.clock)
        return tuple(view)

    def refresh_view(self) -> None:
        """Copy every active job's status and virtual time into ``active_view``'s arrays
        on its next read: for a state whose ``vt`` or ``status`` arrays were written
        directly (a hand-built state in a test); the methods of this class keep the copies
        up to date themselves. A stale copy is caught in debug mode (``check_view``).
        """
        self._touch(self._active[: self._n_active])

    def _active_arrays(self) -> tuple[np.ndarray, ...]:
        """``_active`` and its companions, in ``active_view``'s order."""
        return self._active, self._act_vt, self._act_submit, self._act_status, self._act_shape

    def _touch(self, jobs: np.ndarray) -> None:
        """Log ``jobs`` (their status changed) for the next ``_sync_view``; a full log is
        synced at once (the copies of jobs still running are refreshed at every read)."""
        k = len(jobs)
        if self._n_touched + k > self._touched.size:
            self._sync_view(drop_finished=False)
            if k > self._touched.size:
                self._touched = np.empty(2 * k, dtype=np.int64)
        self._touched[self._n_touched : self._n_touched + k] = jobs
        self._n_touched += k

    def _touch_one(self, j: int) -> None:
        if self._n_touched == self._touched.size:
            self._sync_view(drop_finished=False)
        self._touched[self._n_touched] = j
        self._n_touched += 1

    def _sort_active(self) -> None:
        """Put the active jobs (and their copies) in index order after a submission out
        of it."""
        if not self._active_sorted:
            n = self._n_active
            order = np.argsort(self._active[:n], kind="stable")
            for arr in self._active_arrays():
                arr[:n] = arr[:n][order]
            self._active_sorted = True

    #: Jobs ``_touch`` logs before it syncs the copies (more when one call logs more).
    TOUCHED_BUFFER = 4096

    def _sync_view(self, *, drop_finished: bool) -> None:
        """Copy the status and virtual time of the logged jobs into ``active_view``'s
        arrays, and drop the finished jobs from them (``view_sync_kernel``)."""
        self._sort_active()
        self._n_active = kernel_module("dfrs_event_kernels").view_sync_kernel(
            self._active, self._act_vt, self._act_submit, self._act_status, self._act_shape,
            self._n_active, self._touched, self._n_touched, self.status, self.vt,
            drop_finished,
        )
        self._n_touched = 0
        if drop_finished:
            self._finished_since = 0

    def start_job(
        self, j: int, nodes: np.ndarray | None, now: float, row: np.ndarray | None = None,
        *, counted: bool = False,
    ) -> None:
        """Start (or resume, paying the penalty) waiting job ``j`` on ``nodes``.

        ``row``, if given, is the float count of tasks per node (``nodes`` may then be
        None); ``counted``: the caller already added it to the memory and load. A job
        not submitted yet, or finished, is refused (``SimulationInvariantError``).
        """
        if self.status[j] == FUTURE or self.status[j] == FINISHED:
            raise SimulationInvariantError(
                f"start_job: job {j} is not in the system (not submitted, or finished)"
            )
        if row is None:
            row = self._row(nodes)
        if self.ever_ran[j] and (self.row(j) != row).any():
            self.n_resume_elsewhere[j] += 1
        self.place(j, row, counted=counted)
        if self.status[j] == WAITING:
            self.n_waiting -= 1
            self.waiting_per_shape[self.shape[j]] -= 1
        self._run(j)
        self.status[j] = RUNNING
        self.last_move[j] = now
        if self.ever_ran[j]:
            self.penalty_until[j] = now + self.penalty
            self.bytes_preempt += float(self.footprint(j))  # restore
            self.n_resume[j] += 1
        else:
            self.ever_ran[j] = True
            self.start[j] = now

    def start_jobs(self, jobs: np.ndarray, rows: np.ndarray, now: float) -> None:
        """``start_job(j, None, now, row, counted=True)`` for each waiting ``jobs[i]`` and
        ``rows[i]`` in order, in one compiled call (``dfrs_kernels.start_kernel``).
        ``jobs`` are distinct (a job started twice would be counted twice).

        The rows are already counted in the memory and load (Greedy's pass over the
        waiting jobs adds them as it places the jobs).
        """
        if not jobs.size:
            return
        self.rows.take(jobs)
        pool, nz, slot = self.rows.indexed()
        self.n_waiting -= int(np.count_nonzero(self.status[jobs] == WAITING))
        self.bytes_preempt, running_after = kernel_module("dfrs_kernels").start_kernel(
            jobs, rows, pool, nz, slot, self.status, self.shape, self.waiting_per_shape,
            self.ever_ran, self.n_resume_elsewhere, self.last_move, self.penalty_until,
            self.n_resume, self.start, self.mem, self.tasks, now, float(self.penalty),
            float(self.w.platform.node_memory), self.bytes_preempt, self.running_jobs(),
        )
        self.layout += jobs.size  # (one change per job, as start_job counts them)
        self.running.update(jobs.tolist())
        self._is_running[jobs] = True
        self._touch(jobs)
        running_after.flags.writeable = False
        self._running_sorted = running_after  # (the kernel's merge: running_jobs' array)

    def pause_job(self, j: int) -> None:
        """Pause a running (or lifted) job whose nodes were already released."""
        self._stop(j)
        self._wait(j)
        self.status[j] = WAITING
        self.n_preempt[j] += 1
        self.task_preemptions += int(self.tasks[j])
        self.bytes_preempt += float(self.footprint(j))  # save
        self.yields[j] = 0.0

    def settle(
        self, j: int, new: np.ndarray | None, now: float, row: np.ndarray | None = None
    ) -> None:
        """A running job just released (or lifted) continues on nodes ``new`` (maybe a
        migration).

        ``row``, if given, is the float count of tasks per node of ``new`` (which may
        then be None).
        """
        if row is None:
            row = self._row(new)
        moved = int(self.tasks[j] - np.minimum(self.row(j), row).sum())
        self.place(j, row)
        self._run(j)
        if moved:
            self.last_move[j] = now
            self.n_migrate[j] += 1
            self.task_migrations += moved
            self.bytes_migrate += 2 * float(self.footprint(j, moved))  # save + restore
            self.penalty_until[j] = now + self.penalty

    def apply(self, jobs: np.ndarray, rows: np.ndarray, now: float) -> None:
        """Move the system to the mapping ``jobs`` -> ``rows``: pause, migrate, resume, start.

        ``rows[i]`` is the float count of tasks per node of job ``jobs[i]``; running
        jobs not in ``jobs`` are paused, running jobs whose row changes are migrated
        (a running job given its own row stays), waiting jobs in ``jobs`` start or
        resume. Done on arrays, with the bookkeeping of doing it job by job: the
        running jobs that leave their nodes are released in index order, then those
        that stay running are placed again (index order), then the waiting ones start
        (index order); memory and load are updated, and the byte counts added up, in
        that order.
        """
        jobs = np.asarray(jobs, dtype=np.int64)
        if rows.shape != (jobs.size, self.nodes):
            raise SimulationInvariantError(
                f"apply: rows must have shape {(jobs.size, self.nodes)}; got {rows.shape}"
            )
        if self.fused_apply:
            self._apply_fused(jobs, rows, now)
            return
        where = self._where
        where[jobs] = np.arange(jobs.size)
        try:
            if (where[jobs] != np.arange(jobs.size)).any():
                raise SimulationInvariantError("apply: a job is mapped twice")
            self._apply(jobs, rows, now)
        finally:
            where[jobs] = -1

    #: Apply mappings in one compiled call (``dfrs_kernels.apply_kernel``); False runs
    #: the numpy steps below, which give the same bits (the tests compare the two).
    fused_apply: bool = True

    def _apply(self, jobs: np.ndarray, rows: np.ndarray, now: float) -> None:
        where = self._where
        running = self.running_jobs()
        mapped = where[running] >= 0
        stays = running[mapped]
        old = self.rows.gather(stays)
        new = rows[where[stays]]
        changed = (old != new).any(axis=1)
        moving, old, new = stays[changed], old[changed], new[changed]
        paused = leave = running[~mapped]
        if moving.size:
            leave = np.union1d(paused, moving)
        starting = np.sort(jobs[self.status[jobs] == WAITING])
        start_rows = rows[where[starting]]
        if not (leave.size or starting.size):
            return
        self.layout += 1
        # memory and load: releases, then the moves' new rows, then the starts
        order = np.concatenate([leave, moving, starting])
        sign = np.concatenate([-np.ones(leave.size), np.ones(moving.size + starting.size)])
        from allockit.simulation.dfrs_kernels import add_rows_kernel

        add_rows_kernel(
            self.mem_used, self.load,
            np.concatenate([self.rows.gather(leave), new, start_rows]),
            self.mem[order], self.cpu[order], sign,
        )
        # pauses
        if paused.size:
            listed = paused.tolist()
            self.running.difference_update(listed)
            self._is_running[paused] = False
            self._running_sorted = None
            self._touch(paused)
            self.n_waiting += paused.size
            np.add.at(self.waiting_per_shape, self.shape[paused], 1)
            self.status[paused] = WAITING
            self.n_preempt[paused] += 1
            self.task_preemptions += int(self.tasks[paused].sum())
            self.yields[paused] = 0.0
        # migrations (a row that changed moves at least one task)
        if moving.size:
            moved = (self.tasks[moving] - np.minimum(old, new).sum(axis=1)).astype(np.int64)
            self.rows.store(moving, new)
            self.last_move[moving] = now
            self.n_migrate[moving] += 1
            self.task_migrations += int(moved.sum())
            self.bytes_migrate = _add_in_order(
                self.bytes_migrate, 2 * self.footprint(moving, moved)
            )
            self.penalty_until[moving] = now + self.penalty
        # starts and resumes
        resumed = starting
        if starting.size:
            ran = self.ever_ran[starting]
            resumed, fresh = starting[ran], starting[~ran]
            if resumed.size:
                before = self.rows.gather(resumed)
                self.n_resume_elsewhere[resumed] += (before != start_rows[ran]).any(axis=1)
            self.rows.store(starting, start_rows)
            self.n_waiting -= starting.size
            self.running.update(starting.tolist())
            self._is_running[starting] = True
            self._running_sorted = None
            self._touch(starting)
            np.subtract.at(self.waiting_per_shape, self.shape[starting], 1)
            self.status[starting] = RUNNING
            self.last_move[starting] = now
            self.penalty_until[resumed] = now + self.penalty
            self.n_resume[resumed] += 1
            self.ever_ran[fresh] = True
            self.start[fresh] = now
        if paused.size or resumed.size:  # saved on pauses, restored on resumes
            self.bytes_preempt = _add_in_order(
                self.bytes_preempt,
                np.concatenate([self.footprint(paused), self.footprint(resumed)]),
            )

    def _apply_fused(self, jobs: np.ndarray, rows: np.ndarray, now: float) -> None:
        """``apply`` with the arrays updated by ``apply_kernel`` and the sets here."""
        # waiting jobs that never ran get a row (once each, even if mapped twice)
        slots = self.rows.slots(jobs)
        fresh = jobs[:0]
        if np.count_nonzero(slots < 0):
            fresh = np.unique(jobs[(slots < 0) & (self.status[jobs] == WAITING)])
            self.rows.take(fresh)
        pool, nz, slot = self.rows.indexed()
        if not (rows.dtype == np.float64 and rows.flags.c_contiguous and rows.flags.writeable):
            rows = np.require(rows, dtype=float, requirements=["C", "W"])
        if np.may_share_memory(rows, pool):  # (views of the pool, which the kernel writes)
            rows = rows.copy()
        (code, paused, starting, preempted, migrated, self.bytes_migrate, self.bytes_preempt,
         running_after) = kernel_module("dfrs_kernels").apply_kernel(
            jobs, rows, self._where, self.running_jobs(), self.status, pool, nz, slot,
            self.mem_used, self.load, self.mem, self.cpu, self.tasks, self.shape,
            self.waiting_per_shape, self.n_preempt, self.yields, self.last_move,
            self.n_migrate, self.penalty_until, self.ever_ran, self.n_resume_elsewhere,
            self.n_resume, self.start, now, float(self.penalty),
            float(self.w.platform.node_memory), self.bytes_migrate, self.bytes_preempt,
        )
        if code < 0:
            for j in fresh.tolist():  # (no row was stored: give them back)
                self.rows.drop(j)
            raise SimulationInvariantError("apply: a job is mapped twice")
        if not code:
            return
        self.layout += 1
        self.task_preemptions += preempted
        self.task_migrations += migrated
        if paused.size:
            self.running.difference_update(paused.tolist())
            self._is_running[paused] = False
            self.n_waiting += paused.size
            self._touch(paused)
        if starting.size:
            self.n_waiting -= starting.size
            self.running.update(starting.tolist())
            self._is_running[starting] = True
            self._touch(starting)
        running_after.flags.writeable = False
        self._running_sorted = running_after  # (the kernel's merge: running_jobs' array)

    def finish_job(self, j: int, now: float) -> None:
        """Job ``j`` completes at ``now``."""
        self.release(j)
        self.rows.drop(j)
        self._stop(j)
        self.status[j] = FINISHED
        self._finished_since += 1
        self.vt[j] = self.runtime[j]
        self.end[j] = now
        self.yields[j] = 0.0
        self.demand -= float(self.cpu[j] * self.tasks[j])
        if not self.running and not self.n_waiting:
            self.demand = 0.0

    def negligible(self) -> list[int]:
        """Running jobs whose remaining work is a rounding residue, in index order."""
        if not self.running:
            return []
        residue = kernel_module("dfrs_event_kernels").residue_kernel
        return residue(self.running_jobs(), self.runtime, self.vt).tolist()

    # ------------------------------------------------------------------ time
    def advance(self, now: float) -> None:
        """Progress every running job to ``now`` and integrate the underutilisation.

        One compiled pass over the running jobs (``dfrs_event_kernels.advance_kernel``,
        the same floating-point steps and sums as numpy's).
        """
        span = now - self.clock
        if span <= 0:
            return
        used = 0.0
        if self.running:
            jobs = self.running_jobs()
            useful = np.empty(jobs.size)
            used, given, overshoot = kernel_module("dfrs_event_kernels").advance_kernel(
                jobs, self.clock, now, self.penalty_until, self.yields, self.vt,
                self.runtime, self.cpu, self.tasks, useful,
            )
            if self.debug and overshoot:
                raise SimulationInvariantError(f"t={now}: a job progressed beyond its work")
            self.allocated_cpu_seconds += given
            self.penalty_cpu_seconds += given - used
            if self.segments is not None:
                y = self.yields[jobs]
                for j, u, yy in zip(jobs.tolist(), useful.tolist(), y.tolist(), strict=True):
                    self.segments.append((j, self.clock, now, yy, u))
        self.under += min(self.nodes, self.demand) * span - used
        self.clock = now

    def cpu_in_use(self, now: float) -> tuple[float, float]:
        """CPU allocated to running jobs, and the part not serving a penalty at ``now``.

        Both in nodes (the event's timeline rows).
        """
        if not self.running:
            return 0.0, 0.0
        return kernel_module("dfrs_event_kernels").cpu_in_use_kernel(
            self.running_jobs(), now, self.yields, self.cpu, self.tasks, self.penalty_until
        )


def check_view(state: DfrsState, view: tuple[np.ndarray, ...], now: float) -> None:
    """Raise ``SimulationInvariantError`` unless ``view`` (``state.active_view()``) holds
    the jobs in the system, by index, and exactly their virtual times, submission times,
    statuses and shapes (bit for bit: the priority keys computed from it must be the
    ones computed from the arrays).

    Parameters
    ----------
    state : DfrsState
        The simulation state.
    view : tuple of numpy.ndarray
        ``state.active_view()``: the active jobs, their virtual times, submission
        times, statuses and shapes.
    now : float
        The event's time (s), for the message.

    Raises
    ------
    SimulationInvariantError
        Naming the time, the first array that differs and a job where it does.

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[9, 9],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.1, 0.1])
    >>> s = DfrsState(w, penalty=0.0)
    >>> s.submit(0); s.submit(1)
    >>> view = s.active_view()
    >>> check_view(s, view, 0.0)
    >>> s.status[1] = 2  # (changed behind the state's back: the copy is stale)
    >>> check_view(s, view, 0.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    allockit.simulation.dfrs_rows.SimulationInvariantError: t=0.0: the active jobs' ... (job 1)
    """
    active = view[0]
    expected = np.flatnonzero((state.status == WAITING) | (state.status == RUNNING))
    if active.tolist() != expected.tolist():
        raise SimulationInvariantError(f"t={now}: the active jobs are not those in the system")
    if not active.size:
        return
    names = ("virtual times", "submission times", "statuses", "shapes")
    arrays = (state.vt, state.submit_time, state.status, state.shape)
    for name, copy, full in zip(names, view[1:], arrays, strict=True):
        differ = copy.view(np.uint8).reshape(active.size, -1) != (
            full[active].view(np.uint8).reshape(active.size, -1)
        )
        if differ.any():
            j = int(active[np.flatnonzero(differ.any(axis=1))[0]])
            raise SimulationInvariantError(
                f"t={now}: the active jobs' {name} differ from their copy (job {j})"
            )


def _add_in_order(total: float, values: np.ndarray) -> float:
    """``total + values[0] + values[1] + ...`` added left to right (as a loop of ``+=``).

    >>> _add_in_order(1.0, np.array([1e-16, 1e-16])) == (1.0 + 1e-16) + 1e-16
    True
    """
    if not values.size:
        return total
    return float(np.cumsum(np.concatenate([[total], values]))[-1])
