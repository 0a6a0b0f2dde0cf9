"""FCFS and EASY as one function: the batch simulator before the ``Policy`` protocol.

A test oracle (kept verbatim from the implementation that the policy classes replaced):
``tests/simulation/test_policy.py`` checks that ``FCFS`` and ``EASY`` on
``run_batch`` give the same schedules, bit for bit.
"""

from __future__ import annotations

import math

import numpy as np

from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload
from allockit.simulation.events import EventQueue

_DONE, _SUBMIT = 0, 1


def reference_batch(
    workload: Workload,
    *,
    algorithm: str = "easy",
    estimates: bool = False,
    unit: str = "nodes",
    backfill_depth: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The batch simulator before FCFS and EASY became policies (a test oracle)."""
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
    return start, end
