"""``allockit reproduce --list``: every table and figure of the five papers, with the
command that reproduces it and where its result is recorded."""

from __future__ import annotations

import argparse
import sys

from allockit.cli.common import EXIT_OK, print_json
from allockit.errors import InvalidInputError

__all__ = ["register"]


def cmd_reproduce(args: argparse.Namespace) -> int:
    """Print the catalogue (a table, or JSON with ``--json``)."""
    from allockit.experiments.catalog import CATALOG, catalog_rows

    if args.paper is not None and not args.paper.strip():
        raise InvalidInputError("--paper needs part of a paper's name; got ''")
    rows = catalog_rows(args.paper)
    if not rows:  # an empty selection is an error, not an empty list
        papers = ", ".join(dict.fromkeys(r.paper for r in CATALOG))
        raise InvalidInputError(
            f"--paper {args.paper!r} matches no paper; give part of a name: {papers}"
        )
    if args.json:
        print_json({"reproductions": rows})
        return EXIT_OK
    paper = None
    for row in rows:
        if row["paper"] != paper:
            paper = row["paper"]
            sys.stdout.write(f"\n{paper}\n")
        sys.stdout.write(f"  {row['item']}\n    $ {row['command']}\n")
        where = row["recorded"].replace("RESULTS", "benchmarks/RESULTS.md")
        sys.stdout.write(f"    recorded in {where}")
        sys.stdout.write(f"; {row['note']}\n" if row["note"] else "\n")
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``reproduce`` to the top-level parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The top-level parser's subcommands.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> register(parser.add_subparsers())
    >>> parser.parse_args(["reproduce", "--list"]).list
    True
    """
    p = sub.add_parser(
        "reproduce", help="list every table and figure of the papers with its command"
    )
    p.add_argument("--list", action="store_true", help="list the reproductions (the default)")
    p.add_argument(
        "--paper",
        default=None,
        help="only one paper's: part of its name, e.g. dfrs, measy; one that matches none is "
        "refused (default: all five)",
    )
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.set_defaults(func=cmd_reproduce)
