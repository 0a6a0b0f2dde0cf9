"""VCSched is strongly NP-hard: the 3-Partition reduction (Stillwell et al., Sec. 2.4)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence

from allockit.checks import integer
from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance

__all__ = [
    "MAX_ENUMERATION",
    "enumerate_three_partition",
    "is_yes_instance",
    "reduction_instance",
]

#: Most integers ``enumerate_three_partition`` may go through: candidate multisets times
#: their ``3m`` entries (about a second of work); larger ``m`` and ``B`` are refused.
MAX_ENUMERATION = 10**7


def _integers(s: object) -> list[int]:
    """``s`` as a list of Python ints (numpy's and floats of integer value accepted)."""
    if not isinstance(s, Iterable) or isinstance(s, str | bytes):
        raise InvalidInputError(f"s must be a sequence of integers; got {s!r}")
    return [integer(f"s[{i}]", x, minimum=1) for i, x in enumerate(s)]


def _check(s: object, bound: object) -> tuple[list[int], int, int]:
    """``s`` and ``bound`` as ints and ``m``, or an error unless they are a 3-Partition input."""
    items = _integers(s)
    bound = integer("bound", bound, minimum=1)
    if len(items) % 3 or not items:
        raise InvalidInputError(f"3-Partition needs 3m integers; got {len(items)}")
    m = len(items) // 3
    if sum(items) != m * bound:
        raise InvalidInputError(
            f"3-Partition needs sum(s) == m*B = {m * bound}; got {sum(items)}"
        )
    for x in items:
        if not bound / 4 < x < bound / 2:
            raise InvalidInputError(f"3-Partition needs B/4 < s_i < B/2; got {x} with B={bound}")
    return items, bound, m


def reduction_instance(s: Sequence[int], bound: int) -> VCInstance:
    """The VCSched instance of the reduction: ``m`` hosts, jobs ``a_i = s_i / B``, no memory.

    A placement with minimum yield 1 exists iff the 3-Partition instance is a
    yes-instance: yield 1 needs every host's load ``<= 1``, and as the loads sum to
    ``m``, every host carries exactly ``B``; ``B/4 < s_i < B/2`` forces three jobs per
    host.

    Parameters
    ----------
    s : sequence of int
        The ``3m`` integers ``s_i``, each with ``B/4 < s_i < B/2``, summing to ``m B``
        (a list, tuple or numpy array; floats of integer value such as ``5.0`` are
        accepted, fractions and booleans are not).
    bound : int
        The target ``B`` of each group, an integer >= 1.

    Returns
    -------
    VCInstance
        ``m`` hosts and one single-task job per integer, CPU need ``s_i / B``, memory 0.

    Raises
    ------
    InvalidInputError
        If an ``s_i`` or ``bound`` is not an integer >= 1, ``s`` is empty or not of
        length ``3m``, does not sum to ``m B``, or some ``s_i`` is outside
        ``(B/4, B/2)``.

    Examples
    --------
    >>> inst = reduction_instance([5, 5, 5, 5, 5, 5], 15)
    >>> inst.hosts, inst.cpu.tolist()[:2]
    (2, [0.3333333333333333, 0.3333333333333333])

    References
    ----------
    .. [1] Stillwell, Schanzenbach, Vivien, Casanova (2009), Resource allocation using
       virtual clusters, Sec. 2.4.
    """
    items, bound, m = _check(s, bound)
    return VCInstance.from_lists(hosts=m, cpu=[x / bound for x in items], mem=[0.0] * len(items))


def is_yes_instance(s: Sequence[int], bound: int) -> bool:
    """Decide 3-Partition by enumeration (small instances only).

    Backtracking: the smallest remaining integer is grouped with every pair that
    completes ``B``; exponential in ``m``.

    Parameters
    ----------
    s : sequence of int
        The ``3m`` integers ``s_i``, each with ``B/4 < s_i < B/2``, summing to ``m B``
        (a list, tuple or numpy array; floats of integer value such as ``5.0`` are
        accepted, fractions and booleans are not).
    bound : int
        The target ``B`` of each group, an integer >= 1.

    Returns
    -------
    bool
        True if ``s`` splits into ``m`` triples each summing to ``B``.

    Raises
    ------
    InvalidInputError
        If an ``s_i`` or ``bound`` is not an integer >= 1, ``s`` is empty or not of
        length ``3m``, does not sum to ``m B``, or some ``s_i`` is outside
        ``(B/4, B/2)``.

    Examples
    --------
    >>> is_yes_instance([5, 5, 5, 5, 5, 5], 15), is_yes_instance([4, 4, 4, 6, 6, 6], 15)
    (True, False)
    >>> import numpy as np
    >>> is_yes_instance(np.array([5, 5, 5, 5, 5, 5]), np.int64(15))
    True
    >>> is_yes_instance([5.5, 4.5, 5, 5, 5, 5], 15)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: s[0] must be an integer >= 1; got 5.5
    """
    items, bound, m = _check(s, bound)
    items = sorted(items)

    def split(rest: list[int], groups: int) -> bool:
        if groups == 0:
            return not rest
        head, tail = rest[0], rest[1:]
        for j, k in itertools.combinations(range(len(tail)), 2):
            if head + tail[j] + tail[k] == bound:
                left = [x for n, x in enumerate(tail) if n not in (j, k)]
                if split(left, groups - 1):
                    return True
        return False

    return split(items, m)


def _enumeration_size(values: int, size: int, cap: int) -> int:
    """The number of multisets of ``size`` among ``values`` integers, or ``cap + 1`` if more.

    ``C(values + size - 1, size)``, computed term by term and stopped above ``cap``.
    """
    if values <= 0:
        return 0
    n, k = values + size - 1, min(values - 1, size)
    count = 1
    for i in range(1, k + 1):
        count = count * (n - k + i) // i
        if count > cap:
            return cap + 1
    return count


def enumerate_three_partition(m: int, bound: int) -> Iterator[tuple[int, ...]]:
    """Every multiset of ``3m`` integers in ``(B/4, B/2)`` summing to ``m*B``.

    All valid 3-Partition inputs of that size, for exhaustive tests of the reduction.
    The number grows fast: ``m`` and ``B`` must be small enough that the candidate
    multisets times their ``3m`` entries stay within ``MAX_ENUMERATION`` (10**7).

    Parameters
    ----------
    m : int
        Number of triples, an integer >= 1.
    bound : int
        The target ``B``, an integer >= 1.

    Returns
    -------
    Iterator[tuple of int]
        Non-decreasing tuples of ``3m`` integers, in lexicographic order.

    Raises
    ------
    InvalidInputError
        If ``m`` or ``bound`` is not an integer >= 1 (checked at the call, not at the
        first ``next``), or the enumeration would go beyond ``MAX_ENUMERATION``.

    Examples
    --------
    >>> sorted(enumerate_three_partition(1, 12))
    [(4, 4, 4)]
    >>> next(enumerate_three_partition(2, 20))
    (6, 6, 6, 6, 7, 9)
    >>> enumerate_three_partition(1, 10**6)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: m=1 and bound=1000000 give more than 3333333 ...
    """
    m = integer("m", m, minimum=1, maximum=MAX_ENUMERATION // 3)
    bound = integer("bound", bound, minimum=1)
    lo = bound // 4 + 1
    hi = (bound - 1) // 2 if bound % 2 == 0 else bound // 2
    cap = MAX_ENUMERATION // (3 * m)
    if _enumeration_size(hi - lo + 1, 3 * m, cap) > cap:
        raise InvalidInputError(
            f"m={m} and bound={bound} give more than {cap} candidate multisets of {3 * m} "
            f"integers; at most MAX_ENUMERATION = {MAX_ENUMERATION} entries are enumerated"
        )
    return _multisets(m, bound, lo, hi)


def _multisets(m: int, bound: int, lo: int, hi: int) -> Iterator[tuple[int, ...]]:
    """The enumeration itself (``enumerate_three_partition`` checks its arguments first)."""
    values = [v for v in range(lo, hi + 1) if bound / 4 < v < bound / 2]
    for combo in itertools.combinations_with_replacement(values, 3 * m):
        if sum(combo) == m * bound:
            yield combo
