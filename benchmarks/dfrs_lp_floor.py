"""How much of Table 5's simulations is HiGHS solving the LPs that define the schedules.

    python benchmarks/dfrs_lp_floor.py --week 120 [--algorithms 'A;B'] [--repeats] [--memo]

Runs each algorithm of the paper's Table 5 (or those named) on one HPC2N week, as
``bench_dfrs_weeks.py run`` does (penalty 300 s, period 600 s, one warm-up run per
algorithm first), with the simulator's HiGHS instance (``thread_highs``) wrapped so
that the CPU seconds of each ``run()`` call are added up. It prints, per algorithm, the
CPU seconds of the simulation, those inside HiGHS's ``run()``, the number of solves
and the schedule's fingerprint; then a total. The opt=avg and ``/stretch-per/opt=avg``
yields are the vertices HiGHS returns for these LPs, so a faster simulator giving the
same schedules still spends that time on the LPs it solves: it is the floor of a
week's time when every LP is solved. The process's LP memo
(``allockit.evaluation.answer_memo``) is off unless ``--memo``: with it, an LP met
before in the week (in this run or an earlier variant's) is not solved again, and the
floor is that of the LPs still solved.

``--repeats`` also counts, per algorithm, the opt=avg LPs (``max_sum_yields``) whose
inputs repeat an earlier one of the same run exactly.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from bench_dfrs_weeks import TRACE, _options, fingerprint, table5_algorithms


class _TimedHighs:
    """A HiGHS instance whose ``run()`` adds its CPU seconds to ``seconds``."""

    def __init__(self, highs) -> None:
        self.highs = highs
        self.seconds = 0.0
        self.solves = 0

    def __getattr__(self, name):  # every other method: HiGHS's own
        return getattr(self.highs, name)

    def run(self):
        started = time.process_time()
        status = self.highs.run()
        self.seconds += time.process_time() - started
        self.solves += 1
        return status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--week", type=int, default=120)
    parser.add_argument("--algorithms", help="';'-separated names (default: all of Table 5)")
    parser.add_argument("--repeats", action="store_true")
    parser.add_argument("--memo", action="store_true", help="keep the LP memo on")
    parser.add_argument("--trace", default=TRACE)
    args = parser.parse_args()

    import allockit.evaluation.placement as placement
    from allockit.evaluation.answer_memo import set_memo_max_bytes
    from allockit.instances.hpc2n import hpc2n_workload, split_weeks
    from allockit.instances.swf import read_swf
    from allockit.simulation.simulate import simulate

    if not args.memo:
        set_memo_max_bytes(0)
    timed = _TimedHighs(placement.thread_highs())
    placement.thread_highs = lambda: timed  # the simulator's LPs look it up at each call
    inputs: collections.Counter = collections.Counter()
    if args.repeats:
        solve = placement.max_sum_yields_sparse

        def counted(jobs, hosts, values, n_jobs, n_hosts, floor):
            digest = hashlib.md5(repr((n_jobs, n_hosts, floor)).encode())
            for array in (jobs, hosts, values):
                digest.update(array.tobytes())
            inputs[digest.hexdigest()] += 1
            return solve(jobs, hosts, values, n_jobs, n_hosts, floor)

        placement.max_sum_yields_sparse = counted

    names = args.algorithms.split(";") if args.algorithms else table5_algorithms()
    workload = split_weeks(hpc2n_workload(read_swf(args.trace)))[args.week]
    tiny = type(workload).from_jobs(
        workload.platform, submit=[0, 0, 10], runtime=[100, 50, 30], tasks=[1, 2, 1],
        cpu=[1.0, 1.0, 1.0], mem=[0.3, 0.6, 0.2],
    )
    for name in names:  # load every kernel before the clock starts
        simulate(tiny, name, **_options(name))
    total = in_highs = 0.0
    for name in names:
        timed.seconds, timed.solves = 0.0, 0
        inputs.clear()
        cpu = time.process_time()
        result = simulate(workload, name, **_options(name))
        cpu = time.process_time() - cpu
        total += cpu
        in_highs += timed.seconds
        extra = ""
        if args.repeats:
            lps = sum(inputs.values())
            extra = f"  max_sum_yields {lps:6d} repeats {lps - len(inputs):5d}"
        print(f"w{args.week:03d} {name:40} {cpu:7.3f} s  highs {timed.seconds:7.3f} s  "
              f"solves {timed.solves:6d}{extra}  {fingerprint(result)}", flush=True)
    print(f"total {total:.1f} s, in HiGHS run() {in_highs:.1f} s ({in_highs / total:.0%})")
    if args.memo:
        from allockit.evaluation.answer_memo import memo_stats

        for memo_name, stats in memo_stats().items():
            print(f"memo {memo_name}: {stats['hits']} hits, {stats['misses']} misses")


if __name__ == "__main__":
    main()
