"""DFRS: online, non-clairvoyant dynamic fractional scheduling (Casanova et al. 2011, §4-5).

The driver of a discrete-event simulation of a homogeneous cluster. Each node's CPU is
one share (at most 100 % allocated) and its memory is never over-committed. A running
job has all its tasks placed and progresses at its yield (the same for all its tasks);
it completes when its progress equals its processing time. A job that is paused
(preempted) and later resumed, or migrated, makes no progress for ``penalty`` seconds
(default 300) after it resumes or moves; the schedulers do not know about the penalty.

The parts: the state and its bookkeeping (``dfrs_state.DfrsState``), the algorithm as a
``Policy`` of the fractional model (``dfrs_algorithm.DfrsAlgorithm``, the protocol of
``allockit.simulation.policy``: its hooks decide placements with ``dfrs_policies``'
Greedy family, MCB8 and MCB8-stretch, and give the yields for a fixed mapping with
``allocation``), and this driver on the event core (``events.EventQueue``), which runs
any fractional policy, a user's included. Events at one time run in the order
completions, submissions (by job index), the periodic tick. After every event the
policy's ``schedule`` hook runs and the yields are recomputed for the current mapping
(``opt=min``, ``opt=avg``; for ``/stretch-per`` ``opt=max`` or
``opt=avg`` on the stretch estimates up to the next tick) and each running job's
completion is predicted again; the earliest one is the completion event on the queue.
Times are exact floating-point event times (no time step). A policy of your own is held
to the platform: its mapping and yields are checked whenever they change
(``check_mapping``: memory, whole placements, each node's CPU); the built-in algorithms
are not re-checked (``debug=True`` checks every invariant after every event).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from allockit.constants import CAPACITY_TOL, MAX_PERIODS, MEM_EPS, PENALTY_SECONDS, PERIOD_SECONDS
from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload
from allockit.results import SimulationResult
from allockit.simulation.dfrs_algorithm import DfrsAlgorithm
from allockit.simulation.dfrs_checks import check_invariants
from allockit.simulation.dfrs_state import (
    FINISHED,
    RUNNING,
    DfrsState,
    SimulationInvariantError,
)
from allockit.simulation.events import Event, EventQueue
from allockit.simulation.names import AlgorithmName, parse_algorithm

__all__ = ["SimulationInvariantError", "check_mapping", "simulate_dfrs"]

_DONE, _SUBMIT, _TICK = 0, 1, 2


class _Driver:
    """One run: the event loop, the tick, and the per-event yield allocation.

    The decisions are the policy's (``dfrs_algorithm``): its hooks are called at every
    submission, completion and tick, and its ``yields`` after every event (a built-in
    algorithm's the same bits from the state's rows: ``DfrsAlgorithm._rows_yields``).
    """

    #: A built-in algorithm's yields read from the state's rows (``_rows_yields``): the
    #: bits of ``yields`` on the matrix of counts, which tests compare with it.
    yields_from_rows = True

    def __init__(
        self,
        workload: Workload,
        policy: Any,
        penalty: float,
        debug: bool,
        record: bool,
    ) -> None:
        self.policy = policy
        self.period = policy.period
        self.periodic = policy.period is not None
        self.time_dependent = bool(getattr(policy, "time_dependent", False))
        # a user's yields are checked (a subclass of DfrsAlgorithm with its own too); a
        # built-in algorithm's are read from the state's rows (DfrsAlgorithm._rows_yields)
        self.trusted = (
            isinstance(policy, DfrsAlgorithm)
            and type(policy).yields is DfrsAlgorithm.yields
            and type(policy)._rows_yields is DfrsAlgorithm._rows_yields
            and not {"yields", "_rows_yields"} & vars(policy).keys()  # (nor an instance's)
        )
        # a built-in algorithm (DfrsAlgorithm itself, its hooks not replaced) places jobs
        # within memory and gives yields within each node's CPU; any other policy's
        # mapping and yields are checked whenever they change (``check_mapping``)
        self.checked = not (
            type(policy) is DfrsAlgorithm and not _HOOKS & vars(policy).keys()
        )
        from allockit.simulation.dfrs_event_kernels import completion_kernel

        self._completion = completion_kernel
        self.debug = debug
        self.state = DfrsState(workload, penalty=penalty, debug=debug, record=record)
        self.events = EventQueue(start=self.state.clock)
        self.origin = self.state.clock
        self.next_done: Event | None = None  # the earliest predicted completion
        self.tick_pending = False
        self._yields_for = -1  # DfrsState.layout of the kept yields
        self._jobs = self._yields = np.zeros(0)
        self.next_tick = math.inf
        self.ticks = 0  # periods handled (capped at MAX_PERIODS)
        self.timeline: list[tuple[float, float, float]] = []
        self.progress_timeline: list[tuple[float, float]] = []
        start = getattr(policy, "start", None)
        if start is not None:
            start(self.state)
        self.hooks = {
            name: getattr(policy, name, None)
            for name in ("on_submit", "on_complete", "on_tick", "schedule")
        }

    # ------------------------------------------------------------------ handlers
    def on_submit(self, j: int, now: float) -> None:
        self.state.submit(j)
        self.push_tick(now)
        if self.hooks["on_submit"] is not None:
            self.hooks["on_submit"](self.state, j, now)

    def after_completion(self, j: int, now: float) -> None:
        if self.hooks["on_complete"] is not None:
            self.hooks["on_complete"](self.state, j, now)

    def on_tick(self, now: float) -> None:
        self.tick_pending = False
        if not self.state.running and not self.state.n_waiting:
            return
        self.ticks += 1
        if self.ticks > MAX_PERIODS:
            raise InvalidInputError(
                f"the simulation reached {MAX_PERIODS:,} periods of {self.period:g} s at "
                f"time {now:g} s (a backlog keeps jobs in the system far longer than their "
                "run times): use a longer period"
            )
        if self.hooks["on_tick"] is not None:
            self.hooks["on_tick"](self.state, now)
        self.push_tick(now)

    def push_tick(self, now: float) -> None:
        if self.periodic and not self.tick_pending:
            k = math.floor((now - self.origin) / self.period) + 1
            self.next_tick = self.origin + k * self.period
            while self.next_tick <= now:  # rounding put the next tick at now (or before):
                k += 1  # it would fire again at once, forever; a non-integer origin did
                self.next_tick = self.origin + k * self.period
            self.events.schedule(self.next_tick, _TICK, None, priority=(_TICK, 0))
            self.tick_pending = True

    def handle(self, event: Event) -> None:
        state, now = self.state, self.events.now
        if event.kind == _DONE:
            self.next_done = None
            if state.status[event.data] != RUNNING:  # pragma: no cover - kept up to date
                return
        state.advance(now)
        if event.kind == _DONE:
            state.finish_job(event.data, now)
            self.after_completion(event.data, now)
        elif event.kind == _SUBMIT:
            self.schedule_submit(event.data + 1)
            self.on_submit(event.data, now)
        else:
            self.on_tick(now)
        for j in state.negligible():
            state.finish_job(j, now)
            self.after_completion(j, now)
        if self.hooks["schedule"] is not None:
            self.hooks["schedule"](state, now)
        self.allocate(now)
        if self.debug:
            check_invariants(state, now)
        allocated, progressing = state.cpu_in_use(now)
        self.timeline.append((now, allocated, state.demand))
        self.progress_timeline.append((now, progressing))

    # ------------------------------------------------------------------ allocation
    def allocate(self, now: float) -> None:
        """Yields for the current mapping, then each job's predicted completion.

        Only the earliest completion is on the event queue (ties: the lowest job
        index, as the queue orders completions): the others would be rescheduled at
        nearly every event, and nothing can happen before the earliest one.
        """
        state = self.state
        if not state.running:
            self.expect_done(math.inf, -1)
            return
        if not self.time_dependent and self._yields_for == state.layout:
            jobs, y = self._jobs, self._yields  # same mapping: same yields
        else:
            jobs, y = self.yields(now)
        # the yields in, the earliest completion out (the first of equal minima: the
        # lowest index), in one compiled pass
        end, first = self._completion(
            jobs, y, now, state.penalty_until, state.runtime, state.vt, state.yields
        )
        self.expect_done(end, first)

    def expect_done(self, time: float, j: int) -> None:
        """Make job ``j``'s completion at ``time`` the one on the queue (none if inf)."""
        event = self.next_done
        if event is not None:
            if event.time == time and event.data == j:
                return
            self.events.cancel(event)
        self.next_done = (
            self.events.schedule(time, _DONE, j, priority=(_DONE, j)) if time < math.inf else None
        )

    def yields(self, now: float) -> tuple[np.ndarray, np.ndarray]:
        """The running jobs (by index) and the policy's yields for the current mapping.

        Unless the policy's yields are ``time_dependent`` (``/stretch-per``), they depend
        on the mapping alone: they are kept until it changes (``DfrsState.layout``).
        """
        state = self.state
        jobs = state.running_jobs()
        horizon = self.next_tick - now if self.tick_pending else (self.period or 0.0)
        horizon = max(horizon, 1e-9)  # seconds to the next tick (stretch estimates)
        counts = None
        if self.checked:  # (a user's policy: its mapping, then its yields, checked)
            counts = state.counts(jobs)
            check_mapping(self.policy, state, jobs, counts, None, now)
        if self.trusted and self.yields_from_rows:  # the same bits, from the state's rows
            try:
                y = self.policy._rows_yields(state, jobs, now, horizon)
            except ValueError:  # the rows' kernels refuse a job without a row
                if jobs.size and state.rows.slots(jobs).min() < 0:  # (a broken state)
                    raise SimulationInvariantError(
                        f"t={now}: a running job without a row"
                    ) from None
                raise  # (any other: as it came)
        else:
            given = state.counts(jobs) if counts is None else counts.copy()
            y = self.policy.yields(state, jobs, given, now, horizon)
            if not self.trusted:
                y = _checked_yields(self.policy, y, jobs.size, now)
                check_mapping(self.policy, state, jobs, counts, y, now)
        self._yields_for, self._jobs, self._yields = state.layout, jobs, y
        return jobs, y

    # ------------------------------------------------------------------ run
    def schedule_submit(self, j: int) -> None:
        """Put job ``j``'s submission on the queue (if there is a job ``j``).

        Submissions are queued one at a time, each when the previous one happens (jobs
        are in submission order): the queue holds the few pending events rather than
        every future job, and the order is the same ((time, kind, job) keys).
        """
        if j < self.state.n:
            t = float(self.state.submit_time[j])
            self.events.schedule(t, _SUBMIT, j, priority=(_SUBMIT, j))

    def run(self) -> None:
        state = self.state
        self.schedule_submit(0)
        self.events.run(self.handle)
        left = np.flatnonzero(state.status != FINISHED)
        if left.size and not isinstance(self.policy, DfrsAlgorithm):
            from allockit.simulation.policy import policy_name

            raise InvalidInputError(
                f"policy {policy_name(self.policy)!r} left {left.size} job(s) unfinished with "
                f"nothing left to happen (first: job {int(left[0])}, id "
                f"{int(state.w.ids[left[0]])})"
            )
        if left.size:  # pragma: no cover - every Table 1 policy eventually starts jobs
            raise SimulationInvariantError(
                f"{left.size} jobs never completed (first: {int(state.w.ids[left[0]])})"
            )


