"""The waiting jobs' index gives the scan's priority prefixes, passes and remaps.

``dfrs_index.WaitingIndex`` keeps the waiting jobs in buckets of virtual time and
``dfrs_index_kernels.priority_prefix`` reads a prefix of the priority order from it.
Checked here: the bucket bounds, the index's contents after any changes (and its
check catching an index that missed one), the prefix against a sort of every key
(ties at the cut, zero and tiny virtual times, dead shapes), and Greedy's pass, the
MCB8 remaps and whole simulations with the index against the same code scanning every
job, bit for bit.
"""

import copy

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.instances.workload import Platform, Workload
from allockit.simulation import dfrs_policies
from allockit.simulation.dfrs import simulate_dfrs
from allockit.simulation.dfrs_index import WaitingIndex
from allockit.simulation.dfrs_index_kernels import bucket_floor, bucket_of, priority_prefix
from allockit.simulation.dfrs_kernels import _priority_keys
from allockit.simulation.dfrs_policies import GreedyPolicy, Mcb8Policy, Mcb8StretchPolicy
from allockit.simulation.dfrs_state import DfrsState, SimulationInvariantError

_NONE = np.zeros(0, dtype=np.int64)

# virtual times with ties, exact bucket floors (powers of two squared), zero and tiny
_VT = [0.0, 1e-170, 0.5, 1.0, 2.0, 3.0, 4.0, 7.5, 10.0, 40.0, 1e3]


@settings(max_examples=300, deadline=None)
@given(v=st.floats(1e-140, 1e140))
def test_a_bucket_floor_is_at_most_v_squared_and_close_to_it(v):
    b = bucket_of(v)
    assert b > 0
    assert bucket_floor(b) <= v * v < 1.125 * bucket_floor(b)


@pytest.mark.parametrize("v", [0.0, -1.0, 1e-160, 1e160, float("inf"), float("nan")])
def test_zero_tiny_huge_and_odd_virtual_times_are_scanned_always(v):
    assert bucket_of(v) == 0


def _random_index(rng, n):
    status = rng.choice(np.array([0, 1, 2, 3], dtype=np.int8), n)
    vt = rng.choice(_VT, n)
    index = WaitingIndex(status, vt, np.sort(rng.choice([0.0, 5.0, 9.0], n)))
    index.touch_all(np.arange(n))
    return status, vt, index


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 60), steps=st.integers(1, 8))
def test_the_index_holds_the_waiting_jobs_after_any_changes(seed, n, steps):
    rng = np.random.default_rng(seed)
    status, vt, index = _random_index(rng, n)
    index.check()
    for _ in range(steps):
        changed = rng.choice(n, int(rng.integers(1, n + 1)))  # (repeats, too)
        status[changed] = rng.choice(np.array([1, 2], dtype=np.int8), changed.size)
        vt[changed] = rng.choice(_VT, changed.size)
        if rng.random() < 0.5:
            index.touch_all(changed)
        else:
            for j in changed.tolist():
                index.touch(j)
        index.check()
        keys = index.arrays()[0]
        assert sorted((keys & 0xFFFFFFFF).tolist()) == np.flatnonzero(status == 1).tolist()


def test_the_index_check_catches_a_change_it_was_not_told_of():
    status = np.array([1, 1, 2], dtype=np.int8)
    vt = np.array([1.0, 2.0, 3.0])
    index = WaitingIndex(status, vt, np.zeros(3))
    index.touch_all(np.arange(3))
    index.check()
    status[2] = 1  # a job waits: not told
    with pytest.raises(SimulationInvariantError, match="other jobs"):
        index.check()
    index.touch(2)
    index.check()
    vt[0] = 100.0  # a waiting job's virtual time changes: not told
    with pytest.raises(SimulationInvariantError, match="wrong bucket"):
        index.check()


def test_the_index_is_off_when_jobs_are_not_in_submission_order():
    index = WaitingIndex(np.ones(2, dtype=np.int8), np.ones(2), np.array([5.0, 1.0]))
    assert not index.usable
    assert all(a.size == 0 for a in index.arrays())


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 80), count=st.integers(1, 90),
       n_shapes=st.integers(1, 4), extra_share=st.sampled_from([0.0, 0.2]))
