"""DRFH speed, and a utilisation comparison like the paper's Table II.

    python benchmarks/bench_drfh.py

1. The DRFH LP on the whole Google pool (12,583 servers in 10 classes) with 1,000 users.
2. Progressive filling with 1,000 users with finite task counts.
3. Best-Fit DRFH placing about 100,000 tasks on 2,000 servers drawn from the mix.
4. Table II-like: 2,000 servers drawn from the mix, 200 synthetic users with more tasks
   than fit; CPU and memory utilisation of First-Fit, Best-Fit and the slot scheduler
   with 10-20 slots per largest server, once the cluster is full.
5. Fig. 5-like: users arriving over a synthetic day with task durations; time-weighted
   mean utilisation of Best-Fit, First-Fit and 14 slots per largest server.
"""

from __future__ import annotations

import time

from allockit.heuristics.drfh_tasks import best_fit, first_fit, slots
from allockit.instances.drfh import DRFHInstance, google_servers, random_users
from allockit.models.drfh_lp import drfh_lp, progressive_filling


def _inst(servers, users) -> DRFHInstance:
    return DRFHInstance.from_dict({"resources": ["cpu", "mem"], "servers": servers, "users": users})


def main() -> None:
    pool = google_servers()
    inst = _inst(pool, random_users(1000, seed=1, tasks=None))
    start = time.perf_counter()
    r = drfh_lp(inst)
    print(
        f"LP, full Google pool ({int(inst.count.sum())} servers, {inst.n_classes} classes), "
        f"1000 users: {time.perf_counter() - start:.3f} s (g = {r.dominant_share[0]:.2e})"
    )
    inst = _inst(pool, random_users(1000, seed=2, tasks=(10, 5000)))
    start = time.perf_counter()
    r = progressive_filling(inst)
    print(
        f"progressive filling, 1000 finite users: {time.perf_counter() - start:.2f} s ({r.message})"
    )
    servers = google_servers(2000, seed=3)
    inst = _inst(
        servers, random_users(60, seed=4, min_share=0.004, max_share=0.008, tasks=(1500, 2500))
    )
    best_fit(_inst(servers[:1], random_users(1, seed=0)))  # load the compiled loop
    start = time.perf_counter()
    r = best_fit(inst)
    print(
        f"Best-Fit on 2000 servers: {int(r.tasks.sum())} tasks placed of "
        f"{int(inst.tasks.sum())} in {time.perf_counter() - start:.2f} s"
    )
    inst = _inst(servers, random_users(200, seed=5, max_share=0.1, tasks=None))
    print(f"\n{'scheduler':<24} {'CPU util':>9} {'mem util':>9}   (paper, Table II)")
    paper = {
        10: (35.1, 23.4),
        12: (42.2, 27.4),
        14: (43.9, 28.0),
        16: (45.4, 24.2),
        20: (40.6, 20.0),
    }
    for name, fn in (("Best-Fit DRFH", best_fit), ("First-Fit DRFH", first_fit)):
        u = fn(inst).utilization
        print(f"{name:<24} {100 * u[0]:>8.1f}% {100 * u[1]:>8.1f}%")
    for s, (pc, pm) in paper.items():
        u = slots(inst, per_largest=s).utilization
        print(
            f"{f'Slots, {s} per max server':<24} {100 * u[0]:>8.1f}% {100 * u[1]:>8.1f}%"
            f"   ({pc}%, {pm}%)"
        )


def dynamic() -> None:
    """5. Fig. 5-like: one synthetic 8-hour day on 2,000 servers, time-weighted means."""
    from allockit.experiments.drfh import fig5_comparison
    from allockit.simulation.drfh_dynamic import mean_utilization

    start = time.perf_counter()
    runs = fig5_comparison(servers=2000, users=300, hours=8.0, seed=1)
    print(f"\ndynamic day (2000 servers, 300 users, 8 h; {time.perf_counter() - start:.1f} s):")
    for name, trace in runs.items():
        u = mean_utilization(trace)
        print(f"  {name:<12} mean CPU {100 * u[0]:5.1f}%  mean memory {100 * u[1]:5.1f}%")


if __name__ == "__main__":
    main()
    dynamic()
