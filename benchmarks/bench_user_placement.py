"""What a user's heuristic pays for being scored: its placement vs a built-in's scoring.

    python benchmarks/bench_user_placement.py [--instances 20] [--repeat 5] [--jobs 500]

On instances of the paper's large set (64 hosts, J jobs, slacks 0.1-0.9), MCB8 is run
once to get its placement; then, per instance and repetition, in one process:

- ``mcb8``, ``gr``: ``solve(instance, name)``, a whole built-in heuristic (packing and
  scoring; GR's packing is one greedy pass), one-time kernel loading excluded (warmed
  first);
- ``scoring``: ``result_from_placement(instance, hosts)``, the scoring step every
  built-in heuristic ends with (memory check, the CPU split that maximises the minimum
  yield, the average-yield phase, the LP bound);
- ``user``: ``solve(instance, f)`` where ``f`` returns MCB8's placement as a per-job list
  (the user's own time is ~0): the contract's checks and the same scoring;
- ``user (array)``: the same placement returned as a numpy array of one host per job.

The claim checked: ``user`` costs no more than a built-in heuristic's own scoring plus a
small per-job check, and well under MCB8's call. Medians over all calls, in milliseconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from allockit.evaluation.placement import result_from_placement
from allockit.instances.generators import generate_vcsched
from allockit.results import Status
from allockit.vcsched import solve


def _instances(count: int, jobs: int) -> list:
    slacks = (0.1, 0.3, 0.5, 0.7, 0.9)
    out = []
    seed = 0
    while len(out) < count:
        inst = generate_vcsched(
            hosts=64, jobs=jobs, slack=slacks[seed % len(slacks)], cov_cpu=0.25,
            cov_mem=0.75, seed=seed,
        )
        seed += 1
        placed = solve(inst, "mcb8")
        if placed.task_hosts is not None:  # a placement to score
            out.append((inst, placed.task_hosts.copy()))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=500)
    args = parser.parse_args()
    from allockit.evaluation.answer_memo import set_memo_max_bytes

    set_memo_max_bytes(0)  # time every scoring LP, not a copy of the first repeat's answer
    cases = _instances(args.instances, args.jobs)
    times: dict[str, list[float]] = {
        "mcb8": [], "gr": [], "scoring": [], "user": [], "user (array)": []
    }
    same = True
    for _ in range(args.repeat):
        for inst, hosts in cases:
            as_list = hosts.tolist()

            def user(instance, placement=as_list, **options):
                return placement

            def user_array(instance, placement=hosts, **options):
                return placement

            started = time.perf_counter()
            built = solve(inst, "mcb8")
            times["mcb8"].append(time.perf_counter() - started)
            started = time.perf_counter()
            solve(inst, "gr")
            times["gr"].append(time.perf_counter() - started)
            started = time.perf_counter()
            scored = result_from_placement(inst, hosts, method="x", status=Status.FEASIBLE)
            times["scoring"].append(time.perf_counter() - started)
            started = time.perf_counter()
            mine = solve(inst, user)
            times["user"].append(time.perf_counter() - started)
            started = time.perf_counter()
            solve(inst, user_array)
            times["user (array)"].append(time.perf_counter() - started)
            same &= mine.min_yield == scored.min_yield == built.min_yield
            same &= mine.avg_yield == scored.avg_yield
    print(f"{len(cases)} instances x {args.repeat} calls, 64 hosts, J = {args.jobs} jobs; "
          f"load {os.getloadavg()[0]:.2f}")
    base = statistics.median(times["scoring"])
    print(f"{'call':<14}{'median ms':>10}{'mean ms':>10}{'vs scoring':>12}")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:<14}{1e3 * med:>10.3f}{1e3 * statistics.fmean(values):>10.3f}"
              f"{med / base:>12.2f}")
    print(f"same minimum and average yields from all paths: {same}")


if __name__ == "__main__":
    main()
