"""Exact VCSched methods on the paper's small set and a sample of the large set.

Prints, per method: instances proven optimal / infeasible / timed out, median and max
wall time per instance, median gap of the unproven ones, and model-build vs solve time.

    python benchmarks/bench_exact.py small --methods milp,milp-paper,cpsat --workers 2
    python benchmarks/bench_exact.py large-sample --methods milp,cpsat --time-limit 60

``large-sample`` takes one instance per (J, slack) pair of the large set (27
instances, covariances cycling through the four combinations). Results per instance go to
``benchmarks/out/<set>-<method>.csv``.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from allockit.instances.generators import COVS, iter_vcsched_set
from allockit.vcsched import solve


def _instances(name: str, seed: int):
    if name == "small":
        yield from iter_vcsched_set("small", seed=seed)
        return
    combos = [(a, b) for a in COVS for b in COVS]
    wanted: set[tuple[str, str]] = set()
    for stem, inst in iter_vcsched_set("large", seed=seed):
        key = tuple(stem.split("-")[1:3])
        cc, cm = combos[len(wanted) % 4]
        if key not in wanted and stem.endswith(f"cc{cc}-cm{cm}-r0"):
            wanted.add(key)
            yield stem, inst


def _run(args):
    stem, inst, method, time_limit = args
    start = time.perf_counter()
    r = solve(inst, method, time_limit=time_limit, threads=1)
    wall = time.perf_counter() - start
    return {
        "instance": stem,
        "method": method,
        "status": str(r.status),
        "min_yield": r.min_yield,
        "bound": r.bound,
        "gap": r.gap,
        "build_seconds": r.build_seconds,
        "solve_seconds": r.solve_seconds,
        "wall": wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", choices=["small", "large-sample"])
    parser.add_argument("--methods", default="milp,milp-paper,cpsat")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    instances = list(_instances(args.set, args.seed))
    out_dir = Path(__file__).parent / "out"
    out_dir.mkdir(exist_ok=True)
    header = (
        f"{'method':<11} {'n':>5} {'optimal':>7} {'infeas':>6} {'limit':>5} "
        f"{'total s':>8} {'median s':>8} {'max s':>7} {'med gap':>8} {'build/solve':>11}"
    )
    rows_out = []
    for method in args.methods.split(","):
        tasks = [(stem, inst, method, args.time_limit) for stem, inst in instances]
        start = time.perf_counter()
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            rows = list(pool.map(_run, tasks, chunksize=4))
        total = time.perf_counter() - start
        with open(out_dir / f"{args.set}-{method}.csv", "w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        walls = [r["wall"] for r in rows]
        unproven = [r["gap"] for r in rows if r["status"] != "optimal" and r["gap"] is not None]
        build = sum(r["build_seconds"] for r in rows)
        solve_s = sum(r["solve_seconds"] for r in rows)
        count = {
            s: sum(r["status"] == s for r in rows) for s in ("optimal", "infeasible", "time_limit")
        }
        rows_out.append(
            f"{method:<11} {len(rows):>5} {count['optimal']:>7} {count['infeasible']:>6} "
            f"{count['time_limit']:>5} {total:>8.1f} {statistics.median(walls):>8.3f} "
            f"{max(walls):>7.2f} "
            f"{(statistics.median(unproven) if unproven else 0.0):>8.4f} "
            f"{build / max(solve_s, 1e-9):>11.3f}"
        )
        print(rows_out[-1], flush=True)
    print()
    print(f"set={args.set} workers={args.workers} time_limit={args.time_limit}")
    print(header)
    print("\n".join(rows_out))


if __name__ == "__main__":
    main()
