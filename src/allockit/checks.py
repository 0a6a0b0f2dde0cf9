"""Argument checks shared by the algorithms: arrays of numbers, named entries out of range.

Every public function refuses bad input with an ``InvalidInputError`` that names the
argument, the entry and the value (never an error from deep inside numpy or a compiled
kernel). These helpers are the common part: turn an argument into an array of the
expected dimension and name its first entry that breaks a condition, and check one
number (``real_number``, ``integer``) against a range.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from allockit.errors import InvalidInputError

__all__ = [
    "first_bad_entry",
    "float_array",
    "integer",
    "integer_array",
    "is_finite_real",
    "is_real",
    "real_array",
    "real_number",
]

#: Largest integer option a compiled kernel takes (int64, with room to add a chunk index).
MAX_INTEGER = 2**62

_DIMENSIONS = {1: "one-dimensional", 2: "two-dimensional"}


def real_array(name: str, values: object, *, ndim: int = 1) -> np.ndarray:
    """``values`` as a float array of ``ndim`` dimensions, or an error naming ``name``.

    Strings, booleans, complex numbers and None are refused, naming the entry (never
    parsed or cast); NaN and infinities pass (the caller checks ranges).

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
    >>> real_array("sizes", [True, False])
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: sizes[0] must be a number; got True
    """
    return _numbers(name, values, ndim)[1]


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
        ``NAME must be an integer in [MIN, MAX]; got VALUE`` (``>= MIN`` when
        ``maximum`` is the default).

    Examples
    --------
    >>> integer("kicks", 3.0, minimum=0)
    3
    >>> integer("kicks", 1.5, minimum=0)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: kicks must be an integer >= 0; got 1.5
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()  # (a numpy 0-d array holds one number)
    whole = isinstance(value, numbers.Integral) or (
        isinstance(value, float | np.floating) and float(value).is_integer()
    )
    if isinstance(value, bool | np.bool_) or not whole or not minimum <= value <= maximum:
        bound = f">= {minimum}" if maximum == MAX_INTEGER else f"in [{minimum}, {maximum}]"
        raise InvalidInputError(f"{name} must be an integer {bound}; got {value!r}")
    return int(value)


def is_real(value: object) -> bool:
    """Whether ``value`` is a real number: an int or a float, numpy's too; not a bool.

    Parameters
    ----------
    value : object
        Anything.

    Returns
    -------
    bool
        True for ints, floats and other ``numbers.Real`` (NaN and infinities too).

    Examples
    --------
    >>> is_real(2), is_real(np.float32(0.5)), is_real(True), is_real("1"), is_real(1j)
    (True, True, False, False, False)
    """
    return isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)


def is_finite_real(value: object) -> bool:
    """Whether ``value`` is a finite real number (an int too large for a float is not).

    Parameters
    ----------
    value : object
        Anything.

    Returns
    -------
    bool
        True for a real number (``is_real``) that is neither NaN nor infinite.

    Examples
    --------
    >>> is_finite_real(1e308), is_finite_real(float("nan")), is_finite_real(10**400)
    (True, False, False)
    """
    return is_real(value) and math.isfinite(_as_float(value))


def _as_float(value: numbers.Real) -> float:
    """``float(value)``, with an integer too large for a float as an infinity of its sign."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _range_words(above, at_least, below, at_most) -> str:
    """`` > 0``, `` in [0, 1)``, ... for the bounds given (empty when there are none)."""
    low = (f"({above:g}" if above is not None else f"[{at_least:g}"
           if at_least is not None else None)
    high = (f"{below:g})" if below is not None else f"{at_most:g}]"
            if at_most is not None else None)
    if low is not None and high is not None:
        return f" in {low}, {high}"
    if low is not None:
        return (f" > {above:g}" if above is not None else f" >= {at_least:g}")
    if high is not None:
        return (f" < {below:g}" if below is not None else f" <= {at_most:g}")
    return ""


