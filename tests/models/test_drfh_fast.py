"""The fast DRFH paths equal the reference models: exact cuts, column generation, Pyomo.

``drfh_lp`` and ``progressive_filling`` compute ``g`` from the LP's dual (a minimum over
the cuts ``min(t, tau)``) with two resources and build the allocation without a solver;
with more resources they solve the LP by column generation in HiGHS. The Pyomo model
``build_drfh_lp`` and a round-by-round progressive filling (the paper's description,
one LP per freeze) are the references.
"""

from __future__ import annotations

import functools
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import allockit.models.drfh_lp as drfh_module
from allockit.errors import InvalidInputError
from allockit.instances.drfh import DRFHInstance
from allockit.models.drfh_lp import build_drfh_lp, drfh_lp, progressive_filling
from allockit.solver import solve_pyomo


@st.composite
def instances(draw, resources=2, finite=False):
    k = draw(st.integers(1, 5))
    n = draw(st.integers(1, 6))
    cap = [[draw(st.integers(1, 12)) for _ in range(resources)] for _ in range(k)]
    small = np.min(np.array(cap, dtype=float), axis=0)
    users = []
    for i in range(n):
        demand = [draw(st.integers(1, 10)) / 10 * float(small[r]) / 2 for r in range(resources)]
        tasks = draw(st.one_of(st.none(), st.integers(0, 30))) if finite else None
        users.append(
            {"name": f"u{i}", "demand": demand, "weight": draw(st.sampled_from([1.0, 2.0, 3.0])),
             "tasks": tasks}
        )
    servers = [{"name": f"s{c}", "capacity": cap[c], "count": draw(st.integers(1, 3))}
               for c in range(k)]
    return DRFHInstance.from_dict(
        {"resources": [f"r{r}" for r in range(resources)], "servers": servers, "users": users}
    )


def _pyomo_g(instance):
    model = build_drfh_lp(instance)
    assert solve_pyomo(model).status == "optimal"
    return model.g.value


def _check_allocation(instance, result):
    """Capacities hold per class and resource, and shares add up."""
    share = result.allocation / instance.total  # (users, classes, resources) in shares
    used = share.sum(axis=0)
    assert (used <= instance.share_capacity * instance.count[:, None] + 1e-9).all()
    assert (result.tasks <= instance.tasks + 1e-7).all()


@settings(max_examples=60)
@given(instance=instances())
def test_exact_cuts_equal_the_pyomo_lp_with_two_resources(instance):
    r = drfh_lp(instance)
    assert r.message.startswith("exact cuts")
    g = r.dominant_share / instance.weight
    assert g == pytest.approx(np.full(instance.n_users, _pyomo_g(instance)), rel=1e-7, abs=1e-12)
    _check_allocation(instance, r)


@settings(max_examples=25)
@given(instance=instances(resources=3))
def test_column_generation_equals_the_pyomo_lp_with_three_resources(instance):
    full = drfh_module._FULL
    drfh_module._FULL = 0  # force pricing rounds even on small instances
    try:
        r = drfh_lp(instance)
    finally:
        drfh_module._FULL = full
    assert r.message.startswith("HiGHS")
    g = r.dominant_share / instance.weight
    assert g == pytest.approx(np.full(instance.n_users, _pyomo_g(instance)), rel=1e-6, abs=1e-12)
    _check_allocation(instance, r)


def _share_rule(m, i, *, frozen, level, weight):
    total = sum(m.gil[i, c] for c in m.L)
    return total == float(level[i]) if frozen[i] else total == float(weight[i]) * m.g


def _reference_progressive(instance):
    """Progressive filling as the paper describes it: one Pyomo LP per freeze."""
    import pyomo.environ as pyo

    weight, cap = instance.weight, instance.tasks * instance.dominant
    frozen = np.zeros(instance.n_users, dtype=bool)
    level = np.zeros(instance.n_users)
    frozen |= cap <= 0
    while not frozen.all():
        model = build_drfh_lp(instance)
        for i in range(instance.n_users):
            model.equal[i].deactivate()
        rule = functools.partial(_share_rule, frozen=frozen, level=level, weight=weight)
        model.fixed = pyo.Constraint(range(instance.n_users), rule=rule)
        top = float(np.min(cap[~frozen] / weight[~frozen]))
        if np.isfinite(top):
            model.g.setub(top)
        solve_pyomo(model)
        g = model.g.value
        hit = ~frozen & (cap / weight <= g * (1 + 1e-9) + 1e-12)
        level[~frozen] = weight[~frozen] * g
        if not hit.any():
            break
        level[hit] = cap[hit]
        frozen |= hit
    return level


@settings(max_examples=40)
@given(instance=instances(finite=True))
def test_progressive_filling_equals_freezing_round_by_round(instance):
    r = progressive_filling(instance)
    expected = _reference_progressive(instance)
    assert r.dominant_share == pytest.approx(expected, rel=1e-6, abs=1e-9)
    _check_allocation(instance, r)


@settings(max_examples=20)
@given(instance=instances(resources=3, finite=True))
def test_progressive_filling_by_lps_equals_freezing_round_by_round(instance):
    r = progressive_filling(instance)
    assert r.message.endswith("columns)")
    assert r.dominant_share == pytest.approx(_reference_progressive(instance), rel=1e-6, abs=1e-9)


def test_lp_honours_caps_it_does_not_reach_and_refuses_the_others():
    doc = {
        "resources": ["cpu", "mem"],
        "servers": [{"name": "s1", "capacity": [2, 12]}, {"name": "s2", "capacity": [12, 2]}],
        "users": [{"name": "u1", "demand": [0.2, 1], "tasks": 100},
                  {"name": "u2", "demand": [1, 0.2], "tasks": 5}],
    }
    with pytest.raises(InvalidInputError, match=r"'u2' 10 tasks, more than its 5.*progressive"):
        drfh_lp(DRFHInstance.from_dict(doc))
    doc["users"][1]["tasks"] = 50
    assert drfh_lp(DRFHInstance.from_dict(doc)).tasks.tolist() == pytest.approx([10, 10])


def _large(n_users, n_classes, seed, tasks):
    rng = np.random.default_rng(seed)
    cap = rng.uniform(0.2, 1.0, (n_classes, 2))
    demand = np.exp(rng.uniform(np.log(0.005), np.log(0.05), (n_users, 2)))
    return DRFHInstance.from_dict({
        "resources": ["cpu", "mem"],
        "servers": [{"name": f"s{k}", "capacity": cap[k].tolist(),
                     "count": int(rng.integers(1, 20))} for k in range(n_classes)],
        "users": [{"name": f"u{i}", "demand": demand[i].tolist(),
                   "weight": float(rng.choice([1.0, 2.0, 3.0])),
                   "tasks": None if tasks is None else int(rng.integers(*tasks))}
                  for i in range(n_users)],
    })


@pytest.mark.parametrize("method", ["lp", "progressive"])
def test_two_thousand_users_on_five_hundred_distinct_servers_in_seconds(method):
    inst = _large(2000, 500, seed=0, tasks=None if method == "lp" else (10, 3000))
    start = time.perf_counter()
    r = drfh_lp(inst) if method == "lp" else progressive_filling(inst)
    assert time.perf_counter() - start < 30
    _check_allocation(inst, r)
    assert r.message.startswith("exact cuts")
