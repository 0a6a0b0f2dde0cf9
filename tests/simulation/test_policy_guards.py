"""User policies that misbehave are stopped with an error naming them, never reported as
"completed" with impossible metrics; well-behaved policies and the built-ins are unchanged.

Batch policies (``BatchCluster``, ``run_batch``): ``free`` and the start and end times
are the simulator's, ``queue`` and ``running`` are checked against its own record,
``start`` takes integer jobs only, the finished schedule is re-checked
(``check_schedule``) and ticks are capped. Fractional policies (``simulate_dfrs``): a
user's mapping and yields are checked for memory and CPU whenever they change.
"""

from __future__ import annotations

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.instances.lublin import dfrs_synthetic
from allockit.instances.workload import Platform, Workload
from allockit.simulation import batch
from allockit.simulation.batch import EASY, FCFS, check_schedule, run_batch, simulate_batch
from allockit.simulation.dfrs import simulate_dfrs
from allockit.simulation.dfrs_algorithm import DfrsAlgorithm, FractionalPolicy
from allockit.simulation.policy import BasePolicy
from allockit.simulation.simulate import simulate
from tests.simulation.batch_reference import reference_batch


def _w() -> Workload:
    return Workload.from_jobs(
        Platform(nodes=2), submit=[0, 1, 2, 3], runtime=[100, 300, 10, 50], tasks=[2, 2, 1, 1],
        cpu=[1] * 4, mem=[0.1] * 4,
    )


def _policy(schedule, name="Bad", **attrs):
    return type(name, (BasePolicy,), {"schedule": schedule, **attrs})()


# ------------------------------------------------------------------ batch: the state
def test_a_policy_cannot_give_itself_free_nodes():
    def schedule(self, c, now):
        c.free = 10**9
        for j in list(c.queue):
            c.start(j)

    with pytest.raises(InvalidInputError, match=r"policy 'Bad' set BatchCluster.free to 10+:"):
        simulate(_w(), _policy(schedule))


def test_a_policy_cannot_end_jobs_early():
    def schedule(self, c, now):
        for j in list(c.queue):
            if c.fits(j):
                c.start(j)
                c.end_time[j] = now + 1

    with pytest.raises(InvalidInputError, match=r"policy 'Bad': BatchCluster.end_time\[0\] = "):
        simulate(_w(), _policy(schedule))


def test_start_refuses_what_is_not_a_job_index():
    for value, shown in ((0.9, "0.9"), (1.5, "1.5"), (True, "True"), (-1, "-1"), (4, "4"),
                         ("0", "'0'")):
        def schedule(self, c, now, value=value):
            if c.queue:
                c.start(value)

        with pytest.raises(InvalidInputError, match=rf"policy 'Bad' started job {shown}: a job "
                           r"must be an integer in \[0, 3\]"):
            simulate(_w(), _policy(schedule))
    # numpy integers and floats of integer value are job indices (never truncated)
    def schedule(self, c, now):
        for j in list(c.queue):
            if c.fits(j):
                c.start(np.float64(j) if j % 2 else np.int32(j))

    assert simulate(_w(), _policy(schedule)).start.tolist() == [0.0, 100.0, 400.0, 400.0]


def test_a_policy_that_clears_running_or_queue_is_named_with_the_job():
    def clear_running(self, c, now):
        c.running.clear()
        FCFS().schedule(c, now)

    with pytest.raises(InvalidInputError, match=r"policy 'Bad' changed BatchCluster.running "
                       r".*job 0 \(id 1\) is running but not in it at 1 s"):
        simulate(_w(), _policy(clear_running))

    def clear_queue(self, c, now):
        c.queue.clear()

    with pytest.raises(InvalidInputError, match=r"policy 'Bad' changed BatchCluster.queue "
                       r".*job 0 \(id 1\) is waiting but not in it at 0 s"):
        simulate(_w(), _policy(clear_queue))

    def fake_queue(self, c, now):  # a job that is not waiting, in the place of one that is
        if now == 1:
            c.queue[0] = 3
        FCFS().schedule(c, now)

    with pytest.raises(InvalidInputError, match=r"changed BatchCluster.queue .*job 1 \(id 2\) "
                       "is waiting but not in it at 110 s"):
        simulate(_w(), _policy(fake_queue))

    def fake_running(self, c, now):  # an entry for a job that does not run
        FCFS().schedule(c, now)
        c.running.pop(0, None)
        c.running[2] = 5.0

    with pytest.raises(InvalidInputError, match=r"changed BatchCluster.running .*job 0 \(id 1\)"):
        simulate(_w(), _policy(fake_running))


