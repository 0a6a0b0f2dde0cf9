"""Options as a contract: each method declares what it accepts; the rest is refused.

Every method of every family (VCSched ``solve``, DRFH ``allocate``, the simulators)
accepts the three *common* options with one meaning each, and its own *specific*
options. The method table says what a deterministic or instant method does with a
common option (for example, a greedy heuristic has nothing to seed). Anything else is
an ``InvalidInputError`` that names the accepted options.

- ``time_limit`` (s, > 0, finite, at most ``MAX_SECONDS``): wall-clock limit of the
  method's solve; a method that stops at it reports status ``time_limit`` with its
  incumbent.
- ``threads`` (int in [1, 4 x cores]): solver threads; single-threaded methods ignore it.
- ``seed`` (int in [0, 2**63 - 1]): seed of the method's random choices; methods
  without random choices ignore it (their answer is deterministic).

Examples
--------
>>> spec = MethodSpec("gr", "greedy", options=("max_attempts",),
...                   common={"time_limit": "ignored (instant)"})
>>> spec.accepted
('max_attempts', 'seed', 'threads', 'time_limit')
>>> check_options("VCSched method", spec, {"tol": 0.1})
Traceback (most recent call last):
...
allockit.errors.InvalidInputError: VCSched method 'gr' does not accept option 'tol'...
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from allockit.checks import is_finite_real
from allockit.constants import MAX_SECONDS, THREADS_PER_CORE
from allockit.constants import MAX_SEED as _MAX_SEED
from allockit.errors import (
    AllocKitError,
    InvalidInputError,
    method_failed,
)

__all__ = [
    "COMMON_OPTIONS",
    "MAX_SEED",
    "MethodSpec",
    "Range",
    "check_common",
    "check_options",
    "max_threads",
    "method_table",
    "overrun_note",
    "parse_option_pairs",
    "run_user_method",
]

#: The options every method accepts, with one documented meaning.
COMMON_OPTIONS = ("seed", "threads", "time_limit")
#: Largest seed accepted (numpy and CP-SAT both take 63-bit seeds).
MAX_SEED = _MAX_SEED


def max_threads() -> int:
    """The most solver threads or worker processes accepted: 4 x the cores of this machine.

    Returns
    -------
    int
        ``THREADS_PER_CORE * os.cpu_count()`` (``allockit.constants``).

    Examples
    --------
    >>> max_threads() >= 4
    True
    """
    import os

    return THREADS_PER_CORE * (os.cpu_count() or 1)


@dataclass(frozen=True, slots=True)
class Range:
    """What a number option accepts: its kind, bounds and unit (a declarative check).

    Used for the methods' own options (``MethodSpec.ranges``) and for every number
    option of the command line (``allockit.cli.common.OPTION_RANGES``). ``le`` may be a
    function of no argument, for limits that depend on the machine (``max_threads``).

    Attributes
    ----------
    kind : {int, float, bool}
        ``int`` refuses bools and fractions; ``float`` refuses bools, NaN and
        infinities; ``bool`` takes only True or False.
    ge, gt, le, lt : number or callable, optional
        Bounds (``>=``, ``>``, ``<=``, ``<``).
    unit : str
        Printed after the kind (``"a number of seconds > 0"``).

    Examples
    --------
    >>> Range(float, gt=0, le=1).describe()
    'a number in (0, 1]'
    >>> Range(int, ge=1, unit="threads").check("threads", 0)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: threads must be an integer number of threads >= 1; got 0
    """

    kind: type
    ge: Any = None
    gt: Any = None
    le: Any = None
    lt: Any = None
    unit: str = ""

    def _bound(self, value: Any) -> Any:
        return value() if callable(value) else value

    def describe(self) -> str:
        """What the option accepts, in words (``"an integer in [1, 8]"``).

        Returns
        -------
        str
            The kind, the unit and the bounds.

        Examples
        --------
        >>> Range(float, ge=0, unit="seconds").describe()
        'a number of seconds >= 0'
        """
        if self.kind is bool:
            return "true or false"
        noun = "an integer" if self.kind is int else "a number"
        if self.unit:
            noun += f" of {self.unit}" if self.kind is float else f" number of {self.unit}"
        ge, gt, le, lt = (self._bound(v) for v in (self.ge, self.gt, self.le, self.lt))
        low = f"[{_fmt(ge)}" if ge is not None else (f"({_fmt(gt)}" if gt is not None else "")
        high = f"{_fmt(le)}]" if le is not None else (f"{_fmt(lt)})" if lt is not None else "")
        if low and high:
            return f"{noun} in {low}, {high}"
        if low:
            return f"{noun} {'>=' if ge is not None else '>'} {_fmt(ge if ge is not None else gt)}"
        if high:
            return f"{noun} {'<=' if le is not None else '<'} {_fmt(le if le is not None else lt)}"
        return noun

    def accepts(self, value: Any) -> bool:
        """Whether ``value`` is of the kind and within the bounds.

        Parameters
        ----------
        value : Any
            The option's value.

        Returns
        -------
        bool
            True if the value is accepted.

        Examples
        --------
        >>> Range(int, ge=1).accepts(2.0), Range(float, gt=0).accepts(float("inf"))
        (False, False)
        """
        if self.kind is bool:
            return isinstance(value, bool | np.bool_)
        if isinstance(value, bool | np.bool_):
            return False
        if self.kind is int:
            if not isinstance(value, int | np.integer):
                return False
        elif not is_finite_real(value):  # (an int too large for a float is not finite)
            return False
        ge, gt, le, lt = (self._bound(v) for v in (self.ge, self.gt, self.le, self.lt))
        return not (
            (ge is not None and value < ge)
            or (gt is not None and value <= gt)
            or (le is not None and value > le)
            or (lt is not None and value >= lt)
        )

    def check(self, name: str, value: Any) -> None:
        """Raise ``InvalidInputError`` unless ``value`` is accepted.

        Parameters
        ----------
        name : str
            The option's name, quoted in the message (``"--period"``, ``"tol"``).
        value : Any
            The option's value.

        Raises
        ------
        InvalidInputError
            ``"<name> must be <describe()>; got <value>"``.

        Examples
        --------
        >>> Range(float, ge=1.0, unit="seconds").check("--period", 1e-9)
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: --period must be a number of seconds >= 1; got 1e-09
        """
        if not self.accepts(value):
            raise InvalidInputError(f"{name} must be {self.describe()}; got {value!r}")


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e6 else f"{value:g}"
    return str(value)


@dataclass(frozen=True, slots=True)
class MethodSpec:
    """A method of a family: its name, a one-line summary and the options it accepts.

    ``common`` maps a common option to what this method does with it (the method table
    prints it); a common option not listed is used with its standard meaning.

    Attributes
    ----------
    name : str
        The method's name, as passed to ``solve``/``allocate``/``simulate``.
    summary : str
        One line for the method table.
    options : tuple of str
        The method's own options (the common ones are always accepted too).
    common : Mapping[str, str]
        Common option -> what the method does with it, e.g. ``"ignored (deterministic)"``.
    ranges : Mapping[str, Range]
        Own option -> the values it accepts, checked by ``check_options`` before the
        method runs (an option without a range is checked by the method itself).
    defaults : Mapping[str, Any]
        Own option -> its default value (listed by ``allockit methods``).
    help : Mapping[str, str]
        Own option -> what it means, in a few words.

    Examples
    --------
    >>> spec = MethodSpec("mcb8", "bin packing", ("tol",), {"seed": "ignored"})
    >>> spec.accepted
    ('seed', 'threads', 'time_limit', 'tol')
    """

    name: str
    summary: str
    options: tuple[str, ...] = ()
    common: Mapping[str, str] = field(default_factory=dict)
    ranges: Mapping[str, Range] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    help: Mapping[str, str] = field(default_factory=dict)

    @property
    def accepted(self) -> tuple[str, ...]:
        """Every option name the method accepts, sorted."""
        return tuple(sorted({*self.options, *COMMON_OPTIONS}))


def check_common(
    *, time_limit: Any = None, threads: Any = None, seed: Any = None
) -> None:
    """Validate the common options (None means "not given").

    Parameters
    ----------
    time_limit : float, optional
        Wall-clock limit in seconds; must be a finite number in (0, ``MAX_SECONDS``]
        (not a bool).
    threads : int, optional
        Solver threads; must be an integer in [1, ``max_threads()``] (4 per core; not a
        bool).
    seed : int, optional
        Random seed; must be an integer in [0, ``MAX_SEED``] = [0, 2**63 - 1].

    Raises
    ------
    InvalidInputError
        If ``time_limit`` is not a finite number in (0, 1e10], ``threads`` not an
        integer in [1, 4 x cores], or ``seed`` not an integer in [0, 2**63 - 1].

    Examples
    --------
    >>> check_common(time_limit=10, threads=2, seed=0)
    >>> check_common(seed=-1)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: seed must be an integer in [0, 9223372036854775807]; got -1
    """
    if time_limit is not None:
        Range(float, gt=0, le=MAX_SECONDS, unit="seconds").check("time_limit", time_limit)
    if threads is not None:
        Range(int, ge=1, le=max_threads()).check("threads", threads)
    if seed is not None and (
        isinstance(seed, bool)
        or not isinstance(seed, int | np.integer)
        or not 0 <= seed <= MAX_SEED
    ):
        raise InvalidInputError(f"seed must be an integer in [0, {MAX_SEED}]; got {seed!r}")


def check_options(family: str, spec: MethodSpec, options: Mapping[str, Any]) -> None:
    """Refuse any option ``spec`` does not accept, naming the accepted ones.

    ``family`` names the kind of method in the message (``"VCSched method"``,
    ``"simulator"``, ...).

    Parameters
    ----------
    family : str
        The kind of method, used in the error message.
    spec : MethodSpec
        The method whose accepted options are checked against.
    options : Mapping[str, Any]
        The options as given; common options whose value is None count as not given.

    Raises
    ------
    InvalidInputError
        For ``options`` that are no mapping, an unknown option (the message lists the
        accepted ones), a common option with a bad value (see ``check_common``) or an
        own option outside its ``spec.ranges``.

    Examples
    --------
    >>> spec = MethodSpec("lp", "linear program", ("split",))
    >>> check_options("DRFH method", spec, {"split": True, "seed": None})
    >>> check_options("DRFH method", spec, {"tol": 0.1, "gap": 0})
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: DRFH method 'lp' does not accept options 'gap', 'tol'; \
accepted: seed, split, threads, time_limit
    """
    if not isinstance(options, Mapping):
        raise InvalidInputError(
            f"options must map option names to values; got {options!r}"
        )
    unknown = sorted(set(options) - set(spec.accepted))
    if unknown:
        plural = "s" if len(unknown) > 1 else ""
        names = ", ".join(repr(u) for u in unknown)
        raise InvalidInputError(
            f"{family} {spec.name!r} does not accept option{plural} {names}; "
            f"accepted: {', '.join(spec.accepted)}"
        )
    check_common(**{k: options[k] for k in COMMON_OPTIONS if k in options})
    for name, value in options.items():
        if name in spec.ranges:
            spec.ranges[name].check(name, value)


def run_user_method(
    family: str,
    function: Callable[..., Any],
    instance: Any,
    *,
    time_limit: float | None = None,
    threads: int | None = None,
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
    name: str | None = None,
) -> tuple[Any, float]:
    """Call a user's method with its options checked, and time the call.

    The common options are validated (``check_common``); those that are not None are
    passed on with ``options``. A method that declares a ``method_spec`` (a
    ``MethodSpec``) has all of them checked against it first (``check_options``).
    What the method returns is for the caller to check and score.

    Parameters
    ----------
    family : str
        The kind of method, used in error messages (``"VCSched method"``, ...).
    function : callable
        The user's method, ``function(instance, **options)``.
    instance : object
        The instance it is called on.
    time_limit, threads, seed : optional
        The common options (None: not given, not passed).
    options : Mapping[str, Any], optional
        The method's own options, passed as they are.
    name : str, optional
        The method's name in messages (the spec the user gave; default: the
        function's qualified name).

    Returns
    -------
    tuple (object, float)
        The method's output and the seconds the call took (wall clock).

    Raises
    ------
    InvalidInputError
        For a bad common option, or an option the declared ``method_spec`` refuses.
    MethodFailedError
        If the method raised an exception other than allockit's own: one line naming
        the method, the exception and where it was raised (the exception is the
        ``__cause__``).

    Examples
    --------
    >>> def twice(instance, **options):
    ...     return [2 * x for x in instance], sorted(options)
    >>> output, seconds = run_user_method("toy method", twice, [1, 2], seed=3,
    ...                                   options={"k": 1})
    >>> output, seconds >= 0
    (([2, 4], ['k', 'seed']), True)
    >>> twice.method_spec = MethodSpec("twice", "doubles", ("k",))
    >>> run_user_method("toy method", twice, [1], options={"j": 1})
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: toy method 'twice' does not accept option 'j'; \
accepted: k, seed, threads, time_limit
    >>> def broken(instance, **options):
    ...     return 1 / 0
    >>> run_user_method("toy method", broken, [1], name="mine:broken")
    Traceback (most recent call last):
    ...
    allockit.errors.MethodFailedError: toy method 'mine:broken' raised ZeroDivisionError: \
