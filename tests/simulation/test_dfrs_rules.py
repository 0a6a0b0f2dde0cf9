"""Hand-worked DFRS schedules for the rules that decide when a job pays the penalty.

Issue 19: the best algorithm thrashes on long HPC2N traces. These small schedules show
each rule on one or two nodes with a 600 s period and a 300 s penalty:

1. the priority rule makes two identical jobs that cannot share a node alternate at
   every period, and each resume costs the penalty (the rule that drives thrashing);
2. ``hold`` (not in the paper) keeps a just-resumed job running for a while;
3. a job kept on its node with a different CPU share pays nothing;
4. ``minvt`` pins a young job to its node but does not stop it being paused.
"""

from __future__ import annotations

import numpy as np

from allockit.instances.workload import Platform, Workload
from allockit.simulation.dfrs import simulate_dfrs


def _segments(result, job):
    """(start, end, useful seconds) of each uninterrupted run of ``job``."""
    out = []
    for j, t0, t1, _y, useful in result.extra["segments"]:
        if j != job:
            continue
        if out and out[-1][1] == t0:
            out[-1] = (out[-1][0], t1, out[-1][2] + useful)
        else:
            out.append((t0, t1, useful))
    return [(a, b, round(u, 6)) for a, b, u in out]


def _two_rivals(runtime=3000.0):
    # two identical jobs that cannot share the node (memory 0.6 each)
    return Workload.from_jobs(
        Platform(nodes=1), submit=[0, 0], runtime=[runtime, runtime], tasks=[1, 1],
        cpu=[1.0, 1.0], mem=[0.6, 0.6],
    )


def test_priority_rule_alternates_rivals_every_period_each_resume_paying_the_penalty():
    # Greedy starts A at 0; B waits. Tick 600: B (vt 0, infinite priority) replaces A;
    # B starts fresh (no penalty). Tick 1200: both vt 600, flow 1200: a tie, A (first
    # submitted) resumes and serves the penalty to 1500. Tick 1800: A's flow/vt^2 =
    # 1800/900^2 is below B's 1800/600^2, so B resumes (penalty to 2100); and so on: from
    # 1200 on every period is a swap, half of it penalty. A and B each need 3000 s: 600
    # at first, then 300 per run of 600 s, so 8 more runs each; the last ends at 10800.
    r = simulate_dfrs(_two_rivals(), "Greedy */per", penalty=300, period=600, record=True)
    a, b = _segments(r, 0), _segments(r, 1)
    assert a == [(0.0, 600.0, 600.0)] + [(t, t + 600.0, 300.0) for t in range(1200, 10800, 1200)]
    assert b == [(600.0, 1200.0, 600.0)] + [
        (t, t + 600.0, 300.0) for t in range(1800, 10801, 1200)
    ]
    assert r.end.tolist() == [10200.0, 10800.0]
    assert r.job_preemptions.tolist() == [8, 8]
    assert abs(r.summary()["progress_share"] - 6000 / 10800) < 1e-12


def test_hold_keeps_a_resumed_job_running():
    # with hold = 1200 a job started or resumed less than 1200 s ago keeps its node: A
    # (started at 0) stays at tick 600 and leaves at 1200 for B (vt 0); B stays at 1800;
    # at 2400 both have vt 1200 and flow 2400, a tie: A resumes (penalty to 2700) and
    # stays to 3600, where B's priority 3600/1200^2 beats A's 3600/2100^2; and so on:
    # swaps every 1200 s instead of 600, a quarter of each run penalty, not a half.
    r = simulate_dfrs(_two_rivals(), "Greedy */per", penalty=300, period=600, hold=1200,
                      record=True)
    assert _segments(r, 0) == [(0.0, 1200.0, 1200.0), (2400.0, 3600.0, 900.0),
                               (4800.0, 6000.0, 900.0)]
    assert _segments(r, 1) == [(1200.0, 2400.0, 1200.0), (3600.0, 4800.0, 900.0),
                               (6000.0, 7200.0, 900.0)]
    assert r.preemptions == 4 and r.makespan == 7200.0


def test_a_job_kept_on_its_node_with_a_new_cpu_share_pays_nothing():
    # two jobs share one node at yield 1/2; when B arrives A's share drops, when B ends it
    # rises again; A never moves, so it never pays the penalty: it ends at exactly
    # 100 (alone) + 2 * 100 (shared while B runs 100 s of work) = 300 s
    w = Workload.from_jobs(
        Platform(nodes=1), submit=[0, 100], runtime=[200, 100], tasks=[1, 1],
        cpu=[1.0, 1.0], mem=[0.3, 0.3],
    )
    r = simulate_dfrs(w, "Greedy */per", penalty=300, period=600)
    assert r.end.tolist() == [300.0, 300.0]
    assert r.preemptions == 0 and r.migrations == 0


def test_minvt_pins_a_young_job_but_does_not_stop_a_pause():
    # node 0 holds A (mem 0.6) and, from t=10, B; C arrives on node 1 later. With minvt
    # the young jobs keep their nodes at the tick (no migration), but a higher-priority
    # job may still pause a young one when memory is short.
    w = Workload.from_jobs(
        Platform(nodes=2), submit=[0, 10, 20], runtime=[5000, 5000, 5000], tasks=[1, 1, 1],
        cpu=[1.0, 1.0, 1.0], mem=[0.6, 0.6, 0.6],
    )
    pinned = simulate_dfrs(w, "Greedy */per/minvt=100000", penalty=300, period=600)
    free = simulate_dfrs(w, "Greedy */per", penalty=300, period=600)
    assert pinned.migrations == 0
    assert pinned.preemptions > 0  # pausing is still allowed
    assert np.all(np.isfinite(free.end))