def test_the_finished_schedule_is_checked_whatever_the_policy_did():
    def schedule(self, c, now):  # gets past the guards by writing the simulator's count
        c._used = 0
        for j in list(c.queue):
            c.start(j)

    with pytest.raises(InvalidInputError, match=r"policy 'Bad' over-allocated the platform: at "
                       r"1 s job 1 \(id 2\) starts with 4 nodes in use; the platform has 2"):
        simulate(_w(), _policy(schedule))

    def early(self, c, now):
        FCFS().schedule(c, now)
        for j in c._starts:
            c._end[j] = now + 1

    with pytest.raises(InvalidInputError, match=r"job 0 \(id 1\) started at 0 s and ended at "
                       r"1 s, not after its run time of 100 s"):
        simulate(_w(), _policy(early))


def test_check_schedule_names_the_first_violation():
    w = _w()
    start = np.array([0.0, 100.0, 400.0, 400.0])
    end = start + w.runtime
    check_schedule(w, start, end, w.tasks, 2)
    with pytest.raises(InvalidInputError, match=r"job 2 \(id 3\) has start nan"):
        check_schedule(w, np.where(np.arange(4) == 2, np.nan, start), end, w.tasks, 2)
    with pytest.raises(InvalidInputError, match=r"started job 1 \(id 2\) at 0.5 s, before its "
                       "submission at 1 s"):
        s = start.copy()
        s[1] = 0.5
        check_schedule(w, s, s + w.runtime, w.tasks, 2)
    with pytest.raises(InvalidInputError, match=r"at 99 s job 1 \(id 2\) starts with 4 nodes"):
        s = start.copy()
        s[1] = 99.0
        check_schedule(w, s, s + w.runtime, w.tasks, 2)
    with pytest.raises(InvalidInputError, match=r"job 3 \(id 4\) started at 400 s and ended"):
        check_schedule(w, start, end + np.array([0, 0, 0, 1e-3]), w.tasks, 2)
    # a job may start when another ends (the ends come first at one time)
    check_schedule(w, np.array([0.0, 100.0, 400.0, 410.0]), np.array([100.0, 400, 410, 460]),
                   w.tasks + np.array([0, 0, 1, 1]), 2)


# ------------------------------------------------------------------ batch: ticks
def test_a_tiny_period_is_refused_before_the_run():
    with pytest.raises(InvalidInputError, match=r"policy 'Bad': period 1e-09 s: jobs are in the "
                       r"system for at least 301 s.*use a period of at least 3.01e-05 s"):
        simulate(_w(), _policy(FCFS.schedule, period=1e-9))


def test_a_run_that_reaches_the_tick_cap_stops(monkeypatch):
    monkeypatch.setattr(batch, "MAX_PERIODS", 1000)

    def schedule(self, c, now):  # holds every job back for a long time
        if now >= 5000:
            FCFS().schedule(c, now)

    with pytest.raises(InvalidInputError, match=r"policy 'Bad': the simulation reached 1,000 "
                       r"periods of 1 s at time 1001 s"):
        simulate(_w(), _policy(schedule, period=1.0))
    r = simulate(_w(), _policy(FCFS.schedule, period=1.0))  # under the cap: runs
    assert r.start.tolist() == [0.0, 100.0, 400.0, 400.0]


# ------------------------------------------------------------------ batch: unchanged
class ByTheRules(BasePolicy):
    """FCFS written against everything a policy may read."""

    name = "rules"
    period = 7.0

    def schedule(self, cluster, now):
        assert cluster.free == cluster.capacity - sum(cluster.width[j] for j in cluster.running)
        for j in cluster.running:
            assert cluster.start_time[j] <= now < cluster.end_time[j]
        while cluster.queue and cluster.fits(cluster.queue[0]):
            cluster.start(cluster.queue[0])


