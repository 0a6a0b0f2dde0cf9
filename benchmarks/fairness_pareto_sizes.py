"""Seconds of one divisible-task Pareto check as the instance grows (the exact LPs' cost).

    python benchmarks/fairness_pareto_sizes.py

Random instances of n users x k classes x m resources (seed 1), ``check(mechanism,
["pareto"], instance=..., semantics="fractional")`` for ``progressive`` and ``lp``; run it
with another version of allockit on ``PYTHONPATH`` to compare.
"""

from __future__ import annotations

import time

import numpy as np

SIZES = ((10, 4, 2), (20, 8, 3), (40, 10, 3), (80, 12, 3))


def main() -> None:
    from allockit.fairness import check
    from allockit.instances.drfh import DRFHInstance

    rng = np.random.default_rng(1)
    print("| users | classes | resources | mechanism | verdict | seconds |")
    print("|---:|---:|---:|---|---|---:|")
    for n, k, m in SIZES:
        servers = [{"capacity": [float(x) for x in rng.choice([0.5, 1, 2, 4], m)],
                    "count": int(rng.integers(1, 20))} for _ in range(k)]
        users = [{"demand": [float(x) for x in rng.choice([0.01, 0.02, 0.05, 0.1], m)]}
                 for _ in range(n)]
        instance = DRFHInstance.from_dict(
            {"resources": [f"r{r}" for r in range(m)], "servers": servers, "users": users})
        for mechanism in ("progressive", "lp"):
            start = time.perf_counter()
            report = check(mechanism, ["pareto"], instance=instance, semantics="fractional")[0]
            seconds = time.perf_counter() - start
            print(f"| {n} | {k} | {m} | {mechanism} | {report.status} | {seconds:.2f} |")


if __name__ == "__main__":
    main()
