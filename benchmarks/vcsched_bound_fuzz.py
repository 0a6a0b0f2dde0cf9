"""Fuzz VCSched's bounds and proofs against brute force at floating-point ties.

Small instances (2-3 hosts, 2-6 jobs, at most 13 tasks, so that brute force enumerates
every placement) are drawn in regimes where float sums and products tie with exact
ones: 2-decimal CPU needs with no memory (the matching argument's steps: 3 x 0.7 is
2.0999999999999996 in floats), decimal memories that fill hosts exactly, tiny memories
or CPU needs beside round values, CPU needs filling hosts to exactly 1, and uniform
data. Each instance is checked against
``tests.oracles.brute_force`` (its optimum minimum yield, or infeasible) for four
kinds of false claim:

false bound
    ``yield_upper_bound``, ``lp_bound``, ``solve(inst, "lp")`` (its value and bound)
    or the bound of ``solve(inst, "best")`` below the brute-force optimum.
false optimal
    ``best`` reporting ``optimal`` for a minimum yield below the optimum (beyond
    ``rel_gap``).
false infeasible
    any of the above returning "infeasible" (None, status ``infeasible``), or
    ``infeasibility_proof`` returning a proof, where brute force places the tasks.
errors
    an exception, status ``error``, an ``lp`` status other than optimal or
    infeasible, or a ``best`` result that fails the oracle's certificate check
    (``tests.oracles.check_vc_result``), beats the brute-force optimum, or places the
    tasks of an instance brute force proves infeasible.

``best`` runs with time_limit 5 s, threads 1, rel_gap 1e-9. Every count must be 0.
Each instance is drawn from ``numpy.random.default_rng([seed, crc32(regime), i])``, so
a regime's instances do not depend on the other regimes asked for.

    python benchmarks/vcsched_bound_fuzz.py --seed S --n N [--regimes ...] [--save F.json]

Prints a markdown table (regime | instances | feasible | one column per claim kind);
``--save`` writes the counts and every flagged instance (its JSON, the claims, the
brute-force optimum) to a JSON file.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root: tests.oracles

#: Relative tolerance of every comparison with the brute-force optimum.
REL = 1e-9
#: ``best``'s options (the strict gap: "optimal" must mean the optimum).
BEST_OPTIONS: dict[str, Any] = {"time_limit": 5.0, "threads": 1, "rel_gap": 1e-9}
#: Claim kinds, in the table's column order.
KINDS = ("false bound", "false optimal", "false infeasible", "errors")
#: Brute force enumerates hosts**tasks placements: at most this many tasks per host count.
MAX_TASKS = {2: 13, 3: 10}

ROUND_MEM = [0.0, 0.25, 1 / 3, 0.5, 0.75, 1.0]
ROUND_CPU = [0.25, 0.3, 0.5, 0.6, 0.75, 1.0]
TINY = [1e-8, 1e-7, 1e-6, 2e-6, 5e-6]


# ----------------------------------------------------------------------------- regimes
def _task_counts(rng: np.random.Generator, hosts: int, n_jobs: int) -> list[int]:
    """1-3 tasks per job, trimmed (largest first) to what brute force can enumerate."""
    tasks = rng.integers(1, 4, n_jobs)
    while tasks.sum() > MAX_TASKS[hosts]:
        tasks[int(np.argmax(tasks))] -= 1
    return [int(t) for t in tasks]


def _split(rng: np.random.Generator, total: float, parts: int, digits: int) -> list[float]:
    """``total`` split into ``parts`` values on a decimal grid (summing to it in reals)."""
    scale = 10**digits
    units = round(total * scale)
    if parts == 1 or units < parts:
        return [total]
    cuts = np.sort(rng.choice(np.arange(1, units), parts - 1, replace=False))
    sizes = np.diff(np.concatenate(([0], cuts, [units])))
    return [float(s) / scale for s in sizes]


def _decimal_cpu(rng: np.random.Generator) -> tuple[int, list[float], list[float], list[int]]:
    """2-decimal CPU needs, no memory: the matching argument's steps k x c tie."""
    hosts = int(rng.integers(2, 4))
    n = int(rng.integers(2, 5))
    cpu = rng.choice(np.arange(1, 101) / 100.0, n)
    return hosts, cpu.tolist(), [0.0] * n, _task_counts(rng, hosts, n)


