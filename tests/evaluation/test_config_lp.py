"""The configuration LP bound, its pricing knapsack and its dives (issue 31)."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings

from allockit.errors import InvalidInputError
from allockit.evaluation.bounds import yield_upper_bound
from allockit.evaluation.config_dive import dive_placement, patterns_to_placement
from allockit.evaluation.config_lp import (
    CapacityTest,
    ConfigurationLP,
    configuration_lp_bound,
    item_types,
)
from allockit.evaluation.config_search import columns_certify
from allockit.evaluation.knapsack import knapsack_2d
from allockit.evaluation.lp_bound import lp_bound
from allockit.evaluation.placement import host_loads, placement_violation
from allockit.instances.vcsched import VCInstance
from allockit.models.vcsched_bnb import branch_and_bound
from tests.oracles import brute_force
from tests.strategies import vc_instances


def _enumerate(value, cpu, mem, demand, cap_cpu, cap_mem) -> float:
    best = 0.0
    for x in itertools.product(*[range(int(d) + 1) for d in demand]):
        x = np.array(x)
        if cpu @ x <= cap_cpu and mem @ x <= cap_mem:
            best = max(best, float(value @ x))
    return best


def test_knapsack_matches_enumeration_and_bounds_when_stopped():
    rng = np.random.default_rng(31)
    stopped = 0
    for trial in range(600):
        n = int(rng.integers(1, 7))
        value = rng.uniform(0, 1, n) * (rng.uniform(size=n) > 0.1)
        cpu = rng.uniform(0.05, 1, n)
        mem = rng.uniform(0, 0.8, n) * (rng.uniform(size=n) > 0.2)
        if trial % 3 == 0:  # a grid: exact fits and ties
            cpu, mem = np.round(cpu * 10) / 10 + 0.1, np.round(mem * 10) / 10
        demand = rng.integers(1, 4, n)
        cap_cpu = float(rng.uniform(0.8, 2.0))
        exact = _enumerate(value, cpu, mem, demand, cap_cpu, 1.0)
        loose = _enumerate(value, cpu, mem, demand, cap_cpu + 1e-9, 1.0 + 1e-9)
        floor = float(rng.choice([0.0, 0.5, 1.0]))
        limit = int(rng.choice([3, 10, 1_000_000]))
        out = knapsack_2d(
            value, cpu, mem, demand, cap_cpu + 1e-9, 1.0 + 1e-9, floor=floor, node_limit=limit
        )
        assert out.upper >= exact  # a proven upper bound, complete or not
        assert out.best <= loose + 1e-12
        if out.complete and exact > floor:
            assert out.best == pytest.approx(exact, abs=1e-12)
        for p in out.patterns:
            assert (p <= demand).all() and cpu @ p <= cap_cpu + 2e-9 and mem @ p <= 1 + 2e-9
        stopped += not out.complete
    assert stopped > 10  # the node limit did stop some searches


@pytest.mark.parametrize("change, named", [
    ({"value": np.array([1.0])}, "one entry per item"),
    ({"value": np.array([np.nan, 1.0])}, r"value\[0\] must be finite; got nan"),
    ({"cpu": np.array([0.5, 0.0])}, r"cpu\[1\] must be > 0"),
    ({"mem": np.array([-0.1, 0.3])}, r"mem\[0\] must be >= 0"),
    ({"demand": np.array([1.5, 1])}, r"demand\[0\] must be an integer >= 0; got 1.5"),
    ({"demand": np.array([2, -1])}, r"demand\[1\] must be an integer >= 0"),
    ({"value": [[1.0, 2.0]]}, "one-dimensional"),
    ({"cap_cpu": float("nan")}, "cap_cpu must be a finite number > 0"),
    ({"cap_mem": 0.0}, "cap_mem must be a finite number > 0"),
    ({"node_limit": 0}, "node_limit must be an integer >= 1"),
])
def test_knapsack_refuses_items_out_of_range_by_name(change, named):
    """A NaN value used to come back as a 'proven' optimum of the other items."""
    args = {"value": np.array([1.0, 2.0]), "cpu": np.array([0.5, 0.7]),
            "mem": np.array([0.2, 0.3]), "demand": np.array([2, 1]), "cap_cpu": 1.0,
            "cap_mem": 1.0, **change}
    with pytest.raises(InvalidInputError, match=named):
        knapsack_2d(**args)


def test_knapsack_skips_items_of_no_value_or_too_large():
    out = knapsack_2d(
        np.array([0.0, -1.0, 2.0, 0.5]), np.array([0.1, 0.1, 1.5, 0.5]),
        np.zeros(4), np.ones(4, np.int64), 1.0, 1.0,
    )
    assert out.best == 0.5 and out.patterns[-1].tolist() == [0, 0, 0, 1]


def test_item_types_group_identical_tasks_of_parallel_jobs():
    inst = VCInstance.from_lists(
        hosts=3, cpu=[0.5, 0.25, 0.5], mem=[0.2, 0.2, 0.2], tasks=[3, 2, 1]
    )
    cpu, mem, demand, task_type = item_types(inst)
    assert cpu.tolist() == [0.25, 0.5] and mem.tolist() == [0.2, 0.2]
    assert demand.tolist() == [2, 4]
    assert task_type.tolist() == [1, 1, 1, 0, 0, 1]


def _optimal_load(instance: VCInstance) -> float | None:
    _, hosts = brute_force(instance)
    if hosts is None:
        return None
    return float(host_loads(instance, hosts)[0].max())


@settings(max_examples=80)
@given(instance=vc_instances(adaptation=False))
def test_bound_never_below_the_brute_force_optimum_nor_above_the_lp_bound(instance):
    optimum, _ = brute_force(instance)
    load = _optimal_load(instance)
    for incumbent in (load, None):
        out = configuration_lp_bound(instance, incumbent_load=incumbent, rel_gap=1e-6)
        if optimum is not None:
            assert out.bound >= optimum - 1e-9, (out, optimum)
            assert out.load <= load + 1e-9
        lp = lp_bound(instance)
        if lp is not None:
            assert out.bound <= lp + 1e-12
        if not out.proven:
            assert out.load == max(
                float(instance.cpu[instance.task_job].sum()) / instance.hosts,
                float(instance.cpu.max()),
            )


@settings(max_examples=60)
@given(instance=vc_instances(adaptation=False, grid=False))
def test_bound_holds_on_arbitrary_floats(instance):
    optimum, _ = brute_force(instance)
    out = configuration_lp_bound(instance, incumbent_load=_optimal_load(instance))
    if optimum is not None:
        assert out.bound >= optimum - 1e-9


def test_bound_against_branch_and_bound_on_mid_size_instances():
    # 3-6 hosts, up to 14 tasks (parallel jobs among them), memories 0.1-0.6: the
    # complete branch and bound gives the optimum; the bound must never cut it off and
    # should be proven, and above the closed-form floor, on many of them
    rng = np.random.default_rng(7)
    proven = 0
    for _ in range(60):
        hosts = int(rng.integers(3, 7))
        n = int(rng.integers(hosts + 1, 2 * hosts + 2))
        tasks = rng.integers(1, 3, n)
        tasks = tasks[np.cumsum(tasks) <= 14]
        n = tasks.size
        inst = VCInstance.from_lists(
            hosts=hosts,
            cpu=rng.uniform(0.2, 1.0, n).tolist(),
            mem=(rng.uniform(0.1, 0.6, n) / tasks.mean()).tolist(),
            tasks=tasks.tolist(),
        )
        exact = branch_and_bound(inst, time_limit=60)
        assert exact.complete
        if exact.load is None:
            continue
        out = configuration_lp_bound(inst, incumbent_load=exact.load, rel_gap=1e-6)
        assert out.load <= exact.load + 1e-9
        assert out.bound >= min(1.0, 1.0 / exact.load) - 1e-9
        proven += out.proven
    assert proven > 10


def test_stopped_early_the_bound_stays_valid():
    rng = np.random.default_rng(11)
    for _ in range(30):
        hosts = int(rng.integers(2, 5))
        n = int(rng.integers(hosts + 1, 2 * hosts + 3))
        inst = VCInstance.from_lists(
            hosts=hosts, cpu=rng.uniform(0.2, 1.0, n).tolist(),
            mem=rng.uniform(0.05, 0.5, n).tolist(),
        )
        optimum, best_hosts = brute_force(inst)
        if optimum is None:
            continue
        load = float(host_loads(inst, best_hosts)[0].max())
        # at the optimal load, and from no incumbent (the search then tests loads above
        # the optimum, where a test cut short must not count as a proof)
        for incumbent in (load, None):
            for iterations in (1, 2, 3):
                out = configuration_lp_bound(
                    inst, incumbent_load=incumbent, max_iterations=iterations
                )
                assert out.bound >= optimum - 1e-9
        out = configuration_lp_bound(inst, incumbent_load=load, time_limit=1e-9)
        assert out.bound >= optimum - 1e-9 and not out.tests
        # at the optimal load a placement exists: no Farley bound may exceed H
        for iterations in (1, 2, 5, 100):
            test = ConfigurationLP(inst).test(load, max_iterations=iterations)
            assert test.status != "proven" and test.lower <= hosts * (1 + 1e-9)


def test_a_proof_at_a_load_below_the_optimum():
    # three 0.6 tasks on two hosts: the LP bound says 0.9; two must share a host: 1.2
    inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
    lp = ConfigurationLP(inst)
    test = lp.test(1.19)
    assert test.status == "proven" and test.lower > 2
    assert lp.test(1.2).status == "fractional"
    out = configuration_lp_bound(inst, incumbent_load=1.2, rel_gap=1e-6)
    assert out.proven and 1 / 1.2 <= out.bound <= 1 / 1.2 * (1 + 3e-5)


#: Memory forces a load of 1.5 on three hosts: the closed-form bounds say 1 / 1.35
#: (bin packing), the configuration LP proves the optimum 1 / 1.5.
MEMORY_BOUND = VCInstance.from_lists(
    hosts=3,
    cpu=[1.0, 0.8, 0.1, 0.15, 0.55, 0.85, 0.1],
    mem=[0.45, 0.5, 0.5, 0.55, 0.15, 0.35, 0.5],
)


def test_memory_makes_the_configuration_lp_stronger_than_the_closed_forms():
    exact = branch_and_bound(MEMORY_BOUND, time_limit=10)
    assert exact.complete and exact.load == pytest.approx(1.5)
    closed, source = yield_upper_bound(MEMORY_BOUND)
    assert source == "bin-packing" and closed == pytest.approx(1 / 1.35)
    out = configuration_lp_bound(MEMORY_BOUND, incumbent_load=exact.load)
    assert out.proven
    assert 1 / 1.5 <= out.bound <= 1 / 1.5 * (1 + 3e-5)


def test_infeasible_instances():
    # a task whose memory exceeds a host: every load is proven out, no dive succeeds
    inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[1.5, 0.1])
    lp = ConfigurationLP(inst)
    assert lp.test(1.0).status == "proven"
    assert dive_placement(lp, 10.0) is None
    # too much memory in all: the master needs more hosts than there are at any load
    inst = VCInstance.from_lists(hosts=2, cpu=[0.1] * 5, mem=[0.45] * 5)
    lp = ConfigurationLP(inst)
    assert lp.test(100.0).status == "proven"
    assert dive_placement(lp, 100.0) is None
    # a load below the largest task's need: no host can hold it
    inst = VCInstance.from_lists(hosts=3, cpu=[0.9, 0.1], mem=[0.1, 0.1])
    assert ConfigurationLP(inst).test(0.5).status == "proven"


def test_dives_give_valid_placements_within_the_load():
    rng = np.random.default_rng(5)
    found = 0
    for _ in range(40):
        hosts = int(rng.integers(2, 6))
        n = int(rng.integers(hosts + 1, 3 * hosts))
        tasks = rng.integers(1, 3, n)
        tasks = tasks[np.cumsum(tasks) <= 14]
        n = tasks.size
        inst = VCInstance.from_lists(
            hosts=hosts, cpu=rng.uniform(0.1, 1.0, n).tolist(),
            mem=(rng.uniform(0.05, 0.5, n) / tasks.mean()).tolist(), tasks=tasks.tolist(),
        )
        exact = branch_and_bound(inst, time_limit=60)
        assert exact.complete
        if exact.load is None or exact.load <= 1.0:
            continue  # (the branch and bound stops at load 1: yield 1)
        for cap in (exact.load * 1.05, exact.load * 1.2):
            hosts_ = dive_placement(ConfigurationLP(inst), cap)
            if hosts_ is not None:
                found += 1
                assert placement_violation(inst, hosts_) is None
                assert host_loads(inst, hosts_)[0].max() <= cap * (1 + 1e-9)
        assert dive_placement(ConfigurationLP(inst), exact.load * (1 - 1e-3)) is None
    assert found > 20


def test_patterns_to_placement_drops_tasks_covered_twice():
    inst = VCInstance.from_lists(hosts=3, cpu=[0.5, 0.3], mem=[0.1, 0.1], tasks=[2, 1])
    lp = ConfigurationLP(inst)  # types: 0.3 (1 task), 0.5 (2 tasks)
    hosts = patterns_to_placement(lp, [np.array([1, 1]), np.array([1, 1]), np.array([0, 1])])
    assert placement_violation(inst, hosts) is None
    assert sorted(np.bincount(hosts, minlength=3).tolist()) == [1, 1, 1]
    with pytest.raises(ValueError, match="do not cover"):
        patterns_to_placement(lp, [np.array([1, 1])])
    with pytest.raises(ValueError, match="patterns for 3 hosts"):
        patterns_to_placement(lp, [np.array([1, 1])] * 4)


def test_columns_certify_improves_a_poor_incumbent():
    rng = np.random.default_rng(2)
    inst = VCInstance.from_lists(
        hosts=6, cpu=rng.uniform(0.3, 0.7, 14).tolist(), mem=rng.uniform(0.1, 0.4, 14).tolist()
    )
    exact = branch_and_bound(inst, time_limit=10)
    poor = np.arange(inst.n_tasks) % 3  # three hosts only
    out = columns_certify(inst, poor, rel_gap=1e-6)
    assert out.task_hosts is not None and placement_violation(inst, out.task_hosts) is None
    assert out.load < float(host_loads(inst, poor)[0].max())
    assert out.bound is not None and out.bound >= 1 / exact.load - 1e-9
    assert math.isfinite(out.load) and out.load >= exact.load - 1e-9


def test_adaptation_instances_are_refused():
    inst = VCInstance.from_lists(
        hosts=2, cpu=[0.5, 0.5], mem=[0.1, 0.1], previous=[0, 1], max_migrations=0
    )
    with pytest.raises(InvalidInputError, match="migration limits"):
        ConfigurationLP(inst)


@pytest.mark.parametrize("arguments, named", [
    ({"rel_gap": -0.5}, "rel_gap"),
    ({"rel_gap": float("nan")}, "rel_gap"),
    ({"rel_gap": 1.0}, "rel_gap"),
    ({"incumbent_load": -1.0}, "incumbent_load"),
    ({"incumbent_load": math.inf}, "incumbent_load"),
    ({"lower_load": float("nan")}, "lower_load"),
    ({"max_iterations": 0}, "max_iterations"),
    ({"max_iterations": 2.5}, "max_iterations"),
    ({"incumbent_load": 1.2, "lower_load": 1.5}, "lower_load 1.5 is above incumbent_load 1.2"),
    ({"lower_load": 5.0}, "lower_load 5.0 is above the total CPU need"),
])
def test_arguments_no_search_can_use_are_refused_by_name(arguments, named):
    """A lower load above the incumbent's would be 'proven' as given: a wrong bound."""
    inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
    with pytest.raises(InvalidInputError, match=named):
        configuration_lp_bound(inst, **arguments)


