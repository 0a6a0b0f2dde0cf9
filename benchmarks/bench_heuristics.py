"""Per-call time of the fast VCSched heuristics and their speed-up over the plain-Python oracles.

    python benchmarks/bench_heuristics.py [--repeats 30]

H = 64 hosts, J = 100, 250, 500 jobs (slack 0.5, cov 0.25/0.25, seed 1). For each
heuristic: median time of the full call (placement, exact scoring, average-yield phase),
and the median time of the plain-Python reference (tests/reference_heuristics.py) for the
same placement, measured in the same process; the ratio is the speed-up. Run from the
repository root.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from allockit.heuristics.greedy import greedy
from allockit.heuristics.mcb import mcb
from allockit.instances.generators import generate_vcsched
from tests.reference_heuristics import reference_greedy, reference_mcb


def _median(fn, repeats: int) -> float:
    fn()  # warm-up (numba loads its cache here)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    cases = {
        "GR": (lambda i: greedy(i), lambda i: reference_greedy(i)),
        "SG": (
            lambda i: greedy(i, sort_by_memory=True),
            lambda i: reference_greedy(i, sort_by_memory=True),
        ),
        "MCB8": (lambda i: mcb(i), lambda i: reference_mcb(i)),
    }
    print(
        f"{'algorithm':<9} {'J':>4} {'allockit ms':>12} {'oracle ms':>10} {'speed-up':>9}"
        f"  same placement"
    )
    for jobs in (100, 250, 500):
        inst = generate_vcsched(hosts=64, jobs=jobs, slack=0.5, cov_cpu=0.25, cov_mem=0.25, seed=1)
        for name, (fast, ref) in cases.items():
            t_fast = _median(lambda f=fast, i=inst: f(i), args.repeats)
            t_ref = _median(lambda f=ref, i=inst: f(i), max(3, args.repeats // 10))
            same = fast(inst).task_hosts.tolist() == ref(inst)
            print(
                f"{name:<9} {jobs:>4} {1000 * t_fast:>12.3f} {1000 * t_ref:>10.2f} "
                f"{t_ref / t_fast:>8.1f}x  {same}"
            )


if __name__ == "__main__":
    main()
