"""The ``allockit`` command line: subcommands mirror the library; JSON in, JSON out.

One module per family registers its subcommands (``vcsched``, ``drfh``, ``workloads``,
``data``, ``simulate``, ``dfrs``, ``runner``, ...); each parses, calls the library and
prints, with no library logic of its own. Exit codes (a contract): 0 the run completed (whatever the
solve status), 1 a missing optional dependency, 2 invalid input or usage (one line on
stderr, no traceback), 3 completed but some sweep, comparison or experiment tasks failed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from allockit.cli import (
    data,
    dfrs,
    drfh,
    measy,
    methods,
    reproduce,
    reproduce_vcsched,
    reserves,
    runner,
    simulate,
    vcsched,
    workloads,
)
from allockit.cli.common import EXIT_DEPENDENCY, EXIT_INVALID
from allockit.errors import (
    InvalidInputError,
    MethodFailedError,
    SolverFailedError,
    SolverUnavailableError,
)
from allockit.version import __version__

__all__ = ["build_parser", "main"]

#: The subcommand modules, in the order of ``allockit --help``.
FAMILIES = (
    vcsched,
    runner,
    workloads,
    data,
    dfrs,
    simulate,
    drfh,
    measy,
    reserves,
    reproduce_vcsched,
    reproduce,
    methods,
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests).

    Returns
    -------
    argparse.ArgumentParser
        ``allockit`` with ``--version`` and one subcommand per registered command of
        the modules in ``FAMILIES`` (the chosen one is stored as ``command``).

    Examples
    --------
    >>> parser = build_parser()
    >>> commands = parser._subparsers._group_actions[0].choices
    >>> parser.prog, {"bound", "cluster-sim", "demo", "reserves"} <= set(commands)
    ('allockit', True)
    """
    parser = argparse.ArgumentParser(
        prog="allockit",
        description="Optimization models, heuristics and simulators for cluster resource "
        "allocation. Every subcommand reads and prints JSON.",
        epilog="Exit codes: 0 completed, 1 missing optional dependency, 2 invalid input or "
        "usage, 3 completed but some tasks failed.",
    )
    parser.add_argument("--version", action="version", version=f"allockit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for family in FAMILIES:
        family.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (the one error boundary of the command line).

    Every input is checked before any work runs: argparse reads each option's syntax,
    ``common.check_ranges`` their ranges, ``common.check_outputs`` that every output
    path and store can be written. Then the command runs. A usage error, an
    ``InvalidInputError``, a user's method that raised (``MethodFailedError``) and an
    OS, SQLite, connection or memory error each print one line on stderr and exit 2; a
    missing optional dependency exits 1; anything else is
    a bug and keeps its traceback.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 completed, 1 missing optional dependency, 2 invalid input or usage, 3 some
        tasks failed (130 interrupted).

    Raises
    ------
    SystemExit
        From argparse: code 0 after ``--help`` or ``--version``, code 2 (after one
        line on stderr) for a usage error.

    Examples
    --------
    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     main(["drfh", "/nonexistent.json"])
    2
    >>> print(err.getvalue().strip())
    allockit: error: cannot read instance file '/nonexistent.json': [Errno 2] No such file \
or directory: '/nonexistent.json'
    """
    import contextlib
    import io

    from allockit.cli.common import (
        check_outputs,
        check_ranges,
        error_line,
        refuse_empty_values,
    )

    if any("\x00" in str(arg) for arg in (sys.argv[1:] if argv is None else argv)):
        _one_line("allockit: error: an argument holds a NUL byte, which no option or path may")
        return EXIT_INVALID  # (a shell cannot pass one; a script calling main can)
    parser = build_parser()
    captured = io.StringIO()
    try:
        with contextlib.redirect_stderr(captured):
            args = parser.parse_args(argv)
    except SystemExit as exc:
        text = captured.getvalue()
        if exc.code in (0, None):
            sys.stderr.write(text)
            raise
        lines = [line for line in text.splitlines() if line.strip()]
        _one_line(lines[-1] if lines else "allockit: error: invalid usage")
        raise SystemExit(EXIT_INVALID) from None
    sys.stderr.write(captured.getvalue())
    words, leaf = _command_path(parser, args)
    args.command_path = " ".join(words)
    args.option_names = {
        a.dest: a.option_strings[0] if a.option_strings else a.dest for a in leaf._actions
    }
    args.given_options = _given_options(parser, argv)
    try:
        refuse_empty_values(args)
        check_ranges(args)
        check_outputs(args)
        return int(args.func(args))
    except (InvalidInputError, MethodFailedError) as exc:
        _one_line(f"allockit: error: {exc}")
        return EXIT_INVALID
    except SolverUnavailableError as exc:
        _one_line(f"allockit: {exc}")
        return EXIT_DEPENDENCY
    except SolverFailedError as exc:
        _one_line(f"allockit: error: {exc}")
        return EXIT_DEPENDENCY
    except (OSError, MemoryError) as exc:  # ConnectionError and TimeoutError are OSErrors
        _one_line(f"allockit: error: {error_line(exc)}")
        return EXIT_INVALID
    except KeyboardInterrupt:
        _one_line("allockit: interrupted")
        return 130
    except Exception as exc:
        if type(exc).__module__.startswith("sqlite3"):
            _one_line(f"allockit: error: {error_line(exc)}")
            return EXIT_INVALID
        raise


def _command_path(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> tuple[list[str], argparse.ArgumentParser]:
    """The chosen subcommand's words (``["workload", "lublin"]``) and its parser."""
    words: list[str] = []
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or getattr(args, subs[0].dest, None) not in subs[0].choices:
            return words, parser
        name = getattr(args, subs[0].dest)
        words.append(name)
        parser = subs[0].choices[name]


def _given_options(
    parser: argparse.ArgumentParser, argv: Sequence[str] | None
) -> frozenset[str]:
    """The dests of the options written on the command line (defaults left out).

    The command line is parsed again with every default of ``parser`` suppressed (then
    restored), so only what was written lands in the namespace; ``common.given`` reads
    the result.
    """
    import contextlib
    import io

    saved: list[tuple[argparse.Action, object]] = []
    tables: list[tuple[argparse.ArgumentParser, dict]] = []
    stack = [parser]
    while stack:
        current = stack.pop()
        tables.append((current, dict(current._defaults)))
        current._defaults.clear()
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
            elif not isinstance(action, argparse._HelpAction | argparse._VersionAction):
                saved.append((action, action.default))
                action.default = argparse.SUPPRESS
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            namespace, _ = parser.parse_known_args(argv)
    except SystemExit:  # cannot happen after the first parse succeeded; stay quiet
        return frozenset()
    finally:
        for action, default in saved:
            action.default = default
        for current, defaults in tables:
            current._defaults.update(defaults)
    return frozenset(vars(namespace))


def _one_line(text: str) -> None:
    sys.stderr.write(" ".join(str(text).split()) + "\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
