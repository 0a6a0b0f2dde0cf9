"""Two-tier schedulers: schedules worked out by hand, one per rule of Algorithms 1-3.

The random draws are fixed (fg loss 2 %, rho 0.5) so every time below is computed by
hand in the comments: an fg process runs at 0.98 while its bg VM is occupied, else at
1; a bg process at 1 under an idle fg VM, else at ``0.5 * (1 - U_fg) / U_bg``.
"""

import math

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.instances.workload import Platform, Workload
from allockit.simulation.simulate import SIMULATORS, simulate, simulator_for
from allockit.simulation.two_tier import simulate_two_tier
from allockit.simulation.two_tier_choices import CHOICES, choices_markdown
from allockit.simulation.two_tier_metrics import batch_means_ci
from allockit.simulation.two_tier_state import TwoTierState

ALGS = ("KEASY", "REASY", "MEASY")
LOSS, RHO = 0.02, 0.5


@pytest.fixture
def fixed_draws(monkeypatch):
    def loss(self, count):
        return LOSS if count == 1 else np.full(count, LOSS)

    def rho(self, single, count):
        return RHO if count == 1 else np.full(count, RHO)

    monkeypatch.setattr(TwoTierState, "_draw_loss", loss)
    monkeypatch.setattr(TwoTierState, "_draw_rho", rho)


def W(nodes, submit, runtime, tasks, cpu, requested=None):
    n = len(submit)
    return Workload.from_jobs(
        Platform(nodes=nodes),
        submit=submit,
        runtime=runtime,
        tasks=tasks,
        cpu=cpu,
        mem=[0.1] * n,
        requested_time=requested,
    )


def run(w, alg, **kw):
    kw.setdefault("seed", 0)
    return simulate_two_tier(w, alg, debug=True, **kw)


# ---------------------------------------------------------------------- Deploy outcomes
@pytest.mark.parametrize("alg", ALGS)
def test_free_priority_swap(fixed_draws, alg):
    # 2 processors. A (1 process, U 0.5, 100 s) in fg on P0; B (2 processes, U 0.5) cannot
    # join (1 idle fg VM) and goes to bg on P1 (idle fg: rate 1) and P0 (0.5 * 0.5 / 0.5
    # = 0.5): B runs at 0.5 and A at 0.98. A ends at 100/0.98; every processor of B then
    # has an idle fg VM: B swaps priorities for free and finishes its 100 - 50/0.98 s.
    w = W(2, [0, 0], [100, 100], [1, 2], [0.5, 0.5])
    r = run(w, alg)
    t_a = 100 / 0.98
    assert r.start.tolist() == [0.0, 0.0]
    assert r.end.tolist() == pytest.approx([t_a, t_a + 100 - 0.5 * t_a], rel=1e-12)
    assert r.extra["job_swaps"].tolist() == [0, 1]
    assert r.extra["job_first_fg_start"][1] == pytest.approx(t_a, rel=1e-12)
    s = r.summary()
    assert (s["swaps"], s["kills"], s["migrations"], s["wasted_cpu_seconds"]) == (1, 0, 0, 0.0)


# 3 processors, U 0.5 everywhere. t=0: A (100 s) in fg on P0, X (50 s) in fg on P1.
# t=1: B (2 processes, 60 s) does not fit (1 idle fg VM); the reservation (shadow 50,
# extra 0) keeps it out of fg; SJF puts it in bg on P2 (idle fg, rate 1) and P0 (under
# A: 0.5). At t=50 X ends: B fits the 2 idle fg VMs (P1, P2) but P0's fg VM is busy, so
# it cannot swap. A: 1 s alone, then 0.98 while B is below it.
SCENARIO = dict(nodes=3, submit=[0, 0, 1], runtime=[100, 50, 60], tasks=[1, 1, 2])


