"""A bounded memo of deterministic answers (LP solutions), keyed by a digest of the inputs.

The DFRS simulators solve an LP at nearly every event. Variants of one algorithm on one
week (``minft=300`` beside ``minft=600``, say) often make the same decisions for a long
stretch, so they solve the same LPs; within one run, a mapping that comes back gives an
LP already solved. The LPs are solved by one HiGHS instance per thread, cleared before
each model, with options nobody changes, so an answer depends on the inputs alone:
keeping it changes no bit of a schedule and skips the solve. The memo is per process,
shared by every simulation the process runs (a local sweep's worker runs an instance's
tasks one after another: ``allockit.runner.backends.run_local``), bounded in bytes
(least recently used answers go first) and thread-safe.

A key is the 128-bit BLAKE2b digest of the inputs (each array's dtype, shape and bytes,
and each scalar's ``repr``): two different inputs share a key with probability about
``2**-128`` per pair.

Examples
--------
>>> m = AnswerMemo("example")
>>> m.answer((np.array([1.0, 2.0]), 0.5), lambda: np.array([0.25])).tolist()
[0.25]
>>> m.answer((np.array([1.0, 2.0]), 0.5), lambda: np.array([9.0])).tolist()  # kept
[0.25]
>>> m.hits, m.misses
(1, 1)
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from allockit.errors import InvalidInputError

__all__ = [
    "DEFAULT_MAX_BYTES",
    "AnswerMemo",
    "clear_memos",
    "memo",
    "memo_stats",
    "set_memo_max_bytes",
]

#: Bytes of answers each memo keeps unless ``set_memo_max_bytes`` says otherwise.
#: One HPC2N week of Table 5 makes about 84,000 ``max_sum_yields`` calls over its 53
#: ``opt=avg`` variants, at roughly 1 KB per answer of 100 jobs (an estimate); the
#: variants that share LPs are those of one family (up to 15, about 40,000 calls), run
#: one after another.
DEFAULT_MAX_BYTES = 64 * 2**20

#: Bytes counted per answer besides its array's data: the array object, the key and
#: the map's entry (tracemalloc, CPython 3.11 and numpy 2.4: about 198 for the array and
#: the entry, whatever the answer's length, and 49 for the 16-byte key).
ENTRY_OVERHEAD = 256


class AnswerMemo:
    """A least-recently-used map from input digests to answer arrays (copies in and out).

    Parameters
    ----------
    name : str
        What the answers are (reported by ``memo_stats``).
    max_bytes : int
        Most bytes of answers kept (each counted as its data plus ``ENTRY_OVERHEAD``);
        0 keeps none and computes every answer without hashing its inputs.

    Attributes
    ----------
    hits, misses : int
        Answers found, and answers computed (then kept if they fit).
    max_bytes : int
        The bound above.

    Raises
    ------
    InvalidInputError
        If ``max_bytes`` is not an integer >= 0.

    Examples
    --------
    >>> m = AnswerMemo("squares", max_bytes=300)  # room for one small answer
    >>> m.put(m.key(3), np.array([9.0])); m.put(m.key(4), np.array([16.0]))
    >>> m.get(m.key(3)) is None, m.get(m.key(4)).tolist()  # 3 made room for 4
    (True, [16.0])
    """

    def __init__(self, name: str, max_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.name = name
        self.max_bytes = _checked_max_bytes(max_bytes)
        self.hits = 0
        self.misses = 0
        self._answers: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @staticmethod
    def key(*parts: object) -> bytes:
        """The digest of ``parts``: arrays by dtype, shape and bytes, others by ``repr``.

        Parameters
        ----------
        *parts : numpy.ndarray or scalar
            Everything the answer depends on, in a fixed order.

        Returns
        -------
        bytes
            16 bytes; equal for equal inputs (whatever the arrays' memory layout).

        Raises
        ------
        InvalidInputError
            For an array of Python objects (its bytes are pointers, not values).

        Examples
        --------
        >>> AnswerMemo.key(np.zeros(2), 1) == AnswerMemo.key(np.zeros(2), 1)
        True
        >>> AnswerMemo.key(np.zeros(2), 1) == AnswerMemo.key(np.zeros(2), 1.0)
        False
        """
        digest = hashlib.blake2b(digest_size=16)
        for i, part in enumerate(parts):
            if isinstance(part, np.ndarray):
                if part.dtype.hasobject:
                    raise InvalidInputError(
                        f"key part {i}: an array of Python objects cannot be hashed by value"
                    )
                digest.update(f"{part.dtype.str}{part.shape}".encode())
                digest.update(np.ascontiguousarray(part).data)
            else:
                digest.update(repr(part).encode())
            digest.update(b"|")
        return digest.digest()

    def answer(self, parts: tuple, compute: Callable[[], np.ndarray]) -> np.ndarray:
        """The answer kept for ``parts``, or ``compute()`` (then kept).

        Parameters
        ----------
        parts : tuple
            The inputs (see ``key``); not hashed when ``max_bytes`` is 0.
        compute : callable
            () -> numpy.ndarray: the answer, a function of ``parts`` alone.

        Returns
        -------
        numpy.ndarray
            A new array each call.

        Examples
        --------
        >>> AnswerMemo("x").answer((1,), lambda: np.arange(2)).tolist()
        [0, 1]
        """
        if self.max_bytes == 0:
            with self._lock:
                self.misses += 1
            return compute()
        key = self.key(*parts)
        kept = self.get(key)
        if kept is None:
            kept = compute()
            self.put(key, kept)
        return kept

    def get(self, key: bytes) -> np.ndarray | None:
        """A copy of the answer kept for ``key``, or None (a hit or a miss, counted).

        Parameters
        ----------
        key : bytes
            From ``key``.

        Returns
        -------
        numpy.ndarray or None
            A new array, or None if nothing is kept for ``key``.

        Examples
        --------
        >>> AnswerMemo("x").get(b"nothing") is None
        True
        """
        with self._lock:
            answer = self._answers.get(key)
            if answer is None:
                self.misses += 1
                return None
            self._answers.move_to_end(key)
            self.hits += 1
        return answer.copy()  # (kept arrays are never written to)

    def put(self, key: bytes, answer: np.ndarray) -> None:
        """Keep a copy of ``answer`` for ``key`` (dropping the least recently used).

        Parameters
        ----------
        key : bytes
            From ``key``.
        answer : numpy.ndarray
            The answer; an answer larger than ``max_bytes`` is not kept.

        Examples
        --------
        >>> m = AnswerMemo("x"); m.put(m.key(1), np.ones(3)); len(m)
        1
        """
        kept = np.array(answer, copy=True)
        size = kept.nbytes + ENTRY_OVERHEAD
        if size > self.max_bytes:
            return
        with self._lock:
            old = self._answers.pop(key, None)
            if old is not None:
                self._bytes -= old.nbytes + ENTRY_OVERHEAD
            self._answers[key] = kept
            self._bytes += size
            self._shrink()

    def _shrink(self) -> None:
        """Drop the least recently used answers until they fit (lock held)."""
        while self._bytes > self.max_bytes and self._answers:
            _, dropped = self._answers.popitem(last=False)
            self._bytes -= dropped.nbytes + ENTRY_OVERHEAD

    def resize(self, max_bytes: int) -> None:
        """Keep at most ``max_bytes`` from now on (see ``set_memo_max_bytes``).

        Parameters
        ----------
        max_bytes : int
            The new bound, >= 0.

        Raises
        ------
        InvalidInputError
            If ``max_bytes`` is not an integer >= 0.

        Examples
        --------
        >>> m = AnswerMemo("x"); m.put(m.key(1), np.ones(3)); m.resize(0); len(m)
        0
        """
        max_bytes = _checked_max_bytes(max_bytes)
        with self._lock:
            self.max_bytes = max_bytes
            self._shrink()

    def clear(self) -> None:
        """Forget every answer and reset the counts.

        Examples
        --------
        >>> m = AnswerMemo("x"); m.put(m.key(1), np.ones(3)); m.clear(); len(m), m.nbytes
        (0, 0)
        """
        with self._lock:
            self._answers.clear()
            self._bytes = 0
            self.hits = self.misses = 0

    @property
    def nbytes(self) -> int:
        """Bytes counted for the answers kept now."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._answers)


_MEMOS: dict[str, AnswerMemo] = {}
_REGISTRY_LOCK = threading.Lock()
_max_bytes = DEFAULT_MAX_BYTES


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
            found = _MEMOS.setdefault(name, AnswerMemo(name, _max_bytes))
    return found


def set_memo_max_bytes(max_bytes: int) -> None:
    """Keep at most ``max_bytes`` of answers per memo from now on (0: keep none).

    Answers beyond the new bound are dropped (least recently used first), in the memos
    made so far and in those made later. With 0, every LP is solved again, with no
    hashing (to time the solves themselves, as ``benchmarks/dfrs_lp_floor.py`` does).

    Parameters
    ----------
    max_bytes : int
        Most bytes of answers each memo keeps, >= 0 (``DEFAULT_MAX_BYTES`` at start).

    Raises
    ------
    InvalidInputError
        If ``max_bytes`` is not an integer >= 0.

    Examples
    --------
    >>> set_memo_max_bytes(0); memo("doc-example").max_bytes
    0
    >>> set_memo_max_bytes(DEFAULT_MAX_BYTES)
    """
    global _max_bytes
    max_bytes = _checked_max_bytes(max_bytes)
    with _REGISTRY_LOCK:
        _max_bytes = max_bytes
        for kept in _MEMOS.values():
            kept.resize(max_bytes)


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
        ``{name: {"hits": int, "misses": int, "kept": int, "bytes": int}}``, by name:
        answers found, answers computed, answers kept now and their bytes.

    Examples
    --------
    >>> m = memo("doc-example"); m.clear()
    >>> memo_stats()["doc-example"]
    {'hits': 0, 'misses': 0, 'kept': 0, 'bytes': 0}
    """
    return {
        name: {"hits": kept.hits, "misses": kept.misses, "kept": len(kept),
               "bytes": kept.nbytes}
        for name, kept in sorted(_MEMOS.items())
    }


def _checked_max_bytes(max_bytes: int) -> int:
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int | np.integer) or max_bytes < 0:
        raise InvalidInputError(f"max_bytes must be an integer >= 0; got {max_bytes!r}")
    return int(max_bytes)
