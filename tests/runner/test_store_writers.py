"""Several writers on one results store: claims, heartbeats, a killed writer, foreign files.

Each task is claimed atomically in the store (a ``claims`` row with its owner and a
heartbeat) before it runs, so two sweeps on one store never run a task twice and lose
nothing; a claim whose heartbeat stopped (its writer was killed) is taken over.
"""

from __future__ import annotations

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

from allockit.errors import InvalidInputError
from allockit.runner import Task, read_rows, run_sweep
from allockit.runner.store import (
    STORE_APPLICATION_ID,
    STORE_VERSION,
    ResultStore,
    check_store,
)

SWEEP = textwrap.dedent(
    """
    import json, sys
    from allockit.runner import Task, run_sweep
    db, marks, n, pause, first, stale = sys.argv[1:7]
    grid = [Task(kind="mark", instance_id=f"t{k}", instance={}, method="-",
                 params={"path": marks, "seconds": float(pause), "first_seconds": float(first)})
            for k in range(int(n))]
    summary = run_sweep(grid, db, backend="serial", sweep="shared", stale_after=float(stale))
    print(json.dumps(summary.to_dict()))
    """
)


def _start(db, marks, n, pause, first=None, stale=60.0):
    first = pause if first is None else first
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            SWEEP,
            str(db),
            str(marks),
            str(n),
            str(pause),
            str(first),
            str(stale),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _summaries(*processes: subprocess.Popen) -> list[dict]:
    """Each writer's printed summary, once all have ended; a failed one's stderr if any."""
    ended = []
    for process in processes:
        try:
            ended.append(process.communicate(timeout=120))
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    for process, (_out, err) in zip(processes, ended, strict=True):
        assert process.returncode == 0, err[-2000:]
    return [json.loads(out) for out, _err in ended]


OPEN = (  # import first, then open at one agreed moment so that the writers collide
    "import sys, time; from allockit.runner.store import ResultStore; "
    "time.sleep(max(0.0, float(sys.argv[2]) - time.time())); ResultStore(sys.argv[1]).close()"
)


def test_writers_that_create_one_new_store_at_the_same_moment_all_open_it(tmp_path):
    # SQLite answers "database is locked" at once to some of the steps that create a
    # store (the switch to WAL): the second writer used to fail (seen in CI)
    for attempt in range(3):
        db, moment = tmp_path / f"new{attempt}.db", time.time() + 2.0
        writers = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN, str(db), str(moment)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(4)
        ]
        for writer in writers:
            _out, err = writer.communicate(timeout=120)
            assert writer.returncode == 0, err[-2000:]
        assert check_store(db) == "store"


def _marks(path: Path) -> list[str]:
    return path.read_text().split()[::2] if path.exists() else []


def test_two_writers_at_once_run_every_task_exactly_once(tmp_path):
    db, marks, n = tmp_path / "shared.db", tmp_path / "marks.txt", 12
    first, second = _start(db, marks, n, 0.25), _start(db, marks, n, 0.25)
    outs = _summaries(first, second)
    ran = _marks(marks)
    assert sorted(ran) == sorted(f"t{k}" for k in range(n))  # each task once, none lost
    assert outs[0]["ran"] + outs[1]["ran"] == n and min(o["ran"] for o in outs) > 0
    assert all(o["total"] == n and o["failed"] == 0 for o in outs)
    assert len(read_rows(db)) == n
    with sqlite3.connect(db) as conn:  # every claim released
        assert conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0


def test_a_killed_writer_is_taken_over_and_nothing_is_lost(tmp_path):
    db, marks = tmp_path / "shared.db", tmp_path / "marks.txt"
    doomed = _start(db, marks, 3, 0.0, first=60.0)  # stuck on its first task
    deadline = time.time() + 60
    while not _marks(marks) and time.time() < deadline:
        time.sleep(0.1)
    assert _marks(marks) == ["t0"]
    doomed.send_signal(signal.SIGKILL)
    doomed.communicate()
    grid = [
        Task(
            kind="mark",
            instance_id=f"t{k}",
            instance={},
            method="-",
            params={"path": str(marks), "seconds": 0.0, "first_seconds": 60.0},
        )
        for k in range(3)
    ]
    started = time.perf_counter()
    # t0 is still claimed by the dead writer: taken over once its heartbeat is 1 s old;
    # t1 and t2 run first (their first run sleeps 60 s: use seconds of the re-run only)
    for t in grid[1:]:
        with open(marks, "a") as fh:
            fh.write(f"{t.instance_id} 0\n")  # pretend they ran once: no 60 s sleep
    summary = run_sweep(grid, db, backend="serial", sweep="shared", stale_after=1.0)
    assert time.perf_counter() - started < 30
    assert summary.ran == 3 and summary.failed == 0
    assert sorted(r["instance"] for r in read_rows(db)) == ["t0", "t1", "t2"]
    assert _marks(marks).count("t0") == 2  # the killed run and the takeover


