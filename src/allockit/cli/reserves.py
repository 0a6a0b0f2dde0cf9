"""Cluster-reserves subcommands: ``reserves``, ``cluster-sim`` and ``reserves-experiment``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from allockit.cli.common import (
    EXIT_OK,
    EXIT_TASKS_FAILED,
    applies_only,
    method_option,
    nonnegative_float,
    numbers,
    positive_float,
    positive_int,
    print_json,
    run_experiment,
    seed_int,
    sweep_options,
    write_dict_csv,
)
from allockit.errors import InvalidInputError

__all__ = ["register"]

_SCENARIOS = "fig3, fig3-ideal, fig4, fig5, fig6, fig7, fig8, skewed"


def cmd_reserves(args: argparse.Namespace) -> int:
    """``allockit reserves FILE``: one allocation round of the bank or cluster reserves."""
    from allockit.instances.io import read_json
    from allockit.instances.reserves import ReservesInstance
    from allockit.reserves import allocate_reserves

    method_option("reserves", args.method)  # a spec that cannot load fails before reading
    applies_only(
        args, ("c", "retention"), when=args.method == "bank", to="--method bank",
        here=f"--method {args.method}",
    )
    instance = ReservesInstance.from_dict(read_json(args.file, "instance"))
    options: dict[str, Any] = {}
    if args.c is not None:
        options["c"] = args.c
    if args.retention is not None:
        options["retention"] = args.retention
    print_json(allocate_reserves(instance, args.method, **options).to_dict())
    return EXIT_OK


def failure(text: str) -> tuple[str, float]:
    """An argparse type: ``WHO@TIME`` (a node index, or ``mL.I`` for manager ``I`` of level
    ``L``) as ``(who, seconds)``; the time's range against ``--duration`` is the command's.

    Parameters
    ----------
    text : str
        The command-line value.

    Returns
    -------
    tuple of (str, float)
        Who fails and when (finite, >= 0).

    Raises
    ------
    argparse.ArgumentTypeError
        If the value is not of that form.

    Examples
    --------
    >>> failure("m1.0@30"), failure("7@2.5")
    (('m1.0', 30.0), ('7', 2.5))
    >>> failure("7@-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected NODE@TIME or mLEVEL.INDEX@TIME with TIME a \
number of seconds >= 0; got '7@-1'
    """
    import math
    import re

    match = re.fullmatch(r"\s*(\d+|m\d+\.\d+)\s*@\s*(\S+)\s*", text)
    when = None
    if match:
        try:
            when = float(match.group(2))
        except ValueError:
            when = None
    if match is None or when is None or not (math.isfinite(when) and when >= 0):
        raise argparse.ArgumentTypeError(
            "expected NODE@TIME or mLEVEL.INDEX@TIME with TIME a number of seconds >= 0; "
            f"got {text!r}"
        )
    return match.group(1), when


def _check_fanout(nodes: int, fanout: tuple[int, ...]) -> None:
    """Each level of ``--fanout`` must group fewer members than there are below it.

    Examples
    --------
    >>> _check_fanout(1000, (10, 10))
    >>> _check_fanout(10, (1000, 1000))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --fanout: level 1 groups 1000 nodes per manager, \
but there are only 10 nodes below it; each entry must be below what its level groups \
(here at most 9)
    """
    below, what = nodes, "nodes"
    for level, size in enumerate(fanout, start=1):
        if size >= below:
            raise InvalidInputError(
                f"--fanout: level {level} groups {size} {what} per manager, but there are "
                f"only {below} {what} below it; each entry must be below what its level "
                f"groups (here at most {below - 1})"
            )
        below, what = -(-below // size), "managers"


def check_work(config: Any) -> None:
    """Refuse a cluster run beyond ``MAX_CLUSTER_NODES`` or ``MAX_CLUSTER_WORK`` node-seconds.

    Parameters
    ----------
    config : allockit.simulation.cluster.ClusterSimConfig
        The run.

    Raises
    ------
    InvalidInputError
        Naming the nodes, the duration and the longest duration that fits.

    Examples
    --------
    >>> from allockit.simulation.cluster import ClusterSimConfig
    >>> check_work(ClusterSimConfig(n_nodes=100_000, duration=600, warmup=10))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: 100000 nodes for 600 simulated seconds is 6e+07 \
node-seconds; at most 1e+07 (about a quarter of an hour): lower --duration to 100 s or less
    """
    from allockit.constants import MAX_CLUSTER_NODES, MAX_CLUSTER_WORK

    if config.n_nodes > MAX_CLUSTER_NODES:
        raise InvalidInputError(
            f"a cluster run has at most {MAX_CLUSTER_NODES} nodes; got {config.n_nodes}"
        )
    work = config.n_nodes * config.duration
    if work > MAX_CLUSTER_WORK:
        raise InvalidInputError(
            f"{config.n_nodes} nodes for {config.duration:g} simulated seconds is "
            f"{work:.3g} node-seconds; at most {MAX_CLUSTER_WORK:.3g} (about a quarter of "
            f"an hour): lower --duration to {MAX_CLUSTER_WORK / config.n_nodes:.4g} s or less"
        )


def _cluster_config(args: argparse.Namespace) -> Any:
    """The run's ``ClusterSimConfig``, every option checked against the others."""
    import dataclasses

    from allockit.simulation.cluster import ClusterSimConfig
    from allockit.simulation.cluster_scenarios import manager_entity, scenario

    applies_only(
        args, ("nodes", "fanout", "class3_nodes"), when=args.scenario is None,
        to="a custom run (without --scenario)", here=f"--scenario {args.scenario}",
    )
    overrides: dict[str, Any] = {}
    if args.algorithm is not None:
        overrides["algorithm"] = args.algorithm
    if args.duration is not None:
        overrides["duration"] = args.duration
        overrides.setdefault("warmup", min(10.0, args.duration / 5))
    if args.warmup is not None:
        duration = args.duration
        if duration is None:
            duration = (
                scenario(args.scenario).duration
                if args.scenario is not None
                else ClusterSimConfig.__dataclass_fields__["duration"].default
            )
        if args.warmup >= duration:
            raise InvalidInputError(
                f"--warmup must be below --duration ({duration:g} s); got {args.warmup:g}"
            )
        overrides["warmup"] = args.warmup
    if args.measure_noise:
        overrides["measure_noise"] = args.measure_noise
    if args.report_jitter:
        overrides["report_jitter"] = args.report_jitter
    if args.scenario is not None:
        config = scenario(args.scenario, **overrides)
    else:
        if args.nodes is None:
            raise InvalidInputError("cluster-sim needs --scenario NAME or --nodes N")
        fanout = tuple(args.fanout or ())
        _check_fanout(args.nodes, fanout)
        dispatch = None
        if args.class3_nodes is not None:
            if args.class3_nodes > args.nodes:
                raise InvalidInputError(
                    f"--class3-nodes must be at most --nodes ({args.nodes}); got "
                    f"{args.class3_nodes}"
                )
            dispatch = (None, None, args.class3_nodes)
        config = ClusterSimConfig(n_nodes=args.nodes, fanout=fanout, dispatch=dispatch, **overrides)
    applies_only(  # static reads no report: the noise would change nothing
        args, ("measure_noise", "report_jitter"), when=config.algorithm != "static",
        to="the algorithms that read reports (bank, cluster-reserves)",
        here=f"--algorithm {config.algorithm}",
    )
    check_work(config)
    if not args.fail:
        return config
    failures = []
    for who, when in args.fail:
        if when >= config.duration:
            raise InvalidInputError(
                f"--fail {who}@{when:g}: the run ends at {config.duration:g} s (--duration); "
                "give a time before it"
            )
        if who.startswith("m"):
            level, index = (int(x) for x in who[1:].split("."))
            try:
                entity = manager_entity(config, level, index)
            except InvalidInputError as exc:
                raise InvalidInputError(f"--fail {who}@{when:g}: {exc}") from None
        else:
            entity = int(who)
            if entity >= config.n_nodes:
                raise InvalidInputError(
                    f"--fail {who}@{when:g}: no node {entity}; nodes are 0..{config.n_nodes - 1}"
                )
        failures.append((entity, when))
    return dataclasses.replace(config, failures=tuple(failures))


def cmd_cluster_sim(args: argparse.Namespace) -> int:
    """``allockit cluster-sim``: simulate a scenario or a custom cluster; summary JSON."""
    from allockit.simulation.cluster import simulate_cluster

    config = _cluster_config(args)
    result = simulate_cluster(config, seed=args.seed)
    summary = result.summary()
    if args.csv:
        write_dict_csv(args.csv, result.series_rows())
        summary["csv"] = args.csv
    if args.plot:
        from allockit.experiments.plots import save_figure
        from allockit.simulation.cluster_plot import plot_shares

        summary["plot"] = str(save_figure(plot_shares(result), args.plot, dpi=120))
    print_json(summary)
    return EXIT_OK


def cmd_experiment(args: argparse.Namespace) -> int:
    """``allockit reserves-experiment NAME``: the scenario over seeds, beside the paper."""
    from allockit.experiments.reserves import (
        aggregate,
        experiment_tasks,
        task_config,
        to_markdown,
    )
    from allockit.runner import read_rows

    tasks = experiment_tasks(
        args.experiment, seeds=args.seeds, quick=args.quick, duration=args.duration
    )
    checked: set[str] = set()
    for task in tasks:  # every run's configuration, before any runs
        if task.instance_id not in checked:
            checked.add(task.instance_id)
            try:
                check_work(task_config(task))
            except InvalidInputError as exc:
                raise InvalidInputError(f"{task.instance_id}: {exc}") from None
    summary = run_experiment(args, tasks, f"reserves-{args.experiment}")
    table = aggregate(args.experiment, read_rows(args.store), tasks)
    out: dict[str, Any] = {
        "experiment": args.experiment,
        "sweep": summary.to_dict(),
        "table": table,
    }
    if args.markdown:
        Path(args.markdown).write_text(to_markdown(table), encoding="utf-8")
        out["markdown"] = args.markdown
    print_json(out)
    return EXIT_OK if summary.failed == 0 else EXIT_TASKS_FAILED


def register(sub: argparse._SubParsersAction) -> None:
    """Add the cluster-reserves subcommands to the top-level parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The top-level parser's subcommands.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> register(parser.add_subparsers())
    >>> parser.parse_args(["reserves", "r.json", "--method", "bank"]).method
    'bank'
    """
    p = sub.add_parser("reserves", help="one round of the bank algorithm or cluster reserves")
    p.add_argument(
        "file",
        help='JSON {"problem": "reserves", "targets": [...], "allocation": [[...]], '
        '"usage": [[...]]} in percent',
    )
    p.add_argument(
        "--method",
        default="bank",
        metavar="NAME",
        help="bank (default) or cluster-reserves, or your own method: MODULE:FUNCTION, "
        "PATH/TO/FILE.py:FUNCTION or a registered plug-in (see allockit methods)",
    )
    p.add_argument(
        "--c",
        type=positive_float,
        default=None,
        help="bank: adjustment factor c, in (0, 100] (default: 2, the paper's)",
    )
    p.add_argument(
        "--retention",
        type=nonnegative_float,
        default=None,
        help="bank: share of the bank balances kept for the next round, in [0, 1] "
        "(default: 0, the paper's basic version)",
    )
    p.set_defaults(func=cmd_reserves)

    p = sub.add_parser("cluster-sim", help="simulate managers sharing a cluster by class")
    p.add_argument(
        "--scenario",
        default=None,
        help=f"one of {_SCENARIOS} (default: none; or --nodes for a custom run)",
    )
    p.add_argument(
        "--nodes",
        type=positive_int,
        default=None,
        help="custom run: nodes, in [1, 100000], with --duration at most 1e7 node-seconds "
        "(default: none)",
    )
    p.add_argument(
        "--fanout",
        type=numbers(int),
        default=None,
        help="custom run: nodes per level-1 manager, then level-1 managers per level-2 "
        "manager, ...; comma-separated integers in [2, 100000], each below what its level "
        "groups, 1 to 16 levels (default: flat, one manager)",
    )
    p.add_argument(
        "--class3-nodes",
        type=positive_int,
        default=None,
        help="custom run: class 3 dispatched to the first N nodes only, in [1, --nodes], "
        "--nodes at most 100000 (default: all)",
    )
    p.add_argument(
        "--algorithm",
        choices=["static", "bank", "cluster-reserves"],
        default=None,
        help="allocation algorithm (default: the scenario's, bank for a custom run)",
    )
    p.add_argument(
        "--duration",
        type=positive_float,
        default=None,
        metavar="S",
        help="simulated seconds, in (0, 3600] (default: 60)",
    )
    p.add_argument(
        "--warmup",
        type=nonnegative_float,
        default=None,
        metavar="S",
        help="seconds left out of the statistics, in [0, --duration), --duration at most "
        "3600 (default: 10, or "
        "duration/5 when --duration is given)",
    )
    p.add_argument(
        "--measure-noise",
        type=nonnegative_float,
        default=0.0,
        metavar="PP",
        help="s.d. of a normal error added to every reported usage, per node and class, in "
        "percentage points, in [0, 100] (clipped to [0, 100] after; default: 0, off)",
    )
    p.add_argument(
        "--report-jitter",
        type=nonnegative_float,
        default=0.0,
        metavar="S",
        help="each report message takes the delay plus a uniform extra in [0, S) seconds, "
        "S in [0, 1e10] (default: 0, off)",
    )
    p.add_argument("--seed", type=seed_int, default=0, help="0..2^63-1 (default: 0)")
    p.add_argument(
        "--fail",
        action="append",
        type=failure,
        default=None,
        metavar="WHO@TIME",
        help="fail a node (index, 0..N-1) or a manager (mLEVEL.INDEX) at TIME seconds, in "
        "[0, --duration); repeatable (default: no failure)",
    )
    p.add_argument(
        "--csv", default=None, metavar="OUT", help="the share time series as CSV (default: none)"
    )
    p.add_argument(
        "--plot",
        default=None,
        metavar="FILE",
        help="shares over time, written to FILE exactly (PNG unless the suffix names "
        "another format; default: none)",
    )
    p.set_defaults(func=cmd_cluster_sim)

    p = sub.add_parser(
        "reserves-experiment", help="Li and Parker's Figs 3-8 (and beyond) over seeds"
    )
    p.add_argument(
        "experiment",
        choices=["fig3", "fig4", "fig5", "fig6", "fig7", "skewed", "fig8", "failures", "scale"],
        help="which figure (failures and scale go beyond the paper)",
    )
    p.add_argument(
        "--seeds", type=positive_int, default=3, help="seeds per row, in [1, 10000] (default: 3)"
    )
    p.add_argument(
        "--quick", action="store_true", help="20 simulated seconds; scale: 10,000 nodes only"
    )
    p.add_argument(
        "--duration",
        type=positive_float,
        default=None,
        metavar="S",
        help="simulated seconds of every run, in (0, 3600] (default: 60)",
    )
    p.add_argument(
        "--markdown", default=None, metavar="FILE", help="table beside the paper's (default: none)"
    )
    sweep_options(p, store="reserves-experiments.db")
    p.set_defaults(func=cmd_experiment)
