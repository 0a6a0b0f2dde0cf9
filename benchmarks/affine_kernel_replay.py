"""Record the calls of the /stretch-per water-filling kernel in a run, and replay them.

    python benchmarks/affine_kernel_replay.py record calls.pkl [--week 120] [--algorithm A]
        [--kernel-from FILE.py]
    python benchmarks/affine_kernel_replay.py replay calls.pkl [--kernel-from FILE.py]

``record`` simulates one algorithm (default ``/stretch-per/opt=max``, penalty 300 s,
period 600 s) on one HPC2N week and keeps the inputs and output of every call of
``affine_fill_kernel`` (``max_min_affine``'s kernel). ``replay`` calls the kernel on every
recorded input, prints the CPU seconds of the replay (after three warm-up calls) and
how many outputs differ from the recorded ones in any bit; it exits 1 if one does.

``--kernel-from FILE.py`` uses the ``affine_fill_kernel`` of another version of the
kernels' module instead of this one, e.g. the commit before a change::

    git show a17daae:simulation/allocation_kernels.py > /tmp/old_kernels.py
    python benchmarks/affine_kernel_replay.py record old.pkl --kernel-from /tmp/old_kernels.py
    python benchmarks/affine_kernel_replay.py replay old.pkl   # this version: 0 differ?
    python benchmarks/affine_kernel_replay.py replay old.pkl --kernel-from /tmp/old_kernels.py
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_dfrs_weeks import TRACE, _options, fingerprint


def _kernel(source: str | None):
    """``affine_fill_kernel`` of this version, or of the module file ``source``."""
    if source is None:
        from allockit.simulation.allocation_kernels import affine_fill_kernel

        return affine_fill_kernel
    import types

    module = types.ModuleType("_kernels_under_test")
    with open(source) as f:  # (compiled afresh: numba's cache needs an importable module)
        code = f.read().replace("cache=True", "cache=False")
    exec(compile(code, source, "exec"), module.__dict__)
    return module.affine_fill_kernel


def record(path: str, week: int, algorithm: str, trace: str, source: str | None) -> None:
    import allockit.simulation.allocation_kernels as kernels
    from allockit.instances.hpc2n import hpc2n_workload, split_weeks
    from allockit.instances.swf import read_swf
    from allockit.simulation.simulate import simulate

    kernel = _kernel(source)
    calls = []

    def recorded(*args):
        out = kernel(*args)
        kept = [np.copy(x) if isinstance(x, np.ndarray) else x for x in args]
        calls.append((*kept, out.copy()))
        return out

    kernels.affine_fill_kernel = recorded  # max_min_affine looks it up at each call
    workload = split_weeks(hpc2n_workload(read_swf(trace)))[week]
    result = simulate(workload, algorithm, **_options(algorithm))
    with open(path, "wb") as f:
        pickle.dump(calls, f)
    print(f"{len(calls)} calls recorded; schedule md5 {fingerprint(result)}")


def replay(path: str, source: str | None) -> int:
    affine_fill_kernel = _kernel(source)
    with open(path, "rb") as f:
        calls = pickle.load(f)
    for call in calls[:3]:
        affine_fill_kernel(*call[:7])
    started = time.process_time()
    outputs = [affine_fill_kernel(*call[:7]) for call in calls]
    seconds = time.process_time() - started
    differ = sum(not np.array_equal(out, call[7]) for call, out in zip(calls, outputs, strict=True))
    print(f"{len(calls)} calls replayed in {seconds:.3f} s of CPU; {differ} differ from the record")
    return 1 if differ else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("path")
    rec.add_argument("--week", type=int, default=120)
    rec.add_argument("--algorithm", default="/stretch-per/opt=max")
    rec.add_argument("--trace", default=TRACE)
    rep = sub.add_parser("replay")
    rep.add_argument("path")
    for command in (rec, rep):
        command.add_argument("--kernel-from", help="a file of the kernels' module to use")
    args = parser.parse_args()
    if args.command == "record":
        record(args.path, args.week, args.algorithm, args.trace, args.kernel_from)
    else:
        sys.exit(replay(args.path, args.kernel_from))


if __name__ == "__main__":
    main()
