"""The average-yield exchange check and the LP closed form refuse what they cannot decide."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.evaluation.placement import average_yield_phase, min_yield_of
from allockit.instances.vcsched import VCInstance
from allockit.proofs.average_yield_greedy import MAX_TOL, exchange_violations
from allockit.proofs.lp_closed_form import closed_form_certificate
from allockit.vcsched import solve
from tests.strategies import vc_instances

VC = VCInstance.from_lists
INST = VC(hosts=1, cpu=[0.5, 0.75], mem=[0, 0])
ON_0 = np.array([0, 0])


@pytest.mark.parametrize(
    ("instance", "hosts", "floor", "yields", "options", "message"),
    [
        (INST, ON_0, 0.5, np.array([1.0, 1.0]), {},
         r"yields overcommit host 0: its jobs use CPU 1.25 > 1"),
        (INST, ON_0, 0.5, np.array([2.0, 2.0]), {},
         r"yields\[0\] must be in \[floor, 1\] = \[0.5, 1\]; got 2.0"),
        (INST, ON_0, 0.5, np.array([math.nan, 0.5]), {}, r"yields\[0\] .*; got nan"),
        (INST, ON_0, 0.5, np.array([0.4, 0.5]), {}, r"yields\[0\] .*; got 0.4"),
        (INST, ON_0, 0.5, np.array([1.0]), {},
         r"yields must give one yield per job \(2\); got shape \(1,\)"),
        (INST, ON_0, 0.5, [["a", "b"]], {}, r"yields\[0, 0\] must be a number; got 'a'"),
        (INST, ON_0, math.nan, np.array([1.0, 2 / 3]), {},
         r"floor must be a finite number in \[0, 1\]; got nan"),
        (INST, ON_0, 2, np.array([1.0, 1.0]), {}, r"floor must be .*; got 2"),
        (INST, ON_0, -0.5, np.array([1.0, 2 / 3]), {}, r"floor must be .*; got -0.5"),
        (INST, np.array([5, 5]), 0.5, np.array([1.0, 2 / 3]), {},
         r"task_hosts\[0\] is host 5; hosts are 0..0"),
        (INST, np.array([0.5, 0]), 0.5, np.array([1.0, 2 / 3]), {},
         r"task_hosts\[0\] must be a host index; got 0.5"),
        (INST, np.array([0]), 0.5, np.array([1.0, 2 / 3]), {}, r"one host per task \(2\)"),
        (VC(hosts=2, cpu=[0.5], mem=[0], tasks=[2]), np.array([0, 1]), 0.5, np.array([1.0]),
         {}, r"task_hosts\[1\] is host 1 but job 0's first task is on host 0"),
        (INST, ON_0, 0.5, np.array([1.0, 2 / 3]), {"tol": math.nan}, r"tol must be .*; got nan"),
        (INST, ON_0, 0.5, np.array([1.0, 2 / 3]), {"tol": 0.5},
         r"tol must be a finite number in \[0, 0.001\]; got 0.5"),
        ("instance", ON_0, 0.5, np.array([1.0, 2 / 3]), {}, r"instance must be a VCInstance"),
    ],
)
def test_exchange_check_refuses_what_it_cannot_decide(instance, hosts, floor, yields, options,
                                                      message):
    with pytest.raises(InvalidInputError, match=message):
        exchange_violations(instance, hosts, floor, yields, **options)


def test_exchange_check_answers_as_before_on_feasible_allocations():
    assert exchange_violations(INST, ON_0, 0.5, np.array([0.5, 1.0])) == [(0, 1)]
    assert exchange_violations(INST, ON_0, 0.5, np.array([1.0, 2 / 3])) == []
    # lists, numpy scalars and whole floats are the same arguments
    assert exchange_violations(INST, [0.0, 0.0], np.float32(0.5), [0.5, 1.0]) == [(0, 1)]
    assert exchange_violations(INST, ON_0, 0.5, np.array([1.0, 2 / 3]), tol=MAX_TOL) == []
    # a job of two tasks on one host: its CPU is 2 * cpu * yield
    two = VC(hosts=2, cpu=[0.25, 0.5], mem=[0, 0], tasks=[2, 1])
    assert exchange_violations(two, np.array([1, 1, 0]), 0.5, np.array([1.0, 0.5])) == [(1, 1)]


@given(instance=vc_instances(parallel=False, adaptation=False, max_tasks=10), data=st.data())
def test_greedy_allocations_are_never_refused(instance, data):
    hosts = np.array(
        [data.draw(st.integers(0, instance.hosts - 1)) for _ in range(instance.n_tasks)]
    )
    floor = data.draw(st.floats(0.0, 1.0)) * min_yield_of(instance, hosts)
    yields = average_yield_phase(instance, hosts, floor)
    assert exchange_violations(instance, hosts, floor, yields) == []
    assert exchange_violations(instance, hosts.astype(float).tolist(), floor, yields) == []


def test_closed_form_refuses_instances_with_migration_limits():
    # with a zero budget both tasks stay on host 0: the LP optimum is 1/1.8, not 1
    inst = VC(hosts=2, cpu=[0.9, 0.9], mem=[0.5, 0.5], previous=[0, 0], migration_budget=0.0)
    assert solve(inst, "lp").min_yield == pytest.approx(1 / 1.8)
    with pytest.raises(InvalidInputError, match=r"instance has migration limits "
                       r"\(migration_budget=0.0, max_migrations=None\)"):
        closed_form_certificate(inst)
    counted = VC(hosts=2, cpu=[0.9, 0.9], mem=[0.5, 0.5], previous=[0, 0], max_migrations=0)
    with pytest.raises(InvalidInputError, match=r"max_migrations=0\): the closed form"):
        closed_form_certificate(counted)
    with pytest.raises(InvalidInputError, match=r"instance must be a VCInstance; got dict"):
        closed_form_certificate(inst.to_dict())


def test_closed_form_still_answers_without_migration_limits():
    plain = VC(hosts=2, cpu=[0.9, 0.9, 0.9], mem=[0.5, 0.5, 0.5])
    cert = closed_form_certificate(plain)
    assert cert.holds and cert.value == pytest.approx(2 / 2.7)
    # previous hosts alone (no budget, no count) limit nothing
    moved = VC(hosts=2, cpu=[0.9, 0.9], mem=[0.5, 0.5], previous=[0, 0])
    assert closed_form_certificate(moved).holds
    assert closed_form_certificate(moved).value == solve(moved, "lp").min_yield == 1.0
    assert closed_form_certificate(VC(hosts=1, cpu=[0.5, 0.5], mem=[0.7, 0.7])) is None