def test_a_live_claim_is_respected_and_a_stale_one_taken_over(tmp_path):
    db = tmp_path / "s.db"
    with ResultStore(db, owner="a") as a, ResultStore(db, owner="b") as b:
        assert a.claim("k", stale_after=60.0) == "claimed"
        assert b.claim("k", stale_after=60.0) == "busy"
        time.sleep(0.05)
        assert b.claim("k", stale_after=0.01) == "claimed"  # a's heartbeat is too old
        assert a.heartbeat() == 0 and b.heartbeat() == 1
        b.write(
            {
                "key": "k",
                "sweep": "s",
                "kind": "sleep",
                "instance": "i",
                "method": "-",
                "params": {},
                "seed": None,
                "ok": True,
                "status": "done",
                "outputs": {},
                "error": None,
                "wall_seconds": 0.1,
            }
        )
        assert a.claim("k", stale_after=60.0) == "done"


def test_setup_seconds_are_stored_apart_from_the_task_time(tmp_path):
    db = tmp_path / "s.db"
    with ResultStore(db) as store:
        store.write(
            {
                "key": "k",
                "sweep": "s",
                "kind": "vcsched",
                "instance": "i",
                "method": "mcb8",
                "params": {},
                "seed": None,
                "ok": True,
                "status": "feasible",
                "outputs": {"setup_seconds": 4.0},
                "error": None,
                "wall_seconds": 4.25,
            }
        )
    [row] = read_rows(db)
    assert row["setup_seconds"] == 4.0 and row["seconds"] == pytest.approx(0.25)
    assert row["wall_seconds"] == 4.25


def test_the_store_carries_its_schema_marker(tmp_path):
    db = tmp_path / "s.db"
    ResultStore(db).close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == STORE_APPLICATION_ID
        assert conn.execute("PRAGMA user_version").fetchone()[0] == STORE_VERSION
    assert check_store(db) == "store"


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda p: p.write_bytes(b"not sqlite at all" * 10), r"not an SQLite file"),
        (lambda p: p.mkdir(), r"is a folder"),
        (lambda p: _sqlite(p, "CREATE TABLE people (name TEXT)"), r"tables: people"),
        (lambda p: _sqlite(p, "CREATE TABLE results (key TEXT, colour TEXT)"), r"tables: results"),
        (
            lambda p: _sqlite(p, "PRAGMA application_id = 1095519060; PRAGMA user_version = 99"),
            r"newer allockit",
        ),
    ],
)
def test_foreign_files_are_refused_and_left_alone(tmp_path, make, match):
    path = tmp_path / "x.db"
    make(path)
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(InvalidInputError, match=match):
        ResultStore(path)
    with pytest.raises(InvalidInputError, match=match):
        run_sweep(
            [Task(kind="sleep", instance_id="a", instance={}, method="-")], path, backend="serial"
        )
    if before is not None:
        assert path.read_bytes() == before


def _sqlite(path, script):
    conn = sqlite3.connect(path)
    conn.executescript(script)
    conn.commit()
    conn.close()


def test_a_store_of_before_the_marker_is_read_and_upgraded(tmp_path):
    db = tmp_path / "old.db"
    legacy = (
        "key TEXT PRIMARY KEY, sweep TEXT NOT NULL, kind TEXT NOT NULL, instance TEXT "
        "NOT NULL, method TEXT NOT NULL, params TEXT NOT NULL, seed INTEGER, ok INTEGER "
        "NOT NULL, status TEXT, outputs TEXT NOT NULL, error TEXT, wall_seconds REAL NOT "
        "NULL, finished_at REAL NOT NULL, host TEXT NOT NULL, allockit_version TEXT NOT "
        "NULL, solver_versions TEXT NOT NULL"
    )
    _sqlite(
        db,
        f"CREATE TABLE results ({legacy}); INSERT INTO results VALUES ('k', 's', "
        "'sleep', 'i', '-', '{}', NULL, 1, 'done', '{}', NULL, 0.5, 0, 'h', '0', '{}')",
    )
    assert check_store(db) == "legacy"
    assert read_rows(db)[0]["seconds"] == 0.5
    summary = run_sweep(
        [Task(kind="sleep", instance_id="j", instance={}, method="-")], db, backend="serial"
    )
    assert summary.ran == 1 and check_store(db) == "store" and len(read_rows(db)) == 2


def test_run_local_starts_no_worker_without_tasks(monkeypatch):
    from allockit.runner import backends

    started = []
    monkeypatch.setattr(backends, "_Worker", lambda: started.append(1))
    backends.run_local([], print, workers=4, grace=5.0)
    assert started == []


@pytest.mark.third_party_rng
def test_unreachable_dask_scheduler_is_a_clear_error_within_the_timeout(tmp_path):
    pytest.importorskip("distributed")
    start = time.perf_counter()
    with pytest.raises(InvalidInputError, match=r"scheduler 'tcp://127.0.0.1:9' did not answer"):
        run_sweep(
            [Task(kind="sleep", instance_id="a", instance={}, method="-")],
            tmp_path / "s.db",
            backend="dask",
            scheduler="tcp://127.0.0.1:9",
            connect_timeout=1.0,
        )
    assert time.perf_counter() - start < 15


def test_the_pid_of_a_writer_is_in_its_owner_name(tmp_path):
    with ResultStore(tmp_path / "s.db") as store:
        assert f":{os.getpid()}:" in store.owner
