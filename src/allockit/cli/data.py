"""Data subcommands: ``data list|fetch|add`` (the named real traces in the data directory)."""

from __future__ import annotations

import argparse

from allockit.cli.common import EXIT_OK, print_json
from allockit.errors import InvalidInputError

__all__ = ["register"]


def cmd_list(args: argparse.Namespace) -> int:
    """``allockit data list``: every named trace, its source and size, present or not."""
    from allockit.instances.datasets import data_dir, list_traces

    print_json({"data_dir": str(data_dir()), "traces": list_traces(verify=args.verify)})
    return EXIT_OK


def cmd_fetch(args: argparse.Namespace) -> int:
    """``allockit data fetch NAME...``: download, check the SHA-256, keep."""
    from allockit.instances.datasets import TRACES, fetch_trace, trace_info

    names = list(TRACES) if args.names == ["all"] else args.names
    for name in names:
        trace_info(name)  # every name checked before any download
    if args.url is not None and len(names) != 1:
        raise InvalidInputError("data fetch: --url takes exactly one trace name")
    done = [{"name": n, "path": str(fetch_trace(n, url=args.url))} for n in names]
    print_json({"fetched": done})
    return EXIT_OK


def cmd_add(args: argparse.Namespace) -> int:
    """``allockit data add NAME FILE``: copy a local file after checking its SHA-256."""
    from allockit.instances.datasets import add_trace, trace_info

    path = add_trace(args.name, args.file)
    print_json({"name": args.name, "path": str(path), "sha256": trace_info(args.name).sha256})
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``data`` subcommands to the top-level parser.

    ``data list``: the named traces with their source, size and whether they are in
    the data directory (``$ALLOCKIT_DATA``, else the user cache directory).
    ``data fetch NAME``: download one (checked against its SHA-256). ``data add NAME
    FILE``: copy a file you have, after the same check. Each sets ``func``.

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
    >>> args = parser.parse_args(["data", "add", "hpc2n", "HPC2N-2002-2.2-cln.swf.gz"])
    >>> args.name, args.file, args.func.__name__
    ('hpc2n', 'HPC2N-2002-2.2-cln.swf.gz', 'cmd_add')
    """
    p = sub.add_parser(
        "data",
        help="the named real traces (hpc2n, ctc-sp2, ...): list, fetch, add",
        description="Named real workload traces of the Parallel Workloads Archive, kept "
        "in the data directory: $ALLOCKIT_DATA, else the user cache directory "
        "(~/.cache/allockit on Linux). Wherever a command reads a trace, a name works "
        "as well as a path.",
    )
    data = p.add_subparsers(dest="action", required=True)
    w = data.add_parser("list", help="every named trace: source, size, present or not (JSON)")
    w.add_argument(
        "--verify",
        action="store_true",
        help="also check the SHA-256 of the files present (default: sizes only)",
    )
    w.set_defaults(func=cmd_list)
    w = data.add_parser("fetch", help="download named traces, checked against their SHA-256")
    w.add_argument(
        "names",
        nargs="+",
        metavar="NAME",
        help="trace names (hpc2n, ctc-sp2, sdsc-blue, llnl-thunder, cea-curie) or 'all'",
    )
    w.add_argument(
        "--url",
        default=None,
        metavar="URL",
        help="download from this mirror of the file instead (https://, http://, ftp:// "
        "or file://; one name only; default: the archive's address)",
    )
    w.set_defaults(func=cmd_fetch)
    w = data.add_parser("add", help="copy a local copy of a named trace, checksum first")
    w.add_argument("name", help="the trace's name (see 'allockit data list')")
    w.add_argument("file", help="the trace's archive file (.swf.gz as distributed)")
    w.set_defaults(func=cmd_add)
