"""The unit of work of a sweep: ``Task``, its row ``TaskRow``, and the registry of kinds.

A task kind maps a name (``"vcsched"``, ``"dfrs"``, ...) to the function that runs it,
given as ``"module:function"`` so that a worker process can import it by name. The
experiments (``allockit.experiments``) register their kinds when imported; the runner
(``allockit.runner``) runs tasks of any kind without importing a domain module. Five
diagnostic kinds live here: ``sleep``, ``fail``, ``spin``, ``mark`` (leaves a line in a
file, to count how often each task ran) and ``crash`` (ends the process running it).

Examples
--------
>>> row = execute_task(Task(kind="sleep", instance_id="x", instance={}, method="-"))
>>> row.ok, row.status, row.to_dict()["seconds"] == row.seconds
(True, 'done', True)
"""

from __future__ import annotations

import hashlib
import importlib
import json
import numbers
import reprlib
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from allockit.checks import integer, real_number
from allockit.constants import MAX_SEED
from allockit.errors import AllocKitError, InvalidInputError

__all__ = [
    "TASK_KINDS",
    "Task",
    "TaskRow",
    "execute_task",
    "failed_row",
    "json_data",
    "overrun_row",
    "register_task_kind",
]

#: Task kind -> ``"module:function"``; the function takes a Task and returns a dict of
#: outputs (with a ``status``).
TASK_KINDS: dict[str, str] = {
    "sleep": "allockit.tasks:_kind_sleep",
    "fail": "allockit.tasks:_kind_fail",
    "spin": "allockit.tasks:_kind_spin",
    "mark": "allockit.tasks:_kind_mark",
    "crash": "allockit.tasks:_kind_crash",
}


def register_task_kind(kind: str, target: str) -> None:
    """Register (or re-register) task kind ``kind`` run by ``target`` (``"module:function"``).

    The experiment modules call it at import time for their kinds (``"vcsched"``,
    ``"dfrs"``, ...). The target is imported by name in the worker, so it must be
    importable there; it is not imported or checked here beyond its form.

    Parameters
    ----------
    kind : str
        The kind's name, as given in ``Task.kind``.
    target : str
        ``"module:function"``; the function takes a ``Task`` and returns a dict of
        outputs with a ``"status"`` entry.

    Raises
    ------
    InvalidInputError
        If ``target`` is not of the form ``"module:function"``.

    Examples
    --------
    >>> register_task_kind("sleep", "allockit.tasks:_kind_sleep")
    >>> TASK_KINDS["sleep"]
    'allockit.tasks:_kind_sleep'
    """
    if not isinstance(target, str) or target.count(":") != 1:
        raise InvalidInputError(f"task kind target must be 'module:function'; got {target!r}")
    TASK_KINDS[kind] = target


def _resolve(target: str) -> Callable[[Task], dict[str, Any]]:
    module, name = target.split(":")
    return getattr(importlib.import_module(module), name)


_JSON_WORDS = "JSON data (str, number, bool, None, list, dict)"
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 60


