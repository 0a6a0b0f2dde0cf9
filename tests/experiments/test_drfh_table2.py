"""DRFH Table II / Fig. 5 checks: slot coverage, snapshots and the heavy dynamic day."""

import pytest

from allockit.errors import InvalidInputError
from allockit.experiments.drfh_table2 import heavy_day, slot_coverage, table2_snapshot
from allockit.instances.drfh import google_servers


def test_slot_coverage_follows_the_scarcer_resource():
    # beside a (1, 1) server, a memory-poor (0.5, 0.25) one holds 3 slots of 1/14: all
    # but a bit of its memory, less than half of its CPU
    pool = [{"capacity": [1.0, 1.0], "count": 1}, {"capacity": [0.5, 0.25], "count": 1}]
    assert slot_coverage(pool, 14) == pytest.approx(((14 + 3) / 14 / 1.5, (14 + 3) / 14 / 1.25))
    assert slot_coverage(pool[:1], 14) == pytest.approx((1.0, 1.0))
    cpu, mem = slot_coverage(google_servers(), 14)
    assert mem > cpu  # the Google mix has more memory-poor than CPU-poor servers
    with pytest.raises(InvalidInputError, match="per_largest must be an integer >= 1"):
        slot_coverage(google_servers(), 0)


def test_snapshot_shape_depends_on_the_workload():
    base = {r["scheduler"]: r for r in table2_snapshot(servers=200, users=40)}
    assert (
        base["Best-Fit DRFH"]["cpu"]
        >= base["First-Fit DRFH"]["cpu"]
        > base["Slots, 14 per max server"]["cpu"]
    )
    assert base["Slots, 14 per max server"]["paper_cpu"] == 43.9
    light = {r["scheduler"]: r for r in table2_snapshot(servers=200, users=40, mem_scale=0.6)}
    # CPU-heavier tasks: less memory per CPU used (not for every slot size: smaller
    # memory demands also let more users' tasks fit a slot)
    for name in ("Best-Fit DRFH", "First-Fit DRFH", "Slots, 14 per max server"):
        assert light[name]["mem"] / light[name]["cpu"] < base[name]["mem"] / base[name]["cpu"]
    finite = {r["scheduler"]: r for r in table2_snapshot(servers=200, users=5, tasks=(10, 20))}
    # everything fits: both DRFH heuristics place every task
    assert finite["Best-Fit DRFH"]["cpu"] == pytest.approx(finite["First-Fit DRFH"]["cpu"])
    with pytest.raises(InvalidInputError, match="mem_scale must be > 0"):
        table2_snapshot(servers=20, users=2, mem_scale=0.0)


def test_heavy_day_reports_both_means_and_the_comparison():
    out = heavy_day(servers=10, users=8, hours=0.5, tasks=(10, 80), points=50)
    assert set(out["runs"]) == {"best-fit", "first-fit", "slots-14"}
    for run in out["runs"].values():
        assert all(0.0 <= x <= 100.0 + 1e-9 for x in run["mean"] + run["window_mean"])
    assert all(0.0 <= x <= 1.0 for x in out["best_at_least_first"])
    with pytest.raises(InvalidInputError, match="window must satisfy"):
        heavy_day(servers=10, users=2, window=(0.5, 0.5))
    with pytest.raises(InvalidInputError, match=r"points must be an integer in \[2,"):
        heavy_day(servers=10, users=2, points=1)
