"""Every exact VCSched method against brute-force enumeration on tiny instances."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.evaluation.lp_bound import lp_bound, relaxed_average_yield
from allockit.evaluation.placement import average_yield_phase, min_yield_of
from allockit.instances.vcsched import VCInstance
from allockit.results import SolveStatus
from allockit.vcsched import solve
from tests.oracles import assert_matches_brute_force, brute_force, check_vc_result
from tests.strategies import vc_instances

EXACT = ["milp", "milp-paper", "cpsat", "best"]
#: The gap the exact methods are held to here: 1e-6, tighter than the default 1e-4, so
#: that "optimal" must be the brute-force optimum to 1e-6.
EXACT_GAP = 1e-6
#: The solver-backed methods, also run without the MCB8 warm start (the model alone).
WARM = ["milp", "milp-paper", "cpsat"]


def test_a_bound_good_only_to_the_solver_tolerance_is_not_called_optimal():
    # found by hypothesis: HiGHS's bound on the paper MILP is the optimum + 1e-6
    inst = VCInstance.from_lists(hosts=2, cpu=[0.34375, 0.7734375, 0.25],
                                 mem=[0.47999579, 0.0, 0.1875], tasks=[3, 2, 1])
    result = solve(inst, "milp-paper", rel_gap=EXACT_GAP)
    assert_matches_brute_force(inst, result)
    assert solve(inst, "milp", rel_gap=EXACT_GAP).status is SolveStatus.OPTIMAL


@pytest.mark.parametrize("grid", [True, False], ids=["grid-data", "float-data"])
@pytest.mark.parametrize("method", EXACT)
@given(data=st.data())
def test_exact_method_matches_brute_force(method, grid, data):
    instance = data.draw(vc_instances(grid=grid))
    assert_matches_brute_force(instance, solve(instance, method, rel_gap=EXACT_GAP))


@pytest.mark.parametrize("grid", [True, False], ids=["grid-data", "float-data"])
@pytest.mark.parametrize("method", WARM)
@settings(max_examples=40)
@given(data=st.data())
def test_exact_model_alone_matches_brute_force(method, grid, data):
    # without the warm start the solver itself must find and prove the optimum
    instance = data.draw(vc_instances(grid=grid))
    assert_matches_brute_force(
        instance, solve(instance, method, warm_start=False, rel_gap=EXACT_GAP)
    )


@pytest.mark.parametrize("exact", ["bnb", "cpsat", "milp", "none"])
@settings(max_examples=30)
@given(instance=vc_instances())
def test_best_with_each_exact_component_is_honest(exact, instance):
    # every component choice: a proven answer matches brute force, an unproven one
    # is never claimed optimal and its bound holds
    expected, _ = brute_force(instance)
    result = solve(instance, "best", exact=exact, time_limit=20, rel_gap=EXACT_GAP)
    check_vc_result(instance, result)
    if result.status is SolveStatus.OPTIMAL:
        assert result.min_yield == pytest.approx(expected, abs=1e-6)
    elif result.status is SolveStatus.INFEASIBLE:
        assert expected is None
    if expected is not None and result.bound is not None:
        assert result.bound >= expected - 1e-6


def _small_set_sample():
    from allockit.instances.generators import iter_vcsched_set

    items = [(stem, inst) for stem, inst in iter_vcsched_set("small", seed=0) if inst.n_jobs == 6]
    # every 9th six-job instance (40 of 360), plus two that once exposed a HiGHS
    # tolerance failure (wrong "optimal" with feasibility tolerances of 1e-10)
    keep = {"h4-j6-s0.2-cc0.25-cm0.75-r7", "h4-j6-s0.5-cc0.25-cm0.25-r8"}
    return [(s, i) for k, (s, i) in enumerate(items) if k % 9 == 0 or s in keep]


@pytest.mark.parametrize(
    ("method", "warm_start"),
    # `best` always starts from the heuristics: it has no cold variant
    [(m, w) for m in EXACT for w in (True, False) if m != "best" or w],
    ids=lambda v: {True: "warm", False: "cold"}.get(v, v) if isinstance(v, bool) else v,
)
def test_exact_methods_on_the_papers_small_set_sample(method, warm_start):
    options = {"rel_gap": EXACT_GAP}
    if method != "best":
        options["warm_start"] = warm_start
    for stem, instance in _small_set_sample():
        assert_matches_brute_force(instance, solve(instance, method, **options), stem)


@given(instance=vc_instances())
def test_lp_bound_is_at_least_the_optimum(instance):
    expected, _ = brute_force(instance)
    bound = lp_bound(instance)
    if bound is None:
        assert expected is None
    elif expected is not None:
        assert bound >= expected - 1e-12
    lp = solve(instance, "lp")
    if expected is not None:
        assert lp.status is SolveStatus.OPTIMAL
        assert lp.min_yield >= expected - 1e-6


@given(instance=vc_instances(adaptation=False))
def test_closed_form_lp_equals_solved_lp(instance):
    lp = solve(instance, "lp")
    closed = lp_bound(instance)
    if closed is None:
        assert lp.status is SolveStatus.INFEASIBLE
        return
    assert lp.status is SolveStatus.OPTIMAL
    assert lp.min_yield == pytest.approx(closed, abs=1e-6)
    assert lp.avg_yield == pytest.approx(float(relaxed_average_yield(instance).mean()), abs=1e-6)


def _average_yield_lp(instance: VCInstance, hosts: np.ndarray, floor: float) -> float:
    """max sum_i y_i, floor <= y_i <= 1, sum_i n_ij a_i y_i <= 1, as a separate Pyomo LP."""
    import pyomo.environ as pyo

    from allockit.solver import solve_pyomo

    counts = np.zeros((instance.n_jobs, instance.hosts))
    np.add.at(counts, (instance.task_job, hosts), 1)
    m = pyo.ConcreteModel()
    m.y = pyo.Var(range(instance.n_jobs), bounds=(floor, 1.0))
    m.cap = pyo.Constraint(
        range(instance.hosts),
        rule=lambda m, j: (
            sum(counts[i, j] * instance.cpu[i] * m.y[i] for i in range(instance.n_jobs)) <= 1
        ),
    )
    m.obj = pyo.Objective(expr=sum(m.y.values()), sense=pyo.maximize)
    report = solve_pyomo(m)
    assert report.status is SolveStatus.OPTIMAL
    return report.objective


@settings(max_examples=80)
@given(instance=vc_instances(adaptation=False), data=st.data())
def test_average_yield_phase_equals_its_lp(instance, data):
    hosts = np.array(
        [data.draw(st.integers(0, instance.hosts - 1)) for _ in range(instance.n_tasks)]
    )
    floor = min_yield_of(instance, hosts)
    yields = average_yield_phase(instance, hosts, floor)
    assert yields.min() >= floor - 1e-12 and yields.max() <= 1 + 1e-12
    load = np.zeros(instance.hosts)
    np.add.at(load, hosts, yields[instance.task_job] * instance.cpu[instance.task_job])
    assert (load <= 1 + 1e-9).all()
    assert yields.sum() == pytest.approx(_average_yield_lp(instance, hosts, floor), abs=1e-6)


def test_memory_above_one_is_infeasible_not_an_error():
    inst = VCInstance.from_lists(hosts=3, cpu=[0.5, 0.5], mem=[1.2, 0.1])
    for method in EXACT:
        result = solve(inst, method)
        assert result.status is SolveStatus.INFEASIBLE
        assert "j0" in result.message


@pytest.mark.parametrize("method", EXACT)
def test_models_prove_infeasibility_themselves(method):
    # Total memory fits (1.8 <= 2) but no packing does: the models must prove it.
    inst = VCInstance.from_lists(hosts=2, cpu=[0.1] * 3, mem=[0.6, 0.6, 0.6])
    result = solve(inst, method)
    assert result.status is SolveStatus.INFEASIBLE


@pytest.mark.parametrize("method", EXACT)
def test_parallel_job_split_across_hosts(method):
    # One job of 4 tasks, memory 0.5 each: two tasks per host at most.
    inst = VCInstance.from_lists(hosts=2, cpu=[0.75], mem=[0.5], tasks=[4])
    result = solve(inst, method)
    assert result.status is SolveStatus.OPTIMAL
    assert sorted(result.task_hosts.tolist()) == [0, 0, 1, 1]
    assert result.min_yield == pytest.approx(1 / 1.5)


def test_migration_budget_trades_yield_for_moves():
    # Both jobs sit on host 0; moving one (memory 0.25) doubles the yield.
    base = dict(hosts=2, cpu=[1.0, 1.0], mem=[0.25, 0.25], previous=[0, 0])
    stuck = VCInstance.from_lists(**base, migration_budget=0.0)
    free = VCInstance.from_lists(**base, migration_budget=0.25)
    by_count = VCInstance.from_lists(**base, max_migrations=1)
    for method in EXACT:
        assert solve(stuck, method).min_yield == pytest.approx(0.5)
        moved = solve(free, method)
        assert moved.min_yield == pytest.approx(1.0)
        assert moved.migrations == 1 and moved.migrated_memory == pytest.approx(0.25)
        assert solve(by_count, method).min_yield == pytest.approx(1.0)


def test_budget_in_bytes():
    inst = VCInstance.from_lists(hosts=2, cpu=[1.0, 1.0], mem=[0.25, 0.25], previous=[0, 0])
    gib = 2**30
    small = inst.with_migration_budget_bytes(gib, host_memory_bytes=8 * gib)  # 0.125 < 0.25
    large = inst.with_migration_budget_bytes(2 * gib, host_memory_bytes=8 * gib)
    assert solve(small).min_yield == pytest.approx(0.5)
    assert solve(large).min_yield == pytest.approx(1.0)


def test_cpsat_scaling_never_overclaims():
    # Memory 0.5 + 1e-9 twice does not fit one host, but rounds down to exactly 0.5 twice
    # on CP-SAT's integer grid. The relaxed model's placement must be rejected on the
    # exact data, and the answer must not be reported better than it is.
    eps = 1e-9
    inst = VCInstance.from_lists(hosts=2, cpu=[0.1, 0.1, 1.0], mem=[0.5 + eps, 0.5 + eps, 0.0])
    truth, _ = brute_force(inst)
    assert truth == pytest.approx(1 / 1.1)
    result = solve(inst, "cpsat")
    check_vc_result(inst, result)
    assert result.min_yield == pytest.approx(truth)
    assert result.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)
    assert "rounded-up" in result.message
    for method in ("milp", "milp-paper"):
        assert solve(inst, method).min_yield == pytest.approx(truth)
