"""How far a partial Table 5 (a random sample of the HPC2N weeks) pins down the full one.

    python benchmarks/table5_sample_ci.py benchmarks/out/dfrs/table5_full.db [--resamples 10000]
        [--seed 7] [--rows ROW;ROW;...]

Reads the table's results store, keeps the weeks whose 119 tasks (118 algorithms and the
bound) all finished, and for each algorithm takes its degradation from bound on each of
them (maximum stretch over the week's bound, as ``dfrs-experiment table5`` averages).
The weeks were run in a seeded random order, so the complete ones are a simple random
sample of the 181. A bootstrap over weeks (the same resampled weeks for every algorithm;
``--resamples`` draws, ``--seed``) gives a 95 % percentile interval for each
algorithm's average over the sample. It is wider than the interval for the average over
the 181 weeks needs to be (the sample is drawn without replacement from a finite set of
weeks; no correction is applied), and heavy tails make it rough: one unsampled bad week
can move an average by more than the interval says. Prints each requested row (default:
RESULTS 12.11's selection), then how many of the 118 paper averages lie inside our
intervals, above them and below them.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
from collections import defaultdict

import numpy as np

from allockit.experiments.dfrs_paper import PAPER_TABLE5

SELECTION = (
    "FCFS;EASY;Greedy */opt=min;GreedyP */opt=avg;GreedyPM */opt=min;Greedy */per/opt=min;"
    "GreedyP/per/opt=min;GreedyP/per/opt=min/minvt=600;GreedyP */per/opt=min/minvt=600;"
    "GreedyPM */per/opt=avg/minvt=600;GreedyPM */per/opt=min/minft=300;MCB8 */opt=min;"
    "MCB8 */opt=min/minvt=600;MCB8/per/opt=min;MCB8 */per/opt=avg;/per/opt=min;"
    "/stretch-per/opt=max"
)


def degradations(store: str) -> tuple[list[str], dict[str, np.ndarray]]:
    """The complete weeks (sorted) and each algorithm's degradation on them, in that order."""
    con = sqlite3.connect(store)
    per_week: dict[str, dict[str, float]] = defaultdict(dict)
    bound: dict[str, float] = {}
    counts: dict[str, int] = defaultdict(int)
    for instance, method, ok, outputs in con.execute(
        "select instance, method, ok, outputs from results"
    ):
        if not ok:
            continue
        counts[instance] += 1
        out = json.loads(outputs)
        if method == "bound":
            bound[instance] = out["bound"]
        else:
            per_week[instance][method] = out["max_stretch"]
    weeks = sorted(w for w, n in counts.items() if n == len(PAPER_TABLE5) + 1 and w in bound)
    values = {
        name: np.array([per_week[w][name] / bound[w] for w in weeks]) for name in PAPER_TABLE5
    }
    return weeks, values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rows", default=SELECTION, help="';'-separated algorithms to print")
    args = parser.parse_args()
    weeks, values = degradations(args.store)
    n = len(weeks)
    if n < 2:
        raise SystemExit(f"{n} complete week(s) in {args.store}: nothing to resample")
    draws = np.random.default_rng(args.seed).integers(0, n, size=(args.resamples, n))
    inside = above = below = 0
    lines = []
    for name, (paper, _std, _max) in PAPER_TABLE5.items():
        means = values[name][draws].mean(axis=1)
        low, high = np.percentile(means, [2.5, 97.5])
        where = "inside" if low <= paper <= high else ("above" if paper > high else "below")
        inside += where == "inside"
        above += where == "above"
        below += where == "below"
        lines.append((name, values[name].mean(), low, high, paper, where))
    print(f"{n} complete weeks; 95 % bootstrap intervals ({args.resamples} resamples, seed "
          f"{args.seed})")
    print("| Algorithm | ours (mean) | 95 % interval | paper | paper is |")
    print("|---|---:|---:|---:|---|")
    wanted = args.rows.split(";")
    for name, mean, low, high, paper, where in lines:
        if name in wanted:
            print(f"| {name} | {mean:,.1f} | {low:,.1f}-{high:,.1f} | {paper:,.1f} | {where} |")
    print(f"paper averages inside our intervals: {inside} of {len(lines)}; above them: "
          f"{above}; below them: {below}")


if __name__ == "__main__":
    main()
