"""How often a floating-point MILP solver's bound is false on VCSched data near its tolerance.

For each regime, random small instances (2-4 hosts, 2-5 jobs of 1-3 tasks) are solved
by CP-SAT (``allockit.vcsched.solve(..., "cpsat")``, integer data; tested against brute
force) and by the min-max-load MILP on the floating-point solver *alone*
(``build_load_milp`` + ``solve_pyomo``, without allockit's CP-SAT check). A run whose
bound on the yield is below CP-SAT's optimum by more than 1e-6 is a false bound: the
solver would call a worse placement optimal. Prints one row per regime.

Regimes: ``tiny`` (memories drawn from 0, 1e-8, 1e-7, 1e-6, 2e-6 and 0.25, 1/3, 0.5,
0.75, 1), a single magnitude ``T`` (memories from 0, T, 2T, 3T, 1 - T and the same
round values), ``cpu-tiny`` (CPU needs from 1e-8, 1e-7, 1e-6, 2e-6 beside 0.25-1,
memories from the round values), and ``uniform`` (CPU in [0.01, 1] and memory in
[0, 1], rounded to 1-3 decimals: well-scaled data).

    python benchmarks/highs_tolerance_fuzz.py --n 1500 --seed 41   # five regimes
    python benchmarks/highs_tolerance_fuzz.py --n 1500 --seed 42 --regimes cpu-tiny
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROUND = [0.0, 0.25, 1 / 3, 0.5, 0.75, 1.0]


def _memories(rng: np.random.Generator, regime: str, n: int) -> np.ndarray:
    if regime == "tiny":
        return rng.choice([1e-8, 1e-7, 1e-6, 2e-6, *ROUND], n)
    if regime == "cpu-tiny":
        return rng.choice(ROUND, n)
    if regime == "uniform":
        return np.round(rng.uniform(0, 1, n), int(rng.integers(1, 4)))
    t = float(regime)
    return rng.choice([t, 2 * t, 3 * t, 1 - t, *ROUND], n)


def _instance(rng: np.random.Generator, regime: str):
    from allockit.instances.vcsched import VCInstance

    hosts, n = int(rng.integers(2, 5)), int(rng.integers(2, 6))
    if regime == "uniform":
        cpu = np.round(rng.uniform(0.01, 1, n), int(rng.integers(1, 3))).clip(0.01, 1)
    elif regime == "cpu-tiny":
        cpu = rng.choice([1e-8, 1e-7, 1e-6, 2e-6, 0.25, 0.3, 0.5, 0.6, 0.75, 1.0], n)
    else:
        cpu = rng.choice([0.25, 0.3, 0.5, 0.6, 0.75, 1.0], n)
    tasks = rng.integers(1, 4, n)
    return VCInstance.from_lists(hosts=hosts, cpu=cpu.tolist(),
                                 mem=_memories(rng, regime, n).tolist(), tasks=tasks.tolist())


def _float_bound(instance, solver: str) -> float | None:
    from allockit.models.vcsched_load import build_load_milp
    from allockit.solver import solve_pyomo

    report = solve_pyomo(build_load_milp(instance), solver=solver, rel_gap=1e-9)
    return None if report.bound is None else 1.0 / max(1.0, report.bound)


def main() -> None:
    from allockit.vcsched import solve

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1500, help="instances per regime")
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--regimes", default="tiny,5e-6,1e-5,1e-4,uniform")
    parser.add_argument("--solver", default="highs")
    args = parser.parse_args()
    print(f"| regime | instances solved by CP-SAT | false {args.solver} bounds | seconds |")
    print("|---|---:|---:|---:|")
    for k, regime in enumerate(args.regimes.split(",")):
        rng = np.random.default_rng([args.seed, k])
        solved = false = 0
        examples: list[str] = []
        started = time.perf_counter()
        for _ in range(args.n):
            instance = _instance(rng, regime)
            reference = solve(instance, "cpsat", rel_gap=1e-9)
            if str(reference.status) != "optimal":
                continue
            solved += 1
            bound = _float_bound(instance, args.solver)
            if bound is not None and bound < reference.min_yield - 1e-6:
                false += 1
                if len(examples) < 3:
                    examples.append(
                        f"hosts={instance.hosts} cpu={instance.cpu.tolist()} "
                        f"mem={instance.mem.tolist()} tasks={instance.tasks.tolist()}: "
                        f"bound {bound:.6g} < optimum {reference.min_yield:.6g}"
                    )
        print(f"| {regime} | {solved} | {false} | {time.perf_counter() - started:.0f} |",
              flush=True)
        for line in examples:
            print(f"  e.g. {line}", file=sys.stderr)


if __name__ == "__main__":
    main()