def real_number(
    name: str,
    value: object,
    *,
    above: float | None = None,
    at_least: float | None = None,
    below: float | None = None,
    at_most: float | None = None,
    finite: bool = True,
    optional: bool = False,
    note: str = "",
) -> float | None:
    """``value`` as a float in the range given, or an error naming ``name``.

    Ints and floats (numpy's too) are accepted; bools, strings, complex numbers and NaN
    never are. An integer too large for a float counts as an infinity of its sign.

    Parameters
    ----------
    name : str
        The argument's name, for the error.
    value : float
        The value given.
    above, at_least : float, optional
        A lower bound, strict (``value > above``) or not (``value >= at_least``).
    below, at_most : float, optional
        An upper bound, strict or not.
    finite : bool, default True
        Refuse infinities (with False, an infinity passes if the bounds allow it).
    optional : bool, default False
        Accept None (returned as it is).
    note : str, optional
        Words added to the error, in parentheses after the range.

    Returns
    -------
    float or None
        The value as a float (None for None when ``optional``).

    Raises
    ------
    InvalidInputError
        ``NAME must be [None or ]a [finite ]number RANGE[ (NOTE)]; got VALUE``.

    Examples
    --------
    >>> real_number("capacity", 2)
    2.0
    >>> real_number("rel_gap", 1.0, at_least=0, below=1, finite=False)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: rel_gap must be a number in [0, 1); got 1.0
    >>> real_number("bound", float("nan"), at_least=0, optional=True)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: bound must be None or a finite number >= 0; got nan
    """
    if value is None and optional:
        return None
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()  # (a numpy 0-d array holds one number)
    number = _as_float(value) if is_real(value) else math.nan
    ok = (
        not math.isnan(number)
        and (not finite or math.isfinite(number))
        and (above is None or number > above)
        and (at_least is None or number >= at_least)
        and (below is None or number < below)
        and (at_most is None or number <= at_most)
    )
    if not ok:
        kind = "a finite number" if finite else "a number"
        extra = f" ({note})" if note else ""
        raise InvalidInputError(
            f"{name} must be {'None or ' if optional else ''}{kind}"
            f"{_range_words(above, at_least, below, at_most)}{extra}; got {value!r}"
        )
    return number


#: Floats with an absolute value below this convert to int64 exactly.
_INT64_BOUND = 2.0**63


def _entry(shape: tuple[int, ...], flat_index: int) -> str:
    """``[i]`` or ``[i, j]``: the entry at ``flat_index`` of an array of ``shape``."""
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(flat_index, shape)) + "]"


def _refuse_python_bools(
    name: str, values: list | tuple, shape: tuple[int, ...], noun: str
) -> None:
    """Refuse a ``True`` or ``False`` among the entries of nested lists (numpy casts them)."""
    flat: list = list(values)
    while flat and isinstance(flat[0], list | tuple):  # (rectangular: numpy made an array)
        flat = [v for row in flat for v in row]
    if bool not in set(map(type, flat)):  # (the usual case, at C speed)
        return
    k = next(k for k, value in enumerate(flat) if type(value) is bool)
    where = _entry(shape, k) if shape else ""
    raise InvalidInputError(f"{name}{where} must be {noun}; got {flat[k]!r}")


