"""Compiled (numba) loops of the waiting jobs' index (``dfrs_index.WaitingIndex``).

A DFRS job's priority key is ``-(now - submit) / vt²`` (``dfrs_priority``); a waiting
job's virtual time does not change, so the waiting jobs can be kept in buckets of
``vt²`` (a power of two split in eight: ``bucket_of``) and, inside a bucket, by job
index, which is submission order. For a bucket whose ``vt²`` are at least ``lo``,
``-(now - submit) / lo`` is at most the key of each of its jobs (rounding is monotone)
and grows along the bucket: a scan of the bucket can stop at the first job whose bound
exceeds the ``count``-th smallest key seen so far (``priority_prefix``). The jobs it
skips have larger keys than every job it returns, so the returned jobs are an exact
prefix of the priority order, whatever the buckets hold.

- ``bucket_of`` and ``bucket_floor``: a virtual time's bucket (0: scanned always, for
  a zero, tiny, huge or non-finite ``vt²``) and the least ``vt²`` of a bucket;
- ``refresh_kernel``: the index's sorted (bucket, job) keys after some jobs changed
  status, and the runs of equal buckets;
- ``priority_prefix``: the jobs of a priority order's prefix of at least ``count``
  jobs (or all), by index, with their keys.
"""

from __future__ import annotations

import math

import numpy as np

from allockit.heuristics.kernel_setup import njit, warm_inputs
from allockit.results.base import readonly_array

__all__ = ["bucket_floor", "bucket_of", "priority_prefix", "refresh_kernel"]

#: The job is the low 32 bits of an index key, its bucket the bits above.
JOB_BITS = 32
_JOB_MASK = (1 << JOB_BITS) - 1
_FLOAT_MAX = np.finfo(np.float64).max


@njit(cache=True)
def bucket_of(v: float) -> int:
    """The bucket of a waiting job of virtual time ``v``: 0 (scanned always) unless
    ``v > 0`` and ``1e-300 <= v*v <= 1e300``; else ``1 + 8 * (e + 1100) + q`` for
    ``v*v = m * 2**e`` (``0.5 <= m < 1``) and ``q = floor(16 * (m - 0.5))``.

    >>> bucket_of(0.0), bucket_of(float("nan")), bucket_of(1.0) == bucket_of(1.01)
    (0, 0, True)
    """
    if not v > 0.0:
        return 0
    vv = v * v
    if not (vv >= 1e-300 and vv <= 1e300):
        return 0
    m, e = math.frexp(vv)
    return 1 + 8 * (e + 1100) + int((m - 0.5) * 16.0)


@njit(cache=True)
def bucket_floor(bucket: int) -> float:
    """The least ``v*v`` of a bucket (> 0; exact): ``(0.5 + q/16) * 2**e``.

    >>> v = 3.7
    >>> bucket_floor(bucket_of(v)) <= v * v < 1.125 * bucket_floor(bucket_of(v))
    True
    """
    e = (bucket - 1) // 8 - 1100
    q = (bucket - 1) % 8
    return math.ldexp(0.5 + q / 16.0, e)


@warm_inputs(lambda: (
    np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64),
    np.full(1, -1, dtype=np.int64), np.ones(1, dtype=np.int8), np.zeros(1),
))
@njit(cache=True)
def refresh_kernel(
    keys: np.ndarray, run_bucket: np.ndarray, touched: np.ndarray, bucket: np.ndarray,
    status: np.ndarray, vt: np.ndarray,
):
    """The index's keys after the ``touched`` jobs (repeats allowed) changed status.

    ``keys`` are the sorted ``bucket << 32 | job`` of the indexed jobs, ``run_bucket``
    their buckets (each once, sorted) and ``bucket`` each job's bucket (-1: not
    indexed; updated in place). A touched job is indexed when its ``status`` is
    waiting (1), in ``bucket_of(vt[j])``. Returns the new sorted keys, the runs'
    buckets and the runs' starts (one more than the runs: the end). The keys that stay
    are copied in blocks between the few that leave or come, and each run is found by
    two binary searches.
    """
    n_touched = touched.shape[0]
    gone = np.empty(n_touched, dtype=np.int64)
    new = np.empty(n_touched, dtype=np.int64)
    n_gone = 0
    n_new = 0
    for i in range(n_touched):
        j = touched[i]
        want = bucket_of(vt[j]) if status[j] == 1 else -1
        have = bucket[j]
        if want == have:
            continue
        if have >= 0:
            gone[n_gone] = (have << JOB_BITS) | j
            n_gone += 1
        if want >= 0:
            new[n_new] = (want << JOB_BITS) | j
            n_new += 1
        bucket[j] = want
    gone = np.sort(gone[:n_gone])
    new = np.sort(new[:n_new])
    # the keys that stay, then the new ones among them
    kept = np.empty(keys.shape[0] - n_gone, dtype=np.int64)
    at = np.searchsorted(keys, gone)
    prev = 0
    o = 0
    for g in range(n_gone):
        block = at[g] - prev
        kept[o : o + block] = keys[prev : at[g]]
        o += block
        prev = at[g] + 1
    kept[o:] = keys[prev:]
    out = np.empty(kept.shape[0] + n_new, dtype=np.int64)
    at = np.searchsorted(kept, new)
    prev = 0
    o = 0
    for b in range(n_new):
        block = at[b] - prev
        out[o : o + block] = kept[prev : at[b]]
        o += block
        out[o] = new[b]
        o += 1
        prev = at[b]
    out[o:] = kept[prev:]
    # the runs: each bucket that was or came, where it starts and ends now
    maybe = np.unique(np.concatenate((run_bucket, new >> JOB_BITS)))
    first = np.searchsorted(out, maybe << JOB_BITS)
    last = np.searchsorted(out, (maybe + 1) << JOB_BITS)
    runs = 0
    for r in range(maybe.shape[0]):
        if last[r] > first[r]:
            runs += 1
    buckets = np.empty(runs, dtype=np.int64)
    starts = np.empty(runs + 1, dtype=np.int64)
    r = 0
    for m in range(maybe.shape[0]):
        if last[m] > first[m]:
            buckets[r] = maybe[m]
            starts[r] = first[m]
            r += 1
    starts[runs] = out.shape[0]
    return out, buckets, starts


