"""The yield allocations of ``simulation.allocation`` refuse what is no mapping or no tolerance."""

from __future__ import annotations

import math

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.simulation.allocation import (
    MAX_FILL_TOL,
    base_yield,
    max_avg_yields,
    max_min_affine,
    max_min_yields,
    min_avg_stretch,
)

C = np.array([[1, 0], [1, 0], [0, 1], [0, 1]], dtype=float)
U = np.array([1.0, 0.5, 0.4, 0.8])
A, B = np.zeros(4), np.ones(4)


def test_valid_mappings_keep_their_answers():
    assert base_yield(C, U) == pytest.approx(1 / 1.5)
    assert max_min_yields(C, U).round(4).tolist() == [0.6667, 0.6667, 0.8333, 0.8333]
    assert max_min_yields(C.astype(np.int64), U.astype(np.float32), tol=np.float64(0)).size == 4
    assert max_avg_yields(C, U).size == 4
    assert min_avg_stretch(C, U, A, B, rtol=np.float32(1e-6), max_rounds=np.int64(5)).size == 4


@pytest.mark.parametrize("fn", [base_yield, max_min_yields, max_avg_yields])
@pytest.mark.parametrize(("counts", "cpu", "named"), [
    (C, U[:, None], "cpu must be one-dimensional"),  # used to broadcast into 0.370
    (C[:, 0], U, "counts must be two-dimensional"),
    (C[:3], U, r"one row per job; got \(3, 2\) for 4 jobs"),
    (np.where(C == 1, math.nan, C), U, r"counts\[0, 0\] must be finite and >= 0; got nan"),
    (np.where(C == 1, math.inf, C), U, r"counts\[0, 0\] must be finite and >= 0; got inf"),
    (-C, U, r"counts\[0, 0\] must be finite and >= 0; got -1.0"),
    (C, np.array([1.0, math.nan, 0.4, 0.8]), r"cpu\[1\] must be in \(0, 1\]; got nan"),
    (C, np.array([1.0, 0.5, 0.0, 0.8]), r"cpu\[2\] must be in \(0, 1\]; got 0.0"),
    (C, [1, 0.5, "x", 0.8], r"cpu\[2\] must be a number; got 'x'"),
])
def test_a_mapping_that_is_none_is_refused(fn, counts, cpu, named):
    with pytest.raises(InvalidInputError, match=named):
        fn(counts, cpu)


@pytest.mark.parametrize("tol", [2.5, -1.0, math.nan, math.inf, MAX_FILL_TOL * 2, None, "0"])
def test_a_tolerance_that_is_no_rounding_is_refused(tol):
    # tol=2.5 used to give every job yield 1 with node 0 loaded at 1.5
    with pytest.raises(InvalidInputError, match=r"tol must be a finite number in \[0, 0.001\]"):
        max_min_yields(C, U, tol=tol)
    with pytest.raises(InvalidInputError, match=r"tol must be a finite number in \[0, 0.001\]"):
        max_min_affine(C, U, A, B, tol=tol)


@pytest.mark.parametrize(("a", "b", "named"), [
    (np.array([0, math.nan, 0, 0]), B, r"a\[1\] must be finite"),
    (A, np.array([1, 1, math.nan, 1]), r"b\[2\] must be finite and > 0; got nan"),
    (A, np.array([1, 1, 0, 1]), r"b\[2\] must be finite and > 0; got 0.0"),
    (A[:2], B, r"a and b need one entry per job \(4\)"),
])
def test_affine_terms_that_are_none_are_refused(a, b, named):
    with pytest.raises(InvalidInputError, match=named):
        max_min_affine(C, U, a, b)
    with pytest.raises(InvalidInputError, match=named):
        min_avg_stretch(C, U, a, b)


def test_min_avg_stretch_wants_offsets_of_zero_or_more():
    with pytest.raises(InvalidInputError, match=r"a\[0\] must be finite and >= 0; got -0.5"):
        min_avg_stretch(C, U, np.array([-0.5, 0, 0, 0]), B)
    with pytest.raises(InvalidInputError, match=r"max_rounds must be an integer >= 0; got 2.5"):
        min_avg_stretch(C, U, A, B, max_rounds=2.5)
