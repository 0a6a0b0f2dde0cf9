"""The compiled per-event steps and MCB8's fused remap give the numpy code's bits.

``dfrs_event_kernels`` replaced numpy steps of ``DfrsState`` and the driver, and
``mcb8_remap_kernel`` the Python steps of ``Mcb8Policy.remap``. The references below are
the numpy code they replaced (kept here verbatim in what they compute); every output is
compared bit for bit, on random inputs and on whole simulations.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.constants import MEM_EPS
from allockit.errors import InvalidInputError
from allockit.instances.workload import Platform, Workload
from allockit.simulation import dfrs as dfrs_module
from allockit.simulation import dfrs_policies
from allockit.simulation.dfrs import simulate_dfrs
from allockit.simulation.dfrs_algorithm import FractionalPolicy
from allockit.simulation.dfrs_event_kernels import (
    advance_kernel,
    completion_kernel,
    cpu_in_use_kernel,
    fits_kernel,
    pairwise_sum,
    residue_kernel,
)
from allockit.simulation.dfrs_state import DfrsState, SimulationInvariantError

# ---------------------------------------------------------------- numpy references


def _advance_numpy(state, now):
    """``DfrsState.advance`` as it was in numpy (before the kernel)."""
    span = now - state.clock
    if span <= 0:
        return
    used = 0.0
    if state.running:
        jobs = state.running_jobs()
        useful = np.maximum(0.0, now - np.maximum(state.clock, state.penalty_until[jobs]))
        y = state.yields[jobs]
        progress = state.vt[jobs] + y * useful
        if state.debug and (progress > state.runtime[jobs] * (1 + 1e-9) + 1e-6).any():
            raise SimulationInvariantError(f"t={now}: a job progressed beyond its work")
        state.vt[jobs] = np.minimum(progress, state.runtime[jobs])
        need = y * state.cpu[jobs] * state.tasks[jobs]
        used = float((need * useful).sum())
        given_ = float(need.sum()) * span
        state.allocated_cpu_seconds += given_
        state.penalty_cpu_seconds += given_ - used
        if state.segments is not None:
            for j, u, yy in zip(jobs.tolist(), useful.tolist(), y.tolist(), strict=True):
                state.segments.append((j, state.clock, now, yy, u))
    state.under += min(state.nodes, state.demand) * span - used
    state.clock = now


def _negligible_numpy(state):
    if not state.running:
        return []
    jobs = state.running_jobs()
    work = state.runtime[jobs]
    done = work - state.vt[jobs] <= 1e-9 * np.maximum(1.0, work)
    return jobs[done].tolist()


def _cpu_in_use_numpy(state, now):
    if not state.running:
        return 0.0, 0.0
    jobs = state.running_jobs()
    need = state.yields[jobs] * state.cpu[jobs] * state.tasks[jobs]
    free = state.penalty_until[jobs] <= now
    return float(need.sum()), float(need[free].sum())


def _allocate_numpy(self, now):
    """The driver's ``allocate`` as it was in numpy."""
    state = self.state
    if not state.running:
        self.expect_done(math.inf, -1)
        return
    if not self.time_dependent and self._yields_for == state.layout:
        jobs, y = self._jobs, self._yields
    else:
        jobs, y = self.yields(now)
    state.yields[jobs] = y
    begin = np.maximum(now, state.penalty_until[jobs])
    with np.errstate(divide="ignore"):
        ends = np.where(y > 0, begin + (state.runtime[jobs] - state.vt[jobs]) / y, math.inf)
    first = int(np.argmin(ends))
    self.expect_done(float(ends[first]), int(jobs[first]))


def _fits_numpy(state, j, free):
    """``DfrsState.fits`` as it was in numpy (before the kernel)."""
    m = state.mem[j]
    if m <= MEM_EPS:
        return True
    return int(np.floor((free + MEM_EPS) / m).sum()) >= state.tasks[j]


def _numpy_steps(mp):
    """Run the simulator on the numpy references (and MCB8's Python steps)."""
    mp.setattr(dfrs_module._Driver, "yields_from_rows", False)  # the counts matrix's yields
    mp.setattr(DfrsState, "fits", _fits_numpy)
    mp.setattr(DfrsState, "advance", _advance_numpy)
    mp.setattr(DfrsState, "negligible", _negligible_numpy)
    mp.setattr(DfrsState, "cpu_in_use", _cpu_in_use_numpy)
    mp.setattr(dfrs_module._Driver, "allocate", _allocate_numpy)
    mp.setattr(dfrs_policies.Mcb8Policy, "fused", False)
    mp.setattr(DfrsState, "fused_apply", False)
    mp.setattr(dfrs_policies.GreedyPolicy, "batch_starts", False)
    mp.setattr(dfrs_policies.GreedyPolicy, "fused_marking", False)
    mp.setattr(dfrs_policies.GreedyPolicy, "fused_submit", False)


def _same_result(a, b):
    """Every output of two runs, compared bit for bit (timings aside)."""
    for field in ("start", "end", "job_preemptions", "job_migrations", "timeline"):
        x, y = np.asarray(getattr(a, field)), np.asarray(getattr(b, field))
        assert x.shape == y.shape and x.tobytes() == y.tobytes(), field
    assert (a.preemption_bytes, a.migration_bytes) == (b.preemption_bytes, b.migration_bytes)
    sa, sb = a.summary(), b.summary()
    for key in sa:
        if "seconds" in key and key != "allocated_cpu_seconds" and "penalty" not in key:
            continue  # (run times)
        assert repr(sa[key]) == repr(sb[key]), key
    pa, pb = a.extra["progress_timeline"], b.extra["progress_timeline"]
    assert pa.tobytes() == pb.tobytes()


def _random_workload(seed, n=60, nodes=4):
    rng = np.random.default_rng(seed)
    return Workload.from_jobs(
        Platform(nodes=nodes),
        submit=np.sort(rng.choice([0, 7, 300, 900, 1_500, 4_000], n)).astype(float).tolist(),
        runtime=rng.choice([1e-3, 0.5, 30, 600, 2_000, 7_777], n).tolist(),
        tasks=rng.integers(1, nodes + 1, n).tolist(),
        # (not only powers of two: sums of 0.1, 0.3, 0.7 depend on their order)
        cpu=rng.choice([0.1, 0.25, 0.3, 0.5, 0.7, 1.0], n).tolist(),
        mem=rng.choice([0.0, 0.05, 0.1, 0.3, 0.6], n).tolist(),
    )


# ---------------------------------------------------------------- the sums


@settings(max_examples=300, deadline=None)
@given(
    size=st.one_of(st.integers(0, 20), st.integers(100, 300), st.integers(1_000, 3_000)),
    seed=st.integers(0, 2**32 - 1),
    spread=st.floats(0, 12),
)
def test_pairwise_sum_adds_as_numpy_does(size, seed, spread):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(size) * 10.0 ** rng.uniform(-spread, spread, size)
    assert pairwise_sum(x) == x.sum()
    assert pairwise_sum(x).hex() == float(x.sum()).hex()


