"""The experiment runner: backends agree, failures are rows, killed sweeps resume."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import allockit.experiments.dfrs  # noqa: F401  (registers the dfrs task kind)
from allockit.cli import main
from allockit.errors import InvalidInputError
from allockit.experiments.sweep_spec import load_spec
from allockit.experiments.vcsched import vcsched_tasks
from allockit.instances import example_path, read_instance
from allockit.runner import Progress, Task, execute_task, run_sweep
from allockit.runner.store import flat_rows, read_rows

TIMING = {"build_seconds", "solve_seconds", "setup_seconds", "seconds", "mcb8_calls"}


def _grid():
    inst = read_instance(example_path()).to_dict()
    small = {
        "problem": "vcsched",
        "hosts": 2,
        "jobs": [
            {"name": "a", "cpu": 0.6, "mem": 0.5},
            {"name": "b", "cpu": 0.6, "mem": 0.5},
            {"name": "c", "cpu": 0.6, "mem": 0.5},
        ],
    }
    vcsched = vcsched_tasks(
        [("example", inst), ("three", small)], methods=["milp", "cpsat", "lp"], time_limit=30
    )
    # and the online-scheduling kind: a tiny DFRS trace, its bound and one simulation
    spec = {"set": "scaled", "seed": 3, "load": 0.8, "jobs": 15, "nodes": 4}
    dfrs = [
        Task(kind="dfrs", instance_id="tiny", instance=spec, method=method, params=params)
        for method, params in (("bound", {}), ("GreedyPM */per/minvt=600", {"period": 600}))
    ]
    return vcsched + dfrs


def _comparable(rows):
    out = {}
    for row in rows:
        outputs = {k: v for k, v in row["outputs"].items() if k not in TIMING}
        for k in ("min_yield", "avg_yield", "bound", "gap"):
            if outputs.get(k) is not None:
                outputs[k] = round(outputs[k], 6)
        out[row["key"]] = (row["instance"], row["method"], row["ok"], row["status"], outputs)
    return out


def test_local_and_serial_backends_give_the_same_rows(tmp_path):
    grid = _grid()
    run_sweep(grid, tmp_path / "serial.db", backend="serial")
    summary = run_sweep(grid, tmp_path / "local.db", backend="local", workers=2)
    assert summary.ran == len(grid) == 8 and summary.failed == 0
    serial, local = read_rows(tmp_path / "serial.db"), read_rows(tmp_path / "local.db")
    assert _comparable(serial) == _comparable(local)
    row = local[0]
    assert row["allockit_version"] and row["solver_versions"]["highspy"] == "1.12.0"


@pytest.mark.third_party_rng
def test_dask_local_cluster_gives_the_same_rows(tmp_path):
    distributed = pytest.importorskip("distributed")
    grid = _grid()
    run_sweep(grid, tmp_path / "local.db", backend="local", workers=2)
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        summary = run_sweep(
            grid, tmp_path / "dask.db", backend="dask", scheduler=cluster.scheduler_address
        )
    assert summary.ran == len(grid) and summary.failed == 0
    assert _comparable(read_rows(tmp_path / "dask.db")) == _comparable(
        read_rows(tmp_path / "local.db")
    )


@pytest.mark.parametrize("backend", ["serial", "local"])
def test_failing_and_overrunning_tasks_become_rows(tmp_path, backend):
    grid = [
        Task(kind="fail", instance_id="f", instance={}, method="-", params={"message": "boom"}),
        Task(
            kind="sleep",
            instance_id="slow",
            instance={},
            method="-",
            params={"seconds": 30},
            time_limit=0.3,
        ),
        Task(
            kind="sleep",
            instance_id="quick",
            instance={},
            method="-",
            params={"seconds": 0.01},
            time_limit=5,
        ),
    ]
    start = time.perf_counter()
    summary = run_sweep(grid, tmp_path / "r.db", backend=backend, workers=2, grace=0.3)
    assert time.perf_counter() - start < 15
    assert summary.ran == 3 and summary.failed == 2
    rows = {r["instance"]: r for r in read_rows(tmp_path / "r.db")}
    assert not rows["f"]["ok"] and "RuntimeError: boom" in rows["f"]["error"]
    assert not rows["slow"]["ok"] and rows["slow"]["status"] == "time_limit"
    assert "exceeded its time limit of 0.3 s" in rows["slow"]["error"]
    assert rows["quick"]["ok"] and rows["quick"]["status"] == "done"
    # failed rows are not rerun, unless asked
    assert run_sweep(grid, tmp_path / "r.db", backend=backend).ran == 0
    again = run_sweep(grid, tmp_path / "r.db", backend=backend, retry_failed=True, grace=0.3)
    assert again.ran == 2


KILL_SCRIPT = textwrap.dedent("""
    import sys
    from allockit.runner import Task, run_sweep
    grid = [Task(kind="sleep", instance_id=str(k), instance={}, method="-",
                 params={"seconds": 0.15}) for k in range(40)]
    run_sweep(grid, sys.argv[1], backend="local", workers=2, progress=False)
