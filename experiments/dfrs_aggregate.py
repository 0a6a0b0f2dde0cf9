"""Aggregation of the DFRS experiments' rows into the paper's tables (degradation from bound).

``aggregate`` reads a results store's rows for one experiment and summarises them per
algorithm and trace set: the degradation from bound (maximum bounded stretch over the
trace's Theorem 1 lower bound), the normalised underutilisation, Table 3's costs, the
degradation per load (Fig. 1) and the MCB8 call statistics (Sec. 6.2).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from allockit.constants import PERIOD_SECONDS
from allockit.experiments.dfrs_paper import COST_KEYS, EXPERIMENTS, PERIOD_SWEEPS, PERIODS
from allockit.tasks import Task

__all__ = ["aggregate", "user_policy"]


def _stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {"avg": math.nan, "std": math.nan, "max": math.nan, "n": 0}
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return {"avg": statistics.fmean(values), "std": std, "max": max(values), "n": len(values)}


def aggregate(experiment: str, rows: Iterable[dict[str, Any]], tasks: list[Task]) -> dict[str, Any]:
    """Summarise finished rows into the experiment's table (only this experiment's tasks).

    A trace's *degradation from bound* is an algorithm's maximum bounded stretch over
    the trace's lower bound (so >= 1); per algorithm and trace set it is summarised
    (average, standard deviation, maximum, count), with the normalised
    underutilisation and the Table 3 costs, and for the scaled set the average
    degradation per load (Fig. 1). A trace without its bound row is left out.

    Parameters
    ----------
    experiment : str
        The experiment the tasks belong to (its algorithms make the table's rows).
    rows : iterable of dict
        Results-store rows (``allockit.runner.read_rows``); rows of other tasks are
        ignored.
    tasks : list of Task
        ``experiment_tasks(experiment, sets)``: gives each trace's spec.

    Returns
    -------
    dict
        ``{"experiment", "failed_tasks", "rows": {algorithm: {set: {"degradation",
        "underutilization", "costs", "degradation_by_load"}}}}``, each statistic a
        dict with ``avg``, ``std``, ``max`` and ``n`` (NaN and 0 when empty).

    Raises
    ------
    KeyError
        For an unknown ``experiment``, or a row missing a field.

    Examples
    --------
    >>> from allockit.experiments.dfrs import COST_KEYS, TraceSets, experiment_tasks
    >>> sets = TraceSets(seeds=(0,), loads=(0.5,), weeks=(), jobs=30, nodes=8,
    ...                  unscaled=False)
    >>> tasks = experiment_tasks("table4", sets)
    >>> costs = dict.fromkeys(COST_KEYS, 0.0)
    >>> rows = [{"key": t.key, "ok": True, "instance": t.instance_id, "method": t.method,
    ...          "outputs": {"bound": 2.0} if t.method == "bound" else
    ...                     {"max_stretch": 6.0, "underutilization": 0.25, **costs}}
    ...         for t in tasks]
    >>> table = aggregate("table4", rows, tasks)
    >>> table["rows"]["EASY"]["scaled"]["degradation"]
    {'avg': 3.0, 'std': 0.0, 'max': 3.0, 'n': 1}
    >>> table["rows"]["EASY"]["scaled"]["degradation_by_load"]
    {'0.5': 3.0}
    """
    wanted = {t.key for t in tasks}
    spec_of = {t.instance_id: t.instance for t in tasks}
    bound: dict[str, float] = {}
    sims: dict[tuple[str, str], dict[str, Any]] = {}
    failed = 0
    for row in rows:
        if row["key"] not in wanted:
            continue
        if not row["ok"]:
            failed += 1
            continue
        if row["method"] == "bound":
            bound[row["instance"]] = row["outputs"]["bound"]
        else:
            label = _label(experiment, row["method"], row.get("params", {}))
            sims[(row["instance"], label)] = row["outputs"]
    table: dict[str, Any] = {"experiment": experiment, "failed_tasks": failed, "rows": {}}
    builtin = _labels(experiment)
    mine = [t.method for t in tasks if t.method != "bound" and user_policy(t.method)]
    for name in builtin + [m for m in dict.fromkeys(mine) if m not in builtin]:
        per_set: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for (instance, method), out in sims.items():
            if method == name and instance in bound:
                spec = spec_of[instance]
                per_set[spec["set"]].append({**out, "bound": bound[instance], **spec})
        entry: dict[str, Any] = {}
        for set_name, outs in sorted(per_set.items()):
            deg = [o["max_stretch"] / o["bound"] for o in outs]
            entry[set_name] = {
                "degradation": _stats(deg),
                "underutilization": _stats([o["underutilization"] for o in outs]),
                "costs": {key: _stats([float(o[key]) for o in outs]) for key in COST_KEYS},
            }
            calls = [o["mcb8_calls"] for o in outs if o.get("mcb8_calls")]
            if calls:
                entry[set_name]["mcb8_calls"] = _merge_calls(calls)
            if set_name == "scaled":
                by_load: dict[float, list[float]] = defaultdict(list)
                for o, d in zip(outs, deg, strict=True):
                    by_load[float(o["load"])].append(d)
                entry[set_name]["degradation_by_load"] = {
                    f"{load:g}": statistics.fmean(v) for load, v in sorted(by_load.items())
                }
        if entry:
            table["rows"][name] = entry
    return table


def user_policy(name: str) -> bool:
    """A name that is not a built-in scheduler (a plug-in's, or a spec).

    Parameters
    ----------
    name : str
        A table row's algorithm: a built-in name, ``"bound"`` (the stretch bound's row),
        a registered plug-in or a ``MODULE:FUNCTION`` / ``FILE.py:FUNCTION`` spec.

    Returns
    -------
    bool
        True for a user's scheduler (a plug-in or a spec), False for a built-in or the
        bound.

    Examples
    --------
    >>> user_policy("EASY"), user_policy("bound"), user_policy("mine.py:SJF")
    (False, False, True)
    """
    from allockit.simulation.simulate import is_builtin

    return name != "bound" and not is_builtin(name)


def _label(experiment: str, method: str, params: dict[str, Any]) -> str:
    """A table row's name: the algorithm, and its period in a period sweep."""
    if experiment in PERIOD_SWEEPS and method not in ("FCFS", "EASY") and not user_policy(method):
        return f"{method} @ {float(params.get('period', PERIOD_SECONDS)):g} s"
    return method


def _labels(experiment: str) -> list[str]:
    algorithms, _ = EXPERIMENTS[experiment]
    if experiment not in PERIOD_SWEEPS:
        return list(algorithms)
    out = []
    for name in algorithms:
        if name in ("FCFS", "EASY"):
            out.append(name)
        else:
            out.extend(_label(experiment, name, {"period": p}) for p in PERIODS)
    return out


def _merge_calls(stats: list[dict[str, Any]]) -> dict[str, Any]:
    """MCB8 call statistics of several traces together (quantiles: mean over traces)."""
    count = sum(s["count"] for s in stats)
    merged = {
        "count": count,
        "max_jobs": max(s["max_jobs"] for s in stats),
        "mean_seconds": sum(s["mean_seconds"] * s["count"] for s in stats) / count,
        "le10_count": sum(s["le10_count"] for s in stats),
        "le10_under_1ms": sum(s["le10_under_1ms"] for s in stats),
        "le100_count": sum(s["le100_count"] for s in stats),
    }
    for key in ("le100_median", "le100_p90", "le100_p99"):
        values = [s[key] for s in stats if s.get(key) is not None]
        merged[key] = statistics.fmean(values) if values else None
    tops = [s["le100_max"] for s in stats if s.get("le100_max") is not None]
    merged["le100_max"] = max(tops) if tops else None
    return merged

