"""Table 5's schedules on a real HPC2N week are those of the code before the speed-ups.

Every speed-up of the DFRS simulator since cf851d5 (issue 31: compiled per-event steps,
LP answers kept, MCB8 packing jobs instead of tasks, ...) claims to leave every schedule
as it was, bit for bit. ``tests/data/table5_schedules.json`` holds, for each of the
table's 118 algorithms, the md5 of the per-job start, end, preemption and migration
arrays of its simulation of one HPC2N week (penalty 300 s, period 600 s, FCFS and EASY on
whole nodes), written by cf851d5 and by the code of this test's commit alike, each in its
own environment:

    python benchmarks/bench_dfrs_weeks.py run --weeks W --out F.json

The test runs the week through the table's own tasks (``experiment_tasks("table5", ...)``
and ``run_dfrs_task``, what ``allockit dfrs-experiment table5`` runs), so a change of the
experiment's options or workloads would show too, and fingerprints each simulation with
the benchmark's own ``fingerprint``.

Two references: the whole table on week 8, a short week (the table runs in seconds)
on which its algorithms still give 55 different schedules, and on week 120, a long week
with a backlog, the Greedy family with opt=min, FCFS, EASY and two more (37 runs, 34 schedules;
``tests/data/table5_schedules_w120.json``, from cf851d5's run of RESULTS 12.11.20).
A change to any step of any algorithm (a tie broken another way, a float summed in
another order) changes some fingerprint.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.traces import real_trace

ROOT = Path(__file__).resolve().parents[2]
#: The whole table on a short week, and its fast algorithms (and one opt=avg) on week 120,
#: a long week with a backlog (1,067 jobs; the md5s of cf851d5's run in RESULTS 12.11.20).
REFERENCES = {"week8-all": ROOT / "tests" / "data" / "table5_schedules.json",
              "week120-fast": ROOT / "tests" / "data" / "table5_schedules_w120.json"}
BENCHMARK = ROOT / "benchmarks" / "bench_dfrs_weeks.py"


def _benchmark_fingerprint():
    """``bench_dfrs_weeks.fingerprint``: the md5 the reference was written with."""
    spec = importlib.util.spec_from_file_location("bench_dfrs_weeks", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.fingerprint


fingerprint = _benchmark_fingerprint()


@pytest.fixture(scope="module", params=sorted(REFERENCES))
def reference(request) -> dict:
    return json.loads(REFERENCES[request.param].read_text())


def _table5_tasks(week: int, names, **options):
    from allockit.experiments.dfrs import experiment_tasks
    from allockit.experiments.dfrs_traces import TraceSets

    sets = TraceSets(seeds=(), loads=(1.0,), weeks=(week,), unscaled=False,
                     hpc2n=str(real_trace("hpc2n")))
    tasks = experiment_tasks("table5", sets, algorithms_only=tuple(names), **options)
    return [t for t in tasks if t.method != "bound"]


def _fingerprints(tasks, monkeypatch) -> dict[str, str]:
    """Each task run as the table runs it, and the fingerprint of its simulation."""
    import allockit.simulation.simulate as simulate_module
    from allockit.experiments.dfrs import run_dfrs_task

    real, seen = simulate_module.simulate, {}

    def recording(workload, name, **options):
        result = real(workload, name, **options)
        seen[name] = fingerprint(result)
        seen["jobs"] = workload.n_jobs
        return result

    monkeypatch.setattr(simulate_module, "simulate", recording)
    out = {}
    for task in tasks:
        run_dfrs_task(task)
        out[task.method] = seen.pop(task.algorithm)
    out["jobs"] = seen.get("jobs")
    return out


def test_the_references_cover_the_table_and_many_schedules(reference):
    from allockit.experiments.dfrs import PAPER_TABLE5

    assert set(reference["md5"]) <= set(PAPER_TABLE5)
    if reference["week"] == 8:
        assert set(reference["md5"]) == set(PAPER_TABLE5)
    assert len(set(reference["md5"].values())) >= reference["distinct_at_least"] >= 30


def test_every_schedule_of_the_table_is_the_reference(reference, monkeypatch):
    tasks = _table5_tasks(reference["week"], reference["md5"])
    assert sorted(t.method for t in tasks) == sorted(reference["md5"])
    got = _fingerprints(tasks, monkeypatch)
    assert got.pop("jobs") == reference["jobs"]
    differ = {name: md5 for name, md5 in got.items() if md5 != reference["md5"][name]}
    assert not differ, f"{len(differ)} of {len(got)} schedules changed: {differ}"


@pytest.mark.parametrize("options", [{"penalty": 301.0}, {"period": 601.0}])
def test_the_fingerprint_tells_schedules_apart(reference, monkeypatch, options):
    """Another penalty or period gives another schedule: the check can fail."""
    name = "GreedyPM */per/opt=min/minvt=600"
    tasks = _table5_tasks(reference["week"], [name], **options)
    assert _fingerprints(tasks, monkeypatch)[name] != reference["md5"][name]
