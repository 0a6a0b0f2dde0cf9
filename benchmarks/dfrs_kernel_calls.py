"""Calls and seconds of every compiled kernel the DFRS simulator calls from Python.

    python benchmarks/dfrs_kernel_calls.py --whole
    python benchmarks/dfrs_kernel_calls.py --first 20000

Runs the algorithm of ``bench_dfrs_stretch.py`` (GreedyPM */per/opt=min/minvt=600) with
every public ``*_kernel`` of ``dfrs_kernels``, ``dfrs_event_kernels`` and
``allocation_kernels`` wrapped by a timer (kernels that other kernels call run inside
their caller and are not counted apart). Prints the run's wall time, then per kernel
its calls, seconds and microseconds per call, largest first. The rest of the wall time
is the simulator's Python (and the wrappers' own cost, a fraction of a microsecond per
call). The schedule is unchanged.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.dirname(__file__))
from dfrs_thrashing import BEST, _workload, first_jobs, stretch_arguments


def timed_run(weeks: str | None, first: int | None) -> tuple[float, dict[str, list]]:
    """The run's wall seconds and ``{kernel: [calls, seconds]}``."""
    from allockit.simulation import allocation_kernels, dfrs_event_kernels, dfrs_kernels
    from allockit.simulation.dfrs import simulate_dfrs

    workload = _workload(weeks)
    if first is not None:  # (the first jobs of the whole trace)
        workload = first_jobs(workload, first)
    simulate_dfrs(_workload("0-0"), BEST)  # (loads the kernels)
    stats: dict[str, list] = defaultdict(lambda: [0, 0.0])
    saved = []

    def wrapped(kernel, tally):
        def call(*args):
            began = time.perf_counter()
            out = kernel(*args)
            tally[1] += time.perf_counter() - began
            tally[0] += 1
            return out

        return call

    for module in (dfrs_kernels, dfrs_event_kernels, allocation_kernels):
        for name in dir(module):
            if name.endswith("_kernel") and not name.startswith("_"):
                saved.append((module, name, getattr(module, name)))
                setattr(module, name, wrapped(getattr(module, name), stats[name]))
    try:
        began = time.perf_counter()
        simulate_dfrs(workload, BEST)
        wall = time.perf_counter() - began
    finally:
        for module, name, kernel in saved:
            setattr(module, name, kernel)
    return wall, {name: tally for name, tally in stats.items() if tally[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = stretch_arguments(parser)
    where.add_argument("--first", type=int, metavar="K", help="the first K jobs of the trace")
    args = parser.parse_args()
    wall, stats = timed_run(None if args.whole or args.first else args.weeks, args.first)
    inside = sum(seconds for _, seconds in stats.values())
    print(f"run {wall:.1f} s, of which in kernels {inside:.1f} s ({100 * inside / wall:.0f} %)")
    for name, (calls, seconds) in sorted(stats.items(), key=lambda kv: -kv[1][1]):
        print(f"{name:28} {calls:9,} calls {seconds:8.1f} s {1e6 * seconds / calls:8.1f} us/call")


if __name__ == "__main__":
    main()
