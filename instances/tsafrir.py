"""User runtime estimates (requested times) from Tsafrir's 2005 model.

Steps follow the reference program ``est_model.cc`` (restated in the documentation's
workload-model page):
a histogram of popular "round" estimates (20 head bins holding 89 % of the jobs, a tail
of rarer ones), then each job draws, uniformly, one of the remaining estimates that is at
least its runtime. One simplification, documented: the histogram's counts are made to add
up to the number of jobs by largest remainders, not by the reference's four passes.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from allockit.checks import first_bad_entry, integer, real_array
from allockit.rng import as_generator

__all__ = ["estimate_histogram", "tsafrir_estimates"]

_MIN = 60
_HOUR = 3600
EST_JOINT = [
    5 * _MIN,
    15 * _MIN,
    10 * _MIN,
    20 * _MIN,
    30 * _MIN,
    _HOUR,
    2 * _HOUR,
    3 * _HOUR,
    4 * _HOUR,
    5 * _HOUR,
    6 * _HOUR,
    8 * _HOUR,
    10 * _HOUR,
    12 * _HOUR,
    18 * _HOUR,
]
EST_ROUND = [
    200 * _HOUR,
    100 * _HOUR,
    50 * _HOUR,
    10 * _HOUR,
    5 * _HOUR,
    2 * _HOUR,
    _HOUR,
    20 * _MIN,
    10 * _MIN,
    5 * _MIN,
]
TIMRNK_TO_POPRNK = [
    (3, 1, 1, 1),
    (1, 3, 4, 6),
    (4, 4, 10, 5),
    (17, 2, 14, 3),
    (13, 12, 20, 7),
    (7, 9, 2, 2),
    (8, 8, 3, 18),
    (18, 18, 7, 19),
    (2, 6, 12, 4),
    (6, 7, 6, 11),
    (16, 11, 19, 20),
    (10, 20, 5, 9),
    (5, 16, 18, 10),
    (15, 5, 16, 14),
    (14, 14, 9, 13),
    (19, 13, 17, 16),
    (11, 10, 15, 15),
    (12, 15, 13, 17),
    (9, 17, 8, 8),
    (20, 19, 11, 12),
]
_K_POINTS = [(0, 0), (20, 10), (200, 20), (1000, 35), (10000, 90), (70000, 340), (250000, 565)]
TOP = 20


def _bin_count(njobs: int) -> int:
    """Distinct estimates for ``njobs`` jobs (at least 1: one job rounds to 0 bins)."""
    return max(1, _interpolated_bins(njobs))


def _interpolated_bins(njobs: int) -> int:
    if njobs >= _K_POINTS[-1][0]:
        return _K_POINTS[-1][1]
    for (x0, y0), (x1, y1) in itertools.pairwise(_K_POINTS):
        if njobs <= x1:
            return y0 + round((njobs - x0) * (y1 - y0) / (x1 - x0))
    return _K_POINTS[-1][1]  # pragma: no cover


def _head_times(max_est: int) -> list[int]:
    times = [max_est] + [t for t in EST_JOINT if t < max_est]
    for m in EST_ROUND:
        if len(times) >= TOP:
            break
        s = (max_est // m) * m
        while s > 0 and len(times) < TOP:
            if s not in times:
                times.append(s)
            s -= m
    return [times[0], *sorted(times[1:TOP])]


def _head_sizes() -> list[float]:
    a, b, c = 14.0491, -0.177531, 0.462513
    ranks = [a * math.exp(b * x) + c for x in range(2, TOP + 1)]
    return [89.0 - sum(ranks), *ranks]


def estimate_histogram(
    njobs: int, max_est: int, *, seed: int | np.random.Generator | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Estimate values (s) and how many jobs get each, adding up to ``njobs``.

    The number of distinct estimates grows with ``njobs`` (piecewise linear, from 10
    bins at 20 jobs to 565 at 250,000). The head holds ``max_est`` and up to 19
    popular round values below it, with 89 % of the jobs assigned to popularity
    ranks at random; the tail spreads the remaining 11 % over rarer values below
    ``max_est`` (``LUBLIN_TSAFRIR_MODELS.md`` §4). Counts are rounded by largest
    remainders; every kept value has at least one job.

    Parameters
    ----------
    njobs : int
        Number of jobs, >= 1.
    max_est : int
        Largest estimate in seconds, >= 3600.
    seed : int, numpy.random.Generator or None
        Randomness of the popularity ranks and of the tail.

    Returns
    -------
    times : numpy.ndarray of float
        Estimate values in seconds (``times[0]`` is ``max_est``).
    counts : numpy.ndarray of int64
        Jobs per value, >= 1, summing to ``njobs``.

    Raises
    ------
    InvalidInputError
        If ``njobs`` is not an integer >= 1 or ``max_est`` not an integer >= 3600
        (floats of integer value are taken; NaN, 2.5 are refused).

    Examples
    --------
    >>> times, counts = estimate_histogram(1000, 18 * 3600, seed=0)
    >>> int(counts.sum()), int(times.max()), len(times) <= 35
    (1000, 64800, True)
    >>> times, counts = estimate_histogram(10, 7200, seed=0)
    >>> times.tolist(), counts.tolist()
    ([7200.0, 300.0, 600.0, 1200.0, 1800.0, 2400.0, 3000.0, 3600.0, 3900.0], \
[2, 1, 1, 1, 1, 1, 1, 1, 1])

    References
    ----------
    .. [1] D. Tsafrir, Y. Etsion, D. G. Feitelson (2005), Modeling user runtime
       estimates, JSSPP.
    """
    njobs = integer("njobs", njobs, minimum=1)
    max_est = integer("max_est", max_est, minimum=3600)
    rng = as_generator(seed)
    k = _bin_count(njobs)
    a = 1 + 12.1039 * k ** (-0.6026)
    head = _head_times(max_est)
    sizes = _head_sizes()
    # time rank -> popularity rank
    chosen: list[int] = []
    pool: list[int] = []
    last_row = {}
    for r, row in enumerate(TIMRNK_TO_POPRNK):
        for p in row:
            last_row[p] = r
    head_pct = []
    for r in range(len(head)):
        pool.extend(p for p in TIMRNK_TO_POPRNK[r % TOP] if p not in chosen)
        rng.shuffle(pool)
        if r == 0:
            rank = 1
        else:
            forced = sorted(
                p for p in range(1, TOP + 1) if p not in chosen and last_row.get(p, TOP) <= r
            )
            if forced:
                rank = forced[0]
            else:
                free = [p for p in pool if p not in chosen] or [
                    p for p in range(1, TOP + 1) if p not in chosen
                ]
                i, j = rng.integers(len(free)), rng.integers(len(free))
                rank = min(free[i], free[j])
        chosen.append(rank)
        pool = [p for p in pool if p != rank]
        head_pct.append(sizes[rank - 1])
    # tail
    n_tail = max(0, k - len(head))
    tail_times: list[int] = []
    taken = set(head)
    for i in range(1, n_tail + 1):
        x = i / n_tail
        y = (a - 1) * x / (a - x)
        t = round(y * max_est / 60) * 60
        for off in (0, 30, -30, 20, -20, 10, -10):
            cand = t + off
            if 0 < cand < max_est and cand not in taken:
                tail_times.append(cand)
                taken.add(cand)
                break
    weights = np.array([795.6 * (21 + i) ** -2.267 for i in range(len(tail_times))])
    tail_pct = (11.0 * weights / weights.sum()) if len(weights) else np.zeros(0)
    tail_times_arr = rng.permutation(np.array(sorted(tail_times), dtype=float))
    tail_pct = rng.permutation(np.sort(tail_pct)[::-1])
    times = np.concatenate([np.array(head, dtype=float), tail_times_arr])
    pct = np.concatenate([np.array(head_pct), tail_pct])
    pct = pct / pct.sum()
    raw = pct * njobs
    counts = np.maximum(1, np.floor(raw)).astype(np.int64)
    while counts.sum() > njobs:  # more bins than jobs: drop the rarest
        counts[np.argmin(np.where(counts > 0, raw, np.inf))] -= 1
    remainder = raw - np.floor(raw)
    for i in np.argsort(-remainder, kind="stable")[: max(0, njobs - int(counts.sum()))]:
        counts[i] += 1
    keep = counts > 0
    return times[keep], counts[keep]