@pytest.mark.parametrize("size", [0, 1, 7, 8, 9, 128, 129, 300])
@pytest.mark.parametrize("value", [0.0, -0.0])
def test_pairwise_sum_of_zeros_is_numpys(size, value):
    x = np.full(size, value)
    assert pairwise_sum(x).hex() == float(x.sum()).hex() == "0x0.0p+0"
    assert math.copysign(1.0, pairwise_sum(x)) == 1.0


def test_pairwise_sum_is_not_a_plain_loop():
    # a check that can fail: left-to-right addition differs from numpy's on this input
    x = np.array([1.0] + [1e-16] * 200)
    loop = 0.0
    for v in x:
        loop += v
    assert loop != x.sum() and pairwise_sum(x) == x.sum()


# ---------------------------------------------------------------- each kernel


@st.composite
def running_states(draw):
    n = draw(st.integers(1, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    jobs = np.sort(rng.choice(n + 20, size=n, replace=False)).astype(np.int64)
    total = n + 20
    runtime = rng.choice([1e-3, 0.5, 1.0, 10.0, 333.3, 1e5], total)
    vt = runtime * rng.choice([0.0, 0.5, 1.0 - 1e-12, 1.0, 0.999], total)
    yields = rng.choice([0.0, -0.0, 0.25, 1 / 3, 0.7, 1.0], total)
    penalty_until = rng.choice([-math.inf, 0.0, 50.0, 500.0], total)
    cpu = rng.choice([0.1, 0.25, 0.3, 0.5, 0.7, 1.0], total)
    tasks = rng.integers(1, 9, total).astype(np.int64)
    return jobs, runtime, vt, yields, penalty_until, cpu, tasks


@settings(max_examples=200, deadline=None)
@given(data=running_states(), clock=st.sampled_from([0.0, 10.0, 499.5]),
       span=st.sampled_from([1e-9, 1.0, 77.7, 1e4]))
def test_advance_kernel_is_the_numpy_steps(data, clock, span):
    jobs, runtime, vt, yields, penalty_until, cpu, tasks = data
    now = clock + span
    span = now - clock  # (as DfrsState.advance computes it)
    useful = np.maximum(0.0, now - np.maximum(clock, penalty_until[jobs]))
    progress = vt[jobs] + yields[jobs] * useful
    expect_vt = vt.copy()
    expect_vt[jobs] = np.minimum(progress, runtime[jobs])
    need = yields[jobs] * cpu[jobs] * tasks[jobs]
    out = np.empty(jobs.size)
    got_vt = vt.copy()
    used, given_, overshoot = advance_kernel(
        jobs, clock, now, penalty_until, yields, got_vt, runtime, cpu, tasks, out
    )
    assert got_vt.tobytes() == expect_vt.tobytes() and out.tobytes() == useful.tobytes()
    assert used == float((need * useful).sum())
    assert given_ == float(need.sum()) * span
    assert overshoot == bool((progress > runtime[jobs] * (1 + 1e-9) + 1e-6).any())


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10**6), nodes=st.integers(1, 300),
       mem=st.sampled_from([0.0, 1e-13, MEM_EPS, 2e-12, 0.05, 0.1, 0.25, 1 / 3, 0.3, 0.5, 0.7,
                            1.0]),
       tasks=st.integers(0, 40))
def test_fits_kernel_is_the_numpy_count(seed, nodes, mem, tasks):
    # free memory at and around the multiples of the task's memory (the floor's edges),
    # negative (over-committed by rounding) and full nodes; more than 128 nodes too (the
    # pairwise sum's halving)
    rng = np.random.default_rng(seed)
    k = rng.integers(0, 4, nodes) * mem
    free = np.clip(k + rng.choice([0.0, -2e-12, -1e-12, 1e-12, 1e-9, -1e-16], nodes), -1e-12, 1)
    free[rng.random(nodes) < 0.2] = rng.choice([0.0, 1.0, -5e-13])
    w = Workload.from_jobs(Platform(nodes=nodes), submit=[0], runtime=[10],
                           tasks=[max(tasks, 1)], cpu=[1.0], mem=[mem])
    state = DfrsState(w, penalty=0.0)
    state.tasks = np.array([tasks])  # (0 tasks too: the kernel takes any count)
    expected = bool(_fits_numpy(state, 0, free))
    if mem > MEM_EPS:
        count = fits_kernel(free, mem)
        assert count == float(np.floor((free + MEM_EPS) / mem).sum())  # (numpy's sum)
        assert (count >= tasks) == expected
    assert state.fits(0, free) is expected
    assert state.fits(0, free.tolist()) is expected  # (a user policy's list)


def test_fits_refuses_what_is_not_one_number_per_node():
    w = Workload.from_jobs(Platform(nodes=3), submit=[0], runtime=[10], tasks=[2], cpu=[1.0],
                           mem=[0.5])
    state = DfrsState(w, penalty=0.0)
    with pytest.raises(InvalidInputError, match=r"one number per node \(3\); got shape \(2,\)"):
        state.fits(0, [1.0, 1.0])
    with pytest.raises(InvalidInputError, match=r"got shape \(1, 3\)"):
        state.fits(0, np.ones((1, 3)))
    with pytest.raises(InvalidInputError, match="got NaN"):
        state.fits(0, [1.0, math.nan, 0.0])
    assert state.fits(0, np.array([0.5, 0.5, 0.0], dtype=np.float32))  # (in float64)
    assert state.fits(0, [math.inf, 0.0, 0.0]) and not state.fits(0, [0.4, 0.4, 0.4])


def test_advance_kernel_reports_an_overshoot():
    jobs = np.array([0], dtype=np.int64)
    vt = np.array([99.0])
    *_, overshoot = advance_kernel(jobs, 0.0, 10.0, np.array([-math.inf]), np.array([1.0]),
                                   vt, np.array([100.0]), np.ones(1), np.ones(1, np.int64),
                                   np.empty(1))
    assert overshoot and vt[0] == 100.0


@settings(max_examples=200, deadline=None)
@given(data=running_states(), now=st.sampled_from([0.0, 60.0, 1e6]))
def test_completion_and_cpu_kernels_are_the_numpy_steps(data, now):
    jobs, runtime, vt, yields, penalty_until, cpu, tasks = data
    y = yields[jobs].copy()
    begin = np.maximum(now, penalty_until[jobs])
    with np.errstate(divide="ignore", invalid="ignore"):
        ends = np.where(y > 0, begin + (runtime[jobs] - vt[jobs]) / y, math.inf)
    first = int(np.argmin(ends))
    written = np.full(yields.size, -1.0)
    end, job = completion_kernel(jobs, y, now, penalty_until, runtime, vt, written)
    assert (end, job) == (float(ends[first]), int(jobs[first]))
    assert written[jobs].tobytes() == y.tobytes()
    need = yields[jobs] * cpu[jobs] * tasks[jobs]
    free = penalty_until[jobs] <= now
    assert cpu_in_use_kernel(jobs, now, yields, cpu, tasks, penalty_until) == (
        float(need.sum()), float(need[free].sum())
    )
    work = runtime[jobs]
    done = jobs[work - vt[jobs] <= 1e-9 * np.maximum(1.0, work)]
    assert residue_kernel(jobs, runtime, vt).tolist() == done.tolist()


