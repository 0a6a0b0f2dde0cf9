"""Online-scheduling workloads: jobs over time on a homogeneous cluster (DFRS, seed 002)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from allockit.checks import (  # (float_array, integer_array: imported by the instances)
    float_array,
    integer,
    integer_array,
    is_real,
    real_number,
)
from allockit.errors import InvalidInputError

__all__ = ["Platform", "Workload", "check_swf_times"]

_FLOAT_FIELDS = ("submit", "runtime", "cpu", "mem", "requested_time", "think_time")
_INT_FIELDS = ("ids", "tasks", "user", "queue", "preceding")
# Optional per-job fields that ``to_dict`` writes only when some job sets them.
_OPTIONAL = {"preceding": -1, "think_time": math.nan}
# Fields without a default: the constructor, ``from_dict`` and ``from_jobs`` need them.
_REQUIRED = ("ids", "submit", "runtime", "tasks", "cpu", "mem")


@dataclass(frozen=True, slots=True)
class Platform:
    """A homogeneous cluster: ``nodes`` nodes of ``cores`` cores and ``node_memory`` bytes.

    Each value is an integer >= 1 (a float of integer value, ``4.0``, is taken as one;
    ``Platform(nodes=2.5)`` is refused).

    Examples
    --------
    >>> Platform(nodes=128, cores=4).node_memory
    2147483648
    """

    nodes: int
    cores: int = 1
    node_memory: int = 2 * 1024**3

    def __post_init__(self) -> None:
        for name in ("nodes", "cores", "node_memory"):
            value = integer(f"Platform.{name}", getattr(self, name), minimum=1)
            object.__setattr__(self, name, value)

    def to_dict(self) -> dict[str, int]:
        """JSON form."""
        return {"nodes": self.nodes, "cores": self.cores, "node_memory": self.node_memory}


def _field(name: str, values: Any, n: int | None, source: str = "") -> np.ndarray:
    """A read-only copy of one per-job field, of its dtype and ``n`` entries."""
    convert = float_array if name in _FLOAT_FIELDS else integer_array
    if is_real(values) or (isinstance(values, np.ndarray) and values.ndim == 0):
        values = [values]  # (one job given as a number, as before)
    array = convert(name, values)
    if n is not None and array.shape != (n,):
        raise InvalidInputError(
            f"{name} must have one entry per job ({n}{source}); got {array.size}"
        )
    array.setflags(write=False)
    return array


@dataclass(frozen=True, slots=True)
class Workload:
    """Jobs of an online-scheduling experiment and the platform they run on.

    Per job ``k``: ``ids[k]``, submit time ``submit[k]`` (s), processing time on a
    dedicated system ``runtime[k]`` (s), ``tasks[k]`` tasks each needing CPU ``cpu[k]``
    (fraction of a node, ``1/cores`` for a sequential task on a multi-core node) and
    memory ``mem[k]`` (fraction of a node), the user's runtime estimate
    ``requested_time[k]`` (NaN when absent), and ``user`` / ``queue`` (-1 when absent).
    Jobs are kept in submission order.

    Feedback (SWF fields 17 and 18): ``preceding[k]`` is the id of a job that must end
    before job ``k`` is submitted (-1: none) and ``think_time[k]`` the seconds between
    that end and the submission (NaN: none). A simulator that honours them submits job
    ``k`` at ``end(preceding) + think_time``; ``submit[k]`` then holds the open-arrival
    approximation (the time it would be submitted if nothing waited), which simulators
    that ignore feedback use as is.

    Checks: every field is one-dimensional with one entry per job (``submit`` sets the
    count); integer fields (``ids``, ``tasks``, ``user``, ``queue``, ``preceding``) take
    floats of integer value (``3.0``) but refuse fractions, NaN and strings (never
    truncated); ``submit`` finite and >= 0 and sorted, ``runtime`` finite and > 0,
    ``tasks`` >= 1, ``cpu`` in (0, 1], ``mem`` in [0, 1], ``requested_time`` NaN or +inf
    (unknown) or > 0, ``think_time`` NaN or finite and >= 0, ids unique. The constructor accepts a
    ``preceding`` id that is not in the workload (an excerpt, e.g. ``select`` or one
    week of a trace: simulators submit that job at its open-arrival time);
    ``from_jobs`` refuses one. Preceding jobs that form a cycle are refused (none of
    them could ever be submitted).

    Examples
    --------
    >>> w = Workload.from_jobs(Platform(nodes=4), submit=[0, 10], runtime=[100, 50],
    ...                        tasks=[2, 1], cpu=[1.0, 1.0], mem=[0.1, 0.5])
    >>> w.n_jobs, w.offered_load(), Workload.from_dict(w.to_dict()) == w
    (2, 6.25, True)
    """

    platform: Platform
    ids: np.ndarray
    submit: np.ndarray
    runtime: np.ndarray
    tasks: np.ndarray
    cpu: np.ndarray
    mem: np.ndarray
    requested_time: np.ndarray = field(default=None)  # type: ignore[assignment]
    user: np.ndarray = field(default=None)  # type: ignore[assignment]
    queue: np.ndarray = field(default=None)  # type: ignore[assignment]
    preceding: np.ndarray = field(default=None)  # type: ignore[assignment]
    think_time: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if not isinstance(self.platform, Platform):
            raise InvalidInputError(
                f"Workload.platform must be a Platform; got {type(self.platform).__name__}"
            )
        submit = _field("submit", self.submit, None)
        n = submit.size
        missing = np.full(n, np.nan)
        none = np.full(n, -1)
        defaults = {
            "requested_time": missing,
            "user": none,
            "queue": none,
            "preceding": none,
            "think_time": missing,
        }
        for name in _FLOAT_FIELDS + _INT_FIELDS:
            value = getattr(self, name)
            if value is None:
                value = defaults[name]
            object.__setattr__(self, name, submit if name == "submit" else _field(name, value, n))
        self._validate()

    def _validate(self) -> None:
        def bad(mask: np.ndarray, text: str, values: np.ndarray) -> None:
            hit = np.flatnonzero(mask)
            if hit.size:
                k = int(hit[0])
                raise InvalidInputError(
                    f"{text}; got {values[k].item()!r} at job {int(self.ids[k])}"
                )

        bad(
            ~np.isfinite(self.submit) | (self.submit < 0),
            "submit must be finite and >= 0",
            self.submit,
        )
        bad(
            ~np.isfinite(self.runtime) | (self.runtime <= 0),
            "runtime must be finite and > 0",
            self.runtime,
        )
        bad(self.tasks < 1, "tasks must be >= 1", self.tasks)
        bad(self.tasks > self.platform.nodes * 10**6, "tasks is implausibly large", self.tasks)
        bad(
            ~np.isfinite(self.cpu) | (self.cpu <= 0) | (self.cpu > 1),
            "cpu must be in (0, 1]",
            self.cpu,
        )
        bad(
            ~np.isfinite(self.mem) | (self.mem < 0) | (self.mem > 1),
            "mem must be in [0, 1]",
            self.mem,
        )
        bad(
            np.diff(self.submit, prepend=-math.inf) < 0,
            "jobs must be sorted by submit time",
            self.submit,
        )
        bad(
            ~np.isnan(self.requested_time) & ~(self.requested_time > 0),
            "requested_time must be NaN or +inf (unknown) or > 0 (an SWF file's -1 or 0 "
            "for unknown is read as NaN)",
            self.requested_time,
        )
        ids, counts = np.unique(self.ids, return_counts=True)
        if ids.size != self.ids.size:
            twice = int(np.argmax(counts > 1))
            raise InvalidInputError(
                f"job ids must be unique; got {int(ids[twice])} {int(counts[twice])} times"
            )
        bad(
            (self.preceding < -1) | (self.preceding == self.ids),
            "preceding must be -1 or the id of another job",
            self.preceding,
        )
        self._refuse_feedback_cycles()
        bad(
            ~np.isnan(self.think_time) & (~np.isfinite(self.think_time) | (self.think_time < 0)),
            "think_time must be NaN (none) or finite and >= 0",
            self.think_time,
        )

    def _refuse_feedback_cycles(self) -> None:
        """Refuse preceding jobs that form a cycle (no job of it could ever be submitted).

        Each job has at most one preceding job, so following ``preceding`` from any job
        either leaves the workload (-1, or an id outside it) or enters a cycle. Pointer
        doubling finds the jobs on a cycle in O(n log n) numpy steps.
        """
        if not (self.preceding >= 0).any():
            return
        order = np.argsort(self.ids, kind="stable")
        at = np.searchsorted(self.ids, self.preceding, sorter=order)
        at = np.minimum(at, self.ids.size - 1)
        found = (self.preceding >= 0) & (self.ids[order[at]] == self.preceding)
        ahead = np.where(found, order[at], -1)  # index of the preceding job, or -1
        steps = 1
        while steps < ahead.size:  # ahead[k]: the 2^i-th job before k (or -1)
            ahead = np.where(ahead >= 0, ahead[ahead], -1)
            steps *= 2
        on_cycle = np.flatnonzero(ahead >= 0)  # still inside after n steps: a cycle
        if on_cycle.size:
            k = int(ahead[on_cycle[0]])  # n steps in: on the cycle itself
            raise InvalidInputError(
                f"preceding jobs form a cycle (job {int(self.ids[k])} is on it, preceded "
                f"by job {int(self.preceding[k])}): none of its jobs could ever be submitted"
            )

    # ------------------------------------------------------------------ derived data
    @property
    def n_jobs(self) -> int:
        """Number of jobs."""
        return int(self.submit.size)

    def work(self) -> np.ndarray:
        """CPU work of each job: ``runtime * tasks * cpu`` (node-seconds)."""
        return self.runtime * self.tasks * self.cpu

    def offered_load(self) -> float:
        """Total work over the platform's capacity during the submission span.

        ``sum(runtime * tasks * cpu) / (nodes * (last submit - first submit))``; the span
        is taken as the largest runtime when all jobs arrive at once.
        """
        span = float(self.submit[-1] - self.submit[0]) if self.n_jobs > 1 else 0.0
        if span <= 0:
            span = float(self.runtime.max())
        return float(self.work().sum() / (self.platform.nodes * span))

    def scale_arrivals(self, factor: float) -> Workload:
        """Multiply every inter-arrival time by ``factor`` (the first submit stays).

        Parameters
        ----------
        factor : float
            A finite number > 0.

        Returns
        -------
        Workload
            The rescaled copy.

        Raises
        ------
        InvalidInputError
            If ``factor`` is not a finite number > 0.

        Examples
        --------
        >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 10], runtime=[5, 5],
        ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.1, 0.1])
        >>> w.scale_arrivals(2.0).submit.tolist()
        [0.0, 20.0]
        """
        factor = real_number("factor", factor, above=0)
        start = self.submit[0] if self.n_jobs else 0.0
        return self.replace(submit=start + (self.submit - start) * factor)

    def with_load(self, load: float) -> Workload:
        """Scale inter-arrival times so that the offered load equals ``load``.

        Parameters
        ----------
        load : float
            The offered load wanted, a finite number > 0.

        Returns
        -------
        Workload
            The rescaled copy.

        Raises
        ------
        InvalidInputError
            If ``load`` is not a finite number > 0.

        Examples
        --------
        >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 10], runtime=[5, 5],
        ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.1, 0.1])
        >>> w.with_load(0.5).submit.tolist()
        [0.0, 20.0]
        """
        load = real_number("load", load, above=0)
        return self.scale_arrivals(self.offered_load() / load)

    def select(self, mask: np.ndarray) -> Workload:
        """The jobs where ``mask`` is true (still sorted by submit time)."""
        mask = np.asarray(mask)
        return self.replace(**{n: getattr(self, n)[mask] for n in _FLOAT_FIELDS + _INT_FIELDS})

    def replace(self, **changes: Any) -> Workload:
        """A copy with some fields changed."""
        data = {n: getattr(self, n) for n in ("platform", *_FLOAT_FIELDS, *_INT_FIELDS)}
        data.update(changes)
        return Workload(**data)

    # ------------------------------------------------------------------ constructors / JSON
    @classmethod
    def from_jobs(
        cls,
        platform: Platform,
        *,
        submit,
        runtime,
        tasks,
        cpu,
        mem,
        requested_time=None,
        ids=None,
        user=None,
        queue=None,
        preceding=None,
        think_time=None,
    ) -> Workload:
        """Build from per-job sequences (ids default to 1..n); sorts by submit time.

        Parameters
        ----------
        platform : Platform
            The cluster.
        submit, runtime, tasks, cpu, mem : array_like
            One entry per job (see the class for their meaning and ranges); every
            sequence given must have as many entries as ``submit``.
        requested_time, ids, user, queue, preceding, think_time : array_like, optional
            One entry per job; default NaN (requested and think time), ``1..n`` (ids)
            and -1 (user, queue, preceding).

        Returns
        -------
        Workload
            The jobs sorted by submit time (stable: ties keep their order).

        Raises
        ------
        InvalidInputError
            If a sequence is not one-dimensional, has the wrong length or an entry out
            of range (``tasks[3] must be an integer; got 2.5``), or a ``preceding`` id
            is not the id of a job of the workload.
        """
        submit = _field("submit", submit, None)
        n = submit.size
        order = np.argsort(submit, kind="stable")

        def pick(name: str, values: Any, default: float) -> np.ndarray:
            if values is None:
                return np.full(n, default)[order]
            return _field(name, values, n, ", the length of submit")[order]

        ids = np.arange(1, n + 1)[order] if ids is None else pick("ids", ids, 0)
        preceding = pick("preceding", preceding, -1)
        outside = (preceding >= 0) & ~np.isin(preceding, ids)
        if outside.any():
            k = int(np.argmax(outside))
            raise InvalidInputError(
                f"preceding must be -1 or the id of another job; got {int(preceding[k])} at "
                f"job {int(ids[k])} (no job has that id)"
            )
        return cls(
            platform=platform,
            ids=ids,
            submit=submit[order],
            runtime=pick("runtime", runtime, 0),
            tasks=pick("tasks", tasks, 1),
            cpu=pick("cpu", cpu, 1.0),
            mem=pick("mem", mem, 0.1),
            requested_time=pick("requested_time", requested_time, np.nan),
            user=pick("user", user, -1),
            queue=pick("queue", queue, -1),
            preceding=preceding,
            think_time=pick("think_time", think_time, np.nan),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the platform and one list per field.

        ``preceding`` and ``think_time`` are written only when some job has them.
        """
        out: dict[str, Any] = {"problem": "workload", "platform": self.platform.to_dict()}
        for name in _INT_FIELDS + _FLOAT_FIELDS:
            values = getattr(self, name)
            if name in _OPTIONAL and self._unset(name):
                continue
            if name in _INT_FIELDS:
                out[name] = values.tolist()
            else:
                out[name] = [None if math.isnan(v) else v for v in values.tolist()]
        return out

    def _unset(self, name: str) -> bool:
        values = getattr(self, name)
        return bool(np.isnan(values).all() if name in _FLOAT_FIELDS else (values == -1).all())

    @property
    def has_feedback(self) -> bool:
        """True when some job waits for a preceding job (SWF field 17)."""
        return not self._unset("preceding")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Workload:
        """Inverse of ``to_dict``.

        Parameters
        ----------
        data : Mapping
            ``{"platform": {"nodes", "cores", "node_memory"}, "ids": [...], "submit":
            [...], ...}``: one list per field, ``null`` for a missing float (NaN).

        Returns
        -------
        Workload
            The jobs, checked as by the constructor.

        Raises
        ------
        InvalidInputError
            If the object is not a mapping, the platform or a required field is
            missing, a field is not a list, or a value is out of range.
        """
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"a workload must be an object; got {type(data).__name__}")
        absent = [name for name in ("platform", *_REQUIRED) if name not in data]
        if absent:
            raise InvalidInputError(f"workload object is missing {', '.join(absent)}")
        if not isinstance(data["platform"], Mapping):
            raise InvalidInputError(
                f"workload platform must be an object; got {data['platform']!r}"
            )
        try:
            platform = Platform(**data["platform"])
        except TypeError as exc:
            raise InvalidInputError(f"workload platform is malformed: {exc}") from None
        # an optional field given as null takes its default, as when it is absent
        values = {
            n: data[n] for n in _INT_FIELDS + _FLOAT_FIELDS
            if n in data and not (data[n] is None and n not in _REQUIRED)
        }
        for name, value in values.items():
            if not isinstance(value, list | tuple | np.ndarray):
                raise InvalidInputError(f"workload {name} must be a list; got {value!r}")
            if name in _FLOAT_FIELDS:
                values[name] = [np.nan if v is None else v for v in value]
        return cls(platform=platform, **values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Workload):
            return NotImplemented
        return self.platform == other.platform and all(
            np.array_equal(getattr(self, n), getattr(other, n), equal_nan=n in _FLOAT_FIELDS)
            for n in _FLOAT_FIELDS + _INT_FIELDS
        )

    __hash__ = None  # type: ignore[assignment]


