"""The old fairness checker's false pass, reproduced from git history (issue 24).

    python benchmarks/fairness_old_false_pass.py [--commit cf851d5]

Loads ``src/allockit/fairness.py`` as it was at ``--commit`` (the last commit before the
checker was rebuilt) and runs its Pareto check on the issue's capped hoarder
(``tests/fairness_catalogue.py::capped_hoarding``: user 0 holds every server whole and
runs its capped tasks; the others get nothing): on the issue's instance, then on 500
generated instances for seeds 0, 1, 2. Then the same with the current checker.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    """Run the comparison (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commit", default="cf851d5")
    args = parser.parse_args()
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{args.commit}:src/allockit/fairness.py"],
        capture_output=True, text=True, check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "old_fairness.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("old_fairness", path)
    old = importlib.util.module_from_spec(spec)
    sys.modules["old_fairness"] = old
    spec.loader.exec_module(old)
    sys.path.insert(0, str(ROOT))
    from allockit.fairness import check
    from allockit.instances.drfh import DRFHInstance
    from tests.fairness_catalogue import capped_hoarding

    issue = DRFHInstance.from_dict({
        "resources": ["cpu", "mem"], "servers": [{"name": "s0", "capacity": [2, 2]}],
        "users": [{"name": "u0", "demand": [0.1, 0.1], "tasks": 5},
                  {"name": "u1", "demand": [0.1, 0.1], "tasks": 5}]})
    print(f"old checker at {args.commit}, the issue's instance: violation, detail =",
          old._pareto(issue, capped_hoarding))
    for seed in (0, 1, 2):
        r = old.check(capped_hoarding, ["pareto"], examples=500, seed=seed)[0]
        print(f"old checker, seed {seed}, 500 examples: held={r.held} violation={r.violation}")
    [r] = check(capped_hoarding, ["pareto"], instance=issue)
    print(f"new checker, the issue's instance: {r.status}, {r.violation} tasks ({r.semantics})")
    for seed in (0, 1, 2):
        r = check(capped_hoarding, ["pareto"], examples=500, seed=seed)[0]
        print(f"new checker, seed {seed}: {r.status} at example {r.examples}, "
              f"{r.violation} tasks")


if __name__ == "__main__":
    main()