def test_residues_are_absolute_below_one_second_of_work():
    # remaining work up to 1e-9 * max(1, work) is a residue: absolute for short jobs
    runtime = np.array([1e-3, 1e-3, 10.0, 10.0, 0.5])
    vt = runtime - np.array([5e-10, 2e-9, 5e-9, 2e-8, 0.0])
    jobs = np.arange(5, dtype=np.int64)
    assert residue_kernel(jobs, runtime, vt).tolist() == [0, 2, 4]


def test_the_earliest_completion_ties_go_to_the_first_job():
    jobs = np.array([2, 5, 7], dtype=np.int64)
    y = np.array([0.5, 1.0, 1.0])
    runtime, vt, pu = np.full(8, 100.0), np.zeros(8), np.full(8, -math.inf)
    vt[2] = 50.0  # job 2 ends at 100 at yield 1/2, as job 5 and job 7 do
    assert completion_kernel(jobs, y, 0.0, pu, runtime, vt, np.zeros(8)) == (100.0, 2)
    none = completion_kernel(jobs, np.zeros(3), 0.0, pu, runtime, vt, np.zeros(8))
    assert none == (math.inf, 2)


# ---------------------------------------------------------------- whole runs


ALGORITHMS = [
    "GreedyPM */per/opt=min/minvt=600",
    "MCB8 */opt=min",
    "MCB8 */per/opt=min/minvt=300",
    "MCB8/per/opt=min/minft=300",
    "GreedyP/per/opt=avg/minft=600",
    "Greedy */opt=avg",
    "/stretch-per/opt=max/minvt=600",
    "/stretch-per/opt=avg/minft=300",
]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), algorithm=st.sampled_from(ALGORITHMS),
       penalty=st.sampled_from([0.0, 300.0]))
def test_a_run_gives_the_numpy_codes_bits(seed, algorithm, penalty):
    w = _random_workload(seed)
    fast = simulate_dfrs(w, algorithm, penalty=penalty, period=300.0, record=True)
    with pytest.MonkeyPatch.context() as mp:
        _numpy_steps(mp)
        plain = simulate_dfrs(w, algorithm, penalty=penalty, period=300.0, record=True)
    _same_result(fast, plain)
    assert fast.extra["segments"] == plain.extra["segments"]


def test_the_fused_remap_is_used_and_agrees_on_a_backlog():
    # a check that can fail: the fused kernel is what runs (a remap with it broken
    # would change the schedule), and it matches the Python steps on a long backlog
    from allockit.simulation import dfrs_kernels

    w = _random_workload(11, n=150, nodes=3)
    name = "MCB8 */per/opt=min/minvt=300"
    fast = simulate_dfrs(w, name, period=300.0)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dfrs_policies.Mcb8Policy, "fused", False)
        plain = simulate_dfrs(w, name, period=300.0)
    _same_result(fast, plain)
    calls = []
    real = dfrs_kernels.mcb8_remap_kernel

    def spy(*args):
        calls.append(args[0].size)
        return real(*args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dfrs_kernels, "mcb8_remap_kernel", spy)
        again = simulate_dfrs(w, name, period=300.0)
    _same_result(fast, again)
    assert calls and len(calls) == len(fast.extra["mcb8_calls"])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6),
       algorithm=st.sampled_from(["Greedy */opt=min", "GreedyP/per/opt=min", "GreedyPM */opt=min",
                                  "GreedyPM */per/opt=min/minvt=600", "GreedyP */opt=avg"]),
       penalty=st.sampled_from([0.0, 300.0]))
def test_the_fused_submission_is_the_step_by_step_one(seed, algorithm, penalty):
    # a check that can fail: the compiled submission is what runs (one call per
    # submission), and its runs are those of on_submit's steps, bit for bit, on crowded
    # clusters where GreedyP pauses and GreedyPM migrates
    from allockit.simulation import dfrs_kernels

    w = _random_workload(seed, n=80, nodes=3)
    calls = []
    real = dfrs_kernels.greedy_submit_kernel

    def spy(*args):
        calls.append(args[0])
        return real(*args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dfrs_kernels, "greedy_submit_kernel", spy)
        fast = simulate_dfrs(w, algorithm, penalty=penalty, period=300.0, record=True)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dfrs_policies.GreedyPolicy, "fused_submit", False)
        plain = simulate_dfrs(w, algorithm, penalty=penalty, period=300.0, record=True)
    _same_result(fast, plain)
    assert fast.extra["segments"] == plain.extra["segments"]
    assert sorted(calls) == list(range(w.n_jobs))


def test_the_fused_submission_pauses_and_migrates():
    # the workloads of the comparison above reach every outcome of the compiled
    # submission: a start, a wait, and a start after pausing jobs, some of which
    # GreedyPM puts back elsewhere
    from allockit.simulation import dfrs_kernels

    real, seen = dfrs_kernels.greedy_submit_kernel, []

    def spy(*args):
        out = real(*args)
        seen.append((int(out[0]), int(out[4].sum()), int((~out[4]).sum())))
        return out

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dfrs_kernels, "greedy_submit_kernel", spy)
        simulate_dfrs(_random_workload(1, n=80, nodes=3), "GreedyPM */opt=min", period=300.0)
    assert {code for code, _, _ in seen} == {0, 1, 2}
    assert sum(back for _, back, _ in seen) > 0 and sum(paused for *_, paused in seen) > 0


def test_a_subclass_with_its_own_steps_runs_them_not_the_fused_submission():
    # a user's GreedyPolicy that changes try_start or _mark gets its own steps
    from allockit.simulation import dfrs_kernels

    calls = []

    class Counting(dfrs_policies.GreedyPolicy):
        def try_start(self, state, j, now):
            calls.append(j)
            return super().try_start(state, j, now)

    w = _random_workload(2, n=30, nodes=3)
    s = DfrsState(w, penalty=0.0)
    fused = []
    real = dfrs_kernels.greedy_submit_kernel
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dfrs_kernels, "greedy_submit_kernel", lambda *a: fused.append(1) or real(*a))
        policy = Counting(preempt=True)
        for j in range(5):
            s.submit(j)
            policy.on_submit(s, j, 0.0)
    assert calls == [0, 1, 2, 3, 4] and not fused


def test_the_fused_submission_refuses_a_running_job_without_a_row():
    w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[9, 9], tasks=[1, 1],
                           cpu=[1.0, 1.0], mem=[0.8, 0.8])
    s = DfrsState(w, penalty=0.0)
    s.submit(0)
    s.start_job(0, np.array([0]), 0.0)
    s.vt[0] = 1.0  # (lower priority than the new job)
    s.rows.drop(0)  # broken: running without its row
    s.submit(1)
    with pytest.raises(SimulationInvariantError, match="job 0 has no placement"):
        dfrs_policies.GreedyPolicy(preempt=True).on_submit(s, 1, 5.0)


