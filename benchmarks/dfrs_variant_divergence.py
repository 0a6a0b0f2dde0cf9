"""Where each minft/minvt variant of Table 5 first leaves its base algorithm's path.

    python benchmarks/dfrs_variant_divergence.py --weeks 120 [--bases 'A;B'] [--trace F]

A ``/minft=X`` or ``/minvt=X`` variant differs from its base algorithm only at the
periodic remap (the jobs it pins), so until its first such difference it goes through
the very states its base goes through. A simulator that cloned the base's run at that
point ("simulation cloning") would skip the variant's shared prefix and keep its
schedule bit for bit; this script measures how much that could save.

For each HPC2N week and each base (by default the 22 bases of the paper's Table 5 that
have the four variants ``minft=300``, ``minft=600``, ``minvt=300``, ``minvt=600``;
penalty 300 s, period 600 s, the LP memo on as in a sweep), it runs the base and its
variants in one process and records, after every event, a digest of the state (status,
virtual times, yields, penalty ends, the running jobs and their tasks per node) and the
CPU clock. It prints, per variant, the first event whose digest differs from the base's
and the share of the variant's events and CPU before it, then the share of all the
variants' CPU that lies before their first difference: the most that cloning could
save. (The digest is taken by wrapping the driver's private ``_Driver.handle``.)
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time

import numpy as np

TRACE = os.path.join(
    os.path.dirname(__file__), "..", "..", "shared", "data", "traces", "HPC2N-2002-2.2-cln.swf.gz"
)
VARIANTS = ("/minft=300", "/minft=600", "/minvt=300", "/minvt=600")


def table5_bases() -> list[str]:
    """The Table 5 algorithms that have all four minft/minvt variants in the table."""
    from allockit.experiments.dfrs import PAPER_TABLE5

    names = set(PAPER_TABLE5)
    return [a for a in PAPER_TABLE5 if all(a + v in names for v in VARIANTS)]


def recorder() -> list[tuple[float, str, float]]:
    """Wrap the DFRS driver so every handled event appends (time, digest, CPU clock)."""
    from allockit.simulation import dfrs

    events: list[tuple[float, str, float]] = []
    handle = dfrs._Driver.handle

    def recorded(self, event) -> None:
        handle(self, event)
        state = self.state
        digest = hashlib.blake2b(digest_size=12)
        jobs = state.running_jobs()
        rows = state.rows.rows(jobs) if jobs.size else jobs
        for part in (state.status, state.vt, state.yields, state.penalty_until, jobs, rows):
            digest.update(np.ascontiguousarray(part).tobytes())
        events.append((self.events.now, digest.hexdigest(), time.process_time()))

    dfrs._Driver.handle = recorded
    return events


def first_difference(base: list[str], variant: list[str]) -> int:
    """Index of the first differing digest (the shorter length if one is a prefix)."""
    for k, (a, b) in enumerate(zip(base, variant, strict=False)):
        if a != b:
            return k
    return min(len(base), len(variant))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weeks", required=True, help="comma-separated HPC2N week indices")
    parser.add_argument("--bases", help="';'-separated base algorithms (default: Table 5's 22)")
    parser.add_argument("--trace", default=TRACE)
    args = parser.parse_args()
    from allockit.instances.hpc2n import hpc2n_workload, split_weeks
    from allockit.instances.swf import read_swf
    from allockit.simulation.simulate import simulate

    split = split_weeks(hpc2n_workload(read_swf(args.trace)))
    bases = args.bases.split(";") if args.bases else table5_bases()
    events = recorder()
    for base in bases:  # load the kernels before any clock starts
        simulate(split[0], base, penalty=300.0, period=600.0)
    total = before = 0.0
    print("| week | base | variant | events | first difference (event, time) "
          "| events before | CPU before | CPU |")
    print("|---|---|---|---:|---|---:|---:|---:|")
    for week in (int(w) for w in args.weeks.split(",")):
        for base in bases:
            runs = {}
            for suffix in ("", *VARIANTS):
                events.clear()
                cpu = time.process_time()
                simulate(split[week], base + suffix, penalty=300.0, period=600.0)
                runs[suffix] = (list(events), cpu, time.process_time() - cpu)
            base_digests = [d for _, d, _ in runs[""][0]]
            for suffix in VARIANTS:
                run, cpu0, cpu = runs[suffix]
                k = first_difference(base_digests, [d for _, d, _ in run])
                same = k == len(run) == len(base_digests)
                prefix = run[k - 1][2] - cpu0 if k else 0.0
                at = run[min(k, len(run) - 1)][0]
                where = "none (the same run)" if same else f"{k}, t={at:g}"
                total, before = total + cpu, before + prefix
                print(f"| {week} | {base} | {suffix[1:]} | {len(run)} | {where} "
                      f"| {k / len(run):.1%} | {prefix / cpu:.1%} | {cpu:.2f} s |", flush=True)
    print(f"\nvariants' CPU {total:.1f} s, of which before their first difference "
          f"{before:.1f} s ({before / total:.1%}): the most that cloning the base could save")


if __name__ == "__main__":
    main()
