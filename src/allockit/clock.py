"""One clock for every time limit: a ``Deadline`` made where the limit enters, handed down.

A method that takes ``time_limit`` turns it into a ``Deadline`` once, at its entry
(``Deadline.of``: seconds from now, or a ``Deadline`` passed on by a caller as it is),
and hands that object to every part it runs: the warm-start heuristic, the model
builder (``Deadline.check`` inside the loops), the solver (``Deadline.seconds``: what is
left, for the solver's own limit), the local search. A part that may use only some of
the time gets ``Deadline.part``, the one rule for a share of the budget: ``share`` of
the time left after ``keep`` seconds are kept back for the caller, at least ``floor``
seconds, never past the caller's deadline. No part computes a deadline of its own.

Examples
--------
>>> run = Deadline.of(10.0)
>>> 9.9 < run.left() <= 10.0, run.limit
(True, 10.0)
>>> half = run.part(0.5, keep=1.0)
>>> 4.4 < half.left() <= 4.5
True
>>> Deadline.of(None).left() is None, Deadline.of(run) is run
(True, True)
"""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass, field

from allockit.checks import real_number
from allockit.errors import InvalidInputError

__all__ = ["BuildTimeLimit", "Deadline"]

_now = time.perf_counter


class BuildTimeLimit(Exception):
    """Raised inside a model builder when its deadline has passed (``Deadline.check``).

    The solve drivers catch it and report status ``time_limit``; it never reaches a user.

    Examples
    --------
    >>> issubclass(BuildTimeLimit, Exception)
    True
    """


@dataclass(frozen=True, slots=True)
class Deadline:
    """A point in time (``time.perf_counter()``) by which a run must end, or none.

    Attributes
    ----------
    start : float
        When the deadline was made (``time.perf_counter()``).
    at : float or None
        When it passes, or None for no time limit.

    Examples
    --------
    >>> d = Deadline.of(5)
    >>> d.expired(), d.expired(need=6.0), d.seconds() <= 5.0
    (False, True, True)
    """

    start: float = field(default_factory=_now)
    at: float | None = None

    @classmethod
    def of(cls, limit: float | Deadline | None) -> Deadline:
        """The deadline of a time limit: ``limit`` seconds from now, or ``limit`` itself.

        Parameters
        ----------
        limit : float, Deadline or None
            Seconds (> 0), a deadline handed down by a caller (returned as it is), or
            None for no limit.

        Returns
        -------
        Deadline

        Raises
        ------
        InvalidInputError
            If ``limit`` is a number that is not > 0.

        Examples
        --------
        >>> Deadline.of(2.0).limit, Deadline.of(None).at
        (2.0, None)
        >>> Deadline.of(0)
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: time_limit must be > 0 seconds; got 0
        """
        if isinstance(limit, Deadline):
            return limit
        start = _now()
        if limit is None:
            return cls(start, None)
        if isinstance(limit, bool) or not isinstance(limit, numbers.Real) or not (limit > 0):
            raise InvalidInputError(f"time_limit must be > 0 seconds; got {limit!r}")
        return cls(start, start + float(limit))

    @property
    def limit(self) -> float | None:
        """The whole budget in seconds (None without a limit)."""
        return None if self.at is None else self.at - self.start

    def left(self) -> float | None:
        """Seconds left (negative once passed), None without a limit.

        Examples
        --------
        >>> Deadline.of(3).left() > 2.9
        True
        """
        return None if self.at is None else self.at - _now()

    def elapsed(self) -> float:
        """Seconds since the deadline was made.

        Examples
        --------
        >>> Deadline.of(None).elapsed() >= 0
        True
        """
        return _now() - self.start

    def expired(self, need: float = 0.0) -> bool:
        """Whether at most ``need`` seconds are left (never, without a limit).

        Parameters
        ----------
        need : float, default 0
            Seconds a next step needs.

        Returns
        -------
        bool

        Raises
        ------
        InvalidInputError
            If ``need`` is not a number (NaN included).

        Examples
        --------
        >>> Deadline.of(None).expired(need=1e9), Deadline.of(1).expired(need=2)
        (False, True)
        """
        if type(need) is not float or need != need:  # (floats, the usual case, go fast)
            need = real_number("need", need, finite=False)
        return self.at is not None and self.at - _now() <= need

    def seconds(self, floor: float = 1e-3) -> float | None:
        """The time limit to give a solver: what is left, at least ``floor`` (None: none).

        Parameters
        ----------
        floor : float, default 1e-3
            Smallest limit returned (solvers refuse a limit <= 0).

        Returns
        -------
        float or None

        Raises
        ------
        InvalidInputError
            If ``floor`` is not a finite number >= 0.

        Examples
        --------
        >>> Deadline.of(None).seconds() is None, 0 < Deadline.of(2).seconds() <= 2
        (True, True)
        >>> Deadline.of(2).seconds(floor=float("nan"))
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: floor must be a finite number >= 0; got nan
        """
        floor = real_number("floor", floor, at_least=0)
        left = self.left()
        return None if left is None else max(floor, left)

    def check(self) -> None:
        """Raise ``BuildTimeLimit`` once the deadline has passed (for model builders).

        Cheap enough to call once per model row or variable.

        Raises
        ------
        BuildTimeLimit
            If the deadline has passed.

        Examples
        --------
        >>> Deadline.of(None).check()
        >>> Deadline(start=0.0, at=0.0).check()
        Traceback (most recent call last):
        ...
        allockit.clock.BuildTimeLimit: model building reached the time limit
        """
        if self.at is not None and _now() > self.at:
            raise BuildTimeLimit("model building reached the time limit")

    def part(self, share: float = 1.0, *, keep: float = 0.0, floor: float = 0.0) -> Deadline:
        """A component's deadline: the one rule for a share of the budget.

        The component gets ``share`` of the seconds left after ``keep`` seconds are kept
        back for the caller, at least ``floor`` seconds, and never more than the seconds
        left after ``keep`` (a ``floor`` does not stretch the caller's deadline). Without
        a limit the part has none either.

        Parameters
        ----------
        share : float, default 1
            Fraction in (0, 1] of the time left after ``keep``.
        keep : float, default 0
            Seconds kept back for what the caller does afterwards.
        floor : float, default 0
            Smallest budget, when the time left after ``keep`` allows it.

        Returns
        -------
        Deadline
            Made now; its ``limit`` is the component's budget.

        Raises
        ------
        InvalidInputError
            If ``share`` is not a number in (0, 1], or ``keep`` or ``floor`` not a
            finite number >= 0 (bools, strings, None and NaN are refused).

        Examples
        --------
        >>> run = Deadline.of(100.0)
        >>> round(run.part(0.3, keep=10.0).limit)
        27
        >>> round(run.part(0.01, keep=10.0, floor=5.0).limit)
        5
        >>> Deadline.of(None).part(0.5).at is None
        True
        >>> run.part(0.5, keep=float("nan"))
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: keep must be a finite number >= 0; got nan
        """
        share = real_number("share", share, above=0, at_most=1)
        keep = real_number("keep", keep, at_least=0)
        floor = real_number("floor", floor, at_least=0)
        start = _now()
        if self.at is None:
            return Deadline(start, None)
        room = max(0.0, self.at - start - keep)
        return Deadline(start, start + min(room, max(floor, share * room)))
