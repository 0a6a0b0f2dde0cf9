"""The VCSched instance: jobs with CPU needs and memory requirements on identical hosts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from allockit.checks import integer, real_number
from allockit.constants import MAX_HOSTS, MAX_TASKS
from allockit.errors import InvalidInputError
from allockit.instances.workload import float_array, integer_array

__all__ = ["VCInstance"]


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _host(value: Any, name: str) -> int:
    """A previous host index of job ``name``: an integer >= 0 (``2.0`` too, not ``2.5``)."""
    return integer(f"previous of job {name!r}", value, minimum=0)


def _per_job(what: str, values: Any, n: int) -> list[Any]:
    """``values`` as a list of one entry per job, or an error naming ``what``."""
    scalar = isinstance(values, np.ndarray) and values.ndim == 0
    if scalar or isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise InvalidInputError(f"{what} must be a list with one entry per job; got {values!r}")
    entries = list(values)
    if len(entries) != n:
        raise InvalidInputError(f"{what} must have one entry per job ({n}); got {len(entries)}")
    return entries


@dataclass(frozen=True, slots=True)
class VCInstance:
    """A VCSched instance (Stillwell et al. 2009, Sec. 2.3, 5 and 6).

    ``hosts`` identical hosts with CPU and memory capacity 1. Job ``i`` has ``tasks[i]``
    identical tasks, each needing CPU ``cpu[i]`` in (0, 1] (the fraction of a host it uses
    alone) and memory ``mem[i]`` >= 0. A memory requirement above 1 is allowed: such an
    instance is infeasible, and solving it says so.

    For migration-bounded adaptation (paper Sec. 6), ``previous`` holds for every task
    (flattened in job order) the host it ran on, or -1 for a newly arrived job;
    ``migration_budget`` bounds the migrated memory in host-memory units and
    ``max_migrations`` the number of migrated tasks. Either or both may be None
    (unbounded).

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.8], mem=[0.3, 0.6])
    >>> inst.n_jobs, inst.n_tasks, inst.job_names
    (2, 2, ('j0', 'j1'))
    >>> VCInstance.from_dict(inst.to_dict()) == inst
    True
    """

    hosts: int
    job_names: tuple[str, ...]
    cpu: np.ndarray
    mem: np.ndarray
    tasks: np.ndarray = field(default=None)  # type: ignore[assignment]
    previous: np.ndarray = field(default=None)  # type: ignore[assignment]
    migration_budget: float | None = None
    max_migrations: int | None = None

    def __post_init__(self) -> None:
        hosts = integer("VCInstance.hosts", self.hosts, minimum=1, maximum=MAX_HOSTS)
        object.__setattr__(self, "hosts", hosts)
        names = tuple(self.job_names)
        n = len(names)
        if n == 0:
            raise InvalidInputError("VCInstance.jobs must hold at least one job; got none")
        for name in names:
            if not isinstance(name, str) or not name:
                raise InvalidInputError(f"job name must be a non-empty string; got {name!r}")
        if len(set(names)) != n:
            seen: set[str] = set()
            for name in names:
                if name in seen:
                    raise InvalidInputError(f"job names must be unique; got {name!r} twice")
                seen.add(name)
        object.__setattr__(self, "job_names", names)

        cpu = self._vector(self.cpu, "cpu", n)
        mem = self._vector(self.mem, "mem", n)
        for i in np.flatnonzero(~((cpu > 0.0) & (cpu <= 1.0)))[:1]:
            raise InvalidInputError(
                f"cpu must be in (0, 1]; got {float(cpu[i])!r} at job {names[i]!r}"
            )
        for i in np.flatnonzero(mem < 0.0)[:1]:
            raise InvalidInputError(f"mem must be >= 0; got {float(mem[i])!r} at job {names[i]!r}")
        object.__setattr__(self, "cpu", _readonly(cpu))
        object.__setattr__(self, "mem", _readonly(mem))

        raw_tasks = np.ones(n, dtype=np.int64) if self.tasks is None else self.tasks
        tasks = integer_array("tasks", raw_tasks)
        if tasks.shape != (n,):
            raise InvalidInputError(f"tasks must have one entry per job ({n}); got {tasks.size}")
        for i in np.flatnonzero(tasks < 1)[:1]:
            raise InvalidInputError(f"tasks must be >= 1; got {int(tasks[i])} at job {names[i]!r}")
        n_tasks = int(tasks.sum())
        if n_tasks > MAX_TASKS:
            raise InvalidInputError(
                f"VCInstance has {n_tasks} tasks; at most {MAX_TASKS} "
                "(allockit.constants.MAX_TASKS) can be allocated"
            )
        object.__setattr__(self, "tasks", _readonly(tasks))

        if self.previous is None:
            previous = np.full(n_tasks, -1, dtype=np.int64)
        else:
            previous = integer_array("previous", self.previous)
        if previous.shape != (n_tasks,):
            raise InvalidInputError(
                f"previous must have one host per task ({n_tasks}); got {previous.size}"
            )
        if self.previous is not None:
            task_job = np.repeat(np.arange(n), tasks)
            for t in np.flatnonzero((previous < -1) | (previous >= hosts))[:1]:
                raise InvalidInputError(
                    f"previous host must be in [0, {hosts - 1}] or null; got {int(previous[t])} "
                    f"at job {names[task_job[t]]!r}"
                )
            starts = np.concatenate(([0], np.cumsum(tasks)[:-1]))
            placed = np.add.reduceat((previous >= 0).astype(np.int64), starts)
            for i in np.flatnonzero((placed > 0) & (placed < tasks))[:1]:
                block = previous[starts[i] : starts[i] + tasks[i]]
                raise InvalidInputError(
                    f"previous must give a host for every task of a job, or be null; "
                    f"got {block.tolist()} at job {names[i]!r}"
                )
        object.__setattr__(self, "previous", _readonly(previous))

        if self.migration_budget is not None:
            budget = real_number("migration_budget", self.migration_budget, at_least=0)
            object.__setattr__(self, "migration_budget", budget)
        if self.max_migrations is not None:
            count = integer("max_migrations", self.max_migrations, minimum=0)
            object.__setattr__(self, "max_migrations", count)

    def _vector(self, values: Any, field_name: str, n: int) -> np.ndarray:
        array = float_array(field_name, values)
        if array.shape != (n,):
            raise InvalidInputError(
                f"{field_name} must have one entry per job ({n}); got {array.size}"
            )
        bad = np.flatnonzero(~np.isfinite(array))
        if bad.size:
            i = int(bad[0])
            raise InvalidInputError(
                f"{field_name} must be finite; got {float(array[i])!r} at job {self.job_names[i]!r}"
            )
        return array

    # ------------------------------------------------------------------ derived data
    @property
    def n_jobs(self) -> int:
        """Number of jobs."""
        return len(self.job_names)

    @property
    def n_tasks(self) -> int:
        """Number of tasks over all jobs."""
        return int(self.tasks.sum())

    @property
    def task_job(self) -> np.ndarray:
        """The job index of every task, tasks listed job by job."""
        return np.repeat(np.arange(self.n_jobs), self.tasks)

    @property
    def is_parallel(self) -> bool:
        """True if some job has more than one task."""
        return bool((self.tasks > 1).any())

    @property
    def is_adaptation(self) -> bool:
        """True if a migration budget or a migration count limit applies."""
        return self.migration_budget is not None or self.max_migrations is not None

    def previous_counts(self) -> np.ndarray:
        """Tasks of each job previously on each host, shape ``(n_jobs, hosts)``."""
        counts = np.zeros((self.n_jobs, self.hosts), dtype=np.int64)
        placed = self.previous >= 0
        np.add.at(counts, (self.task_job[placed], self.previous[placed]), 1)
        return counts

    def with_migration_budget_bytes(
        self, budget_bytes: float, *, host_memory_bytes: float
    ) -> VCInstance:
        """Return a copy whose migration budget is ``budget_bytes`` (paper eq. 31).

        Parameters
        ----------
        budget_bytes : float
            The budget in bytes, finite and >= 0.
        host_memory_bytes : float
            The memory of one host in bytes, finite and > 0.

        Returns
        -------
        VCInstance
            The same jobs with ``migration_budget = budget_bytes / host_memory_bytes``.

        Raises
        ------
        InvalidInputError
            If either number is not finite or out of range.

        Examples
        --------
        >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5], mem=[0.5], previous=[0])
        >>> inst.with_migration_budget_bytes(2**30, host_memory_bytes=2**32).migration_budget
        0.25
        """
        host_memory = real_number("host_memory_bytes", host_memory_bytes, above=0)
        budget = real_number("budget_bytes", budget_bytes)
        return VCInstance(
            hosts=self.hosts,
            job_names=self.job_names,
            cpu=self.cpu,
            mem=self.mem,
            tasks=self.tasks,
            previous=self.previous,
            migration_budget=budget / host_memory,
            max_migrations=self.max_migrations,
        )

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_lists(
        cls,
        *,
        hosts: int,
        cpu: Sequence[float],
        mem: Sequence[float],
        tasks: Sequence[int] | None = None,
        names: Sequence[str] | None = None,
        previous: Sequence[int | Sequence[int] | None] | None = None,
        migration_budget: float | None = None,
        max_migrations: int | None = None,
    ) -> VCInstance:
        """Build an instance from plain lists; ``previous`` is per job (see ``from_dict``).

        Parameters
        ----------
        hosts : int
            Identical hosts, >= 1.
        cpu, mem : sequence of float
            CPU need in (0, 1] and memory >= 0 of each job's tasks; ``cpu`` sets the
            number of jobs.
        tasks : sequence of int, optional
            Tasks per job (>= 1; default 1); floats of integer value are taken, 2.5 is
            refused.
        names : sequence of str, optional
            Job names (default ``j0``, ``j1``, ...).
        previous : sequence, optional
            Per job: None (a new job), a host index (every task there) or one host index
            per task.
        migration_budget : float, optional
            Bound on the migrated memory (host-memory units), >= 0.
        max_migrations : int, optional
            Bound on the number of migrated tasks, >= 0.

        Returns
        -------
        VCInstance
            The checked instance.

        Raises
        ------
        InvalidInputError
            If a sequence does not have one entry per job, an entry is not a number (or
            not an integer where one is needed) or out of range, or a name repeats.

        Examples
        --------
        >>> VCInstance.from_lists(hosts=1, cpu=[1.0], mem=[0.5], tasks=[2]).n_tasks
        2
        """
        cpu = float_array("cpu", cpu)
        n = cpu.size
        names = [f"j{i}" for i in range(n)] if names is None else _per_job("names", names, n)
        tasks = np.ones(n, dtype=np.int64) if tasks is None else integer_array("tasks", tasks)
        if tasks.shape != (n,):
            raise InvalidInputError(f"tasks must have one entry per job ({n}); got {tasks.size}")
        per_job = [None] * n if previous is None else _per_job("previous", previous, n)
        flat = _flatten_previous(per_job, tasks.tolist(), names)
        return cls(
            hosts=hosts,
            job_names=tuple(names),
            cpu=cpu,
            mem=mem,
            tasks=tasks,
            previous=flat,
            migration_budget=migration_budget,
            max_migrations=max_migrations,
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> VCInstance:
        """Build an instance from its JSON object, checking every field.

        The object is checked by the schema ``allockit.instances.schemas.VCSCHED``
        (strict types, finite numbers, ranges, no unknown field), then by the
        constructor (unique names, previous hosts within ``hosts``). ``previous`` of a
        job is null (a new job), a host index (every task on that host) or a list with
        one host index per task.

        Parameters
        ----------
        data : Mapping
            ``{"problem": "vcsched", "hosts": H, "jobs": [{"name", "cpu", "mem",
            "tasks", "previous"}, ...], "migration_budget": ..., "max_migrations": ...}``.

        Returns
        -------
        VCInstance
            The validated instance.

        Raises
        ------
        InvalidInputError
            On a missing or unknown field, a value of the wrong type or out of range;
            the message names the field's path, the value and what is allowed.

        Examples
        --------
        >>> VCInstance.from_dict({"problem": "vcsched", "hosts": 1,
        ...     "jobs": [{"name": "a", "cpu": 2, "mem": 0}]})
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: jobs[0].cpu must be a number in (0, 1]; got 2 at job 'a'
        """
        from allockit.instances.schemas import VCSCHED, validate

        doc = validate(VCSCHED, data, name="the instance")
        jobs = doc["jobs"]
        n = len(jobs)
        names = [job["name"] for job in jobs]
        cpu = np.fromiter((job["cpu"] for job in jobs), dtype=np.float64, count=n)
        mem = np.fromiter((job["mem"] for job in jobs), dtype=np.float64, count=n)
        tasks = np.fromiter((job.get("tasks", 1) for job in jobs), dtype=np.int64, count=n)
        per_job = [job.get("previous") for job in jobs]
        previous = None
        if any(prev is not None for prev in per_job):
            previous = _flatten_previous(per_job, tasks.tolist(), names, doc["hosts"])
        return cls(
            hosts=doc["hosts"],
            job_names=tuple(names),
            cpu=cpu,
            mem=mem,
            tasks=tasks,
            previous=previous,
            migration_budget=doc.get("migration_budget"),
            max_migrations=doc.get("max_migrations"),
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this instance (inverse of ``from_dict``)."""
        jobs = []
        start = 0
        for i, name in enumerate(self.job_names):
            t = int(self.tasks[i])
            block = self.previous[start : start + t]
            start += t
            if block[0] < 0:
                prev: int | list[int] | None = None
            elif t == 1:
                prev = int(block[0])
            else:
                prev = [int(h) for h in block]
            jobs.append(
                {
                    "name": name,
                    "cpu": float(self.cpu[i]),
                    "mem": float(self.mem[i]),
                    "tasks": t,
                    "previous": prev,
                }
            )
        out: dict[str, Any] = {
            "problem": "vcsched",
            "hosts": self.hosts,
            "jobs": jobs,
            "migration_budget": self.migration_budget,
        }
        if self.max_migrations is not None:
            out["max_migrations"] = self.max_migrations
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VCInstance):
            return NotImplemented
        return (
            self.hosts == other.hosts
            and self.job_names == other.job_names
            and np.array_equal(self.cpu, other.cpu)
            and np.array_equal(self.mem, other.mem)
            and np.array_equal(self.tasks, other.tasks)
            and np.array_equal(self.previous, other.previous)
            and self.migration_budget == other.migration_budget
            and self.max_migrations == other.max_migrations
        )

    __hash__ = None  # type: ignore[assignment]


