"""The one event core of every allockit simulator: a clock and a heap of future events.

In the spirit of SimPy's ``Environment``: ``now`` is the simulation time, events sit on
one heap ordered by ``(time, priority, sequence)`` so that ties break deterministically
(lower priority first, then first scheduled first), and ``run(until=...)`` hands each
event to the simulator's handler in that order. An event can be cancelled; it then
stays on the heap and is skipped when it comes up (cheaper than removing it).

The simulators keep their own state and decide what an event means; the core knows
nothing of jobs, nodes or managers. Batch (FCFS/EASY), DFRS, dynamic DRFH, the two-tier
(MEASY) and the cluster-reserves simulators all run on this class.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from typing import Any

from allockit.checks import real_number
from allockit.errors import InvalidInputError

__all__ = ["Event", "EventQueue"]

_PENDING, _DONE, _CANCELLED = 0, 1, 2


class Event:
    """A scheduled happening: ``kind`` and ``data`` are the simulator's own.

    Examples
    --------
    >>> q = EventQueue()
    >>> e = q.schedule(5.0, "tick")
    >>> e.time, e.kind, e.cancelled
    (5.0, 'tick', False)
    """

    __slots__ = ("_queue", "_state", "data", "kind", "priority", "time")

    def __init__(
        self, time: float, priority: Any, kind: Any, data: Any, queue: EventQueue | None = None
    ) -> None:
        self.time = time
        self.priority = priority
        self.kind = kind
        self.data = data
        self._state = _PENDING
        self._queue = queue  # the queue it is on (cancel() refuses another queue's events)

    @property
    def pending(self) -> bool:
        """True until the event happens or is cancelled."""
        return self._state == _PENDING

    @property
    def cancelled(self) -> bool:
        """True if the event was cancelled before it happened."""
        return self._state == _CANCELLED

    def __repr__(self) -> str:
        state = {_PENDING: "", _DONE: " done", _CANCELLED: " cancelled"}[self._state]
        return f"Event(time={self.time!r}, kind={self.kind!r}, data={self.data!r}{state})"


class EventQueue:
    """The clock and the future-event heap of one simulation run.

    Parameters
    ----------
    start : float
        Initial simulation time.

    Examples
    --------
    >>> q = EventQueue()
    >>> _ = q.schedule(2.0, "done", priority=1)
    >>> _ = q.schedule(1.0, "submit", data=7)
    >>> _ = q.schedule(2.0, "submit", priority=0)
    >>> seen = []
    >>> q.run(lambda ev: seen.append((q.now, ev.kind)))
    >>> seen
    [(1.0, 'submit'), (2.0, 'submit'), (2.0, 'done')]
    """

    __slots__ = ("_dead", "_heap", "_live", "_now", "_seq")

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        self._heap: list[tuple[float, Any, int, Event]] = []
        self._seq = itertools.count()
        self._live = 0
        self._dead = 0  # cancelled events still on the heap

    @property
    def now(self) -> float:
        """The current simulation time."""
        return self._now

    def __len__(self) -> int:
        """Events scheduled and not cancelled."""
        return self._live

    def schedule(self, time: float, kind: Any, data: Any = None, *, priority: Any = 0) -> Event:
        """Put an event on the heap and return it (keep it to cancel it later).

        Parameters
        ----------
        time : float
            When it happens; not before ``now``.
        kind, data
            The simulator's own description of the event.
        priority : comparable
            Order among events at the same time: lower first (an int, or a tuple
            compared element by element). Equal priorities keep scheduling order.

        Returns
        -------
        Event

        Raises
        ------
        InvalidInputError
            If ``time`` is NaN or earlier than ``now`` (a ``ValueError`` too).

        Examples
        --------
        >>> q = EventQueue(start=10.0)
        >>> q.schedule(5.0, "late")
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: time (5.0) must not be before the current ... (10.0)
        """
        time = float(time)
        if not time >= self._now:
            raise InvalidInputError(
                f"time ({time}) must not be before the current simulation time ({self._now})"
            )
        event = Event(time, priority, kind, data, self)
        heapq.heappush(self._heap, (time, priority, next(self._seq), event))
        self._live += 1
        return event

    def cancel(self, event: Event) -> None:
        """Cancel a scheduled event (a no-op if it was cancelled or already happened).

        Parameters
        ----------
        event : Event
            An event this queue's ``schedule`` returned.

        Raises
        ------
        InvalidInputError
            For anything else (another queue's event would leave this queue's count of
            live events wrong, and it would stop before its last event).

        Examples
        --------
        >>> q = EventQueue()
        >>> e = q.schedule(1.0, "done")
        >>> q.cancel(e); len(q), q.peek()
        (0, inf)
        """
        if getattr(event, "_queue", None) is not self:
            raise InvalidInputError(
                f"cancel() takes an event this queue scheduled; got {event!r}"
            )
        if event._state == _PENDING:
            event._state = _CANCELLED
            self._live -= 1
            self._dead += 1
            if self._dead > 1024 and self._dead > 2 * self._live:
                # drop the cancelled entries; the order of the rest is unchanged
                self._heap = [entry for entry in self._heap if entry[3]._state == _PENDING]
                heapq.heapify(self._heap)
                self._dead = 0

    def peek(self) -> float:
        """Time of the next live event, or ``inf`` when none is left."""
        heap = self._heap
        while heap and heap[0][3]._state != _PENDING:
            heapq.heappop(heap)
            self._dead -= 1
        return heap[0][0] if heap else math.inf

    def pop(self) -> Event:
        """Remove the next live event, move the clock to its time and return it.

        Raises
        ------
        IndexError
            If no live event is left.
        """
        heap = self._heap
        while heap:
            time, _, _, event = heapq.heappop(heap)
            if event._state != _PENDING:
                self._dead -= 1
                continue
            event._state = _DONE  # it happened: a later cancel() is a no-op
            self._live -= 1
            self._now = time
            return event
        raise IndexError("pop from an empty event queue")

    def pop_simultaneous(self, tol: float = 0.0) -> list[Event]:
        """Every live event within ``tol`` of the next one, in heap order.

        The clock moves to the first event's time. Simulators that handle all the
        events of one instant together (batch schedulers) use this.

        Parameters
        ----------
        tol : float, default 0
            Seconds after the first event's time (>= 0; ``inf`` takes every event).

        Returns
        -------
        list of Event
            The events, the first one first.

        Raises
        ------
        IndexError
            If no live event is left.
        InvalidInputError
            If ``tol`` is negative, NaN or not a number.

        Examples
        --------
        >>> q = EventQueue()
        >>> for t in (1.0, 1.0, 2.0):
        ...     _ = q.schedule(t, "e", data=t)
        >>> [e.data for e in q.pop_simultaneous()], q.now, len(q)
        ([1.0, 1.0], 1.0, 1)
        """
        tol = real_number("tol", tol, at_least=0, finite=False)
        first = self.pop()
        batch = [first]
        limit = first.time + tol
        while self._live and self.peek() <= limit:
            event = self.pop()
            batch.append(event)
        self._now = first.time
        return batch

    def run(self, handler: Callable[[Event], Any], until: float | None = None) -> None:
        """Hand every event to ``handler`` in order until none is left (or ``until``).

        Parameters
        ----------
        handler : callable
            Called with each event after the clock has moved to its time. It may
            schedule and cancel events.
        until : float, optional
            Stop before the first event later than ``until`` and set the clock to it.

        Raises
        ------
        InvalidInputError
            If ``until`` is before the current time or NaN (a ``ValueError`` too).

        Examples
        --------
        >>> q = EventQueue()
        >>> for t in (1.0, 5.0):
        ...     _ = q.schedule(t, "e")
        >>> q.run(lambda ev: None, until=3.0); q.now, len(q)
        (3.0, 1)
        >>> q.run(lambda ev: None, until=2.0)
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: until (2.0) must be greater than the current ... (3.0)
        """
        if until is not None and not until >= self._now:
            raise InvalidInputError(
                f"until ({until}) must be greater than the current simulation time ({self._now})"
            )
        while self._heap:
            if until is not None and self.peek() > until:
                break
            if not self._live:
                break
            handler(self.pop())
        if until is not None:
            self._now = float(until)
