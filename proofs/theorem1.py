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
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from allockit.checks import first_bad_entry, integer, real_array, real_number
from allockit.constants import TAU
from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload

__all__ = ["CAPACITY_RTOL", "MAX_TOL", "Piece", "build_schedule", "check_schedule"]

#: Largest ``tol`` ``check_schedule`` takes (seconds on windows and overlaps, relative on
#: the work): a larger slack would pass schedules that visibly miss work or deadlines.
MAX_TOL = 1e-3

#: Relative slack on an interval's capacity ``|P| len(t)`` in ``build_schedule``: more
#: work than that in one interval is not a solution of the Theorem 1 system.
CAPACITY_RTOL = 1e-6


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


def _check_workload(workload: object) -> Workload:
    """``workload`` itself, or an error when it is not a ``Workload``."""
    if not isinstance(workload, Workload):
        raise InvalidInputError(
            f"workload must be an allockit.instances.workload.Workload; "
            f"got {type(workload).__name__}"
        )
    return workload


def _checked_solution(
    workload: Workload, ends: object, alpha: object
) -> tuple[np.ndarray, np.ndarray]:
    """``ends`` and ``alpha`` as float arrays, or an error naming the entry that is wrong."""
    ends = real_array("ends", ends)
    if ends.size == 0:
        raise InvalidInputError("ends must hold at least one interval endpoint; got none")
    increasing = np.concatenate(([True], np.diff(ends) > 0))
    first_bad_entry("ends", ends, increasing, "finite and > the previous endpoint")
    alpha = real_array("alpha", alpha, ndim=2)
    shape = (workload.n_jobs, ends.size - 1)
    if alpha.shape != shape:
        raise InvalidInputError(
            f"alpha must have shape (n_jobs, n_intervals) = {shape}; got {alpha.shape}"
        )
    first_bad_entry("alpha", alpha, (alpha >= 0) & (alpha <= 1), "a fraction in [0, 1]")
    return ends, alpha


