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

A task that raises becomes a failed row with its error text; the sweep goes on. The
runner imports no domain module: it runs any registered kind.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from allockit.constants import RUNNER_BACKENDS, RUNNER_GRACE_SECONDS
from allockit.errors import InvalidInputError
from allockit.runner.backends import execute_task_guarded, run_dask, run_local, run_serial
from allockit.runner.progress import Progress
from allockit.runner.store import ResultStore, flat_rows, read_rows
from allockit.tasks import TASK_KINDS, Task, TaskRow, execute_task, register_task_kind

__all__ = [
    "BACKENDS",
    "TASK_KINDS",
    "Progress",
    "SweepSummary",
    "Task",
    "TaskRow",
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
    when some failed (the command line then exits 3).

    Examples
    --------
    >>> s = SweepSummary(total=3, skipped=1, ran=2, failed=0, seconds=0.1, store="s.db")
    >>> s.status, SweepSummary.from_dict(s.to_dict()) == s
    ('completed', True)
    """

    total: int
    skipped: int
    ran: int
    failed: int
    seconds: float
    store: str

    @property
    def status(self) -> str:
        """``completed`` or ``failed_tasks``."""
        return "completed" if self.failed == 0 else "failed_tasks"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {
            "status": self.status,
            "total": self.total,
            "skipped": self.skipped,
            "ran": self.ran,
            "failed": self.failed,
            "seconds": self.seconds,
            "store": self.store,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SweepSummary:
        """Rebuild a summary from ``to_dict``'s output."""
        try:
            return cls(
                total=int(data["total"]),
                skipped=int(data["skipped"]),
                ran=int(data["ran"]),
                failed=int(data["failed"]),
                seconds=float(data["seconds"]),
                store=str(data["store"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"sweep summary is malformed: {exc}") from exc


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
) -> SweepSummary:
    """Run every task not yet in ``store``; write each row as soon as its task ends.

    Parameters
    ----------
    tasks : iterable of Task
        The grid (duplicates by key are run once).
    store : path
        SQLite results file, created if needed. Rerunning the same sweep skips the tasks
        already recorded and runs the rest.
    backend : {"local", "serial", "dask"}
    workers : int, optional
        Local worker processes (default: the number of cores).
    scheduler : str or distributed.Client, optional
        Dask scheduler address (or client) for ``backend="dask"``.
    sweep : str
        Name recorded in every row.
    retry_failed : bool
        Also rerun tasks recorded as failed.
    grace : float
        Seconds past a task's time limit before it is stopped and recorded as failed.
    progress : bool, optional
        Force the progress bar on or off (default: on when stderr is a terminal).

    Returns
    -------
    SweepSummary

    Raises
    ------
    InvalidInputError
        For an unknown backend or a bad worker count.

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
    if backend not in BACKENDS:
        raise InvalidInputError(f"backend must be one of {list(BACKENDS)}; got {backend!r}")
    if workers is not None and (isinstance(workers, bool) or int(workers) < 1):
        raise InvalidInputError(f"workers must be >= 1; got {workers!r}")
    unique: dict[str, Task] = {}
    for task in tasks:
        unique.setdefault(task.key, task)
    start = time.perf_counter()
    with ResultStore(store) as results:
        done = results.keys(ok_only=retry_failed)
        todo = [t for k, t in unique.items() if k not in done]
        bar = Progress(len(todo), enabled=progress)
        failed = 0

        def emit(row: TaskRow) -> None:
            nonlocal failed
            results.write(row.with_sweep(sweep).to_dict())
            failed += 0 if row.ok else 1
            bar.update(row.ok)

        if todo:
            if backend == "serial":
                run_serial(todo, emit, grace)
            elif backend == "local":
                run_local(todo, emit, workers or os.cpu_count() or 1, grace)
            else:
                run_dask(todo, emit, scheduler, grace)
    return SweepSummary(
        total=len(unique),
        skipped=len(unique) - len(todo),
        ran=bar.done,
        failed=failed,
        seconds=time.perf_counter() - start,
        store=str(store),
    )
