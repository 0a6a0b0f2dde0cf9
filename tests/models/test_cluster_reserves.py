"""Cluster reserves (Aron et al., as restated by Li and Parker): steps 1-3 and backends."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.instances.reserves import ReservesInstance
from allockit.models import cluster_reserves_fast as fast
from allockit.models import cluster_reserves_highs as highs
from allockit.models.cluster_reserves import (
    CRProblem,
    adjustment,
    build_step1,
    build_step2,
    cluster_reserves,
    deviation_total,
    redistribute,
    solve_cluster_reserves,
    step2_slack,
)
from allockit.reserves import METHOD_SPECS, allocate_reserves
from allockit.results import ReservesResult, SolveStatus
from tests.strategies import reserves_instances

pytest.importorskip("pyomo")
pytest.importorskip("highspy")

FIG3 = ReservesInstance.from_dict({
    "targets": [60, 30, 10],
    "allocation": [[60, 30, 10]] * 4,
    "usage": [[66.7, 33.3, 0]] * 3 + [[60, 30, 10]],
})
NAMED = {
    "fig3": FIG3,
    "one-node": ReservesInstance.from_dict(
        {"targets": [50, 50], "allocation": [[50, 50]], "usage": [[50, 50]]}
    ),
    "idle-class": ReservesInstance.from_dict(
        {"targets": [50, 50], "allocation": [[50, 50]] * 2, "usage": [[0, 50]] * 2}
    ),
    "tiny-target": ReservesInstance.from_dict(
        {"targets": [0.5, 79.5, 20], "allocation": [[10, 70, 20]] * 3,
         "usage": [[10, 70, 20], [0, 90, 10], [5, 45, 50]]}
    ),
    "under-100": ReservesInstance.from_dict(
        {"targets": [40, 20], "allocation": [[30, 30], [10, 10], [50, 0]],
         "usage": [[30, 60], [0, 10], [70, 0]]}
    ),
}


def _problem(inst, weights=None):
    return CRProblem.from_instance(inst, weights=weights)


def check_reserves(problem, R, V, tol=1e-6):
    """Certificate: bounds, node capacity, and deviation at most V (+ slack)."""
    R = np.asarray(R)
    assert (R >= problem.lower - tol).all()
    assert (R <= problem.upper + tol).all()
    assert (R.sum(axis=1) <= 100 + tol).all()
    assert deviation_total(problem, R) <= V + step2_slack(problem) + 1e-6 * (1 + V)


def _epigraph_lp_V(problem):
    """Independent step 1: min sum t_j, t_j >= +-(T_j - G_j), solved by HiGHS's LP."""
    import highspy

    n, s = problem.shape
    w = problem.weights
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    inf = highspy.kHighsInf
    for i in range(n):
        for j in range(s):
            h.addVar(float(problem.lower[i, j]), float(problem.upper[i, j]))
    for _ in range(s):
        h.addVar(0.0, inf)
    costs = np.concatenate([np.zeros(n * s), np.ones(s)])
    h.changeColsCost(n * s + s, np.arange(n * s + s, dtype=np.int32), costs)
    for i in range(n):
        idx = np.arange(i * s, (i + 1) * s, dtype=np.int32)
        h.addRow(-inf, 100.0, s, idx, np.ones(s))
    for j in range(s):
        idx = np.array([i * s + j for i in range(n)] + [n * s + j], dtype=np.int32)
        vals = np.concatenate([w, [-1.0]])
        h.addRow(-inf, float(problem.goal[j]), len(idx), idx, vals)  # T - t <= G
        vals = np.concatenate([w, [1.0]])
        h.addRow(float(problem.goal[j]), inf, len(idx), idx, vals)  # T + t >= G
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return h.getInfo().objective_function_value


def _min_linear_over_step2(problem, V, g):
    """min g . R over the step-2 feasible set (an LP), for the first-order check."""
    import highspy

    mats = highs.lp_matrices(problem, V + step2_slack(problem))
    n, s = problem.shape
    lp = highspy.HighsLp()
    lp.num_col_ = n * s + 2 * s
    lp.num_row_ = mats["n_rows"]
    lp.col_cost_ = np.concatenate([g.ravel(), np.zeros(2 * s)])
    lp.col_lower_, lp.col_upper_ = mats["col_lower"], mats["col_upper"]
    lp.row_lower_, lp.row_upper_ = mats["row_lower"], mats["row_upper"]
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_ = mats["start"], mats["index"]
    lp.a_matrix_.value_ = mats["value"]
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.passModel(lp)
    h.run()
    return h.getInfo().objective_function_value


