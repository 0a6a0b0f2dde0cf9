"""The experiment runner: a grid of tasks, three backends, resumable incremental results.

A :class:`Task` is (instance, method, parameters, seed, time limit). ``run_sweep`` runs
the tasks not yet in the results store on a backend and writes each row the moment its
task finishes:

- ``local`` (default): worker processes on this machine, one per core. A task that
  overruns its time limit (plus a grace period) has its worker killed and replaced, and
  becomes a failed row.
- ``serial``: in this process, for debugging; the time limit is enforced with SIGALRM.
- ``dask``: an existing ``dask.distributed`` cluster (``scheduler`` address, or a
  ``Client``); overrunning tasks are cancelled and recorded as failed.

A task that raises becomes a failed row with its error text; the sweep goes on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from allockit.errors import InvalidInputError, SolverUnavailableError
from allockit.store import ResultStore

__all__ = [
    "BACKENDS",
    "TASK_KINDS",
    "SweepSummary",
    "Task",
    "execute_task",
    "execute_task_guarded",
    "run_sweep",
]

log = logging.getLogger(__name__)

BACKENDS = ("local", "serial", "dask")


# ---------------------------------------------------------------------- task kinds
def _kind_vcsched(task: Task) -> dict[str, Any]:
    from allockit.instances.vcsched import VCInstance
    from allockit.vcsched import solve

    instance = VCInstance.from_dict(task.instance)
    result = solve(instance, task.method, time_limit=task.time_limit, seed=task.seed, **task.params)
    return {
        "status": str(result.status),
        "min_yield": result.min_yield,
        "avg_yield": result.avg_yield,
        "bound": result.bound,
        "gap": result.gap,
        "build_seconds": result.build_seconds,
        "solve_seconds": result.solve_seconds,
        "solver": result.solver,
        "message": result.message,
        "hosts": instance.hosts,
        "jobs": instance.n_jobs,
        "tasks": instance.n_tasks,
    }


def _kind_dfrs(task: Task) -> dict[str, Any]:
    """An online-scheduling simulation or a stretch bound (``dfrs_experiments``)."""
    from allockit.dfrs_experiments import run_dfrs_task

    return run_dfrs_task(task)


def _kind_sleep(task: Task) -> dict[str, Any]:
    """Diagnostic: sleep ``params['seconds']`` (runner overhead and time-limit checks)."""
    seconds = float(task.params.get("seconds", 0.0))
    time.sleep(seconds)
    return {"status": "done", "slept": seconds}


def _kind_fail(task: Task) -> dict[str, Any]:
    """Diagnostic: raise ``RuntimeError(params['message'])``."""
    raise RuntimeError(task.params.get("message", "task failed on purpose"))


def _kind_spin(task: Task) -> dict[str, Any]:
    """Diagnostic: CPU-bound loop of ``params['iterations']`` steps (pool speed-up)."""
    total = 0
    for k in range(int(task.params.get("iterations", 1_000_000))):
        total = (total + k * k) % 1_000_003
    return {"status": "done", "value": total}


#: Task kind -> function(task) -> outputs dict (must include ``status``).
TASK_KINDS: dict[str, Callable[[Task], dict[str, Any]]] = {
    "vcsched": _kind_vcsched,
    "dfrs": _kind_dfrs,
    "sleep": _kind_sleep,
    "fail": _kind_fail,
    "spin": _kind_spin,
}


@dataclass(frozen=True, slots=True)
class Task:
    """One unit of a sweep.

    ``instance`` is the instance's JSON object (sent to the worker as is) and
    ``instance_id`` its label in the results. The task's ``key`` hashes everything that
    determines the result, so a resumed sweep recognises finished tasks.

    Examples
    --------
    >>> t = Task(kind="sleep", instance_id="none", instance={}, method="-",
    ...          params={"seconds": 0})
    >>> len(t.key), t.key == Task(kind="sleep", instance_id="none", instance={},
    ...                           method="-", params={"seconds": 0}).key
    (24, True)
    """

    kind: str
    instance_id: str
    instance: dict[str, Any]
    method: str
    params: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    time_limit: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in TASK_KINDS:
            raise InvalidInputError(
                f"task kind must be one of {sorted(TASK_KINDS)}; got {self.kind!r}"
            )
        if self.time_limit is not None and not self.time_limit > 0:
            raise InvalidInputError(f"time_limit must be > 0; got {self.time_limit!r}")

    @property
    def key(self) -> str:
        """A stable identifier of the task (hash of its defining fields)."""
        blob = json.dumps(
            [
                self.kind,
                self.instance_id,
                self.instance,
                self.method,
                self.params,
                self.seed,
                self.time_limit,
            ],
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _row(
    task: Task,
    *,
    ok: bool,
    outputs: dict[str, Any],
    error: str | None,
    wall: float,
    sweep: str = "",
) -> dict[str, Any]:
    return {
        "key": task.key,
        "sweep": sweep,
        "kind": task.kind,
        "instance": task.instance_id,
        "method": task.method,
        "params": task.params,
        "seed": task.seed,
        "ok": ok,
        "status": outputs.get("status", "failed" if not ok else None),
        "outputs": outputs,
        "error": error,
        "wall_seconds": wall,
    }


def execute_task(task: Task) -> dict[str, Any]:
    """Run one task and return its row; an exception becomes a failed row.

    Examples
    --------
    >>> row = execute_task(Task(kind="fail", instance_id="x", instance={}, method="-",
    ...                         params={"message": "boom"}))
    >>> row["ok"], row["status"], row["error"].splitlines()[-1]
    (False, 'failed', 'RuntimeError: boom')
    """
    start = time.perf_counter()
    try:
        outputs = TASK_KINDS[task.kind](task)
    except Exception as exc:  # a failing task is a row, never the end of the sweep
        tb = traceback.format_exception(exc)
        text = "".join(tb[-3:]).strip() if len(tb) > 3 else "".join(tb).strip()
        return _row(task, ok=False, outputs={}, error=text, wall=time.perf_counter() - start)
    return _row(task, ok=True, outputs=outputs, error=None, wall=time.perf_counter() - start)


def _overrun_row(task: Task, wall: float) -> dict[str, Any]:
    return _row(
        task,
        ok=False,
        outputs={"status": "time_limit"},
        error=f"exceeded its time limit of {task.time_limit} s (stopped after {wall:.1f} s)",
        wall=wall,
    )


# ---------------------------------------------------------------------- progress
class Progress:
    """A one-line progress bar on stderr (counts, rate, ETA); silent when not a terminal."""

    def __init__(self, total: int, *, enabled: bool | None = None) -> None:
        self.total = total
        self.done = 0
        self.failed = 0
        self.start = time.perf_counter()
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._last = 0.0

    def update(self, ok: bool) -> None:
        """Count one finished task and redraw (at most 10 times a second)."""
        self.done += 1
        self.failed += 0 if ok else 1
        now = time.perf_counter()
        if self.enabled and (now - self._last > 0.1 or self.done == self.total):
            self._last = now
            sys.stderr.write("\r" + self.line() + ("\n" if self.done == self.total else ""))
            sys.stderr.flush()

    def line(self) -> str:
        """The progress line."""
        elapsed = time.perf_counter() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else float("inf")
        width = 30
        filled = int(width * self.done / max(1, self.total))
        bar = "#" * filled + "-" * (width - filled)
        eta_text = f"{eta:6.0f}s" if eta != float("inf") else "     ?s"
        return (
            f"[{bar}] {self.done}/{self.total} ({self.failed} failed) {rate:6.1f}/s ETA {eta_text}"
        )


# ---------------------------------------------------------------------- backends
def _hard_limit(task: Task, grace: float) -> float | None:
    return None if task.time_limit is None else task.time_limit + grace


def _run_serial(
    tasks: Sequence[Task], emit: Callable[[dict[str, Any]], None], grace: float
) -> None:
    for task in tasks:
        limit = _hard_limit(task, grace)

        def _alarm(signum: int, frame: Any) -> None:
            raise TimeoutError

        start = time.perf_counter()
        previous = signal.signal(signal.SIGALRM, _alarm) if limit else None
        try:
            if limit:
                signal.setitimer(signal.ITIMER_REAL, limit)
            try:
                row = execute_task(task)
            except TimeoutError:
                row = _overrun_row(task, time.perf_counter() - start)
        finally:
            if limit:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
        if row["error"] and "TimeoutError" in row["error"]:
            row = _overrun_row(task, row["wall_seconds"])
        emit(row)


class _Worker:
    """A ``python -m allockit._worker`` child process fed with pickled tasks."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "allockit._worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.task: Task | None = None
        self.started = 0.0

    def fileno(self) -> int:
        return self.process.stdout.fileno()

    def give(self, task: Task) -> None:
        self.task = task
        self.started = time.perf_counter()
        pickle.dump(task, self.process.stdin)
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        return pickle.load(self.process.stdout)

    def stop(self) -> None:
        try:
            self.process.stdin.close()
            self.process.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass


