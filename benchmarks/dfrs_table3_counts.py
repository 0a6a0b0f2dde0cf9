"""DFRS Table 3: the paper's preemption and migration counts beside allockit's, counted
several ways, to find which counting rule and which hour the paper used.

    python benchmarks/dfrs_table3_counts.py [--seeds 5] [--loads 0.7,0.8,0.9]

Scaled Lublin traces (1,000 jobs, 128 nodes, load >= 0.7, as Table 3), the paper's two
best algorithms. Columns: per hour of schedule (makespan) and per hour of submissions;
per job; and the alternatives: a resume on other nodes than the job was paused on counted
as a migration too (``mig+resume-elsewhere``), and counts per task instead of per job.
"""

from __future__ import annotations

import argparse

import numpy as np

from allockit.instances.lublin import dfrs_synthetic
from allockit.simulation.dfrs import simulate_dfrs

ALGORITHMS = ("GreedyP */per/opt=min/minvt=600", "GreedyPM */per/opt=min/minvt=600")
#: Table 3 of the paper (averages): preemptions/h, migrations/h, preemptions/job, migrations/job
PAPER = {
    "GreedyP */per/opt=min/minvt=600": (37.70, 52.14, 5.56, 6.34),
    "GreedyPM */per/opt=min/minvt=600": (33.80, 56.45, 5.11, 6.84),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--loads", default="0.7,0.8,0.9")
    args = parser.parse_args()
    loads = [float(x) for x in args.loads.split(",")]
    names = [
        "pre/h", "mig/h", "pre/subm-h", "mig/subm-h", "pre/job", "mig/job",
        "mig+resume-elsewhere/job", "task-pre/job", "task-mig/job",
    ]
    for algorithm in ALGORITHMS:
        rows = []
        for seed in range(args.seeds):
            for load in loads:
                w = dfrs_synthetic(1000, nodes=128, load=load, seed=seed)
                r = simulate_dfrs(w, algorithm)
                s, c, n = r.summary(), r.costs(), w.n_jobs
                rows.append(
                    [
                        c["preemptions_per_hour"],
                        c["migrations_per_hour"],
                        c["preemptions_per_submission_hour"],
                        c["migrations_per_submission_hour"],
                        s["preemptions"] / n,
                        s["migrations"] / n,
                        (s["migrations"] + s["resumes_elsewhere"]) / n,
                        s["task_preemptions"] / n,
                        s["task_migrations"] / n,
                    ]
                )
        a = np.array(rows)
        paper = PAPER[algorithm]
        print(f"\n{algorithm} ({len(rows)} traces; paper: pre/h {paper[0]}, mig/h {paper[1]}, "
              f"pre/job {paper[2]}, mig/job {paper[3]})")
        for name, mean, top in zip(names, a.mean(axis=0), a.max(axis=0), strict=True):
            print(f"  {name:26} {mean:8.2f}  (max {top:.2f})")


if __name__ == "__main__":
    main()
