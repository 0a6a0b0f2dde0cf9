"""VCSched subcommands: ``solve``, ``compare``, ``demo`` and ``generate``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from allockit.cli.common import (
    EXIT_OK,
    EXIT_TASKS_FAILED,
    check_backend_options,
    connect_option,
    finite_float,
    output_kinds,
    positive_float,
    positive_int,
    print_json,
    seed_int,
    write_dict_csv,
)
from allockit.constants import RUNNER_BACKENDS
from allockit.errors import InvalidInputError

__all__ = ["register"]

DEFAULT_METHODS = "milp,lp,mcb8,gr,sg,gb,sgb,rrnd,rrnz"


def cmd_solve(args: argparse.Namespace) -> int:
    """``allockit solve FILE``: one instance, one method; the result as JSON."""
    from allockit.instances.io import read_instance
    from allockit.vcsched import METHODS, solve

    if args.method not in METHODS:
        raise InvalidInputError(f"--method must be one of {sorted(METHODS)}; got {args.method!r}")
    instance = read_instance(args.file)
    result = solve(
        instance, args.method, time_limit=args.time_limit, threads=args.threads, seed=args.seed
    )
    print_json(result.to_dict())
    return EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    """``allockit demo``: ``compare`` on the bundled sample of the small set."""
    from allockit.instances import sample_dir

    args.inputs = [sample_dir()]
    return cmd_compare(args)


def cmd_compare(args: argparse.Namespace) -> int:
    """``allockit compare``: every method on every instance; the Table 1 statistics."""
    import tempfile

    from allockit.experiments.compare import comparison_rows, format_table, summarize
    from allockit.experiments.vcsched import collect_instance_files, vcsched_tasks
    from allockit.instances.io import read_instance
    from allockit.runner import read_rows, run_sweep

    check_backend_options(args, args.backend)
    methods = _method_list(args.methods)
    files = collect_instance_files(args.inputs)
    seen: dict[Path, Path] = {}
    for path in files:
        if path.resolve() in seen:
            raise InvalidInputError(
                f"instance file {str(path)!r} is given twice (also as "
                f"{str(seen[path.resolve()])!r}); give each file once"
            )
        seen[path.resolve()] = path
    stems = [p.stem for p in files]
    for stem in stems:
        if stems.count(stem) > 1:
            raise InvalidInputError(
                f"two instance files are named {stem!r} (rows are keyed by the file's stem); "
                "rename one"
            )
    items = [(p.stem, read_instance(p).to_dict()) for p in files]
    tasks = vcsched_tasks(items, methods=methods, seeds=[args.seed], time_limit=args.time_limit)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(args.store) if args.store else Path(tmp) / "compare.db"
        try:
            summary = run_sweep(
                tasks,
                store,
                backend=args.backend,
                workers=args.workers,
                scheduler=args.scheduler,
                sweep="compare",
                progress=False if args.no_progress else None,
                connect_timeout=args.connect_timeout,
            )
        except KeyboardInterrupt:
            sys.stderr.write(
                "allockit: interrupted"
                + (f"; finished rows are in {store}; rerun to resume\n" if args.store else "\n")
            )
            return 130
        wanted = {t.key for t in tasks}
        rows = [r for r in read_rows(store) if r["key"] in wanted]
    flat = comparison_rows(rows)
    summaries = summarize(flat, methods)
    if args.json:
        print_json(
            {
                "instances": len(items),
                "failed_tasks": summary.failed,
                "methods": [s.to_dict() for s in summaries],
            }
        )
    else:
        sys.stdout.write(f"{len(items)} instances\n{format_table(summaries)}\n")
    if args.csv:
        write_dict_csv(args.csv, flat)
    if args.plot:
        from allockit.experiments.plots import plot_comparison

        plot_comparison(flat, args.plot)
    return EXIT_OK if summary.failed == 0 else EXIT_TASKS_FAILED


def _method_list(text: str) -> list[str]:
    """``--methods``: known names, each once."""
    from allockit.vcsched import METHOD_SPECS

    methods = [m.strip() for m in text.split(",") if m.strip()]
    if not methods:
        raise InvalidInputError(f"--methods needs comma-separated method names; got {text!r}")
    for k, method in enumerate(methods):
        if method not in METHOD_SPECS:
            raise InvalidInputError(
                f"--methods: {method!r} is not a VCSched method; methods: "
                f"{', '.join(METHOD_SPECS)}"
            )
        if method in methods[:k]:
            raise InvalidInputError(f"--methods lists {method!r} twice; give each method once")
    return methods


def cmd_generate(args: argparse.Namespace) -> int:
    """``allockit generate vcsched|vcsched-set``: instances of the paper's Sec. 4.1."""
    from allockit.instances.generators import SETS, generate_vcsched, iter_vcsched_set
    from allockit.instances.io import instance_to_json, write_instance

    if args.kind == "vcsched":
        missing = [f"--{n}" for n in ("hosts", "jobs", "slack") if getattr(args, n) is None]
        if missing:
            raise InvalidInputError(f"generate vcsched needs {', '.join(missing)}")
        instance = generate_vcsched(
            hosts=args.hosts,
            jobs=args.jobs,
            slack=args.slack,
            cov_cpu=args.cov_cpu,
            cov_mem=args.cov_mem,
            parallel=args.parallel,
            seed=args.seed,
        )
        sys.stdout.write(instance_to_json(instance) + "\n")
        return EXIT_OK
    if args.set_name not in SETS:
        raise InvalidInputError(f"set must be one of {sorted(SETS)}; got {args.set_name!r}")
    if args.out is None:
        raise InvalidInputError("generate vcsched-set needs --out DIR")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    count = 0
    for stem, instance in iter_vcsched_set(args.set_name, seed=args.seed, parallel=args.parallel):
        write_instance(instance, out / f"{stem}.json")
        count += 1
    print_json({"set": args.set_name, "instances": count, "out": str(out), "seed": args.seed})
    return EXIT_OK


