"""Experiment functions refuse bad arguments by name, before any work (fuzz round 6)."""

from __future__ import annotations

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.experiments.dfrs_traces import trace_sets
from allockit.experiments.drfh import fig4_scenario, fig5_comparison
from allockit.experiments.drfh_table2 import heavy_day, slot_coverage, table2_snapshot
from allockit.experiments.measy import MeasySets
from allockit.experiments.reserves import experiment_tasks
from allockit.instances.drfh import google_servers
from allockit.simulation.cluster import ClusterSimConfig
from allockit.simulation.hierarchy import Hierarchy

SMALL = {"servers": 5, "users": 3, "hours": 0.1}


@pytest.mark.parametrize(("call", "named"), [
    # a fraction of slots per server computed fractional slots; the others were raw errors
    (lambda: slot_coverage(google_servers(5, seed=0), 2.5), "per_largest must be an integer"),
    (lambda: slot_coverage([], 3), "servers must list at least one server class"),
    (lambda: heavy_day(**SMALL | {"hours": 0}), "hours must be a finite number > 0"),
    (lambda: heavy_day(**SMALL | {"hours": -1}), "hours must be"),
    (lambda: heavy_day(**SMALL, seed=2.5), "seed must be an integer"),
    (lambda: heavy_day(**SMALL, window=3), r"window must be a pair \(start, end\)"),
    (lambda: heavy_day(**SMALL, window=(0.5, float("nan"))), "window must be"),
    (lambda: heavy_day(**SMALL, points=2.5), "points must be an integer"),
    (lambda: fig5_comparison(**SMALL, slots=None), "slots must be an integer >= 1; got None"),
    (lambda: fig4_scenario(best=10**30), "best must be True or False"),
    (lambda: fig4_scenario(servers=10**30), r"servers must be an integer in \[1, 10000000\]"),
    (lambda: table2_snapshot(seed=-1), "seed must be an integer"),
    (lambda: table2_snapshot(servers=5, users=3, slot_counts=(2.5,)),
     r"slot_counts\[0\] must be an integer >= 1"),
])
def test_bad_arguments_are_named(call, named):
    with pytest.raises(InvalidInputError, match=named):
        call()


def test_numpy_numbers_work_like_python_ones():
    a = heavy_day(servers=np.int64(5), users=np.int64(3), hours=np.float64(0.1), points=5,
                  seed=np.int64(1))
    b = heavy_day(servers=5, users=3, hours=0.1, points=5, seed=1)
    assert a["offered_load"] == b["offered_load"]
    assert fig4_scenario(servers=np.int64(10), seed=np.int64(0)).departures == (
        fig4_scenario(servers=10).departures)


@pytest.mark.parametrize(("call", "named"), [
    (lambda: MeasySets(loads=0.5), "MeasySets.loads must be a sequence of numbers"),
    (lambda: MeasySets(loads=("0.5",)), "MeasySets.loads must be a number; got '0.5'"),
    (lambda: MeasySets(processors=2.5), "MeasySets.processors must be an integer"),
    (lambda: MeasySets(jobs={"fwload": 2.5}), r"MeasySets.jobs\['fwload'\] must be"),
    (lambda: MeasySets(seed=-1), "MeasySets.seed must be an integer"),
    (lambda: trace_sets(seeds=2.5), r"seeds must be an integer in \[1, 1000000\]"),
    (lambda: experiment_tasks("fig3", seeds=10**30), "seeds must be an integer"),  # (ran on)
    (lambda: Hierarchy.build(10**30), r"n_nodes must be an integer in \[1, 10000000\]"),
    (lambda: Hierarchy.build(10, "3"), "fanout must be a sequence of integers"),
    (lambda: ClusterSimConfig(n_nodes=10**30), "n_nodes must be at most 10,000,000"),
])
def test_other_experiment_arguments_are_named(call, named):
    with pytest.raises(InvalidInputError, match=named):
        call()


def test_numpy_seeds_and_a_fanout_number_are_taken():
    # a numpy seed made the task's JSON fail; a fanout of one level as a number raised
    assert MeasySets(seed=np.int64(1)).seed == 1 and type(MeasySets(seed=np.int64(1)).seed) is int
    assert Hierarchy.build(10, np.int64(3)).level == Hierarchy.build(10, (3,)).level


def test_a_grid_of_no_mapping_and_a_two_tier_run_of_no_workload_are_named():
    from allockit.experiments.sweep_kinds import grid
    from allockit.simulation.two_tier import simulate_two_tier

    with pytest.raises(InvalidInputError, match="params must map option names"):
        grid([1, 2, 3])  # an IndexError before
    with pytest.raises(InvalidInputError, match="workload must be an allockit"):
        simulate_two_tier([1, 2])  # an AttributeError before


def test_a_trace_spec_of_numpy_numbers_builds_the_same_workload():
    # a numpy seed in the spec raised json's raw "not JSON serializable"
    from allockit.experiments.dfrs_traces import build_workload

    spec = {"set": "scaled", "seed": 0, "load": 0.5, "jobs": 30, "nodes": 8}
    numpy_spec = {**spec, "seed": np.int64(0), "load": np.float64(0.5)}
    assert build_workload(numpy_spec).to_dict() == build_workload(spec).to_dict()
