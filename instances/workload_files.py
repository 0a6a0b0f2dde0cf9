"""Read an SWF file into a ``Workload``: the one path every command that takes a trace uses."""

from __future__ import annotations

from pathlib import Path

from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload

__all__ = ["read_workload"]


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
        If the file cannot be read, a line is malformed (without ``skip_bad``) or no
        job has a positive run time and processor count.

    Examples
    --------
    >>> read_workload("/nonexistent.swf")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: ...
    """
    import dataclasses

    from allockit.instances.swf import read_swf, swf_to_workload

    trace = read_swf(path, on_error="skip" if skip_bad else "raise")
    workload = swf_to_workload(trace, nodes=nodes, cores=cores)
    if workload.n_jobs == 0:
        raise InvalidInputError(f"{path}: no job with a positive run time and processor count")
    if node_memory_gib is not None:
        platform = dataclasses.replace(
            workload.platform, node_memory=round(node_memory_gib * 1024**3)
        )
        workload = workload.replace(platform=platform)
    return workload
