"""Feitelson 1996 and Jann 1997 workload models: generation time and statistics vs MEASY.

    python benchmarks/bench_workload_models.py [--seed 1] [--repeat 3] [--traces DIR]

Prints (as Markdown tables):

1. one-time costs, each in a fresh interpreter: importing the model modules, and the
   first Jann generation (which loads the bundled parameters);
2. generation time (best of ``--repeat``) of 200,000 Feitelson jobs and 100,000 Jann
   jobs on 320 processors, plain and with every MEASY option (Tsafrir estimates and CPU
   usage), and the time to format each as SWF text;
3. the generated statistics beside the model's exact expectation (with the z-score of
   the difference in standard errors) and the MEASY paper's numbers;
4. with the CTC-SP2 log in ``--traces``: the time to refit the Jann model to it, and the
   statistics of the fitted part of the log.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from allockit.instances import feitelson96 as fw
from allockit.instances import jann97 as jw
from allockit.instances.swf import swf_lines, workload_to_swf
from allockit.instances.workload_stats import workload_statistics

PROCS = 320


def _fresh(code: str) -> float:
    """Seconds ``code`` takes in a new interpreter (it prints them)."""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return float(out.strip().splitlines()[-1])


def _best(repeat: int, func):
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    return best, result


def _row(name, got, model, se, target, fmt):
    z = (got - model) / se if se else float("nan")
    target_text = "" if target is None else fmt.format(target)
    diff = "" if target is None else f"{100 * (got - target) / target:+.1f} %"
    return (
        f"| {name} | {fmt.format(got)} | {fmt.format(model)} | {z:+.2f} | {target_text} | {diff} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    from allockit.instances.datasets import data_dir

    default = data_dir() / "traces"  # allockit data fetch all
    parser.add_argument("--traces", type=Path, default=default)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    timer = "import time; t = time.perf_counter(); {0}; print(time.perf_counter() - t)"
    imports = "import allockit.instances.feitelson96, allockit.instances.jann97"
    first = (
        "from allockit.instances.jann97 import jann97_workload; "
        "t = time.perf_counter(); jann97_workload(10, procs=320, seed=0)"
    )
    print("## One-time costs (fresh interpreter)\n")
    print("| what | seconds |\n|---|---|")
    base_s = _fresh(timer.format("import allockit"))
    import_s = _fresh(timer.format(imports))
    print(f"| import allockit (numpy and the core; the baseline) | {base_s:.3f} |")
    print(
        f"| import allockit.instances.feitelson96 and .jann97 (includes the line above) "
        f"| {import_s:.3f} |"
    )
    first_s = _fresh(f"import time; {first}; print(time.perf_counter() - t)")
    print(f"| first Jann generation (loads the bundled JSON), 10 jobs | {first_s:.3f} |")

    seed = args.seed
    cases = [
        ("Feitelson 1996", 200_000, fw.feitelson96_workload, {}),
        (
            "Feitelson 1996 + estimates + CPU usage",
            200_000,
            fw.feitelson96_workload,
            {"estimates": True, "cpu_usage": True},
        ),
        ("Jann 1997", 100_000, jw.jann97_workload, {}),
        (
            "Jann 1997 + estimates + CPU usage",
            100_000,
            jw.jann97_workload,
            {"estimates": True, "cpu_usage": True},
        ),
    ]
    print(f"\n## Generation on {PROCS} processors (best of {args.repeat}, seed {seed})\n")
    print("| workload | jobs | generate (s) | SWF text (s) |\n|---|---|---|---|")
    generated = {}
    for name, jobs, func, options in cases:
        seconds, w = _best(
            args.repeat, lambda f=func, j=jobs, o=options: f(j, procs=PROCS, seed=seed, **o)
        )
        text_s, _ = _best(1, lambda w=w: "".join(swf_lines(workload_to_swf(w))))
        generated[name] = w
        print(f"| {name} | {jobs:,} | {seconds:.3f} | {text_s:.2f} |")

    print("\n## Statistics beside the model and the MEASY paper\n")
    header = "| statistic | generated | model | z | MEASY | vs MEASY |\n|---|---|---|---|---|---|"
    f_model = fw.Feitelson96Model()
    f_w = generated["Feitelson 1996"]
    f_exp = f_model.expected_statistics(PROCS)
    f_se = f_model.standard_errors(f_w.n_jobs, PROCS)
    f_got = workload_statistics(f_w)
    print(f"### Feitelson 1996, {f_w.n_jobs:,} jobs (FWload)\n\n{header}")
    targets = fw.MEASY_TARGETS
    for row in (
        ("mean parallelism", f_got["tasks"]["mean"], "mean_size", targets["mean_size"], "{:.2f}"),
        (
            "mean runtime (s)",
            f_got["runtime"]["mean"],
            "mean_runtime",
            targets["mean_runtime"],
            "{:.1f}",
        ),
        ("one-process share", f_got["tasks"]["serial_fraction"], "serial_fraction", None, "{:.4f}"),
        (
            "power-of-two share",
            f_got["power_of_two_fraction"],
            "power_of_two_fraction",
            None,
            "{:.4f}",
        ),
        ("offered load", f_got["process_load"], "offered_load", None, "{:.3f}"),
    ):
        name, got, key, target, fmt = row
        print(_row(name, got, f_exp[key], f_se[key], target, fmt))
    chained = 1 - 1 / f_exp["mean_runs"]
    print(
        _row(
            "chained (repeat) runs",
            f_got["chained_fraction"],
            chained,
            f_se["chained_fraction"],
            None,
            "{:.4f}",
        )
    )
    print(
        f"\nMEASY: one-process share under {targets['serial_fraction_below']:.0%}; "
        f"median size {f_got['tasks']['median']:.0f}, median runtime "
        f"{f_got['runtime']['median']:.0f} s, mean interarrival "
        f"{f_got['mean_interarrival']:.1f} s."
    )

    j_model = jw.load_jann_model()
    j_w = generated["Jann 1997"]
    j_exp = j_model.expected_statistics(PROCS)
    j_se = j_model.standard_errors(j_w.n_jobs, PROCS)
    j_got = workload_statistics(j_w)
    targets = jw.MEASY_TARGETS
    print(f"\n### Jann 1997 (bundled CTC fit), {j_w.n_jobs:,} jobs (JWload)\n\n{header}")
    for row in (
        ("mean parallelism", j_got["tasks"]["mean"], "mean_size", targets["mean_size"], "{:.2f}"),
        (
            "mean runtime (s)",
            j_got["runtime"]["mean"],
            "mean_runtime",
            targets["mean_runtime"],
            "{:.1f}",
        ),
        (
            "one-process share",
            j_got["tasks"]["serial_fraction"],
            "serial_fraction",
            targets["serial_fraction"],
            "{:.4f}",
        ),
        (
            "power-of-two share",
            j_got["power_of_two_fraction"],
            "power_of_two_fraction",
            None,
            "{:.4f}",
        ),
    ):
        name, got, key, target, fmt = row
        print(_row(name, got, j_exp[key], j_se[key], target, fmt))
    print(f"| offered load | {j_got['process_load']:.3f} | {j_exp['offered_load']:.3f} |  |  |  |")
    print(
        f"\nStandard errors for {j_w.n_jobs:,} jobs: mean parallelism {j_se['mean_size']:.3f}, "
        f"runtime {j_se['mean_runtime']:.1f} s, one-process share "
        f"{j_se['serial_fraction']:.4f}; the model's runtime is "
        f"{(j_exp['mean_runtime'] - targets['mean_runtime']) / j_se['mean_runtime']:+.1f} "
        "standard errors from MEASY's."
    )

    ctc = args.traces / "CTC-SP2-1996-3.1-cln.swf.gz"
    if ctc.exists():
        from allockit.instances.swf import read_swf, swf_to_workload

        seconds, model = _best(1, lambda: jw.fit_ctc_jann97(ctc))
        part = swf_to_workload(jw.select_period(read_swf(ctc), **jw.CTC_FIRST_PART), cores=1)
        s = workload_statistics(part)
        print(
            f"\n### The fitted part of the CTC-SP2 log\n\nRefit (read + select + 20 fits): "
            f"{seconds:.2f} s; identical to the bundled model: {model == j_model}.\n"
        )
        print("| jobs | mean parallelism | mean runtime (s) | one-process share | max size |")
        print("|---|---|---|---|---|")
        print(
            f"| {s['jobs']:,} | {s['tasks']['mean']:.2f} | {s['runtime']['mean']:.1f} | "
            f"{s['tasks']['serial_fraction']:.4f} | {s['tasks']['max']} |"
        )
        print("\n| range | jobs | interarrival order | runtime order |\n|---|---|---|---|")
        for r in model.ranges:
            print(f"| {r.lo}-{r.hi} | {r.jobs} | {r.interarrival.n} | {r.runtime.n} |")


if __name__ == "__main__":
    main()
