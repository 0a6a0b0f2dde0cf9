"""3-Partition inputs are integers: fractions, booleans and odd shapes are refused."""

import math

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.proofs.three_partition import (
    MAX_ENUMERATION,
    enumerate_three_partition,
    is_yes_instance,
    reduction_instance,
)

SIX = [5, 5, 5, 5, 5, 5]


@pytest.mark.parametrize(
    ("s", "bound", "message"),
    [
        ([5.5, 4.5, 5, 5, 5, 5], 15, r"s\[0\] must be an integer >= 1; got 5.5"),
        (SIX, 15.5, r"bound must be an integer >= 1; got 15.5"),
        ([True] * 3, 3, r"s\[0\] must be an integer .*; got True"),
        (np.array([True] * 3), 3, r"s\[0\] must be an integer .*; got np.True_"),
        (SIX, True, r"bound must be an integer .*; got True"),
        ([5, 5, math.nan, 5, 5, 5], 15, r"s\[2\] .*; got nan"),
        ([5, 5, "5", 5, 5, 5], 15, r"s\[2\] .*; got '5'"),
        (SIX, None, r"bound must be an integer .*; got None"),
        (SIX, 0, r"bound must be an integer .*; got 0"),
        ("555555", 15, r"s must be a sequence of integers; got '555555'"),
        (5, 15, r"s must be a sequence of integers; got 5"),
        (np.array([[5, 5, 5], [5, 5, 5]]), 15, r"s\[0\] must be an integer .*; got array"),
        ([], 15, r"3-Partition needs 3m integers; got 0"),
        ([5, 5, 5, 5], 10, r"3-Partition needs 3m integers; got 4"),
        ([5, 5, 5, 5, 5, 4], 15, r"sum\(s\) == m\*B = 30; got 29"),
        ([3, 6, 6], 15, r"B/4 < s_i < B/2; got 3 with B=15"),
    ],
)
def test_non_three_partition_inputs_are_refused(s, bound, message):
    with pytest.raises(InvalidInputError, match=message):
        is_yes_instance(s, bound)
    with pytest.raises(InvalidInputError, match=message):
        reduction_instance(s, bound)


def test_numpy_arrays_and_whole_floats_are_the_same_integers():
    for s in ([4, 4, 4, 6, 6, 6], [5, 5, 5, 5, 5, 5], [4, 5, 6, 4, 5, 6]):
        answer = is_yes_instance(s, 15)
        assert is_yes_instance(np.array(s), 15) is answer
        assert is_yes_instance(np.array(s, dtype=float), np.int64(15)) is answer
        assert is_yes_instance(tuple(float(x) for x in s), 15.0) is answer
        assert reduction_instance(np.array(s), np.int32(15)) == reduction_instance(s, 15)
    assert [is_yes_instance([4, 4, 4, 6, 6, 6], 15), is_yes_instance(SIX, 15)] == [False, True]


@pytest.mark.parametrize(
    ("m", "bound", "message"),
    [
        (math.nan, 10, r"m must be an integer in \[1, \d+\]; got nan"),
        (2.5, 10, r"m must be .*; got 2.5"),
        (-1, 10, r"m must be .*; got -1"),
        (0, 10, r"m must be .*; got 0"),
        (None, 10, r"m must be .*; got None"),
        (1, math.nan, r"bound must be an integer >= 1; got nan"),
        (1, 2.5, r"bound must be .*; got 2.5"),
        (1, -1, r"bound must be .*; got -1"),
        (1, None, r"bound must be .*; got None"),
        (1, 10**30, r"bound must be .*; got 10{30}"),
        (1, 10**6, r"m=1 and bound=1000000 give more than 3333333 candidate multisets"),
        (10**9, 3, r"m must be an integer in \[1, 3333333\]; got 1000000000"),
        (2000, 9, r"m=2000 and bound=9 give more than"),
    ],
)
def test_enumeration_refuses_bad_or_too_large_sizes_at_the_call(m, bound, message):
    with pytest.raises(InvalidInputError, match=message):
        enumerate_three_partition(m, bound)  # no next(): refused before iterating


def test_enumeration_answers_as_before_within_the_cap():
    assert sorted(enumerate_three_partition(1, 12)) == [(4, 4, 4)]
    assert list(enumerate_three_partition(2, 20)) == list(enumerate_three_partition(2.0, 20.0))
    assert next(enumerate_three_partition(np.int64(2), np.int64(20))) == (6, 6, 6, 6, 7, 9)
    assert list(enumerate_three_partition(1, 3)) == [(1, 1, 1)]
    assert len(list(enumerate_three_partition(1, 1000))) > 0  # near the cap, still quick
    assert MAX_ENUMERATION == 10**7
