"""DRFH subcommands: ``drfh`` (allocate an instance) and ``fairness`` (property tests)."""

from __future__ import annotations

import argparse

from allockit.cli.common import (
    EXIT_OK,
    applies_only,
    name_list,
    positive_int,
    print_json,
    seed_int,
)
from allockit.errors import InvalidInputError

__all__ = ["register"]

_METHODS = "lp, progressive, first-fit, best-fit, per-server-drf, slots"


def cmd_drfh(args: argparse.Namespace) -> int:
    """``allockit drfh FILE --method NAME``: the allocation as JSON."""
    from allockit.drfh import DRFH_METHODS, allocate
    from allockit.instances.io import read_drfh_instance

    if args.method not in DRFH_METHODS:
        raise InvalidInputError(
            f"--method must be one of {list(DRFH_METHODS)}; got {args.method!r}"
        )
    here = f"--method {args.method}"
    applies_only(args, ("slots",), when=args.method == "slots", to="--method slots", here=here)
    applies_only(
        args, ("split",), when=args.method in ("lp", "progressive"),
        to="the divisible methods (--method lp, progressive)", here=here,
    )
    instance = read_drfh_instance(args.file)
    options: dict = {}
    if args.method == "slots":
        options["per_largest"] = args.slots
    if args.method in ("lp", "progressive"):
        options["split"] = args.split
    print_json(allocate(instance, args.method, **options).to_dict())
    return EXIT_OK


def cmd_fairness(args: argparse.Namespace) -> int:
    """``allockit fairness --method NAME``: hypothesis property checks of a mechanism."""
    from allockit.fairness import MECHANISMS, PROPERTIES, check

    if args.method not in MECHANISMS:
        raise InvalidInputError(
            f"--method must be one of {sorted(MECHANISMS)}; got {args.method!r}"
        )
    names = (
        list(name_list("--properties", args.properties))
        if args.properties is not None
        else list(PROPERTIES)
    )
    reports = check(
        MECHANISMS[args.method],
        names,
        examples=args.examples,
        seed=args.seed,
        finite_tasks=args.method != "lp",
    )
    print_json({"method": args.method, "properties": [r.to_dict() for r in reports]})
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add the DRFH subcommands to the top-level parser.

    ``drfh FILE --method NAME``: allocate a DRFH instance file and print the result
    (``allockit.drfh.allocate``). ``fairness --method NAME``: property-test a
    mechanism with hypothesis (``allockit.fairness.check``). Each sets ``func`` to the
    command to run.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The top-level parser's subcommands, as returned by
        ``parser.add_subparsers()`` (``allockit.cli.build_parser`` passes its own).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="allockit")
    >>> register(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["drfh", "instance.json", "--method", "slots", "--slots", "8"])
    >>> args.file, args.method, args.slots, args.func.__name__
    ('instance.json', 'slots', 8, 'cmd_drfh')
    """
    p = sub.add_parser("drfh", help="fair multi-resource allocation on heterogeneous servers")
    p.add_argument("file", help="DRFH instance JSON")
    p.add_argument(
        "--method",
        default="lp",
        metavar="NAME",
        help=f"{_METHODS}; lp refuses finite task caps it would exceed (default: lp)",
    )
    p.add_argument(
        "--slots",
        type=positive_int,
        default=14,
        metavar="S",
        help="slots per largest server for --method slots, an integer in [1, 10000] "
        "(default: 14)",
    )
    p.add_argument(
        "--split",
        action="store_true",
        help="lp and progressive: report per server, not per server class (default: off)",
    )
    p.set_defaults(func=cmd_drfh)

    p = sub.add_parser("fairness", help="property-test a DRFH mechanism (hypothesis)")
    p.add_argument(
        "--method",
        default="progressive",
        metavar="NAME",
        help=f"{_METHODS} (default: progressive)",
    )
    p.add_argument(
        "--properties",
        default=None,
        metavar="P1,P2",
        help="comma-separated subset of envy_freeness, pareto, truthfulness, "
        "single_server_drf, single_resource_fairness, bottleneck_fairness, "
        "population_monotonicity, sharing_incentive (default: all)",
    )
    p.add_argument(
        "--examples",
        type=positive_int,
        default=200,
        metavar="N",
        help="generated instances per property, an integer in [1, 1000000] (default: 200)",
    )
    p.add_argument(
        "--seed",
        type=seed_int,
        default=0,
        metavar="N",
        help="seed of the search, an integer in 0..2^63-1 (default: 0)",
    )
    p.set_defaults(func=cmd_fairness)
