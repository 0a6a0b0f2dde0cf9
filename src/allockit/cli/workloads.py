"""Workload subcommands: ``workload lublin|hpc2n|stats`` (generate, convert, describe SWF)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from allockit.cli.common import (
    EXIT_OK,
    output_kinds,
    positive_float,
    positive_int,
    print_json,
    seed_int,
)
from allockit.errors import InvalidInputError

__all__ = ["register", "workload_from_args"]


def workload_from_args(path: str, args: argparse.Namespace):
    """The workload in ``path`` with the ``--nodes``/``--cores``/``--skip-bad`` options.

    ``path`` may also name a real trace of the data directory (``hpc2n``, ``ctc-sp2``,
    ...; ``allockit.instances.datasets.trace_path``). A thin wrapper of
    ``allockit.instances.workload_files.read_workload`` for the commands that read an
    SWF file (``bound``, ``simulate``, ``workload stats``).
    Options missing from ``args`` take their defaults.

    Parameters
    ----------
    path : str
        SWF workload file (plain or gzip), or a trace name.
    args : argparse.Namespace
        Parsed options; reads ``nodes`` and ``cores`` (override the file's platform),
        ``skip_bad`` (skip malformed lines) and ``node_memory`` (GiB) when present.

    Returns
    -------
    Workload
        The jobs (submit and run times in seconds, tasks, CPU and memory per task as
        fractions of a node) and the platform. ``args.input_counts`` is set to what was
        left out on purpose (``records``, ``dropped_jobs``, ``skipped_lines``), and a
        note on stderr says so when something was.

    Raises
    ------
    InvalidInputError
        Raised by ``read_workload`` if the file cannot be read or is malformed, or
        if a named trace is not in the data directory (the message says the ``allockit
        data`` command that gets it).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp(), "tiny.swf")
    >>> _ = path.write_text("; MaxNodes: 4\\n"
    ...     "1 0 0 100 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1\\n"
    ...     "2 60 0 50 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\\n")
    >>> w = workload_from_args(str(path), argparse.Namespace(nodes=8))
    >>> w.n_jobs, w.platform.nodes, w.submit.tolist(), w.tasks.tolist()
    (2, 8, [0.0, 60.0], [2, 1])
    """
    import numpy as np

    from allockit.instances.datasets import trace_path
    from allockit.instances.workload_files import read_workload_report

    path = trace_path(path)
    workload, counts = read_workload_report(
        path,
        nodes=getattr(args, "nodes", None),
        cores=getattr(args, "cores", None),
        skip_bad=getattr(args, "skip_bad", False),
        node_memory_gib=getattr(args, "node_memory", None),
    )
    args.input_counts = counts  # what was left out on purpose, for the command's output
    if getattr(args, "estimates", False) and np.isnan(workload.requested_time).all():
        raise InvalidInputError(
            f"--estimates: {Path(path).name} has no requested times (SWF field 9 is -1 for "
            "every job); 'allockit workload lublin --estimates' writes them"
        )
    if counts["dropped_jobs"] or counts["skipped_lines"]:
        sys.stderr.write(
            f"allockit: note: {Path(path).name}: {counts['records']} records, "
            f"{counts['dropped_jobs']} jobs without a positive run time or processor count "
            f"dropped, {counts['skipped_lines']} malformed lines skipped\n"
        )
    return workload


def _write_swf_stdout(workload, note: str) -> None:
    from allockit.instances.swf import swf_lines, workload_to_swf

    sys.stdout.writelines(swf_lines(workload_to_swf(workload, header=[f"; Note: {note}"])))


def cmd_lublin(args: argparse.Namespace) -> int:
    """``allockit workload lublin``: a synthetic DFRS workload as SWF on stdout."""
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
    note = f"allockit workload lublin --jobs {args.jobs} --nodes {args.nodes} --seed {args.seed}"
    _write_swf_stdout(workload, note + (f" --load {args.load}" if args.load else ""))
    return EXIT_OK


def cmd_model(args: argparse.Namespace) -> int:
    """``allockit workload feitelson96|jann97``: a MEASY workload model as SWF on stdout."""
    options = {
        "procs": args.procs,
        "load": args.load,
        "cpu_usage": args.cpu_usage,
        "estimates": args.estimates,
        "seed": args.seed,
    }
    if args.kind == "feitelson96":
        from allockit.instances.feitelson96 import feitelson96_workload

        workload = feitelson96_workload(
            args.jobs, feedback=not args.open_arrivals, **options
        )
    else:
        from allockit.instances.jann97 import jann97_workload, load_jann_model

        workload = jann97_workload(args.jobs, model=load_jann_model(args.model), **options)
    flags = " ".join(
        flag
        for flag, on in (
            ("--estimates", args.estimates),
            ("--cpu-usage", args.cpu_usage),
            ("--open-arrivals", getattr(args, "open_arrivals", False)),
        )
        if on
    )
    note = (
        f"allockit workload {args.kind} --jobs {args.jobs} --procs {args.procs} "
        f"--seed {args.seed}" + (f" --load {args.load}" if args.load else "")
        + (f" {flags}" if flags else "")
    )
    _write_swf_stdout(workload, note)
    return EXIT_OK


def cmd_fit(args: argparse.Namespace) -> int:
    """``allockit workload fit TRACE --out model.json``: a Jann 1997 model of any log."""
    from allockit.instances.datasets import trace_path
    from allockit.instances.jann97 import fit_jann97, save_jann_model
    from allockit.instances.swf import read_swf

    trace = read_swf(trace_path(args.trace), on_error="skip" if args.skip_bad else "raise")
    model = fit_jann97(
        trace, ranges=args.ranges, start=args.start, end=args.end, source=str(args.trace)
    )
    save_jann_model(model, args.out)
    print_json(
        {
            "out": str(args.out),
            "nodes": model.nodes,
            "ranges": len(model.ranges),
            "jobs": int(sum(r.jobs for r in model.ranges)),
        }
    )
    return EXIT_OK


def cmd_hpc2n(args: argparse.Namespace) -> int:
    """``allockit workload hpc2n TRACE --out DIR``: the paper's conversion, weekly files."""
    from allockit.instances.datasets import trace_path
    from allockit.instances.hpc2n import hpc2n_workload, split_weeks
    from allockit.instances.swf import read_swf, workload_to_swf, write_swf

    if args.whole and args.weeks is not None:
        raise InvalidInputError("workload hpc2n takes --weeks A-B or --whole, not both")
    trace = read_swf(trace_path(args.trace), on_error="skip" if args.skip_bad else "raise")
    whole = hpc2n_workload(trace)
    if whole.n_jobs == 0:
        raise InvalidInputError(
            f"workload hpc2n: {args.trace} holds no job to convert (empty selection)"
        )
    if args.whole or args.weeks is not None:
        from allockit.instances.hpc2n import join_weeks

        if args.whole:
            workload = whole.replace(submit=whole.submit - whole.submit[0])
            note = "HPC2N, whole trace"
        else:
            first, last = _week_range(args.weeks)
            workload = join_weeks(split_weeks(whole), first, last)
            note = f"HPC2N weeks {first}-{last}, each shifted by 604800 s per week"
        if args.out is None:
            _write_swf_stdout(workload, note)
            return EXIT_OK
        write_swf(workload_to_swf(workload, header=[f"; Note: {note}"]), args.out)
        print_json({"jobs": workload.n_jobs, "out": str(args.out)})
        return EXIT_OK
    if args.out is None:
        raise InvalidInputError("workload hpc2n needs --out DIR (or --weeks A-B / --whole)")
    weeks = split_weeks(whole)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for k, week in enumerate(weeks):
        write_swf(
            workload_to_swf(week, header=[f"; Note: HPC2N week {k}"]),
            out / f"hpc2n-week{k:03d}.swf",
        )
    print_json({"weeks": len(weeks), "jobs": int(sum(w.n_jobs for w in weeks)), "out": str(out)})
    return EXIT_OK


