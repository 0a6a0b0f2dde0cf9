"""Exception hierarchy of allockit."""

__all__ = [
    "AllocKitError",
    "InfeasibleError",
    "InvalidInputError",
    "MethodFailedError",
    "SolverFailedError",
    "SolverUnavailableError",
]


class AllocKitError(Exception):
    """Base class of every error raised by allockit."""


class InvalidInputError(AllocKitError, ValueError):
    """Input that breaks the documented format; the message names the field and value."""


class MethodFailedError(AllocKitError, RuntimeError):
    """A user's method (heuristic, mechanism, scheduler) raised an exception.

    The message names the method and the exception; the exception itself is the
    ``__cause__``. Errors of allockit's own raised inside the method pass unchanged.
    """


class SolverUnavailableError(AllocKitError, ImportError):
    """A solver or optional package needed for the call is not installed."""


class SolverFailedError(AllocKitError, RuntimeError):
    """A solver ended without deciding a problem that the call needs decided."""


class InfeasibleError(AllocKitError):
    """Raised only by helpers that must return a solution and cannot."""