def check_swf_times(workload: Workload, *, load: float | None = None) -> Workload:
    """Refuse a generated workload whose times an SWF file cannot hold (the generators' check).

    SWF readers (allockit's among them, ``instances.schemas.SWF_FIELDS_SCHEMA``) accept
    times up to ``allockit.constants.MAX_SECONDS`` (1e10 s); a generator asked for a
    tiny load would otherwise write submit times that every other command refuses.

    Parameters
    ----------
    workload : Workload
        The generated jobs.
    load : float, optional
        The offered load the generator was asked for (named in the message, with the
        smallest load that fits: submit times scale as 1 / load).

    Returns
    -------
    Workload
        ``workload``, unchanged.

    Raises
    ------
    InvalidInputError
        If a submit time, run time or requested time exceeds 1e10 s.

    Examples
    --------
    >>> w = Workload.from_jobs(Platform(nodes=4), submit=[0, 5e10], runtime=[10, 10],
    ...                        tasks=[1, 1], cpu=[1, 1], mem=[0.1, 0.1])
    >>> check_swf_times(w, load=0.001)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: load 0.001 puts submit times up to 5e+10 s, beyond \
the 1e+10 s an SWF file holds; for 2 jobs use a load of at least 0.00505
    """
    from allockit.constants import MAX_SECONDS

    fields = (("submit", workload.submit), ("runtime", workload.runtime),
              ("requested_time", workload.requested_time))
    for name, values in fields:
        finite = values[np.isfinite(values)]
        top = float(finite.max()) if finite.size else 0.0
        if top <= MAX_SECONDS:
            continue
        if name == "submit" and load is not None:
            least = float(f"{load * top / MAX_SECONDS * 1.01:.3g}")
            raise InvalidInputError(
                f"load {load:g} puts submit times up to {top:.3g} s, beyond the "
                f"{MAX_SECONDS:g} s an SWF file holds; for {workload.n_jobs} jobs use a "
                f"load of at least {least:g}"
            )
        raise InvalidInputError(
            f"the generated {name} reaches {top:.3g} s, beyond the {MAX_SECONDS:g} s an SWF "
            "file holds"
        )
    return workload