def json_data(name: str, value: Any) -> Any:
    """``value`` as JSON data: numpy numbers as Python's, arrays as lists; else an error.

    Data that ``json`` writes as it is (Python's str, int, float, bool, None, lists,
    tuples, dicts) is returned unchanged, so its JSON text, and the key of a task that
    holds it, are what they always were. Numpy scalars become Python numbers, arrays
    lists of them (exact: never abbreviated), other real numbers floats. Anything else
    (a set, an object, a complex number, a loop) is refused, naming where it is.

    Parameters
    ----------
    name : str
        The field's name, for the error (``"params"``).
    value : object
        The value.

    Returns
    -------
    object
        The value, with its numpy parts as Python values.

    Raises
    ------
    InvalidInputError
        ``NAME[...] must be JSON data (...); got VALUE`` for a part that is not.

    Examples
    --------
    >>> json_data("params", {"tol": np.float32(0.5), "hosts": np.arange(3)})
    {'tol': 0.5, 'hosts': [0, 1, 2]}
    >>> json_data("params", {"tags": {1, 2}})
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: params['tags'] must be JSON data (str, number, \
bool, None, list, dict); got set {1, 2}
    """
    try:
        json.dumps(value, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        pass  # numpy values or worse: rebuilt below, or refused
    else:
        return value
    plain = _plain(name, value, set())
    try:
        json.dumps(plain, sort_keys=True)
    except TypeError as exc:  # keys of several types cannot be sorted
        raise InvalidInputError(f"{name} must be {_JSON_WORDS}: {exc}") from None
    return plain


def _plain(name: str, value: Any, path: set[int]) -> Any:
    """``value`` with numpy values as Python's (``json_data``); ``path``: ids above it."""
    if value is None or isinstance(value, str | bool):
        return value
    if isinstance(value, np.generic | np.ndarray):
        value = value.tolist()  # Python scalars (or nested lists), exact
        if value is None or isinstance(value, str | bool):
            return value
    if isinstance(value, numbers.Integral):
        return value if type(value) is int else int(value)
    if isinstance(value, numbers.Real):
        return value if type(value) is float else float(value)
    if isinstance(value, Mapping | list | tuple):
        if id(value) in path:
            raise InvalidInputError(f"{name} must be {_JSON_WORDS}; got a loop (it holds itself)")
        path.add(id(value))
        if isinstance(value, Mapping):
            out: Any = {_plain_key(name, k): _plain(f"{name}[{k!r}]", v, path)
                        for k, v in value.items()}
        else:
            items = [_plain(f"{name}[{i}]", v, path) for i, v in enumerate(value)]
            out = items if isinstance(value, list) else tuple(items)
        path.discard(id(value))
        return out
    shown = _SHORT.repr(value)
    raise InvalidInputError(f"{name} must be {_JSON_WORDS}; got {type(value).__name__} {shown}")


def _plain_key(name: str, key: Any) -> Any:
    """A dict key JSON takes (str, int, float, bool, None); numpy's as Python's."""
    if isinstance(key, np.generic):
        key = key.item()
    if key is None or isinstance(key, str | int | float):
        return key
    raise InvalidInputError(
        f"{name} keys must be str, int, float, bool or None; got {type(key).__name__} {key!r}"
    )


def _text(name: str, value: Any) -> str:
    """``value`` if it is a str, else an error naming ``name``."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{name} must be a str; got {_SHORT.repr(value)}")
    return value


def _time_limit(value: Any) -> int | float | None:
    """A task's time limit (> 0; infinite: no limit), or None.

    Python's ints and floats are kept as given (the key hashes ``30`` and ``30.0``
    differently, as it always did: stores written before keep their keys); numpy
    numbers become the Python number of the same kind.
    """
    checked = real_number("time_limit", value, above=0, finite=False, optional=True)
    if checked is None:
        return None
    if isinstance(value, int | np.integer) and abs(value) < 2**53:
        return int(value)
    return checked


@dataclass(frozen=True, slots=True)
class Task:
    """One unit of a sweep.

    ``instance`` is the instance's JSON object (sent to the worker as is) and
    ``instance_id`` its label in the results. The task's ``key`` hashes everything that
    determines the result, so a resumed sweep recognises finished tasks. ``target`` is
    filled from the registry of kinds (it travels with the task to the worker).

    A user's algorithm travels by name: ``method`` is the name rows record (the spec as
    the user gave it), ``spec`` what any process resolves (``allockit.plugins``: an
    absolute ``FILE.py:FUNCTION`` or ``MODULE:FUNCTION``), and ``sources`` the text of a
    spec's file, so that a worker on another machine loads the same code
    (``plugins.provide_sources``); the key hashes both, so a changed file is run again.
    ``function`` carries a callable that has no name another process could import (a
    lambda): such a task runs only in this process (the ``serial`` backend).

    The fields are checked when the task is made: ``kind``, ``instance_id`` and
    ``method`` are strings, ``seed`` is None or an integer in [0, ``MAX_SEED``] (a numpy
    integer becomes an int), ``time_limit`` is None or a number of seconds > 0 (an int
    stays an int, as the keys of existing stores need; an infinite limit is no limit),
    and ``instance`` and ``params`` are JSON data, numpy numbers and arrays becoming
    Python numbers and lists (``json_data``). A task made of numpy values thus has the
    key of the same task made of Python values.

    Raises
    ------
    InvalidInputError
        For an unknown kind or a field that breaks the rules above (the message names
        the field and the value).

    Examples
    --------
    >>> t = Task(kind="sleep", instance_id="none", instance={}, method="-",
    ...          params={"seconds": 0})
    >>> len(t.key), t.key == Task(kind="sleep", instance_id="none", instance={},
    ...                           method="-", params={"seconds": np.int64(0)}).key
    (24, True)
    >>> t.algorithm
    '-'
    >>> Task(kind="sleep", instance_id="none", instance={}, method="-", seed=2.5)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: seed must be an integer in [0, 9223372036854775807]; got 2.5
    """

    kind: str
    instance_id: str
    instance: dict[str, Any]
    method: str
    params: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    time_limit: float | None = None
    target: str = ""
    spec: str = ""
    sources: Mapping[str, str] = field(default_factory=dict)
    function: Callable[..., Any] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.kind, str) or self.kind not in TASK_KINDS:
            raise InvalidInputError(
                f"task kind must be one of {sorted(TASK_KINDS)}; got {self.kind!r}"
            )
        for name in ("instance_id", "method", "target", "spec"):
            _text(name, getattr(self, name))
        if not isinstance(self.params, Mapping):
            raise InvalidInputError(f"params must be a dict; got {_SHORT.repr(self.params)}")
        seed = None if self.seed is None else integer(
            "seed", self.seed, minimum=0, maximum=MAX_SEED
        )
        fixed = {
            "instance": json_data("instance", self.instance),
            "params": json_data("params", self.params),
            "seed": seed,
            "time_limit": _time_limit(self.time_limit),
            "target": self.target or TASK_KINDS[self.kind],
            "sources": _sources(self.sources),
        }
        for name, value in fixed.items():
            object.__setattr__(self, name, value)

    @property
    def algorithm(self) -> Any:
        """What the task's kind runs: ``function``, else ``spec``, else ``method``."""
        return self.function if self.function is not None else (self.spec or self.method)

    @property
    def key(self) -> str:
        """A stable identifier of the task (hash of its defining fields)."""
        fields: list[Any] = [
            self.kind,
            self.instance_id,
            self.instance,
            self.method,
            self.params,
            self.seed,
            self.time_limit,
        ]
        if self.spec or self.sources:  # (absent for built-ins: their keys never change)
            digests = {
                path: hashlib.sha256(text.encode()).hexdigest()
                for path, text in sorted(self.sources.items())
            }
            fields.append([self.spec, digests])
        blob = json.dumps(fields, sort_keys=True)  # (exact: checked JSON data, no str())
        return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _sources(sources: Any) -> dict[str, str]:
    """A task's ``sources`` as a dict of file path -> text, or an error."""
    if not isinstance(sources, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in sources.items()
    ):
        raise InvalidInputError(
            f"sources must map file paths (str) to their text (str); got {_SHORT.repr(sources)}"
        )
    return dict(sources)


