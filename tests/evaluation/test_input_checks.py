"""Bad arguments of the bounds, placements, packings and limits are refused by name.

Found by a fuzz run over the public functions (2026-11-29): each case below used to
return a result that claimed something false (an overstated lower bound, a truncated
placement scored as optimal, a yield bound of NaN reported with gap 0), to crash deep
inside numpy, or to allocate without limit.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from allockit.clock import Deadline
from allockit.errors import InvalidInputError
from allockit.evaluation.bounds import bins_lower_bound, pair_hosts_lower_bound
from allockit.evaluation.config_lp import configuration_lp_bound
from allockit.evaluation.knapsack import MAX_PATTERN_CELLS, first_fit_patterns
from allockit.evaluation.placement import (
    average_yield_phase,
    checked_task_hosts,
    empty_result,
    host_loads,
    max_sum_yields,
    migration_cost,
    min_yield_of,
    placement_violation,
    result_from_placement,
)
from allockit.heuristics.mcb import mcb_fill, mcb_pack
from allockit.instances.vcsched import VCInstance
from allockit.results import SolveStatus
from allockit.solver.report import check_limits

INST = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
CPU, MEM = np.array([0.4, 0.4, 0.6, 0.6]), np.array([0.6, 0.6, 0.4, 0.4])


@pytest.mark.parametrize("call, named", [
    (lambda: pair_hosts_lower_bound(CPU, MEM, math.nan), "capacity must be a number > 0"),
    (lambda: pair_hosts_lower_bound(CPU, MEM, 0.0), "capacity must be a number > 0"),
    (lambda: pair_hosts_lower_bound(np.array([math.nan, 0.4, 0.6, 0.6]), MEM, 1.0),
     r"cpu\[0\] must be finite and >= 0; got nan"),
    (lambda: pair_hosts_lower_bound(CPU[:3], MEM, 1.0), "one entry per task; got 3 and 4"),
    (lambda: bins_lower_bound(np.array([0.4, 0.4, 0.4]), 0.0), "capacity must be a finite"),
    (lambda: bins_lower_bound(np.array([0.4, 0.4]), math.inf), "capacity must be a finite"),
    (lambda: bins_lower_bound(np.array([-0.4, 0.4, 0.4]), 1.0), r"sizes\[0\] must be finite"),
    (lambda: bins_lower_bound(np.array([[0.4]]), 1.0), "one-dimensional"),
])
def test_bin_packing_bounds_refuse_what_would_overstate_them(call, named):
    with pytest.raises(InvalidInputError, match=named):
        call()


def test_bin_packing_bounds_keep_their_answers():
    assert pair_hosts_lower_bound(CPU, MEM, 1.0) == 2
    assert pair_hosts_lower_bound(CPU, MEM, math.inf) == 2  # memory alone: allowed
    assert bins_lower_bound(np.array([0.4, 0.4, 0.4]), 1.0) == 2


@pytest.mark.parametrize("hosts, named", [
    ([0.5, 0, 1], r"task_hosts\[0\] must be a host index; got 0.5"),
    ([0, 0, 2], r"task_hosts\[2\] is host 2; hosts are 0..1"),
    ([0, -1, 1], r"task_hosts\[1\] is host -1"),
    ([0, 0], r"one host per task \(3\)"),
    (["a", "b", "c"], "must be an array of host indices"),
    ([0.0, math.nan, 1.0], r"task_hosts\[1\] must be a host index; got nan"),
    ([0.0, 1e300, 1.0], r"task_hosts\[1\] is host 1e\+300; hosts are 0..1"),
    (np.array([0, 2**64 - 1, 1], dtype=np.uint64), r"task_hosts\[1\] must be a host index; got 18"),
    (np.array([0, 2, 1], dtype=np.uint64), r"task_hosts\[1\] is host 2; hosts"),
    ([[0], [0, 1], [1]], "must be an array of host indices: "),
    ([True, False, True], r"host indices \(integers\); got dtype bool"),
])
def test_a_placement_that_is_none_is_named(hosts, named):
    with pytest.raises(InvalidInputError, match=named):
        checked_task_hosts(INST, hosts)
    with pytest.raises(InvalidInputError, match=named):
        host_loads(INST, hosts)
    with pytest.raises(InvalidInputError, match=named):
        min_yield_of(INST, hosts)


def test_a_solver_s_float_hosts_of_integer_value_are_a_placement():
    assert checked_task_hosts(INST, np.array([0.0, 0.0, 1.0])).tolist() == [0, 0, 1]
    for dtype in (np.uint64, np.int8, np.uint16, np.float32):
        hosts = checked_task_hosts(INST, np.array([0, 0, 1], dtype=dtype))
        assert hosts.dtype == np.int64 and hosts.tolist() == [0, 0, 1]
    result = result_from_placement(INST, np.array([0.0, 0.0, 1.0]), method="d",
                                   status=SolveStatus.OPTIMAL)
    assert result.status is SolveStatus.OPTIMAL and result.min_yield == pytest.approx(1 / 1.2)


def test_a_fractional_placement_is_an_error_result_not_a_truncated_optimum():
    result = result_from_placement(INST, np.array([0.5, 0, 1]), method="d",
                                   status=SolveStatus.OPTIMAL)
    assert result.status is SolveStatus.ERROR and "must be a host index" in result.message
    assert "must be a host index" in placement_violation(INST, np.array([0.5, 0, 1]))
    assert placement_violation(INST, np.array([0, 0, 5])).endswith("hosts are 0..1")


@pytest.mark.parametrize("bound", [math.nan, -1.0, "0.9", True])
def test_a_yield_bound_that_is_none_is_refused(bound):
    with pytest.raises(InvalidInputError, match="bound must be None or a number >= 0"):
        result_from_placement(INST, np.array([0, 0, 1]), method="d",
                              status=SolveStatus.OPTIMAL, bound=bound)
    with pytest.raises(InvalidInputError, match="bound must be None or a number >= 0"):
        empty_result(INST, method="d", status=SolveStatus.INFEASIBLE, bound=bound)
    with pytest.raises(InvalidInputError, match=r"bounds\[0\] must be None"):
        result_from_placement(INST, np.array([0, 0, 1]), method="d",
                              status=SolveStatus.OPTIMAL, bounds=((bound, "x"),))


@pytest.mark.parametrize("coeff, floor, named", [
    (np.array([[math.nan], [0.8]]), 0.5, r"coeff\[0, 0\] must be finite and >= 0; got nan"),
    (np.array([[-1.0], [0.8]]), 0.5, r"coeff\[0, 0\] must be finite and >= 0"),
    (np.array([0.4, 0.8]), 0.5, "two-dimensional"),
    (np.array([[0.4], [0.8]]), math.nan, r"floor must be a number in \[0, 1\]"),
    (np.array([[0.4], [0.8]]), 2.0, r"floor must be a number in \[0, 1\]"),
])
def test_max_sum_yields_refuses_its_inputs_out_of_range(coeff, floor, named):
    with pytest.raises(InvalidInputError, match=named):
        max_sum_yields(coeff, floor)


@pytest.mark.parametrize("target", [math.nan, -1.0, 1.5, True])
def test_mcb_pack_refuses_a_target_outside_0_1(target):
    with pytest.raises(InvalidInputError, match=r"target must be a number in \[0, 1\]"):
        mcb_pack(INST, target)


@pytest.mark.parametrize("arrays, named", [
    (([math.nan, 0.5], [0.2, 0.2], [0.5, 1.0], [1.0, 1.0]), r"cpu_req\[0\] must be finite"),
    (([0.5, 0.5], [0.2], [0.5, 1.0], [1.0, 1.0]), "cpu_req and mem must have the same length"),
    (([0.5, 0.5], [0.2, 0.2], [0.5, 1.0], [1.0]), "free_cpu and free_mem must have the same"),
    (([0.5, 0.5], [0.2, 0.2], [math.inf, 1.0], [1.0, 1.0]), r"free_cpu\[0\] must be finite"),
])
def test_mcb_fill_refuses_what_its_kernel_would_read_past(arrays, named):
    with pytest.raises(InvalidInputError, match=named):
        mcb_fill(*(np.array(a) for a in arrays))


def test_mcb_keeps_its_packings():
    assert mcb_pack(INST, 0.8).tolist() == [0, 0, 1]
    assert mcb_fill(np.array([0.5, 0.5]), np.array([0.2, 0.2]), np.array([0.5, 1.0]),
                    np.array([1.0, 1.0])).tolist() == [0, 1]


@pytest.mark.parametrize("args, named", [
    ((np.array([0.6, 0.5, 0.4]), np.zeros(3), np.ones(3, np.int64), math.nan, 1.0),
     "cap_cpu must be a finite number > 0"),
    ((np.array([0.6, 0.5]), np.zeros(3), np.ones(3, np.int64), 1.0, 1.0),
     "one entry per item"),
    ((np.array([0.6, 0.5, 0.4]), np.zeros(3), np.array([10**9, 1, 1]), 1.0, 1.0),
     f"more than {MAX_PATTERN_CELLS}"),
])
def test_first_fit_patterns_refuses_bad_items_and_unbounded_room(args, named):
    with pytest.raises(InvalidInputError, match=named):
        first_fit_patterns(*args)


@pytest.mark.parametrize("room", [MAX_PATTERN_CELLS, 10])
def test_best_skips_the_configuration_lp_beyond_its_room(monkeypatch, room):
    """An instance too large for the first packings goes without the phase, noted."""
    import allockit.evaluation.knapsack as knapsack
    from allockit.instances.generators import generate_vcsched
    from allockit.portfolio.phases import bounds, configuration_lp, heuristics
    from allockit.portfolio.state import PortfolioRun

    monkeypatch.setattr(knapsack, "MAX_PATTERN_CELLS", room)
    inst = generate_vcsched(hosts=64, jobs=150, slack=0.1, cov_cpu=0.25, cov_mem=0.25,
                            seed=np.random.default_rng([7003, 81]))
    run = PortfolioRun.start(inst, time_limit=60, threads=None, seed=None, rel_gap=1e-4,
                             exact="auto", solver="highs", method="best")
    bounds(run)
    heuristics(run)  # MCB8: a gap of about 28 %, so the phase is due
    before = run.best.bound
    configuration_lp(run)
    if room == 10:
        assert run.notes[-1] == ("configuration LP skipped: 150 tasks of 150 kinds are "
                                 "beyond its first packings' room")
        assert run.best.bound == before
    else:
        assert run.notes[-1].startswith("configuration LP: load >")
        assert run.best.bound < before


@pytest.mark.parametrize("call, named", [
    (lambda: Deadline.of("10"), "time_limit must be > 0 seconds; got '10'"),
    (lambda: check_limits(threads=math.nan), "threads must be an integer >= 1; got nan"),
    (lambda: check_limits(threads="2"), "threads must be an integer >= 1; got '2'"),
])
def test_limits_of_the_wrong_type_are_named(call, named):
    with pytest.raises(InvalidInputError, match=named):
        call()


@pytest.mark.parametrize("epsilon", [math.nan, math.inf, -0.5, "0.01"])
def test_randomized_rounding_refuses_an_epsilon_outside_0_1(epsilon):
    from allockit.heuristics.rounding import randomized_rounding

    with pytest.raises(InvalidInputError, match=r"epsilon must be a number in \[0, 1\]"):
        randomized_rounding(INST, epsilon=epsilon, seed=1)


@pytest.mark.parametrize("options, named", [
    ({"sort_by_memory": None}, "sort_by_memory must be True or False; got None"),
    ({"backtrack": "yes"}, "backtrack must be True or False"),
    ({"max_attempts": 1.5}, "max_attempts must be an integer >= 1; got 1.5"),
])
def test_greedy_refuses_options_of_the_wrong_kind(options, named):
    from allockit.heuristics.greedy import greedy

    with pytest.raises(InvalidInputError, match=named):
        greedy(INST, **options)


@pytest.mark.parametrize("call, named", [
    (lambda: _improve(kicks=1.5), r"kicks must be an integer >= 0; got"),
    (lambda: _improve(max_steps=math.nan), r"max_steps must be an integer >= 1; got"),
    (lambda: _improve(kick_size=0), r"kick_size must be an integer >= 1; got"),
    (lambda: _improve(pair_limit=30), r"pair_limit must be an integer in \[2, 24\]"),
    (lambda: _improve(seed="1"), r"seed must be an integer"),
    (lambda: _improve(task_hosts=np.array([0.5, 0, 1, 1])), "must be a host index; got 0.5"),
    (lambda: _adapt(max_moves=1.5), r"max_moves must be an integer >= 0; got"),
    (lambda: _slots(per_largest=10**12), r"per_largest must be an integer in \[1, 10000\]"),
    (lambda: _step2(max_iter=math.nan), r"max_iter must be an integer >= 1; got"),
])
def test_integer_options_are_integers_in_range(call, named):
    """Fractions were truncated, NaN was a ValueError from int(), 10**12 slots a MemoryError."""
    with pytest.raises(InvalidInputError, match=named):
        call()


def test_integer_options_of_integer_value_are_accepted():
    assert _improve(kicks=3.0, seed=np.int64(2)).shape == (4,)
    assert _improve(seed=2**63 - 1).shape == (4,)  # the largest seed the options layer takes


def _improve(task_hosts=None, **options):
    from allockit.heuristics.local_search import improve_placement

    inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.5, 0.4, 0.3], mem=[0.1] * 4)
    start = np.array([0, 0, 1, 1]) if task_hosts is None else task_hosts
    return improve_placement(inst, start, stop_load=0.9, **options)


def _adapt(**options):
    from allockit.heuristics.adaptation import adapt

    inst = VCInstance.from_lists(hosts=2, cpu=[1.0, 1.0], mem=[0.25, 0.25], previous=[0, 0],
                                 migration_budget=0.25)
    return adapt(inst, **options)


def _slots(**options):
    from allockit.heuristics.drfh_tasks import slots
    from allockit.instances.drfh import DRFHInstance

    inst = DRFHInstance.from_dict({
        "problem": "drfh", "resources": ["cpu", "mem"],
        "servers": [{"name": "s1", "capacity": [2, 12], "count": 1}],
        "users": [{"name": "u1", "demand": [0.2, 1], "weight": 1, "tasks": None}],
    })
    return slots(inst, **options)


def _step2(**options):
    from allockit.models.cluster_reserves_fast import step2_fast
    from allockit.models.cluster_reserves_problem import CRProblem

    problem = CRProblem.from_arrays([[50, 50], [50, 50]], [[70, 30], [50, 50]], [50, 50])
    return step2_fast(problem, **options)


@pytest.mark.parametrize("hosts", [[[0], [0, 1], [1]], [1], [0, 0, 1, 1], [0.5, 0, 1], [0, 0, 7]])
def test_migration_cost_and_the_average_phase_refuse_what_is_no_placement(hosts):
    # a length-1 array used to broadcast against ``previous`` (a count of the wrong tasks)
    with pytest.raises(InvalidInputError, match="host"):
        migration_cost(INST, hosts)
    with pytest.raises(InvalidInputError, match="host"):
        average_yield_phase(INST, hosts, 0.5)


@pytest.mark.parametrize("floor", [math.nan, "0.5", None])
def test_the_average_phase_refuses_a_floor_that_is_no_number(floor):
    with pytest.raises(InvalidInputError, match="min_yield must be a number"):
        average_yield_phase(INST, [0, 0, 1], floor)


@pytest.mark.parametrize("gap", [np.int64(0), np.float32(0.01), np.float64(1e-4), 0])
def test_numpy_numbers_are_numbers_for_every_gap_check(gap):
    # the options layer takes numpy numbers; check_limits and the configuration LP refused
    # numpy integers (and check_limits numpy float32) before they shared real_number
    check_limits(rel_gap=gap)
    assert configuration_lp_bound(INST, rel_gap=gap).bound <= 1.0


@pytest.mark.parametrize("gap", [np.float64("nan"), np.int64(1), np.float32(-0.5), True])
def test_bad_numpy_gaps_are_still_refused(gap):
    with pytest.raises(InvalidInputError, match=r"rel_gap must be a number in \[0, 1\); got"):
        check_limits(rel_gap=gap)
    with pytest.raises(InvalidInputError, match=r"rel_gap must be a number in \[0, 1\); got"):
        configuration_lp_bound(INST, rel_gap=gap)
