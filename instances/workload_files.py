"""Read an SWF file into a ``Workload``: the one path every command that takes a trace uses."""

from __future__ import annotations

from pathlib import Path

from allockit.checks import integer, real_number
from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload

__all__ = ["read_workload", "read_workload_report"]

#: Largest node memory in GiB: 2**60 bytes, the most an ``allockit-Platform`` header holds.
_MAX_GIB = 2.0**30


def read_workload(
    path: str | Path,
    *,
    nodes: int | None = None,
    cores: int | None = None,
    skip_bad: bool = False,
    node_memory_gib: float | None = None,
) -> Workload:
    """The workload in SWF file ``path`` (plain or gzip), by the default conversion.

    Parameters
    ----------
    path : str or Path
        SWF file; ``allockit-Platform`` / ``allockit-Job`` header lines are honoured.
    nodes, cores : int, optional
        Override the platform read from the header (or inferred from ``MaxNodes`` /
        ``MaxProcs``).
    skip_bad : bool
        Skip malformed lines instead of refusing the file.
    node_memory_gib : float, optional
        Node memory in GiB (for the bandwidth figures), overriding the platform's.

    Returns
    -------
    Workload

    Raises
    ------
    InvalidInputError
        If the file cannot be read, a line is malformed (without ``skip_bad``), no job
        has a positive run time and processor count, ``nodes``/``cores`` is not an
        integer in range (``nodes=2.5`` is refused, not truncated) or
        ``node_memory_gib`` is not a finite number in (0, 2**30].

    Examples
    --------
    >>> read_workload("/nonexistent.swf")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: ...
    """
    return read_workload_report(
        path, nodes=nodes, cores=cores, skip_bad=skip_bad, node_memory_gib=node_memory_gib
    )[0]


def read_workload_report(
    path: str | Path,
    *,
    nodes: int | None = None,
    cores: int | None = None,
    skip_bad: bool = False,
    node_memory_gib: float | None = None,
) -> tuple[Workload, dict[str, int]]:
    """``read_workload``, and what was left out on purpose, counted.

    Parameters
    ----------
    path : str or Path
        SWF file (plain or gzip).
    nodes, cores : int, optional
        Override the platform of the file's header.
    skip_bad : bool
        Skip malformed lines instead of refusing the file.
    node_memory_gib : float, optional
        Node memory in GiB, overriding the platform's.

    Returns
    -------
    tuple (Workload, dict)
        The workload, and ``{"records": job lines read, "dropped_jobs": records with no
        positive run time or processor count (not simulable), "skipped_lines":
        malformed lines skipped with skip_bad}``; ``records - dropped_jobs`` jobs are
        in the workload.

    Raises
    ------
    InvalidInputError
        If the file cannot be read, a line is malformed (without ``skip_bad``), the
        platform is out of range, no job is left, ``nodes``/``cores`` is not an integer
        in range (``nodes=2.5`` is refused, not truncated) or ``node_memory_gib`` is
        not a finite number in (0, 2**30].

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp(), "w.swf")
    >>> _ = path.write_text("; MaxNodes: 4\\n"
    ...     "1 0 0 100 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1\\n"
    ...     "2 9 0 -1 1 -1 -1 1 -1 -1 0 1 1 -1 -1 -1 -1 -1\\n"
    ...     "not a job\\n")
    >>> w, counts = read_workload_report(path, skip_bad=True)
    >>> w.n_jobs, counts
    (1, {'records': 2, 'dropped_jobs': 1, 'skipped_lines': 1})
    """
    import dataclasses

    from allockit.constants import MAX_CORES, MAX_NODES
    from allockit.instances.swf import read_swf, swf_to_workload

    for name, value, top in (("nodes", nodes, MAX_NODES), ("cores", cores, MAX_CORES)):
        if value is not None:
            integer(name, value, minimum=1, maximum=top)
    if node_memory_gib is not None:
        node_memory_gib = real_number(
            "node_memory_gib", node_memory_gib, above=0, at_most=_MAX_GIB,
            note="GiB per node; an SWF header holds at most 2**60 bytes",
        )
    trace = read_swf(path, on_error="skip" if skip_bad else "raise")
    workload = swf_to_workload(trace, nodes=nodes, cores=cores)
    counts = {
        "records": trace.n_jobs,
        "dropped_jobs": trace.n_jobs - workload.n_jobs,
        "skipped_lines": len(trace.bad_lines),
    }
    if workload.n_jobs == 0:
        raise InvalidInputError(
            f"{Path(path).name}: no job with a positive run time and processor count "
            f"({counts['records']} records, {counts['skipped_lines']} malformed lines skipped)"
        )
    if node_memory_gib is not None:
        platform = dataclasses.replace(
            workload.platform, node_memory=round(node_memory_gib * 1024**3)
        )
        workload = workload.replace(platform=platform)
    return workload, counts
