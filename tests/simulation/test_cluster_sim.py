"""The cluster simulator: Li and Parker's figures, the hierarchy's fail-over, messages."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.results import ClusterSimResult
from allockit.simulation.cluster import (
    ClusterSimConfig,
    allowed_mask,
    initial_tickets,
    message_bytes,
    simulate_cluster,
)
from allockit.simulation.cluster_nodes import gps_serve
from allockit.simulation.cluster_scenarios import (
    PAPER,
    SCENARIOS,
    fig3,
    fig3_ideal,
    fig4,
    fig5,
    fig8,
    ideal_allocation,
    manager_entity,
    scaled,
    scenario,
    skewed,
)
from allockit.simulation.hierarchy import Hierarchy

TARGETS = np.array([60.0, 30.0, 10.0])
SHORT = {"duration": 20.0, "warmup": 8.0}


def assert_meets_targets(res, pp=2.0, sd=1.0):
    """The paper's headline claim: within 2 % of the targets, s.d. under 1 %."""
    assert np.abs(res.mean - res.targets).max() <= pp, res.mean
    assert res.std.max() < sd, res.std


# ---------------------------------------------------------------------------- Fig. 3
def test_fig3_static_gives_class3_a_quarter_of_its_share():
    res = simulate_cluster(fig3(duration=6.0, warmup=1.0), seed=0)
    assert res.mean[2] == pytest.approx(2.5, abs=1e-9)  # 10 % of one node in four
    assert res.mean.tolist() == pytest.approx([65.0, 32.5, 2.5], abs=1e-9)
    assert res.messages == 0 and res.bytes == 0


def test_fig3_ideal_gives_class3_40_percent_of_node4_and_10_percent_overall():
    cfg = fig3()
    ideal = ideal_allocation(TARGETS, allowed_mask(cfg))
    assert ideal[3, 2] == pytest.approx(40.0)
    assert ideal.sum(axis=0) / 4 == pytest.approx(TARGETS)
    res = simulate_cluster(fig3_ideal(duration=6.0, warmup=1.0), seed=0)
    assert res.mean == pytest.approx(TARGETS, abs=1e-9)


# ---------------------------------------------------------------------------- Figs 4-7
@pytest.mark.parametrize("algorithm", ["bank", "cluster-reserves"])
def test_fig4_two_levels_meet_the_targets(algorithm):
    res = simulate_cluster(fig4(algorithm=algorithm, **SHORT), seed=1)
    assert_meets_targets(res)
    assert res.reachable_nodes == res.live_nodes == 4


@pytest.mark.parametrize("algorithm", ["bank", "cluster-reserves"])
def test_fig5_hundred_nodes_meet_the_targets(algorithm):
    res = simulate_cluster(fig5(algorithm=algorithm, **SHORT), seed=2)
    assert_meets_targets(res)


def test_fig5_static_reference_gives_class3_three_percent():
    res = simulate_cluster(fig5(algorithm="static", duration=4.0, warmup=1.0), seed=2)
    assert res.mean[2] == pytest.approx(PAPER["fig5"]["static_class3"], abs=1e-9)


def test_slow_managers_and_skewed_reports_meet_the_targets():
    assert_meets_targets(simulate_cluster(scenario("fig6", **SHORT), seed=3))
    assert_meets_targets(simulate_cluster(skewed(**SHORT), seed=3))


def test_a_flat_tree_is_the_centralised_manager():
    res = simulate_cluster(fig5(fanout=(), **SHORT), seed=4)
    assert_meets_targets(res)
    assert list(res.role_level) == [1]


def test_same_seed_same_run_and_the_result_round_trips():
    cfg = fig4(duration=5.0, warmup=1.0, skew=True)
    a = simulate_cluster(cfg, seed=5)
    b = simulate_cluster(cfg, seed=5)
    assert a.shares.tolist() == b.shares.tolist()
    d = json.loads(json.dumps(a.to_dict()))
    assert ClusterSimResult.from_dict(d).to_dict() == a.to_dict()
    assert {"targets", "mean", "std", "messages", "bytes", "events", "seconds"} <= set(
        a.summary()
    )
    rows = a.series_rows()
    assert len(rows) == len(a.times) and set(rows[0]) >= {"time", "share_3", "allocated_1"}
    assert not a.shares.flags.writeable


