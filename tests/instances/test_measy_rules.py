"""The MEASY paper's workload rules: CPU usage, Tsafrir estimates, load factor."""

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.instances.measy import apply_measy_rules, measy_cpu_usage, measy_load_factor
from allockit.instances.workload import Platform, Workload

Z = 5.0


def _workload(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    return Workload.from_jobs(
        Platform(nodes=64),
        submit=np.cumsum(rng.exponential(100, n)),
        runtime=rng.integers(1, 5000, n).astype(float),
        tasks=rng.choice([1, 2, 3, 16, 64], n),
        cpu=np.ones(n),
        mem=np.full(n, 0.1),
    )


def test_cpu_usage_rule():
    tasks = np.array([1, 2, 1, 64] * 5000)
    cpu = measy_cpu_usage(tasks, seed=1)
    assert (cpu[tasks == 1] == 1.0).all()
    multi = cpu[tasks > 1]
    assert ((multi >= 0.4) & (multi <= 1.0)).all()
    # uniform on [0.4, 1]: mean 0.7 and standard deviation 0.6 / sqrt(12)
    assert abs(multi.mean() - 0.7) <= Z * 0.6 / np.sqrt(12 * multi.size)
    assert abs(multi.std() - 0.6 / np.sqrt(12)) < 0.01
    with pytest.raises(InvalidInputError, match="tasks must be >= 1; got 0 at index 1"):
        measy_cpu_usage([1, 0])


def test_load_factor():
    assert measy_load_factor(0.45, 0.9) == 0.5
    with pytest.raises(InvalidInputError, match="load must be finite and > 0; got -1"):
        measy_load_factor(0.45, -1)
    with pytest.raises(InvalidInputError, match="model_load must be a number > 0"):
        measy_load_factor("x", 0.9)


def test_apply_rules_load_from_the_sample_or_a_model_load():
    w = _workload()
    assert apply_measy_rules(w, load=0.7).offered_load() == pytest.approx(0.7)
    scaled = apply_measy_rules(w, load=0.7, model_load=1.4)
    assert scaled.submit == pytest.approx(w.submit[0] + (w.submit - w.submit[0]) * 2.0)
    assert apply_measy_rules(w) is w


def test_rules_use_independent_streams():
    w = _workload()
    both = apply_measy_rules(w, cpu_usage=True, estimates=True, seed=5)
    cpu_only = apply_measy_rules(w, cpu_usage=True, seed=5)
    est_only = apply_measy_rules(w, estimates=True, seed=5)
    assert np.array_equal(both.cpu, cpu_only.cpu)
    assert np.array_equal(both.requested_time, est_only.requested_time)
    assert (both.requested_time >= both.runtime).all()
    assert np.array_equal(both.submit, w.submit) and np.array_equal(both.tasks, w.tasks)


def test_load_refuses_a_workload_with_feedback():
    w = _workload(10)
    chained = w.replace(preceding=np.array([-1] * 9 + [int(w.ids[0])]))
    with pytest.raises(InvalidInputError, match="load cannot rescale a workload with feedback"):
        apply_measy_rules(chained, load=0.5)
    with pytest.raises(InvalidInputError, match="workload must be a Workload; got list"):
        apply_measy_rules([])