def _fill(rng: np.random.Generator) -> tuple[int, list[float], list[float], list[int]]:
    """Decimal memories filling every host exactly, some shifted by a tiny amount.

    Per host, 1-3 memories summing to 1 (in reals); then with some probability a tiny
    ``t`` moves between two of them, a ``t``-memory task is split off, or the host is
    overfilled by ``t`` (the instance may then be infeasible). Equal memories may form
    one job of several tasks.
    """
    hosts = int(rng.integers(2, 4))
    mems: list[float] = []
    for _ in range(hosts):
        parts = _split(rng, 1.0, int(rng.integers(1, 4)), int(rng.integers(1, 3)))
        t, r = float(rng.choice(TINY)), rng.uniform()
        if r < 0.3 and len(parts) >= 2:
            parts[0], parts[1] = parts[0] - t, parts[1] + t
        elif r < 0.5:
            parts[0] -= t
            parts.append(t)
        elif r < 0.6:
            parts[0] += t
        mems += [min(1.0, max(0.0, p)) for p in parts]
    mems = [m for m in mems if m > 0] or [0.5]
    rng.shuffle(mems)
    jobs_mem: list[float] = []
    tasks: list[int] = []
    for m in mems:
        if jobs_mem and jobs_mem[-1] == m and tasks[-1] < 3:
            tasks[-1] += 1
        else:
            jobs_mem.append(m)
            tasks.append(1)
    while len(jobs_mem) < 2:
        jobs_mem.append(float(rng.choice([0.0, *TINY])))
        tasks.append(1)
    jobs_mem, tasks = jobs_mem[:6], tasks[:6]
    while sum(tasks) > MAX_TASKS[hosts]:
        tasks[int(np.argmax(tasks))] -= 1
    pool = ROUND_CPU + ([float(rng.choice(TINY))] if rng.uniform() < 0.3 else [])
    cpu = rng.choice(pool, len(jobs_mem))
    return hosts, cpu.tolist(), jobs_mem, tasks


def _tiny_mem(rng: np.random.Generator) -> tuple[int, list[float], list[float], list[int]]:
    """Round CPU needs; memories tiny (1e-8 to 2e-6) or round (0, 1/4, 1/3, ..., 1)."""
    hosts, n = int(rng.integers(2, 4)), int(rng.integers(2, 7))
    cpu = rng.choice(ROUND_CPU, n)
    mem = rng.choice([1e-8, 1e-7, 1e-6, 2e-6, *ROUND_MEM], n)
    return hosts, cpu.tolist(), mem.tolist(), _task_counts(rng, hosts, n)


def _tiny_cpu(rng: np.random.Generator) -> tuple[int, list[float], list[float], list[int]]:
    """CPU needs tiny (1e-8 to 2e-6) or round; round memories."""
    hosts, n = int(rng.integers(2, 4)), int(rng.integers(2, 7))
    cpu = rng.choice([1e-8, 1e-7, 1e-6, 2e-6, *ROUND_CPU], n)
    mem = rng.choice(ROUND_MEM, n)
    return hosts, cpu.tolist(), mem.tolist(), _task_counts(rng, hosts, n)


