"""DFRS on long HPC2N stretches: thrashing, the rule that drives it, and what stops it.

    python benchmarks/dfrs_thrashing.py --weeks 0-19 [--runs base,p3600,hold3600,easy]
    python benchmarks/dfrs_thrashing.py --whole --runs easy,p3600,hold3600
    python benchmarks/dfrs_thrashing.py --weeks 0-19 --runs candidates

Builds the converted HPC2N weeks A..B (``join_weeks``: week k shifted by (k-A) weeks) or
the whole trace, and simulates the paper's best algorithm GreedyPM */per/opt=min/minvt=600
with the 300 s penalty. Prints one row per run: normalised underutilisation, maximum
stretch, preemptions and migrations per job, the share of allocated CPU that made
progress (the rest went to jobs serving a penalty), and the run time.

Runs: ``easy`` (EASY, whole nodes), ``base`` (period 600, the paper's default),
``p1200``/``p3600`` (period 1,200 / 3,600 s), ``holdS`` (``hold=S``: a job started,
resumed or moved less than S s ago is neither paused nor moved by MCB8 -- allockit's
option, not the paper's). ``candidates`` runs the rule variants tried while looking for
the cause (each a patch of one rule, applied in a child process):

- ``minyield``: MCB8 drops jobs until the rest packs at yield >= 0.01 (reading the
  paper's "at any yield value" as the bisection's floor) -- no change;
- ``penaltyfirst``: a job serving its penalty comes first in MCB8's priority order
  (cannot be paused mid-penalty) -- a little better;
- ``sticky``: MCB8's node bins relabelled to keep as many tasks in place as possible
  (nodes are identical, so the packing is as good) -- a little fewer migrations;
- ``hold1800``/``hold3600``: the hysteresis, which is what stops the alternation.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import sys
import time

import numpy as np

BEST = "GreedyPM */per/opt=min/minvt=600"
TRACE = "hpc2n"  # the data directory's copy: allockit data fetch hpc2n
CANDIDATES = ("base", "minyield", "penaltyfirst", "sticky", "hold1800", "hold3600")


def stretch_arguments(parser: argparse.ArgumentParser):
    """Add the required choice ``--weeks A-B`` or ``--whole`` (the HPC2N stretch of
    ``_workload``); returns the group, for a script's other exclusive choices."""
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--weeks", help="A-B: non-empty weeks A..B, joined")
    where.add_argument("--whole", action="store_true", help="the whole trace")
    return where


def first_jobs(workload, count: int):
    """The first ``count`` jobs of ``workload`` (``--first K`` of the timing scripts)."""
    keep = np.zeros(workload.n_jobs, dtype=bool)
    keep[:count] = True
    return workload.select(keep)


def _workload(weeks: str | None):
    from allockit.instances.datasets import trace_path
    from allockit.instances.hpc2n import hpc2n_workload, join_weeks, split_weeks
    from allockit.instances.swf import read_swf

    whole = hpc2n_workload(read_swf(trace_path(TRACE)))
    if weeks is None:
        return whole.replace(submit=whole.submit - whole.submit[0])
    first, last = (int(x) for x in weeks.split("-"))
    return join_weeks(split_weeks(whole), first, last)


