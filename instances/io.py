"""Read and write instances as JSON, with errors that say where the input is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance

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

    Raises
    ------
    InvalidInputError
        On malformed JSON (with line and column) or an invalid instance.

    Examples
    --------
    >>> instance_from_json('{"problem": "vcsched", "hosts": 1, "jobs": [')
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: malformed JSON: Expecting value at line 1 column 45
    """
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    if not isinstance(data, dict):
        raise InvalidInputError(f"instance must be a JSON object; got {type(data).__name__}")
    problem = data.get("problem")
    if problem not in _PROBLEMS:
        raise InvalidInputError(f"problem must be one of {sorted(_PROBLEMS)}; got {problem!r}")
    return _PROBLEMS[problem].from_dict(data)


def read_json(path: str | Path, what: str = "input") -> Any:
    """The JSON value in file ``path``; unreadable files and bad JSON name the file.

    Raises
    ------
    InvalidInputError
        If the file cannot be read, is not UTF-8 text or is not valid JSON.

    Examples
    --------
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


def read_drfh_instance(path: str | Path) -> Any:
    """Read a DRFH instance (``DRFHInstance``) from a JSON file.

    Raises
    ------
    InvalidInputError
        If the file cannot be read or holds an invalid instance.
    """
    from allockit.instances.drfh import DRFHInstance

    return DRFHInstance.from_dict(read_json(path, "instance"))


def read_instance(path: str | Path) -> VCInstance:
    """Read one instance from a JSON file.

    Raises
    ------
    InvalidInputError
        If the file cannot be read or holds an invalid instance; the message names it.
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

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=1, cpu=[0.5], mem=[0.25])
    >>> instance_from_json(instance_to_json(inst)) == inst
    True
    """
    return json.dumps(instance.to_dict(), indent=1)


def write_instance(instance: VCInstance, path: str | Path) -> None:
    """Write an instance as JSON."""
    Path(path).write_text(instance_to_json(instance) + "\n", encoding="utf-8")
