"""Defects found in review (issue #18), each pinned by a test."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

from allockit.cli import main
from allockit.constants import TAU
from allockit.errors import InvalidInputError
from allockit.instances.drfh import DRFHInstance
from allockit.instances.vcsched import VCInstance

FIG1 = {
    "problem": "drfh",
    "resources": ["cpu", "mem"],
    "servers": [{"name": "s1", "capacity": [2, 12]}, {"name": "s2", "capacity": [12, 2]}],
    "users": [{"name": "u1", "demand": [0.2, 1]}, {"name": "u2", "demand": [1, 0.2]}],
}


def test_sharing_incentive_uses_the_seed_and_counts_what_it_checked():
    from allockit.fairness import MECHANISMS, check

    runs = {
        seed: check(MECHANISMS["per-server-drf"], ["sharing_incentive"], examples=25, seed=seed)[0]
        for seed in (0, 1, 0)
    }
    assert all(r.examples == 25 and r.status == "measured" for r in runs.values())
    again = check(MECHANISMS["per-server-drf"], ["sharing_incentive"], examples=25, seed=0)[0]
    assert again.detail == runs[0].detail  # the seed fixes the draws
    details = {
        check(MECHANISMS["per-server-drf"], ["sharing_incentive"], examples=25, seed=s)[0].detail
        for s in range(4)
    }
    assert len(details) > 1  # ... and other seeds draw other instances


def test_fairness_without_hypothesis_prints_the_install_line_and_exits_1(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "hypothesis" else real(name)
    )
    assert main(["fairness", "--method", "lp", "--examples", "2"]) == 1
    err = capsys.readouterr().err
    assert "pip install 'allockit[fairness]'" in err and err.count("\n") == 1


@pytest.mark.parametrize("function", ["mcb_pack", "mcb_fill"])
def test_mcb_packing_refuses_an_unknown_key(function):
    from allockit.heuristics.mcb import mcb_fill, mcb_pack

    inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0.1, 0.1])
    call = {
        "mcb_pack": lambda key: mcb_pack(inst, 0.5, key=key),
        "mcb_fill": lambda key: mcb_fill(np.full(2, 0.5), np.full(2, 0.1), np.ones(2),
                                         np.ones(2), key=key),
    }[function]
    with pytest.raises(InvalidInputError, match=r"key must be one of \['sum', 'diff', "):
        call("maximum")
    assert call("sum").tolist() == [0, 0]  # a known key still packs


def test_dfrs_synthetic_refuses_zero_jobs():
    from allockit.instances.lublin import dfrs_synthetic

    with pytest.raises(InvalidInputError, match="n_jobs must be an integer >= 1; got 0"):
        dfrs_synthetic(0)


def test_lublin_params_follow_the_role_not_the_identity_of_the_set():
    from dataclasses import replace

    from allockit.instances.lublin import INTERACTIVE, LublinModel

    twin = replace(INTERACTIVE)  # equal values, another object
    assert twin is not INTERACTIVE
    assert LublinModel(nodes=64, interactive=twin).params() == LublinModel(nodes=64).params()
    one = LublinModel(nodes=1).params()
    assert all(p.ulow == p.umed == p.uhi for p in one)  # one node: no size range to draw


def test_read_instance_of_a_drfh_file_names_the_command(tmp_path):
    from allockit.instances.io import read_drfh_instance, read_instance

    path = tmp_path / "fig1.json"
    path.write_text(json.dumps(FIG1))
    with pytest.raises(InvalidInputError, match=r"fig1.json: this is a DRFH .*`allockit drfh"):
        read_instance(path)
    vc = tmp_path / "vc.json"
    vc.write_text(json.dumps(VCInstance.from_lists(hosts=1, cpu=[0.5], mem=[0.1]).to_dict()))
    with pytest.raises(InvalidInputError, match=r"vc.json: this is a VCSched .*`allockit solve"):
        read_drfh_instance(vc)


def test_google_trace_checks_the_13_columns_and_names_the_file(tmp_path):
    from allockit.instances.google_trace import users_from_task_events

    good = tmp_path / "part-00000.csv"
    good.write_text("0,,1,0,,0,alice,0,0,0.1,0.2,0,0\n")
    short = tmp_path / "part-00001.csv"
    short.write_text("0,,1,0,,0,alice,0,0,0.1,0.2\n")  # 11 columns: accepted before
    with pytest.raises(InvalidInputError, match=r"part-00001.csv row 1: expected 13 columns"):
        users_from_task_events([good, short])
    bad = tmp_path / "part-00002.csv"
    bad.write_text("0,,1,0,,0,alice,0,0,0.1,0.2,0,0\nx,,1,0,,0,bob,0,0,0.1,0.2,0,0\n")
    with pytest.raises(InvalidInputError, match=r"part-00002.csv row 2: bad timestamp"):
        users_from_task_events([good, bad])


def test_theorem1_check_uses_the_constant_tau():
    from allockit.proofs.theorem1 import check_schedule

    assert inspect.signature(check_schedule).parameters["tau"].default == TAU


def test_mean_utilization_of_simultaneous_events_is_not_a_division_by_zero():
    from allockit.results import DynamicTrace
    from allockit.simulation.drfh_dynamic import mean_utilization

    trace = DynamicTrace(np.array([3.0, 3.0, 3.0]), np.zeros((3, 2)),
                         np.array([[0.5, 0.2], [0.7, 0.1], [0.4, 0.4]]), {}, ("u",))
    assert mean_utilization(trace).tolist() == [0.4, 0.4]


def test_drfh_lp_with_finite_caps_is_refused_on_the_command_line(tmp_path, capsys):
    doc = json.loads(json.dumps(FIG1))
    doc["users"][0]["tasks"] = 5
    path = tmp_path / "caps.json"
    path.write_text(json.dumps(doc))
    assert main(["drfh", str(path), "--method", "lp"]) == 2
    assert "use method 'progressive'" in capsys.readouterr().err
    assert main(["drfh", str(path), "--method", "progressive"]) == 0
    users = json.loads(capsys.readouterr().out)["users"]
    assert users[0]["tasks"] == pytest.approx(5)


def test_a_drfh_instance_from_python_keeps_its_own_checks():
    with pytest.raises(InvalidInputError, match="count must be >= 1; got 0 at server 's'"):
        DRFHInstance(resources=("cpu",), server_names=("s",), capacity=np.ones((1, 1)),
                     count=np.zeros(1, dtype=int), user_names=("u",),
                     demand=np.full((1, 1), 0.5), weight=np.ones(1), tasks=np.ones(1))


@pytest.mark.parametrize("method", ["first-fit", "best-fit", "per-server-drf", "slots"])
def test_drfh_task_heuristics_refuse_sizes_they_cannot_place(method):
    from allockit.drfh import allocate

    tiny = DRFHInstance.from_dict({"resources": ["cpu"], "servers": [{"capacity": [1.0]}],
                                   "users": [{"demand": [1e-9]}]})
    with pytest.raises(InvalidInputError, match=r"one at a time: up to 1e\+09 tasks"):
        allocate(tiny, method)
    many = DRFHInstance.from_dict({"resources": ["cpu"],
                                   "servers": [{"capacity": [1.0], "count": 10**8}],
                                   "users": [{"demand": [0.5], "tasks": 3}]})
    with pytest.raises(InvalidInputError, match=r"100000000 machines x 1 users .* lp and"):
        allocate(many, method)


def test_drfh_allocations_too_large_to_hold_are_refused_at_once():
    from allockit.drfh import allocate

    inst = DRFHInstance.from_dict({"resources": ["cpu"],
                                   "servers": [{"capacity": [1.0], "count": 10**8}],
                                   "users": [{"demand": [0.5]}, {"demand": [0.25]}]})
    assert allocate(inst, "lp").tasks.tolist() == [1e8, 2e8]  # per class: small
    with pytest.raises(InvalidInputError, match=r"at most 50000000 servers \(split\)"):
        allocate(inst, "lp", split=True)


def test_estimates_on_a_workload_without_requested_times_is_refused(tmp_path, capsys):
    path = tmp_path / "w.swf"
    path.write_text("; MaxNodes: 4\n1 0 5 100 2 -1 -1 2 -1 -1 1 3 -1 -1 1 -1 -1 -1\n")
    assert main(["simulate", str(path), "--algorithm", "EASY", "--estimates"]) == 2
    assert "--estimates: w.swf has no requested times" in capsys.readouterr().err


def test_dropped_jobs_are_counted_and_noted(tmp_path, capsys):
    path = tmp_path / "w.swf"
    path.write_text("; MaxNodes: 4\n1 0 5 100 2 -1 -1 2 -1 -1 1 3 -1 -1 1 -1 -1 -1\n"
                    "2 9 0 -5 1 -1 -1 1 -1 -1 0 3 -1 -1 1 -1 -1 -1\nnot a job\n")
    assert main(["workload", "stats", str(path), "--skip-bad"]) == 0
    out, err = capsys.readouterr()
    stats = json.loads(out)
    assert (stats["jobs"], stats["records"], stats["dropped_jobs"], stats["skipped_lines"]) == (
        1, 2, 1, 1)
    assert "1 jobs without a positive run time" in err