def test_keasy_kills_and_restarts_from_zero(fixed_draws):
    r = run(W(**SCENARIO, cpu=[0.5] * 3), "KEASY")
    # B progressed 0.5 * 49 = 24.5 s in bg; it is killed at 50 and restarts: 50 + 60
    assert r.start.tolist() == [0.0, 0.0, 1.0]
    assert r.end[2] == pytest.approx(110.0, rel=1e-12)
    assert r.extra["job_kills"].tolist() == [0, 0, 1]
    assert r.extra["job_first_fg_start"][2] == 50.0
    # wasted: 24.5 s of progress x 2 processes x U 0.5
    assert r.summary()["wasted_cpu_seconds"] == pytest.approx(24.5, rel=1e-12)
    # the progress thrown away per kill, weighted by size: 24.5 x 2 / 2
    assert r.summary()["lost_progress_per_kill"] == pytest.approx(24.5, rel=1e-12)
    # A: 1 + 49 * 0.98 = 49.02 s done at 50, alone afterwards
    assert r.end[0] == pytest.approx(50 + 100 - 49.02, rel=1e-12)
    assert r.migrations == 0 and r.summary()["swaps"] == 0


@pytest.mark.parametrize("cost", [20.0, 0.0, 300.0])
def test_measy_migrates_with_its_cost(fixed_draws, cost):
    r = run(W(**SCENARIO, cpu=[0.5] * 3), "MEASY", migration_cost=cost)
    # B keeps its 24.5 s, makes no progress for the cost, then runs alone: 35.5 s more
    assert r.end[2] == pytest.approx(50 + cost + 35.5, rel=1e-12)
    assert r.job_migrations.tolist() == [0, 0, 1] and r.summary()["kills"] == 0
    # one of B's processes stays on P2 (its own processor), the other moves from P0 to P1
    assert r.summary()["moved_processes"] == 1
    assert r.end[0] == pytest.approx(50 + 100 - 49.02, rel=1e-12)


def test_reasy_refuses_and_waits_for_its_processors(fixed_draws):
    r = run(W(**SCENARIO, cpu=[0.5] * 3), "REASY")
    # B stays pinned on P2/P0 at rate 0.5 until A ends at 1 + 99/0.98, then swaps.
    t_a = 1 + 99 / 0.98
    assert r.end[0] == pytest.approx(t_a, rel=1e-12)
    assert r.extra["job_first_fg_start"][2] == pytest.approx(t_a, rel=1e-12)
    assert r.end[2] == pytest.approx(t_a + 60 - 0.5 * (t_a - 1), rel=1e-12)
    s = r.summary()
    assert (s["kills"], s["migrations"], s["swaps"]) == (0, 0, 1)


# ---------------------------------------------------------------------- REASY's reservation
def test_reasy_shadow_and_extra_vms_protect_a_pinned_head(fixed_draws):
    # 4 processors, U 0.5 except C (0.9). t=0: A (100 s) -> P0, X (50 s) -> P1,
    # Y (500 s) -> P2 in fg; B (2 processes, 300 s) is the head: bg on P3 (idle fg) and
    # P0; C (2 processes, 1000 s, U 0.9) bg on P1 and P2. X ends at 50/0.98 (C below it):
    # B is refused (P0 busy). Its reservation: shadow = A's estimated end (100), extra =
    # the idle fg VMs off B's processors = {P1}. E (1 process, 200 s) arrives at 60: it
    # would end after the shadow, so only the extra rule admits it, and only onto P1,
    # although Dispatch alone would prefer P3 (bg usage 0.5 < 0.9). A ends at 100/0.98,
    # freeing P0: B swaps at once (P3 is still idle).
    w = W(
        4,
        [0, 0, 0, 0, 0, 60],
        [100, 50, 500, 300, 1000, 200],
        [1, 1, 1, 2, 2, 1],
        [0.5, 0.5, 0.5, 0.5, 0.9, 0.5],
    )
    r = run(w, "REASY")
    t_a = 100 / 0.98
    assert r.start[5] == 60.0 and r.extra["job_first_fg_start"][5] == 60.0
    assert r.extra["job_first_fg_start"][3] == pytest.approx(t_a, rel=1e-12)
    assert r.end[3] == pytest.approx(t_a + 300 - 0.5 * t_a, rel=1e-12)
    assert r.summary()["kills"] == 0
    # KEASY kills B at 50/0.98 instead and restarts it on P3 and P1
    k = run(w, "KEASY")
    assert k.extra["job_kills"][3] == 1
    assert k.extra["job_first_fg_start"][3] == pytest.approx(50 / 0.98, rel=1e-12)


