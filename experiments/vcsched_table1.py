"""VCSched Tables 1 and 7 re-examined: two scorings of MCB1-MCB8, search starts, packing rules.

Stillwell et al. (2009), Sec. 4.2.1: the average and maximum percent degradation of each
MCB variant from the best of the eight on each instance. The paper does not say whether a
packing's minimum yield is the yield its binary search was *aiming at* (the target it
packed for) or the exact minimum yield of the placement (``allockit.heuristics.mcb``
reports the latter, which can be higher). This module runs the search once per variant
and records both, for two search starts (allockit's, which tries the LP bound first, and
the paper's, which starts at half of it), under three packing rules, so that the tables
can be compared with the paper's under every combination.

The task kind ``vcsched-mcb-scoring`` runs the eight variants on one instance;
``scoring_table`` aggregates the rows into a Table 1 / Table 7 line per variant;
``worst_instances`` lists the instances behind a variant's maximum.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance
from allockit.tasks import Task, register_task_kind

__all__ = [
    "MCB_ORDER",
    "PAPER_TABLE1",
    "PAPER_TABLE7",
    "RULES",
    "STARTS",
    "clipped_set",
    "mcb_scoring_tasks",
    "mcb_search",
    "run_mcb_scoring_task",
    "scoring_by_slack",
    "scoring_markdown",
    "scoring_table",
    "worst_instances",
]

#: The variants in the order of the paper's tables.
MCB_ORDER = ("mcb8", "mcb5", "mcb6", "mcb7", "mcb3", "mcb2", "mcb1", "mcb4")
#: Table 1 of the paper (small set): average and maximum % degradation from best.
PAPER_TABLE1 = {
    "mcb8": (1.06, 40.45),
    "mcb5": (1.60, 38.67),
    "mcb6": (1.83, 37.61),
    "mcb7": (3.91, 40.71),
    "mcb3": (11.76, 55.73),
    "mcb2": (14.21, 48.30),
    "mcb1": (14.90, 55.84),
    "mcb4": (17.32, 46.95),
}
#: Table 7 of the paper (large set).
PAPER_TABLE7 = {
    "mcb8": (0.09, 3.16),
    "mcb5": (0.25, 3.50),
    "mcb6": (0.46, 16.68),
    "mcb7": (1.04, 48.39),
    "mcb3": (4.07, 64.71),
    "mcb2": (8.68, 46.68),
    "mcb1": (10.97, 73.33),
    "mcb4": (14.80, 61.20),
}
#: Search starts: ``bound`` tries the LP bound first (allockit), ``half`` bisects from
#: half of it at once (the paper: "we arbitrarily choose to start at one-half").
STARTS = ("bound", "half")
#: Packing rules: ``allockit`` (``heuristics.mcb.mcb_pack``); ``need-key`` splits and
#: sorts the lists on the CPU *need* instead of the CPU at the target yield;
#: ``memory-first`` starts every empty host from the memory-heavy list.
RULES = ("allockit", "need-key", "memory-first")
_SCORINGS = ("exact", "target", "target-zero")


def _variant(name: str) -> tuple[str, bool]:
    from allockit.heuristics.mcb import MCB_VARIANTS

    if name not in MCB_VARIANTS:
        raise InvalidInputError(f"variant must be one of {sorted(MCB_VARIANTS)}; got {name!r}")
    return MCB_VARIANTS[name]


def _pack_python(
    cpu_req: np.ndarray,
    mem: np.ndarray,
    hosts: int,
    cpu_list: list[int],
    mem_list: list[int],
    *,
    memory_first: bool,
) -> np.ndarray | None:
    """The multi-capacity packing loop (as the compiled kernel) with a choice of first list."""
    from allockit.constants import MEM_EPS

    out = np.full(cpu_req.size, -1, dtype=np.int64)
    lists = {"cpu": list(cpu_list), "mem": list(mem_list)}
    left = cpu_req.size
    for h in range(hosts):
        free_cpu = free_mem = 1.0
        fresh = True
        while left:
            if fresh:
                order = ("mem", "cpu") if memory_first else ("cpu", "mem")
            else:
                order = ("mem", "cpu") if free_mem > free_cpu else ("cpu", "mem")
            found = -1
            for name in order:
                for k, t in enumerate(lists[name]):
                    if cpu_req[t] <= free_cpu + MEM_EPS and mem[t] <= free_mem + MEM_EPS:
                        found = t
                        del lists[name][k]
                        break
                if found >= 0:
                    break
            if found < 0:
                break
            out[found] = h
            free_cpu -= cpu_req[found]
            free_mem -= mem[found]
            left -= 1
            fresh = False
        if not left:
            return out
    return None


def _packer(instance: VCInstance, key: str, descending: bool, rule: str):
    from allockit.heuristics.mcb import _sort_key, mcb_pack

    if rule == "allockit":
        return lambda target: mcb_pack(instance, target, key=key, descending=descending)
    job = instance.task_job
    need = np.asarray(instance.cpu[job], dtype=float)
    mem = np.asarray(instance.mem[job], dtype=float)

    def lists(cpu_for_keys: np.ndarray) -> tuple[list[int], list[int]]:
        keys = _sort_key(cpu_for_keys, mem, key)
        order = np.argsort(-keys if descending else keys, kind="stable")
        heavy = cpu_for_keys > mem
        return order[heavy[order]].tolist(), order[~heavy[order]].tolist()

    fixed = lists(need) if rule == "need-key" else None

    def pack(target: float) -> np.ndarray | None:
        cpu_req = target * need
        cpu_list, mem_list = fixed if fixed is not None else lists(cpu_req)
        return _pack_python(
            cpu_req,
            mem,
            instance.hosts,
            cpu_list,
            mem_list,
            memory_first=rule == "memory-first",
        )

    return pack


def mcb_search(
    instance: VCInstance,
    variant: str = "mcb8",
    *,
    tol: float = 0.01,
    start: str = "bound",
    rule: str = "allockit",
) -> tuple[np.ndarray | None, float | None]:
    """One MCB variant's binary search on the yield; the placement and its target.

    The target is the yield the returned placement was packed for (every job gets at
    least that much); its exact minimum yield (``evaluation.placement.min_yield_of``)
    can be higher. With ``start="bound"`` the search is allockit's
    (``heuristics.mcb.largest_target``: the LP bound first, then bisection from half of
    it, target 0 as the last resort), so the placement is ``mcb``'s. With
    ``start="half"`` the bound itself is never tried, as in the paper's Sec. 3.4.

    Parameters
    ----------
    instance : VCInstance
        Hosts and jobs (CPU need per task in (0, 1], memory per task in [0, 1]).
    variant : str, default "mcb8"
        ``"mcb1"`` ... ``"mcb8"`` (sort key and order, ``heuristics.mcb.MCB_VARIANTS``).
    tol : float, default 0.01
        Accuracy of the bisection (the paper's 0.01).
    start : {"bound", "half"}, default "bound"
        Try the LP bound first (allockit), or bisect from half of it at once (paper).
    rule : {"allockit", "need-key", "memory-first"}, default "allockit"
        The packing rule (``RULES``): allockit's compiled packing, lists split and
        sorted on the CPU need rather than on the CPU at the target, or empty hosts
        started from the memory-heavy list.

    Returns
    -------
    tuple (numpy.ndarray or None, float or None)
        Host per task and the target it was packed for (0.0 when only the
        memory-alone packing succeeded); ``(None, None)`` when nothing packs.

    Raises
    ------
    InvalidInputError
        For an unknown variant, start or rule, or ``tol <= 0``.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.5, 0.5, 0.5])
    >>> placed, target = mcb_search(inst, "mcb8", start="half")
    >>> placed.tolist(), round(target, 4)
    ([0, 0, 1], 0.8281)
    >>> from allockit.evaluation.placement import min_yield_of
    >>> round(min_yield_of(inst, placed), 4)  # the exact minimum yield is higher
    0.8333
    """
    key, descending = _variant(variant)
    if start not in STARTS:
        raise InvalidInputError(f"start must be one of {list(STARTS)}; got {start!r}")
    if rule not in RULES:
        raise InvalidInputError(f"rule must be one of {list(RULES)}; got {rule!r}")
    if not tol > 0:
        raise InvalidInputError(f"tol must be > 0; got {tol!r}")
    pack = _packer(instance, key, descending, rule)
    hi = min(1.0, instance.hosts / float((instance.tasks * instance.cpu).sum()))
    if start == "bound":
        placed = pack(hi)
        if placed is not None:
            return placed, hi
    lo, best, best_target = 0.0, None, None
    for _ in range(200):
        if hi - lo < tol:
            break
        mid = 0.5 * (lo + hi)
        placed = pack(mid)
        if placed is None:
            hi = mid
        else:
            lo, best, best_target = mid, placed, mid
    if best is None:
        placed = pack(0.0)
        return (placed, 0.0) if placed is not None else (None, None)
    return best, best_target


def run_mcb_scoring_task(task: Task) -> dict[str, Any]:
    """Runner task kind ``vcsched-mcb-scoring``: the eight variants on one instance.

    Parameters
    ----------
    task : Task
        ``instance`` a VCSched instance's JSON object; ``params`` may hold ``tol``
        (default 0.01), ``starts`` (default ``["bound", "half"]``) and ``rule``
        (default ``"allockit"``).

    Returns
    -------
    dict
        ``status`` ("done"), ``bound`` (the LP bound, None when the memory does not fit
        even fractionally), ``hosts``, ``jobs``, ``tasks`` and ``results``:
        variant -> start -> ``{"target", "exact", "seconds"}`` (target and exact
        minimum yield None when nothing packed).

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.5, 0.5, 0.5])
    >>> out = run_mcb_scoring_task(Task(kind="vcsched-mcb-scoring", instance_id="a",
    ...                                 instance=inst.to_dict(), method="mcb"))
    >>> r = out["results"]["mcb8"]
    >>> r["bound"]["target"], round(r["half"]["target"], 4), round(r["half"]["exact"], 4)
    (0.828125, 0.8281, 0.8333)
    """
    import time

    from allockit.evaluation.lp_bound import lp_bound
    from allockit.evaluation.placement import min_yield_of

    instance = VCInstance.from_dict(task.instance)
    params = task.params
    tol = float(params.get("tol", 0.01))
    starts = list(params.get("starts", STARTS))
    rule = params.get("rule", "allockit")
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for variant in MCB_ORDER:
        results[variant] = {}
        for start in starts:
            began = time.perf_counter()
            placed, target = mcb_search(instance, variant, tol=tol, start=start, rule=rule)
            seconds = time.perf_counter() - began
            exact = None if placed is None else float(min_yield_of(instance, placed))
            results[variant][start] = {"target": target, "exact": exact, "seconds": seconds}
    return {
        "status": "done",
        "bound": lp_bound(instance),
        "hosts": instance.hosts,
        "jobs": instance.n_jobs,
        "tasks": instance.n_tasks,
        "results": results,
    }


register_task_kind(
    "vcsched-mcb-scoring", "allockit.experiments.vcsched_table1:run_mcb_scoring_task"
)


def mcb_scoring_tasks(
    items: Sequence[tuple[str, dict[str, Any]]],
    *,
    tol: float = 0.01,
    starts: Sequence[str] = STARTS,
    rule: str = "allockit",
) -> list[Task]:
    """One ``vcsched-mcb-scoring`` task per instance.

    Parameters
    ----------
    items : sequence of tuple (str, dict)
        ``(instance id, instance JSON object)`` pairs (``iter_vcsched_set`` stems and
        ``VCInstance.to_dict()``).
    tol : float, default 0.01
        Accuracy of the bisection.
    starts : sequence of str, default ("bound", "half")
        Search starts to run (``STARTS``).
    rule : str, default "allockit"
        Packing rule (``RULES``).

    Returns
    -------
    list of Task
        In the order of ``items``; method ``"mcb1-8"``.

    Raises
    ------
    InvalidInputError
        For an unknown start or rule, or ``tol <= 0``.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=1, cpu=[0.5], mem=[0.1]).to_dict()
    >>> [t.params for t in mcb_scoring_tasks([("a", inst)], starts=["half"])]
    [{'tol': 0.01, 'starts': ['half'], 'rule': 'allockit'}]
    """
    for start in starts:
        if start not in STARTS:
            raise InvalidInputError(f"start must be one of {list(STARTS)}; got {start!r}")
    if rule not in RULES:
        raise InvalidInputError(f"rule must be one of {list(RULES)}; got {rule!r}")
    if not tol > 0:
        raise InvalidInputError(f"tol must be > 0; got {tol!r}")
    params = {"tol": float(tol), "starts": list(starts), "rule": rule}
    return [
        Task(
            kind="vcsched-mcb-scoring",
            instance_id=stem,
            instance=inst,
            method="mcb1-8",
            params=dict(params),
        )
        for stem, inst in items
    ]


def clipped_set(name: str = "small", *, seed: int = 0) -> Iterator[tuple[str, VCInstance]]:
    """The ``small`` or ``large`` set with draws *clipped* to [0.001, 1], not resampled.

    Same specifications, stems and per-instance seeds as
    ``instances.generators.iter_vcsched_set``; a draw above 1 becomes 1 and one below
    0.001 becomes 0.001 (the paper says only "truncated so that values are between 0
    and 1"). Used to test whether the truncation rule explains a difference.

    Parameters
    ----------
    name : {"small", "large"}, default "small"
        The set.
    seed : int, default 0
        Base seed; instance ``k`` uses ``numpy.random.default_rng([seed, k])``.

    Returns
    -------
    Iterator[tuple[str, VCInstance]]
        Stems and instances, lazily.

    Raises
    ------
    InvalidInputError
        For an unknown set name (on the first ``next``).

    Examples
    --------
    >>> stem, inst = next(clipped_set("small"))
    >>> stem, inst.hosts, bool((inst.mem <= 1).all())
    ('h4-j6-s0.1-cc0.25-cm0.25-r0', 4, True)
    """
    import itertools

    from allockit.instances.generators import COVS, SETS, SLACKS

    if name not in SETS:
        raise InvalidInputError(f"set must be one of {sorted(SETS)}; got {name!r}")
    spec = SETS[name]
    combos = itertools.product(spec.jobs, SLACKS, COVS, COVS, range(spec.per_spec))
    for index, (jobs, slack, cc, cm, rep) in enumerate(combos):
        rng = np.random.default_rng([seed, index])
        cpu = np.clip(rng.normal(0.5, cc * 0.5, jobs), 1e-3, 1.0)
        mean_mem = min((1.0 - slack) * spec.hosts / jobs, 1.0)
        mem = np.clip(rng.normal(mean_mem, cm * mean_mem, jobs), 1e-3, 1.0)
        yield (
            f"h{spec.hosts}-j{jobs}-s{slack}-cc{cc}-cm{cm}-r{rep}",
            VCInstance.from_lists(hosts=spec.hosts, cpu=cpu, mem=mem),
        )


def _values(row: dict[str, Any], start: str, scoring: str) -> dict[str, float | None]:
    """Variant -> the scored minimum yield (None for a failure) of one store row."""
    out: dict[str, float | None] = {}
    for variant, by_start in row["outputs"]["results"].items():
        r = by_start.get(start)
        if r is None:
            raise InvalidInputError(f"rows have no results for start {start!r}")
        if scoring == "exact":
            out[variant] = r["exact"]
        elif scoring == "target":  # a target of 0 is the paper's "0, representing failure"
            out[variant] = r["target"] if r["target"] else None
        else:  # target-zero: a memory-alone packing scores yield 0 (100 % degradation)
            out[variant] = r["target"]
    return out


def _check(start: str, scoring: str, failures: str) -> None:
    if start not in STARTS:
        raise InvalidInputError(f"start must be one of {list(STARTS)}; got {start!r}")
    if scoring not in _SCORINGS:
        raise InvalidInputError(f"scoring must be one of {list(_SCORINGS)}; got {scoring!r}")
    if failures not in ("excluded", "as-100"):
        raise InvalidInputError(f"failures must be 'excluded' or 'as-100'; got {failures!r}")


def scoring_table(
    rows: Sequence[dict[str, Any]],
    *,
    start: str = "bound",
    scoring: str = "exact",
    failures: str = "excluded",
) -> list[dict[str, Any]]:
    """Table 1 / Table 7 lines: each variant's % degradation from the best of the eight.

    On each instance the best is the largest scored minimum yield of the eight
    variants; an instance that no variant solves is left out (a failure for all).

    Parameters
    ----------
    rows : sequence of dict
        Results-store rows of ``vcsched-mcb-scoring`` tasks (``runner.read_rows``),
        each with ``instance`` and ``outputs``; failed tasks are skipped.
    start : {"bound", "half"}, default "bound"
        Which search's results to score.
    scoring : {"exact", "target", "target-zero"}, default "exact"
        The placement's exact minimum yield, or the target its search packed for (a
        target of 0, the memory-alone packing, is then a failure, as the paper's "0,
        representing failure"; with ``"target-zero"`` it is a solved instance with
        yield 0, i.e. 100 % degradation).
    failures : {"excluded", "as-100"}, default "excluded"
        Leave a variant's failures out of its averages (the paper's stated rule), or
        count a failure on an instance another variant solved as 100 % degradation.

    Returns
    -------
    list of dict
        In ``MCB_ORDER``: ``variant``, ``avg``, ``max`` (percent; None if nothing
        solved), ``solved``, ``failures``, ``over_3`` and ``over_10`` (instances with a
        degradation above 3 % and 10 %, as the paper counts for MCB8).

    Raises
    ------
    InvalidInputError
        For an unknown start, scoring or failure rule, or rows without that start.

    Examples
    --------
    >>> def row(stem, y8, y5):
    ...     res = {v: {"bound": {"exact": None, "target": None}} for v in MCB_ORDER}
    ...     res["mcb8"]["bound"] = {"exact": y8, "target": y8}
    ...     res["mcb5"]["bound"] = {"exact": y5, "target": y5}
    ...     return {"instance": stem, "ok": True, "outputs": {"results": res}}
    >>> lines = scoring_table([row("a", 0.8, 1.0), row("b", 0.5, 0.5)])
    >>> [(x["variant"], round(x["avg"], 6), round(x["max"], 6), x["failures"])
    ...  for x in lines[:2]]
    [('mcb8', 10.0, 20.0, 0), ('mcb5', 0.0, 0.0, 0)]
    """
    _check(start, scoring, failures)
    degradations: dict[str, list[float]] = {v: [] for v in MCB_ORDER}
    failed = dict.fromkeys(MCB_ORDER, 0)
    for row in rows:
        if not row.get("ok", True):
            continue
        values = _values(row, start, scoring)
        solved = [y for y in values.values() if y is not None]
        best = max(solved) if solved else None
        for variant in MCB_ORDER:
            y = values.get(variant)
            if y is None:
                failed[variant] += 1
                if failures == "as-100" and best:
                    degradations[variant].append(100.0)
            elif best:
                degradations[variant].append(100.0 * (best - y) / best)
    lines = []
    for variant in MCB_ORDER:
        deg = degradations[variant]
        lines.append(
            {
                "variant": variant,
                "avg": statistics.fmean(deg) if deg else None,
                "max": max(deg) if deg else None,
                "solved": sum(1 for row in rows if row.get("ok", True)) - failed[variant],
                "failures": failed[variant],
                "over_3": sum(1 for d in deg if d > 3.0),
                "over_10": sum(1 for d in deg if d > 10.0),
            }
        )
    return lines


def scoring_by_slack(
    rows: Sequence[dict[str, Any]],
    *,
    start: str = "bound",
    scoring: str = "exact",
) -> dict[float, list[dict[str, Any]]]:
    """``scoring_table`` per memory slack (read from the paper-style instance stems).

    Shows where the averages and maxima come from (tight instances at slack 0.1-0.2,
    where many instances are infeasible and the feasible ones have small yields).

    Parameters
    ----------
    rows : sequence of dict
        Results-store rows of ``vcsched-mcb-scoring`` tasks, instances named as in
        ``iter_vcsched_set`` (``h64-j100-s0.1-...``).
    start : {"bound", "half"}, default "bound"
        Which search's results to score.
    scoring : {"exact", "target", "target-zero"}, default "exact"
        As in ``scoring_table`` (failures excluded).

    Returns
    -------
    dict of float to list of dict
        Slack -> ``scoring_table``'s lines over the instances with that slack.

    Raises
    ------
    InvalidInputError
        For an unknown start or scoring, or an instance name without a slack.

    Examples
    --------
    >>> res = {v: {"bound": {"exact": 0.9, "target": 0.9}} for v in MCB_ORDER}
    >>> rows = [{"instance": "h4-j6-s0.3-cc0.25-cm0.25-r0", "ok": True,
    ...          "outputs": {"results": res}}]
    >>> {k: v[0]["max"] for k, v in scoring_by_slack(rows).items()}
    {0.3: 0.0}
    """
    import re

    _check(start, scoring, "excluded")
    groups: dict[float, list[dict[str, Any]]] = {}
    for row in rows:
        found = re.search(r"-s([0-9.]+)-", str(row["instance"]))
        if found is None:
            raise InvalidInputError(f"instance name has no slack: {row['instance']!r}")
        groups.setdefault(float(found.group(1)), []).append(row)
    return {
        slack: scoring_table(groups[slack], start=start, scoring=scoring)
        for slack in sorted(groups)
    }


def worst_instances(
    rows: Sequence[dict[str, Any]],
    variant: str,
    *,
    start: str = "bound",
    scoring: str = "exact",
    top: int = 5,
) -> list[dict[str, Any]]:
    """The instances with a variant's largest degradations from best (behind its maximum).

    Parameters
    ----------
    rows : sequence of dict
        Results-store rows of ``vcsched-mcb-scoring`` tasks.
    variant : str
        ``"mcb1"`` ... ``"mcb8"``.
    start : {"bound", "half"}, default "bound"
        Which search's results to score.
    scoring : {"exact", "target", "target-zero"}, default "exact"
        As in ``scoring_table``.
    top : int, default 5
        How many instances to list (>= 1).

    Returns
    -------
    list of dict
        Worst first: ``instance``, ``degradation`` (percent), ``min_yield`` (the
        variant's scored yield), ``target`` and ``exact`` (both of the variant),
        ``best`` (the best scored yield), ``best_variants`` (those reaching it) and
        ``bound`` (the LP bound).

    Raises
    ------
    InvalidInputError
        For an unknown variant, start or scoring, or ``top < 1``.

    Examples
    --------
    >>> res = {v: {"bound": {"exact": 0.9, "target": 0.9}} for v in MCB_ORDER}
    >>> res["mcb4"]["bound"] = {"exact": 0.45, "target": 0.45}
    >>> rows = [{"instance": "a", "ok": True, "outputs": {"results": res, "bound": 1.0}}]
    >>> w = worst_instances(rows, "mcb4")[0]
    >>> w["instance"], w["degradation"], w["best_variants"][:2]
    ('a', 50.0, ['mcb8', 'mcb5'])
    """
    _variant(variant)
    _check(start, scoring, "excluded")
    if top < 1:
        raise InvalidInputError(f"top must be >= 1; got {top}")
    found = []
    for row in rows:
        if not row.get("ok", True):
            continue
        values = _values(row, start, scoring)
        y = values.get(variant)
        solved = {v: x for v, x in values.items() if x is not None}
        if y is None or not solved:
            continue
        best = max(solved.values())
        if not best:
            continue
        mine = row["outputs"]["results"][variant][start]
        found.append(
            {
                "instance": row["instance"],
                "degradation": 100.0 * (best - y) / best,
                "min_yield": y,
                "target": mine["target"],
                "exact": mine["exact"],
                "best": best,
                "best_variants": [v for v in MCB_ORDER if solved.get(v) == best],
                "bound": row["outputs"].get("bound"),
            }
        )
    found.sort(key=lambda r: (-r["degradation"], r["instance"]))
    return found[:top]


def _num(value: float | None, fmt: str = ".2f") -> str:
    return "–" if value is None else format(value, fmt)


def scoring_markdown(
    rows: Sequence[dict[str, Any]],
    *,
    paper: dict[str, tuple[float, float]] | None = None,
    starts: Sequence[str] = STARTS,
) -> str:
    """Markdown: both scorings (and both failure rules) per start, beside the paper.

    Parameters
    ----------
    rows : sequence of dict
        Results-store rows of ``vcsched-mcb-scoring`` tasks.
    paper : dict, optional
        Variant -> (average, maximum) of the paper's table (``PAPER_TABLE1``, default,
        or ``PAPER_TABLE7``).
    starts : sequence of str, default ("bound", "half")
        The starts to tabulate (each needs results in the rows).

    Returns
    -------
    str
        One table per start: per variant the paper's average and maximum, then average
        (maximum) with exact scoring, target scoring, target scoring with a
        memory-alone packing counted as yield 0, exact and target scoring with failures
        counted as 100 %, failures, and the counts of instances above 3 % and 10 %
        (exact; target scoring) that the paper gives for MCB8; then, when the
        instances are named as in the paper's sets, the averages and maxima per memory
        slack (``scoring_by_slack``) for exact and target scoring.

    Raises
    ------
    InvalidInputError
        For an unknown start, or rows without it.

    Examples
    --------
    >>> res = {v: {"bound": {"exact": 0.9, "target": 0.88}} for v in MCB_ORDER}
    >>> rows = [{"instance": "a", "ok": True, "outputs": {"results": res}}]
    >>> print(scoring_markdown(rows, starts=["bound"]).splitlines()[4][:61])
    | MCB8 | 1.06 (40.45) | 0.00 (0.00) | 0.00 (0.00) | 0.00 (0.0
    """
    import re

    paper = PAPER_TABLE1 if paper is None else paper
    out = []
    for start in starts:
        tables = {
            (scoring, fail): {
                line["variant"]: line
                for line in scoring_table(rows, start=start, scoring=scoring, failures=fail)
            }
            for scoring in _SCORINGS
            for fail in ("excluded", "as-100")
        }
        out.append(f"Search start: {start} ({len(rows)} instances)")
        out.append("")
        out.append(
            "| algorithm | paper avg (max) | exact | target | target, yield 0 counted "
            "| exact, failures 100 % | target, failures 100 % | failures exact / target "
            "| > 3 % / > 10 %, exact; target |"
        )
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for variant in MCB_ORDER:
            cells = []
            for key in (
                ("exact", "excluded"),
                ("target", "excluded"),
                ("target-zero", "excluded"),
                ("exact", "as-100"),
                ("target", "as-100"),
            ):
                line = tables[key][variant]
                cells.append(f"{_num(line['avg'])} ({_num(line['max'])})")
            ex, tg = tables[("exact", "excluded")][variant], tables[("target", "excluded")][variant]
            avg, mx = paper.get(variant, (None, None))
            out.append(
                f"| {variant.upper()} | {_num(avg)} ({_num(mx)}) | "
                + " | ".join(cells)
                + f" | {ex['failures']} / {tg['failures']} | {ex['over_3']} / {ex['over_10']};"
                f" {tg['over_3']} / {tg['over_10']} |"
            )
        out.append("")
        named = all(re.search(r"-s[0-9.]+-", str(r["instance"])) for r in rows)
        for scoring in ("exact", "target") if named and rows else ():
            out.append(
                f"Average (maximum) % degradation by memory slack, start {start}, "
                f"{scoring} scoring, failures excluded:"
            )
            out.append("")
            per = scoring_by_slack(rows, start=start, scoring=scoring)
            out.append("| slack | n | " + " | ".join(v.upper() for v in MCB_ORDER) + " |")
            out.append("|---|---:|" + "---:|" * len(MCB_ORDER))
            for slack, lines in per.items():
                n = lines[0]["solved"] + lines[0]["failures"]
                cells = [f"{_num(x['avg'])} ({_num(x['max'], '.1f')})" for x in lines]
                out.append(f"| {slack:g} | {n} | " + " | ".join(cells) + " |")
            out.append("")
    return "\n".join(out)
