"""Batch scheduling baselines for the DFRS experiments: FCFS and EASY backfilling.

Casanova, Stillwell, Vivien (2011), Sec. 5.2. Batch schedulers give a job its resources
exclusively for its whole run (no preemption): one node per task by default, or
``tasks * cpu * cores`` cores with ``unit="cores"`` (a sequential task then takes one
core; for the HPC2N conversion this is the trace's processor count). A job runs for
exactly its processing time. Events (submissions, completions) run on the event core
(``allockit.simulation.events``) with priority ``(kind, job)`` so ties break
deterministically: completions before submissions at the same instant, and all events
of one instant are handled before the scheduler runs.
"""

from __future__ import annotations

import math
import time

import numpy as np

from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload
from allockit.simulation.events import EventQueue
from allockit.simulation.metrics import batch_timeline, underutilization
from allockit.simulation.result import SimulationResult

__all__ = ["simulate_batch"]

_DONE, _SUBMIT = 0, 1


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
    if backfill_depth is not None and (
        isinstance(backfill_depth, bool) or not isinstance(backfill_depth, int)
        or backfill_depth < 0
    ):
        raise InvalidInputError(
            f"backfill_depth must be an integer >= 0 or None; got {backfill_depth!r}"
        )
    depth = None if backfill_depth is None else backfill_depth + 1
    if unit == "nodes":
        cores = workload.platform.nodes
        width = workload.tasks.astype(np.int64)
    else:
        cores = workload.platform.nodes * workload.platform.cores
        width = np.maximum(1, np.rint(workload.tasks * workload.cpu * workload.platform.cores))
        width = width.astype(np.int64)
    too_big = np.flatnonzero(width > cores)
    if too_big.size:
        k = int(too_big[0])
        raise InvalidInputError(
            f"job {int(workload.ids[k])} needs {int(width[k])} {unit}; the platform has {cores}"
        )
    started = time.perf_counter()
    n = workload.n_jobs
    runtime = workload.runtime
    guess = runtime.copy()
    if estimates:
        guess = np.where(np.isfinite(workload.requested_time), workload.requested_time, runtime)
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    events = EventQueue(start=float(workload.submit[0]) if n else 0.0)
    for k in range(n):
        events.schedule(float(workload.submit[k]), _SUBMIT, k, priority=(_SUBMIT, k))
    free = cores
    queue: list[int] = []
    running: dict[int, float] = {}  # job -> expected end (scheduler's view)

    def launch(k: int, now: float) -> None:
        nonlocal free
        start[k] = now
        end[k] = now + runtime[k]
        free -= int(width[k])
        running[k] = max(now + guess[k], now)
        events.schedule(float(end[k]), _DONE, k, priority=(_DONE, k))

    while events:
        for event in events.pop_simultaneous():
            k = event.data
            if event.kind == _DONE:
                free += int(width[k])
                del running[k]
            else:
                queue.append(k)
        now = events.now
        # first come, first served
        while queue and width[queue[0]] <= free:
            launch(queue.pop(0), now)
        if algorithm == "fcfs" or not queue:
            continue
        # EASY: reserve for the head, backfill what does not delay it
        head = queue[0]
        need = int(width[head])
        avail = free
        shadow = math.inf
        for k, expected in sorted(running.items(), key=lambda kv: (max(kv[1], now), kv[0])):
            avail += int(width[k])
            if avail >= need:
                shadow = max(expected, now)
                break
        extra = avail - need
        for k in list(queue[1:depth]):
            size = int(width[k])
            if size > free:
                continue
            if now + guess[k] <= shadow:
                queue.remove(k)
                launch(k, now)
            elif size <= extra:
                queue.remove(k)
                launch(k, now)
                extra -= size
    return SimulationResult.from_schedule(
        workload,
        algorithm,
        start,
        end,
        underutilization=underutilization(workload, start, end),
        seconds=time.perf_counter() - started,
        timeline=batch_timeline(workload, start, end),
    )