def _run_local(
    tasks: Sequence[Task], emit: Callable[[dict[str, Any]], None], workers: int, grace: float
) -> None:
    from multiprocessing.connection import wait

    pool = [_Worker() for _ in range(max(1, min(workers, len(tasks))))]
    queue = list(reversed(tasks))
    try:
        while queue or any(w.task is not None for w in pool):
            for w in pool:
                if w.task is None and queue:
                    w.give(queue.pop())
            ready = wait([w for w in pool if w.task is not None], timeout=0.2)
            now = time.perf_counter()
            for i, w in enumerate(pool):
                if w.task is None:
                    continue
                if w in ready:
                    try:
                        row = w.receive()
                        w.task = None
                    except (EOFError, OSError, pickle.UnpicklingError):  # the worker died
                        code = w.process.poll()
                        row = _row(
                            w.task,
                            ok=False,
                            outputs={},
                            error=f"worker process died (exit code {code})",
                            wall=now - w.started,
                        )
                        w.kill()
                        pool[i] = _Worker()
                    emit(row)
                    continue
                limit = _hard_limit(w.task, grace)
                if limit is not None and now - w.started > limit:
                    emit(_overrun_row(w.task, now - w.started))
                    w.kill()
                    pool[i] = _Worker()
    finally:
        for w in pool:
            if w.task is None:
                w.stop()
            else:
                w.kill()