def _checked_yields(policy: Any, y: Any, n: int, now: float) -> np.ndarray:
    """A user policy's yields as a float array of ``n`` values in [0, 1], or an error.

    Integers and floats are taken (a yield up to 1e-9 above 1 is rounding, and is kept);
    booleans, strings, ragged lists and other objects are refused. A negative zero
    becomes +0.0.
    """
    from allockit.simulation.policy import policy_name

    try:
        raw = np.asarray(y)
    except (TypeError, ValueError):  # (a ragged sequence, on numpy's side)
        raw = np.asarray(None)
    if raw.dtype.kind not in "iuf":
        raise InvalidInputError(
            f"policy {policy_name(policy)!r}: yields must be numbers, one per running job "
            f"({n}) at time {now:g} s; got an array of {raw.dtype.name}"
        )
    out = raw.astype(float) + 0.0
    if out.shape != (n,):
        raise InvalidInputError(
            f"policy {policy_name(policy)!r}: yields must be one number per running job "
            f"({n}) at time {now:g} s; got shape {out.shape}"
        )
    bad = np.flatnonzero(~((out >= 0.0) & (out <= 1.0 + 1e-9)))
    if bad.size:
        raise InvalidInputError(
            f"policy {policy_name(policy)!r}: yields must be in [0, 1]; yields[{int(bad[0])}]"
            f" is {float(out[bad[0]])!r} at time {now:g} s"
        )
    return np.ascontiguousarray(out)


