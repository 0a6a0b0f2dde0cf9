"""The online-scheduler protocol: ``Policy``, written against by FCFS, EASY and your own.

A scheduler is an object with a ``schedule(cluster, now)`` method (and optional hooks).
The simulator owns the clock (the event core, ``allockit.simulation.events``), the jobs
and the platform; it calls the policy at its decision points and the policy acts through
the ``cluster`` it is handed. The built-in FCFS and EASY (``allockit.simulation.batch``)
are written against this protocol, so a scheduler of your own runs the same way, on the
same event core, and gets every metric and plot the built-ins get
(``simulate(workload, MyPolicy())``, ``allockit simulate FILE --algorithm
MODULE:CLASS``).

The protocol
------------
Required:

- ``schedule(cluster, now)``: called once per instant, after every event of that
  instant (completions first, then submissions by job index, then the tick), with
  ``now`` the simulation time in seconds. Start jobs with ``cluster.start(job)``.

Optional (looked up with ``getattr``; ``BasePolicy`` gives the defaults):

- ``name`` (str): recorded as the result's ``algorithm`` when the policy object is
  passed directly (default: the class name; a spec records the spec as given).
- ``model`` (str): the platform the policy schedules. ``"batch"`` (default): each job
  gets ``width[job]`` units (whole nodes, or cores with ``unit="cores"``) exclusively
  from its start to its end, no preemption. The DFRS algorithms schedule the fractional
  model of ``allockit.simulation.dfrs`` (shared nodes, yields, preemption and
  migration); it has its own driver.
- ``period`` (float or None): seconds between two ticks (``on_tick``), counted from the
  first submission, while jobs are in the system (default None: no ticks).
- ``start(cluster)``: called once before the first event of a run (reset any state
  kept from an earlier run here).
- ``on_submit(cluster, job, now)``, ``on_complete(cluster, job, now)``,
  ``on_tick(cluster, now)``: called for each event, before ``schedule``.

What a batch policy sees: ``BatchCluster`` (``queue``: the waiting jobs in submission
order; ``running``: job -> the end the scheduler expects; ``free`` and ``capacity``
units; ``width``, ``estimate``, ``submit`` per job; ``workload`` for everything else)
and what it can do: ``start(job)``, plus the helpers ``fits(job)`` and
``reservation(job)`` (EASY's shadow time and extra units). Job indices are positions in
``workload`` (``workload.ids[job]`` is the SWF id).

The simulator keeps its own record and holds a policy to the platform: ``free`` and the
start and end times cannot be written, ``start`` takes integer job indices of waiting
jobs that fit the free units, ``queue`` and ``running`` changed other than through
``start`` stop the run, and the finished schedule is checked
(``batch.check_schedule``); each error names the policy and the job. A ``period`` is
capped at ``MAX_PERIODS`` ticks per run.

Examples
--------
The worked example: shortest job first, with EASY's reservation for the shortest
waiting job so that long jobs cannot starve behind a stream of short ones.

>>> class ShortestFirst(BasePolicy):
...     '''SJF order; the first job that does not fit gets EASY's reservation.'''
...     name = "SJF-EASY"
...
...     def schedule(self, cluster, now):
...         order = sorted(cluster.queue, key=lambda j: (cluster.estimate[j], j))
...         while order and cluster.fits(order[0]):
...             cluster.start(order.pop(0))
...         if not order:
...             return
...         shadow, extra = cluster.reservation(order[0])
...         for job in order[1:]:
...             if not cluster.fits(job):
...                 continue
...             if now + cluster.estimate[job] <= shadow:
...                 cluster.start(job)  # ends before the reservation
...             elif cluster.width[job] <= extra:
...                 cluster.start(job)  # uses nodes the reserved job leaves free
...                 extra -= cluster.width[job]
>>> from allockit.instances.workload import Platform, Workload
>>> from allockit.simulation.simulate import simulate
>>> w = Workload.from_jobs(Platform(nodes=2), submit=[0, 1, 1], runtime=[100, 300, 10],
...                        tasks=[2, 2, 1], cpu=[1, 1, 1], mem=[0.1, 0.1, 0.1])
>>> simulate(w, ShortestFirst()).start.tolist()   # the short job overtakes the long one
[0.0, 110.0, 100.0]
>>> simulate(w, "EASY").start.tolist()
[0.0, 100.0, 400.0]
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Protocol, runtime_checkable

import numpy as np

from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload

__all__ = ["MODELS", "BasePolicy", "BatchCluster", "Policy", "is_policy", "policy_name"]

#: The platforms a policy can schedule (its ``model`` attribute).
MODELS = ("batch", "fractional")


@runtime_checkable
class Policy(Protocol):
    """An online scheduler: ``schedule(cluster, now)`` at every instant (see the module).

    Examples
    --------
    >>> isinstance(BasePolicy(), Policy), isinstance(object(), Policy)
    (True, False)
    """

    def schedule(self, cluster: Any, now: float) -> None:
        """Decide at time ``now``: start jobs through ``cluster``."""


class BasePolicy:
    """A convenient base for policies: the optional hooks as no-ops, batch model.

    Subclasses override ``schedule`` (and any hook they need).

    Examples
    --------
    >>> class Idle(BasePolicy):
    ...     pass
    >>> Idle().model, Idle().period, policy_name(Idle())
    ('batch', None, 'Idle')
    """

    model: str = "batch"
    period: float | None = None

    def start(self, cluster: Any) -> None:
        """Called once before a run's first event."""

    def on_submit(self, cluster: Any, job: int, now: float) -> None:
        """Called when ``job`` is submitted (it is already in ``cluster.queue``)."""

    def on_complete(self, cluster: Any, job: int, now: float) -> None:
        """Called when ``job`` ends (its units are already free)."""

    def on_tick(self, cluster: Any, now: float) -> None:
        """Called every ``period`` seconds while jobs are in the system."""

    def schedule(self, cluster: Any, now: float) -> None:
        """Start nothing (override to schedule)."""


