"""VCSched heuristics: certificates, bounds, oracles, determinism, hand-made cases."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.evaluation.lp_bound import lp_bound
from allockit.heuristics.greedy import greedy
from allockit.heuristics.mcb import MCB_VARIANTS, mcb, mcb_pack
from allockit.instances.vcsched import VCInstance
from allockit.results import SolveStatus
from allockit.vcsched import HEURISTIC_METHODS, solve
from tests.oracles import brute_force, check_vc_result
from tests.reference_heuristics import reference_greedy, reference_mcb
from tests.strategies import vc_instances

STATIC = [m for m in HEURISTIC_METHODS if m != "adapt"]


@pytest.mark.parametrize("method", HEURISTIC_METHODS)
@settings(max_examples=30)
@given(data=st.data())
def test_heuristic_is_valid_and_never_beats_the_optimum(method, data):
    instance = data.draw(vc_instances(grid=False, adaptation=method == "adapt"))
    result = solve(instance, method, seed=3)
    check_vc_result(instance, result)
    optimum, _ = brute_force(instance)
    if result.status in (SolveStatus.INFEASIBLE, SolveStatus.NO_SOLUTION):
        assert result.message.startswith(method), result.message  # the rule's own reason
        if result.status is SolveStatus.INFEASIBLE:  # claimed proven: it must be true
            assert optimum is None and result.bound_source == "memory", result.message
        else:
            assert "infeasibility not proven" in result.message
        return
    assert result.status in (SolveStatus.FEASIBLE, SolveStatus.OPTIMAL)
    assert optimum is not None, "a valid placement exists, so brute force must find one"
    assert result.min_yield <= optimum + 1e-9
    bound = lp_bound(instance)
    assert result.min_yield <= bound + 1e-9
    if result.status is SolveStatus.OPTIMAL:
        assert result.min_yield == pytest.approx(optimum, abs=1e-9)


@pytest.mark.parametrize("method", STATIC)
@settings(max_examples=15)
@given(instance=vc_instances(grid=True, adaptation=False))
def test_same_seed_same_answer(method, instance):
    a, b = solve(instance, method, seed=11), solve(instance, method, seed=11)
    assert a.status == b.status
    assert (a.task_hosts is None and b.task_hosts is None) or np.array_equal(
        a.task_hosts, b.task_hosts
    )


@settings(max_examples=150)
@given(instance=vc_instances(grid=False, adaptation=False, max_hosts=5, max_tasks=14))
def test_greedy_matches_the_reference_placement_for_placement(instance):
    for sort_by_memory in (False, True):
        ref = reference_greedy(instance, sort_by_memory=sort_by_memory)
        fast = greedy(instance, sort_by_memory=sort_by_memory)
        if ref is None:
            assert fast.task_hosts is None
            assert fast.status in (SolveStatus.INFEASIBLE, SolveStatus.NO_SOLUTION)
        else:
            assert fast.task_hosts.tolist() == ref


@pytest.mark.parametrize("variant", sorted(MCB_VARIANTS))
@settings(max_examples=40)
@given(instance=vc_instances(grid=False, adaptation=False, max_hosts=5, max_tasks=14))
def test_mcb_matches_the_reference_placement_for_placement(variant, instance):
    key, descending = MCB_VARIANTS[variant]
    ref = reference_mcb(instance, key=key, descending=descending)
    fast = mcb(instance, key=key, descending=descending)
    if ref is None:
        assert fast.task_hosts is None
        assert fast.status in (SolveStatus.INFEASIBLE, SolveStatus.NO_SOLUTION)
    else:
        assert fast.task_hosts.tolist() == ref


def test_mcb_order_decides_descending_beats_ascending():
    # At yield 1 the CPU needs 0.8, 0.8, 0.2, 0.1 fill two hosts only as {0.8, 0.2},
    # {0.8, 0.1}. Largest-first (MCB8) finds it; smallest-first (MCB4) puts 0.1 and 0.2
    # together, then no 0.8 fits beside them and the second 0.8 has no host left.
    inst = VCInstance.from_lists(hosts=2, cpu=[0.8, 0.8, 0.2, 0.1], mem=[0.1, 0.3, 0.1, 0.0])
    assert mcb_pack(inst, 1.0, key="max", descending=True).tolist() == [0, 1, 0, 1]
    assert mcb_pack(inst, 1.0, key="max", descending=False) is None
    assert mcb(inst, key="max", descending=True).min_yield == 1.0
    assert mcb(inst, key="max", descending=True).status is SolveStatus.OPTIMAL
    assert mcb(inst, key="max", descending=False).min_yield < 1.0


def test_mcb_imbalance_rule_picks_the_memory_heavy_list():
    # After the CPU-heavy task (0.9 CPU, 0.1 memory) the host has more free memory than
    # CPU, so the memory-heavy list is searched first: the 0.8-memory task joins it.
    inst = VCInstance.from_lists(hosts=2, cpu=[0.9, 0.1, 0.1], mem=[0.1, 0.8, 0.05])
    placed = mcb_pack(inst, 1.0, key="max", descending=True)
    assert placed.tolist()[:2] == [0, 0]


def test_backtracking_finds_what_greedy_misses():
    # GR puts a and b (memory 0.5 each) on different hosts by load, then c (0.6) fits
    # nowhere; backtracking puts a and b together.
    inst = VCInstance.from_lists(
        hosts=2, cpu=[0.5, 0.4, 0.3], mem=[0.5, 0.5, 0.6], names=["a", "b", "c"]
    )
    gr = greedy(inst)
    # GR's rule failed on a feasible instance: no solution, not a proof of infeasibility
    assert gr.status is SolveStatus.NO_SOLUTION and "'c'" in gr.message
    gb = greedy(inst, backtrack=True)
    assert gb.status in (SolveStatus.FEASIBLE, SolveStatus.OPTIMAL)
    assert gb.task_hosts[0] == gb.task_hosts[1] != gb.task_hosts[2]
    tight = greedy(inst, backtrack=True, max_attempts=2)
    assert tight.status is SolveStatus.NO_SOLUTION and "within 2 attempts" in tight.message


@settings(max_examples=60)
@given(instance=vc_instances(grid=True, adaptation=False))
def test_gb_equals_gr_when_gr_succeeds(instance):
    gr, gb = greedy(instance), greedy(instance, backtrack=True)
    if gr.task_hosts is not None:
        assert np.array_equal(gr.task_hosts, gb.task_hosts)


def test_randomised_rounding_varies_with_the_seed_and_stays_valid():
    inst = VCInstance.from_lists(hosts=3, cpu=[0.5] * 6, mem=[0.3] * 6)
    for method in ("rrnd", "rrnz"):
        placements = set()
        for seed in range(12):
            r = solve(inst, method, seed=seed)
            check_vc_result(inst, r)
            if r.task_hosts is not None:
                placements.add(tuple(r.task_hosts.tolist()))
        assert len(placements) >= 2, method  # the rounding is random, not a fixed rule


def test_adapt_respects_the_budget_and_the_milp_optimum():
    inst = VCInstance.from_lists(
        hosts=3,
        cpu=[0.9, 0.8, 0.7, 0.3],
        mem=[0.3, 0.3, 0.3, 0.2],
        previous=[0, 0, 0, None],
        migration_budget=0.3,
    )
    heuristic = solve(inst, "adapt")
    exact = solve(inst, "milp")
    check_vc_result(inst, heuristic)
    assert heuristic.migrated_memory <= 0.3 + 1e-12
    assert heuristic.min_yield <= exact.min_yield + 1e-9
    frozen = VCInstance.from_lists(
        hosts=3, cpu=[0.9, 0.8], mem=[0.3, 0.3], previous=[0, 0], migration_budget=0.0
    )
    assert solve(frozen, "adapt").task_hosts.tolist() == [0, 0]


def test_static_heuristics_refuse_migration_limits():
    from allockit.errors import InvalidInputError

    inst = VCInstance.from_lists(hosts=2, cpu=[0.5], mem=[0.1], previous=[0], max_migrations=0)
    with pytest.raises(InvalidInputError, match="use adapt"):
        solve(inst, "mcb8")


def test_unknown_mcb_key():
    from allockit.errors import InvalidInputError

    inst = VCInstance.from_lists(hosts=1, cpu=[0.5], mem=[0.1])
    with pytest.raises(InvalidInputError, match="key must be one of"):
        mcb(inst, key="area")


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10**6), groups=st.integers(0, 12), hosts=st.integers(1, 6))
def test_mcb_fill_on_groups_is_mcb_fill_on_their_tasks(seed, groups, hosts):
    # groups of identical tasks (as DFRS's jobs), their lists ordered as a stable sort of
    # the tasks orders them: the same host for every task as the task-level packing,
    # whether it packs or fails; groups without tasks take no part
    from allockit.heuristics.mcb_kernels import mcb_fill_groups_kernel, mcb_fill_kernel

    rng = np.random.default_rng(seed)
    cpu = rng.choice([0.0, 0.1, 0.25, 0.3, 0.5, 0.7, 1.0], groups)
    mem = rng.choice([0.0, 0.05, 0.1, 0.3, 0.5, 0.6], groups)
    count = rng.choice([0, 1, 1, 2, 3, 5], groups).astype(np.int64)
    free_cpu = 1.0 - rng.choice([0.0, 0.0, 0.3, 0.5, 1.0, 1.2], hosts)
    free_mem = 1.0 - rng.choice([0.0, 0.0, 0.2, 0.5, 0.9], hosts)
    key = np.maximum(cpu, mem)
    order = np.argsort(-key, kind="mergesort")
    heavy = cpu[order] > mem[order]
    group_of = np.repeat(np.arange(groups), count)  # the tasks, group by group
    t_order = np.argsort(-key[group_of], kind="mergesort")
    t_heavy = cpu[group_of][t_order] > mem[group_of][t_order]
    expected = mcb_fill_kernel(
        cpu[group_of], mem[group_of], t_order[t_heavy], t_order[~t_heavy], free_cpu, free_mem
    )
    got = mcb_fill_groups_kernel(
        cpu, mem, count, order[heavy], order[~heavy], free_cpu, free_mem
    )
    assert got.tolist() == expected.tolist()


#: Needs at and just above whole fractions of a node: each fit then uses the MEM_EPS
#: slack, and the packing's early stop (need > room + tasks left * MEM_EPS) is reached.
_EDGE_NEEDS = [0.0, 0.1, 0.25, 0.25 + 2e-13, 1 / 3, 1 / 3 + 3e-13, 0.5, 0.5 + 4e-13, 0.7, 1.0]


def _groups_vs_tasks(cpu, mem, count, free_cpu, free_mem):
    from allockit.heuristics.mcb_kernels import mcb_fill_groups_kernel, mcb_fill_kernel

    key = np.maximum(cpu, mem)
    order = np.argsort(-key, kind="stable")
    heavy = cpu[order] > mem[order]
    group_of = np.repeat(np.arange(cpu.size), count)
    t_order = np.argsort(-key[group_of], kind="stable")
    t_heavy = cpu[group_of][t_order] > mem[group_of][t_order]
    expected = mcb_fill_kernel(
        cpu[group_of], mem[group_of], t_order[t_heavy], t_order[~t_heavy], free_cpu, free_mem
    )
    got = mcb_fill_groups_kernel(cpu, mem, count, order[heavy], order[~heavy], free_cpu, free_mem)
    return got.tolist(), expected.tolist()


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10**6), hosts=st.integers(1, 5), full=st.booleans())
def test_mcb_fill_on_groups_at_the_memory_slack(seed, hosts, full):
    # one or two jobs filling every host up to the slack (k tasks of 1/k + 0.9e-12/k per
    # host), or random groups of edge needs on hosts over-committed by less than MEM_EPS
    rng = np.random.default_rng(seed)
    if full:
        k, groups = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        cpu = rng.choice([0.0, 0.1], groups)
        mem = np.full(groups, 1 / k + float(rng.choice([0.0, 0.9e-12 / k])))
        count = np.zeros(groups, dtype=np.int64)
        count[0] = k * hosts - int(rng.integers(0, 2))
        free_cpu, free_mem = np.ones(hosts), np.ones(hosts)
    else:
        groups = int(rng.integers(0, 8))
        cpu, mem = rng.choice(_EDGE_NEEDS, groups), rng.choice(_EDGE_NEEDS, groups)
        count = rng.choice([0, 1, 2, 3, 4, 6], groups).astype(np.int64)
        free_cpu = 1.0 - rng.choice([0.0, 0.0, 0.5, 1.0, 5e-13, -5e-13], hosts)
        free_mem = 1.0 - rng.choice([0.0, 0.0, 0.5, 5e-13, -5e-13], hosts)
    got, expected = _groups_vs_tasks(cpu, mem, count, free_cpu, free_mem)
    assert got == expected


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), groups=st.integers(16, 40), hosts=st.integers(2, 8))
def test_dfrs_group_packing_keeps_equal_keys_in_job_order(seed, groups, hosts):
    # DFRS's packing sorts the jobs (groups) itself; with many equal keys only a stable
    # sort gives the order of the tasks' stable sort (an unstable one, e.g. numba's
    # quicksort from 16 equal keys up, would not)
    from allockit.heuristics.mcb_kernels import mcb_fill_kernel
    from allockit.simulation.dfrs_kernels import _fill_groups

    rng = np.random.default_rng(seed)
    cpu = rng.choice([0.1, 0.3], groups)
    mem = rng.choice([0.05, 0.2, 0.3], groups)
    count = rng.integers(1, 4, groups).astype(np.int64)
    free_cpu, free_mem = np.ones(hosts), np.ones(hosts)
    group_of = np.repeat(np.arange(groups), count)
    key = np.maximum(cpu, mem)[group_of]
    order = np.argsort(-key, kind="stable")
    heavy = cpu[group_of][order] > mem[group_of][order]
    expected = mcb_fill_kernel(
        cpu[group_of], mem[group_of], order[heavy], order[~heavy], free_cpu, free_mem
    )
    assert _fill_groups(cpu, mem, count, free_cpu, free_mem).tolist() == expected.tolist()
