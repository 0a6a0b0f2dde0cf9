"""The LP answer memo: bounded, copies in and out, keyed on every input bit, and
invisible in the schedules (a run after others gives the bits of a run alone)."""

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.evaluation.answer_memo import (
    DEFAULT_MAX_BYTES,
    ENTRY_OVERHEAD,
    AnswerMemo,
    clear_memos,
    memo,
    memo_stats,
    set_memo_max_bytes,
)
from allockit.evaluation.placement import max_sum_yields
from allockit.simulation.allocation import min_avg_stretch


@pytest.fixture(autouse=True)
def _fresh_memos():
    clear_memos()
    yield
    set_memo_max_bytes(DEFAULT_MAX_BYTES)
    clear_memos()


def test_least_recently_used_answer_goes_first():
    one = 8 + ENTRY_OVERHEAD  # the bytes counted for a one-float answer
    m = AnswerMemo("t", max_bytes=2 * one)
    keys = [m.key(np.array([float(i)])) for i in range(3)]
    m.put(keys[0], np.array([0.0]))
    m.put(keys[1], np.array([1.0]))
    assert m.get(keys[0]).tolist() == [0.0]  # 0 is now the most recent
    m.put(keys[2], np.array([2.0]))  # evicts 1
    assert m.get(keys[1]) is None
    assert m.get(keys[0]).tolist() == [0.0] and m.get(keys[2]).tolist() == [2.0]
    assert len(m) == 2 and m.nbytes == 2 * one and (m.hits, m.misses) == (3, 1)
    m.put(keys[0], np.array([5.0, 6.0]))  # a bigger answer for a kept key: recounted
    assert m.nbytes <= 2 * one + 8 and m.get(keys[0]).tolist() == [5.0, 6.0]


def test_an_answer_larger_than_the_bound_is_not_kept():
    m = AnswerMemo("t", max_bytes=ENTRY_OVERHEAD + 16)
    m.put(m.key(1), np.ones(2))
    m.put(m.key(2), np.ones(3))
    assert m.get(m.key(1)) is not None and m.get(m.key(2)) is None and len(m) == 1


def test_answer_computes_once_and_hashes_nothing_when_off():
    m = AnswerMemo("t")
    calls = []
    for _ in range(3):
        got = m.answer((np.arange(3.0), 2), lambda: calls.append(1) or np.array([7.0]))
    assert got.tolist() == [7.0] and len(calls) == 1 and (m.hits, m.misses) == (2, 1)
    off = AnswerMemo("t", max_bytes=0)
    bad_part = np.array([object()])  # hashing it would raise: it is not hashed
    assert off.answer((bad_part,), lambda: np.array([1.0])).tolist() == [1.0]
    assert len(off) == 0 and off.misses == 1
    with pytest.raises(InvalidInputError, match="key part 0"):
        m.answer((bad_part,), lambda: np.array([1.0]))


def test_answers_are_copied_in_and_out():
    m = AnswerMemo("t")
    key = m.key(1)
    answer = np.array([0.5, 0.25])
    m.put(key, answer)
    answer[0] = 9.0  # the caller's array changes: the kept one does not
    out = m.get(key)
    out[1] = 9.0  # nor when the returned copy changes
    assert m.get(key).tolist() == [0.5, 0.25]


def test_zero_bytes_keeps_nothing():
    m = AnswerMemo("t", max_bytes=0)
    m.put(m.key(1), np.array([1.0]))
    assert m.get(m.key(1)) is None and len(m) == 0


@pytest.mark.parametrize("bad", [-1, 1.5, "10", True, None])
def test_bad_bound_is_named(bad):
    with pytest.raises(InvalidInputError, match="max_bytes must be an integer >= 0"):
        AnswerMemo("t", max_bytes=bad)
    with pytest.raises(InvalidInputError, match="max_bytes"):
        set_memo_max_bytes(bad)


def test_key_sees_dtype_shape_order_and_every_bit():
    key = AnswerMemo.key
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert key(x) == key(x.copy())
    assert key(x) == key(np.asfortranarray(x))  # the same values, another layout
    assert key(x) != key(x.T)
    assert key(x) != key(x.reshape(4))
    assert key(x) != key(x.astype(np.float32))
    assert key(x) != key(np.nextafter(x, 9.0))  # one ulp
    assert key(x, 1.0) != key(x, 1.0 + 2**-52)
    assert key(x, 2) != key(2, x)  # order of the parts
    assert key(np.array([1.0]), np.array([2.0])) != key(np.array([1.0, 2.0]))


