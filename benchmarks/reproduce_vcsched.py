"""Reproduce the VCSched paper's static experiments (Stillwell et al. 2009, Sec. 4).

    python benchmarks/reproduce_vcsched.py table1 [--workers 2]     # small set, MCB1-8
    python benchmarks/reproduce_vcsched.py table7 [--workers 2]     # large set, MCB1-8
    python benchmarks/reproduce_vcsched.py small [--workers 2]      # MILP, LP, MCB8, greedy, RR*

Instances come from ``iter_vcsched_set(..., seed=0)``. Results go to resumable stores in
``benchmarks/out/`` (rerun to resume an interrupted run). MCB uses the papers' search
accuracy 0.01 here. Tables are printed next to the published numbers.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from allockit.experiments.compare import comparison_rows, format_table, summarize
from allockit.experiments.vcsched import vcsched_tasks
from allockit.experiments.vcsched_table1 import PAPER_TABLE1, PAPER_TABLE7
from allockit.instances.generators import iter_vcsched_set
from allockit.runner import run_sweep
from allockit.runner.store import read_rows

OUT = Path(__file__).parent / "out"
MCB = [f"mcb{k}" for k in range(1, 9)]
TABLE1, TABLE7 = PAPER_TABLE1, PAPER_TABLE7  # the paper's numbers, kept in one place
SMALL = ["milp", "lp", "mcb8", "gr", "sg", "gb", "sgb", "rrnd", "rrnz"]


def _run(set_name: str, methods: list[str], store: Path, workers: int, time_limit=None):
    items = [(stem, inst.to_dict()) for stem, inst in iter_vcsched_set(set_name, seed=0)]
    tasks = []
    for method in methods:
        params = {"tol": [0.01]} if method.startswith("mcb") else {}
        tasks += vcsched_tasks(
            items, methods=[method], params=params, seeds=[0], time_limit=time_limit
        )
    start = time.perf_counter()
    summary = run_sweep(tasks, store, workers=workers, sweep=store.stem)
    print(
        f"{summary.ran} tasks run, {summary.skipped} already done, {summary.failed} failed,"
        f" {time.perf_counter() - start:.1f} s"
    )
    wanted = {t.key for t in tasks}
    return comparison_rows([r for r in read_rows(store) if r["key"] in wanted]), len(items)


def _mcb_table(flat, published):
    summaries = {s.method: s for s in summarize(flat, MCB)}
    print(f"{'algorithm':<10}{'avg %deg':>10}{'paper':>8}{'max %deg':>10}{'paper':>8}{'fail':>6}")
    for method, (avg, mx) in published.items():
        s = summaries[method]
        print(
            f"{method.upper():<10}{s.avg_degradation:>10.2f}{avg:>8.2f}"
            f"{s.max_degradation:>10.2f}{mx:>8.2f}{s.failures:>6}"
        )


def _ratio(flat, a: str, b: str) -> str:
    by = {}
    for r in flat:
        if not r["failed"]:
            by.setdefault(r["instance"], {})[r["method"]] = r["min_yield"]
    pairs = [(v[a], v[b]) for v in by.values() if a in v and b in v and v[b] > 0]
    if not pairs:
        return "-"
    mean_a = statistics.fmean(x for x, _ in pairs)
    mean_b = statistics.fmean(y for _, y in pairs)
    return f"{100 * (mean_a / mean_b - 1):.1f} % over {len(pairs)} instances"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment", choices=["table1", "table7", "small"])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    if args.experiment in ("table1", "table7"):
        set_name = "small" if args.experiment == "table1" else "large"
        flat, n = _run(set_name, MCB, OUT / f"{args.experiment}.db", args.workers)
        print(f"{args.experiment}: {set_name} set, {n} instances, MCB tol 0.01")
        _mcb_table(flat, TABLE1 if args.experiment == "table1" else TABLE7)
        return
    flat, n = _run("small", SMALL, OUT / "small-comparison.db", args.workers, time_limit=600)
    print(f"small set, {n} instances")
    print(format_table(summarize(flat, SMALL)))
    print(f"LP above MILP (mean min yield): {_ratio(flat, 'lp', 'milp')}   (paper: about 4 %)")
    print(f"MILP above MCB8:                {_ratio(flat, 'milp', 'mcb8')}   (paper: about 2 %)")
    for g in ("gr", "sg", "gb", "sgb"):
        print(
            f"MILP above {g.upper():<4}:               {_ratio(flat, 'milp', g)}   (paper: 11-13 %)"
        )
    infeasible = sum(1 for r in flat if r["method"] == "milp" and r["status"] == "infeasible")
    print(f"instances proven infeasible by the MILP: {infeasible} (paper: 60 judged infeasible)")


if __name__ == "__main__":
    main()
