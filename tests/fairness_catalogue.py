"""Deliberately broken DRFH mechanisms: the fairness checker must catch each one for the
properties it breaks, and only for those.

Each mechanism is small enough to reason about by hand; ``BREAKS`` records which of the
seven checked properties it breaks (the sharing incentive is measured, never judged),
and the reason is in each docstring. All but ``hoarding`` are progressive filling (the
correct DRFH mechanism, proven to hold all seven) run on a changed instance, so a
property survives exactly when the change does not touch what the proof uses.

The mechanisms follow the user contract of ``allockit.drfh.allocate``: they return tasks
per user and server class (fractional allowed), or per user and server (``hoarding``).
"""

from __future__ import annotations

import numpy as np

from allockit.errors import InvalidInputError
from allockit.instances.drfh import DRFHInstance
from allockit.models.drfh_lp import progressive_filling
from allockit.results import DRFHResult

ALL = {
    "envy_freeness",
    "pareto",
    "truthfulness",
    "single_server_drf",
    "single_resource_fairness",
    "bottleneck_fairness",
    "population_monotonicity",
}


def _rebuilt(instance: DRFHInstance, **changes) -> DRFHInstance:
    fields = {
        "resources": instance.resources,
        "server_names": instance.server_names,
        "capacity": instance.capacity,
        "count": instance.count,
        "user_names": instance.user_names,
        "demand": instance.demand,
        "weight": instance.weight,
        "tasks": instance.tasks,
        **changes,
    }
    return DRFHInstance(**fields)


def _tasks_per_class(instance: DRFHInstance, weight: np.ndarray, scale: float = 1.0):
    """Progressive filling with other weights on servers scaled by ``scale``.

    A user whose task fits no scaled server gets nothing (the others are filled without
    it). Returns tasks per user and class, as the user contract asks.
    """
    fits = np.zeros(instance.n_users, dtype=bool)
    for c in range(instance.n_classes):
        fits |= (instance.demand <= instance.capacity[c] * scale * (1 + 1e-12)).all(axis=1)
    out = np.zeros((instance.n_users, instance.n_classes))
    if not fits.any():
        return out
    keep = np.flatnonzero(fits)
    changed = DRFHInstance(
        instance.resources,
        instance.server_names,
        instance.capacity * scale,
        instance.count,
        tuple(instance.user_names[i] for i in keep),
        instance.demand[keep],
        np.asarray(weight, dtype=float)[keep],
        instance.tasks[keep],
    )
    result = progressive_filling(changed)
    per_class = np.min(result.allocation / changed.demand[:, None, :], axis=2)
    out[keep] = per_class
    return out


def capped_hoarding(instance: DRFHInstance) -> DRFHResult:
    """The issue's capped hoarding: user 0 holds every server whole and runs its capped
    tasks there; everyone else gets nothing (a ``DRFHResult``, as a mechanism may return).

    The old checker scored its Pareto optimality as held on 500 examples x 3 seeds: it
    asked the improvement LP for at least the tasks user 0's bundle *could* run, more
    than its cap, got "infeasible" and counted that as "no improvement". Breaks the same
    properties as ``hoarding``, for the same reasons; holds truthfulness (user 0 holds
    everything whatever it reports) and population monotonicity.
    """
    n, k, m = instance.n_users, instance.n_classes, len(instance.resources)
    alloc = np.zeros((n, k, m))
    alloc[0] = instance.capacity * instance.count[:, None]
    runs = float(np.min(alloc[0] / instance.demand[0], axis=1).sum())
    tasks = np.zeros(n)
    tasks[0] = min(runs, float(instance.tasks[0]))
    share = np.zeros(n)
    share[0] = 1.0
    return DRFHResult(
        method="capped-hoarding",
        status="feasible",
        user_names=instance.user_names,
        server_names=instance.server_names,
        resources=instance.resources,
        tasks=tasks,
        dominant_share=share,
        allocation=alloc,
        utilization=np.ones(m),
    )


def hoarding(instance: DRFHInstance) -> np.ndarray:
    """Capped hoarding: user 0 takes every whole task that fits, server by server, up to
    its cap; everyone else gets nothing.

    Breaks envy-freeness (the others envy user 0), Pareto optimality (user 0's cap or the
    gaps its tasks leave on a server let others run tasks), and the three max-min
    properties. Holds truthfulness (user 0 gets the most whole tasks its true demand
    allows on every server; a lie's bundle runs no more of them; the others get nothing
    whatever they report) and population monotonicity (a leaving user 0 hands the hoard
    to the next user; anyone else leaving changes nothing).
    """
    servers = np.repeat(instance.capacity, instance.count, axis=0)
    x = np.zeros((instance.n_users, servers.shape[0]))
    left = float(instance.tasks[0])
    for s, capacity in enumerate(servers):
        fit = float(np.floor(np.min(capacity / instance.demand[0]) + 1e-9))
        x[0, s] = min(fit, left)
        left -= x[0, s]
    return x


