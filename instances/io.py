"""Read and write instances as JSON, with errors that say where the input is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance
from allockit.results.base import paused_gc

__all__ = [
    "instance_from_json",
    "instance_to_json",
    "read_drfh_instance",
    "read_instance",
    "read_json",
    "write_instance",
]

_PROBLEMS = {"vcsched": VCInstance}


def instance_from_json(text: str) -> VCInstance:
    """Parse one instance from JSON text, dispatching on its ``problem`` field.

    Only ``"vcsched"`` is dispatched here: a DRFH file (``"problem": "drfh"``) is
    refused with a message naming the command that reads it (``allockit drfh``,
    ``read_drfh_instance``).

    Parameters
    ----------
    text : str
        A JSON object as written by ``instance_to_json``: ``{"problem": "vcsched",
        "hosts": H, "jobs": [{"name", "cpu", "mem", "tasks", "previous"}, ...],
        "migration_budget": ...}``.

    Returns
    -------
    VCInstance
        The validated instance.

    Raises
    ------
    InvalidInputError
        On malformed JSON (with line and column), a value that is not an object, an
        unknown ``problem`` (a DRFH instance names ``allockit drfh``), or an invalid
        instance (the message names the field's path, the value and what is allowed).

    Examples
    --------
    >>> instance_from_json('{"problem": "vcsched", "hosts": 1, "jobs": [')
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: malformed JSON: Expecting value at line 1 column 45
    """
    with paused_gc():  # 100,000 jobs: the collector's passes cost more than the parsing
        try:
            data: Any = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(
                f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
            ) from None
        except (ValueError, RecursionError) as exc:  # a 5,000-digit integer, deep nesting
            raise InvalidInputError(f"malformed JSON: {_short(exc)}") from None
        return _dispatch(data)


def _short(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:120]


def _dispatch(data: Any) -> VCInstance:
    from allockit.instances.schemas import show

    if not isinstance(data, dict):
        raise InvalidInputError(f"the instance must be an object; got {show(data)}")
    problem = data.get("problem")
    if problem == "drfh":
        raise InvalidInputError(
            "this is a DRFH instance (problem 'drfh'): `allockit drfh FILE` reads it "
            "(or allockit.instances.io.read_drfh_instance)"
        )
    if not isinstance(problem, str) or problem not in _PROBLEMS:
        raise InvalidInputError(
            f"problem must be 'vcsched' (DRFH instances, 'drfh', are read by `allockit "
            f"drfh`); got {show(problem)}"
        )
    return _PROBLEMS[problem].from_dict(data)


def read_json(path: str | Path, what: str = "input") -> Any:
    """The JSON value in file ``path``; unreadable files and bad JSON name the file.

    Parameters
    ----------
    path : str or Path
        A UTF-8 JSON file.
    what : str, default "input"
        What the file holds, for the error message (``"instance"``, ``"sweep"``, ...).

    Returns
    -------
    Any
        The parsed JSON value (dict, list, str, number, bool or None).

    Raises
    ------
    InvalidInputError
        If the file cannot be read, is not UTF-8 text or is not valid JSON.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp(), "drfh.json")
    >>> _ = path.write_text('{"resources": ["cpu", "mem"], '
    ...     '"servers": [{"capacity": [1, 1], "count": 2}], '
    ...     '"users": [{"name": "a", "demand": [0.2, 0.1]}]}')
    >>> read_json(path)["resources"]
    ['cpu', 'mem']
    >>> read_json("/nonexistent.json", "instance")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: cannot read instance file '/nonexistent.json': ...
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"cannot read {what} file {str(path)!r}: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"{path.name}: malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit integer, deep nesting
        raise InvalidInputError(f"{path.name}: malformed JSON: {_short(exc)}") from None


def read_drfh_instance(path: str | Path) -> Any:
    """Read a DRFH instance (``DRFHInstance``) from a JSON file.

    The file is ``DRFHInstance.to_dict()``'s JSON: ``resources``, ``servers`` (capacity
    per resource, optional ``name`` and ``count``) and ``users`` (``demand`` per task,
    optional ``name``, ``weight`` and ``tasks``); ``problem`` is optional.

    Parameters
    ----------
    path : str or Path
        The JSON file.

    Returns
    -------
    DRFHInstance
        The validated instance.

    Raises
    ------
    InvalidInputError
        If the file cannot be read or holds an invalid instance.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp(), "drfh.json")
    >>> _ = path.write_text('{"resources": ["cpu", "mem"], '
    ...     '"servers": [{"capacity": [1, 1], "count": 2}], '
    ...     '"users": [{"name": "a", "demand": [0.2, 0.1]}]}')
    >>> inst = read_drfh_instance(path)
    >>> inst.user_names, inst.count.tolist()
    (('a',), [2])
    """
    from allockit.instances.drfh import DRFHInstance

    data = read_json(path, "instance")
    if isinstance(data, dict) and data.get("problem") == "vcsched":
        raise InvalidInputError(
            f"{Path(path).name}: this is a VCSched instance (problem 'vcsched'): "
            "`allockit solve FILE` reads it (or allockit.instances.io.read_instance)"
        )
    try:
        return DRFHInstance.from_dict(data)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{Path(path).name}: {exc}") from None


def read_instance(path: str | Path) -> VCInstance:
    """Read one instance from a JSON file.

    Parameters
    ----------
    path : str or Path
        A UTF-8 JSON file in ``instance_to_json``'s format (a VCSched instance).

    Returns
    -------
    VCInstance
        The validated instance.

    Raises
    ------
    InvalidInputError
        If the file cannot be read or holds an invalid instance; the message names it.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp(), "bad.json")
    >>> _ = path.write_text('{"problem": "vcsched", "hosts": 0, "jobs": []}')
    >>> read_instance(path)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: bad.json: hosts must be an integer in [1, 1000000]; got 0
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"cannot read instance file {str(path)!r}: {exc}") from None
    try:
        return instance_from_json(text)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{path.name}: {exc}") from None


def instance_to_json(instance: VCInstance) -> str:
    """JSON text of an instance (round-trips through ``instance_from_json``).

    Parameters
    ----------
    instance : VCInstance
        The instance to serialise.

    Returns
    -------
    str
        ``instance.to_dict()`` as JSON, indented by one space.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=1, cpu=[0.5], mem=[0.25])
    >>> instance_from_json(instance_to_json(inst)) == inst
    True
    """
    with paused_gc():
        return json.dumps(instance.to_dict(), indent=1)


def write_instance(instance: VCInstance, path: str | Path) -> None:
    """Write an instance as JSON.

    The file (UTF-8, overwritten) holds ``instance_to_json(instance)`` and a newline.

    Parameters
    ----------
    instance : VCInstance
        The instance to write.
    path : str or Path
        The file to write; its directory must exist.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp(), "inst.json")
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.25], mem=[0.25, 0.5])
    >>> write_instance(inst, path)
    >>> read_instance(path) == inst
    True
    """
    Path(path).write_text(instance_to_json(instance) + "\n", encoding="utf-8")
