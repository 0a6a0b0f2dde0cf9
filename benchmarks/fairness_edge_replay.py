"""Replay the fairness verdicts a fuzz found wrong at the solver's tolerance edge.

``benchmarks/fairness_edge_cases.json`` holds 153 verdicts of ``allockit.fairness.check``
recorded on 2026-11-29 (HiGHS deciding every program) that exact re-decision showed to be
wrong: ``kind`` says how (``FALSE_HELD_pareto_whole``, ``mip_false_infeasible``: a
"held" or "violated" resting on a false "no better allocation"; ``FALSE_VIOLATION_pareto_lp``:
an improving allocation that breaks a capacity or a bound by less than HiGHS's
tolerance), ``status`` the verdict then. This prints, per kind, the verdicts then and now.

    python benchmarks/fairness_edge_replay.py
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

CASES = Path(__file__).with_name("fairness_edge_cases.json")


def main() -> None:
    from allockit.fairness import check
    from allockit.instances.drfh import DRFHInstance

    counts: collections.Counter = collections.Counter()
    for case in json.loads(CASES.read_text()):
        instance = DRFHInstance.from_dict(case["instance"])
        options = {} if case["sem"] == "auto" else {"semantics": case["sem"]}
        now = check(case["mech"], [case["prop"]], instance=instance, **options)[0].status
        counts[(case["kind"], case["status"], now)] += 1
    print("| kind | verdict then | verdict now | cases |")
    print("|---|---|---|---:|")
    for (kind, then, now), n in sorted(counts.items()):
        print(f"| {kind} | {then} | {now} | {n} |")


if __name__ == "__main__":
    main()
