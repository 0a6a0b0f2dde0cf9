"""Compare the outputs of an instance's tasks in two runner stores (timings aside).

    python benchmarks/compare_stores.py A.db B.db hpc2n-w003 [hpc2n-w120 ...]

Two runs of the same sweep by two versions of the code give the same results when
every task of the instance is in both stores with the same outputs. Every output field
is compared by its ``repr`` (the exact float), except the run times: the fields whose
name holds ``seconds`` (``allocated_cpu_seconds``, ``penalty_cpu_seconds`` and
``underutilization_cpu_seconds`` are CPU given to jobs, not run times, and are
compared) and the timing statistics of ``mcb8_calls`` (of which the call counts are
compared). Prints one line per instance and the first differences; the exit code is 1
when some task differs or is missing.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys

#: Output fields that are simulated quantities although their names hold "seconds".
KEPT = ("allocated_cpu_seconds", "penalty_cpu_seconds", "underutilization_cpu_seconds")

#: The parts of ``mcb8_calls`` (a summary of MCB8's call times) that are not timings.
MCB8_COUNTS = ("count", "max_jobs", "le100_count", "le10_count")


def outputs(path: str, instance: str) -> dict[tuple[str, str, int], dict]:
    """The outputs of ``instance``'s tasks in the store at ``path``, by (method, params, seed)."""
    with sqlite3.connect(path) as db:
        rows = db.execute(
            "select method, params, seed, outputs from results where instance = ?", (instance,)
        ).fetchall()
    return {(m, p, s): json.loads(o) for m, p, s, o in rows}


def differences(a: dict, b: dict) -> list[tuple]:
    """Tasks of ``a`` missing from ``b`` or with another output (timings aside)."""
    found = []
    for key, first in a.items():
        second = b.get(key)
        if second is None:
            found.append((key, "missing"))
            continue
        for name, value in first.items():
            other = second.get(name)
            if "seconds" in name and name not in KEPT:
                continue
            if name == "mcb8_calls" and isinstance(value, dict) and isinstance(other, dict):
                value = {k: value.get(k) for k in MCB8_COUNTS}
                other = {k: other.get(k) for k in MCB8_COUNTS}
            if repr(value) != repr(other):
                found.append((key, name, value, other))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("instances", nargs="+")
    args = parser.parse_args(argv)
    bad = False
    for instance in args.instances:
        a, b = outputs(args.first, instance), outputs(args.second, instance)
        found = differences(a, b) + [(k, "only in the second") for k in b.keys() - a.keys()]
        print(f"{instance}: {len(a)} tasks in the first store, {len(b)} in the second; "
              f"{len(found)} differ")
        for item in found[:10]:
            print("   ", item)
        bad = bad or bool(found) or not a
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
