"""Li and Parker's Figs 4, 5 and 7 with measurement noise and report jitter.

    python benchmarks/reserves_noise.py [--noise 0,2,5,10,20] [--jitter 0,0.3] [--seeds 3]
        [--figures fig4,fig5,fig7] [--duration 60]

allockit's nodes are ideal fluid servers, so the class-3 share's standard deviation is
10-20x smaller than the paper's ns-2 runs (Fig. 4: 0.24 against 2.8 %; Fig. 5: 0.03
against 0.58 %). This sweeps ``ClusterSimConfig.measure_noise`` (s.d. of a normal error
on every reported usage, percentage points) and ``report_jitter`` (each report message
takes the delay plus U(0, J) s) with the bank algorithm, and prints per figure and
level the class-3 mean share and s.d. over time (each the mean over seeds 0..k-1, as
section 10 of RESULTS), beside the paper's.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

PAPER = {"fig4": (10.5, 2.8), "fig5": (8.9, 0.58), "fig7": (None, None)}


def main() -> None:
    from allockit.simulation.cluster import simulate_cluster
    from allockit.simulation.cluster_scenarios import scenario

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--noise", default="0,2,5,10,20")
    parser.add_argument("--jitter", default="0,0.3")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--figures", default="fig4,fig5,fig7")
    parser.add_argument("--duration", type=float, default=60.0)
    args = parser.parse_args()
    noises = [float(x) for x in args.noise.split(",")]
    jitters = [float(x) for x in args.jitter.split(",")]
    print("| figure | noise (pp) | jitter (s) | class 1 / 2 / 3 mean (%) | class 3 s.d. | "
          "paper class 3 mean, s.d. | s |")
    print("|---|---:|---:|---|---:|---|---:|", flush=True)
    for fig in args.figures.split(","):
        for noise in noises:
            for jitter in jitters:
                started = time.perf_counter()
                means, stds = [], []
                for seed in range(args.seeds):
                    config = scenario(fig, duration=args.duration, measure_noise=noise,
                                      report_jitter=jitter)
                    result = simulate_cluster(config, seed=seed)
                    means.append(result.mean)
                    stds.append(result.std)
                mean, std = np.mean(means, axis=0), np.mean(stds, axis=0)
                paper = PAPER.get(fig, (None, None))
                ref = "–" if paper[0] is None else f"{paper[0]}, {paper[1]}"
                print(f"| {fig} | {noise:g} | {jitter:g} | "
                      f"{mean[0]:.2f} / {mean[1]:.2f} / {mean[2]:.2f} | {std[2]:.2f} | {ref} | "
                      f"{time.perf_counter() - started:.0f} |", flush=True)


if __name__ == "__main__":
    main()
