"""``allockit simulate``: any online scheduler (batch, DFRS, ...) on an SWF workload."""

from __future__ import annotations

import argparse

from allockit.cli.common import (
    EXIT_OK,
    applies_only,
    dfrs_timing_options,
    method_option_arguments,
    method_options,
    nonnegative_float,
    output_kinds,
    positive_float,
    print_json,
    seed_int,
    write_dict_csv,
)
from allockit.cli.workloads import platform_options, workload_from_args
from allockit.errors import InvalidInputError

__all__ = ["register"]


#: The options of ``simulate`` that only one family of schedulers takes (by dest).
FAMILY_OPTIONS = {
    "batch": ("estimates", "unit", "backfill_depth"),
    "dfrs": ("penalty", "period", "hold"),
    "two-tier": (
        "migration_cost",
        "bg_threshold",
        "cpu_info",
        "no_background",
        "draws",
        "feedback",
        "seed",
        "debug",
    ),
}
#: What each family is, for the message refusing another family's option.
FAMILY_NAMES = {
    "batch": "the batch schedulers (--algorithm FCFS, EASY)",
    "dfrs": "the DFRS schedulers (--algorithm 'GreedyPM */per/...', Table 1 names)",
    "two-tier": "the two-tier schedulers (--algorithm KEASY, REASY, MEASY)",
}


def _options(family: str, args: argparse.Namespace) -> dict:
    """The library options of ``family`` taken from the parsed command line."""
    if family == "batch":
        options = {"estimates": args.estimates, "unit": args.unit}
        if args.backfill_depth is not None:
            options["backfill_depth"] = args.backfill_depth
        return options
    if family == "dfrs":
        options = {"penalty": args.penalty, "period": args.period}
        if args.hold is not None:
            options["hold"] = args.hold
        return options
    if family == "fractional":  # a policy of the user's on the DFRS platform
        return {"penalty": args.penalty}
    if family == "two-tier":
        return {
            "migration_cost": args.migration_cost,
            "bg_threshold": args.bg_threshold,
            "cpu_info": args.cpu_info,
            "background": not args.no_background,
            "draws": args.draws,
            "feedback": args.feedback,
            "debug": args.debug,
            "seed": args.seed,
            "reasy_extra": args.reasy_extra,
            "reasy_protect": args.reasy_protect,
        }
    return {}


def _two_tier_platform(workload, args: argparse.Namespace):
    """Two-tier: ``--nodes``/``--cores`` override the file's platform (P processors)."""
    import dataclasses

    nodes, cores = getattr(args, "nodes", None), getattr(args, "cores", None)
    if nodes is None and cores is None:
        return workload
    platform = dataclasses.replace(
        workload.platform,
        nodes=nodes or workload.platform.nodes,
        cores=cores or workload.platform.cores,
    )
    return workload.replace(platform=platform)


def _user_policy(args: argparse.Namespace) -> tuple:
    """A scheduler of the user's (``--algorithm MODULE:CLASS``): the policy and its name."""
    from allockit.options import parse_option_pairs
    from allockit.simulation.simulate import build_policy

    if args.backfill_depth is not None:
        raise InvalidInputError(
            "--backfill-depth is EASY's option; give a policy of your own its options "
            "with --option KEY=VALUE"
        )
    pairs = getattr(args, "option", None) or []
    options = parse_option_pairs(pairs, None, "scheduler") if pairs else {}
    return build_policy(args.algorithm, label="--algorithm", **options)


