"""The opt=min water-filling kernel against a plain-Python twin, bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st


def water_fill_every_round(job, node, weight, n, nodes, tol):
    """``maxmin_fill_kernel`` in plain Python: every round sums the entries in order of
    ``k``, one addition at a time, and takes the step over the jobs and nodes in order."""
    yields = np.ones(n)
    active = np.zeros(n, dtype=bool)
    active[job] = True
    yields[active] = 0.0
    left = int(active.sum())
    while left > 0:
        used, rate = np.zeros(nodes), np.zeros(nodes)
        for k in range(job.size):  # (one addition at a time, in order of k)
            used[node[k]] += weight[k] * yields[job[k]]
            if active[job[k]]:
                rate[node[k]] += weight[k]
        step = np.inf
        for j in range(n):
            if active[j]:
                step = min(step, 1.0 - yields[j])
        for i in range(nodes):
            if rate[i] > tol:
                step = min(step, (1.0 - used[i]) / rate[i])
        step = max(step, 0.0)
        yields[active] += step
        frozen = np.zeros(n, dtype=bool)
        for k in range(job.size):
            i = node[k]
            if active[job[k]] and rate[i] > tol and (1.0 - used[i]) / rate[i] <= step + tol:
                frozen[job[k]] = True
        done = active & (frozen | (yields >= 1.0 - tol))
        if not done.any():
            break
        active &= ~done
        left -= int(done.sum())
    return np.minimum(yields, 1.0)


def _mapping(rng, n, nodes, density):
    counts = rng.choice([1.0, 2.0, 3.0], (n, nodes)) * (rng.random((n, nodes)) < density)
    job, where = np.nonzero(counts)
    cpu = rng.choice([0.05, 0.1, 0.25, 1 / 3, 0.5, 0.7, 1.0], n)
    return job.astype(np.int64), where.astype(np.int64), counts[job, where] * cpu[job]


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(0, 40), nodes=st.integers(1, 12),
       density=st.sampled_from([0.05, 0.15, 0.4, 1.0]), tol=st.sampled_from([1e-12, 0.0]))
def test_the_kernel_is_its_python_twin_bit_for_bit(seed, n, nodes, density, tol):
    from allockit.simulation.allocation_kernels import maxmin_fill_kernel

    rng = np.random.default_rng(seed)
    job, node, weight = _mapping(rng, n, nodes, density)
    got = maxmin_fill_kernel(job, node, weight, n, nodes, tol)
    want = water_fill_every_round(job, node, weight, n, nodes, tol)
    assert got.tobytes() == want.tobytes()


def test_nodes_freeze_in_many_rounds_and_idle_jobs_get_one():
    # node i holds job i (CPU 0.5 + 0.1 i) and a task of job 8 (0.3): node 7 saturates
    # first and freezes job 8, then nodes 6, 5 and 4 one per round, each at its own
    # yield; jobs 9 and 10 have no
    # task and get yield 1
    from allockit.simulation.allocation_kernels import maxmin_fill_kernel

    n = 9
    job = np.array([j for i in range(8) for j in (i, 8)], dtype=np.int64)
    node = np.array([i for i in range(8) for _ in range(2)], dtype=np.int64)
    weight = np.array([w for i in range(8) for w in (0.5 + 0.1 * i, 0.3)])
    got = maxmin_fill_kernel(job, node, weight, n + 2, 8, 1e-12)
    want = water_fill_every_round(job, node, weight, n + 2, 8, 1e-12)
    assert got.tobytes() == want.tobytes()
    assert got[-2:].tolist() == [1.0, 1.0]
    assert got[4:9].round(3).tolist() == [0.889, 0.8, 0.727, 0.667, 0.667]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), jobs=st.integers(1, 12), nodes=st.integers(1, 6))
def test_the_dense_max_min_kernel_is_the_twin_and_max_min_yields(seed, jobs, nodes):
    # the simulator's opt=min yields on a matrix of counts (the dense kernel indexes its
    # nonzero entries first): bit for bit the twin on the entries in row-major order,
    # and the checked public function (which calls the kernel)
    from allockit.simulation.allocation import max_min_yields
    from allockit.simulation.allocation_kernels import maxmin_dense_kernel

    rng = np.random.default_rng(seed)
    counts = rng.choice([0.0, 0.0, 1.0, 2.0, 3.0], (jobs, nodes))
    cpu = rng.choice([0.1, 0.25, 0.5, 1.0], jobs)
    job, node = np.nonzero(counts)
    twin = water_fill_every_round(job, node, counts[job, node] * cpu[job], jobs, nodes, 1e-12)
    got = maxmin_dense_kernel(counts, cpu, 1e-12)
    assert got.tobytes() == twin.tobytes()
    assert got.tolist() == max_min_yields(counts, cpu).tolist()
