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
    run; a policy reads it and calls ``start``.

    Attributes
    ----------
    workload : Workload
        The jobs and the platform.
    capacity : int
        Units of the platform.
    free : int
        Units not held by a running job.
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
        Running job -> the end the scheduler expects (its start plus its estimate).
    now : float
        The simulation time.

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
    """

    def __init__(self, workload: Workload, unit: str, *, estimates: bool) -> None:
        if unit not in ("cores", "nodes"):
            raise InvalidInputError(f"unit must be 'cores' or 'nodes'; got {unit!r}")
        self.workload = workload
        self.unit = unit
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
        self.free = self.capacity
        self.queue: list[int] = []
        self.running: dict[int, float] = {}
        self.now = float(workload.submit[0]) if workload.n_jobs else 0.0
        n = workload.n_jobs
        self.start_time = np.full(n, np.nan)
        self.end_time = np.full(n, np.nan)
        self.waiting = np.zeros(n, dtype=bool)  # in the queue (kept by the simulator)
        self._starts: list[int] = []  # jobs started since the simulator last looked

    def enqueue(self, job: int) -> None:
        """The simulator's: ``job`` was submitted and now waits (at the queue's end)."""
        self.queue.append(int(job))
        self.waiting[job] = True

    def fits(self, job: int) -> bool:
        """Whether ``job`` fits in the free units now."""
        return bool(self.width[job] <= self.free)

    def start(self, job: int) -> None:
        """Start a waiting job now: it holds ``width[job]`` units until it ends.

        Parameters
        ----------
        job : int
            A job in ``queue``.

        Raises
        ------
        InvalidInputError
            If the job is not waiting or does not fit (a policy's bug, named).
        """
        job = int(job)
        if not 0 <= job < self.waiting.size or not self.waiting[job]:
            state = "running" if job in self.running else "not waiting"
            ident = f" (id {int(self.workload.ids[job])})" if 0 <= job < self.waiting.size else ""
            raise InvalidInputError(f"policy started job {job}{ident}, which is {state}")
        size = int(self.width[job])
        if size > self.free:
            raise InvalidInputError(
                f"policy started job {job} (id {int(self.workload.ids[job])}), which needs "
                f"{size} {self.unit}; {self.free} free"
            )
        self.queue.remove(job)
        self.waiting[job] = False
        now = self.now
        self.free -= size
        self.start_time[job] = now
        self.end_time[job] = now + self.workload.runtime[job]
        self.running[job] = float(max(now + self.estimate[job], now))
        self._starts.append(job)

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
        avail = self.free
        shadow = math.inf
        now = self.now
        for k, expected in sorted(self.running.items(), key=lambda kv: (max(kv[1], now), kv[0])):
            avail += int(self.width[k])
            if avail >= need:
                shadow = float(max(expected, now))
                break
        return shadow, avail - need


def _readonly(values: np.ndarray) -> np.ndarray:
    values = np.array(values, copy=True)
    values.setflags(write=False)
    return values
