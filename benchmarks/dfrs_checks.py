"""Checks behind the explanations in RESULTS.md section 6 (DFRS differences).

    python benchmarks/dfrs_checks.py

1. EASY with cores or whole nodes per task (default): degradation from bound and
   normalised underutilisation on five synthetic traces (1,000 jobs, 128 nodes).
2. GreedyPM */per/opt=min/minvt=600: normalised underutilisation with the 300 s
   penalty, with no penalty, and with a 1-hour period, on four traces.
"""

from __future__ import annotations

from allockit.instances.lublin import dfrs_synthetic
from allockit.models.stretch_bound import stretch_bound
from allockit.simulation.batch import simulate_batch
from allockit.simulation.dfrs import simulate_dfrs

BEST = "GreedyPM */per/opt=min/minvt=600"


def main() -> None:
    print("EASY: seed load | degradation cores / nodes | underutilisation cores / nodes")
    for seed, load in ((0, 0.5), (0, 0.7), (1, 0.9), (0, None), (1, 0.3)):
        w = dfrs_synthetic(1000, nodes=128, load=load, seed=seed)
        bound = stretch_bound(w, method="bisection", tol=1e-3).value
        cores = simulate_batch(w, algorithm="easy")
        nodes = simulate_batch(w, algorithm="easy", unit="nodes")
        print(
            f"{seed} {load} | {cores.max_stretch / bound:,.0f} / {nodes.max_stretch / bound:,.0f}"
            f" | {cores.normalized_underutilization:.3f} / "
            f"{nodes.normalized_underutilization:.3f}",
            flush=True,
        )
    print(f"{BEST}: seed load | underutilisation penalty 300 / penalty 0 / period 3600")
    for seed, load in ((0, 0.5), (0, 0.7), (1, 0.9), (0, None)):
        w = dfrs_synthetic(1000, nodes=128, load=load, seed=seed)
        runs = (
            simulate_dfrs(w, BEST),
            simulate_dfrs(w, BEST, penalty=0),
            simulate_dfrs(w, BEST, period=3600),
        )
        print(
            f"{seed} {load} | " + " / ".join(f"{r.normalized_underutilization:.3f}" for r in runs),
            flush=True,
        )


if __name__ == "__main__":
    main()
