"""The debug-mode invariant checker refuses states it cannot call sound (NaN included)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from allockit.instances.workload import Platform, Workload
from allockit.simulation.dfrs_checks import check_invariants
from allockit.simulation.dfrs_rows import SimulationInvariantError
from allockit.simulation.dfrs_state import DfrsState


def _state() -> DfrsState:
    w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0], runtime=[10, 20], tasks=[1, 1],
                           cpu=[1.0, 0.5], mem=[0.5, 0.25])
    s = DfrsState(w, penalty=0.0)
    s.submit(0)
    s.submit(1)
    s.start_job(0, np.array([0]), 0.0)
    s.start_job(1, np.array([1]), 0.0)
    s.yields[[0, 1]] = [1.0, 0.5]
    return s


def test_a_sound_state_passes():
    check_invariants(_state(), 0.0)


@pytest.mark.parametrize("value", [math.nan, -0.1, 1.5, math.inf])
def test_a_yield_that_is_no_share_is_refused(value):
    s = _state()
    s.yields[1] = value
    with pytest.raises(SimulationInvariantError, match="job 1 has yield"):
        check_invariants(s, 0.0)


@pytest.mark.parametrize("value", [math.nan, -5.0, 20.1, math.inf])
def test_progress_outside_the_job_s_work_is_refused(value):
    s = _state()
    s.vt[1] = value
    with pytest.raises(SimulationInvariantError, match=r"job 1 has progress .* outside \[0"):
        check_invariants(s, 0.0)


def test_progress_up_to_the_work_passes():
    s = _state()
    s.vt[:] = [10.0, 0.0]
    check_invariants(s, 0.0)


@pytest.mark.parametrize("algorithm", [42, None, object(), DfrsState])
def test_simulate_dfrs_names_an_algorithm_that_is_none(algorithm):
    from allockit.errors import InvalidInputError
    from allockit.simulation.dfrs import simulate_dfrs

    w = Workload.from_jobs(Platform(nodes=1), submit=[0], runtime=[50], tasks=[1], cpu=[1.0],
                           mem=[0.1])
    with pytest.raises(InvalidInputError, match=r"algorithm must be a name .* or a fractional"):
        simulate_dfrs(w, algorithm)


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"period": -1.0}, r"period must be a finite number > 0 \(seconds\); got -1.0"),
    ({"period": math.nan}, r"period must be a finite number > 0"),
    ({"hold": math.nan}, r"hold must be None or a finite number >= 0 \(seconds\); got nan"),
    ({"hold": -1}, r"hold must be None or a finite number >= 0"),
])
def test_a_dfrs_algorithm_refuses_a_period_or_hold_that_is_none(kwargs, named):
    from allockit.errors import InvalidInputError
    from allockit.simulation.dfrs_algorithm import DfrsAlgorithm

    with pytest.raises(InvalidInputError, match=named):
        DfrsAlgorithm("MCB8 */per", **kwargs)
    assert DfrsAlgorithm("MCB8 */per", period=np.int64(300), hold=np.float32(5)).period == 300.0


@pytest.mark.parametrize(("start", "end", "named"), [
    ([0.0], [10.0, 20.0], r"start must have one time per job \(2\); got shape \(1,\)"),
    ([0.0, math.nan], [10.0, 20.0], r"start\[1\] must be a finite time"),
    ([0.0, 10.0], [10.0, math.inf], r"end\[1\] must be a finite time"),
    ([0.0, 10.0], [10.0, 5.0], r"end\[1\] must be at or after its job's start; got 5.0"),
])
def test_batch_metrics_refuse_a_schedule_that_is_none(start, end, named):
    # a start of length 1 used to broadcast into an underutilisation of -10
    from allockit.errors import InvalidInputError
    from allockit.simulation.metrics import batch_timeline, underutilization

    w = Workload.from_jobs(Platform(nodes=1), submit=[0, 5], runtime=[10, 10], tasks=[1, 1],
                           cpu=[1.0, 1.0], mem=[0.1, 0.1])
    with pytest.raises(InvalidInputError, match=named):
        underutilization(w, np.array(start), np.array(end))
    with pytest.raises(InvalidInputError, match=named):
        batch_timeline(w, np.array(start), np.array(end))


@pytest.mark.parametrize(("fields", "named"), [
    ({"opt": math.nan}, r"unknown part 'opt=nan'"),
    ({"opt": "max"}, r"belongs to /stretch-per"),
    ({"minft": math.nan}, r"AlgorithmName.minft must be a number >= 0 \(seconds\); got nan"),
    ({"minvt": -1.0}, r"AlgorithmName.minvt must be a number >= 0"),
    ({"on_submit": "Fast"}, r"unknown submission policy 'Fast'"),
])
def test_an_algorithm_name_built_by_hand_is_held_to_the_grammar(fields, named):
    from allockit.errors import InvalidInputError
    from allockit.simulation.dfrs_algorithm import DfrsAlgorithm
    from allockit.simulation.names import AlgorithmName

    base = {"on_submit": "MCB8", "on_completion": True, "periodic": "mcb8"}
    assert DfrsAlgorithm(AlgorithmName(**base, minft=0.1 + 0.2)).alg.minft == 0.1 + 0.2
    with pytest.raises(InvalidInputError, match=named):
        DfrsAlgorithm(AlgorithmName(**{**base, **fields}))


@pytest.mark.parametrize(("make", "named"), [
    (lambda p: p.Mcb8Policy(minvt=math.nan), r"minvt must be None or a number >= 0"),
    (lambda p: p.Mcb8Policy(hold=-1), r"hold must be None or a number >= 0"),
    (lambda p: p.Mcb8StretchPolicy(period=-1.0), r"period must be a finite number > 0"),
    (lambda p: p.Mcb8StretchPolicy(period=600.0, minft="x"), r"minft must be None or a number"),
])
def test_mcb8_policies_refuse_thresholds_that_are_none(make, named):
    from allockit.errors import InvalidInputError
    from allockit.simulation import dfrs_policies

    with pytest.raises(InvalidInputError, match=named):
        make(dfrs_policies)
    assert dfrs_policies.Mcb8StretchPolicy(period=np.int64(600), minft=math.inf).period == 600.0