#: Fields ``TaskRow.from_dict`` takes as they are (``ok`` checked).
_ROW_FIELDS = ("key", "kind", "instance", "method", "params", "seed", "ok", "status",
               "outputs", "error")


@dataclass(frozen=True, slots=True)
class TaskRow:
    """What one task produced: its identity, ``ok``, ``status``, outputs, error, seconds.

    ``seconds`` is the task's wall time (stored as ``wall_seconds``); ``to_dict`` gives
    the row the results store writes, ``from_dict`` reads one back.

    Examples
    --------
    >>> row = TaskRow(key="k", kind="sleep", instance="i", method="-", params={},
    ...               seed=None, ok=True, status="done", outputs={"x": 1}, error=None,
    ...               seconds=0.5)
    >>> TaskRow.from_dict(row.to_dict()) == row
    True
    """

    key: str
    kind: str
    instance: str
    method: str
    params: Mapping[str, Any]
    seed: int | None
    ok: bool
    status: str | None
    outputs: Mapping[str, Any]
    error: str | None
    seconds: float
    sweep: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The row as the results store writes it (``wall_seconds`` and ``seconds``)."""
        return {
            "key": self.key,
            "sweep": self.sweep,
            "kind": self.kind,
            "instance": self.instance,
            "method": self.method,
            "params": dict(self.params),
            "seed": self.seed,
            "ok": self.ok,
            "status": self.status,
            "outputs": dict(self.outputs),
            "error": self.error,
            "wall_seconds": self.seconds,
            "seconds": self.seconds,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TaskRow:
        """Rebuild a row from ``to_dict``'s output (or a row read from a store).

        Parameters
        ----------
        data : mapping
            The row's fields; ``seconds`` or, without it, ``wall_seconds``.

        Returns
        -------
        TaskRow

        Raises
        ------
        InvalidInputError
            If a field is missing, ``ok`` is not a bool, ``seed`` not None or an
            integer >= 0, ``seconds`` not a finite number >= 0, or ``params`` or
            ``outputs`` not a dict (never converted: ``"false"`` is not False).

        Examples
        --------
        >>> TaskRow.from_dict({"key": "k", "kind": "sleep", "instance": "i", "method": "-",
        ...                    "params": {}, "seed": None, "ok": "false", "status": "done",
        ...                    "outputs": {}, "error": None, "seconds": 0.5})
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: task row: ok must be a bool; got 'false'
        """
        try:
            fields = {name: data[name] for name in _ROW_FIELDS}
            seconds = data["seconds"] if "seconds" in data else data["wall_seconds"]
        except (KeyError, TypeError) as exc:
            raise InvalidInputError(f"task row is malformed: missing {exc}") from None
        if not isinstance(fields["ok"], bool | np.bool_):
            raise InvalidInputError(f"task row: ok must be a bool; got {fields['ok']!r}")
        for name in ("params", "outputs"):
            if not isinstance(fields[name], Mapping):
                raise InvalidInputError(f"task row: {name} must be a dict; got {fields[name]!r}")
        seed = fields["seed"]
        fields.update(
            params=dict(fields["params"]),
            outputs=dict(fields["outputs"]),
            ok=bool(fields["ok"]),
            seed=None if seed is None else integer(
                "task row: seed", seed, minimum=0, maximum=MAX_SEED
            ),
        )
        seconds = real_number("task row: seconds", seconds, at_least=0)
        return cls(**fields, seconds=seconds, sweep=data.get("sweep", ""))

    def with_sweep(self, sweep: str) -> TaskRow:
        """The same row labelled with the sweep's name."""
        from dataclasses import replace

        return replace(self, sweep=sweep)


