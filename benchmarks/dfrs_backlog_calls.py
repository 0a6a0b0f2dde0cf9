"""How long the system's backlog is when the DFRS remap and Greedy's pass run, and their cost.

    python benchmarks/dfrs_backlog_calls.py --whole [--save calls.npz]
    python benchmarks/dfrs_backlog_calls.py --weeks 100-109

Runs the algorithm of ``bench_dfrs_stretch.py`` (GreedyPM */per/opt=min/minvt=600) with
the two compiled calls whose work grows with the number of jobs in the system wrapped:
``greedy_waiting_kernel`` (Greedy's pass over the waiting jobs after a completion) and
``mcb8_remap_kernel`` (the periodic MCB8 remap). For each call it records the jobs in
the system, the waiting ones among them, the jobs the call started or mapped, and its
wall time; then prints percentiles and the time by backlog size. The wrapping adds a
little time to each call; the simulation's schedule is unchanged.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from dfrs_thrashing import BEST, _workload, stretch_arguments

BINS = (0, 100, 300, 1_000, 3_000, 10**9)


def record(weeks: str | None) -> dict[str, np.ndarray]:
    """Per-call rows: waiting kernel (active, waiting, started, s); remap (active, mapped, s)."""
    from allockit.simulation import dfrs_kernels
    from allockit.simulation.dfrs import simulate_dfrs

    simulate_dfrs(_workload("0-0"), BEST)  # (loads the kernels)
    rows: dict[str, list] = {"waiting": [], "remap": []}
    waiting, remap = dfrs_kernels.greedy_waiting_kernel, dfrs_kernels.mcb8_remap_kernel

    def waiting_pass(*args):
        began = time.perf_counter()
        out = waiting(*args)
        seconds = time.perf_counter() - began
        active, active_status = args[0], args[3]  # (DfrsState.active_view's order)
        rows["waiting"].append(
            (active.size, int((active_status == 1).sum()), out[0].size, seconds)
        )
        return out

    def remap_call(*args):
        began = time.perf_counter()
        out = remap(*args)
        rows["remap"].append((args[0].size, out[0].size, time.perf_counter() - began))
        return out

    dfrs_kernels.greedy_waiting_kernel = waiting_pass
    dfrs_kernels.mcb8_remap_kernel = remap_call
    try:
        simulate_dfrs(_workload(weeks), BEST)
    finally:
        dfrs_kernels.greedy_waiting_kernel, dfrs_kernels.mcb8_remap_kernel = waiting, remap
    return {name: np.array(r, dtype=float).reshape(-1, 4 if name == "waiting" else 3)
            for name, r in rows.items()}


def report(calls: dict[str, np.ndarray]) -> None:
    for name, table in calls.items():
        if not table.size:
            print(f"{name}: no calls")
            continue
        active, seconds = table[:, 0], table[:, -1]
        print(f"{name}: {len(table):,} calls, {seconds.sum():.1f} s, "
              f"{seconds.mean() * 1e6:.0f} us per call")
        print(f"  jobs in the system, percentiles 50/90/99/100: "
              f"{np.percentile(active, [50, 90, 99, 100]).round().astype(int).tolist()}")
        if name == "waiting":
            print(f"  waiting jobs, percentiles 50/90/99/100: "
                  f"{np.percentile(table[:, 1], [50, 90, 99, 100]).round().astype(int).tolist()}"
                  f"; jobs started per call, mean {table[:, 2].mean():.1f}")
        for lo, hi in itertools.pairwise(BINS):
            inside = (active >= lo) & (active < hi)
            if inside.any():
                print(f"  {lo:>6}-{'' if hi == BINS[-1] else hi:<6} jobs: "
                      f"{int(inside.sum()):>7,} calls {seconds[inside].sum():7.1f} s "
                      f"{seconds[inside].mean() * 1e6:6.0f} us per call")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    stretch_arguments(parser)
    parser.add_argument("--save", help="keep the per-call rows (.npz)")
    args = parser.parse_args()
    calls = record(None if args.whole else args.weeks)
    if args.save:
        np.savez(args.save, **calls)
    report(calls)


if __name__ == "__main__":
    main()