@njit(cache=True, error_model="numpy")
def _key(v: float, s: float, now: float) -> float:
    """One job's priority key (``dfrs_kernels._priority_keys``)."""
    if v > 0.0:
        key = -(now - s) / (v * v)
        return key if key != key else max(key, -_FLOAT_MAX)
    return -np.inf


@njit(cache=True)
def _push(heap: np.ndarray, size: int, key: float) -> int:
    """Keep the ``heap.shape[0]`` smallest keys seen in a max-heap; the new size."""
    count = heap.shape[0]
    if size < count:
        c = size
        while c > 0:
            parent = (c - 1) >> 1
            if not heap[parent] < key:
                break
            heap[c] = heap[parent]
            c = parent
        heap[c] = key
        return size + 1
    if not key < heap[0]:
        return size
    c = 0
    while True:
        child = 2 * c + 1
        if child >= count:
            break
        if child + 1 < count and heap[child + 1] > heap[child]:
            child += 1
        if not heap[child] > key:
            break
        heap[c] = heap[child]
        c = child
    heap[c] = key
    return size


@warm_inputs(lambda: (
    np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(2, dtype=np.int64),
    readonly_array([], np.int64), np.zeros(1), readonly_array([0.0], float), 1.0, 1,
    np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.bool_),
))
@njit(cache=True, error_model="numpy")
def priority_prefix(
    keys: np.ndarray,
    run_bucket: np.ndarray,
    run_start: np.ndarray,
    extra: np.ndarray,
    vt: np.ndarray,
    submit: np.ndarray,
    now: float,
    count: int,
    shape: np.ndarray,
    dead: np.ndarray,
):
    """A prefix of the priority order of the indexed jobs not of a ``dead`` shape and
    the ``extra`` jobs (all taken, whatever their shape): at least ``count`` of them,
    or all. An empty ``dead`` takes every indexed job (``shape`` is not read).

    Returns ``(jobs, their_keys, complete, ok)``: ``jobs`` by index, every one of them
    with a key at most the ``count``-th smallest and every job left out with a larger
    key; ``complete`` when no job was left out. ``ok`` is False (and the rest is
    empty) when a key is NaN or a job's submission is after ``now``: then the index
    cannot decide, and the caller scans every job.
    """
    none = np.zeros(0, dtype=np.int64)
    fail = (none, np.zeros(0), False, False)
    if count < 1:
        count = 1
    heap = np.empty(count)
    size = 0
    cap = max(2 * count, 64)
    jobs = np.empty(cap, dtype=np.int64)
    found = np.empty(cap)
    n = 0
    complete = True
    for i in range(extra.shape[0] + run_bucket.shape[0]):
        if i < extra.shape[0]:
            lo = 0.0
            first, end = i, i + 1
        else:
            r = i - extra.shape[0]
            lo = bucket_floor(run_bucket[r]) if run_bucket[r] > 0 else 0.0
            first, end = run_start[r], run_start[r + 1]
        for pos in range(first, end):
            j = extra[pos] if i < extra.shape[0] else keys[pos] & _JOB_MASK
            flow = now - submit[j]
            if not flow >= 0.0:
                return fail
            if lo > 0.0 and size == count:
                bound = -flow / lo
                if max(bound, -_FLOAT_MAX) > heap[0]:  # (and every later job's bound)
                    complete = False
                    break
            if i >= extra.shape[0] and dead.shape[0] and dead[shape[j]]:
                continue
            key = _key(vt[j], submit[j], now)
            if key != key:
                return fail
            if n == cap:
                cap *= 2
                jobs = np.concatenate((jobs, np.empty(cap - n, dtype=np.int64)))
                found = np.concatenate((found, np.empty(cap - n)))
            jobs[n] = j
            found[n] = key
            n += 1
            size = _push(heap, size, key)
    jobs, found = jobs[:n], found[:n]
    if not complete:
        cut = heap[0]
        keep = found <= cut
        jobs, found = jobs[keep], found[keep]
    order = np.argsort(jobs)
    return jobs[order], found[order], complete, True
