"""Compare two versions of the DFRS simulator on many small random workloads, exactly.

    python benchmarks/dfrs_differential.py run new.pkl [--cases 60] [--first-seed 0]
    PYTHONPATH=/path/to/old/package python benchmarks/dfrs_differential.py run old.pkl --sorted-set
    python benchmarks/dfrs_differential.py compare old.pkl new.pkl

``run`` simulates each case (five families of workloads: tolerance-sized and boundary
memories with many tasks per node, one node, long backlogs, wide clusters with float
CPU needs, many equal jobs at the same times; twelve algorithms, with and without
``hold`` and penalty 0, ``debug=True``) and keeps every output: per-job start, end,
preemptions, migrations, resumes, the summary, the timelines and the MCB8 call sizes, or
the error a run raised; ``--first-seed K`` draws the cases of seeds K.. instead of 0..
(fresh inputs for a check of the code the earlier seeds were used to develop).
``compare`` lists every difference (no tolerance) and exits 1 if
there is one.

``--sorted-set`` makes ``DfrsState.running`` iterate in job index order: code from
before the state was held in arrays summed over the running jobs in the iteration order
of a Python set, the current code in index order, which changes the last bits of the
underutilisation, the allocated CPU and the timelines and nothing else.
"""

from __future__ import annotations

import argparse
import pickle
import sys

import numpy as np

ALGORITHMS = (
    "GreedyPM */per/opt=min/minvt=600", "GreedyP */opt=min", "MCB8 */opt=min",
    "/stretch-per/opt=max/minvt=600", "GreedyPM */per/opt=avg/minft=300", "Greedy */opt=min",
    "MCB8 */per/opt=avg", "/per/opt=min", "GreedyP/per/opt=min", "Greedy */per/opt=min/minft=300",
    "MCB8/per/opt=min/minvt=600", "/stretch-per/opt=avg",
)


def case(family: int, seed: int) -> dict:
    """Workload arguments of one case (``Workload.from_jobs`` and ``nodes``)."""
    rng = np.random.default_rng(10_000 * family + seed)
    if family == 0:  # memories at the tolerance and at node fractions, many tasks
        nodes, n = int(rng.integers(1, 5)), int(rng.integers(5, 60))
        mem = rng.choice([0.0, 1e-13, 1e-12, 2e-12, 0.5, 1 / 3, 0.25, 2 / 3, 1.0, 0.1, 0.05,
                          0.5 + 1e-12], n)
        tasks = rng.integers(1, 6 * nodes + 1, n)
        submit = np.sort(rng.choice([0, 0, 0, 100, 300, 600, 900, 1200], n))
        runtime = rng.choice([100, 200, 300, 600, 900], n)
    elif family == 1:  # one node
        nodes, n = 1, int(rng.integers(5, 50))
        mem = rng.choice([0.0, 1e-13, 0.5, 1 / 3, 0.25, 0.6, 1.0], n)
        tasks = np.where(mem <= 0.25, rng.integers(1, 5, n), 1)
        submit = np.sort(rng.choice([0, 10, 300, 600, 1000], n))
        runtime = rng.choice([60, 300, 600, 1000], n)
    elif family == 2:  # long backlogs
        nodes, n = int(rng.integers(2, 5)), int(rng.integers(100, 250))
        mem = rng.choice([0.0, 0.05, 0.1, 1 / 3, 0.5, 0.6], n)
        tasks = rng.integers(1, 2 * nodes + 1, n)
        submit = np.sort(rng.choice([0, 10, 500, 1000, 1500, 3000], n))
        runtime = rng.choice([60, 600, 2000, 7000], n)
    elif family == 3:  # wider clusters, float CPU needs
        nodes, n = int(rng.integers(8, 33)), int(rng.integers(20, 90))
        mem = rng.choice([0.0, 1e-13, 0.5, 1 / 3, 0.25, 0.1, 0.05, 0.6, 0.02], n)
        tasks = rng.integers(1, 4 * nodes, n)
        submit = np.sort(rng.choice([0, 0, 300, 600, 601, 900, 1800], n))
        runtime = rng.choice([300, 600, 1200, 2400, 5000], n)
    else:  # many equal jobs, simultaneous events, rounded random memories
        nodes, n = int(rng.integers(1, 8)), int(rng.integers(10, 120))
        mem = np.round(rng.random(n) * 0.7, 3)
        mem[rng.random(n) < 0.2] = 0.0
        tasks = rng.integers(1, 3 * nodes + 1, n)
        submit = np.sort(rng.integers(0, 20, n) * 300)
        runtime = rng.choice([300, 600, 1200, 333.3], n)
    cpu = rng.choice([0.25, 0.5, 1.0, 0.3], n)
    if family == 3:
        cpu = np.round(rng.uniform(0.05, 1.0, n), 3)
    with np.errstate(divide="ignore"):  # no more tasks than the empty cluster holds
        room = np.where(mem > 1e-12, nodes * np.floor((1 + 1e-12) / np.maximum(mem, 1e-300)),
                        10**9)
    tasks = np.maximum(1, np.minimum(tasks, room)).astype(int)
    return {"nodes": nodes, "submit": submit.tolist(), "runtime": runtime.tolist(),
            "tasks": tasks.tolist(), "cpu": cpu.tolist(), "mem": mem.tolist()}