def is_policy(value: Any) -> bool:
    """Whether ``value`` is a policy object (has a callable ``schedule``; not a class).

    Parameters
    ----------
    value : Any
        What the user passed as the algorithm.

    Returns
    -------
    bool
        True for an instance implementing ``Policy``.

    Examples
    --------
    >>> is_policy(BasePolicy()), is_policy(BasePolicy), is_policy("EASY")
    (True, False, False)
    """
    return not isinstance(value, type) and isinstance(value, Policy)


def policy_name(policy: Any) -> str:
    """The name a policy object records: its ``name`` attribute, else its class name.

    Parameters
    ----------
    policy : Policy
        A policy object.

    Returns
    -------
    str
        A non-empty name.

    Examples
    --------
    >>> policy_name(BasePolicy())
    'BasePolicy'
    """
    name = getattr(policy, "name", None)
    return name if isinstance(name, str) and name else type(policy).__name__


class BatchCluster:
    """The batch platform as a policy sees it: queue, running jobs, free units, ``start``.

    Units are whole nodes (``unit="nodes"``, a job takes one per task) or cores
    (``unit="cores"``, a job takes ``tasks * cpu * cores``). The simulator builds one per
    run; a policy reads it and calls ``start``. The simulator keeps its own record of
    each job (waiting, running, finished) and of the units in use: ``free`` cannot be
    assigned, ``start`` checks the job against that record, the start and end times are
    read-only, and a policy that changes ``queue`` or ``running`` (other than through
    ``start``) is stopped with an error naming it and the job.

    Parameters
    ----------
    workload : Workload
        The jobs and the platform.
    unit : {"nodes", "cores"}
        What a job holds.
    estimates : bool
        The policy sees the requested run times (True) or the true ones.
    name : str, optional
        The policy's name, for the errors (``run_batch`` gives it).

    Attributes
    ----------
    workload : Workload
        The jobs and the platform.
    capacity : int
        Units of the platform.
    free : int
        Units not held by a running job (read-only: the simulator counts them).
    width : numpy.ndarray of int64 (read-only)
        Units each job holds while it runs.
    estimate : numpy.ndarray of float (read-only)
        The run time the scheduler expects for each job: the true processing time, or
        the requested time with ``estimates=True`` (the true time when a job has none).
    submit : numpy.ndarray of float (read-only)
        Submission times.
    queue : list of int
        Waiting jobs in submission order (read it; ``start`` takes a job out).
    running : dict of int to float
        Running job -> the end the scheduler expects (its start plus its estimate; read
        it, the simulator keeps it).
    start_time, end_time : numpy.ndarray of float (read-only)
        Each job's start and end (NaN until it starts).
    now : float
        The simulation time.

    Raises
    ------
    InvalidInputError
        For an unknown unit or a job needing more units than the platform has.

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0], runtime=[10, 20],
    ...                        tasks=[1, 2], cpu=[1, 1], mem=[0.1, 0.1])
    >>> c = BatchCluster(w, "nodes", estimates=False)
    >>> c.enqueue(0); c.enqueue(1); c.start(0)
    >>> c.free, c.running, c.fits(1), c.reservation(1)
    (1, {0: 10.0}, False, (10.0, 0))
    >>> c.start(1)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: policy started job 1 (id 2), which needs 2 nodes; \
1 free
    >>> c.start(0.9)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: policy started job 0.9: a job must be an integer in \
[0, 1]
    >>> c.free = 5
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: policy set BatchCluster.free to 5: it is read-only \
(the simulator counts the free units; start jobs with start(job))
    """

    def __init__(
        self, workload: Workload, unit: str, *, estimates: bool, name: str | None = None
    ) -> None:
        if unit not in ("cores", "nodes"):
            raise InvalidInputError(f"unit must be 'cores' or 'nodes'; got {unit!r}")
        self.workload = workload
        self.unit = unit
        self._who = "policy" if name is None else f"policy {name!r}"
        if unit == "nodes":
            self.capacity = int(workload.platform.nodes)
            width = workload.tasks.astype(np.int64)
        else:
            self.capacity = int(workload.platform.nodes * workload.platform.cores)
            width = np.maximum(1, np.rint(workload.tasks * workload.cpu * workload.platform.cores))
            width = width.astype(np.int64)
        too_big = np.flatnonzero(width > self.capacity)
        if too_big.size:
            k = int(too_big[0])
            raise InvalidInputError(
                f"job {int(workload.ids[k])} needs {int(width[k])} {unit}; the platform has "
                f"{self.capacity}"
            )
        runtime = workload.runtime
        guess = runtime.copy()
        if estimates:
            guess = np.where(np.isfinite(workload.requested_time), workload.requested_time, runtime)
        self.width = _readonly(width)
        self.estimate = _readonly(np.asarray(guess, dtype=float))
        self.submit = workload.submit
        self.queue: list[int] = []
        self.running: dict[int, float] = {}
        self.now = float(workload.submit[0]) if workload.n_jobs else 0.0
        n = workload.n_jobs
        # the simulator's own record, which the policy reads through views
        self._used = 0  # units held by running jobs
        self._state = np.full(n, _FUTURE, dtype=np.int8)
        self._n_waiting = 0
        self._n_running = 0
        self._start = np.full(n, np.nan)
        self._end = np.full(n, np.nan)
        self.start_time = _Times.of(self._start, f"{self._who}: BatchCluster.start_time")
        self.end_time = _Times.of(self._end, f"{self._who}: BatchCluster.end_time")
        self._starts: list[int] = []  # jobs started since the simulator last looked

    @property
    def free(self) -> int:
        """Units not held by a running job (the simulator's count; read-only)."""
        return self.capacity - self._used

    @free.setter
    def free(self, value: object) -> None:
        raise InvalidInputError(
            f"{self._who} set BatchCluster.free to {value!r}: it is read-only (the simulator "
            "counts the free units; start jobs with start(job))"
        )

    @property
    def waiting(self) -> np.ndarray:
        """Per job, whether it waits in the queue (a read-only copy of the simulator's record)."""
        out = self._state == _WAITING
        out.setflags(write=False)
        return out

    def _job(self, job: int) -> str:
        return f"job {job} (id {int(self.workload.ids[job])})"

    def enqueue(self, job: int) -> None:
        """The simulator's: ``job`` was submitted and now waits (at the queue's end)."""
        job = int(job)
        if self._state[job] != _FUTURE:
            raise InvalidInputError(
                f"{self._who} enqueued {self._job(job)}, which was submitted already "
                "(enqueue is the simulator's)"
            )
        self._state[job] = _WAITING
        self._n_waiting += 1
        self.queue.append(job)

    def fits(self, job: int) -> bool:
        """Whether ``job`` fits in the free units now."""
        return bool(self.width[job] <= self.capacity - self._used)

    def start(self, job: int) -> None:
        """Start a waiting job now: it holds ``width[job]`` units until it ends.

        Parameters
        ----------
        job : int
            A job in ``queue`` (an integer; a float of integer value is taken, never
            truncated).

        Raises
        ------
        InvalidInputError
            If the job is not an integer index, is not waiting or does not fit, or the
            policy took it out of ``queue`` itself (a policy's bug, named).
        """
        if not (type(job) is int and 0 <= job < self._state.size):  # (the usual case)
            job = self._index(job)
        if self._state[job] != _WAITING:
            if job in self.queue:  # (put there by the policy)
                raise self._corrupted(self.now)
            state = _STATES[int(self._state[job])]
            raise InvalidInputError(f"{self._who} started {self._job(job)}, which is {state}")
        size = int(self.width[job])
        free = self.capacity - self._used
        if size > free:
            raise InvalidInputError(
                f"{self._who} started {self._job(job)}, which needs {size} {self.unit}; "
                f"{free} free"
            )
        try:
            self.queue.remove(job)
        except ValueError:
            raise self._corrupted(self.now) from None
        self._state[job] = _RUNNING
        self._n_waiting -= 1
        self._n_running += 1
        now = self.now
        self._used += size
        self._start[job] = now
        self._end[job] = now + self.workload.runtime[job]
        self.running[job] = float(max(now + self.estimate[job], now))
        self._starts.append(job)

    def _index(self, job: object) -> int:
        """``job`` as a job index, or an error naming the policy and the value."""
        n = self._state.size
        if isinstance(job, np.ndarray) and job.ndim == 0:
            job = job.item()
        whole = isinstance(job, numbers.Integral) or (
            isinstance(job, float | np.floating) and float(job).is_integer()
        )
        if isinstance(job, bool | np.bool_) or not whole or not 0 <= job < n:
            raise InvalidInputError(
                f"{self._who} started job {job!r}: a job must be an integer in [0, {n - 1}]"
            )
        return int(job)

    def _finish(self, job: int, now: float) -> None:
        """The simulator's: running ``job`` ends at ``now`` and frees its units."""
        if self.running.pop(job, _GONE) is _GONE:
            raise self._corrupted(now)
        self._state[job] = _DONE
        self._n_running -= 1
        self._used -= int(self.width[job])

    def _check(self, now: float) -> None:
        """The simulator's, after each instant: ``queue`` and ``running`` hold its jobs.

        Compares their lengths with its own counts (the full comparison only to name
        the difference).
        """
        if len(self.queue) != self._n_waiting or len(self.running) != self._n_running:
            raise self._corrupted(now)

    def _corrupted(self, now: float) -> InvalidInputError:
        """The error for a ``queue`` or ``running`` the policy changed, naming a job."""
        for attr, held, status in (
            ("queue", self.queue, _WAITING),
            ("running", self.running, _RUNNING),
        ):
            want = np.flatnonzero(self._state == status).tolist()
            try:
                have = list(held)
            except TypeError:  # (replaced by something else)
                have = None
            if have is not None and sorted(have, key=repr) == sorted(want, key=repr):
                continue
            what = f"{self._who} changed BatchCluster.{attr} (read it; the simulator keeps it)"
            if have is None or not isinstance(held, list | dict):
                return InvalidInputError(f"{what}: it is a {type(held).__name__} at {now:g} s")
            missing = sorted(set(want) - set(have))
            if missing:
                state = _STATES[status]
                return InvalidInputError(
                    f"{what}: {self._job(missing[0])} is {state} but not in it at {now:g} s"
                )
            wanted = set(want)
            extra = next(k for k in have if k not in wanted or have.count(k) > 1)
            return InvalidInputError(
                f"{what}: it holds {extra!r} at {now:g} s, which is not a {_STATES[status]} "
                "job (or is there twice)"
            )
        return InvalidInputError(  # pragma: no cover - the counts and states agree
            f"{self._who} changed the simulator's record of the jobs at {now:g} s"
        )

    def reservation(self, job: int) -> tuple[float, int]:
        """EASY's reservation for ``job``: when enough units are expected, and the spare.

        Running jobs are released in the order of their expected ends (a job past its
        estimate is expected now), until ``job`` would fit.

        Parameters
        ----------
        job : int
            The job to reserve for (usually the head of the queue).

        Returns
        -------
        (float, int)
            The *shadow* time (the earliest expected time ``job`` fits; ``inf`` if
            never) and the *extra* units: those still free at the shadow time once the
            job has its units (a job that does not end by then may use them).
        """
        need = int(self.width[job])
        avail = self.capacity - self._used
        shadow = math.inf
        now = self.now
        for k, expected in sorted(self.running.items(), key=lambda kv: (max(kv[1], now), kv[0])):
            avail += int(self.width[k])
            if avail >= need:
                shadow = float(max(expected, now))
                break
        return shadow, avail - need


_FUTURE, _WAITING, _RUNNING, _DONE = 0, 1, 2, 3
_STATES = ("not submitted yet", "waiting", "running", "finished")
_GONE = object()


class _Times(np.ndarray):
    """A read-only view of the simulator's start or end times whose writes name the policy."""

    _what = "times"

    @classmethod
    def of(cls, values: np.ndarray, what: str) -> _Times:
        view = values.view(cls)
        view._what = what
        view.setflags(write=False)
        return view

    def __setitem__(self, key: Any, value: Any) -> None:
        raise InvalidInputError(
            f"{self._what}[{key!r}] = {value!r}: the start and end times are read-only "
            "(the simulator sets them: a job ends its run time after it starts)"
        )


def _readonly(values: np.ndarray) -> np.ndarray:
    values = np.array(values, copy=True)
    values.setflags(write=False)
    return values
