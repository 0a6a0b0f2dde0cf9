"""Shares of a simulation's time by source line and by function, from a py-spy profile.

    py-spy record -r 50 -f raw -o spy.txt -- python benchmarks/bench_dfrs_stretch.py --weeks 120-159
    python benchmarks/spy_shares.py spy.txt [--under _Driver.run] [--top 30]

Reads py-spy's raw (collapsed) stacks and keeps the samples with a frame whose name
contains ``--under`` (default: the DFRS driver's event loop, so that reading the trace
and loading the kernels are left out). Prints the share of those samples spent in each
source line (the innermost frame: a compiled kernel's time shows on the line that calls
it) and in each function with its callees.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter


def shares(path: str, under: str) -> tuple[int, Counter, Counter]:
    """Samples kept, and the samples per innermost line and per function (inclusive)."""
    own: Counter = Counter()
    inclusive: Counter = Counter()
    total = 0
    with open(path) as lines:
        for line in lines:
            stack, _, count = line.rstrip().rpartition(" ")
            frames = stack.split(";")
            if not any(under in frame for frame in frames):
                continue
            n = int(count)
            total += n
            own[frames[-1]] += n
            for name in {re.sub(r":\d+\)", ")", frame) for frame in frames}:
                inclusive[name] += n
    return total, own, inclusive


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--under", default="_Driver.run")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    total, own, inclusive = shares(args.path, args.under)
    print(f"{total} samples under {args.under}")
    if not total:
        return
    print("-- by line (innermost frame)")
    for name, n in own.most_common(args.top):
        print(f"{100 * n / total:5.1f} % {name}")
    print("-- by function, with its callees")
    for name, n in inclusive.most_common(args.top):
        print(f"{100 * n / total:5.1f} % {name}")


if __name__ == "__main__":
    main()
