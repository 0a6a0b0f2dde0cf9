"""The runner's backends: serial (this process), local (worker processes), Dask.

Each runs the tasks of a *source* and hands every finished row to ``emit`` as soon as
it is done. A source is a list of tasks or a ``TaskSource`` (``take()`` gives the next
task, or None when none is ready yet; ``exhausted`` says no task will come): the sweep
hands out tasks as it claims them in the results store. A task that overruns its time
limit (plus a grace period) is stopped and becomes a failed row with status
``time_limit``.
"""

from __future__ import annotations

import pickle
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from allockit.checks import integer, real_number
from allockit.errors import InvalidInputError, SolverUnavailableError
from allockit.tasks import Task, TaskRow, execute_task, failed_row, overrun_row

__all__ = [
    "PICK_WINDOW",
    "TaskSource",
    "as_source",
    "execute_task_guarded",
    "preferred_pick",
    "run_dask",
    "run_local",
    "run_serial",
]

#: Seconds between two looks at a source that has no task ready.
_POLL = 0.2


class TaskSource(Protocol):
    """Where a backend takes its tasks: ``take()`` and ``exhausted``.

    A source may also offer ``take_preferring(rank)``: the task of lowest ``rank`` (a
    function Task -> int) among the next ones, as ``preferred_pick`` chooses it. The
    local backend uses it to keep each worker on one instance; without it, tasks are
    handed out in the source's order.

    Examples
    --------
    >>> source = as_source([Task(kind="sleep", instance_id="a", instance={}, method="-")])
    >>> source.take().instance_id, source.take(), source.exhausted
    ('a', None, True)
    """

    def take(self) -> Task | None:
        """The next task to run, or None if none is ready now."""

    @property
    def exhausted(self) -> bool:
        """True when no task will come any more."""


class _ListSource:
    def __init__(self, tasks: Sequence[Task]) -> None:
        self._queue = deque(tasks)

    def take(self) -> Task | None:
        return self._queue.popleft() if self._queue else None

    def take_preferring(self, rank: Callable[[Task], int]) -> Task | None:
        """``preferred_pick`` of the queue's head, taken out of the queue."""
        i = preferred_pick(self._queue, rank)
        if i is None:
            return None
        task = self._queue[i]
        del self._queue[i]
        return task

    @property
    def exhausted(self) -> bool:
        return not self._queue


#: Tasks at the head of a source that ``preferred_pick`` looks at (a week of DFRS Table
#: 5 is 119 tasks in a row).
PICK_WINDOW = 1024


def preferred_pick(queue: Sequence[Task], rank: Callable[[Task], int]) -> int | None:
    """Index of the first task of lowest ``rank`` among the first ``PICK_WINDOW`` ones.

    A rank of 0 ends the look at once. None for an empty queue.

    Parameters
    ----------
    queue : sequence of Task
        The tasks in the order they would be handed out.
    rank : callable
        Task -> int, lower is better.

    Returns
    -------
    int or None
        The index of the chosen task in ``queue``.

    Examples
    --------
    >>> q = [Task(kind="sleep", instance_id=i, instance={}, method="-") for i in "aab"]
    >>> preferred_pick(q, lambda t: 0 if t.instance_id == "b" else 1)
    2
    >>> preferred_pick(q, lambda t: 1), preferred_pick([], lambda t: 0)
    (0, None)
    """
    best, best_rank = None, None
    for i, task in enumerate(queue):
        if i >= PICK_WINDOW:
            break
        r = rank(task)
        if best_rank is None or r < best_rank:
            best, best_rank = i, r
            if r == 0:
                break
    return best


def as_source(tasks: Sequence[Task] | TaskSource) -> TaskSource:
    """A task source: a ``TaskSource`` as it is, or a list handed out in order.

    Parameters
    ----------
    tasks : sequence of Task or TaskSource
        The tasks.

    Returns
    -------
    TaskSource
        An object with ``take()`` and ``exhausted``.

    Examples
    --------
    >>> as_source([]).exhausted
    True
    """
    if hasattr(tasks, "take") and hasattr(tasks, "exhausted"):
        return tasks  # type: ignore[return-value]
    return _ListSource(list(tasks))  # type: ignore[arg-type]


def _take_for(source: TaskSource, mine: str | None, pool: list[_Worker]) -> Task | None:
    """The next task of a free worker that last ran instance ``mine`` (see ``run_local``)."""
    pick = getattr(source, "take_preferring", None)
    if pick is None:
        return source.take()
    running = {w.task.instance_id for w in pool if w.task is not None}

    def rank(task: Task) -> int:
        if task.instance_id == mine:
            return 0
        return 1 if task.instance_id not in running else 2

    return pick(rank)