def test_reasy_pinned_head_reservation_values():
    from allockit.simulation.two_tier_policies import PinnedReservation

    w = W(3, [0, 0], [50, 50], [1, 2], [0.5, 0.5], requested=[80, 50])
    s = TwoTierState(
        w,
        seen_cpu=w.cpu,
        estimate=w.requested_time,
        rng=np.random.default_rng(0),
        draws="job",
        migration_cost=20.0,
        bg_threshold=0.96,
    )
    s.submit(0, 0.0)
    s.submit(1, 0.0)
    s.place_fg(0, np.array([0]), 0.0)
    s.place_bg(1, np.array([0, 1]), 0.0)
    shadow, extra, avoid = PinnedReservation().reserve(s, 1, 10.0)
    assert (shadow, extra, avoid.tolist()) == (80.0, 1, [0, 1])
    # an overrunning fg job: the shadow is now
    assert PinnedReservation().reserve(s, 1, 90.0)[0] == 90.0


# ---------------------------------------------------------------------- the threshold
@pytest.mark.parametrize(
    ("u_fg", "threshold", "cpu_info", "in_bg"),
    [
        (0.97, 0.96, "known", False),  # above the threshold: no bg process below it
        (0.95, 0.96, "known", True),
        (0.97, 0.98, "known", True),  # the threshold is an option
        (0.5, 0.96, "none", False),  # no CPU information: seen at 100 %
    ],
)
def test_bg_only_under_the_threshold(fixed_draws, u_fg, threshold, cpu_info, in_bg):
    # 1 processor: A (100 s) in fg; B (1 process, U 0.5, 50 s) arrives at 1.
    w = W(1, [0, 1], [100, 50], [1, 1], [u_fg, 0.5])
    r = run(w, "MEASY", bg_threshold=threshold, cpu_info=cpu_info)
    if not in_bg:
        assert r.start.tolist() == [0.0, 100.0] and r.end.tolist() == [100.0, 150.0]
        return
    # B in bg at rate 0.5 * (1 - u_fg) / 0.5; A at 0.98 from t=1
    t_a = 1 + 99 / 0.98
    rate = RHO * (1 - u_fg) / 0.5
    assert r.start.tolist() == [0.0, 1.0]
    assert r.end[0] == pytest.approx(t_a, rel=1e-12)
    assert r.end[1] == pytest.approx(t_a + 50 - rate * (t_a - 1), rel=1e-12)


def test_threshold_zero_turns_the_bg_tier_off():
    w = W(2, [0, 1, 2], [100, 100, 150], [1, 2, 1], [0.5, 0.5, 0.5])
    r = simulate_two_tier(w, "KEASY", bg_threshold=0.0, seed=0)
    assert r.summary()["bg_utilization"] == 0.0
    assert r.start.tolist() == simulate_two_tier(w, "KEASY", background=False).start.tolist()


