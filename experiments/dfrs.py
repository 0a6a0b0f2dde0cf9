"""The DFRS paper's experiments through the runner (Casanova, Stillwell, Vivien 2011, §6).

Three trace sets, as in Sec. 5.3: *scaled* synthetic traces (Lublin-Feitelson jobs on
128 quad-core nodes, inter-arrival times scaled to loads 0.1-0.9), the same traces
*unscaled*, and the *real* HPC2N trace cut into weeks (120 dual-core nodes). Every
(trace, algorithm) pair is one runner task of kind ``dfrs``, and so is each trace's
stretch lower bound (method ``bound``); rows go to a results store as they finish, so an
interrupted experiment resumes, and the tables share rows (Table 3 reuses Table 2's
simulations).

This module builds the tasks (``experiment_tasks``) and runs one (``run_dfrs_task``).
The other parts, re-exported here:

- ``dfrs_paper``: the published numbers and each experiment's algorithms and sets;
- ``dfrs_traces``: which traces (``TraceSets``), where the HPC2N trace lies
  (``resolve_hpc2n``), building a trace's workload;
- ``dfrs_aggregate``: the rows summarised into a table (degradation from bound);
- ``dfrs_markdown``: the table beside the paper's; ``dfrs_plots``: Figs 1, 3 and 4.

Examples
--------
>>> sets = TraceSets(seeds=(0,), loads=(0.5,), weeks=(), jobs=30, nodes=8,
...                  unscaled=False)
>>> [task.method for task in experiment_tasks("table4", sets)]
['bound', 'EASY', 'GreedyP */per/opt=min/minvt=600', 'GreedyPM */per/opt=min/minvt=600']
"""

from __future__ import annotations

from typing import Any

import numpy as np

from allockit.constants import PENALTY_SECONDS, PERIOD_SECONDS
from allockit.errors import InvalidInputError
from allockit.experiments.dfrs_aggregate import aggregate, user_policy
from allockit.experiments.dfrs_markdown import to_markdown
from allockit.experiments.dfrs_paper import (
    BEST,
    COST_KEYS,
    EXPERIMENTS,
    FIG1_ALGORITHMS,
    PAPER_TABLE2,
    PAPER_TABLE3,
    PAPER_TABLE4,
    PAPER_TABLE5,
    PERIOD_SWEEPS,
    PERIODS,
)
from allockit.experiments.dfrs_plots import plot_fig1, plot_period_sweep
from allockit.experiments.dfrs_traces import (
    TraceSets,
    build_workload,
    hpc2n_week_count,
    resolve_hpc2n,
    trace_sets,
)
from allockit.tasks import Task, register_task_kind

__all__ = [
    "BEST",
    "COST_KEYS",
    "EXPERIMENTS",
    "FIG1_ALGORITHMS",
    "PAPER_TABLE2",
    "PAPER_TABLE3",
    "PAPER_TABLE4",
    "PAPER_TABLE5",
    "PERIODS",
    "PERIOD_SWEEPS",
    "TraceSets",
    "aggregate",
    "build_workload",
    "experiment_tasks",
    "hpc2n_week_count",
    "plot_fig1",
    "plot_period_sweep",
    "resolve_hpc2n",
    "run_dfrs_task",
    "to_markdown",
    "trace_sets",
]


