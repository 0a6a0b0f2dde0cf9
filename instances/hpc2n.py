"""The HPC2N trace as the DFRS paper used it (Casanova, Stillwell, Vivien 2011, Sec. 5.3.1)."""

from __future__ import annotations

import numpy as np

from allockit.errors import InvalidInputError
from allockit.instances.swf import SWFTrace, jobs_to_workload
from allockit.instances.workload import Platform, Workload

__all__ = ["WEEK", "hpc2n_workload", "join_weeks", "split_weeks"]

WEEK = 7 * 24 * 3600
_NODE_MEMORY = 2 * 1024**3


def hpc2n_workload(trace: SWFTrace, *, nodes: int = 120) -> Workload:
    """Convert the HPC2N SWF trace: 120 dual-core nodes with 2 GB of memory.

    Memory per processor = max(requested (field 10), used (field 7)) in KB as a fraction
    of 2 GB, at least 10 % (also for jobs that give neither). A job with an even number
    of processors and less than 50 % memory per processor runs ``procs / 2``
    multi-threaded tasks with CPU need 1 (both cores) and twice the memory; any other job
    runs ``procs`` tasks of CPU need 0.5 (one core). Memory is capped at one node. Jobs
    without a positive run time or processor count are dropped.

    Parameters
    ----------
    trace : SWFTrace
        The HPC2N trace as read by ``allockit.instances.swf.read_swf``. The allocated
        processors (field 5) are used, or the requested ones (field 8) when missing.
    nodes : int, default 120
        Number of nodes of the platform (the HPC2N cluster had 120).

    Returns
    -------
    Workload
        Submit and run times in seconds, tasks, CPU need per task (0.5 or 1 of a
        node) and memory per task (fraction of a node's 2 GB), on ``nodes`` dual-core
        nodes.

    Examples
    --------
    >>> from allockit.instances.swf import read_swf
    >>> t = read_swf(["1 0 0 60 4 -1 204800 4 100 -1 1 1 -1 -1 1 -1 -1 -1",
    ...               "2 9 0 60 3 -1 -1 3 100 -1 1 1 -1 -1 1 -1 -1 -1"])
    >>> w = hpc2n_workload(t)
    >>> w.tasks.tolist(), w.cpu.tolist(), [round(m, 4) for m in w.mem.tolist()]
    ([2, 3], [1.0, 0.5], [0.2, 0.1])

    References
    ----------
    .. [1] H. Casanova, M. Stillwell, F. Vivien (2011), Dynamic fractional resource
       scheduling vs. batch scheduling, Sec. 5.3.1.
    """
    run = trace.column("run")
    procs = trace.column("procs")
    procs = np.where(procs > 0, procs, trace.column("procs_req")).astype(np.int64)
    keep = (run > 0) & (procs > 0)
    kb = np.maximum(trace.column("mem_req"), trace.column("mem_used"))
    per_proc = np.where(kb > 0, kb * 1024.0 / _NODE_MEMORY, 0.0)
    per_proc = np.maximum(per_proc, 0.10)
    threaded = (procs % 2 == 0) & (per_proc < 0.5)
    tasks = np.where(threaded, procs // 2, procs)
    cpu = np.where(threaded, 1.0, 0.5)
    mem = np.minimum(1.0, np.where(threaded, 2 * per_proc, per_proc))
    platform = Platform(nodes=nodes, cores=2, node_memory=_NODE_MEMORY)
    return jobs_to_workload(trace, keep, platform, tasks=tasks, cpu=cpu, mem=mem)


def split_weeks(workload: Workload, *, length: float = WEEK) -> list[Workload]:
    """Cut a workload into consecutive segments of ``length`` seconds of submissions.

    Segment ``k`` holds the jobs submitted in ``[t0 + k*length, t0 + (k+1)*length)``
    (``t0`` the first submission), with times shifted so the segment starts at 0. Empty
    segments are dropped.

    Because empty segments are dropped, an index into the returned list is the
    segment number only if no earlier segment was empty. The DFRS experiments use
    one-week segments of the HPC2N trace (``length=WEEK``).

    Parameters
    ----------
    workload : Workload
        Jobs sorted by submit time (seconds), as workloads are.
    length : float, default WEEK (604,800 s)
        Length of a segment in seconds, > 0.

    Returns
    -------
    list of Workload
        The non-empty segments, in time order; empty for an empty workload.

    Raises
    ------
    InvalidInputError
        If ``length`` is not > 0.

    Examples
    --------
    >>> w = Workload.from_jobs(Platform(nodes=2), submit=[0, 10, 25], runtime=[1, 1, 1],
    ...                        tasks=[1, 1, 1], cpu=[1, 1, 1], mem=[0.1, 0.1, 0.1])
    >>> [s.submit.tolist() for s in split_weeks(w, length=20)]
    [[0.0, 10.0], [5.0]]
    """
    if not length > 0:
        raise InvalidInputError(f"length must be > 0; got {length!r}")
    if workload.n_jobs == 0:
        return []
    t0 = workload.submit[0]
    index = np.floor((workload.submit - t0) / length).astype(np.int64)
    segments = []
    for k in np.unique(index):
        part = workload.select(index == k)
        segments.append(part.replace(submit=part.submit - (t0 + k * length)))
    return segments


def join_weeks(weeks: list[Workload], first: int, last: int) -> Workload:
    """Weeks ``first`` .. ``last`` (indices into ``weeks``) back in one workload.

    Week ``k``'s submit times are shifted by ``(k - first) * WEEK``, so the weeks follow
    one another as consecutive weeks (the empty weeks ``split_weeks`` dropped do not
    reappear); job ids and every per-job field are kept.

    Parameters
    ----------
    weeks : list of Workload
        The weeks, as ``split_weeks`` returns them.
    first, last : int
        The first and last week to keep, ``0 <= first <= last < len(weeks)``.

    Returns
    -------
    Workload

    Raises
    ------
    InvalidInputError
        If the range is empty or outside the weeks.

    Examples
    --------
    >>> w = Workload.from_jobs(Platform(nodes=2), submit=[0, 10, WEEK + 5], runtime=[1, 1, 1],
    ...                        tasks=[1, 1, 1], cpu=[1, 1, 1], mem=[0.1, 0.1, 0.1])
    >>> join_weeks(split_weeks(w), 0, 1).submit.tolist() == [0.0, 10.0, WEEK + 5.0]
    True
    """
    if not 0 <= first <= last < len(weeks):
        raise InvalidInputError(
            f"weeks must be a range A-B with 0 <= A <= B < {len(weeks)}; got {first}-{last}"
        )
    parts = [w.to_dict() for w in weeks[first : last + 1]]
    for k, part in enumerate(parts):
        part["submit"] = [t + k * WEEK for t in part["submit"]]
    joined = dict(parts[0])
    for key, value in joined.items():
        if isinstance(value, list):
            joined[key] = [v for part in parts for v in part[key]]
    return Workload.from_dict(joined)
