"""Exception hierarchy of allockit."""

__all__ = [
    "AllocKitError",
    "InfeasibleError",
    "InvalidInputError",
    "MethodFailedError",
    "SolverFailedError",
    "SolverUnavailableError",
    "method_failed",
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



def method_failed(what: str, exc: Exception) -> MethodFailedError:
    """The one-line error for a user's method (or policy) ``what`` that raised ``exc``.

    The line names the method, the exception's type, the first line of its message
    (`` [...]`` marks more lines cut) and where it was raised (its innermost frame).
    Raise it ``from exc`` so the original stays the ``__cause__``.

    Parameters
    ----------
    what : str
        The method as the message names it (``"VCSched method 'mine.py:f'"``).
    exc : Exception
        What the method raised.

    Returns
    -------
    MethodFailedError

    Examples
    --------
    >>> try:
    ...     raise ValueError("first\\nsecond")
    ... except ValueError as error:
    ...     text = str(method_failed("toy method 'f'", error))
    >>> text.startswith("toy method 'f' raised ValueError: first [...] (at ")
    True
    >>> str(method_failed("toy method 'g'", KeyError("k")))
    "toy method 'g' raised KeyError: 'k'"
    """
    message = str(exc).strip()
    head, _, rest = message.partition("\n")
    head = f"{head} [...]" if rest.strip() else head
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = "" if tb is None else f" (at {tb.tb_frame.f_code.co_filename}:{tb.tb_lineno})"
    return MethodFailedError(f"{what} raised {type(exc).__name__}: {head}{where}")
