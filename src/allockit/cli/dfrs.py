"""DFRS subcommands: ``bound`` (the stretch lower bound) and ``dfrs-experiment``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from allockit.cli.common import (
    EXIT_OK,
    EXIT_TASKS_FAILED,
    applies_only,
    dfrs_timing_options,
    integer,
    name_list,
    number_list,
    numbers,
    output_kinds,
    positive_float,
    positive_int,
    print_json,
    run_experiment,
    sweep_options,
)
from allockit.cli.workloads import platform_options, workload_from_args
from allockit.errors import InvalidInputError

__all__ = ["register"]

#: The experiments that draw a figure (``--plot``).
_FIGURES = ("fig1", "fig3", "fig4")


def cmd_bound(args: argparse.Namespace) -> int:
    """``allockit bound FILE``: the lower bound on the optimal maximum stretch."""
    from allockit.models.stretch_bound import stretch_bound

    applies_only(
        args, ("tol",), when=args.method == "bisection", to="--method bisection (the exact "
        "search narrows to 1e-12)", here=f"--method {args.method}",
    )
    workload = workload_from_args(args.file, args)
    result = stretch_bound(workload, method=args.method, tol=args.tol, solver=args.solver)
    print_json(
        {
            "jobs": workload.n_jobs,
            "nodes": workload.platform.nodes,
            **args.input_counts,
            **result.to_dict(),
        }
    )
    return EXIT_OK


def _weeks(text: str) -> tuple[int, ...]:
    """``--weeks``: comma-separated indices or ranges ``A-B`` (inclusive)."""
    out: list[int] = []
    for item in text.split(","):
        item = item.strip()
        if "-" in item[1:]:
            first, last = item.split("-", 1)
            try:
                a, b = int(first), int(last)
            except ValueError:
                raise InvalidInputError(f"--weeks: bad range {item!r}; use A-B") from None
            if b < a:
                raise InvalidInputError(f"--weeks: empty range {item!r}")
            if not 0 <= a <= b <= 10_000:
                raise InvalidInputError(
                    f"--weeks: week indices are in 0..180 (HPC2N); got the range {item!r}"
                )
            out.extend(range(a, b + 1))
        elif item:
            out.extend(number_list("--weeks", item, int))
    if not out:
        raise InvalidInputError(f"--weeks expects indices or ranges A-B; got {text!r}")
    return tuple(out)


def cmd_experiment(args: argparse.Namespace) -> int:
    """``allockit dfrs-experiment table2|table3|table4|fig1``: run, aggregate, print."""
    from allockit.experiments.dfrs import (
        aggregate,
        experiment_tasks,
        plot_fig1,
        resolve_hpc2n,
        to_markdown,
        trace_sets,
    )
    from allockit.runner import read_rows

    here = f"dfrs-experiment {args.experiment}"
    applies_only(args, ("plot",), when=args.experiment in _FIGURES, to="fig1, fig3 and fig4",
                 here=here)
    sets_only = (
        None if args.sets is None else name_list("--sets", args.sets)
    )
    if sets_only is not None:
        here = f"--sets {','.join(sets_only)}"
        applies_only(args, ("hpc2n", "weeks"), when="real" in sets_only, to="the real set",
                     here=here)
        applies_only(args, ("loads",), when="scaled" in sets_only, to="the scaled set",
                     here=here)
        applies_only(args, ("seeds", "jobs", "nodes"),
                     when=bool({"scaled", "unscaled"} & set(sets_only)),
                     to="the synthetic sets (scaled, unscaled)", here=here)
    hpc2n = resolve_hpc2n(args.hpc2n)
    skipped = _missing_hpc2n(args) if hpc2n is None else None
    loads = args.loads
    if isinstance(loads, str):  # a namespace built without the option layer
        loads = number_list("--loads", loads)
    sets = trace_sets(
        quick=args.quick,
        hpc2n=hpc2n,
        seeds=args.seeds,
        loads=loads,
        weeks=None if args.weeks is None else _weeks(args.weeks),
        jobs=args.jobs,
        nodes=args.nodes,
    )
    tasks = experiment_tasks(
        args.experiment,
        sets,
        penalty=args.penalty,
        period=args.period,
        backfill_depth=args.backfill_depth,
        sets_only=sets_only,
        algorithms_only=None
        if args.algorithms is None
        else name_list("--algorithms", args.algorithms, ";"),
    )
    empty = "--sets, --algorithms and --weeks leave no trace or algorithm of this experiment"
    summary = run_experiment(args, tasks, f"dfrs-{args.experiment}", empty=empty)
    table = aggregate(args.experiment, read_rows(args.store), tasks)
    out: dict[str, Any] = {
        "experiment": args.experiment,
        "sweep": summary.to_dict(),
        "real_traces": hpc2n or skipped,
        "table": table,
    }
    if args.markdown:
        Path(args.markdown).write_text(to_markdown(table), encoding="utf-8")
        out["markdown"] = args.markdown
    if args.plot and args.experiment == "fig1":  # (--plot of another experiment refused)
        out["plot"] = str(plot_fig1(table, args.plot))
    elif args.plot and args.experiment in ("fig3", "fig4"):
        from allockit.experiments.dfrs import plot_period_sweep

        out["plot"] = str(plot_period_sweep(table, args.plot))
    print_json(out)
    return EXIT_OK if summary.failed == 0 else EXIT_TASKS_FAILED


_GET_HPC2N = "get it with 'allockit data fetch hpc2n' (or --hpc2n FILE)"


def _missing_hpc2n(args: argparse.Namespace) -> str:
    """No HPC2N trace: refuse if the run needs it, else say the real set is skipped.

    The real set is needed when ``--sets`` names it or when it is the experiment's
    only set (``table5``): running nothing is refused (exit 2), never reported done.
    """
    import sys

    from allockit.experiments.dfrs import EXPERIMENTS

    wanted = EXPERIMENTS[args.experiment][1]
    if args.sets is not None:
        wanted = tuple(s.strip() for s in args.sets.split(",") if s.strip())
    if "real" not in wanted:
        return "not used"
    if (args.sets is not None and "real" in wanted) or wanted == ("real",):
        raise InvalidInputError(
            f"dfrs-experiment {args.experiment}: the real set needs the HPC2N trace, which "
            f"is not in the data directory; {_GET_HPC2N}"
        )
    text = f"skipped: the HPC2N trace is not in the data directory; {_GET_HPC2N}"
    sys.stderr.write(f"allockit: note: the real-world set is {text}\n")
    return text


def register(sub: argparse._SubParsersAction) -> None:
    """Add the DFRS subcommands to the top-level parser.

    ``bound FILE``: the Theorem 1 lower bound on the optimal maximum bounded stretch
    of an SWF workload (``allockit.models.stretch_bound``). ``dfrs-experiment
    table2|table3|table4|fig1``: reproduce the DFRS paper's tables through the runner
    (``allockit.experiments.dfrs``). Each sets ``func`` to the command to run.

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
    >>> args = parser.parse_args(["dfrs-experiment", "table2", "--quick", "--loads", "0.5,0.9"])
    >>> args.experiment, args.quick, args.loads, args.penalty, args.period, args.func.__name__
    ('table2', True, (0.5, 0.9), 300.0, 600.0, 'cmd_experiment')
    """
    p = sub.add_parser("bound", help="lower bound on the optimal maximum stretch (Theorem 1)")
    p.add_argument("file", help="SWF workload (plain or .gz) or a trace name (hpc2n, ...)")
    platform_options(p)
    p.add_argument(
        "--method",
        choices=["exact", "bisection"],
        default="exact",
        help="exact breakpoint search or the paper's bisection (default: exact)",
    )
    p.add_argument(
        "--tol",
        type=positive_float,
        default=1e-4,
        metavar="X",
        help="relative tolerance of the bisection, in [1e-9, 0.5] (default: 1e-4)",
    )
    p.add_argument(
        "--solver",
        default=None,
        metavar="NAME",
        help="with --method bisection: decide each step with the stretch LP solved by this "
        "Pyomo solver (highs, scip, ...; a missing one exits 1 naming what to install; "
        "default: none, the max-flow check)",
    )
    p.set_defaults(func=cmd_bound)

    p = sub.add_parser(
        "dfrs-experiment",
        help="reproduce the DFRS paper's Tables 2-5, Figs 1, 3, 4 and MCB8 timing",
    )
    p.add_argument(
        "experiment",
        choices=["table2", "table3", "table4", "table5", "fig1", "fig3", "fig4", "timing"],
        help="table2-4, fig1 (Sec. 6.1-6.4), table5 (appendix, all 116 variants on the "
        "HPC2N weeks), fig3/fig4 (underutilisation / degradation vs period, 600-12,000 "
        "s), timing (MCB8 call times, Sec. 6.2)",
    )
    p.add_argument(
        "--sets",
        default=None,
        metavar="S1,S2",
        help="comma-separated subset of the experiment's trace sets: real, unscaled, scaled "
        "(default: all of them)",
    )
    p.add_argument(
        "--algorithms",
        default=None,
        metavar="A1;A2",
        help="semicolon-separated subset of the experiment's algorithms, e.g. "
        "'EASY;FCFS', and schedulers of your own (MODULE:CLASS, PATH/TO/FILE.py:CLASS, a "
        "plug-in) as more rows (default: all)",
    )
    p.add_argument(
        "--backfill-depth",
        type=integer,
        default=None,
        metavar="N",
        help="EASY tries at most N queued jobs after the head, in [0, 1e7] (default: "
        "unlimited)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="a subset that runs in minutes (default: off, the paper's full sets)",
    )
    p.add_argument(
        "--seeds",
        type=positive_int,
        default=None,
        metavar="N",
        help="synthetic traces per load, an integer in [1, 10000] (default: 100; quick: 2)",
    )
    p.add_argument(
        "--loads",
        type=numbers(float),
        default=None,
        metavar="L1,L2",
        help="offered loads of the scaled set, comma-separated, each in [0.01, 2], no value "
        "twice (default: 0.1..0.9)",
    )
    p.add_argument(
        "--weeks",
        default=None,
        metavar="W",
        help="HPC2N week indices, comma-separated, ranges A-B allowed, 0..180 "
        "(default: all; quick: 10,120,160)",
    )
    p.add_argument(
        "--jobs",
        type=positive_int,
        default=None,
        metavar="N",
        help="jobs per synthetic trace, an integer in [1, 1000000] (default: 1000)",
    )
    p.add_argument(
        "--nodes",
        type=positive_int,
        default=None,
        metavar="N",
        help="nodes of the synthetic platform, an integer in [1, 1000000] (default: 128)",
    )
    p.add_argument(
        "--hpc2n",
        default=None,
        metavar="SWF",
        help="HPC2N SWF file or the trace name hpc2n (default: $ALLOCKIT_HPC2N, else the "
        "data directory's hpc2n: 'allockit data fetch hpc2n')",
    )
    dfrs_timing_options(p)
    p.add_argument(
        "--markdown",
        default=None,
        metavar="FILE",
        help="write the table beside the paper's to this Markdown file (default: none)",
    )
    p.add_argument(
        "--plot",
        default=None,
        metavar="PNG",
        help="write the figure (fig1, fig3, fig4) to this PNG file (default: none)",
    )
    sweep_options(p, store="dfrs-experiments.db")
    output_kinds(p, plot="file")
    p.set_defaults(func=cmd_experiment)
