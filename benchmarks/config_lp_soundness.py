"""Soundness sweep of the configuration LP bound against exact optima (issue 31).

Random tiny instances (1-4 hosts, up to 8 tasks, parallel jobs among them, half with
values on a 1/40 grid so that exact fits and ties are common) are solved by brute
force (``tests/oracles.py``), mid-size ones (3-6 hosts, up to 14 tasks, memories
0.1-0.6) by the complete branch and bound. For each, the configuration LP bound is
computed twice (with the optimal load as incumbent, and with none) and must never be
below the optimum; a dive at 5 % above the optimal load must give a valid placement
within that load or nothing. Prints the counts (violations must be 0) and how often
the configuration LP proved a bound strictly below the closed-form ones.

    python benchmarks/config_lp_soundness.py --tiny 4000 --mid 1000 --seed 31
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _instance(rng: np.random.Generator, hosts: int, n_tasks: int, grid: bool, mem_hi: float):
    from allockit.instances.vcsched import VCInstance

    tasks: list[int] = []
    while sum(tasks) < n_tasks:
        tasks.append(int(rng.integers(1, min(3, n_tasks - sum(tasks)) + 1)))
    n = len(tasks)
    if grid:
        cpu = rng.integers(1, 41, n) / 40
        mem = rng.integers(0, 45, n) / 40 * mem_hi
    else:
        cpu = rng.uniform(0.01, 1.0, n)
        mem = rng.uniform(0.0, mem_hi, n)
    return VCInstance.from_lists(hosts=hosts, cpu=cpu.tolist(), mem=mem.tolist(), tasks=tasks)


def main() -> None:
    from allockit.evaluation.bounds import yield_upper_bound
    from allockit.evaluation.config_dive import dive_placement
    from allockit.evaluation.config_lp import ConfigurationLP, configuration_lp_bound
    from allockit.evaluation.placement import host_loads, placement_violation
    from allockit.models.vcsched_bnb import branch_and_bound
    from tests.oracles import brute_force

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", type=int, default=4000)
    parser.add_argument("--mid", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    counts = dict(instances=0, feasible=0, proven=0, stronger=0, below_optimum=0,
                  dives=0, dive_invalid=0, skipped=0)

    def check(inst, optimum_load):
        counts["instances"] += 1
        if optimum_load is None:
            return
        counts["feasible"] += 1
        optimum = min(1.0, 1.0 / optimum_load)
        closed, _ = yield_upper_bound(inst)
        for incumbent in (optimum_load, None):
            out = configuration_lp_bound(inst, incumbent_load=incumbent, rel_gap=1e-6)
            if out.bound < optimum - 1e-9:
                counts["below_optimum"] += 1
                print("BOUND BELOW OPTIMUM", inst.to_dict(), out, optimum, flush=True)
        counts["proven"] += out.proven
        counts["stronger"] += out.proven and closed is not None and out.bound < closed - 1e-9
        hosts = dive_placement(ConfigurationLP(inst), optimum_load * 1.05)
        if hosts is not None:
            counts["dives"] += 1
            load = float(host_loads(inst, hosts)[0].max())
            if placement_violation(inst, hosts) is not None or load > optimum_load * 1.05 * (
                1 + 1e-9
            ):
                counts["dive_invalid"] += 1
                print("INVALID DIVE", inst.to_dict(), hosts.tolist(), flush=True)

    for k in range(args.tiny):
        hosts = int(rng.integers(1, 5))
        inst = _instance(rng, hosts, int(rng.integers(1, 9)), grid=k % 2 == 0, mem_hi=1.0)
        _, placement = brute_force(inst)
        load = None if placement is None else float(host_loads(inst, placement)[0].max())
        check(inst, load)
    for k in range(args.mid):
        hosts = int(rng.integers(3, 7))
        inst = _instance(rng, hosts, int(rng.integers(hosts + 1, 15)), grid=k % 2 == 0,
                         mem_hi=0.6)
        exact = branch_and_bound(inst, time_limit=60)
        if not exact.complete or (exact.load is not None and exact.load <= 1.0):
            counts["skipped"] += 1  # (the branch and bound stops at load 1: yield 1)
            continue
        check(inst, exact.load)
    print(
        f"tiny={args.tiny} mid={args.mid} seed={args.seed} "
        + " ".join(f"{k}={v}" for k, v in counts.items())
        + f" seconds={time.perf_counter() - started:.0f}"
    )


if __name__ == "__main__":
    main()