def _row(
    task: Task, *, ok: bool, outputs: dict[str, Any], error: str | None, wall: float
) -> TaskRow:
    return TaskRow(
        key=task.key,
        kind=task.kind,
        instance=task.instance_id,
        method=task.method,
        params=task.params,
        seed=task.seed,
        ok=ok,
        status=outputs.get("status", "failed" if not ok else None),
        outputs=outputs,
        error=error,
        seconds=wall,
    )


def failed_row(task: Task, error: str, wall: float) -> TaskRow:
    """The row of a task that did not finish (its process died, its cluster failed...).

    Used by the runner's backends when a task produced no row of its own.

    Parameters
    ----------
    task : Task
        The task that did not finish.
    error : str
        What happened, kept in the row's ``error``.
    wall : float
        Seconds spent on the task before it was given up.

    Returns
    -------
    TaskRow
        ``ok=False``, status ``"failed"``, no outputs.

    Examples
    --------
    >>> t = Task(kind="sleep", instance_id="x", instance={}, method="-")
    >>> row = failed_row(t, "worker died", 1.5)
    >>> row.ok, row.status, row.error, row.seconds
    (False, 'failed', 'worker died', 1.5)
    """
    return _row(task, ok=False, outputs={}, error=error, wall=wall)


def overrun_row(task: Task, wall: float) -> TaskRow:
    """The row of a task stopped past its time limit (status ``time_limit``).

    Parameters
    ----------
    task : Task
        The task that was stopped; its ``time_limit`` (seconds) is quoted in the error.
    wall : float
        Seconds the task ran before it was stopped.

    Returns
    -------
    TaskRow
        ``ok=False``, status ``"time_limit"``, outputs ``{"status": "time_limit"}``.

    Examples
    --------
    >>> t = Task(kind="sleep", instance_id="x", instance={}, method="-", time_limit=2)
    >>> row = overrun_row(t, 2.25)
    >>> row.ok, row.status, row.error
    (False, 'time_limit', 'exceeded its time limit of 2 s (stopped after 2.2 s)')
    """
    limit = "no" if task.time_limit is None else f"{task.time_limit:g}"
    return _row(
        task,
        ok=False,
        outputs={"status": "time_limit"},
        error=f"exceeded its time limit of {limit} s (stopped after {wall:.1f} s)",
        wall=wall,
    )