def execute_task_guarded(task: Task, grace: float = 5.0) -> dict[str, Any]:
    """``execute_task`` in a child Python process killed past the task's time limit.

    Used on Dask workers, whose tasks run in threads that cannot be interrupted. A task
    without a time limit runs directly.
    """
    if task.time_limit is None:
        return execute_task(task)
    from multiprocessing.connection import wait

    worker = _Worker()
    try:
        worker.give(task)
        if wait([worker], timeout=task.time_limit + grace):
            try:
                return worker.receive()
            except (EOFError, OSError):
                return _row(
                    task,
                    ok=False,
                    outputs={},
                    error=f"task process died (exit code {worker.process.poll()})",
                    wall=time.perf_counter() - worker.started,
                )
        return _overrun_row(task, time.perf_counter() - worker.started)
    finally:
        worker.kill()


def _run_dask(
    tasks: Sequence[Task], emit: Callable[[dict[str, Any]], None], scheduler: Any, grace: float
) -> None:
    import importlib.util

    if importlib.util.find_spec("distributed") is None:
        raise SolverUnavailableError(
            "the dask backend needs dask.distributed: pip install 'allockit[dask]'"
        )
    from distributed import Client, as_completed

    own = not isinstance(scheduler, Client)
    if own and not scheduler:
        raise InvalidInputError("the dask backend needs a scheduler address (--scheduler)")
    client = Client(scheduler) if own else scheduler
    try:
        futures = {
            client.submit(
                execute_task_guarded, task, grace, pure=False, key=f"allockit-{task.key}"
            ): task
            for task in tasks
        }
        for future in as_completed(futures):
            task = futures[future]
            try:
                row = future.result()
            except Exception as exc:  # lost worker, cancelled, unpicklable result...
                row = _row(task, ok=False, outputs={}, error=f"dask: {exc!r}", wall=0.0)
            emit(row)
    finally:
        if own:
            client.close()


# ---------------------------------------------------------------------- the sweep
@dataclass(frozen=True, slots=True)
class SweepSummary:
    """What a sweep did: tasks in the grid, skipped as already done, run, failed."""

    total: int
    skipped: int
    ran: int
    failed: int
    seconds: float
    store: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {
            "total": self.total,
            "skipped": self.skipped,
            "ran": self.ran,
            "failed": self.failed,
            "seconds": self.seconds,
            "store": self.store,
        }


def run_sweep(
    tasks: Iterable[Task],
    store: str | Path,
    *,
    backend: str = "local",
    workers: int | None = None,
    scheduler: Any = None,
    sweep: str = "sweep",
    retry_failed: bool = False,
    grace: float = 5.0,
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

        def emit(row: dict[str, Any]) -> None:
            nonlocal failed
            row["sweep"] = sweep
            results.write(row)
            failed += 0 if row["ok"] else 1
            bar.update(row["ok"])

        if todo:
            if backend == "serial":
                _run_serial(todo, emit, grace)
            elif backend == "local":
                _run_local(todo, emit, workers or os.cpu_count() or 1, grace)
            else:
                _run_dask(todo, emit, scheduler, grace)
    return SweepSummary(
        total=len(unique),
        skipped=len(unique) - len(todo),
        ran=bar.done,
        failed=failed,
        seconds=time.perf_counter() - start,
        store=str(store),
    )
