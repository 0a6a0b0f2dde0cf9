"""The active jobs' copies (``DfrsState.active_view``) and the cut selection of long lists.

The kernels that scan the backlog read the active jobs' virtual times, submission times,
statuses and shapes from copies kept beside the list of active jobs; the copies must be
the arrays' values bit for bit after any sequence of the state's methods, and a stale
copy must be caught. ``_first_taken`` cuts a long list at a sampled bound before its
heap; the jobs it takes must be those of a stable sort, whether the cut succeeds or not.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.instances.workload import Platform, Workload
from allockit.simulation.dfrs import simulate_dfrs
from allockit.simulation.dfrs_state import (
    RUNNING,
    WAITING,
    DfrsState,
    SimulationInvariantError,
    check_view,
)


def _workload(rng, n, nodes):
    return Workload.from_jobs(
        Platform(nodes=nodes),
        submit=np.sort(rng.choice([0.0, 5.0, 60.0, 600.0], n)).tolist(),
        runtime=rng.choice([10.0, 100.0, 5_000.0], n).tolist(),
        tasks=rng.integers(1, nodes + 1, n).tolist(),
        cpu=rng.choice([0.25, 0.5, 1.0], n).tolist(),
        mem=rng.choice([0.0, 0.05, 0.1], n).tolist(),
    )


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 60))
def test_the_view_is_the_arrays_after_any_sequence_of_the_states_methods(seed, steps):
    # submissions (in and out of index order), starts one by one and in a batch, pauses,
    # lifts and settles, whole mappings (apply), progress and completions, in random
    # order; after each step (or only now and then: the log piles up) the view must
    # equal the gathers bit for bit
    rng = np.random.default_rng(seed)
    n, nodes = int(rng.integers(1, 25)), 3
    w = _workload(rng, n, nodes)
    state = DfrsState(w, penalty=float(rng.choice([0.0, 30.0])))
    unsubmitted = list(rng.permutation(n)) if rng.random() < 0.3 else list(range(n))
    now = 0.0
    for _ in range(steps):
        op = int(rng.integers(0, 7))
        waiting = sorted(state.waiting)
        running = sorted(state.running)
        if op == 0 and unsubmitted:
            state.submit(int(unsubmitted.pop(0)))
        elif op == 1 and waiting:
            j = int(rng.choice(waiting))
            state.start_job(j, rng.integers(0, nodes, int(w.tasks[j])), now)
        elif op == 2 and waiting:
            jobs = np.array(sorted(rng.choice(waiting, min(2, len(waiting)), replace=False)))
            rows = np.array([np.bincount(rng.integers(0, nodes, int(w.tasks[j])),
                                         minlength=nodes).astype(float) for j in jobs])
            for j, row in zip(jobs, rows, strict=True):  # (start_jobs takes counted rows)
                state.mem_used += row * w.mem[j]
                state.load += row * w.cpu[j]
            state.start_jobs(jobs, rows, now)
        elif op == 3 and running:
            j = int(rng.choice(running))
            state.lift([j])
            if rng.random() < 0.5:
                state.pause_job(j)
            else:
                state.settle(j, rng.integers(0, nodes, int(w.tasks[j])), now)
        elif op == 4 and (running or waiting):
            pool = running + waiting
            jobs = np.array(sorted(rng.choice(pool, int(rng.integers(0, len(pool) + 1)),
                                              replace=False)), dtype=np.int64)
            rows = np.array([np.bincount(rng.integers(0, nodes, int(w.tasks[j])),
                                         minlength=nodes).astype(float) for j in jobs])
            state.apply(jobs, rows.reshape(jobs.size, nodes), now)
        elif op == 5 and running:
            for j in running:
                state.yields[j] = float(rng.choice([0.25, 1.0]))
            now += float(rng.choice([1.0, 7.5]))
            state.advance(now)
        elif op == 6 and running:
            state.finish_job(int(rng.choice(running)), now)
        if rng.random() < 0.5:
            view = state.active_view()
            check_view(state, view, now)
            assert np.count_nonzero(view[3] == RUNNING) == len(state.running)
    check_view(state, state.active_view(), now)


def test_a_change_the_state_does_not_log_is_caught_in_debug_mode(monkeypatch):
    # the view's bookkeeping must be able to fail: with the log of status changes
    # switched off, a debug run stops at the first stale copy
    rng = np.random.default_rng(3)
    w = _workload(rng, 40, 2)
    algorithm = "GreedyPM */per/opt=min/minvt=600"
    simulate_dfrs(w, algorithm, debug=True, period=300.0)  # (fine as it is)
    monkeypatch.setattr(DfrsState, "_touch", lambda self, jobs: None)
    with pytest.raises(SimulationInvariantError, match="differ from their copy"):
        simulate_dfrs(w, algorithm, debug=True, period=300.0)


def test_a_state_written_directly_needs_refresh_view():
    w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[9, 9], tasks=[1, 1],
                           cpu=[1.0, 1.0], mem=[0.1, 0.1])
    state = DfrsState(w, penalty=0.0, debug=True)
    state.submit(0)
    state.submit(1)
    state.vt[1] = 2.0  # (behind the state's back)
    with pytest.raises(SimulationInvariantError, match="virtual times differ"):
        state.active_view()
    state.refresh_view()
    _, vt, _, status, _ = state.active_view()
    assert vt.tolist() == [0.0, 2.0] and status.tolist() == [WAITING, WAITING]
    assert not vt.flags.writeable and not status.flags.writeable


def test_the_view_drops_finished_jobs_and_keeps_the_rest_in_index_order():
    w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0, 0, 0], runtime=[9] * 4,
                           tasks=[1] * 4, cpu=[1.0] * 4, mem=[0.1] * 4)
    state = DfrsState(w, penalty=0.0)
    for j in (2, 0, 3, 1):  # (out of index order)
        state.submit(j)
    state.start_job(2, np.array([0]), 0.0)
    state.start_job(3, np.array([1]), 0.0)
    state.yields[[2, 3]] = 1.0
    state.advance(4.0)
    state.finish_job(3, 4.0)
    active, vt, submit, status, shape = state.active_view()
    assert active.tolist() == [0, 1, 2]
    assert vt.tolist() == [0.0, 0.0, 4.0] and status.tolist() == [WAITING, WAITING, RUNNING]
    check_view(state, (active, vt, submit, status, shape), 4.0)


# ---------------------------------------------------------------- the cut selection


@settings(max_examples=500, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 80),
       n=st.one_of(st.integers(1, 300), st.integers(300, 3_000)),
       layout=st.sampled_from(["mixed", "crowd", "ties", "sorted", "odd"]))
def test_the_compiled_selection_takes_the_stable_orders_first_jobs(seed, count, n, layout):
    # the compiled selection (`_first_taken_cut`), with the cut always tried (min_jobs 0)
    # and never (the heap alone), against numpy's stable sort and the Python
    # `first_by_priority`: numbers mixed with ties, signed zeros, infinities and NaN
    # (which come last; if fewer than `count` keys are numbers, none is taken), crowded
    # keys (as a thrashing backlog's), keys in order, and keys whose every sampled
    # position is small (the cut then finds too few keys and the heap takes them all)
    from allockit.simulation.dfrs_kernels import _first_taken_cut
    from allockit.simulation.dfrs_priority import first_by_priority

    rng = np.random.default_rng(seed)
    jobs = np.sort(rng.choice(10 * n, n, replace=False)).astype(np.int64)
    if layout == "mixed":
        pool = [-np.inf, -2.0, -1.0, -0.0, 0.0, np.inf, np.nan, -1e300]
        keys = np.where(rng.random(n) < 0.5, rng.choice(pool, n), -rng.random(n) * 10)
        if rng.random() < 0.3:
            keys = keys[rng.permutation(n)]
    elif layout == "crowd":
        keys = -0.005 * (1.0 + 0.01 * rng.random(n))
    elif layout == "ties":
        keys = rng.choice([-np.inf, -2.0, -1.0, -0.0, 0.0, np.inf, np.nan, -1e300], n)
    elif layout == "sorted":
        keys = np.sort(-rng.random(n))[:: int(rng.choice([-1, 1]))].copy()
    else:
        keys = rng.random(n)
        sampled = keys[:: max(1, n // 1024)]  # (the sample sees only the smallest keys)
        sampled[:] = -1.0 - rng.random(sampled.size)
    first, taken = _first_taken_cut(jobs, keys, count, 0)
    order = jobs[np.argsort(keys, kind="stable")]
    if count < n and np.count_nonzero(~np.isnan(keys)) < count:
        assert first.tolist() == [] and not taken.any()
        return
    assert first.tolist() == order[: min(count, n)].tolist()
    assert sorted(jobs[taken].tolist()) == sorted(first.tolist())
    assert first.tolist() == first_by_priority(jobs, keys, count)[0].tolist()
    plain, plain_taken = _first_taken_cut(jobs, keys, count, 10**9)  # (no cut)
    assert plain.tolist() == first.tolist() and plain_taken.tolist() == taken.tolist()


def test_the_cut_succeeds_on_a_crowded_backlog_and_falls_back_when_the_sample_misleads():
    # both ways through `_first_taken_cut` happen: the sampled bound has at least `count`
    # keys at most it on a crowded backlog, and too few when the sample is unrepresentative
    from allockit.simulation.dfrs_kernels import _sampled_bound

    rng = np.random.default_rng(0)
    crowd = -0.005 * (1.0 + 0.01 * rng.random(10_000))
    assert 256 <= np.count_nonzero(crowd <= _sampled_bound(crowd, 256)) <= 2 * 256
    odd = rng.random(10_000)
    odd[:: 10_000 // 1024] = -1.0 - rng.random(odd[:: 10_000 // 1024].size)
    assert np.count_nonzero(odd <= _sampled_bound(odd, 64)) < 64
    assert np.isnan(_sampled_bound(np.full(5_000, np.nan), 64))


def test_the_compiled_selection_takes_nothing_when_asked_for_nothing():
    from allockit.simulation.dfrs_kernels import _first_taken_cut

    jobs, keys = np.arange(5_000, dtype=np.int64), -np.arange(5_000.0)
    for min_jobs in (0, 10**9):
        first, taken = _first_taken_cut(jobs, keys, 0, min_jobs)
        assert first.tolist() == [] and not taken.any()


_KEY_POOL = [-np.inf, -2.0, -1.0, -0.0, 0.0, 1e-300, np.inf, -1e300]


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 2_000),
       tied=st.booleans())
def test_the_compiled_select_gives_numpys_order_statistic(seed, n, tied):
    # `_select` (the sampled bound's heap selection) against numpy.partition: any rank, on
    # random keys or on keys drawn from a few values (ties, signed zeros, infinities)
    from allockit.simulation.dfrs_kernels import _select

    rng = np.random.default_rng(seed)
    values = rng.choice(_KEY_POOL, n) if tied else rng.standard_normal(n)
    for k in {0, n - 1, int(rng.integers(n))}:
        assert _select(values.copy(), k) == np.partition(values, k)[k]
    ordered = np.sort(rng.standard_normal(n))  # (in order and reversed: every value enters)
    assert _select(ordered.copy(), n // 2) == ordered[n // 2]
    assert _select(ordered[::-1].copy(), n // 3) == ordered[n // 3]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 300),
       n=st.integers(2_048, 6_000), layout=st.sampled_from(["crowd", "ties", "nan"]))
def test_the_remaps_selection_without_a_mask_takes_the_stable_orders_first_jobs(
    seed, count, n, layout
):
    # `_first_by_priority` (the remap's selection, no mask of the jobs taken) on lists
    # long enough to be cut: the first `count` of numpy's stable order, and "some left out"
    from allockit.simulation.dfrs_kernels import _first_by_priority

    rng = np.random.default_rng(seed)
    jobs = np.sort(rng.choice(10 * n, n, replace=False)).astype(np.int64)
    if layout == "crowd":
        keys = -0.005 * (1.0 + 0.01 * rng.random(n))
    elif layout == "ties":
        keys = rng.choice(_KEY_POOL, n)
    else:  # (NaN keys come last; too few numbers: nothing is taken)
        keys = np.where(rng.random(n) < 0.98, np.nan, -rng.random(n))
    first, more = _first_by_priority(jobs, keys, count)
    assert more
    if np.count_nonzero(~np.isnan(keys)) < count:
        assert first.tolist() == []
    else:
        assert first.tolist() == jobs[np.argsort(keys, kind="stable")][:count].tolist()


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(1, 100), n=st.integers(1, 400))
def test_the_heap_orders_any_subset_of_positions_as_a_stable_sort(seed, count, n):
    # `_smallest_in_order` on a subset of the positions (the cut's candidates): the
    # `count` smallest (key, position) pairs among them, in order
    from allockit.simulation.dfrs_kernels import _smallest_in_order

    rng = np.random.default_rng(seed)
    keys = np.where(rng.random(n) < 0.5, rng.choice([*_KEY_POOL, np.nan], n), rng.random(n))
    positions = np.flatnonzero(rng.random(n) < 0.7).astype(np.int64)
    got = _smallest_in_order(keys, positions, count)
    numbers = positions[~np.isnan(keys[positions])]
    if numbers.size < count:
        assert got.tolist() == []
    else:
        assert got.tolist() == numbers[np.argsort(keys[numbers], kind="stable")][:count].tolist()
