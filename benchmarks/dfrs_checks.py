"""Checks behind the explanations in RESULTS.md section 6 (DFRS differences).

    python benchmarks/dfrs_checks.py [--part 1|2]

1. EASY with ``tasks x cpu x cores`` cores per job (``unit="cores"``) or a whole node per
   task (``unit="nodes"``, the default of ``simulate_batch`` since issue 7's review):
   degradation from bound and normalised underutilisation on five synthetic traces
   (1,000 jobs, 128 nodes). Both units are passed explicitly, so the columns stay what
   their labels say whatever the default.
2. GreedyPM */per/opt=min/minvt=600: normalised underutilisation with the 300 s
   penalty, with no penalty, and with a 1-hour period, on four traces.
"""

from __future__ import annotations

import argparse

from allockit.instances.lublin import dfrs_synthetic
from allockit.models.stretch_bound import stretch_bound
from allockit.simulation.batch import simulate_batch
from allockit.simulation.dfrs import simulate_dfrs

BEST = "GreedyPM */per/opt=min/minvt=600"


def easy_units() -> None:
    """1. EASY with cores per job against whole nodes per task."""
    print("EASY: seed load | degradation cores / nodes | underutilisation cores / nodes")
    for seed, load in ((0, 0.5), (0, 0.7), (1, 0.9), (0, None), (1, 0.3)):
        w = dfrs_synthetic(1000, nodes=128, load=load, seed=seed)
        bound = stretch_bound(w, method="bisection", tol=1e-3).value
        cores = simulate_batch(w, algorithm="easy", unit="cores")
        nodes = simulate_batch(w, algorithm="easy", unit="nodes")
        print(
            f"{seed} {load} | {cores.max_stretch / bound:,.0f} / {nodes.max_stretch / bound:,.0f}"
            f" | {cores.normalized_underutilization:.3f} / "
            f"{nodes.normalized_underutilization:.3f}",
            flush=True,
        )


def penalty_and_period() -> None:
    """2. Underutilisation of the best DFRS algorithm against penalty and period."""
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", type=int, choices=[1, 2], default=None, help="one part only")
    args = parser.parse_args()
    if args.part in (None, 1):
        easy_units()
    if args.part in (None, 2):
        penalty_and_period()


if __name__ == "__main__":
    main()
