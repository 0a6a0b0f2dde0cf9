"""The checker's divisible-task Pareto question on fresh tolerance-edge instances.

``lp`` and ``progressive`` are Pareto optimal in exact arithmetic (Wang, Li, Liang 2014),
so on data a floating-point LP handles well, every verdict should be "held". This draws
instances with demands and capacity slacks of 1e-8 to 5e-6 beside round values (where
HiGHS's 1e-7 row tolerance is worth many tasks of a small-demand user), checks Pareto
optimality with ``semantics="fractional"``, and counts the verdicts per mechanism; a
mechanism that refuses the instance (``lp`` needs unbounded tasks) is counted apart.

    python benchmarks/fairness_lp_edge_fuzz.py --seed 901 --n 600 [--save cases.json]

Run it with another version of allockit first on ``PYTHONPATH`` to compare.
"""

from __future__ import annotations

import argparse
import collections
import json
import time

import numpy as np

TINY = (1e-8, 2e-8, 1e-7, 5e-7, 1e-6, 2e-6, 5e-6)


def draw(rng: np.random.Generator) -> dict:
    """One instance: 1-3 resources, 1-2 classes, 2-4 users, tiny values mixed in."""
    m, k, n = int(rng.integers(1, 4)), int(rng.integers(1, 3)), int(rng.integers(2, 5))
    servers = [
        {"capacity": [float(rng.choice([0.5, 0.75, 1, 2, 3, 4]))
                      + (float(rng.choice(TINY)) if rng.random() < 0.6 else 0.0)
                      for _ in range(m)],
         "count": int(rng.integers(1, 3))}
        for _ in range(k)
    ]
    users = [
        {"demand": [float(rng.choice(TINY)) if rng.random() < 0.4
                    else float(rng.choice([0.1, 0.2, 0.25, 0.3, 0.5, 1])) for _ in range(m)],
         "tasks": None if rng.random() < 0.5 else int(rng.integers(1, 5))}
        for _ in range(n)
    ]
    return {"resources": [f"r{r}" for r in range(m)], "servers": servers, "users": users}


def main() -> None:
    from allockit.errors import InvalidInputError
    from allockit.fairness import check
    from allockit.instances.drfh import DRFHInstance

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=901)
    parser.add_argument("--n", type=int, default=600)
    parser.add_argument("--save", help="write the non-held verdicts here (JSON)")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    counts: collections.Counter = collections.Counter()
    kept = []
    start = time.perf_counter()
    for _ in range(args.n):
        try:
            instance = DRFHInstance.from_dict(draw(rng))
        except InvalidInputError:
            counts[("(any)", "invalid instance, not checked")] += 1
            continue
        for mechanism in ("progressive", "lp"):
            report = check(mechanism, ["pareto"], instance=instance, semantics="fractional")[0]
            status = report.status
            if status == "error" and "mechanism refused the instance" in report.detail:
                status = "mechanism refused"
            counts[(mechanism, status)] += 1
            if status in ("violated", "error"):
                kept.append({"mechanism": mechanism, "status": status,
                             "detail": report.detail, "instance": instance.to_dict()})
    seconds = time.perf_counter() - start
    print(f"seed {args.seed}, {args.n} instances, {seconds:.1f} s")
    print("| mechanism | verdict | count |")
    print("|---|---|---:|")
    for (mechanism, status), count in sorted(counts.items()):
        print(f"| {mechanism} | {status} | {count} |")
    if args.save:
        with open(args.save, "w") as handle:
            json.dump(kept, handle, indent=1)


if __name__ == "__main__":
    main()
