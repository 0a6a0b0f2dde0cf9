"""The runner's backends: serial (this process), local (worker processes), Dask.

Each runs a list of tasks and hands every finished row to ``emit`` as soon as it is
done. A task that overruns its time limit (plus a grace period) is stopped and becomes
a failed row with status ``time_limit``.
"""

from __future__ import annotations

import pickle
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from allockit.errors import InvalidInputError, SolverUnavailableError
from allockit.tasks import Task, TaskRow, execute_task, failed_row, overrun_row

__all__ = ["execute_task_guarded", "run_dask", "run_local", "run_serial"]


def _hard_limit(task: Task, grace: float) -> float | None:
    return None if task.time_limit is None else task.time_limit + grace


def run_serial(
    tasks: Sequence[Task], emit: Callable[[TaskRow], None], grace: float
) -> None:
    """Run the tasks one after another in this process (the ``serial`` backend).

    A task's time limit is enforced with ``SIGALRM`` (Unix, main thread only): past
    ``time_limit + grace`` seconds the task is interrupted and recorded with status
    ``time_limit``. Meant for debugging: a crash of a task's native code ends the sweep.

    Parameters
    ----------
    tasks : sequence of Task
        The tasks, run in order.
    emit : callable
        Called with each ``TaskRow`` as soon as its task ends (``run_sweep`` writes it
        to the results store).
    grace : float
        Seconds allowed past a task's ``time_limit`` before it is stopped.

    Raises
    ------
    ValueError
        From ``signal.signal`` if a task has a time limit and this is not the main
        thread. (The ``TimeoutError`` raised by the alarm handler is caught: it
        becomes the task's ``time_limit`` row.)

    Examples
    --------
    >>> rows = []
    >>> run_serial([Task(kind="sleep", instance_id="a", instance={}, method="-"),
    ...             Task(kind="fail", instance_id="b", instance={}, method="-")],
    ...            rows.append, grace=5.0)
    >>> [(r.instance, r.ok, r.status) for r in rows]
    [('a', True, 'done'), ('b', False, 'failed')]
    """
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
                row = overrun_row(task, time.perf_counter() - start)
        finally:
            if limit:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
        if row.error and "TimeoutError" in row.error:
            row = overrun_row(task, row.seconds)
        emit(row)


class _Worker:
    """A ``python -m allockit.runner.worker`` child process fed with pickled tasks."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "allockit.runner.worker"],
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

    def receive(self) -> TaskRow:
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


def run_local(
    tasks: Sequence[Task], emit: Callable[[TaskRow], None], workers: int, grace: float
) -> None:
    """Run the tasks on a pool of worker processes (the ``local`` backend).

    Each worker is a ``python -m allockit.runner.worker`` child fed pickled tasks; rows
    are emitted in completion order. A worker whose task overruns ``time_limit +
    grace`` seconds is killed and replaced (the row has status ``time_limit``); a
    worker that dies (segfault, out of memory) becomes a failed row and is replaced.

    Parameters
    ----------
    tasks : sequence of Task
        The tasks, handed out in order.
    emit : callable
        Called with each ``TaskRow`` as soon as its task ends.
    workers : int
        Most worker processes (>= 1); never more than there are tasks.
    grace : float
        Seconds allowed past a task's ``time_limit`` before its worker is killed.

    Examples
    --------
    >>> rows = []
    >>> run_local([Task(kind="sleep", instance_id="a", instance={}, method="-")],
    ...           rows.append, workers=1, grace=5.0)
    >>> [(r.instance, r.ok, r.status) for r in rows]
    [('a', True, 'done')]
    """
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
                        row = failed_row(
                            w.task, f"worker process died (exit code {code})", now - w.started
                        )
                        w.kill()
                        pool[i] = _Worker()
                    emit(row)
                    continue
                limit = _hard_limit(w.task, grace)
                if limit is not None and now - w.started > limit:
                    emit(overrun_row(w.task, now - w.started))
                    w.kill()
                    pool[i] = _Worker()
    finally:
        for w in pool:
            if w.task is None:
                w.stop()
            else:
                w.kill()


def execute_task_guarded(task: Task, grace: float = 5.0) -> TaskRow:
    """``execute_task`` in a child Python process killed past the task's time limit.

    Used on Dask workers, whose tasks run in threads that cannot be interrupted. A task
    without a time limit runs directly.

    Parameters
    ----------
    task : Task
        The task to run.
    grace : float, default 5.0
        Seconds allowed past the task's ``time_limit`` before the child is killed.

    Returns
    -------
    TaskRow
        The task's own row; a ``time_limit`` row if it overran; a failed row if the
        child process died.

    Examples
    --------
    >>> row = execute_task_guarded(Task(kind="sleep", instance_id="a", instance={},
    ...                                 method="-", time_limit=10))
    >>> row.ok, row.status
    (True, 'done')
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
                return failed_row(
                    task,
                    f"task process died (exit code {worker.process.poll()})",
                    time.perf_counter() - worker.started,
                )
        return overrun_row(task, time.perf_counter() - worker.started)
    finally:
        worker.kill()


def run_dask(
    tasks: Sequence[Task], emit: Callable[[TaskRow], None], scheduler: Any, grace: float
) -> None:
    """Run the tasks on a ``dask.distributed`` cluster (the ``dask`` backend).

    Every task is submitted at once as ``execute_task_guarded(task, grace)`` (so a
    task with a time limit runs in a child process that can be killed); rows are
    emitted in completion order. A future that fails (lost worker, cancellation)
    becomes a failed row. A client created here is closed at the end.

    Parameters
    ----------
    tasks : sequence of Task
        The tasks.
    emit : callable
        Called with each ``TaskRow`` as soon as its task ends.
    scheduler : str or distributed.Client
        A scheduler address such as ``"tcp://10.0.0.1:8786"``, or a connected client.
    grace : float
        Seconds allowed past a task's ``time_limit`` before it is stopped.

    Raises
    ------
    SolverUnavailableError
        If ``dask.distributed`` is not installed (``pip install 'allockit[dask]'``).
    InvalidInputError
        If ``scheduler`` is empty.

    Examples
    --------
    With a running cluster (not run here):

    >>> run_dask(tasks, rows.append, "tcp://127.0.0.1:8786", grace=5.0)  # doctest: +SKIP

    Without a scheduler:

    >>> run_dask([], print, None, grace=5.0)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: the dask backend needs a scheduler address (--scheduler)
    """
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
                row = failed_row(task, f"dask: {exc!r}", 0.0)
            emit(row)
    finally:
        if own:
            client.close()
