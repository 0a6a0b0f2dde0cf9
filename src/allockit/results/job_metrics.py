"""Per-job metrics of a schedule: bounded stretch and bounded slowdown."""

from __future__ import annotations

import numpy as np

from allockit.constants import TAU

__all__ = ["bounded_slowdown", "bounded_stretch"]


def bounded_stretch(
    submit: np.ndarray, end: np.ndarray, runtime: np.ndarray, tau: float = TAU
) -> np.ndarray:
    """``max(C - r, tau) / max(p, tau)`` per job.

    The bounded stretch (flow time over dedicated run time) by which Casanova,
    Stillwell, Vivien (2011) compare DFRS and batch schedulers (user guide (DFRS); the
    threshold ``tau = 10 s`` is allockit's choice). ``tau`` keeps jobs shorter than
    ``tau`` seconds from dominating the maximum.

    Parameters
    ----------
    submit : numpy.ndarray, shape (n_jobs,)
        Release (submission) times ``r`` in seconds.
    end : numpy.ndarray, shape (n_jobs,)
        Completion times ``C`` in seconds.
    runtime : numpy.ndarray, shape (n_jobs,)
        Run times ``p`` on a dedicated platform, in seconds.
    tau : float, default TAU (10 s)
        Threshold in seconds that keeps very short jobs from dominating the metric.

    Returns
    -------
    numpy.ndarray, shape (n_jobs,)
        The bounded stretch of each job (> 0; >= 1 when ``C >= r + p``).

    Examples
    --------
    >>> bounded_stretch(np.array([0.0]), np.array([5.0]), np.array([2.0])).tolist()
    [1.0]
    """
    return np.maximum(end - submit, tau) / np.maximum(runtime, tau)


def bounded_slowdown(
    submit: np.ndarray, end: np.ndarray, runtime: np.ndarray, tau: float = TAU
) -> np.ndarray:
    """``max(1, (C - r) / max(p, tau))`` per job: the bounded slowdown of Feitelson et al.

    Parameters
    ----------
    submit : numpy.ndarray, shape (n_jobs,)
        Release (submission) times ``r`` in seconds.
    end : numpy.ndarray, shape (n_jobs,)
        Completion times ``C`` in seconds.
    runtime : numpy.ndarray, shape (n_jobs,)
        Run times ``p`` on a dedicated platform, in seconds.
    tau : float, default TAU (10 s)
        Threshold in seconds that keeps very short jobs from dominating the metric.

    Returns
    -------
    numpy.ndarray, shape (n_jobs,)
        The bounded slowdown of each job, >= 1.

    Examples
    --------
    >>> bounded_slowdown(np.array([0.0, 0.0]), np.array([4.0, 40.0]),
    ...                  np.array([2.0, 20.0])).tolist()
    [1.0, 2.0]
    """
    return np.maximum(1.0, (end - submit) / np.maximum(runtime, tau))
