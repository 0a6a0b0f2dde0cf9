"""Cluster-reserves subcommands: ``reserves``, ``cluster-sim`` and ``reserves-experiment``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from allockit.cli.common import (
    EXIT_OK,
    EXIT_TASKS_FAILED,
    method_option,
    nonnegative_float,
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
    instance = ReservesInstance.from_dict(read_json(args.file, "instance"))
    options: dict[str, Any] = {}
    if args.c is not None:
        options["c"] = args.c
    if args.retention is not None:
        options["retention"] = args.retention
    print_json(allocate_reserves(instance, args.method, **options).to_dict())
    return EXIT_OK


def _failure(text: str) -> tuple[str, float]:
    """``NODE@TIME`` (a node index, or ``mL.I`` for manager ``I`` of level ``L``)."""
    try:
        who, when = text.split("@")
        return who, float(when)
    except ValueError:
        raise InvalidInputError(
            f"--fail expects NODE@TIME or mLEVEL.INDEX@TIME; got {text!r}"
        ) from None


def cmd_cluster_sim(args: argparse.Namespace) -> int:
    """``allockit cluster-sim``: simulate a scenario or a custom cluster; summary JSON."""
    from allockit.simulation.cluster import ClusterSimConfig, simulate_cluster
    from allockit.simulation.cluster_scenarios import manager_entity, scenario

    overrides: dict[str, Any] = {}
    if args.algorithm is not None:
        overrides["algorithm"] = args.algorithm
    if args.duration is not None:
        overrides["duration"] = args.duration
        overrides.setdefault("warmup", min(10.0, args.duration / 5))
    if args.warmup is not None:
        overrides["warmup"] = args.warmup
    if args.measure_noise:
        overrides["measure_noise"] = args.measure_noise
    if args.report_jitter:
        overrides["report_jitter"] = args.report_jitter
    if args.scenario is not None:
        if args.nodes is not None or args.fanout is not None:
            raise InvalidInputError("--scenario takes no --nodes or --fanout")
        config = scenario(args.scenario, **overrides)
    else:
        if args.nodes is None:
            raise InvalidInputError("cluster-sim needs --scenario NAME or --nodes N")
        fanout = () if args.fanout is None else tuple(int(f) for f in args.fanout.split(","))
        dispatch = None
        if args.class3_nodes is not None:
            dispatch = (None, None, args.class3_nodes)
        config = ClusterSimConfig(n_nodes=args.nodes, fanout=fanout, dispatch=dispatch, **overrides)
    if args.fail:
        failures = []
        for text in args.fail:
            who, when = _failure(text)
            if who.startswith("m"):
                try:
                    level, index = (int(x) for x in who[1:].split("."))
                except ValueError:
                    raise InvalidInputError(
                        f"--fail: bad manager {who!r}; use mLEVEL.INDEX"
                    ) from None
                entity = manager_entity(config, level, index)
            else:
                try:
                    entity = int(who)
                except ValueError:
                    raise InvalidInputError(f"--fail: bad node {who!r}") from None
            failures.append((entity, when))
        import dataclasses

        config = dataclasses.replace(config, failures=tuple(failures))
    result = simulate_cluster(config, seed=args.seed)
    summary = result.summary()
    if args.csv:
        write_dict_csv(args.csv, result.series_rows())
        summary["csv"] = args.csv
    if args.plot:
        from allockit.simulation.cluster_plot import plot_shares

        figure = plot_shares(result)
        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(args.plot, dpi=120)
        summary["plot"] = args.plot
    print_json(summary)
    return EXIT_OK


def cmd_experiment(args: argparse.Namespace) -> int:
    """``allockit reserves-experiment NAME``: the scenario over seeds, beside the paper."""
    from allockit.experiments.reserves import aggregate, experiment_tasks, to_markdown
    from allockit.runner import read_rows

    tasks = experiment_tasks(
        args.experiment, seeds=args.seeds, quick=args.quick, duration=args.duration
    )
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
        help="bank: adjustment factor c, > 0 (default: 2, the paper's)",
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
        "--nodes", type=positive_int, default=None, help="nodes, >= 1 (custom run; default: none)"
    )
    p.add_argument(
        "--fanout",
        default=None,
        help="nodes per manager per level, comma-separated (custom run; default: flat)",
    )
    p.add_argument(
        "--class3-nodes",
        type=positive_int,
        default=None,
        help="custom run: class 3 dispatched to the first N nodes only (default: all)",
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
        help="simulated seconds, > 0 (default: 60)",
    )
    p.add_argument(
        "--warmup",
        type=nonnegative_float,
        default=None,
        metavar="S",
        help="seconds left out of the statistics, below --duration (default: 10, or "
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
        "S >= 0 (default: 0, off)",
    )
    p.add_argument("--seed", type=seed_int, default=0, help="0..2^63-1 (default: 0)")
    p.add_argument(
        "--fail",
        action="append",
        default=None,
        metavar="WHO@TIME",
        help="fail a node (index) or a manager (mLEVEL.INDEX) at TIME seconds; repeatable "
        "(default: no failure)",
    )
    p.add_argument(
        "--csv", default=None, metavar="OUT", help="the share time series as CSV (default: none)"
    )
    p.add_argument(
        "--plot", default=None, metavar="FILE", help="shares over time (PNG; default: none)"
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
    p.add_argument("--seeds", type=positive_int, default=3, help="seeds per row (default: 3)")
    p.add_argument(
        "--quick", action="store_true", help="20 simulated seconds; scale: 10,000 nodes only"
    )
    p.add_argument(
        "--duration",
        type=positive_float,
        default=None,
        metavar="S",
        help="simulated seconds of every run (default: 60)",
    )
    p.add_argument(
        "--markdown", default=None, metavar="FILE", help="table beside the paper's (default: none)"
    )
    sweep_options(p, store="reserves-experiments.db")
    p.set_defaults(func=cmd_experiment)
