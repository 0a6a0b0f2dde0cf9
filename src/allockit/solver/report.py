"""What a solver said (``SolverReport``) and the checks of solver options before any work."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from allockit.checks import real_number
from allockit.errors import InvalidInputError
from allockit.results import SolveStatus

__all__ = [
    "MAX_THREADS_PER_CORE",
    "SolverReport",
    "check_limits",
    "max_threads",
    "solver_versions",
]

#: Solver threads accepted per core of the machine (more only oversubscribes it; far
#: more makes CP-SAT refuse the model).
MAX_THREADS_PER_CORE = 4


def max_threads() -> int:
    """The largest thread count a solver call accepts: 4 per core of this machine.

    Returns
    -------
    int
        ``MAX_THREADS_PER_CORE * os.cpu_count()`` (at least 4).

    Examples
    --------
    >>> max_threads() >= MAX_THREADS_PER_CORE
    True
    """
    import os

    return MAX_THREADS_PER_CORE * max(1, os.cpu_count() or 1)


@dataclass(frozen=True, slots=True)
class SolverReport:
    """What a solver said: status, incumbent objective, proven bound, seconds.

    ``has_solution`` tells whether a solution was loaded (for Pyomo, into the model's
    variables). ``bound`` is the solver's proven dual bound in the model's own sense.

    Attributes
    ----------
    status : SolveStatus
        ``optimal`` (within the relative gap), ``feasible``, ``infeasible``,
        ``time_limit`` or ``error``.
    has_solution : bool
        Whether the solver produced a solution that can be read.
    objective : float or None
        Objective value of the incumbent, None without one.
    bound : float or None
        Proven bound on the objective (an upper bound when maximising), None when the
        solver has none (infinite or infeasible).
    seconds : float
        Wall time of the solver call in seconds (model building excluded).
    solver : str
        The solver's name as the user gives it (``"highs"``, ``"scip"``, ``"cpsat"``, ...).
    message : str
        The solver's own termination name (``"convergenceCriteriaSatisfied"``,
        ``"OPTIMAL"``, ...) or the error text.

    Examples
    --------
    >>> r = SolverReport(SolveStatus.TIME_LIMIT, True, 0.8, 0.9, 10.0, "highs", "maxTimeLimit")
    >>> r.status, r.has_solution, r.bound
    (<Status.TIME_LIMIT: 'time_limit'>, True, 0.9)
    >>> r.to_dict()["status"]
    'time_limit'
    """

    status: SolveStatus
    has_solution: bool
    objective: float | None
    bound: float | None
    seconds: float
    solver: str
    message: str = ""

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "status", SolveStatus(self.status))
        except ValueError:
            raise InvalidInputError(
                f"status must be one of {', '.join(str(s) for s in SolveStatus)}; "
                f"got {self.status!r}"
            ) from None
        if not isinstance(self.has_solution, bool | np.bool_):
            raise InvalidInputError(
                f"has_solution must be True or False; got {self.has_solution!r}"
            )
        object.__setattr__(self, "has_solution", bool(self.has_solution))
        for name in ("objective", "bound"):  # +-inf: nothing proven; NaN is no number
            value = real_number(name, getattr(self, name), finite=False, optional=True)
            object.__setattr__(self, name, value)
        object.__setattr__(self, "seconds", real_number("seconds", self.seconds, at_least=0))
        for name in ("solver", "message"):
            if not isinstance(getattr(self, name), str):
                raise InvalidInputError(f"{name} must be a string; got {getattr(self, name)!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON form.

        Examples
        --------
        >>> r = SolverReport(SolveStatus.OPTIMAL, True, 1.0, 1.0, 0.1, "highs")
        >>> SolverReport.from_dict(r.to_dict()) == r
        True
        """
        return {
            "status": str(self.status),
            "has_solution": self.has_solution,
            "objective": self.objective,
            "bound": self.bound,
            "seconds": self.seconds,
            "solver": self.solver,
            "message": self.message,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SolverReport:
        """Rebuild a report from ``to_dict``'s output."""
        try:
            fields = {key: data[key] for key in
                      ("status", "has_solution", "objective", "bound", "seconds", "solver")}
        except (KeyError, TypeError) as exc:
            raise InvalidInputError(f"solver report is malformed: missing {exc}") from None
        try:
            return cls(**fields, message=data.get("message", ""))
        except InvalidInputError as exc:
            raise InvalidInputError(f"solver report is malformed: {exc}") from None


def check_limits(
    time_limit: Any = None, threads: Any = None, rel_gap: Any = None
) -> None:
    """Refuse a time limit, thread count or relative gap a solver would reject.

    Parameters
    ----------
    time_limit : float, Deadline or None
        Seconds (> 0); a ``Deadline`` is taken as it is.
    threads : int, optional
        An integer in ``[1, max_threads()]`` (4 per core).
    rel_gap : float, optional
        A number in [0, 1).

    Raises
    ------
    InvalidInputError
        Naming the option, the allowed range and the value.

    Examples
    --------
    >>> check_limits(10.0, 1, 1e-4)
    >>> check_limits(threads=100000)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: threads must be at most ... per core); got 100000
    """
    from allockit.clock import Deadline

    if (
        time_limit is not None
        and not isinstance(time_limit, Deadline)
        and (
            isinstance(time_limit, bool)
            or not isinstance(time_limit, numbers.Real)
            or not (time_limit > 0)
        )
    ):
        raise InvalidInputError(f"time_limit must be > 0 seconds; got {time_limit!r}")
    if threads is not None and (
        isinstance(threads, bool)
        or not isinstance(threads, numbers.Real)
        or not math.isfinite(threads)
        or int(threads) != threads
        or threads < 1
    ):
        raise InvalidInputError(f"threads must be an integer >= 1; got {threads!r}")
    if threads is not None and threads > max_threads():
        raise InvalidInputError(
            f"threads must be at most {max_threads()} ({MAX_THREADS_PER_CORE} per core); "
            f"got {threads!r}"
        )
    if rel_gap is not None:
        real_number("rel_gap", rel_gap, at_least=0, below=1, finite=False)


def solver_versions() -> dict[str, str]:
    """Versions of the installed solver packages, for result records.

    Reads package metadata only; no solver is imported.

    Returns
    -------
    dict[str, str]
        ``{"highspy": ..., "ortools": ..., "pyomo": ..., "pyscipopt": ...}``, each a
        version string or ``"not installed"``.

    Examples
    --------
    >>> sorted(solver_versions())
    ['highspy', 'ortools', 'pyomo', 'pyscipopt']
    """
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("highspy", "ortools", "pyomo", "pyscipopt"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    return out
