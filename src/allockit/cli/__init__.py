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
from allockit.errors import InvalidInputError, SolverFailedError, SolverUnavailableError
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
    ``InvalidInputError`` and an OS, SQLite, connection or memory error each print one
    line on stderr and exit 2; a missing optional dependency exits 1; anything else is
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

    from allockit.cli.common import check_outputs, check_ranges, error_line

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
    try:
        check_ranges(args)
        check_outputs(args)
        return int(args.func(args))
    except InvalidInputError as exc:
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


def _one_line(text: str) -> None:
    sys.stderr.write(" ".join(str(text).split()) + "\n")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
