"""Exact answers at a floating-point solver's tolerance edge (RESULTS 13.8).

HiGHS 1.12 proved false optima on memories or CPU needs of 1e-8 to 5e-6
(``benchmarks/highs_tolerance_fuzz.py``: 5 of 1,089 instances with memories of 1e-8 to
2e-6, 1 of 886 at 5e-6, 19 of 707 with such CPU needs; none of 883, 884 and 591 at
1e-5, 1e-4 and on well-scaled data). The MILP drivers now have every answer on data below
``TOLERANCE_EDGE`` checked by CP-SAT on integer data; these tests hold them to brute force
there.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.evaluation.bounds import yield_upper_bound
from allockit.evaluation.placement import min_yield_of, placement_violation
from allockit.instances.vcsched import VCInstance
from allockit.models.vcsched_exact import TOLERANCE_EDGE, tolerance_edge
from allockit.results import SolveStatus
from allockit.vcsched import solve
from tests.oracles import assert_matches_brute_force, brute_force

# the stress run's instance (seed 1013): HiGHS said optimal 0.4 with bound 0.4
STRESS = VCInstance.from_lists(hosts=3, cpu=[1.0, 1.0, 0.5, 1.0],
                               mem=[0.0, 0.5, 0.5, 1e-6], tasks=[1, 1, 2, 3])

# found by a fuzz of HiGHS on the load MILP (RESULTS 13.8): (hosts, cpu, mem, tasks);
# HiGHS 1.12's bound on each was below the brute-force optimum
FUZZ = [
    (3, [0.5, 0.3, 0.6, 0.3, 0.3], [1e-08, 1.0, 0.0, 1e-06, 1e-06], [1, 2, 3, 1, 2]),
    (4, [0.75, 0.6, 0.5, 0.25], [1e-06, 0.25, 0.75, 1e-07], [1, 2, 2, 2]),
    (3, [0.3, 0.75, 1.0], [1 / 3, 0.25, 1e-06], [3, 1, 1]),
    (2, [0.75, 0.6, 0.6, 0.5], [0.5, 1e-06, 0.5, 0.5], [1, 1, 1, 1]),
    (3, [1.0, 0.75, 1.0, 0.75], [0.5, 0.25, 2e-06, 1e-06], [3, 2, 1, 1]),
    (3, [0.5, 0.5, 0.25], [1.0, 0.5, 1e-07], [1, 2, 3]),
    (2, [0.5, 1.0, 0.75, 1.0], [0.999995, 1e-05, 1 / 3, 5e-06], [1, 3, 2, 2]),
    # tiny CPU needs: HiGHS's bound 0.5, the optimum 2/3
    (3, [1.0, 1e-06, 0.5, 1e-07, 1e-07], [0.0, 0.25, 0.0, 0.25, 0.75], [2, 3, 3, 2, 1]),
]


def _instance(hosts, cpu, mem, tasks):
    return VCInstance.from_lists(hosts=hosts, cpu=cpu, mem=mem, tasks=tasks)


def _assert_optimal(instance, result):
    assert brute_force(instance)[0] is not None
    assert_matches_brute_force(instance, result)
    assert result.status is SolveStatus.OPTIMAL, result.message


@pytest.mark.parametrize("method", ["milp", "milp-paper"])
@pytest.mark.parametrize("warm", [True, False])
def test_the_stress_runs_false_optimum_is_refuted_by_cpsat(method, warm):
    better = np.array([2, 1, 2, 2, 1, 0, 0])
    assert placement_violation(STRESS, better) is None
    assert min_yield_of(STRESS, better) == pytest.approx(0.5)
    result = solve(STRESS, method, warm_start=warm)
    _assert_optimal(STRESS, result)
    assert result.min_yield == pytest.approx(0.5)
    assert result.solver == "highs+cpsat" and result.bound_source == "cpsat"
    assert result.message.startswith("memory 1e-06 of job 'j3' is at floating-point tolerance")


@pytest.mark.parametrize("case", FUZZ, ids=[f"fuzz{i}" for i in range(len(FUZZ))])
@pytest.mark.parametrize("method", ["milp", "milp-paper", "best"])
def test_fuzzed_tolerance_edge_instances_match_brute_force(case, method):
    instance = _instance(*case)
    options = {"exact": "milp"} if method == "best" else {}
    _assert_optimal(instance, solve(instance, method, rel_gap=1e-6, **options))


TINY = [1e-8, 1e-7, 1e-6, 2e-6, 5e-6]


@st.composite
def edge_instances(draw):
    hosts = draw(st.integers(2, 3))
    n_jobs = draw(st.integers(2, 4))
    tasks = draw(st.lists(st.integers(1, 3), min_size=n_jobs, max_size=n_jobs))
    while sum(tasks) > 7:  # brute force: at most 3**7 placements
        tasks[tasks.index(max(tasks))] -= 1
    tiny = draw(st.sampled_from(TINY))
    cpu = draw(st.lists(st.sampled_from([tiny, 0.25, 0.3, 0.5, 0.6, 0.75, 1.0]),
                        min_size=n_jobs, max_size=n_jobs))
    mem = draw(st.lists(st.sampled_from([0.0, tiny, 2 * tiny, 0.25, 1 / 3, 0.5, 0.75,
                                         1.0, 1 - tiny]),
                        min_size=n_jobs, max_size=n_jobs))
    at_edge = cpu if draw(st.booleans()) else mem
    at_edge[draw(st.integers(0, n_jobs - 1))] = tiny  # always at the edge
    return _instance(hosts, cpu, mem, tasks)


@settings(max_examples=30, deadline=None)
@given(instance=edge_instances(), method=st.sampled_from(["milp", "milp-paper"]))
def test_milp_at_the_tolerance_edge_matches_brute_force(instance, method):
    result = solve(instance, method, rel_gap=1e-6)
    assert_matches_brute_force(instance, result)
    closed, _ = yield_upper_bound(instance)  # the LP or bin-packing bound
    by_memory = result.bound_source == "memory"
    by_closed_form = closed is not None and result.min_yield is not None and (
        closed - result.min_yield <= 1e-6 * closed + 1e-15
    )
    if not (by_memory or by_closed_form):
        # else proven by memory, the LP or bin packing alone: the solver's claims not needed
        assert result.solver == "highs+cpsat", result.message


@pytest.mark.parametrize(
    ("mem", "cpu", "budget", "expected"),
    [
        ([0.0, 1e-6], [0.5, 0.5], None, "memory 1e-06 of job 'j1'"),
        ([0.0, 0.5], [0.5, 5e-5], None, "CPU need 5e-05 of job 'j1'"),
        ([0.0, 0.5], [0.5, 0.5], 1e-5, "migration budget 1e-05"),
        ([0.0, TOLERANCE_EDGE], [0.5, TOLERANCE_EDGE], 0.0, None),
        ([0.0, 0.5], [0.5, 1.0], None, None),
    ],
)
def test_tolerance_edge_names_the_first_datum_below_the_edge(mem, cpu, budget, expected):
    extra = {} if budget is None else {"previous": [0, 1], "migration_budget": budget}
    instance = VCInstance.from_lists(hosts=2, cpu=cpu, mem=mem, **extra)
    assert tolerance_edge(instance) == expected


def test_well_scaled_data_runs_the_floating_point_solver_alone():
    instance = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    result = solve(instance, "milp")
    assert result.solver == "highs" and "cpsat" not in result.message


def test_an_unresolved_tolerance_failure_is_settled_by_cpsat(monkeypatch):
    import allockit.models.vcsched_mip as mip

    instance = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.4, 0.4, 0.4])

    def unresolved(run, form, **kwargs):  # as if the margin re-solve had failed
        return run.empty(SolveStatus.ERROR, message="made up: margin re-solve failed"), True

    monkeypatch.setattr(mip, "_float_solve", unresolved)
    result = solve(instance, "milp")
    _assert_optimal(instance, result)
    assert result.solver == "highs+cpsat" and result.bound_source == "cpsat"
    assert "re-solve with a margin gave none" in result.message


def test_the_margin_never_takes_the_migration_budget_below_zero():
    import pyomo.environ as pyo

    from allockit.models.vcsched_load import build_load_milp
    from allockit.models.vcsched_milp import build_paper_milp

    instance = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0.5, 0.5],
                                     previous=[0, 1], migration_budget=0.0)
    for build in (build_load_milp, build_paper_milp):
        model = build(instance, margin=1e-5)
        rows = [c for c in model.component_data_objects(pyo.Constraint)
                if "migration_budget" in c.name]
        assert rows and all(pyo.value(c.upper) == 0.0 for c in rows), build.__name__


@pytest.mark.parametrize("method", ["milp", "milp-paper", "best"])
def test_an_instance_infeasible_by_1e_8_of_memory_is_proven_infeasible(method):
    # no task may move, and the two that stay on host 0 need 1 + 1e-8 of its memory:
    # HiGHS's tolerance admits that placement, the re-solve with a margin finds none
    instance = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5, 0.3], mem=[0.5, 0.5 + 1e-8, 0.2],
                                     previous=[0, 0, None], max_migrations=0)
    assert brute_force(instance)[0] is None
    result = solve(instance, method)
    assert result.status is SolveStatus.INFEASIBLE, result.message
    assert result.bound_source == "cpsat" and result.solver == "highs+cpsat"
    assert "re-solve with a margin gave none" in result.message


def test_an_answer_the_lp_bound_proves_needs_no_check():
    # at the edge, but the placement meets the closed-form LP bound: nothing rests on
    # the floating-point solver's claims
    instance = VCInstance.from_lists(hosts=3, cpu=[1e-6, 0.25], mem=[1e-6, 0.0], tasks=[1, 2])
    assert tolerance_edge(instance) is not None
    result = solve(instance, "milp")
    assert str(result.status) == "optimal" and result.min_yield == 1.0
    assert result.bound_source == "lp" and result.solver == "highs"
