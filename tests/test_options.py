"""Options are a contract: each method accepts its own and the common ones, nothing else."""

from __future__ import annotations

import pytest

from allockit.drfh import DRFH_METHODS, allocate
from allockit.drfh import METHOD_SPECS as DRFH_SPECS
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
     "users": [{"demand": [0.2, 0.1], "tasks": 10}]}
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
    assert r.status in ("optimal", "feasible", "infeasible", "no_solution")


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


def test_a_callable_drfh_mechanism_gets_the_checked_common_options():
    seen = {}

    def mechanism(instance, **kw):
        seen.update(kw)
        return allocate(instance, "first-fit")

    allocate(DRFH, mechanism, custom=1, seed=2, threads=1)
    assert seen == {"custom": 1, "seed": 2, "threads": 1}
    for bad in ({"seed": -1}, {"threads": 0}, {"time_limit": float("nan")}):
        with pytest.raises(InvalidInputError, match=next(iter(bad))):
            allocate(DRFH, mechanism, **bad)


@pytest.mark.parametrize(
    ("method", "options", "match"),
    [
        ("mcb8", {"tol": 0.0}, r"tol must be a number in \[1e-09, 0.5\]; got 0.0"),
        ("mcb8", {"tol": 1e-300}, r"tol must be a number in \[1e-09, 0.5\]"),
        ("gb", {"max_attempts": 2.5}, r"max_attempts must be an integer in \[1, .*\]; got 2.5"),
        ("rrnd", {"epsilon": True}, r"epsilon must be a number in \[0, 1\); got True"),
        ("milp", {"symmetry_breaking": 1}, r"symmetry_breaking must be true or false; got 1"),
        ("milp", {"rel_gap": -1}, r"rel_gap must be a number in \[0, 1\); got -1"),
    ],
)
def test_own_options_are_checked_against_their_ranges(method, options, match):
    with pytest.raises(InvalidInputError, match=match):
        solve(VC, method, **options)


def test_threads_are_capped_at_four_per_core():
    import os

    with pytest.raises(InvalidInputError, match=r"threads must be an integer in \[1, \d+\]"):
        solve(VC, "sg", threads=4 * (os.cpu_count() or 1) + 1)


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
