"""Is ``--time-limit`` kept? Wall time of every VCSched solver method against its limit.

For each instance size (64 hosts; the paper's large-set job counts and a
100,000-job instance) and each method, one call of ``allockit.vcsched.solve`` with the
given limit, after the numba kernels are warm (one-time costs are reported apart, as
``setup_seconds``). The rule (issue 18, item 3): wall <= limit + max(1 s, 10 %).

    python benchmarks/bench_limits.py --jobs 100,250,500 --limit 3
    python benchmarks/bench_limits.py --jobs 100000 --limit 10
"""

from __future__ import annotations

import argparse
import time

from allockit.instances.generators import generate_vcsched
from allockit.vcsched import solve

METHODS = ("lp", "milp", "milp-paper", "cpsat", "best")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="100,250,500")
    parser.add_argument("--limit", type=float, default=3.0)
    parser.add_argument("--methods", default=",".join(METHODS))
    args = parser.parse_args()
    warm = generate_vcsched(hosts=8, jobs=30, slack=0.5, cov_cpu=0.25, cov_mem=0.25, seed=0)
    solve(warm, "best", time_limit=1)  # warm the kernels and imports (one-time costs)
    solve(warm, "cpsat", time_limit=1)
    print("| jobs | method | limit s | wall s | allowed s | kept | status | gap |")
    print("|---|---|---|---|---|---|---|---|")
    for jobs in (int(j) for j in args.jobs.split(",")):
        inst = generate_vcsched(hosts=64, jobs=jobs, slack=0.5, cov_cpu=0.25, cov_mem=0.25, seed=1)
        for method in args.methods.split(","):
            start = time.perf_counter()
            r = solve(inst, method, time_limit=args.limit, threads=1)
            wall = time.perf_counter() - start
            allowed = args.limit + max(1.0, 0.1 * args.limit)
            gap = "-" if r.gap is None else f"{100 * r.gap:.3f} %"
            print(
                f"| {jobs} | {method} | {args.limit:g} | {wall:.2f} | {allowed:.1f} | "
                f"{'yes' if wall <= allowed else 'NO'} | {r.status} | {gap} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
