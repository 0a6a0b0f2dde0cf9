"""Theorem 1 of the DFRS paper made executable: from an LP solution, an explicit schedule.

Casanova, Stillwell, Vivien (2011), Theorem 1: the stretch-feasibility system has a
solution iff a valid schedule with maximum stretch ``S`` exists (free migration, memory
ignored). The proof's construction, per interval ``t``: every task of job ``j`` needs
``alpha[j, t] p_j c_j`` units of work; lay the tasks out greedily on the nodes, filling a
node's time line ``[0, len(t))`` and wrapping to the next node (McNaughton). Because
``alpha p_j <= len(t)``, a wrapped task never runs on two nodes at once; because the
total is at most ``|P| len(t)``, the nodes suffice.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from allockit.constants import TAU
from allockit.instances.workload import Workload

__all__ = ["Piece", "build_schedule", "check_schedule"]


@dataclass(frozen=True, slots=True)
class Piece:
    """Task ``task`` of job ``job`` runs at full speed on ``node`` during [start, end).

    "Full speed" is the task's CPU need ``c_j``: a piece of length ``L`` does ``L``
    units of the task's work ``p_j c_j`` (times in seconds).

    Attributes
    ----------
    job, task, node : int
        Job index, task index within the job, node index.
    start, end : float
        Seconds.

    Examples
    --------
    >>> Piece(job=0, task=1, node=2, start=0.0, end=5.0)
    Piece(job=0, task=1, node=2, start=0.0, end=5.0)
    """

    job: int
    task: int
    node: int
    start: float
    end: float


def build_schedule(workload: Workload, ends: np.ndarray, alpha: np.ndarray) -> list[Piece]:
    """The proof's schedule for an LP solution (``ends`` of the intervals, ``alpha``).

    In each interval the tasks' work is laid out node after node, wrapping to the next
    node when one's time line is full (McNaughton's wrap-around rule; see the module
    docstring).

    Parameters
    ----------
    workload : Workload
        Jobs (submit time ``r_j`` and run time ``p_j`` in seconds, ``|T_j|`` tasks of
        CPU need ``c_j``, a fraction of a node) and the number of nodes.
    ends : numpy.ndarray, shape (n_intervals + 1,)
        Sorted interval endpoints in seconds, as returned by
        ``allockit.models.stretch_bound.stretch_lp_solution``.
    alpha : numpy.ndarray, shape (n_jobs, n_intervals)
        Fraction of each job done in each interval.

    Returns
    -------
    list of Piece
        The schedule; valid (see ``check_schedule``) when ``alpha`` solves the
        Theorem 1 system.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0], runtime=[50], tasks=[1],
    ...                        cpu=[1.0], mem=[0.1])
    >>> build_schedule(w, np.array([0.0, 50.0]), np.array([[1.0]]))
    [Piece(job=0, task=0, node=0, start=0.0, end=50.0)]

    References
    ----------
    .. [1] H. Casanova, M. Stillwell, F. Vivien (2011), Dynamic fractional resource
       scheduling vs. batch scheduling, Theorem 1.
    """
    pieces: list[Piece] = []
    work = workload.runtime * workload.cpu  # per task, over the whole job
    for t in range(ends.size - 1):
        begin, length = float(ends[t]), float(ends[t + 1] - ends[t])
        node, cursor = 0, 0.0
        for j in np.flatnonzero(alpha[:, t] > 0):
            amount = float(alpha[j, t] * work[j])
            for task in range(int(workload.tasks[j])):
                left = amount
                while left > 1e-12:
                    if length - cursor <= 1e-12:
                        node, cursor = node + 1, 0.0
                    run = min(left, length - cursor)
                    pieces.append(Piece(int(j), task, node, begin + cursor, begin + cursor + run))
                    cursor += run
                    left -= run
    return pieces


def check_schedule(
    workload: Workload, pieces: list[Piece], stretch: float, *, tau: float = TAU, tol: float = 1e-6
) -> list[str]:
    """Every way ``pieces`` fails to be a valid schedule meeting ``stretch``; [] if none.

    Checks: each task gets exactly ``p_j c_j`` work; nothing before ``r_j`` or after the
    deadline ``r_j + stretch * max(p_j, tau)``; only the platform's nodes are used; a node
    runs one piece at a time; a task never runs on two nodes at once.

    Parameters
    ----------
    workload : Workload
        Jobs (submit time ``r_j`` and run time ``p_j`` in seconds, ``|T_j|`` tasks of
        CPU need ``c_j``, a fraction of a node) and the number of nodes.
    pieces : list of Piece
        The schedule to check.
    stretch : float
        The maximum bounded stretch it must meet.
    tau : float, default ``allockit.constants.TAU`` (10 s)
        Bounded-stretch threshold in seconds.
    tol : float, default 1e-6
        Tolerance in seconds on windows and overlaps (relative on the work done).

    Returns
    -------
    list of str
        One sentence per violation; empty for a valid schedule.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0], runtime=[50], tasks=[1],
    ...                        cpu=[1.0], mem=[0.1])
    >>> check_schedule(w, [Piece(0, 0, 0, 0.0, 50.0)], stretch=1.0)
    []
    >>> check_schedule(w, [Piece(0, 0, 1, 10.0, 60.0)], stretch=1.0)
    ['job 0 runs outside its window', 'node 1 does not exist']
    """
    problems: list[str] = []
    need = workload.runtime * workload.cpu
    got: dict[tuple[int, int], float] = {}
    for pc in pieces:
        got[(pc.job, pc.task)] = got.get((pc.job, pc.task), 0.0) + pc.end - pc.start
        deadline = workload.submit[pc.job] + stretch * max(workload.runtime[pc.job], tau)
        if pc.start < workload.submit[pc.job] - tol or pc.end > deadline + tol:
            problems.append(f"job {pc.job} runs outside its window")
        if not 0 <= pc.node < workload.platform.nodes:
            problems.append(f"node {pc.node} does not exist")
    for j in range(workload.n_jobs):
        for task in range(int(workload.tasks[j])):
            if abs(got.get((j, task), 0.0) - need[j]) > tol * max(1.0, need[j]):
                problems.append(
                    f"task {task} of job {j} gets {got.get((j, task), 0.0)} instead of {need[j]}"
                )

    def overlaps(items: list[Piece]) -> bool:
        items = sorted(items, key=lambda x: x.start)
        return any(b.start < a.end - tol for a, b in itertools.pairwise(items))

    by_node: dict[int, list[Piece]] = {}
    by_task: dict[tuple[int, int], list[Piece]] = {}
    for pc in pieces:
        by_node.setdefault(pc.node, []).append(pc)
        by_task.setdefault((pc.job, pc.task), []).append(pc)
    problems += [f"node {n} runs two pieces at once" for n, v in by_node.items() if overlaps(v)]
    problems += [f"task {k} runs on two nodes at once" for k, v in by_task.items() if overlaps(v)]
    return problems