# ---------------------------------------------------------------------------- messages
@pytest.mark.parametrize(("n", "fanout"), [(10, ()), (12, (4,)), (27, (3, 3))])
def test_message_counts_and_bytes_match_the_formula(n, fanout):
    # aligned reports every 0.3 s: in each of the 10 rounds up to 3.1 s, every node
    # reports and gets an allocation, every manager but the top reports up and gets
    # targets: 2 (N + M - 1) messages of 9 + 8 S bytes
    cfg = ClusterSimConfig(n, fanout=fanout, duration=3.1, warmup=1.0)
    res = simulate_cluster(cfg, seed=0)
    m = Hierarchy.build(n, fanout).n_roles
    assert res.messages == 10 * 2 * (n + m - 1)
    assert res.bytes == res.messages * message_bytes(3) == res.messages * 33
    assert res.message_counts["report"] == res.message_counts["allocation"] == 10 * (n + m - 1)


# ---------------------------------------------------------------------------- hierarchy
def check_hierarchy(h):
    """After a repair: live hosts, one role per host, one parent each, all reachable."""
    hosts = [x for x in h.host if x >= 0]
    assert len(hosts) == len(set(hosts))  # nobody hosts two roles
    for role in range(h.n_roles):
        assert h.role_alive(role), role
        parents = [p for p in range(h.n_roles) if role in h.children[p] and h.level[p] > 1]
        if role == h.top:
            assert h.parent[role] == -1 and parents == []
        else:
            assert parents == [h.parent[role]]  # exactly one parent
    assert (h.reachable() == h.alive[: h.n_nodes]).all()


@pytest.mark.parametrize(("n", "fanout"), [(4, (2,)), (27, (3, 3)), (30, (4, 2)), (7, ())])
def test_any_single_failure_leaves_every_node_reachable(n, fanout):
    for entity in range(Hierarchy.build(n, fanout).n_entities):
        h = Hierarchy.build(n, fanout)
        if h.n_nodes == 1 and entity == 0:
            continue
        for role in h.fail(entity):
            h.repair(role)
        check_hierarchy(h)


@given(st.integers(2, 40), st.lists(st.integers(2, 5), max_size=3), st.data())
def test_single_failures_repair_on_random_trees(n, fanout, data):
    h = Hierarchy.build(n, fanout)
    entity = data.draw(st.integers(0, h.n_entities - 1))
    for role in h.fail(entity):
        rep = h.repair(role)
        assert rep.host >= 0
    check_hierarchy(h)


def test_fig2_replacement_example():
    # one top manager over three level-1 managers of three nodes (Li and Parker Fig. 2)
    h = Hierarchy.build(9, (3,))
    top = h.top
    assert h.fail(h.host[top]) == [top]
    rep = h.repair(top)
    assert rep.handoffs == ((top, 9), (0, 0))  # Mgr2 moves up, Node5 takes its place
    assert rep.election == 3 * 2 and rep.notify == 3
    check_hierarchy(h)


@pytest.mark.parametrize(
    ("who", "fanout"),
    [("top", (10,)), ("level1", (10,)), ("node", (10,)), ("level2", (5, 2))],
)
def test_shares_return_within_2pp_after_a_failure(who, fanout):
    cfg = fig5(fanout=fanout, duration=25.0, warmup=5.0)
    if who == "top":
        entity = manager_entity(cfg, 3 if len(fanout) > 1 else 2)
    elif who == "level2":
        entity = manager_entity(cfg, 2, 1)
    elif who == "level1":
        entity = manager_entity(cfg, 1, 2)
    else:
        entity = 5
    cfg = fig5(fanout=fanout, duration=25.0, warmup=5.0, failures=((entity, 12.0),))
    res = simulate_cluster(cfg, seed=6)
    assert res.event_kind == ("failure",)
    assert np.isfinite(res.recovery_time[0]) and res.recovery_time[0] < 5.0
    if who == "node":
        assert np.isnan(res.repair_time[0]) and res.live_nodes == 99
    else:
        detect = cfg.detect_periods * cfg.manager_period
        assert res.repair_time[0] == pytest.approx(detect + cfg.delay)
        assert res.message_counts["election"] > 0
    assert res.reachable_nodes == res.live_nodes
    late = res.shares[res.times > 20.0]
    assert np.abs(late - TARGETS).max() <= 2.0


def test_a_promoted_node_keeps_working_and_reports_locally():
    cfg = fig5(duration=8.0, warmup=2.0, failures=((manager_entity(fig5(), 1, 0), 2.0),))
    res = simulate_cluster(cfg, seed=7)
    assert res.role_host[0] == 0  # node 0 now hosts its group's manager
    assert res.live_nodes == 100 and res.reachable_nodes == 100


# ---------------------------------------------------------------------------- Fig. 8
def test_fig8_recovers_after_each_restart():
    cfg = fig8(duration=30.0, warmup=5.0, stops=((0, 10.0, 11.5), (0, 20.0, 21.5)))
    res = simulate_cluster(cfg, seed=8)
    assert res.event_kind == ("restart", "restart")
    assert np.isfinite(res.recovery_time).all()
    assert (res.recovery_time < 4.0).all()
    during = res.shares[(res.times > 11.2) & (res.times <= 11.5), 0]
    assert during.size and (during < 5.0).all()  # class 1 really stopped (queue drained)


