"""Two-tier schedulers: properties on generated workloads (hypothesis and Lublin traces).

- with the bg tier off, KEASY, REASY and MEASY give EASY's schedule exactly, and the
  two-tier EASY equals ``simulate_batch(estimates=True)`` job for job;
- in debug mode the invariants hold after every event (one process per VM, bg only
  under the threshold, rates = slowest process, progress integrated independently
  equals the work at completion, completion once, no start before submission);
- a killed job restarts from zero, a migrated one pays its cost; a seed gives one
  schedule.
"""

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from allockit.instances.lublin import dfrs_synthetic
from allockit.instances.tsafrir import tsafrir_estimates
from allockit.instances.workload import Platform, Workload
from allockit.simulation.batch import simulate_batch
from allockit.simulation.two_tier import simulate_two_tier
from allockit.simulation.two_tier_choices import DRAWS

ALGS = ("KEASY", "REASY", "MEASY")
_USAGES = (0.3, 0.5, 0.8, 0.95, 0.96, 0.97, 1.0)
_ESTIMATE = (1.0, 1.0, 1.5, 3.0, 0.5, math.nan)  # exact, over, under, none


@st.composite
def two_tier_workloads(
    draw, max_nodes: int = 6, max_jobs: int = 12, feedback: bool = False
) -> Workload:
    """Small workloads on single-core processors: ties, overruns and 100 % usage common.

    ``feedback``: some jobs name an earlier job as their preceding job (a think time of
    none, 0 or 7 s).
    """
    nodes = draw(st.integers(1, max_nodes))
    n = draw(st.integers(1, max_jobs))
    ints = st.lists(st.integers(0, 30), min_size=n, max_size=n)
    gaps = draw(ints)
    submit = np.cumsum(gaps) - gaps[0]
    runtime = np.array(draw(st.lists(st.integers(1, 120), min_size=n, max_size=n)), float)
    tasks = draw(st.lists(st.integers(1, nodes), min_size=n, max_size=n))
    cpu = draw(st.lists(st.sampled_from(_USAGES), min_size=n, max_size=n))
    factor = np.array(draw(st.lists(st.sampled_from(_ESTIMATE), min_size=n, max_size=n)))
    preceding, think = None, None
    if feedback:
        preceding = [draw(st.sampled_from([-1, *range(1, k + 1)])) for k in range(n)]
        think = draw(st.lists(st.sampled_from([math.nan, 0.0, 7.0]), min_size=n, max_size=n))
    return Workload.from_jobs(
        Platform(nodes=nodes),
        submit=submit,
        runtime=runtime,
        tasks=tasks,
        cpu=cpu,
        mem=[0.1] * n,
        requested_time=np.ceil(runtime * factor),
        preceding=preceding,
        think_time=think,
    )


def lublin(n_jobs: int, nodes: int, load: float, seed: int) -> Workload:
    w = dfrs_synthetic(n_jobs, nodes=nodes, load=load, seed=seed)
    rng = np.random.default_rng(seed)
    cpu = np.where(w.tasks == 1, 1.0, rng.uniform(0.4, 1.0, w.n_jobs))
    return w.replace(
        platform=Platform(nodes=nodes),
        cpu=cpu,
        requested_time=tsafrir_estimates(w.runtime, seed=seed),
    )


def _same_schedule(a, b):
    assert a.start.tolist() == b.start.tolist()
    assert a.end.tolist() == b.end.tolist()


@given(two_tier_workloads())
def test_background_off_gives_easy_exactly(w):
    easy = simulate_batch(w, algorithm="easy", estimates=True)
    for alg in ALGS:
        r = simulate_two_tier(w, alg, background=False, seed=0, debug=True)
        _same_schedule(r, easy)
        assert r.summary()["bg_utilization"] == 0.0
        assert r.migrations == r.summary()["kills"] == r.summary()["swaps"] == 0


@pytest.mark.parametrize(("load", "seed"), [(0.6, 1), (0.9, 2)])
def test_background_off_gives_easy_on_lublin_traces(load, seed):
    w = lublin(600, 32, load, seed)
    easy = simulate_batch(w, algorithm="easy", estimates=True)
    for alg in ALGS:
        _same_schedule(simulate_two_tier(w, alg, background=False), easy)
    # the underutilisation (processor-seconds) is the batch one when U is 1 everywhere
    full = w.replace(cpu=np.ones(w.n_jobs))
    r = simulate_two_tier(full, "MEASY", background=False)
    assert r.underutilization == pytest.approx(
        simulate_batch(full, algorithm="easy", estimates=True).underutilization, rel=1e-9
    )


