"""DRFH Table II / Fig. 5: what the synthetic Table II-like figure can and cannot show.

    python benchmarks/drfh_table2.py [--part 1|2|3|4]

1. The Table II-like snapshot of ``bench_drfh.py`` (2,000 servers, 200 users with
   unbounded tasks, demands 0.01-0.1 of the largest server in both resources) beside
   the paper, with the share of the pool's CPU and memory that full slots can reach.
2. The same with CPU-heavier tasks (every memory demand x 0.6).
3. Finite demand (10-200 tasks per user, about what the cluster holds), memory x 1.0
   and x 0.6: the slot curve against the slot count.
4. A dynamic day loaded past the cluster's capacity (100 servers, 100 users over 4 h,
   demands 0.01-0.2, 10-2,000 tasks of 1 min to 1 h; memory x 1.0 and x 0.6): Best-Fit
   against First-Fit over the last three quarters of the day (Fig. 5).

Prints markdown tables (``experiments/drfh_table2.py`` holds the code).
"""

from __future__ import annotations

import argparse
import time

from allockit.experiments.drfh_table2 import heavy_day, slot_coverage, table2_snapshot
from allockit.instances.drfh import google_servers


def _table(rows, *, coverage=None) -> None:
    head = "| scheduler | CPU % | memory % | paper CPU % | paper memory % |"
    if coverage:
        head += " slots cover CPU / memory % |"
    print(head)
    print("|---|---:|---:|---:|---:|" + ("---:|" if coverage else ""))
    for r in rows:
        pc = "–" if r.get("paper_cpu") is None else f"{r['paper_cpu']:.1f}"
        pm = "–" if r.get("paper_mem") is None else f"{r['paper_mem']:.1f}"
        line = f"| {r['scheduler']} | {r['cpu']:.1f} | {r['mem']:.1f} | {pc} | {pm} |"
        if coverage:
            c = coverage.get(r.get("slots"))
            line += " – |" if c is None else f" {100 * c[0]:.1f} / {100 * c[1]:.1f} |"
        print(line)
    print(flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", type=int, choices=[1, 2, 3, 4], default=None)
    args = parser.parse_args()
    parts = {args.part} if args.part else {1, 2, 3, 4}
    slot_counts = (10, 12, 14, 16, 20)
    if 1 in parts:
        pool = google_servers(2000, seed=3)
        coverage = {s: slot_coverage(pool, s) for s in slot_counts}
        print("1. Table II-like snapshot (bench_drfh.py's case), unbounded tasks, memory x 1.0:\n")
        _table(table2_snapshot(), coverage=coverage)
    if 2 in parts:
        print("2. The same users with every memory demand x 0.6 (CPU-heavier tasks):\n")
        _table(table2_snapshot(mem_scale=0.6))
    if 3 in parts:
        for scale in (1.0, 0.6):
            print(f"3. Finite demand: 10-200 tasks per user, memory x {scale}:\n")
            _table(table2_snapshot(tasks=(10, 200), mem_scale=scale))
    if 4 in parts:
        print("4. Dynamic day past capacity (100 servers, 100 users over 4 h):\n")
        print(
            "| memory x | offered load CPU / memory | scheduler | mean over the run CPU / "
            "memory % | mean over hours 1-4 CPU / memory % | s |"
        )
        print("|---|---|---|---|---|---:|")
        for scale in (1.0, 0.6):
            start = time.perf_counter()
            out = heavy_day(mem_scale=scale)
            load = " / ".join(f"{x:.2f}" for x in out["offered_load"])
            for name, r in out["runs"].items():
                mean = " / ".join(f"{x:.1f}" for x in r["mean"])
                window = " / ".join(f"{x:.1f}" for x in r["window_mean"])
                print(f"| {scale} | {load} | {name} | {mean} | {window} | {r['seconds']:.1f} |")
            share = " / ".join(f"{100 * x:.0f} %" for x in out["best_at_least_first"])
            diff = " / ".join(f"{x:+.2f}" for x in out["best_minus_first"])
            print(
                f"| {scale} | | Best-Fit >= First-Fit at {share} of the instants (CPU / "
                f"memory); mean difference {diff} points | | | "
                f"{time.perf_counter() - start:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