#: The hooks of a policy; a DfrsAlgorithm whose instance replaces one is a user's policy.
_HOOKS = frozenset(
    {"start", "on_submit", "on_complete", "on_tick", "schedule", "yields", "_rows_yields"}
)


def check_mapping(
    policy: Any,
    state: DfrsState,
    jobs: np.ndarray,
    counts: np.ndarray,
    y: np.ndarray | None,
    now: float,
) -> None:
    """Refuse a policy's mapping that over-commits a node's memory, or yields its CPU.

    The simulator checks a user's policy (not a built-in algorithm) with it whenever the
    mapping or the yields change: each running job has all its tasks placed (whole
    numbers of tasks, one row per node), no node's memory is over-committed and, given
    the yields ``y``, no node's CPU is over 100 % (both within ``CAPACITY_TOL``, as the
    debug checks). The sums are computed from the placements, not from the state's
    bookkeeping (which a policy could have skipped).

    Parameters
    ----------
    policy : Policy
        The policy, for the message.
    state : DfrsState
        The simulation state.
    jobs : numpy.ndarray
        The running jobs, by index.
    counts : numpy.ndarray, shape (len(jobs), nodes)
        Their tasks per node.
    y : numpy.ndarray or None
        Their yields (None: the memory and placements only).
    now : float
        The time (s), for the message.

    Raises
    ------
    InvalidInputError
        Naming the policy, the time, and the job or node (with its memory or CPU sum and
        the jobs on it).

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> from allockit.simulation.dfrs_algorithm import FractionalPolicy
    >>> w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0], runtime=[10, 10],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.6, 0.6])
    >>> s = DfrsState(w, penalty=0.0)
    >>> s.submit(0); s.submit(1)
    >>> s.start_job(0, np.array([0]), 0.0); s.start_job(1, np.array([1]), 0.0)
    >>> jobs = s.running_jobs()
    >>> check_mapping(FractionalPolicy(), s, jobs, s.counts(jobs), np.ones(2), 0.0)
    >>> s.pause_job(1); s.release(1); s.start_job(1, np.array([0]), 0.0)
    >>> check_mapping(FractionalPolicy(), s, jobs, s.counts(jobs), None, 5.0)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: policy 'FractionalPolicy' over-committed the memory \
of node 0 at time 5 s: 1.2 (jobs 0, 1 there); a node holds 1
    """
    from allockit.simulation.policy import policy_name

    who = f"policy {policy_name(policy)!r}"
    if not jobs.size:
        return
    whole = ((counts >= 0) & (counts == np.round(counts))).all(axis=1)
    whole &= counts.sum(axis=1) == state.tasks[jobs]
    if not whole.all():
        k = int(np.argmin(whole))
        j = int(jobs[k])
        raise InvalidInputError(
            f"{who} placed job {j} (id {int(state.w.ids[j])}) with {counts[k].tolist()} tasks "
            f"per node at time {now:g} s; it has {int(state.tasks[j])} task(s), each on a node"
        )

    def on(node: int) -> str:
        there = jobs[counts[:, node] > 0].tolist()
        shown = ", ".join(map(str, there[:5])) + (", ..." if len(there) > 5 else "")
        return f"(job{'s' if len(there) > 1 else ''} {shown} there)"

    mem = state.mem[jobs] @ counts
    over = np.flatnonzero(~(mem <= 1.0 + CAPACITY_TOL))
    if over.size:
        node = int(over[0])
        raise InvalidInputError(
            f"{who} over-committed the memory of node {node} at time {now:g} s: "
            f"{float(mem[node]):.6g} {on(node)}; a node holds 1"
        )
    if y is None:
        return
    cpu = (state.cpu[jobs] * y) @ counts
    over = np.flatnonzero(~(cpu <= 1.0 + CAPACITY_TOL))
    if over.size:
        node = int(over[0])
        raise InvalidInputError(
            f"{who}: the yields give node {node} a CPU load of {float(cpu[node]):.6g} at time "
            f"{now:g} s {on(node)}; a node has 1 (yield times CPU need, summed over its "
            "tasks)"
        )