def _hpc2n_out_kind(args: argparse.Namespace) -> str:
    """``--out`` of ``workload hpc2n``: one SWF file with --weeks/--whole, else a folder."""
    return "file" if args.whole or args.weeks else "dir"


def _week_range(text: str) -> tuple[int, int]:
    """``"A-B"`` or ``"A"`` as a pair of week indices."""
    parts = text.split("-")
    try:
        if len(parts) == 1:
            return int(parts[0]), int(parts[0])
        if len(parts) == 2:
            return int(parts[0]), int(parts[1])
    except ValueError:
        pass
    raise InvalidInputError(f"--weeks expects A-B (week indices); got {text!r}")


def cmd_stats(args: argparse.Namespace) -> int:
    """``allockit workload stats FILE``: size, runtime and load statistics as JSON."""
    from allockit.instances.workload_stats import workload_statistics

    stats = workload_statistics(workload_from_args(args.file, args))
    print_json({**stats, **args.input_counts})
    return EXIT_OK


def platform_options(p: argparse.ArgumentParser) -> None:
    """``--nodes``, ``--cores`` and ``--skip-bad`` for commands reading an SWF file.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.

    Examples
    --------
    >>> p = argparse.ArgumentParser()
    >>> platform_options(p)
    >>> p.parse_args(["--nodes", "8", "--skip-bad"]).nodes
    8
    """
    p.add_argument(
        "--nodes",
        type=positive_int,
        default=None,
        metavar="N",
        help="nodes of the platform, an integer in [1, 1000000]; overrides the file's "
        "header (default: the allockit-Platform or MaxNodes header)",
    )
    p.add_argument(
        "--cores",
        type=positive_int,
        default=None,
        metavar="C",
        help="cores per node, an integer in [1, 4096]; overrides the file's header "
        "(default: the header, MaxProcs / MaxNodes, else 1)",
    )
    p.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip malformed lines and count them in the output (default: refuse the file)",
    )