division by zero (at ...)
    """
    import time

    check_common(time_limit=time_limit, threads=threads, seed=seed)
    common = {"time_limit": time_limit, "threads": threads, "seed": seed}
    given = {k: v for k, v in common.items() if v is not None}
    own = dict(options or {})
    declared = getattr(function, "method_spec", None)
    if isinstance(declared, MethodSpec):
        check_options(family, declared, {**own, **given})
    started = time.perf_counter()
    try:
        output = function(instance, **given, **own)
    except AllocKitError:
        raise  # (allockit's own errors are one clear line already)
    except Exception as exc:
        raise method_failed(f"{family} {name or _method_name(function)!r}", exc) from exc
    return output, time.perf_counter() - started


def overrun_note(message: str, seconds: float, time_limit: float | None) -> str:
    """``message``, with a note when a user's method ran past its time limit.

    allockit cannot stop a user's function in the middle (the runner's backends stop a
    whole task from outside); a result it returned late keeps its status, and its
    message says how late.

    Parameters
    ----------
    message : str
        The result's message so far.
    seconds : float
        How long the method ran.
    time_limit : float or None
        The limit it was given (None: no limit).

    Returns
    -------
    str
        ``message``, or ``message`` and the note joined by ``"; "``.

    Examples
    --------
    >>> overrun_note("", 3.2, 1.0)
    'the method ran 3.2 s, past its time limit of 1 s'
    >>> overrun_note("fine", 0.5, 1.0)
    'fine'
    """
    if time_limit is None or not seconds > time_limit:
        return message
    note = f"the method ran {seconds:.3g} s, past its time limit of {time_limit:g} s"
    return f"{message}; {note}" if message else note


def _method_name(function: Callable[..., Any]) -> str:
    """The method's name for a message: its qualified name."""
    return str(getattr(function, "__qualname__", None) or type(function).__name__)


