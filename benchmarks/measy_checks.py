"""Checks that explain where the two-tier results differ from the MEASY paper.

    python benchmarks/measy_checks.py saturation [--jobs 50000,100000,200000]
    python benchmarks/measy_checks.py cost-aware [--fw-jobs 50000 --jw-jobs 25000]
    python benchmarks/measy_checks.py reasy-step1 [--jw-jobs 25000]
    python benchmarks/measy_checks.py feedback [--fw-jobs 20000]

- ``saturation``: EASY's mean response time on FWload at loads 0.8 and 0.9 against the
  run length. If it grows with the number of jobs, EASY is not in a steady state (its
  queue grows through the run) and any improvement over it grows with the run length.
- ``cost-aware``: MEASY against KEASY for migration costs 0-2,400 s, with the library's
  rule (the scheduler counts the migration cost in a migrating job's estimated run time,
  ``CHOICES["remaining_estimate"]``) and with a cost-unaware scheduler (the paper does not
  say it knows the cost: a migration is then decided and reserved as if it were free).
- ``reasy-step1``: REASY with the library's step 1 (FCFS stops at a refused bg job, whose
  reservation then protects it, ``CHOICES["merged_list"]``) and with a step 1 that goes
  on past refused jobs (Algorithm 1's loop has no ``break`` on a failed Deploy).
- ``feedback``: EASY and the three variants on FWload with its repeated runs as open
  arrivals (the default) and with the feedback honoured (``feedback=True``).

The ablations replace one rule object of ``allockit.simulation.two_tier_policies`` for
the run; the library's rules are unchanged. Prints markdown tables.
"""

from __future__ import annotations

import argparse
import contextlib
import time

from allockit.simulation import two_tier, two_tier_policies
from allockit.simulation.two_tier import simulate_two_tier

COSTS = (0.0, 240.0, 480.0, 900.0, 1500.0, 2400.0)


def _fw(jobs: int, load: float, seed: int = 0):
    from allockit.instances.feitelson96 import feitelson96_workload

    return feitelson96_workload(jobs, procs=320, load=load, cpu_usage=True, estimates=True,
                                seed=seed)  # fmt: skip


def _jw(jobs: int, load: float, seed: int = 0):
    from allockit.instances.jann97 import jann97_workload

    return jann97_workload(jobs, procs=320, load=load, cpu_usage=True, estimates=True,
                           seed=seed)  # fmt: skip


class CostUnawareMigrate(two_tier_policies.MigrateDeploy):
    """MEASY's Deploy with a scheduler that does not know the migration cost."""

    def moved_runtime(self, state, j, now):
        return state.remaining_estimate(j, now)

    def move(self, state, j, now):
        super().move(state, j, now)
        state.est_end[j] -= state.migration_cost  # reserved as if the move were free
        return True


class ContinuingFcfs(two_tier_policies.TwoTierScheduler):
    """Step 1 goes on past a refused job (REASY's only refusals)."""

    def fcfs(self, state, now):
        for j in list(state.merged):
            if state.size[j] > state.idle_fg:
                break
            self.deploy.deploy(state, j, now)


@contextlib.contextmanager
def _scheduler(make):
    """Run ``simulate_two_tier`` with ``make(name, background)`` as its scheduler."""
    original = two_tier.scheduler_for
    two_tier.scheduler_for = make
    try:
        yield
    finally:
        two_tier.scheduler_for = original


def saturation(args) -> None:
    print("| load | jobs | EASY mean response (s) | EASY mean bounded slowdown | "
          "MEASY mean response (s) | MEASY improvement |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|")
    for load in (0.8, 0.9):
        for jobs in args.jobs:
            w = _fw(jobs, load)
            easy = simulate_two_tier(w, "MEASY", background=False)
            measy = simulate_two_tier(w, "MEASY", seed=0)
            gain = 100 * (1 - measy.mean_response_time / easy.mean_response_time)
            print(f"| {load} | {jobs:,} | {easy.mean_response_time:,.0f} | "
                  f"{easy.mean_bounded_slowdown:,.1f} | {measy.mean_response_time:,.0f} | "
                  f"{gain:.1f} % |", flush=True)  # fmt: skip


