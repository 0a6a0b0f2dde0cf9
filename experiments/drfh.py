"""DRFH reproductions: the paper's Fig. 4 (three users over time) and Fig. 5 (utilisation).

Wang, Li, Liang (2014), Sec. VI. Both run the dynamic simulator
(``allockit.simulation.drfh_dynamic``) on servers drawn from the Google mix.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from allockit.checks import integer, real_number
from allockit.errors import InvalidInputError
from allockit.instances.drfh import UserArrival
from allockit.results import DynamicTrace
from allockit.simulation.drfh_dynamic import simulate_drfh

__all__ = ["check_scenario", "fig4_scenario", "fig5_comparison"]

#: Most servers or users a synthetic scenario draws (the Google mix has 12,583 servers).
MAX_DRAWN = 10**7


def check_scenario(**arguments: Any) -> None:
    """Check the arguments the DRFH scenarios share, by name, before any work.

    ``servers`` and ``users`` are integers in [1, ``MAX_DRAWN``] (``servers`` may be
    None: the whole Google mix), ``slots`` and ``per_largest`` integers >= 1, ``seed``
    and ``server_seed`` integers in [0, 2**63 - 1], ``hours`` a finite number > 0,
    ``best`` a bool; other names are not checked here.

    Parameters
    ----------
    **arguments
        The arguments as given.

    Raises
    ------
    InvalidInputError
        Naming the first argument that breaks its rule, and its value.

    Examples
    --------
    >>> check_scenario(servers=10, users=5, hours=1.0, seed=0)
    >>> check_scenario(users=2.5)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: users must be an integer in [1, 10000000]; got 2.5
    """
    for name, value in arguments.items():
        if name in ("servers", "users") and not (name == "servers" and value is None):
            integer(name, value, minimum=1, maximum=MAX_DRAWN)
        elif name in ("slots", "per_largest"):
            integer(name, value, minimum=1)
        elif name in ("seed", "server_seed"):
            integer(name, value, minimum=0, maximum=2**63 - 1)
        elif name == "hours":
            real_number(name, value, above=0)
        elif name == "best" and not isinstance(value, bool | np.bool_):
            raise InvalidInputError(f"best must be True or False; got {value!r}")


def fig4_scenario(*, seed: int = 0, servers: int = 100, best: bool = True) -> DynamicTrace:
    """The paper's Fig. 4: three users on ``servers`` machines drawn from the Google mix.

    User 1 (0.2 CPU, 0.3 memory per task) joins at 0, user 2 (0.5, 0.1) at 200 s, user 3
    (0.1, 0.3) at 500 s. The paper gives no task counts or durations; here every task
    lasts 100 s and the users bring 600, 1,200 and 1,200 tasks (a documented choice that
    keeps all three active together for a while, as in the figure).

    Parameters
    ----------
    seed : int, default 0
        Seed of the server draw.
    servers : int, default 100
        Number of servers drawn from the Google mix (``google_servers``).
    best : bool, default True
        Best-Fit DRFH, or First-Fit DRFH if False.

    Returns
    -------
    DynamicTrace
        Each user's global dominant share and the CPU/memory utilisation after every
        event (times in seconds), and when each user's last task finished.

    Raises
    ------
    InvalidInputError
        For an argument ``check_scenario`` refuses.

    Examples
    --------
    A small pool (10 servers) keeps the run to milliseconds:

    >>> trace = fig4_scenario(servers=10)
    >>> trace.user_names, trace.shares.shape[1], str(trace.status)
    (('user1', 'user2', 'user3'), 3, 'completed')
    >>> sorted(trace.departures.items())
    [('user1', 14700.0), ('user2', 27100.0), ('user3', 27600.0)]

    References
    ----------
    .. [1] W. Wang, B. Li, B. Liang (2014), Dominant resource fairness in cloud
       computing systems with heterogeneous servers, INFOCOM, Sec. VI, Fig. 4.
    """
    from allockit.instances.drfh import google_servers

    check_scenario(seed=seed, servers=servers, best=best)
    pool = google_servers(int(servers), seed=int(seed))
    users = [
        UserArrival("user1", 0.0, (0.2, 0.3), 600, 100.0),
        UserArrival("user2", 200.0, (0.5, 0.1), 1200, 100.0),
        UserArrival("user3", 500.0, (0.1, 0.3), 1200, 100.0),
    ]
    return simulate_drfh(pool, ["cpu", "mem"], users, best=best)


def fig5_comparison(
    *, servers: int = 2000, users: int = 300, hours: float = 24.0, seed: int = 0, slots: int = 14
) -> dict[str, DynamicTrace]:
    """Best-Fit DRFH, First-Fit DRFH and slots on one synthetic day (like the paper's Fig. 5).

    ``users`` users arrive uniformly over ``hours`` with demands from ``random_users``
    (up to 20 % of the largest server per resource), log-uniform task counts (10 to
    2,000) and task durations (1 minute to 1 hour). The Google trace itself is not
    shipped; ``instances.google_trace.users_from_task_events`` reads it when available.

    The three schedulers see the same servers and users.

    Parameters
    ----------
    servers : int, default 2000
        Number of servers drawn from the Google mix.
    users : int, default 300
        Number of users.
    hours : float, default 24.0
        Length of the arrival window in hours.
    seed : int, default 0
        Seed of the servers, users, arrivals and durations.
    slots : int, default 14
        Slots per largest server for the slot scheduler (the paper's best).

    Returns
    -------
    dict of str to DynamicTrace
        ``"best-fit"``, ``"first-fit"`` and ``"slots-<slots>"``; compare them with
        ``allockit.simulation.drfh_dynamic.mean_utilization``.

    Raises
    ------
    InvalidInputError
        For an argument ``check_scenario`` refuses.

    Examples
    --------
    >>> from allockit.simulation.drfh_dynamic import mean_utilization
    >>> runs = fig5_comparison(servers=20, users=5, hours=1.0, seed=0)
    >>> {name: mean_utilization(t).round(3).tolist() for name, t in runs.items()}
    {'best-fit': [0.475, 0.604], 'first-fit': [0.464, 0.591], 'slots-14': [0.0, 0.0]}

    References
    ----------
    .. [1] W. Wang, B. Li, B. Liang (2014), Dominant resource fairness in cloud
       computing systems with heterogeneous servers, INFOCOM, Sec. VI, Fig. 5.
    """
    from allockit.instances.drfh import google_servers, random_users
    from allockit.rng import as_generator

    check_scenario(servers=servers, users=users, hours=hours, seed=seed, slots=slots)
    servers, users, hours, slots = int(servers), int(users), float(hours), int(slots)
    rng = as_generator(int(seed))
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