def _cpu_fill(rng: np.random.Generator) -> tuple[int, list[float], list[float], list[int]]:
    """CPU needs filling hosts to exactly 1 (or 1.2, 1.5; some shifted by a tiny amount)."""
    hosts = int(rng.integers(2, 4))
    cpus: list[float] = []
    for _ in range(hosts):
        k = int(rng.integers(1, 4))
        target = float(rng.choice([1.0, 1.0, 1.2, 1.5])) if k > 1 else 1.0
        parts = _split(rng, target, k, int(rng.integers(1, 3)))
        t, r = float(rng.choice(TINY)), rng.uniform()
        if r < 0.3 and len(parts) >= 2:
            parts[0], parts[1] = parts[0] - t, parts[1] + t
        elif r < 0.5:
            parts[0] += t if rng.uniform() < 0.5 else -t
        cpus += [float(np.clip(p, 1e-8, 1.0)) for p in parts]
    rng.shuffle(cpus)
    cpus = cpus[:6]
    if len(cpus) < 2:
        cpus.append(float(rng.choice(TINY)))
    tasks = [1] * len(cpus)
    for i in range(len(cpus)):
        if rng.uniform() < 0.2 and sum(tasks) < MAX_TASKS[hosts]:
            tasks[i] += 1
    mem = rng.choice([0.0, 1e-8, 1e-6, 0.25, 1 / 3, 0.5, 0.75, 1.0], len(cpus))
    return hosts, cpus, mem.tolist(), tasks


def _uniform(rng: np.random.Generator) -> tuple[int, list[float], list[float], list[int]]:
    """Uniform CPU needs (1-2 decimals) and memories (1-3 decimals)."""
    hosts, n = int(rng.integers(2, 4)), int(rng.integers(2, 7))
    cpu = np.round(rng.uniform(0.01, 1, n), int(rng.integers(1, 3))).clip(0.01, 1)
    mem = np.round(rng.uniform(0, 1, n), int(rng.integers(1, 4)))
    return hosts, cpu.tolist(), mem.tolist(), _task_counts(rng, hosts, n)


REGIMES: dict[str, Callable[[np.random.Generator], tuple]] = {
    "decimal-cpu": _decimal_cpu,
    "fill": _fill,
    "tiny-mem": _tiny_mem,
    "tiny-cpu": _tiny_cpu,
    "cpu-fill": _cpu_fill,
    "uniform": _uniform,
}


def draw_instance(regime: str, seed: int, index: int, keep_infeasible: float) -> Any:
    """The ``index``-th instance of ``regime`` for ``seed``: a VCInstance.

    Draws until brute force places the tasks; an infeasible draw is kept with
    probability ``keep_infeasible`` (so that false "feasible" claims are exercised too).
    """
    from allockit.instances.vcsched import VCInstance
    from tests.oracles import brute_force

    rng = np.random.default_rng([seed, zlib.crc32(regime.encode()), index])
    for _ in range(200):
        hosts, cpu, mem, tasks = REGIMES[regime](rng)
        instance = VCInstance.from_lists(hosts=hosts, cpu=cpu, mem=mem, tasks=tasks)
        if brute_force(instance)[0] is not None or rng.uniform() < keep_infeasible:
            break
    return instance


