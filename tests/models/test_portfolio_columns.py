"""The configuration LP inside the portfolio ``best`` (issue 31)."""

import numpy as np
import pytest

from allockit.evaluation.bounds import yield_upper_bound
from allockit.evaluation.config_search import columns_certify
from allockit.evaluation.placement import host_loads, placement_violation
from allockit.instances.vcsched import VCInstance
from allockit.results import SolveStatus
from allockit.vcsched import solve
from tests.oracles import check_vc_result

#: Memory forces a largest load of 1.5 on three hosts (the branch and bound proves it;
#: the closed-form bounds say 1.35); sixteen copies on 48 hosts keep both figures.
CPU = [1.0, 0.8, 0.1, 0.15, 0.55, 0.85, 0.1]
MEM = [0.45, 0.5, 0.5, 0.55, 0.15, 0.35, 0.5]
COPIES = VCInstance.from_lists(hosts=48, cpu=CPU * 16, mem=MEM * 16)
PARALLEL = VCInstance.from_lists(hosts=48, cpu=CPU, mem=MEM, tasks=[16] * 7)


@pytest.mark.parametrize("instance", [COPIES, PARALLEL], ids=["copies", "parallel"])
def test_best_certifies_with_the_configuration_lp(instance):
    closed, _ = yield_upper_bound(instance)
    assert closed == pytest.approx(1 / 1.35)  # the closed forms cannot prove 1 / 1.5
    result = solve(instance, "best", time_limit=60, rel_gap=1e-6)  # tighter than the default
    check_vc_result(instance, result)
    assert result.status is SolveStatus.OPTIMAL
    assert result.bound_source == "configuration-lp"
    assert result.min_yield == pytest.approx(1 / 1.5)
    assert 1 / 1.5 <= result.bound <= 1 / 1.5 * (1 + 1e-6)
    assert "configuration LP" in result.message


def test_columns_find_a_placement_without_an_incumbent():
    out = columns_certify(COPIES, None, rel_gap=1e-6, time_limit=60)
    assert out.task_hosts is not None
    assert placement_violation(COPIES, out.task_hosts) is None
    assert out.load == pytest.approx(float(host_loads(COPIES, out.task_hosts)[0].max()))
    assert out.load <= 1.5 * 1.01 and out.bound is not None and out.bound >= 1 / 1.5 - 1e-12


def test_columns_stopped_at_once_claim_nothing_wrong():
    poor = np.arange(COPIES.n_tasks) % 40
    for limit in (1e-9, 1e-3, 0.05):
        out = columns_certify(COPIES, poor, rel_gap=1e-6, time_limit=limit)
        assert out.bound is None or out.bound >= 1 / 1.5 - 1e-12
        if out.task_hosts is not None:
            assert placement_violation(COPIES, out.task_hosts) is None


def test_adaptation_and_small_instances_skip_the_configuration_lp(monkeypatch):
    import allockit.evaluation.config_search as search

    def refuse(*args, **kwargs):
        raise AssertionError("the configuration LP ran")

    monkeypatch.setattr(search, "columns_certify", refuse)
    small = VCInstance.from_lists(hosts=3, cpu=CPU, mem=MEM)  # 7 tasks: branch and bound
    assert solve(small, "best", time_limit=10).status is SolveStatus.OPTIMAL
    moving = VCInstance.from_lists(
        hosts=48, cpu=CPU * 16, mem=MEM * 16, previous=[k % 48 for k in range(112)],
        max_migrations=5,
    )
    result = solve(moving, "best", time_limit=5)
    assert result.bound_source != "configuration-lp"
