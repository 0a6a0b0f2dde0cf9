"""DRFH subcommands: ``drfh`` (allocate an instance) and ``fairness`` (property tests)."""

from __future__ import annotations

import argparse
import sys

from allockit.cli.common import (
    EXIT_OK,
    EXIT_TASKS_FAILED,
    applies_only,
    method_option,
    method_option_arguments,
    method_options,
    method_spec_of,
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
    from allockit.drfh import allocate
    from allockit.instances.io import read_drfh_instance

    method_option("drfh", args.method)  # a spec that cannot load fails before reading
    spec = method_spec_of("drfh", args.method)
    applies_only(
        args, ("slots",), when=args.method == "slots", to="--method slots",
        here=f"--method {args.method}",
    )
    options: dict = {}
    if args.method == "slots":
        options["per_largest"] = args.slots
    if (spec is not None and "split" in spec.options) or args.split:
        options["split"] = args.split  # a user mechanism gets split only when asked
    # --option KEY=VALUE overrides the flag of the same option
    options.update(method_options(args, spec, "DRFH method"))
    instance = read_drfh_instance(args.file)
    print_json(allocate(instance, args.method, **options).to_dict())
    return EXIT_OK


def _fairness_exit(reports: list) -> int:
    """3 when a property has a counterexample or an undecided example, else 0."""
    bad = any(r.status in ("violated", "error") for r in reports)
    return EXIT_TASKS_FAILED if bad else EXIT_OK


def _paragraphs(reports: list) -> None:
    """The counterexamples (and undecided examples) as readable paragraphs on stderr."""
    for r in reports:
        if r.status in ("violated", "error") and r.text:
            sys.stderr.write(r.text + "\n\n")


def cmd_fairness(args: argparse.Namespace) -> int:
    """``allockit fairness --method SPEC``: hypothesis property checks of a mechanism."""
    from allockit.fairness import PROPERTIES, check
    from allockit.fairness.mechanism import Mechanism
    from allockit.options import parse_option_pairs

    if args.fairness_action == "replay":
        return cmd_fairness_replay(args)
    names = (
        list(name_list("--properties", args.properties))
        if args.properties is not None
        else list(PROPERTIES)
    )
    for name in names:
        if name not in PROPERTIES:
            raise InvalidInputError(
                f"--properties must name some of {list(PROPERTIES)}; got {name!r}"
            )
    found = Mechanism.resolve(args.method, label="--method")
    spec = method_spec_of("drfh", args.method)
    options = parse_option_pairs(args.option or [], spec, "DRFH method")
    tasks = args.tasks or ("unbounded" if found.name == "lp" else "finite")
    instance = None
    if args.instance is not None:
        from allockit.instances.io import read_drfh_instance

        instance = read_drfh_instance(args.instance)
    reports = check(
        args.method,
        names,
        examples=args.examples,
        seed=args.seed,
        finite_tasks=tasks == "finite",
        semantics=args.semantics,
        instance=instance,
        options=options,
    )
    print_json(
        {
            "method": found.name,
            "spec": found.spec,
            "options": options,
            "semantics": args.semantics,
            "tasks": tasks if instance is None else None,
            "examples": args.examples if instance is None else 1,
            "seed": args.seed,
            "instance": args.instance,
            "properties": [r.to_dict() for r in reports],
        }
    )
    _paragraphs(reports)
    return _fairness_exit(reports)


def cmd_fairness_replay(args: argparse.Namespace) -> int:
    """``allockit fairness replay FILE``: re-check the counterexamples a run saved."""
    import json

    from allockit.fairness import replay

    try:
        with open(args.file, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise InvalidInputError(f"cannot read report file {args.file!r}: {exc}") from None
    except ValueError as exc:
        raise InvalidInputError(f"report file {args.file!r} is not JSON: {exc}") from None
    reports = replay(data, mechanism=args.replay_method)
    records = []
    for r in reports:
        record = r.to_dict()
        record["reproduced"] = r.status == "violated"
        records.append(record)
    print_json(
        {
            "replay_of": args.file,
            "method": reports[0].method,
            "spec": reports[0].spec,
            "properties": records,
        }
    )
    _paragraphs(reports)
    return _fairness_exit(reports)


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
        help=f"{_METHODS}; lp refuses finite task caps it would exceed; or your own "
        "mechanism: MODULE:FUNCTION, PATH/TO/FILE.py:FUNCTION or a plug-in (default: lp)",
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
        help="report the allocation per server, not per server class (default: off)",
    )
    method_option_arguments(p, solvers=True, rel_gap=False)
    p.set_defaults(func=cmd_drfh)

    _register_fairness(sub)


def _register_fairness(sub: argparse._SubParsersAction) -> None:
    """``fairness`` and ``fairness replay``."""
    import textwrap

    from allockit.fairness.names import DESCRIPTIONS

    properties = "\n".join(
        textwrap.fill(
            text, 110, initial_indent=f"  {name:26s}", subsequent_indent=" " * 28
        )
        for name, text in DESCRIPTIONS.items()
    )
    p = sub.add_parser(
        "fairness",
        help="property-test a DRFH mechanism (hypothesis)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Check a DRFH mechanism against the fairness properties of Wang, Li, "
        "Liang (2014)\non generated instances (or one --instance), shrinking any "
        "counterexample; print the\nreports as JSON and each counterexample as a "
        "paragraph on stderr.\nProperties (with weights and task caps):\n\n"
        + properties
        + "\n\nAn example that cannot be decided (the mechanism raises or refuses it, "
        "an LP/MIP does not\nfinish) is an error, never a pass.",
        epilog="Exit codes:\n"
        "  0  every checked property held (the sharing incentive is only measured)\n"
        "  1  hypothesis is not installed (pip install 'allockit[fairness]')\n"
        "  2  invalid input (one line on stderr)\n"
        "  3  the run completed and at least one property has a counterexample or an\n"
        "     undecided example (each is a paragraph on stderr)\n"
        "`allockit fairness replay FILE` re-checks a saved report: 3 when a counterexample\n"
        "still stands, 0 when none does.",
    )
    p.add_argument(
        "--method",
        default="progressive",
        metavar="SPEC",
        help=f"{_METHODS}, a registered plug-in, MODULE:FUNCTION or PATH/TO/FILE.py:FUNCTION "
        "(a function of the instance returning a DRFHResult or tasks per user and server "
        "class or server) (default: progressive)",
    )
    p.add_argument(
        "--properties",
        default=None,
        metavar="P1,P2",
        help="comma-separated subset of the properties above (default: all)",
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
        help="seed of the search and of the random misreports, an integer in 0..2^63-1 "
        "(default: 0)",
    )
    p.add_argument(
        "--semantics",
        choices=("auto", "whole", "fractional"),
        default="auto",
        help="count whole tasks (per server, no straddling) or divisible ones; auto: whole "
        "when every allocation of an example is whole (default: auto)",
    )
    p.add_argument(
        "--tasks",
        choices=("finite", "unbounded"),
        default=None,
        help="task caps of the generated users: finite (1-40 or unbounded) or all "
        "unbounded (default: unbounded for lp, which refuses caps it would exceed; "
        "finite otherwise)",
    )
    p.add_argument(
        "--instance",
        default=None,
        metavar="FILE",
        help="check this DRFH instance file instead of generated instances (default: "
        "generated)",
    )
    p.add_argument(
        "--option",
        action="append",
        default=None,
        metavar="KEY=VALUE",
        help="an option of the mechanism, repeatable (per_largest=10 for slots) "
        "(default: none)",
    )
    p.set_defaults(func=cmd_fairness, fairness_action=None, replay_method=None)
    actions = p.add_subparsers(dest="fairness_action", metavar="[replay FILE]")
    r = actions.add_parser(
        "replay",
        help="re-check the counterexamples of a saved `allockit fairness` JSON",
        description="Re-check each counterexample (and undecided example) of a report "
        "`allockit fairness` printed, or of one of its records, with the semantics that "
        "applied to it; truthfulness tries the saved lie first.",
        epilog="Exit codes: 0 no counterexample stands any more; 2 invalid input; 3 a "
        "counterexample still stands or an example is undecided.",
    )
    r.add_argument("file", help="the JSON `allockit fairness` printed, or one record of it")
    r.add_argument(
        "--method",
        dest="replay_method",
        default=None,
        metavar="SPEC",
        help="re-check with this mechanism instead of the report's (default: the report's "
        "spec)",
    )
    r.set_defaults(func=cmd_fairness)
