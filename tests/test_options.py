"""Options are a contract: each method accepts its own and the common ones, nothing else."""

from __future__ import annotations

import pytest

from allockit.drfh import DRFH_METHODS, METHOD_SPECS as DRFH_SPECS, allocate
from allockit.errors import InvalidInputError
from allockit.instances.drfh import DRFHInstance
from allockit.instances.lublin import dfrs_synthetic
from allockit.instances.vcsched import VCInstance
from allockit.options import COMMON_OPTIONS, method_table
from allockit.simulation.simulate import SIMULATORS, simulate
from allockit.vcsched import METHOD_SPECS, METHODS, solve

VC = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.5, 0.7], mem=[0.3, 0.4, 0.2])
DRFH = DRFHInstance.from_dict(
    {"resources": ["cpu", "mem"], "servers": [{"capacity": [1, 1]}],
     "users": [{"demand": [0.2, 0.1], "tasks": 3}]}
)
WORKLOAD = dfrs_synthetic(10, nodes=4, load=0.5, seed=1)
FAST_VC = [m for m in METHODS if m not in ("milp-paper", "cpsat", "adapt")]


def test_every_registered_method_has_a_spec():
    assert set(METHODS) == set(METHOD_SPECS)
    assert set(DRFH_SPECS) == set(DRFH_METHODS)
    for spec in [*METHOD_SPECS.values(), *DRFH_SPECS.values()]:
        assert set(COMMON_OPTIONS) <= set(spec.accepted)
        assert set(spec.common) <= set(COMMON_OPTIONS)


@pytest.mark.parametrize("method", FAST_VC)
def test_vcsched_methods_refuse_unknown_options_naming_the_accepted(method):
    with pytest.raises(InvalidInputError) as info:
        solve(VC, method, bogus=1)
    text = str(info.value)
    assert "'bogus'" in text and method in text
    for name in METHOD_SPECS[method].accepted:
        assert name in text


@pytest.mark.parametrize("method", FAST_VC)
def test_vcsched_methods_accept_the_common_options(method):
    r = solve(VC, method, time_limit=30, threads=1, seed=3)
    assert r.status in ("optimal", "feasible", "infeasible")


@pytest.mark.parametrize(
    ("method", "options"),
    [("mcb8", {"tol": 0.01}), ("gb", {"max_attempts": 10}), ("rrnz", {"epsilon": 0.05}),
     ("milp", {"rel_gap": 1e-4})],
)
def test_vcsched_specific_options_reach_the_method(method, options):
    assert solve(VC, method, **options).min_yield is not None


def test_a_specific_option_of_another_method_is_refused():
    with pytest.raises(InvalidInputError, match="'tol'"):
        solve(VC, "gr", tol=0.1)
    with pytest.raises(InvalidInputError, match="'max_attempts'"):
        solve(VC, "mcb8", max_attempts=3)


@pytest.mark.parametrize(
    ("options", "match"),
    [({"seed": -1}, "seed"), ({"seed": 2**64}, "seed"), ({"seed": 1.5}, "seed"),
     ({"threads": 0}, "threads"), ({"threads": True}, "threads"),
     ({"time_limit": 0}, "time_limit"), ({"time_limit": float("inf")}, "time_limit")],
)
def test_common_options_have_one_validated_meaning(options, match):
    with pytest.raises(InvalidInputError, match=match):
        solve(VC, "sg", **options)
    with pytest.raises(InvalidInputError, match=match):
        allocate(DRFH, "lp", **options)
    with pytest.raises(InvalidInputError, match=match):
        simulate(WORKLOAD, "EASY", **options)


def test_a_callable_method_gets_its_options_unchecked():
    seen = {}

    def method(instance, **kw):
        seen.update(kw)
        return solve(instance, "sg")

    solve(VC, method, custom=1, seed=2)
    assert seen == {"custom": 1, "seed": 2}


@pytest.mark.parametrize("method", DRFH_METHODS)
def test_drfh_methods_refuse_unknown_options(method):
    with pytest.raises(InvalidInputError, match=f"DRFH method '{method}'.*'bogus'.*accepted"):
        allocate(DRFH, method, bogus=True)
    allocate(DRFH, method, seed=1, threads=2, time_limit=5)


def test_drfh_specific_options():
    assert allocate(DRFH, "slots", per_largest=4).method == "slots"
    with pytest.raises(InvalidInputError, match="per_largest"):
        allocate(DRFH, "first-fit", per_largest=4)


@pytest.mark.parametrize(
    ("algorithm", "good", "bad"),
    [("EASY", {"unit": "cores", "backfill_depth": 3}, "penalty"),
     ("FCFS", {"estimates": True}, "period"),
     ("GreedyPM */per", {"penalty": 0.0, "period": 300.0}, "unit"),
     ("/stretch-per", {"debug": True}, "backfill_depth")],
)
def test_simulators_take_their_family_options_only(algorithm, good, bad):
    assert simulate(WORKLOAD, algorithm, **good).status == "completed"
    with pytest.raises(InvalidInputError, match=f"'{bad}'.*accepted"):
        simulate(WORKLOAD, algorithm, **{bad: 1})


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(InvalidInputError, match="method must be one of"):
        solve(VC, "simplex")
    with pytest.raises(InvalidInputError, match="method must be one of"):
        allocate(DRFH, "drf")
    with pytest.raises(InvalidInputError, match="valid names"):
        simulate(WORKLOAD, "SJF")


def test_method_tables_render():
    for specs in (METHOD_SPECS, DRFH_SPECS, {k: s.spec for k, s in SIMULATORS.items()}):
        table = method_table(specs)
        assert table.count("\n") == len(specs) + 1
