"""Runner overhead per backend on trivial tasks, and the local pool's speed-up.

    python benchmarks/bench_runner.py [--tasks 200] [--spin 3000000]

Prints tasks per second for serial, local (2 workers) and dask (a LocalCluster with 2
worker processes on loopback) on no-op tasks, then the wall time of a CPU-bound sweep
(8 tasks) serially and on the local pool, and their ratio, all in this one process.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from allockit.runner import Task, run_sweep


def _grid(kind: str, n: int, **params) -> list[Task]:
    return [
        Task(kind=kind, instance_id=str(k), instance={}, method="-", params=params)
        for k in range(n)
    ]


def _timed(tasks, backend, tmp, **kw) -> float:
    db = Path(tmp) / f"{backend}-{time.perf_counter_ns()}.db"
    start = time.perf_counter()
    summary = run_sweep(tasks, db, backend=backend, progress=False, **kw)
    assert summary.failed == 0 and summary.ran == len(tasks)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--spin", type=int, default=3_000_000)
    args = parser.parse_args()
    trivial = _grid("sleep", args.tasks, seconds=0.0)
    with tempfile.TemporaryDirectory() as tmp:
        rows = [
            ("serial", _timed(trivial, "serial", tmp)),
            ("local x2", _timed(trivial, "local", tmp, workers=2)),
        ]
        try:
            from distributed import LocalCluster

            with LocalCluster(
                n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
            ) as cluster:
                rows.append(
                    ("dask x2", _timed(trivial, "dask", tmp, scheduler=cluster.scheduler_address))
                )
        except ImportError:
            print("dask backend skipped: pip install 'allockit[dask]'")
        print(f"trivial tasks ({args.tasks}):")
        print(f"  {'backend':<9} {'seconds':>8} {'tasks/s':>8} {'ms/task':>8}")
        for name, secs in rows:
            print(
                f"  {name:<9} {secs:>8.2f} {args.tasks / secs:>8.0f} "
                f"{1000 * secs / args.tasks:>8.2f}"
            )
        cpu = _grid("spin", 8, iterations=args.spin)
        serial = _timed(cpu, "serial", tmp)
        local = _timed(cpu, "local", tmp, workers=2)
        print(
            f"CPU-bound (8 x {args.spin} iterations): serial {serial:.2f} s, "
            f"local x2 {local:.2f} s, speed-up {serial / local:.2f}x"
        )


if __name__ == "__main__":
    main()
