"""Census of the command line under the parser-driven fuzz: every case, its outcome.

The fuzz suite (``tests/cli/test_fuzz.py``) samples; this runs every case of
``tests/cli/fuzz_harness.hostile_values`` for every option of every subcommand (with
every template of the subcommand), plus issue 30's cases, and counts the outcomes:

- clean refusal: exit 2 with one line on stderr (no traceback), nothing on stdout;
- completed: exit 0 or 3 with valid output, for a value the declaration accepts;
- silent acceptance: exit 0 or 3 for a value the declaration refuses (an out-of-range
  number, an unknown name, an unwritable output, an unreadable input, ...);
- traceback: an exception escaped (exit 1);
- hang: no answer within 60 s (the case is interrupted);
- other: any other breach of the contract (two lines on exit 2, invalid JSON, ...).

Two steps, so that the same cases can be run against another checkout of allockit:

    python benchmarks/fuzz_cli_census.py cases --dir /tmp/census        # writes cases.json
    python benchmarks/fuzz_cli_census.py run /tmp/census/cases.json     # runs them here
    python benchmarks/fuzz_cli_census.py run /tmp/census/cases.json --every 10  # a tenth

The ``run`` step imports only ``allockit.cli.main`` (from the environment it runs in) and
the harness's ``run_cli``; the ``cases`` step needs this checkout's option layer.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: issue 30's list of failing cases (placeholders as in the harness's templates).
ISSUE_CASES = [
    ["cluster-sim", "--nodes", "100", "--fanout", "abc"],
    ["cluster-sim", "--scenario", "fig3", "--duration", "1e308"],
    ["cluster-sim", "--scenario", "fig3", "--duration", "1e7"],
    ["measy-experiment", "fig6", "--jobs", "100", "--loads", "1e308", "--backend", "serial",
     "--store", "{store}"],
    ["measy-experiment", "fig6", "--jobs", "100", "--loads", "1e30", "--backend", "serial",
     "--store", "{store}"],
    ["workload", "feitelson96", "--jobs", "100", "--load", "1e-300"],
    ["cluster-sim", "--nodes", "10", "--duration", "2", "--plot", "{tmp}/a-folder"],
    ["reproduce", "--paper", "nope"],
    ["workload", "jann97", "--jobs", "10", "--model", "{tmp}/unknown-field.json"],
    ["workload", "jann97", "--jobs", "10", "--model", "{tmp}/list.json"],
    ["simulate", "{swf}", "--algorithm", "EASY", "--migration-cost", "5", "--bg-threshold",
     "0.5"],
    ["cluster-sim", "--nodes", "10", "--fail", "1@1e9", "--duration", "20"],
    ["cluster-sim", "--nodes", "10", "--fanout", "1000,1000", "--duration", "2"],
    ["reserves", "{reserves}", "--c", "1e308"],
    ["measy-experiment", "fig13", "--costs", "-5", "--backend", "serial", "--store",
     "{store}"],
    ["workload", "fit", "{ctc}", "--out", "{tmp}/a-folder"],
    ["workload", "fit", "{ctc}", "--out", "/proc/model.json"],
    ["measy-experiment", "fig8", "--model", "lublin", "--jobs", "30", "--loads", "0.8",
     "--plot", "/proc/f.png", "--backend", "serial", "--store", "{store}"],
    ["dfrs-experiment", "table2", "--sets", "real", "--backend", "serial", "--store",
     "{store}"],
]


def make_cases(folder: Path) -> list[dict]:
    """Every case, rendered to argv, with whether the declaration refuses its value."""
    from tests.cli.fuzz_harness import (
        TEMPLATES,
        Fixtures,
        case_argv,
        hostile_values,
        must_refuse,
        option_cases,
        template_args,
    )

    folder.mkdir(parents=True, exist_ok=True)
    fixtures = Fixtures(folder)
    cases = []
    for case in option_cases():
        for template in TEMPLATES[case.command]:
            args = template_args(template, fixtures)
            for value in hostile_values(case) or [""]:
                tmp, store = fixtures.fresh()
                argv = case_argv(template, case, value, fixtures, tmp, store)
                cases.append({
                    "case": str(case), "kind": case.kind, "value": value, "argv": argv,
                    "refuse": must_refuse(case, value, args), "store": str(store),
                })
    for argv in ISSUE_CASES:
        tmp, store = fixtures.fresh()
        (tmp / "list.json").write_text("[1, 2]")
        model = json.loads((ROOT / "instances" / "data" / "jann97_ctc.json").read_text())
        model["colour"] = "red"
        (tmp / "unknown-field.json").write_text(json.dumps(model))
        cases.append({
            "case": "issue 30", "kind": "issue", "value": " ".join(argv),
            "argv": [fixtures.render(a, tmp, store) for a in argv], "refuse": True,
            "store": str(store),
        })
    return cases


def classify(outcome, refuse: bool) -> str:
    """The outcome's class (see the module docstring)."""
    from tests.cli.fuzz_harness import strict_json

    if outcome.code == "hang":
        return "hang"
    if outcome.code == "traceback" or "Traceback" in outcome.err:
        return "traceback"
    if outcome.code == 2:
        lines = outcome.err.strip().splitlines()
        one = len(lines) == 1 and lines[0].startswith("allockit") and outcome.out == ""
        return "clean refusal" if one else "other"
    if outcome.code in (0, 3):
        if refuse:
            return "silent acceptance"
        text = outcome.out.lstrip()
        if text.startswith(("{", "[")):
            try:
                strict_json(outcome.out)
            except ValueError:
                return "other"
        return "completed"
    return "other"


