"""DRFH: the paper's examples, class aggregation, task heuristics, fairness properties, CLI."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.cli import main
from allockit.errors import InvalidInputError
from allockit.fairness import MECHANISMS, check
from allockit.heuristics.drfh_tasks import best_fit, first_fit, per_server_drf, slots
from allockit.instances.drfh import DRFHInstance, google_server_mix, google_servers, random_users
from allockit.models.drfh_lp import build_drfh_lp, drfh_lp, progressive_filling
from allockit.results import SolveStatus
from allockit.solver import solve_pyomo

FIG1 = {
    "problem": "drfh",
    "resources": ["cpu", "mem"],
    "servers": [
        {"name": "s1", "capacity": [2, 12], "count": 1},
        {"name": "s2", "capacity": [12, 2], "count": 1},
    ],
    "users": [
        {"name": "u1", "demand": [0.2, 1], "weight": 1, "tasks": None},
        {"name": "u2", "demand": [1, 0.2], "weight": 1, "tasks": None},
    ],
}


def test_fig1_drfh_gives_10_tasks_each_at_share_5_7():
    r = drfh_lp(DRFHInstance.from_dict(FIG1))
    assert r.tasks == pytest.approx([10, 10])
    assert r.dominant_share == pytest.approx([5 / 7, 5 / 7])
    # server 1 goes to user 1, server 2 to user 2
    assert r.allocation[0, 1] == pytest.approx([0, 0], abs=1e-9)
    assert r.allocation[1, 0] == pytest.approx([0, 0], abs=1e-9)


def test_fig2_per_server_drf_gives_6_tasks_each():
    assert per_server_drf(DRFHInstance.from_dict(FIG1)).tasks.tolist() == [6, 6]


def test_the_checker_finds_that_per_server_drf_is_not_pareto_optimal():
    # Judged in whole tasks (per-server DRF places whole tasks): the improving allocation
    # is one of whole tasks on individual servers, not the LP's divisible optimum (the
    # old test compared whole tasks with divisible ones, the checker's blind spot).
    report = check(MECHANISMS["per-server-drf"], ["pareto"], examples=100, seed=0)[0]
    assert report.status == "violated" and report.semantics == "whole"
    assert report.violation >= 1
    again = DRFHInstance.from_dict(report.counterexample)
    better = report.evidence["improving_allocation"]["total"]
    mine = per_server_drf(again).tasks
    assert all(better[u] >= t for u, t in zip(again.user_names, mine, strict=True))
    assert sum(better.values()) >= mine.sum() + 1


def test_lp_solved_by_pyomo_equals_the_highs_path():
    inst = DRFHInstance.from_dict(
        {
            "resources": ["cpu", "mem"],
            "servers": google_servers(60, seed=3),
            "users": random_users(6, seed=4, tasks=None),
        }
    )
    m = build_drfh_lp(inst)
    assert solve_pyomo(m).status is SolveStatus.OPTIMAL
    g = drfh_lp(inst).dominant_share / inst.weight
    assert g == pytest.approx(np.full(inst.n_users, m.g.value), rel=1e-6)


@settings(max_examples=40)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 5))
def test_aggregating_identical_servers_changes_nothing(seed, n):
    inst = DRFHInstance.from_dict(
        {
            "resources": ["cpu", "mem"],
            "servers": google_servers(12, seed=seed),
            "users": random_users(n, seed=seed + 1, max_share=0.2),
        }
    )
    pf_c, pf_s = progressive_filling(inst), progressive_filling(inst.expanded())
    assert pf_c.tasks == pytest.approx(pf_s.tasks, rel=1e-6, abs=1e-6)
    # LP (7) is for unbounded users (with finite caps it would exceed them: refused)
    inst = DRFHInstance.from_dict({**inst.to_dict(), "users": random_users(
        n, seed=seed + 1, max_share=0.2, tasks=None)})
    classes, single = drfh_lp(inst), drfh_lp(inst.expanded())
    assert classes.dominant_share == pytest.approx(single.dominant_share, rel=1e-7, abs=1e-9)
    split = drfh_lp(inst, split=True)
    assert split.allocation.shape[1] == int(inst.count.sum())
    assert split.allocation.sum(axis=1) == pytest.approx(classes.allocation.sum(axis=1))


def test_drfh_is_envy_free_and_truthful_named_checks():
    # (Props. 1-7 on 200 instances each, and the broken mechanisms: tests/test_fairness.py)
    reports = {
        r.name: r
        for r in check(
            MECHANISMS["progressive"], ["envy_freeness", "truthfulness"], examples=60, seed=2
        )
    }
    assert reports["envy_freeness"].status == "held" and reports["truthfulness"].held
    assert reports["envy_freeness"].errors == 0 and reports["truthfulness"].errors == 0


def test_sharing_incentive_is_measured_not_guaranteed():
    import re

    report = check(MECHANISMS["progressive"], ["sharing_incentive"], examples=60, seed=3)[0]
    worse, users = map(int, re.search(r"(\d+) of (\d+) users", report.detail).groups())
    assert users >= 60 and 0 <= worse <= users
    assert report.status == "measured" and report.held is None  # never a pass
    assert (report.violation > 0) == (worse > 0)


def test_progressive_filling_respects_task_counts():
    inst = DRFHInstance.from_dict(
        {
            **FIG1,
            "users": [
                {"name": "u1", "demand": [0.2, 1], "tasks": 4},
                {"name": "u2", "demand": [1, 0.2]},
            ],
        }
    )
    r = progressive_filling(inst)
    assert r.tasks[0] == pytest.approx(4) and r.tasks[1] == pytest.approx(11.2)


def test_best_fit_reaches_the_fig1_optimum_and_first_fit_does_not():
    inst = DRFHInstance.from_dict(FIG1)
    assert best_fit(inst).tasks.tolist() == [10, 10]
    assert first_fit(inst).tasks.tolist() == [6, 6]


@settings(max_examples=25)
@given(seed=st.integers(0, 10_000))
def test_task_heuristics_respect_capacity(seed):
    inst = DRFHInstance.from_dict(
        {
            "resources": ["cpu", "mem"],
            "servers": google_servers(30, seed=seed),
            "users": random_users(5, seed=seed + 7, max_share=0.3, tasks=(1, 60)),
        }
    )
    for f in (first_fit, best_fit, per_server_drf, slots):
        r = f(inst)
        assert (r.utilization <= 1 + 1e-9).all()
        assert (r.tasks <= inst.tasks + 1e-9).all()
        per_class = r.allocation.sum(axis=0)
        assert (per_class <= inst.capacity * inst.count[:, None] + 1e-9).all()
        # split=True: the same placement per machine, each within its own capacity
        split = f(inst, split=True)
        assert split.server_names == inst.expanded().server_names
        machines = np.repeat(inst.capacity, inst.count, axis=0)
        assert (split.allocation.sum(axis=0) <= machines + 1e-9).all()
        class_of = np.repeat(np.arange(inst.n_classes), inst.count)
        summed = np.zeros_like(r.allocation)
        np.add.at(summed, (slice(None), class_of), split.allocation)
        assert summed == pytest.approx(r.allocation) and split.tasks.tolist() == r.tasks.tolist()


def test_best_fit_uses_at_least_as_much_as_first_fit_on_a_large_pool():
    inst = DRFHInstance.from_dict(
        {
            "resources": ["cpu", "mem"],
            "servers": google_servers(500, seed=1),
            "users": random_users(30, seed=2, tasks=(500, 2000)),
        }
    )
    ff, bf = first_fit(inst), best_fit(inst)
    assert bf.tasks.sum() >= ff.tasks.sum()
    assert (bf.utilization >= ff.utilization - 1e-9).all()


def test_slots_with_a_task_larger_than_a_slot():
    inst = DRFHInstance.from_dict(
        {
            "resources": ["cpu", "mem"],
            "servers": [{"name": "s", "capacity": [1, 1], "count": 1}],
            "users": [
                {"name": "big", "demand": [0.5, 0.5]},
                {"name": "small", "demand": [0.1, 0.1]},
            ],
        }
    )
    r = slots(inst, per_largest=4)
    assert r.tasks.tolist() == [0, 4] and "exceeds a slot" in r.message


def test_google_mix_is_bundled():
    mix = google_server_mix()
    assert int(mix[:, 0].sum()) == 12_583 and mix[0].tolist() == [6732, 0.5, 0.5]
    assert sum(s["count"] for s in google_servers()) == 12_583
    assert sum(s["count"] for s in google_servers(100, seed=1)) == 100


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"users": [{"name": "u1", "demand": [0, 1]}]}, r"demand must be finite and > 0.*'u1'"),
        ({"users": [{"name": "u1", "demand": [20, 1]}]}, r"larger than every server"),
        (
            {"servers": [{"name": "s1", "capacity": [-1, 2]}]},
            r"servers\[0\]\.capacity\[0\] must be a number in \[0, 1e\+15\]; got -1 at server 's1'",
        ),
        (
            {"users": [{"name": "u1", "demand": [1]}]},
            r"users\[0\]\.demand must have one number per resource \(2\); got \[1.0\] at user 'u1'",
        ),
        (
            {"users": [{"name": "u1", "demand": {"cpu": 1, "gpu": 1}}]},
            r"users\[0\]\.demand\['gpu'\] is not a known resource at user 'u1'",
        ),
        (
            {"users": [{"name": "u1", "demand": [1, 1], "weight": 0}]},
            r"users\[0\]\.weight must be a number in \(0, 1e\+09\]; got 0 at user 'u1'",
        ),
        (
            {"users": [{"name": "u1", "demand": [1, 1], "tasks": "3"}]},
            r"users\[0\]\.tasks must be null \(unbounded\) or an integer >= 0; got '3'",
        ),
        (
            {"users": [{"name": "u1", "demand": [1, 1], "tasks": 2.5}]},
            r"users\[0\]\.tasks must be .*; got 2.5 at user 'u1'",
        ),
        (
            {"servers": [{"name": "s1", "capacity": [2, 12], "count": True}]},
            r"servers\[0\]\.count must be an integer in \[1, 1000000000\]; got true",
        ),
        (
            {"servers": [{"name": "s1", "capacity": [2, 12], "count": None}]},
            r"servers\[0\]\.count must be an integer .*; got null at server 's1'",
        ),
        (
            {"servers": [{"name": "s1", "capacity": [2, 12], "colour": "red"}]},
            r"servers\[0\]\.colour is not a known field at server 's1'; valid fields",
        ),
    ],
)
def test_bad_drfh_input_names_the_entry(change, match):
    with pytest.raises(InvalidInputError, match=match):
        DRFHInstance.from_dict({**FIG1, **change})


def test_drfh_cli_json_contract(tmp_path, capsys):
    path = tmp_path / "fig1.json"
    path.write_text(json.dumps(FIG1))
    for method in ("lp", "progressive", "first-fit", "best-fit", "per-server-drf", "slots"):
        assert main(["drfh", str(path), "--method", method]) == 0
        out = json.loads(capsys.readouterr().out)
        assert {"problem", "method", "status", "users", "utilization", "seconds"} <= out.keys()
        assert out["method"] == method and len(out["users"]) == 2
        user = out["users"][0]
        assert {"name", "tasks", "dominant_share", "allocation"} <= user.keys()
        assert len(user["allocation"]) == 2 and len(user["allocation"][0]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**FIG1, "users": [{"name": "x", "demand": [0, 0]}]}))
    assert main(["drfh", str(bad)]) == 2
    assert "'x'" in capsys.readouterr().err
    assert main(["drfh", str(path), "--method", "nope"]) == 2


def test_fairness_cli(capsys):
    assert (
        main(
            [
                "fairness",
                "--method",
                "progressive",
                "--properties",
                "envy_freeness,pareto",
                "--examples",
                "20",
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert [p["held"] for p in out["properties"]] == [True, True]
    assert [p["status"] for p in out["properties"]] == ["held", "held"]


def test_fig4_dynamic_shares_are_close_to_the_papers():
    # Paper (Fig. 4): user 1 alone 62 % memory share; two users 44 % each; three users
    # 26 % each; user 1 departs at 1,080 s. Exact values depend on the servers drawn.
    from allockit.experiments.drfh import fig4_scenario

    t = fig4_scenario(seed=1)
    alone, two, three = t.share_at(150), t.share_at(450), t.share_at(950)
    assert 0.5 <= alone[0] <= 0.7 and alone[1:].tolist() == [0.0, 0.0]
    assert 0.40 <= two[0] <= 0.50 and 0.40 <= two[1] <= 0.50
    assert all(0.22 <= s <= 0.36 for s in three)
    assert 800 <= t.departures["user1"] <= 1300
    assert (t.utilization <= 1 + 1e-9).all()
    assert set(t.departures) == {"user1", "user2", "user3"}


def test_google_task_events_reader(tmp_path):
    from allockit.instances.google_trace import users_from_task_events
    from allockit.simulation.drfh_dynamic import simulate_drfh

    rows = [
        "0,,1,0,,0,alice,0,0,0.1,0.2,0,0",
        "0,,1,1,,0,alice,0,0,0.1,0.2,0,0",
        "5000000,,2,0,,0,bob,0,0,0.3,0.05,0,0",
        "6000000,,2,0,4,1,bob,0,0,0.3,0.05,0,0",
        "36000000,,2,0,4,4,bob,0,0,0.3,0.05,0,0",
        "9,,3,0,,0,carol,0,0,,,0,0",
    ]
    path = tmp_path / "part-00000-of-00500.csv"
    path.write_text("\n".join(rows) + "\n")
    users = {u.name: u for u in users_from_task_events([path])}
    assert set(users) == {"alice", "bob"}  # carol's task has no request
    assert users["alice"].tasks == 2 and users["bob"].duration == 30.0
    assert users["bob"].time == 5.0
    trace = simulate_drfh(google_servers(20, seed=1), ["cpu", "mem"], list(users.values()))
    assert set(trace.departures) == {"alice", "bob"}
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y\n")
    with pytest.raises(InvalidInputError, match="row 1"):
        users_from_task_events([bad])


def test_dynamic_day_slots_use_less_than_drfh():
    from allockit.experiments.drfh import fig5_comparison
    from allockit.simulation.drfh_dynamic import mean_utilization

    runs = fig5_comparison(servers=150, users=60, hours=2.0, seed=3)
    bf, ff, sl = (mean_utilization(runs[k]) for k in ("best-fit", "first-fit", "slots-14"))
    assert (sl < bf).all() and (sl < ff).all()
    assert (bf <= 1 + 1e-9).all() and (ff <= 1 + 1e-9).all()


@pytest.mark.parametrize(("field", "value", "named"), [
    ("time", float("nan"), r"users\[1\] \('b'\)\.time must be a finite number"),
    ("time", float("inf"), r"users\[1\] \('b'\)\.time must be a finite number"),
    ("tasks", 2.5, r"users\[1\] \('b'\)\.tasks must be an integer >= 0; got"),
    ("tasks", -1, r"users\[1\] \('b'\)\.tasks must be an integer"),
    ("duration", float("nan"), r"users\[1\] \('b'\)\.duration must be a finite number > 0"),
    ("duration", 0.0, r"users\[1\] \('b'\)\.duration must be a finite number > 0"),
])
def test_dynamic_drfh_names_an_arrival_that_is_none(field, value, named):
    from allockit.instances.drfh import UserArrival
    from allockit.simulation.drfh_dynamic import simulate_drfh

    good = {"name": "b", "time": 1.0, "demand": (0.1, 0.1), "tasks": 2, "duration": 5.0}
    users = [UserArrival("a", 0.0, (0.2, 0.1), 3, 10.0), UserArrival(**{**good, field: value})]
    with pytest.raises(InvalidInputError, match=named):
        simulate_drfh(google_servers(4, seed=1), ["cpu", "mem"], users)


@pytest.mark.parametrize("slots", [0, 2.5, float("nan"), True])
def test_dynamic_drfh_refuses_slots_that_are_no_count(slots):
    from allockit.instances.drfh import UserArrival
    from allockit.simulation.drfh_dynamic import simulate_drfh

    users = [UserArrival("a", 0.0, (0.2, 0.1), 3, 10.0)]
    with pytest.raises(InvalidInputError, match=r"slots must be an integer >= 1; got"):
        simulate_drfh(google_servers(4, seed=1), ["cpu", "mem"], users, slots=slots)


def test_dynamic_drfh_takes_numpy_counts():
    from allockit.instances.drfh import UserArrival
    from allockit.simulation.drfh_dynamic import simulate_drfh

    plain = [UserArrival("a", 0.0, (0.2, 0.1), 3, 10.0)]
    numpy = [UserArrival("a", np.float64(0.0), (0.2, 0.1), np.int64(3), np.float32(10.0))]
    servers = google_servers(4, seed=1)
    one = simulate_drfh(servers, ["cpu", "mem"], plain, slots=np.int64(4))
    two = simulate_drfh(servers, ["cpu", "mem"], numpy, slots=4)
    assert one.departures == two.departures and one.times == two.times