# ---------------------------------------------------------------------------- step 1
@pytest.mark.parametrize("name", list(NAMED), ids=list(NAMED))
def test_step1_V_matches_an_independent_lp_and_the_min_cut(name):
    problem = _problem(NAMED[name])
    V_epi = _epigraph_lp_V(problem)
    V_cut = fast.least_deviation(problem)
    V_highs, status, _ = highs.step1_highspy(problem)
    assert status == SolveStatus.OPTIMAL
    assert V_cut == pytest.approx(V_epi, abs=1e-6)
    assert V_highs == pytest.approx(V_epi, abs=1e-6)


@given(reserves_instances(max_nodes=4, max_classes=3),
       st.lists(st.integers(1, 3), min_size=4, max_size=4))
@settings(max_examples=30)
def test_min_cut_V_equals_the_lp_V_with_weights(inst, weights):
    w = np.array(weights[: inst.n_nodes], dtype=float)
    problem = _problem(inst, weights=w)
    assert fast.least_deviation(problem) == pytest.approx(_epigraph_lp_V(problem), abs=1e-6)


@given(
    st.lists(st.integers(1, 40), min_size=1, max_size=4),
    st.lists(st.lists(st.integers(0, 20), min_size=4, max_size=4), min_size=1, max_size=5),
    st.integers(0, 20),
)
def test_V_is_zero_when_no_class_is_capped(targets, rows, spare):
    # every class used at least its allocation: nothing is capped at its usage, so the
    # targets themselves (at least the floor of 1 each) are a feasible allocation
    s = len(targets)
    t = np.array(targets, dtype=float)
    d = 1.0 + (100 - spare - s) * t / t.sum()  # each target >= the floor of 1
    r = np.array([row[:s] for row in rows], dtype=float)
    u = r + 1.0
    inst = ReservesInstance(d, r, u)
    assert not _problem(inst).idle.any()
    assert fast.least_deviation(_problem(inst)) == pytest.approx(0.0, abs=1e-9)
    res = cluster_reserves(inst)
    assert res.V == pytest.approx(0.0, abs=1e-9)
    assert res.class_totals == pytest.approx(d, abs=1e-6)


def test_V_is_zero_on_fig3_and_class3_moves_to_node4():
    res = cluster_reserves(FIG3, redistribute=False)
    assert res.V == 0.0
    R = res.allocation
    assert R[:3, 2].tolist() == pytest.approx([1.0, 1.0, 1.0])  # capped at the floor
    assert R[3, 2] == pytest.approx(37.0, abs=1e-6)  # the ideal 40 less the three floors
    assert res.class_totals == pytest.approx([60.0, 30.0, 10.0], abs=1e-6)


# ---------------------------------------------------------------------------- step 2
@given(reserves_instances(max_nodes=4, max_classes=3))
@settings(max_examples=40)
def test_step2_is_optimal_by_the_first_order_condition(inst):
    # convex QP: R* is optimal iff grad f(R*) . (R - R*) >= 0 for every feasible R,
    # i.e. min over the feasible set of grad . R equals grad . R*
    problem = _problem(inst)
    sol = solve_cluster_reserves(inst.allocation, inst.usage, inst.targets, step3=False)
    assert sol.status == SolveStatus.OPTIMAL
    check_reserves(problem, sol.step2, sol.V)
    g = 2.0 * problem.weights[:, None] * (sol.step2 - problem.anchor)
    lowest = _min_linear_over_step2(problem, sol.V, g)
    assert float((g * sol.step2).sum()) <= lowest + 1e-5 * (1 + abs(lowest))


def test_step2_brute_force_on_one_node_two_classes():
    inst = ReservesInstance.from_dict(
        {"targets": [70, 30], "allocation": [[40, 60]], "usage": [[40, 20]]}
    )
    problem = _problem(inst)
    sol = solve_cluster_reserves(inst.allocation, inst.usage, inst.targets, step3=False)
    a, b = np.meshgrid(np.linspace(0, 100, 1001), np.linspace(0, 100, 1001), indexing="ij")
    a, b = a.ravel(), b.ravel()
    ok = (a + b <= 100 + 1e-9)
    ok &= (a >= problem.lower[0, 0]) & (a <= problem.upper[0, 0])
    ok &= (b >= problem.lower[0, 1]) & (b <= problem.upper[0, 1])
    goal = problem.goal
    ok &= np.abs(a - goal[0]) + np.abs(b - goal[1]) <= sol.V + 1e-9
    f = (a - problem.anchor[0, 0]) ** 2 + (b - problem.anchor[0, 1]) ** 2
    f = np.where(ok, f, np.inf)
    k = int(np.argmin(f))
    assert sol.qp_objective <= f[k] + 1e-9
    assert np.abs(sol.step2[0] - [a[k], b[k]]).max() <= 0.1 + 1e-9  # the grid's step


