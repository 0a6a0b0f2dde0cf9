"""ReservesInstance: the JSON contract of ``allockit reserves`` and its validation."""

import json

import numpy as np
import pytest
from hypothesis import given

from allockit.errors import InvalidInputError
from allockit.instances.reserves import ReservesInstance
from tests.strategies import reserves_instances

GOOD = {
    "problem": "reserves",
    "targets": [60, 30, 10],
    "allocation": [[60, 30, 10], [60, 30, 10]],
    "usage": [[66, 34, 0], [60, 30, 10]],
}


def _with(**changes):
    data = json.loads(json.dumps(GOOD))
    data.update(changes)
    return data


def test_round_trip_and_read_only():
    inst = ReservesInstance.from_dict(GOOD)
    assert inst.n_nodes == 2 and inst.n_classes == 3
    assert inst.to_dict() == json.loads(
        json.dumps(
            _with(
                targets=[60.0, 30.0, 10.0],
                allocation=[[60.0, 30.0, 10.0]] * 2,
                usage=[[66.0, 34.0, 0.0], [60.0, 30.0, 10.0]],
            )
        )
    )
    for arr in (inst.targets, inst.allocation, inst.usage):
        assert not arr.flags.writeable
    with pytest.raises(ValueError):
        inst.usage[0, 0] = 1.0


def test_problem_is_optional():
    data = _with()
    del data["problem"]
    assert ReservesInstance.from_dict(data).n_nodes == 2


@given(reserves_instances())
def test_any_valid_instance_round_trips(inst):
    again = ReservesInstance.from_dict(json.loads(json.dumps(inst.to_dict())))
    assert again.to_dict() == inst.to_dict()


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (
            _with(allocation=[[60, -2, 10], [60, 30, 10]]),
            r"allocation must be >= 0; got -2.0 at \(node 0, class 1\)",
        ),
        (
            _with(usage=[[66, 34, 0], [60, 30, -1]]),
            r"usage must be >= 0; got -1.0 at \(node 1, class 2\)",
        ),
        (_with(targets=[60, -30, 10]), r"targets must be >= 0; got -30.0 at \(class 1\)"),
        (
            _with(allocation=[[60, 30, 10], [70, 30, 10]]),
            r"allocation of a node must sum to at most 100; got 110.0 at \(node 1\)",
        ),
        (
            _with(usage=[[66, 34, 1], [60, 30, 10]]),
            r"usage of a node must sum to at most 100; got 101.0 at \(node 0\)",
        ),
        (_with(targets=[60, 40, 10]), r"targets must sum to at most 100; got 110.0"),
        (_with(allocation=[[60, 30], [60, 30, 10]]), r"allocation row 0 has 2 values; expected 3"),
        (_with(usage=[[66, 34, 0]]), r"usage has 1 rows; allocation has 2"),
        (
            _with(allocation=[[60, 30, 10], [60, float("nan"), 10]]),
            r"allocation must be finite; got nan at \(node 1, class 1\)",
        ),
        (
            _with(usage=[[float("inf"), 0, 0], [60, 30, 10]]),
            r"usage must be finite; got inf at \(node 0, class 0\)",
        ),
        (
            _with(allocation=[[60, True, 10], [60, 30, 10]]),
            r"allocation must hold numbers; got True at \(node 0, class 1\)",
        ),
        (
            _with(usage=[[66, "34", 0], [60, 30, 10]]),
            r"usage must hold numbers; got '34' at \(node 0, class 1\)",
        ),
        (_with(targets=[60, 30, "10"]), r"targets must hold numbers; got '10' at \(class 2\)"),
        (_with(targets="60,30,10"), r"targets must be a list of numbers"),
        (_with(allocation=[60, 30, 10]), r"allocation row 0 must be a list of numbers"),
        (_with(extra=1), r"unknown field 'extra'; accepted: problem, targets, allocation"),
        (_with(problem="drfh"), r"problem must be 'reserves'; got 'drfh'"),
        ({"targets": [50, 50], "allocation": [[50, 50]]}, r"missing field 'usage'"),
        (_with(targets=[], allocation=[[], []], usage=[[], []]), r"at least one class"),
        (_with(allocation=[], usage=[]), r"at least one node"),
        ([1, 2], r"must be a JSON object"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_invalid_input_names_the_field(data, match):
    with pytest.raises(InvalidInputError, match=match):
        ReservesInstance.from_dict(data)


def test_constructor_refuses_bool_arrays_and_wrong_shapes():
    with pytest.raises(InvalidInputError, match=r"targets must hold numbers; got dtype bool"):
        ReservesInstance(np.array([True]), np.zeros((1, 1)), np.zeros((1, 1)))
    with pytest.raises(InvalidInputError, match=r"allocation must have 2 dimension"):
        ReservesInstance(np.array([50.0]), np.zeros(1), np.zeros((1, 1)))
    with pytest.raises(InvalidInputError, match=r"allocation has 2 classes per node"):
        ReservesInstance(np.array([50.0]), np.zeros((1, 2)), np.zeros((1, 2)))
    with pytest.raises(InvalidInputError, match=r"usage has shape"):
        ReservesInstance(np.array([50.0]), np.zeros((2, 1)), np.zeros((1, 1)))


def test_small_round_off_over_100_is_accepted():
    inst = ReservesInstance.from_dict(_with(usage=[[66.0000000001, 34, 0], [60, 30, 10]]))
    assert inst.usage.sum(axis=1).max() > 100
