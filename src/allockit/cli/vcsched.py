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
    method_list_option,
    method_option,
    method_option_arguments,
    method_options,
    method_spec_of,
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


_COMMON = ("time_limit", "threads", "seed")


def cmd_solve(args: argparse.Namespace) -> int:
    """``allockit solve FILE``: one instance, one method; the result as JSON."""
    from allockit.instances.io import read_instance
    from allockit.vcsched import solve

    method_option("vcsched", args.method)  # a spec that cannot load fails before reading
    spec = method_spec_of("vcsched", args.method)
    options = method_options(args, spec, "VCSched method", common=_COMMON)
    common = {key: options.pop(key, getattr(args, key)) for key in _COMMON}
    instance = read_instance(args.file)
    result = solve(instance, args.method, **common, **options)
    print_json(result.to_dict())
    return EXIT_OK


def _compare_params(args: argparse.Namespace, methods: list[str]) -> dict[str, dict]:
    """Each method's options from ``--option``, ``--solver`` and ``--rel-gap``.

    An option goes to every listed method that accepts it; one that no listed method
    accepts is refused, naming the methods. The common options have their own flags. A
    user's method gets the options its ``method_spec`` declares (none without one).
    """
    specs = {m: method_spec_of("vcsched", m) for m in methods}
    accepts = {m: (specs[m].options if specs[m] is not None else ()) for m in methods}
    pairs = list(args.option or [])
    keys = [str(pair).partition("=")[0].strip() for pair in pairs]
    given = dict(zip(keys, pairs, strict=True))
    for key in keys:
        if key in _COMMON:
            flag = "--" + key.replace("_", "-")
            raise InvalidInputError(f"--option {key}: compare takes it as {flag}")
    flags = {"solver": args.solver, "rel_gap": args.rel_gap}
    wanted = set(keys) | {k for k, v in flags.items() if v is not None}
    params: dict[str, dict] = {}
    for method in methods:
        if specs[method] is None:
            params[method] = {}
            continue
        mine = argparse.Namespace(
            option=[given[k] for k in keys if k in accepts[method]],
            **{k: (v if k in accepts[method] else None) for k, v in flags.items()},
        )
        params[method] = method_options(mine, specs[method], "VCSched method")
    for key in sorted(wanted):
        if not any(key in accepts[m] for m in methods):
            flag = f"--option {key}" if key in keys else "--" + key.replace("_", "-")
            raise InvalidInputError(
                f"{flag}: none of the methods {', '.join(methods)} takes it"
            )
    return params


def cmd_model(args: argparse.Namespace) -> int:
    """``allockit model FILE --method M --write F``: the model ``solve`` runs, as a file."""
    from allockit.instances.io import read_instance
    from allockit.models.vcsched_write import MODEL_METHODS, build_model, write_model

    if args.method not in MODEL_METHODS:
        raise InvalidInputError(
            f"--method must be one of {', '.join(MODEL_METHODS)}; got {args.method!r}"
        )
    if Path(args.write).suffix.lower() not in (".lp", ".mps"):
        raise InvalidInputError(f"--write must end in .lp or .mps; got {args.write!r}")
    options = method_options(args, None, "model")
    unknown = sorted(set(options) - {"symmetry_breaking"})
    if unknown or (options and args.method != "milp"):
        raise InvalidInputError(
            f"model --method {args.method} takes "
            + ("--option symmetry_breaking=true|false" if args.method == "milp" else "no option")
            + f"; got {', '.join(sorted(options))}"
        )
    if not isinstance(options.get("symmetry_breaking", True), bool):
        raise InvalidInputError("--option symmetry_breaking must be true or false")
    instance = read_instance(args.file)
    model = build_model(instance, args.method, **options)
    print_json({"method": args.method, **write_model(model, instance, args.write)})
    return EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    """``allockit demo``: ``compare`` on the bundled sample of the small set."""
    from allockit.instances import sample_dir

    args.inputs = [sample_dir()]
    args.demo = True
    return cmd_compare(args)


def cmd_compare(args: argparse.Namespace) -> int:
    """``allockit compare``: every method on every instance (``allockit.compare``)."""
    import os

    from allockit.comparison import compare

    check_backend_options(args, args.backend)
    methods = _method_list(args.methods)
    params = _compare_params(args, methods)
    workers = args.workers or os.cpu_count() or 1
    try:
        result = compare(
            list(args.inputs),
            methods,
            time_limit=args.time_limit,
            workers=workers,
            store=args.store,
            backend=args.backend,
            scheduler=args.scheduler,
            seed=args.seed,
            progress=False if args.no_progress else None,
            connect_timeout=args.connect_timeout,
            options=params,
        )
    except KeyboardInterrupt:
        sys.stderr.write(
            "allockit: interrupted"
            + (f"; finished rows are in {args.store}; rerun to resume\n" if args.store else "\n")
        )
        return 130
    if args.json:
        print_json(
            {
                "instances": len(result.instances),
                "failed_tasks": result.failed_tasks,
                "methods": [s.to_dict() for s in result.summary()],
                "legend": _legend(),
            }
        )
    else:
        # the demo runs a sample of the paper's small set: its Table 1 stands beside
        paper = None
        if getattr(args, "demo", False):
            from allockit.experiments.vcsched_table1 import PAPER_TABLE1 as paper
        sys.stdout.write(result.table(paper) + "\n")
    if args.csv:
        write_dict_csv(args.csv, list(result.rows))
    if args.plot:
        result.plot(args.plot)
    return EXIT_OK if result.failed_tasks == 0 else EXIT_TASKS_FAILED


def _legend() -> str:
    from allockit.experiments.compare import LEGEND

    return LEGEND


def _method_list(text: str) -> list[str]:
    """``--methods``: built-in names, plug-ins or specs, each once."""
    return method_list_option("vcsched", text, option="--methods")


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
        help="comma-separated VCSched methods, each once: built-in names, plug-ins, "
        f"MODULE:FUNCTION or PATH/TO/FILE.py:FUNCTION (default: {DEFAULT_METHODS})",
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
    method_option_arguments(p, solvers=True)


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
        "rrnz, mcb1..mcb8, adapt; or your own heuristic: MODULE:FUNCTION, "
        "PATH/TO/FILE.py:FUNCTION or a registered plug-in (see allockit methods)",
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
        help="seed of CP-SAT, the MILP solver and RRND/RRNZ, an integer in 0..2^63-1 "
        "(default: solvers 0, RRND fresh entropy)",
    )
    method_option_arguments(p, solvers=True)
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser(
        "model",
        help="write the model solve runs (milp, milp-paper, lp) as an LP or MPS file",
        description="Write the exact model that solve would run, for any solver. Variable "
        "names: milp n_JOB_h<j> (tasks of job JOB on host j) and L; milp-paper and lp "
        "e_JOB_t<k>_h<j>, alpha_JOB_t<k>_h<j> and Y (JOB: the job's name with other "
        "characters than letters, digits and _ replaced by _; j<index> when names clash); "
        "allockit.models.vcsched_write.read_solution reads another solver's values back.",
    )
    p.add_argument("file", help="VCSched instance JSON file")
    p.add_argument(
        "--method",
        default="milp",
        metavar="NAME",
        help="milp (default), milp-paper or lp (the relaxation)",
    )
    p.add_argument(
        "--write",
        required=True,
        metavar="FILE",
        help="the file to write, ending in .lp or .mps (required)",
    )
    method_option_arguments(p)
    p.set_defaults(func=cmd_model)

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