@pytest.mark.parametrize("algorithm", ["GreedyPM */per/opt=min/minvt=600", "MCB8 */opt=min"])
def test_an_hpc2n_excerpt_gives_the_numpy_codes_bits(algorithm):
    from pathlib import Path

    from allockit.instances.hpc2n import hpc2n_workload
    from allockit.instances.swf import read_swf

    excerpt = Path(__file__).resolve().parents[1] / "data" / "hpc2n_excerpt.swf"
    w = hpc2n_workload(read_swf(excerpt))
    fast = simulate_dfrs(w, algorithm)
    with pytest.MonkeyPatch.context() as mp:
        _numpy_steps(mp)
        plain = simulate_dfrs(w, algorithm)
    _same_result(fast, plain)
    assert fast.extra["mcb8_calls"].shape[0] > 0


# ---------------------------------------------------------------- a user's yields


class _Fixed(FractionalPolicy):
    """Greedy placements with whatever yields the test hands back."""

    name = "fixed-yields"

    def __init__(self, answer):
        self.answer = answer

    def start(self, state):
        from allockit.simulation.dfrs_policies import GreedyPolicy

        self.greedy = GreedyPolicy()

    def on_submit(self, state, job, now):
        self.greedy.on_submit(state, job, now)

    def yields(self, state, jobs, counts, now, horizon):
        return self.answer(jobs)


_TWO = Workload.from_jobs(Platform(nodes=2), submit=[0, 5], runtime=[100, 100], tasks=[1, 1],
                          cpu=[1.0, 1.0], mem=[0.3, 0.3])


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (lambda jobs: np.ones(jobs.size + 1), r"one number per running job \(1\).*shape \(2,\)"),
        (lambda jobs: 0.5, r"one number per running job.*shape \(\)"),
        (lambda jobs: ["a"] * jobs.size, "numbers.*an array of str"),
        (lambda jobs: [[1.0], [1.0, 2.0]], "numbers.*an array of object"),
        (lambda jobs: np.full(jobs.size, np.nan), r"in \[0, 1\]; yields\[0\] is nan"),
        (lambda jobs: np.full(jobs.size, 1.5), r"yields\[0\] is 1.5 at time 0 s"),
        (lambda jobs: -np.ones(jobs.size), r"yields\[0\] is -1.0"),
    ],
)
def test_a_user_policys_bad_yields_are_refused_by_name(answer, message):
    with pytest.raises(InvalidInputError, match=message) as info:
        simulate_dfrs(_TWO, _Fixed(answer))
    assert str(info.value).startswith("policy 'fixed-yields': yields must")


@pytest.mark.parametrize("answer", [lambda jobs: [True] * jobs.size,
                                    lambda jobs: ["0.5"] * jobs.size])
def test_a_user_policys_yields_must_be_numbers(answer):
    with pytest.raises(InvalidInputError, match=r"yields must be numbers.*got an array of"):
        simulate_dfrs(_TWO, _Fixed(answer))


def test_a_user_policys_yields_within_rounding_and_negative_zeros_are_taken():
    r = simulate_dfrs(_TWO, _Fixed(lambda jobs: np.full(jobs.size, 1.0 + 1e-10)), penalty=0.0)
    assert np.allclose(r.end, [100.0, 105.0])
    from allockit.simulation.dfrs import _checked_yields

    zero = _checked_yields(_Fixed(None), [-0.0, 0.5], 2, 0.0)
    assert [math.copysign(1.0, v) for v in zero] == [1.0, 1.0] and zero.flags.c_contiguous


@pytest.mark.parametrize("override", ["yields", "_rows_yields"])
def test_a_subclass_of_a_built_in_algorithm_gets_its_yields_checked(override):
    # a subclass of DfrsAlgorithm overriding yields (or the internal rows path) is not
    # trusted: the driver calls its yields and checks them, whatever the rows path says
    from allockit.simulation.dfrs_algorithm import DfrsAlgorithm

    def too_large(self, state, jobs, *rest):
        return np.full(jobs.size, 1.5)

    bad = type("Bad", (DfrsAlgorithm,), {override: too_large})("Greedy */opt=avg")
    if override == "yields":
        with pytest.raises(InvalidInputError, match=r"yields\[0\] is 1.5"):
            simulate_dfrs(_TWO, bad)
    else:  # its _rows_yields is never called: the built-in yields, through the check
        assert simulate_dfrs(_TWO, bad, penalty=0.0).end.tolist() == [100.0, 105.0]
    own = DfrsAlgorithm("/stretch-per/opt=avg")  # yields set on an instance: checked too
    own.yields = lambda state, jobs, *rest: np.full(jobs.size, 1.5)
    with pytest.raises(InvalidInputError, match=r"yields\[0\] is 1.5"):
        simulate_dfrs(_TWO, own)


def test_a_user_policys_yields_may_be_a_list():
    r = simulate_dfrs(_TWO, _Fixed(lambda jobs: [1.0] * jobs.size), penalty=0.0)
    assert r.end.tolist() == [100.0, 105.0]
    half = simulate_dfrs(_TWO, _Fixed(lambda jobs: [0.5] * jobs.size), penalty=0.0)
    assert half.end.tolist() == [200.0, 205.0]


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), minvt=st.sampled_from([None, 0.0, 300.0]),
       minft=st.sampled_from([None, 600.0]), nodes=st.integers(1, 4),
       stretch=st.booleans())
def test_the_fused_remap_maps_a_state_as_the_python_steps(seed, minvt, minft, nodes, stretch):
    # states with running jobs at the pinning thresholds exactly (virtual time equal to
    # minvt, submitted exactly minft ago), paused jobs and a backlog; one remap each way
    import copy

    from allockit.simulation.dfrs_policies import GreedyPolicy, Mcb8Policy, Mcb8StretchPolicy

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    now = 1_000.0
    w = Workload.from_jobs(
        Platform(nodes=nodes),
        submit=np.sort(rng.choice([0.0, 400.0, now - 600.0, now], n)).tolist(),
        runtime=rng.choice([500.0, 5_000.0], n).tolist(),
        tasks=rng.integers(1, nodes + 1, n).tolist(),
        cpu=rng.choice([0.25, 0.5, 1.0], n).tolist(),
        mem=rng.choice([0.0, 0.1, 0.3, 0.6], n).tolist(),
    )
    state = DfrsState(w, penalty=300.0)
    greedy = GreedyPolicy(preempt=True)
    for j in range(n):
        state.submit(j)
        greedy.on_submit(state, j, float(w.submit[j]))
    state.vt[:] = rng.choice([0.0, 1e-170, 1e-155, 299.0, 300.0, 301.0, 450.0], n)
    state.refresh_view()  # (vt written directly)
    state.clock = now
    python = copy.deepcopy(state)

    def policy():
        if stretch:  # MCB8-stretch (/stretch-per): its own packing, its own kernel
            return Mcb8StretchPolicy(period=float(rng.choice([60.0, 600.0])), minvt=minvt,
                                     minft=minft)
        return Mcb8Policy(minvt=minvt, minft=minft)

    fused = policy()
    fused.remap(state, now)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Mcb8Policy, "fused", False)
        plain = policy()
        plain.period = getattr(fused, "period", None)
        plain.remap(python, now)
    _same_state(state, python)