def _check_schedule(w, r, alg, cost):
    runtime, submit = w.runtime, w.submit
    slack = 1e-9 * np.maximum(1.0, np.abs(r.end))  # round-off of times near r.end
    assert not np.isnan(r.end).any() and not np.isnan(r.start).any()
    assert (r.start >= submit).all()
    assert (r.end - r.start >= runtime - slack).all()  # every rate is <= 1
    kills = r.extra["job_kills"]
    first_fg = r.extra["job_first_fg_start"]
    killed = kills > 0
    # a killed job restarts from zero in fg (at rate <= 1)
    assert (r.end[killed] - first_fg[killed] >= runtime[killed] - slack[killed]).all()
    moved = r.job_migrations > 0
    assert (r.end[moved] - first_fg[moved] >= cost - slack[moved]).all()
    assert (kills <= 1).all() and (r.job_migrations <= 1).all()
    if alg != "KEASY":
        assert not killed.any()
    if alg != "MEASY":
        assert not moved.any()
    assert (np.isnan(first_fg) | (first_fg >= r.start)).all()


@given(
    two_tier_workloads(),
    st.sampled_from(ALGS),
    st.sampled_from(DRAWS),
    st.sampled_from(("known", "none")),
    st.sampled_from((0.0, 20.0, 500.0)),
    st.integers(0, 3),
)
def test_invariants_hold_after_every_event(w, alg, draws, cpu_info, cost, seed):
    # debug=True checks the invariants after every event and raises on a violation
    r = simulate_two_tier(
        w, alg, draws=draws, cpu_info=cpu_info, migration_cost=cost, seed=seed, debug=True
    )
    _check_schedule(w, r, alg, cost)


@pytest.mark.parametrize("alg", ALGS)
@pytest.mark.parametrize("draws", DRAWS)
def test_invariants_on_a_lublin_trace(alg, draws):
    w = lublin(250, 24, 0.9, 3)
    r = simulate_two_tier(w, alg, draws=draws, seed=1, debug=True)
    _check_schedule(w, r, alg, 20.0)


@given(two_tier_workloads(), st.sampled_from(ALGS), st.sampled_from(DRAWS))
def test_a_seed_gives_one_schedule(w, alg, draws):
    def dump(r):
        d = r.to_dict()
        d.pop("seconds")
        return json.dumps(d, sort_keys=True)  # NaN (never in fg) compares equal as text

    a = simulate_two_tier(w, alg, draws=draws, seed=7)
    b = simulate_two_tier(w, alg, draws=draws, seed=np.random.default_rng(7))
    assert dump(a) == dump(b)


def test_job_draws_are_common_random_numbers():
    # draws='job' are made at submission, so the algorithms see the same loss and rho
    w = lublin(200, 16, 0.8, 5)
    a = simulate_two_tier(w, "KEASY", seed=4)
    b = simulate_two_tier(w, "KEASY", seed=4, migration_cost=999.0)  # no effect on KEASY
    assert a.end.tolist() == b.end.tolist()
    c = simulate_two_tier(w, "KEASY", seed=5)
    assert a.end.tolist() != c.end.tolist()


@given(two_tier_workloads(feedback=True), st.sampled_from(ALGS), st.sampled_from(DRAWS))
def test_feedback_submits_after_the_preceding_job(w, alg, draws):
    r = simulate_two_tier(w, alg, draws=draws, feedback=True, seed=1, debug=True)
    _check_schedule(w.replace(submit=np.zeros(w.n_jobs)), r, alg, 20.0)
    assert (r.start >= r.submit).all()
    index = {int(i): k for k, i in enumerate(w.ids)}
    for k in np.flatnonzero(w.preceding >= 0).tolist():
        before = index[int(w.preceding[k])]
        think = 0.0 if math.isnan(w.think_time[k]) else w.think_time[k]
        assert r.submit[k] == r.end[before] + think
