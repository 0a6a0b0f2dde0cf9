"""Dynamic DRFH: users join and leave, tasks run for a duration (Wang, Li, Liang 2014, Sec. VI).

An event-driven simulation on individual machines: at every event (a user arriving, tasks
finishing) the freed capacity is refilled task by task, always serving the active user
with the lowest weighted global dominant share, on the First-Fit or Best-Fit machine
(the same compiled loop as the static heuristics). The trace records every user's global
dominant share and the CPU/memory utilisation after each event.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from allockit.errors import InvalidInputError
from allockit.instances.drfh import DRFHInstance

__all__ = [
    "DynamicTrace",
    "UserArrival",
    "fig4_scenario",
    "fig5_comparison",
    "mean_utilization",
    "simulate_drfh",
]


@dataclass(frozen=True, slots=True)
class UserArrival:
    """A user joining at ``time`` with ``tasks`` tasks of ``duration`` seconds each."""

    name: str
    time: float
    demand: tuple[float, ...]
    tasks: int
    duration: float
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class DynamicTrace:
    """Times, per-user global dominant shares ``(events, users)`` and utilisation."""

    times: np.ndarray
    shares: np.ndarray
    utilization: np.ndarray
    departures: dict[str, float]
    user_names: tuple[str, ...]

    def share_at(self, time: float) -> np.ndarray:
        """The shares in force at ``time`` (after the last event at or before it)."""
        k = int(np.searchsorted(self.times, time, side="right")) - 1
        return self.shares[max(k, 0)]


def simulate_drfh(
    servers: list[dict],
    resources: list[str],
    users: list[UserArrival],
    *,
    best: bool = True,
    slots: int | None = None,
) -> DynamicTrace:
    """Run the dynamic simulation; ``servers`` as in a DRFH instance's JSON.

    ``best`` chooses Best-Fit (default) or First-Fit DRFH. With ``slots=s`` the slot
    scheduler runs instead: every machine holds ``floor(min_r c_r / slot_r)`` slots of
    1/``s`` of the largest machine, a task takes one slot if its demand fits the slot, and
    free slots go to the user holding the fewest (weighted).

    Raises
    ------
    InvalidInputError
        On invalid servers or user demands (checked through ``DRFHInstance``).
    """
    from allockit.heuristics.kernels import drfh_tasks_kernel

    if not users:
        raise InvalidInputError("users must hold at least one arrival")
    for u in users:
        if u.tasks < 0 or u.duration <= 0:
            raise InvalidInputError(f"user {u.name!r} needs tasks >= 0 and duration > 0")
    instance = DRFHInstance.from_dict(
        {
            "resources": resources,
            "servers": servers,
            "users": [
                {"name": u.name, "demand": list(u.demand), "weight": u.weight, "tasks": u.tasks}
                for u in users
            ],
        }
    )
    free = np.repeat(instance.share_capacity, instance.count, axis=0).copy()
    if slots is not None:
        if slots < 1:
            raise InvalidInputError(f"slots must be >= 1; got {slots}")
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
    events: list[tuple[float, int, int, int, int]] = []  # (time, kind, user, machine, count)
    seq = 0
    for i, u in enumerate(users):
        heapq.heappush(events, (u.time, 0, i, -1, seq))
        seq += 1
    times, shares, util, departures = [], [], [], {}
    total = float(sum(u.tasks for u in users))
    while events:
        now = events[0][0]
        while events and events[0][0] <= now + 1e-9:
            _, kind, i, machine, count = heapq.heappop(events)
            if kind == 0:
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
                    departures[users[i].name] = now
        if slots is None:
            placed = drfh_tasks_kernel(free, D, dom, w, pending, best, share)
        else:
            placed = _fill_slots(slot_free, pending, running, w, fits_slot)
            share += dom * placed.sum(axis=1)
        for i, machine in zip(*np.nonzero(placed), strict=True):
            count = int(placed[i, machine])
            running[i] += count
            heapq.heappush(events, (now + users[i].duration, 1, int(i), int(machine), count))
        times.append(now)
        shares.append(share.copy())
        used = (running[:, None] * D).sum(axis=0)
        util.append(used)
        if done.sum() >= total:
            break
    return DynamicTrace(
        np.array(times), np.array(shares), np.array(util), departures, instance.user_names
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


def fig4_scenario(*, seed: int = 0, servers: int = 100, best: bool = True) -> DynamicTrace:
    """The paper's Fig. 4: three users on ``servers`` machines drawn from the Google mix.

    User 1 (0.2 CPU, 0.3 memory per task) joins at 0, user 2 (0.5, 0.1) at 200 s, user 3
    (0.1, 0.3) at 500 s. The paper gives no task counts or durations; here every task
    lasts 100 s and the users bring 600, 1,200 and 1,200 tasks (a documented choice that
    keeps all three active together for a while, as in the figure).
    """
    from allockit.instances.drfh import google_servers

    pool = google_servers(servers, seed=seed)
    users = [
        UserArrival("user1", 0.0, (0.2, 0.3), 600, 100.0),
        UserArrival("user2", 200.0, (0.5, 0.1), 1200, 100.0),
        UserArrival("user3", 500.0, (0.1, 0.3), 1200, 100.0),
    ]
    return simulate_drfh(pool, ["cpu", "mem"], users, best=best)


def mean_utilization(trace: DynamicTrace) -> np.ndarray:
    """Time-weighted mean utilisation of each resource over the whole run."""
    if trace.times.size < 2:
        return trace.utilization[0] if trace.utilization.size else np.zeros(0)
    dt = np.diff(trace.times)
    return (trace.utilization[:-1] * dt[:, None]).sum(axis=0) / dt.sum()


def fig5_comparison(
    *, servers: int = 2000, users: int = 300, hours: float = 24.0, seed: int = 0, slots: int = 14
) -> dict[str, DynamicTrace]:
    """Best-Fit DRFH, First-Fit DRFH and slots on one synthetic day (like the paper's Fig. 5).

    ``users`` users arrive uniformly over ``hours`` with demands from ``random_users``
    (up to 20 % of the largest server per resource), log-uniform task counts (10 to
    2,000) and task durations (1 minute to 1 hour). The Google trace itself is not
    shipped; ``instances.google_trace.users_from_task_events`` reads it when available.
    """
    from allockit.instances.drfh import google_servers, random_users
    from allockit.rng import as_generator

    rng = as_generator(seed)
    pool = google_servers(servers, seed=rng)
    people = random_users(users, seed=rng, max_share=0.2, tasks=(10, 2000))
    arrivals = np.sort(rng.uniform(0, hours * 3600, users))
    durations = np.exp(rng.uniform(np.log(60), np.log(3600), users))
    trace_users = [
        UserArrival(p["name"], float(t), tuple(p["demand"]), int(p["tasks"]), float(d))
        for p, t, d in zip(people, arrivals, durations, strict=True)
    ]
    return {
        "best-fit": simulate_drfh(pool, ["cpu", "mem"], trace_users, best=True),
        "first-fit": simulate_drfh(pool, ["cpu", "mem"], trace_users, best=False),
        f"slots-{slots}": simulate_drfh(pool, ["cpu", "mem"], trace_users, slots=slots),
    }
