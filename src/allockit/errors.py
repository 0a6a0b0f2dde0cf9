"""Exception hierarchy of allockit."""

__all__ = [
    "AllocKitError",
    "InfeasibleError",
    "InvalidInputError",
    "MethodFailedError",
    "SolverFailedError",
    "SolverUnavailableError",
    "first_line",
    "where_raised",
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


def where_raised(exc: BaseException) -> str:
    """`` (at FILE:LINE)``: where ``exc`` was raised (its innermost frame), or ``""``.

    Parameters
    ----------
    exc : BaseException
        An exception that was raised (it has a traceback).

    Returns
    -------
    str
        The place, for a one-line message about a user's method that raised.

    Examples
    --------
    >>> try:
    ...     1 / 0
    ... except ZeroDivisionError as error:
    ...     where_raised(error).startswith(" (at ")
    True
    >>> where_raised(ValueError("never raised"))
    ''
    """
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return "" if tb is None else f" (at {tb.tb_frame.f_code.co_filename}:{tb.tb_lineno})"


def first_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message (`` [...]`` marks that more lines were cut).

    Parameters
    ----------
    exc : BaseException
        Any exception.

    Returns
    -------
    str
        Its message up to the first newline, for a message that must stay one line.

    Examples
    --------
    >>> first_line(ValueError("a\\nb"))
    'a [...]'
    >>> first_line(KeyError("k"))
    "'k'"
    """
    text = str(exc).strip()
    head, _, rest = text.partition("\n")
    return f"{head} [...]" if rest.strip() else head
