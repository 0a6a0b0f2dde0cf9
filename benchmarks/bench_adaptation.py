"""The adaptation heuristic against the adaptation MILP (paper eqs. 22-31).

    python benchmarks/bench_adaptation.py [--scenarios 20] [--hosts 6] [--jobs 16]

A scenario: place a generated instance with MCB8; then the workload changes (a quarter
of the jobs leave, as many new ones arrive, every CPU need is redrawn within +-30 %);
the old placement becomes ``previous`` and the budget allows migrating a fraction of the
total memory. ``adapt`` and the exact MILP (60 s limit) solve the new instance; the table
gives their mean minimum yield, the heuristic's mean % degradation from the MILP, the
migrated memory and the run times, per budget.
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

from allockit.instances.generators import generate_vcsched
from allockit.instances.vcsched import VCInstance
from allockit.vcsched import solve


def scenario(seed: int, hosts: int, jobs: int, budget_fraction: float) -> VCInstance | None:
    rng = np.random.default_rng(seed)
    base = generate_vcsched(hosts=hosts, jobs=jobs, slack=0.4, cov_cpu=0.5, cov_mem=0.5, seed=rng)
    placed = solve(base, "mcb8")
    if not placed.is_ok:
        return None
    keep = np.sort(rng.choice(jobs, size=jobs - jobs // 4, replace=False))
    new = generate_vcsched(hosts=hosts, jobs=jobs, slack=0.4, cov_cpu=0.5, cov_mem=0.5, seed=rng)
    cpu = np.clip(base.cpu[keep] * rng.uniform(0.7, 1.3, keep.size), 0.01, 1.0)
    total_mem = float(base.mem[keep].sum() + new.mem[: jobs // 4].sum())
    return VCInstance.from_lists(
        hosts=hosts,
        cpu=[*cpu.tolist(), *new.cpu[: jobs // 4].tolist()],
        mem=[*base.mem[keep].tolist(), *new.mem[: jobs // 4].tolist()],
        previous=[*placed.task_hosts[keep].tolist(), *([None] * (jobs // 4))],
        migration_budget=budget_fraction * total_mem,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=20)
    parser.add_argument("--hosts", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=16)
    args = parser.parse_args()
    print(
        f"{'budget':>7} {'n':>4} {'MILP yield':>11} {'adapt yield':>12} {'avg %deg':>9} "
        f"{'max %deg':>9} {'adapt fail':>10} {'moved mem':>10} {'MILP s':>8} {'adapt ms':>9}"
    )
    for fraction in (0.0, 0.05, 0.1, 0.25, 1.0):
        rows = []
        for seed in range(args.scenarios):
            inst = scenario(seed, args.hosts, args.jobs, fraction)
            if inst is None:
                continue
            exact = solve(inst, "milp", time_limit=60)
            heur = solve(inst, "adapt")
            if exact.min_yield is None:
                continue
            rows.append((exact, heur))
        ok = [(e, h) for e, h in rows if h.min_yield is not None]
        deg = [100 * (e.min_yield - h.min_yield) / e.min_yield for e, h in ok]
        print(
            f"{fraction:>7.2f} {len(rows):>4} "
            f"{statistics.fmean(e.min_yield for e, _ in rows):>11.4f} "
            f"{statistics.fmean(h.min_yield for _, h in ok):>12.4f} "
            f"{statistics.fmean(deg):>9.2f} {max(deg):>9.2f} {len(rows) - len(ok):>10} "
            f"{statistics.fmean(h.migrated_memory for _, h in ok):>10.3f} "
            f"{statistics.fmean(e.solve_seconds + e.build_seconds for e, _ in rows):>8.3f} "
            f"{1000 * statistics.fmean(h.solve_seconds for _, h in ok):>9.2f}"
        )


if __name__ == "__main__":
    main()
