"""EASY and the best DFRS algorithm over the whole HPC2N trace (paper, Sec. 6.4.2).

    python benchmarks/dfrs_full_hpc2n.py [--trace hpc2n|FILE]

The paper reports a normalised underutilisation of 8 % for EASY and 10 % for its
algorithms when the full trace is simulated at once (instead of week by week).
"""

from __future__ import annotations

import argparse

from allockit.instances.datasets import trace_path
from allockit.instances.hpc2n import hpc2n_workload
from allockit.instances.swf import read_swf
from allockit.simulation.simulate import simulate

DEFAULT = "hpc2n"  # the data directory's copy (allockit data fetch hpc2n), or a file


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default=DEFAULT)
    parser.add_argument(
        "--algorithms", default="EASY,GreedyPM */per/opt=min/minvt=600", help="comma-separated"
    )
    args = parser.parse_args()
    workload = hpc2n_workload(read_swf(trace_path(args.trace)))
    print(f"{workload.n_jobs} jobs on {workload.platform.nodes} nodes")
    for name in args.algorithms.split(","):
        r = simulate(workload, name.strip())
        c = r.costs()
        print(
            f"{r.algorithm}: normalised underutilisation {r.normalized_underutilization:.3f}, "
            f"max stretch {r.max_stretch:,.1f}, mean stretch {r.mean_stretch:.2f}, "
            f"preemptions/job {c['preemptions_per_job']:.2f}, migrations/job "
            f"{c['migrations_per_job']:.2f}, {r.seconds:.1f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()
