"""Batch scheduling baselines for the DFRS experiments: FCFS and EASY backfilling.

Casanova, Stillwell, Vivien (2011), Sec. 5.2. Batch schedulers give a job its resources
exclusively for its whole run (no preemption): one node per task by default, or
``tasks * cpu * cores`` cores with ``unit="cores"`` (a sequential task then takes one
core; for the HPC2N conversion this is the trace's processor count). A job runs for
exactly its processing time.

FCFS and EASY are policies (``allockit.simulation.policy.Policy``) run by
``run_batch``, the batch simulator every batch policy runs on, a user's included.
Events (submissions, completions, the policy's ticks) run on the event core
(``allockit.simulation.events``) with priority ``(kind, job)`` so ties break
deterministically: completions before submissions at the same instant, the tick last,
and all events of one instant are handled before the policy's ``schedule`` runs.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from allockit.constants import MAX_PERIODS
from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload
from allockit.results import SimulationResult
from allockit.simulation.events import EventQueue
from allockit.simulation.metrics import batch_timeline, underutilization
from allockit.simulation.policy import BasePolicy, BatchCluster, policy_name

__all__ = ["EASY", "FCFS", "check_schedule", "run_batch", "simulate_batch"]

_DONE, _SUBMIT, _TICK = 0, 1, 2


class FCFS(BasePolicy):
    """First come, first served: start waiting jobs strictly in submission order.

    Examples
    --------
    >>> FCFS().name, FCFS().model
    ('fcfs', 'batch')
    """

    name = "fcfs"

    def schedule(self, cluster: BatchCluster, now: float) -> None:
        """Start the head of the queue while it fits."""
        queue = cluster.queue
        while queue and cluster.width[queue[0]] <= cluster.free:
            cluster.start(queue[0])


class EASY(FCFS):
    """EASY backfilling (Lifka): FCFS, then later jobs that do not delay the head's start.

    The head of the queue gets a reservation at the *shadow* time (when enough running
    jobs are expected to have ended, ``BatchCluster.reservation``); a later job starts
    now if it fits and either is expected to end by the shadow time or uses only the
    units the head will not need then.

    Parameters
    ----------
    backfill_depth : int, optional
        How many queued jobs after the head are tried at each pass (like Slurm's
        ``bf_max_job_test``); None (default) tries them all (Lifka's EASY); 0 is FCFS.

    Raises
    ------
    InvalidInputError
        For a depth that is not an integer >= 0.

    Examples
    --------
    >>> EASY(backfill_depth=2).backfill_depth, EASY().name
    (2, 'easy')
    >>> EASY(backfill_depth=-1)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: backfill_depth must be an integer >= 0 or None; got -1
    """

    name = "easy"

    def __init__(self, backfill_depth: int | None = None) -> None:
        if backfill_depth is not None and (
            isinstance(backfill_depth, bool)
            or not isinstance(backfill_depth, int | np.integer)
            or backfill_depth < 0
        ):
            raise InvalidInputError(
                f"backfill_depth must be an integer >= 0 or None; got {backfill_depth!r}"
            )
        self.backfill_depth = None if backfill_depth is None else int(backfill_depth)

    def schedule(self, cluster: BatchCluster, now: float) -> None:
        """FCFS, then backfill behind the head's reservation."""
        super().schedule(cluster, now)
        queue = cluster.queue
        if not queue:
            return
        shadow, extra = cluster.reservation(queue[0])
        depth = None if self.backfill_depth is None else self.backfill_depth + 1
        width, estimate = cluster.width, cluster.estimate
        free = cluster.free  # (kept here: each start takes its units)
        for k in list(queue[1:depth]):
            size = int(width[k])
            if size > free:
                continue
            if now + estimate[k] <= shadow:
                cluster.start(k)
                free -= size
            elif size <= extra:
                cluster.start(k)
                extra -= size
                free -= size


def run_batch(
    workload: Workload,
    policy: Any,
    *,
    estimates: bool = False,
    unit: str = "nodes",
    name: str | None = None,
) -> SimulationResult:
    """Run a batch policy (built-in or the user's) over ``workload`` on the event core.

    Parameters
    ----------
    workload : Workload
        Jobs in submission order and the platform.
    policy : Policy
        An object with ``schedule(cluster, now)`` and optionally ``start``,
        ``on_submit``, ``on_complete``, ``on_tick`` and ``period``
        (``allockit.simulation.policy``); it gets a ``BatchCluster``.
    estimates : bool
        The policy's view of running times (``BatchCluster.estimate``): False (default)
        the true processing times (the paper's setting); True the requested times
        (``requested_time``; a job without one is assumed to end at its true time).
    unit : {"nodes", "cores"}
        What a job holds: one whole node per task (default) or ``tasks * cpu * cores``
        cores.
    name : str, optional
        The result's ``algorithm`` (default: the policy's ``name``, else its class name).

    Returns
    -------
    SimulationResult
        Per-job start and end times, stretches, underutilisation and the utilisation
        timeline, as for every simulator.

    Raises
    ------
    InvalidInputError
        For an unknown unit, a job needing more units than the platform has, a bad
        ``period`` (or one giving more than ``MAX_PERIODS`` ticks: refused before the
        run when the jobs' submission and run times already need more, and the run
        stops when it reaches the cap), a policy that starts a job that is not an
        integer index, not waiting or does not fit, that writes ``free`` or the start
        and end times or changes ``queue`` or ``running`` itself, or one that leaves
        jobs waiting on an idle platform with nothing left to happen (naming the policy
        and the first such job); and, should a policy get past these, for a finished
        schedule that ``check_schedule`` refuses.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=2), submit=[0, 1, 2], runtime=[100, 100, 50],
    ...                        tasks=[1, 2, 1], cpu=[1, 1, 1], mem=[0.1, 0.1, 0.1])
    >>> run_batch(w, EASY()).start.tolist()
    [0.0, 100.0, 2.0]
    """
    label = name or policy_name(policy)
    cluster = BatchCluster(workload, unit, estimates=estimates, name=label)
    period = getattr(policy, "period", None)
    if period is not None and not (
        isinstance(period, int | float) and not isinstance(period, bool)
        and math.isfinite(period) and period > 0
    ):
        raise InvalidInputError(f"policy period must be a number of seconds > 0; got {period!r}")
    n = workload.n_jobs
    if period and n:
        # ticks run from the first submission while jobs are in the system: at least
        # until every job could have ended had it started when submitted
        span = float(np.max(workload.submit + workload.runtime) - workload.submit[0])
        if span / period > MAX_PERIODS:
            raise InvalidInputError(
                f"policy {label!r}: period {period:g} s: jobs are in the system for at least "
                f"{span:g} s, which is more than {MAX_PERIODS:,} periods; use a period of at "
                f"least {span / MAX_PERIODS:.3g} s"
            )
    started = time.perf_counter()
    events = EventQueue(start=cluster.now)
    for k in range(n):
        events.schedule(float(workload.submit[k]), _SUBMIT, k, priority=(_SUBMIT, k))
    hook = {
        name: getattr(policy, name, None)
        for name in ("start", "on_submit", "on_complete", "on_tick")
    }
    schedule = policy.schedule
    if hook["start"] is not None:
        hook["start"](cluster)
    submitted = 0
    tick_pending = False
    ticks = 0
    origin = cluster.now
    starts = cluster._starts
    ends = cluster._end
    while events:
        batch = events.pop_simultaneous()
        now = events.now
        cluster.now = now
        for event in batch:
            k = event.data
            if event.kind == _DONE:
                cluster._finish(k, now)
                if hook["on_complete"] is not None:
                    hook["on_complete"](cluster, k, now)
            elif event.kind == _SUBMIT:
                submitted += 1
                cluster.enqueue(k)
                if hook["on_submit"] is not None:
                    hook["on_submit"](cluster, k, now)
            else:
                tick_pending = False
                ticks += 1
                if ticks > MAX_PERIODS:
                    raise InvalidInputError(
                        f"policy {label!r}: the simulation reached {MAX_PERIODS:,} periods of "
                        f"{period:g} s at time {now:g} s (jobs stay in the system far longer "
                        "than their run times): use a longer period"
                    )
                if hook["on_tick"] is not None and (cluster.queue or cluster.running):
                    hook["on_tick"](cluster, now)
        schedule(cluster, now)
        cluster._check(now)
        for k in starts:
            events.schedule(float(ends[k]), _DONE, k, priority=(_DONE, k))
        starts.clear()
        if period and not tick_pending and (cluster.queue or cluster.running or submitted < n):
            k = math.floor((now - origin) / period) + 1
            tick = origin + k * period
            while tick <= now:  # rounding put it at now: it would fire there forever
                k += 1
                tick = origin + k * period
            events.schedule(tick, _TICK, None, priority=(_TICK, 0))
            tick_pending = True
    left = np.flatnonzero(np.isnan(cluster._start))
    if left.size:
        k = int(left[0])
        raise InvalidInputError(
            f"policy {label!r} left {left.size} job(s) waiting on an idle platform "
            f"with nothing left to happen (first: job {k}, id {int(workload.ids[k])})"
        )
    start, end = cluster._start.copy(), cluster._end.copy()
    check_schedule(workload, start, end, cluster.width, cluster.capacity, name=label,
                   unit=unit)
    return SimulationResult.from_schedule(
        workload,
        label,
        start,
        end,
        underutilization=underutilization(workload, start, end),
        seconds=time.perf_counter() - started,
        timeline=batch_timeline(workload, start, end),
    )


def check_schedule(
    workload: Workload,
    start: np.ndarray,
    end: np.ndarray,
    width: np.ndarray,
    capacity: int,
    *,
    name: str = "policy",
    unit: str = "nodes",
) -> None:
    """Refuse a batch schedule no platform of ``capacity`` units can run.

    Every job starts once, at a finite time no earlier than its submission, and ends
    exactly its run time later (up to float rounding); at no time do the running jobs
    hold more than ``capacity`` units. The last is one sweep over the starts and ends
    in time order (an end before a start at the same time: the units of a job that ends
    at ``t`` can be given to one that starts at ``t``), O(n log n). ``run_batch`` checks
    every schedule with it, a user policy's as the built-ins'.

    Parameters
    ----------
    workload : Workload
        The jobs (submission and run times, ids for the message).
    start, end : numpy.ndarray
        Each job's start and end (s).
    width : numpy.ndarray of int
        Units each job holds while it runs.
    capacity : int
        Units of the platform.
    name : str, default "policy"
        The policy's name, for the message.
    unit : str, default "nodes"
        The units' name, for the message.

    Raises
    ------
    InvalidInputError
        Naming the policy and the first violation: the job (index and id), the time,
        and for an over-allocation the units in use and the platform's.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0], runtime=[10, 10],
    ...                        tasks=[2, 1], cpu=[1, 1], mem=[0.1, 0.1])
    >>> check_schedule(w, np.array([0.0, 10.0]), np.array([10.0, 20.0]), w.tasks, 2)
    >>> check_schedule(w, np.array([0.0, 5.0]), np.array([10.0, 15.0]), w.tasks, 2,
    ...                name="mine")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: policy 'mine' over-allocated the platform: at 5 s \
job 1 (id 2) starts with 3 nodes in use; the platform has 2
    """
    n = workload.n_jobs
    start = np.asarray(start, dtype=float)
    end = np.asarray(end, dtype=float)
    who = f"policy {name!r}"

    def job(k: int) -> str:
        return f"job {k} (id {int(workload.ids[k])})"

    bad = np.flatnonzero(~np.isfinite(start) | ~np.isfinite(end))
    if bad.size:
        k = int(bad[0])
        raise InvalidInputError(
            f"{who}: {job(k)} has start {float(start[k])!r} and end {float(end[k])!r} (every "
            "job must start once)"
        )
    early = np.flatnonzero(start < workload.submit)
    if early.size:
        k = int(early[0])
        raise InvalidInputError(
            f"{who} started {job(k)} at {start[k]:g} s, before its submission at "
            f"{workload.submit[k]:g} s"
        )
    runtime = workload.runtime
    want = start + runtime
    off = np.flatnonzero(np.abs(end - want) > 1e-9 * np.maximum(1.0, np.abs(want)))
    if off.size:
        k = int(off[0])
        raise InvalidInputError(
            f"{who}: {job(k)} started at {start[k]:g} s and ended at {end[k]:g} s, not after "
            f"its run time of {runtime[k]:g} s"
        )
    if not n:
        return
    # the sweep: ends (-width) before starts (+width) at the same time, then by job
    times = np.concatenate([end, start])
    kind = np.repeat(np.array([0, 1], dtype=np.int8), n)
    size = np.asarray(width, dtype=np.int64)
    delta = np.concatenate([-size, size])
    order = np.lexsort((np.tile(np.arange(n), 2), kind, times))
    in_use = np.cumsum(delta[order])
    over = np.flatnonzero(in_use > capacity)
    if over.size:
        at = int(order[over[0]])
        k = at - n  # (the first unit too many comes with a start)
        raise InvalidInputError(
            f"{who} over-allocated the platform: at {start[k]:g} s {job(k)} starts with "
            f"{int(in_use[over[0]])} {unit} in use; the platform has {capacity}"
        )


def simulate_batch(
    workload: Workload,
    *,
    algorithm: str = "easy",
    estimates: bool = False,
    unit: str = "nodes",
    backfill_depth: int | None = None,
) -> SimulationResult:
    """Run FCFS or EASY backfilling on ``workload``.

    Parameters
    ----------
    workload : Workload
    algorithm : {"fcfs", "easy"}
        FCFS starts queued jobs strictly in order. EASY also starts later jobs when they
        do not delay the reservation of the first queued job (Lifka's EASY).
    estimates : bool
        EASY's view of running times: False (default) uses the true processing times
        (the paper's setting); True uses the requested times (``requested_time``; a job
        without one, or that overruns it, is assumed to end at its true time).
    unit : {"nodes", "cores"}
        What a job is given: one whole node per task (default, as the paper's batch
        schedulers "assign jobs to nodes"; a sequential task leaves its node's other
        cores idle), or ``tasks * cpu * cores`` cores. With nodes, EASY over the whole
        HPC2N trace has the paper's normalised underutilisation (7.8 %; paper: 8 %),
        with cores 1.4 % (``benchmarks/dfrs_full_hpc2n.py``).
    backfill_depth : int, optional
        EASY only: how many queued jobs after the head are tried for backfilling at
        each scheduling pass (like Slurm's ``bf_max_job_test``); None (default) tries
        them all (Lifka's EASY).

    Returns
    -------
    SimulationResult

    Raises
    ------
    InvalidInputError
        For an unknown algorithm, unit or backfill depth, or a job needing more nodes than
        the platform has.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=2), submit=[0, 1, 2], runtime=[100, 100, 50],
    ...                        tasks=[1, 2, 1], cpu=[1, 1, 1], mem=[0.1, 0.1, 0.1])
    >>> simulate_batch(w, algorithm="fcfs").start.tolist()
    [0.0, 100.0, 200.0]
    >>> simulate_batch(w, algorithm="easy").start.tolist()
    [0.0, 100.0, 2.0]
    """
    if algorithm not in ("fcfs", "easy"):
        raise InvalidInputError(f"algorithm must be 'fcfs' or 'easy'; got {algorithm!r}")
    if unit not in ("cores", "nodes"):
        raise InvalidInputError(f"unit must be 'cores' or 'nodes'; got {unit!r}")
    policy = FCFS() if algorithm == "fcfs" else EASY(backfill_depth)
    if algorithm == "fcfs" and backfill_depth is not None:
        EASY(backfill_depth)  # checked all the same
    return run_batch(workload, policy, estimates=estimates, unit=unit, name=algorithm)
