"""Faults in a distributed sweep on a Dask LocalCluster: what happens, measured.

Runs the scenarios of ``tests/runner/test_dask_faults.py`` once each and prints one
Markdown row per fault: what the sweep did, the rows in the store, how often the
victim task ran, and the seconds from the fault to the end of the sweep.

    python benchmarks/dask_faults.py
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from allockit.runner import read_rows  # noqa: E402
from tests.runner import test_dask_faults as t  # noqa: E402  (the scenarios' helpers)


def _rows(db: Path) -> tuple[int, int, int]:
    rows = read_rows(db) if db.exists() else []
    keys = [r["key"] for r in rows]
    return len(rows), len(set(keys)), sum(not r["ok"] for r in rows)


def worker_killed(folder: Path, address: str) -> dict:
    db, marks, n = folder / "w.db", folder / "w.txt", 4
    sweep = t._sweep(db, address, marks, n, pause=0.2, first=4.0)
    task, pid = t._wait_for(lambda: t._marks(marks))[0]
    os.kill(pid, signal.SIGKILL)
    fault = time.monotonic()
    code, _out, _err = t._finish(sweep)
    rows, keys, failed = _rows(db)
    runs = [m for m, _ in t._marks(marks)].count(task)
    return dict(fault="a worker process SIGKILLed mid-task", exit=code, rows=rows, keys=keys,
                failed=failed, victim_runs=runs, seconds=time.monotonic() - fault,
                outcome="the task ran again on the other worker")


def task_kills_workers(folder: Path, address: str) -> dict:
    db, marks = folder / "c.db", folder / "c.txt"
    started = time.monotonic()
    code, _out, _err = t._finish(t._sweep(db, address, marks, 1, kind="crash"))
    rows, keys, failed = _rows(db)
    error = read_rows(db)[0]["error"].split("(")[0] if rows else ""
    return dict(fault="a task that kills every worker it runs on", exit=code, rows=rows,
                keys=keys, failed=failed, victim_runs="2 (allowed-failures 1)",
                seconds=time.monotonic() - started, outcome=f"failed row: {error}")


def time_limit(folder: Path) -> dict:
    with t.distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                    host="127.0.0.1", dashboard_address=":0") as one:
        db, marks, n = folder / "t.db", folder / "t.txt", 3
        started = time.monotonic()
        code, _out, _err = t._finish(t._slow_first(db, one.scheduler_address, marks, n))
    rows, keys, failed = _rows(db)
    status = {r["instance"]: r["status"] for r in read_rows(db)}
    alive = [pid for _task, pid in t._marks(marks) if t._alive(pid)]
    return dict(fault="a task past its 1 s limit (it wants 120 s), one worker", exit=code,
                rows=rows, keys=keys, failed=failed, victim_runs=1,
                seconds=time.monotonic() - started,
                outcome=f"t0 {status.get('t0')}, t1 and t2 done after it; "
                f"{len(alive)} task process left")


def scheduler_killed(folder: Path) -> dict:
    db = folder / "measy.db"
    helper, address = t._start_cluster(1)
    try:
        run = t._cli([*t.MEASY, "--scheduler", address, "--store", str(db)])
        t._wait_for(lambda: db.exists() and len(read_rows(db)) >= 1, timeout=300, step=0.3)
        helper.send_signal(signal.SIGKILL)
        helper.wait()
        fault = time.monotonic()
        code, _out, err = t._finish(run, timeout=300)
        stopped = time.monotonic() - fault
    finally:
        t._stop(helper)
    before = _rows(db)
    helper, address = t._start_cluster(2)
    try:
        code2, out2, _ = t._finish(t._cli([*t.MEASY, "--scheduler", address, "--store",
                                           str(db)]), timeout=600)
    finally:
        t._stop(helper)
    sweep = json.loads(out2)["sweep"] if code2 == 0 else {}
    rows, keys, failed = _rows(db)
    return dict(fault="the scheduler SIGKILLed mid-sweep, then the command run again",
                exit=f"{code}, then {code2}", rows=rows, keys=keys, failed=failed,
                victim_runs="-", seconds=stopped,
                outcome=f"stopped with one line ({len(err.strip().splitlines())}); "
                f"{before[0]} rows kept; rerun: skipped {sweep.get('skipped')}, ran "
                f"{sweep.get('ran')} of {sweep.get('total')}")


def two_sweeps(folder: Path, address: str) -> dict:
    db, marks, n = folder / "two.db", folder / "two.txt", 12
    started = time.monotonic()
    procs = [t._sweep(db, address, marks, n, pause=0.3) for _ in range(2)]
    outs = [json.loads(t._finish(p)[1]) for p in procs]
    rows, keys, failed = _rows(db)
    ran = sorted(m for m, _ in t._marks(marks))
    return dict(fault="two sweeps of one store from two processes", exit="0, 0", rows=rows,
                keys=keys, failed=failed, victim_runs=f"each task {len(ran) // n}x",
                seconds=time.monotonic() - started,
                outcome=f"ran {outs[0]['ran']} + {outs[1]['ran']} of {n}")


def main() -> None:
    import dask

    folder = Path(tempfile.mkdtemp(prefix="allockit-dask-faults-"))
    results = []
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 1}),
        t.distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=":0") as cluster,
    ):
        results.append(worker_killed(folder, cluster.scheduler_address))
        results.append(task_kills_workers(folder, cluster.scheduler_address))
        results.append(two_sweeps(folder, cluster.scheduler_address))
    results.append(time_limit(folder))
    results.append(scheduler_killed(folder))
    print("| fault | exit | rows (distinct keys) | failed rows | runs of the task | s | "
          "what happened |")
    print("|---|---|---:|---:|---|---:|---|")
    for r in results:
        print(f"| {r['fault']} | {r['exit']} | {r['rows']} ({r['keys']}) | {r['failed']} | "
              f"{r['victim_runs']} | {r['seconds']:.1f} | {r['outcome']} |")


if __name__ == "__main__":
    main()
