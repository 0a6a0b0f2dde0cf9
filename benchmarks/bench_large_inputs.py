"""Large inputs through the command line: wall time and peak memory (issue #18, item 7).

    python benchmarks/bench_large_inputs.py [--out DIR] [--runs 3]

Writes three inputs to DIR (default: a temporary folder) and runs each command in a
fresh process under ``/usr/bin/time -v``, printing the median wall time and the largest
peak resident memory of ``--runs`` runs:

1. ``allockit solve vc100k.json --method mcb8``: a VCSched instance of 100,000 jobs on
   20,000 hosts (``generate vcsched --hosts 20000 --jobs 100000 --slack 0.3 --cov-cpu
   0.75 --cov-mem 0.75 --seed 1``), read, solved and its result written (JSON on
   stdout, redirected to a file).
2. ``allockit drfh drfh_2000x500.json --method lp``: 2,000 users with unbounded tasks on
   500 distinct server classes (two resources, log-uniform demands, 1-19 servers per
   class, weights 1-3).
3. ``allockit drfh drfh_2000x500_caps.json --method progressive``: the same with finite
   task caps (10-3,000 per user).
4. ``allockit bound lublin100k.swf``: the exact stretch bound of a 100,000-job DFRS
   workload (``workload lublin --jobs 100000 --nodes 128 --seed 1 --load 0.7``).

The target is under 3 s and 1 GB for 1, under 30 s for 2 and 3, under 60 s for 4.
``--only K`` runs case K alone (1-4).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np


def drfh_instance(n_users: int, n_classes: int, *, seed: int, caps: bool) -> dict:
    """2 resources, log-uniform demands in [0.005, 0.05], capacities in [0.2, 1]."""
    rng = np.random.default_rng(seed)
    cap = rng.uniform(0.2, 1.0, (n_classes, 2)).round(6)
    demand = np.exp(rng.uniform(np.log(0.005), np.log(0.05), (n_users, 2))).round(6)
    return {
        "problem": "drfh",
        "resources": ["cpu", "mem"],
        "servers": [
            {"name": f"s{k}", "capacity": cap[k].tolist(), "count": int(rng.integers(1, 20))}
            for k in range(n_classes)
        ],
        "users": [
            {
                "name": f"u{i}",
                "demand": demand[i].tolist(),
                "weight": float(rng.choice([1.0, 2.0, 3.0])),
                "tasks": int(rng.integers(10, 3000)) if caps else None,
            }
            for i in range(n_users)
        ],
    }


def measure(argv: list[str], output: Path) -> tuple[float, float]:
    """Wall seconds and peak resident MB of ``python -m allockit.cli argv > output``."""
    with open(output, "w") as out:
        proc = subprocess.run(
            ["/usr/bin/time", "-v", sys.executable, "-m", "allockit.cli", *argv],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            check=True,
        )
    wall = re.search(r"Elapsed \(wall clock\) time .*: (?:(\d+):)?(\d+):([\d.]+)", proc.stderr)
    hours, minutes, seconds = wall.groups()
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    total = int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)
    return total, int(rss.group(1)) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="folder of the inputs (default: temporary)")
    parser.add_argument("--runs", type=int, default=3, help="runs per command (default: 3)")
    parser.add_argument("--only", type=int, default=None, help="run case K (1-4) alone")
    args = parser.parse_args()
    folder = Path(args.out or tempfile.mkdtemp(prefix="allockit-large-"))
    folder.mkdir(parents=True, exist_ok=True)
    vc = folder / "vc100k.json"
    with open(vc, "w") as fh:
        subprocess.run(
            [sys.executable, "-m", "allockit.cli", "generate", "vcsched", "--hosts", "20000",
             "--jobs", "100000", "--slack", "0.3", "--cov-cpu", "0.75", "--cov-mem", "0.75",
             "--seed", "1"],
            stdout=fh,
            check=True,
        )
    for name, caps in (("drfh_2000x500.json", False), ("drfh_2000x500_caps.json", True)):
        (folder / name).write_text(json.dumps(drfh_instance(2000, 500, seed=0, caps=caps)))
    lublin = folder / "lublin100k.swf"
    with open(lublin, "w") as fh:
        subprocess.run(
            [sys.executable, "-m", "allockit.cli", "workload", "lublin", "--jobs", "100000",
             "--nodes", "128", "--seed", "1", "--load", "0.7"],
            stdout=fh,
            check=True,
        )
    cases = [
        (["solve", str(vc), "--method", "mcb8"], "3 s, 1 GB"),
        (["drfh", str(folder / "drfh_2000x500.json"), "--method", "lp"], "30 s"),
        (["drfh", str(folder / "drfh_2000x500_caps.json"), "--method", "progressive"], "30 s"),
        (["bound", str(lublin)], "60 s"),
    ]
    if args.only is not None:
        cases = [cases[args.only - 1]]
    print(f"inputs in {folder}")
    print(f"{'command':<72} {'median s':>9} {'peak MB':>8}  target")
    for argv, target in cases:
        runs = [measure(argv, folder / "out.json") for _ in range(args.runs)]
        wall = statistics.median(r[0] for r in runs)
        peak = max(r[1] for r in runs)
        shown = "allockit " + " ".join(a if "/" not in a else Path(a).name for a in argv)
        print(f"{shown:<72} {wall:>9.2f} {peak:>8.0f}  {target}")


if __name__ == "__main__":
    main()
