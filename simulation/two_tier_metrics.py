"""Confidence intervals by batch means for the two-tier simulator's per-job metrics.

The MEASY paper analyses its simulations with the batch-means method (Sec. 3.3, its
reference [34]) without saying how. Here (CHOICES metrics): the jobs are taken in
submission order, the first ``warmup`` fraction is dropped as the warm-up, the rest is
cut into ``batches`` batches of equal size (the last few jobs that do not fill a batch
are dropped) and the 95 % interval is the mean of the batch means plus or minus
``t(0.975, B - 1) * s / sqrt(B)``, with ``s`` the standard deviation of the batch means.
"""

from __future__ import annotations

import math

import numpy as np

from allockit.checks import integer, real_number
from allockit.simulation.two_tier_choices import BATCH_COUNT, WARMUP_FRACTION

__all__ = ["T975", "batch_means_ci"]

#: Student t quantile 0.975 for 1..30 degrees of freedom (standard tables).
T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def batch_means_ci(
    values: np.ndarray,
    *,
    batches: int = BATCH_COUNT,
    warmup: float = WARMUP_FRACTION,
) -> tuple[float, float]:
    """95 % confidence interval of the steady-state mean of ``values`` by batch means.

    Parameters
    ----------
    values : numpy.ndarray
        One value per job, in submission order.
    batches : int
        Number of batches, 2..31 (fewer when there are fewer jobs after the warm-up:
        then one job per batch).
    warmup : float
        Fraction of the first jobs dropped, in [0, 1).

    Returns
    -------
    tuple of float
        ``(low, high)``; ``(nan, nan)`` with fewer than 2 jobs after the warm-up.

    Raises
    ------
    InvalidInputError
        If ``batches`` is not in 2..31 or ``warmup`` not in [0, 1).

    Examples
    --------
    >>> low, high = batch_means_ci(np.arange(100.0), batches=4, warmup=0.0)
    >>> bool(low < 49.5 < high)
    True
    >>> batch_means_ci(np.ones(50))
    (1.0, 1.0)
    >>> batch_means_ci(np.ones(50), batches=1)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: batches must be an integer in [2, 31]; got 1
    """
    batches = integer("batches", batches, minimum=2, maximum=31)
    warmup = real_number("warmup", warmup, at_least=0, below=1, finite=False)
    values = np.asarray(values, dtype=float)
    kept = values[math.floor(warmup * values.size) :]
    if kept.size < 2:
        return (math.nan, math.nan)
    b = min(batches, kept.size)
    per = kept.size // b
    means = kept[: b * per].reshape(b, per).mean(axis=1)
    center = float(means.mean())
    half = T975[b - 2] * float(means.std(ddof=1)) / math.sqrt(b)
    return (center - half, center + half)
