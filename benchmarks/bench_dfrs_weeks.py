"""Time Table 5's simulations on HPC2N weeks, two versions of the code side by side.

    python benchmarks/bench_dfrs_weeks.py run --weeks 10,120 [--algorithms A;B] [--interleave 8]
        [--out F.json] [--no-memo]
    python benchmarks/bench_dfrs_weeks.py side-by-side --old /path/to/old/python \\
        --weeks 10,60,120,160 [--stride 4] [--out F.json] [--no-memo]
    python benchmarks/bench_dfrs_weeks.py compare OLD.log NEW.log

``run`` simulates each algorithm of the paper's Table 5 (the 116 DFRS variants, FCFS and
EASY; penalty 300 s, period 600 s, as ``allockit dfrs-experiment table5``) on each
HPC2N week, one process, after one tiny run per algorithm family that loads the
compiled kernels. It prints one line per (week, algorithm) with the CPU seconds and an
md5 fingerprint of the per-job start, end, preemption and migration arrays, and a total,
then the hits and misses of the process's LP memos (``allockit.evaluation.answer_memo``:
the week's variants run one after another, as on one worker of a sweep, and share
them); ``--no-memo`` solves every LP again. With the memo, a run's CPU seconds depend
on what ran before it in the process (its LPs may have been solved already).
``side-by-side --no-memo`` times the new code without it (the old code has none).

``side-by-side`` runs ``run`` under two interpreters in turns, one week at a time (the
old code installed in another environment, e.g. a ``git worktree`` of the old commit
with its own venv), and reports each week's CPU seconds under both and whether every
fingerprint agrees: the same schedules, measured under the same machine load.
``--stride K`` keeps every K-th algorithm of the table (all by default).

``compare OLD.log NEW.log`` reads the lines two ``run`` commands printed (e.g. the old and
the new code started at once on the same week, each in its own process) and reports, per
algorithm family, the CPU seconds of the (week, algorithm) pairs both finished, the
speed-up and whether every fingerprint agrees; a run stopped early still counts. When
every family has a run, it projects one week of the whole table (each family's mean
run times its number of variants) and the full table on 181 weeks with 2 workers.
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


def side_by_side(
    old: str, weeks: list[int], stride: int, trace: str, no_memo: bool = False
) -> dict:
    report: dict = {"weeks": [], "old_python": old, "new_python": sys.executable}
    for week in weeks:
        times, prints, per = {}, {}, {}
        for label, python in (("old", old), ("new", sys.executable)):
            memo_off = ["--no-memo"] if no_memo and label == "new" else []
            out = subprocess.run(
                [python, __file__, "run", "--weeks", str(week), "--stride", str(stride),
                 "--trace", trace, "--json", *memo_off],
                check=True, capture_output=True, text=True,
            ).stdout
            rows = json.loads(out.strip().splitlines()[-1])
            times[label] = sum(r["cpu"] for r in rows)
            prints[label] = {r["algorithm"]: r["md5"] for r in rows}
            per[label] = {r["algorithm"]: r["cpu"] for r in rows}
        same = prints["old"] == prints["new"]
        differ = sorted(a for a in prints["old"] if prints["old"][a] != prints["new"].get(a))
        load = os.getloadavg()[0]
        report["weeks"].append({"week": week, "old_cpu": times["old"], "new_cpu": times["new"],
                                "same_schedules": same, "differ": differ, "load": load,
                                "old_per_algorithm": per["old"], "new_per_algorithm": per["new"]})
        print(f"w{week:03d} {len(prints['new'])} algorithms  old {times['old']:8.2f} s  "
              f"new {times['new']:8.2f} s  speed-up {times['old'] / times['new']:5.2f}x  "
              f"same schedules: {same}  load {load:.1f}", flush=True)
    old_total = sum(w["old_cpu"] for w in report["weeks"])
    new_total = sum(w["new_cpu"] for w in report["weeks"])
    print(f"total old {old_total:.2f} s new {new_total:.2f} s: {old_total / new_total:.2f}x; "
          f"all schedules identical: {all(w['same_schedules'] for w in report['weeks'])}")
    return report


def read_log(path: str) -> dict[tuple[int, str], tuple[float, str]]:
    """``{(week, algorithm): (cpu, md5)}`` from the lines ``run`` printed."""
    rows = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 5 or not parts[0].startswith("w") or parts[-2] != "s":
                continue
            rows[int(parts[0][1:]), " ".join(parts[1:-3])] = (float(parts[-3]), parts[-1])
    return rows


def family(name: str) -> str:
    """The algorithm's family in Table 5: FCFS/EASY, else its DFRS base and objective.

    The base is Greedy, GreedyP, GreedyPM or MCB8, or ``/per`` and ``/stretch-per`` for
    the MCB8 variants named by their rescheduling alone; the objective is ``opt=avg``
    (an LP per allocation), ``opt=min`` or ``opt=max`` (water-filling).
    """
    if name in ("FCFS", "EASY"):
        return "FCFS/EASY"
    base = name.split("/")[0].split(" ")[0] or "/" + name.split("/")[1]
    objective = next(p for p in name.split("/") if p.startswith("opt="))
    return f"{base} {objective}"


def compare(old_path: str, new_path: str) -> dict:
    old, new = read_log(old_path), read_log(new_path)
    both = sorted(set(old) & set(new))
    report: dict = {"pairs": len(both), "families": {}}
    for key in both:
        fam = report["families"].setdefault(family(key[1]), {"n": 0, "old": 0.0, "new": 0.0,
                                                              "differ": []})
        fam["n"] += 1
        fam["old"] += old[key][0]
        fam["new"] += new[key][0]
        if old[key][1] != new[key][1]:
            fam["differ"].append(f"w{key[0]:03d} {key[1]}")
    for name, fam in sorted(report["families"].items()):
        print(f"{name:28} {fam['n']:4d} runs  old {fam['old']:8.2f} s  new {fam['new']:8.2f} s  "
              f"{fam['old'] / max(fam['new'], 1e-9):5.2f}x  same schedules: {not fam['differ']}")
    old_total = sum(f["old"] for f in report["families"].values())
    new_total = sum(f["new"] for f in report["families"].values())
    differ = [d for f in report["families"].values() for d in f["differ"]]
    print(f"{'all':28} {len(both):4d} runs  old {old_total:8.2f} s  new {new_total:8.2f} s  "
          f"{old_total / max(new_total, 1e-9):5.2f}x  same schedules: {not differ}")
    report.update(old=old_total, new=new_total, differ=differ)
    # the whole table: each family's mean run times its number of Table 5 variants
    counts: dict[str, int] = {}
    for name in table5_algorithms():
        counts[family(name)] = counts.get(family(name), 0) + 1
    missing = sorted(set(counts) - set(report["families"]))
    if not missing:
        weeks = {key[0] for key in both}
        week = {label: sum(counts[f] * fam[label] / fam["n"]
                           for f, fam in report["families"].items()) for label in ("old", "new")}
        print(f"one week of all {sum(counts.values())} algorithms (weeks {sorted(weeks)}): "
              f"old {week['old']:.0f} s, new {week['new']:.0f} s of CPU; the full table "
              f"(181 weeks, 2 workers): old {week['old'] * 181 / 2 / 3600:.1f} h, "
              f"new {week['new'] * 181 / 2 / 3600:.1f} h")
        report["week"] = week
    else:
        print(f"no full-table projection: no run of {', '.join(missing)}")
    return report


def _print_memo_stats() -> None:
    try:
        from allockit.evaluation.answer_memo import memo_stats
    except ImportError:  # code older than the memo
        return
    for name, stats in memo_stats().items():
        print(f"memo {name}: {stats['hits']} hits, {stats['misses']} misses, "
              f"{stats['kept']} kept")


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
            p.add_argument("--interleave", type=int, default=1,
                           help="run the table's algorithms in the order a[0::K], a[1::K], ... "
                                "(a run stopped early then has some of every family)")
            p.add_argument("--no-memo", action="store_true",
                           help="solve every LP again (allockit.evaluation.answer_memo off)")
        else:
            p.add_argument("--old", required=True, help="python of the old code's environment")
            p.add_argument("--no-memo", action="store_true",
                           help="the new code without its LP memo (code against code)")
    p = sub.add_parser("compare")
    p.add_argument("old_log")
    p.add_argument("new_log")
    args = parser.parse_args()
    if args.command == "compare":
        compare(args.old_log, args.new_log)
        return
    weeks = [int(w) for w in args.weeks.split(",")]
    if args.command == "run":
        if args.no_memo:
            from allockit.evaluation.answer_memo import set_memo_max_bytes

            set_memo_max_bytes(0)
        algorithms = (args.algorithms.split(";") if args.algorithms
                      else table5_algorithms(args.stride))
        k = args.interleave
        algorithms = [a for start in range(k) for a in algorithms[start::k]]
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
            _print_memo_stats()
        result = rows
    else:
        result = side_by_side(args.old, weeks, args.stride, args.trace, args.no_memo)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
