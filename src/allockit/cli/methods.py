"""``allockit methods``: every method of every family, built-in or registered, as JSON."""

from __future__ import annotations

import argparse

from allockit.cli.common import EXIT_OK, print_json

__all__ = ["register"]


def cmd_methods(args: argparse.Namespace) -> int:
    """``allockit methods [--family F]``: the methods with their options and origin."""
    from allockit.registry import method_list

    methods = method_list(args.family)
    print_json({"methods": methods, "count": len(methods)})
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``methods`` to the top-level parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The top-level parser's subcommands.

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> register(p.add_subparsers())
    >>> p.parse_args(["methods", "--family", "drfh"]).family
    'drfh'
    """
    from allockit.plugins import FAMILIES

    p = sub.add_parser(
        "methods",
        help="list every method (built-in and registered plug-ins) with its options, as JSON",
    )
    p.add_argument(
        "--family",
        choices=list(FAMILIES),
        default=None,
        help="only this family: vcsched (solve, compare), drfh (drfh, fairness), "
        "scheduler (simulate), reserves (reserves) (default: all)",
    )
    p.set_defaults(func=cmd_methods)