_STATE_ARRAYS = ("status", "mem_used", "load", "n_preempt", "n_migrate", "n_resume",
                 "n_resume_elsewhere", "last_move", "penalty_until", "ever_ran", "start",
                 "yields", "waiting_per_shape")


def _greedy_placed(rng, nodes, n):
    """A state of ``n`` jobs submitted at 0 and placed (or left waiting) by GreedyP."""
    from allockit.simulation.dfrs_policies import GreedyPolicy

    w = Workload.from_jobs(
        Platform(nodes=nodes),
        submit=np.zeros(n).tolist(),
        runtime=np.full(n, 1_000.0).tolist(),
        tasks=rng.integers(1, nodes + 1, n).tolist(),
        cpu=rng.choice([0.1, 0.25, 0.3, 0.5, 0.7, 1.0], n).tolist(),
        mem=rng.choice([0.0, 0.1, 0.3, 0.6], n).tolist(),
    )
    state = DfrsState(w, penalty=float(rng.choice([0.0, 300.0])))
    greedy = GreedyPolicy(preempt=True)
    for j in range(n):
        state.submit(j)
        greedy.on_submit(state, j, 0.0)
    return state


def _same_state(a, b):
    assert a.running == b.running and a.waiting == b.waiting and a.layout == b.layout
    assert a.n_waiting == b.n_waiting == len(a.waiting)
    for j in a.running | a.waiting:
        if a.rows.has(j) or b.rows.has(j):
            assert a.row(j).tobytes() == b.row(j).tobytes(), j
    for name in _STATE_ARRAYS:
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name
    for name in ("task_preemptions", "task_migrations", "bytes_preempt", "bytes_migrate"):
        assert repr(getattr(a, name)) == repr(getattr(b, name)), name


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), nodes=st.integers(1, 4), rounds=st.integers(1, 4))
def test_the_fused_apply_is_the_numpy_steps(seed, nodes, rounds):
    # random mappings of random states: pauses, migrations, resumes on the same or
    # other nodes, fresh starts, rows left as they are; several in a row
    import copy

    rng = np.random.default_rng(seed)
    fused = _greedy_placed(rng, nodes, int(rng.integers(1, 25)))
    w = fused.w
    plain = copy.deepcopy(fused)
    plain.fused_apply = False
    for r in range(rounds):
        now = 100.0 * (r + 1)
        system = sorted(fused.running | fused.waiting)
        chosen = [j for j in system if rng.random() < 0.7]
        rows = np.zeros((len(chosen), nodes))
        for i, j in enumerate(chosen):
            if fused.rows.has(j) and rng.random() < 0.5:
                rows[i] = fused.row(j)  # stays where it is (or resumes there)
            else:
                rows[i] = np.bincount(rng.integers(0, nodes, int(w.tasks[j])),
                                      minlength=nodes)
        order = rng.permutation(len(chosen))
        jobs = np.array(chosen, dtype=np.int64)[order]
        fused.apply(jobs, rows[order], now)
        plain.apply(jobs, rows[order], now)
        _same_state(fused, plain)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**6), nodes=st.integers(1, 4), fused=st.booleans(),
       ratio=st.sampled_from([0, 1, 2, 10**9]))
def test_running_jobs_is_the_running_set_by_index_after_every_change(seed, nodes, fused, ratio):
    # running_jobs() is read from a mask over the active jobs, or sorted from the set
    # behind a long backlog (ratio 0: always; 10**9: never): after starts, pauses,
    # migrations, lifts, settles and completions it must be sorted(running)
    from allockit.simulation.dfrs_policies import GreedyPolicy

    rng = np.random.default_rng(seed)
    state = _greedy_placed(rng, nodes, int(rng.integers(2, 30)))
    state.fused_apply = fused
    state.RUNNING_SORT_RATIO = ratio
    greedy = GreedyPolicy(preempt=True, migrate=True)
    for step in range(6):
        now = 100.0 * (step + 1)
        assert state.running_jobs().tolist() == sorted(state.running)
        action = rng.integers(0, 4)
        system = sorted(state.running | state.waiting)
        if action == 0 and state.running:  # a completion, then Greedy's pass
            state.finish_job(int(rng.choice(sorted(state.running))), now)
            greedy.start_waiting(state, now)
        elif action == 1 and system:  # a remap: some paused, some moved or started
            chosen = [j for j in system if rng.random() < 0.5]
            rows = np.zeros((len(chosen), nodes))
            for i, j in enumerate(chosen):
                rows[i, int(rng.integers(0, nodes))] = float(state.tasks[j])
            state.apply(np.array(chosen, dtype=np.int64), rows, now)
        elif action == 2 and state.running:  # lift some, settle or pause them
            lifted = [j for j in sorted(state.running) if rng.random() < 0.5]
            state.lift(lifted)
            assert state.running_jobs().tolist() == sorted(state.running)
            for j in lifted:
                if rng.random() < 0.5:
                    state.settle(j, None, now, state.row(j).copy())
                else:
                    state.pause_job(j)
        else:
            greedy.start_waiting(state, now)
    assert state.running_jobs().tolist() == sorted(state.running)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_running_jobs_with_arrivals_out_of_order_and_completions(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 20))
    w = Workload.from_jobs(Platform(nodes=2), submit=[0] * n, runtime=[10] * n,
                           tasks=[1] * n, cpu=[0.5] * n, mem=[0.01] * n)
    s = DfrsState(w, penalty=0.0)
    for t, j in enumerate(rng.permutation(n).tolist()):
        s.submit(j)
        if rng.random() < 0.7:
            s.start_job(j, np.array([int(rng.integers(0, 2))]), float(t))
        if s.running and rng.random() < 0.4:
            s.finish_job(int(rng.choice(sorted(s.running))), float(t))
        assert s.running_jobs().tolist() == sorted(s.running)
        assert s.active_jobs().tolist() == sorted(s.running | s.waiting)


