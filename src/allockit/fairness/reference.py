"""Weighted max-min fair shares with task caps, in closed form: the checker's reference.

Single-server DRF, single-resource fairness and bottleneck fairness (Wang, Li, Liang
2014, Sec. III-C) each say that on instances of one shape the allocation must be the
weighted max-min fair one. On those shapes the fair allocation has a closed form that
does not go through allockit's LP or progressive filling, so the check is independent
of the mechanisms it judges: user ``i`` gets the share ``x_i = min(w_i g, cap_i)`` for
the largest level ``g`` at which ``sum_i x_i u_ir <= C_r`` holds for every resource
``r`` (``u_ir``: resource ``r`` used per unit of share), found exactly between the
breakpoints ``cap_i / w_i``.

Examples
--------
Two users on one unit of a resource, weights 1 and 3: shares 1/4 and 3/4; capped at
0.1, the first leaves the rest to the second.

>>> water_fill(np.array([1.0, 3.0]), np.array([np.inf, np.inf]), np.ones((2, 1)),
...            np.array([1.0])).tolist()
[0.25, 0.75]
>>> water_fill(np.array([1.0, 3.0]), np.array([0.1, np.inf]), np.ones((2, 1)),
...            np.array([1.0])).round(6).tolist()
[0.1, 0.9]
"""

from __future__ import annotations

import numpy as np

from allockit.instances.drfh import DRFHInstance

__all__ = ["fair_tasks", "water_fill"]


def water_fill(
    weight: np.ndarray, cap: np.ndarray, usage: np.ndarray, capacity: np.ndarray
) -> np.ndarray:
    """Weighted max-min fair shares with caps: ``x_i = min(w_i g, cap_i)``, ``g`` largest.

    Parameters
    ----------
    weight : numpy.ndarray, shape (n,)
        Weights ``w_i > 0``.
    cap : numpy.ndarray, shape (n,)
        Largest share of each user (``inf`` for none).
    usage : numpy.ndarray, shape (n, m)
        Resource ``r`` used per unit of user ``i``'s share, ``>= 0``.
    capacity : numpy.ndarray, shape (m,)
        Amount of each resource.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The shares; every user at its cap when all caps fit.

    Examples
    --------
    One server (cpu 9, mem 18), DRF's example: users of demand (1, 4) and (3, 1) per
    task get 3 and 2 tasks (shares 2/3 each: 12 of 18 GB, 6 of 9 CPUs).

    >>> D = np.array([[1.0, 4.0], [3.0, 1.0]]) / np.array([9.0, 18.0])
    >>> star = D.max(axis=1)
    >>> x = water_fill(np.ones(2), np.full(2, np.inf), D / star[:, None], np.ones(2))
    >>> (x / star).round(6).tolist()
    [3.0, 2.0]
    """
    weight = np.asarray(weight, dtype=float)
    cap = np.asarray(cap, dtype=float)
    usage = np.asarray(usage, dtype=float)
    capacity = np.asarray(capacity, dtype=float)

    def load(level: float) -> np.ndarray:
        return np.minimum(weight * level, cap) @ usage

    levels = np.unique((cap / weight)[np.isfinite(cap)])
    floor = 0.0
    for level in levels:  # the last breakpoint at which everything fits
        if (load(float(level)) <= capacity * (1 + 1e-12) + 1e-15).all():
            floor = float(level)
        else:
            break
    frozen = np.isfinite(cap) & (cap / weight <= floor)
    if frozen.all():
        return cap.copy()
    fixed = np.where(frozen, cap, 0.0) @ usage
    rate = np.where(frozen, 0.0, weight) @ usage
    grows = rate > 0
    if not grows.any():
        return np.where(frozen, cap, np.inf)
    g = float(np.min((capacity[grows] - fixed[grows]) / rate[grows]))
    return np.where(frozen, cap, np.minimum(weight * max(g, floor), cap))


def fair_tasks(instance: DRFHInstance, kind: str) -> np.ndarray:
    """The weighted max-min fair (divisible) tasks of each user on an instance of a shape.

    Parameters
    ----------
    instance : DRFHInstance
        Of the shape ``kind`` requires (checked by the caller).
    kind : {"single_server_drf", "single_resource_fairness", "bottleneck_fairness"}
        ``single_server_drf``: one server; DRF with weights and caps (dominant shares of
        that server). ``single_resource_fairness``: one resource on any servers; max-min
        of the resource's shares (divisible tasks pool the servers).
        ``bottleneck_fairness``: every user's dominant resource is resource 0 on every
        server class, so resource 0 is the only binding one; max-min of its shares.

    Returns
    -------
    numpy.ndarray, shape (n_users,)
        Tasks per user (fractional), each at most its cap.

    Examples
    --------
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"capacity": [9, 18]}],
    ...     "users": [{"demand": [1, 4]}, {"demand": [3, 1], "weight": 2}]})
    >>> fair_tasks(inst, "single_server_drf").round(6).tolist()
    [1.8, 2.4]

    (The second user, of weight 2, gets twice the first's dominant share: 0.8 of the
    CPUs against 0.4 of the memory; the CPUs run out.)
    """
    if kind == "single_server_drf":
        per_task = instance.demand / instance.total  # one server: the pool
    else:  # one resource, or resource 0 binds everywhere
        per_task = instance.demand[:, :1] / instance.total[:1]
    star = per_task.max(axis=1)
    usage = per_task / star[:, None]
    shares = water_fill(
        instance.weight, instance.tasks * star, usage, np.ones(per_task.shape[1])
    )
    return np.minimum(shares / star, instance.tasks)
