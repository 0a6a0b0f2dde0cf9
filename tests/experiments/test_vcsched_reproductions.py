"""VCSched reproductions: both MCB scorings (Table 1/7) and the large/parallel figures."""

import json

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.evaluation.placement import min_yield_of
from allockit.experiments.vcsched_figures import (
    LARGE_METHODS,
    figure_series,
    large_claims,
    lp_rows,
    parallel_claims,
    series_markdown,
    set_sample,
)
from allockit.experiments.vcsched_table1 import (
    MCB_ORDER,
    _pack_python,
    clipped_set,
    mcb_scoring_tasks,
    mcb_search,
    run_mcb_scoring_task,
    scoring_table,
    worst_instances,
)
from allockit.heuristics.mcb import MCB_VARIANTS, _sort_key, mcb, mcb_pack
from allockit.instances.generators import generate_vcsched, iter_vcsched_set
from allockit.instances.vcsched import VCInstance


def _instances(n=12):
    rng = np.random.default_rng(5)
    out = []
    for k in range(n):
        out.append(
            generate_vcsched(
                hosts=int(rng.integers(2, 6)),
                jobs=int(rng.integers(4, 14)),
                slack=float(rng.choice([0.1, 0.3, 0.6])),
                cov_cpu=0.75,
                cov_mem=0.75,
                seed=k,
            )
        )
    return out


@pytest.mark.parametrize("variant", sorted(MCB_VARIANTS))
def test_python_packing_equals_the_compiled_packing(variant):
    key, descending = MCB_VARIANTS[variant]
    for inst in _instances():
        job = inst.task_job
        for target in (0.0, 0.3, 0.6, 0.9):
            cpu, mem = target * inst.cpu[job], np.asarray(inst.mem[job], float)
            keys = _sort_key(cpu, mem, key)
            order = np.argsort(-keys if descending else keys, kind="stable")
            heavy = cpu > mem
            mine = _pack_python(
                cpu,
                mem,
                inst.hosts,
                order[heavy[order]].tolist(),
                order[~heavy[order]].tolist(),
                memory_first=False,
            )
            theirs = mcb_pack(inst, target, key=key, descending=descending)
            assert (mine is None) == (theirs is None)
            if mine is not None:
                assert mine.tolist() == theirs.tolist()


def test_bound_start_is_allockits_search_and_targets_are_guaranteed():
    for inst in _instances():
        for variant, (key, descending) in MCB_VARIANTS.items():
            placed, _ = mcb_search(inst, variant, start="bound")
            result = mcb(inst, key=key, descending=descending, tol=0.01)
            assert (placed is None) == (result.min_yield is None)
            if placed is None:
                continue
            assert min_yield_of(inst, placed) == pytest.approx(result.min_yield, abs=1e-12)
            for start in ("bound", "half"):
                for rule in ("allockit", "need-key", "memory-first"):
                    p, t = mcb_search(inst, variant, start=start, rule=rule)
                    if p is not None:
                        # every job gets at least the target the packing was made for
                        assert min_yield_of(inst, p) >= t - 1e-9


def test_half_start_never_tries_the_bound():
    inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0.1, 0.1])
    assert mcb_search(inst, "mcb8", start="bound")[1] == 1.0
    target = mcb_search(inst, "mcb8", start="half", tol=0.01)[1]
    assert 0.99 <= target < 1.0


def test_nothing_packs_gives_none():
    inst = VCInstance.from_lists(hosts=1, cpu=[0.5, 0.5], mem=[0.6, 0.6])
    assert mcb_search(inst, "mcb4") == (None, None)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"variant": "mcb9"}, "variant must be one of"),
        ({"start": "top"}, "start must be one of"),
        ({"rule": "x"}, "rule must be one of"),
        ({"tol": 0.0}, "tol must be > 0"),
    ],
)
def test_mcb_search_refuses_bad_options(kwargs, match):
    inst = VCInstance.from_lists(hosts=1, cpu=[0.5], mem=[0.1])
    with pytest.raises(InvalidInputError, match=match):
        mcb_search(inst, **kwargs)


