"""Time Table 5's simulations on HPC2N weeks, two versions of the code side by side.

    python benchmarks/bench_dfrs_weeks.py run --weeks 10,120 [--algorithms A;B] [--out F.json]
    python benchmarks/bench_dfrs_weeks.py side-by-side --old /path/to/old/python \\
        --weeks 10,60,120,160 [--stride 4] [--out F.json]

``run`` simulates each algorithm of the paper's Table 5 (the 116 DFRS variants, FCFS and
EASY; penalty 300 s, period 600 s, as ``allockit dfrs-experiment table5``) on each
HPC2N week, one process, after one tiny run per algorithm family that loads the
compiled kernels. It prints one line per (week, algorithm) with the CPU seconds and an
md5 fingerprint of the per-job start, end, preemption and migration arrays, and a total.

``side-by-side`` runs ``run`` under two interpreters in turns, one week at a time (the
old code installed in another environment, e.g. a ``git worktree`` of the old commit
with its own venv), and reports each week's CPU seconds under both and whether every
fingerprint agrees: the same schedules, measured under the same machine load.
``--stride K`` keeps every K-th algorithm of the table (all by default).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

import numpy as np

TRACE = os.path.join(
    os.path.dirname(__file__), "..", "..", "shared", "data", "traces", "HPC2N-2002-2.2-cln.swf.gz"
)
FIELDS = ("start", "end", "job_preemptions", "job_migrations")


def fingerprint(result) -> str:
    """md5 of the per-job arrays of a simulation, in ``FIELDS`` order."""
    digest = hashlib.md5()
    for name in FIELDS:
        digest.update(np.ascontiguousarray(np.asarray(getattr(result, name))).tobytes())
    return digest.hexdigest()


def table5_algorithms(stride: int = 1) -> list[str]:
    from allockit.experiments.dfrs import PAPER_TABLE5

    return list(PAPER_TABLE5)[::stride]


def run(weeks: list[int], algorithms: list[str], trace: str) -> list[dict]:
    from allockit.instances.hpc2n import hpc2n_workload, split_weeks
    from allockit.instances.swf import read_swf
    from allockit.simulation.simulate import simulate

    split = split_weeks(hpc2n_workload(read_swf(trace)))
    warm = split[0].replace(submit=split[0].submit)
    tiny = type(warm).from_jobs(
        warm.platform, submit=[0, 0, 10], runtime=[100, 50, 30], tasks=[1, 2, 1],
        cpu=[1.0, 1.0, 1.0], mem=[0.3, 0.6, 0.2],
    )
    for name in algorithms:  # load every kernel before the clock starts
        simulate(tiny, name, **_options(name))
    rows = []
    for week in weeks:
        workload = split[week]
        for name in algorithms:
            cpu = time.process_time()
            result = simulate(workload, name, **_options(name))
            cpu = time.process_time() - cpu
            rows.append({"week": week, "algorithm": name, "jobs": workload.n_jobs,
                         "cpu": cpu, "md5": fingerprint(result)})
            print(f"w{week:03d} {name:40} {cpu:7.3f} s {rows[-1]['md5']}", flush=True)
    return rows


def _options(name: str) -> dict:
    if name in ("FCFS", "EASY"):
        return {"unit": "nodes"}
    return {"penalty": 300.0, "period": 600.0}


def side_by_side(old: str, weeks: list[int], stride: int, trace: str) -> dict:
    report: dict = {"weeks": [], "old_python": old, "new_python": sys.executable}
    for week in weeks:
        times, prints = {}, {}
        for label, python in (("old", old), ("new", sys.executable)):
            out = subprocess.run(
                [python, __file__, "run", "--weeks", str(week), "--stride", str(stride),
                 "--trace", trace, "--json"],
                check=True, capture_output=True, text=True,
            ).stdout
            rows = json.loads(out.strip().splitlines()[-1])
            times[label] = sum(r["cpu"] for r in rows)
            prints[label] = {r["algorithm"]: r["md5"] for r in rows}
        same = prints["old"] == prints["new"]
        differ = sorted(a for a in prints["old"] if prints["old"][a] != prints["new"].get(a))
        load = os.getloadavg()[0]
        report["weeks"].append({"week": week, "old_cpu": times["old"], "new_cpu": times["new"],
                                "same_schedules": same, "differ": differ, "load": load})
        print(f"w{week:03d} {len(prints['new'])} algorithms  old {times['old']:8.2f} s  "
              f"new {times['new']:8.2f} s  speed-up {times['old'] / times['new']:5.2f}x  "
              f"same schedules: {same}  load {load:.1f}", flush=True)
    old_total = sum(w["old_cpu"] for w in report["weeks"])
    new_total = sum(w["new_cpu"] for w in report["weeks"])
    print(f"total old {old_total:.2f} s new {new_total:.2f} s: {old_total / new_total:.2f}x; "
          f"all schedules identical: {all(w['same_schedules'] for w in report['weeks'])}")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("run", "side-by-side"):
        p = sub.add_parser(name)
        p.add_argument("--weeks", required=True, help="comma-separated HPC2N week indices")
        p.add_argument("--stride", type=int, default=1, help="every K-th Table 5 algorithm")
        p.add_argument("--trace", default=TRACE)
        p.add_argument("--out", help="write the rows (or the report) as JSON here")
        if name == "run":
            p.add_argument("--algorithms", help="';'-separated names instead of Table 5's")
            p.add_argument("--json", action="store_true", help="print the rows as JSON last")
        else:
            p.add_argument("--old", required=True, help="python of the old code's environment")
    args = parser.parse_args()
    weeks = [int(w) for w in args.weeks.split(",")]
    if args.command == "run":
        algorithms = (args.algorithms.split(";") if args.algorithms
                      else table5_algorithms(args.stride))
        if args.json:
            with open(os.devnull, "w") as quiet:
                stdout, sys.stdout = sys.stdout, quiet
                try:
                    rows = run(weeks, algorithms, args.trace)
                finally:
                    sys.stdout = stdout
            print(json.dumps(rows))
        else:
            rows = run(weeks, algorithms, args.trace)
            print(f"total {sum(r['cpu'] for r in rows):.2f} s over {len(rows)} simulations")
        result = rows
    else:
        result = side_by_side(args.old, weeks, args.stride, args.trace)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