# ---------------------------------------------------------------------- EASY inside
@pytest.mark.parametrize("alg", ALGS)
def test_easy_reservation_inside_the_two_tier_scheduler(fixed_draws, alg):
    # 2 processors, U 1 everywhere (bg only under idle fg VMs). A (100 s) on P0 at 0;
    # B (2 processes) at 1 is the head: shadow 100, extra 0. C (50 s) at 2 ends by the
    # shadow: backfilled into fg on P1. D (150 s) at 3 would delay B: not in fg, and no
    # bg VM is eligible (both fg processes at 100 %). C ends at 52: D goes to bg on P1
    # (idle fg: rate 1). At 100 A ends and B starts in fg on P0 and P1 (P0 first: its bg
    # VM is empty); D under B gets no cycle (rate 0) and B runs at 0.98. B ends at
    # 100 + 100/0.98; D, 48 s done, swaps and ends 102 s later.
    w = W(2, [0, 1, 2, 3], [100, 100, 50, 150], [1, 2, 1, 1], [1.0] * 4)
    r = run(w, alg)
    t_b = 100 + 100 / 0.98
    assert r.start.tolist() == [0.0, 100.0, 2.0, 52.0]
    assert r.end[:3].tolist() == pytest.approx([100.0, t_b, 52.0], rel=1e-12)
    assert r.extra["job_first_fg_start"][3] == pytest.approx(t_b, rel=1e-12)
    assert r.end[3] == pytest.approx(t_b + 102, rel=1e-12)
    easy = run(w, alg, background=False)
    assert easy.start.tolist() == [0.0, 100.0, 2.0, 200.0]
    assert easy.end.tolist() == [100.0, 200.0, 52.0, 350.0]
    assert easy.algorithm == f"{alg}/no-bg"


def test_a_job_can_complete_in_bg(fixed_draws):
    # like the paper's J8, a job can finish in bg. A (2 processes, 100 s) fills P0-P1;
    # B (1 process, 10 s) arrives at 1 and finds no idle fg VM: SJF puts it in bg on P0
    # (both fg usages are 0.5, P0 first). It never reaches fg.
    w = W(2, [0, 1], [100, 10], [2, 1], [0.5, 0.5], requested=[100, 1000])
    r = run(w, "MEASY")
    # B on P0's bg (usage 0.5): 0.5 * 0.5 / 0.5 = 0.5 -> 20 s; A at 0.98 meanwhile
    assert r.end[1] == pytest.approx(21.0, rel=1e-12)
    assert math.isnan(r.extra["job_first_fg_start"][1])
    assert r.end[0] == pytest.approx(1 + 20 + (100 - 1 - 20 * 0.98), rel=1e-12)


# ---------------------------------------------------------------------- registry, options
def test_simulate_registry_runs_the_two_tier_family():
    w = W(2, [0, 1, 2], [100, 100, 150], [1, 2, 1], [0.5, 0.5, 0.5])
    assert simulator_for(" measy ").spec.name == "two-tier"
    assert "seed" not in SIMULATORS["two-tier"].spec.common
    a = simulate(w, "measy", seed=3, migration_cost=10.0, time_limit=5)
    b = simulate_two_tier(w, "MEASY", seed=3, migration_cost=10.0)
    assert a.end.tolist() == b.end.tolist()
    with pytest.raises(InvalidInputError, match=r"two-tier.*does not accept option 'penalty'"):
        simulate(w, "KEASY", penalty=10)
    with pytest.raises(InvalidInputError, match="seed must be an integer"):
        simulate(w, "KEASY", seed=-1)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"algorithm": "XEASY"}, "algorithm must be one of KEASY, REASY, MEASY; got 'XEASY'"),
        ({"migration_cost": -1.0}, r"migration_cost must be a finite number >= 0.*-1.0"),
        ({"migration_cost": math.inf}, "migration_cost must be a finite number"),
        ({"bg_threshold": -0.5}, r"bg_threshold must be a finite number >= 0; got -0.5"),
        ({"cpu_info": "some"}, "cpu_info must be 'known' or 'none'; got 'some'"),
        ({"background": "no"}, "background must be True or False; got 'no'"),
        ({"draws": "slot"}, "draws must be one of job, process, placement; got 'slot'"),
    ],
)
def test_invalid_options_name_the_field_and_value(kwargs, match):
    w = W(2, [0], [10], [1], [0.5])
    kwargs = {"algorithm": "MEASY", **kwargs}
    with pytest.raises(InvalidInputError, match=match):
        simulate_two_tier(w, **kwargs)


