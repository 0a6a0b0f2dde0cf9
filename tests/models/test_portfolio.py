"""The portfolio method ``best`` and the warm start of the exact methods (issue 16)."""

import numpy as np
import pytest
from hypothesis import given, settings

from allockit.evaluation.bounds import bins_lower_bound, load_lower_bound, yield_upper_bound
from allockit.instances.generators import generate_vcsched
from allockit.instances.vcsched import VCInstance
from allockit.models.vcsched_bnb import branch_and_bound
from allockit.models.vcsched_solve import canonical_hosts
from allockit.results import SolveStatus, VCResult
from allockit.vcsched import solve
from tests.oracles import brute_force, check_vc_result
from tests.strategies import vc_instances

#: MCB8 packs these at the LP bound min(1, 2 / 1.5) = 1: a proof of optimality.
AT_BOUND = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5, 0.25, 0.25], mem=[0.1] * 4)


def _no_solver(*args, **kwargs):
    raise AssertionError("a solver was called although the incumbent met the bound")


def _forbid_solvers(monkeypatch):
    import allockit.models.vcsched_bnb as bnb
    import allockit.models.vcsched_cpsat_solve as cpsat_driver
    import allockit.models.vcsched_mip as mip_driver

    monkeypatch.setattr(mip_driver, "solve_pyomo", _no_solver)
    monkeypatch.setattr(cpsat_driver, "solve_cpsat", _no_solver)
    monkeypatch.setattr(bnb, "_bnb_kernel", _no_solver)


@pytest.mark.parametrize(
    ("method", "options"),
    [("milp", {"shortcut": True}), ("milp-paper", {"shortcut": True}),
     ("cpsat", {"shortcut": True}), ("best", {})],
)
def test_shortcut_answers_without_a_solver_and_says_so(method, options, monkeypatch):
    # on for best by default, on request for the others: the answer names the bound,
    # not a solver
    _forbid_solvers(monkeypatch)
    result = solve(AT_BOUND, method, time_limit=10, **options)
    check_vc_result(AT_BOUND, result)
    assert result.status is SolveStatus.OPTIMAL
    assert result.min_yield == pytest.approx(1.0) and result.gap == 0.0
    assert result.incumbent_source == "mcb8" and result.bound_source == "lp"
    assert result.proof == "bound" and result.to_dict()["proof"] == "bound"
    assert result.build_seconds == 0.0
    assert result.solver in ("none", "portfolio")
    assert "no solver run" in result.message or "without a solver run" in result.message


@pytest.mark.parametrize(("method", "solver"), [("milp", "highs"), ("milp-paper", "highs"),
                                                ("cpsat", "cpsat")])
def test_shortcut_is_off_by_default_so_the_solver_runs(method, solver):
    # the user asked for the model: it is built and solved even though MCB8 meets the bound
    result = solve(AT_BOUND, method, time_limit=10)
    assert result.status is SolveStatus.OPTIMAL and result.min_yield == pytest.approx(1.0)
    assert result.solver == solver and result.proof == "" and "proof" not in result.to_dict()
    assert result.build_seconds > 0.0
    assert "without a solver run" not in result.message


def test_bin_packing_bound_proves_what_the_lp_bound_cannot():
    # LP: 2 / 1.8 > 1, so the LP bound is 1; two of three 0.6 tasks share a host: 1 / 1.2
    inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    result = solve(inst, "best", time_limit=10)
    assert result.status is SolveStatus.OPTIMAL
    assert result.bound_source == "bin-packing"
    assert result.bound == pytest.approx(1 / 1.2)


@settings(max_examples=60)
@given(instance=vc_instances(adaptation=False))
def test_closed_form_bounds_hold(instance):
    expected, best = brute_force(instance)
    bound, source = yield_upper_bound(instance)
    if bound is None:
        assert expected is None and source == "memory"
        return
    if expected is not None:
        assert bound >= expected - 1e-12
        load = float(np.bincount(best, weights=instance.cpu[instance.task_job]).max())
        assert load_lower_bound(instance)[0] <= load + 1e-12


def test_bins_lower_bound_examples():
    assert bins_lower_bound(np.array([]), 1.0) == 0
    assert bins_lower_bound(np.array([0.5, 0.5]), 1.0) == 1
    assert bins_lower_bound(np.array([0.51, 0.51, 0.49]), 1.0) == 2
    assert bins_lower_bound(np.array([1.5]), 1.0) == 2  # does not fit at all


@settings(max_examples=80)
@given(instance=vc_instances(adaptation=False))
def test_branch_and_bound_matches_brute_force(instance):
    expected, _ = brute_force(instance)
    out = branch_and_bound(instance)
    assert out.complete
    if expected is None:
        assert out.load is None and out.task_hosts is None
        return
    assert min(1.0, 1.0 / out.load) == pytest.approx(expected, abs=1e-9)
    check_vc_result(instance, solve(instance, "best", exact="bnb", time_limit=10))


