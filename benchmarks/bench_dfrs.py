"""Speed of the DFRS simulator and of its MCB8 calls.

    python benchmarks/bench_dfrs.py [--seeds 3] [--loads 0.3,0.7,0.9]

1. The best algorithm (GreedyPM */per/opt=min/minvt=600) and a few others over 1,000-job
   synthetic traces on 128 nodes, with EASY on the same trace in the same process as the
   baseline (the ratio is what to compare across machines).
2. MCB8 calls: ``MCB8 */opt=min`` applies MCB8 at every submission and completion (the
   paper's Sec. 6.2 experiment); every call is timed inside the simulator. Prints the
   share of calls with at most 10 jobs under 1 ms and the time distribution of calls with
   at most 100 jobs.
"""

from __future__ import annotations

import argparse

import numpy as np

from allockit.instances.lublin import dfrs_synthetic
from allockit.simulation.batch import simulate_batch
from allockit.simulation.dfrs import simulate_dfrs

ALGORITHMS = (
    "GreedyPM */per/opt=min/minvt=600",
    "GreedyP */per/opt=min/minvt=600",
    "Greedy */opt=min",
    "MCB8 */per/opt=min/minvt=600",
    "/stretch-per/opt=max/minvt=600",
    "/stretch-per/opt=avg/minvt=600",
    "GreedyPM */per/opt=avg/minvt=600",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--loads", default="0.3,0.7,0.9")
    args = parser.parse_args()
    loads = [float(x) for x in args.loads.split(",")]
    simulate_dfrs(dfrs_synthetic(50, nodes=16, seed=0), "MCB8 */per")  # compile kernels
    print(f"{'algorithm':36} {'load':>4} {'seed':>4} {'s':>6} {'EASY s':>7} {'ratio':>6}")
    worst: dict[str, float] = {}
    for load in loads:
        for seed in range(args.seeds):
            w = dfrs_synthetic(1000, nodes=128, load=load, seed=seed)
            easy = simulate_batch(w, algorithm="easy").seconds
            for name in ALGORITHMS:
                r = simulate_dfrs(w, name)
                worst[name] = max(worst.get(name, 0.0), r.seconds)
                print(
                    f"{name:36} {load:>4} {seed:>4} {r.seconds:>6.2f} {easy:>7.3f} "
                    f"{r.seconds / easy:>6.0f}",
                    flush=True,
                )
    for name, seconds in worst.items():
        print(f"slowest run of {name}: {seconds:.2f} s")
    calls = []
    for load in loads:
        for seed in range(args.seeds):
            w = dfrs_synthetic(1000, nodes=128, load=load, seed=seed)
            calls.append(simulate_dfrs(w, "MCB8 */opt=min").extra["mcb8_calls"])
    stats = np.concatenate(calls)
    jobs, seconds = stats[:, 0], stats[:, 1]
    small = jobs <= 10
    upto = jobs <= 100
    print(
        f"MCB8 calls: {len(jobs)}; {small.mean():.1%} with <= 10 jobs, "
        f"{(seconds[small] < 1e-3).mean():.1%} of those under 1 ms; jobs per call max "
        f"{int(jobs.max())}"
    )
    q = np.percentile(seconds[upto] * 1e3, [50, 90, 99, 100])
    print(
        f"calls with <= 100 jobs: median {q[0]:.2f} ms, p90 {q[1]:.2f} ms, p99 {q[2]:.2f} ms, "
        f"max {q[3]:.2f} ms; mean over all calls {seconds.mean() * 1e3:.2f} ms"
    )


if __name__ == "__main__":
    main()