def test_the_state_refuses_jobs_submitted_twice_or_started_outside_the_system():
    from allockit.simulation.dfrs_checks import check_invariants

    w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0, 0], runtime=[10] * 3,
                           tasks=[1] * 3, cpu=[1.0] * 3, mem=[0.1] * 3)
    s = DfrsState(w, penalty=0.0)
    s.submit(0)
    with pytest.raises(SimulationInvariantError, match="job 0 was submitted already"):
        s.submit(0)
    with pytest.raises(SimulationInvariantError, match="job 2 is not in the system"):
        s.start_job(2, np.array([0]), 0.0)
    s.start_job(0, np.array([0]), 0.0)
    s.finish_job(0, 5.0)
    with pytest.raises(SimulationInvariantError, match="job 0 is not in the system"):
        s.start_job(0, np.array([0]), 5.0)
    s.submit(1)
    s.start_job(1, np.array([1]), 5.0)
    check_invariants(s, 5.0)
    s.running.add(2)  # (a change behind the state's back)
    with pytest.raises(SimulationInvariantError, match="list and set differ"):
        check_invariants(s, 5.0)
    s.running.discard(2)
    s._is_running[2] = True  # (the mask alone changed)
    with pytest.raises(SimulationInvariantError, match="mask and set differ"):
        check_invariants(s, 5.0)


@pytest.mark.parametrize("fused", [True, False])
def test_apply_ignores_finished_jobs_in_the_mapping_and_takes_read_only_rows(fused):
    # a finished job in a mapping gets no row (the fused path used to give it one), and
    # read-only rows are copied to the kernel's one signature (no compilation in a run)
    from allockit.simulation import dfrs_kernels

    w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0], runtime=[10, 10], tasks=[1, 1],
                           cpu=[1.0, 1.0], mem=[0.4, 0.4])
    s = DfrsState(w, penalty=0.0)
    s.fused_apply = fused
    s.submit(0)
    s.submit(1)
    s.start_job(1, np.array([1]), 0.0)
    s.finish_job(1, 1.0)
    s.apply(np.array([0]), np.array([[1.0, 0.0]]), 1.0)
    kernel, given = dfrs_kernels.apply_kernel, []

    def spy(*args):
        given.append(args[1])
        return kernel(*args)

    rows = np.array([[0.0, 1.0], [1.0, 0.0]])
    rows.flags.writeable = False
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dfrs_kernels, "apply_kernel", spy)
        s.apply(np.array([0, 1]), rows, 2.0)
    assert not s.rows.has(1) and sorted(s.running) == [0] and s.row(0).tolist() == [0.0, 1.0]
    assert s.mem_used.tolist() == [0.0, 0.4]
    assert all(r.flags.writeable and r.flags.c_contiguous for r in given)
    assert len(given) == fused


def test_running_jobs_is_by_index_when_jobs_arrive_out_of_order():
    w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0, 0], runtime=[10] * 3,
                           tasks=[1] * 3, cpu=[1.0] * 3, mem=[0.1] * 3)
    s = DfrsState(w, penalty=0.0)
    for j in (2, 0, 1):
        s.submit(j)
        s.start_job(j, np.array([0]), 0.0)
    assert s.running_jobs().tolist() == [0, 1, 2] and s.active_jobs().tolist() == [0, 1, 2]


def _two_jobs_placed():
    """Jobs 0 and 1 (one task, memory 0.4) on nodes 0 and 1 of two, by ``apply`` at 1."""
    w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0], runtime=[10, 10], tasks=[1, 1],
                           cpu=[1.0, 1.0], mem=[0.4, 0.4])
    s = DfrsState(w, penalty=0.0)
    s.submit(0)
    s.submit(1)
    s.apply(np.array([0, 1]), np.array([[1.0, 0.0], [0.0, 1.0]]), 1.0)
    return s


def test_the_fused_apply_changes_nothing_for_the_same_mapping():
    s = _two_jobs_placed()
    layout, used = s.layout, s.mem_used.copy()
    s.apply(np.array([1, 0]), np.array([[0.0, 1.0], [1.0, 0.0]]), 2.0)
    assert s.layout == layout and s.mem_used.tolist() == used.tolist()
    assert s.last_move.tolist() == [1.0, 1.0] and s.n_migrate.tolist() == [0, 0]
    s.apply(np.array([1]), np.array([[1.0, 0.0]]), 3.0)  # 0 paused, 1 moves
    assert (sorted(s.running), sorted(s.waiting)) == ([1], [0])
    assert s.n_preempt.tolist() == [1, 0] and s.n_migrate.tolist() == [0, 1]
    assert s.mem_used.tolist() == [0.4, 0.0] and s.task_migrations == 1


def test_the_fused_apply_takes_rows_that_are_views_of_the_pool():
    # the kernel writes the pool: a mapping given as views of it is copied first. Job 0
    # moves to job 1's row and job 1 to job 0's, the rows read from the pool itself
    s = _two_jobs_placed()
    pool, slot = s.rows.arrays()
    lo = int(slot[:2].min())
    assert abs(int(slot[0]) - int(slot[1])) == 1  # (two neighbouring rows of the pool)
    view = pool[lo : lo + 2]
    first = 0 if slot[0] == lo else 1  # (the job whose row is view[0])
    s.apply(np.array([1 - first, first]), view, 2.0)  # each takes the other's row
    assert s.row(0).tolist() == [0.0, 1.0] and s.row(1).tolist() == [1.0, 0.0]
    assert s.n_migrate.tolist() == [1, 1] and s.mem_used.tolist() == [0.4, 0.4]


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**6), nodes=st.integers(1, 4), chunk=st.sampled_from([1, 2, 3, 64]))
def test_batched_starts_are_the_one_by_one_starts(seed, nodes, chunk):
    # Greedy's pass over waiting jobs: paused jobs resumed where they were or elsewhere,
    # jobs started for the first time, in one compiled call or step by step with the
    # jobs started one by one; chunks small enough to take several
    import copy

    from allockit.simulation.dfrs_policies import GreedyPolicy

    rng = np.random.default_rng(seed)
    batched = _greedy_placed(rng, nodes, int(rng.integers(2, 40)))
    running = sorted(batched.running)
    keep = [j for j in running if rng.random() < 0.4]  # the others are paused
    batched.apply(np.array(keep, dtype=np.int64),
                  np.array([batched.row(j) for j in keep]).reshape(len(keep), nodes), 50.0)
    batched.vt[:] = rng.choice([0.0, 10.0, 20.0, 40.0], batched.vt.size)  # (ties, too)
    batched.refresh_view()  # (vt written directly)
    one_by_one = copy.deepcopy(batched)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dfrs_policies, "_CHUNK", chunk)
        GreedyPolicy().start_waiting(batched, 100.0)
        mp.setattr(GreedyPolicy, "batch_starts", False)
        GreedyPolicy().start_waiting(one_by_one, 100.0)
    _same_state(batched, one_by_one)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), nodes=st.integers(1, 5))
def test_the_compiled_marking_pauses_the_jobs_the_loop_pauses(seed, nodes):
    # GreedyP's choice of the jobs to pause for an incoming job: for every job of a
    # random state (waiting ones, and running ones as if they came again), against the
    # candidates in a random order, in one compiled call and with one fits() per step
    from allockit.simulation.dfrs_policies import GreedyPolicy, _mark_one_by_one

    rng = np.random.default_rng(seed)
    state = _greedy_placed(rng, nodes, int(rng.integers(2, 30)))
    running = sorted(state.running)
    for j in range(state.tasks.size):
        lower = [r for r in rng.permutation(running).tolist() if r != j]
        lower = lower[: int(rng.integers(0, len(lower) + 1))]
        expect = _mark_one_by_one(state, j, lower)
        assert GreedyPolicy(preempt=True)._mark(state, j, lower) == expect


