"""The fairness checker on every built-in DRFH mechanism: mechanism x property.

    python benchmarks/fairness_table.py [--examples 200] [--seed 0] [--methods lp,...]
                                        [--json FILE]

For each mechanism and property, ``allockit.fairness.check`` on ``--examples``
generated instances (``lp`` with unbounded tasks, which it needs; the others with task
caps): ``holds`` (N examples), or ``counterexample`` with the shrunk instance's size
(users x servers) and the example it was found at, or ``error``; the sharing incentive
is measured (users worse off than on their dedicated share). Seconds per cell include
shrinking. Prints a markdown table and, below it, each counterexample's paragraph.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from allockit.drfh import DRFH_METHODS
from allockit.fairness import PROPERTIES, check

SHORT = {
    "envy_freeness": "envy-free",
    "pareto": "Pareto",
    "truthfulness": "truthful",
    "single_server_drf": "1-server DRF",
    "single_resource_fairness": "1-resource",
    "bottleneck_fairness": "bottleneck",
    "population_monotonicity": "pop. monotone",
    "sharing_incentive": "sharing incentive (measured)",
}


def cell(r) -> str:
    """One table cell for a report."""
    semantics = {"whole": "W", "fractional": "F", "mixed": "W+F"}.get(r.semantics or "", "?")
    if r.status == "held":
        return f"holds ({r.examples}; {semantics}; {r.seconds:.0f} s)"
    if r.status == "violated":
        c = r.counterexample
        servers = sum(s["count"] for s in c["servers"])
        return (
            f"**counterexample** {len(c['users'])}u x {servers}s, {r.violation:.3g} tasks "
            f"(at example {r.examples}; {semantics}; {r.seconds:.0f} s)"
        )
    if r.status == "measured":
        ev = r.evidence or {}
        return (
            f"{ev.get('all_worse_users', 0)}/{ev.get('all_users', 0)} users worse "
            f"({r.examples}; {semantics}; {r.seconds:.0f} s)"
        )
    return f"{r.status} ({r.errors} of {r.examples})"


def main() -> None:
    """Run the table (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--methods", default=",".join(DRFH_METHODS))
    parser.add_argument("--json", default=None, help="also write every report here")
    args = parser.parse_args()
    methods = args.methods.split(",")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"examples {args.examples}, seed {args.seed}, load average {load:.1f}\n")
    rows, texts, records = {}, [], {}
    for method in methods:
        started = time.perf_counter()
        reports = check(
            method, PROPERTIES, examples=args.examples, seed=args.seed,
            finite_tasks=method != "lp",
        )
        rows[method] = {r.name: r for r in reports}
        records[method] = [r.to_dict() for r in reports]
        texts += [r.text for r in reports if r.status in ("violated", "error")]
        print(f"{method}: {time.perf_counter() - started:.0f} s", flush=True)
    print()
    print("| property | " + " | ".join(methods) + " |")
    print("|---|" + "---|" * len(methods))
    for prop in PROPERTIES:
        print(f"| {SHORT[prop]} | " + " | ".join(cell(rows[m][prop]) for m in methods) + " |")
    print()
    for text in texts:
        print(text, "\n")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(records, handle, indent=1)


if __name__ == "__main__":
    main()
