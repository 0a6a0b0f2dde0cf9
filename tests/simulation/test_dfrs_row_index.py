"""The index of nonzero entries beside the DFRS pool of rows (``dfrs_rows.RowPool``).

Kernels read a job's row through the index (the nodes it has tasks on) instead of all
its nodes; these tests check that the pool keeps the index right through every write,
that the kernels' indexed reads give the bits of the dense reads, and that debug mode
catches a stale index.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.instances.workload import Platform, Workload
from allockit.simulation.allocation_kernels import index_row
from allockit.simulation.dfrs import simulate_dfrs
from allockit.simulation.dfrs_checks import check_invariants
from allockit.simulation.dfrs_kernels import (
    _add_indexed_row,
    _add_new_indexed_row,
    _add_row,
    _copy_indexed_row,
    _same_row_as_indexed,
    _store_new_indexed_row,
    _sum_indexed_rows_into,
    _sum_rows_into,
)
from allockit.simulation.dfrs_rows import RowPool, SimulationInvariantError
from allockit.simulation.dfrs_state import DfrsState


def _index_of(row: np.ndarray) -> np.ndarray:
    # a new row's index of nonzero entries, as apply and start_kernel find it
    nz = np.empty((1, row.size + 1), dtype=np.int32)
    index_row(nz, 0, row)
    return nz[0]


def _index_is_right(pool: RowPool, jobs=None) -> bool:
    # the rows of ``jobs``; every row of the pool, used or free, when None
    rows, nz, slot = pool.indexed()
    for s in range(rows.shape[0]) if jobs is None else [slot[j] for j in jobs]:
        nodes = np.flatnonzero(rows[s])
        if nz[s, 0] != nodes.size or nz[s, 1 : 1 + nodes.size].tolist() != nodes.tolist():
            return False
    return True


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), nodes=st.integers(1, 9), steps=st.integers(1, 60))
def test_the_pool_keeps_its_index_through_stores_drops_and_growth(seed, nodes, steps):
    rng = np.random.default_rng(seed)
    n = 12
    pool = RowPool(jobs=n, nodes=nodes)
    held: set[int] = set()
    for _ in range(steps):
        what = rng.integers(3)
        if what == 0:  # store a few rows at once (a repeated job: the last row wins)
            jobs = rng.integers(0, n, rng.integers(1, 5))
            pool.store(jobs, rng.choice([0.0, 0.0, 1.0, 3.0], (jobs.size, nodes)))
            held.update(jobs.tolist())
        elif what == 1:
            j = int(rng.integers(n))
            pool.store_one(j, rng.choice([0.0, 0.0, 2.0], nodes))
            held.add(j)
        elif held:
            j = int(rng.choice(sorted(held)))
            pool.drop(j)
            held.discard(j)
        assert _index_is_right(pool)  # (every row: a free one is cleared through it)


def test_a_grown_pool_keeps_the_index_of_the_rows_it_had():
    pool = RowPool(jobs=40, nodes=3)
    pool.store(np.array([0]), np.array([[0.0, 5.0, 0.0]]))
    pool.store(np.arange(1, 40), np.ones((39, 3)))  # (grows from 16 rows to 48)
    rows, nz, slot = pool.indexed()
    assert rows.shape[0] >= 40 and nz.shape == (rows.shape[0], 4)
    assert nz[slot[0], :2].tolist() == [1, 1] and _index_is_right(pool, range(40))


_ENTRY = st.sampled_from([0.0, -0.0, 1.0, 2.0, 3.0, np.nan])


@settings(max_examples=400, deadline=None)
@given(old=st.lists(_ENTRY, min_size=1, max_size=7), data=st.data())
def test_the_indexed_comparison_is_the_dense_one(old, data):
    # every pair of rows, equal or not, with signed zeros and NaN: the same answer as
    # comparing all the entries (a NaN is never equal)
    new = data.draw(st.lists(_ENTRY, min_size=len(old), max_size=len(old)))
    old_row, new_row = np.array(old), np.array(new)
    pool = RowPool(jobs=1, nodes=old_row.size)
    pool.store(np.array([0]), old_row[None, :])
    rows, nz, slot = pool.indexed()
    dense = not any(a != b for a, b in zip(old, new, strict=True))
    assert _same_row_as_indexed(rows, nz, slot[0], new_row, _index_of(new_row)) == dense
    same = rows[slot[0]].copy()
    assert _same_row_as_indexed(rows, nz, slot[0], same, _index_of(same)) == (
        not np.isnan(old_row).any()
    )


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), nodes=st.integers(1, 8), k=st.integers(0, 6))
def test_the_indexed_sums_and_copies_are_the_dense_ones_bit_for_bit(seed, nodes, k):
    rng = np.random.default_rng(seed)
    pool = RowPool(jobs=k + 3, nodes=nodes)
    pool.store(np.arange(k + 3), rng.choice([0.0, 0.0, 0.0, 1.0, 2.0, 7.0], (k + 3, nodes)))
    rows, nz, slot = pool.indexed()
    slots = slot[rng.permutation(k + 3)[:k]]
    weight = rng.choice([0.0, 0.1, 0.3, 1 / 3, 0.7, 1.0], k)
    dense, indexed = np.full(nodes, 9.0), np.full(nodes, 9.0)
    _sum_rows_into(dense, rows, slots, weight)
    _sum_indexed_rows_into(indexed, rows, nz, slots, weight)
    assert dense.tobytes() == indexed.tobytes()
    for s in slots:
        out = np.zeros(nodes)
        _copy_indexed_row(out, rows, nz, s)
        assert out.tobytes() == rows[s].tobytes()


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10**6), nodes=st.integers(1, 8), writes=st.integers(1, 12))
def test_rows_written_through_the_index_are_the_rows_bit_for_bit(seed, nodes, writes):
    # a slot written again and again (and one given back and taken again) holds exactly
    # the last row, +0.0 in its zero entries, and its index; the memory and load sums
    # through the index are the dense sums' bits
    rng = np.random.default_rng(seed)
    pool = RowPool(jobs=2, nodes=nodes)
    pool.store(np.array([0, 1]), rng.choice([0.0, -0.0, 1.0, 2.0], (2, nodes)))
    rows, nz, slot = pool.indexed()
    for _ in range(writes):
        j = int(rng.integers(2))
        if rng.random() < 0.2:  # (a finished job's slot, taken by the next job)
            pool.drop(j)
            pool.take(np.array([j]))
            rows, nz, slot = pool.indexed()
        new = rng.choice([0.0, -0.0, 0.0, 1.0, 3.0], nodes)
        dense_mem, dense_load = np.full(nodes, 0.5), np.full(nodes, 1 / 3)
        new_mem, new_load = dense_mem.copy(), dense_load.copy()
        _add_row(dense_mem, dense_load, new, 0.3, 0.7, 1.0)  # (a new row added, as apply)
        _add_new_indexed_row(new_mem, new_load, new, _index_of(new), 0.3, 0.7)
        assert new_mem.tobytes() == dense_mem.tobytes()
        assert new_load.tobytes() == dense_load.tobytes()
        _store_new_indexed_row(rows, nz, slot[j], new, _index_of(new))
        assert rows[slot[j]].tolist() == new.tolist()
        assert not np.signbit(rows[slot[j]]).any() and _index_is_right(pool, [j])
        mem_used = rng.choice([0.0, 0.25, 0.5, 1 / 3, 0.9], nodes)
        load = rng.choice([0.0, 0.5, 2.0, 0.1], nodes)
        m, c, sign = rng.choice([0.1, 1 / 7, 0.5]), rng.choice([0.25, 1.0]), rng.choice([-1.0, 1.0])
        dense_mem, dense_load = mem_used.copy(), load.copy()
        _add_row(dense_mem, dense_load, rows[slot[j]], m, c, sign)
        _add_indexed_row(mem_used, load, rows, nz, slot[j], m, c, sign)
        assert (mem_used.tobytes(), load.tobytes()) == (dense_mem.tobytes(), dense_load.tobytes())


def test_debug_mode_catches_a_stale_index():
    w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0], runtime=[10, 10], tasks=[1, 1],
                           cpu=[1.0, 1.0], mem=[0.5, 0.5])
    s = DfrsState(w, penalty=0.0)
    s.submit(0)
    s.start_job(0, np.array([1]), 0.0)
    check_invariants(s, 0.0)
    _, nz, slot = s.rows.indexed()
    nz[slot[0], 1] = 0  # (the index says node 0; the row has its task on node 1)
    with pytest.raises(SimulationInvariantError, match="job 0's row and its index differ"):
        check_invariants(s, 0.0)
    nz[slot[0], 1] = 1
    check_invariants(s, 0.0)
    pool, _, _ = s.rows.indexed()
    pool[slot[0], 0] = -0.0  # (a negative zero the indexed sums would not skip exactly)
    with pytest.raises(SimulationInvariantError, match="job 0's row and its index differ"):
        check_invariants(s, 0.0)
    pool[slot[0], 0] = 0.0
    free = int(slot[0])
    s.finish_job(0, 10.0)  # (its row is free now, and still indexed)
    check_invariants(s, 10.0)
    nz[free, 0] = 0  # (a free row cleared through a wrong index would keep a task)
    with pytest.raises(SimulationInvariantError, match=f"free row {free} and its index"):
        check_invariants(s, 10.0)


@pytest.mark.parametrize("algorithm", ["GreedyPM */per/opt=min/minvt=600", "MCB8 */opt=min",
                                       "MCB8 */per/opt=min/minft=300"])
def test_debug_runs_find_the_index_right_after_every_event(algorithm):
    # migrations, pauses, resumes elsewhere and Greedy's starts all write rows; debug
    # mode checks every running job's index after each event
    rng = np.random.default_rng(5)
    n = 80
    w = Workload.from_jobs(Platform(nodes=5), submit=np.sort(rng.integers(0, 5_000, n)).tolist(),
                           runtime=rng.integers(100, 6_000, n).tolist(),
                           tasks=rng.integers(1, 5, n).tolist(),
                           cpu=rng.choice([0.25, 0.5, 1.0], n).tolist(),
                           mem=rng.choice([0.1, 0.2, 0.45], n).tolist())
    result = simulate_dfrs(w, algorithm, period=300.0, debug=True)
    assert result.end.size == n and np.isfinite(result.end).all()


def test_the_waiting_jobs_are_read_from_status_and_a_miscount_is_caught():
    w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0, 0], runtime=[10, 10, 10],
                           tasks=[1, 1, 1], cpu=[1.0, 1.0, 1.0], mem=[0.5, 0.5, 0.5])
    s = DfrsState(w, penalty=0.0)
    for j in range(3):
        s.submit(j)
    s.start_job(0, np.array([0]), 0.0)
    assert s.waiting == frozenset({1, 2}) and s.n_waiting == 2
    with pytest.raises(AttributeError):
        s.waiting.add(0)  # (a view of status: the state's methods change it)
    check_invariants(s, 0.0)
    s.n_waiting += 1
    with pytest.raises(SimulationInvariantError, match="2 jobs wait; counted 3 and 2 by shape"):
        check_invariants(s, 0.0)
