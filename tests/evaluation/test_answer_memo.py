"""The LP answer memo: bounded, copies in and out, keyed on every input bit, and
invisible in the schedules (a run after others gives the bits of a run alone)."""

import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.evaluation.answer_memo import (
    DEFAULT_CAPACITY,
    AnswerMemo,
    clear_memos,
    memo,
    memo_stats,
    set_memo_capacity,
)
from allockit.evaluation.placement import max_sum_yields
from allockit.simulation.allocation import min_avg_stretch


@pytest.fixture(autouse=True)
def _fresh_memos():
    clear_memos()
    yield
    set_memo_capacity(DEFAULT_CAPACITY)
    clear_memos()


def test_least_recently_used_answer_goes_first():
    m = AnswerMemo("t", capacity=2)
    keys = [m.key(np.array([float(i)])) for i in range(3)]
    m.put(keys[0], np.array([0.0]))
    m.put(keys[1], np.array([1.0]))
    assert m.get(keys[0]).tolist() == [0.0]  # 0 is now the most recent
    m.put(keys[2], np.array([2.0]))  # evicts 1
    assert m.get(keys[1]) is None
    assert m.get(keys[0]).tolist() == [0.0] and m.get(keys[2]).tolist() == [2.0]
    assert len(m) == 2 and (m.hits, m.misses) == (3, 1)


def test_answers_are_copied_in_and_out():
    m = AnswerMemo("t")
    key = m.key(1)
    answer = np.array([0.5, 0.25])
    m.put(key, answer)
    answer[0] = 9.0  # the caller's array changes: the kept one does not
    out = m.get(key)
    out[1] = 9.0  # nor when the returned copy changes
    assert m.get(key).tolist() == [0.5, 0.25]


def test_capacity_zero_keeps_nothing():
    m = AnswerMemo("t", capacity=0)
    m.put(m.key(1), np.array([1.0]))
    assert m.get(m.key(1)) is None and len(m) == 0


@pytest.mark.parametrize("bad", [-1, 1.5, "10", True, None])
def test_bad_capacity_is_named(bad):
    with pytest.raises(InvalidInputError, match="capacity must be an integer >= 0"):
        AnswerMemo("t", capacity=bad)
    with pytest.raises(InvalidInputError, match="capacity"):
        set_memo_capacity(bad)


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


def test_shrinking_the_capacity_drops_answers_and_zero_switches_off():
    m = memo("shrink-test")
    for i in range(5):
        m.put(m.key(i), np.array([float(i)]))
    set_memo_capacity(2)
    assert len(m) == 2 and m.get(m.key(4)).tolist() == [4.0]
    set_memo_capacity(0)
    assert len(m) == 0
    m.put(m.key(1), np.array([1.0]))
    assert m.get(m.key(1)) is None


def test_threads_share_a_memo_safely():
    m = AnswerMemo("t", capacity=50)
    errors = []

    def work(offset):
        try:
            for i in range(2_000):
                k = m.key((offset + i) % 80)
                got = m.get(k)
                if got is None:
                    m.put(k, np.array([float((offset + i) % 80)]))
                elif got.tolist() != [float((offset + i) % 80)]:
                    errors.append(got)
        except Exception as exc:  # pragma: no cover - what the test looks for
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t * 7,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(m) <= 50


def test_max_sum_yields_solves_an_lp_once():
    coeff = np.array([[0.4, 0.0], [0.8, 0.3], [0.0, 0.9]])
    first = max_sum_yields(coeff, 0.5)
    second = max_sum_yields(coeff.copy(), 0.5)
    assert first.tobytes() == second.tobytes()
    assert memo_stats()["max_sum_yields"]["hits"] == 1
    max_sum_yields(coeff, 0.6)  # another floor: another LP
    assert memo_stats()["max_sum_yields"]["misses"] == 2


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
    set_memo_capacity(0)
    fresh = min_avg_stretch(counts, cpu, a, b)
    set_memo_capacity(DEFAULT_CAPACITY)
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

    set_memo_capacity(0)
    alone = {name: arrays(simulate(w, name, penalty=300.0, period=600.0)) for name in names}
    set_memo_capacity(DEFAULT_CAPACITY)
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
    set_memo_capacity(0)
    fresh = [min_avg_stretch(*case) for case in cases]
    assert len({f.tobytes() for f in fresh}) == len(cases)  # four different answers
    set_memo_capacity(DEFAULT_CAPACITY)
    for _ in range(2):  # solved, then from the memo
        assert [min_avg_stretch(*case).tobytes() for case in cases] == [
            f.tobytes() for f in fresh]
    coeff = np.array([[0.4, 0.0], [0.8, 0.3], [0.0, 0.9]])
    floors = [0.5, 0.55]
    set_memo_capacity(0)
    fresh = [max_sum_yields(coeff, f) for f in floors] + [max_sum_yields(coeff * 1.1, 0.5)]
    set_memo_capacity(DEFAULT_CAPACITY)
    for _ in range(2):
        got = [max_sum_yields(coeff, f) for f in floors] + [max_sum_yields(coeff * 1.1, 0.5)]
        assert [g.tobytes() for g in got] == [f.tobytes() for f in fresh]
