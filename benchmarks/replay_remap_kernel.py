"""Capture the MCB8 remap kernel's calls from a run, then replay them alone.

    python benchmarks/replay_remap_kernel.py capture --weeks 0-19 --every 10 --out calls.pkl
    python benchmarks/replay_remap_kernel.py replay calls.pkl [--repeat 3]
    python benchmarks/replay_remap_kernel.py split calls.pkl [--repeat 2]

``capture`` simulates HPC2N weeks A-B with the whole-trace algorithm
(GreedyPM */per/opt=min/minvt=600, as ``dfrs_thrashing.py``) and pickles the arguments of
every ``--every``-th call of ``dfrs_kernels.mcb8_remap_kernel`` (copies, taken before the
call). ``replay`` calls the kernel on them, after one warm-up call, ``--repeat`` times,
and prints the best time per call and an md5 of every output (jobs and rows): run it
under two versions of the code (e.g. a worktree of the old commit with its own venv)
to compare their speed on the same inputs and check that they give the same mappings.
``split`` times the whole kernel and its start alone (``dfrs_kernels._remap_keep``: the
priority keys, the partial sort, the memory prefix) on the same calls, and prints the mean
numbers of active and kept jobs.
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def capture(weeks: str, every: int, out: str) -> None:
    from dfrs_thrashing import BEST, _workload

    from allockit.simulation import dfrs_kernels
    from allockit.simulation.dfrs import simulate_dfrs

    kernel = dfrs_kernels.mcb8_remap_kernel
    calls: list[tuple] = []
    seen = [0]

    def spy(*args):
        if seen[0] % every == 0:
            calls.append(tuple(a.copy() if hasattr(a, "copy") else a for a in args))
        seen[0] += 1
        return kernel(*args)

    dfrs_kernels.mcb8_remap_kernel = spy
    try:
        simulate_dfrs(_workload(weeks), BEST)
    finally:
        dfrs_kernels.mcb8_remap_kernel = kernel
    Path(out).write_bytes(pickle.dumps(calls))
    print(f"{len(calls)} of {seen[0]} calls kept in {out}")


def replay(path: str, repeat: int) -> None:
    from allockit.simulation.dfrs_kernels import mcb8_remap_kernel

    calls = pickle.loads(Path(path).read_bytes())
    if not calls:
        print("no calls")
        return
    mcb8_remap_kernel(*calls[0])
    digest = hashlib.md5()
    for args in calls:
        jobs, rows = mcb8_remap_kernel(*args)
        digest.update(jobs.tobytes())
        digest.update(rows.tobytes())
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        for args in calls:
            mcb8_remap_kernel(*args)
        best = min(best, time.perf_counter() - began)
    print(f"{len(calls)} calls: {1e6 * best / len(calls):.1f} us per call (best of {repeat}), "
          f"outputs md5 {digest.hexdigest()}")


def split(path: str, repeat: int) -> None:
    import numpy as np

    from allockit.simulation import dfrs_kernels

    calls = pickle.loads(Path(path).read_bytes())
    if not calls:
        print("no calls")
        return
    starts = [args[:8] + args[9:16] for args in calls]  # (_remap_keep: no CPU needs, accuracy)
    dfrs_kernels.mcb8_remap_kernel(*calls[0])
    dfrs_kernels._remap_keep(*starts[0])
    for _ in range(repeat):
        began = time.perf_counter()
        for args in calls:
            dfrs_kernels.mcb8_remap_kernel(*args)
        whole = (time.perf_counter() - began) / len(calls)
        began = time.perf_counter()
        for args in starts:
            dfrs_kernels._remap_keep(*args)
        start = (time.perf_counter() - began) / len(calls)
        print(f"{len(calls)} calls: whole kernel {1e6 * whole:.1f} us, its start "
              f"{1e6 * start:.1f} us per call")
    kept = [dfrs_kernels._remap_keep(*args)[0].size for args in starts]
    print(f"active jobs {np.mean([args[0].size for args in calls]):.1f} on average, "
          f"kept {np.mean(kept):.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("capture")
    p.add_argument("--weeks", default="0-19")
    p.add_argument("--every", type=int, default=10)
    p.add_argument("--out", required=True)
    p = sub.add_parser("replay")
    p.add_argument("path")
    p.add_argument("--repeat", type=int, default=3)
    p = sub.add_parser("split")
    p.add_argument("path")
    p.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    if args.command == "capture":
        capture(args.weeks, args.every, args.out)
    elif args.command == "split":
        split(args.path, args.repeat)
    else:
        replay(args.path, args.repeat)


if __name__ == "__main__":
    main()