@pytest.mark.parametrize("incumbent, placements, named", [
    (np.array([0, 0, 5]), (), r"incumbent\[2\] is host 5; hosts are 0..1"),
    (np.array([0, 0]), (), "incumbent must give one host per task"),
    (np.array([0.5, 0.0, 0.0]), (), r"incumbent\[0\] must be a host index; got 0.5"),
    (np.array([0, 0, 1]), (np.array([0, 1, -1]),), r"placements\[0\]\[2\] is host -1"),
])
def test_columns_certify_refuses_a_placement_that_is_not_one(incumbent, placements, named):
    inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
    with pytest.raises(InvalidInputError, match=named):
        columns_certify(inst, incumbent, placements=placements)


def test_columns_certify_takes_an_incumbent_over_memory_but_not_its_host_as_a_column():
    inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.6] * 3)  # infeasible
    out = columns_certify(inst, np.array([0, 0, 1]))
    assert out.task_hosts is None and not math.isfinite(out.load)


@pytest.mark.parametrize("capacity", [0.0, -1.0, float("nan"), math.inf, "1.2", True])
def test_a_capacity_test_or_dive_refuses_a_capacity_that_is_none(capacity):
    lp = ConfigurationLP(VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3))
    with pytest.raises(InvalidInputError, match="capacity must be a finite number > 0"):
        lp.test(capacity)
    with pytest.raises(InvalidInputError, match="capacity must be a finite number > 0"):
        dive_placement(lp, capacity)


