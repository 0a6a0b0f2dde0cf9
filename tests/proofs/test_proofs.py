"""The papers' claims, checked by the executable proofs in ``allockit.proofs``."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from allockit.evaluation.placement import average_yield_phase, min_yield_of
from allockit.proofs.average_yield_greedy import exchange_violations
from allockit.proofs.lp_closed_form import closed_form_certificate
from allockit.proofs.three_partition import (
    enumerate_three_partition,
    is_yes_instance,
    reduction_instance,
)
from allockit.results import SolveStatus
from allockit.vcsched import solve
from tests.strategies import vc_instances


def _cases():
    cases = [(s, b) for b in range(9, 21) for s in enumerate_three_partition(2, b)]
    rng = np.random.default_rng(0)
    three = [(s, b) for b in (13, 17, 19) for s in enumerate_three_partition(3, b)]
    picks = rng.choice(len(three), size=min(12, len(three)), replace=False)
    return cases + [three[k] for k in picks]


def test_enumeration_has_yes_and_no_instances():
    answers = {is_yes_instance(s, b) for s, b in _cases()}
    assert answers == {True, False}


@pytest.mark.parametrize(("s", "bound"), _cases(), ids=lambda v: str(v))
def test_three_partition_reduction_is_exact(s, bound):
    result = solve(reduction_instance(s, bound), "cpsat")
    assert result.status is SolveStatus.OPTIMAL
    yield_one = result.min_yield >= 1 - 1e-9
    assert yield_one == is_yes_instance(s, bound)


@given(instance=vc_instances(adaptation=False, max_hosts=6, max_tasks=12))
def test_closed_form_certificate_holds(instance):
    cert = closed_form_certificate(instance)
    if cert is None:
        assert float((instance.tasks * instance.mem).sum()) > instance.hosts
    else:
        assert cert.holds, cert.violations


@given(instance=vc_instances(adaptation=False))
def test_closed_form_matches_solved_lp(instance):
    cert = closed_form_certificate(instance)
    lp = solve(instance, "lp")
    if cert is None:
        assert lp.status is SolveStatus.INFEASIBLE
    else:
        assert lp.min_yield == pytest.approx(cert.value, abs=1e-7)


@given(instance=vc_instances(parallel=False, adaptation=False, max_tasks=10), data=st.data())
def test_average_yield_greedy_has_no_improving_exchange(instance, data):
    hosts = np.array(
        [data.draw(st.integers(0, instance.hosts - 1)) for _ in range(instance.n_tasks)]
    )
    floor = data.draw(st.floats(0.0, 1.0)) * min_yield_of(instance, hosts)
    yields = average_yield_phase(instance, hosts, floor)
    assert exchange_violations(instance, hosts, floor, yields) == []


def test_exchange_check_detects_a_suboptimal_allocation():
    from allockit.instances.vcsched import VCInstance

    inst = VCInstance.from_lists(hosts=1, cpu=[0.2, 0.5, 0.6], mem=[0, 0, 0])
    # Host full, but the spare went to the larger jobs 1 and 2 before job 0.
    bad = np.array([0.5, 1.0, 2 / 3])
    assert exchange_violations(inst, np.zeros(3, int), 0.5, bad) == [(0, 1), (0, 2)]
    short = np.array([1.0, 0.8, 0.5])  # host keeps 0.1 spare while jobs 1 and 2 are short
    assert exchange_violations(inst, np.zeros(3, int), 0.5, short) == [(1, 1), (2, 2)]