def test_task_records_both_scorings():
    inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.5, 0.5, 0.5])
    (task,) = mcb_scoring_tasks([("a", inst.to_dict())])
    out = run_mcb_scoring_task(task)
    assert set(out["results"]) == set(MCB_ORDER)
    r = out["results"]["mcb8"]["half"]
    assert r["target"] < r["exact"] == pytest.approx(1 / 1.2)
    json.dumps(out)  # a store row
    with pytest.raises(InvalidInputError, match="start must be one of"):
        mcb_scoring_tasks([("a", inst.to_dict())], starts=["x"])
    with pytest.raises(InvalidInputError, match="rule must be one of"):
        mcb_scoring_tasks([("a", inst.to_dict())], rule="x")
    with pytest.raises(InvalidInputError, match="tol must be > 0"):
        mcb_scoring_tasks([("a", inst.to_dict())], tol=-1)


def _row(stem, values, start="bound"):
    res = {v: {start: {"exact": None, "target": None}} for v in MCB_ORDER}
    for v, (exact, target) in values.items():
        res[v][start] = {"exact": exact, "target": target}
    return {"instance": stem, "ok": True, "outputs": {"results": res, "bound": 1.0}}


def test_scoring_rules():
    rows = [
        _row("a", {"mcb8": (0.8, 0.7), "mcb5": (1.0, 0.7), "mcb4": (0.5, 0.0)}),
        _row("b", {"mcb8": (0.5, 0.5)}),
        _row("c", {}),  # nobody solves: a failure for all, no degradation
        {"instance": "d", "ok": False, "outputs": {}},  # a failed task is skipped
    ]
    exact = {x["variant"]: x for x in scoring_table(rows)}
    assert exact["mcb8"]["avg"] == pytest.approx(10.0)
    assert exact["mcb8"]["max"] == pytest.approx(20.0)
    assert exact["mcb4"]["avg"] == pytest.approx(50.0) and exact["mcb4"]["failures"] == 2
    assert exact["mcb8"]["over_3"] == 1 and exact["mcb8"]["over_10"] == 1
    target = {x["variant"]: x for x in scoring_table(rows, scoring="target")}
    assert target["mcb8"]["avg"] == 0.0
    assert target["mcb4"]["avg"] is None and target["mcb4"]["failures"] == 3  # target 0
    as100 = {x["variant"]: x for x in scoring_table(rows, failures="as-100")}
    assert as100["mcb5"]["avg"] == pytest.approx(50.0)  # solved a, failed b (solved by mcb8)
    assert as100["mcb1"]["avg"] == 100.0 and as100["mcb1"]["max"] == 100.0
    for kwargs, match in (
        ({"start": "x"}, "start must be"),
        ({"scoring": "x"}, "scoring must be"),
        ({"failures": "x"}, "failures must be"),
        ({"start": "half"}, "no results for start"),
    ):
        with pytest.raises(InvalidInputError, match=match):
            scoring_table(rows, **kwargs)


def test_worst_instances_order_and_errors():
    rows = [
        _row("a", {"mcb8": (0.5, 0.5), "mcb5": (1.0, 1.0)}),
        _row("b", {"mcb8": (0.9, 0.9), "mcb5": (1.0, 1.0)}),
    ]
    worst = worst_instances(rows, "mcb8", top=5)
    assert [w["instance"] for w in worst] == ["a", "b"]
    assert worst[0]["degradation"] == 50.0 and worst[0]["best_variants"] == ["mcb5"]
    with pytest.raises(InvalidInputError, match="top must be >= 1"):
        worst_instances(rows, "mcb8", top=0)
    with pytest.raises(InvalidInputError, match="variant must be one of"):
        worst_instances(rows, "mcb0")


def test_clipped_set_matches_the_set_but_clips():
    clipped = list(clipped_set("small"))
    stems = [s for s, _ in iter_vcsched_set("small")]
    assert [s for s, _ in clipped] == stems
    cpu = np.concatenate([i.cpu for _, i in clipped])
    assert cpu.min() >= 1e-3 and cpu.max() <= 1.0 and (cpu == 1.0).any()
    with pytest.raises(InvalidInputError, match="set must be one of"):
        next(clipped_set("medium"))


def test_set_sample_is_every_kth_instance_of_the_set():
    expected = [
        (s, i.to_dict()) for k, (s, i) in enumerate(iter_vcsched_set("small")) if k % 7 == 0
    ]
    assert set_sample("small", every=7) == expected
    large = set_sample("large", every=5000, parallel=True)
    assert [s for s, _ in large] == [
        "h64-j100-s0.1-cc0.25-cm0.25-r0",  # index 0
        "h64-j250-s0.4-cc0.75-cm0.25-r0",  # index 5000 = 3600 + 100 * (4 * 3 + 2)
        "h64-j500-s0.8-cc0.25-cm0.25-r0",  # index 10000 = 7200 + 100 * (4 * 7)
    ]
    assert max(VCInstance.from_dict(d).tasks.max() for _, d in large) > 1
    with pytest.raises(InvalidInputError, match="every must be >= 1"):
        set_sample("small", every=0)
    with pytest.raises(InvalidInputError, match="set must be one of"):
        set_sample("medium")


