"""The instances the checker draws with hypothesis, one shape per property.

Small instances, so that hypothesis can shrink a counterexample to something a person
reads at a glance and every whole-task MIP is quick: 1-4 users and, unless the property
needs one server or one resource, two resources on 1-3 server classes of 1-3 servers
each (integer capacities in [2, 12]). A demand is a multiple of 1/20 of the smallest
capacity of its resource, at most half of it, so every task fits every server; weights
are 1, 2 or 3 (1 twice as often); task caps are 1-40 or unbounded (``finite_tasks``).
Shrinking moves towards fewer users, servers and classes, capacity 2, the smallest
demand, weight 1 and unbounded tasks.

Shapes: ``single_server_drf`` one server; ``single_resource_fairness`` one resource;
``bottleneck_fairness`` every user's demand ratio ``D_i1 / D_i0`` at most every class's
``c_l1 / c_l0``, so resource 0 is each user's dominant resource on the pool and on every
server (the max-min fair allocation of resource 0 can then be placed).

Examples
--------
>>> from hypothesis import find, settings
>>> inst = find(instances("bottleneck_fairness"), lambda i: i.n_users >= 2,
...             settings=settings(database=None))
>>> inst.n_users, bool((inst.share_demand.argmax(axis=1) == 0).all())
(2, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from allockit.instances.drfh import DRFHInstance

__all__ = ["instances"]


def instances(kind: str, finite_tasks: bool = True) -> Any:
    """A hypothesis strategy of ``DRFHInstance`` of the shape property ``kind`` needs.

    Parameters
    ----------
    kind : str
        A property name (``allockit.fairness.PROPERTIES``); the max-min properties get
        their own shapes, every other property the general one.
    finite_tasks : bool, default True
        Draw task caps (1-40, or unbounded); False: every user unbounded.

    Returns
    -------
    hypothesis.strategies.SearchStrategy

    Examples
    --------
    >>> from hypothesis import find, settings
    >>> inst = find(instances("single_server_drf"), lambda i: True,
    ...             settings=settings(database=None))
    >>> int(inst.count.sum()), len(inst.resources)
    (1, 2)
    """
    from hypothesis import strategies as st

    resources = 1 if kind == "single_resource_fairness" else 2
    one_server = kind == "single_server_drf"
    bottleneck = kind == "bottleneck_fairness"

    @st.composite
    def build(draw: Any) -> DRFHInstance:
        n_classes = 1 if one_server else draw(st.integers(1, 3))
        cap = [[draw(st.integers(2, 12)) for _ in range(resources)] for _ in range(n_classes)]
        count = [1 if one_server else draw(st.integers(1, 3)) for _ in range(n_classes)]
        capacity = np.array(cap, dtype=float)
        smallest = capacity.min(axis=0)
        ratio = float((capacity[:, 1] / capacity[:, 0]).min()) if bottleneck else 0.0
        n_users = draw(st.integers(1, 4))
        users = []
        for i in range(n_users):
            demand = [draw(st.integers(1, 10)) / 20 * smallest[r] for r in range(resources)]
            if bottleneck:  # D_i1 / D_i0 <= min_l c_l1 / c_l0
                demand[1] = draw(st.integers(1, 10)) / 10 * demand[0] * ratio
            tasks = draw(st.one_of(st.none(), st.integers(1, 40))) if finite_tasks else None
            users.append(
                {
                    "name": f"u{i}",
                    "demand": demand,
                    "weight": draw(st.sampled_from([1.0, 2.0, 1.0, 3.0])),
                    "tasks": tasks,
                }
            )
        return DRFHInstance.from_dict(
            {
                "resources": [f"r{r}" for r in range(resources)],
                "servers": [
                    {"name": f"s{c}", "capacity": cap[c], "count": count[c]}
                    for c in range(n_classes)
                ],
                "users": users,
            }
        )

    return build()