#: A time limit (plus grace) beyond this many seconds (about 31 years), or an infinite
#: one, is no limit: the clocks that enforce limits cannot count that far.
_NO_LIMIT_BEYOND = 1e9
#: Longest single wait of ``execute_task_guarded`` (``wait`` refuses more than ~24 days).
_LONGEST_WAIT = 86_400.0


def _hard_limit(task: Task, grace: float) -> float | None:
    """Seconds after which ``task`` is stopped, or None (no limit, or beyond any clock)."""
    if task.time_limit is None:
        return None
    limit = task.time_limit + grace
    return limit if limit <= _NO_LIMIT_BEYOND else None


def _grace(grace: Any) -> float:
    """``grace`` as a finite number of seconds >= 0, or an error naming it."""
    return real_number("grace", grace, at_least=0)


class _TimeLimitAlarm(BaseException):
    """Raised by the serial backend's SIGALRM handler (a BaseException: the task's own
    ``except Exception`` and ``execute_task`` let it through)."""


def run_serial(
    tasks: Sequence[Task] | TaskSource, emit: Callable[[TaskRow], None], grace: float
) -> None:
    """Run the tasks one after another in this process (the ``serial`` backend).

    A task's time limit is enforced with ``SIGALRM`` (Unix, main thread only): past
    ``time_limit + grace`` seconds the task is interrupted and recorded with status
    ``time_limit``. Meant for debugging: a crash of a task's native code ends the sweep.

    Parameters
    ----------
    tasks : sequence of Task or TaskSource
        The tasks, run in order (a source may make the backend wait for its next one).
    emit : callable
        Called with each ``TaskRow`` as soon as its task ends (``run_sweep`` writes it
        to the results store).
    grace : float
        Seconds allowed past a task's ``time_limit`` before it is stopped.

    Raises
    ------
    InvalidInputError
        If ``grace`` is not a finite number >= 0.
    ValueError
        From ``signal.signal`` if a task has a time limit and this is not the main
        thread.

    Examples
    --------
    >>> rows = []
    >>> run_serial([Task(kind="sleep", instance_id="a", instance={}, method="-"),
    ...             Task(kind="fail", instance_id="b", instance={}, method="-")],
    ...            rows.append, grace=5.0)
    >>> [(r.instance, r.ok, r.status) for r in rows]
    [('a', True, 'done'), ('b', False, 'failed')]
    """
    grace = _grace(grace)
    source = as_source(tasks)
    while True:
        task = source.take()
        if task is None:
            if source.exhausted:
                return
            time.sleep(_POLL)
            continue
        emit(_run_one_serially(task, grace))


def _alarm(signum: int, frame: Any) -> None:
    raise _TimeLimitAlarm


def _run_one_serially(task: Task, grace: float) -> TaskRow:
    """``execute_task`` under SIGALRM; the alarm itself (never an error's text) makes the
    ``time_limit`` row, wherever it fires (even before the task starts)."""
    limit = _hard_limit(task, grace)
    if limit is None:
        return execute_task(task)
    row = None
    start = time.perf_counter()
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, limit)
            row = execute_task(task)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except _TimeLimitAlarm:
        if row is None:  # (the alarm fired once the row was made: the row stands)
            row = overrun_row(task, time.perf_counter() - start)
    finally:
        signal.signal(signal.SIGALRM, previous)
    return row