def cost_aware(args) -> None:
    print("| workload | load | cost (s) | MEASY / KEASY response, cost-aware (library) | "
          "cost-unaware |")  # fmt: skip
    print("|---|---|---:|---:|---:|")

    def unaware(name, background=True):
        return two_tier_policies.TwoTierScheduler(
            CostUnawareMigrate(), two_tier_policies.EasyReservation(), background=background
        )

    for label, make, jobs in (("FWload", _fw, args.fw_jobs), ("JWload", _jw, args.jw_jobs)):
        for load in (0.7, 0.9):
            w = make(jobs, load)
            keasy = simulate_two_tier(w, "KEASY", seed=0).mean_response_time
            for cost in COSTS:
                aware = simulate_two_tier(w, "MEASY", migration_cost=cost, seed=0)
                with _scheduler(unaware):
                    blind = simulate_two_tier(w, "MEASY", migration_cost=cost, seed=0)
                print(f"| {label} | {load} | {cost:g} | {aware.mean_response_time / keasy:.3f} | "
                      f"{blind.mean_response_time / keasy:.3f} |", flush=True)  # fmt: skip


def reasy_step1(args) -> None:
    print("| workload | load | EASY | KEASY | REASY (library) | REASY, step 1 goes on | MEASY |")
    print("|---|---|---:|---:|---:|---:|---:|")

    def continuing(name, background=True):
        base = two_tier_policies.scheduler_for(name, background=background)
        return ContinuingFcfs(base.deploy, base.reservation, background=background)

    for label, make, jobs in (("FWload", _fw, args.fw_jobs), ("JWload", _jw, args.jw_jobs)):
        for load in (0.5, 0.7, 0.9):
            w = make(jobs, load)
            cells = [simulate_two_tier(w, "MEASY", background=False)]
            cells.append(simulate_two_tier(w, "KEASY", seed=0))
            cells.append(simulate_two_tier(w, "REASY", seed=0))
            with _scheduler(continuing):
                cells.append(simulate_two_tier(w, "REASY", seed=0))
            cells.append(simulate_two_tier(w, "MEASY", seed=0))
            text = " | ".join(
                f"{r.mean_response_time:,.0f} / {r.mean_bounded_slowdown:.1f}" for r in cells
            )
            print(f"| {label} | {load} | {text} |", flush=True)
    print("\nEach cell: mean response time (s) / mean bounded slowdown.")


def feedback(args) -> None:
    print("| load | feedback | EASY | KEASY | REASY | MEASY |")
    print("|---|---|---:|---:|---:|---:|")
    for load in (0.6, 0.9):
        w = _fw(args.fw_jobs, load)
        for fb in (False, True):
            cells = [simulate_two_tier(w, "MEASY", background=False, feedback=fb)]
            cells += [simulate_two_tier(w, n, feedback=fb, seed=0) for n in ("KEASY", "REASY",
                                                                              "MEASY")]  # fmt: skip
            text = " | ".join(
                f"{r.mean_response_time:,.0f} / {r.mean_bounded_slowdown:.1f}" for r in cells
            )
            print(f"| {load} | {'on' if fb else 'off'} | {text} |", flush=True)
    print("\nEach cell: mean response time (s, from the actual submission) / mean bounded "
          "slowdown.")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", choices=["saturation", "cost-aware", "reasy-step1", "feedback"])
    parser.add_argument("--jobs", default="50000,100000,200000")
    parser.add_argument("--fw-jobs", type=int, default=50_000)
    parser.add_argument("--jw-jobs", type=int, default=25_000)
    args = parser.parse_args()
    args.jobs = [int(x) for x in args.jobs.split(",")]
    start = time.perf_counter()
    {"saturation": saturation, "cost-aware": cost_aware, "reasy-step1": reasy_step1,
     "feedback": feedback}[args.check](args)  # fmt: skip
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