def _patch(run: str) -> None:
    """Apply the rule variant ``run`` (candidates only) in this process."""
    from allockit.simulation import dfrs_policies, dfrs_priority, dfrs_state

    if run == "minyield":
        from allockit.heuristics.mcb import mcb_fill

        original = dfrs_policies.Mcb8Policy.pack

        def pack(self, state, keep, pinned, now, **options):
            fixed, base_mem, _movable, task_job = dfrs_policies._pinned_state(
                state, keep, pinned
            )
            base_load = dfrs_policies._sum_rows(state.counts(fixed), state.cpu[fixed], state.nodes)
            free_cpu = 1.0 - 0.01 * base_load
            if (free_cpu < 0).any() or mcb_fill(
                0.01 * state.cpu[task_job], state.mem[task_job], free_cpu, 1.0 - base_mem
            ) is None:
                return None
            return original(self, state, keep, pinned, now, **options)

        dfrs_policies.Mcb8Policy.pack = pack
    elif run == "penaltyfirst":
        original_key = dfrs_priority.priority_key
        original_keys = dfrs_priority.priority_keys
        top = np.finfo(float).max

        def key(state, j, now):
            if state.status[j] == dfrs_state.RUNNING and state.penalty_until[j] > now:
                return (-1, 0.0, j)
            return original_key(state, j, now)

        def keys(state, jobs, now):
            # the vectorised order (by_priority, MCB8's): penalty first (-inf), then zero
            # virtual time (-max), then the rest (kept above -max)
            base = original_keys(state, jobs, now)
            base = np.where(np.isneginf(base), -top, np.maximum(base, np.nextafter(-top, 0)))
            paying = (state.status[jobs] == dfrs_state.RUNNING) & (state.penalty_until[jobs] > now)
            return np.where(paying, -np.inf, base)

        for module in (dfrs_priority, dfrs_policies):  # (the policies hold the names too)
            module.priority_key, module.priority_keys = key, keys
    elif run == "sticky":
        original_apply = dfrs_state.DfrsState.apply

        def apply(self, jobs, rows, now):
            # relabel the nodes of the new mapping to keep tasks where they were: pair
            # the sorted old and new nodes of every running job, keep the nodes of jobs
            # that stay whole, then match labels by decreasing overlap
            n = self.nodes
            labels = np.arange(n)
            overlap = np.zeros((n, n))
            fixed = set()
            for j, new_row in zip(jobs.tolist(), rows, strict=True):
                if j not in self.running:
                    continue
                old = np.repeat(labels, self.row(j).astype(np.int64))
                new = np.repeat(labels, new_row.astype(np.int64))
                if np.array_equal(old, new):
                    fixed.update(old.tolist())
                np.add.at(overlap, (new, old), 1)
            perm = -np.ones(n, dtype=np.int64)
            used = np.zeros(n, dtype=bool)
            for a in fixed:
                perm[a] = a
                used[a] = True
            pairs = sorted(
                ((overlap[a, b], a, b) for a in range(n) for b in range(n) if overlap[a, b]),
                reverse=True,
            )
            for _, a, b in pairs:
                if perm[a] < 0 and not used[b]:
                    perm[a], used[b] = b, True
            spare = iter(np.flatnonzero(~used).tolist())
            for a in range(n):
                if perm[a] < 0:
                    perm[a] = next(spare)
            relabelled = np.empty_like(rows)
            relabelled[:, perm] = rows
            return original_apply(self, jobs, relabelled, now)

        dfrs_state.DfrsState.apply = apply


def _run(weeks: str | None, run: str) -> dict:
    _patch(run)
    from allockit.simulation.simulate import simulate

    workload = _workload(weeks)
    started = time.perf_counter()
    if run == "easy":
        result = simulate(workload, "EASY")
    else:
        options: dict = {"penalty": 300.0, "period": 600.0}
        if run.startswith("p") and run[1:].isdigit():
            options["period"] = float(run[1:])
        if run.startswith("hold"):
            options["hold"] = float(run[4:])
        result = simulate(workload, BEST, **options)
    s = result.summary()
    return {
        "run": run,
        "jobs": s["jobs"],
        "underutilization": s["underutilization"],
        "max_stretch": s["max_stretch"],
        "preemptions_per_job": s["preemptions_per_job"],
        "migrations_per_job": s["migrations_per_job"],
        "progress_share": s.get("progress_share", 1.0),
        "seconds": time.perf_counter() - started,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    stretch_arguments(parser)
    parser.add_argument("--runs", default="easy,base,p3600,hold3600")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    runs = []
    for name in args.runs.split(","):
        runs.extend(CANDIDATES if name == "candidates" else [name])
    label = "whole trace" if args.whole else f"weeks {args.weeks}"
    print(f"HPC2N {label}; best algorithm = {BEST}, penalty 300 s", flush=True)
    print(
        f"{'run':14} {'jobs':>7} {'underutil':>9} {'max str.':>9} {'preempt/job':>11} "
        f"{'migr/job':>9} {'progress':>9} {'seconds':>8}",
        flush=True,
    )
    # one fresh process per run: a candidate's patch must not leak into the next run
    with concurrent.futures.ProcessPoolExecutor(args.workers, max_tasks_per_child=1) as pool:
        futures = [pool.submit(_run, None if args.whole else args.weeks, r) for r in runs]
        for future in futures:
            row = future.result()
            print(
                f"{row['run']:14} {row['jobs']:7d} {row['underutilization']:9.3f} "
                f"{row['max_stretch']:9.1f} {row['preemptions_per_job']:11.2f} "
                f"{row['migrations_per_job']:9.2f} {row['progress_share']:9.3f} "
                f"{row['seconds']:8.1f}",
                flush=True,
            )


if __name__ == "__main__":
    sys.exit(main())