def _flatten_previous(
    per_job: list[Any], tasks: list[int], names: list[Any], hosts: int | None = None
) -> np.ndarray:
    """Per-job ``previous`` (null, a host, or a host per task) as one host per task.

    With ``hosts`` (from ``from_dict``) the messages name the field's path
    (``jobs[3].previous``) and hosts are checked against the instance's host count.
    """
    flat: list[int] = []
    for k, (prev, t, name) in enumerate(zip(per_job, tasks, names, strict=True)):
        where = "previous" if hosts is None else f"jobs[{k}].previous"
        if isinstance(prev, np.ndarray) and prev.ndim == 0:
            prev = prev.item()
        if prev is None:
            flat.extend([-1] * max(t, 0))
            continue
        many = isinstance(prev, list | tuple | np.ndarray)
        given = [_host(h, name) for h in prev] if many else None
        if many and len(given) != t:
            raise InvalidInputError(
                f"{where} must list one host per task ({t}); got {len(given)} at job {name!r}"
            )
        host_list = given if many else [_host(prev, name)] * max(t, 0)
        if hosts is not None and any(h >= hosts for h in host_list):
            shown = given if many else host_list[0]
            raise InvalidInputError(
                f"{where} must hold host indices in [0, {hosts - 1}]; got {shown} at job {name!r}"
            )
        flat.extend(host_list)
    return np.asarray(flat, dtype=np.int64)
