"""The local search on VCSched placements (moves, swaps, two-host repartitions)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.evaluation.placement import host_loads, placement_violation
from allockit.heuristics.local_search import improve_placement, memory_first_fit
from allockit.instances.generators import generate_vcsched
from allockit.instances.vcsched import VCInstance
from allockit.vcsched import solve
from tests.oracles import brute_force
from tests.strategies import vc_instances


@settings(max_examples=80)
@given(instance=vc_instances(adaptation=False), data=st.data())
def test_local_search_keeps_placements_valid_and_never_worse(instance, data):
    start = memory_first_fit(instance)
    if start is None:
        return
    seed = data.draw(st.integers(0, 100))
    better = improve_placement(instance, start, time_limit=0.5, seed=seed)
    assert placement_violation(instance, better) is None
    top = host_loads(instance, better)[0].max()
    assert top <= host_loads(instance, start)[0].max() + 1e-12
    expected, _ = brute_force(instance)
    assert min(1.0, 1.0 / top) <= expected + 1e-12


def test_local_search_reaches_the_even_split():
    inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.5, 0.4, 0.3], mem=[0.1] * 4)
    better = improve_placement(inst, np.array([0, 0, 1, 1]), stop_load=0.9)
    assert host_loads(inst, better)[0].max() == pytest.approx(0.9)


def test_local_search_improves_mcb8_on_a_large_instance():
    inst = generate_vcsched(hosts=64, jobs=500, slack=0.5, cov_cpu=0.25, cov_mem=0.25, seed=2)
    mcb8 = solve(inst, "mcb8")
    better = improve_placement(inst, mcb8.task_hosts, time_limit=2.0)
    lp_load = float(inst.cpu.sum()) / inst.hosts
    before = host_loads(inst, mcb8.task_hosts)[0].max()
    after = host_loads(inst, better)[0].max()
    assert after < before
    assert (after - lp_load) / lp_load < 1e-3  # within 0.1 % of the LP bound


def test_memory_first_fit_finds_what_mcb8_misses():
    # memory-tight: MCB8 fails, first fit on memory packs 0.6 + 0.4 and 0.5 + 0.5
    inst = VCInstance.from_lists(hosts=2, cpu=[0.9, 0.9, 0.1, 0.1], mem=[0.6, 0.5, 0.4, 0.5])
    placed = memory_first_fit(inst)
    assert placed is not None and placement_violation(inst, placed) is None
    assert memory_first_fit(VCInstance.from_lists(hosts=1, cpu=[0.1] * 2, mem=[0.6] * 2)) is None


def test_local_search_refuses_bad_input():
    inst = VCInstance.from_lists(hosts=1, cpu=[0.5, 0.5], mem=[0.6, 0.6])
    with pytest.raises(InvalidInputError, match="not a valid placement"):
        improve_placement(inst, np.array([0, 0]))
    ok = VCInstance.from_lists(hosts=2, cpu=[0.5], mem=[0.1])
    with pytest.raises(InvalidInputError, match="time_limit"):
        improve_placement(ok, np.array([0]), time_limit=0)
    with pytest.raises(InvalidInputError, match="pair_limit"):
        improve_placement(ok, np.array([0]), pair_limit=40)


def test_rounding_stops_at_its_time_limit():
    # the LP relaxation stops at the limit: status time_limit, never a wrong "infeasible"
    from allockit.heuristics.rounding import randomized_rounding
    from allockit.instances.generators import generate_vcsched

    inst = generate_vcsched(hosts=64, jobs=500, slack=0.5, cov_cpu=0.5, cov_mem=0.5, seed=1)
    r = randomized_rounding(inst, seed=0, time_limit=1e-4)
    assert str(r.status) == "time_limit" and r.min_yield is None
    assert "not solved within" in r.message
