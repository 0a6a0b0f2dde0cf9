"""Argument checks shared by the algorithms: arrays of numbers, named entries out of range.

Every public function refuses bad input with an ``InvalidInputError`` that names the
argument, the entry and the value (never an error from deep inside numpy or a compiled
kernel). These two helpers are the common part: turn an argument into an array of the
expected dimension, and name its first entry that breaks a condition.
"""

from __future__ import annotations

import numbers

import numpy as np

from allockit.errors import InvalidInputError

__all__ = ["first_bad_entry", "integer", "real_array"]

#: Largest integer option a compiled kernel takes (int64, with room to add a chunk index).
MAX_INTEGER = 2**62

_DIMENSIONS = {1: "one-dimensional", 2: "two-dimensional"}


def real_array(name: str, values: object, *, ndim: int = 1) -> np.ndarray:
    """``values`` as a float array of ``ndim`` dimensions, or an error naming ``name``.

    Parameters
    ----------
    name : str
        The argument's name, for the error.
    values : array_like
        Numbers.
    ndim : int, default 1
        The dimensions the array must have.

    Returns
    -------
    numpy.ndarray of float64
        The values (no copy when they already are such an array).

    Raises
    ------
    InvalidInputError
        If ``values`` are not numbers or not of ``ndim`` dimensions.

    Examples
    --------
    >>> real_array("sizes", [1, 2]).tolist()
    [1.0, 2.0]
    >>> real_array("sizes", [[1.0]])
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: sizes must be one-dimensional; got shape (1, 1)
    """
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as error:
        raise InvalidInputError(f"{name} must be an array of numbers: {error}") from None
    if arr.ndim != ndim:
        shape = _DIMENSIONS.get(ndim, f"{ndim}-dimensional")
        raise InvalidInputError(f"{name} must be {shape}; got shape {arr.shape}")
    return arr


def first_bad_entry(name: str, arr: np.ndarray, ok: np.ndarray, wanted: str) -> None:
    """Raise naming the first entry of ``arr`` where ``ok`` is False (NaN never passes).

    Parameters
    ----------
    name : str
        The argument's name.
    arr : numpy.ndarray
        Its values.
    ok : numpy.ndarray of bool
        Which entries meet the condition (same shape as ``arr``); entries that are
        not finite fail whatever ``ok`` says.
    wanted : str
        The condition in words, e.g. ``"finite and >= 0"``.

    Raises
    ------
    InvalidInputError
        ``NAME[i] must be WANTED; got VALUE`` (``NAME[i, j]`` for a matrix).

    Examples
    --------
    >>> x = np.array([0.5, np.nan])
    >>> first_bad_entry("mem", x, x >= 0, "finite and >= 0")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: mem[1] must be finite and >= 0; got nan
    """
    bad = np.argwhere(~(ok & np.isfinite(arr)))
    if bad.size:
        index = tuple(int(i) for i in bad[0])
        shown = ", ".join(map(str, index))
        raise InvalidInputError(f"{name}[{shown}] must be {wanted}; got {float(arr[index])!r}")


def integer(name: str, value: object, *, minimum: int, maximum: int = MAX_INTEGER) -> int:
    """``value`` as an int in ``[minimum, maximum]``, or an error naming ``name``.

    Integers (Python's or numpy's) and floats of integer value (``3.0``) are accepted;
    fractions, NaN, infinities, bools and strings are not (never truncated).

    Parameters
    ----------
    name : str
        The argument's name.
    value : int
        The value given.
    minimum, maximum : int
        The range allowed (``maximum`` defaults to ``MAX_INTEGER``).

    Returns
    -------
    int
        The value.

    Raises
    ------
    InvalidInputError
        ``NAME must be an integer in [MIN, MAX]; got VALUE``.

    Examples
    --------
    >>> integer("kicks", 3.0, minimum=0)
    3
    >>> integer("kicks", 1.5, minimum=0)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: kicks must be an integer in [0, 4611686018427387904]; got 1.5
    """
    whole = isinstance(value, numbers.Integral) or (
        isinstance(value, float | np.floating) and float(value).is_integer()
    )
    if isinstance(value, bool | np.bool_) or not whole or not minimum <= value <= maximum:
        raise InvalidInputError(
            f"{name} must be an integer in [{minimum}, {maximum}]; got {value!r}"
        )
    return int(value)