@pytest.mark.parametrize("unit", ["nodes", "cores"])
def test_well_behaved_and_built_in_policies_keep_their_schedules(unit):
    w = dfrs_synthetic(300, nodes=8, load=0.95, seed=5)
    ref_start, ref_end = reference_batch(w, algorithm="fcfs", unit=unit)
    for policy in (ByTheRules(), FCFS()):
        r = run_batch(w, policy, unit=unit)
        assert np.array_equal(r.start, ref_start) and np.array_equal(r.end, ref_end)
        assert r.summary()["status"] == "completed"
    start, end = reference_batch(w, algorithm="easy", unit=unit)
    r = simulate_batch(w, algorithm="easy", unit=unit)
    assert np.array_equal(r.start, start) and np.array_equal(r.end, end)
    assert np.array_equal(simulate(w, EASY(), unit=unit).start, start)
    start, end = reference_batch(_w(), algorithm="easy")
    small = simulate(_w(), "EASY")
    assert np.array_equal(small.start, start) and small.start.tolist() == [0, 100, 400, 400]


# ------------------------------------------------------------------ fractional
def _frac(mem: float) -> Workload:
    return Workload.from_jobs(
        Platform(nodes=2), submit=[0, 0, 0], runtime=[100] * 3, tasks=[1] * 3, cpu=[1] * 3,
        mem=[mem] * 3,
    )


class OnNodeZero(FractionalPolicy):
    """Puts every job on node 0 at once, all at yield 1."""

    def on_submit(self, state, job, now):
        state.start_job(job, np.zeros(1, np.int64), now)

    def yields(self, state, jobs, counts, now, horizon):
        return np.ones(len(jobs))


def test_a_user_policy_cannot_over_commit_memory():
    with pytest.raises(InvalidInputError, match=r"policy 'OnNodeZero' over-committed the memory "
                       r"of node 0 at time 0 s: 1.2 \(jobs 0, 1 there\); a node holds 1"):
        simulate(_frac(0.6), OnNodeZero())

    class Greedier(DfrsAlgorithm):  # the built-in yields, its own placements
        def on_submit(self, state, job, now):
            state.start_job(job, np.zeros(1, np.int64), now)

    with pytest.raises(InvalidInputError, match=r"over-committed the memory of node 0"):
        simulate_dfrs(_frac(0.6), Greedier("Greedy *"))
    with pytest.raises(InvalidInputError, match=r"over-committed the memory of node 0"):
        simulate_dfrs(_frac(0.6), Greedier("Greedy *"), debug=True)


def test_a_user_policy_cannot_over_commit_cpu():
    with pytest.raises(InvalidInputError, match=r"policy 'OnNodeZero': the yields give node 0 a "
                       r"CPU load of 2 at time 0 s \(jobs 0, 1 there\)"):
        simulate(_frac(0.1), OnNodeZero())


def test_a_user_policy_must_place_every_task():
    class Nowhere(FractionalPolicy):
        def on_submit(self, state, job, now):
            state.start_job(job, np.zeros(0, np.int64), now)

    with pytest.raises(InvalidInputError, match=r"policy 'Nowhere' placed job 0 \(id 1\) with "
                       r"\[0.0, 0.0\] tasks per node at time 0 s; it has 1 task"):
        simulate(_frac(0.1), Nowhere())


class SameYields(DfrsAlgorithm):
    """A built-in algorithm whose yields go through the user's path (and its checks)."""

    def yields(self, state, jobs, counts, now, horizon):
        return super().yields(state, jobs, counts, now, horizon)


@pytest.mark.parametrize(
    "name",
    ["Greedy */opt=min", "GreedyPM */per/opt=avg", "MCB8 */opt=min", "/stretch-per/opt=avg",
     "/stretch-per/opt=max"],
)
def test_well_behaved_fractional_policies_keep_their_schedules(name):
    w = dfrs_synthetic(60, nodes=6, load=0.9, seed=7)
    ref = simulate_dfrs(w, name, period=300.0)
    for policy in (SameYields(name, period=300.0), DfrsAlgorithm(name, period=300.0)):
        r = simulate_dfrs(w, policy)
        assert np.array_equal(r.start, ref.start) and np.array_equal(r.end, ref.end)
        assert r.summary()["status"] == "completed"