class _Worker:
    """A ``python -m allockit.runner.worker`` child process fed with pickled tasks.

    The child ends when this process does, however it ends (SIGKILL included): see
    ``allockit.runner.worker.die_with_parent``.
    """

    def __init__(self) -> None:
        import os

        from allockit.runner.worker import PARENT_ENV

        # the worker dies with this process (allockit.runner.worker.die_with_parent)
        env = {**os.environ, PARENT_ENV: str(os.getpid())}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "allockit.runner.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self.task: Task | None = None
        self.instance: str | None = None  # of the last task given
        self.started = 0.0

    def fileno(self) -> int:
        return self.process.stdout.fileno()

    def give(self, task: Task) -> None:
        self.task = task
        self.instance = task.instance_id
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
    tasks: Sequence[Task] | TaskSource,
    emit: Callable[[TaskRow], None],
    workers: int,
    grace: float,
) -> None:
    """Run the tasks on a pool of worker processes (the ``local`` backend).

    Each worker is a ``python -m allockit.runner.worker`` child fed pickled tasks; rows
    are emitted in completion order. A worker is started only when there is a task for
    it (never more than ``workers``), and a worker whose task overruns ``time_limit +
    grace`` seconds is killed and replaced (the row has status ``time_limit``); a
    worker that dies (segfault, out of memory) becomes a failed row and is replaced.

    Workers keep to an instance: when the source can pick (``take_preferring``, as a
    list and the sweep's claims can), a free worker takes the next task of the instance
    it last ran, else one of an instance no busy worker is running, else the next one
    (among the first ``PICK_WINDOW`` tasks). The tasks of one instance then run one
    after another in one process, sharing what the process keeps (the LP answers of
    ``allockit.evaluation.answer_memo``, loaded data), and two workers do not split a
    family of variants between them. The order of the rows changes, not their content.

    Parameters
    ----------
    tasks : sequence of Task or TaskSource
        The tasks, handed out in order.
    emit : callable
        Called with each ``TaskRow`` as soon as its task ends.
    workers : int
        Most worker processes (>= 1).
    grace : float
        Seconds allowed past a task's ``time_limit`` before its worker is killed.

    Raises
    ------
    InvalidInputError
        If ``workers`` is not an integer >= 1 or ``grace`` not a finite number >= 0
        (checked before any worker starts).

    Examples
    --------
    >>> rows = []
    >>> run_local([Task(kind="sleep", instance_id="a", instance={}, method="-")],
    ...           rows.append, workers=1, grace=5.0)
    >>> [(r.instance, r.ok, r.status) for r in rows]
    [('a', True, 'done')]
    >>> run_local([], rows.append, workers=4, grace=5.0)  # no task: no worker started
    """
    from multiprocessing.connection import wait

    workers = integer("workers", workers, minimum=1)
    grace = _grace(grace)
    source = as_source(tasks)
    pool: list[_Worker] = []
    try:
        while True:
            for w in pool:  # idle workers first
                if w.task is None:
                    task = _take_for(source, w.instance, pool)
                    if task is None:
                        break
                    w.give(task)
            while len(pool) < workers and not source.exhausted:
                task = _take_for(source, None, pool)  # (a new worker: no instance yet)
                if task is None:
                    break
                pool.append(_Worker())
                pool[-1].give(task)
            busy = [w for w in pool if w.task is not None]
            if not busy:
                if source.exhausted:
                    return
                time.sleep(_POLL)
                continue
            ready = wait(busy, timeout=_POLL)
            now = time.perf_counter()
            gone: list[_Worker] = []  # killed or dead: replaced when a task needs one
            for w in busy:
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
                        gone.append(w)
                    emit(row)
                    continue
                limit = _hard_limit(w.task, grace)
                if limit is not None and now - w.started > limit:
                    emit(overrun_row(w.task, now - w.started))
                    w.task = None
                    w.kill()
                    gone.append(w)
            pool = [w for w in pool if w not in gone]
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

    Raises
    ------
    InvalidInputError
        If ``grace`` is not a finite number >= 0.

    Examples
    --------
    >>> row = execute_task_guarded(Task(kind="sleep", instance_id="a", instance={},
    ...                                 method="-", time_limit=10))
    >>> row.ok, row.status
    (True, 'done')
    """
    limit = _hard_limit(task, _grace(grace))
    if limit is None:  # (no limit, or one no clock counts to)
        return execute_task(task)
    worker = _Worker()
    try:
        worker.give(task)
        if not _wait_for(worker, limit):
            return overrun_row(task, time.perf_counter() - worker.started)
        try:
            return worker.receive()
        except (EOFError, OSError, pickle.UnpicklingError):
            return failed_row(
                task,
                f"task process died (exit code {worker.process.poll()})",
                time.perf_counter() - worker.started,
            )
    finally:
        worker.kill()


def _wait_for(worker: _Worker, limit: float) -> bool:
    """Whether ``worker`` answers within ``limit`` seconds of its start (waits in
    pieces: ``wait`` refuses a timeout of more than about 24 days)."""
    from multiprocessing.connection import wait

    while True:
        left = worker.started + limit - time.perf_counter()
        if left <= 0:
            return False
        if wait([worker], timeout=min(left, _LONGEST_WAIT)):
            return True


def run_dask(
    tasks: Sequence[Task] | TaskSource,
    emit: Callable[[TaskRow], None],
    scheduler: Any,
    grace: float,
    *,
    connect_timeout: float = 10.0,
) -> None:
    """Run the tasks on a ``dask.distributed`` cluster (the ``dask`` backend).

    The client connects first (within ``connect_timeout`` seconds), then each task is
    submitted as soon as the source gives it, as ``execute_task_guarded(task, grace)``
    (a task with a time limit runs in a child process that can be killed); rows are
    emitted in completion order. A future that fails (lost worker, cancellation)
    becomes a failed row. A client created here is closed at the end.

    Parameters
    ----------
    tasks : sequence of Task or TaskSource
        The tasks.
    emit : callable
        Called with each ``TaskRow`` as soon as its task ends.
    scheduler : str or distributed.Client
        A scheduler address such as ``"tcp://10.0.0.1:8786"``, or a connected client.
    grace : float
        Seconds allowed past a task's ``time_limit`` before it is stopped.
    connect_timeout : float, default 10.0
        Seconds to wait for the scheduler to answer.

    Raises
    ------
    SolverUnavailableError
        If ``dask.distributed`` is not installed (``pip install 'allockit[dask]'``).
    InvalidInputError
        If ``grace`` is not a finite number >= 0, ``scheduler`` is empty, or it does
        not answer within ``connect_timeout`` seconds (the message names the address).
    ConnectionError
        If the scheduler goes away during the sweep: the tasks it held are not
        recorded (no failed row), so that a rerun of the sweep runs them. A worker
        killed in the middle of a task is not an error: the scheduler runs the task on
        another worker, and a task that kills every worker it runs on (``KilledWorker``)
        becomes a failed row.

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

    grace = _grace(grace)
    if not scheduler:
        raise InvalidInputError("the dask backend needs a scheduler address (--scheduler)")
    if importlib.util.find_spec("distributed") is None:
        raise SolverUnavailableError(
            "the dask backend needs dask.distributed: pip install 'allockit[dask]'"
        )
    from distributed import Client, wait

    own = not isinstance(scheduler, Client)
    if own:
        try:
            client = Client(scheduler, timeout=connect_timeout)
        except (OSError, TimeoutError) as exc:
            raise InvalidInputError(
                f"the Dask scheduler {scheduler!r} did not answer within {connect_timeout:g} s "
                f"({type(exc).__name__}); check --scheduler, or raise --connect-timeout"
            ) from None
    else:
        client = scheduler
    source = as_source(tasks)
    futures: dict[Any, Task] = {}
    address = scheduler if own else getattr(client, "scheduler", None) and client.scheduler.address

    def lost(why: str) -> ConnectionError:
        return ConnectionError(
            f"the Dask scheduler {address!r} went away ({why}) with {len(futures)} tasks "
            "unfinished; they are not recorded"
        )

    quiet = _Quiet()  # the client's own log lines about a lost scheduler: the error says it
    try:
        while True:
            if client.status != "running":
                raise lost(f"client {client.status}")
            while (task := source.take()) is not None:
                future = client.submit(
                    execute_task_guarded, task, grace, pure=False, key=f"allockit-{task.key}"
                )
                futures[future] = task
            if not futures:
                if source.exhausted:
                    return
                time.sleep(_POLL)
                continue
            try:
                done, _ = wait(list(futures), timeout=_POLL * 5, return_when="FIRST_COMPLETED")
            except TimeoutError:  # nothing finished yet: look at the source again
                continue
            except Exception as exc:  # the futures were cancelled: the scheduler is gone
                if client.status == "running" and not _connection_lost(exc):
                    raise
                raise lost(type(exc).__name__) from None
            for future in done:
                try:
                    row = future.result()
                except Exception as exc:  # lost worker (KilledWorker), unpicklable result...
                    if _connection_lost(exc) or client.status != "running":
                        raise lost(type(exc).__name__) from None
                    row = failed_row(futures[future], f"dask: {exc!r}", 0.0)
                del futures[future]
                emit(row)
    finally:
        if own:
            client.close()
        quiet.restore()


class _Quiet:
    """Silence Dask's client-side loggers (reconnect tracebacks) until ``restore``."""

    NAMES = ("distributed.client", "distributed.comm", "distributed.core", "distributed.batched")

    def __init__(self) -> None:
        import logging

        self.levels = {}
        for name in self.NAMES:
            logger = logging.getLogger(name)
            self.levels[name] = logger.level
            logger.setLevel(logging.CRITICAL + 1)

    def restore(self) -> None:
        import logging

        for name, level in self.levels.items():
            logging.getLogger(name).setLevel(level)


def _connection_lost(exc: BaseException) -> bool:
    """Whether a Dask error says the client lost its scheduler (not a task's failure)."""
    return "scheduler-connection-lost" in str(exc) or isinstance(exc, OSError)
