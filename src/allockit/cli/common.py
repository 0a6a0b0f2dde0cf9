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

    Used for options such as ``--time-limit`` (seconds).

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    float
        The number.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a number, or is <= 0, NaN or infinite (argparse turns it
        into a usage error, exit code 2).

    Examples
    --------
    >>> positive_float("2.5")
    2.5
    >>> positive_float("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a finite number > 0; got '0'
    """
    value = _number(text, float, "a number")
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0; got {text!r}")
    return value


def nonnegative_float(text: str) -> float:
    """An argparse type: a finite number >= 0.

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    float
        The number.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a number, or is negative, NaN or infinite.

    Examples
    --------
    >>> nonnegative_float("0")
    0.0
    >>> nonnegative_float("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a finite number >= 0; got '-1'
    """
    value = _number(text, float, "a number")
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0; got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1.

    Used for counts such as ``--workers`` and ``--threads``.

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    int
        The integer.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not an integer (``"2.0"`` is refused) or is < 1.

    Examples
    --------
    >>> positive_int("3")
    3
    >>> positive_int("2.0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected an integer; got '2.0'
    """
    value = _number(text, int, "an integer")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1; got {text!r}")
    return value


def seed_int(text: str) -> int:
    """An argparse type: a seed, an integer in [0, 2**63 - 1].

    The range is ``allockit.options.MAX_SEED``, the one every method accepts.

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    int
        The seed.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not an integer or is outside [0, 2**63 - 1].

    Examples
    --------
    >>> seed_int("7")
    7
    >>> seed_int("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be in [0, 9223372036854775807]; got '-1'
    """
    from allockit.options import MAX_SEED

    value = _number(text, int, "an integer")
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be in [0, {MAX_SEED}]; got {text!r}")
    return value


def number_list(option: str, text: str, kind: type = float) -> tuple:
    """Comma-separated numbers, or an ``InvalidInputError`` naming ``option``.

    Empty items are skipped (``"1,,2,"`` is ``(1.0, 2.0)``). Used for options that
    take a list, such as ``--loads``.

    Parameters
    ----------
    option : str
        The option's name, quoted in the error (``"--loads"``).
    text : str
        The command-line value.
    kind : type, default float
        Converts each item (``float`` or ``int``).

    Returns
    -------
    tuple
        The numbers, in order; at least one.

    Raises
    ------
    InvalidInputError
        If an item does not convert, there is no item, or a float is NaN or infinite.

    Examples
    --------
    >>> number_list("--loads", "0.1,0.5")
    (0.1, 0.5)
    >>> number_list("--seeds", "1,2", int)
    (1, 2)
    >>> number_list("--loads", "0.1,high")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --loads expects comma-separated numbers; got '0.1,high'
    """
    try:
        values = tuple(kind(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise InvalidInputError(f"{option} expects comma-separated numbers; got {text!r}") from None
    if not values or any(isinstance(v, float) and not math.isfinite(v) for v in values):
        raise InvalidInputError(f"{option} expects finite comma-separated numbers; got {text!r}")
    return values


def print_json(data: Any) -> None:
    """Write ``data`` as JSON on stdout (strict JSON: no NaN or infinity).

    NaN and infinite floats (at any depth) become ``null``; tuples become lists.

    Parameters
    ----------
    data : Any
        JSON-ready data (dicts, lists, tuples, str, numbers, bool, None).

    Examples
    --------
    >>> print_json({"min_yield": float("nan"), "hosts": (0, 1)})
    {
     "min_yield": null,
     "hosts": [
      0,
      1
     ]
    }
    """
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
    """Rows as CSV, columns in order of first appearance across all rows.

    A row without some column gets an empty cell. The file is overwritten (UTF-8).

    Parameters
    ----------
    path : str or path-like
        The CSV file to write.
    rows : list of dict
        One dict per line; values are written with ``str``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp(), "rows.csv")
    >>> write_dict_csv(path, [{"method": "mcb8", "min_yield": 0.8}, {"method": "gr", "gap": 0.1}])
    >>> print(path.read_text(), end="")
    method,min_yield,gap
    mcb8,0.8,
    gr,,0.1
    """
    import csv

    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