def _busy_seconds(workload: Workload) -> float:
    """Length of the union of ``[submit, submit + runtime]``: time some job is surely there."""
    if workload.n_jobs == 0:
        return 0.0
    start = np.asarray(workload.submit, dtype=float)
    end = start + np.asarray(workload.runtime, dtype=float)
    order = np.argsort(start, kind="stable")
    start, end = start[order], np.maximum.accumulate(end[order])
    # a new busy stretch begins where a job starts after every earlier one has ended
    gap = np.maximum(0.0, start[1:] - end[:-1])
    return float(end[-1] - start[0] - gap.sum())


def _validate(
    workload: Workload, periodic: bool, penalty: float, period: float, hold: float | None
) -> None:
    if isinstance(penalty, bool) or not (
        isinstance(penalty, int | float) and math.isfinite(penalty) and penalty >= 0
    ):
        raise InvalidInputError(f"penalty must be a finite number >= 0; got {penalty!r}")
    if hold is not None and not (
        isinstance(hold, int | float) and not isinstance(hold, bool) and math.isfinite(hold)
        and hold >= 0
    ):
        raise InvalidInputError(f"hold must be a finite number >= 0 or None; got {hold!r}")
    if isinstance(period, bool) or not (
        isinstance(period, int | float) and math.isfinite(period) and period > 0
    ):
        raise InvalidInputError(f"period must be a finite number > 0; got {period!r}")
    if periodic:
        busy = _busy_seconds(workload)
        if busy / period > MAX_PERIODS:
            raise InvalidInputError(
                f"period {period:g} s: jobs are in the system for at least {busy:g} s, "
                f"which is more than {MAX_PERIODS:,} periods; use a period of at least "
                f"{busy / MAX_PERIODS:.3g} s"
            )
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


