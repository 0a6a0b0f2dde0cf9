"""Cold-start times of the command line: a fresh process per run, median of several.

    python benchmarks/bench_cold_start.py [--runs 7] [--baseline-python PATH]

Measures ``allockit --help``, ``solve tiny.json --method sg|mcb8|milp`` and ``simulate
w.swf --algorithm EASY`` (a 4-job instance and a 50-job workload, written to a temporary
folder), each as ``python -m allockit.cli ...`` in a new process, and prints the median
wall time. With ``--baseline-python`` (the interpreter of another checkout, e.g. the
commit before a change) both are measured in alternation, so machine noise hits both,
and the ratio is printed. The last table splits a first solve's reported time into the
one-time setup (numba import, kernel compilation or cache loading) and the solve itself.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _time(python: str, args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [python, "-m", "allockit.cli", *args],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--baseline-python", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tiny, swf = Path(tmp) / "tiny.json", Path(tmp) / "w.swf"
        gen = [sys.executable, "-m", "allockit.cli"]
        tiny.write_text(
            subprocess.run(
                [*gen, "generate", "vcsched", "--hosts", "2", "--jobs", "4", "--slack", "0.5",
                 "--seed", "1"],
                check=True, capture_output=True, text=True,
            ).stdout
        )
        swf.write_text(
            subprocess.run(
                [*gen, "workload", "lublin", "--jobs", "50", "--nodes", "8", "--seed", "1"],
                check=True, capture_output=True, text=True,
            ).stdout
        )
        cases = {
            "allockit --help": ["--help"],
            "solve tiny.json --method sg": ["solve", str(tiny), "--method", "sg"],
            "solve tiny.json --method mcb8": ["solve", str(tiny), "--method", "mcb8"],
            "solve tiny.json --method milp": ["solve", str(tiny), "--method", "milp"],
            "simulate w.swf --algorithm EASY": ["simulate", str(swf), "--algorithm", "EASY"],
        }
        pythons = {"this": sys.executable}
        if args.baseline_python:
            pythons["baseline"] = args.baseline_python
        header = f"{'command':34} " + " ".join(f"{name:>10}" for name in pythons)
        print(header + ("      ratio" if len(pythons) > 1 else ""))
        for label, argv in cases.items():
            times: dict[str, list[float]] = {name: [] for name in pythons}
            for _ in range(args.runs):
                for name, python in pythons.items():
                    times[name].append(_time(python, argv))
            medians = {name: statistics.median(t) for name, t in times.items()}
            line = f"{label:34} " + " ".join(f"{medians[n]:9.3f}s" for n in pythons)
            if len(pythons) > 1:
                line += f" {medians['this'] / medians['baseline']:10.2f}"
            print(line)
        print("\nfirst solve in a fresh process (this checkout), reported seconds;")
        print("numba cache empty (compilation) and then filled (loading):")
        print(f"{'method':8} {'cache':>6} {'setup':>8} {'solve':>10}")
        import os

        cache = Path(tmp) / "numba-cache"
        env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
        for method in ("sg", "gb", "mcb8"):
            for state in ("empty", "filled"):
                out = subprocess.run(
                    [*gen, "solve", str(tiny), "--method", method],
                    check=True, capture_output=True, text=True, env=env,
                ).stdout
                data = json.loads(out)
                print(
                    f"{method:8} {state:>6} {data['setup_seconds']:7.3f}s "
                    f"{data['solve_seconds']:9.5f}s"
                )


if __name__ == "__main__":
    main()
