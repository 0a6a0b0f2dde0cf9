"""DRFH Table II and Fig. 5 re-examined: what a synthetic workload can and cannot show.

Wang, Li, Liang (2014), Sec. VI: utilisation of Best-Fit DRFH, First-Fit DRFH and the
slot scheduler (10-20 slots per largest server) over a day of the Google trace on 2,000
servers. The trace is not available offline; these functions run the same schedulers
on synthetic users whose demand shape (CPU against memory), size range and total amount
are parameters, so that the dependence of Table II's shape on the workload can be shown:
``table2_snapshot`` fills the cluster once (allockit's Table II-like figure),
``slot_coverage`` gives the share of each resource that full slots can reach on a server
mix, and ``heavy_day`` runs a dynamic day loaded beyond the cluster's capacity (Fig. 5).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from allockit.checks import integer, real_number
from allockit.errors import InvalidInputError
from allockit.experiments.drfh import check_scenario

__all__ = ["PAPER_TABLE2", "heavy_day", "slot_coverage", "table2_snapshot"]

#: The paper's Table II: slots per largest server -> (CPU %, memory %).
PAPER_TABLE2 = {
    10: (35.1, 23.4),
    12: (42.2, 27.4),
    14: (43.9, 28.0),
    16: (45.4, 24.2),
    20: (40.6, 20.0),
}


def slot_coverage(servers: Sequence[dict[str, Any]], per_largest: int) -> tuple[float, float]:
    """The share of the pool's CPU and memory that slots cover when all are full.

    A server of capacity ``c`` holds ``floor(min_r c_r / slot_r)`` slots of
    1/``per_largest`` of the largest server (``heuristics.drfh_tasks.slots``); a server
    whose memory is the scarcer resource relative to the slot shape has all its memory
    but part of its CPU in slots, and the other way round. With tasks as large as a slot
    in both resources, these are the utilisations the slot scheduler would reach.

    Parameters
    ----------
    servers : sequence of dict
        Server classes (``capacity`` as [cpu, memory], ``count``), as
        ``instances.drfh.google_servers`` returns.
    per_largest : int
        Slots per largest server (>= 1).

    Returns
    -------
    tuple (float, float)
        Fractions of the total CPU and of the total memory inside slots.

    Raises
    ------
    InvalidInputError
        If ``per_largest`` is not an integer >= 1 (a fraction made fractional slots),
        or ``servers`` is empty.

    Examples
    --------
    >>> servers = [{"capacity": [1.0, 1.0], "count": 1}, {"capacity": [0.5, 0.25], "count": 1}]
    >>> [round(x, 3) for x in slot_coverage(servers, 14)]
    [0.81, 0.971]
    """
    check_scenario(per_largest=per_largest)
    if not servers:
        raise InvalidInputError("servers must list at least one server class; got none")
    cap = np.array([s["capacity"] for s in servers], dtype=float)
    count = np.array([s.get("count", 1) for s in servers], dtype=float)
    size = cap.max(axis=0) / per_largest
    per = np.floor(np.min(cap / size, axis=1) + 1e-9)
    covered = (per * count)[:, None] * size[None, :]
    total = cap * count[:, None]
    return float(covered[:, 0].sum() / total[:, 0].sum()), float(
        covered[:, 1].sum() / total[:, 1].sum()
    )


def _users(n, rng, *, min_share, max_share, mem_scale, tasks):
    from allockit.instances.drfh import random_users

    if not mem_scale > 0:
        raise InvalidInputError(f"mem_scale must be > 0; got {mem_scale!r}")
    users = random_users(n, seed=rng, min_share=min_share, max_share=max_share, tasks=tasks)
    for u in users:
        u["demand"] = [u["demand"][0], round(min(1.0, u["demand"][1] * mem_scale), 6)]
    return users


def table2_snapshot(
    *,
    servers: int = 2000,
    users: int = 200,
    server_seed: int = 3,
    seed: int = 5,
    min_share: float = 0.01,
    max_share: float = 0.1,
    mem_scale: float = 1.0,
    tasks: tuple[int, int] | None = None,
    slot_counts: Sequence[int] = (10, 12, 14, 16, 20),
) -> list[dict[str, Any]]:
    """Utilisation once the cluster is filled: Best-Fit, First-Fit and slot schedulers.

    The defaults are ``benchmarks/bench_drfh.py``'s Table II-like case (2,000 servers
    drawn from the Google mix with seed 3, 200 users with seed 5, demands log-uniform
    in [0.01, 0.1] of the largest server per resource, unbounded tasks). ``mem_scale``
    multiplies every memory demand (below 1: CPU-heavier tasks); ``tasks`` gives every
    user a finite number of tasks (log-uniform in the range) instead.

    Parameters
    ----------
    servers : int or None, default 2000
        Servers drawn from the Google mix (None: the whole mix, 12,583 servers; about
        20 s).
    users : int, default 200
        Synthetic users (``instances.drfh.random_users``).
    server_seed, seed : int, defaults 3 and 5
        Seeds of the server draw and of the users.
    min_share, max_share : float, defaults 0.01 and 0.1
        Range of each resource's demand per task.
    mem_scale : float, default 1.0
        Factor on every memory demand (> 0; capped at 1).
    tasks : tuple (int, int), optional
        Range of task counts per user; None (default): unbounded.
    slot_counts : sequence of int, default (10, 12, 14, 16, 20)
        Slots per largest server to try (the paper's Table II).

    Returns
    -------
    list of dict
        ``scheduler``, ``cpu`` and ``mem`` (utilisation in percent), and for slots
        ``slots`` and the paper's ``paper_cpu``/``paper_mem`` where it has them.

    Raises
    ------
    InvalidInputError
        For ``mem_scale <= 0``, a slot count that is not an integer >= 1, or invalid
        user or server parameters (``experiments.drfh.check_scenario``).

    Examples
    --------
    >>> rows = table2_snapshot(servers=20, users=5, slot_counts=(14,))
    >>> [r["scheduler"] for r in rows]
    ['Best-Fit DRFH', 'First-Fit DRFH', 'Slots, 14 per max server']
    >>> rows[0]["cpu"] >= rows[2]["cpu"]
    True
    """
    from allockit.heuristics.drfh_tasks import best_fit, first_fit, slots
    from allockit.instances.drfh import DRFHInstance, google_servers

    check_scenario(servers=servers, users=users, server_seed=server_seed, seed=seed)
    for k, count in enumerate(slot_counts):
        integer(f"slot_counts[{k}]", count, minimum=1)
    pool = google_servers(servers if servers is None else int(servers), seed=int(server_seed))
    people = _users(
        int(users),
        np.random.default_rng(int(seed)),
        min_share=min_share,
        max_share=max_share,
        mem_scale=mem_scale,
        tasks=tasks,
    )
    inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"], "servers": pool, "users": people})
    rows = []
    for name, fn in (("Best-Fit DRFH", best_fit), ("First-Fit DRFH", first_fit)):
        u = fn(inst).utilization
        rows.append({"scheduler": name, "cpu": 100 * float(u[0]), "mem": 100 * float(u[1])})
    for s in slot_counts:
        u = slots(inst, per_largest=s).utilization
        paper = PAPER_TABLE2.get(int(s), (None, None))
        rows.append(
            {
                "scheduler": f"Slots, {s} per max server",
                "slots": int(s),
                "cpu": 100 * float(u[0]),
                "mem": 100 * float(u[1]),
                "paper_cpu": paper[0],
                "paper_mem": paper[1],
            }
        )
    return rows


def heavy_day(
    *,
    servers: int = 100,
    users: int = 100,
    hours: float = 4.0,
    seed: int = 0,
    min_share: float = 0.01,
    max_share: float = 0.2,
    mem_scale: float = 1.0,
    tasks: tuple[int, int] = (10, 2000),
    slots: int = 14,
    window: tuple[float, float] = (0.25, 1.0),
    points: int = 400,
) -> dict[str, Any]:
    """A dynamic day loaded past the cluster's capacity: Best-Fit against First-Fit (Fig. 5).

    As ``experiments.drfh.fig5_comparison`` (users arriving uniformly over ``hours``,
    log-uniform task counts and durations of 1 minute to 1 hour), with the demand range
    and shape as parameters. Utilisations are compared on ``points`` instants spread
    over ``window`` (fractions of the arrival period; the default skips the first
    quarter, while the cluster fills).

    Parameters
    ----------
    servers : int, default 100
        Servers drawn from the Google mix.
    users : int, default 100
        Users arriving over the day.
    hours : float, default 4.0
        Arrival period in hours.
    seed : int, default 0
        Seed of servers, users, arrivals and durations.
    min_share, max_share : float, defaults 0.01 and 0.2
        Range of each resource's demand per task (fig5_comparison's: 0.01 to 0.2).
    mem_scale : float, default 1.0
        Factor on every memory demand (> 0).
    tasks : tuple (int, int), default (10, 2000)
        Range of task counts per user.
    slots : int, default 14
        Slots per largest server of the slot scheduler.
    window : tuple (float, float), default (0.25, 1.0)
        Part of the arrival period compared, as fractions (0 <= a < b).
    points : int, default 400
        Instants compared (>= 2).

    Returns
    -------
    dict
        ``offered_load`` ([cpu, mem]: the users' total work over the pool's capacity
        during the arrival period), per scheduler (``best-fit``, ``first-fit``,
        ``slots-<n>``) ``mean`` (time-weighted over the whole run), ``window_mean`` and
        ``seconds``; and ``best_at_least_first`` (fraction of the instants where
        Best-Fit's utilisation is at least First-Fit's, per resource) and
        ``best_minus_first`` (mean difference, percentage points).

    Raises
    ------
    InvalidInputError
        For an empty or reversed window, ``points`` not an integer >= 2, ``mem_scale
        <= 0`` or invalid user or server parameters (``experiments.drfh.check_scenario``).

    Examples
    --------
    >>> out = heavy_day(servers=10, users=6, hours=0.5, tasks=(10, 50), points=20)
    >>> sorted(out["runs"]), len(out["offered_load"])
    (['best-fit', 'first-fit', 'slots-14'], 2)
    """
    from allockit.instances.drfh import UserArrival, google_servers
    from allockit.simulation.drfh_dynamic import mean_utilization, simulate_drfh

    check_scenario(servers=servers, users=users, hours=hours, seed=seed, slots=slots)
    servers, users, hours, slots = int(servers), int(users), float(hours), int(slots)
    if isinstance(window, str) or not isinstance(window, Sequence) or len(window) != 2:
        raise InvalidInputError(f"window must be a pair (start, end); got {window!r}")
    a, b = (real_number("window", v, at_least=0) for v in window)
    if not a < b:
        raise InvalidInputError(f"window must satisfy 0 <= start < end; got {window!r}")
    points = integer("points", points, minimum=2, maximum=10**7)
    rng = np.random.default_rng(int(seed))
    pool = google_servers(servers, seed=rng)
    people = _users(
        users, rng, min_share=min_share, max_share=max_share, mem_scale=mem_scale, tasks=tasks
    )
    span = hours * 3600.0
    arrivals = np.sort(rng.uniform(0, span, users))
    durations = np.exp(rng.uniform(np.log(60), np.log(3600), users))
    trace_users = [
        UserArrival(p["name"], float(t), tuple(p["demand"]), int(p["tasks"]), float(d))
        for p, t, d in zip(people, arrivals, durations, strict=True)
    ]
    capacity = np.array(
        [[s["capacity"][0] * s["count"], s["capacity"][1] * s["count"]] for s in pool]
    ).sum(axis=0)
    work = sum(u.tasks * np.array(u.demand) * u.duration for u in trace_users)
    grid = np.linspace(a * span, b * span, points)
    runs, sampled = {}, {}
    for name, kwargs in (
        ("best-fit", {"best": True}),
        ("first-fit", {"best": False}),
        (f"slots-{slots}", {"slots": slots}),
    ):
        trace = simulate_drfh(pool, ["cpu", "mem"], trace_users, **kwargs)
        k = np.maximum(np.searchsorted(trace.times, grid, side="right") - 1, 0)
        sampled[name] = trace.utilization[k]
        runs[name] = {
            "mean": (100 * mean_utilization(trace)).tolist(),
            "window_mean": (100 * sampled[name].mean(axis=0)).tolist(),
            "seconds": trace.seconds,
        }
    diff = sampled["best-fit"] - sampled["first-fit"]
    return {
        "offered_load": (work / (capacity * span)).tolist(),
        "runs": runs,
        "best_at_least_first": (diff >= -1e-9).mean(axis=0).tolist(),
        "best_minus_first": (100 * diff.mean(axis=0)).tolist(),
    }
