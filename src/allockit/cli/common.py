"""What every subcommand module shares: argument types, JSON and CSV output, exit codes.

Exit codes (a contract users' scripts rely on):

- ``0`` the command completed (whatever the solve status),
- ``1`` a missing optional dependency (the message says what to install),
- ``2`` invalid input or usage (one line on stderr, no traceback),
- ``3`` completed, but some tasks of a sweep, comparison or experiment failed (their
  rows hold the errors).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from allockit.errors import InvalidInputError

__all__ = [
    "EXIT_DEPENDENCY",
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_TASKS_FAILED",
    "OUTPUT_KINDS",
    "ListRange",
    "applies_only",
    "check_backend_options",
    "check_output",
    "check_outputs",
    "check_ranges",
    "connect_option",
    "dfrs_timing_options",
    "error_line",
    "finite_float",
    "given",
    "integer",
    "method_list_option",
    "method_option",
    "method_option_arguments",
    "method_options",
    "method_spec_of",
    "name_list",
    "nonnegative_float",
    "number_list",
    "numbers",
    "option_ranges",
    "output_kinds",
    "positive_float",
    "positive_int",
    "print_json",
    "refuse_empty_values",
    "seed_int",
    "write_dict_csv",
]

EXIT_OK, EXIT_DEPENDENCY, EXIT_INVALID, EXIT_TASKS_FAILED = 0, 1, 2, 3


def _number(text: str, kind: Callable[[str], Any], what: str) -> Any:
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}; got {text!r}") from None


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0.

    Used for options such as ``--time-limit`` (seconds).

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    float
        The number.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a number, or is <= 0, NaN or infinite (argparse turns it
        into a usage error, exit code 2).

    Examples
    --------
    >>> positive_float("2.5")
    2.5
    >>> positive_float("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a finite number > 0; got '0'
    """
    value = _number(text, float, "a number")
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0; got {text!r}")
    return value