# ---------------------------------------------------------------------------- pieces
@settings(max_examples=25)
@given(
    st.lists(st.floats(0, 2), min_size=1, max_size=4),
    st.lists(st.integers(0, 60), min_size=4, max_size=4),
    st.floats(0.001, 3),
)
def test_gps_serves_like_fine_time_stepping(backlog, tickets, dt):
    q = np.array([backlog])
    w = np.array([tickets[: len(backlog)]], dtype=float)
    served = gps_serve(q, w, dt)
    assert served.sum() == pytest.approx(min(dt, q.sum()), abs=1e-9)
    assert (served <= q + 1e-12).all()
    # fine time stepping of the same sharing
    left, got, h = q.copy(), np.zeros_like(q), dt / 4000
    for _ in range(4000):
        wb = np.where(left > 1e-12, np.maximum(w, 1e-6), 0.0)
        if wb.sum() == 0:
            break
        step = np.minimum(h * wb / wb.sum(), left)
        left -= step
        got += step
    np.testing.assert_allclose(served, got, atol=5e-3 * max(1.0, dt))


def test_scenarios_and_helpers():
    assert set(SCENARIOS) >= {"fig3", "fig4", "fig5", "fig6", "fig7", "fig8", "skewed"}
    assert scenario("fig7").n_nodes == 900 and scenario("fig7").fanout == (30,)
    assert scenario("fig6").manager_period == 1.5
    assert scaled(10_000).dispatch[2] == 3000
    assert initial_tickets(fig5()).sum(axis=1).tolist() == [100.0] * 100
    with pytest.raises(InvalidInputError, match=r"scenario must be one of"):
        scenario("fig9")
    with pytest.raises(InvalidInputError, match=r"level 1 has 10 managers; got index 10"):
        manager_entity(fig5(), 1, 10)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_nodes": 0}, r"n_nodes must be an integer >= 1; got 0"),
        ({"targets": (60, 50)}, r"targets must be >= 0 and sum to at most 100"),
        ({"fanout": (1,)}, r"fanout must be an integer >= 2; got 1"),
        ({"algorithm": "drf"}, r"algorithm must be one of \['static', 'bank'"),
        ({"dispatch": (None, None, 5)}, r"dispatch of class 2 must be in \[1, 4\]; got 5"),
        ({"dispatch": (None, None, (7,))}, r"dispatch of class 2 must list node ids"),
        ({"load": (1.0, 1.0)}, r"load needs one value per class \(3\)"),
        ({"node_period": 0}, r"node_period must be a finite number > 0; got 0.0"),
        ({"warmup": 70.0}, r"warmup must be below duration \(60.0\); got 70.0"),
        ({"stops": ((0, 5.0, 4.0),)}, r"stops end must follow start"),
        ({"stops": ((3, 1.0, 2.0),)}, r"stops class must be in \[0, 2\]; got 3"),
        ({"static_allocation": ((50, 50, 50),)}, r"static_allocation rows must be >= 0"),
        ({"bank_policy": {"c": 2}}, r"bank_policy must be a BankPolicy"),
        ({"targets": 60.0}, r"targets must be a sequence; got 60.0"),
        ({"targets": (60, "x")}, r"targets\[1\] must be a finite number; got 'x'"),
        ({"fanout": 3}, r"fanout must be a sequence; got 3"),
        ({"dispatch": (None, None, (2.7,))}, r"class 2: node id must be an integer .*; got 2.7"),
        ({"failures": (5,)}, r"failures entry must be a sequence; got 5"),
        ({"stops": ((0, 1.0),)}, r"stops entries must have 3 values; got \[0, 1.0\]"),
        ({"tick": 1e-9}, r"tick 1e-09 s: duration 60 s would take more than 10,000,000"),
        ({"duration": 1e12}, r"tick 0.02 s: duration 1e\+12 s would take more than"),
    ],
)
def test_bad_config_names_the_field(kwargs, match):
    base = {"n_nodes": 4}
    base.update(kwargs)
    with pytest.raises(InvalidInputError, match=match):
        ClusterSimConfig(**base)


def test_failing_an_unknown_entity_is_refused():
    with pytest.raises(InvalidInputError, match=r"failures entity must be in \[0, 6\]"):
        simulate_cluster(fig4(failures=((7, 1.0),), duration=2.0, warmup=0.5), seed=0)


