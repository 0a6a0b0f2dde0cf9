"""Dynamic DRFH: users join and leave, tasks run for a duration (Wang, Li, Liang 2014, Sec. VI).

An event-driven simulation on individual machines, on the event core
(``allockit.simulation.events``): at every instant where users arrive or tasks finish
(events within 1e-9 s are one instant) the freed capacity is refilled task by task,
always serving the active user with the lowest weighted global dominant share, on the
First-Fit or Best-Fit machine (the compiled loop of the static heuristics). The trace
records every user's global dominant share and the CPU/memory utilisation after each
instant. The paper's Fig. 4 and Fig. 5 scenarios are in ``allockit.experiments.drfh``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from allockit.checks import integer, real_number
from allockit.errors import InvalidInputError
from allockit.instances.drfh import DRFHInstance, UserArrival
from allockit.results.drfh_dynamic import DynamicTrace
from allockit.simulation.events import EventQueue

__all__ = ["mean_utilization", "simulate_drfh"]

_ARRIVE, _FINISH = 0, 1
#: Events closer than this (s) are handled as one instant.
SIMULTANEOUS = 1e-9


def _check_arrivals(users: Sequence[UserArrival]) -> None:
    """Refuse an arrival whose time, task count or duration is no such thing, naming it."""
    for k, u in enumerate(users):
        what = f"users[{k}] ({u.name!r})"
        real_number(f"{what}.time", u.time, note="seconds")
        integer(f"{what}.tasks", u.tasks, minimum=0)
        real_number(f"{what}.duration", u.duration, above=0, note="seconds")


def simulate_drfh(
    servers: list[dict],
    resources: list[str],
    users: list[UserArrival],
    *,
    best: bool = True,
    slots: int | None = None,
) -> DynamicTrace:
    """Run the dynamic simulation; ``servers`` as in a DRFH instance's JSON.

    Parameters
    ----------
    servers : list of dict
        Server classes (``capacity``, ``count``) as in ``DRFHInstance.from_dict``.
    resources : list of str
        Resource names, in the order of the capacity and demand vectors.
    users : list of UserArrival
        Who arrives when, with how many tasks of which demand and duration.
    best : bool
        Best-Fit DRFH (default) or First-Fit DRFH.
    slots : int, optional
        Run the slot scheduler instead: every machine holds
        ``floor(min_r c_r / slot_r)`` slots of 1/``slots`` of the largest machine, a task
        takes one slot if its demand fits the slot, and free slots go to the user
        holding the fewest (weighted).

    Returns
    -------
    DynamicTrace

    Raises
    ------
    InvalidInputError
        On invalid servers or user demands (checked through ``DRFHInstance``), no users,
        an arrival time that is not a finite number, a task count that is not an
        integer >= 0, a duration that is not a finite number > 0, or ``slots`` that is
        not an integer >= 1.

    Examples
    --------
    >>> users = [UserArrival("a", 0.0, (0.5, 0.1), 2, 10.0),
    ...          UserArrival("b", 5.0, (0.1, 0.5), 2, 10.0)]
    >>> t = simulate_drfh([{"capacity": [1, 1]}], ["cpu", "mem"], users)
    >>> t.times.tolist(), dict(t.departures)
    ([0.0, 5.0, 10.0, 20.0], {'a': 10.0, 'b': 20.0})
    """
    from allockit.heuristics.drfh_kernels import drfh_tasks_kernel

    if not users:
        raise InvalidInputError("users must hold at least one arrival")
    _check_arrivals(users)
    if slots is not None:
        slots = integer("slots", slots, minimum=1)
    started = time.perf_counter()
    instance = DRFHInstance.from_dict(
        {
            "resources": resources,
            "servers": servers,
            "users": [
                {"name": u.name, "demand": list(u.demand), "weight": u.weight,
                 "tasks": int(u.tasks)}
                for u in users
            ],
        }
    )
    free = np.repeat(instance.share_capacity, instance.count, axis=0).copy()
    if slots is not None:
        size = instance.capacity.max(axis=0) / slots
        per = np.floor(np.min(instance.capacity / size, axis=1) + 1e-9).astype(np.int64)
        slot_free = np.repeat(per, instance.count).astype(float)  # free slots per machine
        fits_slot = (instance.demand <= size + 1e-12).all(axis=1)
    D, dom = np.ascontiguousarray(instance.share_demand), instance.dominant
    w = np.asarray(instance.weight, dtype=float)
    n = instance.n_users
    pending = np.zeros(n)
    running = np.zeros(n)
    share = np.zeros(n)
    done = np.zeros(n)
    events = EventQueue(start=min(0.0, min(u.time for u in users)))
    for i, u in enumerate(users):
        events.schedule(u.time, _ARRIVE, (i, -1, i), priority=(_ARRIVE, i, -1, i))
    times, shares, util, departures = [], [], [], {}
    total = float(sum(u.tasks for u in users))
    while events:
        for event in events.pop_simultaneous(SIMULTANEOUS):
            i, machine, count = event.data
            if event.kind == _ARRIVE:
                pending[i] = users[i].tasks
            else:
                if slots is None:
                    free[machine] += D[i] * count
                else:
                    slot_free[machine] += count
                running[i] -= count
                share[i] -= dom[i] * count
                done[i] += count
                if done[i] >= users[i].tasks and users[i].name not in departures:
                    departures[users[i].name] = events.now
        now = events.now
        if slots is None:
            placed = drfh_tasks_kernel(free, D, dom, w, pending, best, share)
        else:
            placed = _fill_slots(slot_free, pending, running, w, fits_slot)
            share += dom * placed.sum(axis=1)
        for i, machine in zip(*np.nonzero(placed), strict=True):
            count = int(placed[i, machine])
            running[i] += count
            data = (int(i), int(machine), count)
            events.schedule(now + users[i].duration, _FINISH, data, priority=(_FINISH, *data))
        times.append(now)
        shares.append(share.copy())
        used = (running[:, None] * D).sum(axis=0)
        util.append(used)
        if done.sum() >= total:
            break
    return DynamicTrace(
        np.array(times),
        np.array(shares),
        np.array(util),
        departures,
        instance.user_names,
        seconds=time.perf_counter() - started,
    )


def _fill_slots(
    slot_free: np.ndarray,
    pending: np.ndarray,
    running: np.ndarray,
    weight: np.ndarray,
    fits: np.ndarray,
) -> np.ndarray:
    """Give free slots, one at a time, to the user holding the fewest (weighted)."""
    n = pending.size
    placed = np.zeros((n, slot_free.size))
    held = running.copy()
    machines = np.flatnonzero(slot_free > 0)
    k = 0
    while k < machines.size:
        cand = np.flatnonzero((pending > 0) & fits)
        if cand.size == 0:
            break
        i = int(cand[np.argmin(held[cand] / weight[cand])])
        m = machines[k]
        take = 1
        placed[i, m] += take
        slot_free[m] -= take
        pending[i] -= take
        held[i] += take
        if slot_free[m] <= 0:
            k += 1
    return placed


def mean_utilization(trace: DynamicTrace) -> np.ndarray:
    """Time-weighted mean utilisation of each resource over the whole run.

    Each row of ``trace.utilization`` holds from its time to the next event's time;
    the last row (after the last event) has no duration and does not count. Used for
    the utilisation figures of Wang, Li, Liang (2014), Sec. VI.

    Parameters
    ----------
    trace : DynamicTrace
        A trace from ``simulate_drfh`` (times in seconds, utilisation as fractions of
        the pool's capacity of each resource).

    Returns
    -------
    numpy.ndarray, shape (n_resources,)
        Mean fraction of each resource in use, in [0, 1]; the only row of a one-event
        trace, the last row when every event happens at the same time (no duration to
        weigh by), or an empty array for an empty trace.

    Examples
    --------
    >>> t = DynamicTrace(np.array([0.0, 10.0, 30.0]), np.zeros((3, 1)),
    ...                  np.array([[1.0], [0.5], [0.0]]), {}, ("u",))
    >>> mean_utilization(t).tolist()
    [0.6666666666666666]
    >>> same = DynamicTrace(np.array([5.0, 5.0]), np.zeros((2, 1)),
    ...                     np.array([[1.0], [0.25]]), {}, ("u",))
    >>> mean_utilization(same).tolist()
    [0.25]
    """
    if trace.times.size < 2:
        return trace.utilization[0] if trace.utilization.size else np.zeros(0)
    dt = np.diff(trace.times)
    span = dt.sum()
    if not span > 0:  # every event at one instant: the state after them
        return trace.utilization[-1].copy()
    return (trace.utilization[:-1] * dt[:, None]).sum(axis=0) / span
