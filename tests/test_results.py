"""One result shape: every result type has a status and seconds, and round-trips exactly."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from allockit.comparison import Comparison
from allockit.drfh import allocate
from allockit.errors import InvalidInputError
from allockit.experiments.compare import MethodSummary
from allockit.experiments.drfh import fig4_scenario
from allockit.fairness import MECHANISMS, check
from allockit.instances.drfh import DRFHInstance
from allockit.instances.lublin import dfrs_synthetic
from allockit.instances.vcsched import VCInstance
from allockit.models.stretch_bound import stretch_bound
from allockit.results import (
    ClusterSimResult,
    DRFHResult,
    DynamicTrace,
    ReservesResult,
    Result,
    SimulationResult,
    StretchBound,
    VCResult,
)
from allockit.runner import SweepSummary, run_sweep
from allockit.runner.store import read_rows
from allockit.simulation.simulate import simulate
from allockit.solver import SolverReport
from allockit.tasks import Task, TaskRow, execute_task
from allockit.vcsched import solve

VC = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.5, 0.7], mem=[0.3, 0.4, 0.2], tasks=[1, 2, 1])
DRFH = DRFHInstance.from_dict(
    {
        "resources": ["cpu", "mem"],
        "servers": [{"capacity": [1, 1], "count": 2}, {"capacity": [2, 0.5]}],
        "users": [{"demand": [0.2, 0.1], "tasks": 5}, {"demand": [0.05, 0.2], "tasks": 3}],
    }
)
WORKLOAD = dfrs_synthetic(25, nodes=4, load=0.8, seed=2)


def _results(tmp_path):
    yield solve(VC, "milp")
    yield solve(VC, "lp")
    yield solve(VC, "mcb8")
    yield solve(VCInstance.from_lists(hosts=1, cpu=[0.5, 0.5], mem=[0.6, 0.6]), "gr")
    # LP (7) is for unbounded users (it refuses caps it would exceed)
    yield allocate(DRFHInstance.from_dict({**DRFH.to_dict(), "users": [
        {**u, "tasks": None} for u in DRFH.to_dict()["users"]]}), "lp")
    for method in ("progressive", "best-fit", "slots"):
        yield allocate(DRFH, method)
    for name in ("EASY", "GreedyPM */per/opt=min/minvt=600", "/stretch-per"):
        yield simulate(WORKLOAD, name)
    yield stretch_bound(WORKLOAD)
    yield fig4_scenario(servers=10)
    yield check(MECHANISMS["best-fit"], ["envy_freeness"], examples=5)[0]
    yield MethodSummary("mcb8", 2, 0, 1.0, 2.0, 0.9, 0.95, 0.001, 0.002)
    from allockit.solver import solve_pyomo  # noqa: F401  (a real report below)

    yield SolverReport("optimal", True, 1.0, 1.0, 0.1, "highs")
    row = execute_task(Task(kind="sleep", instance_id="i", instance={}, method="-"))
    yield row
    db = tmp_path / "s.db"
    yield run_sweep([Task(kind="sleep", instance_id="i", instance={}, method="-")], db,
                    backend="serial")
    yield TaskRow.from_dict(read_rows(db)[0])
    from allockit.comparison import compare

    yield compare({"vc": VC}, ["mcb8", lambda instance, **options: None])


def test_every_result_type_round_trips_exactly(tmp_path):
    seen = set()
    for result in _results(tmp_path):
        kind = type(result)
        seen.add(kind)
        assert isinstance(result, Result), kind
        assert isinstance(result.seconds, float | int) and result.seconds >= 0, kind
        assert str(result.status), kind
        data = result.to_dict()
        text = json.dumps(data, allow_nan=False)  # strict JSON
        again = kind.from_dict(json.loads(text))
        assert again.to_dict() == data, kind
    assert {
        VCResult,
        DRFHResult,
        SimulationResult,
        StretchBound,
        DynamicTrace,
        SweepSummary,
        TaskRow,
        MethodSummary,
        SolverReport,
        Comparison,
    } <= seen


def test_frozen_results_are_read_only():
    r = simulate(WORKLOAD, "EASY")
    with pytest.raises((AttributeError, TypeError)):
        r.seconds = 1.0
    with pytest.raises(ValueError):
        r.end[0] = 0.0
    with pytest.raises(TypeError):
        r.extra["x"] = 1
    v = solve(VC, "sg")
    with pytest.raises(ValueError):
        v.task_hosts[0] = 1
    trace = fig4_scenario(servers=10)
    with pytest.raises(TypeError):
        trace.departures["user1"] = 0.0


@pytest.mark.parametrize(
    "kind",
    [
        VCResult,
        DRFHResult,
        ReservesResult,
        SimulationResult,
        ClusterSimResult,
        DynamicTrace,
        StretchBound,
    ],
)
def test_malformed_result_objects_are_refused(kind):
    with pytest.raises(InvalidInputError, match="malformed"):
        kind.from_dict({"method": "x"})


def test_vcsched_seconds_add_up():
    r = solve(VC, "mcb8")
    assert r.seconds == pytest.approx(r.setup_seconds + r.build_seconds + r.solve_seconds)
    assert r.to_dict()["seconds"] == r.seconds


def test_simulation_summary_is_strict_json_with_the_two_means():
    summary = simulate(WORKLOAD, "FCFS").summary()
    assert {"mean_response_time", "mean_bounded_slowdown", "status"} <= set(summary)
    json.dumps(summary, allow_nan=False)
    assert summary["mean_bounded_slowdown"] >= 1.0
    assert np.isclose(
        summary["mean_response_time"], float(np.mean(simulate(WORKLOAD, "FCFS").turnaround))
    )


def test_one_status_vocabulary_for_solves_allocations_simulations_and_sweeps(tmp_path):
    from allockit.fairness import PropertyReport
    from allockit.results import Status
    from allockit.simulation.cluster import simulate_cluster
    from allockit.simulation.cluster_scenarios import scenario

    checked = 0
    for result in _results(tmp_path):
        if isinstance(result, TaskRow | PropertyReport):
            continue  # a row carries its task's own outputs; a property held or was violated
        assert isinstance(result.status, Status), type(result)
        again = type(result).from_dict(json.loads(json.dumps(result.to_dict())))
        assert again.status is result.status
        assert type(result.to_dict().get("status", "")) is str  # the JSON keeps plain strings
        checked += 1
    assert checked >= 14
    cluster = simulate_cluster(scenario("fig3", duration=6.0, warmup=2.0), seed=0)
    assert cluster.status is Status.COMPLETED and cluster.summary()["status"] == "completed"
    assert simulate(WORKLOAD, "FCFS").summary()["status"] == "completed"
    assert str(SweepSummary(1, 0, 1, 1, 0.0, "s.db").status) == "failed_tasks"
    with pytest.raises(ValueError, match="not a valid Status"):
        SimulationResult.from_schedule(WORKLOAD, "x", WORKLOAD.submit, WORKLOAD.submit + 1,
                                       underutilization=0.0, seconds=0.0, status="finished")


def test_every_result_type_of_the_families_lives_in_the_results_layer():
    # solves, allocations, simulations and bounds: one place, one status vocabulary
    import allockit.results as results
    from allockit.models import stretch_bound as bound_module
    from allockit.simulation import cluster, dfrs, drfh_dynamic

    kinds = [
        VCResult,
        DRFHResult,
        ReservesResult,
        SimulationResult,
        ClusterSimResult,
        DynamicTrace,
        StretchBound,
    ]
    for kind in kinds:
        assert kind.__module__.startswith("allockit.results."), kind
        assert getattr(results, kind.__name__) is kind
        assert "status" in kind.__dataclass_fields__, kind
    # the producers return the results layer's types (no second copy of a class)
    assert bound_module.StretchBound is StretchBound
    assert drfh_dynamic.DynamicTrace is DynamicTrace
    assert cluster.ClusterSimResult is ClusterSimResult
    assert dfrs.SimulationResult is SimulationResult


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"time_limit": float("inf")}, r"time_limit must be a number of seconds in \(0, "),
    ({"time_limit": "x"}, "time_limit must be a number of seconds"),
    ({"seed": 10**30}, r"seed must be an integer in \[0, "),  # (SQLite's OverflowError)
    ({"seed": []}, r"seed must be an integer in \[0, "),
    ({"options": "abc"}, "options must map method names to mappings"),
    ({"options": {"sg": 3}}, "options must map method names to mappings"),
    ({"store": 3}, "store must be a path; got 3"),
])
def test_compare_names_an_argument_that_is_none(kwargs, named):
    from allockit.comparison import compare

    inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    with pytest.raises(InvalidInputError, match=named):
        compare([inst], ["sg"], **kwargs)


def test_compare_takes_numpy_numbers():
    from allockit.comparison import compare

    inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    a = compare([inst], ["sg"], time_limit=np.float32(2.5), seed=np.int64(1))
    b = compare([inst], ["sg"], time_limit=2.5, seed=1)
    rows = [[(r["status"], r["min_yield"], r["bound"]) for r in c.to_dict()["rows"]]
            for c in (a, b)]
    assert rows[0] == rows[1] == [("feasible", pytest.approx(5 / 6), 1.0)]


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"seed": float("nan")}, r"seed must be an integer in \[0, 18446744073709551615\]"),
    ({"threads": "x"}, r"threads must be an integer in \[1, "),
    ({"solver": float("nan")}, "solver must be a non-empty string"),
    ({"method": None}, "method must be a non-empty string"),
    ({"time_limit": float("inf")}, r"time_limit must be a number of seconds in \(0, "),
])
def test_solve_best_checks_every_argument_before_it_runs(kwargs, named):
    # threads, solver and method were only checked if the exact phase ran
    from allockit.portfolio import solve_best

    inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    with pytest.raises(InvalidInputError, match=named):
        solve_best(inst, **kwargs)


def test_solve_best_takes_numpy_numbers_and_a_deadline():
    from allockit.clock import Deadline
    from allockit.portfolio import solve_best

    inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    a = solve_best(inst, rel_gap=np.float32(0.5), seed=np.int64(3), time_limit=5)
    b = solve_best(inst, time_limit=Deadline.of(5.0), seed=2**64 - 1)
    assert str(a.status) == str(b.status) == "optimal"


@pytest.mark.parametrize(("field", "value"), [
    ("min_yield", float("nan")), ("min_yield", "5"), ("gap", float("inf")), ("gap", -1.0),
    ("build_seconds", -1), ("build_seconds", "1"), ("migrations", 2.5), ("bound", "1"),
])
def test_a_vcresult_from_json_refuses_what_would_not_round_trip(field, value):
    # "5" was parsed, -1 s kept, 2.5 migrations kept, NaN and inf made invalid JSON
    inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    from allockit.vcsched import solve

    data = json.loads(json.dumps(solve(inst, "gr").to_dict()))
    assert VCResult.from_dict(data).to_dict() == data
    with pytest.raises(InvalidInputError, match=f"result object is malformed: {field} must be"):
        VCResult.from_dict({**data, field: value})


def test_the_other_results_refuse_scalars_that_are_no_such_numbers():
    from dataclasses import replace

    inst = DRFHInstance.from_dict({"resources": ["cpu"], "servers": [{"capacity": [1]}],
                                   "users": [{"demand": [0.5]}]})
    drfh = allocate(inst, "lp")
    bound = stretch_bound(dfrs_synthetic(20, nodes=4, load=0.7, seed=1))
    for result, field, value in [(drfh, "seconds", -1.0), (drfh, "seconds", "1"),
                                 (bound, "lps", 2.5), (bound, "value", float("nan")),
                                 (bound, "seconds", -2.0)]:
        with pytest.raises(InvalidInputError, match=f"{field} must be"):
            replace(result, **{field: value})
    assert replace(bound, lps=np.int64(3)).lps == 3


def test_valid_inputs_the_first_checks_refused_are_taken_again():
    # found by review: each of these worked before the session's checks
    import math
    from dataclasses import replace

    from allockit.comparison import compare
    from allockit.instances.drfh import random_users
    from allockit.instances.workload import Platform, Workload
    from allockit.portfolio import solve_best
    from allockit.results.base import readonly_array
    from allockit.vcsched import solve

    p = Platform(nodes=2)
    w = Workload.from_jobs(p, submit=[0, 1], runtime=[5, 5], tasks=[1, 1], cpu=[1, 1],
                           mem=[0, 0], requested_time=[math.inf, 10])  # inf: unknown
    assert math.isinf(w.requested_time[0])
    assert Workload(platform=p, ids=5, submit=0.0, runtime=3.0, tasks=1, cpu=1.0,
                    mem=0.1).n_jobs == 1
    assert w.scale_arrivals(np.array(2.0)).submit.tolist() == [0.0, 2.0]
    data = w.to_dict()
    data["user"] = None
    assert Workload.from_dict(data).user.tolist() == [-1, -1]
    assert len(random_users(3, tasks=np.array([10, 100]), seed=1)) == 3
    vi = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    rows = compare([vi], ["milp"], options={"milp": {"warm_start": np.True_}}).to_dict()
    assert rows["rows"][0]["status"] == "optimal"
    assert str(solve_best(vi, seed=2**64 - 2, exact="none").status) == "optimal"
    failed = replace(solve(vi, "gr"), status="error", tasks=None, task_hosts=None,
                     min_yield=None, avg_yield=None, task_cpu=None, job_yield=None,
                     bound=None, gap=None)
    assert str(solve(vi, lambda inst, **kw: failed).status) == "error"
    with pytest.raises(InvalidInputError, match=r"tasks\[0\] must be an integer; got 1e\+300"):
        readonly_array([1e300], np.int64, "tasks")


@pytest.mark.parametrize(("field", "value", "named"), [
    ("seconds", float("nan"), "seconds must be"), ("seconds", "1", "seconds must be"),
    ("underutilization", float("inf"), "underutilization must be"),
    ("preemptions", 2.5, "preemptions must be"), ("migrations", -1, "migrations must be"),
    ("migration_bytes", "0", "migration_bytes must be"),
    ("algorithm", 5, "algorithm must be"),
    ("end", [1.0], r"end must have one entry per job \(25\)"),
    ("start", [float("nan")] * 25, r"start\[0\] must be a finite number"),
    ("timeline", [0.0, 1.0], "timeline must have rows of 3"),
])
def test_a_simulation_result_refuses_fields_that_are_no_such_values(field, value, named):
    # these were kept as they came (NaN seconds, "1" parsed, 2.5 preemptions truncated)
    data = json.loads(json.dumps(simulate(WORKLOAD, "EASY").to_dict()))
    assert SimulationResult.from_dict(data).to_dict() == data
    with pytest.raises(InvalidInputError, match=f"result object is malformed: {named}"):
        SimulationResult.from_dict({**data, field: value})


@pytest.mark.parametrize(("field", "value", "named"), [
    ("seconds", -1.0, "seconds must be"), ("messages", 2.5, "messages must be"),
    ("bytes", "50", "bytes must be"), ("live_nodes", float("inf"), "live_nodes must be"),
    ("seed", -3, "seed must be"),
    ("message_counts", {"report": 1.5}, r"message_counts\['report'\] must be"),
    ("events", [{"kind": "crash", "entity": 0, "time": 1.0, "repair_time": None,
                 "recovery_time": None}], r"event_kind\[0\] must be 'failure' or 'restart'"),
])
def test_a_cluster_result_refuses_fields_that_are_no_such_values(field, value, named):
    from allockit.simulation.cluster import ClusterSimConfig, simulate_cluster

    result = simulate_cluster(ClusterSimConfig(n_nodes=4, duration=30.0, warmup=3.0), seed=1)
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert ClusterSimResult.from_dict(data).to_dict() == data
    with pytest.raises(InvalidInputError, match=f"result object is malformed: {named}"):
        ClusterSimResult.from_dict({**data, field: value})


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"has_solution": "false"}, "has_solution must be True or False; got 'false'"),
        ({"status": "great"}, "status must be one of optimal"),
        ({"bound": float("nan")}, "bound must be None or a number; got nan"),
        ({"objective": "1.0"}, "objective must be None or a number"),
        ({"seconds": -1.0}, "seconds must be a finite number >= 0; got -1.0"),
        ({"solver": 3}, "solver must be a string; got 3"),
    ],
)
def test_a_solver_report_refuses_what_no_solver_says(change, words):
    good = SolverReport("optimal", True, 1.0, 1.0, 0.1, "highs").to_dict()
    with pytest.raises(InvalidInputError, match="solver report is malformed: " + re.escape(words)):
        SolverReport.from_dict({**good, **change})
    fields = {**good, **change}
    with pytest.raises(InvalidInputError, match=re.escape(words)):
        SolverReport(**fields)
    with pytest.raises(InvalidInputError, match="missing 'bound'"):
        SolverReport.from_dict({k: v for k, v in good.items() if k != "bound"})


def test_a_solver_report_keeps_infinite_bounds_and_numpy_booleans():
    report = SolverReport("time_limit", np.bool_(False), None, float("inf"), 2, "highs")
    assert report.has_solution is False and report.bound == float("inf")
    assert report.seconds == 2.0 and isinstance(report.seconds, float)
