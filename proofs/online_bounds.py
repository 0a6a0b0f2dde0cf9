"""The DFRS paper's online lower bounds made executable (Theorems 3 and 4).

Both concern one single-core node (or perfectly parallel jobs). ``equipartition`` runs
the EquiPartition algorithm (every unfinished released job gets an equal share) exactly,
event by event.
"""

from __future__ import annotations

import numpy as np

__all__ = ["equipartition", "max_stretch", "theorem3_instance", "theorem4_instance"]


def equipartition(release: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Completion times under EquiPartition (processor sharing) on one node.

    Simulated exactly from event to event (a release or a completion): between events
    each of the ``k`` released, unfinished jobs progresses at rate ``1/k``.

    Parameters
    ----------
    release : numpy.ndarray, shape (n_jobs,)
        Release times (seconds, or any time unit).
    size : numpy.ndarray, shape (n_jobs,)
        Processing times alone on the node (same unit), > 0.

    Returns
    -------
    numpy.ndarray, shape (n_jobs,)
        Completion time of each job.

    Examples
    --------
    >>> equipartition(np.array([0.0, 0.0]), np.array([1.0, 3.0])).tolist()
    [2.0, 4.0]
    """
    release = np.asarray(release, dtype=float)
    left = np.asarray(size, dtype=float).copy()
    done = np.full(left.size, np.nan)
    now = float(release.min())
    while np.isnan(done).any():
        active = np.flatnonzero((release <= now + 1e-12) & np.isnan(done))
        future = release[(release > now + 1e-12) & np.isnan(done)]
        if active.size == 0:
            now = float(future.min())
            continue
        share = 1.0 / active.size
        finish = now + left[active].min() / share
        nxt = min(finish, float(future.min())) if future.size else finish
        left[active] -= (nxt - now) * share
        now = nxt
        for j in active[left[active] <= 1e-9 * np.maximum(1.0, size[active])]:
            done[j] = now
            left[j] = 0.0
    return done


def max_stretch(release: np.ndarray, size: np.ndarray, completion: np.ndarray) -> float:
    """Largest (completion - release) / size.

    The (unbounded) maximum stretch of a schedule on one node.

    Parameters
    ----------
    release, size, completion : numpy.ndarray, shape (n_jobs,)
        Release times, processing times (> 0) and completion times, in one time unit.

    Returns
    -------
    float
        The maximum stretch (>= 1 for a valid schedule).

    Examples
    --------
    >>> release, size = np.array([0.0, 0.0]), np.array([1.0, 3.0])
    >>> max_stretch(release, size, equipartition(release, size))
    2.0
    """
    return float(np.max((completion - release) / size))


def theorem3_instance(n: int, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 3's adversary against EquiPartition: ``n`` jobs at time 0 of sizes lam**i.

    Under EquiPartition the unit job finishes at time ``n`` (stretch ``n``) while
    shortest-first keeps every stretch below ``1 + 1/(lam - 1)``, so the ratio tends to
    ``n`` as ``lam`` grows: no online non-clairvoyant algorithm is better than ``|J|``.

    Parameters
    ----------
    n : int
        Number of jobs, >= 1.
    lam : float
        Ratio of consecutive sizes, > 1.

    Returns
    -------
    release, size : numpy.ndarray, shape (n,)
        Release times (all 0) and sizes ``lam**0 ... lam**(n - 1)``.

    Examples
    --------
    >>> release, size = theorem3_instance(3, 10.0)
    >>> size.tolist(), max_stretch(release, size, equipartition(release, size))
    ([1.0, 10.0, 100.0], 3.0)
    >>> round(max_stretch(release, size, np.cumsum(size)), 6)   # shortest first
    1.11

    References
    ----------
    .. [1] H. Casanova, M. Stillwell, F. Vivien (2011), Dynamic fractional resource
       scheduling vs. batch scheduling, Theorem 3.
    """
    return np.zeros(n), lam ** np.arange(n, dtype=float)


def theorem4_instance(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 4's instance: EquiPartition has stretch ``n`` while the optimum is small.

    Jobs 1 and 2 are released at 0 with size ``n - 1``; job ``i >= 3`` is released when
    job ``i - 1`` would end if run alone, with size ``(n - 1) / (i - 1)``. Under
    EquiPartition every job completes at ``r_n + n``.

    Parameters
    ----------
    n : int
        Number of jobs, >= 2.

    Returns
    -------
    release, size : numpy.ndarray, shape (n,)
        Release times and sizes.

    Examples
    --------
    >>> release, size = theorem4_instance(4)
    >>> release.tolist(), size.tolist()
    ([0.0, 0.0, 3.0, 4.5], [3.0, 3.0, 1.5, 1.0])
    >>> done = equipartition(release, size)
    >>> done.tolist(), max_stretch(release, size, done)
    ([8.5, 8.5, 8.5, 8.5], 4.0)

    References
    ----------
    .. [1] H. Casanova, M. Stillwell, F. Vivien (2011), Dynamic fractional resource
       scheduling vs. batch scheduling, Theorem 4.
    """
    size = np.array([n - 1.0, n - 1.0] + [(n - 1.0) / (i - 1) for i in range(3, n + 1)])
    release = np.zeros(n)
    for i in range(2, n):
        release[i] = release[i - 1] + size[i - 1]
    return release, size