def test_lp_rows_are_the_lp_optimum():
    pytest.importorskip("pyomo")
    from allockit.vcsched import solve

    items = set_sample("small", every=97)[:4]
    for row, (_, data) in zip(lp_rows(items), items, strict=True):
        result = solve(VCInstance.from_dict(data), "lp")
        if row["failed"]:
            assert str(result.status) == "infeasible"
        else:
            assert row["min_yield"] == pytest.approx(result.min_yield, abs=1e-6)
            assert row["avg_yield"] == pytest.approx(result.avg_yield, abs=1e-6)


def test_series_and_claims():
    flat = []
    for m in ("lp", *LARGE_METHODS):
        for slack in (0.1, 0.2, 0.5):
            for jobs, fail in ((100, False), (500, m == "rrnd" and slack < 0.4)):
                y = 0.8 if m == "lp" else 0.6
                flat.append(
                    {
                        "method": m,
                        "slack": slack,
                        "jobs": jobs,
                        "failed": fail,
                        "min_yield": None if fail else y,
                        "avg_yield": None if fail else y + 0.1,
                        "seconds": None if m == "lp" else 0.001 * jobs,
                    }
                )
    series = figure_series(flat, ["lp", *LARGE_METHODS])
    assert dict(series["failures"]["rrnd"]) == {0.1: 50.0, 0.2: 50.0, 0.5: 0.0}
    assert "lp" not in series["seconds"]
    assert dict(series["seconds"]["sg"]) == pytest.approx({100: 0.1, 500: 0.5})
    table = large_claims(series)
    assert "| MCB8 below the LP bound at slack 0.1 | 37 % | 25.0 % |" in table
    assert "RRND solves no instance for slack < 0.4 (failure rate there) | 100 % | 50 %" in table
    assert "| MCB8 mean run time at J = 500 | ~0.5 s | 500.00 ms |" in table
    assert "| SG faster than MCB8 at J = 500 | about 32x | 1.0x |" in parallel_claims(series)
    text = series_markdown(series)
    assert "| LP bound | 0.800 | 0.800 | 0.800 |" in text
    assert "| SG | 100.00 | 500.00 |" in text


def test_scoring_by_slack_groups_by_the_stem():
    from allockit.experiments.vcsched_table1 import scoring_by_slack

    rows = [
        _row("h4-j6-s0.1-cc0.25-cm0.25-r0", {"mcb8": (0.5, 0.5), "mcb5": (1.0, 1.0)}),
        _row("h4-j6-s0.5-cc0.25-cm0.25-r0", {"mcb8": (1.0, 1.0), "mcb5": (1.0, 1.0)}),
    ]
    per = scoring_by_slack(rows)
    assert sorted(per) == [0.1, 0.5]
    assert per[0.1][0]["max"] == 50.0 and per[0.5][0]["max"] == 0.0
    with pytest.raises(InvalidInputError, match="has no slack"):
        scoring_by_slack([_row("a", {})])


def test_target_zero_scores_a_memory_alone_packing_as_yield_zero():
    rows = [_row("a", {"mcb8": (0.8, 0.8), "mcb4": (0.5, 0.0)})]
    lines = {x["variant"]: x for x in scoring_table(rows, scoring="target-zero")}
    assert lines["mcb4"]["avg"] == 100.0 and lines["mcb4"]["failures"] == 0


def test_set_sample_with_total_tasks():
    items = set_sample("large", every=5000, parallel=True, total_tasks=True)
    assert items[0][0] == "h64-j100-s0.1-cc0.25-cm0.25-r0-T"
    for stem, data in items:
        inst = VCInstance.from_dict(data)
        assert int(inst.tasks.sum()) == int(stem.split("-j")[1].split("-")[0])
        assert inst.tasks.min() >= 1 and inst.tasks.max() <= 64
    with pytest.raises(InvalidInputError, match="total_tasks needs parallel"):
        set_sample("small", total_tasks=True)
