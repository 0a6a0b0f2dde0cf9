"""How close together the priority keys of a thrashing backlog are, at the MCB8 remaps.

    python benchmarks/dfrs_backlog_keys.py --whole [--samples 12] [--every 2000]

Runs the algorithm of ``bench_dfrs_stretch.py`` (GreedyPM */per/opt=min/minvt=600) with
``mcb8_remap_kernel`` wrapped; at every ``--every``-th remap with at least ``--least``
jobs in the system it computes every job's key (``-flow / vt²``), a cut (the
``2 * nodes + 17``-th smallest: one past the ``2 * nodes + 16`` jobs the remap asks for,
the count the reverted index of RESULTS 12.11.12 asked for) and how many jobs have a key
within 1 %, 12.5 % and 2x of that cut, then stops after ``--samples`` such remaps. An
index that bounds keys by buckets of virtual time (``vt²`` known to within a factor
``f``) must read every job whose key is within ``f`` of the cut: if most jobs are, it
can skip none (RESULTS 12.11.12). The schedule is unchanged by the wrapping.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from dfrs_thrashing import BEST, _workload, stretch_arguments


class _Enough(Exception):
    """Raised from the wrapper once the samples are taken (ends the simulation)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    stretch_arguments(parser)
    parser.add_argument("--samples", type=int, default=12)
    parser.add_argument("--every", type=int, default=2000)
    parser.add_argument("--least", type=int, default=3000)
    args = parser.parse_args()
    from allockit.simulation import dfrs_kernels
    from allockit.simulation.dfrs import simulate_dfrs

    remap = dfrs_kernels.mcb8_remap_kernel
    seen = [0]
    print(f"{'call':>7} {'now (s)':>10} {'jobs':>6} {'cut key':>10} "
          f"{'within 1%':>10} {'12.5%':>7} {'2x':>7}  median flow (s), vt (s)")

    def sample(*call):
        seen[0] += 1
        active, vt, submit, nodes, now = call[0], call[4], call[5], call[11], call[12]
        active_vt, active_submit = call[1], call[2]  # (DfrsState.active_view's copies)
        if seen[0] % args.every == 0 and active.size >= args.least:
            keys = dfrs_kernels._priority_keys_of(active_vt, active_submit, now)
            cut = np.sort(keys)[min(2 * nodes + 16, keys.size - 1)]
            share = [int((keys <= cut / f).sum()) for f in (1.01, 1.125, 2.0)]
            print(f"{seen[0]:7d} {now:10.0f} {active.size:6d} {cut:10.3g} "
                  + " ".join(f"{s:>{w}d}" for s, w in zip(share, (10, 7, 7), strict=True))
                  + f"  {np.median(now - submit[active]):.3g}, {np.median(vt[active]):.3g}",
                  flush=True)
            args.samples -= 1
            if args.samples <= 0:
                raise _Enough
        return remap(*call)

    dfrs_kernels.mcb8_remap_kernel = sample
    try:
        simulate_dfrs(_workload(args.weeks), BEST)
    except _Enough:
        pass
    finally:
        dfrs_kernels.mcb8_remap_kernel = remap


if __name__ == "__main__":
    main()
