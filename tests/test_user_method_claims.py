"""What a user's method claims is checked against what it returns (found by a fuzz round).

A method of a user may return anything: a status its own placement contradicts, a bound
below what another method reached, numbers that are not its allocation's, or it may
raise. None of it may become a false "optimal", "infeasible" or a raw traceback.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from allockit.cli import main
from allockit.comparison import compare
from allockit.drfh import allocate
from allockit.errors import InvalidInputError, MethodFailedError
from allockit.instances.drfh import DRFHInstance
from allockit.instances.reserves import ReservesInstance
from allockit.instances.vcsched import VCInstance
from allockit.reserves import allocate_reserves
from allockit.results import VCResult
from allockit.vcsched import solve

VC = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
DRFH = DRFHInstance.from_dict({
    "resources": ["cpu", "mem"],
    "servers": [{"name": "a", "capacity": [1, 1]}, {"name": "b", "capacity": [2, 1]}],
    "users": [{"demand": [0.2, 0.1], "tasks": 4}, {"demand": [0.1, 0.2], "tasks": 3}],
})
RES = ReservesInstance.from_dict({"targets": [60, 30, 10], "allocation": [[60, 30, 10]] * 2,
                                  "usage": [[60, 30, 10]] * 2})


def _claim(status, task_hosts=None, **more):
    def method(instance, **options):
        return VCResult(method="x", status=status, job_names=instance.job_names,
                        tasks=instance.tasks, task_hosts=task_hosts, **more)
    method.__qualname__ = f"claim_{status}_{more.get('bound')}"
    return method


# ------------------------------------------------------------------ VCSched
def test_an_optimal_claim_the_bound_does_not_prove_is_reported_feasible():
    r = solve(VC, _claim("optimal", [0, 0, 0]))  # 0.556; the LP bound is 1
    assert str(r.status) == "feasible" and r.gap == pytest.approx(4 / 9)
    assert "claimed optimal" in r.message
    proved = solve(VC, _claim("optimal", [0, 0, 1], bound=5 / 6))  # its own bound proves it
    assert str(proved.status) == "optimal" and proved.gap == pytest.approx(0.0, abs=1e-12)
    near = solve(VC, _claim("optimal", [0, 0, 1], bound=0.84), rel_gap=0.01)
    assert str(near.status) == "optimal"  # within the rel_gap it was given
    assert str(solve(VC, _claim("optimal", [0, 0, 1], bound=0.84)).status) == "feasible"


@pytest.mark.parametrize("status", ["infeasible", "no_solution", "error", "completed"])
def test_a_placement_with_a_status_it_contradicts_is_refused(status):
    with pytest.raises(InvalidInputError, match=f"status {status} cannot carry a placement"):
        solve(VC, _claim(status, [0, 0, 1]))


@pytest.mark.parametrize("hosts", [[0, 1], [[0, 1, 0]], [0, 1, 0, 1]])
def test_task_hosts_without_one_host_per_task_are_named(hosts):
    with pytest.raises(InvalidInputError, match=r"one host per task \(3 tasks\); got shape"):
        solve(VC, _claim("feasible", np.array(hosts)))


def test_compare_refuses_proofs_another_method_refutes():
    c = compare({"vc": VC}, ["mcb8", _claim("infeasible"), _claim("no_solution", bound=0.5),
                             _claim("no_solution", bound=0.9)])
    by = {row["method"]: row for row in c.rows}
    infeasible, low, fine = (by[m] for m in list(by)[1:])
    assert infeasible["outcome"] == "error" and "claims the instance infeasible" in (
        infeasible["error"])
    assert low["outcome"] == "error" and "bound 0.5 is below the min yield 0.833333" in (
        low["error"])
    assert fine["outcome"] == "no_solution"  # 0.9 >= 0.8333: a bound nothing refutes
    summary = {s.method: s for s in c.summary()}
    assert summary[infeasible["method"]].infeasible == 0


def test_a_placement_keeps_its_row_when_only_its_bound_is_refuted():
    # found by review: the row was an error and a success at once (yields, degradation)
    own = _claim("optimal", [0, 0, 0], bound=5 / 9)  # its own bound "proves" 0.556 optimal
    alone = solve(VC, own)
    assert str(alone.status) == "optimal"  # alone, a user's bound is its proof ...
    assert alone.bound_source == alone.method  # ... and says whose it is
    assert solve(VC, _claim("feasible", [0, 0, 1])).bound_source == "lp"
    c = compare({"vc": VC}, ["mcb8", own])
    row = c.rows[1]
    assert (row["outcome"], row["status"], row["failed"]) == ("solved", "feasible", False)
    assert row["bound"] is None and row["gap"] is None and "is below the min yield" in (
        row["error"])
    assert row["degradation"] == pytest.approx(100 * (1 - (5 / 9) / (5 / 6)))
    assert c.summary()[1].solved == 1 and c.summary()[1].errors == 0


# ------------------------------------------------------------------ raising methods
def _boom(instance, **options):
    raise RuntimeError("boom")


def _own_error(instance, **options):
    raise InvalidInputError("my own check")


@pytest.mark.parametrize("run", [lambda m: solve(VC, m), lambda m: allocate(DRFH, m),
                                 lambda m: allocate_reserves(RES, m)])
def test_a_method_that_raises_is_one_error_naming_it(run):
    with pytest.raises(MethodFailedError, match=r"'[^']*_boom' raised RuntimeError: boom "
                                                r"\(at .*test_user_method_claims.py:\d+\)"):
        run(_boom)
    with pytest.raises(InvalidInputError, match=r"^my own check$"):  # allockit's: unchanged
        run(_own_error)


def test_the_cli_exits_2_with_one_line_for_a_method_that_raises(tmp_path, capsys):
    (tmp_path / "mine.py").write_text("def boom(instance, **o):\n    raise KeyError('k')\n")
    (tmp_path / "vc.json").write_text(json.dumps(VC.to_dict()))
    code = main(["solve", str(tmp_path / "vc.json"), "--method", f"{tmp_path}/mine.py:boom"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert f"VCSched method '{tmp_path}/mine.py:boom' raised KeyError: 'k' (at " in err


# ------------------------------------------------------------------ DRFH
def _drfh(**change):
    base = allocate(DRFH, "progressive")
    return lambda instance, **options: replace(base, **change)


@pytest.mark.parametrize("status", ["error", "infeasible", "no_solution", "completed"])
def test_a_drfh_allocation_with_a_status_it_contradicts_is_refused(status):
    with pytest.raises(InvalidInputError, match=f"cannot have status {status}"):
        allocate(DRFH, _drfh(status=status))
    empty = allocate(DRFH, "progressive")
    nothing = replace(empty, status="error", tasks=np.zeros(2), dominant_share=np.zeros(2),
                      allocation=np.zeros_like(empty.allocation), utilization=np.zeros(2))
    if status != "completed":  # a failure that allocated nothing stays what it says
        assert str(allocate(DRFH, lambda i, **o: replace(nothing, status=status)).status) == (
            status)


def test_a_dominant_share_below_what_the_tasks_take_is_refused():
    base = allocate(DRFH, "progressive")
    with pytest.raises(InvalidInputError, match=r"dominant_share\[0\] .* tasks alone take"):
        allocate(DRFH, _drfh(dominant_share=np.zeros(2)))
    assert allocate(DRFH, _drfh()).tasks.tolist() == base.tasks.tolist()


def test_server_classes_in_another_order_are_named():
    base = allocate(DRFH, "progressive")
    with pytest.raises(InvalidInputError, match=r"server classes \['b', 'a'\] are not"):
        allocate(DRFH, _drfh(server_names=base.server_names[::-1]))


# ------------------------------------------------------------------ reserves
@pytest.mark.parametrize(("output", "named"), [
    ([["50", "30", "10"]] * 2, r"allocation\[0, 0\] must be a number; got '50'"),
    ([[True, False, True]] * 2, r"allocation\[0, 0\] must be a number; got True"),
    (np.ones((2, 3), complex), r"allocation\[0, 0\] must be a number; got \(1\+0j\)"),
])
def test_reserves_shares_that_are_no_numbers_are_refused(output, named):
    # "50" was parsed, True read as 1 %, and 1+2j lost its imaginary part
    with pytest.raises(InvalidInputError, match=named):
        allocate_reserves(RES, lambda instance, **options: output)


def _reserves(**change):
    base = allocate_reserves(RES, "cluster-reserves")
    return lambda instance, **options: replace(base, **change)


@pytest.mark.parametrize(("change", "named"), [
    ({"allocation": np.zeros((2, 3)), "class_totals": np.zeros(3), "deviation": np.zeros(3)},
     r"deviation \[0.0, 0.0, 0.0\] do not match the allocation's \[-60.0, -30.0, -10.0\]"),
    ({"deviation": np.zeros(7)}, "deviation"),
    ({"status": "error"}, "cannot have status error"),
    ({"V": -1.0}, "V must be"),
    ({"qp_objective": -2.0}, "qp_objective must be"),
    ({"balances": np.array([np.nan])}, "balances must be 3 finite numbers"),
])
def test_a_reserves_result_whose_numbers_are_not_its_allocations_is_refused(change, named):
    with pytest.raises(InvalidInputError, match=named):
        allocate_reserves(RES, _reserves(**change))
    assert str(allocate_reserves(RES, _reserves()).status) == "optimal"


# ------------------------------------------------------------------ helpers of the wrong type
def test_helpers_name_an_argument_of_the_wrong_kind():
    # each raised a raw KeyError / TypeError before
    from allockit.fairness.explain import paragraph
    from allockit.options import MethodSpec, check_options
    from allockit.portfolio.state import Incumbent

    with pytest.raises(InvalidInputError, match="record must be a property report's record"):
        paragraph({})
    with pytest.raises(InvalidInputError, match="options must map option names to values"):
        check_options("DRFH method", MethodSpec("lp", "linear program", ()), None)
    with pytest.raises(InvalidInputError, match=r"rel_gap must be a finite number in \[0, 1\)"):
        Incumbent().certified(None)


def test_a_failed_row_of_a_comparison_is_one_line_for_allockit_errors():
    # it was the last three lines of the traceback, even for allockit's own errors
    def oob(instance, **options):
        return [5, 0, 0]

    c = compare({"vc": VC}, [_boom, oob])
    errors = [row["error"] for row in c.rows]
    assert errors[0].startswith("allockit.errors.MethodFailedError: VCSched method '")
    assert errors[1] == ("allockit.errors.InvalidInputError: "
                         "test_a_failed_row_of_a_comparison_is_one_line_for_allockit_errors."
                         "<locals>.oob: job 0 ('j0') placed on host 5, out of range [0, 1]")
    assert all("\n" not in e for e in errors)


def test_a_scheduling_policy_that_raises_is_one_error_naming_it(tmp_path, capsys):
    from allockit.instances.swf import workload_to_swf, write_swf
    from allockit.instances.workload import Platform, Workload
    from allockit.simulation.policy import BasePolicy
    from allockit.simulation.simulate import simulate

    class Broken(BasePolicy):
        def schedule(self, cluster, now):
            raise ZeroDivisionError("no")

    w = Workload.from_jobs(Platform(nodes=2), submit=[0, 1], runtime=[10, 10], tasks=[1, 1],
                           cpu=[1, 1], mem=[0.1, 0.1])
    with pytest.raises(MethodFailedError, match=r"scheduler 'Broken' raised ZeroDivisionError: "
                                                r"no \(at .*test_user_method_claims.py:\d+\)"):
        simulate(w, Broken())
    (tmp_path / "pol.py").write_text(
        "from allockit.simulation.policy import BasePolicy\n"
        "class Broken(BasePolicy):\n"
        "    def schedule(self, cluster, now):\n"
        "        raise ZeroDivisionError('no')\n")
    write_swf(workload_to_swf(w), tmp_path / "w.swf")
    code = main(["simulate", str(tmp_path / "w.swf"), "--algorithm", f"{tmp_path}/pol.py:Broken"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "raised ZeroDivisionError: no" in err


def test_a_multi_line_exception_stays_one_line():
    def wordy(instance, **options):
        raise ValueError("first\nsecond")

    with pytest.raises(MethodFailedError, match=r"raised ValueError: first \[\.\.\.\] \(at ") as e:
        solve(VC, wordy)
    assert "\n" not in str(e.value)


def test_a_per_server_drfh_result_is_named_without_every_server():
    # found by review: the message listed all 12,583 server names of the Google pool
    from allockit.instances.drfh import google_servers

    inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
                                   "servers": google_servers(300, seed=1),
                                   "users": [{"demand": [0.1, 0.1], "tasks": 5}]})
    split = allocate(inst, "first-fit", split=True)
    with pytest.raises(InvalidInputError, match=r"in all\)\] are not the instance's") as e:
        allocate(inst, lambda instance, **options: split)
    assert len(str(e.value)) < 600


def test_a_batch_policy_still_reads_which_jobs_wait():
    # found by review: BatchCluster.waiting (a boolean per job) had gone
    from allockit.instances.workload import Platform, Workload
    from allockit.simulation.policy import BasePolicy
    from allockit.simulation.simulate import simulate

    seen = []

    class Reader(BasePolicy):
        def schedule(self, cluster, now):
            seen.append(cluster.waiting.tolist())
            for job in list(cluster.queue):
                if cluster.width[job] <= cluster.free:
                    cluster.start(job)

    w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[10, 10], tasks=[1, 1],
                           cpu=[1, 1], mem=[0.1, 0.1])
    simulate(w, Reader())
    assert seen[0] == [True, True] and seen[1] == [False, True]


def test_a_method_past_its_time_limit_says_so():
    # it reported optimal with no word of the overrun (the runner stops tasks; solve cannot)
    import time

    def slow(instance, **options):
        time.sleep(0.3)
        return [0, 0, 1]

    late = solve(VC, slow, time_limit=0.1)
    assert str(late.status) == "feasible"  # scored as usual: its placement is what it is
    assert "past its time limit of 0.1 s" in late.message
    assert "past its time limit" not in solve(VC, slow, time_limit=30).message
    res = allocate_reserves(RES, lambda i, **o: (time.sleep(0.3), [[60, 30, 10]] * 2)[1],
                            time_limit=0.1)
    assert "past its time limit of 0.1 s" in res.message


def test_the_fairness_checker_names_what_a_mechanism_raised_once():
    # allocate's MethodFailedError was wrapped again ("raised MethodFailedError: ...")
    from allockit.fairness import check

    def broken(instance, **options):
        raise ValueError("no")

    report = check(broken, ["pareto"], examples=2)[0]
    message = report.to_dict()["error"]["message"]
    assert str(report.status) == "error"
    assert message.startswith("the mechanism raised ValueError: no (at ")