def run_dfrs_task(task: Task) -> dict[str, Any]:
    """Runner task kind ``dfrs``: simulate ``task.method`` (or compute the bound).

    ``task.instance`` is a trace spec (see ``build_workload``). Method ``"bound"``
    computes the Theorem 1 lower bound on the maximum bounded stretch
    (``allockit.models.stretch_bound``); ``"FCFS"`` and ``"EASY"`` run the batch
    simulator (param ``unit``, optional ``backfill_depth``); any other name is a DFRS
    algorithm (params ``penalty`` and ``period``, seconds).

    Parameters
    ----------
    task : Task
        A task of kind ``"dfrs"`` (from ``experiment_tasks``).

    Returns
    -------
    dict
        ``status`` (``"done"``), ``jobs`` and ``offered_load``, plus ``bound`` and
        ``lps`` for the bound, or the simulation's ``summary()`` metrics
        (``max_stretch``, ``underutilization``, costs, ...).

    Examples
    --------
    >>> sets = TraceSets(seeds=(0,), loads=(0.5,), weeks=(), jobs=30, nodes=8,
    ...                  unscaled=False)
    >>> bound_task = experiment_tasks("table4", sets)[0]
    >>> out = run_dfrs_task(bound_task)
    >>> out["status"], out["jobs"], round(out["bound"], 4)
    ('done', 30, 1.1557)
    """
    workload = build_workload(task.instance)
    base = {"jobs": workload.n_jobs, "offered_load": workload.offered_load()}
    if task.method == "bound":
        from allockit.models.stretch_bound import stretch_bound

        bound = stretch_bound(workload)
        return {"status": "done", "bound": bound.value, "lps": bound.lps, **base}
    from allockit.simulation.simulate import simulate

    if task.spec or task.function is not None or user_policy(task.method):
        # a scheduler of the user's: the batch platform, whole nodes per task
        options: dict[str, Any] = {"unit": str(task.params.get("unit", "nodes"))}
    elif task.method in ("FCFS", "EASY"):
        options = {"unit": str(task.params.get("unit", "nodes"))}
        if "backfill_depth" in task.params:
            options["backfill_depth"] = task.params["backfill_depth"]
    else:
        options = {
            "penalty": float(task.params.get("penalty", PENALTY_SECONDS)),
            "period": float(task.params.get("period", PERIOD_SECONDS)),
        }
    result = simulate(workload, task.algorithm, **options)
    out = {**result.summary(), "status": "done", **base}
    calls = result.extra.get("mcb8_calls")
    if calls is not None and len(calls):
        out["mcb8_calls"] = _call_stats(np.asarray(calls))
    return out


def _call_stats(calls: np.ndarray) -> dict[str, Any]:
    """Counts and times (s) of MCB8 calls: all, with <= 10 jobs, with <= 100 jobs."""
    jobs, seconds = calls[:, 0], calls[:, 1]
    small, medium = seconds[jobs <= 10], seconds[jobs <= 100]

    def quantile(values: np.ndarray, q: float) -> float | None:
        return float(np.quantile(values, q)) if values.size else None

    return {
        "count": int(jobs.size),
        "max_jobs": int(jobs.max()),
        "mean_seconds": float(seconds.mean()),
        "le10_count": int(small.size),
        "le10_under_1ms": int((small < 1e-3).sum()),
        "le100_count": int(medium.size),
        "le100_median": quantile(medium, 0.5),
        "le100_p90": quantile(medium, 0.9),
        "le100_p99": quantile(medium, 0.99),
        "le100_max": float(medium.max()) if medium.size else None,
    }


register_task_kind("dfrs", "allockit.experiments.dfrs:run_dfrs_task")


