"""What every subcommand module shares: argument types, JSON and CSV output, exit codes.

Exit codes (a contract users' scripts rely on):

- ``0`` the command completed (whatever the solve status),
- ``1`` a missing optional dependency (the message says what to install),
- ``2`` invalid input or usage (one line on stderr, no traceback),
- ``3`` completed, but some tasks of a sweep, comparison or experiment failed (their
  rows hold the errors).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from typing import Any

from allockit.errors import InvalidInputError

__all__ = [
    "EXIT_DEPENDENCY",
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_TASKS_FAILED",
    "nonnegative_float",
    "number_list",
    "positive_float",
    "positive_int",
    "print_json",
    "seed_int",
    "write_dict_csv",
]

EXIT_OK, EXIT_DEPENDENCY, EXIT_INVALID, EXIT_TASKS_FAILED = 0, 1, 2, 3


def _number(text: str, kind: Callable[[str], Any], what: str) -> Any:
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}; got {text!r}") from None


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0.

    Examples
    --------
    >>> positive_float("2.5")
    2.5
    """
    value = _number(text, float, "a number")
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0; got {text!r}")
    return value


def nonnegative_float(text: str) -> float:
    """An argparse type: a finite number >= 0.

    Examples
    --------
    >>> nonnegative_float("0")
    0.0
    """
    value = _number(text, float, "a number")
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0; got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1.

    Examples
    --------
    >>> positive_int("3")
    3
    """
    value = _number(text, int, "an integer")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1; got {text!r}")
    return value


def seed_int(text: str) -> int:
    """An argparse type: a seed, an integer in [0, 2**63 - 1].

    Examples
    --------
    >>> seed_int("7")
    7
    """
    from allockit.options import MAX_SEED

    value = _number(text, int, "an integer")
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be in [0, {MAX_SEED}]; got {text!r}")
    return value


def number_list(option: str, text: str, kind: type = float) -> tuple:
    """Comma-separated numbers, or an ``InvalidInputError`` naming ``option``.

    Examples
    --------
    >>> number_list("--loads", "0.1,0.5")
    (0.1, 0.5)
    """
    try:
        values = tuple(kind(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise InvalidInputError(f"{option} expects comma-separated numbers; got {text!r}") from None
    if not values or any(isinstance(v, float) and not math.isfinite(v) for v in values):
        raise InvalidInputError(f"{option} expects finite comma-separated numbers; got {text!r}")
    return values


def print_json(data: Any) -> None:
    """Write ``data`` as JSON on stdout (strict JSON: no NaN or infinity)."""
    sys.stdout.write(json.dumps(_strict(data), indent=1) + "\n")


def _strict(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_strict(v) for v in value]
    return value


def write_dict_csv(path: str, rows: list[dict[str, Any]]) -> None:
    """Rows as CSV, columns in order of first appearance across all rows."""
    import csv

    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
