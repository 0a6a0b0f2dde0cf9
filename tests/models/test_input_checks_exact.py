"""Entry checks of the exact VCSched drivers and the stretch bound (fuzz-run defects).

Each bad value used to give a false claim (a "proven" infeasibility or optimum), a
silently truncated placement, or an IndexError deep inside; each is now refused with an
``InvalidInputError`` naming the argument. Valid inputs keep their answers.
"""

import math

import numpy as np
import pytest

from allockit.clock import Deadline
from allockit.errors import InvalidInputError
from allockit.evaluation.placement import host_loads
from allockit.instances import VCInstance
from allockit.instances.workload import Platform, Workload
from allockit.models.stretch_bound import (
    build_stretch_lp,
    stretch_bound,
    stretch_feasible,
    stretch_lp_solution,
)
from allockit.models.vcsched_bnb import branch_and_bound
from allockit.models.vcsched_cpsat_solve import solve_cpsat_form
from allockit.models.vcsched_exact import ExactRun, valid_placement
from allockit.models.vcsched_mip import solve_load_milp, solve_paper_milp
from allockit.results import SolveStatus

NAN, INF = float("nan"), float("inf")


def _inst():
    return VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)


def _inst2():
    return VCInstance.from_lists(hosts=2, cpu=[0.6, 0.5, 0.4, 0.3], mem=[0.1] * 4)


def _two_jobs():
    return Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[100, 100],
                              tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.1, 0.1])


# --- 1. branch_and_bound ------------------------------------------------------------


@pytest.mark.parametrize("bad", [NAN, -1.0, INF, -INF, 0.0, 0.5, "1.2", True, 10**400])
def test_bnb_refuses_incumbent_load(bad):
    # nan used to "prove" the instance infeasible, -1.0 to "prove" load -1 optimal
    with pytest.raises(InvalidInputError, match=r"incumbent_load must be None or a finite"):
        branch_and_bound(_inst2(), incumbent_load=bad)


def test_bnb_incumbent_message_names_value_and_least_load():
    with pytest.raises(InvalidInputError, match=r">= 0\.6 .*; got nan$"):
        branch_and_bound(_inst2(), incumbent_load=NAN)


@pytest.mark.parametrize("bad", [NAN, INF, -INF, -1.0, "1", True, None, 10**400])
def test_bnb_refuses_stop_load(bad):
    # inf used to stop at the first placement (everything on host 0) as "complete"
    with pytest.raises(InvalidInputError, match=r"stop_load must be a finite number >= 0; got"):
        branch_and_bound(_inst2(), stop_load=bad)


@pytest.mark.parametrize("bad", [NAN, INF, 1.5, 1e6, 0, -3, True, "5", None])
def test_bnb_refuses_max_nodes(bad):
    with pytest.raises(InvalidInputError, match=r"max_nodes must be an integer >= 1; got"):
        branch_and_bound(_inst2(), max_nodes=bad)


@pytest.mark.parametrize("bad", [NAN, 0, -1.0, -INF])
def test_bnb_refuses_time_limit(bad):
    with pytest.raises(InvalidInputError, match=r"time_limit must be > 0 seconds; got"):
        branch_and_bound(_inst2(), time_limit=bad)


@pytest.mark.parametrize(
    "options",
    [
        {"time_limit": INF},
        {"time_limit": Deadline(at=INF)},
        {"max_nodes": 10**30},
        {"max_nodes": np.int64(200_000_000)},
    ],
)
def test_bnb_unlimited_forms_match_the_default(options):
    # time_limit=inf used to raise OverflowError; it means no limit, as None does
    default = branch_and_bound(_inst2())
    out = branch_and_bound(_inst2(), **options)
    assert out.complete and default.complete
    assert out.load == default.load
    assert out.task_hosts.tolist() == default.task_hosts.tolist()
    assert out.nodes == default.nodes


def test_bnb_valid_inputs_keep_their_answers():
    inst, inst2 = _inst(), _inst2()
    out = branch_and_bound(inst)
    assert out.complete and math.isclose(out.load, 1.2)
    assert sorted(out.task_hosts.tolist()) == [0, 0, 1]
    # the incumbent is the optimum: nothing better, the proof holds
    same = branch_and_bound(inst, incumbent_load=out.load)
    assert same.complete and same.load == out.load and same.task_hosts is None
    # an incumbent from a real placement (the smallest allowed value is the largest CPU)
    hosts = np.array([0, 0, 0, 1])
    load = float(host_loads(inst2, hosts)[0].max())
    better = branch_and_bound(inst2, incumbent_load=load)
    assert better.complete and better.load < load
    assert branch_and_bound(inst2, incumbent_load=0.6).complete
    # stop_load below 1 (down to 0) is a valid, weaker bound: the search goes to the end
    exact = branch_and_bound(inst2, stop_load=0.0)
    assert exact.complete and math.isclose(exact.load, 0.9)
    assert not branch_and_bound(inst2, max_nodes=1).complete