@pytest.mark.parametrize("name", list(NAMED), ids=list(NAMED))
def test_backends_agree_on_named_instances(name):
    inst = NAMED[name]
    sols = {
        b: solve_cluster_reserves(inst.allocation, inst.usage, inst.targets, backend=b)
        for b in ("fast", "highspy", "pyomo")
    }
    for b, sol in sols.items():
        assert sol.status == SolveStatus.OPTIMAL, (b, sol.message)
        check_reserves(_problem(inst), sol.step2, sol.V)
    for b in ("highspy", "pyomo"):
        assert sols[b].V == pytest.approx(sols["fast"].V, abs=1e-6)
        np.testing.assert_allclose(sols[b].step2, sols["fast"].step2, atol=1e-3)
        np.testing.assert_allclose(sols[b].allocation, sols["fast"].allocation, atol=1e-3)


@given(reserves_instances(max_nodes=5, max_classes=3))
@settings(max_examples=25)
def test_highspy_path_equals_the_pyomo_models(inst):
    args = (inst.allocation, inst.usage, inst.targets)
    a = solve_cluster_reserves(*args, backend="highspy")
    b = solve_cluster_reserves(*args, backend="pyomo")
    c = solve_cluster_reserves(*args, backend="fast")
    assert a.status == b.status == c.status == SolveStatus.OPTIMAL
    assert a.V == pytest.approx(b.V, abs=1e-6)
    assert c.V == pytest.approx(b.V, abs=1e-6)
    np.testing.assert_allclose(a.step2, b.step2, atol=1e-3)
    np.testing.assert_allclose(c.step2, b.step2, atol=1e-3)


def test_fast_path_at_scale_matches_highspy_step1_and_holds_its_certificate():
    rng = np.random.default_rng(4)
    n, s = 300, 6
    r = rng.dirichlet(np.ones(s), n) * 100
    u = np.minimum(r * rng.uniform(0, 1.5, (n, s)), 100)
    u = u / np.maximum(u.sum(axis=1, keepdims=True) / 100, 1)
    d = np.full(s, 100 / s)
    problem = CRProblem.from_arrays(r, u, d)
    V_lp, _, _ = highs.step1_highspy(problem)
    sol = solve_cluster_reserves(r, u, d)
    assert sol.V == pytest.approx(V_lp, rel=1e-9, abs=1e-6)
    check_reserves(problem, sol.step2, sol.V)


# ---------------------------------------------------------------------------- step 3
@given(reserves_instances(max_nodes=5, max_classes=4))
def test_step3_never_increases_the_deviation_nor_overfills_a_node(inst):
    problem = _problem(inst)
    sol = solve_cluster_reserves(inst.allocation, inst.usage, inst.targets)
    final, step2 = sol.allocation, sol.step2
    assert (final.sum(axis=1) <= 100 + 1e-6).all()
    assert (final >= step2 - 1e-12).all()
    gained = final > step2 + 1e-12
    assert not (gained & ~problem.idle).any()  # only idle classes gain
    assert deviation_total(problem, final) <= deviation_total(problem, step2) + 1e-6


def test_redistribute_caps_gifts_at_the_deficit():
    p = CRProblem.from_arrays([[50, 50]] * 4, [[0, 50]] * 4, [30, 50])
    R = np.array([[1.0, 50.0]] * 4)
    out = redistribute(p, R)
    assert (p.weights @ out)[0] == pytest.approx(120.0)  # 4 nodes x 30 %
    assert out.sum(axis=1).max() <= 100


# ---------------------------------------------------------------------------- pieces
def test_adjustment_follows_the_paper_and_the_zero_target_limit():
    u = np.array([[0.0, 30.0, 12.0, 9.0, 0.0, 3.0]])
    d = np.array([60.0, 30.0, 10.0, 10.0, 0.0, 0.0])
    assert adjustment(u, d).tolist() == [[5.0, 0.0, -5.0, 5.0, 5.0, -5.0]]


