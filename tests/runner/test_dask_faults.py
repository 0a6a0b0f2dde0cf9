"""Faults in a distributed sweep, on a Dask ``LocalCluster`` (issue 30, item 5).

- a worker process killed in the middle of a task: the scheduler runs the task on
  another worker; one row per task in the store, none lost; a task that kills every
  worker it runs on ends as a failed row (``KilledWorker``);
- the scheduler killed: the sweep stops with one clear line (exit 2), the tasks it held
  are not recorded, and the same command run again resumes: every task once;
- a task past its time limit on a worker: a ``time_limit`` row, its process killed and
  the worker free for the next task;
- two sweeps of one store from two processes on the Dask backend: every task once.

Each sweep runs in a child process (as a user's would), so that a worker or a
scheduler can be killed under it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from allockit.runner import read_rows

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.third_party_rng

SWEEP = textwrap.dedent(
    """
    import json, sys
    from allockit.runner import Task, run_sweep
    db, address, marks, n, pause, first, limit, kind = sys.argv[1:9]
    grid = [
        Task(kind=kind, instance_id=f"t{k}", instance={}, method="-",
             params={"path": marks, "seconds": float(pause), "first_seconds": float(first)},
             time_limit=None if limit == "none" else float(limit))
        for k in range(int(n))
    ]
    summary = run_sweep(grid, db, backend="dask", scheduler=address, sweep="dask",
                        grace=0.5)
    print(json.dumps(summary.to_dict()))
    """
)

CLUSTER = textwrap.dedent(
    """
    import sys, time
    from distributed import LocalCluster
    if __name__ == "__main__":
        cluster = LocalCluster(n_workers=int(sys.argv[1]), threads_per_worker=1,
                               processes=True, host="127.0.0.1", dashboard_address=":0")
        print(cluster.scheduler_address, flush=True)
        time.sleep(3600)
    """
)


def _sweep(db, address, marks, n, *, pause=0.0, first=None, limit=None, kind="mark"):
    first = pause if first is None else first
    args = [str(db), address, str(marks), str(n), str(pause), str(first),
            "none" if limit is None else str(limit), kind]
    return subprocess.Popen(
        [sys.executable, "-c", SWEEP, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(process, timeout=180):
    try:
        out, err = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return process.returncode, out, err


def _marks(path: Path) -> list[tuple[str, int]]:
    if not path.exists():
        return []
    words = path.read_text().split()
    return [(words[k], int(words[k + 1])) for k in range(0, len(words) - 1, 2)]


def _wait_for(predicate, timeout=60.0, step=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError("timed out waiting")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is dead
    except OSError:
        return False


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as fh:
        return int(fh.read().rsplit(")", 1)[1].split()[1])


@pytest.fixture(scope="module")
def cluster():
    import dask

    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 1}),
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=":0",
        ) as local,
    ):
        yield local


def _one_row_per_task(db, n):
    rows = read_rows(db)
    keys = [r["key"] for r in rows]
    assert len(keys) == len(set(keys)) == n, [r["instance"] for r in rows]
    return {r["instance"]: r for r in rows}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_worker_killed_mid_task_is_retried_elsewhere_and_recorded_once(tmp_path, cluster):
    db, marks, n = tmp_path / "s.db", tmp_path / "marks.txt", 4
    sweep = _sweep(db, cluster.scheduler_address, marks, n, pause=0.2, first=4.0)
    victim = _wait_for(lambda: _marks(marks))[0]  # (task, pid of the Dask worker)
    os.kill(victim[1], signal.SIGKILL)
    code, out, err = _finish(sweep)
    assert code == 0, err[-2000:]
    summary = json.loads(out)
    assert summary["ran"] == n and summary["failed"] == 0
    rows = _one_row_per_task(db, n)
    assert all(r["ok"] for r in rows.values())
    ran = [task for task, _pid in _marks(marks)]
    assert ran.count(victim[0]) == 2  # the killed run and the retry on another worker
    assert sorted(set(ran)) == [f"t{k}" for k in range(n)]
    _wait_for(lambda: len(cluster.scheduler_info["workers"]) == 2)  # the nanny restarted it


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_worker_takes_its_task_process_with_it(tmp_path, cluster):
    # a task with a time limit runs in a child process of the Dask worker: killing the
    # worker kills the child too (it would otherwise keep computing, parent 1)
    db, marks, n = tmp_path / "s.db", tmp_path / "marks.txt", 2
    sweep = _sweep(db, cluster.scheduler_address, marks, n, first=60.0, limit=120)
    task, child = _wait_for(lambda: _marks(marks))[0]
    worker = _parent(child)
    os.kill(worker, signal.SIGKILL)
    _wait_for(lambda: not _alive(child), timeout=10)
    code, _out, err = _finish(sweep)
    assert code == 0, err[-2000:]
    rows = _one_row_per_task(db, n)
    assert rows[task]["ok"]


def test_a_task_that_kills_every_worker_becomes_a_failed_row(tmp_path, cluster):
    db, marks = tmp_path / "s.db", tmp_path / "marks.txt"
    code, out, err = _finish(_sweep(db, cluster.scheduler_address, marks, 1, kind="crash"))
    assert code == 0, err[-2000:]
    assert json.loads(out)["failed"] == 1
    row = _one_row_per_task(db, 1)["t0"]
    assert not row["ok"] and "KilledWorker" in row["error"]
    _wait_for(lambda: len(cluster.scheduler_info["workers"]) == 2)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_task_past_its_time_limit_is_recorded_and_its_worker_freed(tmp_path):
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=":0",
    ) as one:
        db, marks, n = tmp_path / "s.db", tmp_path / "marks.txt", 3
        started = time.monotonic()
        code, _out, err = _finish(_slow_first(db, one.scheduler_address, marks, n))
        seconds = time.monotonic() - started
    assert code == 0, err[-2000:]
    rows = _one_row_per_task(db, n)
    assert rows["t0"]["status"] == "time_limit" and not rows["t0"]["ok"]
    assert all(rows[f"t{k}"]["ok"] for k in range(1, n))  # the one worker ran them after
    assert seconds < 60  # not the 120 s the first task wanted
    for _task, pid in _marks(marks):
        assert not _alive(pid)  # the overrunning task's process is gone


def _slow_first(db, address, marks, n):
    """t0 sleeps 120 s (limit 1 s), the others 0.1 s, all on one worker, t0 first."""
    script = SWEEP.replace(
        'params={"path": marks, "seconds": float(pause), "first_seconds": float(first)},',
        'params={"path": marks, "seconds": 0.1, "first_seconds": 120.0 if k == 0 else 0.1},',
    )
    return subprocess.Popen(
        [sys.executable, "-c", script, str(db), address, str(marks), str(n), "0", "0", "1",
         "mark"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_sweeps_on_one_store_from_two_processes_run_every_task_once(tmp_path, cluster):
    db, marks, n = tmp_path / "shared.db", tmp_path / "marks.txt", 12
    first = _sweep(db, cluster.scheduler_address, marks, n, pause=0.3)
    second = _sweep(db, cluster.scheduler_address, marks, n, pause=0.3)
    outs = []
    for process in (first, second):
        code, out, err = _finish(process)
        assert code == 0, err[-2000:]
        outs.append(json.loads(out))
    assert sorted(task for task, _pid in _marks(marks)) == sorted(f"t{k}" for k in range(n))
    assert sum(o["ran"] for o in outs) == n and all(o["total"] == n for o in outs)
    assert all(o["failed"] == 0 for o in outs)
    _one_row_per_task(db, n)


# ---------------------------------------------------------------------- scheduler killed
def _start_cluster(workers: int) -> tuple[subprocess.Popen, str]:
    helper = subprocess.Popen(
        [sys.executable, "-c", CLUSTER, str(workers)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    address = helper.stdout.readline().strip()
    assert address.startswith("tcp://"), address
    return helper, address


def _stop(helper: subprocess.Popen) -> None:
    if helper.poll() is None:
        helper.kill()
    helper.wait()
    helper.stdout.close()


MEASY = ["measy-experiment", "fig8", "--model", "lublin", "--jobs", "3000",
         "--processors", "64", "--loads", "0.5,0.6,0.7,0.8,0.9", "--backend", "dask"]


def _cli(argv):
    return subprocess.Popen(
        [sys.executable, "-m", "allockit.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_killed_scheduler_stops_the_sweep_with_one_line_and_a_rerun_resumes(tmp_path):
    db = tmp_path / "measy.db"
    helper, address = _start_cluster(1)
    try:
        run = _cli([*MEASY, "--scheduler", address, "--store", str(db)])
        _wait_for(lambda: db.exists() and len(read_rows(db)) >= 1, timeout=120, step=0.3)
        helper.send_signal(signal.SIGKILL)
        helper.wait()
        started = time.monotonic()
        code, out, err = _finish(run, timeout=120)
    finally:
        _stop(helper)
    assert time.monotonic() - started < 60
    assert code == 2 and out == "", err[-2000:]
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "went away" in lines[0] and "run the same sweep again" in lines[0], lines[0]
    done = {r["key"] for r in read_rows(db)}
    assert done and all(r["ok"] for r in read_rows(db))  # nothing recorded as failed
    helper, address = _start_cluster(2)
    try:
        code, out, err = _finish(_cli([*MEASY, "--scheduler", address, "--store", str(db)]))
    finally:
        _stop(helper)
    assert code == 0, err[-2000:]
    sweep = json.loads(out)["sweep"]
    assert sweep["skipped"] == len(done) and sweep["ran"] == sweep["total"] - len(done)
    rows = read_rows(db)
    assert len(rows) == len({r["key"] for r in rows}) == sweep["total"]