def register(sub: argparse._SubParsersAction) -> None:
    """Add the workload subcommands to the top-level parser.

    ``workload lublin``: a synthetic DFRS workload (Lublin-Feitelson model) as SWF on
    stdout. ``workload hpc2n TRACE``: the DFRS paper's conversion of the HPC2N trace
    (Sec. 5.3.1), split into weekly files. ``workload stats FILE``: summary statistics
    as JSON. Each sets ``func`` to the command to run.

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
    >>> args = parser.parse_args(["workload", "lublin", "--jobs", "50", "--load", "0.7"])
    >>> args.jobs, args.nodes, args.seed, args.load, args.func.__name__
    (50, 128, 0, 0.7, 'cmd_lublin')
    """
    p = sub.add_parser("workload", help="generate, convert and describe SWF workloads")
    wl = p.add_subparsers(dest="kind", required=True)
    w = wl.add_parser("lublin", help="synthetic DFRS workload (Lublin-Feitelson), SWF on stdout")
    w.add_argument(
        "--jobs",
        type=positive_int,
        default=1000,
        metavar="N",
        help="jobs, an integer in [1, 1e7] (default: 1000)",
    )
    w.add_argument(
        "--nodes",
        type=positive_int,
        default=128,
        metavar="N",
        help="quad-core nodes, an integer in [1, 1000000] (default: 128)",
    )
    w.add_argument(
        "--seed",
        type=seed_int,
        default=0,
        metavar="N",
        help="an integer in 0..2^63-1 (default: 0)",
    )
    w.add_argument(
        "--load",
        type=positive_float,
        default=None,
        metavar="X",
        help="offered load, in (0, 100]: interarrival times scaled to it; a load whose "
        "submit times pass 1e10 s (what SWF holds) is refused (default: unscaled)",
    )
    w.add_argument(
        "--typeless", action="store_true", help="one job type, not two (default: two types)"
    )
    w.add_argument(
        "--estimates",
        action="store_true",
        help="requested times from Tsafrir's model in field 9 (default: none, -1)",
    )
    w.set_defaults(func=cmd_lublin)
    for kind, text in (
        ("feitelson96", "Feitelson 1996 model (MEASY's FWload), SWF on stdout"),
        ("jann97", "Jann et al. 1997 model (MEASY's JWload), SWF on stdout"),
    ):
        w = wl.add_parser(kind, help=text)
        w.add_argument(
            "--jobs", type=positive_int, default=1000, help="in [1, 1e7] (default: 1000)"
        )
        w.add_argument(
            "--procs",
            type=positive_int,
            default=320,
            help="single-core processors, in [1, 1000000] (default: 320, the MEASY paper's)",
        )
        w.add_argument("--seed", type=seed_int, default=0, help="0..2^63-1 (default: 0)")
        w.add_argument(
            "--load",
            type=positive_float,
            default=None,
            help="offered load on --procs, in [0.01, 2]: interarrival times scaled to it; "
            "a load whose submit times pass 1e10 s (what SWF holds) is refused (default: "
            "the model's own)",
        )
        w.add_argument(
            "--estimates",
            action="store_true",
            help="requested times from Tsafrir's model in field 9 (default: none, -1)",
        )
        w.add_argument(
            "--cpu-usage",
            action="store_true",
            help="per-process CPU usage (MEASY rule: 1.0 for one process, else U[0.4, 1]) "
            "(default: off)",
        )
        if kind == "feitelson96":
            w.add_argument(
                "--open-arrivals",
                action="store_true",
                help="every repeated run gets its own submit time (default: a repeat is "
                "submitted when its previous run ends, SWF fields 17/18)",
            )
        else:
            w.add_argument(
                "--model",
                default="ctc",
                help="'ctc' (bundled fit of the CTC-SP2 log, default) or a model JSON "
                "written by 'workload fit'",
            )
        w.set_defaults(func=cmd_model)
    w = wl.add_parser("fit", help="fit a Jann 1997 model (hyper-Erlangs) to any SWF log")
    w.add_argument("trace", help="SWF file (plain or .gz) or a trace name (ctc-sp2, ...)")
    w.add_argument(
        "--out", required=True, metavar="FILE", help="model JSON file to write (required)"
    )
    w.add_argument(
        "--ranges",
        default=None,
        help="size ranges such as '1,2,3-4,5-8,9-' (default: powers of two)",
    )
    w.add_argument("--start", default=None, help="first day kept, YYYY-MM-DD (default: all)")
    w.add_argument("--end", default=None, help="day after the last kept (default: all)")
    w.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip malformed lines (default: refuse the file)",
    )
    w.set_defaults(func=cmd_fit)
    w = wl.add_parser("hpc2n", help="convert the HPC2N trace (paper Sec. 5.3.1), weekly files")
    w.add_argument(
        "trace",
        nargs="?",
        default="hpc2n",
        help="HPC2N SWF file (plain or .gz) or the trace name hpc2n (default: hpc2n, "
        "from the data directory: 'allockit data fetch hpc2n')",
    )
    w.add_argument(
        "--out",
        metavar="PATH",
        help="folder of the weekly files, created if missing (required without "
        "--weeks/--whole); with them the SWF file (default then: stdout)",
    )
    w.add_argument(
        "--weeks",
        default=None,
        metavar="A-B",
        help="write non-empty weeks A..B (0-based indices) as one SWF, week k shifted by "
        "(k-A)*604800 s (default: every week, as weekly files)",
    )
    w.add_argument(
        "--whole",
        action="store_true",
        help="write the whole converted trace as one SWF (default: weekly files)",
    )
    w.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip malformed lines (default: refuse the file)",
    )
    output_kinds(w, out=_hpc2n_out_kind)
    w.set_defaults(func=cmd_hpc2n)
    w = wl.add_parser("stats", help="jobs, nodes, offered load, size and runtime summaries")
    w.add_argument("file", help="SWF file (plain or .gz) or a trace name (hpc2n, ...)")
    platform_options(w)
    w.set_defaults(func=cmd_stats)
