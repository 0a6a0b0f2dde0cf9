"""VCSched is strongly NP-hard: the 3-Partition reduction (Stillwell et al., Sec. 2.4)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance

__all__ = ["enumerate_three_partition", "is_yes_instance", "reduction_instance"]


def _check(s: Sequence[int], bound: int) -> int:
    if len(s) % 3 or not s:
        raise InvalidInputError(f"3-Partition needs 3m integers; got {len(s)}")
    m = len(s) // 3
    if sum(s) != m * bound:
        raise InvalidInputError(f"3-Partition needs sum(s) == m*B = {m * bound}; got {sum(s)}")
    for x in s:
        if not bound / 4 < x < bound / 2:
            raise InvalidInputError(f"3-Partition needs B/4 < s_i < B/2; got {x} with B={bound}")
    return m


def reduction_instance(s: Sequence[int], bound: int) -> VCInstance:
    """The VCSched instance of the reduction: ``m`` hosts, jobs ``a_i = s_i / B``, no memory.

    A placement with minimum yield 1 exists iff the 3-Partition instance is a
    yes-instance: yield 1 needs every host's load ``<= 1``, and as the loads sum to
    ``m``, every host carries exactly ``B``; ``B/4 < s_i < B/2`` forces three jobs per
    host.

    Parameters
    ----------
    s : sequence of int
        The ``3m`` integers ``s_i``, each with ``B/4 < s_i < B/2``, summing to ``m B``.
    bound : int
        The target ``B`` of each group.

    Returns
    -------
    VCInstance
        ``m`` hosts and one single-task job per integer, CPU need ``s_i / B``, memory 0.

    Raises
    ------
    InvalidInputError
        If ``s`` is empty or not of length ``3m``, does not sum to ``m B``, or some
        ``s_i`` is outside ``(B/4, B/2)``.

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
    m = _check(s, bound)
    return VCInstance.from_lists(hosts=m, cpu=[x / bound for x in s], mem=[0.0] * len(s))


def is_yes_instance(s: Sequence[int], bound: int) -> bool:
    """Decide 3-Partition by enumeration (small instances only).

    Backtracking: the smallest remaining integer is grouped with every pair that
    completes ``B``; exponential in ``m``.

    Parameters
    ----------
    s : sequence of int
        The ``3m`` integers ``s_i``, each with ``B/4 < s_i < B/2``, summing to ``m B``.
    bound : int
        The target ``B`` of each group.

    Returns
    -------
    bool
        True if ``s`` splits into ``m`` triples each summing to ``B``.

    Raises
    ------
    InvalidInputError
        If ``s`` is empty or not of length ``3m``, does not sum to ``m B``, or some
        ``s_i`` is outside ``(B/4, B/2)``.

    Examples
    --------
    >>> is_yes_instance([5, 5, 5, 5, 5, 5], 15), is_yes_instance([4, 4, 4, 6, 6, 6], 15)
    (True, False)
    """
    m = _check(s, bound)
    items = sorted(s)

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


def enumerate_three_partition(m: int, bound: int) -> Iterator[tuple[int, ...]]:
    """Every multiset of ``3m`` integers in ``(B/4, B/2)`` summing to ``m*B``.

    All valid 3-Partition inputs of that size, for exhaustive tests of the reduction.
    The number grows fast: keep ``m`` and ``B`` small.

    Parameters
    ----------
    m : int
        Number of triples, >= 1.
    bound : int
        The target ``B``.

    Returns
    -------
    Iterator[tuple of int]
        Non-decreasing tuples of ``3m`` integers, in lexicographic order.

    Examples
    --------
    >>> sorted(enumerate_three_partition(1, 12))
    [(4, 4, 4)]
    >>> next(enumerate_three_partition(2, 20))
    (6, 6, 6, 6, 7, 9)
    """
    lo = bound // 4 + 1
    hi = (bound - 1) // 2 if bound % 2 == 0 else bound // 2
    values = [v for v in range(lo, hi + 1) if bound / 4 < v < bound / 2]
    for combo in itertools.combinations_with_replacement(values, 3 * m):
        if sum(combo) == m * bound:
            yield combo