# --- 2. ExactRun's rel_gap ------------------------------------------------------------


def _run(rel_gap, initial=(0, 0, 0, 0), instance=None):
    return ExactRun(
        _inst2() if instance is None else instance,
        method="x",
        solver="highs",
        time_limit=None,
        rel_gap=rel_gap,
        initial=None if initial is None else np.array(initial),
        initial_source="m",
        shortcut=True,
    )


@pytest.mark.parametrize("bad", [5.0, 1.0, -0.1, NAN, INF, -INF, None, "0.1", True])
def test_exact_run_refuses_rel_gap(bad):
    # rel_gap=5 used to report yield 0.556 "proven optimal" against the bound 1.0
    with pytest.raises(InvalidInputError, match=r"rel_gap must be a number in \[0, 1\); got"):
        _run(bad)


@pytest.mark.parametrize("solve", [solve_load_milp, solve_paper_milp, solve_cpsat_form])
def test_solvers_refuse_rel_gap(solve):
    with pytest.raises(InvalidInputError, match=r"rel_gap must be a number in \[0, 1\); got 5"):
        solve(_inst2(), rel_gap=5.0, initial=np.array([0, 0, 0, 0]), shortcut=True)


@pytest.mark.parametrize("gap", [0.0, 1e-4, 0.3])
def test_exact_run_valid_gap_does_not_claim_a_far_incumbent(gap):
    run = _run(gap)
    result = run.run(lambda: run.stop("stopped"))
    assert result.status is SolveStatus.TIME_LIMIT  # 0.556 vs 1.0: a gap of 0.44


def test_exact_run_shortcut_still_proves_a_matching_incumbent():
    inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0.1, 0.1])
    run = _run(1e-4, initial=(0, 1), instance=inst)
    result = run.run(lambda: run.stop("not reached"))
    assert str(result.status) == "optimal" and result.proof == "bound"


# --- 3. integer host indices ----------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        [0.5, 0, 1],
        [NAN, 0, 1],
        [INF, 0, 1],
        ["0", "0", "1"],
        "001",
        [True, False, True],
        [[0], [0, 1], 1],
        [0, None, 1],
        [1e30, 0, 1],
        [-1e300, 0, 1],
    ],
)
def test_valid_placement_treats_non_integers_as_invalid(bad):
    # [0.5, 0, 1] used to be truncated to [0, 0, 1], strings parsed as integers
    assert valid_placement(_inst(), bad) is None


def test_valid_placement_keeps_integer_valued_floats_and_integers():
    inst = _inst()
    for hosts in ([0.0, 0.0, 1.0], np.array([0, 0, 1], dtype=np.int32), [0, 0, 1]):
        out = valid_placement(inst, hosts)
        assert out.dtype == np.int64 and out.tolist() == [0, 0, 1]
    assert valid_placement(inst, [0, 0, 0]) is not None  # CPU overload is not invalid
    assert valid_placement(inst, [0, 0, 2]) is None  # no host 2
    assert valid_placement(inst, None) is None


@pytest.mark.parametrize("solve", [solve_load_milp, solve_paper_milp, solve_cpsat_form])
@pytest.mark.parametrize(
    ("bad", "pattern"),
    [
        (np.array([0.5, 0, 1]), r"initial\[0\] must be a host index; got 0\.5"),
        (np.array([0, 1, 1.25]), r"initial\[2\] must be a host index; got 1\.25"),
        (np.array([NAN, 0, 1]), r"initial\[0\] must be a host index; got nan"),
        (np.array(["0", "0", "1"]), r"initial must be an array of host indices .*<U1"),
        (np.array([True, False, True]), r"initial must be an array of host indices .*bool"),
    ],
)
def test_solvers_refuse_a_non_integer_initial(solve, bad, pattern):
    # a fractional initial used to be truncated and "proven optimal without a solver run"
    with pytest.raises(InvalidInputError, match=pattern):
        solve(_inst(), initial=bad, shortcut=True)


