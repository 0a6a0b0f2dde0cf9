"""The stretch lower bound (Theorem 1) on every HPC2N week: seconds and feasibility checks.

    python benchmarks/bench_stretch_bound_weeks.py [--trace PATH] [--weeks 0-180]
        [--method exact] [--verbose] [--compare STORE]

Converts the HPC2N trace as the DFRS experiments do (120 dual-core nodes), cuts it into
its 181 non-empty weeks and computes the bound of each in this process, one after the
other. Prints the distribution of the seconds (median, 90th percentile, maximum), the
five slowest weeks, and the number of feasibility problems (max flows or LPs). The
conversion is timed apart (a one-time cost). With --compare, each value is checked against
the "bound" rows of a dfrs-experiment store (computed by earlier code).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from allockit.instances.datasets import trace_path
from allockit.instances.hpc2n import hpc2n_workload, split_weeks
from allockit.instances.swf import read_swf
from allockit.models.stretch_bound import stretch_bound

DEFAULT = "hpc2n"  # the data directory's copy (allockit data fetch hpc2n), or a file


def _weeks(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default=DEFAULT)
    parser.add_argument("--weeks", default="0-180", help="A-B, indices of non-empty weeks")
    parser.add_argument("--method", default="exact", choices=["exact", "bisection"])
    parser.add_argument("--verbose", action="store_true", help="print each week as it ends")
    parser.add_argument(
        "--compare",
        type=Path,
        default=None,
        help="a dfrs-experiment store: compare each week's bound with its 'bound' row",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    weeks = split_weeks(hpc2n_workload(read_swf(trace_path(args.trace))))
    print(f"read and split into {len(weeks)} weeks in {time.perf_counter() - started:.2f} s")
    rows, values = [], {}
    for k in _weeks(args.weeks):
        b = stretch_bound(weeks[k], method=args.method)
        rows.append((b.seconds, k, weeks[k].n_jobs, b.value, b.lps))
        values[f"hpc2n-w{k:03d}"] = b.value
        if args.verbose:
            print(f"  week {k:3d}: {b.value:.6f}, {b.lps} problems, {b.seconds:.2f} s", flush=True)
    seconds = sorted(r[0] for r in rows)
    p90 = seconds[min(len(seconds) - 1, int(0.9 * len(seconds)))]
    print(
        f"{len(rows)} weeks, method {args.method}: total {sum(seconds):.1f} s, median "
        f"{statistics.median(seconds):.2f} s, p90 {p90:.2f} s, max {seconds[-1]:.2f} s; "
        f"feasibility problems per week: median "
        f"{statistics.median(r[4] for r in rows):.0f}, max {max(r[4] for r in rows)}"
    )
    print("slowest weeks: week, jobs, bound, problems, seconds")
    for s, k, n, value, lps in sorted(rows, reverse=True)[:5]:
        print(f"  {k:3d} {n:6,d} {value:14.6f} {lps:4d} {s:8.2f}")
    if args.compare is not None:
        _compare(args.compare, values)


def _compare(store: Path, values: dict[str, float]) -> None:
    """Largest relative difference from the store's bounds, and its slowest bound rows."""
    from allockit.runner import read_rows

    stored = {
        r["instance"]: (r["outputs"]["bound"], r["wall_seconds"])
        for r in read_rows(store)
        if r["method"] == "bound" and r["ok"] and r["instance"] in values
    }
    if not stored:
        print(f"{store}: no bound rows for these weeks")
        return
    diffs = {k: abs(values[k] - v) / v for k, (v, _) in stored.items()}
    worst = max(diffs, key=diffs.get)
    print(
        f"against {store} ({len(stored)} weeks): largest relative difference "
        f"{diffs[worst]:.1e} ({worst}); its slowest bound rows took "
        + ", ".join(
            f"{k} {s:.0f} s" for k, (_, s) in sorted(stored.items(), key=lambda x: -x[1][1])[:4]
        )
    )


if __name__ == "__main__":
    main()
