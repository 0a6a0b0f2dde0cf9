"""Fingerprint of allockit's observable behaviour, to show a refactoring changed nothing.

Runs every VCSched method on the bundled small-set sample, every simulator algorithm
(FCFS, EASY, the 14 Table 1 names and variants) on seeded Lublin workloads, the
dynamic DRFH simulation, the DRFH mechanisms and the stretch bound, and records each
schedule, placement and bound as a SHA-256 of its exact values (times and yields to
the last bit). ``--write FILE`` saves the fingerprints, ``--check FILE`` compares.

    python benchmarks/behaviour_snapshot.py --write /tmp/before.json
    # ... refactor ...
    python benchmarks/behaviour_snapshot.py --check /tmp/before.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np


def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        if a is None:
            h.update(b"none")
            continue
        arr = np.ascontiguousarray(np.asarray(a, dtype=float))
        h.update(arr.tobytes())
    return h.hexdigest()[:16]


def _api():
    """The public entry points, wherever the current layout keeps them."""
    try:
        from allockit.vcsched import METHODS, solve
    except ImportError:  # before the architecture change
        from allockit.vcsched import METHODS, solve
    from allockit.simulation.simulate import simulate

    try:
        from allockit.drfh import allocate
    except ImportError:
        from allockit.cli import run_drfh as allocate
    try:
        from allockit.experiments.drfh import fig4_scenario
    except ImportError:
        from allockit.simulation.drfh_dynamic import fig4_scenario
    return METHODS, solve, simulate, allocate, fig4_scenario


def snapshot() -> dict[str, str]:
    """Fingerprints of every checked run, by name."""
    from allockit.instances import read_instance, sample_dir
    from allockit.instances.drfh import DRFHInstance, google_servers, random_users
    from allockit.instances.lublin import dfrs_synthetic
    from allockit.models.stretch_bound import stretch_bound
    from allockit.simulation.names import TABLE1

    methods, solve, simulate, allocate, fig4_scenario = _api()
    out: dict[str, str] = {}
    files = sorted(Path(sample_dir()).glob("*.json"))[:12]
    for path in files:
        inst = read_instance(path)
        for m in sorted(methods):
            if m in ("adapt",) or m.startswith("milp") or m == "cpsat":
                continue
            r = solve(inst, m, seed=3) if m in ("rrnd", "rrnz") else solve(inst, m)
            out[f"vc/{path.stem}/{m}"] = f"{r.status}:" + _digest(
                r.task_hosts, r.job_yield, r.fraction, [r.bound or -1]
            )
        r = solve(inst, "milp")
        out[f"vc/{path.stem}/milp"] = f"{r.status}:{r.min_yield!r}"
    names = ["FCFS", "EASY", *TABLE1, "GreedyPM */per/opt=avg/minft=300", "MCB8 */per/minvt=600"]
    for seed, load in ((1, 0.5), (2, 0.9)):
        w = dfrs_synthetic(150, nodes=8, load=load, seed=seed)
        for name in names:
            r = simulate(w, name)
            out[f"sim/{seed}/{name}"] = _digest(
                r.start, r.end, [r.underutilization, r.preemptions, r.migrations]
            )
        b = stretch_bound(w)
        out[f"bound/{seed}"] = repr(b.value)
    trace = fig4_scenario(servers=20)
    out["drfh/fig4"] = _digest(trace.times, trace.shares, trace.utilization)
    pool = google_servers(12, seed=4)
    users = random_users(5, seed=5, tasks=(5, 50))
    inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"], "servers": pool, "users": users})
    # LP (7) refuses task caps it would exceed: it runs on the same users uncapped
    uncapped = DRFHInstance.from_dict(
        {"resources": ["cpu", "mem"], "servers": pool,
         "users": [{**u, "tasks": None} for u in users]}
    )
    for m in ("lp", "progressive", "first-fit", "best-fit", "per-server-drf", "slots"):
        r = allocate(uncapped if m == "lp" else inst, m)
        out[f"drfh/{m}"] = _digest(r.tasks, r.dominant_share, r.allocation)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="FILE")
    group.add_argument("--check", metavar="FILE")
    args = parser.parse_args(argv)
    current = snapshot()
    if args.write:
        Path(args.write).write_text(json.dumps(current, indent=1, sort_keys=True))
        print(f"{len(current)} fingerprints written to {args.write}")
        return 0
    before = json.loads(Path(args.check).read_text())

    def same(key: str) -> bool:
        a, b = before.get(key), current.get(key)
        if key.startswith("bound/") and a is not None and b is not None:
            # the stretch bound is exact to a relative 1e-9 (EXACT_RTOL and LP tolerances)
            return abs(float(a) - float(b)) <= 1e-9 * abs(float(a))
        return a == b

    diff = sorted(k for k in before.keys() | current.keys() if not same(k))
    for k in diff:
        print(f"DIFFERS {k}: {before.get(k)} -> {current.get(k)}")
    print(f"{len(current)} fingerprints, {len(diff)} differ")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
