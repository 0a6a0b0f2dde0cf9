"""The event core: order, cancellation, and what it refuses."""

from __future__ import annotations

import math

import pytest

from allockit.errors import InvalidInputError
from allockit.simulation.events import EventQueue


def test_events_run_in_time_then_priority_then_scheduling_order():
    q = EventQueue()
    seen = []
    for t, p, name in ((2.0, 1, "c"), (1.0, 0, "a"), (2.0, 0, "b"), (2.0, 0, "b2")):
        q.schedule(t, name, priority=p)
    q.run(lambda ev: seen.append((q.now, ev.kind)))
    assert seen == [(1.0, "a"), (2.0, "b"), (2.0, "b2"), (2.0, "c")]


def test_a_cancelled_event_never_happens_and_cancel_twice_is_a_no_op():
    q = EventQueue()
    keep, drop = q.schedule(1.0, "keep"), q.schedule(0.5, "drop")
    q.cancel(drop)
    q.cancel(drop)
    seen = []
    q.run(lambda ev: seen.append(ev.kind))
    assert seen == ["keep"] and drop.cancelled and not keep.pending
    q.cancel(keep)  # (it happened: a no-op)
    assert len(q) == 0


def test_another_queue_s_event_is_refused_and_this_queue_still_runs():
    # it used to count as one of this queue's live events: the queue then stopped early
    q1, q2 = EventQueue(), EventQueue()
    q1.schedule(1.0, "a")
    foreign = q2.schedule(1.0, "b")
    with pytest.raises(InvalidInputError, match="an event this queue scheduled"):
        q1.cancel(foreign)
    with pytest.raises(InvalidInputError, match="an event this queue scheduled"):
        q1.cancel("not an event")
    seen = []
    q1.run(lambda ev: seen.append(ev.kind))
    assert seen == ["a"] and len(q2) == 1 and foreign.pending


@pytest.mark.parametrize("time", [math.nan, 4.0])
def test_a_time_in_the_past_or_nan_is_refused(time):
    q = EventQueue(start=5.0)
    with pytest.raises(InvalidInputError, match=r"must not be before the current simulation"):
        q.schedule(time, "late")
    with pytest.raises(ValueError):  # (InvalidInputError is a ValueError, as documented)
        q.schedule(time, "late")


def test_pop_simultaneous_takes_every_event_with_an_infinite_tolerance():
    q = EventQueue()
    for t in (1.0, 1.5, 3.0):
        q.schedule(t, "e", data=t)
    assert [e.data for e in q.pop_simultaneous(0.5)] == [1.0, 1.5]
    assert [e.data for e in q.pop_simultaneous(math.inf)] == [3.0]  # used to raise IndexError
    with pytest.raises(IndexError, match="empty event queue"):
        q.pop_simultaneous()


@pytest.mark.parametrize("tol", [-1.0, math.nan, "0", None])
def test_pop_simultaneous_refuses_a_tolerance_that_is_none(tol):
    q = EventQueue()
    q.schedule(1.0, "e")
    with pytest.raises(InvalidInputError, match="tol must be a number >= 0"):
        q.pop_simultaneous(tol)
    assert len(q) == 1  # nothing taken


def test_run_until_stops_before_later_events_and_refuses_the_past():
    q = EventQueue()
    for t in (1.0, 5.0):
        q.schedule(t, "e")
    q.run(lambda ev: None, until=3.0)
    assert q.now == 3.0 and len(q) == 1
    for until in (2.0, math.nan):
        with pytest.raises(InvalidInputError, match="must be greater than the current"):
            q.run(lambda ev: None, until=until)
