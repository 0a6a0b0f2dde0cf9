"""The waiting jobs of a DFRS simulation, kept for the start of the priority order.

Behind a long backlog (a thrashing system holds thousands of paused jobs), Greedy's
pass over the waiting jobs and the MCB8 remap need only the first few hundred jobs in
priority order, yet a scan computes every job's key. ``WaitingIndex`` keeps the
waiting jobs in buckets of their virtual time (``dfrs_index_kernels``), so that
``dfrs_index_kernels.priority_prefix`` reads a prefix of the order that contains those
jobs and skips most of the others; the result is the same as the scan's. The state
(``DfrsState``) tells the index every job whose status changed (``touch``); the index
brings itself up to date when next read (``arrays``).
"""

from __future__ import annotations

import numpy as np

from allockit.simulation.dfrs_rows import SimulationInvariantError

__all__ = ["WaitingIndex"]

_NONE = np.zeros(0, dtype=np.int64)


class WaitingIndex:
    """The waiting jobs of ``status`` in buckets of ``vt`` (read when next asked).

    Usable when jobs are in submission order (``submit`` does not decrease) and fewer
    than 2³¹; otherwise ``arrays`` returns no runs at all and the kernels scan every
    job.

    Examples
    --------
    >>> status = np.array([1, 1, 2], dtype=np.int8)
    >>> vt = np.array([0.0, 3.0, 5.0])
    >>> index = WaitingIndex(status, vt, np.array([0.0, 1.0, 2.0]))
    >>> index.touch_all(np.array([0, 1, 2]))
    >>> keys, buckets, starts = index.arrays()
    >>> (keys & 0xFFFFFFFF).tolist(), starts.tolist()
    ([0, 1], [0, 1, 2])
    """

    def __init__(self, status: np.ndarray, vt: np.ndarray, submit: np.ndarray) -> None:
        n = status.shape[0]
        self.status, self.vt = status, vt
        self.usable = n < 2**31 and bool((np.diff(submit) >= 0).all())
        self._bucket = np.full(n, -1, dtype=np.int64)  # each job's bucket, -1: not kept
        self._keys = _NONE
        self._runs = (_NONE, np.zeros(1, dtype=np.int64))
        self._touched = np.empty(4096, dtype=np.int64)
        self._n_touched = 0

    def touch(self, j: int) -> None:
        """Job ``j``'s status changed (or may have)."""
        if self._n_touched == self._touched.size:
            self._refresh()
        self._touched[self._n_touched] = j
        self._n_touched += 1

    def touch_all(self, jobs: np.ndarray) -> None:
        """``touch`` each of ``jobs``."""
        if self._n_touched + jobs.size > self._touched.size:
            self._refresh()
            if jobs.size > self._touched.size:
                self._touched = np.empty(2 * jobs.size, dtype=np.int64)
        self._touched[self._n_touched : self._n_touched + jobs.size] = jobs
        self._n_touched += jobs.size

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(keys, run_buckets, run_starts)`` for the kernels, up to date.

        ``keys`` are the sorted ``bucket << 32 | job`` of the waiting jobs; the runs of
        one bucket start at ``run_starts[r]`` (the last entry: the end). Not usable:
        three empty arrays.
        """
        if not self.usable:
            return _NONE, _NONE, _NONE
        if self._n_touched:
            self._refresh()
        return (self._keys, *self._runs)

    def _refresh(self) -> None:
        from allockit.simulation.dfrs_index_kernels import refresh_kernel

        touched = self._touched[: self._n_touched]
        self._keys, *runs = refresh_kernel(
            self._keys, self._runs[0], touched, self._bucket, self.status, self.vt
        )
        self._runs = tuple(runs)
        self._n_touched = 0

    def check(self) -> None:
        """Raise ``SimulationInvariantError`` unless the index holds exactly the waiting
        jobs, each in its virtual time's bucket (the debug-mode check)."""
        if not self.usable:
            return
        from allockit.simulation.dfrs_index_kernels import bucket_of

        keys, buckets, starts = self.arrays()
        jobs = keys & 0xFFFFFFFF
        waiting = np.flatnonzero(self.status == 1)
        if not np.array_equal(np.sort(jobs), waiting):
            raise SimulationInvariantError("the waiting jobs' index holds other jobs")
        want = np.array([bucket_of(float(v)) for v in self.vt[jobs]], dtype=np.int64)
        if not np.array_equal(keys >> 32, want) or (np.diff(keys) <= 0).any():
            raise SimulationInvariantError("the waiting jobs' index has a job in a wrong bucket")
        if starts.size != buckets.size + 1 or (keys[starts[:-1]] >> 32 != buckets).any():
            raise SimulationInvariantError("the waiting jobs' index has wrong runs")