def test_shrinking_the_bound_drops_answers_and_zero_switches_off():
    m = memo("shrink-test")
    for i in range(5):
        m.put(m.key(i), np.array([float(i)]))
    set_memo_max_bytes(2 * (8 + ENTRY_OVERHEAD))
    assert len(m) == 2 and m.get(m.key(4)).tolist() == [4.0]
    set_memo_max_bytes(0)
    assert len(m) == 0
    m.put(m.key(1), np.array([1.0]))
    assert m.get(m.key(1)) is None
    later = memo("made-after-the-bound")  # a memo made later gets the bound too
    assert later.max_bytes == 0


def test_threads_share_a_small_memo_safely():
    """Eight threads on a memo of four answers, switching as often as CPython allows."""
    import sys

    m = AnswerMemo("t", max_bytes=4 * (8 + ENTRY_OVERHEAD))
    errors = []

    def work(offset):
        try:
            for i in range(3_000):
                value = float((offset + i) % 11)
                got = m.answer((value,), lambda v=value: np.array([v]))
                if got.tolist() != [value]:
                    errors.append(got)
        except Exception as exc:  # pragma: no cover - what the test looks for
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(t * 3,)) for t in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors[:3]
    assert len(m) <= 4 and m.nbytes == len(m) * (8 + ENTRY_OVERHEAD)
    assert m.hits + m.misses == 8 * 3_000


def test_max_sum_yields_solves_an_lp_once():
    coeff = np.array([[0.4, 0.0], [0.8, 0.3], [0.0, 0.9]])
    first = max_sum_yields(coeff, 0.5)
    second = max_sum_yields(coeff.copy(), 0.5)
    assert first.tobytes() == second.tobytes()
    assert memo_stats()["max_sum_yields"]["hits"] == 1
    max_sum_yields(coeff, 0.6)  # another floor: another LP
    assert memo_stats()["max_sum_yields"]["misses"] == 2


def _in_a_new_thread(compute):
    """``compute()`` with the memo off, on a new thread: a new HiGHS instance."""
    out = []
    set_memo_max_bytes(0)
    try:
        t = threading.Thread(target=lambda: out.append(compute()))
        t.start()
        t.join()
    finally:
        set_memo_max_bytes(DEFAULT_MAX_BYTES)
    return out[0]


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_min_avg_stretch_from_the_memo_has_the_bits_of_a_fresh_solve(data):
    n_jobs = data.draw(st.integers(1, 6))
    n_nodes = data.draw(st.integers(1, 3))
    counts = np.array(
        data.draw(st.lists(st.lists(st.integers(0, 2), min_size=n_nodes, max_size=n_nodes),
                           min_size=n_jobs, max_size=n_jobs)), dtype=float)
    cpu = np.array(data.draw(st.lists(st.sampled_from([0.25, 0.5, 1.0]),
                                      min_size=n_jobs, max_size=n_jobs)))
    a = np.array(data.draw(st.lists(st.floats(0, 0.9), min_size=n_jobs, max_size=n_jobs)))
    b = np.array(data.draw(st.lists(st.floats(0.05, 1.0), min_size=n_jobs, max_size=n_jobs)))
    clear_memos()  # (the fixture runs once for all examples)
    fresh = _in_a_new_thread(lambda: min_avg_stretch(counts, cpu, a, b))
    assert memo_stats()["min_avg_stretch"]["hits"] == 0
    clear_memos()
    solved = min_avg_stretch(counts, cpu, a, b)
    kept = min_avg_stretch(counts, cpu, a, b)
    assert fresh.tobytes() == solved.tobytes() == kept.tobytes()
    assert memo_stats()["min_avg_stretch"]["hits"] == 1
    kept[:] = -1.0  # the caller's copy: the memo keeps its own
    assert min_avg_stretch(counts, cpu, a, b).tobytes() == fresh.tobytes()


def test_a_run_after_other_variants_has_the_bits_of_a_run_alone():
    from allockit.instances.workload import Platform, Workload
    from allockit.simulation.simulate import simulate

    rng = np.random.default_rng(7)
    n = 40
    w = Workload.from_jobs(
        Platform(nodes=4),
        submit=np.sort(rng.uniform(0, 4_000, n)).round(),
        runtime=rng.uniform(100, 3_000, n).round(),
        tasks=rng.integers(1, 4, n),
        cpu=rng.choice([0.25, 0.5, 1.0], n),
        mem=rng.uniform(0.05, 0.4, n).round(3),
    )
    names = ["/stretch-per/opt=avg", "/stretch-per/opt=avg/minft=300",
             "MCB8 */per/opt=avg", "MCB8 */per/opt=avg/minvt=300", "GreedyP */opt=avg"]

    def arrays(result):
        return [np.asarray(getattr(result, f)).tobytes()
                for f in ("start", "end", "job_preemptions", "job_migrations")]

    set_memo_max_bytes(0)
    alone = {name: arrays(simulate(w, name, penalty=300.0, period=600.0)) for name in names}
    assert all(stats["hits"] == 0 for stats in memo_stats().values())
    set_memo_max_bytes(DEFAULT_MAX_BYTES)
    clear_memos()
    shared = {name: arrays(simulate(w, name, penalty=300.0, period=600.0)) for name in names}
    assert shared == alone
    stats = memo_stats()
    assert stats["min_avg_stretch"]["hits"] > 0 and stats["max_sum_yields"]["hits"] > 0


