"""Time the best DFRS algorithm on an HPC2N stretch and fingerprint its schedule.

    python benchmarks/bench_dfrs_stretch.py --weeks 100-109 [--repeat 2] [--save FILE.npz]
    python benchmarks/bench_dfrs_stretch.py --whole --save whole.npz
    python benchmarks/bench_dfrs_stretch.py --first 20000
    python benchmarks/bench_dfrs_stretch.py --compare a.npz b.npz

Simulates GreedyPM */per/opt=min/minvt=600 (penalty 300 s, period 600 s: the paper's
defaults) on the converted HPC2N weeks A..B joined (as ``dfrs_thrashing.py``) or on the
whole trace (or on its first K jobs, ``--first K``: in the first 20,000 a backlog of
1,000-2,000 jobs builds, a smaller one than the whole trace's, in a tenth of its time),
after one tiny run that loads the compiled kernels (reported apart as ``setup``).
Prints the wall and CPU seconds of each run and an md5 fingerprint of the per-job
start, end, preemption and migration arrays: two versions of the simulator give the
same schedule when the fingerprints agree. ``--save`` keeps those arrays;
``--compare`` reports how two saved runs differ.

To time two versions of the code in turns on one machine, run the script under each
(e.g. ``PYTHONPATH=/path/to/old/package python benchmarks/bench_dfrs_stretch.py ...``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from dfrs_thrashing import BEST, _workload, first_jobs, stretch_arguments

FIELDS = ("start", "end", "job_preemptions", "job_migrations")


def fingerprint(arrays: dict[str, np.ndarray]) -> str:
    """md5 of the per-job arrays of a run, in ``FIELDS`` order."""
    digest = hashlib.md5()
    for name in FIELDS:
        digest.update(np.ascontiguousarray(arrays[name]).tobytes())
    return digest.hexdigest()


def run(weeks: str | None, save: str | None, first: int | None = None) -> None:
    from allockit.simulation.dfrs import simulate_dfrs

    workload = _workload(weeks)
    if first is not None:  # (the first jobs of the whole trace)
        workload = first_jobs(workload, first)
    started = time.perf_counter()
    simulate_dfrs(_workload("0-0"), BEST)
    setup = time.perf_counter() - started
    wall, cpu = time.perf_counter(), time.process_time()
    result = simulate_dfrs(workload, BEST)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    arrays = {name: np.asarray(getattr(result, name)) for name in FIELDS}
    if save:
        np.savez(save, **arrays)
    s = result.summary()
    print(
        f"{_label(weeks, first):>9} jobs {s['jobs']:,} wall {wall:8.1f} s "
        f"cpu {cpu:8.1f} s setup {setup:5.2f} s underutil {s['underutilization']:.4f} "
        f"preempt/job {s['preemptions_per_job']:.2f} md5 {fingerprint(arrays)}",
        flush=True,
    )


def _label(weeks: str | None, first: int | None) -> str:
    if first is not None:
        return f"first {first}"
    return "whole" if weeks is None else weeks


def compare(first: str, second: str) -> None:
    a, b = np.load(first), np.load(second)
    for name in FIELDS:
        missing = [path for path, f in ((first, a), (second, b)) if name not in f.files]
        if missing:
            print(f"{name:16} not saved in {', '.join(missing)}")
            continue
        x, y = a[name], b[name]
        same = np.array_equal(x, y, equal_nan=True) if x.dtype.kind == "f" else np.array_equal(x, y)
        print(f"{name:16} {'identical' if same else 'DIFFERENT'}"
              + ("" if same else f" ({int((x != y).sum())} jobs)"))
    if all(name in f.files for f in (a, b) for name in FIELDS):
        print("md5", fingerprint(a), fingerprint(b))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = stretch_arguments(parser)
    where.add_argument("--compare", nargs=2, metavar="NPZ", help="two saved runs")
    where.add_argument("--first", type=int, metavar="K", help="the first K jobs of the trace")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--save", help="keep the per-job arrays of the (last) run here")
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare)
        return
    for _ in range(args.repeat):
        run(None if args.whole or args.first else args.weeks, args.save, args.first)


if __name__ == "__main__":
    main()
