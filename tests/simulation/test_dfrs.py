"""DFRS simulator: worked-out schedules, invariants on random workloads, determinism."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.instances.workload import Platform, Workload
from allockit.models.stretch_bound import stretch_bound
from allockit.simulation.dfrs import SimulationInvariantError, simulate_dfrs
from allockit.simulation.dfrs_checks import check_invariants
from allockit.simulation.dfrs_priority import by_priority, first_by_priority, priority_key
from allockit.simulation.dfrs_state import FINISHED, WAITING, DfrsState
from allockit.simulation.names import TABLE1 as TABLE1_NAMES

GIB = 2 * 1024**3

TABLE1 = list(TABLE1_NAMES)
VARIANTS = [
    "GreedyPM */per/opt=min/minvt=600",
    "GreedyP */per/opt=avg/minft=300",
    "MCB8 */opt=min/minvt=300",
    "/stretch-per/opt=max/minvt=600",
    "/stretch-per/opt=avg",
]


def W(nodes, submit, runtime, tasks, cpu, mem):
    return Workload.from_jobs(
        Platform(nodes=nodes), submit=submit, runtime=runtime, tasks=tasks, cpu=cpu, mem=mem
    )


# ---------------------------------------------------------------- worked-out schedules
def test_greedy_postpones_a_job_that_does_not_fit():
    # one node; B (memory 0.6) cannot join A (0.6): it starts when A completes
    w = W(1, [0, 10], [100, 50], [1, 1], [1.0, 1.0], [0.6, 0.6])
    r = simulate_dfrs(w, "Greedy *", debug=True)
    assert r.start.tolist() == [0, 100] and r.end.tolist() == [100, 150]
    assert r.stretch.tolist() == pytest.approx([1.0, 140 / 50])
    assert (r.preemptions, r.migrations) == (0, 0)


def test_greedyp_pauses_and_the_resume_pays_the_penalty():
    # B preempts A at 10 (A has lower priority: B has zero virtual time). On B's
    # completion at 60 A resumes (`*`), makes no progress until 360 and ends at 450.
    w = W(1, [0, 10], [100, 50], [1, 1], [1.0, 1.0], [0.6, 0.6])
    r = simulate_dfrs(w, "GreedyP *", debug=True)
    assert r.start.tolist() == [0, 10] and r.end.tolist() == pytest.approx([450, 60])
    assert (r.preemptions, r.migrations) == (1, 0)
    assert r.job_preemptions.tolist() == [1, 0]
    assert r.bytes_moved == pytest.approx(2 * 0.6 * GIB)  # saved, then restored
    no_penalty = simulate_dfrs(w, "GreedyP *", penalty=0, debug=True)
    assert no_penalty.end.tolist() == pytest.approx([150, 60])


def test_greedypm_migrates_instead_of_pausing():
    # 2 nodes. A (mem 0.5) starts on node 0 at 0, X (mem 0.4) on node 1 at 1. B (mem 0.7)
    # fits nowhere at 2: A has the lowest priority (2/2² < 1/1²) and is marked; B takes
    # node 0 and A moves to node 1 (penalty until 302), sharing it with X at yield 1/2.
    # X ends at 2 + 999/0.5 = 2000; A then has 2 + 0.5 * 1698 = 851 s done and ends at
    # 2149. GreedyP pauses A instead.
    w = W(2, [0, 1, 2], [1000, 1000, 100], [1, 1, 1], [1.0] * 3, [0.5, 0.4, 0.7])
    r = simulate_dfrs(w, "GreedyPM *", debug=True)
    assert r.end.tolist() == pytest.approx([2149, 2000, 102])
    assert r.job_migrations.tolist() == [1, 0, 0] and r.preemptions == 0
    assert r.bytes_moved == pytest.approx(2 * 0.5 * GIB)
    assert r.stretch.tolist() == pytest.approx([2.149, 1.999, 1.0])
    paused = simulate_dfrs(w, "GreedyP *", debug=True)
    assert paused.job_preemptions.tolist() == [1, 0, 0] and paused.migrations == 0


def test_periodic_only_waits_for_the_first_tick():
    w = W(1, [0], [100], [1], [1.0], [0.1])
    r = simulate_dfrs(w, "/per", debug=True)
    assert (r.start[0], r.end[0]) == (600, 700)
    r = simulate_dfrs(w, "/per", period=50, debug=True)
    assert (r.start[0], r.end[0]) == (50, 150)


def test_opt_min_and_opt_avg_share_a_node_differently():
    # Greedy maps A (cpu 1) and C (0.4) on node 0 (load 1.4), E (1) and D (0.8) on node 1
    # (load 1.8): every job gets at least 1/1.8. opt=min raises A and C together to
    # 1/1.4 (C ends at 1400); opt=avg (LP (2)) gives C yield 1 and A 0.6 (C ends at 1000).
    w = W(2, [0, 0, 0, 0], [1000] * 4, [1] * 4, [1.0, 1.0, 0.4, 0.8], [0.2] * 4)
    on_min = simulate_dfrs(w, "Greedy *", debug=True)
    on_avg = simulate_dfrs(w, "Greedy */opt=avg", debug=True)
    assert on_min.end.tolist() == pytest.approx([1400, 1800, 1400, 1800])
    assert on_avg.end[2] == pytest.approx(1000)
    assert on_avg.mean_stretch < on_min.mean_stretch


def test_minvt_keeps_young_jobs_where_they_are():
    # with an unreachable minvt, MCB8 never moves a running job (it may only pause it)
    rng = np.random.default_rng(3)
    n = 25
    w = W(
        3,
        np.sort(rng.integers(0, 3000, n)),
        rng.integers(50, 2000, n),
        rng.integers(1, 4, n),
        rng.choice([0.25, 1.0], n),
        rng.choice([0.1, 0.3, 0.5], n),
    )
    free = simulate_dfrs(w, "MCB8 */per", debug=True)
    pinned = simulate_dfrs(w, "MCB8 */per/minvt=1e9", debug=True)
    assert free.migrations > 0
    assert pinned.migrations == 0


def test_debug_checks_can_fail():
    w = W(1, [0, 0], [100, 100], [1, 1], [1.0, 1.0], [0.4, 0.4])
    sim = DfrsState(w, penalty=300.0, debug=True)
    sim.submit(0)
    sim.submit(1)
    sim.start_job(0, np.array([0]), 0.0)
    sim.start_job(1, np.array([0]), 0.0)
    sim.yields[[0, 1]] = 0.8  # 160 % of the node's CPU
    with pytest.raises(SimulationInvariantError, match="CPU over 100"):
        check_invariants(sim, 0.0)
    sim.yields[[0, 1]] = 0.5
    check_invariants(sim, 0.0)
    sim.mem_used[0] = 0.0  # bookkeeping no longer matches the placement
    with pytest.raises(SimulationInvariantError, match="drifted"):
        check_invariants(sim, 0.0)


def test_bad_input_is_named():
    w = W(2, [0], [10], [5], [1.0], [0.6])
    with pytest.raises(InvalidInputError, match=r"job 1 needs 5 tasks of memory 0\.6"):
        simulate_dfrs(w, "Greedy *")
    ok = W(2, [0], [10], [1], [1.0], [0.6])
    with pytest.raises(InvalidInputError, match="penalty"):
        simulate_dfrs(ok, "Greedy *", penalty=-1)
    with pytest.raises(InvalidInputError, match="period"):
        simulate_dfrs(ok, "Greedy */per", period=0)
    with pytest.raises(InvalidInputError, match=r"penalty must be .*; got True"):
        simulate_dfrs(ok, "Greedy *", penalty=True)  # (a bool is not a number of seconds)
    with pytest.raises(InvalidInputError, match=r"period must be .*; got True"):
        simulate_dfrs(ok, "Greedy */per", period=True)
    with pytest.raises(InvalidInputError, match="valid names"):
        simulate_dfrs(ok, "Greedy/weekly")
    with pytest.raises(InvalidInputError, match="batch"):
        simulate_dfrs(ok, "EASY")


# ---------------------------------------------------------------- properties
@st.composite
def workloads(draw):
    nodes = draw(st.integers(1, 4))
    n = draw(st.integers(1, 9))
    submit = sorted(draw(st.integers(0, 3000)) for _ in range(n))
    runtime = [draw(st.integers(1, 2500)) for _ in range(n)]
    mem = [draw(st.sampled_from([0.0, 0.1, 0.3, 0.45, 0.8])) for _ in range(n)]
    tasks = [
        draw(st.integers(1, nodes * (int(1 / m) if m else 3) if m < 0.5 else nodes)) for m in mem
    ]
    cpu = [draw(st.sampled_from([0.25, 0.5, 1.0])) for _ in range(n)]
    return W(nodes, submit, runtime, tasks, cpu, mem)


def _check_schedule(w, r):
    n = w.n_jobs
    assert np.isfinite(r.end).all() and np.isfinite(r.start).all()
    assert (r.start >= w.submit).all() and (r.end >= r.start + w.runtime * (1 - 1e-9)).all()
    # every job's progress, integrated from the recorded segments, is exactly its work
    done = np.zeros(n)
    for job, t0, t1, y, useful in r.extra["segments"]:
        assert 0 <= useful <= t1 - t0 + 1e-9 and 0 <= y <= 1 + 1e-9
        assert w.submit[job] <= t0 + 1e-9 and t1 <= r.end[job] + 1e-6
        done[job] += y * useful
    assert done == pytest.approx(w.runtime, rel=1e-7)
    assert (r.stretch >= 1 - 1e-9).all()
    bound = stretch_bound(w).value
    assert r.max_stretch >= bound * (1 - 1e-6)
    assert (r.job_preemptions >= 0).all() and r.preemptions == r.job_preemptions.sum()


@pytest.mark.parametrize("name", TABLE1 + VARIANTS)
@settings(max_examples=25, deadline=None)
@given(w=workloads(), penalty=st.sampled_from([0, 300]), period=st.sampled_from([300, 700]))
def test_every_scheduler_keeps_the_invariants(name, w, penalty, period):
    # debug=True checks memory, CPU (<= 100 % per node) and progress after every event
    r = simulate_dfrs(w, name, debug=True, record=True, period=period, penalty=penalty)
    _check_schedule(w, r)


@settings(max_examples=15, deadline=None)
@given(w=workloads(), name=st.sampled_from(TABLE1 + VARIANTS))
def test_same_workload_same_result(w, name):
    a = simulate_dfrs(w, name)
    b = simulate_dfrs(w, name)
    for field in ("start", "end", "stretch", "job_preemptions", "job_migrations"):
        assert np.array_equal(getattr(a, field), getattr(b, field))
    assert a.underutilization == b.underutilization and a.timeline.tolist() == b.timeline.tolist()


def test_underutilization_matches_direct_integration():
    rng = np.random.default_rng(7)
    n = 30
    w = W(
        4,
        np.sort(rng.integers(0, 5000, n)),
        rng.integers(10, 3000, n),
        rng.integers(1, 5, n),
        rng.choice([0.25, 1.0], n),
        rng.choice([0.1, 0.3, 0.6], n),
    )
    r = simulate_dfrs(w, "GreedyPM */per/minvt=600", record=True, debug=True)
    useful = sum(y * u * w.cpu[j] * w.tasks[j] for j, _, _, y, u in r.extra["segments"])
    # demand: CPU needs of jobs present; integrate min(P, D) on a fine event grid
    times = np.unique(np.concatenate([w.submit, r.end]))
    need = w.cpu * w.tasks
    area = 0.0
    for t0, t1 in itertools.pairwise(times):
        present = (w.submit <= t0) & (r.end > t0)
        area += min(4.0, need[present].sum()) * (t1 - t0)
    assert r.underutilization == pytest.approx(area - useful, rel=1e-9, abs=1e-6)
    assert useful == pytest.approx(float(w.work().sum()), rel=1e-9)


# ---------------------------------------------------------------- CLI
def test_simulate_cli_runs_dfrs(tmp_path, capsys):
    import csv
    import json

    from allockit.cli import main

    args = ["workload", "lublin", "--jobs", "60", "--nodes", "8", "--seed", "4", "--load", "0.9"]
    assert main(args) == 0
    path = tmp_path / "w.swf"
    path.write_text(capsys.readouterr().out)
    name = "GreedyPM */per/opt=min/minvt=600"
    out_csv, plots = tmp_path / "jobs.csv", tmp_path / "plots"
    argv = ["simulate", str(path), "--nodes", "8", "--algorithm", name, "--penalty", "100"]
    argv += ["--period", "900", "--jobs-csv", str(out_csv), "--plot", str(plots), "--bound"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    for key in ("max_stretch", "mean_stretch", "underutilization", "preemptions", "migrations"):
        assert key in summary
    assert summary["algorithm"] == name and summary["jobs"] == 60
    assert summary["degradation"] >= 1 - 1e-6 and summary["bound"] >= 1
    assert summary["preemptions_per_hour"] >= 0 and summary["bandwidth_bytes_per_s"] >= 0
    with open(out_csv) as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 60
    assert {"id", "submit", "start", "end", "stretch", "preemptions", "migrations"} <= set(rows[0])
    assert sum(int(r["migrations"]) for r in rows) == summary["migrations"]
    assert sorted(p.name for p in plots.iterdir()) == ["stretch.png", "utilization.png"]
    # bandwidth scales with the node memory
    assert main([*argv[:8], "--period", "900", "--node-memory", "4"]) == 0
    doubled = json.loads(capsys.readouterr().out)
    assert doubled["migrations"] == summary["migrations"]
    assert doubled["bandwidth_bytes_per_s"] == pytest.approx(2 * summary["bandwidth_bytes_per_s"])
    # the options reach the simulator: another penalty, another schedule
    assert main([*argv[:6], "--penalty", "1000", "--period", "900"]) == 0
    assert json.loads(capsys.readouterr().out)["max_stretch"] != summary["max_stretch"]
    with pytest.raises(SystemExit) as exc:
        main(["simulate", str(path), "--algorithm", name, "--penalty=-1"])
    assert exc.value.code == 2 and "--penalty" in capsys.readouterr().err
    assert main(["simulate", str(path), "--algorithm", "MCB8"]) == 2
    assert "needs ' *' or '/per'" in capsys.readouterr().err


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dfrs_beats_easy_by_orders_of_magnitude(seed):
    # the paper's headline (Sec. 6.1), on small synthetic traces at load 0.8
    from allockit.instances.lublin import dfrs_synthetic
    from allockit.simulation.simulate import simulate

    w = dfrs_synthetic(150, nodes=32, load=0.8, seed=seed)
    bound = stretch_bound(w).value
    easy = simulate(w, "EASY").max_stretch / bound
    best = simulate(w, "GreedyPM */per/opt=min/minvt=600").max_stretch / bound
    assert easy > 100 * best and best >= 1 - 1e-6


@settings(max_examples=20, deadline=None)
@given(w=workloads(), name=st.sampled_from(["MCB8 */per", "/stretch-per", "GreedyP/per"]))
def test_memory_prefix_shortcut_changes_nothing(w, name):
    # MCB8 skips job prefixes whose total memory cannot fit; dropping jobs one by one
    # (the paper's procedure) must give the same schedule
    import unittest.mock

    from allockit.simulation import dfrs_policies

    fast = simulate_dfrs(w, name)
    with (
        unittest.mock.patch.object(dfrs_policies, "memory_prefix", lambda state, jobs: len(jobs)),
        unittest.mock.patch.object(dfrs_policies.Mcb8Policy, "fused", False),
    ):
        slow = simulate_dfrs(w, name)
    assert np.array_equal(fast.end, slow.end) and fast.migrations == slow.migrations


_EVENT = {
    "advance_kernel", "residue_kernel", "completion_kernel", "cpu_in_use_kernel", "fits_kernel",
    "view_sync_kernel", "view_vt_kernel", "index_rows_kernel",
}


@pytest.mark.parametrize(
    ("algorithm", "kernels"),
    [
        ("MCB8 */opt=min",
         {"mcb8_largest_yield_kernel", "mcb8_memory_prefix_kernel", "maxmin_dense_kernel",
          "maxmin_rows_kernel", "apply_kernel", "mcb8_remap_kernel", *_EVENT}),
        ("Greedy */opt=min",
         {"greedy_fill_kernel", "greedy_submit_kernel", "greedy_waiting_kernel", "start_kernel",
          "maxmin_dense_kernel", "maxmin_rows_kernel", *_EVENT}),
        ("GreedyPM */per/opt=min/minvt=600",
         {"greedy_fill_kernel", "greedy_submit_kernel", "greedy_mark_kernel",
          "greedy_waiting_kernel", "start_kernel", "mcb8_largest_yield_kernel",
          "mcb8_memory_prefix_kernel", "maxmin_dense_kernel", "maxmin_rows_kernel",
          "apply_kernel", "mcb8_remap_kernel",
          *_EVENT}),
        ("GreedyP */opt=avg", {"greedy_fill_kernel", "greedy_submit_kernel",
                                "greedy_mark_kernel", "greedy_waiting_kernel", "start_kernel",
                                "avg_lp_rows_kernel", *_EVENT}),
        ("/stretch-per/opt=max/minvt=600",
         {"mcb_fill_kernel", "mcb8_memory_prefix_kernel", "apply_kernel",
          "mcb8_stretch_remap_kernel", "indexed_weights_kernel", *_EVENT}),
    ],
)
def test_kernels_load_before_the_clock_and_their_time_is_setup_seconds(
    monkeypatch, algorithm, kernels
):
    # the first MCB8 call used to carry the kernel loading (0.3-0.7 s of a 1 ms call)
    import allockit.simulation.allocation_kernels
    import allockit.simulation.dfrs_kernels  # noqa: F401 - (imported: no import time)
    from allockit.heuristics import common

    loaded = []

    def fake_load(*names):
        loaded.append(set(names))
        return 0.125

    monkeypatch.setattr(common, "load_kernels", fake_load)
    w = Workload.from_jobs(Platform(nodes=2), submit=[0, 10, 20], runtime=[100, 50, 80],
                           tasks=[1, 2, 1], cpu=[0.5, 1.0, 0.25], mem=[0.2, 0.3, 0.4])
    result = simulate_dfrs(w, algorithm)
    assert loaded == [kernels]
    assert result.summary()["setup_seconds"] == 0.125
    assert result.seconds >= 0


def _naive_start_waiting(self, state, now):
    # the rule as stated: every waiting job, by decreasing priority, started if it fits
    for j in by_priority(state, state.waiting, now):
        self.try_start(state, j, now)


def _naive_remap_leaders(state, now):
    from allockit.simulation.dfrs_policies import memory_prefix

    jobs = by_priority(state, state.running | state.waiting, now)
    return len(jobs), jobs[: memory_prefix(state, jobs)]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), chunk=st.sampled_from([1, 2, 64]), algorithm=st.sampled_from(
    ["Greedy */opt=min", "GreedyP */opt=min", "GreedyPM */per/opt=min/minvt=600",
     "MCB8 */opt=min", "/stretch-per/opt=max/minvt=600", "GreedyPM */per/opt=avg/minft=300"]))
def test_backlog_shortcuts_start_the_same_jobs_as_the_plain_rules(seed, chunk, algorithm):
    # the long-backlog speed-ups (start_waiting by job shape, chunks of the priority
    # order each tried in one compiled call, MCB8 sorting only the start of the order,
    # MCB8's drop loop counting memory sizes) must never change a schedule: compare
    # with the plain rules on backlogged workloads with many equal keys
    from allockit.simulation import dfrs_policies

    rng = np.random.default_rng(seed)
    n = 80
    w = Workload.from_jobs(
        Platform(nodes=3),
        submit=np.sort(rng.choice([0, 10, 500, 1_000, 1_500], n)).tolist(),
        runtime=rng.choice([60, 600, 2_000], n).tolist(),
        tasks=rng.integers(1, 4, n).tolist(),
        cpu=rng.choice([0.25, 0.5, 1.0], n).tolist(),
        mem=rng.choice([0.0, 0.05, 0.1, 0.3, 0.6], n).tolist(),
    )
    fast = simulate_dfrs(w, algorithm, debug=True, period=300.0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dfrs_policies.GreedyPolicy, "start_waiting", _naive_start_waiting)
        mp.setattr(dfrs_policies.Mcb8Policy, "_leaders", staticmethod(_naive_remap_leaders))
        mp.setattr(dfrs_policies, "_memory_fit", lambda state, keep, pinned: len(keep))
        mp.setattr(dfrs_policies.Mcb8Policy, "fused", False)  # (the Python steps)
        plain = simulate_dfrs(w, algorithm, debug=True, period=300.0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dfrs_policies, "_CHUNK", chunk)
        chunked = simulate_dfrs(w, algorithm, debug=True, period=300.0)
    for r in (fast, chunked):
        assert (r.start.tolist(), r.end.tolist()) == (plain.start.tolist(), plain.end.tolist())
        assert r.job_preemptions.tolist() == plain.job_preemptions.tolist()
        assert r.job_migrations.tolist() == plain.job_migrations.tolist()
        assert (r.preemption_bytes, r.migration_bytes) == (plain.preemption_bytes,
                                                           plain.migration_bytes)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), count=st.integers(1, 40))
def test_first_by_priority_is_the_start_of_the_full_order(seed, count):
    # exactly the first `count` of the stable order: ties at the cut are taken by
    # position, and the rest come after; the compiled twin takes the same jobs
    from allockit.simulation.dfrs_kernels import _first_taken

    rng = np.random.default_rng(seed)
    jobs = np.sort(rng.choice(1_000, int(rng.integers(1, 40)), replace=False))
    keys = rng.choice([-np.inf, -3.0, -1.0, -1.0, 0.0, 2.5], jobs.size)
    full = jobs[np.argsort(keys, kind="stable")].tolist()
    first, rest = first_by_priority(jobs, keys, count)
    assert first.tolist() == full[: min(count, jobs.size)]
    if rest is None:
        assert first.size == jobs.size
    else:
        assert jobs[rest].tolist() == sorted(full[first.size :])
        assert keys[rest].min() >= keys[np.isin(jobs, first)].max()
    compiled, taken = _first_taken(jobs, keys, count)
    assert compiled.tolist() == first.tolist()
    assert taken.tolist() == (np.ones(jobs.size, bool) if rest is None else ~rest).tolist()


def test_first_by_priority_takes_no_nan_keys():
    from allockit.simulation.dfrs_kernels import _first_taken

    jobs, keys = np.array([1, 2, 3]), np.array([np.nan, -1.0, np.nan])
    first, rest = first_by_priority(jobs, keys, 2)
    assert first.tolist() == [] and rest.tolist() == [True, True, True]
    assert _first_taken(jobs, keys, 2)[0].tolist() == []
    assert first_by_priority(jobs, keys, 1)[0].tolist() == [2]


def test_a_period_that_needs_too_many_remaps_is_refused_before_the_run():
    # one job of 1e9 s with a 1 s period would run a billion MCB8 remaps (a hang)
    from allockit.constants import MAX_PERIODS

    w = Workload.from_jobs(Platform(nodes=1), submit=[0, 5e9], runtime=[1e9, 1e9],
                           tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.1, 0.1])
    with pytest.raises(InvalidInputError, match=r"jobs are in the system for at least 2e\+09 s.*"
                       r"use a period of at least 200 s"):
        simulate_dfrs(w, "GreedyP */per/opt=min", period=1.0)
    # the gap between the two jobs does not count: 2e9 s of work, 1e7 periods of 200 s
    assert MAX_PERIODS == 10_000_000
    with pytest.raises(InvalidInputError, match="period"):
        simulate_dfrs(w, "MCB8/per/opt=min", period=199.0)
    # without a period the same workload runs
    assert simulate_dfrs(w, "Greedy *").end.tolist() == [1e9, 6e9]


def test_a_run_that_reaches_the_period_cap_stops_with_a_clear_error(monkeypatch):
    from allockit.simulation import dfrs

    monkeypatch.setattr(dfrs, "MAX_PERIODS", 3)
    w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[100, 100],
                           tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.6, 0.6])
    # the jobs are surely there for 100 s (2.5 periods of 40 s: accepted), but only one
    # fits at a time, so the run lasts 200 s and needs more than 3 periods
    with pytest.raises(InvalidInputError, match=r"reached 3 periods of 40 s"):
        simulate_dfrs(w, "Greedy/per/opt=min", period=40.0, penalty=0.0)
    monkeypatch.setattr(dfrs, "MAX_PERIODS", 6)
    r = simulate_dfrs(w, "Greedy/per/opt=min", period=40.0, penalty=0.0)  # 6 periods: runs
    assert r.status == "completed" and r.end.max() >= 200


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), fill=st.floats(0.0, 1.0))
def test_fit_mask_is_exactly_fits_for_every_job(seed, fill):
    # the array test that prunes start_waiting's list must agree with DfrsState.fits
    # (its quick necessary conditions may only skip the per-node count, never decide
    # differently), including memories at node-fraction boundaries
    from allockit.simulation.dfrs_policies import _fit_mask

    rng = np.random.default_rng(seed)
    n, nodes = 60, int(rng.integers(1, 9))
    mem = rng.choice([0.0, 0.05, 0.1, 0.125, 0.2, 0.25, 1 / 3, 0.5, 0.6, 1.0], n)
    w = Workload.from_jobs(Platform(nodes=nodes), submit=[0] * n, runtime=[10] * n,
                           tasks=rng.integers(1, 2 * nodes + 1, n).tolist(),
                           cpu=[0.5] * n, mem=mem.tolist())
    state = DfrsState(w, penalty=0.0)
    used = rng.choice([0.0, 0.25, 0.5, 0.75, 0.8, 0.9, 1.0], nodes) * fill
    state.mem_used[:] = np.minimum(1.0, used + rng.choice([0.0, 1e-12, -1e-12], nodes))
    jobs = np.arange(n)
    expected = [state.fits(int(j), 1.0 - state.mem_used) for j in jobs]
    assert _fit_mask(state, state.mem[jobs], state.tasks[jobs]).tolist() == expected


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_by_priority_orders_as_the_three_key_sort(seed):
    # zero virtual time first, then flow/vt^2 decreasing, ties by job index; equal keys
    # and tiny virtual times included (the single stable sort must not reorder them)
    rng = np.random.default_rng(seed)
    n = 40
    w = Workload.from_jobs(Platform(nodes=2), submit=rng.choice([0.0, 5.0, 10.0], n).tolist(),
                           runtime=[10] * n, tasks=[1] * n, cpu=[0.5] * n, mem=[0.1] * n)
    state = DfrsState(w, penalty=0.0)
    state.vt[:] = rng.choice([0.0, 1e-200, 1.0, 2.0, 4.0], n)
    jobs = rng.permutation(n)[: int(rng.integers(0, n + 1))].tolist()
    now = 20.0
    arr = np.asarray(jobs, dtype=np.int64)
    vt = state.vt[arr]
    with np.errstate(divide="ignore", invalid="ignore"):
        key = np.where(vt > 0, -(now - state.submit_time[arr]) / (vt * vt), 0.0)
    expected = arr[np.lexsort((arr, key, vt > 0))].tolist()
    assert by_priority(state, jobs, now) == expected


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(0, 40), hosts=st.integers(1, 6))
def test_the_compiled_mcb8_bisection_is_largest_target_over_mcb_fill(seed, n, hosts):
    # DFRS's MCB8 runs the whole yield search in one compiled call; it must give the
    # placement of the Python search it replaced (mcb_fill at y * cpu on hosts whose
    # pinned tasks use y * base_load) for every outcome: no packing, yield hi, bisection
    from allockit.constants import MEM_EPS, YIELD_ACCURACY
    from allockit.heuristics.mcb import largest_target, mcb_fill
    from allockit.simulation.dfrs_kernels import mcb8_largest_yield_kernel

    rng = np.random.default_rng(seed)
    cpu = rng.choice([0.25, 0.5, 1.0], n)
    mem = rng.choice([0.0, 0.05, 0.1, 0.3, 0.6], n)
    base_load = rng.choice([0.0, 0.0, 0.5, 1.0, 1.5], hosts)
    free_mem = 1.0 - rng.choice([0.0, 0.0, 0.2, 0.5, 0.9], hosts)
    hi = float(rng.choice([1.0, 0.7, 0.33]))

    def pack(target):
        free_cpu = 1.0 - target * base_load
        if (free_cpu < -MEM_EPS).any():
            return None
        return mcb_fill(target * cpu, mem, free_cpu, free_mem)

    expected = largest_target(pack, hi, lambda lo, hi: hi - lo < YIELD_ACCURACY, zero_first=True)
    found, placed = mcb8_largest_yield_kernel(cpu, mem, base_load, free_mem, hi, YIELD_ACCURACY)
    assert found == (expected is not None)
    if found:
        assert placed.tolist() == expected.tolist()
        # told that yield 0 packs (the drop loop found it), the same answer
        again = mcb8_largest_yield_kernel(cpu, mem, base_load, free_mem, hi, YIELD_ACCURACY, True)
        assert again[0] and again[1].tolist() == expected.tolist()


def test_priority_key_of_a_virtual_time_whose_square_underflows():
    # IEEE division as the vectorised keys: -inf after a positive flow, no RuntimeWarning
    import warnings

    w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0, 5], runtime=[10] * 3,
                           tasks=[1] * 3, cpu=[1.0] * 3, mem=[0.1] * 3)
    state = DfrsState(w, penalty=0.0)
    state.vt[:] = [1e-200, 1e-100, 1e-160]  # (1e-160: a square that is subnormal, not 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        keys = [priority_key(state, j, 5.0) for j in range(3)]
        assert keys[0] == (1, -math.inf, 0)
        assert keys[1][1] == -5.0 / (1e-100 * 1e-100)  # (finite: no underflow)
        assert keys[2] == (1, -0.0, 2)  # (no flow yet)
        assert priority_key(state, 2, 6.0) == (1, -math.inf, 2)  # (overflow: -inf)
        state.vt[2] = 1e-200
        assert math.isnan(priority_key(state, 2, 5.0)[1])  # (0/0, as numpy gives)
    assert by_priority(state, [2, 1, 0], 6.0) == [0, 2, 1]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_lower_priority_is_the_key_comparison(seed):
    # GreedyP pauses the running jobs whose priority_key exceeds the new job's, by
    # increasing priority; the vectorised list must be exactly that one
    from allockit.simulation.dfrs_policies import lower_priority

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    w = Workload.from_jobs(Platform(nodes=4), submit=np.sort(rng.choice([0, 5, 50], n)).tolist(),
                           runtime=[100] * n, tasks=[1] * n, cpu=[0.5] * n, mem=[0.1] * n)
    state = DfrsState(w, penalty=0.0)
    state.vt[:] = rng.choice([0.0, 0.0, 1.0, 2.0, 1e-200, 3.0], n)
    state.running.update(int(r) for r in np.flatnonzero(rng.random(n) < 0.7))
    j, now = int(rng.integers(0, n)), 60.0
    # (vt = 1e-200: vt^2 underflows, the key is -inf, without a numpy warning)
    mine = priority_key(state, j, now)
    expected = [r for r in state.running if priority_key(state, r, now) > mine]
    expected.sort(key=lambda r: priority_key(state, r, now), reverse=True)
    assert lower_priority(state, j, now) == expected


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(0, 12))
def test_add_rows_kernel_is_numpy_one_row_at_a_time(seed, k):
    # DfrsState.apply adds up its loads in one compiled call: bit for bit the numpy
    # updates it replaced (each product rounded, then added, in order)
    from allockit.simulation.dfrs_kernels import add_rows_kernel

    rng = np.random.default_rng(seed)
    nodes = int(rng.integers(1, 8))
    mem_used, load = rng.random(nodes), rng.random(nodes) * 3
    rows = rng.integers(0, 4, (k, nodes)).astype(float)
    mem, cpu = rng.random(k) / 3, rng.choice([0.1, 0.3, 0.7, 1.0], k)
    sign = rng.choice([-1.0, 1.0], k)
    expect_mem, expect_load = mem_used.copy(), load.copy()
    for i in range(k):
        if sign[i] > 0:
            expect_mem += rows[i] * mem[i]
            expect_load += rows[i] * cpu[i]
        else:
            expect_mem -= rows[i] * mem[i]
            expect_load -= rows[i] * cpu[i]
    add_rows_kernel(mem_used, load, rows.reshape(k, nodes), mem, cpu, sign)
    assert mem_used.tolist() == expect_mem.tolist() and load.tolist() == expect_load.tolist()


def test_a_run_compiles_no_kernel_signature_its_warm_up_left_out():
    # the simulator loads its kernels before the clock (setup_seconds); a call with
    # other argument types (an omitted default, another dtype, a read-only array) would
    # compile or load a new signature inside the timed run (a 1 s "slowest MCB8 call").
    # Every call of a run must have the types of the kernel's warm-up inputs (checked
    # call by call: counting compiled signatures passes when an earlier test compiled
    # the other signature already)
    import numba

    from allockit.heuristics import greedy_kernels
    from allockit.heuristics.common import load_kernels
    from allockit.heuristics.kernel_setup import _INPUTS
    from allockit.simulation import allocation_kernels, dfrs_event_kernels, dfrs_kernels

    names = ["mcb8_largest_yield_kernel", "mcb8_memory_prefix_kernel", "maxmin_rows_kernel",
             "apply_kernel", "greedy_submit_kernel", "greedy_waiting_kernel",
             "mcb8_remap_kernel", "mcb8_stretch_remap_kernel", "start_kernel",
             # (DfrsState.fits is for users' policies: the built-in ones count inside
             # their kernels)
             *sorted(_EVENT - {"fits_kernel"})]
    load_kernels(*names)  # (before the spies: kernels calling kernels are typed now)
    modules = (dfrs_kernels, dfrs_event_kernels, allocation_kernels, greedy_kernels)
    where = {name: next(m for m in modules if hasattr(m, name)
                        and getattr(m, name).py_func.__module__ == m.__name__)
             for name in names}
    warm = {name: tuple(numba.typeof(a) for a in _INPUTS[name][1]()) for name in names}
    seen: dict[str, set] = {name: set() for name in names}

    def spy(name, kernel):
        def call(*args):
            seen[name].add(tuple(numba.typeof(a) for a in args))
            return kernel(*args)

        return call

    rng = np.random.default_rng(3)
    n = 60
    w = Workload.from_jobs(Platform(nodes=4), submit=np.sort(rng.integers(0, 3_000, n)).tolist(),
                           runtime=rng.integers(100, 4_000, n).tolist(),
                           tasks=rng.integers(1, 4, n).tolist(),
                           cpu=rng.choice([0.5, 1.0], n).tolist(),
                           mem=rng.choice([0.1, 0.3, 0.6], n).tolist())
    with pytest.MonkeyPatch.context() as mp:
        for name in names:
            mp.setattr(where[name], name, spy(name, getattr(where[name], name)))
        for algorithm in ("GreedyPM */per/opt=min/minvt=600", "MCB8 */opt=min",
                          "Greedy */opt=min", "/stretch-per/opt=max/minvt=600"):
            simulate_dfrs(w, algorithm, period=300.0)
        simulate_dfrs(w, "MCB8 */opt=min", hold=600.0)  # (MCB8's Python steps)
    assert all(seen.values()), [name for name in names if not seen[name]]
    assert {name: seen[name] - {warm[name]} for name in names} == {name: set() for name in names}


def _memory_prefix_by_packing(pinned, index, tasks, mem, pinned_rows):
    # the drop loop as stated: pack each prefix (longest first) with MCB8 at yield 0
    # around the pinned jobs, tasks in job index order; the first that packs
    from allockit.heuristics.mcb import mcb_fill

    nodes = pinned_rows.shape[1]
    for k in range(len(pinned), 0, -1):
        base_mem = np.zeros(nodes)
        p = 0
        for i in range(k):
            if pinned[i]:
                base_mem += pinned_rows[p] * mem[i]
                p += 1
        movable = sorted((i for i in range(k) if not pinned[i]), key=lambda i: index[i])
        mem_t = np.repeat(mem[movable], tasks[movable]) if movable else np.zeros(0)
        if mcb_fill(np.zeros(mem_t.size), mem_t, np.ones(nodes), 1.0 - base_mem) is not None:
            return k
    return 0


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(0, 25), nodes=st.integers(1, 6))
def test_the_memory_prefix_kernel_is_the_drop_loop_of_packings(seed, n, nodes):
    # the kernel counts tasks per memory size instead of packing every prefix: it must
    # find the same prefix as packing each one, with pinned jobs, equal sizes, tiny
    # and zero memories and nearly full nodes
    from allockit.simulation.dfrs_kernels import mcb8_memory_prefix_kernel

    rng = np.random.default_rng(seed)
    mem = rng.choice([0.0, 1e-13, 0.05, 0.1, 0.2, 0.25, 1 / 3, 0.3, 0.5, 0.6, 0.7, 1.0], n)
    tasks = rng.integers(1, 2 * nodes + 1, n)
    pinned = rng.random(n) < 0.3
    index = rng.permutation(1_000)[:n].astype(np.int64)
    rows = np.zeros((int(pinned.sum()), nodes))
    for p, i in enumerate(np.flatnonzero(pinned)):
        rows[p] = np.bincount(rng.integers(0, nodes, tasks[i]), minlength=nodes)
    expected = _memory_prefix_by_packing(pinned, index, tasks, mem, rows)
    got = mcb8_memory_prefix_kernel(pinned, index, tasks, mem, rows)
    assert got == expected


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_apply_on_arrays_is_the_job_by_job_bookkeeping(seed):
    # apply moves every job at once; it must leave the state exactly as releasing the
    # leaving jobs (index order), pausing or re-placing them, then starting the waiting
    # ones (index order) one at a time: counts, bytes, loads bit for bit, rows kept
    import copy

    rng = np.random.default_rng(seed)
    n, nodes = int(rng.integers(1, 40)), int(rng.integers(1, 5))
    tasks = rng.integers(1, 4, n)
    w = Workload.from_jobs(Platform(nodes=nodes), submit=[0] * n, runtime=[100] * n,
                           tasks=tasks.tolist(), cpu=rng.choice([0.3, 0.5, 1.0], n).tolist(),
                           mem=rng.choice([0.01, 0.1, 0.13, 0.2], n).tolist())
    state = DfrsState(w, penalty=50.0)

    def random_row(j):
        return np.bincount(rng.integers(0, nodes, tasks[j]), minlength=nodes).astype(float)

    for j in range(n):
        state.submit(j)
        if rng.random() < 0.6:
            state.start_job(j, None, 1.0, random_row(j))
            state.yields[j] = rng.choice([0.25, 0.5, 1.0])
            if rng.random() < 0.3:  # paused since: its last row is kept
                state.release(j)
                state.pause_job(j)
            elif rng.random() < 0.2:  # finished: its row goes back to the pool
                state.finish_job(j, 2.0)
    mapped = np.flatnonzero((rng.random(n) < 0.6) & (state.status != FINISHED))
    rows = np.array([
        state.row(j).copy() if j in state.running and rng.random() < 0.4 else random_row(j)
        for j in mapped
    ]).reshape(mapped.size, nodes)
    fast, slow = state, copy.deepcopy(state)
    fast.apply(mapped, rows, 7.0)
    new = dict(zip(mapped.tolist(), rows, strict=True))
    leave = [j for j in sorted(slow.running) if j not in new or (new[j] != slow.row(j)).any()]
    for j in leave:
        slow.release(j)
    for j in leave:
        if j in new:
            slow.settle(j, None, 7.0, new[j])
        else:
            slow.pause_job(j)
    for j in sorted(new):
        if slow.status[j] == WAITING:
            slow.start_job(j, None, 7.0, new[j])
    for name in ("status", "n_preempt", "n_migrate", "n_resume", "n_resume_elsewhere",
                 "penalty_until", "last_move", "start", "yields", "ever_ran", "mem_used",
                 "load", "waiting_per_shape"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name
    for name in ("bytes_preempt", "bytes_migrate", "task_preemptions", "task_migrations"):
        assert getattr(fast, name) == getattr(slow, name), name
    assert (fast.running, fast.waiting) == (slow.running, slow.waiting)
    assert fast.n_waiting == slow.n_waiting == len(fast.waiting)
    ran = np.flatnonzero(fast.ever_ran & (fast.status != FINISHED))
    assert fast.counts(ran).tolist() == slow.counts(ran).tolist()


def test_greedyp_does_not_stop_when_fits_and_greedy_disagree_by_rounding():
    # 0.2 + 0.4 + 0.3 + 0.1 = 1.0000000000000002: the node is full up to rounding. A job
    # of memory 1e-12 (MEM_EPS) fits by DfrsState.fits (memory at most MEM_EPS counts as
    # none) but not by Greedy's test (free + MEM_EPS >= mem); pausing the 0-memory job
    # frees nothing. GreedyP used to stop the run ("could not place job 5"); now the job
    # waits until memory frees (t = 1000), as with Greedy
    w = W(1, [0, 0, 0, 0, 0, 100], [1000] * 6, [1] * 6, [0.2] * 6,
          [0.2, 0.4, 0.3, 0.1, 0.0, 1e-12])
    for name in ("Greedy */opt=min", "GreedyP */opt=min", "GreedyPM */opt=min"):
        r = simulate_dfrs(w, name, debug=True)
        assert r.start.tolist() == [0, 0, 0, 0, 0, 1000] and r.preemptions == 0


def test_state_refuses_rows_of_jobs_without_one_and_bad_mappings():
    w = W(2, [0, 0], [10, 10], [1, 1], [1.0, 1.0], [0.4, 0.4])
    s = DfrsState(w, penalty=0.0)
    s.submit(0)
    s.submit(1)
    with pytest.raises(SimulationInvariantError, match="job 1 has no placement"):
        s.row(1)
    with pytest.raises(SimulationInvariantError, match="job 1 has no placement"):
        s.counts(np.array([1]))
    with pytest.raises(SimulationInvariantError, match="mapped twice"):
        s.apply(np.array([0, 0]), np.array([[1.0, 0.0], [0.0, 1.0]]), 0.0)
    with pytest.raises(SimulationInvariantError, match="job 0 has no placement"):
        s.row(0)  # (the refused mapping left nothing behind)
    assert sorted(s.waiting) == [0, 1] and s.mem_used.tolist() == [0.0, 0.0]
    pool, _ = s.rows.arrays()
    assert len(s.rows._free) == pool.shape[0]  # (every row of the pool is free again)
    with pytest.raises(SimulationInvariantError, match="shape"):
        s.apply(np.array([0]), np.array([[1.0, 0.0, 0.0]]), 0.0)
    s.apply(np.array([1]), np.array([[0.0, 1.0]]), 0.0)  # (the scratch was reset)
    assert sorted(s.running) == [1] and s.row(1).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("algorithm", ["MCB8 */per", "/stretch-per/opt=max",
                                       "GreedyPM */per/opt=min"])
def test_a_period_tick_that_rounds_onto_now_does_not_fire_forever(algorithm):
    # origin 927.42392862456: (origin + 13 * 600 - origin) / 600 is just under 13, so the
    # tick after the one at origin + 13 * 600 was scheduled at that same time, forever
    # (10 million ticks, then a misleading "use a longer period"); a fuzz found it
    from allockit.simulation.simulate import simulate

    origin = 927.42392862456
    workload = Workload.from_jobs(
        Platform(nodes=2), submit=[origin, origin + 13 * 600 - 1.0],
        runtime=[8000.0, 50.0], tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.5, 0.5])
    result = simulate(workload, algorithm)
    assert result.end[0] >= origin + 8000.0 and result.end[1] <= origin + 15 * 600