def test_config_round_trips_through_json():
    cfg = fig8(bank_policy=fig8().bank_policy, failures=((3, 5.0),))
    again = ClusterSimConfig.from_dict(json.loads(json.dumps(cfg.to_dict())))
    assert again == cfg
    with pytest.raises(InvalidInputError, match=r"has no field 'nodes'"):
        ClusterSimConfig.from_dict({"nodes": 4})


def test_plot_marks_restarts_and_targets():
    pytest.importorskip("matplotlib")
    from allockit.simulation.cluster_plot import plot_shares

    res = simulate_cluster(fig8(duration=8.0, warmup=1.0, stops=((0, 3.0, 4.5),)), seed=0)
    fig = plot_shares(res, title="Fig. 8")
    ax = fig.axes[0]
    assert ax.get_title() == "Fig. 8"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["class 1", "class 2",
                                                                   "class 3"]
    reds = [ln for ln in ax.get_lines() if ln.get_color() == "red"]
    assert len(reds) == 1 and reds[0].get_xdata()[0] == pytest.approx(4.5)


def test_numpy_numbers_configure_like_python_numbers():
    a = ClusterSimConfig(n_nodes=4, service=0.5, dispatch=(None, None, (3,)))
    b = ClusterSimConfig(n_nodes=np.int64(4), service=np.float64(0.5),
                         dispatch=(None, None, (np.int64(3),)))
    assert a == b
    assert ClusterSimConfig(n_nodes=4, service=np.float32(0.5)).service == (0.5, 0.5, 0.5)


def test_gps_and_the_ideal_allocation_refuse_what_is_no_backlog_or_target():
    from allockit.simulation.cluster_nodes import gps_serve
    from allockit.simulation.cluster_scenarios import ideal_allocation

    q, w = np.array([[1.0, 1.0, 0.0]]), np.array([[60.0, 30.0, 10.0]])
    assert gps_serve(q, w, np.float32(0.3)).round(4).tolist() == [[0.2, 0.1, 0.0]]
    for args, named in [((-q, w, 0.3), r"backlog\[0, 0\] must be finite and >= 0"),
                        ((q, w[:, :2], 0.3), r"tickets must have the shape of backlog"),
                        ((q, w, float("nan")), r"dt must be a finite number >= 0"),
                        ((q * np.nan, w, 0.3), r"backlog\[0, 0\] must be finite")]:
        with pytest.raises(InvalidInputError, match=named):  # negative backlog was served
            gps_serve(*args)
    allowed = np.array([[1, 1], [1, 1], [0, 1]], bool)
    with pytest.raises(InvalidInputError, match=r"targets\[2\] must be finite"):
        ideal_allocation(np.array([60.0, 30.0, np.nan]), allowed)  # gave zeros
    with pytest.raises(InvalidInputError, match=r"class 2 has a target .* but no node"):
        only = allowed & np.array([1, 1, 0], bool)[:, None]
        ideal_allocation(np.array([60.0, 30.0, 10.0]), only)
    with pytest.raises(InvalidInputError, match=r"allowed must be a .* array of bools"):
        ideal_allocation(np.array([60.0, 30.0, 10.0]), allowed.astype(int))


@pytest.mark.parametrize("role", [-1, 11, 1.5, None])
def test_repair_refuses_a_role_the_hierarchy_does_not_have(role):
    from allockit.simulation.hierarchy import Hierarchy

    h = Hierarchy.build(100, (10,))  # 11 roles
    with pytest.raises(InvalidInputError, match=r"role must be an integer in \[0, 10\]"):
        h.repair(role)  # -1 used to repair the last role


@pytest.mark.parametrize(("change", "named"), [
    ({"sample_period": 1e18}, r"sample_period must be at most duration - warmup \(5 s"),
    ({"sample_period": 5.5}, r"sample_period must be at most duration - warmup"),
    ({"tick": 1e18}, r"tick must be at most duration \(6 s\)"),
])
def test_a_config_that_could_measure_nothing_is_refused(change, named):
    # sample_period 1e18 gave NaN shares; tick 1e18 a raw "lam value too large"
    base = {"duration": 6.0, "warmup": 1.0}
    with pytest.raises(InvalidInputError, match=named):
        ClusterSimConfig(4, **base, **change)
    assert ClusterSimConfig(4, **base, sample_period=5.0).sample_period == 5.0


@pytest.mark.parametrize("value", [0, -1, 2.5, "3", True])
def test_message_bytes_takes_a_count_of_classes(value):
    with pytest.raises(InvalidInputError, match="n_classes must be an integer >= 1"):
        message_bytes(value)  # -1 gave 1 and 2.5 gave 25
    assert message_bytes(np.int64(3)) == 33