def tsafrir_estimates(
    runtimes: np.ndarray,
    *,
    max_est: int | None = None,
    seed: int | np.random.Generator | None = None,
) -> np.ndarray:
    """A requested time for every job, never below its runtime (Tsafrir 2005).

    ``max_est`` defaults to ``max(max runtime, 3600)``; a runtime above the largest
    estimate is capped at it, as in the reference.

    The estimates of ``estimate_histogram(len(runtimes), max_est)`` are dealt out
    longest job first: each job draws uniformly among the remaining estimates that
    are at least its (capped) runtime.

    Parameters
    ----------
    runtimes : array_like, shape (n_jobs,)
        Actual run times in seconds, finite and > 0.
    max_est : int, optional
        Largest estimate in seconds (an integer >= 3600); default
        ``max(ceil(max runtime), 3600)``.
    seed : int, numpy.random.Generator or None
        Randomness of the histogram and of the dealing.

    Returns
    -------
    numpy.ndarray of float, shape (n_jobs,)
        Requested time of each job in seconds, >= its runtime unless the runtime
        exceeds ``max_est``; empty for no jobs.

    Raises
    ------
    InvalidInputError
        If ``runtimes`` is not one-dimensional or has a runtime that is not finite and
        > 0, or ``max_est`` is given and not an integer >= 3600 (from
        ``estimate_histogram``; ``max_est=0`` is refused, not taken as the default).

    Examples
    --------
    >>> rt = np.array([30, 400, 5000, 20])
    >>> est = tsafrir_estimates(rt, seed=1)
    >>> bool((est >= rt).all())
    True
    >>> est.tolist()
    [300.0, 600.0, 5000.0, 1800.0]

    References
    ----------
    .. [1] D. Tsafrir, Y. Etsion, D. G. Feitelson (2005), Modeling user runtime
       estimates, JSSPP.
    """
    rng = as_generator(seed)
    runtimes = real_array("runtimes", runtimes)
    first_bad_entry("runtimes", runtimes, runtimes > 0, "finite and > 0")
    n = runtimes.size
    if n == 0:
        return np.zeros(0)
    if max_est is None:
        max_est = max(math.ceil(runtimes.max()), 3600)
    times, counts = estimate_histogram(n, max_est, seed=rng)
    estimates = np.sort(np.repeat(times, counts))[::-1].copy()  # longest first
    capped = np.minimum(runtimes, estimates[0])
    order = np.argsort(-capped, kind="stable")
    out = np.empty(n)
    hi = 0
    for pos, job in enumerate(order):
        if estimates[pos] < capped[job]:
            # too few long estimates: widen to the largest one (max_est covers every job)
            estimates[pos] = estimates[0]
        hi = max(hi, pos)
        while hi + 1 < n and estimates[hi + 1] >= capped[job]:
            hi += 1
        pick = int(rng.integers(pos, hi + 1))
        estimates[pos], estimates[pick] = estimates[pick], estimates[pos]
        out[job] = estimates[pos]
    return out
