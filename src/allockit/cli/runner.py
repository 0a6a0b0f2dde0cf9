"""Runner subcommands: ``sweep`` (a TOML-described grid) and ``results export``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from allockit.cli.common import (
    EXIT_OK,
    EXIT_TASKS_FAILED,
    check_backend_options,
    connect_option,
    positive_int,
    print_json,
    write_dict_csv,
)
from allockit.constants import RUNNER_BACKENDS
from allockit.errors import InvalidInputError, SolverUnavailableError

__all__ = ["register"]


def cmd_sweep(args: argparse.Namespace) -> int:
    """``allockit sweep SPEC.toml``: run the grid, resumably; print the summary."""
    from allockit.experiments.sweep_spec import load_spec
    from allockit.runner import check_store, run_sweep

    spec = load_spec(args.spec)
    backend = args.backend or spec.backend
    check_backend_options(args, backend)
    store = Path(args.output) if args.output else spec.output
    if not args.output:  # the file's output, checked before any work as --output was
        check_store(store, option=f"{Path(args.spec).name}: output")
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
            connect_timeout=args.connect_timeout,
        )
    except KeyboardInterrupt:
        sys.stderr.write(
            f"allockit: interrupted; finished rows are saved in {store}; "
            "run the same command again to resume\n"
        )
        return 130
    print_json(summary.to_dict())
    return EXIT_OK if summary.failed == 0 else EXIT_TASKS_FAILED


def cmd_results_export(args: argparse.Namespace) -> int:
    """``allockit results export DB --csv F | --parquet F``."""
    from allockit.runner import flat_rows

    if (args.csv is None) == (args.parquet is None):
        raise InvalidInputError("results export needs exactly one of --csv FILE or --parquet FILE")
    rows = flat_rows(args.db)
    if args.csv is not None:
        write_dict_csv(args.csv, rows)
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
    print_json({"rows": len(rows), "out": str(out)})
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add the runner subcommands to the top-level parser.

    ``sweep SPEC.toml``: run the grid a TOML file describes, resumably
    (``allockit.runner.run_sweep``). ``results export DB --csv F | --parquet F``:
    flatten a results store for analysis. Each sets ``func`` to the command to run.

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
    >>> args = parser.parse_args(["results", "export", "sweep.db", "--csv", "rows.csv"])
    >>> args.db, args.csv, args.parquet, args.func.__name__
    ('sweep.db', 'rows.csv', None, 'cmd_results_export')
    """
    p = sub.add_parser("sweep", help="run a sweep described in a TOML file (resumable)")
    p.add_argument("spec", help="sweep TOML file (see the README's Sweeps section)")
    p.add_argument(
        "--backend",
        choices=list(RUNNER_BACKENDS),
        default=None,
        help="where tasks run: local, serial or dask (default: the file's backend, else "
        "local)",
    )
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="Dask scheduler address such as tcp://host:8786, for --backend dask "
        "(default: the file's scheduler)",
    )
    p.add_argument(
        "--workers",
        type=positive_int,
        default=None,
        metavar="N",
        help="local worker processes, 1..4 x cores (default: the file's, else one per core)",
    )
    p.add_argument(
        "--output",
        default=None,
        metavar="DB",
        help="results store, a new file or an allockit store (default: the file's output)",
    )
    p.add_argument(
        "--retry-failed", action="store_true", help="rerun failed tasks too (default: off)"
    )
    p.add_argument(
        "--no-progress", action="store_true", help="no progress bar on stderr (default: off)"
    )
    connect_option(p)
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("results", help="work with a sweep's results store")
    res = p.add_subparsers(dest="action", required=True)
    r = res.add_parser("export", help="write the rows as CSV or Parquet")
    r.add_argument("db", help="results store (an allockit SQLite file)")
    r.add_argument(
        "--csv", default=None, metavar="FILE", help="CSV output file (default: none)"
    )
    r.add_argument(
        "--parquet",
        default=None,
        metavar="FILE",
        help="Parquet output file, needs pandas and pyarrow (default: none)",
    )
    r.set_defaults(func=cmd_results_export)