def test_invalid_platforms_are_refused():
    w = Workload.from_jobs(
        Platform(nodes=2, cores=4), submit=[0], runtime=[10], tasks=[1], cpu=[0.25], mem=[0.1]
    )
    with pytest.raises(InvalidInputError, match=r"Platform\.cores must be 1; got 4"):
        simulate_two_tier(w, "MEASY")
    with pytest.raises(InvalidInputError, match="job 1 has 3 processes; the platform has 2"):
        simulate_two_tier(W(2, [0], [10], [3], [0.5]), "MEASY")


def test_batch_means_interval():
    values = np.arange(205.0) ** 1.5  # warm-up 20 jobs, 20 batches of 9, 5 dropped
    low, high = batch_means_ci(values)
    means = values[20:200].reshape(20, 9).mean(axis=1)
    half = 2.093 * means.std(ddof=1) / math.sqrt(20)
    assert (low, high) == pytest.approx((means.mean() - half, means.mean() + half))
    assert all(math.isnan(x) for x in batch_means_ci(np.ones(1)))
    with pytest.raises(InvalidInputError, match="warmup must be a number in"):
        batch_means_ci(values, warmup=1.0)
    with pytest.raises(InvalidInputError, match=r"warmup must be a number in .*; got False"):
        batch_means_ci(values, warmup=False)
    for bad in (np.float64("nan"), 2.5, np.int64(40)):
        with pytest.raises(InvalidInputError, match=r"batches must be an integer in \[2, 31\]"):
            batch_means_ci(values, batches=bad)
    # numpy numbers are numbers (they were refused)
    assert batch_means_ci(values, batches=np.int64(20), warmup=np.float32(0.1)) == (low, high)


def test_every_choice_is_documented_once():
    assert len(CHOICES) >= 20 and all(len(text) > 40 for text in CHOICES.values())
    table = choices_markdown()
    assert all(f"`{key}`" in table for key in CHOICES)


# ---------------------------------------------------------------------- feedback
@pytest.mark.parametrize("alg", ALGS)
def test_feedback_submits_a_repeat_when_its_preceding_job_ends(fixed_draws, alg):
    # 1 processor. A (100 s) at 0; B at 10 (open-arrival time) is a repeat of A with a
    # 5 s think time. Open arrivals: B waits from 10 to 100. Feedback: B is submitted at
    # 105 and its response time counts from there.
    w = Workload.from_jobs(
        Platform(nodes=1),
        submit=[0, 10],
        runtime=[100, 50],
        tasks=[1, 1],
        cpu=[1.0, 1.0],
        mem=[0.1, 0.1],
        preceding=[-1, 1],
        think_time=[math.nan, 5.0],
    )
    open_arrivals = run(w, alg)
    assert open_arrivals.start.tolist() == [0.0, 100.0]
    assert open_arrivals.mean_response_time == (100 + 140) / 2
    fb = run(w, alg, feedback=True)
    assert fb.submit.tolist() == [0.0, 105.0] and fb.start.tolist() == [0.0, 105.0]
    assert fb.mean_response_time == (100 + 50) / 2 and fb.summary()["feedback"] is True


def test_feedback_cycle_is_refused():
    jobs = dict(submit=[0, 1], runtime=[10, 10], tasks=[1, 1], cpu=[1.0, 1.0],
                mem=[0.1, 0.1])
    with pytest.raises(InvalidInputError, match=r"preceding jobs form a cycle \(job 1 is on"):
        Workload.from_jobs(Platform(nodes=1), preceding=[2, 1], **jobs)
    w = Workload.from_jobs(Platform(nodes=1), preceding=[-1, 1], **jobs)
    with pytest.raises(InvalidInputError, match="feedback must be True or False; got 1"):
        simulate_two_tier(w, "MEASY", feedback=1)
