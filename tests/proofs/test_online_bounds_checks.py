"""The online bounds refuse what they cannot compute, and always finish."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.proofs.online_bounds import (
    MAX_JOBS,
    equipartition,
    max_stretch,
    theorem3_instance,
    theorem4_instance,
)


def _previous_equipartition(release, size, max_steps=1_000):
    """The loop as it was before the input checks (None where it would not finish)."""
    release = np.asarray(release, dtype=float)
    left = np.asarray(size, dtype=float).copy()
    done = np.full(left.size, np.nan)
    now = float(release.min())
    for _ in range(max_steps):
        if not np.isnan(done).any():
            return done
        active = np.flatnonzero((release <= now + 1e-12) & np.isnan(done))
        future = release[(release > now + 1e-12) & np.isnan(done)]
        if active.size == 0:
            now = float(future.min())
            continue
        share = 1.0 / active.size
        finish = now + left[active].min() / share
        nxt = min(finish, float(future.min())) if future.size else finish
        left[active] -= (nxt - now) * share
        now = nxt
        for j in active[left[active] <= 1e-9 * np.maximum(1.0, size[active])]:
            done[j] = now
            left[j] = 0.0
    return None


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: theorem4_instance(1), r"n must be an integer in \[2, 1000000\]; got 1"),
        (lambda: theorem4_instance(0), r"n must be .*; got 0"),
        (lambda: theorem4_instance(2.5), r"n must be .*; got 2.5"),
        (lambda: theorem4_instance(True), r"n must be .*; got True"),
        (lambda: theorem4_instance(10**30), r"n must be an integer in \[2, 1000000\]"),
        (lambda: theorem3_instance(3, 1.0), r"lam must be a finite number > 1; got 1.0"),
        (lambda: theorem3_instance(3, 0.5), r"lam must be .*; got 0.5"),
        (lambda: theorem3_instance(3, math.nan), r"lam must be .*; got nan"),
        (lambda: theorem3_instance(3, math.inf), r"lam must be .*; got inf"),
        (lambda: theorem3_instance(0, 2.0), r"n must be an integer in \[1, 1000000\]; got 0"),
        (lambda: theorem3_instance(10**30, 2.0), r"n must be an integer in \[1, 1000000\]"),
        (lambda: theorem3_instance(100, 1e6), r"lam\*\*\(n - 1\) = 1e\+06\*\*99 is too large"),
        (lambda: max_stretch(np.zeros(2), np.array([1.0, 3.0]), np.array([10.0])),
         r"completion must have one entry per job \(2\); got shape \(1,\)"),
        (lambda: max_stretch(np.zeros(2), np.array([1.0]), np.array([1.0, 2.0])),
         r"size must have one entry per job \(2\); got shape \(1,\)"),
        (lambda: max_stretch(np.array([5.0]), np.array([1.0]), np.array([3.0])),
         r"completion\[0\] must be >= release\[0\] \(5\); got 3.0"),
        (lambda: max_stretch(np.zeros(1), np.ones(1), np.array([math.nan])),
         r"completion\[0\] must be a finite number; got nan"),
        (lambda: max_stretch(np.zeros(1), np.zeros(1), np.ones(1)),
         r"size\[0\] must be a finite number > 0; got 0.0"),
        (lambda: max_stretch([], [], []), r"release must hold at least one job"),
        (lambda: equipartition(np.array([0.0]), np.array([-1.0])),
         r"size\[0\] must be a finite number > 0; got -1.0"),
        (lambda: equipartition(np.array([0.0]), np.array([math.inf])), r"size\[0\] .*; got inf"),
        (lambda: equipartition(np.array([math.nan]), np.array([1.0])),
         r"release\[0\] must be a finite number; got nan"),
        (lambda: equipartition(np.zeros(2), np.ones(3)), r"size must have one entry per job"),
        (lambda: equipartition(np.zeros((1, 1)), np.ones(1)), r"release must be one-dimensional"),
        (lambda: equipartition([], []), r"release must hold at least one job; got none"),
        (lambda: equipartition(np.array([1e308]), np.array([1e308])),
         r"release and size are too large: completions .* would overflow a float"),
        # the next completion below the clock's float resolution: it could not advance
        (lambda: equipartition(np.array([1e17]), np.array([1.0])),
         r"at time 1e\+17, job 0 \(size\[0\] = 1\) has 1 left on a 1/1 share"),
        (lambda: equipartition(np.array([0.0, 1e16]), np.array([1.0, 1.0])),
         r"at time 1e\+16, job 1 \(size\[1\] = 1\)"),
        (lambda: equipartition(np.array([0.0, 1e30]), np.array([1.0, 1.0])),
         r"at time 1e\+30, job 1"),
        (lambda: equipartition(np.array([1e9, 1e9]), np.array([1e-3, 5.0])),
         r"at time 1e\+09, job 0 .* below the float resolution of the clock"),
    ],
)
def test_online_bounds_refuse_what_they_cannot_compute(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


def test_the_refused_stalls_are_exactly_where_the_previous_loop_never_finished():
    for release, size in [([1e17], [1.0]), ([0.0, 1e16], [1.0, 1.0]), ([1e9, 1e9], [1e-3, 5.0])]:
        assert _previous_equipartition(np.array(release), np.array(size)) is None


times = st.one_of(st.integers(0, 50).map(float), st.floats(0.0, 1e6), st.floats(1e14, 1e18))
sizes = st.one_of(st.integers(1, 20).map(float), st.floats(1e-6, 1e6))


@given(jobs=st.lists(st.tuples(times, sizes), min_size=1, max_size=8))
def test_equipartition_answers_as_before_wherever_it_finished(jobs):
    release = np.array([r for r, _ in jobs])
    size = np.array([p for _, p in jobs])
    before = _previous_equipartition(release, size)
    if before is None:  # the previous loop would not have finished: refused now
        with pytest.raises(InvalidInputError, match=r"float resolution"):
            equipartition(release, size)
        return
    after = equipartition(release, size)
    assert np.array_equal(after, before)
    assert (after >= release).all()
    assert equipartition(release.tolist(), size.tolist()).tolist() == after.tolist()


def test_instances_answer_as_before_and_take_numpy_scalars():
    release, size = theorem4_instance(4)
    assert release.tolist() == [0.0, 0.0, 3.0, 4.5] and size.tolist() == [3.0, 3.0, 1.5, 1.0]
    for same in (theorem4_instance(np.int64(4)), theorem4_instance(4.0)):
        assert [a.tolist() for a in same] == [release.tolist(), size.tolist()]
    assert [a.tolist() for a in theorem4_instance(2)] == [[0.0, 0.0], [1.0, 1.0]]
    release, size = theorem3_instance(3, 10.0)
    assert size.tolist() == [1.0, 10.0, 100.0] and release.tolist() == [0.0, 0.0, 0.0]
    assert theorem3_instance(np.int64(3), np.float32(10.0))[1].tolist() == size.tolist()
    assert theorem3_instance(1, 2)[1].tolist() == [1.0]
    assert max_stretch(release, size, equipartition(release, size)) == 3.0
    assert MAX_JOBS == 10**6
