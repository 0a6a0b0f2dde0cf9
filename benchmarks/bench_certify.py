"""Certification of ``best`` on fresh large-set samples at every size (issue 31, part 1).

The paper's large-set generator (64 hosts, slack 0.1-0.9, CPU and memory covs 0.25 and
0.75) with more job counts: J = 100, 150, ..., 500. One instance per (J, slack, cov_cpu,
cov_mem) cell for each base seed (324 per seed; instance ``k`` of a seed uses
``numpy.random.default_rng([seed, k])``), each solved by ``best`` with ``--time-limit``
seconds on one thread. Prints, per J and per slack, the share certified within 0.5 %
and 0.1 %, the share each bound decided (``bound_source``), the configuration LP's time
per instance (wall and CPU, measured by wrapping
``allockit.evaluation.config_lp.configuration_lp_bound`` in the worker), and the run's
wall and CPU time per instance (the machine is shared: CPU time shows what contention
took).

    python benchmarks/bench_certify.py --seeds 7001,7002 --time-limit 10 --workers 2

Rows go to ``benchmarks/out/certify-<tag>.csv`` (``--tag``, default the seeds).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import os
import statistics
import time
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

OUT = Path(__file__).parent / "out"
JOBS = tuple(range(100, 501, 50))


def items(seeds: list[int], jobs: tuple[int, ...], slacks: tuple[float, ...]):
    """``(stem, generator parameters)`` of every instance of the sample."""
    from allockit.instances.generators import COVS, SLACKS

    for seed in seeds:
        cells = itertools.product(JOBS, SLACKS, COVS, COVS)
        for k, (j, slack, cc, cm) in enumerate(cells):
            if j not in jobs or slack not in slacks:
                continue
            stem = f"h64-j{j}-s{slack}-cc{cc}-cm{cm}-seed{seed}"
            yield stem, dict(hosts=64, jobs=j, slack=slack, cov_cpu=cc, cov_mem=cm, seed=[seed, k])


def _instrument() -> dict[str, float]:
    """Wrap the configuration LP bound so that its wall and CPU seconds are summed."""
    spent = {"wall": 0.0, "cpu": 0.0, "calls": 0}
    try:
        from allockit.evaluation import config_lp
    except ImportError:  # an older tree without the configuration LP
        return spent
    original = config_lp.configuration_lp_bound
    if getattr(original, "_timed", False):
        return original._spent

    def timed(*args, **kwargs):
        w, c = time.perf_counter(), time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            timed._spent["wall"] += time.perf_counter() - w
            timed._spent["cpu"] += time.process_time() - c
            timed._spent["calls"] += 1

    timed._timed, timed._spent = True, spent
    config_lp.configuration_lp_bound = timed
    return spent


def warm_up() -> None:
    """Pay a worker's one-time costs before any timed run: imports (OR-Tools, HiGHS)
    and the numba kernels, by one short ``best`` run through every phase."""
    import ortools.sat.python.cp_model  # noqa: F401  (the exact phase's import)

    from allockit.instances.generators import generate_vcsched
    from allockit.vcsched import solve

    inst = generate_vcsched(hosts=16, jobs=48, slack=0.3, cov_cpu=0.25, cov_mem=0.25, seed=1)
    solve(inst, "best", time_limit=3, threads=1, rel_gap=0.0)


def run_one(args) -> dict:
    """Solve one instance with ``best``; the row of the CSV."""
    stem, params, time_limit, rel_gap = args
    from allockit.instances.generators import generate_vcsched
    from allockit.vcsched import solve

    params = dict(params)
    seed = params.pop("seed")
    inst = generate_vcsched(**params, seed=np.random.default_rng(seed))
    spent = _instrument()
    before = dict(spent)
    wall, cpu = time.perf_counter(), time.process_time()
    r = solve(inst, "best", time_limit=time_limit, threads=1, rel_gap=rel_gap)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {
        "instance": stem,
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
        "cpu": cpu,
        "clp_wall": spent["wall"] - before["wall"],
        "clp_cpu": spent["cpu"] - before["cpu"],
        "clp_calls": spent["calls"] - before["calls"],
        "load": os.getloadavg()[0],
        "message": r.message,
    }


def certified(row: dict, within: float) -> bool:
    """Proven infeasible, or a certified gap at most ``within``."""
    if row["status"] == "infeasible":
        return True
    gap = row["gap"]
    return gap not in (None, "") and float(gap) <= within + 1e-12


def _line(label: str, rs: list[dict]) -> str:
    n = len(rs)
    return (
        f"| {label} | {n} | {sum(certified(r, 0.005) for r in rs) / n:.1%} | "
        f"{sum(certified(r, 0.001) for r in rs) / n:.1%} | "
        f"{statistics.median(float(r['wall']) for r in rs):.2f} | "
        f"{max(float(r['wall']) for r in rs):.2f} | "
        f"{statistics.median(float(r['clp_wall']) for r in rs):.2f} | "
        f"{max(float(r['clp_wall']) for r in rs):.2f} |"
    )


def table(rows: list[dict]) -> str:
    """The Markdown tables: per J, per slack, overall; bound sources; times."""
    head = (
        "| {} | n | certified <= 0.5 % | certified <= 0.1 % | median s | max s "
        "| config LP median s | config LP max s |\n|---|---|---|---|---|---|---|---|"
    )
    out = [head.format("J")]
    for j in sorted({int(r["jobs"]) for r in rows}):
        out.append(_line(str(j), [r for r in rows if int(r["jobs"]) == j]))
    out += ["", head.format("slack")]
    for s in sorted({float(r["slack"]) for r in rows}):
        out.append(_line(str(s), [r for r in rows if float(r["slack"]) == s]))
    out += ["", head.format("all"), _line("all", rows)]
    cells = defaultdict(list)
    for r in rows:
        cells[(int(r["jobs"]), float(r["slack"]))].append(r)
    slacks = sorted({s for _, s in cells})
    out += ["", "Certified within 0.5 % / 0.1 %, per J (rows) and slack (columns):", ""]
    out.append("| J | " + " | ".join(str(s) for s in slacks) + " |")
    out.append("|---" * (len(slacks) + 1) + "|")
    for j in sorted({j for j, _ in cells}):
        parts = []
        for s in slacks:
            rs = cells.get((j, s), [])
            a = sum(certified(r, 0.005) for r in rs)
            b = sum(certified(r, 0.001) for r in rs)
            parts.append(f"{a}/{b} of {len(rs)}")
        out.append(f"| {j} | " + " | ".join(parts) + " |")
    def source_of(r: dict) -> str:
        infeasible = r["status"] == "infeasible"
        return f"infeasible ({r['bound_source']})" if infeasible else r["bound_source"]

    sources = Counter(source_of(r) for r in rows)
    decided = Counter(
        r["bound_source"] for r in rows if certified(r, 0.001) and r["status"] != "infeasible"
    )
    out += ["", "| bound_source | instances | of them certified <= 0.1 % |", "|---|---|---|"]
    for source, n in sources.most_common():
        key = source.removeprefix("infeasible (").removesuffix(")")
        of_them = n if "infeasible" in source else decided.get(key, 0)
        out.append(f"| {source} | {n} ({n / len(rows):.1%}) | {of_them} |")
    used = [r for r in rows if int(r["clp_calls"])]
    cpu_ratio = [float(r["cpu"]) / float(r["wall"]) for r in rows if float(r["wall"]) > 1.0]
    clp = "-"
    if used:
        clp = (
            f"{statistics.median(float(r['clp_wall']) for r in used):.2f} s wall, "
            f"{statistics.median(float(r['clp_cpu']) for r in used):.2f} s CPU, max "
            f"{max(float(r['clp_wall']) for r in used):.2f} s wall"
        )
    loads = [float(r["load"]) for r in rows]
    out += [
        "",
        f"configuration LP run on {len(used)} of {len(rows)} instances; on those: median {clp}",
        f"runs longer than 1 s: median CPU/wall {statistics.median(cpu_ratio):.2f}"
        if cpu_ratio
        else "",
        f"load average (1 min) seen by the workers: median {statistics.median(loads):.1f}, "
        f"max {max(loads):.1f}",
    ]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="7001,7002")
    parser.add_argument("--jobs", default=",".join(map(str, JOBS)))
    parser.add_argument("--slacks", default="0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--rel-gap", type=float, default=1e-4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tag", default="")
    parser.add_argument("--report", default="", help="print the tables of a saved CSV only")
    args = parser.parse_args()
    if args.report:
        with open(args.report) as fh:
            print(table(list(csv.DictReader(fh))))
        return
    seeds = [int(s) for s in args.seeds.split(",")]
    jobs = tuple(int(j) for j in args.jobs.split(","))
    slacks = tuple(float(s) for s in args.slacks.split(","))
    tasks = [(s, p, args.time_limit, args.rel_gap) for s, p in items(seeds, jobs, slacks)]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers, initializer=warm_up) as pool:
        rows = list(pool.map(run_one, tasks, chunksize=1))
    total = time.perf_counter() - start
    OUT.mkdir(exist_ok=True)
    name = OUT / f"certify-{args.tag or args.seeds.replace(',', '-')}.csv"
    with open(name, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(
        f"instances={len(rows)} seeds={args.seeds} time_limit={args.time_limit} "
        f"rel_gap={args.rel_gap} workers={args.workers} total={total:.1f}s rows={name}"
    )
    print(table(rows), flush=True)


if __name__ == "__main__":
    main()
