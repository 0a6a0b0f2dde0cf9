"""Exception hierarchy of allockit."""

__all__ = [
    "AllocKitError",
    "InfeasibleError",
    "InvalidInputError",
    "SolverUnavailableError",
]


class AllocKitError(Exception):
    """Base class of every error raised by allockit."""


class InvalidInputError(AllocKitError, ValueError):
    """Input that breaks the documented format; the message names the field and value."""


class SolverUnavailableError(AllocKitError, ImportError):
    """A solver or optional package needed for the call is not installed."""


class InfeasibleError(AllocKitError):
    """Raised only by helpers that must return a solution and cannot."""