def execute_task(task: Task) -> TaskRow:
    """Run one task in this process and return its row; an exception becomes a failed row.

    The task's ``target`` (``"module:function"``) is imported and called with the task.
    No time limit is enforced here: the runner's backends do that from outside.

    Parameters
    ----------
    task : Task
        The task to run.

    Returns
    -------
    TaskRow
        ``ok=True`` with the function's outputs (its ``"status"`` becomes the row's
        status), or ``ok=False``, status ``"failed"`` and as ``error`` one line for an
        allockit error (``allockit.errors.InvalidInputError: ...``; a user's method
        that raised is a ``MethodFailedError`` naming it) or the last lines of the
        traceback of any other exception. ``seconds`` is the wall time.

    Examples
    --------
    >>> row = execute_task(Task(kind="fail", instance_id="x", instance={}, method="-",
    ...                         params={"message": "boom"}))
    >>> row.ok, row.status, row.error.splitlines()[-1]
    (False, 'failed', 'RuntimeError: boom')
    """
    start = time.perf_counter()
    try:
        if task.sources:
            from allockit.plugins import provide_sources

            provide_sources(task.sources)
        outputs = _resolve(task.target or TASK_KINDS[task.kind])(task)
    except Exception as exc:  # a failing task is a row, never the end of the sweep
        return _row(task, ok=False, outputs={}, error=_error_text(exc),
                    wall=time.perf_counter() - start)
    wall = time.perf_counter() - start
    if not isinstance(outputs, Mapping):
        error = f"task kind {task.kind!r} returned {_SHORT.repr(outputs)}, not a dict of outputs"
        return _row(task, ok=False, outputs={}, error=error, wall=wall)
    return _row(task, ok=True, outputs=dict(outputs), error=None, wall=wall)


def _error_text(exc: Exception) -> str:
    """A failed task's ``error``: one line for allockit's own errors, else the traceback's end.

    allockit's errors (bad input, a user's method that raised, a missing solver) say what
    went wrong in their message, which is the row's one line; any other exception is a
    bug somewhere, and the last lines of its traceback say where.
    """
    if isinstance(exc, AllocKitError):
        return traceback.format_exception_only(exc)[-1].strip()
    tb = traceback.format_exception(exc)
    return "".join(tb[-3:]).strip() if len(tb) > 3 else "".join(tb).strip()


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


def _kind_mark(task: Task) -> dict[str, Any]:
    """Diagnostic: append ``"<instance id> <pid>"`` to ``params['path']``, then sleep.

    Counts how many times each task ran (the runner's tests of several writers). Sleeps
    ``params['first_seconds']`` the first time the task runs (no line of it yet), else
    ``params['seconds']``.
    """
    import os
    from pathlib import Path

    path = Path(task.params["path"])
    before = path.read_text(encoding="utf-8").split() if path.exists() else []
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(f"{task.instance_id} {os.getpid()}\n")
        fh.flush()
    first = task.instance_id not in before[::2]
    pause = task.params.get("first_seconds" if first else "seconds", task.params.get("seconds"))
    time.sleep(float(pause or 0.0))
    return {"status": "done"}


def _kind_crash(task: Task) -> dict[str, Any]:
    """Diagnostic: end the process running the task at once, as a segfault would.

    ``os._exit(params['code'])`` (default 70): no row, no cleanup. The runner's tests of
    dead workers use it; on the serial backend it ends the sweep itself.
    """
    import os

    os._exit(int(task.params.get("code", 70)))