""")


def _count_rows(db):
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(db, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0


def test_sigkilled_sweep_resumes_without_loss_or_duplicates(tmp_path):
    db = tmp_path / "kill.db"
    script = tmp_path / "sweep.py"
    script.write_text(KILL_SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script), str(db)], start_new_session=True)
    deadline = time.time() + 60
    while _count_rows(db) < 6 and time.time() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = {r["key"]: r["finished_at"] for r in read_rows(db)}
    assert 6 <= len(before) < 40, "the sweep should have been killed mid-run"
    grid = [
        Task(kind="sleep", instance_id=str(k), instance={}, method="-", params={"seconds": 0.15})
        for k in range(40)
    ]
    summary = run_sweep(grid, db, backend="local", workers=2)
    assert summary.skipped == len(before) and summary.ran == 40 - len(before)
    rows = read_rows(db)
    keys = [r["key"] for r in rows]
    assert len(keys) == len(set(keys)) == 40
    assert {t.key for t in grid} == set(keys)
    assert all(r["ok"] for r in rows)
    for r in rows:  # finished rows were not run again
        if r["key"] in before:
            assert r["finished_at"] == before[r["key"]]


def test_unknown_backend_and_kind():
    with pytest.raises(InvalidInputError, match="backend must be one of"):
        run_sweep([], "x.db", backend="slurm")
    with pytest.raises(InvalidInputError, match="task kind must be one of"):
        Task(kind="nope", instance_id="x", instance={}, method="-")


def test_vcsched_task_row_has_the_solve_outputs():
    inst = read_instance(example_path()).to_dict()
    row = execute_task(Task(kind="vcsched", instance_id="ex", instance=inst, method="milp"))
    assert row.ok and row.status == "optimal"
    assert {"min_yield", "avg_yield", "bound", "gap", "build_seconds", "solve_seconds"} <= set(
        row.outputs
    )


def test_invalid_instance_in_a_task_is_a_failed_row():
    bad = {"problem": "vcsched", "hosts": 1, "jobs": [{"name": "a", "cpu": 3, "mem": 0}]}
    row = execute_task(Task(kind="vcsched", instance_id="bad", instance=bad, method="milp"))
    assert not row.ok and "jobs[0].cpu must be a number in (0, 1]; got 3" in row.error


def test_progress_line():
    bar = Progress(10, enabled=False)
    for ok in (True, True, False):
        bar.update(ok)
    line = bar.line()
    assert "3/10" in line and "(1 failed)" in line and "ETA" in line


SPEC = """
name = "t"
output = "out/results.db"
methods = ["milp", "lp"]
instances = ["inst"]
time_limit = 20
backend = "serial"
[params]
threads = [1]
"""


def test_sweep_cli_runs_resumes_and_exports(tmp_path, capsys):
    (tmp_path / "inst").mkdir()
    (tmp_path / "inst" / "ex.json").write_text(Path(example_path()).read_text())
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    assert main(["sweep", str(spec), "--no-progress"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["ran"] == 2 and first["failed"] == 0
    assert main(["sweep", str(spec), "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == 2
    db = tmp_path / "out" / "results.db"
    csv_path = tmp_path / "rows.csv"
    assert main(["results", "export", str(db), "--csv", str(csv_path)]) == 0
    capsys.readouterr()
    lines = csv_path.read_text().splitlines()
    assert len(lines) == 3 and "min_yield" in lines[0] and "param_threads" in lines[0]
    assert len(flat_rows(db)) == 2


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ('output = "x.db"\n', r"s.toml: methods is missing \(required: a non-empty list"),
        (
            'output = "x.db"\nmethods = ["milp"]\nbogus = 1\n',
            "s.toml: bogus is not a known field; valid fields: backend, generate",
        ),
        ('output = "x.db"\nmethods = ["milp"]\nbackend = "mpi"\n', "backend must be one of"),
        ('output = "x.db"\nmethods = [', "malformed TOML"),
    ],
)
def test_bad_sweep_files(tmp_path, text, match):
    spec = tmp_path / "s.toml"
    spec.write_text(text)
    with pytest.raises(InvalidInputError, match=match):
        load_spec(spec)


def test_sweep_with_unknown_method_exits_2(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(
        'output = "x.db"\nmethods = ["simplex"]\n[generate]\nset = "small"\nevery = 1000\n'
    )
    assert main(["sweep", str(spec)]) == 2
    assert "s.toml: methods[0] must be one of [" in capsys.readouterr().err


def test_export_needs_one_format(tmp_path, capsys):
    assert main(["results", "export", str(tmp_path / "none.db"), "--csv", "a.csv"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["results", "export", "x.db"]) == 2
