"""Table 5's schedules on a real HPC2N week are those of the code before the speed-ups.

Every speed-up of the DFRS simulator since cf851d5 (issue 31: compiled per-event steps,
LP answers kept, MCB8 packing jobs instead of tasks, ...) claims to leave every schedule
as it was, bit for bit. ``tests/data/table5_schedules.json`` holds, for each of the
table's 118 algorithms, the md5 of the per-job start, end, preemption and migration
arrays of its simulation of one HPC2N week (penalty 300 s, period 600 s, FCFS and EASY on
whole nodes: as ``allockit dfrs-experiment table5``), written by cf851d5 and by the code
of this test's commit alike, each in its own environment:

    python benchmarks/bench_dfrs_weeks.py run --weeks W --out F.json

The week is a short one (so that the whole table runs in seconds) on which the table's
algorithms still give many different schedules. A change to any step of any algorithm
(a tie broken another way, a float summed in another order) changes some fingerprint.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from tests.traces import real_trace

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "table5_schedules.json"
FIELDS = ("start", "end", "job_preemptions", "job_migrations")


def fingerprint(result) -> str:
    """md5 of a simulation's per-job arrays in ``FIELDS`` order (``bench_dfrs_weeks.py``'s)."""
    digest = hashlib.md5()
    for name in FIELDS:
        digest.update(np.ascontiguousarray(np.asarray(getattr(result, name))).tobytes())
    return digest.hexdigest()


def table5_options(name: str) -> dict:
    """The simulator's options in ``dfrs-experiment table5`` for algorithm ``name``."""
    if name in ("FCFS", "EASY"):
        return {"unit": "nodes"}
    return {"penalty": 300.0, "period": 600.0}


@pytest.fixture(scope="module")
def reference() -> dict:
    return json.loads(REFERENCE.read_text())


@pytest.fixture(scope="module")
def week(reference):
    from allockit.instances.hpc2n import hpc2n_workload, split_weeks
    from allockit.instances.swf import read_swf

    weeks = split_weeks(hpc2n_workload(read_swf(real_trace("hpc2n"))))
    return weeks[reference["week"]]


def test_the_reference_covers_the_whole_table_and_many_schedules(reference):
    from allockit.experiments.dfrs import PAPER_TABLE5

    assert set(reference["md5"]) == set(PAPER_TABLE5)
    assert len(set(reference["md5"].values())) >= reference["distinct_at_least"]


def test_every_schedule_of_the_table_is_the_reference(reference, week):
    from allockit.simulation.simulate import simulate

    assert week.n_jobs == reference["jobs"]
    differ = {}
    for name, expected in reference["md5"].items():
        got = fingerprint(simulate(week, name, **table5_options(name)))
        if got != expected:
            differ[name] = got
    assert not differ, f"{len(differ)} of {len(reference['md5'])} schedules changed: {differ}"


def test_the_fingerprint_tells_schedules_apart(reference, week):
    """Another penalty or period gives other schedules: the check can fail."""
    from allockit.simulation.simulate import simulate

    name = "GreedyPM */per/opt=min/minvt=600"
    assert fingerprint(simulate(week, name, penalty=300.0, period=600.0)) == reference["md5"][name]
    assert fingerprint(simulate(week, name, penalty=301.0, period=600.0)) != reference["md5"][name]
    assert fingerprint(simulate(week, name, penalty=300.0, period=601.0)) != reference["md5"][name]