def cmd_simulate(args: argparse.Namespace) -> int:
    """``allockit simulate FILE --algorithm NAME``: the summary JSON."""
    from allockit.simulation.simulate import (
        is_builtin,
        simulate,
        simulate_policy,
        simulator_for,
    )

    if is_builtin(args.algorithm):
        spec = simulator_for(args.algorithm).spec  # a bad name fails before reading
        family = spec.name
        policy = None
    else:
        from allockit.simulation.simulate import ENGINES, _user_named

        if not _user_named(args.algorithm):
            simulator_for(args.algorithm)  # raises, naming what is wrong with the name
        policy, name = _user_policy(args)  # a spec that cannot load fails before reading
        family = policy.model
        spec = ENGINES.get(family)
    here = f"--algorithm {args.algorithm}"
    for fam, dests in FAMILY_OPTIONS.items():
        applies_only(args, dests, when=family == fam, to=FAMILY_NAMES[fam], here=here)
    applies_only(
        args, ("migration_cost",), when=args.algorithm.strip().upper() == "MEASY",
        to="MEASY (the only two-tier scheduler that migrates)", here=here,
    )
    applies_only(  # a policy of the user's on the two-tier platform receives them too
        args, ("reasy_extra", "reasy_protect"),
        when=args.algorithm.strip().upper() == "REASY" or (policy is not None
                                                           and family == "two-tier"),
        to="REASY (its two readings of Algorithm 3)", here=here,
    )
    # --option KEY=VALUE overrides the flag of the same option
    options = {**_options(family, args), **method_options(args, spec, "simulator")}
    workload = workload_from_args(args.file, args)
    if family == "two-tier":
        workload = _two_tier_platform(workload, args)
    if policy is None:
        result = simulate(workload, args.algorithm, **options)
    else:
        result = simulate_policy(workload, policy, name=name, **options)
    summary = {**result.summary(), **getattr(args, "input_counts", {})}
    if args.bound:
        from allockit.models.stretch_bound import stretch_bound

        bound = stretch_bound(workload).value
        summary["bound"] = bound
        summary["degradation"] = result.max_stretch / bound
    if args.jobs_csv:
        write_dict_csv(args.jobs_csv, result.job_rows(workload.tasks))
    if args.plot:
        from allockit.experiments.plots import plot_simulation

        summary["plots"] = [str(p) for p in plot_simulation(result, args.plot)]
        if family == "two-tier":
            from allockit.experiments.plots_measy import plot_tiers

            summary["plots"].append(str(plot_tiers(result, args.plot)))
    print_json(summary)
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``simulate`` to the top-level parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The top-level parser's subcommands.

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> register(p.add_subparsers())
    >>> a = p.parse_args(["simulate", "w.swf", "--algorithm", "MEASY", "--no-background"])
    >>> _options("two-tier", a)["background"], a.migration_cost, a.seed
    (False, 20.0, 0)
    """
    p = sub.add_parser("simulate", help="simulate a scheduler on an SWF workload")
    p.add_argument("file", help="SWF workload (plain or .gz) or a trace name (hpc2n, ...)")
    p.add_argument(
        "--algorithm",
        default="EASY",
        help="FCFS, EASY (default), a DFRS name such as 'GreedyPM */per/opt=min/minvt=600', "
        "a two-tier scheduler KEASY, REASY, MEASY, or a scheduler of your own: "
        "MODULE:CLASS, PATH/TO/FILE.py:CLASS or a registered plug-in (a Policy, see "
        "allockit.simulation.policy)",
    )
    dfrs_timing_options(p, prefix="DFRS ")
    p.add_argument(
        "--hold",
        type=nonnegative_float,
        default=None,
        metavar="S",
        help="DFRS, not in the paper: a job started, resumed or moved less than S seconds "
        "ago is neither paused nor moved by MCB8; S in [0, 1e10] (default: off)",
    )
    p.add_argument(
        "--bound", action="store_true", help="add the stretch lower bound and the degradation"
    )
    p.add_argument(
        "--plot",
        default=None,
        metavar="DIR",
        help="utilisation and stretch plots (PNG) into DIR (default: none)",
    )
    p.add_argument(
        "--node-memory",
        type=positive_float,
        default=None,
        metavar="GIB",
        help="node memory in GiB for the bandwidth figures, in (0, 1048576] (default: the "
        "workload's platform)",
    )
    platform_options(p)
    p.add_argument(
        "--estimates",
        action="store_true",
        help="EASY uses the requested times instead of the true run times",
    )
    p.add_argument(
        "--unit",
        choices=["nodes", "cores"],
        default="nodes",
        help="FCFS/EASY give a job a whole node per task (default) or tasks*cpu*cores cores",
    )
    p.add_argument(
        "--backfill-depth",
        type=int,
        default=None,
        metavar="N",
        help="EASY tries at most N queued jobs after the head for backfilling, in [0, 1e7] "
        "(default: unlimited; 0 is FCFS)",
    )
    p.add_argument(
        "--jobs-csv", default=None, metavar="OUT", help="one CSV row per job (default: none)"
    )
    _two_tier_options(p)


def _two_tier_options(p: argparse.ArgumentParser) -> None:
    """The options of the two-tier schedulers (KEASY, REASY, MEASY)."""
    from allockit.simulation.two_tier_choices import (
        BG_THRESHOLD,
        CPU_INFO,
        DRAWS,
        MIGRATION_COST_SECONDS,
        REASY_EXTRA,
    )

    g = p.add_argument_group("two-tier schedulers (KEASY, REASY, MEASY)")
    g.add_argument(
        "--migration-cost",
        type=nonnegative_float,
        default=MIGRATION_COST_SECONDS,
        metavar="S",
        help="MEASY: seconds a migrated job makes no progress, in [0, 1e10] "
        f"(default: {MIGRATION_COST_SECONDS:g})",
    )
    g.add_argument(
        "--bg-threshold",
        type=nonnegative_float,
        default=BG_THRESHOLD,
        metavar="X",
        help="a bg process only under an idle fg VM or an fg process of CPU usage below X "
        f"(a fraction, in [0, 1e6]; above 1 admits any) (default: {BG_THRESHOLD:g})",
    )
    g.add_argument(
        "--cpu-info",
        choices=list(CPU_INFO),
        default="known",
        help="what the scheduler knows of CPU usage: the file's values, or none (every "
        "process seen at 100 %%) (default: known)",
    )
    g.add_argument(
        "--no-background",
        action="store_true",
        help="no bg tier: KEASY, REASY and MEASY then give EASY's schedule (default: bg on)",
    )
    g.add_argument(
        "--draws",
        choices=list(DRAWS),
        default="job",
        help="granularity of the random fg loss and bg efficiency draws: one per job, "
        "per process, or per placement in a VM (default: job)",
    )
    g.add_argument(
        "--feedback",
        action="store_true",
        help="honour the SWF's preceding-job and think-time fields (17, 18): a job is "
        "submitted think-time seconds after its preceding job ends (default: off, every job "
        "at its submit time)",
    )
    reasy_options(g, REASY_EXTRA)
    g.add_argument(
        "--seed",
        type=seed_int,
        default=0,
        metavar="N",
        help="seed of the two-tier random draws, an integer in 0..2^63-1 (default: 0)",
    )
    g.add_argument(
        "--debug",
        action="store_true",
        help="check the two-tier invariants after every event (slower)",
    )
    output_kinds(p, plot="dir")
    method_option_arguments(p)
    p.set_defaults(func=cmd_simulate)


def reasy_options(g: argparse._ActionsContainer, choices: tuple[str, ...]) -> None:
    """``--reasy-extra`` and ``--reasy-protect``: REASY's two readings of Algorithm 3.

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> reasy_options(p, ("idle", "line17"))
    >>> a = p.parse_args(["--reasy-extra", "line17", "--no-reasy-protect"])
    >>> a.reasy_extra, a.reasy_protect
    ('line17', False)
    """
    g.add_argument(
        "--reasy-extra",
        choices=list(choices),
        default="idle",
        help="REASY's extra fg VMs for a head running in bg: idle = the idle fg VMs off "
        "the head's processors (the paper's prose), line17 = idle + s - n (Algorithm 3, "
        "line 17: s the total size of the fg jobs on the head's processors, n the head's "
        "size) (default: idle)",
    )
    g.add_argument(
        "--reasy-protect",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="REASY: dispatch a job admitted by the extra rule off the head's processors "
        "only (allockit's rule); --no-reasy-protect: Dispatch unmodified, as the paper's "
        "pseudocode (default: protect)",
    )