def nonnegative_float(text: str) -> float:
    """An argparse type: a finite number >= 0.

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    float
        The number.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a number, or is negative, NaN or infinite.

    Examples
    --------
    >>> nonnegative_float("0")
    0.0
    >>> nonnegative_float("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a finite number >= 0; got '-1'
    """
    value = _number(text, float, "a number")
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0; got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1.

    Used for counts such as ``--workers`` and ``--threads``.

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    int
        The integer.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not an integer (``"2.0"`` is refused) or is < 1.

    Examples
    --------
    >>> positive_int("3")
    3
    >>> positive_int("2.0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected an integer; got '2.0'
    """
    value = _number(text, int, "an integer")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1; got {text!r}")
    return value


def seed_int(text: str) -> int:
    """An argparse type: a seed, an integer in [0, 2**63 - 1].

    The range is ``allockit.options.MAX_SEED``, the one every method accepts.

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    int
        The seed.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not an integer or is outside [0, 2**63 - 1].

    Examples
    --------
    >>> seed_int("7")
    7
    >>> seed_int("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be in [0, 9223372036854775807]; got '-1'
    """
    from allockit.options import MAX_SEED

    value = _number(text, int, "an integer")
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be in [0, {MAX_SEED}]; got {text!r}")
    return value


def number_list(option: str, text: str, kind: type = float) -> tuple:
    """Comma-separated numbers, or an ``InvalidInputError`` naming ``option``.

    Empty items are skipped (``"1,,2,"`` is ``(1.0, 2.0)``). Used for options that
    take a list, such as ``--loads``.

    Parameters
    ----------
    option : str
        The option's name, quoted in the error (``"--loads"``).
    text : str
        The command-line value.
    kind : type, default float
        Converts each item (``float`` or ``int``).

    Returns
    -------
    tuple
        The numbers, in order; at least one.

    Raises
    ------
    InvalidInputError
        If an item does not convert, there is no item, or a float is NaN or infinite.

    Examples
    --------
    >>> number_list("--loads", "0.1,0.5")
    (0.1, 0.5)
    >>> number_list("--seeds", "1,2", int)
    (1, 2)
    >>> number_list("--loads", "0.1,high")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --loads expects comma-separated numbers; got '0.1,high'
    """
    try:
        values = tuple(kind(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise InvalidInputError(f"{option} expects comma-separated numbers; got {text!r}") from None
    if not values or any(isinstance(v, float) and not math.isfinite(v) for v in values):
        raise InvalidInputError(f"{option} expects finite comma-separated numbers; got {text!r}")
    return values


def name_list(option: str, text: str, sep: str = ",") -> tuple[str, ...]:
    """Names separated by ``sep`` (spaces stripped, empty items skipped); at least one.

    Parameters
    ----------
    option : str
        The option's name, for the message (``"--sets"``).
    text : str
        The command-line value.
    sep : str, default ","
        The separator (``";"`` for algorithm names, which hold commas).

    Returns
    -------
    tuple of str

    Raises
    ------
    InvalidInputError
        If no name is left: an empty selection is refused, never read as "all".

    Examples
    --------
    >>> name_list("--sets", "real, scaled")
    ('real', 'scaled')
    >>> name_list("--algorithms", " ; ", ";")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --algorithms needs one or more names separated by ';'; \
got ' ; '
    """
    names = tuple(x.strip() for x in text.split(sep) if x.strip())
    if not names:
        raise InvalidInputError(
            f"{option} needs one or more names separated by {sep!r}; got {text!r}"
        )
    return names


def refuse_empty_values(args: argparse.Namespace) -> None:
    """Refuse an option written with an empty value (``--methods ''``, ``--url ''``).

    No option of allockit means anything by an empty string; read as "not given" it
    would silently select everything. Called by ``allockit.cli.main`` before any work.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (``given_options`` names the options written).

    Raises
    ------
    InvalidInputError
        ``"--methods needs a value; got ''"``.

    Examples
    --------
    >>> refuse_empty_values(argparse.Namespace(given_options={"methods"}, methods="sg"))
    >>> refuse_empty_values(argparse.Namespace(given_options={"methods"}, methods=" "))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --methods needs a value; got ' '
    """
    names = getattr(args, "option_names", {})
    for dest in sorted(getattr(args, "given_options", ())):
        value = getattr(args, dest, None)
        values = value if isinstance(value, list) else [value]
        for item in values:
            if isinstance(item, str) and not item.strip():
                name = names.get(dest, "--" + dest.replace("_", "-"))
                raise InvalidInputError(f"{name} needs a value; got {item!r}")


def print_json(data: Any) -> None:
    """Write ``data`` as JSON on stdout (strict JSON: no NaN or infinity).

    NaN and infinite floats (at any depth) become ``null``; tuples become lists. Output
    is indented, except above 1 MB (a 100,000-job result), which is one line: the
    indenting encoder is pure Python and five times slower.

    Parameters
    ----------
    data : Any
        JSON-ready data (dicts, lists, tuples, str, numbers, bool, None).

    Examples
    --------
    >>> print_json({"min_yield": float("nan"), "hosts": (0, 1)})
    {
     "min_yield": null,
     "hosts": [
      0,
      1
     ]
    }
    """
    try:
        text = json.dumps(data, allow_nan=False)  # the C encoder; no NaN or infinity
    except ValueError:
        data = _strict(data)
        text = json.dumps(data, allow_nan=False)
    if len(text) <= _COMPACT_ABOVE:
        text = json.dumps(data, indent=1, allow_nan=False)
    sys.stdout.write(text + "\n")


#: Characters of JSON above which ``print_json`` writes one line, not indented.
_COMPACT_ABOVE = 1_000_000


def _strict(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_strict(v) for v in value]
    return value


def write_dict_csv(path: str, rows: list[dict[str, Any]]) -> None:
    """Rows as CSV, columns in order of first appearance across all rows.

    A row without some column gets an empty cell. The file is overwritten (UTF-8).

    Parameters
    ----------
    path : str or path-like
        The CSV file to write.
    rows : list of dict
        One dict per line; values are written with ``str``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp(), "rows.csv")
    >>> write_dict_csv(path, [{"method": "mcb8", "min_yield": 0.8}, {"method": "gr", "gap": 0.1}])
    >>> print(path.read_text(), end="")
    method,min_yield,gap
    mcb8,0.8,
    gr,,0.1
    """
    import csv

    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


# ---------------------------------------------------------------------- the boundary
@dataclass(frozen=True, slots=True)
class ListRange:
    """What a list option accepts: each item's range, the list's length and its order.

    The declarative check of the list options (``--loads``, ``--costs``, ``--fanout``),
    beside ``allockit.options.Range`` for single numbers; both live in
    ``option_ranges``. argparse reads the list (``numbers``); ``check_ranges`` applies
    this.

    Attributes
    ----------
    item : allockit.options.Range
        What each item accepts.
    min_len, max_len : int
        Fewest and most items.
    order : {"", "distinct", "increasing"}
        ``distinct``: no item twice; ``increasing``: strictly increasing.

    Examples
    --------
    >>> from allockit.options import Range
    >>> rule = ListRange(Range(float, gt=0, le=10), max_len=3, order="distinct")
    >>> rule.describe()
    'comma-separated numbers in (0, 10], 1 to 3 of them, no value twice'
    >>> rule.check("--loads", (0.5, 0.5))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --loads must be comma-separated numbers in (0, 10], \
1 to 3 of them, no value twice; got 0.5 twice
    """

    item: Any
    min_len: int = 1
    max_len: int = 100
    order: str = ""

    def describe(self) -> str:
        """What the option accepts, in words.

        Returns
        -------
        str
            The items' kind and bounds, the length, the order.

        Examples
        --------
        >>> from allockit.options import Range
        >>> ListRange(Range(int, ge=2), max_len=5, order="").describe()
        'comma-separated integers >= 2, 1 to 5 of them'
        """
        words = self.item.describe()
        for one, many in (("an integer", "integers"), ("a number", "numbers")):
            if words.startswith(one):
                words = many + words[len(one):]
                break
        text = f"comma-separated {words}, {self.min_len} to {self.max_len} of them"
        if self.order == "distinct":
            text += ", no value twice"
        elif self.order == "increasing":
            text += ", increasing"
        return text

    def check(self, name: str, values: Any) -> None:
        """Raise ``InvalidInputError`` unless ``values`` is accepted.

        Parameters
        ----------
        name : str
            The option's name (``"--loads"``).
        values : tuple
            The parsed list.

        Raises
        ------
        InvalidInputError
            ``"<name> must be <describe()>; got <why>"``.

        Examples
        --------
        >>> from allockit.options import Range
        >>> ListRange(Range(float, ge=0)).check("--costs", (0.0, 5.0))
        >>> ListRange(Range(float, ge=0)).check("--costs", (-5.0,))
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: --costs must be comma-separated numbers >= 0, 1 \
to 100 of them; got -5
        """
        values = tuple(values)
        why = ""
        if not self.min_len <= len(values) <= self.max_len:
            why = f"{len(values)} values"
        else:
            bad = [v for v in values if not self.item.accepts(v)]
            if bad:
                why = _fmt_number(bad[0])
            elif self.order == "distinct" and len(set(values)) < len(values):
                twice = next(v for k, v in enumerate(values) if v in values[:k])
                why = f"{_fmt_number(twice)} twice"
            elif self.order == "increasing" and any(
                b <= a for a, b in itertools.pairwise(values)
            ):
                why = ",".join(_fmt_number(v) for v in values)
        if why:
            raise InvalidInputError(f"{name} must be {self.describe()}; got {why}")


def _fmt_number(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def numbers(kind: type = float) -> Callable[[str], tuple]:
    """An argparse type: comma-separated numbers, as a tuple (their range: ``check_ranges``).

    Parameters
    ----------
    kind : {float, int}
        What each item is.

    Returns
    -------
    callable
        ``text -> tuple``; raises ``argparse.ArgumentTypeError`` (a usage error, exit
        2) for an item that is not a number of the kind, NaN or an infinity, or an empty
        list.

    Examples
    --------
    >>> numbers(float)("0.5, 0.9")
    (0.5, 0.9)
    >>> numbers(int)("10,abc")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected comma-separated integers; got '10,abc'
    """

    def parse(text: str) -> tuple:
        try:
            return number_list("", text, kind)
        except InvalidInputError:
            what = "integers" if kind is int else "finite numbers"
            raise argparse.ArgumentTypeError(
                f"expected comma-separated {what}; got {text!r}"
            ) from None

    parse.__name__ = "numbers"
    return parse


def _ranges() -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    from allockit.constants import (
        BOUND_TOL_FLOOR,
        MAX_CLUSTER_NODES,
        MAX_CLUSTER_SECONDS,
        MAX_CORES,
        MAX_EXPERIMENT_JOBS,
        MAX_HOSTS,
        MAX_LOAD,
        MAX_NODES,
        MAX_SECONDS,
        MAX_SEED,
        MAX_TASKS,
        MIN_LOAD,
        PERIOD_FLOOR_SECONDS,
    )
    from allockit.options import Range, max_threads

    seconds = "seconds"
    loads = ListRange(Range(float, ge=MIN_LOAD, le=MAX_LOAD), max_len=100, order="distinct")
    general = {
        "seed": Range(int, ge=0, le=MAX_SEED),
        "threads": Range(int, ge=1, le=max_threads()),
        "workers": Range(int, ge=1, le=max_threads()),
        "time_limit": Range(float, gt=0, le=MAX_SECONDS, unit=seconds),
        "tol": Range(float, ge=BOUND_TOL_FLOOR, le=0.5),
        "period": Range(float, ge=PERIOD_FLOOR_SECONDS, le=MAX_SECONDS, unit=seconds),
        "penalty": Range(float, ge=0, le=MAX_SECONDS, unit=seconds),
        "hold": Range(float, ge=0, le=MAX_SECONDS, unit=seconds),
        "migration_cost": Range(float, ge=0, le=MAX_SECONDS, unit=seconds),
        "node_memory": Range(float, gt=0, le=2.0**20, unit="GiB"),
        "nodes": Range(int, ge=1, le=MAX_NODES),
        "cores": Range(int, ge=1, le=MAX_CORES),
        "hosts": Range(int, ge=1, le=MAX_HOSTS),
        "jobs": Range(int, ge=1, le=MAX_TASKS),
        "trace_jobs": Range(int, ge=1, le=MAX_TASKS),
        "processors": Range(int, ge=1, le=MAX_NODES),
        "procs": Range(int, ge=1, le=MAX_NODES),
        "slack": Range(float, ge=0, lt=1),
        "cov_cpu": Range(float, ge=0, le=10),
        "cov_mem": Range(float, ge=0, le=10),
        "load": Range(float, ge=MIN_LOAD, le=MAX_LOAD),
        "loads": loads,
        "costs": ListRange(Range(float, ge=0, le=MAX_SECONDS, unit=seconds), order="distinct"),
        "examples": Range(int, ge=1, le=1_000_000),
        "slots": Range(int, ge=1, le=10_000),
        "backfill_depth": Range(int, ge=0, le=MAX_TASKS),
        "seeds": Range(int, ge=1, le=10_000),
        "rel_gap": Range(float, ge=0, lt=1),
        "bg_threshold": Range(float, ge=0, le=1e6),
        "measure_noise": Range(float, ge=0, le=100, unit="percentage points"),
        "report_jitter": Range(float, ge=0, le=MAX_SECONDS, unit=seconds),
        "connect_timeout": Range(float, gt=0, le=3600, unit=seconds),
        "duration": Range(float, gt=0, le=MAX_CLUSTER_SECONDS, unit=seconds),
        "warmup": Range(float, ge=0, lt=MAX_CLUSTER_SECONDS, unit=seconds),
        "class3_nodes": Range(int, ge=1, le=MAX_CLUSTER_NODES),
        "fanout": ListRange(Range(int, ge=2, le=MAX_CLUSTER_NODES), max_len=16),
        "c": Range(float, gt=0, le=100),
        "retention": Range(float, ge=0, le=1),
        "every": Range(int, ge=1, le=1_000_000),
        "worst": Range(int, ge=0, le=1000),
    }
    by_command = {
        "cluster-sim": {"nodes": Range(int, ge=1, le=MAX_CLUSTER_NODES)},
        "dfrs-experiment": {"jobs": Range(int, ge=1, le=MAX_EXPERIMENT_JOBS)},
        "measy-experiment": {
            "jobs": Range(int, ge=1, le=MAX_EXPERIMENT_JOBS),
            "trace_jobs": Range(int, ge=1, le=MAX_EXPERIMENT_JOBS),
        },
        "workload lublin": {"load": Range(float, gt=0, le=100)},
    }
    return general, by_command


def check_ranges(args: argparse.Namespace) -> None:
    """Check every number and list option against its range (``option_ranges``).

    argparse has read each option's syntax; this is the one place where the values'
    ranges are enforced, for every subcommand alike, before any work. A dest has one
    range for every subcommand unless the subcommand declares its own
    (``option_ranges(command)``; ``args.command_path`` names the subcommand, as
    ``allockit.cli.main`` sets it).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Raises
    ------
    InvalidInputError
        For the first option out of range: ``--threads must be an integer in [1, 8];
        got 100000``.

    Examples
    --------
    >>> check_ranges(argparse.Namespace(period=600.0, seed=3))
    >>> check_ranges(argparse.Namespace(period=1e-9))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --period must be a number of seconds in [1, 1e+10]; \
got 1e-09
    >>> check_ranges(argparse.Namespace(command_path="cluster-sim", duration=1e7))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --duration must be a number of seconds in (0, 3600]; \
got 10000000.0
    """
    for dest, rule in option_ranges(getattr(args, "command_path", "")).items():
        value = getattr(args, dest, None)
        if value is None or isinstance(value, str | bool):
            continue
        if isinstance(rule, ListRange) != isinstance(value, tuple):
            continue  # a list given as text to a command parsed elsewhere (doctests)
        rule.check("--" + dest.replace("_", "-"), value)


def option_ranges(command: str = "") -> dict[str, Any]:
    """The range of every number and list option, by argparse ``dest``: one table.

    A new option gets its range here (one line), or the fuzz suite and
    ``tests/cli/test_help.py`` name it; ``check_ranges`` enforces the table before any
    work.

    Parameters
    ----------
    command : str, optional
        A subcommand (``"cluster-sim"``, ``"workload lublin"``): its own ranges
        replace the general ones of the same dest.

    Returns
    -------
    dict of str to allockit.options.Range or ListRange
        ``dest`` -> accepted values (kind, bounds, unit; for lists also the length and
        order). Thread and worker counts are capped at 4 x the cores of this machine;
        periods and tolerances have a floor; simulated durations, loads, sizes and
        counts a ceiling under which a run ends.

    Examples
    --------
    >>> option_ranges()["seed"].describe()
    'an integer in [0, 9223372036854775807]'
    >>> option_ranges("cluster-sim")["nodes"].describe()
    'an integer in [1, 100000]'
    """
    global _RANGES
    if _RANGES is None:
        _RANGES = _ranges()
    general, by_command = _RANGES
    words = command.split()
    merged = dict(general)
    for k in range(1, len(words) + 1):  # "workload", then "workload lublin"
        merged.update(by_command.get(" ".join(words[:k]), {}))
    return merged


_RANGES: tuple[dict[str, Any], dict[str, dict[str, Any]]] | None = None


def given(args: argparse.Namespace, dest: str) -> bool:
    """Whether option ``dest`` was written on the command line (not its default).

    ``allockit.cli.main`` records the written options in ``args.given_options``; a
    namespace without it (built in a test) counts every non-default-looking value as
    not given.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    dest : str
        The option's dest (``"migration_cost"``).

    Returns
    -------
    bool

    Examples
    --------
    >>> given(argparse.Namespace(given_options={"seed"}), "seed")
    True
    >>> given(argparse.Namespace(seed=3), "seed")
    False
    """
    return dest in getattr(args, "given_options", ())


def applies_only(
    args: argparse.Namespace, dests: Any, *, when: bool, to: str, here: str
) -> None:
    """Refuse options written on the command line that do not apply here.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (``given`` says which options were written).
    dests : iterable of str
        The options (dests) that apply only ``when``.
    when : bool
        Whether they apply to this run.
    to : str
        What they apply to, for the message (``"the two-tier schedulers KEASY, REASY,
        MEASY"``).
    here : str
        What this run is (``"--algorithm EASY"``).

    Raises
    ------
    InvalidInputError
        ``"--migration-cost applies to <to>, not to <here>"`` for the first written
        option, when ``when`` is false.

    Examples
    --------
    >>> args = argparse.Namespace(given_options={"c"})
    >>> applies_only(args, ["c"], when=True, to="bank", here="--method bank")
    >>> applies_only(args, ["c", "retention"], when=False, to="--method bank",
    ...              here="--method cluster-reserves")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --c applies to --method bank, not to --method \
cluster-reserves
    """
    if when:
        return
    for dest in dests:
        if given(args, dest):
            raise InvalidInputError(f"--{dest.replace('_', '-')} applies to {to}, not to {here}")


#: Output options by dest: "file" (its folder must exist), "dir" (created if missing),
#: "path" (a file or a folder, by the command), "store" (a results store). A command
#: that takes one of them in another kind says so with ``output_kinds``.
OUTPUT_KINDS = {
    "write": "file",
    "csv": "file",
    "jobs_csv": "file",
    "markdown": "file",
    "parquet": "file",
    "plot": "file",
    "out": "file",
    "store": "store",
    "output": "store",
}


def output_kinds(parser: argparse.ArgumentParser, **kinds: str) -> None:
    """Declare the kind of a subcommand's output options where it is not the default.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser.
    **kinds : str
        dest -> ``"file"``, ``"dir"`` or ``"path"`` (``OUTPUT_KINDS``); a callable
        taking the parsed ``args`` and returning the kind is accepted too (``--plot`` of
        ``measy-experiment`` is a folder for ``all``, a file otherwise).

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> output_kinds(p, plot="dir")
    >>> p.parse_args([]).output_kinds
    {'plot': 'dir'}
    """
    parser.set_defaults(output_kinds=dict(kinds))


def check_output(path: str | Path, kind: str, option: str) -> None:
    """Refuse an output path that cannot be written, before any work runs.

    The folder is probed by creating (and removing) a file in it, so what the
    permission bits do not say (a read-only or virtual file system such as ``/proc``,
    a full quota) is found too.

    Parameters
    ----------
    path : str or Path
        The path given on the command line.
    kind : {"file", "dir", "path", "store"}
        ``file``: a file whose folder exists; ``dir``: a folder (created when missing,
        refused when a file is in the way); ``path``: either, nothing in the way;
        ``store``: a results store (``allockit.runner.store.check_store``).
    option : str
        The option's name, for the message (``"--csv"``).

    Raises
    ------
    InvalidInputError
        If the path is a folder where a file is wanted (or the reverse), its folder
        does not exist or cannot be written, a file is in the way, or the store is not
        an allockit store.

    Examples
    --------
    >>> check_output("/nonexistent/dir/x.csv", "file", "--csv")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --csv: folder '/nonexistent/dir' does not exist
    >>> check_output("/proc/x.png", "file", "--plot")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --plot: cannot write '/proc/x.png' (No such file \
or directory)
    """
    target = Path(path)
    if str(path) == "":
        raise InvalidInputError(f"{option} needs a path; got ''")
    if kind == "store":
        from allockit.runner.store import check_store

        check_store(target, option=option)
        return
    existing = target
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing != target and not existing.is_dir():
        raise InvalidInputError(f"{option}: {str(existing)!r} is a file, not a folder")
    if kind == "file":
        if target.is_dir():
            raise InvalidInputError(f"{option}: {str(target)!r} is a folder; give a file name")
        if not target.parent.is_dir():
            raise InvalidInputError(f"{option}: folder {str(target.parent)!r} does not exist")
        _probe_file(target, option)
        return
    if kind == "dir" and target.exists() and not target.is_dir():
        raise InvalidInputError(f"{option}: {str(target)!r} is a file; give a folder")
    if target.exists() and not target.is_dir():
        _probe_file(target, option)
    else:
        _probe_folder(existing, option)


def _probe_file(target: Path, option: str) -> None:
    """Open ``target`` for appending (created, then removed, if new): can it be written?"""
    import os

    created = not target.exists()
    try:
        with open(target, "ab"):
            pass
    except OSError as exc:
        raise InvalidInputError(
            f"{option}: cannot write {str(target)!r} ({exc.strerror or exc})"
        ) from None
    if created:
        try:
            os.unlink(target)
        except OSError:
            pass


def _probe_folder(folder: Path, option: str) -> None:
    """Create and remove a file in ``folder``: can files be made there?"""
    import tempfile

    try:
        with tempfile.TemporaryFile(dir=folder, prefix=".allockit-probe-"):
            pass
    except OSError as exc:
        raise InvalidInputError(
            f"{option}: cannot write in {str(folder)!r} ({exc.strerror or exc})"
        ) from None


def check_outputs(args: argparse.Namespace) -> None:
    """Check every output option of a parsed command line (``OUTPUT_KINDS``).

    Called by ``allockit.cli.main`` before the command runs, so that a run never ends
    on an unwritable file after its work. A subcommand declares where its kinds differ
    (``output_kinds``).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Raises
    ------
    InvalidInputError
        For the first output that cannot be written (see ``check_output``).

    Examples
    --------
    >>> check_outputs(argparse.Namespace(command="compare", csv=None, plot=None))
    >>> check_outputs(argparse.Namespace(command="compare", csv="/"))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --csv: '/' is a folder; give a file name
    """
    declared = getattr(args, "output_kinds", None) or {}
    for dest, kind in OUTPUT_KINDS.items():
        value = getattr(args, dest, None)
        if not isinstance(value, str | Path):
            continue
        kind = declared.get(dest, kind)
        if callable(kind):
            kind = kind(args)
        check_output(value, kind, "--" + dest.replace("_", "-"))


def finite_float(text: str) -> float:
    """An argparse type: a finite number (its range is checked by ``check_ranges``).

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    float
        The number.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a number, or is NaN or infinite.

    Examples
    --------
    >>> finite_float("0.25")
    0.25
    >>> finite_float("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a finite number; got 'nan'
    """
    value = _number(text, float, "a number")
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number; got {text!r}")
    return value


def integer(text: str) -> int:
    """An argparse type: an integer written in decimal (its range: ``check_ranges``).

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    int
        The integer.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a decimal integer (``"1.5"``, ``"1e3"`` are refused).

    Examples
    --------
    >>> integer("-3")
    -3
    >>> integer("1e3")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected an integer; got '1e3'
    """
    return _number(text, int, "an integer")


def error_line(exc: BaseException) -> str:
    """One line for an OS, SQLite, connection or memory error (exit code 2).

    Parameters
    ----------
    exc : BaseException
        The error.

    Returns
    -------
    str
        ``"<what>: <detail>"``, no newline.

    Examples
    --------
    >>> error_line(FileNotFoundError(2, "No such file or directory", "/x/y.csv"))
    "No such file or directory: '/x/y.csv'"
    """
    if isinstance(exc, MemoryError):
        return "out of memory: the input is too large for this machine"
    if isinstance(exc, OSError) and exc.strerror:
        where = f": {exc.filename!r}" if exc.filename else ""
        return f"{exc.strerror}{where}"
    module = type(exc).__module__
    prefix = "results store (SQLite): " if module.startswith("sqlite3") else ""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return prefix + text[:500]


def connect_option(p: argparse.ArgumentParser) -> None:
    """``--connect-timeout S``: how long to wait for a Dask scheduler to answer.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> connect_option(p)
    >>> p.parse_args([]).connect_timeout, p.parse_args(["--connect-timeout", "2"]).connect_timeout
    (10.0, 2.0)
    """
    p.add_argument(
        "--connect-timeout",
        type=positive_float,
        default=10.0,
        metavar="S",
        help="seconds to wait for the Dask scheduler to answer, in (0, 3600] (default: 10)",
    )


def sweep_options(p: argparse.ArgumentParser, *, store: str) -> None:
    """The options of a subcommand that runs an experiment through the runner.

    ``--store`` (default ``store``), ``--backend``, ``--workers``, ``--scheduler``,
    ``--connect-timeout`` and ``--progress``, with one wording for every experiment;
    ``run_experiment`` passes them to ``allockit.runner.run_sweep``.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    store : str
        The default results store file.

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> sweep_options(p, store="x.db")
    >>> a = p.parse_args(["--backend", "serial"])
    >>> a.store, a.backend, a.workers, a.scheduler, a.connect_timeout, a.progress
    ('x.db', 'serial', None, None, 10.0, None)
    """
    from allockit.constants import RUNNER_BACKENDS

    p.add_argument(
        "--store",
        default=store,
        metavar="DB",
        help=f"results store, a new file or an allockit store, resumable (default: {store})",
    )
    p.add_argument(
        "--backend",
        choices=list(RUNNER_BACKENDS),
        default="local",
        help="where tasks run: local, serial or dask (default: local)",
    )
    p.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        metavar="N",
        help="local worker processes, 1..4 x cores (default: one per core)",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="Dask scheduler address for --backend dask (default: none)",
    )
    connect_option(p)
    p.add_argument(
        "--progress",
        action="store_true",
        default=None,
        help="force the progress bar (default: when stderr is a terminal)",
    )


def check_backend_options(args: argparse.Namespace, backend: str) -> None:
    """Refuse the options of another backend: ``--scheduler`` and ``--connect-timeout``
    apply to ``dask``, ``--workers`` to ``local``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.
    backend : str
        The backend the run uses (``--backend``, or a sweep file's).

    Raises
    ------
    InvalidInputError
        For an option written for another backend.

    Examples
    --------
    >>> args = argparse.Namespace(given_options={"workers"})
    >>> check_backend_options(args, "local")
    >>> check_backend_options(args, "serial")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --workers applies to --backend local, not to \
--backend serial
    """
    here = f"--backend {backend}"
    applies_only(args, ("workers",), when=backend == "local", to="--backend local", here=here)
    applies_only(
        args, ("scheduler", "connect_timeout"), when=backend == "dask", to="--backend dask",
        here=here,
    )


def run_experiment(
    args: argparse.Namespace, tasks: list, sweep: str, *, empty: str = ""
) -> Any:
    """Run ``tasks`` with the options of ``sweep_options``; the sweep's summary.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed options, from a parser given ``sweep_options``.
    tasks : list of allockit.tasks.Task
        The experiment's grid.
    sweep : str
        The sweep's name in the store.
    empty : str, optional
        Why the grid may be empty (a missing trace, a filter that matched nothing),
        for the message.

    Returns
    -------
    allockit.runner.SweepSummary
        What ran, was skipped, failed.

    Raises
    ------
    InvalidInputError
        If ``tasks`` is empty (nothing would run: exit 2, the line says why), or an
        option of another backend was given.

    Examples
    --------
    >>> args = argparse.Namespace(backend="serial")
    >>> run_experiment(args, [], "dfrs-table2", empty="--sets real needs the HPC2N trace")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: dfrs-table2: nothing to run (no task in the \
selection): --sets real needs the HPC2N trace
    """
    from allockit.runner import run_sweep

    if not tasks:
        raise InvalidInputError(
            f"{sweep}: nothing to run (no task in the selection)" + (f": {empty}" if empty else "")
        )
    check_backend_options(args, args.backend)

    return run_sweep(
        tasks,
        args.store,
        backend=args.backend,
        workers=args.workers,
        scheduler=args.scheduler,
        sweep=sweep,
        progress=args.progress,
        connect_timeout=args.connect_timeout,
    )


# ------------------------------------------------------------ the methods' own options
def method_option_arguments(
    p: argparse.ArgumentParser, *, solvers: bool = False, rel_gap: bool | None = None
) -> None:
    """``--option KEY=VALUE`` (repeatable) and, for exact methods, ``--solver``, ``--rel-gap``.

    ``method_options`` turns what was given into the method's options, typed and
    range-checked by the method's own spec.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    solvers : bool, default False
        Also add ``--solver NAME`` (subcommands that run Pyomo models).
    rel_gap : bool, optional
        Also add ``--rel-gap X`` (default: with ``solvers``).

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> method_option_arguments(p, solvers=True)
    >>> a = p.parse_args(["--option", "tol=0.01", "--option", "warm_start=false",
    ...                   "--solver", "scip", "--rel-gap", "1e-3"])
    >>> a.option, a.solver, a.rel_gap
    (['tol=0.01', 'warm_start=false'], 'scip', 0.001)
    """
    from allockit.constants import DEFAULT_REL_GAP

    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of the method, typed and range-checked by the method's spec "
        "(an unknown key is refused with the accepted list); repeatable (default: none)",
    )
    if not solvers:
        return
    p.add_argument(
        "--solver",
        default=None,
        metavar="NAME",
        help="solver of the Pyomo models (milp, milp-paper, lp; best's MILP; DRFH lp and "
        "progressive): highs, scip (pip install 'allockit[scip]'), gurobi, cbc, glpk, "
        "cplex, xpress or any solver Pyomo knows; a missing one exits 1 naming what to "
        "install (default: highs)",
    )
    if rel_gap is False:
        return
    p.add_argument(
        "--rel-gap",
        type=finite_float,
        default=None,
        metavar="X",
        help="relative gap at which an exact or portfolio method stops and reports "
        f"optimal, in [0, 1) (default: {DEFAULT_REL_GAP:g}, as HiGHS's mip_rel_gap)",
    )


def method_options(
    args: argparse.Namespace, spec: Any, family: str, *, common: tuple[str, ...] = ()
) -> dict[str, Any]:
    """The options of one method from ``--option``, ``--solver`` and ``--rel-gap``.

    Each ``--option KEY=VALUE`` is typed and range-checked by the method's spec
    (``allockit.options.parse_option_pairs``); ``--solver`` and ``--rel-gap`` become
    ``solver`` and ``rel_gap`` and must be options of the method. A common option
    (``time_limit``, ``threads``, ``seed``) given by ``--option`` and by its own flag
    is refused; one of ``common`` given by ``--option`` alone is kept.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed options, from a parser given ``method_option_arguments``.
    spec : allockit.options.MethodSpec or None
        The method's spec (None: a user method that declares none).
    family : str
        The kind of method, named in messages (``"VCSched method"``).
    common : tuple of str, default ()
        The common options the subcommand also has flags for (their ``dest``).

    Returns
    -------
    dict
        Option name -> typed value.

    Raises
    ------
    InvalidInputError
        For a malformed pair, an unknown key (naming the accepted ones), a value out of
        range, or an option given twice.

    Examples
    --------
    >>> from allockit.options import MethodSpec, Range
    >>> spec = MethodSpec("milp", "a MILP", ("rel_gap", "solver"),
    ...                   ranges={"rel_gap": Range(float, ge=0, lt=1)})
    >>> a = argparse.Namespace(option=["rel_gap=0.01"], solver="scip", rel_gap=None)
    >>> method_options(a, spec, "VCSched method")
    {'rel_gap': 0.01, 'solver': 'scip'}
    >>> method_options(argparse.Namespace(option=[], solver=None, rel_gap=1.0), spec, "m")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --rel-gap must be a number in [0, 1); got 1.0
    """
    from allockit.options import Range, parse_option_pairs

    options = parse_option_pairs(getattr(args, "option", None) or [], spec, family)
    for key in common:
        if key in options and getattr(args, key, None) is not None:
            flag = "--" + key.replace("_", "-")
            raise InvalidInputError(f"{flag} and --option {key}= are both given; give one")
    flags = {"solver": getattr(args, "solver", None), "rel_gap": getattr(args, "rel_gap", None)}
    for key, value in flags.items():
        if value is None:
            continue
        flag = "--" + key.replace("_", "-")
        if key == "rel_gap":
            Range(float, ge=0, lt=1).check(flag, value)
        if key in options:
            raise InvalidInputError(f"{flag} and --option {key}= are both given; give one")
        if spec is not None and key not in spec.accepted:
            raise InvalidInputError(
                f"{family} {spec.name!r} does not take {flag}; its options: "
                f"{', '.join(spec.accepted)}"
            )
        options[key] = value
    return options


def method_option(family: str, text: str, *, option: str = "--method") -> str:
    """Check a method named on the command line, before any work; return it as given.

    Every subcommand that takes a method, mechanism or scheduler accepts a built-in
    name, a registered plug-in's name, ``MODULE:FUNCTION`` or
    ``PATH/TO/FILE.py:FUNCTION`` (``allockit.registry.resolve_method``). A name that
    cannot be used is one line naming the option, the spec and the cause (exit 2).

    Parameters
    ----------
    family : str
        ``"vcsched"``, ``"drfh"``, ``"reserves"`` or ``"scheduler"``.
    text : str
        What the user gave.
    option : str, default "--method"
        The option's name in messages.

    Returns
    -------
    str
        ``text`` (the library resolves it again, from its cache).

    Raises
    ------
    InvalidInputError
        For an unknown name or a spec that cannot be loaded.

    Examples
    --------
    >>> method_option("drfh", "progressive")
    'progressive'
    >>> method_option("drfh", "nosuch_mechanisms:fair")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --method 'nosuch_mechanisms:fair': cannot import \
module 'nosuch_mechanisms': No module named 'nosuch_mechanisms'
    """
    from allockit.registry import resolve_method

    resolve_method(family, text, label=option)
    return text


def dfrs_timing_options(p: argparse.ArgumentParser, *, prefix: str = "") -> None:
    """Add ``--penalty`` and ``--period`` (DFRS rescheduling penalty and MCB8 period).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    prefix : str, default ""
        Put before each help line (``"DFRS "`` where other algorithms share the parser).

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> dfrs_timing_options(p)
    >>> a = p.parse_args(["--period", "3600"])
    >>> a.penalty, a.period
    (300.0, 3600.0)
    """
    from allockit.constants import PENALTY_SECONDS, PERIOD_SECONDS

    p.add_argument(
        "--penalty",
        type=nonnegative_float,
        default=PENALTY_SECONDS,
        metavar="S",
        help=f"{prefix}rescheduling penalty in seconds, in [0, 1e10] "
        f"(default: {PENALTY_SECONDS:g})",
    )
    p.add_argument(
        "--period",
        type=positive_float,
        default=PERIOD_SECONDS,
        metavar="S",
        help=f"{prefix}MCB8 period in seconds, in [1, 1e10] (default: {PERIOD_SECONDS:g})",
    )


def method_spec_of(family: str, text: str) -> Any:
    """The option spec of a method named on the command line (None if it declares none).

    A built-in's spec, or the ``method_spec`` attribute a user's function may declare
    (``allockit.plugins``); ``method_options`` then checks ``--option`` against it.

    Parameters
    ----------
    family : str
        The method's family.
    text : str
        The name or spec as given.

    Returns
    -------
    allockit.options.MethodSpec or None

    Examples
    --------
    >>> method_spec_of("drfh", "slots").options
    ('per_largest', 'split')
    """
    from allockit.registry import builtin_specs, resolve_method

    specs = builtin_specs(family)
    if text in specs:
        return specs[text]
    return getattr(resolve_method(family, text).function, "method_spec", None)


def method_list_option(
    family: str, text: str, *, option: str = "--methods", sep: str = ","
) -> list[str]:
    """A list of methods named on the command line: each checked (``method_option``), once.

    Parameters
    ----------
    family : str
        The methods' family.
    text : str
        ``sep``-separated names or specs.
    option : str, default "--methods"
        The option's name in messages.
    sep : str, default ","
        The separator (the DFRS experiments use ``;``: their names contain no comma but
        specs and names may).

    Returns
    -------
    list of str
        The names as given, in order.

    Raises
    ------
    InvalidInputError
        For an empty list, a name given twice, an unknown name or a spec that cannot
        be loaded.

    Examples
    --------
    >>> method_list_option("vcsched", "mcb8, sg")
    ['mcb8', 'sg']
    >>> method_list_option("vcsched", "mcb8,mcb8")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --methods lists 'mcb8' twice; give each method once
    """
    from allockit.errors import InvalidInputError

    names = [m.strip() for m in str(text).split(sep) if m.strip()]
    if not names:
        raise InvalidInputError(f"{option} needs {sep!r}-separated method names; got {text!r}")
    for k, name in enumerate(names):
        if name in names[:k]:
            raise InvalidInputError(f"{option} lists {name!r} twice; give each method once")
        method_option(family, name, option=option)
    return names
