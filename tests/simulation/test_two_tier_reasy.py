"""REASY's two readings of Algorithm 3 (``reasy_extra``, ``reasy_protect``), and the
progress KEASY throws away per kill (``lost_progress_per_kill``).

Every number below is worked out by hand in the docstrings.
"""

import math

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.instances.workload import Platform, Workload
from allockit.simulation.simulate import simulate
from allockit.simulation.two_tier import simulate_two_tier
from allockit.simulation.two_tier_choices import CHOICES
from allockit.simulation.two_tier_policies import PinnedReservation, scheduler_for
from allockit.simulation.two_tier_state import BG, FG, WAITING, TwoTierState

A, H, C, D = 0, 1, 2, 3


def line17_state() -> TwoTierState:
    """5 processors P0..P4, four jobs submitted at 0, every CPU usage 0.5.

    - A (2 processes, estimate 50 s) in fg on P0 and P2;
    - H (2 processes, estimate 100 s), the merged list's head, in bg on P0 and P1;
    - C (3 processes, estimate 1,000 s) and D (1 process, estimate 1,000 s) waiting.

    Idle fg VMs: P1, P3, P4 (idle = 3).
    """
    w = Workload.from_jobs(
        Platform(nodes=5),
        submit=[0, 0, 0, 0],
        runtime=[50, 100, 1000, 1000],
        tasks=[2, 2, 3, 1],
        cpu=[0.5] * 4,
        mem=[0.1] * 4,
    )
    s = TwoTierState(w, seen_cpu=w.cpu, estimate=w.runtime, rng=np.random.default_rng(0),
                     draws="job", migration_cost=20.0, bg_threshold=0.96, debug=True)
    for j in range(4):
        s.submit(j, 0.0)
    s.place_fg(A, np.array([0, 2]), 0.0)
    s.place_bg(H, np.array([0, 1]), 0.0)
    return s


def test_line17_reservation_worked_by_hand():
    """The reservation of the head H (in bg on P0, P1) at time 10.

    Shadow (both readings): the jobs in the fg VMs of H's processors are Psi = {A} (P1's
    fg VM is idle), so shadow = A's estimated end = 0 + 50 = 50.

    Extra, the paper's prose ("the ones now idle and no process of the job is running
    in their background VMs"): idle fg VMs off P0, P1 = {P3, P4} -> extra = 2.

    Extra, Algorithm 3 line 17 (extra = idle + s - n): idle = 3 (P1, P3, P4), s = the
    size of A = 2, n = the size of H = 2 -> extra = 3 + 2 - 2 = 3. (EASY's count: at 50
    A frees P0 and P2, 5 fg VMs are free, H takes 2, 3 are left.)

    With protection the head's processors P0, P1 are avoided; without it, avoid is None.
    """
    s = line17_state()
    assert PinnedReservation().reserve(s, H, 10.0) == (50.0, 2, pytest.approx([0, 1]))
    shadow, extra, avoid = PinnedReservation("line17").reserve(s, H, 10.0)
    assert (shadow, extra, avoid.tolist()) == (50.0, 3, [0, 1])
    assert PinnedReservation("line17", protect=False).reserve(s, H, 10.0) == (50.0, 3, None)
    assert PinnedReservation("idle", protect=False).reserve(s, H, 10.0) == (50.0, 2, None)
    with pytest.raises(ValueError, match="line17"):
        PinnedReservation("line-17")


@pytest.mark.parametrize(
    ("extra", "protect", "fg_c", "fg_d"),
    [
        # prose + protection (default): C (3) > extra 2 -> waits; D (1) <= 2, fits off
        # P0/P1 -> dispatched to P3 (bg usage 0, lowest index off the head)
        ("idle", True, None, [3]),
        # prose, Dispatch unmodified: same counts (C 3 > 2), D's Dispatch picks P3 too
        # (P1's bg holds H at usage 0.5; P3 and P4 are at 0)
        ("idle", False, None, [3]),
        # line 17 + protection: C <= extra 3 but only 2 fg VMs are idle off P0/P1 -> waits;
        # D -> P3
        ("line17", True, None, [3]),
        # line 17 literally: C (3) <= extra 3 -> admitted on P3, P4 and P1 (increasing
        # bg usage: 0, 0, 0.5); no fg VM is left for D
        ("line17", False, [3, 4, 1], None),
    ],
)
def test_line17_backfill_worked_by_hand(extra, protect, fg_c, fg_d):
    """Step 2 at time 10 (C and D end at 1,010 > shadow 50: only the extra rule can
    admit them). Step 1 first: H cannot swap (P0's fg VM runs A) and REASY refuses."""
    s = line17_state()
    scheduler_for("REASY", reasy_extra=extra, reasy_protect=protect).fg_pass(s, 10.0)
    assert s.tier[H] == BG
    for job, expected in ((C, fg_c), (D, fg_d)):
        if expected is None:
            assert s.tier[job] == WAITING
        else:
            assert s.tier[job] == FG and s.procs[job].tolist() == expected


