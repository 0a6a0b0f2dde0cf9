"""The ``allockit`` command line: subcommands mirror the library; JSON in, JSON out.

Exit codes (a contract): 0 the run completed (whatever the solve status), 1 a missing
optional dependency, 2 invalid input or usage (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from allockit import __version__
from allockit.errors import InvalidInputError, SolverUnavailableError

__all__ = ["main"]


def _write_dict_csv(path: str, rows: list[dict[str, Any]]) -> None:
    """Rows as CSV, columns in order of first appearance across all rows."""
    import csv

    columns: list[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number; got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0; got {text!r}")
    return value


def _nonnegative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number; got {text!r}") from None
    if not (value >= 0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0; got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1; got {text!r}")
    return value


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=1) + "\n")


def _cmd_solve(args: argparse.Namespace) -> int:
    from allockit.instances.io import read_instance
    from allockit.vcsched import METHODS, solve

    if args.method not in METHODS:
        raise InvalidInputError(f"--method must be one of {sorted(METHODS)}; got {args.method!r}")
    instance = read_instance(args.file)
    result = solve(
        instance, args.method, time_limit=args.time_limit, threads=args.threads, seed=args.seed
    )
    _print_json(result.to_dict())
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from allockit.instances import sample_dir

    args.inputs = [sample_dir()]
    return _cmd_compare(args)


def _cmd_compare(args: argparse.Namespace) -> int:
    import tempfile

    from allockit.compare import comparison_rows, format_table, summarize
    from allockit.instances.io import read_instance
    from allockit.runner import run_sweep
    from allockit.store import read_rows
    from allockit.sweep_spec import collect_instance_files, vcsched_tasks

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    items = [(p.stem, read_instance(p).to_dict()) for p in collect_instance_files(args.inputs)]
    tasks = vcsched_tasks(items, methods=methods, seeds=[args.seed], time_limit=args.time_limit)
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(args.store) if args.store else Path(tmp) / "compare.db"
        try:
            run_sweep(
                tasks,
                store,
                backend=args.backend,
                workers=args.workers,
                scheduler=args.scheduler,
                sweep="compare",
                progress=False if args.no_progress else None,
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
        _print_json({"instances": len(items), "methods": [s.to_dict() for s in summaries]})
    else:
        sys.stdout.write(f"{len(items)} instances\n{format_table(summaries)}\n")
    if args.csv:
        _write_dict_csv(args.csv, flat)
    if args.plot:
        from allockit.plots import plot_comparison

        plot_comparison(flat, args.plot)
    return 0


def _cmd_generate(args: argparse.Namespace) -> int:
    from allockit.instances.generators import SETS, generate_vcsched, iter_vcsched_set
    from allockit.instances.io import instance_to_json, write_instance

    if args.kind == "vcsched":
        missing = [
            f"--{n.replace('_', '-')}"
            for n in ("hosts", "jobs", "slack")
            if getattr(args, n) is None
        ]
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
        return 0
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
    _print_json({"set": args.set_name, "instances": count, "out": str(out), "seed": args.seed})
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from allockit.runner import run_sweep
    from allockit.sweep_spec import load_spec

    spec = load_spec(args.spec)
    backend = args.backend or spec.backend
    store = Path(args.output) if args.output else spec.output
    try:
        summary = run_sweep(
            spec.tasks(),
            store,
            backend=backend,
            workers=args.workers or spec.workers,
            scheduler=args.scheduler or spec.scheduler,
            sweep=spec.name,
            retry_failed=args.retry_failed,
            grace=spec.grace,
            progress=False if args.no_progress else None,
        )
    except KeyboardInterrupt:
        sys.stderr.write(
            f"allockit: interrupted; finished rows are saved in {store}; "
            "run the same command again to resume\n"
        )
        return 130
    _print_json(summary.to_dict())
    return 0


def _cmd_results_export(args: argparse.Namespace) -> int:
    from allockit.store import flat_rows

    if (args.csv is None) == (args.parquet is None):
        raise InvalidInputError("results export needs exactly one of --csv FILE or --parquet FILE")
    rows = flat_rows(args.db)
    if args.csv is not None:
        _write_dict_csv(args.csv, rows)
        out = args.csv
    else:
        import importlib.util

        if (
            importlib.util.find_spec("pandas") is None
            or importlib.util.find_spec("pyarrow") is None
        ):
            raise SolverUnavailableError(
                "Parquet export needs pandas and pyarrow: pip install 'allockit[dataframe]'"
            )
        import pandas as pd

        pd.DataFrame(rows).to_parquet(args.parquet, index=False)
        out = args.parquet
    _print_json({"rows": len(rows), "out": str(out)})
    return 0


def _read_workload(path: str, args: argparse.Namespace):
    from allockit.instances.swf import read_swf, swf_to_workload

    trace = read_swf(path, on_error="skip" if getattr(args, "skip_bad", False) else "raise")
    workload = swf_to_workload(
        trace, nodes=getattr(args, "nodes", None), cores=getattr(args, "cores", None)
    )
    if workload.n_jobs == 0:
        raise InvalidInputError(f"{path}: no job with a positive run time and processor count")
    return workload


def _cmd_workload(args: argparse.Namespace) -> int:
    from allockit.instances.swf import read_swf, swf_lines, workload_to_swf, write_swf

    if args.kind == "lublin":
        from allockit.instances.lublin import LublinModel, dfrs_synthetic

        workload = dfrs_synthetic(
            args.jobs,
            nodes=args.nodes,
            load=args.load,
            seed=args.seed,
            model=LublinModel(nodes=args.nodes, two_types=not args.typeless),
        )
        if args.estimates:
            from allockit.instances.tsafrir import tsafrir_estimates

            workload = workload.replace(
                requested_time=tsafrir_estimates(workload.runtime, seed=args.seed)
            )
        sys.stdout.writelines(
            line
            for line in swf_lines(
                workload_to_swf(
                    workload,
                    header=[
                        f"; Note: allockit workload lublin --jobs {args.jobs} --nodes {args.nodes} "
                        f"--seed {args.seed}" + (f" --load {args.load}" if args.load else "")
                    ],
                )
            )
        )
        return 0
    if args.kind == "hpc2n":
        from allockit.instances.hpc2n import hpc2n_workload, split_weeks

        if args.out is None:
            raise InvalidInputError("workload hpc2n needs --out DIR")
        trace = read_swf(args.trace, on_error="skip" if args.skip_bad else "raise")
        weeks = split_weeks(hpc2n_workload(trace))
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for k, week in enumerate(weeks):
            write_swf(
                workload_to_swf(week, header=[f"; Note: HPC2N week {k}"]),
                out / f"hpc2n-week{k:03d}.swf",
            )
        _print_json(
            {"weeks": len(weeks), "jobs": int(sum(w.n_jobs for w in weeks)), "out": str(out)}
        )
        return 0
    import numpy as np

    workload = _read_workload(args.file, args)
    size = workload.tasks
    runtime = workload.runtime
    _print_json(
        {
            "jobs": workload.n_jobs,
            "nodes": workload.platform.nodes,
            "cores": workload.platform.cores,
            "offered_load": workload.offered_load(),
            "span_seconds": float(workload.submit[-1] - workload.submit[0]),
            "tasks": {
                "mean": float(size.mean()),
                "median": float(np.median(size)),
                "max": int(size.max()),
                "serial_fraction": float((size == 1).mean()),
            },
            "runtime": {
                "mean": float(runtime.mean()),
                "median": float(np.median(runtime)),
                "max": float(runtime.max()),
            },
            "requested_time_known": float(np.isfinite(workload.requested_time).mean()),
        }
    )
    return 0


def _cmd_bound(args: argparse.Namespace) -> int:
    from allockit.models.stretch_bound import stretch_bound

    workload = _read_workload(args.file, args)
    result = stretch_bound(workload, method=args.method, tol=args.tol)
    _print_json({"jobs": workload.n_jobs, "nodes": workload.platform.nodes, **result.to_dict()})
    return 0


DRFH_METHODS = ("lp", "progressive", "first-fit", "best-fit", "per-server-drf", "slots")


def _read_drfh(path: str):
    import json as _json

    from allockit.instances.drfh import DRFHInstance

    try:
        data = _json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInputError(f"cannot read instance file {path!r}: {exc}") from None
    except _json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    return DRFHInstance.from_dict(data)


def run_drfh(instance, method: str, *, slots_per_largest: int = 14, split: bool = False):
    """Run a DRFH mechanism by its CLI name."""
    from allockit.heuristics import drfh_tasks
    from allockit.models.drfh_lp import drfh_lp, progressive_filling

    if method == "lp":
        return drfh_lp(instance, split=split)
    if method == "progressive":
        return progressive_filling(instance, split=split)
    if method == "slots":
        return drfh_tasks.slots(instance, per_largest=slots_per_largest)
    funcs = {
        "first-fit": drfh_tasks.first_fit,
        "best-fit": drfh_tasks.best_fit,
        "per-server-drf": drfh_tasks.per_server_drf,
    }
    if method not in funcs:
        raise InvalidInputError(f"--method must be one of {list(DRFH_METHODS)}; got {method!r}")
    return funcs[method](instance)


def _cmd_drfh(args: argparse.Namespace) -> int:
    instance = _read_drfh(args.file)
    result = run_drfh(instance, args.method, slots_per_largest=args.slots, split=args.split)
    _print_json(result.to_dict())
    return 0


def _cmd_fairness(args: argparse.Namespace) -> int:
    from allockit.fairness import MECHANISMS, PROPERTIES, check

    if args.method not in MECHANISMS:
        raise InvalidInputError(
            f"--method must be one of {sorted(MECHANISMS)}; got {args.method!r}"
        )
    names = [p.strip() for p in args.properties.split(",")] if args.properties else list(PROPERTIES)
    reports = check(
        MECHANISMS[args.method],
        names,
        examples=args.examples,
        seed=args.seed,
        finite_tasks=args.method != "lp",
    )
    _print_json({"method": args.method, "properties": [r.to_dict() for r in reports]})
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    from allockit.simulation.names import parse_algorithm
    from allockit.simulation.simulate import simulate

    parse_algorithm(args.algorithm)  # a bad name fails before the trace is read
    workload = _read_workload(args.file, args)
    if args.node_memory is not None:
        import dataclasses

        platform = dataclasses.replace(
            workload.platform, node_memory=round(args.node_memory * 1024**3)
        )
        workload = workload.replace(platform=platform)
    result = simulate(
        workload,
        args.algorithm,
        estimates=args.estimates,
        unit=args.unit,
        penalty=args.penalty,
        period=args.period,
    )
    summary = result.summary()
    if args.bound:
        from allockit.models.stretch_bound import stretch_bound

        bound = stretch_bound(workload).value
        summary["bound"] = bound
        summary["degradation"] = result.max_stretch / bound
    if args.jobs_csv:
        _write_dict_csv(
            args.jobs_csv,
            [
                {
                    "id": int(result.ids[k]),
                    "submit": result.submit[k],
                    "start": result.start[k],
                    "end": result.end[k],
                    "stretch": result.stretch[k],
                    "turnaround": result.turnaround[k],
                    "runtime": result.runtime[k],
                    "tasks": int(workload.tasks[k]),
                    "preemptions": int(result.job_preemptions[k]),
                    "migrations": int(result.job_migrations[k]),
                }
                for k in range(workload.n_jobs)
            ],
        )
    if args.plot:
        from allockit.plots import plot_simulation

        summary["plots"] = [str(p) for p in plot_simulation(result, args.plot)]
    _print_json(summary)
    return 0


def _number_list(option: str, text: str, kind: type = float) -> tuple:
    try:
        return tuple(kind(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise InvalidInputError(f"{option} expects comma-separated numbers; got {text!r}") from None


_HPC2N_DEFAULT = "../shared/data/traces/HPC2N-2002-2.2-cln.swf.gz"


def _cmd_dfrs_experiment(args: argparse.Namespace) -> int:
    import dataclasses
    import os

    from allockit.dfrs_experiments import (
        TraceSets,
        aggregate,
        experiment_tasks,
        plot_fig1,
        to_markdown,
    )
    from allockit.runner import run_sweep
    from allockit.store import read_rows

    hpc2n = args.hpc2n or os.environ.get("ALLOCKIT_HPC2N")
    if hpc2n is None and os.path.exists(_HPC2N_DEFAULT):
        hpc2n = os.path.abspath(_HPC2N_DEFAULT)
    if hpc2n is not None and not os.path.exists(hpc2n):
        raise InvalidInputError(f"--hpc2n: no such file {hpc2n!r}")
    sets = TraceSets.quick(hpc2n) if args.quick else TraceSets(hpc2n=hpc2n)
    changes: dict[str, Any] = {}
    if args.seeds is not None:
        changes["seeds"] = tuple(range(args.seeds))
    if args.loads is not None:
        changes["loads"] = _number_list("--loads", args.loads)
    if args.weeks is not None:
        changes["weeks"] = _number_list("--weeks", args.weeks, int)
    if args.jobs is not None:
        changes["jobs"] = args.jobs
    if args.nodes is not None:
        changes["nodes"] = args.nodes
    sets = dataclasses.replace(sets, **changes)
    if args.weeks is not None and hpc2n is not None:
        from allockit.dfrs_experiments import hpc2n_week_count

        count = hpc2n_week_count(hpc2n)
        bad = [w for w in sets.weeks if not 0 <= w < count]
        if bad:
            raise InvalidInputError(f"--weeks: {bad[0]} is not in [0, {count}) for {hpc2n}")
    tasks = experiment_tasks(args.experiment, sets, penalty=args.penalty, period=args.period)
    summary = run_sweep(
        tasks,
        args.store,
        backend=args.backend,
        workers=args.workers,
        scheduler=args.scheduler,
        sweep=f"dfrs-{args.experiment}",
        progress=args.progress,
    )
    table = aggregate(args.experiment, read_rows(args.store), tasks)
    out: dict[str, Any] = {
        "experiment": args.experiment,
        "sweep": summary.to_dict(),
        "real_traces": hpc2n or "skipped: no HPC2N trace (--hpc2n or ALLOCKIT_HPC2N)",
        "table": table,
    }
    if args.markdown:
        Path(args.markdown).write_text(to_markdown(table), encoding="utf-8")
        out["markdown"] = args.markdown
    if args.plot and args.experiment == "fig1":
        out["plot"] = str(plot_fig1(table, args.plot))
    _print_json(out)
    return 0 if summary.failed == 0 else 1


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(prog="allockit", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"allockit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def solve_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("--method", default="milp", help="milp (default), milp-paper, cpsat or lp")
        p.add_argument("--time-limit", type=_positive_float, default=None, metavar="S")
        p.add_argument("--threads", type=_positive_int, default=None, metavar="N")
        p.add_argument("--seed", type=int, default=None, metavar="N")

    p = sub.add_parser("solve", help="solve an instance file; prints the result as JSON")
    p.add_argument("file", help="instance JSON file")
    solve_options(p)
    p.set_defaults(func=_cmd_solve)

    def compare_options(p: argparse.ArgumentParser, methods: str) -> None:
        p.add_argument("--methods", default=methods, help="comma-separated method names")
        p.add_argument("--time-limit", type=_positive_float, default=None, metavar="S")
        p.add_argument("--workers", type=_positive_int, default=None, metavar="N")
        p.add_argument("--backend", choices=["local", "serial", "dask"], default="local")
        p.add_argument("--scheduler", default=None, metavar="ADDRESS")
        p.add_argument("--seed", type=int, default=0, metavar="N")
        p.add_argument(
            "--store",
            default=None,
            metavar="DB",
            help="keep the results store (and resume from it)",
        )
        p.add_argument("--csv", default=None, metavar="FILE", help="one row per (instance, method)")
        p.add_argument("--plot", default=None, metavar="DIR", help="draw the paper's figures")
        p.add_argument("--json", action="store_true", help="print the table as JSON")
        p.add_argument("--no-progress", action="store_true")

    default_methods = "milp,lp,mcb8,gr,sg,gb,sgb,rrnd,rrnz"
    p = sub.add_parser("compare", help="run methods on instances; print the paper's Table 1")
    p.add_argument("inputs", nargs="+", help="instance files or directories")
    compare_options(p, default_methods)
    p.set_defaults(func=_cmd_compare)

    p = sub.add_parser("demo", help="compare methods on the bundled sample of the small set")
    compare_options(p, default_methods)
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("generate", help="generate instances (paper Sec. 4.1)")
    gen = p.add_subparsers(dest="kind", required=True)
    g = gen.add_parser("vcsched", help="one instance, printed as JSON")
    g.add_argument("--hosts", type=_positive_int)
    g.add_argument("--jobs", type=_positive_int)
    g.add_argument("--slack", type=float)
    g.add_argument("--cov-cpu", type=float, default=0.25)
    g.add_argument("--cov-mem", type=float, default=0.25)
    g.add_argument("--seed", type=int, default=None)
    g.add_argument("--parallel", action="store_true", help="Lublin-Feitelson task counts")
    g.set_defaults(func=_cmd_generate)
    g = gen.add_parser("vcsched-set", help="write the small or large set to a directory")
    g.add_argument("set_name", metavar="small|large")
    g.add_argument("--out", metavar="DIR")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--parallel", action="store_true")
    g.set_defaults(func=_cmd_generate)
    p = sub.add_parser("sweep", help="run a sweep described in a TOML file (resumable)")
    p.add_argument("spec", help="sweep TOML file")
    p.add_argument("--backend", choices=["local", "serial", "dask"], default=None)
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help="Dask scheduler")
    p.add_argument("--workers", type=_positive_int, default=None, metavar="N")
    p.add_argument("--output", default=None, metavar="DB", help="override the results file")
    p.add_argument("--retry-failed", action="store_true", help="rerun failed tasks too")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=_cmd_sweep)

    p = sub.add_parser("workload", help="generate, convert and describe SWF workloads")
    wl = p.add_subparsers(dest="kind", required=True)
    w = wl.add_parser("lublin", help="synthetic DFRS workload (Lublin-Feitelson), SWF on stdout")
    w.add_argument("--jobs", type=_positive_int, default=1000)
    w.add_argument("--nodes", type=_positive_int, default=128)
    w.add_argument("--seed", type=int, default=0)
    w.add_argument("--load", type=_positive_float, default=None, help="offered load")
    w.add_argument("--typeless", action="store_true", help="one job type, not two")
    w.add_argument(
        "--estimates", action="store_true", help="requested times from Tsafrir's model (field 9)"
    )
    w.set_defaults(func=_cmd_workload)
    w = wl.add_parser("hpc2n", help="convert the HPC2N trace (paper Sec. 5.3.1), weekly files")
    w.add_argument("trace")
    w.add_argument("--out", metavar="DIR")
    w.add_argument("--skip-bad", action="store_true", help="skip malformed lines")
    w.set_defaults(func=_cmd_workload)
    w = wl.add_parser("stats", help="jobs, nodes, offered load, size and runtime summaries")
    w.add_argument("file")
    w.add_argument("--nodes", type=_positive_int, default=None)
    w.add_argument("--cores", type=_positive_int, default=None)
    w.add_argument("--skip-bad", action="store_true")
    w.set_defaults(func=_cmd_workload)

    p = sub.add_parser("bound", help="lower bound on the optimal maximum stretch (Theorem 1)")
    p.add_argument("file", help="SWF workload")
    p.add_argument("--nodes", type=_positive_int, default=None)
    p.add_argument("--cores", type=_positive_int, default=None)
    p.add_argument("--method", choices=["exact", "bisection"], default="exact")
    p.add_argument("--tol", type=_positive_float, default=1e-4)
    p.add_argument("--skip-bad", action="store_true")
    p.set_defaults(func=_cmd_bound)

    p = sub.add_parser("simulate", help="simulate a scheduler on an SWF workload")
    p.add_argument("file", help="SWF workload")
    p.add_argument(
        "--algorithm",
        default="EASY",
        help="FCFS, EASY or a DFRS name such as 'GreedyPM */per/opt=min/minvt=600'",
    )
    p.add_argument(
        "--penalty", type=_nonnegative_float, default=300.0, help="rescheduling penalty (s)"
    )
    p.add_argument("--period", type=_positive_float, default=600.0, help="MCB8 period (s)")
    p.add_argument(
        "--bound", action="store_true", help="add the stretch lower bound and the degradation"
    )
    p.add_argument("--plot", default=None, metavar="DIR", help="utilisation and stretch plots")
    p.add_argument(
        "--node-memory",
        type=_positive_float,
        default=None,
        metavar="GIB",
        help="node memory for the bandwidth figures (default: the workload's platform)",
    )
    p.add_argument("--nodes", type=_positive_int, default=None)
    p.add_argument("--cores", type=_positive_int, default=None)
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
    p.add_argument("--jobs-csv", default=None, metavar="OUT", help="one row per job")
    p.add_argument("--skip-bad", action="store_true")
    p.set_defaults(func=_cmd_simulate)

    p = sub.add_parser(
        "dfrs-experiment", help="reproduce Table 2, 3, 4 or Fig. 1 of the DFRS paper"
    )
    p.add_argument("experiment", choices=["table2", "table3", "table4", "fig1"])
    p.add_argument("--quick", action="store_true", help="a subset that runs in minutes")
    p.add_argument("--seeds", type=_positive_int, default=None, help="synthetic traces")
    p.add_argument("--loads", default=None, help="comma-separated loads of the scaled set")
    p.add_argument("--weeks", default=None, help="comma-separated HPC2N week indices")
    p.add_argument("--jobs", type=_positive_int, default=None)
    p.add_argument("--nodes", type=_positive_int, default=None)
    p.add_argument("--hpc2n", default=None, help=f"HPC2N SWF (default {_HPC2N_DEFAULT})")
    p.add_argument("--store", default="dfrs-experiments.db", help="results store (resumable)")
    p.add_argument("--backend", choices=["local", "serial", "dask"], default="local")
    p.add_argument("--workers", type=_positive_int, default=None)
    p.add_argument("--scheduler", default=None, help="Dask scheduler address")
    p.add_argument("--penalty", type=_nonnegative_float, default=300.0)
    p.add_argument("--period", type=_positive_float, default=600.0)
    p.add_argument("--markdown", default=None, metavar="FILE", help="table beside the paper's")
    p.add_argument("--plot", default=None, metavar="PNG", help="Fig. 1 plot")
    p.add_argument("--progress", action="store_true", default=None)
    p.set_defaults(func=_cmd_dfrs_experiment)

    p = sub.add_parser("drfh", help="fair multi-resource allocation on heterogeneous servers")
    p.add_argument("file", help="DRFH instance JSON")
    p.add_argument("--method", default="lp", help=", ".join(DRFH_METHODS))
    p.add_argument(
        "--slots",
        type=_positive_int,
        default=14,
        metavar="S",
        help="slots per largest server (slots method)",
    )
    p.add_argument(
        "--split",
        action="store_true",
        help="report the divisible methods per server, not per class",
    )
    p.set_defaults(func=_cmd_drfh)

    p = sub.add_parser("fairness", help="property-test a DRFH mechanism (hypothesis)")
    p.add_argument("--method", default="progressive", help=", ".join(DRFH_METHODS))
    p.add_argument("--properties", default=None, help="comma-separated subset (default: all)")
    p.add_argument("--examples", type=_positive_int, default=200, metavar="N")
    p.add_argument("--seed", type=int, default=0, metavar="N")
    p.set_defaults(func=_cmd_fairness)

    p = sub.add_parser("results", help="work with a sweep's results store")
    res = p.add_subparsers(dest="action", required=True)
    r = res.add_parser("export", help="write the rows as CSV or Parquet")
    r.add_argument("db", help="results store (SQLite)")
    r.add_argument("--csv", default=None, metavar="FILE")
    r.add_argument("--parquet", default=None, metavar="FILE")
    r.set_defaults(func=_cmd_results_export)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except InvalidInputError as exc:
        sys.stderr.write(f"allockit: error: {exc}\n")
        return 2
    except SolverUnavailableError as exc:
        sys.stderr.write(f"allockit: {exc}\n")
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
