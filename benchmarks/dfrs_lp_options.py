"""Would other HiGHS options solve a week's DFRS LPs faster, with the same answers?

    python benchmarks/dfrs_lp_options.py --week 120 [--algorithms 'A;B'] [--save F.pkl]
    python benchmarks/dfrs_lp_options.py --load F.pkl

Records the LPs that define the opt=avg and ``/stretch-per/opt=avg`` schedules of the
named algorithms on one HPC2N week (each LP the simulator solves, that is every one not
already in the process's memo: ``max_sum_yields`` and ``min_avg_stretch``'s cutting
planes), then solves them all again on the thread's HiGHS instance with HiGHS's default
options and with each of a few others, and prints, per family and option set, the seconds
against the default's (run before and after, averaged), how many answers are the same
bits as the default's, and how many reach the same objective (relative 1e-9: the sum
of the yields; the sum of the stretch estimates). The schedules are the same only if
every answer is the same bits: a faster option that changes some of them gives other
schedules (another optimal vertex, or another cutting-plane path).
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

DEFAULT_ALGORITHMS = "GreedyPM */per/opt=avg;MCB8 */per/opt=avg;/stretch-per/opt=avg"
#: HiGHS options tried against the default (each set alone, then the defaults again).
OPTION_SETS = (
    {"presolve": "off"},
    {"simplex_strategy": 4},  # primal simplex
    {"simplex_scale_strategy": 0},  # no scaling
)


def record(week: int, algorithms: list[str], trace: str) -> dict[str, list[tuple]]:
    """The arguments of every LP solve of the algorithms' runs on ``week``, by family."""
    from allockit.evaluation import placement
    from allockit.instances.hpc2n import hpc2n_workload, split_weeks
    from allockit.instances.swf import read_swf
    from allockit.simulation import allocation
    from allockit.simulation.dfrs import simulate_dfrs

    lps: dict[str, list[tuple]] = {"max_sum_yields": [], "min_avg_stretch": []}
    solve_avg, solve_stretch = placement._solve_max_sum_yields, allocation._solve_min_avg_stretch

    def avg(*args):
        lps["max_sum_yields"].append(args)
        return solve_avg(*args)

    def stretch(*args):
        lps["min_avg_stretch"].append(args)
        return solve_stretch(*args)

    workload = split_weeks(hpc2n_workload(read_swf(trace)))[week]
    placement._solve_max_sum_yields, allocation._solve_min_avg_stretch = avg, stretch
    try:
        for name in algorithms:
            simulate_dfrs(workload, name)
    finally:
        placement._solve_max_sum_yields = solve_avg
        allocation._solve_min_avg_stretch = solve_stretch
    return lps


def _objective(family: str, args: tuple, y: np.ndarray) -> float:
    if family == "max_sum_yields":
        return float(y.sum())
    a, b = args[4], args[5]
    return float((1.0 / (a + b * y)).sum())


def replay(family: str, lps: list[tuple], options: dict) -> tuple[float, list[np.ndarray]]:
    """Solve ``lps`` again with ``options`` set on the thread's HiGHS (reset after)."""
    from allockit.evaluation import placement
    from allockit.simulation import allocation

    solve = (
        placement._solve_max_sum_yields if family == "max_sum_yields"
        else allocation._solve_min_avg_stretch
    )
    h = placement.thread_highs()
    before = {key: h.getOptionValue(key)[1] for key in options}
    for key, value in options.items():
        h.setOptionValue(key, value)
    try:
        started = time.process_time()
        answers = [solve(*args) for args in lps]
        return time.process_time() - started, answers
    finally:
        for key, value in before.items():  # (thread_highs's settings again)
            h.setOptionValue(key, value)


def compare(lps: dict[str, list[tuple]]) -> None:
    """Print the table of ``replay`` timings and answers against the defaults."""
    print(f"{'family':16} {'options':34} {'LPs':>6} {'s':>7} {'ratio':>6} "
          f"{'same bits':>10} {'same obj.':>10}")
    for family, calls in lps.items():
        if not calls:
            continue
        first, base = replay(family, calls, {})
        for options in OPTION_SETS:
            seconds, answers = replay(family, calls, options)
            again, _ = replay(family, calls, {})
            reference = 0.5 * (first + again)
            same = sum(np.array_equal(x, y) for x, y in zip(base, answers, strict=True))
            objective = 0
            for args, x, y in zip(calls, base, answers, strict=True):
                before, after = _objective(family, args, x), _objective(family, args, y)
                objective += abs(after - before) <= 1e-9 * max(1.0, abs(before))
            label = ", ".join(f"{k}={v}" for k, v in options.items())
            print(f"{family:16} {label:34} {len(calls):6d} {seconds:7.2f} "
                  f"{reference / seconds:5.2f}x {same:10d} {objective:10d}", flush=True)
            first = again
        print(f"{family:16} {'(defaults)':34} {len(calls):6d} {first:7.2f}")


def main() -> None:
    from bench_dfrs_weeks import TRACE

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--week", type=int, default=120)
    parser.add_argument("--algorithms", default=DEFAULT_ALGORITHMS,
                        help="';'-separated names (default: %(default)s)")
    parser.add_argument("--trace", default=TRACE)
    parser.add_argument("--save", help="keep the recorded LPs in this pickle")
    parser.add_argument("--load", help="replay the LPs of this pickle (no simulation)")
    args = parser.parse_args()
    if args.load:
        with open(args.load, "rb") as f:
            lps = pickle.load(f)
    else:
        lps = record(args.week, [a.strip() for a in args.algorithms.split(";")], args.trace)
        if args.save:
            with open(args.save, "wb") as f:
                pickle.dump(lps, f)
    compare(lps)


if __name__ == "__main__":
    main()