def _numbers(
    name: str, values: object, ndim: int, *, none_ok: bool = False, noun: str = "a number"
) -> tuple[np.ndarray, np.ndarray]:
    """``values`` as given (an array) and as float64 (``checks.real_array``).

    Strings, complex numbers and Python's ``True``/``False`` are refused, never parsed
    or cast; None too, unless ``none_ok`` (it becomes NaN). A numpy array of booleans
    (a mask, an occupancy matrix) is read as 0 and 1.
    """
    try:
        given = np.asarray(values)
    except (TypeError, ValueError) as error:
        raise InvalidInputError(f"{name} must be an array of numbers: {error}") from None
    if isinstance(values, list | tuple) and given.dtype.kind in "iufb":
        _refuse_python_bools(name, values, given.shape, noun)  # ([0.5, True] is all floats)
    if given.dtype.kind == "b" and isinstance(values, np.ndarray):
        given = given.astype(np.int64)  # (numpy's own booleans: 0 and 1)
    if given.dtype.kind not in "iuf" and given.size:
        if given.dtype.kind == "O":
            entries = given.reshape(-1).tolist()
        elif given.ndim == 1 and isinstance(values, list | tuple):
            entries = list(values)  # (numpy made every entry text: find the one that was)
        else:
            entries = [given.flat[0]]
        for k, value in enumerate(entries):
            if not (is_real(value) or (value is None and none_ok)):
                shown = value.item() if isinstance(value, np.generic) else value
                if not given.ndim:
                    raise InvalidInputError(f"{name} must be an array of numbers; got {shown!r}")
                where = _entry(given.shape, k)
                raise InvalidInputError(f"{name}{where} must be {noun}; got {shown!r}")
    try:
        arr = given if given.dtype == np.float64 else given.astype(np.float64)
    except (TypeError, ValueError) as error:  # (None without none_ok is refused above)
        raise InvalidInputError(f"{name} must be an array of numbers: {error}") from None
    if arr.ndim != ndim:
        shape = _DIMENSIONS.get(ndim, f"{ndim}-dimensional")
        raise InvalidInputError(f"{name} must be {shape}; got shape {arr.shape}")
    return given, arr


def float_array(name: str, values: object, *, ndim: int = 1) -> np.ndarray:
    """A new float64 array of ``values`` (``ndim`` dimensions), or an error naming ``name``.

    Strings are refused (not parsed); None is NaN; NaN and infinities pass (the caller
    checks ranges).

    Parameters
    ----------
    name : str
        The argument's name, for the error.
    values : array_like
        Numbers (None for NaN).
    ndim : int, default 1
        The dimensions the array must have.

    Returns
    -------
    numpy.ndarray of float64
        A new array (never the caller's).

    Raises
    ------
    InvalidInputError
        For a string or another non-number, naming the entry, or a wrong dimension.

    Examples
    --------
    >>> float_array("submit", [0, None]).tolist()
    [0.0, nan]
    >>> float_array("submit", [0, "1"])
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: submit[1] must be a number; got '1'
    """
    given, numbers = _numbers(name, values, ndim, none_ok=True)
    return numbers.copy() if numbers is given else numbers  # never the caller's array


def integer_array(name: str, values: object, *, ndim: int = 1) -> np.ndarray:
    """A new int64 array of ``values`` (``ndim`` dimensions), or an error naming the entry.

    Integers and floats of integer value are accepted; a fraction, NaN, an infinity, a
    value outside int64 or a string is refused (``NAME[i] must be an integer; got 2.5``),
    never truncated. Vectorised: no loop over the entries.

    Parameters
    ----------
    name : str
        The argument's name, for the error.
    values : array_like
        Integers, or floats of integer value.
    ndim : int, default 1
        The dimensions the array must have.

    Returns
    -------
    numpy.ndarray of int64
        A new array.

    Raises
    ------
    InvalidInputError
        Naming the first entry that is not an integer within int64, or a wrong
        dimension.

    Examples
    --------
    >>> integer_array("tasks", [2.0, 3]).tolist()
    [2, 3]
    >>> integer_array("tasks", [2.5, 3])
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: tasks[0] must be an integer; got 2.5
    """
    given, numbers = _numbers(name, values, ndim, noun="an integer")
    if given.dtype.kind == "i":
        return given.astype(np.int64)
    ok = (numbers == np.floor(numbers)) & (np.abs(numbers) < _INT64_BOUND)
    if given.dtype.kind == "u":  # uint64 beyond int64 would wrap
        ok &= given <= np.iinfo(np.int64).max
    first_bad_entry(name, numbers, ok, "an integer")
    return given.astype(np.int64) if given.dtype.kind == "u" else numbers.astype(np.int64)