def lublin(n=300, procs=32, seed=3):
    from allockit.experiments.measy import MeasySets, build_workload

    sets = MeasySets(jobs={"lublin": n}, models=("lublin", "lublin"), processors=procs,
                     seed=seed)
    return build_workload(sets.spec("lublin", 0.9))


def test_reasy_options_default_is_the_previous_rule_and_others_ignore_them():
    w = lublin()
    base = simulate(w, "REASY", seed=0)
    same = simulate(w, "REASY", seed=0, reasy_extra="idle", reasy_protect=True)
    assert np.array_equal(base.start, same.start) and np.array_equal(base.end, same.end)
    assert base.summary()["reasy_extra"] == "idle" and base.summary()["reasy_protect"] is True
    literal = simulate(w, "REASY", seed=0, reasy_extra="line17", reasy_protect=False)
    assert literal.summary()["reasy_extra"] == "line17"
    assert literal.summary()["reasy_protect"] is False
    # on this backlog the literal reading changes the schedule
    assert not np.array_equal(base.end, literal.end)
    for alg in ("KEASY", "MEASY"):
        a = simulate(w, alg, seed=0)
        b = simulate(w, alg, seed=0, reasy_extra="line17", reasy_protect=False)
        assert np.array_equal(a.end, b.end) and "reasy_extra" not in a.summary()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"reasy_extra": "line-17"}, "reasy_extra must be one of idle, line17; got 'line-17'"),
        ({"reasy_protect": "yes"}, "reasy_protect must be true or false; got 'yes'"),
    ],
)
def test_reasy_options_refused(options, message):
    with pytest.raises(InvalidInputError, match=message):
        simulate(lublin(20), "REASY", **options)
    with pytest.raises(InvalidInputError, match="reasy_"):
        simulate_two_tier(lublin(20), "REASY", **options)


def test_reasy_choice_recorded():
    text = CHOICES["reasy"]
    assert "line17" in text and "idle + s - n" in text and "reasy_protect" in text


def test_lost_progress_per_kill_weighted_by_processes():
    """Two kills: job X (1 process) after 10 s of progress, job Y (3 processes) after
    30 s: (10 x 1 + 30 x 3) / (1 + 3) = 25 s thrown away per kill, weighted by size
    (the unweighted mean would be 20 s)."""
    w = Workload.from_jobs(Platform(nodes=4), submit=[0, 0], runtime=[100, 100],
                           tasks=[1, 3], cpu=[0.5, 0.5], mem=[0.1, 0.1])
    s = TwoTierState(w, seen_cpu=w.cpu, estimate=w.runtime, rng=np.random.default_rng(0),
                     draws="job", migration_cost=20.0, bg_threshold=0.96)
    s.submit(0, 0.0)
    s.submit(1, 0.0)
    s.place_bg(0, np.array([0]), 0.0)
    s.place_bg(1, np.array([1, 2, 3]), 0.0)
    for j, progress in ((0, 10.0), (1, 30.0)):
        s.done[j], s.last[j], s.rate[j] = progress, 5.0, 0.0
        s.kill(j, 5.0)
    assert s.killed_work / s.killed_processes == pytest.approx(25.0, rel=1e-12)


def test_lost_progress_per_kill_in_the_summary():
    w = lublin()
    keasy = simulate(w, "KEASY", seed=0)
    kills = keasy.extra["job_kills"]
    assert kills.sum() > 0
    lost = keasy.summary()["lost_progress_per_kill"]
    # at most the longest runtime of a killed job, at least 0
    assert 0 <= lost <= float(w.runtime[kills > 0].max())
    assert math.isnan(simulate(w, "MEASY", seed=0).summary()["lost_progress_per_kill"])


def test_lost_progress_per_kill_follows_fwload_long_branch():
    """The progress a kill throws away scales with FWload's long-runtime branch, the
    project's calibration (long_mean 15,070 s, probability 0.1 -> 0.9 with size): a
    quarter of long_mean, or a size-independent probability 0.5 with long_mean
    recalibrated to the same mean runtime (4,913 s), cut it (1,500 jobs, 64
    processors, load 0.7, seed 0: 1,919 s shipped, 386 s and 1,171 s)."""
    import dataclasses

    from allockit.instances.feitelson96 import (
        Feitelson96Model,
        calibrate_feitelson96,
        feitelson96_workload,
    )

    base = Feitelson96Model()
    flat = calibrate_feitelson96(
        base=dataclasses.replace(base, long_prob_serial=0.5, long_prob_full=0.5)
    )

    def lost(model):
        w = feitelson96_workload(1500, procs=64, model=model, load=0.7, cpu_usage=True,
                                 estimates=True, seed=0)
        return simulate_two_tier(w, "KEASY", seed=0).summary()["lost_progress_per_kill"]

    shipped = lost(base)
    assert lost(dataclasses.replace(base, long_mean=base.long_mean / 4)) < shipped / 2
    assert lost(flat) < 0.75 * shipped
