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

from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload
from allockit.results import SimulationResult
from allockit.simulation.events import EventQueue
from allockit.simulation.metrics import batch_timeline, underutilization
from allockit.simulation.policy import BasePolicy, BatchCluster, policy_name

__all__ = ["EASY", "FCFS", "run_batch", "simulate_batch"]

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
        for k in list(queue[1:depth]):
            size = int(width[k])
            if size > cluster.free:
                continue
            if now + estimate[k] <= shadow:
                cluster.start(k)
            elif size <= extra:
                cluster.start(k)
                extra -= size


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
        ``period``, a policy that starts a job that is not waiting or does not fit, or
        one that leaves jobs waiting on an idle platform with nothing left to happen
        (naming the first such job).

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=2), submit=[0, 1, 2], runtime=[100, 100, 50],
    ...                        tasks=[1, 2, 1], cpu=[1, 1, 1], mem=[0.1, 0.1, 0.1])
    >>> run_batch(w, EASY()).start.tolist()
    [0.0, 100.0, 2.0]
    """
    cluster = BatchCluster(workload, unit, estimates=estimates)
    period = getattr(policy, "period", None)
    if period is not None and not (
        isinstance(period, int | float) and not isinstance(period, bool)
        and math.isfinite(period) and period > 0
    ):
        raise InvalidInputError(f"policy period must be a number of seconds > 0; got {period!r}")
    label = name or policy_name(policy)
    started = time.perf_counter()
    n = workload.n_jobs
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
    origin = cluster.now
    starts = cluster._starts
    while events:
        batch = events.pop_simultaneous()
        now = events.now
        cluster.now = now
        for event in batch:
            k = event.data
            if event.kind == _DONE:
                cluster.free += int(cluster.width[k])
                del cluster.running[k]
                if hook["on_complete"] is not None:
                    hook["on_complete"](cluster, k, now)
            elif event.kind == _SUBMIT:
                submitted += 1
                cluster.enqueue(k)
                if hook["on_submit"] is not None:
                    hook["on_submit"](cluster, k, now)
            else:
                tick_pending = False
                if hook["on_tick"] is not None and (cluster.queue or cluster.running):
                    hook["on_tick"](cluster, now)
        schedule(cluster, now)
        for k in starts:
            events.schedule(float(cluster.end_time[k]), _DONE, k, priority=(_DONE, k))
        starts.clear()
        if period and not tick_pending and (cluster.queue or cluster.running or submitted < n):
            tick = origin + (math.floor((now - origin) / period) + 1) * period
            events.schedule(tick, _TICK, None, priority=(_TICK, 0))
            tick_pending = True
    if cluster.queue:
        k = cluster.queue[0]
        raise InvalidInputError(
            f"policy {label!r} left {len(cluster.queue)} job(s) waiting on an idle platform "
            f"with nothing left to happen (first: job {k}, id {int(workload.ids[k])})"
        )
    start, end = cluster.start_time, cluster.end_time
    return SimulationResult.from_schedule(
        workload,
        label,
        start,
        end,
        underutilization=underutilization(workload, start, end),
        seconds=time.perf_counter() - started,
        timeline=batch_timeline(workload, start, end),
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