def run_cases(path: Path, *, timeout: float, only: str | None, every: int = 1) -> dict:
    """Run the cases of ``path`` in this process; the counts and the problems.

    ``every`` keeps one case in ``every`` (the 1st, the ``every + 1``-th, ...) and always
    issue 30's own cases, so that a busy machine can measure an even share of all.
    """
    from tests.cli.fuzz_harness import run_cli

    cases = json.loads(path.read_text())
    if only:
        cases = [c for c in cases if only in c["case"]]
    if every > 1:
        cases = [c for k, c in enumerate(cases) if k % every == 0 or c["kind"] == "issue"]
    os.environ["ALLOCKIT_DATA"] = str(path.parent / "no-traces")  # names find nothing
    counts: Counter = Counter()
    problems = []
    started = time.perf_counter()
    os.chdir(path.parent)  # anything written to a relative path stays here
    for k, case in enumerate(cases):
        outcome = run_cli(case["argv"], timeout=timeout)
        kind = classify(outcome, case["refuse"])
        counts[kind] += 1
        if kind not in ("clean refusal", "completed"):
            problems.append({"class": kind, "case": case["case"], "value": case["value"],
                             "argv": case["argv"], "err": outcome.err[-300:]})
        if (k + 1) % 100 == 0:
            sys.stderr.write(f"{k + 1}/{len(cases)} {dict(counts)}\n")
    return {
        "cases": len(cases),
        "counts": dict(counts),
        "seconds": round(time.perf_counter() - started, 1),
        "problems": problems,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    c = sub.add_parser("cases", help="write the cases (needs this checkout)")
    c.add_argument("--dir", required=True, help="folder of the fixtures and cases.json")
    r = sub.add_parser("run", help="run the cases against the allockit of this environment")
    r.add_argument("cases", help="cases.json written by the cases step")
    r.add_argument("--timeout", type=float, default=60.0, help="seconds per case (default 60)")
    r.add_argument("--only", default=None, help="only cases whose name contains this")
    r.add_argument("--every", type=int, default=1,
                   help="run one case in EVERY, plus issue 30's (default 1: all)")
    r.add_argument("--out", default=None, help="write the full report (JSON) here")
    args = parser.parse_args()
    if args.step == "cases":
        folder = Path(args.dir).resolve()
        cases = make_cases(folder)
        (folder / "no-traces").mkdir(exist_ok=True)
        (folder / "cases.json").write_text(json.dumps(cases, indent=1))
        print(json.dumps({"cases": len(cases), "to_refuse": sum(c["refuse"] for c in cases),
                          "file": str(folder / "cases.json")}))
        return
    out = Path(args.out).resolve() if args.out else None  # before the run moves to the cases
    report = run_cases(Path(args.cases).resolve(), timeout=args.timeout, only=args.only,
                        every=args.every)
    if out is not None:
        out.write_text(json.dumps(report, indent=1))
    by_class = Counter(p["class"] for p in report["problems"])
    print(json.dumps({k: v for k, v in report.items() if k != "problems"} | {
        "problem_cases": {k: sorted({p["case"] for p in report["problems"] if p["class"] == k})
                          for k in by_class}
    }, indent=1))


if __name__ == "__main__":
    main()
