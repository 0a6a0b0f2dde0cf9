"""The DFRS paper's online lower bounds made executable (Theorems 3 and 4).

Both concern one single-core node (or perfectly parallel jobs). ``equipartition`` runs
the EquiPartition algorithm (every unfinished released job gets an equal share) exactly,
event by event.
"""

from __future__ import annotations

from typing import NoReturn

import numpy as np

from allockit.checks import first_bad_entry, integer, real_array, real_number
from allockit.errors import InvalidInputError

__all__ = ["MAX_JOBS", "equipartition", "max_stretch", "theorem3_instance", "theorem4_instance"]

#: Most jobs ``theorem3_instance`` and ``theorem4_instance`` build (the instances are
#: lists of that length; EquiPartition on them takes time quadratic in it).
MAX_JOBS = 10**6


def _checked_jobs(release: object, size: object) -> tuple[np.ndarray, np.ndarray]:
    """Release times (finite) and sizes (finite, > 0) of at least one job, one per job."""
    release = real_array("release", release)
    size = real_array("size", size)
    if release.size == 0:
        raise InvalidInputError("release must hold at least one job; got none")
    if size.shape != release.shape:
        raise InvalidInputError(
            f"size must have one entry per job ({release.size}); got shape {size.shape}"
        )
    first_bad_entry("release", release, np.isfinite(release), "a finite number")
    first_bad_entry("size", size, size > 0, "a finite number > 0")
    return release, size


def _check_horizon(release: np.ndarray, size: np.ndarray) -> None:
    """Refuse times whose completions (at most max|release| + sum(size)) overflow a float."""
    with np.errstate(over="ignore"):
        horizon = float(np.abs(release).max()) + float(size.sum())
    if not np.isfinite(horizon):
        raise InvalidInputError(
            "release and size are too large: completions (up to max|release| + sum(size)) "
            "would overflow a float"
        )


def _stalled(now: float, active: np.ndarray, left: np.ndarray, size: np.ndarray) -> NoReturn:
    """Raise: the next completion is below the float resolution of the clock at ``now``."""
    j = int(active[np.argmin(left[active])])
    raise InvalidInputError(
        f"release and size: at time {now:g}, job {j} (size[{j}] = {float(size[j]):g}) has "
        f"{float(left[j]):g} left on a 1/{active.size} share, below the float resolution "
        "of the clock there; use release times nearer 0 or larger sizes"
    )


