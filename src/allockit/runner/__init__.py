"""The experiment runner: a grid of tasks, three backends, resumable incremental results.

A :class:`~allockit.tasks.Task` is (kind, instance, method, parameters, seed, time
limit); its kind names the function that runs it (registered by the experiments, see
``allockit.tasks``). ``run_sweep`` runs the tasks not yet in the results store on a
backend and writes each row the moment its task finishes:

- ``local`` (default): worker processes on this machine, one per core. A task that
  overruns its time limit (plus a grace period) has its worker killed and replaced, and
  becomes a failed row.
- ``serial``: in this process, for debugging; the time limit is enforced with SIGALRM.
- ``dask``: an existing ``dask.distributed`` cluster (``scheduler`` address, or a
  ``Client``); overrunning tasks are cancelled and recorded as failed.

A task that raises becomes a failed row with its error text; the sweep goes on. Several
sweeps may write one store at once: each task is claimed atomically in the store (owner
and heartbeat), so no task runs twice, and a killed writer's tasks are taken over. The
runner imports no domain module: it runs any registered kind.
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from allockit.checks import integer, real_number
from allockit.constants import RUNNER_BACKENDS, RUNNER_GRACE_SECONDS, STALE_CLAIM_SECONDS
from allockit.errors import InvalidInputError
from allockit.results.base import Status
from allockit.runner.backends import (
    execute_task_guarded,
    preferred_pick,
    run_dask,
    run_local,
    run_serial,
)
from allockit.runner.progress import Progress
from allockit.runner.store import Heartbeat, ResultStore, check_store, flat_rows, read_rows
from allockit.tasks import TASK_KINDS, Task, TaskRow, execute_task, register_task_kind

__all__ = [
    "BACKENDS",
    "TASK_KINDS",
    "Progress",
    "SweepSummary",
    "Task",
    "TaskRow",
    "check_store",
    "execute_task",
    "execute_task_guarded",
    "flat_rows",
    "read_rows",
    "register_task_kind",
    "run_sweep",
]

log = logging.getLogger(__name__)

BACKENDS = RUNNER_BACKENDS


@dataclass(frozen=True, slots=True)
class SweepSummary:
    """What a sweep did: tasks in the grid, skipped as already done, run, failed.

    ``status`` is ``"completed"`` when every task ran successfully, ``"failed_tasks"``
    when some failed (the command line then exits 3). ``others`` counts the tasks that
    another writer of the same store finished while this sweep ran (they are among the
    skipped ones).

    Examples
    --------
    >>> s = SweepSummary(total=3, skipped=1, ran=2, failed=0, seconds=0.1, store="s.db")
    >>> str(s.status), SweepSummary.from_dict(s.to_dict()) == s
    ('completed', True)
    """

    total: int
    skipped: int
    ran: int
    failed: int
    seconds: float
    store: str
    others: int = 0

    @property
    def status(self) -> Status:
        """``Status.COMPLETED``, or ``Status.FAILED_TASKS`` when some task failed."""
        return Status.COMPLETED if self.failed == 0 else Status.FAILED_TASKS

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {
            "status": str(self.status),
            "total": self.total,
            "skipped": self.skipped,
            "ran": self.ran,
            "failed": self.failed,
            "others": self.others,
            "seconds": self.seconds,
            "store": self.store,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SweepSummary:
        """Rebuild a summary from ``to_dict``'s output.

        Parameters
        ----------
        data : mapping
            ``total``, ``skipped``, ``ran``, ``failed`` (and optionally ``others``):
            integers >= 0; ``seconds``: a finite number >= 0; ``store``: a str.

        Returns
        -------
        SweepSummary

        Raises
        ------
        InvalidInputError
            If a field is missing or not of its kind (never truncated or converted:
            ``failed=0.9`` is refused, not read as 0).

        Examples
        --------
        >>> SweepSummary.from_dict({"total": 2.5, "skipped": 0, "ran": 2, "failed": 0,
        ...                         "seconds": 1.0, "store": "s.db"})
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: sweep summary: total must be an integer >= 0; got 2.5
        """
        where = "sweep summary: "
        try:
            counts = {name: data[name] for name in ("total", "skipped", "ran", "failed")}
            seconds, store = data["seconds"], data["store"]
        except (KeyError, TypeError) as exc:
            raise InvalidInputError(f"sweep summary is malformed: missing {exc}") from None
        counts["others"] = data.get("others", 0)
        if not isinstance(store, str):
            raise InvalidInputError(f"{where}store must be a str; got {store!r}")
        return cls(
            **{name: integer(where + name, value, minimum=0) for name, value in counts.items()},
            seconds=real_number(where + "seconds", seconds, at_least=0),
            store=store,
        )


class _Claims:
    """The tasks this writer claims in the store, handed out one at a time.

    A task another live writer holds is looked at again every ``_LOOK`` seconds: it is
    taken over once that writer's heartbeat is older than ``stale_after``, or dropped
    once its row is written (``others`` counts those).
    """

    def __init__(
        self,
        store: ResultStore,
        tasks: list[Task],
        *,
        stale_after: float,
        retry_failed: bool,
        since: float,
    ) -> None:
        self.store, self.stale_after = store, stale_after
        self.retry_failed, self.since = retry_failed, since
        self.queue: deque[Task] = deque(tasks)
        self.waiting: list[Task] = []
        self.others = 0
        self._look = 0.0

    def _state(self, task: Task) -> str:
        state = self.store.claim(
            task.key,
            stale_after=self.stale_after,
            retry_failed=self.retry_failed,
            since=self.since,
        )
        if state == "done":
            self.others += 1
        return state

    def take(self) -> Task | None:
        return self.take_preferring(None)

    def take_preferring(self, rank: Callable[[Task], int] | None) -> Task | None:
        """The next task claimed, the lowest ``rank`` first (``preferred_pick``)."""
        while self.queue:
            i = 0 if rank is None else preferred_pick(self.queue, rank)
            task = self.queue[i]
            del self.queue[i]
            state = self._state(task)
            if state == "claimed":
                return task
            if state == "busy":
                self.waiting.append(task)
        if not self.waiting or time.monotonic() < self._look:
            return None
        self._look = time.monotonic() + min(_LOOK, self.stale_after / 2)
        held = self.store.held_elsewhere(
            [t.key for t in self.waiting], stale_after=self.stale_after
        )  # one query, not a transaction per waiting task
        still: list[Task] = []
        found: Task | None = None
        for task in self.waiting:
            if found is not None or task.key in held:
                still.append(task)
                continue
            state = self._state(task)
            if state == "claimed":
                found = task
            elif state == "busy":
                still.append(task)
        self.waiting = still
        return found

    @property
    def exhausted(self) -> bool:
        return not self.queue and not self.waiting


#: Seconds between two looks at tasks other writers hold.
_LOOK = 1.0


def _store_row(results: ResultStore, row: TaskRow) -> TaskRow:
    """Write ``row``; one the store refuses (outputs that are not JSON data...) is
    written as a failed row naming the problem, so that the sweep goes on."""
    try:
        results.write(row.to_dict())
    except InvalidInputError as exc:
        why = f"the task's row could not be stored: {exc}"
        log.warning("task %s (%s): %s", row.key, row.instance, why)
        row = replace(
            row,
            ok=False,
            status="failed",
            outputs={},
            error=why if row.error is None else f"{why}\n{row.error}",
        )
        results.write(row.to_dict())
    return row


def run_sweep(
    tasks: Iterable[Task],
    store: str | Path,
    *,
    backend: str = "local",
    workers: int | None = None,
    scheduler: Any = None,
    sweep: str = "sweep",
    retry_failed: bool = False,
    grace: float = RUNNER_GRACE_SECONDS,
    progress: bool | None = None,
    stale_after: float = STALE_CLAIM_SECONDS,
    connect_timeout: float = 10.0,
) -> SweepSummary:
    """Run every task not yet in ``store``; write each row as soon as its task ends.

    Several sweeps may share one store at once (two terminals, several machines on a
    shared folder): a task runs only in the sweep that claims it in the store; a sweep
    waits for the tasks other live writers hold, and takes over those whose writer
    stopped sending heartbeats ``stale_after`` seconds ago (killed). No task runs
    twice and no row is lost.

    Parameters
    ----------
    tasks : iterable of Task
        The grid (duplicates by key are run once).
    store : path
        SQLite results file, created if needed (refused unless it is an allockit
        store, ``allockit.runner.store.check_store``). Rerunning the same sweep skips
        the tasks already recorded and runs the rest.
    backend : {"local", "serial", "dask"}
    workers : int, optional
        Local worker processes, in [1, 4 x cores] (default: the number of cores).
    scheduler : str or distributed.Client, optional
        Dask scheduler address (or client) for ``backend="dask"``.
    sweep : str
        Name recorded in every row.
    retry_failed : bool
        Also rerun tasks recorded as failed.
    grace : float
        Seconds past a task's time limit before it is stopped (>= 0).
    progress : bool, optional
        Force the progress bar on or off (default: on when stderr is a terminal).
    stale_after : float, default ``STALE_CLAIM_SECONDS`` (60)
        Seconds without a heartbeat after which another writer's claim is taken over.
    connect_timeout : float, default 10.0
        Seconds to wait for a Dask scheduler to answer.

    Returns
    -------
    SweepSummary

    Raises
    ------
    InvalidInputError
        For an unknown backend, a bad worker count, grace or ``stale_after``, a store
        that is not an allockit store, or an unreachable Dask scheduler.
    ConnectionError
        If the Dask scheduler goes away during the sweep (the line says how many rows
        are saved; the unfinished tasks are released, so a rerun resumes at once).

    Examples
    --------
    >>> import tempfile, os
    >>> db = os.path.join(tempfile.mkdtemp(), "s.db")
    >>> grid = [Task(kind="sleep", instance_id=str(k), instance={}, method="-")
    ...         for k in range(3)]
    >>> run_sweep(grid, db, backend="serial").ran
    3
    >>> run_sweep(grid, db, backend="serial").skipped
    3
    """
    from allockit.options import Range, max_threads

    if backend not in BACKENDS:
        raise InvalidInputError(f"backend must be one of {list(BACKENDS)}; got {backend!r}")
    if workers is not None:
        Range(int, ge=1, le=max_threads()).check("workers", workers)
    Range(float, ge=0, le=86_400, unit="seconds").check("grace", grace)
    Range(float, gt=0, le=86_400, unit="seconds").check("stale_after", stale_after)
    Range(float, gt=0, le=3600, unit="seconds").check("connect_timeout", connect_timeout)
    unique: dict[str, Task] = {}
    for task in tasks:
        unique.setdefault(task.key, task)
    start = time.perf_counter()
    with ResultStore(store) as results:
        since = time.time()
        done = results.keys(ok_only=retry_failed)
        todo = [t for k, t in unique.items() if k not in done]
        bar = Progress(len(todo), enabled=progress)
        source = _Claims(
            results, todo, stale_after=stale_after, retry_failed=retry_failed, since=since
        )
        failed = 0

        def emit(row: TaskRow) -> None:
            nonlocal failed
            row = _store_row(results, row.with_sweep(sweep))
            failed += 0 if row.ok else 1
            bar.update(row.ok)

        if todo:
            beat = max(0.05, min(10.0, stale_after / 4))
            with Heartbeat(results.path, results.owner, beat):
                if backend == "serial":
                    run_serial(source, emit, grace)
                elif backend == "local":
                    run_local(source, emit, workers or os.cpu_count() or 1, grace)
                else:
                    try:
                        run_dask(source, emit, scheduler, grace, connect_timeout=connect_timeout)
                    except ConnectionError as exc:
                        raise ConnectionError(
                            f"{exc}; the {bar.done} finished rows are in {store}: run the same "
                            "sweep again to resume"
                        ) from None
    return SweepSummary(
        total=len(unique),
        skipped=len(unique) - bar.done,
        ran=bar.done,
        failed=failed,
        seconds=time.perf_counter() - start,
        store=str(store),
        others=source.others,
    )