def test_exact_run_keeps_an_integer_valued_float_initial():
    run = _run(1e-4, initial=(0.0, 0.0, 1.0), instance=_inst())
    result = run.run(lambda: run.stop("not reached"))
    assert str(result.status) == "optimal" and result.proof == "bound"
    assert result.task_hosts.tolist() == [0, 0, 1]


def test_exact_run_still_ignores_an_out_of_range_initial():
    run = _run(1e-4, initial=(0, 0, 5), instance=_inst())
    result = run.run(lambda: run.stop("stopped"))
    assert result.status is SolveStatus.TIME_LIMIT and result.task_hosts is None


# --- 4. stretch bound -----------------------------------------------------------------


BAD_TAU = [NAN, INF, -INF, -1.0, "10", True, None, 10**400]


@pytest.mark.parametrize("bad", BAD_TAU)
def test_stretch_bound_refuses_tau(bad):
    with pytest.raises(InvalidInputError, match=r"tau must be a finite number >= 0 \(seconds\)"):
        stretch_bound(_two_jobs(), tau=bad)


@pytest.mark.parametrize("bad", BAD_TAU)
@pytest.mark.parametrize("solver", [None, "highs"])
def test_stretch_feasible_refuses_tau(bad, solver):
    with pytest.raises(InvalidInputError, match=r"tau must be a finite number >= 0"):
        stretch_feasible(_two_jobs(), 2.0, tau=bad, solver=solver)


@pytest.mark.parametrize("bad", BAD_TAU)
def test_stretch_lp_solution_and_model_refuse_tau(bad):
    with pytest.raises(InvalidInputError, match=r"tau must be a finite number >= 0"):
        stretch_lp_solution(_two_jobs(), 2.0, tau=bad)
    with pytest.raises(InvalidInputError, match=r"tau must be a finite number >= 0"):
        build_stretch_lp(_two_jobs(), 2.0, tau=bad)


@pytest.mark.parametrize("bad", [INF, "2", True, None, 10**400])
@pytest.mark.parametrize("solver", [None, "highs"])
def test_stretch_feasible_refuses_stretch(bad, solver):
    with pytest.raises(InvalidInputError, match=r"stretch must be a number below \+inf; got"):
        stretch_feasible(_two_jobs(), bad, solver=solver)


@pytest.mark.parametrize("bad", [INF, -INF, NAN, "2", True, None, 10**400])
def test_stretch_lp_solution_and_model_refuse_stretch(bad):
    with pytest.raises(InvalidInputError, match=r"stretch must be a finite number; got"):
        stretch_lp_solution(_two_jobs(), bad)
    with pytest.raises(InvalidInputError, match=r"stretch must be a finite number; got"):
        build_stretch_lp(_two_jobs(), bad)


@pytest.mark.parametrize("bad", ["0.1", NAN, 0.0, 1.0, True])
def test_stretch_bound_refuses_tol(bad):
    with pytest.raises(InvalidInputError, match=r"tol must be in \(0, 1\); got"):
        stretch_bound(_two_jobs(), tol=bad)


def test_fuzz_workload_is_refused_by_name_not_index_error():
    from allockit.instances.lublin import dfrs_synthetic

    w = dfrs_synthetic(30, nodes=4, load=0.7, seed=1)
    for call in (
        lambda: stretch_bound(w, tau=NAN),
        lambda: stretch_bound(w, tau=INF),
        lambda: stretch_feasible(w, INF),
        lambda: stretch_feasible(w, 2, tau=NAN),
        lambda: stretch_lp_solution(w, INF),
    ):
        with pytest.raises(InvalidInputError, match=r"^(tau|stretch) must be"):
            call()


def test_stretch_valid_inputs_keep_their_answers():
    w = _two_jobs()
    assert round(stretch_bound(w).value, 9) == 2.0
    assert round(stretch_bound(w, tau=0).value, 9) == 2.0
    assert round(stretch_bound(w, tau=np.float64(10.0)).value, 9) == 2.0
    # below 1, NaN and -inf stay documented False answers of stretch_feasible
    for s in (NAN, -INF, 0.5, -1.0, -(10**400)):
        assert stretch_feasible(w, s) is False
    assert (stretch_feasible(w, 1.99), stretch_feasible(w, 2)) == (False, True)
    assert stretch_lp_solution(w, 1.5) is None
    ends, alpha = stretch_lp_solution(w, 2.0, tau=0.0)
    assert ends.tolist()[0] == 0.0 and alpha.shape[0] == 2
