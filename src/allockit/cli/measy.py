"""MEASY subcommand: ``measy-experiment`` (Figs 6-14 of the MEASY paper, real traces)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from allockit.cli.common import (
    EXIT_OK,
    EXIT_TASKS_FAILED,
    applies_only,
    number_list,
    numbers,
    output_kinds,
    positive_int,
    print_json,
    run_experiment,
    seed_int,
    sweep_options,
)

__all__ = ["register"]

_FIGURES = ("fig6", "fig7", "fig8", "fig9", "fig10", "fig11", "fig12", "fig13", "fig14")


def cmd_experiment(args: argparse.Namespace) -> int:
    """``allockit measy-experiment FIGURE``: run the figure's tasks, aggregate, print.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    int
        0 when every task completed, 3 when some failed.

    Examples
    --------
    >>> import os, tempfile
    >>> from allockit.cli import build_parser
    >>> d = tempfile.mkdtemp()
    >>> args = build_parser().parse_args(["measy-experiment", "fig8", "--model", "lublin",
    ...     "--jobs", "30", "--processors", "16", "--loads", "0.8", "--backend", "serial",
    ...     "--store", os.path.join(d, "s.db")])
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):
    ...     code = cmd_experiment(args)
    >>> code
    0
    """
    from allockit.experiments.measy import (
        FIGURES,
        aggregate,
        check_times,
        experiment_tasks,
        measy_sets,
        paper_claims,
        to_markdown,
    )
    from allockit.runner import read_rows

    here = f"measy-experiment {args.figure}"
    applies_only(args, ("costs",), when=args.figure in ("fig13", "fig14", "all"),
                 to="fig13, fig14 and all (the migration-cost figures)", here=here)
    applies_only(args, ("traces", "trace_jobs"), when=args.figure in ("traces", "all"),
                 to="traces and all (the real traces)", here=here)
    applies_only(args, ("jobs", "loads", "processors", "model"), when=args.figure != "traces",
                 to="the synthetic figures fig6-fig14 and all", here=here)
    figures = [*_FIGURES, "traces"] if args.figure == "all" else [args.figure]
    loads, costs = args.loads, args.costs
    if isinstance(loads, str):  # a namespace built without the option layer
        loads = number_list("--loads", loads)
    if isinstance(costs, str):
        costs = number_list("--costs", costs)
    sets = measy_sets(
        quick=args.quick,
        jobs=args.jobs,
        loads=loads,
        costs=costs,
        processors=args.processors,
        seed=args.seed,
        model=args.model,
        traces=args.traces,
        trace_jobs=args.trace_jobs,
        reasy_extra=args.reasy_extra,
        reasy_protect=args.reasy_protect,
    )
    if args.figure == "all" and not sets.traces:
        figures.remove("traces")
        sys.stderr.write(
            "allockit: note: no real trace in the data directory, the traces figure is "
            "skipped; 'allockit data fetch all' gets them\n"
        )
    check_times(sets, figures)
    per_figure = {figure: experiment_tasks(figure, sets) for figure in figures}
    tasks = [task for figure in figures for task in per_figure[figure]]
    summary = run_experiment(
        args, tasks, f"measy-{args.figure}",
        empty="no real trace found ('allockit data fetch all' gets them, or --traces DIR)",
    )
    rows = read_rows(args.store)
    tables = [aggregate(figure, rows, per_figure[figure]) for figure in figures]
    out: dict[str, Any] = {
        "experiment": args.figure,
        "sweep": summary.to_dict(),
        "models": list(sets.models),
        "tables": tables,
    }
    if {"fig6", "fig7"} & set(figures):
        out["improvement_over_easy"] = paper_claims(tables)
    if args.markdown:
        text = "\n".join(to_markdown(table) for table in tables)
        Path(args.markdown).write_text(text, encoding="utf-8")
        out["markdown"] = args.markdown
    if args.plot:
        from allockit.experiments.plots_measy import plot_measy_figure

        if len(tables) == 1:
            out["plots"] = [str(plot_measy_figure(tables[0], args.plot))]
        else:  # several figures: --plot names a folder
            folder = Path(args.plot)
            out["plots"] = [
                str(plot_measy_figure(t, folder / f"{t['figure']}.png")) for t in tables
            ]
    out["titles"] = {figure: FIGURES[figure]["title"] for figure in figures}
    print_json(out)
    return EXIT_OK if summary.failed == 0 else EXIT_TASKS_FAILED


def _plot_kind(args: argparse.Namespace) -> str:
    """``--plot``: a folder of figN.png for ``all``, else the figure's PNG file."""
    return "dir" if args.figure == "all" else "file"


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``measy-experiment`` to the top-level parser.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The top-level parser's subcommands.

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> register(p.add_subparsers())
    >>> p.parse_args(["measy-experiment", "fig6", "--quick"]).quick
    True
    """
    p = sub.add_parser(
        "measy-experiment",
        help="reproduce Figs 6-14 of the MEASY paper (two-tier VM scheduling), or run the "
        "same comparison on the real traces",
    )
    p.add_argument(
        "figure",
        choices=[*_FIGURES, "traces", "all"],
        help="fig6/fig7 response time and slowdown vs load (FWload/JWload), fig8 "
        "migrations, fig9/fig10 no CPU information, fig11/fig12 100 %% CPU usage, "
        "fig13/fig14 migration cost, traces the real traces, all of them",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="10,000 FWload and 5,000 JWload jobs, loads 0.6 and 0.9, 5 costs, 5,000 jobs "
        "per trace (minutes on 2 cores)",
    )
    p.add_argument(
        "--jobs",
        type=positive_int,
        default=None,
        help="jobs of each synthetic workload, in [1, 1000000] (default: the paper's "
        "200,000 FWload and 100,000 JWload)",
    )
    p.add_argument(
        "--loads",
        type=numbers(float),
        default=None,
        help="offered loads, comma-separated, each in [0.01, 2], no value twice (default: "
        "0.5,0.6,0.7,0.8,0.9; quick: 0.6,0.9)",
    )
    p.add_argument(
        "--costs",
        type=numbers(float),
        default=None,
        help="fig13/fig14: migration costs in seconds, comma-separated, each in [0, 1e10], no "
        "value twice (default: 0,20,60,120,240,480,900,1200,1500,1800,2400)",
    )
    p.add_argument(
        "--processors",
        type=positive_int,
        default=None,
        help="processors of the synthetic runs, in [1, 1000000] (default: 320)",
    )
    p.add_argument(
        "--seed",
        type=seed_int,
        default=None,
        help="workload and simulation seed, 0..2^63-1 (default: 0)",
    )
    p.add_argument(
        "--model",
        choices=["paper", "lublin"],
        default=None,
        help="paper: FWload (Feitelson 1996) and JWload (Jann 1997); lublin: the "
        "Lublin-Feitelson model with the paper's rules for both, a stand-in (default: paper)",
    )
    p.add_argument(
        "--traces",
        default=None,
        metavar="LIST",
        help="the real traces: comma-separated names (hpc2n, ctc-sp2, sdsc-blue, "
        "llnl-thunder, cea-curie) or SWF files, or a folder of the archive files "
        "(default: $ALLOCKIT_TRACES, else every named trace in the data directory)",
    )
    p.add_argument(
        "--trace-jobs",
        type=positive_int,
        default=None,
        help="first jobs of each real trace, in [1, 1000000] (default: all, 50,000 for "
        "LLNL-Thunder "
        "and 20,000 for CEA-Curie; quick: 5,000)",
    )
    from allockit.cli.simulate import reasy_options
    from allockit.simulation.two_tier_choices import REASY_EXTRA

    reasy_options(p, REASY_EXTRA)
    p.add_argument(
        "--markdown", default=None, metavar="FILE", help="tables beside the paper's (default: none)"
    )
    p.add_argument(
        "--plot",
        default=None,
        metavar="PNG",
        help="the figure as PNG (a folder of figN.png for 'all'; default: none)",
    )
    sweep_options(p, store="measy-experiments.db")
    output_kinds(p, plot=_plot_kind)
    p.set_defaults(func=cmd_experiment)