def experiment_tasks(
    experiment: str,
    sets: TraceSets,
    *,
    penalty: float = PENALTY_SECONDS,
    period: float = PERIOD_SECONDS,
    backfill_depth: int | None = None,
    sets_only: tuple[str, ...] | None = None,
    algorithms_only: tuple[str, ...] | None = None,
) -> list[Task]:
    """The runner tasks of ``experiment`` (see ``EXPERIMENTS``).

    For every trace of the experiment's sets: one ``bound`` task, then one task per
    algorithm of the experiment (Table 3 keeps only the scaled traces with load >=
    0.7). Tasks with equal keys are shared between experiments in one results store.

    Parameters
    ----------
    experiment : {"table2", "table3", "table4", "fig1"}
        Which table or figure of the paper.
    sets : TraceSets
        The traces to use.
    penalty : float, default PENALTY_SECONDS (300 s)
        Rescheduling penalty of the DFRS algorithms, in seconds.
    period : float, default PERIOD_SECONDS (600 s)
        Period of the periodic DFRS algorithms, in seconds (Figs 3 and 4 sweep
        ``PERIODS`` instead).
    backfill_depth : int, optional
        EASY's backfill depth (``simulate_batch``); None is Lifka's EASY (unlimited).
    sets_only : tuple of str, optional
        Keep only these of the experiment's trace sets (e.g. ``("real",)``).
    algorithms_only : tuple of str, optional
        Keep only these of the experiment's algorithms (e.g. ``("EASY", "FCFS")``); a
        scheduler of your own (``MODULE:CLASS``, ``PATH/TO/FILE.py:CLASS`` or a plug-in's
        name, ``allockit.simulation.policy``) is added as one more algorithm, run on
        whole nodes like the batch baselines.

    Returns
    -------
    list of Task
        Tasks of kind ``"dfrs"``, trace by trace.

    Raises
    ------
    InvalidInputError
        For an unknown experiment, or an algorithm that is neither the experiment's nor
        a loadable scheduler of your own.

    Examples
    --------
    >>> sets = TraceSets(seeds=(0,), loads=(0.5,), weeks=(), jobs=30, nodes=8,
    ...                  unscaled=False)
    >>> tasks = experiment_tasks("table2", sets)
    >>> len(tasks), tasks[1].method, tasks[1].params
    (21, 'FCFS', {'penalty': 300.0, 'period': 600.0, 'unit': 'nodes'})

    References
    ----------
    .. [1] H. Casanova, M. Stillwell, F. Vivien (2011), Dynamic fractional resource
       scheduling vs. batch scheduling, Sec. 6, Tables 2-4 and Fig. 1.
    """
    if experiment not in EXPERIMENTS:
        raise InvalidInputError(
            f"experiment must be one of {sorted(EXPERIMENTS)}; got {experiment!r}"
        )
    algorithms, set_names = EXPERIMENTS[experiment]
    if sets_only is not None:
        unknown = sorted(set(sets_only) - set(set_names))
        if unknown:
            raise InvalidInputError(
                f"sets must be among {list(set_names)} for {experiment}; got {unknown}"
            )
        set_names = tuple(s for s in set_names if s in sets_only)
    mine: list[dict[str, Any]] = []
    if algorithms_only is not None:
        from allockit.experiments.methods import method_fields

        unknown = sorted(set(algorithms_only) - set(algorithms))
        for name in unknown:
            if user_policy(name) and (":" in name or _registered(name)):
                mine.append(method_fields("scheduler", name, label="algorithm"))
        others = sorted(set(unknown) - {m["method"] for m in mine})
        if others:
            raise InvalidInputError(
                f"algorithms must be among the {experiment} ones, or a scheduler of your own "
                f"(MODULE:CLASS, PATH/TO/FILE.py:CLASS, a plug-in); got {others}"
            )
        algorithms = tuple(a for a in algorithms if a in algorithms_only)
    periods = PERIODS if experiment in PERIOD_SWEEPS else (float(period),)
    tasks = []
    for instance_id, spec in sets.specs(set_names):
        if experiment == "table3" and spec.get("load", 1.0) < 0.7 - 1e-9:
            continue
        tasks.append(Task(kind="dfrs", instance_id=instance_id, instance=spec, method="bound"))
        for name in algorithms:
            batch = name in ("FCFS", "EASY")
            for value in periods[:1] if batch else periods:
                params = {"penalty": float(penalty), "period": float(value)}
                if batch:
                    # batch baselines get whole nodes per task, as in the paper
                    params["unit"] = "nodes"
                    if backfill_depth is not None:
                        params["backfill_depth"] = int(backfill_depth)
                tasks.append(
                    Task(
                        kind="dfrs",
                        instance_id=instance_id,
                        instance=spec,
                        method=name,
                        params=params,
                    )
                )
        for fields in mine:  # the user's schedulers, on whole nodes like the baselines
            tasks.append(
                Task(kind="dfrs", instance_id=instance_id, instance=spec,
                     params={"unit": "nodes"}, **fields)
            )
    return tasks


def _registered(name: str) -> bool:
    from allockit.plugins import registered

    return f"scheduler.{name}" in registered("scheduler")

