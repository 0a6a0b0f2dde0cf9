"""The CLI contract: JSON fields and exit codes that users' scripts rely on."""

import json
import subprocess
import sys

import pytest

from allockit.cli import main
from allockit.instances import example_path

RESULT_FIELDS = {
    "problem",
    "method",
    "status",
    "min_yield",
    "avg_yield",
    "bound",
    "gap",
    "build_seconds",
    "solve_seconds",
    "jobs",
}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("method", ["milp", "milp-paper", "cpsat", "lp"])
def test_solve_prints_the_documented_json(capsys, method):
    code, out, err = run(capsys, "solve", example_path(), "--method", method)
    assert code == 0, err
    data = json.loads(out)
    assert RESULT_FIELDS <= data.keys()
    assert data["problem"] == "vcsched" and data["method"] == method
    assert data["status"] == "optimal"
    assert len(data["jobs"]) == 8
    for job in data["jobs"]:
        assert {"name", "hosts", "cpu", "yield"} <= job.keys()
        if method != "lp":
            assert all(isinstance(h, int) and 0 <= h < 4 for h in job["hosts"])
            assert len(job["cpu"]) == len(job["hosts"])


def test_exact_methods_agree_on_the_example(capsys):
    values = []
    for method in ("milp", "milp-paper", "cpsat"):
        _, out, _ = run(capsys, "solve", example_path(), "--method", method)
        values.append(json.loads(out)["min_yield"])
    assert max(values) - min(values) < 1e-6


def test_infeasible_instance_exits_zero_with_status(capsys, tmp_path):
    path = tmp_path / "inf.json"
    path.write_text(
        json.dumps(
            {
                "problem": "vcsched",
                "hosts": 1,
                "jobs": [{"name": "big", "cpu": 0.5, "mem": 1.5}],
            }
        )
    )
    code, out, _ = run(capsys, "solve", str(path))
    assert code == 0
    data = json.loads(out)
    assert data["status"] == "infeasible" and data["min_yield"] is None


@pytest.mark.parametrize(
    ("doc", "match"),
    [
        (
            '{"problem": "vcsched", "hosts": 2, "jobs": [{"name": "a", "cpu": 0, "mem": 0}]}',
            "jobs[0].cpu must be a number in (0, 1]; got 0 at job 'a'",
        ),
        ('{"problem": "vcsched", "hosts": 2, "jobs": [', "malformed JSON"),
        (
            '{"problem": "vcsched", "hosts": 0, "jobs": []}',
            "hosts must be an integer in [1, 1000000]; got 0",
        ),
    ],
)
def test_invalid_input_exits_2_with_one_line(capsys, tmp_path, doc, match):
    path = tmp_path / "bad.json"
    path.write_text(doc)
    code, out, err = run(capsys, "solve", str(path))
    assert code == 2 and out == ""
    assert match in err and err.count("\n") == 1 and "Traceback" not in err


def test_unknown_method_exits_2(capsys):
    code, _, err = run(capsys, "solve", example_path(), "--method", "simplex")
    assert code == 2 and "--method must be one of" in err and "milp" in err


def test_time_limit_returns_the_incumbent_and_gap(capsys, tmp_path):
    from allockit.instances import generate_vcsched, write_instance

    inst = generate_vcsched(hosts=16, jobs=60, slack=0.3, cov_cpu=0.75, cov_mem=0.75, seed=1)
    path = tmp_path / "hard.json"
    write_instance(inst, path)
    code, out, _ = run(
        capsys,
        "solve",
        str(path),
        "--method",
        "milp-paper",
        "--time-limit",
        "0.5",
        "--threads",
        "1",
    )
    assert code == 0
    data = json.loads(out)
    assert data["status"] in ("time_limit", "optimal")
    if data["status"] == "time_limit" and data["min_yield"] is not None:
        assert data["bound"] >= data["min_yield"]
        assert data["gap"] == pytest.approx((data["bound"] - data["min_yield"]) / data["bound"])


def test_generate_one_instance(capsys):
    args = [
        "generate",
        "vcsched",
        "--hosts",
        "4",
        "--jobs",
        "6",
        "--slack",
        "0.5",
        "--cov-cpu",
        "0.25",
        "--cov-mem",
        "0.75",
        "--seed",
        "3",
    ]
    code, out, _ = run(capsys, *args)
    assert code == 0
    data = json.loads(out)
    assert data["problem"] == "vcsched" and data["hosts"] == 4 and len(data["jobs"]) == 6
    assert run(capsys, *args)[1] == out  # same seed, same instance


def test_generate_the_small_set(capsys, tmp_path):
    code, out, _ = run(
        capsys, "generate", "vcsched-set", "small", "--out", str(tmp_path), "--seed", "1"
    )
    assert code == 0 and json.loads(out)["instances"] == 1440
    assert len(list(tmp_path.glob("*.json"))) == 1440


def test_generate_bad_slack_exits_2(capsys):
    code, _, err = run(
        capsys, "generate", "vcsched", "--hosts", "4", "--jobs", "6", "--slack", "1.5"
    )
    assert code == 2 and "--slack must be a number in [0, 1); got 1.5" in err


def test_bad_time_limit_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["solve", example_path(), "--time-limit", "-3"])
    assert exc.value.code == 2


def test_console_script_runs_demo():
    proc = subprocess.run(
        [sys.executable, "-m", "allockit.cli", "demo", "--methods", "milp,mcb8", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["instances"] == 36 and [m["method"] for m in data["methods"]] == ["milp", "mcb8"]