# ------------------------------------------------------------------------------ checks
def _error_text(exc: BaseException) -> str:
    """The exception's last line and the innermost frame that raised it."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"[:400]


def _below(value: float | None, optimum: float | None) -> bool:
    """Whether a claimed upper bound is below the optimum (beyond ``REL``)."""
    return value is not None and optimum is not None and value < optimum * (1 - REL)


def check_closed_forms(instance: Any, optimum: float | None) -> tuple[dict, list[dict]]:
    """Claims and flags of ``yield_upper_bound``, ``lp_bound`` and ``infeasibility_proof``."""
    from allockit.evaluation.bounds import infeasibility_proof, yield_upper_bound
    from allockit.evaluation.lp_bound import lp_bound

    claims: dict[str, Any] = {}
    flags: list[dict] = []
    calls: dict[str, Callable[[], Any]] = {
        "yield_upper_bound": lambda: yield_upper_bound(instance),
        "lp_bound": lambda: (lp_bound(instance), "lp"),
    }
    for name, call in calls.items():
        try:
            bound, source = call()
        except Exception as exc:
            flags.append({"kind": "errors", "method": name, "error": _error_text(exc)})
            continue
        claims[name] = {"bound": None if bound is None else float(bound), "source": source}
        if bound is None and optimum is not None:
            flags.append({"kind": "false infeasible", "method": f"{name}[{source}]"})
        elif _below(bound, optimum):
            flags.append({"kind": "false bound", "method": f"{name}[{source}]",
                          "bound": float(bound)})
    try:
        proof = infeasibility_proof(instance)
    except Exception as exc:
        flags.append({"kind": "errors", "method": "infeasibility_proof",
                      "error": _error_text(exc)})
    else:
        claims["infeasibility_proof"] = proof
        if proof is not None and optimum is not None:
            flags.append({"kind": "false infeasible", "method": "infeasibility_proof",
                          "proof": proof})
    return claims, flags


def check_lp(instance: Any, optimum: float | None) -> tuple[dict, list[dict]]:
    """Claims and flags of ``solve(instance, "lp")`` (the two-phase LP relaxation)."""
    from allockit.results import SolveStatus
    from allockit.vcsched import solve

    try:
        r = solve(instance, "lp", threads=1, time_limit=30.0)
    except Exception as exc:
        return {}, [{"kind": "errors", "method": "lp", "error": _error_text(exc)}]
    claims = {"status": str(r.status), "value": r.min_yield, "bound": r.bound,
              "message": r.message[:200]}
    flags: list[dict] = []
    if r.status is SolveStatus.INFEASIBLE:
        if optimum is not None:
            flags.append({"kind": "false infeasible", "method": "lp"})
    elif r.status is not SolveStatus.OPTIMAL:
        flags.append({"kind": "errors", "method": "lp", "error": f"status {r.status}"})
    elif _below(r.min_yield, optimum) or _below(r.bound, optimum):
        flags.append({"kind": "false bound", "method": "lp", "value": r.min_yield,
                      "bound": r.bound})
    return claims, flags


def check_best(instance: Any, optimum: float | None, seed: int) -> tuple[dict, list[dict]]:
    """Claims and flags of ``solve(instance, "best", **BEST_OPTIONS)``."""
    from allockit.results import SolveStatus
    from allockit.vcsched import solve
    from tests.oracles import check_vc_result

    try:
        r = solve(instance, "best", seed=seed, **BEST_OPTIONS)
    except Exception as exc:
        return {}, [{"kind": "errors", "method": "best", "error": _error_text(exc)}]
    claims = {"status": str(r.status), "min_yield": r.min_yield, "bound": r.bound,
              "bound_source": r.bound_source, "incumbent_source": r.incumbent_source,
              "proof": r.proof, "message": r.message[:300]}
    flags: list[dict] = []

    def flag(kind: str, **details: Any) -> None:
        flags.append({"kind": kind, "method": "best", **details})

    if r.status is SolveStatus.ERROR:
        flag("errors", error=r.message[:300])
        return claims, flags
    try:
        check_vc_result(instance, r)
    except AssertionError as exc:
        flag("errors", error=f"certificate check: {exc}"[:300])
    if r.status is SolveStatus.INFEASIBLE:
        if optimum is not None:
            flag("false infeasible", proof=r.proof)
        return claims, flags
    if _below(r.bound, optimum):
        flag("false bound", bound=r.bound, bound_source=r.bound_source)
    if r.min_yield is not None:
        if optimum is None:
            flag("errors", error=f"a placement (min yield {r.min_yield}) on an infeasible "
                 "instance")
        elif r.min_yield > optimum * (1 + REL) + 1e-12:
            flag("errors", error=f"min yield {r.min_yield} above the optimum")
    if r.status is SolveStatus.OPTIMAL and optimum is not None and r.min_yield is not None:
        allowed = optimum * REL + BEST_OPTIONS["rel_gap"] * (r.bound or optimum)
        if optimum - r.min_yield > allowed:
            flag("false optimal", min_yield=r.min_yield, bound=r.bound)
    return claims, flags


def check_instance(instance: Any, seed: int) -> dict[str, Any]:
    """Every claim on ``instance`` against brute force: a record with the flags."""
    from tests.oracles import brute_force

    optimum, _ = brute_force(instance)
    record: dict[str, Any] = {"instance": instance.to_dict(), "optimum": optimum,
                              "claims": {}, "flags": []}
    for name, check in (("closed_forms", lambda: check_closed_forms(instance, optimum)),
                        ("lp", lambda: check_lp(instance, optimum)),
                        ("best", lambda: check_best(instance, optimum, seed))):
        claims, flags = check()
        record["claims"][name] = claims
        record["flags"] += flags
    return record


# ------------------------------------------------------------------------------ driver
def warm_up() -> None:
    """Compile the numba kernels ``best`` uses, so that no instance pays for them."""
    from allockit.instances.vcsched import VCInstance
    from allockit.vcsched import solve

    instance = VCInstance.from_lists(hosts=3, cpu=[0.25, 0.5, 0.6], mem=[0.5, 0.5, 0.1],
                                     tasks=[2, 3, 2])
    solve(instance, "best", time_limit=60.0, threads=1, rel_gap=1e-9)


def run_regime(regime: str, seed: int, n: int, keep_infeasible: float) -> dict[str, Any]:
    """Counts (instances flagged per kind) and flagged records of ``n`` instances."""
    counts = dict.fromkeys(("instances", "feasible", *KINDS), 0)
    flagged: list[dict] = []
    started = time.perf_counter()
    for i in range(n):
        instance = draw_instance(regime, seed, i, keep_infeasible)
        record = check_instance(instance, seed=i)
        counts["instances"] += 1
        counts["feasible"] += record["optimum"] is not None
        for kind in {f["kind"] for f in record["flags"]}:
            counts[kind] += 1
        if record["flags"]:
            flagged.append({"regime": regime, "seed": [seed, regime, i], **record})
    return {"counts": counts, "flagged": flagged,
            "seconds": round(time.perf_counter() - started, 1)}


def markdown_table(results: dict[str, dict[str, Any]]) -> str:
    """The counts as a markdown table, one row per regime and a total."""
    columns = ("instances", "feasible", *KINDS)
    lines = ["| regime | " + " | ".join(columns) + " |",
             "|---|" + "---:|" * len(columns)]
    total = dict.fromkeys(columns, 0)
    for regime, result in results.items():
        counts = result["counts"]
        lines.append(f"| {regime} | " + " | ".join(str(counts[c]) for c in columns) + " |")
        for c in columns:
            total[c] += counts[c]
    lines.append("| **total** | " + " | ".join(str(total[c]) for c in columns) + " |")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n", type=int, default=200, help="instances per regime")
    parser.add_argument("--regimes", default=",".join(REGIMES),
                        help=f"comma-separated, of: {', '.join(REGIMES)}")
    parser.add_argument("--keep-infeasible", type=float, default=0.15,
                        help="probability of keeping a draw brute force proves infeasible")
    parser.add_argument("--save", type=Path, default=None,
                        help="write the counts and the flagged instances to this JSON file")
    args = parser.parse_args(argv)
    args.regimes = [r.strip() for r in args.regimes.split(",") if r.strip()]
    unknown = [r for r in args.regimes if r not in REGIMES]
    if unknown:
        parser.error(f"unknown regimes {unknown}; known: {', '.join(REGIMES)}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the regimes, print the table, optionally save; 1 if anything was flagged."""
    args = parse_args(argv)
    warm_up()
    results = {r: run_regime(r, args.seed, args.n, args.keep_infeasible) for r in args.regimes}
    print(markdown_table(results))
    if args.save is not None:
        import allockit

        payload = {"seed": args.seed, "n": args.n, "regimes": args.regimes,
                   "best_options": BEST_OPTIONS, "allockit": allockit.__file__,
                   "results": results}
        args.save.write_text(json.dumps(payload, indent=1, default=str))
    flagged = sum(len(r["flagged"]) for r in results.values())
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main())