def test_lps_that_differ_in_one_input_get_their_own_answers():
    counts = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    cpu = np.array([1.0, 0.5, 1.0])
    a, b = np.array([0.0, 0.1, 0.3]), np.array([1.0, 0.5, 0.5])
    cases = [(counts, cpu, a, b), (counts, cpu, a + np.array([0.2, 0, 0]), b),
             (counts, cpu, a, b * [1, 1, 0.5]), (counts, cpu * [0.5, 1, 1], a, b)]
    set_memo_max_bytes(0)
    fresh = [min_avg_stretch(*case) for case in cases]
    assert len({f.tobytes() for f in fresh}) == len(cases)  # four different answers
    set_memo_max_bytes(DEFAULT_MAX_BYTES)
    for _ in range(2):  # solved, then from the memo
        assert [min_avg_stretch(*case).tobytes() for case in cases] == [
            f.tobytes() for f in fresh]
    coeff = np.array([[0.4, 0.0], [0.8, 0.3], [0.0, 0.9]])
    floors = [0.5, 0.55]
    set_memo_max_bytes(0)
    fresh = [max_sum_yields(coeff, f) for f in floors] + [max_sum_yields(coeff * 1.1, 0.5)]
    set_memo_max_bytes(DEFAULT_MAX_BYTES)
    for _ in range(2):
        got = [max_sum_yields(coeff, f) for f in floors] + [max_sum_yields(coeff * 1.1, 0.5)]
        assert [g.tobytes() for g in got] == [f.tobytes() for f in fresh]


def test_every_argument_of_the_lps_is_in_the_key():
    counts = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    cpu = np.array([1.0, 1.0, 1.0, 0.25])
    a, b = np.zeros(4), np.ones(4)
    calls = [dict(), dict(max_rounds=0), dict(rtol=0.5)]
    fresh = [_in_a_new_thread(lambda k=k: min_avg_stretch(counts, cpu, a, b, **k)) for k in calls]
    assert fresh[0].tobytes() != fresh[1].tobytes()  # max_rounds=0: the fair yields
    for _ in range(2):
        got = [min_avg_stretch(counts, cpu, a, b, **k) for k in calls]
        assert [g.tobytes() for g in got] == [f.tobytes() for f in fresh]
    # an all-zero row: the same triples, one more job
    coeff = np.array([[0.4], [0.8]])
    padded = np.vstack([coeff, [[0.0]]])
    first, second = max_sum_yields(coeff, 0.5), max_sum_yields(padded, 0.5)
    assert first.shape == (2,) and second.shape == (3,)
    assert second[:2].tobytes() == first.tobytes()


@pytest.mark.parametrize("bad, field", [
    (dict(rtol=0.0), "rtol"), (dict(rtol=float("nan")), "rtol"), (dict(rtol="x"), "rtol"),
    (dict(max_rounds=-1), "max_rounds"), (dict(max_rounds=2.5), "max_rounds"),
])
def test_min_avg_stretch_names_a_bad_option(bad, field):
    with pytest.raises(InvalidInputError, match=field):
        min_avg_stretch(np.ones((1, 1)), np.ones(1), np.zeros(1), np.ones(1), **bad)


def test_average_yield_phase_answers_are_kept_with_the_bits_of_a_solve():
    """VCSched's scoring LP (triples from numpy.unique, a job over two hosts)."""
    from allockit.evaluation.placement import max_sum_yields_sparse

    jobs, hosts = np.array([0, 0, 1, 2]), np.array([0, 1, 1, 0])
    values = np.array([0.5, 0.5, 0.9, 0.7])
    fresh = _in_a_new_thread(lambda: max_sum_yields_sparse(jobs, hosts, values, 3, 2, 0.4))
    for _ in range(2):
        got = max_sum_yields_sparse(jobs, hosts, values, 3, 2, 0.4)
        assert got.tobytes() == fresh.tobytes()
    assert memo_stats()["max_sum_yields"]["hits"] == 1