def _check_capacity(workload: Workload, ends: np.ndarray, alpha: np.ndarray) -> None:
    """Refuse an interval holding more work than the platform can do in it."""
    demand = workload.runtime * workload.cpu * workload.tasks  # node-seconds per job
    load = (alpha * demand[:, None]).sum(axis=0)
    capacity = workload.platform.nodes * np.diff(ends)
    over = np.flatnonzero(load > capacity * (1 + CAPACITY_RTOL))
    if over.size:
        t = int(over[0])
        raise InvalidInputError(
            f"alpha[:, {t}] puts {float(load[t]):g} node-seconds of work in interval {t} "
            f"[{float(ends[t]):g}, {float(ends[t + 1]):g}), more than its "
            f"{workload.platform.nodes} nodes can do ({float(capacity[t]):g}): it does "
            "not solve the Theorem 1 system"
        )


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
        Interval endpoints in seconds, finite and strictly increasing, as returned by
        ``allockit.models.stretch_bound.stretch_lp_solution``.
    alpha : numpy.ndarray, shape (n_jobs, n_intervals)
        Fraction of each job done in each interval, in [0, 1]; no interval may hold
        more work (``sum_j alpha p_j c_j |T_j|``) than its ``|P| len(t)`` node-seconds
        (to a relative ``CAPACITY_RTOL``).

    Returns
    -------
    list of Piece
        The schedule; valid (see ``check_schedule``) when ``alpha`` solves the
        Theorem 1 system.

    Raises
    ------
    InvalidInputError
        If ``workload`` is not a ``Workload``; ``ends`` is not a non-empty
        one-dimensional array of finite, strictly increasing numbers; ``alpha`` is not
        of shape ``(n_jobs, len(ends) - 1)`` with entries in [0, 1]; or an interval
        holds more work than the platform can do in it.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0], runtime=[50], tasks=[1],
    ...                        cpu=[1.0], mem=[0.1])
    >>> build_schedule(w, np.array([0.0, 50.0]), np.array([[1.0]]))
    [Piece(job=0, task=0, node=0, start=0.0, end=50.0)]
    >>> build_schedule(w, np.array([0.0, 0.0]), np.array([[1.0]]))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: ends[1] must be finite and > the previous endpoint; got 0.0

    References
    ----------
    .. [1] H. Casanova, M. Stillwell, F. Vivien (2011), Dynamic fractional resource
       scheduling vs. batch scheduling, Theorem 1.
    """
    _check_workload(workload)
    ends, alpha = _checked_solution(workload, ends, alpha)
    _check_capacity(workload, ends, alpha)
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


def _checked_piece(workload: Workload, index: int, piece: object) -> Piece:
    """``piece`` with Python numbers, or an error naming ``pieces[index]`` and its field."""
    name = f"pieces[{index}]"
    if not isinstance(piece, Piece):
        raise InvalidInputError(f"{name} must be a Piece; got {piece!r}")
    job = integer(f"{name}.job", piece.job, minimum=0, maximum=workload.n_jobs - 1)
    tasks = int(workload.tasks[job])
    task = integer(f"{name}.task", piece.task, minimum=0, maximum=tasks - 1)
    node = integer(f"{name}.node", piece.node, minimum=0)  # beyond the platform: reported
    start = real_number(f"{name}.start", piece.start)
    end = real_number(f"{name}.end", piece.end)
    if end < start:
        raise InvalidInputError(
            f"{name}.end must be a finite number >= start ({start:g}); got {piece.end!r}"
        )
    return Piece(job, task, node, start, end)


def _checked_pieces(workload: Workload, pieces: object) -> list[Piece]:
    """Every piece checked (``_checked_piece``), as a list."""
    if not isinstance(pieces, Iterable):
        raise InvalidInputError(f"pieces must be a list of Piece; got {pieces!r}")
    return [_checked_piece(workload, i, pc) for i, pc in enumerate(pieces)]


def check_schedule(
    workload: Workload, pieces: list[Piece], stretch: float, *, tau: float = TAU, tol: float = 1e-6
) -> list[str]:
    """Every way ``pieces`` fails to be a valid schedule meeting ``stretch``; [] if none.

    Checks: each task gets exactly ``p_j c_j`` work; nothing before ``r_j`` or after the
    deadline ``r_j + stretch * max(p_j, tau)``; only the platform's nodes are used; a node
    runs one piece at a time; a task never runs on two nodes at once. A malformed
    argument is refused (never passed): see Raises.

    Parameters
    ----------
    workload : Workload
        Jobs (submit time ``r_j`` and run time ``p_j`` in seconds, ``|T_j|`` tasks of
        CPU need ``c_j``, a fraction of a node) and the number of nodes.
    pieces : list of Piece
        The schedule to check: per piece, a job index in ``[0, n_jobs)``, a task index
        in ``[0, |T_j|)``, a node index >= 0 (one beyond the platform is reported as a
        violation) and finite times with ``end >= start``.
    stretch : float
        The maximum bounded stretch it must meet: a finite number >= 1 (a bounded
        stretch ``max(C_j - r_j, tau) / max(p_j, tau)`` is never below 1).
    tau : float, default ``allockit.constants.TAU`` (10 s)
        Bounded-stretch threshold in seconds, a finite number >= 0.
    tol : float, default 1e-6
        Tolerance in seconds on windows and overlaps (relative on the work done), in
        ``[0, MAX_TOL]`` (1e-3).

    Returns
    -------
    list of str
        One sentence per violation; empty for a valid schedule.

    Raises
    ------
    InvalidInputError
        If ``workload`` is not a ``Workload``, ``stretch``, ``tau`` or ``tol`` is out of
        its range, or a piece is malformed (not a ``Piece``, a job or task index out of
        range, a node index that is not an integer >= 0, a time that is not finite, or
        ``end < start``); the message names the piece and its field.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0], runtime=[50], tasks=[1],
    ...                        cpu=[1.0], mem=[0.1])
    >>> check_schedule(w, [Piece(0, 0, 0, 0.0, 50.0)], stretch=1.0)
    []
    >>> check_schedule(w, [Piece(0, 0, 1, 10.0, 60.0)], stretch=1.0)
    ['job 0 runs outside its window', 'node 1 does not exist']
    >>> check_schedule(w, [Piece(0, 0, 0, 70.0, 60.0)], stretch=2.0)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: pieces[0].end must be a finite number >= start (70); got 60.0
    """
    _check_workload(workload)
    real_number("stretch", stretch, at_least=1, note="a bounded stretch is never below 1")
    real_number("tau", tau, at_least=0, note="seconds")
    real_number("tol", tol, at_least=0, at_most=MAX_TOL)
    pieces = _checked_pieces(workload, pieces)
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