def waste(instance: DRFHInstance) -> np.ndarray:
    """Progressive filling on servers of half their capacity (the other half idle).

    Breaks Pareto optimality and the three max-min properties (half of the fair shares).
    Holds envy-freeness, truthfulness and population monotonicity: it is progressive
    filling on another instance, and bundles keep their value on the real servers (a
    user whose task fits no half server gets nothing, which depends on its own report
    only; the generated demands fit every half server).
    """
    return _tasks_per_class(instance, instance.weight, 0.5)


def envy_creating(instance: DRFHInstance) -> np.ndarray:
    """Progressive filling with the user named ``u0`` counted at twice its weight.

    Breaks envy-freeness (the others envy u0's larger bundle) and the three max-min
    properties. Holds Pareto optimality and truthfulness (progressive filling with any
    fixed weights has them) and population monotonicity (the favour is tied to the name:
    when u0 leaves, the rest is plain progressive filling, and a user leaving never
    lowers the common level).
    """
    weight = instance.weight.astype(float).copy()
    if "u0" in instance.user_names:
        weight[instance.user_names.index("u0")] *= 2
    return _tasks_per_class(instance, weight)


def weight_ignoring(instance: DRFHInstance) -> np.ndarray:
    """Progressive filling with every weight set to 1.

    Breaks weighted envy-freeness and the three weighted max-min properties when the
    weights differ. Holds Pareto optimality, truthfulness and population monotonicity.
    """
    return _tasks_per_class(instance, np.ones(instance.n_users))


def lie_rewarding(instance: DRFHInstance) -> np.ndarray:
    """Progressive filling with each weight multiplied by ``sum_r D_ir / max_r D_ir``
    (pool shares of the *reported* demand): users who claim more of their non-dominant
    resources get more.

    Breaks truthfulness (claiming more memory raises the weight), envy-freeness, single-
    server DRF and bottleneck fairness (users of different shapes get different weights).
    Holds Pareto optimality (fixed weights), population monotonicity (each weight depends
    on the user's own report) and single-resource fairness (with one resource the bonus
    is 1: plain progressive filling).
    """
    share = instance.share_demand
    bonus = share.sum(axis=1) / share.max(axis=1)
    return _tasks_per_class(instance, instance.weight * bonus)


def non_monotone(instance: DRFHInstance) -> np.ndarray:
    """Progressive filling that powers half of every server down when fewer than three
    users share the cluster.

    Breaks population monotonicity (from three users to two the capacity halves), Pareto
    optimality and the three max-min properties (with one or two users). Holds
    envy-freeness and truthfulness (progressive filling on a cluster fixed by the number
    of users, which no report changes).
    """
    return _tasks_per_class(instance, instance.weight, 0.5 if instance.n_users < 3 else 1.0)


def raising(instance: DRFHInstance) -> np.ndarray:
    """Raises on every instance (an undecidable example, never a pass)."""
    raise RuntimeError("out of order")


def malformed(instance: DRFHInstance) -> np.ndarray:
    """Returns more tasks than any server holds (refused by ``allocate``)."""
    return np.full((instance.n_users, instance.n_classes), 1e6)


def refusing(instance: DRFHInstance) -> np.ndarray:
    """Refuses instances with more than one user (an ``InvalidInputError``)."""
    if instance.n_users > 1:
        raise InvalidInputError("only one user, please")
    return np.zeros((1, instance.n_classes))


#: name -> (mechanism, the properties it breaks).
CATALOGUE = {
    "capped_hoarding": (
        capped_hoarding,
        ALL - {"truthfulness", "population_monotonicity"},
    ),
    "hoarding": (
        hoarding,
        ALL - {"truthfulness", "population_monotonicity"},
    ),
    "waste": (
        waste,
        {"pareto", "single_server_drf", "single_resource_fairness", "bottleneck_fairness"},
    ),
    "envy_creating": (
        envy_creating,
        {"envy_freeness", "single_server_drf", "single_resource_fairness", "bottleneck_fairness"},
    ),
    "weight_ignoring": (
        weight_ignoring,
        {"envy_freeness", "single_server_drf", "single_resource_fairness", "bottleneck_fairness"},
    ),
    "lie_rewarding": (
        lie_rewarding,
        {"truthfulness", "envy_freeness", "single_server_drf", "bottleneck_fairness"},
    ),
    "non_monotone": (
        non_monotone,
        {
            "population_monotonicity",
            "pareto",
            "single_server_drf",
            "single_resource_fairness",
            "bottleneck_fairness",
        },
    ),
}
