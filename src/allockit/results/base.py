"""What every allockit result shares: a status, seconds, and an exact JSON round trip.

A result is a ``@dataclass(frozen=True, slots=True)`` with a ``status`` (one
vocabulary, ``Status``, for solves, allocations and simulations), ``seconds``
(the run's wall time; exact solves also give ``build_seconds`` and ``solve_seconds``),
``to_dict()`` giving JSON-ready data and ``from_dict()`` rebuilding an equal result, so
``type(r).from_dict(r.to_dict()).to_dict() == r.to_dict()``. Arrays inside are
read-only copies (``readonly_array``); mappings inside are read-only views.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

import numpy as np

from allockit.checks import integer_array
from allockit.errors import InvalidInputError

__all__ = [
    "Result",
    "SolveStatus",
    "Status",
    "finite_or_none",
    "paused_gc",
    "readonly_array",
    "readonly_mapping",
]


class Status(StrEnum):
    """The one status vocabulary of every result: solves, allocations and simulations.

    ``optimal``: proven optimal within the stated relative gap. ``feasible``: a valid
    solution whose optimality is not proven. ``infeasible``: proven that no solution
    exists (the message says how: a solver's proof, the memory total, a bin-packing
    bound). ``no_solution``: the method found no solution but proved nothing (a
    heuristic whose rule failed, a user method that returned None). ``time_limit``:
    stopped by the time limit, with the incumbent if one was found. ``error``: the
    method failed; the message says why. ``completed``: a simulation, a sweep or a
    comparison ran to its end. ``failed_tasks``: a sweep or a comparison ran to its end
    but some of its tasks failed (their rows hold the errors; the command line exits 3).

    ``SolveStatus`` is the same enum under its earlier name.

    Examples
    --------
    >>> Status("optimal") is SolveStatus.OPTIMAL, str(Status.NO_SOLUTION)
    (True, 'no_solution')
    >>> Status.COMPLETED == "completed"
    True
    """

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    NO_SOLUTION = "no_solution"
    TIME_LIMIT = "time_limit"
    ERROR = "error"
    COMPLETED = "completed"
    FAILED_TASKS = "failed_tasks"


#: The earlier name of ``Status`` (solves used it before simulations shared it).
SolveStatus = Status


@runtime_checkable
class Result(Protocol):
    """The shape every result type has (checked by the test over all result types)."""

    @property
    def status(self) -> Any: ...  # pragma: no cover - protocol

    @property
    def seconds(self) -> float: ...  # pragma: no cover - protocol

    def to_dict(self) -> dict[str, Any]: ...  # pragma: no cover - protocol


def readonly_array(values: Any, dtype: Any, name: str = "values") -> np.ndarray | None:
    """A read-only copy of ``values`` as a numpy array of ``dtype`` (None stays None).

    Result types call it in ``__post_init__`` so that a frozen result cannot be
    changed through its arrays, and so that changing the caller's array later does
    not change the result.

    Parameters
    ----------
    values : array_like or None
        Anything ``np.array`` accepts; it is always copied.
    dtype : numpy dtype or type
        The dtype of the copy (``float``, ``np.int64``, ...).
    name : str, default "values"
        The field's name, for the error.

    Returns
    -------
    numpy.ndarray or None
        A new array with ``flags.writeable`` False, or None if ``values`` is None.

    Raises
    ------
    InvalidInputError
        For a numeric ``dtype``: values that are not numbers (strings, booleans,
        complex numbers, objects), or, for an integer ``dtype``, values that are not
        whole numbers (a fraction or NaN is never truncated).

    Examples
    --------
    >>> a = readonly_array([1, 2], float)
    >>> a.tolist(), a.flags.writeable
    ([1.0, 2.0], False)
    >>> readonly_array([1.5], np.int64, "lps")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: lps[0] must be an integer; got 1.5
    """
    if values is None:
        return None
    target = np.dtype(dtype)
    if target.kind in "iuf":
        try:
            given = np.asarray(values)
        except (TypeError, ValueError) as exc:  # (a ragged nesting)
            raise InvalidInputError(f"{name} must be an array of numbers: {exc}") from None
        if given.dtype != target:
            if given.dtype.kind not in "iuf" and given.size:
                raise InvalidInputError(
                    f"{name} must be numbers; got an array of {given.dtype}"
                )
            if target.kind in "iu" and given.dtype.kind == "f":
                given = integer_array(name, given, ndim=given.ndim)  # (never truncated)
        values = given
    out = np.array(values, dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


def readonly_mapping(values: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A read-only view of a copy of ``values`` (arrays inside made read-only too).

    The copy is shallow: only top-level numpy arrays are copied and frozen.

    Parameters
    ----------
    values : Mapping[str, Any] or None
        The mapping to freeze; None gives an empty mapping.

    Returns
    -------
    Mapping[str, Any]
        A ``types.MappingProxyType`` over a new dict.

    Examples
    --------
    >>> m = readonly_mapping({"a": 1})
    >>> m["a"], type(m).__name__
    (1, 'mappingproxy')
    """
    data = {}
    for key, value in (values or {}).items():
        if isinstance(value, np.ndarray):
            value = readonly_array(value, value.dtype)
        data[key] = value
    return MappingProxyType(data)


def finite_or_none(value: float | None) -> float | None:
    """``float(value)``, or None for None (JSON has no NaN or infinity: those become None).

    Parameters
    ----------
    value : float or None
        Any number ``float`` accepts (numpy scalars included), or None.

    Returns
    -------
    float or None
        ``float(value)`` when finite, otherwise None.

    Examples
    --------
    >>> finite_or_none(2), finite_or_none(float("nan")), finite_or_none(None)
    (2.0, None, None)
    """
    if value is None:
        return None
    value = float(value)
    return value if np.isfinite(value) else None


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while building many small objects.

    Building the JSON of a 100,000-job instance or result makes hundreds of thousands of
    dicts and lists; the collector's passes over them cost several times the building
    itself (0.5 s instead of 0.08 s). Reference counting still frees memory meanwhile;
    the collector resumes (if it was on) when the block ends.

    Returns
    -------
    contextlib.AbstractContextManager
        A context manager (its block runs with the collector paused).

    Examples
    --------
    >>> import gc
    >>> with paused_gc():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    import gc

    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