def method_table(specs: Mapping[str, MethodSpec]) -> str:
    """The methods as a markdown table: name, summary, options, common-option notes.

    Used to document the methods of a family (``allockit.vcsched.METHOD_SPECS``,
    ``allockit.drfh.METHOD_SPECS``, the simulators' specs).

    Parameters
    ----------
    specs : Mapping[str, MethodSpec]
        Method name -> spec, in the order of the rows (e.g. ``vcsched.METHOD_SPECS``).

    Returns
    -------
    str
        The table, one line per method after the two header lines; ``-`` when a
        method has no options of its own, ``all used`` when it uses every common
        option with its standard meaning.

    Examples
    --------
    >>> print(method_table({"x": MethodSpec("x", "does x", ("tol",), {"seed": "ignored"})}))
    | method | what it does | its options | time_limit / threads / seed |
    |---|---|---|---|
    | `x` | does x | `tol` | seed: ignored |
    """
    lines = [
        "| method | what it does | its options | time_limit / threads / seed |",
        "|---|---|---|---|",
    ]
    for name, spec in specs.items():
        opts = ", ".join(f"`{o}`" for o in spec.options) or "-"
        notes = "; ".join(f"{k}: {v}" for k, v in sorted(spec.common.items())) or "all used"
        lines.append(f"| `{name}` | {spec.summary} | {opts} | {notes} |")
    return "\n".join(lines)


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def _typed(key: str, text: str, rng: Range | None) -> Any:
    """``text`` as the kind ``rng`` declares, or as a JSON literal when it has none."""
    import json

    if rng is None:
        try:
            return json.loads(text)
        except ValueError:
            return text
    if rng.kind is bool:
        low = text.strip().lower()
        if low in _TRUE or low in _FALSE:
            return low in _TRUE
        raise InvalidInputError(f"option {key} must be true or false; got {text!r}")
    try:
        return int(text) if rng.kind is int else float(text)
    except ValueError:
        raise InvalidInputError(f"option {key} must be {rng.describe()}; got {text!r}") from None