class _IndexOrderSet(set):
    """A set that iterates in increasing order (the current code's summation order)."""

    def __iter__(self):
        return iter(sorted(set.__iter__(self)))


def _sort_running() -> None:
    from allockit.simulation import dfrs_state

    init = dfrs_state.DfrsState.__init__

    def patched(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.running = _IndexOrderSet(self.running)

    dfrs_state.DfrsState.__init__ = patched


def run(out: str, cases: int, first_seed: int = 0) -> None:
    from allockit.instances.workload import Platform, Workload
    from allockit.simulation.dfrs import simulate_dfrs

    results = {}
    for family in range(5):
        for seed in range(first_seed, first_seed + cases):
            args = case(family, seed)
            w = Workload.from_jobs(Platform(nodes=args.pop("nodes")), **args)
            algorithm = ALGORITHMS[seed % len(ALGORITHMS)]
            for hold in (None, 900.0) if seed % 3 == 0 else (None,):
                for penalty in (300.0, 0.0) if seed % 2 == 0 else (300.0,):
                    key = (family, seed, algorithm, hold, penalty)
                    try:
                        r = simulate_dfrs(w, algorithm, period=300.0, penalty=penalty,
                                          hold=hold, debug=True)
                    except Exception as error:  # kept: a version may stop where another runs
                        results[key] = {"error": repr(error)}
                        continue
                    summary = r.summary()
                    for timing in ("seconds", "setup_seconds"):
                        summary.pop(timing, None)
                    results[key] = {
                        "start": r.start.tolist(), "end": r.end.tolist(),
                        "preemptions": np.asarray(r.job_preemptions).tolist(),
                        "migrations": np.asarray(r.job_migrations).tolist(),
                        "resumes": np.asarray(r.extra["job_resumes"]).tolist(),
                        "resumes_elsewhere": np.asarray(r.extra["job_resumes_elsewhere"]).tolist(),
                        "summary": summary, "timeline": np.asarray(r.timeline).tolist(),
                        "progress": np.asarray(r.extra["progress_timeline"]).tolist(),
                        "mcb8_calls": [int(c) for c, _ in r.extra["mcb8_calls"]],
                    }
    with open(out, "wb") as f:
        pickle.dump(results, f)
    errors = sum("error" in v for v in results.values())
    print(f"{len(results)} runs, {errors} stopped with an error")


def compare(first: str, second: str) -> int:
    with open(first, "rb") as f:
        a = pickle.load(f)
    with open(second, "rb") as f:
        b = pickle.load(f)
    if a.keys() != b.keys():
        print("different cases (run both with the same --cases)")
        return 1
    differences = 0
    for key in a:
        for field in sorted(set(a[key]) | set(b[key])):
            x, y = a[key].get(field), b[key].get(field)
            if x == y:
                continue
            differences += 1
            if field == "summary" and x is not None and y is not None:
                changed = {k: (x[k], y.get(k)) for k in x if x[k] != y.get(k)}
                print(key, field, changed)
            elif field == "error":
                print(key, "error:", x, "|", y)
            else:
                print(key, field)
    print(f"{len(a)} runs; {differences} differences")
    return 1 if differences else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    runner = sub.add_parser("run")
    runner.add_argument("out")
    runner.add_argument("--cases", type=int, default=60, help="cases per family")
    runner.add_argument("--first-seed", type=int, default=0,
                        help="seed of the first case of each family (default 0)")
    runner.add_argument("--sorted-set", action="store_true",
                        help="iterate DfrsState.running in index order (older code)")
    comparer = sub.add_parser("compare")
    comparer.add_argument("first")
    comparer.add_argument("second")
    args = parser.parse_args()
    if args.command == "compare":
        return compare(args.first, args.second)
    if args.sorted_set:
        _sort_running()
    run(args.out, args.cases, args.first_seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
