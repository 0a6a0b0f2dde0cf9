"""workload_statistics on small hand-made workloads: exact values, JSON safety, contract keys."""

import json

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.instances.workload import Platform, Workload
from allockit.instances.workload_stats import workload_statistics

CONTRACT = {
    "jobs",
    "nodes",
    "cores",
    "offered_load",
    "span_seconds",
    "tasks",
    "runtime",
    "requested_time_known",
}


def _workload(**overrides):
    jobs = dict(
        submit=[0, 10, 10, 40],
        runtime=[100.0, 20.0, 30.0, 10.0],
        tasks=[1, 2, 3, 8],
        cpu=[1.0, 0.5, 1.0, 1.0],
        mem=[0.1] * 4,
        requested_time=[200.0, np.nan, 30.0, np.nan],
    )
    jobs.update(overrides)
    return Workload.from_jobs(Platform(nodes=8), **jobs)


def test_exact_values_on_a_hand_made_workload():
    s = workload_statistics(_workload())
    assert CONTRACT <= set(s)
    assert (s["jobs"], s["nodes"], s["cores"], s["span_seconds"]) == (4, 8, 1, 40.0)
    assert s["tasks"] == {"mean": 3.5, "median": 2.5, "max": 8, "serial_fraction": 0.25}
    assert s["runtime"] == {"mean": 40.0, "median": 25.0, "max": 100.0}
    assert s["requested_time_known"] == 0.5
    assert s["power_of_two_fraction"] == 0.5  # sizes 2 and 8; size 1 does not count
    assert s["mean_interarrival"] == pytest.approx(40 / 3)
    assert s["median_interarrival"] == 10.0
    # work = 100*1*1 + 20*2*0.5 + 30*3*1 + 10*8*1 = 290 over 8 nodes x 40 s
    assert s["offered_load"] == pytest.approx(290 / 320)
    assert s["process_load"] == pytest.approx(310 / 320)
    assert s["chained_fraction"] == 0.0
    json.dumps(s, allow_nan=False)


def test_chained_jobs_are_counted():
    w = _workload(preceding=[-1, -1, 1, 3], think_time=[np.nan, np.nan, 0.0, 5.0])
    assert workload_statistics(w)["chained_fraction"] == 0.5


def test_one_job_and_simultaneous_arrivals_are_json_safe():
    one = workload_statistics(
        Workload.from_jobs(
            Platform(nodes=2, cores=4), submit=[5], runtime=[50], tasks=[4], cpu=[0.25], mem=[0.2]
        )
    )
    assert one["mean_interarrival"] is None and one["median_interarrival"] is None
    assert one["span_seconds"] == 0.0 and one["power_of_two_fraction"] == 1.0
    assert one["offered_load"] == pytest.approx(50 * 4 * 0.25 / (2 * 50))  # span = runtime
    assert one["process_load"] == pytest.approx(50 * 4 / (2 * 4 * 50))
    json.dumps(one, allow_nan=False)


def test_empty_workload_gives_nones():
    empty = Workload.from_jobs(Platform(nodes=3), submit=[], runtime=[], tasks=[], cpu=[], mem=[])
    s = workload_statistics(empty)
    assert s["jobs"] == 0 and s["nodes"] == 3 and s["offered_load"] is None
    assert s["tasks"]["mean"] is None and s["runtime"]["max"] is None
    json.dumps(s, allow_nan=False)


def test_refuses_what_is_not_a_workload():
    with pytest.raises(InvalidInputError, match="workload must be a Workload; got dict"):
        workload_statistics({})
