"""Options as a contract: each method declares what it accepts; the rest is refused.

Every method of every family (VCSched ``solve``, DRFH ``allocate``, the simulators)
accepts the three *common* options with one meaning each, and its own *specific*
options. The method table says what a deterministic or instant method does with a
common option (for example, a greedy heuristic has nothing to seed). Anything else is
an ``InvalidInputError`` that names the accepted options.

- ``time_limit`` (s, > 0, finite): wall-clock limit of the method's solve; a method
  that stops at it reports status ``time_limit`` with its incumbent.
- ``threads`` (int >= 1): solver threads; single-threaded methods ignore it.
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

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from allockit.errors import InvalidInputError

__all__ = [
    "COMMON_OPTIONS",
    "MAX_SEED",
    "MethodSpec",
    "check_common",
    "check_options",
    "method_table",
]

#: The options every method accepts, with one documented meaning.
COMMON_OPTIONS = ("seed", "threads", "time_limit")
#: Largest seed accepted (numpy and CP-SAT both take 63-bit seeds).
MAX_SEED = 2**63 - 1


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
        Wall-clock limit in seconds; must be a finite number > 0 (not a bool).
    threads : int, optional
        Solver threads; must be an integer >= 1 (not a bool).
    seed : int, optional
        Random seed; must be an integer in [0, ``MAX_SEED``] = [0, 2**63 - 1].

    Raises
    ------
    InvalidInputError
        If ``time_limit`` is not a finite number > 0, ``threads`` not an integer >= 1,
        or ``seed`` not an integer in [0, 2**63 - 1].

    Examples
    --------
    >>> check_common(time_limit=10, threads=2, seed=0)
    >>> check_common(seed=-1)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: seed must be an integer in [0, 9223372036854775807]; got -1
    """
    if time_limit is not None and not (
        isinstance(time_limit, int | float)
        and not isinstance(time_limit, bool)
        and math.isfinite(time_limit)
        and time_limit > 0
    ):
        raise InvalidInputError(f"time_limit must be a finite number > 0; got {time_limit!r}")
    if threads is not None and (
        isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
    ):
        raise InvalidInputError(f"threads must be an integer >= 1; got {threads!r}")
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED
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
        For an unknown option (the message lists the accepted ones), or a common
        option with a bad value (see ``check_common``).

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
    unknown = sorted(set(options) - set(spec.accepted))
    if unknown:
        plural = "s" if len(unknown) > 1 else ""
        names = ", ".join(repr(u) for u in unknown)
        raise InvalidInputError(
            f"{family} {spec.name!r} does not accept option{plural} {names}; "
            f"accepted: {', '.join(spec.accepted)}"
        )
    check_common(**{k: options[k] for k in COMMON_OPTIONS if k in options})


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
