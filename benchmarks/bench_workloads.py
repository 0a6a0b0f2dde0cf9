"""Reading the HPC2N trace, and the stretch bound on 1,000-job workloads (exact vs bisection).

    python benchmarks/bench_workloads.py [--traces DIR] [--seeds 3]
        [--unit nodes|cores]

Prints the time to read (and convert) the full HPC2N trace and to run FCFS and EASY over
it (each task on a whole node with ``--unit nodes``, the default of ``simulate_batch``;
``tasks x cpu x cores`` cores per job with ``--unit cores``), then for synthetic DFRS
workloads of 1,000 jobs on 128 nodes at loads 0.3/0.7/0.9: the bound from the exact
breakpoint method and from bisection (relative tolerance 1e-4), their times and LP counts
(``--seeds 0`` skips them).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from allockit.instances.hpc2n import hpc2n_workload, split_weeks
from allockit.instances.lublin import dfrs_synthetic
from allockit.instances.swf import read_swf
from allockit.models.stretch_bound import stretch_bound


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    from allockit.instances.datasets import data_dir

    default = data_dir() / "traces"  # allockit data fetch all
    parser.add_argument("--traces", type=Path, default=default)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument(
        "--unit",
        choices=["nodes", "cores"],
        default="nodes",
        help="what FCFS/EASY give a job: a node per task (default) or cores",
    )
    args = parser.parse_args()
    path = args.traces / "HPC2N-2002-2.2-cln.swf.gz"
    start = time.perf_counter()
    trace = read_swf(path)
    read_s = time.perf_counter() - start
    weeks = split_weeks(hpc2n_workload(trace))
    total = time.perf_counter() - start
    print(
        f"HPC2N: {trace.n_jobs} jobs read in {read_s:.2f} s; converted and split into "
        f"{len(weeks)} weeks in {total:.2f} s in all"
    )
    from allockit.simulation.batch import simulate_batch

    workload = hpc2n_workload(trace)
    for algorithm in ("fcfs", "easy"):
        r = simulate_batch(workload, algorithm=algorithm, unit=args.unit)
        print(
            f"{algorithm.upper()} over the whole HPC2N trace (unit {args.unit}): "
            f"{r.seconds:.2f} s (max stretch {r.max_stretch:.1f}, mean {r.mean_stretch:.2f}, "
            f"normalised underutilisation {r.normalized_underutilization:.3f})"
        )
    print(
        f"{'load':>5} {'seed':>4} {'exact':>10} {'s':>7} {'LPs':>4} {'bisection':>10} "
        f"{'s':>7} {'LPs':>4}"
    )
    for load in (0.3, 0.7, 0.9):
        for seed in range(args.seeds):
            w = dfrs_synthetic(1000, nodes=128, load=load, seed=seed)
            e = stretch_bound(w, method="exact")
            b = stretch_bound(w, method="bisection", tol=1e-4)
            print(
                f"{load:>5} {seed:>4} {e.value:>10.5f} {e.seconds:>7.2f} {e.lps:>4} "
                f"{b.value:>10.5f} {b.seconds:>7.2f} {b.lps:>4}",
                flush=True,
            )


if __name__ == "__main__":
    main()