def test_the_compiled_marking_keeps_running_the_jobs_it_need_not_pause():
    # one node of memory 1: jobs 0 (0.5), 1 (0.2), 2 (0.3) run; job 3 needs 0.5.
    # Candidates 1, 0: marking frees 0.2, then 0.7 (fits); going back, 1 need not pause.
    # Candidates 1, 2, 0: 0.2, then 0.5 fits, and 1 is still needed
    from allockit.simulation.dfrs_policies import GreedyPolicy, _mark_one_by_one

    w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0, 0, 0], runtime=[10] * 4,
                           tasks=[1] * 4, cpu=[1.0] * 4, mem=[0.5, 0.2, 0.3, 0.5])
    state = DfrsState(w, penalty=0.0)
    for j in range(3):
        state.submit(j)
        state.start_job(j, np.array([0]), 0.0)
    state.submit(3)
    for lower, paused in (([1, 2, 0], [1, 2]), ([1, 0], [0]), ([1], []), ([], [])):
        assert GreedyPolicy(preempt=True)._mark(state, 3, lower) == paused
        assert _mark_one_by_one(state, 3, lower) == paused


def test_the_compiled_marking_refuses_a_running_job_without_a_row():
    from allockit.simulation.dfrs_policies import GreedyPolicy

    w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[10] * 2,
                           tasks=[1] * 2, cpu=[1.0] * 2, mem=[0.9, 0.5])
    state = DfrsState(w, penalty=0.0)
    state.submit(0)
    state.start_job(0, np.array([0]), 0.0)
    state.submit(1)
    with pytest.raises(SimulationInvariantError, match="job 1 has no placement"):
        GreedyPolicy(preempt=True)._mark(state, 1, [1])


def test_priority_keys_kernel_is_numpys_down_to_tiny_virtual_times():
    # vt² underflows to 0 below ~1.5e-162: numpy gives -inf, kept at -FLOAT_MAX
    from allockit.simulation.dfrs_kernels import _priority_keys_of
    from allockit.simulation.dfrs_priority import priority_keys

    w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0, 0, 0, 5, 10],
                           runtime=[10] * 6, tasks=[1] * 6, cpu=[1.0] * 6, mem=[0.1] * 6)
    state = DfrsState(w, penalty=0.0)
    state.vt[:] = [0.0, 1e-170, 1e-155, 2.0, 1e-300, 3.0]
    jobs = np.arange(6, dtype=np.int64)
    expect = priority_keys(state, jobs, 10.0)
    got = _priority_keys_of(state.vt[jobs], state.submit_time[jobs], 10.0)
    assert got.tobytes() == expect.tobytes()
    assert got[1] == -np.finfo(float).max and got[0] == -np.inf


def test_a_subclass_with_its_own_steps_runs_them_not_the_kernel():
    from allockit.simulation.dfrs_policies import GreedyPolicy, Mcb8Policy, Mcb8StretchPolicy

    class NoPins(Mcb8Policy):
        def pinned(self, state, now):
            return np.zeros(0, dtype=np.int64)

    class Flat(Mcb8StretchPolicy):
        def slopes(self, state, jobs, now):
            return np.zeros(jobs.size), np.ones(jobs.size)

    assert Mcb8Policy(minvt=300.0)._fused_kernel() == "mcb8_remap_kernel"
    assert Mcb8StretchPolicy(period=600.0)._fused_kernel() == "mcb8_stretch_remap_kernel"
    assert NoPins(minvt=300.0)._fused_kernel() is None
    assert Flat(period=600.0)._fused_kernel() is None
    # a state where the pinned jobs matter: the override must be honoured
    w = _random_workload(5, n=25, nodes=3)
    state = DfrsState(w, penalty=0.0)
    greedy = GreedyPolicy(preempt=True)
    for j in range(w.n_jobs):
        state.submit(j)
        greedy.on_submit(state, j, 0.0)
    state.vt[:] = 100.0
    state.refresh_view()  # (vt written directly)
    import copy

    mine, pinned_run = copy.deepcopy(state), copy.deepcopy(state)
    NoPins(minvt=300.0).remap(mine, 1_000.0)
    Mcb8Policy(minvt=None).remap(state, 1_000.0)  # what "no pins" means
    Mcb8Policy(minvt=300.0).remap(pinned_run, 1_000.0)
    _same_state(mine, state)
    assert any(not np.array_equal(mine.row(j), pinned_run.row(j))
               for j in mine.running & pinned_run.running) or mine.running != pinned_run.running


def _random_indexed_pool(rng, n_jobs, nodes, entries):
    """A pool of rows drawn from ``entries`` with its index of nonzero entries, slots
    for ``n_jobs`` of ``n_jobs + 3`` jobs (the rest without a row) and the sorted,
    read-only jobs that have one: ``(pool, nz, slot, jobs)``."""
    from allockit.simulation.allocation_kernels import index_rows_kernel

    total = n_jobs + 3
    pool = rng.choice(entries, (total + 2, nodes))
    slot = np.full(total, -1, dtype=np.int64)
    slot[: n_jobs] = rng.permutation(total + 2)[:n_jobs]
    jobs = np.sort(rng.permutation(total)[:n_jobs])
    jobs = jobs[slot[jobs] >= 0]
    jobs.flags.writeable = False
    nz = np.zeros((pool.shape[0], nodes + 1), dtype=np.int32)
    index_rows_kernel(pool, nz, np.arange(pool.shape[0]))
    return pool, nz, slot, jobs


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), n_jobs=st.integers(0, 12), nodes=st.integers(1, 6))
def test_the_driver_s_max_min_yields_from_rows_are_the_dense_ones(seed, n_jobs, nodes):
    # opt=min yields read from the pool of rows (maxmin_rows_kernel) must be the bits of
    # the water-filling on the matrix of counts (the checked public max_min_yields, and
    # maxmin_dense_kernel), whatever the slots
    from allockit.simulation.allocation import max_min_yields
    from allockit.simulation.allocation_kernels import (
        maxmin_dense_kernel,
        maxmin_rows_kernel,
    )

    rng = np.random.default_rng(seed)
    pool, nz, slot, jobs = _random_indexed_pool(rng, n_jobs, nodes, [0.0, 0.0, 1.0, 2.0, 3.0])
    total = slot.size
    cpu = rng.choice([0.1, 0.25, 0.3, 0.5, 0.7, 1.0], total)
    got = maxmin_rows_kernel(pool, nz, slot, jobs, cpu, 1e-12)
    expected = maxmin_dense_kernel(pool[slot[jobs]], cpu[jobs], 1e-12)
    assert got.tobytes() == expected.tobytes()
    if jobs.size:
        assert got.tolist() == max_min_yields(pool[slot[jobs]], cpu[jobs]).tolist()
    if n_jobs < total:
        with pytest.raises(ValueError, match="a job without a row"):
            maxmin_rows_kernel(pool, nz, slot, np.array([total - 1]), cpu, 1e-12)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**6), n_jobs=st.integers(0, 40),
       nodes=st.sampled_from([1, 2, 3, 5, 120]))