def _load_kernels(names: tuple[str, ...]) -> float:
    """Load the named numba kernels a policy calls; the seconds (0 if loaded)."""
    import sys

    from allockit.heuristics import common

    fresh = "allockit.simulation.dfrs_kernels" not in sys.modules
    started = time.perf_counter()
    import allockit.simulation.allocation_kernels
    import allockit.simulation.dfrs_event_kernels
    import allockit.simulation.dfrs_kernels  # noqa: F401 - registers their warm-up inputs

    imported = time.perf_counter() - started if fresh else 0.0
    return imported + common.load_kernels(*_EVENT_KERNELS, *names)


#: The kernels the driver and the state call at every event, whatever the policy.
_EVENT_KERNELS = (
    "advance_kernel", "residue_kernel", "completion_kernel", "cpu_in_use_kernel", "fits_kernel",
    "view_sync_kernel", "view_vt_kernel", "index_rows_kernel",
)


def simulate_dfrs(
    workload: Workload,
    algorithm: str | AlgorithmName | Any,
    *,
    penalty: float = PENALTY_SECONDS,
    period: float = PERIOD_SECONDS,
    debug: bool = False,
    record: bool = False,
    hold: float | None = None,
) -> SimulationResult:
    """Simulate a DFRS algorithm (named as in Table 1 of the paper) on ``workload``.

    Parameters
    ----------
    workload : Workload
        Jobs in submission order and the cluster (``platform.nodes`` nodes).
    algorithm : str, AlgorithmName or Policy
        e.g. ``"GreedyPM */per/opt=min/minvt=600"`` (see ``parse_algorithm``), or a
        policy of the fractional model (``dfrs_algorithm.FractionalPolicy``, a user's;
        its ``period`` replaces ``period``, and ``hold`` is the policy's business).
    penalty : float
        Rescheduling penalty in seconds (no progress after a resume or a migration).
    period : float
        Period of ``/per`` and ``/stretch-per`` in seconds.
    debug : bool
        Check memory, CPU and progress invariants after every event (slower).
    record : bool
        Keep the progress segments in ``result.extra["segments"]`` (for tests).
        ``result.extra["mcb8_calls"]`` always holds one row per MCB8 (or MCB8-stretch)
        call: the number of jobs it considered and its run time in seconds (the
        packing kernels are loaded before the clock starts, so the first call does not
        carry that one-time cost; it is the summary's ``setup_seconds``);
        ``result.extra["progress_timeline"]`` one row per event: the time and the CPU (in
        nodes) allocated to running jobs that are not serving a penalty. The summary
        gains ``allocated_cpu_seconds``, ``penalty_cpu_seconds`` (CPU given to jobs
        serving a penalty, node-seconds) and ``progress_share`` (the share of allocated
        CPU that made progress): thrashing shows as a low share.

    hold : float, optional
        Not in the paper (None, the default, is the paper's rule): a job started,
        resumed or migrated less than ``hold`` seconds ago is neither paused nor moved by
        MCB8 remaps. Stops the thrashing of periodic MCB8 under overload.

    Returns
    -------
    SimulationResult

    Raises
    ------
    InvalidInputError
        For a bad name or policy, penalty, period or hold, a job that cannot fit the empty
        cluster, or a period that needs more than ``MAX_PERIODS`` (10 million) remaps:
        refused before the run when the time jobs surely spend in the system already
        needs more, and the run stops if a backlog makes it reach the cap. For a policy
        of your own (not a built-in algorithm), whenever its mapping or yields change:
        a node's memory over-committed, a job not fully placed, or yields that load a
        node's CPU over 100 % (``check_mapping``, always on, without ``debug``).
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
    if isinstance(algorithm, str | AlgorithmName):
        name = algorithm if isinstance(algorithm, AlgorithmName) else parse_algorithm(algorithm)
        if name.batch:
            raise InvalidInputError(f"{name.batch} is a batch algorithm: use simulate_batch")
        _validate(workload, bool(name.periodic), penalty, period, hold)
        policy: Any = DfrsAlgorithm(
            name, period=float(period), hold=None if hold is None else float(hold)
        )
        setup = _load_kernels(policy.kernels())
    else:
        if isinstance(algorithm, type) or not (
            callable(getattr(algorithm, "yields", None)) and hasattr(algorithm, "period")
        ):
            raise InvalidInputError(
                "algorithm must be a name (e.g. 'GreedyPM */per/opt=min'), an AlgorithmName or "
                "a fractional policy instance (with `period` and a `yields` method, e.g. a "
                f"FractionalPolicy subclass); got {algorithm!r}"
            )
        policy = algorithm
        period = policy.period if policy.period is not None else period
        _validate(workload, policy.period is not None, penalty, period, hold)
        kernels = getattr(policy, "kernels", None)
        setup = _load_kernels(tuple(kernels()) if kernels is not None else ())
    started = time.perf_counter()
    driver = _Driver(workload, policy, float(penalty), debug, record)
    driver.run()
    state = driver.state
    from allockit.simulation.policy import policy_name

    return SimulationResult.from_schedule(
        workload,
        policy_name(policy),
        state.start,
        state.end,
        underutilization=state.under,
        seconds=time.perf_counter() - started,
        job_preemptions=state.n_preempt,
        job_migrations=state.n_migrate,
        preemption_bytes=state.bytes_preempt,
        migration_bytes=state.bytes_migrate,
        timeline=np.array(driver.timeline, dtype=float).reshape(-1, 3),
        extra={
            "mcb8_calls": np.array(
                getattr(policy, "mcb8_calls", []), dtype=float
            ).reshape(-1, 2),
            "progress_timeline": np.array(driver.progress_timeline, dtype=float).reshape(-1, 2),
            "job_resumes": state.n_resume,
            "job_resumes_elsewhere": state.n_resume_elsewhere,
            "summary_resumes": int(state.n_resume.sum()),
            "summary_resumes_elsewhere": int(state.n_resume_elsewhere.sum()),
            "summary_task_preemptions": state.task_preemptions,
            "summary_task_migrations": state.task_migrations,
            "summary_allocated_cpu_seconds": state.allocated_cpu_seconds,
            "summary_setup_seconds": setup,
            "summary_penalty_cpu_seconds": state.penalty_cpu_seconds,
            "summary_progress_share": (
                1.0 - state.penalty_cpu_seconds / state.allocated_cpu_seconds
                if state.allocated_cpu_seconds > 0
                else 1.0
            ),
            **({"segments": state.segments} if state.segments is not None else {}),
        },
    )