def test_consistent_numpy_arguments_are_accepted():
    inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
    out = configuration_lp_bound(inst, incumbent_load=np.float64(1.2),
                                 lower_load=np.float64(1.1), max_iterations=np.int64(50))
    assert out.proven and out.bound == pytest.approx(1 / 1.2, rel=1e-5)


def test_kernels_are_cached_where_the_heuristics_cache_theirs(tmp_path):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    code = (
        "import allockit.evaluation.knapsack;"
        "from numba.core import config;"
        "from allockit.heuristics.kernel_setup import numba_cache_dir;"
        "print(config.CACHE_DIR == numba_cache_dir(), config.CACHE_DIR)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
        cwd=tmp_path,
    ).stdout.split()
    from allockit.numba_cache import kernel_digest

    assert out == ["True", str(tmp_path / "xdg" / "allockit" / "numba" / kernel_digest())]


class _NeverDecides(ConfigurationLP):
    """A master whose every test stops before deciding (a limit reached at once)."""

    def test(self, capacity, **kwargs):
        return CapacityTest(capacity, "stopped", 0.0, math.inf, 1, capacity)


def test_tests_cut_short_never_count_as_proofs():
    # every capacity undecided, from no incumbent (the search then tries loads far
    # above the optimum) or a poor one: only the closed-form floor may be claimed
    inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
    floor = 0.9
    for incumbent in (None, 1.8):
        out = configuration_lp_bound(inst, incumbent_load=incumbent, lp=_NeverDecides(inst))
        assert not out.proven and out.load == pytest.approx(floor)
        assert out.bound == 1.0 and out.tests
    big = VCInstance.from_lists(hosts=2, cpu=[0.9] * 3, mem=[0.1] * 3)
    out = configuration_lp_bound(big, lp=_NeverDecides(big))
    assert not out.proven and out.bound == pytest.approx(1 / 1.35)


def test_a_master_lp_highs_did_not_solve_stops_the_test_with_what_was_proven():
    # HiGHS 1.16 fails a threads=1 solve after a multi-threaded one in the same process
    # (status "Not Set"); the master's numbers must not be read as an answer then
    import highspy

    inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
    lp = ConfigurationLP(inst)
    real = lp._highs

    class Failing:
        def __getattr__(self, name):
            return getattr(real, name)

        def getModelStatus(self):
            return highspy.HighsModelStatus.kNotset

    lp._highs = Failing()
    result = lp.test(1.19)
    assert result.status == "stopped" and result.iterations == 0
    assert math.isinf(result.upper) and result.lower <= 3 / 1.19
    lp._highs = real
    assert lp.test(1.19).status == "proven"
