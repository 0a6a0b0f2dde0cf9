"""The portfolio method ``best`` on the paper's sets: certification and wall time.

Two measurements (issue 16, item 1):

- ``large-strat``: a stratified sample of the large set, one instance per
  (J, slack, cov_cpu, cov_mem) cell (108 cells) for each of ``--seeds`` fresh base
  seeds (3 seeds: 324 instances), each solved by ``best`` on one thread with
  ``--time-limit`` seconds and ``--rel-gap`` as the stopping gap. Prints, per J and
  slack, the share certified within 0.5 % and 0.1 % and the median time.
- ``small``: the whole small set (1,440 instances) with ``--methods`` (default
  ``best``; ``milp:cold`` is ``milp`` without the MCB8 warm start, the model alone)
  on ``--workers`` processes; prints the total wall time (process start-up and
  imports included) and the statuses.

    python benchmarks/bench_portfolio.py large-strat --seeds 101,202,303 --time-limit 10
    python benchmarks/bench_portfolio.py small --methods best,milp,milp:cold --workers 2

Rows go to ``benchmarks/out/portfolio-<set>-<method>.csv``.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import statistics
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

OUT = Path(__file__).parent / "out"


def _large_items(seeds: list[int]):
    from allockit.instances.generators import COVS, SETS, SLACKS

    spec = SETS["large"]
    for seed in seeds:
        cells = itertools.product(spec.jobs, SLACKS, COVS, COVS)
        for k, (jobs, slack, cc, cm) in enumerate(cells):
            stem = f"h{spec.hosts}-j{jobs}-s{slack}-cc{cc}-cm{cm}-seed{seed}"
            yield (
                stem,
                dict(
                    hosts=spec.hosts,
                    jobs=jobs,
                    slack=slack,
                    cov_cpu=cc,
                    cov_mem=cm,
                    seed=[seed, k],
                ),
            )


def _run_large(args):
    stem, params, method, time_limit, rel_gap = args
    from allockit.instances.generators import generate_vcsched
    from allockit.vcsched import solve

    params = dict(params)
    seed = params.pop("seed")
    inst = generate_vcsched(**params, seed=np.random.default_rng(seed))
    start = time.perf_counter()
    options = {"rel_gap": rel_gap} if method in ("best", "milp", "cpsat", "milp-paper") else {}
    r = solve(inst, method, time_limit=time_limit, threads=1, **options)
    wall = time.perf_counter() - start
    return {
        "instance": stem,
        "method": method,
        "jobs": params["jobs"],
        "slack": params["slack"],
        "status": str(r.status),
        "min_yield": r.min_yield,
        "bound": r.bound,
        "gap": r.gap,
        "incumbent_source": r.incumbent_source,
        "bound_source": r.bound_source,
        "setup_seconds": r.setup_seconds,
        "wall": wall,
    }


def _certified(row, within: float) -> bool:
    if row["status"] == "infeasible":
        return True
    return row["gap"] is not None and row["gap"] <= within + 1e-12


def _table(rows) -> str:
    groups = defaultdict(list)
    for r in rows:
        groups[(r["jobs"], r["slack"])].append(r)
    lines = [
        "| J | slack | n | certified <= 0.5 % | certified <= 0.1 % | median s | max s |",
        "|---|---|---|---|---|---|---|",
    ]
    for (jobs, slack), rs in sorted(groups.items()):
        lines.append(
            f"| {jobs} | {slack} | {len(rs)} | "
            f"{sum(_certified(r, 0.005) for r in rs) / len(rs):.0%} | "
            f"{sum(_certified(r, 0.001) for r in rs) / len(rs):.0%} | "
            f"{statistics.median(r['wall'] for r in rs):.2f} | "
            f"{max(r['wall'] for r in rs):.2f} |"
        )
    for jobs in sorted({r["jobs"] for r in rows}):
        rs = [r for r in rows if r["jobs"] == jobs]
        lines.append(
            f"| {jobs} | all | {len(rs)} | "
            f"{sum(_certified(r, 0.005) for r in rs) / len(rs):.1%} | "
            f"{sum(_certified(r, 0.001) for r in rs) / len(rs):.1%} | "
            f"{statistics.median(r['wall'] for r in rs):.2f} | "
            f"{max(r['wall'] for r in rs):.2f} |"
        )
    lines.append(
        f"| all | all | {len(rows)} | "
        f"{sum(_certified(r, 0.005) for r in rows) / len(rows):.1%} | "
        f"{sum(_certified(r, 0.001) for r in rows) / len(rows):.1%} | "
        f"{statistics.median(r['wall'] for r in rows):.2f} | "
        f"{max(r['wall'] for r in rows):.2f} |"
    )
    return "\n".join(lines)


def _run_small(args):
    stem, inst, method = args
    from allockit.vcsched import solve

    name, _, variant = method.partition(":")
    options = {"warm_start": False} if variant == "cold" else {}
    start = time.perf_counter()
    r = solve(inst, name, threads=1, **options)
    return {
        "instance": stem,
        "method": method,
        "status": str(r.status),
        "min_yield": r.min_yield,
        "bound": r.bound,
        "gap": r.gap,
        "incumbent_source": r.incumbent_source,
        "bound_source": r.bound_source,
        "wall": time.perf_counter() - start,
    }


def _write(rows, name: str) -> None:
    OUT.mkdir(exist_ok=True)
    with open(OUT / name, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set", choices=["large-strat", "small"])
    parser.add_argument("--methods", default="best")
    parser.add_argument("--seeds", default="101,202,303")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--rel-gap", type=float, default=1e-3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="first N instances only")
    args = parser.parse_args()
    for method in args.methods.split(","):
        if args.set == "large-strat":
            items = list(_large_items([int(s) for s in args.seeds.split(",")]))
            if args.limit:
                items = items[: args.limit]
            tasks = [(s, p, method, args.time_limit, args.rel_gap) for s, p in items]
            start = time.perf_counter()
            with ProcessPoolExecutor(max_workers=args.workers) as pool:
                rows = list(pool.map(_run_large, tasks, chunksize=1))
            total = time.perf_counter() - start
            _write(rows, f"portfolio-large-strat-{method}.csv")
            print(
                f"method={method} instances={len(rows)} time_limit={args.time_limit} "
                f"rel_gap={args.rel_gap} workers={args.workers} total={total:.1f}s"
            )
            print(_table(rows), flush=True)
        else:
            from allockit.instances.generators import iter_vcsched_set

            start = time.perf_counter()
            items = list(iter_vcsched_set("small", seed=0))
            with ProcessPoolExecutor(max_workers=args.workers) as pool:
                rows = list(pool.map(_run_small, [(s, i, method) for s, i in items], chunksize=8))
            total = time.perf_counter() - start
            _write(rows, f"portfolio-small-{method.replace(':', '-')}.csv")
            count = defaultdict(int)
            for r in rows:
                count[r["status"]] += 1
            print(
                f"method={method} instances={len(rows)} workers={args.workers} "
                f"wall={total:.1f}s statuses={dict(count)} "
                f"max instance={max(r['wall'] for r in rows):.3f}s",
                flush=True,
            )


if __name__ == "__main__":
    main()
