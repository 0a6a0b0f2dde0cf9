"""A bounded memo of deterministic answers (LP solutions), keyed by a digest of the inputs.

The DFRS simulators solve an LP at nearly every event. Variants of one algorithm on one
week (``minft=300`` beside ``minft=600``, say) often make the same decisions for a long
stretch, so they solve the same LPs; within one run, a mapping that comes back gives an
LP already solved. The LPs are solved by one HiGHS instance per thread, cleared before
each model, so an answer depends on the inputs alone: keeping it changes no bit of a
schedule and skips the solve. The memo is per process, shared by every simulation the
process runs (one worker of a sweep runs a week's variants one after another), bounded
(least recently used answers go first) and thread-safe.

A key is the 128-bit BLAKE2b digest of the inputs (each array's dtype, shape and bytes,
and each scalar's ``repr``): two different inputs share a key with probability about
``2**-128`` per pair.

Examples
--------
>>> memo = AnswerMemo("example", capacity=2)
>>> key = memo.key(np.array([1.0, 2.0]), 0.5)
>>> memo.get(key) is None
True
>>> memo.put(key, np.array([0.25]))
>>> memo.get(key).tolist(), memo.hits, memo.misses
([0.25], 1, 1)
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

import numpy as np

from allockit.errors import InvalidInputError

__all__ = ["AnswerMemo", "clear_memos", "memo", "memo_stats", "set_memo_capacity"]

#: Answers kept per memo unless ``set_memo_capacity`` says otherwise. One HPC2N week of
#: Table 5 makes about 84,000 ``max_sum_yields`` calls over its 64 ``opt=avg`` variants
#: (a family of up to 15 variants runs one after another); an answer is one float per
#: running job, so 100,000 answers of ~100 jobs hold ~100 MB at most.
DEFAULT_CAPACITY = 100_000


class AnswerMemo:
    """A least-recently-used map from input digests to answer arrays (copies in and out).

    Parameters
    ----------
    name : str
        What the answers are (reported by ``memo_stats``).
    capacity : int
        Most answers kept; 0 keeps none (every ``get`` misses).

    Raises
    ------
    InvalidInputError
        If ``capacity`` is not an integer >= 0.

    Examples
    --------
    >>> m = AnswerMemo("squares", capacity=1)
    >>> m.put(m.key(3), np.array([9.0])); m.put(m.key(4), np.array([16.0]))
    >>> m.get(m.key(3)) is None, m.get(m.key(4)).tolist()  # 3 made room for 4
    (True, [16.0])
    """

    def __init__(self, name: str, capacity: int = DEFAULT_CAPACITY) -> None:
        self.name = name
        self.capacity = _checked_capacity(capacity)
        self.hits = 0
        self.misses = 0
        self._answers: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(*parts: object) -> bytes:
        """The digest of ``parts``: arrays by dtype, shape and bytes, others by ``repr``."""
        digest = hashlib.blake2b(digest_size=16)
        for part in parts:
            if isinstance(part, np.ndarray):
                digest.update(f"{part.dtype.str}{part.shape}".encode())
                digest.update(np.ascontiguousarray(part).data)
            else:
                digest.update(repr(part).encode())
            digest.update(b"|")
        return digest.digest()

    def get(self, key: bytes) -> np.ndarray | None:
        """A copy of the answer kept for ``key``, or None (counted as a miss)."""
        with self._lock:
            answer = self._answers.get(key)
            if answer is None:
                self.misses += 1
                return None
            self._answers.move_to_end(key)
            self.hits += 1
            return answer.copy()

    def put(self, key: bytes, answer: np.ndarray) -> None:
        """Keep a copy of ``answer`` for ``key`` (dropping the least recently used)."""
        if self.capacity == 0:
            return
        with self._lock:
            self._answers[key] = np.array(answer, copy=True)
            self._answers.move_to_end(key)
            while len(self._answers) > self.capacity:
                self._answers.popitem(last=False)

    def clear(self) -> None:
        """Forget every answer and reset the counts."""
        with self._lock:
            self._answers.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._answers)


_MEMOS: dict[str, AnswerMemo] = {}
_REGISTRY_LOCK = threading.Lock()
_capacity = DEFAULT_CAPACITY


def memo(name: str) -> AnswerMemo:
    """The process's memo called ``name`` (made on first use).

    Parameters
    ----------
    name : str
        The memo's name: ``"max_sum_yields"`` and ``"min_avg_stretch"`` are the
        simulators' LPs.

    Returns
    -------
    AnswerMemo
        The same object at every call with this name, in this process.

    Examples
    --------
    >>> memo("doc-example") is memo("doc-example")
    True
    """
    found = _MEMOS.get(name)
    if found is None:
        with _REGISTRY_LOCK:
            found = _MEMOS.setdefault(name, AnswerMemo(name, _capacity))
    return found


def set_memo_capacity(capacity: int) -> None:
    """Keep at most ``capacity`` answers per memo from now on (0: keep none).

    Answers beyond the new capacity are dropped (least recently used first). With 0,
    every LP is solved again (to time the solves themselves, as
    ``benchmarks/dfrs_lp_floor.py`` does).

    Parameters
    ----------
    capacity : int
        Most answers each memo keeps, >= 0 (``DEFAULT_CAPACITY`` at start).

    Raises
    ------
    InvalidInputError
        If ``capacity`` is not an integer >= 0.

    Examples
    --------
    >>> set_memo_capacity(0); memo("doc-example").capacity
    0
    >>> set_memo_capacity(DEFAULT_CAPACITY)
    """
    global _capacity
    capacity = _checked_capacity(capacity)
    with _REGISTRY_LOCK:
        _capacity = capacity
        for kept in _MEMOS.values():
            with kept._lock:
                kept.capacity = capacity
                while len(kept._answers) > capacity:
                    kept._answers.popitem(last=False)


def clear_memos() -> None:
    """Forget every memo's answers (and their hit and miss counts).

    Examples
    --------
    >>> m = memo("doc-example"); m.put(m.key(1), np.array([1.0]))
    >>> clear_memos(); len(m)
    0
    """
    for kept in list(_MEMOS.values()):
        kept.clear()


def memo_stats() -> dict[str, dict[str, int]]:
    """How much each memo of the process has been used.

    Returns
    -------
    dict
        ``{name: {"hits": int, "misses": int, "kept": int}}``, by name: answers found,
        answers not found (then computed), and answers kept now.

    Examples
    --------
    >>> clear_memos(); memo_stats()["doc-example"]
    {'hits': 0, 'misses': 0, 'kept': 0}
    """
    return {
        name: {"hits": kept.hits, "misses": kept.misses, "kept": len(kept)}
        for name, kept in sorted(_MEMOS.items())
    }


def _checked_capacity(capacity: int) -> int:
    if isinstance(capacity, bool) or not isinstance(capacity, int | np.integer) or capacity < 0:
        raise InvalidInputError(f"capacity must be an integer >= 0; got {capacity!r}")
    return int(capacity)