def _compare_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--methods",
        default=DEFAULT_METHODS,
        metavar="M1,M2",
        help=f"comma-separated VCSched method names, each once (default: {DEFAULT_METHODS})",
    )
    p.add_argument(
        "--time-limit",
        type=positive_float,
        default=None,
        metavar="S",
        help="seconds per task, in (0, 1e10]; exact methods stop at it (default: none)",
    )
    p.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        metavar="N",
        help="local worker processes, 1..4 x cores (default: one per core)",
    )
    p.add_argument(
        "--backend",
        choices=list(RUNNER_BACKENDS),
        default="local",
        help="where tasks run: local worker processes, serial in this process, or an "
        "existing Dask cluster (default: local)",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="Dask scheduler address such as tcp://host:8786, for --backend dask "
        "(default: none)",
    )
    p.add_argument(
        "--seed",
        type=seed_int,
        default=0,
        metavar="N",
        help="seed of RRND/RRNZ and CP-SAT, an integer in 0..2^63-1 (default: 0)",
    )
    p.add_argument(
        "--store",
        default=None,
        metavar="DB",
        help="keep the results store (a new file or an allockit SQLite store) and resume "
        "from it (default: a temporary one)",
    )
    p.add_argument(
        "--csv",
        default=None,
        metavar="FILE",
        help="write one row per (instance, method) to this CSV file (default: none)",
    )
    p.add_argument(
        "--plot",
        default=None,
        metavar="DIR",
        help="draw the paper's figures (PNG) into this folder, created if missing "
        "(default: none)",
    )
    p.add_argument(
        "--json", action="store_true", help="print the table as JSON (default: text)"
    )
    p.add_argument(
        "--no-progress", action="store_true", help="no progress bar on stderr (default: off)"
    )
    connect_option(p)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the VCSched subcommands to the top-level parser.

    ``solve FILE``: solve one instance file (``allockit.vcsched.solve``).
    ``compare INPUTS...`` and ``demo``: run methods on many instances and print the
    paper's Table 1. ``generate vcsched|vcsched-set``: the paper's instance generator
    (Sec. 4.1). Each sets ``func`` to the command to run.

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
    >>> args = parser.parse_args(["solve", "inst.json", "--method", "mcb8", "--time-limit", "10"])
    >>> args.file, args.method, args.time_limit, args.threads, args.func.__name__
    ('inst.json', 'mcb8', 10.0, None, 'cmd_solve')
    """
    p = sub.add_parser("solve", help="solve a VCSched instance file; prints the result as JSON")
    p.add_argument("file", help="VCSched instance JSON file")
    p.add_argument(
        "--method",
        default="milp",
        metavar="NAME",
        help="milp (default), milp-paper, cpsat, lp, best (portfolio: heuristics, local "
        "search, bounds, exact search; 60 s unless --time-limit), gr, sg, gb, sgb, rrnd, "
        "rrnz, mcb1..mcb8, adapt",
    )
    p.add_argument(
        "--time-limit",
        type=positive_float,
        default=None,
        metavar="S",
        help="seconds for the whole run, in (0, 1e10] (default: none; heuristics run to "
        "completion)",
    )
    p.add_argument(
        "--threads",
        type=positive_int,
        default=None,
        metavar="N",
        help="solver threads, 1..4 x cores (default: the solver's choice)",
    )
    p.add_argument(
        "--seed",
        type=seed_int,
        default=None,
        metavar="N",
        help="seed of CP-SAT and RRND/RRNZ, an integer in 0..2^63-1 (default: CP-SAT 0, "
        "RRND fresh entropy)",
    )
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("compare", help="run methods on instances; print the paper's Table 1")
    p.add_argument("inputs", nargs="+", help="instance files, directories or glob patterns")
    _compare_options(p)
    output_kinds(p, plot="dir")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("demo", help="compare methods on the bundled sample of the small set")
    _compare_options(p)
    output_kinds(p, plot="dir")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("generate", help="generate VCSched instances (paper Sec. 4.1)")
    gen = p.add_subparsers(dest="kind", required=True)
    g = gen.add_parser("vcsched", help="one instance, printed as JSON")
    g.add_argument(
        "--hosts",
        type=positive_int,
        metavar="H",
        help="identical hosts, an integer in [1, 1000000] (required)",
    )
    g.add_argument(
        "--jobs", type=positive_int, metavar="J", help="jobs, an integer in [1, 1e7] (required)"
    )
    g.add_argument(
        "--slack",
        type=finite_float,
        metavar="X",
        help="memory slack, a fraction in [0, 1): 1 - total memory / hosts (required)",
    )
    g.add_argument(
        "--cov-cpu",
        type=finite_float,
        default=0.25,
        metavar="X",
        help="coefficient of variation of CPU needs, in [0, 10] (default: 0.25)",
    )
    g.add_argument(
        "--cov-mem",
        type=finite_float,
        default=0.25,
        metavar="X",
        help="coefficient of variation of memory needs, in [0, 10] (default: 0.25)",
    )
    g.add_argument(
        "--seed",
        type=seed_int,
        default=None,
        metavar="N",
        help="an integer in 0..2^63-1 (default: fresh entropy)",
    )
    g.add_argument(
        "--parallel",
        action="store_true",
        help="Lublin-Feitelson task counts per job (default: off, one task per job)",
    )
    output_kinds(g, out="dir")
    g.set_defaults(func=cmd_generate)
    g = gen.add_parser("vcsched-set", help="write the small or large set to a directory")
    g.add_argument(
        "set_name", metavar="small|large", help="which set: small (1,440) or large (10,800)"
    )
    g.add_argument(
        "--out", metavar="DIR", help="output folder, created if missing; not a file (required)"
    )
    g.add_argument(
        "--seed",
        type=seed_int,
        default=0,
        metavar="N",
        help="an integer in 0..2^63-1 (default: 0)",
    )
    g.add_argument(
        "--parallel",
        action="store_true",
        help="Lublin-Feitelson task counts per job (default: off, one task per job)",
    )
    output_kinds(g, out="dir")
    g.set_defaults(func=cmd_generate)
