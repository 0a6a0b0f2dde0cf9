"""The shared argument checks of ``allockit.checks``: what they accept and refuse."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from allockit.checks import first_bad_entry, integer, is_finite_real, is_real, real_number
from allockit.errors import InvalidInputError

NAN, INF = math.nan, math.inf


@pytest.mark.parametrize(
    "value", [0, 2, 0.5, np.float32(0.25), np.int64(3), np.uint8(1), Fraction(1, 3), 10**300]
)
def test_real_number_takes_reals_as_floats(value):
    out = real_number("x", value, at_least=0)
    assert isinstance(out, float) and out == float(value)


@pytest.mark.parametrize("value", [True, np.bool_(False), "1", None, 1j, [1.0], NAN, np.nan])
def test_real_number_refuses_non_numbers_and_nan(value):
    with pytest.raises(InvalidInputError, match=r"^x must be a number; got "):
        real_number("x", value, finite=False)


@pytest.mark.parametrize("value", [INF, -INF, 10**400, -(10**400), np.float64("inf")])
def test_infinities_refused_unless_allowed(value):
    with pytest.raises(InvalidInputError, match=r"^x must be a finite number; got "):
        real_number("x", value)
    assert real_number("x", value, finite=False) == (INF if value > 0 else -INF)


@pytest.mark.parametrize(
    ("bounds", "inside", "outside", "words"),
    [
        ({"above": 0}, [1e-300, 5], [0, -1], "> 0"),
        ({"at_least": 0}, [0, 5], [-1e-300], ">= 0"),
        ({"below": 1}, [0.999, -5], [1, 2], "< 1"),
        ({"at_most": 1}, [1, -5], [1.0000001], "<= 1"),
        ({"at_least": 0, "below": 1}, [0, 0.5], [1, -0.1], r"in \[0, 1\)"),
        ({"above": 0, "at_most": 1}, [1, 0.5], [0, 1.5], r"in \(0, 1\]"),
        ({"at_least": 0.25, "at_most": 0.75}, [0.25, 0.75], [0.2, 0.8], r"in \[0.25, 0.75\]"),
    ],
)
def test_bounds_inclusive_and_strict(bounds, inside, outside, words):
    for value in inside:
        assert real_number("y", value, **bounds) == value
    for value in outside:
        with pytest.raises(InvalidInputError, match=rf"^y must be a finite number {words}; got "):
            real_number("y", value, **bounds)


def test_optional_and_note_in_the_message():
    assert real_number("b", None, optional=True) is None
    with pytest.raises(InvalidInputError, match=r"^b must be a finite number; got None$"):
        real_number("b", None)
    with pytest.raises(
        InvalidInputError,
        match=r"^b must be None or a finite number >= 2 \(the largest need\); got 1.5$",
    ):
        real_number("b", 1.5, at_least=2, optional=True, note="the largest need")


def test_infinity_within_open_bounds_when_allowed():
    assert real_number("cap", INF, above=0, finite=False) == INF
    with pytest.raises(InvalidInputError, match=r"got -inf"):
        real_number("cap", -INF, above=0, finite=False)


def test_predicates():
    assert is_real(1) and is_real(np.float16(1)) and is_real(NAN)
    assert not (is_real(True) or is_real("1") or is_real(None) or is_real(2j))
    assert is_finite_real(-1e308) and not is_finite_real(NAN)
    assert not (is_finite_real(INF) or is_finite_real(10**400) or is_finite_real(False))


def test_integer_and_first_bad_entry_still_refuse():
    assert integer("k", np.int32(4), minimum=0) == 4
    with pytest.raises(InvalidInputError, match=r"k must be an integer in \[0, 9\]; got 10"):
        integer("k", 10, minimum=0, maximum=9)
    x = np.array([[1.0, 2.0], [3.0, INF]])
    with pytest.raises(InvalidInputError, match=r"m\[1, 1\] must be finite; got inf"):
        first_bad_entry("m", x, x > 0, "finite")


@pytest.mark.parametrize("check", ["real_array", "float_array", "integer_array"])
def test_arrays_refuse_text_complex_and_python_bools_by_entry(check):
    import allockit.checks as checks

    f = getattr(checks, check)
    noun = "an integer" if check == "integer_array" else "a number"
    for values, where, shown in [(["1", "2"], "[0]", "'1'"), ([1 + 2j], "[0]", r"\(1\+2j\)"),
                                 ([0.5, True], "[1]", "True"), ((1, False), "[1]", "False"),
                                 ([[1.0, 2.0], [True, 3.0]], "[1, 0]", "True")]:
        with pytest.raises(InvalidInputError, match=rf"x\{where[:-1]}\] must be {noun}; "
                                                    rf"got {shown}"):
            f("x", values, ndim=np.ndim(values))
    # numpy's own booleans (a mask, an occupancy matrix) are 0 and 1, as they always were
    assert f("x", np.array([True, False])).tolist() == [1, 0]
    assert f("x", [1.0, 2.0]).tolist() == [1, 2]


def test_a_boolean_occupancy_matrix_still_gives_yields():
    # found by review: the first version of the array check refused numpy booleans
    from allockit.simulation.allocation import max_min_yields

    y = max_min_yields(np.array([[True, False], [True, False], [False, True]]),
                       np.array([0.5, 0.8, 0.3]))
    assert y.round(4).tolist() == [0.7692, 0.7692, 1.0]
