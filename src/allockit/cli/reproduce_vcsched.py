"""VCSched reproductions: ``vcsched-experiment table1|table7|large|parallel``.

``table1`` / ``table7`` run MCB1-MCB8 on the small / large set with both scorings (the
search's target and the exact minimum yield) and both search starts
(``allockit.experiments.vcsched_table1``), and list the instances behind each maximum;
``large`` / ``parallel`` run the paper's Figs. 15-18 / 19-22
(``allockit.experiments.vcsched_figures``). All go through the runner into a resumable
store; the tables are printed (JSON) and written beside the paper's figures.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from allockit.cli.common import (
    EXIT_OK,
    EXIT_TASKS_FAILED,
    applies_only,
    method_list_option,
    name_list,
    positive_float,
    positive_int,
    print_json,
    run_experiment,
    sweep_options,
)

__all__ = ["register"]

#: Stride of ``--quick`` per experiment (every k-th instance of the set).
QUICK_EVERY = {"table1": 4, "table7": 101, "large": 303, "parallel": 303}
_SET = {"table1": "small", "table7": "large", "large": "large", "parallel": "large"}


def _items(args: argparse.Namespace, every: int) -> list[tuple[str, dict[str, Any]]]:
    from allockit.experiments.vcsched_figures import set_sample

    if args.truncation == "clip":  # table1 and table7 only (cmd_experiment checks)
        from allockit.experiments.vcsched_table1 import clipped_set

        return [
            (stem, inst.to_dict())
            for k, (stem, inst) in enumerate(clipped_set(_SET[args.experiment], seed=args.seed))
            if k % every == 0
        ]
    return set_sample(
        _SET[args.experiment],
        every=every,
        parallel=args.experiment == "parallel",
        total_tasks=args.total_tasks,
        seed=args.seed,
    )


def _run(args: argparse.Namespace, tasks: list) -> tuple[Any, list[dict[str, Any]]]:
    from allockit.runner import read_rows

    summary = run_experiment(args, tasks, f"vcsched-{args.experiment}")
    wanted = {t.key for t in tasks}
    return summary, [r for r in read_rows(args.store) if r["key"] in wanted]


def _mcb_tables(args: argparse.Namespace, items, header: str) -> tuple[Any, dict, str]:
    from allockit.experiments.vcsched_table1 import (
        MCB_ORDER,
        PAPER_TABLE1,
        PAPER_TABLE7,
        mcb_scoring_tasks,
        scoring_markdown,
        scoring_table,
        worst_instances,
    )

    starts = list(name_list("--starts", args.starts))
    tasks = mcb_scoring_tasks(items, tol=args.tol, starts=starts, rule=args.rule)
    summary, rows = _run(args, tasks)
    paper = PAPER_TABLE1 if args.experiment == "table1" else PAPER_TABLE7
    table: dict[str, Any] = {}
    for start in starts:
        for scoring in ("exact", "target"):
            for failures in ("excluded", "as-100"):
                table[f"{start}/{scoring}/{failures}"] = scoring_table(
                    rows, start=start, scoring=scoring, failures=failures
                )
    worst: dict[str, Any] = {}
    lines = [header, "", scoring_markdown(rows, paper=paper, starts=starts)]
    if args.worst:
        lines.append(f"Instances behind the maxima (top {args.worst} per variant):")
        lines.append("")
        lines.append(
            "| variant | start / scoring | instance | % deg. | its yield (target; exact) "
            "| best | best variants | LP bound |"
        )
        lines.append("|---|---|---|---:|---|---:|---|---:|")
        for variant in MCB_ORDER:
            for start in starts:
                for scoring in ("exact", "target"):
                    found = worst_instances(
                        rows, variant, start=start, scoring=scoring, top=args.worst
                    )
                    worst[f"{variant}/{start}/{scoring}"] = found
                    for w in found:
                        target = "–" if w["target"] is None else f"{w['target']:.4f}"
                        bound = "–" if w["bound"] is None else f"{w['bound']:.4f}"
                        lines.append(
                            f"| {variant.upper()} | {start} / {scoring} | {w['instance']} "
                            f"| {w['degradation']:.2f} | {w['min_yield']:.4f} ({target}; "
                            f"{w['exact']:.4f}) | {w['best']:.4f} "
                            f"| {','.join(w['best_variants'])} | {bound} |"
                        )
        lines.append("")
    return summary, {"lines": table, "worst": worst}, "\n".join(lines)


def _figures(args: argparse.Namespace, items, header: str) -> tuple[Any, dict, str, Any]:
    from allockit.experiments.compare import comparison_rows
    from allockit.experiments.vcsched_figures import (
        LARGE_METHODS,
        PARALLEL_METHODS,
        figure_series,
        figure_tasks,
        large_claims,
        lp_rows,
        parallel_claims,
        series_markdown,
    )

    default = PARALLEL_METHODS if args.experiment == "parallel" else LARGE_METHODS
    methods = (
        method_list_option("vcsched", args.methods, option="--methods")
        if args.methods is not None
        else default
    )
    tasks = figure_tasks(items, methods, time_limit=args.time_limit, tol=args.tol)
    summary, rows = _run(args, tasks)
    flat = comparison_rows(rows) + lp_rows(items)
    series = figure_series(flat, ["lp", *methods])
    claims = parallel_claims if args.experiment == "parallel" else large_claims
    text = "\n".join([header, "", series_markdown(series), claims(series)])
    return summary, series, text, flat


def cmd_experiment(args: argparse.Namespace) -> int:
    """``allockit vcsched-experiment table1|table7|large|parallel``: run, aggregate, print."""
    here = f"vcsched-experiment {args.experiment}"
    tables = args.experiment in ("table1", "table7")
    applies_only(args, ("starts", "rule", "truncation", "worst"), when=tables,
                 to="table1 and table7", here=here)
    applies_only(args, ("methods", "time_limit", "plot"), when=not tables,
                 to="large and parallel", here=here)
    applies_only(args, ("total_tasks",), when=args.experiment == "parallel", to="parallel",
                 here=here)
    every = args.every or (QUICK_EVERY[args.experiment] if args.quick else 1)
    items = _items(args, every)
    name = _SET[args.experiment] + (" (parallel jobs)" if args.experiment == "parallel" else "")
    header = (
        f"VCSched {args.experiment}: {len(items)} instances of the {name} set "
        f"(every {every}-th of iter_vcsched_set(seed={args.seed})"
        + (", draws clipped" if args.truncation == "clip" else "")
        + (", J = total tasks" if args.total_tasks else "")
        + f"), MCB tol {args.tol:g}"
        + (f", packing rule {args.rule}" if args.experiment in ("table1", "table7") else "")
    )
    out: dict[str, Any] = {"experiment": args.experiment, "instances": len(items), "every": every}
    if args.experiment in ("table1", "table7"):
        summary, table, text = _mcb_tables(args, items, header)
        out["table"] = table
    else:
        summary, series, text, _ = _figures(args, items, header)
        out["series"] = series
        if args.plot:
            from allockit.experiments.vcsched_figures import plot_figures

            out["plot"] = str(plot_figures(series, args.plot, title=header))
    out["sweep"] = summary.to_dict()
    if args.markdown:
        Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
        Path(args.markdown).write_text(text, encoding="utf-8")
        out["markdown"] = args.markdown
    print_json(out)
    return EXIT_OK if summary.failed == 0 else EXIT_TASKS_FAILED


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``vcsched-experiment`` to the top-level parser.

    ``table1`` and ``table7``: MCB1-MCB8 on the small and large sets, scored both by the
    exact minimum yield and by the search's target, for allockit's and the paper's
    search starts, with the instances behind each maximum. ``large`` and ``parallel``:
    the paper's Figs. 15-18 and 19-22 (yields and failures against the slack, run time
    against J) with the LP bound, as a markdown table beside the paper's statements and
    a PNG.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The top-level parser's subcommands (``allockit.cli.build_parser`` passes its
        own).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="allockit")
    >>> register(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["vcsched-experiment", "large", "--quick"])
    >>> args.experiment, args.quick, args.every, args.tol, args.func.__name__
    ('large', True, None, 0.01, 'cmd_experiment')
    """
    p = sub.add_parser(
        "vcsched-experiment",
        help="VCSched Table 1/7 with both MCB scorings, large-set and parallel-job figures",
        description="Reproduce the VCSched paper's Table 1 and Table 7 (MCB1-MCB8, both "
        "scorings, both search starts, the instances behind the maxima), the large-set "
        "figures (Figs. 15-18) and the parallel-job figures (Figs. 19-22) through the "
        "runner (resumable store).",
    )
    p.add_argument(
        "experiment",
        choices=["table1", "table7", "large", "parallel"],
        help="table1 (small set), table7 (large set), large (Figs. 15-18), parallel "
        "(Figs. 19-22, large set with parallel jobs)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="a sample: every 4th instance (table1), 101st (table7), 303rd (large, parallel)",
    )
    p.add_argument(
        "--every",
        type=positive_int,
        default=None,
        metavar="K",
        help="every K-th instance of the set, in [1, 1000000] (default: 1, the whole set; "
        "overrides --quick)",
    )
    p.add_argument(
        "--seed", type=int, default=0, help="base seed of the set, 0..2^63-1 (default: 0)"
    )
    p.add_argument(
        "--total-tasks",
        action="store_true",
        help="parallel: J is the total number of tasks of an instance (jobs drawn until J "
        "tasks), not the number of jobs",
    )
    p.add_argument(
        "--tol",
        type=positive_float,
        default=0.01,
        help="MCB's search accuracy, in [1e-9, 0.5] (default: 0.01, the paper's)",
    )
    p.add_argument(
        "--starts",
        default="bound,half",
        help="table1/table7: search starts, comma-separated: bound (allockit: the LP bound "
        "first), half (the paper: bisect from half of it) (default: bound,half)",
    )
    p.add_argument(
        "--rule",
        choices=["allockit", "need-key", "memory-first"],
        default="allockit",
        help="table1/table7: packing rule (default: allockit); need-key sorts and splits "
        "on the CPU need, memory-first starts empty hosts from the memory-heavy list",
    )
    p.add_argument(
        "--truncation",
        choices=["resample", "clip"],
        default="resample",
        help="table1/table7: draws outside (0, 1] resampled (default, allockit's "
        "generator) or clipped",
    )
    p.add_argument(
        "--worst",
        type=int,
        default=3,
        metavar="N",
        help="table1/table7: list the N worst instances per variant, in [0, 1000] (default: "
        "3; 0: none)",
    )
    p.add_argument(
        "--methods",
        default=None,
        help="large/parallel: comma-separated methods, built-in or your own (MODULE:FUNCTION, "
        "PATH/TO/FILE.py:FUNCTION) (default: mcb8,gr,sg,gb,sgb,rrnd,rrnz; parallel: "
        "mcb8,sg,sgb)",
    )
    p.add_argument(
        "--time-limit",
        type=positive_float,
        default=600.0,
        help="large/parallel: seconds per task, in (0, 1e10] (default: 600)",
    )
    p.add_argument(
        "--markdown", default=None, metavar="FILE", help="tables beside the paper's (default: none)"
    )
    p.add_argument(
        "--plot",
        default=None,
        metavar="PNG",
        help="large/parallel: the four panels (default: none)",
    )
    sweep_options(p, store="vcsched-experiments.db")
    p.set_defaults(func=cmd_experiment)
