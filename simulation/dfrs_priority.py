"""DFRS job priorities: flow time over virtual time squared, and orders by priority.

A job's priority is ``flow time / virtual time²`` (infinite at zero virtual time), ties
by submission order (Casanova et al. 2011, Sec. 4.3). The functions here read the
state's virtual times and submission times and never change the state: the policies
(``dfrs_policies``) use them to order jobs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from allockit.errors import InvalidInputError

if TYPE_CHECKING:
    from allockit.simulation.dfrs_state import DfrsState

__all__ = ["by_priority", "first_by_priority", "priority_key", "priority_keys"]

_FLOAT_MAX = float(np.finfo(float).max)


def priority_key(state: DfrsState, j: int, now: float) -> tuple[int, float, int]:
    """Job ``j``'s sort key at ``now`` (lower sorts first = higher priority).

    Zero virtual time first, then ``-flow/vt²``, then the job index.

    Parameters
    ----------
    state : DfrsState
        The simulation state (its virtual and submission times are read).
    j : int
        The job's index.
    now : float
        The current time (s).

    Returns
    -------
    tuple of (int, float, int)
        The key.

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> from allockit.simulation.dfrs_state import DfrsState
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[10, 10],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.1, 0.1])
    >>> s = DfrsState(w, penalty=0.0)
    >>> s.vt[1] = 2.0
    >>> priority_key(s, 0, 8.0)
    (0, 0.0, 0)
    >>> [float(x) for x in priority_key(s, 1, 8.0)]
    [1.0, -2.0, 1.0]
    """
    vt = float(state.vt[j])
    if vt <= 0.0:
        return (0, 0.0, j)
    # Python floats: the same IEEE operations as numpy's, and an overflow is -inf
    # without numpy's warning (vt below ~1e-154); a square that underflows to 0 gives
    # what IEEE division gives
    flow = float(now - state.submit_time[j])
    square = vt * vt
    if square == 0.0:
        return (1, -math.inf if flow > 0 else (math.inf if flow < 0 else math.nan), j)
    return (1, -flow / square, j)


def priority_keys(state: DfrsState, jobs: np.ndarray, now: float) -> np.ndarray:
    """Sort keys of ``jobs`` (lower first = higher priority), as ``by_priority``'s.

    Zero virtual time gives ``-inf``; otherwise ``-flow/vt²``, kept finite so that
    it never ties with them. Ties go by job index: sort ``jobs`` first and use a
    stable order on the keys.

    Parameters
    ----------
    state : DfrsState
        The simulation state (its virtual and submission times are read).
    jobs : numpy.ndarray
        Job indices.
    now : float
        The current time (s).

    Returns
    -------
    numpy.ndarray
        One float key per job.

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> from allockit.simulation.dfrs_state import DfrsState
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[10, 10],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.1, 0.1])
    >>> s = DfrsState(w, penalty=0.0)
    >>> s.vt[1] = 2.0
    >>> priority_keys(s, np.array([0, 1]), 8.0).tolist()
    [-inf, -2.0]
    """
    vt = state.vt[jobs]
    positive = vt > 0.0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # (tiny vt: -inf)
        key = -(now - state.submit_time[jobs]) / (vt * vt)
    return np.where(positive, np.maximum(key, -_FLOAT_MAX), -np.inf)


def by_priority(state: DfrsState, jobs: Iterable[int], now: float) -> list[int]:
    """``jobs`` sorted by decreasing priority (the order of ``priority_key``).

    Vectorised: the same keys computed with numpy, in the same floating-point
    operations, ordered by one stable sort of the index-sorted jobs (zero virtual
    time first, then flow/vt² decreasing, ties by index).

    Parameters
    ----------
    state : DfrsState
        The simulation state (its virtual and submission times are read).
    jobs : iterable of int
        Job indices (any order).
    now : float
        The current time (s).

    Returns
    -------
    list of int
        The jobs, highest priority first.

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> from allockit.simulation.dfrs_state import DfrsState
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0, 0], runtime=[10, 10, 10],
    ...                        tasks=[1, 1, 1], cpu=[1.0, 1.0, 1.0], mem=[0.1, 0.1, 0.1])
    >>> s = DfrsState(w, penalty=0.0)
    >>> s.vt[:] = [4.0, 2.0, 0.0]
    >>> by_priority(s, {0, 1, 2}, 8.0)
    [2, 1, 0]
    """
    arr = np.sort(np.fromiter(jobs, dtype=np.int64))  # ties go by index: sort first
    if arr.size < 2:
        return arr.tolist()
    return arr[np.argsort(priority_keys(state, arr, now), kind="stable")].tolist()


def first_by_priority(
    jobs: np.ndarray, keys: np.ndarray, count: int
) -> tuple[np.ndarray, np.ndarray | None]:
    """The first ``count`` of index-sorted ``jobs`` in priority order.

    Exactly the start of the full order (``by_priority``) without sorting the rest:
    the jobs with a key below the ``count``-th smallest, then those tying with it by
    position (a stable sort's order) until ``count`` are taken. (Keys that are all NaN
    from that rank on take none.)

    Parameters
    ----------
    jobs : numpy.ndarray
        Job indices, sorted.
    keys : numpy.ndarray
        Their keys (``priority_keys``).
    count : int
        How many to take (>= 1).

    Returns
    -------
    first : numpy.ndarray
        The taken jobs, highest priority first.
    rest : numpy.ndarray or None
        Mask over ``jobs`` of those not taken; None when all were taken.

    Raises
    ------
    InvalidInputError
        If ``count`` is not an integer >= 1.

    Examples
    --------
    >>> jobs, keys = np.array([3, 5, 7, 9]), np.array([0.5, -1.0, 0.5, 2.0])
    >>> first, rest = first_by_priority(jobs, keys, 2)
    >>> first.tolist(), jobs[rest].tolist()
    ([5, 3], [7, 9])
    """
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 1:
        raise InvalidInputError(f"count must be an integer >= 1; got {count!r}")
    if count >= jobs.size:
        return jobs[np.argsort(keys, kind="stable")], None
    kth = np.partition(keys, count - 1)[count - 1]
    taken = keys < kth
    ties = np.flatnonzero(keys == kth)[: count - np.count_nonzero(taken)]
    taken[ties] = True
    where = np.flatnonzero(taken)
    first = jobs[where[np.argsort(keys[where], kind="stable")]]
    return first, (None if where.size == jobs.size else ~taken)