def test_branch_and_bound_with_a_node_cap_proves_nothing():
    inst = generate_vcsched(hosts=8, jobs=40, slack=0.3, cov_cpu=0.75, cov_mem=0.75, seed=3)
    out = branch_and_bound(inst, max_nodes=10)
    assert not out.complete and out.lower_bound is None


def test_canonical_hosts_keeps_the_placement_quality():
    inst = generate_vcsched(hosts=6, jobs=20, slack=0.5, cov_cpu=0.75, cov_mem=0.75, seed=5)
    hosts = solve(inst, "mcb8").task_hosts
    for by in ("first-job", "load"):
        relabelled = canonical_hosts(inst, hosts, by=by)
        before = np.sort(np.bincount(hosts, weights=inst.cpu, minlength=6))
        after = np.bincount(relabelled, weights=inst.cpu, minlength=6)
        assert np.allclose(np.sort(after), before)
        if by == "load":
            assert (np.diff(after) <= 1e-12).all()
        else:  # hosts numbered in order of their first job
            firsts = [int(np.flatnonzero(relabelled == j)[0]) for j in np.unique(relabelled)]
            assert firsts == sorted(firsts)


@pytest.mark.parametrize("method", ["milp", "milp-paper", "cpsat"])
def test_warm_start_is_used_and_never_worse(method):
    inst = generate_vcsched(hosts=4, jobs=12, slack=0.4, cov_cpu=0.75, cov_mem=0.25, seed=11)
    mcb8 = solve(inst, "mcb8")
    result = solve(inst, method, time_limit=30)
    check_vc_result(inst, result)
    assert result.min_yield >= mcb8.min_yield - 1e-12
    assert result.incumbent_source in ("mcb8", "highs", "cpsat")
    assert result.bound_source


def test_best_on_a_large_instance_certifies_within_half_a_percent():
    inst = generate_vcsched(hosts=64, jobs=250, slack=0.5, cov_cpu=0.25, cov_mem=0.25, seed=7)
    result = solve(inst, "best", time_limit=10, threads=1, rel_gap=5e-3)
    check_vc_result(inst, result)
    assert result.gap <= 5e-3
    assert result.status is SolveStatus.OPTIMAL  # within rel_gap
    assert "local-search" in result.incumbent_source or result.incumbent_source.startswith("mcb")


def test_best_with_migration_limits_uses_adapt_and_the_milp():
    inst = VCInstance.from_lists(
        hosts=2, cpu=[1.0, 1.0], mem=[0.25, 0.25], previous=[0, 0], migration_budget=0.25
    )
    result = solve(inst, "best", time_limit=10)
    check_vc_result(inst, result)
    assert result.status is SolveStatus.OPTIMAL and result.min_yield == pytest.approx(1.0)


def test_best_proves_infeasibility_by_memory():
    inst = VCInstance.from_lists(hosts=2, cpu=[0.1] * 3, mem=[0.6] * 3)
    result = solve(inst, "best")
    assert result.status is SolveStatus.INFEASIBLE and result.bound_source == "memory"


def test_best_options_are_checked():
    from allockit.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="exact must be one of"):
        solve(AT_BOUND, "best", exact="gurobi")
    with pytest.raises(InvalidInputError, match="rel_gap"):
        solve(AT_BOUND, "best", rel_gap=2.0)
    with pytest.raises(InvalidInputError, match="does not accept option 'tol'"):
        solve(AT_BOUND, "best", tol=0.1)


def test_result_sources_round_trip():
    result = solve(AT_BOUND, "best")
    data = result.to_dict()
    assert data["incumbent_source"] == "mcb8" and data["bound_source"] == "lp"
    assert VCResult.from_dict(data).to_dict() == data
    plain = VCResult.from_dict({**data, "incumbent_source": "", "bound_source": ""})
    assert "incumbent_source" not in plain.to_dict()


def test_bounds_hold_against_branch_and_bound_on_mid_size_instances():
    # beyond brute force: 3-6 hosts, up to 2H + 3 tasks, memories 0.2-0.75 (the
    # matching bound is active); the complete branch and bound gives the optimum
    rng = np.random.default_rng(3)
    active = 0
    for _ in range(120):
        hosts = int(rng.integers(3, 7))
        n = int(rng.integers(hosts + 1, 2 * hosts + 4))
        inst = VCInstance.from_lists(
            hosts=hosts,
            cpu=rng.uniform(0.2, 1.0, n).tolist(),
            mem=rng.uniform(0.2, 0.75, n).tolist(),
        )
        out = branch_and_bound(inst, time_limit=5)
        assert out.complete
        bound, source = yield_upper_bound(inst)
        if out.load is None:
            continue
        assert bound is not None and bound >= min(1.0, 1.0 / out.load) - 1e-9
        active += source == "bin-packing"
    assert active > 10  # the packing arguments did bind on some instances