def test_the_prefix_is_the_start_of_the_priority_order(seed, n, count, n_shapes, extra_share):
    rng = np.random.default_rng(seed)
    status, vt, index = _random_index(rng, n)
    submit = np.sort(rng.choice([0.0, 3.0, 5.0, 9.0], n))
    index = WaitingIndex(status, vt, submit)
    index.touch_all(np.arange(n))
    keys, buckets, starts = index.arrays()
    shape = rng.integers(0, n_shapes, n)
    dead = rng.random(n_shapes) < 0.3
    not_waiting = np.flatnonzero(status != 1)
    extra = not_waiting[rng.random(not_waiting.size) < extra_share]
    now = 10.0
    jobs, found, complete, ok = priority_prefix(
        keys, buckets, starts, extra, vt, submit, now, count, shape, dead
    )
    assert ok
    universe = np.union1d(np.flatnonzero((status == 1) & ~dead[shape]), extra)
    every = _priority_keys(universe, vt, submit, now)
    assert np.all(np.diff(jobs) > 0)
    assert found.tobytes() == _priority_keys(jobs, vt, submit, now).tobytes()
    if complete:
        assert jobs.tolist() == universe.tolist()
        return
    assert jobs.size >= count
    # every job of the universe with a key up to the prefix's largest is in it
    assert jobs.tolist() == universe[every <= found.max()].tolist()


def test_the_prefix_cannot_decide_a_job_submitted_after_now():
    status = np.ones(3, dtype=np.int8)
    vt, submit = np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 50.0])
    index = WaitingIndex(status, vt, submit)
    index.touch_all(np.arange(3))
    out = priority_prefix(*index.arrays(), _NONE, vt, submit, 10.0, 1, _NONE,
                          np.zeros(0, dtype=np.bool_))
    assert out[3] is False and out[0].size == 0


def test_the_prefix_of_a_long_backlog_is_its_first_jobs():
    # 2,000 waiting jobs of spread virtual times (no ties): exactly the first 10
    rng = np.random.default_rng(1)
    n = 2_000
    status = np.ones(n, dtype=np.int8)
    vt = rng.uniform(1.0, 1e4, n)
    submit = np.sort(rng.uniform(0.0, 1e5, n))
    index = WaitingIndex(status, vt, submit)
    index.touch_all(np.arange(n))
    jobs, _, complete, ok = priority_prefix(
        *index.arrays(), _NONE, vt, submit, 1e5, 10, _NONE, np.zeros(0, dtype=np.bool_)
    )
    order = np.argsort(_priority_keys(np.arange(n), vt, submit, 1e5), kind="stable")
    assert ok and not complete
    assert jobs.tolist() == sorted(order[:10].tolist())


# ------------------------------------------------------------ the passes, both ways


def _backlog(rng, nodes, n, *, tiny_memory=False):
    """A state of ``n`` jobs placed by GreedyP, some paused, with random virtual times."""
    mems = [0.0] if tiny_memory else [0.0, 0.1, 0.3, 0.6]
    w = Workload.from_jobs(
        Platform(nodes=nodes),
        submit=np.sort(rng.choice([0.0, 10.0, 20.0], n)).tolist(),
        runtime=rng.choice([100.0, 1000.0], n).tolist(),
        tasks=rng.integers(1, nodes + 1, n).tolist(),
        cpu=rng.choice([0.25, 0.5, 1.0], n).tolist(),
        mem=rng.choice(mems, n).tolist(),
    )
    state = DfrsState(w, penalty=float(rng.choice([0.0, 300.0])))
    greedy = GreedyPolicy(preempt=True)
    for j in range(n):
        state.submit(j)
        greedy.on_submit(state, j, float(w.submit[j]))
    running = sorted(state.running)
    keep = [j for j in running if rng.random() < 0.4]  # the others are paused
    state.apply(np.array(keep, dtype=np.int64),
                np.array([state.row(j) for j in keep]).reshape(len(keep), nodes), 50.0)
    state.vt[:] = rng.choice(_VT, n)
    state.reindex()
    return state


