"""``SimulationResult``: the schedule an online scheduler produced and its metrics.

One result type for every simulator that schedules jobs (batch FCFS/EASY, DFRS, the
two-tier MEASY family): per-job submit, first start and completion times, with the
metrics the papers report derived from them. ``to_dict`` holds everything (an exact
JSON round trip through ``from_dict``); ``summary`` is the compact JSON printed by
``allockit simulate``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from allockit.checks import integer, real_number
from allockit.constants import TAU
from allockit.errors import InvalidInputError
from allockit.results.base import Status, readonly_array, readonly_mapping
from allockit.results.job_metrics import bounded_slowdown, bounded_stretch

__all__ = ["JobTable", "SimulationResult"]

_ARRAYS = {
    "ids": np.int64,
    "submit": np.float64,
    "start": np.float64,
    "end": np.float64,
    "runtime": np.float64,
    "stretch": np.float64,
    "job_preemptions": np.int64,
    "job_migrations": np.int64,
    "timeline": np.float64,
}


class JobTable(Protocol):
    """What ``SimulationResult.from_schedule`` reads of a workload.

    ``allockit.instances.workload.Workload`` is one; the results layer names only the
    fields it needs, so it imports nothing above it.
    """

    @property
    def n_jobs(self) -> int: ...  # pragma: no cover - protocol

    @property
    def ids(self) -> np.ndarray: ...  # pragma: no cover - protocol

    @property
    def submit(self) -> np.ndarray: ...  # pragma: no cover - protocol

    @property
    def runtime(self) -> np.ndarray: ...  # pragma: no cover - protocol

    def work(self) -> np.ndarray: ...  # pragma: no cover - protocol


def _to_json(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Mapping):
        return {k: _to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_to_json(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """Per-job start/end times and the summary metrics of a simulated schedule.

    ``start`` is the first time a job ran, ``end`` its completion. ``job_preemptions`` /
    ``job_migrations`` count per job, ``preemption_bytes`` / ``migration_bytes`` the
    memory-image traffic they caused (``bytes_moved`` is the sum), and ``timeline`` has
    one row per event: ``(time, allocated CPU, CPU demand)`` in node units. ``extra``
    is a read-only mapping of simulator-specific data (e.g. DFRS's ``mcb8_calls``).
    ``status`` is ``Status.COMPLETED`` (a simulation that cannot complete raises; the
    one vocabulary of ``allockit.results.Status``).

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[100, 100],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.4, 0.4])
    >>> r = SimulationResult.from_schedule(w, "demo", np.array([0.0, 100.0]),
    ...                                    np.array([100.0, 200.0]), underutilization=0.0,
    ...                                    seconds=0.01)
    >>> r.max_stretch, r.mean_response_time, r.status is Status.COMPLETED
    (2.0, 150.0, True)
    >>> SimulationResult.from_dict(r.to_dict()).to_dict() == r.to_dict()
    True
    """

    algorithm: str
    ids: np.ndarray
    submit: np.ndarray
    start: np.ndarray
    end: np.ndarray
    runtime: np.ndarray
    stretch: np.ndarray
    underutilization: float
    normalized_underutilization: float
    preemptions: int
    migrations: int
    seconds: float
    job_preemptions: np.ndarray | None = None
    job_migrations: np.ndarray | None = None
    preemption_bytes: float = 0.0
    migration_bytes: float = 0.0
    timeline: np.ndarray | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    status: Status = Status.COMPLETED

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))
        if not isinstance(self.algorithm, str):
            raise InvalidInputError(f"algorithm must be a string; got {self.algorithm!r}")
        for name, dtype in _ARRAYS.items():
            object.__setattr__(self, name, readonly_array(getattr(self, name), dtype, name))
        self._check_jobs()
        if self.timeline is not None:
            if self.timeline.size % 3:
                raise InvalidInputError(
                    f"timeline must have rows of 3 (time, allocated, demand); got "
                    f"{self.timeline.size} numbers"
                )
            object.__setattr__(self, "timeline", self.timeline.reshape(-1, 3))
        object.__setattr__(self, "extra", readonly_mapping(self.extra))
        # numbers, never parsed from strings; NaN is no measurement
        for name in ("underutilization", "normalized_underutilization"):
            object.__setattr__(self, name, real_number(name, getattr(self, name)))
        for name in ("seconds", "preemption_bytes", "migration_bytes"):
            object.__setattr__(self, name, real_number(name, getattr(self, name), at_least=0))
        for name in ("preemptions", "migrations"):
            object.__setattr__(self, name, integer(name, getattr(self, name), minimum=0))

    def _check_jobs(self) -> None:
        """The per-job arrays: one entry per job each, and finite times."""
        n = self.ids.size
        for name in ("ids", "submit", "start", "end", "runtime", "stretch",
                     "job_preemptions", "job_migrations"):
            values = getattr(self, name)
            if values is None:
                continue
            if values.ndim != 1 or values.size != n:
                raise InvalidInputError(
                    f"{name} must have one entry per job ({n}); got shape {values.shape}"
                )
            if values.dtype.kind == "f" and not np.isfinite(values).all():
                k = int(np.flatnonzero(~np.isfinite(values))[0])
                raise InvalidInputError(f"{name}[{k}] must be a finite number; got {values[k]}")

    @classmethod
    def from_schedule(
        cls,
        workload: JobTable,
        algorithm: str,
        start: np.ndarray,
        end: np.ndarray,
        *,
        underutilization: float,
        seconds: float,
        job_preemptions: np.ndarray | None = None,
        job_migrations: np.ndarray | None = None,
        **more: Any,
    ) -> SimulationResult:
        """The result of a finished schedule: stretches, normalisation and totals derived.

        ``workload`` is the simulated ``allockit.instances.workload.Workload`` (any
        ``JobTable``: ids, submit and run times, work per job).
        """
        zeros = np.zeros(workload.n_jobs, dtype=np.int64)
        job_preemptions = zeros if job_preemptions is None else job_preemptions
        job_migrations = zeros if job_migrations is None else job_migrations
        total = float(workload.work().sum())
        return cls(
            algorithm=algorithm,
            ids=workload.ids,
            submit=workload.submit,
            start=start,
            end=end,
            runtime=workload.runtime,
            stretch=bounded_stretch(workload.submit, end, workload.runtime),
            underutilization=underutilization,
            normalized_underutilization=underutilization / total if total > 0 else 0.0,
            preemptions=int(job_preemptions.sum()),
            migrations=int(job_migrations.sum()),
            seconds=seconds,
            job_preemptions=job_preemptions,
            job_migrations=job_migrations,
            **more,
        )

    @property
    def max_stretch(self) -> float:
        """Largest bounded stretch."""
        return float(self.stretch.max())

    @property
    def mean_stretch(self) -> float:
        """Mean bounded stretch."""
        return float(self.stretch.mean())

    @property
    def makespan(self) -> float:
        """Last completion minus first submission."""
        return float(self.end.max() - self.submit.min())

    @property
    def bytes_moved(self) -> float:
        """Memory-image traffic of preemptions and migrations, in bytes."""
        return self.preemption_bytes + self.migration_bytes

    @property
    def turnaround(self) -> np.ndarray:
        """Completion minus submission, per job (the response time)."""
        return self.end - self.submit

    @property
    def mean_response_time(self) -> float:
        """Mean of completion minus submission (s)."""
        return float(self.turnaround.mean())

    @property
    def slowdown(self) -> np.ndarray:
        """Bounded slowdown per job, ``max(1, (C - r) / max(p, TAU))`` (MEASY paper)."""
        return bounded_slowdown(self.submit, self.end, self.runtime, TAU)

    @property
    def mean_bounded_slowdown(self) -> float:
        """Mean bounded slowdown (threshold ``TAU`` = 10 s)."""
        return float(self.slowdown.mean())

    def costs(self) -> dict[str, float]:
        """Preemption and migration costs as in Table 3 of the paper.

        Per hour of schedule (the makespan), per hour of submissions (first to last
        submission: the paper does not say which hour it divides by), per job, and the
        bandwidth their memory images use in bytes per second (over the makespan).

        Examples
        --------
        >>> from allockit.instances.workload import Platform, Workload
        >>> from allockit.simulation.dfrs import simulate_dfrs
        >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 10], runtime=[3600, 50],
        ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.6, 0.6])
        >>> r = simulate_dfrs(w, "GreedyP *")  # the second job preempts the first once
        >>> c = r.costs()
        >>> r.preemptions, c["preemptions_per_job"], round(c["preemptions_per_hour"], 3)
        (1, 0.5, 0.911)
        """
        hours = self.makespan / 3600.0 if self.makespan > 0 else math.inf
        span = float(self.submit.max() - self.submit.min()) if self.submit.size else 0.0
        submit_hours = span / 3600.0 if span > 0 else math.inf
        jobs = max(1, int(self.ids.size))
        return {
            "preemptions_per_hour": self.preemptions / hours,
            "migrations_per_hour": self.migrations / hours,
            "preemptions_per_submission_hour": self.preemptions / submit_hours,
            "migrations_per_submission_hour": self.migrations / submit_hours,
            "preemptions_per_job": self.preemptions / jobs,
            "migrations_per_job": self.migrations / jobs,
            "bandwidth_bytes_per_s": self.bytes_moved / (hours * 3600.0),
            "preemption_bandwidth_bytes_per_s": self.preemption_bytes / (hours * 3600.0),
            "migration_bandwidth_bytes_per_s": self.migration_bytes / (hours * 3600.0),
        }

    def job_rows(self, tasks: np.ndarray | None = None) -> list[dict[str, Any]]:
        """One dict per job (the ``--jobs-csv`` rows).

        Columns: id, submit, start, end, stretch, turnaround, runtime, tasks (when
        given), preemptions, migrations, response, bounded_slowdown, then one column per
        per-job array the simulator put in ``extra`` under a ``job_`` key (the prefix
        dropped).

        Examples
        --------
        >>> from allockit.instances.workload import Platform, Workload
        >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0], runtime=[100],
        ...                        tasks=[1], cpu=[1.0], mem=[0.4])
        >>> r = SimulationResult.from_schedule(w, "x", np.array([0.0]), np.array([100.0]),
        ...                                    underutilization=0.0, seconds=0.0)
        >>> r.job_rows(w.tasks)[0]["stretch"], list(r.job_rows()[0])[-2:]
        (1.0, ['response', 'bounded_slowdown'])
        """
        n = int(self.ids.size)
        extra = {
            key[len("job_") :]: np.asarray(value)
            for key, value in self.extra.items()
            if key.startswith("job_") and np.ndim(value) == 1 and len(value) == n
        }
        slowdown = self.slowdown
        rows = []
        for k in range(n):
            row: dict[str, Any] = {
                "id": int(self.ids[k]),
                "submit": float(self.submit[k]),
                "start": float(self.start[k]),
                "end": float(self.end[k]),
                "stretch": float(self.stretch[k]),
                "turnaround": float(self.end[k] - self.submit[k]),
                "runtime": float(self.runtime[k]),
            }
            if tasks is not None:
                row["tasks"] = int(tasks[k])
            row["preemptions"] = int(self.job_preemptions[k])
            row["migrations"] = int(self.job_migrations[k])
            row["response"] = row["turnaround"]
            row["bounded_slowdown"] = float(slowdown[k])
            for name, values in extra.items():
                row[name] = values[k].item()
            rows.append(row)
        return rows

    def summary(self) -> dict[str, Any]:
        """The JSON summary printed by ``allockit simulate`` (a stable contract)."""
        out = {
            "algorithm": self.algorithm,
            "status": str(self.status),
            "jobs": int(self.ids.size),
            "max_stretch": self.max_stretch,
            "mean_stretch": self.mean_stretch,
            "mean_response_time": self.mean_response_time,
            "mean_bounded_slowdown": self.mean_bounded_slowdown,
            "underutilization": self.normalized_underutilization,
            "underutilization_cpu_seconds": self.underutilization,
            "preemptions": self.preemptions,
            "migrations": self.migrations,
            "makespan": self.makespan,
            "seconds": self.seconds,
            **self.costs(),
        }
        for key, value in self.extra.items():
            if key.startswith("summary_"):
                out[key[len("summary_") :]] = _to_json(value)
        return out

    def to_dict(self) -> dict[str, Any]:
        """Everything in JSON-ready form (``from_dict`` rebuilds an equal result)."""
        out: dict[str, Any] = {
            "algorithm": self.algorithm,
            "status": str(self.status),
            "underutilization": self.underutilization,
            "normalized_underutilization": self.normalized_underutilization,
            "preemptions": self.preemptions,
            "migrations": self.migrations,
            "seconds": self.seconds,
            "preemption_bytes": self.preemption_bytes,
            "migration_bytes": self.migration_bytes,
        }
        for name in _ARRAYS:
            value = getattr(self, name)
            out[name] = None if value is None else value.tolist()
        out["extra"] = _to_json(dict(self.extra))
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SimulationResult:
        """Rebuild a result from ``to_dict``'s output."""
        try:
            kwargs = {name: data[name] for name in _ARRAYS}
            return cls(
                algorithm=data["algorithm"],
                underutilization=data["underutilization"],
                normalized_underutilization=data["normalized_underutilization"],
                preemptions=data["preemptions"],
                migrations=data["migrations"],
                seconds=data["seconds"],
                preemption_bytes=data["preemption_bytes"],
                migration_bytes=data["migration_bytes"],
                extra=dict(data.get("extra", {})),
                status=data.get("status", "completed"),
                **kwargs,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"simulation result object is malformed: {exc}") from exc
