"""Cluster reserves, the bank algorithm and the cluster simulator: speed and Figs 3-8.

    python benchmarks/bench_reserves.py            # speed table + scenarios (about 2 min)
    python benchmarks/bench_reserves.py --speed    # speed table only
    python benchmarks/bench_reserves.py --big      # also 100,000 simulated nodes

Speed (issue #15 targets): one bank round on 10,000 nodes x 10 classes (< 10 ms),
cluster reserves on 1,000 x 10 (< 1 s), simulating 900 nodes for 60 simulated seconds
(< 10 s) and 10,000 nodes (report). Each is the median of several runs, and is shown
beside a baseline measured in the same process, so the ratio is what to compare across
machines: for the bank round, one vectorised pass of the same size (row
normalisation and a row-wise argsort); for cluster reserves, HiGHS's LP for step 1 alone
(the highspy path); for the simulator, the same run with the static allocation (no
managers: the cost of the nodes, the dispatcher and the event core). One-time costs
(imports, the first solver call) are reported apart.

Scenarios: Figs 3-8 of Li and Parker over seeds 0-2 (mean and s.d. of the cluster-wide
share of class 3 after the 10 s warm-up, averaged over the seeds), cluster reserves in
the same runs, manager failures at each level and the headline claim ("within 2 % of the
target, s.d. under 1 %") at every scale. Prints markdown.

Also pytest-benchmark cases (``pytest benchmarks/bench_reserves.py``, group
``reserves``), never part of the default test run.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np

SEEDS = (0, 1, 2)


def _median(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _usage(rng: np.random.Generator, n: int, s: int):
    r = rng.dirichlet(np.ones(s), n) * 100
    u = np.minimum(r * rng.uniform(0.0, 1.5, (n, s)), 100.0)
    u[rng.random((n, s)) < 0.2] = 0.0
    u = u / np.maximum(u.sum(axis=1, keepdims=True) / 100, 1.0)
    return r, u


def speed(big: bool) -> list[tuple[str, float, float, str]]:
    """Rows: (case, seconds, baseline seconds, baseline name)."""
    rows = []
    t0 = time.perf_counter()
    from allockit.heuristics.bank import bank_round, largest_remainder

    t_bank = time.perf_counter() - t0
    t0 = time.perf_counter()
    from allockit.models import cluster_reserves_highs as highs
    from allockit.models.cluster_reserves import CRProblem, solve_cluster_reserves

    t_cr = time.perf_counter() - t0
    t0 = time.perf_counter()
    from allockit.simulation.cluster import simulate_cluster
    from allockit.simulation.cluster_scenarios import fig7, scaled

    t_sim = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    r, u = _usage(rng, 10_000, 10)
    d = np.full(10, 10.0)
    t0 = time.perf_counter()
    solve_cluster_reserves(r[:10], u[:10], d)
    t_first = time.perf_counter() - t0
    print(
        f"one-time: import bank {t_bank * 1e3:.0f} ms, cluster reserves {t_cr * 1e3:.0f} ms, "
        f"simulator {t_sim * 1e3:.0f} ms; first cluster-reserves call "
        f"{t_first * 1e3:.0f} ms"
    )

    def baseline_pass():
        x = r * 100 / r.sum(axis=1, keepdims=True)
        largest_remainder(x)

    rows.append(("bank round, 10,000 x 10", _median(lambda: bank_round(r, u, d), 20),
                 _median(baseline_pass, 20), "normalise + round the same array"))
    r1, u1 = r[:1000], u[:1000]
    problem = CRProblem.from_arrays(r1, u1, d)
    rows.append((
        "cluster reserves (fast), 1,000 x 10",
        _median(lambda: solve_cluster_reserves(r1, u1, d), 5),
        _median(lambda: highs.step1_highspy(problem), 5),
        "HiGHS LP of step 1 alone",
    ))
    cfg = fig7(duration=60.0)
    static = fig7(duration=60.0, algorithm="static")
    rows.append((
        "simulate 900 nodes x 60 s (Fig. 7, bank)",
        _median(lambda: simulate_cluster(cfg, seed=0), 3),
        _median(lambda: simulate_cluster(static, seed=0), 3),
        "same run, static allocation",
    ))
    rows.append((
        "simulate 900 nodes x 60 s (Fig. 7, cluster reserves)",
        _median(lambda: simulate_cluster(fig7(algorithm="cluster-reserves"), seed=0), 1),
        rows[-1][2],
        "same run, static allocation",
    ))
    sizes = [10_000] + ([100_000] if big else [])
    for n in sizes:
        cfg = scaled(n, duration=60.0)
        rows.append((
            f"simulate {n:,} nodes x 60 s (bank, {cfg.fanout[0]} per manager)",
            _median(lambda cfg=cfg: simulate_cluster(cfg, seed=0), 1),
            _median(lambda n=n: simulate_cluster(scaled(n, algorithm="static"), seed=0), 1),
            "same run, static allocation",
        ))
    return rows


def scenarios(big: bool) -> None:
    from allockit.simulation.cluster import simulate_cluster
    from allockit.simulation.cluster_scenarios import (
        PAPER,
        fig3,
        fig3_ideal,
        manager_entity,
        scaled,
        scenario,
    )

    def runs(cfg):
        return [simulate_cluster(cfg, seed=s) for s in SEEDS]

    def row(name, cfg, paper):
        rs = runs(cfg)
        mean = np.mean([r.mean for r in rs], axis=0)
        std = np.mean([r.std for r in rs], axis=0)
        ok = all(np.abs(r.mean - r.targets).max() <= 2 and r.std.max() < 1 for r in rs)
        print(
            f"| {name} | {mean[0]:.2f} / {mean[1]:.2f} / {mean[2]:.2f} | {std[2]:.2f} "
            f"| {'yes' if ok else 'no'} | {paper} | {np.mean([r.seconds for r in rs]):.2f} |"
        )
        return rs

    print("\n| scenario | mean share 1 / 2 / 3 (%) | s.d. class 3 | within 2 pp, s.d. < 1 "
          "| paper | s per run |")
    print("|---|---|---|---|---|---|")
    row("Fig. 3 static (4 nodes)", fig3(), "class 3: 2.5 %")
    row("Fig. 3 ideal allocation", fig3_ideal(), "class 3: 10 % (40 % of node 4)")
    for algo in ("bank", "cluster-reserves"):
        row(f"Fig. 4 {algo} (4 nodes, 2 levels)", scenario("fig4", algorithm=algo),
            "bank: 10.5 %, s.d. 2.8 %" if algo == "bank" else "-")
    row("Fig. 5 static reference", scenario("fig5", algorithm="static"), "class 3: ~3 %")
    for algo in ("bank", "cluster-reserves"):
        row(f"Fig. 5 {algo} (100 nodes, 10 managers)", scenario("fig5", algorithm=algo),
            "bank: 8.9 %, s.d. 0.58 %" if algo == "bank" else "-")
    row("Fig. 6 bank (managers every 1.5 s)", scenario("fig6"),
        "like Fig. 5, marginally lower mean")
    row("skewed reports, bank (100 nodes)", scenario("skewed"), "same as aligned")
    row("skewed reports, cluster reserves", scenario("skewed", algorithm="cluster-reserves"),
        "-")
    for algo in ("bank", "cluster-reserves"):
        row(f"Fig. 7 {algo} (900 nodes, 30 managers)", scenario("fig7", algorithm=algo),
            "lower class-3 mean, smaller s.d." if algo == "bank" else "-")
    for n in (10_000,) + ((100_000,) if big else ()):
        row(f"{n:,} nodes, bank ({scaled(n).fanout[0]} per manager)", scaled(n),
            "not simulated (ns-2 ran out of memory)")
    print(f"\npaper's headline: {PAPER['claim']}")

    print("\nFig. 8 (100 nodes, class 1 stopped at 20 s and 40 s for 1.5 s): time from each "
          "restart until all shares are within 2 pp of the targets")
    print("\n| algorithm | hold (samples) | recovery after restart 1 / 2 (s) | in 0.3 s cycles "
          "| paper |")
    print("|---|---|---|---|---|")
    for algo in ("bank", "cluster-reserves"):
        for hold in (1, 3):
            rs = runs(scenario("fig8", algorithm=algo, hold=hold))
            rec = np.nanmean([r.recovery_time for r in rs], axis=0)
            print(f"| {algo} | {hold} | {rec[0]:.2f} / {rec[1]:.2f} | "
                  f"{rec[0] / 0.3:.1f} / {rec[1] / 0.3:.1f} | about 3 cycles |")

    print("\nManager failures in Fig. 5 (bank, 100 nodes) at 30 s; detection after 3 "
          "manager periods; recovery = failure until all shares within 2 pp for 3 samples")
    print("\n| failed | tree | repair (s) | recovery (s) | election + notify messages "
          "| reachable / live nodes after | mean share 3 (%) |")
    print("|---|---|---|---|---|---|---|")
    cases = [
        ("top manager", (10,), 2, 0),
        ("a level-1 manager", (10,), 1, 3),
        ("a plain node", (10,), None, 42),
        ("top manager", (5, 2), 3, 0),
        ("a level-2 manager", (5, 2), 2, 1),
        ("a level-1 manager", (5, 2), 1, 7),
    ]
    for label, fanout, level, index in cases:
        base = scenario("fig5", fanout=fanout)
        entity = index if level is None else manager_entity(base, level, index)
        rs = runs(scenario("fig5", fanout=fanout, failures=((entity, 30.0),)))
        reps = [r.repair_time[0] for r in rs if np.isfinite(r.repair_time[0])]
        rep = np.mean(reps) if reps else float("nan")  # nan: no manager to replace
        rec = np.nanmean([r.recovery_time[0] for r in rs])
        ctl = np.mean([r.message_counts["election"] + r.message_counts["notify"] for r in rs])
        reach = f"{rs[0].reachable_nodes} / {rs[0].live_nodes}"
        m3 = np.mean([r.mean[2] for r in rs])
        print(f"| {label} | {fanout} | {rep:.3f} | {rec:.2f} | {ctl:.0f} | {reach} | {m3:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speed", action="store_true", help="speed table only")
    parser.add_argument("--big", action="store_true", help="also 100,000 nodes")
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, Python "
          f"{platform.python_version()}")  # fmt: skip
    rows = speed(args.big)
    print("\n| case | median s | baseline s | ratio | baseline |")
    print("|---|---|---|---|---|")
    for name, sec, base, what in rows:
        print(f"| {name} | {sec:.4f} | {base:.4f} | {sec / base:.1f} | {what} |")
    if not args.speed:
        scenarios(args.big)


# ---------------------------------------------------------------------------- pytest
try:
    import pytest
except ImportError:  # pragma: no cover
    pytest = None

if pytest is not None:

    @pytest.mark.benchmark(group="reserves")
    def test_bench_bank_round(benchmark):
        from allockit.heuristics.bank import bank_round

        r, u = _usage(np.random.default_rng(0), 10_000, 10)
        benchmark(bank_round, r, u, np.full(10, 10.0))

    @pytest.mark.benchmark(group="reserves")
    def test_bench_cluster_reserves(benchmark):
        from allockit.models.cluster_reserves import solve_cluster_reserves

        r, u = _usage(np.random.default_rng(0), 1_000, 10)
        benchmark(solve_cluster_reserves, r, u, np.full(10, 10.0))

    @pytest.mark.benchmark(group="reserves")
    def test_bench_simulate_fig5(benchmark):
        from allockit.simulation.cluster import simulate_cluster
        from allockit.simulation.cluster_scenarios import fig5

        benchmark(simulate_cluster, fig5(duration=20.0), seed=0)


if __name__ == "__main__":
    main()