def _same_state(a, b):
    assert a.running == b.running and a.waiting == b.waiting and a.layout == b.layout
    for name in ("status", "mem_used", "load", "n_preempt", "n_migrate", "n_resume",
                 "n_resume_elsewhere", "last_move", "penalty_until", "ever_ran", "start",
                 "yields", "waiting_per_shape"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name
    for j in a.running | a.waiting:
        if a.rows.has(j) or b.rows.has(j):
            assert a.row(j).tobytes() == b.row(j).tobytes(), j


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**6), nodes=st.integers(1, 4),
       chunk=st.sampled_from([1, 2, 3, 64]), tiny=st.booleans())
def test_greedy_s_pass_with_the_index_is_the_scan_s(seed, nodes, chunk, tiny):
    # the prefix holds two chunks: small chunks and jobs that all fit (no memory) make
    # the pass go beyond it, where the rest of the order joins
    rng = np.random.default_rng(seed)
    indexed = _backlog(rng, nodes, int(rng.integers(2, 120)), tiny_memory=tiny)
    indexed.INDEX_FROM = 0
    scanned = copy.deepcopy(indexed)
    scanned.INDEX_FROM = 10**9
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dfrs_policies, "_CHUNK", chunk)
        GreedyPolicy().start_waiting(indexed, 100.0)
        GreedyPolicy().start_waiting(scanned, 100.0)
    _same_state(indexed, scanned)
    indexed.index.check()


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**6), nodes=st.integers(1, 4), tiny=st.booleans(),
       minvt=st.sampled_from([None, 2.0]), stretch=st.booleans())
def test_the_remaps_with_the_index_are_the_scan_s(seed, nodes, tiny, minvt, stretch):
    # jobs without memory all fit: the remap asks for more than the prefix holds
    rng = np.random.default_rng(seed)
    indexed = _backlog(rng, nodes, int(rng.integers(2, 150)), tiny_memory=tiny)
    indexed.INDEX_FROM = 0
    scanned = copy.deepcopy(indexed)
    scanned.INDEX_FROM = 10**9

    def policy():
        if stretch:
            return Mcb8StretchPolicy(period=600.0, minvt=minvt)
        return Mcb8Policy(minvt=minvt)

    policy().remap(indexed, 100.0)
    policy().remap(scanned, 100.0)
    _same_state(indexed, scanned)


@pytest.mark.parametrize("algorithm", ["GreedyPM */per/opt=min/minvt=600",
                                       "GreedyP */per/opt=avg", "/stretch-per/opt=avg"])
def test_a_thrashing_run_with_the_index_is_the_scan_s(algorithm, monkeypatch):
    # a small cluster under heavy load: hundreds of paused jobs at every pass; the
    # index from the first waiting job on (and checked after every event) or never
    rng = np.random.default_rng(7)
    n = 150
    w = Workload.from_jobs(
        Platform(nodes=4),
        submit=np.sort(rng.uniform(0.0, 5_000.0, n)).tolist(),
        runtime=rng.choice([60.0, 600.0, 3_000.0], n).tolist(),
        tasks=rng.integers(1, 5, n).tolist(),
        cpu=rng.choice([0.25, 0.5, 1.0], n).tolist(),
        mem=rng.choice([0.05, 0.1, 0.3], n).tolist(),
    )
    monkeypatch.setattr(DfrsState, "INDEX_FROM", 0)
    indexed = simulate_dfrs(w, algorithm, debug=True)
    monkeypatch.setattr(DfrsState, "INDEX_FROM", 10**9)
    scanned = simulate_dfrs(w, algorithm)
    for name in ("start", "end", "job_preemptions", "job_migrations"):
        assert np.asarray(getattr(indexed, name)).tobytes() == (
            np.asarray(getattr(scanned, name)).tobytes()
        ), name
    assert max(np.asarray(indexed.job_preemptions)) > 3  # (it did thrash)