def test_the_driver_s_opt_avg_lp_from_rows_is_the_dense_one(seed, n_jobs, nodes):
    # the opt=avg LP read from the pool of rows (avg_lp_rows_kernel) must be the LP that
    # max_avg_yields_unchecked builds from the matrix of counts: the same triples and
    # floor bit for bit (so the same memo key: a hit), and the same yields. More than 8
    # jobs on one node: numpy sums one column pairwise, which the rows path leaves to
    # the matrix
    from allockit.evaluation.answer_memo import clear_memos, memo
    from allockit.simulation.allocation import max_avg_yields_rows, max_avg_yields_unchecked
    from allockit.simulation.allocation_kernels import avg_lp_rows_kernel

    rng = np.random.default_rng(seed)
    pool, nz, slot, jobs = _random_indexed_pool(rng, n_jobs, nodes, [0.0, 0.0, 0.0, 1.0, 2.0, 3.0])
    total = slot.size
    cpu = rng.uniform(0.01, 1.0, total) * rng.choice([1.0, 1e-3], total)
    coeff = pool[slot[jobs]] * cpu[jobs][:, None]
    job, node, value, peak = avg_lp_rows_kernel(pool, nz, slot, jobs, cpu)
    expected_job, expected_node = np.nonzero(coeff)
    assert job.dtype == expected_job.dtype and node.dtype == expected_node.dtype
    assert job.tolist() == expected_job.tolist() and node.tolist() == expected_node.tolist()
    assert value.tobytes() == coeff[expected_job, expected_node].tobytes()
    if nodes > 1:
        assert peak == coeff.sum(axis=0).max(initial=0.0)
    clear_memos()
    expected = max_avg_yields_unchecked(pool[slot[jobs]], cpu[jobs])
    got = max_avg_yields_rows(pool, nz, slot, jobs, cpu)
    assert got.tobytes() == expected.tobytes()
    kept = memo("max_sum_yields")
    lp = int(coeff.sum(axis=0).max(initial=0.0) > 1.0)  # an overloaded node: an LP
    assert kept.misses == lp and kept.hits == lp  # the rows' LP was the matrix's


def test_the_opt_avg_rows_path_drops_underflowed_entries_and_refuses_missing_rows():
    # a task count times a CPU need that underflows to 0 is not an LP entry (numpy.nonzero
    # drops it): the same LP, so a memo hit; and a job without a row is refused on one
    # node too (the path that takes the matrix)
    from allockit.evaluation.answer_memo import clear_memos, memo
    from allockit.simulation.allocation import max_avg_yields_rows, max_avg_yields_unchecked
    from allockit.simulation.allocation_kernels import index_rows_kernel

    pool = np.array([[1e-320, 1.0], [1.0, 1.0], [1.0, 0.0]])
    nz = np.zeros((3, 3), dtype=np.int32)
    index_rows_kernel(pool, nz, np.arange(3))
    slot, jobs, cpu = np.arange(3), np.arange(3), np.array([1e-6, 0.9, 0.8])
    clear_memos()
    expected = max_avg_yields_unchecked(pool, cpu)
    assert max_avg_yields_rows(pool, nz, slot, jobs, cpu).tobytes() == expected.tobytes()
    assert memo("max_sum_yields").hits == 1 and memo("max_sum_yields").misses == 1
    one = np.ones((2, 1))
    with pytest.raises(ValueError, match="a job without a row"):
        max_avg_yields_rows(one, np.array([[1, 0], [1, 0]], dtype=np.int32),
                            np.array([0, -1]), np.array([0, 1]), np.array([0.9, 0.8]))


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**6), n_jobs=st.integers(0, 12), nodes=st.integers(1, 5))
def test_the_driver_s_stretch_yields_from_rows_are_the_dense_ones(seed, n_jobs, nodes):
    # /stretch-per yields read from the pool of rows must be the bits of the public
    # functions on the matrix of counts, and the opt=avg LP the same (a memo hit)
    from allockit.evaluation.answer_memo import clear_memos, memo
    from allockit.simulation.allocation import (
        max_min_affine,
        max_min_affine_rows,
        min_avg_stretch,
        min_avg_stretch_rows,
    )

    rng = np.random.default_rng(seed)
    pool, nz, slot, jobs = _random_indexed_pool(rng, n_jobs, nodes, [0.0, 0.0, 1.0, 2.0, 3.0])
    total = slot.size
    cpu = rng.choice([0.1, 0.25, 0.3, 0.5, 0.7, 1.0], total)
    a = rng.uniform(0.0, 0.5, jobs.size) * rng.integers(0, 2, jobs.size)
    b = rng.uniform(0.05, 1.0, jobs.size)
    counts = pool[slot[jobs]]
    fair = max_min_affine_rows(pool, nz, slot, jobs, cpu, a, b)
    assert fair.tobytes() == max_min_affine(counts, cpu[jobs], a, b).tobytes()
    clear_memos()
    expected = min_avg_stretch(counts, cpu[jobs], a, b)
    got = min_avg_stretch_rows(pool, nz, slot, jobs, cpu, a, b)
    assert got.tobytes() == expected.tobytes()
    kept = memo("min_avg_stretch")
    assert kept.misses == 1 and kept.hits == 1  # the rows' LPs were the matrix's


@pytest.mark.parametrize("name", ["Greedy */opt=min", "Greedy */opt=avg", "/stretch-per/opt=avg"])
def test_the_driver_names_a_running_job_without_a_row_and_passes_other_errors_on(
    name, monkeypatch
):
    # the rows' kernels refuse a job without a row (ValueError): the driver turns that
    # into the simulator's invariant error, and lets any other ValueError through as it is
    from allockit.simulation import dfrs_algorithm
    from allockit.simulation.dfrs_algorithm import DfrsAlgorithm

    w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0], runtime=[100, 100],
                           tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.4, 0.4])

    def two_running():
        driver = dfrs_module._Driver(w, DfrsAlgorithm(name), 300.0, False, False)
        for j in (0, 1):
            driver.state.submit(j)
            driver.state.start_job(j, np.array([0]), 0.0)
        return driver

    driver = two_running()
    jobs, y = driver.yields(0.0)  # a sound state: yields
    assert jobs.tolist() == [0, 1] and y.size == 2
    driver.state.rows.drop(1)
    with pytest.raises(SimulationInvariantError, match="a running job without a row"):
        driver.yields(0.0)

    def broken(*args, **kwargs):
        raise ValueError("something else")

    driver = two_running()
    for helper in ("maxmin_rows", "max_avg_yields_rows", "min_avg_stretch_rows"):
        monkeypatch.setattr(dfrs_algorithm, helper, broken)
    with pytest.raises(ValueError, match="something else"):
        driver.yields(0.0)