def test_builders_name_the_papers_components():
    m1 = build_step1(FIG3)
    assert {c.local_name for c in m1.component_objects()} >= {
        "R", "dev_pos", "dev_neg", "node_capacity", "class_deviation", "V"
    }
    m2 = build_step2(FIG3, 0.0)
    assert hasattr(m2, "deviation_bound") and hasattr(m2, "distance")
    m3 = build_step2(FIG3, 0.0, penalty=1e4)
    assert not hasattr(m3, "deviation_bound")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"backend": "gurobi"}, r"backend must be one of \['fast', 'highspy', 'pyomo'\]"),
        ({"floor": 40.0}, r"floor must be >= 0 with S \* floor <= 100; got 40.0 for S=3"),
        ({"floor": -1.0}, r"floor must be >= 0"),
    ],
)
def test_bad_options_are_refused(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        cluster_reserves(FIG3, **kwargs)


def test_bad_V_and_penalty_are_refused():
    with pytest.raises(InvalidInputError, match=r"V must be a finite number >= 0; got -1"):
        build_step2(FIG3, -1.0)
    with pytest.raises(InvalidInputError, match=r"penalty must be a finite number > 0"):
        build_step2(FIG3, 0.0, penalty=0.0)


def test_bad_shapes_and_weights_are_refused():
    with pytest.raises(InvalidInputError, match=r"shape \(N, S\)"):
        CRProblem.from_arrays([[1, 2]], [[1, 2, 3]], [1, 2])
    with pytest.raises(InvalidInputError, match=r"weights must be 1 finite values > 0"):
        CRProblem.from_arrays([[50, 50]], [[50, 50]], [50, 50], weights=[0.0])
    with pytest.raises(InvalidInputError, match=r"idle must have shape"):
        CRProblem.from_arrays([[50, 50]], [[50, 50]], [50, 50], idle=[True])


def test_idle_override_lifts_the_usage_cap():
    base = CRProblem.from_arrays([[50, 50]], [[0, 50]], [50, 50])
    lifted = CRProblem.from_arrays([[50, 50]], [[0, 50]], [50, 50], idle=[[False, False]])
    assert base.upper[0, 0] == 1.0 and lifted.upper[0, 0] == 100.0


def test_result_round_trips_and_reports_seconds():
    res = cluster_reserves(FIG3)
    assert isinstance(res, ReservesResult)
    again = ReservesResult.from_dict(res.to_dict())
    assert again.to_dict() == res.to_dict()
    d = res.to_dict()
    assert list(d)[:8] == ["problem", "method", "status", "allocation", "deviation",
                           "qp_objective", "class_totals", "seconds"]
    assert d["problem"] == "reserves" and d["method"] == "cluster-reserves"
    assert d["qp_objective"] is not None and d["seconds"] >= 0


# ---------------------------------------------------------------------------- registry
def test_registry_runs_both_methods_and_refuses_the_rest():
    assert set(METHOD_SPECS) == {"bank", "cluster-reserves"}
    cr = allocate_reserves(FIG3, "cluster-reserves", backend="highspy", time_limit=10.0)
    assert cr.class_totals == pytest.approx([60.0, 30.0, 10.0], abs=1e-6)
    assert allocate_reserves(FIG3).method == "bank"
    with pytest.raises(InvalidInputError, match=r"method must be one of \['bank', "):
        allocate_reserves(FIG3, "lp")
    with pytest.raises(InvalidInputError, match=r"does not accept option 'c'"):
        allocate_reserves(FIG3, "cluster-reserves", c=2)
    with pytest.raises(InvalidInputError, match=r"time_limit must be"):
        allocate_reserves(FIG3, "cluster-reserves", time_limit=-1)
    custom = allocate_reserves(FIG3, lambda inst, **kw: cluster_reserves(inst, **kw),
                               floor=0.0)
    assert custom.V == 0.0


@pytest.mark.parametrize("backend", ["highspy", "pyomo"])
def test_a_degenerate_step_two_ends_without_a_time_limit(backend):
    # a fuzz: rows filled to 2.5e-7 past 100 % made HiGHS's QP solver cycle, and with no
    # time limit the call never returned; its iterations are now capped
    # (HIGHS_QP_ITERATION_LIMIT): an honest status, and the fast backend solves it
    instance = ReservesInstance.from_dict({
        "targets": [100.0], "allocation": [[100.0], [100.0], [100.00000025155506]],
        "usage": [[99.99999929155491], [100.0], [100.0]]})
    result = allocate_reserves(instance, "cluster-reserves", backend=backend, floor=1e-6)
    assert result.status in (SolveStatus.OPTIMAL, SolveStatus.ERROR)
    fast = allocate_reserves(instance, "cluster-reserves", floor=1e-6)
    assert fast.status == SolveStatus.OPTIMAL
