"""Theorem 1's schedule builder and checker refuse what they cannot decide."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.instances.workload import Platform, Workload
from allockit.proofs.theorem1 import MAX_TOL, Piece, build_schedule, check_schedule

NAN = math.nan


def _workload(nodes=1, tasks=1):
    return Workload.from_jobs(
        Platform(nodes=nodes), submit=[0], runtime=[50], tasks=[tasks], cpu=[1.0], mem=[0.1]
    )


W = _workload()
W2 = _workload(nodes=2)
FULL = [Piece(0, 0, 0, 0.0, 50.0)]


@pytest.mark.parametrize(
    ("workload", "pieces", "stretch", "options", "message"),
    [
        (W, [Piece(0, 0, 0, NAN, NAN)], 1.0, {},
         r"pieces\[0\]\.start must be a finite number; got nan"),
        (W, [Piece(0, 0, 0, 0.0, math.inf)], 1.0, {},
         r"pieces\[0\]\.end must be a finite number; got inf"),
        (W, [Piece(0, 0, 0, 1000.0, 1050.0)], NAN, {}, r"stretch must be .* >= 1 .*; got nan"),
        (W, FULL, math.inf, {}, r"stretch must be a finite number >= 1"),
        (W, FULL, 0.5, {}, r"stretch must be a finite number >= 1 .*; got 0.5"),
        (W, FULL, "2", {}, r"stretch must be .*; got '2'"),
        (W, [Piece(0, 0, 0, 0.0, 5.0)], 1.0, {"tol": NAN}, r"tol must be .*; got nan"),
        (W, [Piece(0, 0, 0, 0.0, 5.0)], 1.0, {"tol": math.inf}, r"tol must be .*; got inf"),
        (W, [Piece(0, 0, 0, 0.0, 5.0)], 1.0, {"tol": 0.5}, r"tol must be .* in \[0, 0.001\]"),
        (W, FULL, 1.0, {"tol": -1e-9}, r"tol must be"),
        (W, FULL, 1.0, {"tau": NAN}, r"tau must be a finite number >= 0 \(seconds\); got nan"),
        (W, [Piece(0, 0, 0, 0.0, 60.0), Piece(0, 0, 0, 70.0, 60.0)], 2.0, {},
         r"pieces\[1\]\.end must be a finite number >= start \(70\); got 60"),
        (W, [Piece(0, 0, 0.5, 0.0, 50.0), Piece(0, 0, 0.5, 0.0, 50.0)], 2.0, {},
         r"pieces\[0\]\.node must be an integer .*; got 0.5"),
        (W, [Piece(0, 0, True, 0.0, 50.0)], 1.0, {}, r"pieces\[0\]\.node .*; got True"),
        (W, [Piece(0, 0, -1, 0.0, 50.0)], 1.0, {}, r"pieces\[0\]\.node .*; got -1"),
        (W2, [Piece(0, 7, 0, 0.0, 50.0)], 1.0, {},
         r"pieces\[0\]\.task must be an integer in \[0, 0\]; got 7"),
        (W2, [Piece(0, 1.5, 0, 0.0, 50.0)], 1.0, {}, r"pieces\[0\]\.task .*; got 1.5"),
        (W2, [Piece(-1, 0, 0, 0.0, 50.0)], 1.0, {},
         r"pieces\[0\]\.job must be an integer in \[0, 0\]; got -1"),
        (W2, [*FULL, Piece(1, 0, 0, 0.0, 50.0)], 1.0, {}, r"pieces\[1\]\.job .*; got 1"),
        (W, [(0, 0, 0, 0.0, 50.0)], 1.0, {}, r"pieces\[0\] must be a Piece"),
        (W, 5, 1.0, {}, r"pieces must be a list of Piece; got 5"),
        ({"nodes": 1}, FULL, 1.0, {}, r"workload must be .*Workload; got dict"),
    ],
)
def test_check_schedule_refuses_malformed_arguments(workload, pieces, stretch, options, message):
    with pytest.raises(InvalidInputError, match=message):
        check_schedule(workload, pieces, stretch, **options)


def test_check_schedule_answers_as_before_on_valid_input():
    assert check_schedule(W, FULL, 1.0) == []
    assert check_schedule(W, [Piece(0, 0, 0, 0.0, 5.0)], 1.0) == [
        "task 0 of job 0 gets 5.0 instead of 50.0"
    ]
    assert check_schedule(W, [Piece(0, 0, 1, 10.0, 60.0)], 1.0) == [
        "job 0 runs outside its window",
        "node 1 does not exist",  # a node beyond the platform is reported, not refused
    ]
    assert check_schedule(W, FULL, 1.0, tol=MAX_TOL, tau=0) == []
    assert check_schedule(W, [Piece(0, 0, 0, 0.0, 25.0), Piece(0, 0, 0, 25.0, 25.0)], 1.0) == [
        "task 0 of job 0 gets 25.0 instead of 50.0"
    ]  # a piece of length 0 is allowed


def test_check_schedule_takes_numpy_scalars_and_whole_floats_as_python_numbers():
    numpy_piece = Piece(np.int64(0), 0.0, np.int32(0), np.float32(0.0), np.float64(50.0))
    assert check_schedule(W, [numpy_piece], np.float32(1.0), tol=np.float64(1e-6)) == []
    assert check_schedule(W, (pc for pc in FULL), 1) == []  # any iterable, read once


def test_two_jobs_cannot_share_one_node_through_a_fractional_node():
    w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[50, 50], tasks=[1, 1],
                           cpu=[1.0, 1.0], mem=[0.1, 0.1])
    both = [Piece(0, 0, 0, 0.0, 50.0), Piece(1, 0, 0, 0.0, 50.0)]
    assert check_schedule(w, both, 2.0) == ["node 0 runs two pieces at once"]
    assert check_schedule(w, iter(both), 2.0) == ["node 0 runs two pieces at once"]
    with pytest.raises(InvalidInputError, match=r"pieces\[1\]\.node"):
        check_schedule(w, [Piece(0, 0, 0, 0.0, 50.0), Piece(1, 0, 0.5, 0.0, 50.0)], 2.0)


@pytest.mark.parametrize(
    ("ends", "alpha", "message"),
    [
        (np.array([0.0, 0.0]), np.array([[1.0]]),
         r"ends\[1\] must be finite and > the previous endpoint; got 0.0"),
        (np.array([0.0, 50.0, 20.0]), np.array([[1.0, 0.0]]), r"ends\[2\] must be finite"),
        (np.array([0.0, NAN]), np.array([[1.0]]), r"ends\[1\] .*; got nan"),
        (np.array([]), np.zeros((1, 0)), r"ends must hold at least one interval endpoint"),
        (np.array([[0.0, 50.0]]), np.array([[1.0]]), r"ends must be one-dimensional"),
        (np.array([0.0, 50.0]), np.array([[math.inf]]),
         r"alpha\[0, 0\] must be a fraction in \[0, 1\]; got inf"),
        (np.array([0.0, 50.0]), np.array([[-0.5]]), r"alpha\[0, 0\] .*; got -0.5"),
        (np.array([0.0, 50.0]), np.array([[1.0, 0.0]]),
         r"alpha must have shape \(n_jobs, n_intervals\) = \(1, 1\); got \(1, 2\)"),
        (np.array([0.0, 50.0]), np.array([1.0]), r"alpha must be two-dimensional"),
        (np.array([0.0, 50.0]), [["a"]], r"alpha\[0, 0\] must be a number; got 'a'"),
        (np.array([0.0, 1e-300]), np.array([[1.0]]),
         r"alpha\[:, 0\] puts 50 node-seconds of work in interval 0 .* more than"),
    ],
)
def test_build_schedule_refuses_what_is_no_lp_solution(ends, alpha, message):
    with pytest.raises(InvalidInputError, match=message):
        build_schedule(W, ends, alpha)


def test_build_schedule_refuses_anything_but_a_workload():
    with pytest.raises(InvalidInputError, match=r"workload must be"):
        build_schedule(None, np.array([0.0, 50.0]), np.array([[1.0]]))


def test_build_schedule_answers_as_before_on_valid_input():
    expected = [Piece(0, 0, 0, 0.0, 50.0)]
    assert build_schedule(W, np.array([0.0, 50.0]), np.array([[1.0]])) == expected
    assert build_schedule(W, [0, 50], [[1]]) == expected  # lists are arrays too
    two = _workload(nodes=2, tasks=2)  # two tasks wrap onto the second node
    assert build_schedule(two, np.array([0.0, 50.0]), np.array([[1.0]])) == [
        Piece(0, 0, 0, 0.0, 50.0),
        Piece(0, 1, 1, 0.0, 50.0),
    ]


@given(share=st.floats(0.0, 1.0), nodes=st.integers(1, 3), data=st.data())
def test_built_schedules_of_lp_solutions_are_checked_valid(share, nodes, data):
    # one job of |T| <= |P| tasks over [0, 50) and [50, 100): a solution of the system
    tasks = data.draw(st.integers(1, nodes))
    w = _workload(nodes=nodes, tasks=tasks)
    ends, alpha = np.array([0.0, 50.0, 100.0]), np.array([[share, 1.0 - share]])
    assert check_schedule(w, build_schedule(w, ends, alpha), 2.0) == []


def test_more_work_than_an_interval_holds_is_refused_not_laid_out():
    w = _workload(nodes=1, tasks=2)
    with pytest.raises(InvalidInputError, match=r"more than its 1 nodes can do \(50\)"):
        build_schedule(w, np.array([0.0, 50.0, 100.0]), np.array([[1.0, 0.0]]))
