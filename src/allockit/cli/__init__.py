"""The ``allockit`` command line: subcommands mirror the library; JSON in, JSON out.

One module per family registers its subcommands (``vcsched``, ``drfh``, ``workloads``,
``simulate``, ``dfrs``, ``runner``); each parses, calls the library and prints, with no
library logic of its own. Exit codes (a contract): 0 the run completed (whatever the
solve status), 1 a missing optional dependency, 2 invalid input or usage (one line on
stderr, no traceback), 3 completed but some sweep, comparison or experiment tasks failed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from allockit.cli import dfrs, drfh, measy, runner, simulate, vcsched, workloads
from allockit.cli.common import EXIT_DEPENDENCY, EXIT_INVALID
from allockit.errors import InvalidInputError, SolverUnavailableError
from allockit.version import __version__

__all__ = ["build_parser", "main"]

#: The subcommand modules, in the order of ``allockit --help``.
FAMILIES = (vcsched, runner, workloads, dfrs, simulate, drfh, measy)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests).

    Examples
    --------
    >>> sorted(build_parser()._subparsers._group_actions[0].choices)[:3]
    ['bound', 'compare', 'demo']
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
    """Run the CLI; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except InvalidInputError as exc:
        sys.stderr.write(f"allockit: error: {exc}\n")
        return EXIT_INVALID
    except SolverUnavailableError as exc:
        sys.stderr.write(f"allockit: {exc}\n")
        return EXIT_DEPENDENCY


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
