"""Tables of issue 28 from a MEASY experiment store (runs of ``allockit measy-experiment``).

    python benchmarks/measy_issue28.py STORE loads|reasy|seeds|lost [--jobs N]

- ``loads``: MEASY's improvement over EASY (response time, bounded slowdown) per load on
  FWload and JWload (Figs 6-7, seed 0), and the max / mean over both workloads for
  every window of consecutive loads, beside the paper's 41.1 / 23.1 % and 82.9 / 69.3 %;
- ``reasy``: REASY under each reading of Algorithm 3 (``reasy_extra``,
  ``reasy_protect``) beside EASY, KEASY and MEASY, and the worst variant per load;
- ``seeds``: Figs 6-7 over the seeds in the store (0-4): per load and algorithm the mean
  over seeds of the mean response time and slowdown with a 95 % Student-t interval
  across seeds, and how often each variant is the best and the worst;
- ``figures``: Figs 8-14 over the seeds in the store (0-4): Fig. 8's migrations per job
  per load on both workloads; Figs 9-12's response times per load with 95 % intervals
  across seeds and, per seed, whether MEASY beats KEASY and both beat EASY at every load;
  Figs 13-14's MEASY/KEASY response ratio per migration cost (mean over the loads, then
  over seeds) and each seed's crossover (last cost where MEASY is better, first where it
  is worse), beside the paper's claims;
- ``lost``: KEASY's progress lost per kill (weighted by size) per load, the migration
  cost at which a move costs what a kill does.

The tasks are rebuilt with ``experiment_tasks`` for the paper's job counts (``--jobs N``:
N jobs per workload, as ``measy-experiment --jobs``) and matched to the store's rows by
key, so only rows of those exact tasks are used.
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics

LOADS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
READINGS = (("idle", True), ("line17", False), ("line17", True), ("idle", False))
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447}


JOBS: dict[str, int] = {}


def table(store: str, figure: str, **changes):
    return whole_table(store, figure, **changes)["series"]


def whole_table(store: str, figure: str, **changes):
    from allockit.experiments.measy import aggregate, experiment_tasks, measy_sets
    from allockit.runner import read_rows

    sets = measy_sets(**JOBS, **changes)
    return aggregate(figure, read_rows(store), experiment_tasks(figure, sets))


def interval(values: list[float], digits: int = 0) -> str:
    """``mean [low, high]``: the 95 % Student-t interval of the mean over the seeds."""
    m = statistics.fmean(values)
    h = T975[len(values) - 1] * statistics.stdev(values) / math.sqrt(len(values))
    return f"{m:,.{digits}f} [{m - h:,.{digits}f}, {m + h:,.{digits}f}]"


def gain(base: float, value: float) -> float:
    return 100.0 * (base - value) / base


def loads(store: str) -> None:
    per_load: dict[float, list[tuple[float, float]]] = {}
    print("| load | FWload response / slowdown gain (%) | JWload response / slowdown gain (%) |")
    print("|---:|---:|---:|")
    cells: dict[float, list[str]] = {}
    for figure in ("fig6", "fig7"):
        series = table(store, figure, loads=LOADS)
        for load in LOADS:
            x = f"{load:g}"
            easy, measy = series.get("EASY", {}).get(x), series.get("MEASY", {}).get(x)
            if not easy or not measy:
                cells.setdefault(load, []).append("–")
                continue
            r = gain(easy["mean_response_time"], measy["mean_response_time"])
            s = gain(easy["mean_bounded_slowdown"], measy["mean_bounded_slowdown"])
            per_load.setdefault(load, []).append((r, s))
            cells.setdefault(load, []).append(f"{r:.1f} / {s:.1f}")
    for load in LOADS:
        print(f"| {load:g} | " + " | ".join(cells.get(load, ["–", "–"])) + " |")
    print()
    print("| loads | points | response gain max / mean (%) | slowdown gain max / mean (%) |")
    print("|---|---:|---:|---:|")
    print("| paper | | 41.1 / 23.1 | 82.9 / 69.3 |")
    done = [x for x in LOADS if per_load.get(x)]
    for width in (2, 3, 4, 5):
        for k in range(len(done) - width + 1):
            window = done[k : k + width]
            if any(round(b - a, 6) != 0.1 for a, b in itertools.pairwise(window)):
                continue
            rs = [r for x in window for r, _ in per_load[x]]
            ss = [s for x in window for _, s in per_load[x]]
            print(f"| {window[0]:g}-{window[-1]:g} | {len(rs)} | "
                  f"{max(rs):.1f} / {statistics.fmean(rs):.1f}"
                  f" | {max(ss):.1f} / {statistics.fmean(ss):.1f} |")


def reasy(store: str) -> None:
    print("| workload | load | EASY | KEASY | MEASY | " + " | ".join(
        f"REASY {e}{'' if p else ', unprotected'}" for e, p in READINGS)
        + " | worst variant (default / line 17 literal) |")
    print("|---|---:|---:|---:|---:|" + "---:|" * len(READINGS) + "---|")
    for figure, name in (("fig6", "FWload"), ("fig7", "JWload")):
        by_reading = {
            (e, p): table(store, figure, loads=LOADS, reasy_extra=e, reasy_protect=p)
            for e, p in READINGS
        }
        base = by_reading[("idle", True)]
        for load in LOADS:
            x = f"{load:g}"

            def cell(series, alg, x=x):
                p = series.get(alg, {}).get(x)
                return p and f"{p['mean_response_time']:,.0f} / {p['mean_bounded_slowdown']:.1f}"

            if not base.get("EASY", {}).get(x):
                continue
            row = [cell(base, "EASY"), cell(base, "KEASY"), cell(base, "MEASY")]
            row += [cell(by_reading[r], "REASY") or "–" for r in READINGS]
            worst = []
            for r in (("idle", True), ("line17", False)):
                s = by_reading[r]
                if not s.get("REASY", {}).get(x):
                    worst.append("–")
                    continue
                resp = {a: s[a][x]["mean_response_time"] for a in ("KEASY", "REASY", "MEASY")}
                worst.append(max(resp, key=resp.get)
                             + (" (> EASY)" if resp["REASY"] > s["EASY"][x]["mean_response_time"]
                                else ""))
            print(f"| {name} | {x} | " + " | ".join(row) + " | " + " / ".join(worst) + " |")
    print("\nEach cell: mean response time (s) / mean bounded slowdown.")


def seeds(store: str) -> None:
    algs = ("EASY", "KEASY", "REASY", "MEASY")
    print("| workload | load | seeds | " + " | ".join(
        f"{a} response (s) [95 % CI over seeds]" for a in algs)
        + " | MEASY gain over EASY (%) [95 % CI] | best / worst variant (response) per seed |")
    print("|---|---:|---:|" + "---:|" * (len(algs) + 1) + "---|")
    for figure, name in (("fig6", "FWload"), ("fig7", "JWload")):
        runs = {s: table(store, figure, loads=LOADS, seed=s) for s in range(5)}
        for load in LOADS:
            x = f"{load:g}"
            have = [s for s, t in runs.items() if all(t.get(a, {}).get(x) for a in algs)]
            if len(have) < 2:
                continue
            cells = []
            for a in algs:
                v = [runs[s][a][x]["mean_response_time"] for s in have]
                m, sd = statistics.fmean(v), statistics.stdev(v)
                h = T975[len(v) - 1] * sd / math.sqrt(len(v))
                cells.append(f"{m:,.0f} [{m - h:,.0f}, {m + h:,.0f}]")
            g = [gain(runs[s]["EASY"][x]["mean_response_time"],
                      runs[s]["MEASY"][x]["mean_response_time"]) for s in have]
            h = T975[len(g) - 1] * statistics.stdev(g) / math.sqrt(len(g))
            cells.append(f"{statistics.fmean(g):.1f} [{statistics.fmean(g) - h:.1f}, "
                         f"{statistics.fmean(g) + h:.1f}]")
            ranks = []
            for s in have:
                resp = {a: runs[s][a][x]["mean_response_time"] for a in algs[1:]}
                ranks.append(f"{min(resp, key=resp.get)[0]}/{max(resp, key=resp.get)[0]}")
            print(f"| {name} | {x} | {len(have)} | " + " | ".join(cells) + " | "
                  + " ".join(ranks) + " |")
    print("\nBest/worst: K = KEASY, R = REASY, M = MEASY, one pair per seed in seed order.")


def figures(store: str) -> None:
    from allockit.experiments.measy import PAPER_CLAIMS

    print("**Fig. 8** (MEASY's migrations per job; the paper: "
          f"{PAPER_CLAIMS['fig8']})\n")
    print("| load | seeds | FWload [95 % CI] | JWload [95 % CI] | JWload > FWload in seeds |")
    print("|---:|---:|---:|---:|---:|")
    runs = {s: table(store, "fig8", loads=LOADS, seed=s) for s in range(5)}
    for load in LOADS:
        x = f"{load:g}"
        have = [s for s, t in runs.items() if all(t.get(m, {}).get(x) for m in
                                                  ("fwload", "jwload"))]
        if len(have) < 2:
            continue
        fw = [runs[s]["fwload"][x]["migrations_per_job"] for s in have]
        jw = [runs[s]["jwload"][x]["migrations_per_job"] for s in have]
        more = sum(j > f for f, j in zip(fw, jw, strict=True))
        print(f"| {x} | {len(have)} | {interval(fw, 3)} | {interval(jw, 3)} | "
              f"{more} of {len(have)} |")
    algs = ("EASY", "KEASY", "MEASY")
    for figure in ("fig9", "fig10", "fig11", "fig12"):
        runs = {s: whole_table(store, figure, loads=LOADS, seed=s) for s in range(5)}
        title = next(iter(runs.values()))["title"]
        print(f"\n**{figure[:3].title()}. {figure[3:]}: {title}** (the paper: "
              f"{PAPER_CLAIMS[figure]})\n")
        print("| load | seeds | " + " | ".join(f"{a} response (s) [95 % CI]" for a in algs)
              + " | MEASY gain over EASY (%) [95 % CI] | MEASY <= KEASY <= EASY per seed "
              "(y, or which pair is out of order) |")
        print("|---:|---:|" + "---:|" * (len(algs) + 1) + "---|")
        held = {s: True for s in runs}
        for load in LOADS:
            x = f"{load:g}"
            have = [s for s, t in runs.items()
                    if all(t["series"].get(a, {}).get(x) for a in algs)]
            if len(have) < 2:
                continue
            resp = {s: {a: runs[s]["series"][a][x]["mean_response_time"] for a in algs}
                    for s in have}
            cells = [interval([resp[s][a] for s in have]) for a in algs]
            cells.append(interval([gain(resp[s]["EASY"], resp[s]["MEASY"]) for s in have], 1))
            order = []
            for s in have:
                broken = [f"{a[0]}>{b[0]}" for a, b in (("MEASY", "KEASY"), ("KEASY", "EASY"))
                          if resp[s][a] > resp[s][b]]
                held[s] = held[s] and not broken
                order.append(",".join(broken) or "y")
            print(f"| {x} | {len(have)} | " + " | ".join(cells) + " | " + " ".join(order) + " |")
        print(f"\nThe order held at every load in seeds {[s for s, h in held.items() if h]}.")
    for figure in ("fig13", "fig14"):
        runs = {s: whole_table(store, figure, seed=s) for s in range(5)}
        # the seeds with every cost of the figure (a seed still running has fewer)
        size = max(len(t["checks"].get("response_ratio_by_cost") or {}) for t in runs.values())
        have = [s for s, t in runs.items()
                if size and len(t["checks"].get("response_ratio_by_cost") or {}) == size]
        if len(have) < 2:
            continue
        title = runs[have[0]]["title"]
        print(f"\n**{figure[:3].title()}. {figure[3:]}: {title}** (the paper: "
              f"{PAPER_CLAIMS[figure]})\n")
        print("| migration cost (s) | seeds | MEASY / KEASY response, mean over loads "
              "[95 % CI over seeds] | seeds where MEASY is better |")
        print("|---:|---:|---:|---:|")
        costs = sorted(set.intersection(*(set(runs[s]["checks"]["response_ratio_by_cost"])
                                          for s in have)))
        for c in costs:
            ratios = [runs[s]["checks"]["response_ratio_by_cost"][c] for s in have]
            better = sum(r <= 1.0 for r in ratios)
            print(f"| {c:,.0f} | {len(have)} | {interval(ratios, 3)} | {better} of "
                  f"{len(have)} |")
        cross = [(runs[s]["checks"]["response_last_cost_measy_better"],
                  runs[s]["checks"]["response_first_cost_measy_worse"]) for s in have]
        print("\nCrossover per seed (last cost MEASY better, first cost MEASY worse): "
              + "; ".join(f"seed {s}: {lo} / {hi}" for s, (lo, hi) in zip(have, cross,
                                                                           strict=True)))


def lost(store: str) -> None:
    print("| load | FWload kills | FWload lost progress per kill (s) | JWload kills | "
          "JWload lost progress per kill (s) |")
    print("|---:|---:|---:|---:|---:|")
    series = [table(store, f, loads=LOADS).get("KEASY", {}) for f in ("fig6", "fig7")]
    for load in LOADS:
        x = f"{load:g}"
        cells = []
        for s in series:
            p = s.get(x)
            cells += ([f"{p['kills']:,}", f"{p['lost_progress_per_kill']:,.0f}"]
                      if p and p.get("lost_progress_per_kill") is not None else ["–", "–"])
        print(f"| {x} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("table", choices=["loads", "reasy", "seeds", "figures", "lost"])
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    if args.jobs:
        JOBS["jobs"] = args.jobs
    tables = {"loads": loads, "reasy": reasy, "seeds": seeds, "figures": figures, "lost": lost}
    tables[args.table](args.store)


if __name__ == "__main__":
    main()