def equipartition(release: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Completion times under EquiPartition (processor sharing) on one node.

    Simulated exactly from event to event (a release or a completion): between events
    each of the ``k`` released, unfinished jobs progresses at rate ``1/k``.

    Parameters
    ----------
    release : numpy.ndarray, shape (n_jobs,)
        Release times (seconds, or any time unit), finite; at least one job.
    size : numpy.ndarray, shape (n_jobs,)
        Processing times alone on the node (same unit), finite and > 0.

    Returns
    -------
    numpy.ndarray, shape (n_jobs,)
        Completion time of each job.

    Raises
    ------
    InvalidInputError
        If ``release`` and ``size`` are not one-dimensional arrays of the same
        non-zero length with finite entries (sizes > 0); if the completions could
        overflow a float; or if a job's remaining work is below the float resolution
        of the clock when it runs (e.g. a size of 1 released at ``1e17``), where the
        simulation cannot advance.

    Examples
    --------
    >>> equipartition(np.array([0.0, 0.0]), np.array([1.0, 3.0])).tolist()
    [2.0, 4.0]
    >>> equipartition(np.array([0.0]), np.array([-1.0]))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: size[0] must be a finite number > 0; got -1.0
    """
    release, size = _checked_jobs(release, size)
    _check_horizon(release, size)
    left = size.copy()
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
        stalled = nxt == now  # (only a completion can be at `now`: releases are later)
        left[active] -= (nxt - now) * share
        now = nxt
        finished = active[left[active] <= 1e-9 * np.maximum(1.0, size[active])]
        if stalled and finished.size == 0:
            _stalled(now, active, left, size)
        for j in finished:
            done[j] = now
            left[j] = 0.0
    return done


def max_stretch(release: np.ndarray, size: np.ndarray, completion: np.ndarray) -> float:
    """Largest (completion - release) / size.

    The (unbounded) maximum stretch of a schedule on one node.

    Parameters
    ----------
    release, size, completion : numpy.ndarray, shape (n_jobs,)
        Release times, processing times (> 0) and completion times (each at or after
        its job's release), finite, in one time unit; at least one job.

    Returns
    -------
    float
        The maximum stretch (>= 1 for a valid schedule).

    Raises
    ------
    InvalidInputError
        If the three are not one-dimensional arrays of the same non-zero length with
        finite entries, a size is not > 0, or a job completes before its release.

    Examples
    --------
    >>> release, size = np.array([0.0, 0.0]), np.array([1.0, 3.0])
    >>> max_stretch(release, size, equipartition(release, size))
    2.0
    >>> max_stretch(release, size, np.array([10.0]))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: completion must have one entry per job (2); got shape (1,)
    """
    release, size = _checked_jobs(release, size)
    completion = real_array("completion", completion)
    if completion.shape != release.shape:
        raise InvalidInputError(
            f"completion must have one entry per job ({release.size}); "
            f"got shape {completion.shape}"
        )
    first_bad_entry("completion", completion, np.isfinite(completion), "a finite number")
    early = np.flatnonzero(completion < release)
    if early.size:
        j = int(early[0])
        raise InvalidInputError(
            f"completion[{j}] must be >= release[{j}] ({float(release[j]):g}); "
            f"got {float(completion[j])!r}"
        )
    return float(np.max((completion - release) / size))


def theorem3_instance(n: int, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 3's adversary against EquiPartition: ``n`` jobs at time 0 of sizes lam**i.

    Under EquiPartition the unit job finishes at time ``n`` (stretch ``n``) while
    shortest-first keeps every stretch below ``1 + 1/(lam - 1)``, so the ratio tends to
    ``n`` as ``lam`` grows: no online non-clairvoyant algorithm is better than ``|J|``.

    Parameters
    ----------
    n : int
        Number of jobs, an integer in ``[1, MAX_JOBS]``.
    lam : float
        Ratio of consecutive sizes, a finite number > 1 (the theorem's range), small
        enough that the sizes and their sum fit a float.

    Returns
    -------
    release, size : numpy.ndarray, shape (n,)
        Release times (all 0) and sizes ``lam**0 ... lam**(n - 1)``.

    Raises
    ------
    InvalidInputError
        If ``n`` or ``lam`` is out of its range, or ``lam**(n - 1)`` (or the sizes'
        sum) overflows a float.

    Examples
    --------
    >>> release, size = theorem3_instance(3, 10.0)
    >>> size.tolist(), max_stretch(release, size, equipartition(release, size))
    ([1.0, 10.0, 100.0], 3.0)
    >>> round(max_stretch(release, size, np.cumsum(size)), 6)   # shortest first
    1.11
    >>> theorem3_instance(3, 1.0)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: lam must be a finite number > 1; got 1.0

    References
    ----------
    .. [1] H. Casanova, M. Stillwell, F. Vivien (2011), Dynamic fractional resource
       scheduling vs. batch scheduling, Theorem 3.
    """
    n = integer("n", n, minimum=1, maximum=MAX_JOBS)
    lam = real_number("lam", lam, above=1)
    with np.errstate(over="ignore"):
        size = lam ** np.arange(n, dtype=float)
        total = float(size.sum())
    if not np.isfinite(total):
        raise InvalidInputError(
            f"lam**(n - 1) = {lam:g}**{n - 1} is too large: the sizes must sum to a finite "
            "float"
        )
    return np.zeros(n), size


def theorem4_instance(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 4's instance: EquiPartition has stretch ``n`` while the optimum is small.

    Jobs 1 and 2 are released at 0 with size ``n - 1``; job ``i >= 3`` is released when
    job ``i - 1`` would end if run alone, with size ``(n - 1) / (i - 1)``. Under
    EquiPartition every job completes at ``r_n + n``.

    Parameters
    ----------
    n : int
        Number of jobs, an integer in ``[2, MAX_JOBS]``.

    Returns
    -------
    release, size : numpy.ndarray, shape (n,)
        Release times and sizes.

    Raises
    ------
    InvalidInputError
        If ``n`` is not an integer in ``[2, MAX_JOBS]``.

    Examples
    --------
    >>> release, size = theorem4_instance(4)
    >>> release.tolist(), size.tolist()
    ([0.0, 0.0, 3.0, 4.5], [3.0, 3.0, 1.5, 1.0])
    >>> done = equipartition(release, size)
    >>> done.tolist(), max_stretch(release, size, done)
    ([8.5, 8.5, 8.5, 8.5], 4.0)
    >>> theorem4_instance(1)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: n must be an integer in [2, 1000000]; got 1

    References
    ----------
    .. [1] H. Casanova, M. Stillwell, F. Vivien (2011), Dynamic fractional resource
       scheduling vs. batch scheduling, Theorem 4.
    """
    n = integer("n", n, minimum=2, maximum=MAX_JOBS)
    size = np.array([n - 1.0, n - 1.0] + [(n - 1.0) / (i - 1) for i in range(3, n + 1)])
    release = np.zeros(n)
    for i in range(2, n):
        release[i] = release[i - 1] + size[i - 1]
    return release, size
