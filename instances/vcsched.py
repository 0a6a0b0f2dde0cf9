"""The VCSched instance: jobs with CPU needs and memory requirements on identical hosts."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from allockit.errors import InvalidInputError

__all__ = ["VCInstance"]

_JOB_FIELDS = {"name", "cpu", "mem", "tasks", "previous"}
_JOB_REQUIRED = {"name", "cpu", "mem"}
_TOP_FIELDS = {"problem", "hosts", "jobs", "migration_budget", "max_migrations"}
_TOP_REQUIRED = {"problem", "hosts", "jobs"}


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _check_number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidInputError(f"{where} must be a number; got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise InvalidInputError(f"{where} must be finite; got {number!r}")
    return number


def _check_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise InvalidInputError(f"{where} must be an integer; got {value!r}")
    return int(value)


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
        hosts = _check_int(self.hosts, "VCInstance.hosts")
        if hosts < 1:
            raise InvalidInputError(f"VCInstance.hosts must be >= 1; got {hosts}")
        object.__setattr__(self, "hosts", hosts)
        names = tuple(self.job_names)
        n = len(names)
        if n == 0:
            raise InvalidInputError("VCInstance.jobs must hold at least one job; got none")
        seen: set[str] = set()
        for name in names:
            if not isinstance(name, str) or not name:
                raise InvalidInputError(f"job name must be a non-empty string; got {name!r}")
            if name in seen:
                raise InvalidInputError(f"job names must be unique; got {name!r} twice")
            seen.add(name)
        object.__setattr__(self, "job_names", names)

        cpu = self._vector(self.cpu, "cpu", n)
        mem = self._vector(self.mem, "mem", n)
        for i, name in enumerate(names):
            if not (0.0 < cpu[i] <= 1.0):
                raise InvalidInputError(
                    f"cpu must be in (0, 1]; got {float(cpu[i])!r} at job {name!r}"
                )
            if mem[i] < 0.0:
                raise InvalidInputError(f"mem must be >= 0; got {float(mem[i])!r} at job {name!r}")
        object.__setattr__(self, "cpu", _readonly(cpu))
        object.__setattr__(self, "mem", _readonly(mem))

        raw_tasks = np.ones(n, dtype=np.int64) if self.tasks is None else self.tasks
        tasks = np.array(raw_tasks, dtype=np.int64, copy=True).reshape(-1)
        if tasks.shape != (n,):
            raise InvalidInputError(f"tasks must have one entry per job ({n}); got {tasks.size}")
        for i, name in enumerate(names):
            if tasks[i] < 1:
                raise InvalidInputError(f"tasks must be >= 1; got {int(tasks[i])} at job {name!r}")
        object.__setattr__(self, "tasks", _readonly(tasks))

        n_tasks = int(tasks.sum())
        if self.previous is None:
            previous = np.full(n_tasks, -1, dtype=np.int64)
        else:
            previous = np.array(self.previous, dtype=np.int64, copy=True).reshape(-1)
        if previous.shape != (n_tasks,):
            raise InvalidInputError(
                f"previous must have one host per task ({n_tasks}); got {previous.size}"
            )
        task_job = np.repeat(np.arange(n), tasks)
        for t in np.flatnonzero((previous < -1) | (previous >= hosts)):
            raise InvalidInputError(
                f"previous host must be in [0, {hosts - 1}] or null; got {int(previous[t])} "
                f"at job {names[task_job[t]]!r}"
            )
        starts = np.concatenate(([0], np.cumsum(tasks)[:-1]))
        for i, name in enumerate(names):
            block = previous[starts[i] : starts[i] + tasks[i]]
            if (block < 0).any() and (block >= 0).any():
                raise InvalidInputError(
                    f"previous must give a host for every task of a job, or be null; "
                    f"got {block.tolist()} at job {name!r}"
                )
        object.__setattr__(self, "previous", _readonly(previous))

        if self.migration_budget is not None:
            budget = _check_number(self.migration_budget, "migration_budget")
            if budget < 0:
                raise InvalidInputError(f"migration_budget must be >= 0; got {budget}")
            object.__setattr__(self, "migration_budget", budget)
        if self.max_migrations is not None:
            count = _check_int(self.max_migrations, "max_migrations")
            if count < 0:
                raise InvalidInputError(f"max_migrations must be >= 0; got {count}")
            object.__setattr__(self, "max_migrations", count)

    def _vector(self, values: Any, field_name: str, n: int) -> np.ndarray:
        try:
            array = np.array(values, dtype=np.float64, copy=True).reshape(-1)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"{field_name} must be numbers; got {values!r}") from exc
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

        Examples
        --------
        >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5], mem=[0.5], previous=[0])
        >>> inst.with_migration_budget_bytes(2**30, host_memory_bytes=2**32).migration_budget
        0.25
        """
        host_memory = _check_number(host_memory_bytes, "host_memory_bytes")
        if host_memory <= 0:
            raise InvalidInputError(f"host_memory_bytes must be > 0; got {host_memory}")
        budget = _check_number(budget_bytes, "budget_bytes")
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

        Examples
        --------
        >>> VCInstance.from_lists(hosts=1, cpu=[1.0], mem=[0.5], tasks=[2]).n_tasks
        2
        """
        n = len(cpu)
        names = [f"j{i}" for i in range(n)] if names is None else list(names)
        tasks_list = [1] * n if tasks is None else [int(t) for t in tasks]
        per_job = [None] * n if previous is None else list(previous)
        if len(per_job) != n:
            raise InvalidInputError(
                f"previous must have one entry per job ({n}); got {len(per_job)}"
            )
        flat = _flatten_previous(per_job, tasks_list, names)
        return cls(
            hosts=hosts,
            job_names=tuple(names),
            cpu=np.asarray(cpu, dtype=float),
            mem=np.asarray(mem, dtype=float),
            tasks=np.asarray(tasks_list),
            previous=flat,
            migration_budget=migration_budget,
            max_migrations=max_migrations,
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> VCInstance:
        """Build an instance from its JSON object, checking every field.

        ``previous`` of a job is null (a new job), a host index (every task on that host)
        or a list with one host index per task.

        Raises
        ------
        InvalidInputError
            On a missing or unknown field, or a value out of range; the message names
            the job and the field.

        Examples
        --------
        >>> VCInstance.from_dict({"problem": "vcsched", "hosts": 1,
        ...     "jobs": [{"name": "a", "cpu": 2, "mem": 0}]})
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: cpu must be in (0, 1]; got 2.0 at job 'a'
        """
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"instance must be a JSON object; got {type(data).__name__}")
        missing = sorted(_TOP_REQUIRED - data.keys())
        if missing:
            raise InvalidInputError(f"instance is missing field {missing[0]!r}")
        unknown = sorted(set(data) - _TOP_FIELDS)
        if unknown:
            raise InvalidInputError(
                f"instance has unknown field {unknown[0]!r}; valid fields: {sorted(_TOP_FIELDS)}"
            )
        if data["problem"] != "vcsched":
            raise InvalidInputError(f"problem must be 'vcsched'; got {data['problem']!r}")
        jobs = data["jobs"]
        if not isinstance(jobs, list):
            raise InvalidInputError(f"jobs must be a list; got {type(jobs).__name__}")
        names, cpu, mem, tasks, previous = [], [], [], [], []
        for k, job in enumerate(jobs):
            where = f"jobs[{k}]"
            if not isinstance(job, Mapping):
                raise InvalidInputError(f"{where} must be an object; got {job!r}")
            label = repr(job["name"]) if "name" in job else where
            missing = sorted(_JOB_REQUIRED - job.keys())
            if missing:
                raise InvalidInputError(f"job {label} is missing field {missing[0]!r}")
            unknown = sorted(set(job) - _JOB_FIELDS)
            if unknown:
                raise InvalidInputError(
                    f"job {label} has unknown field {unknown[0]!r}; "
                    f"valid fields: {sorted(_JOB_FIELDS)}"
                )
            names.append(job["name"])
            cpu.append(_check_number(job["cpu"], f"cpu of job {label}"))
            mem.append(_check_number(job["mem"], f"mem of job {label}"))
            tasks.append(_check_int(job.get("tasks", 1), f"tasks of job {label}"))
            previous.append(job.get("previous"))
        budget = data.get("migration_budget")
        count = data.get("max_migrations")
        return cls.from_lists(
            hosts=_check_int(data["hosts"], "hosts"),
            cpu=cpu,
            mem=mem,
            tasks=tasks,
            names=names,
            previous=previous,
            migration_budget=budget,
            max_migrations=count,
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


def _flatten_previous(per_job: list[Any], tasks: list[int], names: list[Any]) -> np.ndarray:
    flat: list[int] = []
    for prev, t, name in zip(per_job, tasks, names, strict=True):
        if prev is None:
            flat.extend([-1] * max(t, 0))
        elif isinstance(prev, list | tuple | np.ndarray):
            hosts = [_check_int(h, f"previous of job {name!r}") for h in prev]
            if len(hosts) != t:
                raise InvalidInputError(
                    f"previous must list one host per task ({t}); got {len(hosts)} at job {name!r}"
                )
            if any(h < 0 for h in hosts):
                raise InvalidInputError(f"previous host must be >= 0; got {hosts} at job {name!r}")
            flat.extend(hosts)
        else:
            host = _check_int(prev, f"previous of job {name!r}")
            if host < 0:
                raise InvalidInputError(f"previous host must be >= 0; got {host} at job {name!r}")
            flat.extend([host] * max(t, 0))
    return np.asarray(flat, dtype=np.int64)