def parse_option_pairs(
    pairs: Sequence[str], spec: MethodSpec | None, family: str = "method"
) -> dict[str, Any]:
    """Typed options from ``KEY=VALUE`` strings (the command line's ``--option``).

    With a ``spec``, each key must be one of the method's accepted options (else the
    message lists them), each value is converted to the kind of the option's ``Range``
    and checked against it (the common ``time_limit``, ``threads`` and ``seed`` too);
    an option without a range, and every option of a method without a spec, is read as
    a JSON literal (``3``, ``0.5``, ``true``, ``null``, ``"text"``) or else kept as the
    string given.

    Parameters
    ----------
    pairs : sequence of str
        ``"KEY=VALUE"`` strings, in order; a key given twice is refused.
    spec : MethodSpec or None
        The method's declared options, or None for a user method that declares none.
    family : str, default "method"
        The kind of method, named in messages (``"VCSched method"``).

    Returns
    -------
    dict
        Option name -> typed value.

    Raises
    ------
    InvalidInputError
        For a pair without ``=``, a key given twice, an unknown key, or a value of the
        wrong kind or out of range.

    Examples
    --------
    >>> spec = MethodSpec("mcb8", "bin packing", ("tol",), ranges={"tol": Range(float, gt=0)})
    >>> parse_option_pairs(["tol=0.01", "seed=3"], spec)
    {'tol': 0.01, 'seed': 3}
    >>> parse_option_pairs(["depth=2", "name=fast"], None)
    {'depth': 2, 'name': 'fast'}
    >>> parse_option_pairs(["tol=-1"], spec)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: tol must be a number > 0; got -1.0
    """
    common = {
        "time_limit": Range(float, gt=0, le=MAX_SECONDS, unit="seconds"),
        "threads": Range(int, ge=1, le=max_threads),
        "seed": Range(int, ge=0, le=MAX_SEED),
    }
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = str(pair).partition("=")
        key = key.strip()
        if not sep or not key:
            raise InvalidInputError(f"--option must be KEY=VALUE; got {pair!r}")
        if key in out:
            raise InvalidInputError(f"--option {key} is given twice")
        if spec is not None and key not in spec.accepted:
            raise InvalidInputError(
                f"{family} {spec.name!r} does not accept option {key!r}; "
                f"accepted: {', '.join(spec.accepted)}"
            )
        rng = common.get(key) or (spec.ranges.get(key) if spec is not None else None)
        out[key] = _typed(key, text, rng)
        if rng is not None:
            rng.check(key, out[key])
    return out
