"""Batch scheduling baselines for the DFRS experiments: FCFS and EASY backfilling.

Casanova, Stillwell, Vivien (2011), Sec. 5.2. Batch schedulers give a job its resources
exclusively for its whole run (no preemption): one node per task by default, or
``tasks * cpu * cores`` cores with ``unit="cores"`` (a sequential task then takes one
core; for the HPC2N conversion this is the trace's processor count). A job runs for
exactly its processing time. Events (submissions, completions) sit on a heap
ordered by ``(time, kind, sequence)`` so ties break deterministically: completions
before submissions at the same instant.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from allockit.constants import TAU
from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload

__all__ = ["SimulationResult", "bounded_stretch", "simulate_batch"]

_DONE, _SUBMIT = 0, 1


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """Per-job start/end times and the summary metrics of a simulated schedule.

    ``start`` is the first time a job ran, ``end`` its completion. ``job_preemptions`` /
    ``job_migrations`` count per job, ``preemption_bytes`` / ``migration_bytes`` the
    memory-image traffic they caused (``bytes_moved`` is the sum), and ``timeline`` has
    one row per event: ``(time, allocated CPU, CPU demand)`` in node units.
    """

    algorithm: str
    ids: np.ndarray
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    runtime: np.ndarray
    stretch: np.ndarray
    underutilization: float
    normalized_underutilization: float
    preemptions: int
    migrations: int
    seconds: float
    job_preemptions: np.ndarray | None = None
    job_migrations: np.ndarray | None = None
    preemption_bytes: float = 0.0
    migration_bytes: float = 0.0
    timeline: np.ndarray | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_schedule(
        cls,
        workload: Workload,
        algorithm: str,
        start: np.ndarray,
        end: np.ndarray,
        *,
        underutilization: float,
        seconds: float,
        job_preemptions: np.ndarray | None = None,
        job_migrations: np.ndarray | None = None,
        **more: Any,
    ) -> SimulationResult:
        """The result of a finished schedule: stretches, normalisation and totals derived."""
        zeros = np.zeros(workload.n_jobs, dtype=np.int64)
        job_preemptions = zeros if job_preemptions is None else job_preemptions
        job_migrations = zeros if job_migrations is None else job_migrations
        total = float(workload.work().sum())
        return cls(
            algorithm=algorithm,
            ids=workload.ids,
            submit=workload.submit,
            start=start,
            end=end,
            runtime=workload.runtime,
            stretch=bounded_stretch(workload.submit, end, workload.runtime),
            underutilization=underutilization,
            normalized_underutilization=underutilization / total if total > 0 else 0.0,
            preemptions=int(job_preemptions.sum()),
            migrations=int(job_migrations.sum()),
            seconds=seconds,
            job_preemptions=job_preemptions,
            job_migrations=job_migrations,
            **more,
        )

    @property
    def max_stretch(self) -> float:
        """Largest bounded stretch."""
        return float(self.stretch.max())

    @property
    def mean_stretch(self) -> float:
        """Mean bounded stretch."""
        return float(self.stretch.mean())

    @property
    def makespan(self) -> float:
        """Last completion minus first submission."""
        return float(self.end.max() - self.submit.min())

    @property
    def bytes_moved(self) -> float:
        """Memory-image traffic of preemptions and migrations, in bytes."""
        return self.preemption_bytes + self.migration_bytes

    @property
    def turnaround(self) -> np.ndarray:
        """Completion minus submission, per job."""
        return self.end - self.submit

    def costs(self) -> dict[str, float]:
        """Preemption and migration costs as in Table 3 of the paper.

        Per hour of schedule (the makespan), per job, and the bandwidth their memory
        images use in bytes per second.

        Examples
        --------
        >>> from allockit.instances.workload import Platform, Workload
        >>> from allockit.simulation.dfrs import simulate_dfrs
        >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 10], runtime=[3600, 50],
        ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.6, 0.6])
        >>> r = simulate_dfrs(w, "GreedyP *")  # the second job preempts the first once
        >>> c = r.costs()
        >>> r.preemptions, c["preemptions_per_job"], round(c["preemptions_per_hour"], 3)
        (1, 0.5, 0.911)
        """
        hours = self.makespan / 3600.0 if self.makespan > 0 else math.inf
        jobs = max(1, int(self.ids.size))
        return {
            "preemptions_per_hour": self.preemptions / hours,
            "migrations_per_hour": self.migrations / hours,
            "preemptions_per_job": self.preemptions / jobs,
            "migrations_per_job": self.migrations / jobs,
            "bandwidth_bytes_per_s": self.bytes_moved / (hours * 3600.0),
            "preemption_bandwidth_bytes_per_s": self.preemption_bytes / (hours * 3600.0),
            "migration_bandwidth_bytes_per_s": self.migration_bytes / (hours * 3600.0),
        }

    def summary(self) -> dict[str, Any]:
        """The JSON summary printed by ``allockit simulate``."""
        return {
            "algorithm": self.algorithm,
            "jobs": int(self.ids.size),
            "max_stretch": self.max_stretch,
            "mean_stretch": self.mean_stretch,
            "underutilization": self.normalized_underutilization,
            "underutilization_cpu_seconds": self.underutilization,
            "preemptions": self.preemptions,
            "migrations": self.migrations,
            "makespan": self.makespan,
            "seconds": self.seconds,
            **self.costs(),
        }


def bounded_stretch(
    submit: np.ndarray, end: np.ndarray, runtime: np.ndarray, tau: float = TAU
) -> np.ndarray:
    """``max(C - r, tau) / max(p, tau)`` per job.

    Examples
    --------
    >>> bounded_stretch(np.array([0.0]), np.array([5.0]), np.array([2.0])).tolist()
    [1.0]
    """
    return np.maximum(end - submit, tau) / np.maximum(runtime, tau)


def underutilization(workload: Workload, start: np.ndarray, end: np.ndarray) -> float:
    """``integral of min(|P|, D(t)) - u(t) dt`` for an exclusive (batch) schedule (Sec. 6.4.1).

    ``D(t)`` sums the CPU needs (``cpu * tasks``) of jobs submitted and not completed;
    ``u(t)`` those of running jobs. Both are step functions of the event times.
    """
    need = workload.cpu * workload.tasks
    # step functions as sorted change points (a sweep line: O(n log n))
    t_demand = np.concatenate([workload.submit, end])
    d_demand = np.concatenate([need, -need])
    t_used = np.concatenate([start, end])
    d_used = np.concatenate([need, -need])
    times = np.unique(np.concatenate([t_demand, t_used]))

    def level(at: np.ndarray, delta: np.ndarray) -> np.ndarray:
        order = np.argsort(at, kind="stable")
        steps = np.cumsum(delta[order])
        idx = np.searchsorted(at[order], times[:-1], side="right") - 1
        return np.where(idx >= 0, steps[np.maximum(idx, 0)], 0.0)

    demand = level(t_demand, d_demand)
    used = level(t_used, d_used)
    gap = np.minimum(workload.platform.nodes, demand) - used
    return float((gap * np.diff(times)).sum())


def batch_timeline(workload: Workload, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Rows ``(time, allocated CPU, CPU demand)`` after each event of a batch schedule.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 5], runtime=[10, 10],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.1, 0.1])
    >>> batch_timeline(w, np.array([0.0, 10.0]), np.array([10.0, 20.0])).tolist()
    [[0.0, 1.0, 1.0], [5.0, 1.0, 2.0], [10.0, 1.0, 1.0], [20.0, 0.0, 0.0]]
    """
    need = workload.cpu * workload.tasks
    times = np.unique(np.concatenate([workload.submit, start, end]))

    def level(at: np.ndarray, delta: np.ndarray) -> np.ndarray:
        order = np.argsort(at, kind="stable")
        steps = np.cumsum(delta[order])
        idx = np.searchsorted(at[order], times, side="right") - 1
        return np.where(idx >= 0, steps[np.maximum(idx, 0)], 0.0)

    used = level(np.concatenate([start, end]), np.concatenate([need, -need]))
    demand = level(np.concatenate([workload.submit, end]), np.concatenate([need, -need]))
    return np.column_stack([times, np.maximum(used, 0.0), np.maximum(demand, 0.0)])


def simulate_batch(
    workload: Workload, *, algorithm: str = "easy", estimates: bool = False, unit: str = "nodes"
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

    Returns
    -------
    SimulationResult

    Raises
    ------
    InvalidInputError
        For an unknown algorithm, or a job needing more nodes than the platform has.

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
    events: list[tuple[float, int, int]] = [
        (float(workload.submit[k]), _SUBMIT, k) for k in range(n)
    ]
    heapq.heapify(events)
    free = cores
    queue: list[int] = []
    running: dict[int, float] = {}  # job -> expected end (scheduler's view)

    def launch(k: int, now: float) -> None:
        nonlocal free
        start[k] = now
        end[k] = now + runtime[k]
        free -= int(width[k])
        running[k] = max(now + guess[k], now)
        heapq.heappush(events, (float(end[k]), _DONE, k))

    while events:
        now = events[0][0]
        while events and events[0][0] == now:
            _, kind, k = heapq.heappop(events)
            if kind == _DONE:
                free += int(width[k])
                del running[k]
            else:
                queue.append(k)
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
        for k in list(queue[1:]):
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
