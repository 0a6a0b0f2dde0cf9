"""Li and Parker's Figs 3-8 (and beyond) through the runner: the task kind ``reserves``.

Each task simulates one scenario of ``allockit.simulation.cluster_scenarios`` (its name,
an algorithm, field overrides) with one seed; ``aggregate`` averages the seeds per
scenario and ``to_markdown`` puts the result beside the paper's numbers (``PAPER``).
Experiments: ``fig3`` (the static and the ideal 4-node arithmetic), ``fig4``, ``fig5``
(bank, cluster reserves and the static reference), ``fig6``, ``fig7``, ``skewed``,
``fig8`` (recovery after class 1 stops), ``failures`` (a manager failure at each level
of two trees, beyond the paper), ``scale`` (10,000 nodes; 100,000 without ``quick``).
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from allockit.checks import integer
from allockit.errors import InvalidInputError
from allockit.tasks import Task, register_task_kind

__all__ = ["EXPERIMENTS", "aggregate", "experiment_tasks", "run_reserves_task", "to_markdown"]

#: The paper's claim checked in every row: each class within 2 percentage points of its
#: target, and the s.d. of its cluster-wide share under 1 point.
CLAIM_PP, CLAIM_SD = 2.0, 1.0

_ALGORITHMS = ("bank", "cluster-reserves")
_FAILURES = (  # label, fanout, manager level (None: a plain node), index
    ("top manager", (10,), 2, 0),
    ("a level-1 manager", (10,), 1, 3),
    ("a plain node", (10,), None, 42),
    ("top manager, 3 levels", (5, 2), 3, 0),
    ("a level-2 manager", (5, 2), 2, 1),
    ("a level-1 manager, 3 levels", (5, 2), 1, 7),
)


def _cases(experiment: str, quick: bool) -> list[tuple[str, str, dict[str, Any]]]:
    """(row label, scenario name, overrides) of an experiment's rows."""
    if experiment == "fig3":
        return [("static", "fig3", {}), ("ideal allocation", "fig3-ideal", {})]
    if experiment in ("fig4", "fig6", "fig7", "skewed", "fig8"):
        return [(a, experiment, {"algorithm": a}) for a in _ALGORITHMS]
    if experiment == "fig5":
        return [(a, "fig5", {"algorithm": a}) for a in ("static", *_ALGORITHMS)]
    if experiment == "failures":
        from allockit.simulation.cluster_scenarios import manager_entity, scenario

        out = []
        for label, fanout, level, index in _FAILURES:
            base = scenario("fig5", fanout=fanout)
            entity = index if level is None else manager_entity(base, level, index)
            out.append((label, "fig5", {"fanout": fanout, "failures": ((entity, 30.0),)}))
        return out
    if experiment == "scale":
        sizes = (10_000,) if quick else (10_000, 100_000)
        return [(f"{n:,} nodes", "scaled", {"n_nodes": n}) for n in sizes]
    raise InvalidInputError(f"experiment must be one of {list(EXPERIMENTS)}; got {experiment!r}")


#: Experiment name -> what it reproduces.
EXPERIMENTS = {
    "fig3": "4 nodes, class 3 only on node 4: static 60/30/10 vs the ideal allocation",
    "fig4": "4 nodes, two levels",
    "fig5": "100 nodes, 10 managers, class 3 to the first 30 nodes (and the static reference)",
    "fig6": "Fig. 5 with nodes reporting every 0.3 s and managers every 1.5 s",
    "fig7": "900 nodes, 30 managers, class 3 to the first 300",
    "skewed": "Fig. 5 with skewed (random) reporting phases",
    "fig8": "class 1 stopped twice and restarted 1.5 s later: recovery",
    "failures": "a manager failure at each level of two trees (beyond the paper)",
    "scale": "10,000 and 100,000 nodes (beyond the paper's ns-2 limit)",
}


def run_reserves_task(task: Task) -> dict[str, Any]:
    """Runner task kind ``reserves``: simulate one scenario with one seed.

    Parameters
    ----------
    task : Task
        ``task.instance`` is ``{"scenario": name, "overrides": {...}}`` (a
        ``cluster_scenarios.scenario`` call; ``n_nodes`` for ``"scaled"``) and
        ``task.seed`` the simulation's seed.

    Returns
    -------
    dict
        The simulation's ``summary()`` (``status``, per class ``mean`` and ``std``
        share, messages, bytes, failure and recovery events, seconds).

    Examples
    --------
    >>> t = Task(kind="reserves", instance_id="fig3/static", method="fig3",
    ...          instance={"scenario": "fig3", "overrides": {"duration": 12.0}}, seed=0)
    >>> out = run_reserves_task(t)
    >>> out["status"], round(out["mean"][2], 1)
    ('completed', 2.5)
    """
    from allockit.simulation.cluster import simulate_cluster

    return simulate_cluster(task_config(task), seed=task.seed).summary()


def task_config(task: Task) -> Any:
    """The ``ClusterSimConfig`` a ``reserves`` task simulates (checked, nothing run).

    Parameters
    ----------
    task : Task
        A task of ``experiment_tasks``.

    Returns
    -------
    allockit.simulation.cluster.ClusterSimConfig

    Raises
    ------
    InvalidInputError
        If the task's scenario or overrides are not a valid configuration.

    Examples
    --------
    >>> task_config(experiment_tasks("scale", seeds=1, quick=True)[0]).n_nodes
    10000
    """
    from allockit.simulation.cluster_scenarios import scaled, scenario

    spec = dict(task.instance)
    overrides = dict(spec.get("overrides", {}))
    for key in ("fanout", "failures", "stops"):
        if key in overrides and overrides[key] is not None:
            overrides[key] = _tuples(overrides[key])
    if spec["scenario"] == "scaled":
        return scaled(int(overrides.pop("n_nodes")), **overrides)
    return scenario(spec["scenario"], **overrides)


def _tuples(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_tuples(v) for v in value)
    return value


register_task_kind("reserves", "allockit.experiments.reserves:run_reserves_task")


def experiment_tasks(
    experiment: str, *, seeds: int = 3, quick: bool = False, duration: float | None = None
) -> list[Task]:
    """The runner tasks of ``experiment`` (see ``EXPERIMENTS``): one per row and seed.

    Parameters
    ----------
    experiment : str
        A name of ``EXPERIMENTS``.
    seeds : int
        Seeds per row (0 .. seeds-1).
    quick : bool
        Shorter runs (20 simulated seconds, 5 of warm-up; Fig. 8 and failures keep
        their length) and 10,000 nodes only for ``scale``.
    duration : float, optional
        Simulated seconds of every run (default: the scenario's, 60 s).

    Returns
    -------
    list of Task

    Raises
    ------
    InvalidInputError
        For an unknown experiment or a seed count below 1.

    Examples
    --------
    >>> [t.instance_id for t in experiment_tasks("fig3", seeds=1)]
    ['fig3/static', 'fig3/ideal allocation']
    """
    seeds = integer("seeds", seeds, minimum=1, maximum=10**6)  # (10**30 ran unbounded)
    tasks = []
    for label, name, overrides in _cases(experiment, quick):
        overrides = dict(overrides)
        if duration is not None:
            overrides["duration"] = float(duration)
            warmup = overrides.get("warmup", 10.0)
            overrides["warmup"] = warmup if warmup < duration else float(duration) / 5
        elif quick and experiment not in ("fig8", "failures"):
            overrides.update({"duration": 20.0, "warmup": 5.0})
        for seed in range(seeds):
            tasks.append(
                Task(
                    kind="reserves",
                    instance_id=f"{experiment}/{label}",
                    instance={"scenario": name, "overrides": overrides},
                    method=experiment,
                    seed=seed,
                )
            )
    return tasks


def aggregate(experiment: str, rows: Iterable[dict[str, Any]], tasks: list[Task]) -> dict:
    """Average the seeds of each row of ``experiment`` (only its tasks' rows).

    Parameters
    ----------
    experiment : str
        The experiment the tasks belong to.
    rows : iterable of dict
        Results-store rows (``allockit.runner.read_rows``).
    tasks : list of Task
        ``experiment_tasks(experiment, ...)``.

    Returns
    -------
    dict
        ``{"experiment", "failed_tasks", "rows": {label: {"runs", "planned_runs",
        "mean", "std", "claim_held", "messages", "repair_time", "recovery_time",
        "seconds"}}}``: per class mean share and s.d. averaged over the seeds that
        completed; ``claim_held`` True when every planned run completed within 2 points
        of every target with an s.d. under 1, False when a run broke it, None
        (undecided) when runs are missing (failed, or not completed) and none broke
        it. A task that failed or whose run did not complete counts in
        ``failed_tasks``, never as a run.

    Examples
    --------
    >>> tasks = experiment_tasks("fig3", seeds=1)
    >>> out = {"status": "completed", "mean": [60.0, 30.0, 10.0], "std": [0.1, 0.1, 0.1],
    ...        "targets": [60.0, 30.0, 10.0], "messages": 0, "events": [], "seconds": 0.1}
    >>> rows = [{"key": t.key, "ok": True, "instance": t.instance_id, "outputs": out}
    ...         for t in tasks]
    >>> aggregate("fig3", rows, tasks)["rows"]["ideal allocation"]["claim_held"]
    True
    """
    wanted = {t.key: t for t in tasks}
    runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    failed = 0
    for row in rows:
        task = wanted.get(row["key"])
        if task is None:
            continue
        outputs = row.get("outputs") or {}
        if not row["ok"] or outputs.get("status", "completed") != "completed":
            failed += 1  # (a run that did not complete measured nothing)
            continue
        runs[task.instance_id.split("/", 1)[1]].append(outputs)
    expected = Counter(t.instance_id.split("/", 1)[1] for t in tasks)
    table: dict[str, Any] = {"experiment": experiment, "failed_tasks": failed, "rows": {}}
    for label, wanted_runs in expected.items():
        outs = runs.get(label, [])
        if not outs:
            continue
        classes = len(outs[0]["mean"])

        def avg(values: list[float]) -> float:
            finite = [v for v in values if v is not None and math.isfinite(v)]
            return statistics.fmean(finite) if finite else math.nan

        within = all(
            all(
                m is not None and abs(m - t) <= CLAIM_PP and s is not None and s < CLAIM_SD
                for m, s, t in zip(o["mean"], o["std"], o["targets"], strict=True)
            )
            for o in outs
        )
        # held only when every seed ran and every run kept it; one run that broke it
        # settles "no"; missing runs with none broken leave it undecided (None)
        held = (True if len(outs) == wanted_runs else None) if within else False
        events = [e for o in outs for e in o.get("events", [])]
        table["rows"][label] = {
            "runs": len(outs),
            "planned_runs": wanted_runs,
            "mean": [avg([o["mean"][j] for o in outs]) for j in range(classes)],
            "std": [avg([o["std"][j] for o in outs]) for j in range(classes)],
            "claim_held": held,
            "messages": avg([float(o["messages"]) for o in outs]),
            "repair_time": avg([e.get("repair_time") for e in events]),
            "recovery_time": avg([e.get("recovery_time") for e in events]),
            "seconds": avg([float(o["seconds"]) for o in outs]),
        }
    return table


def _f(value: float, digits: int = 2) -> str:
    return "–" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def to_markdown(table: dict[str, Any]) -> str:
    """The experiment's table beside the paper's numbers (``cluster_scenarios.PAPER``).

    Parameters
    ----------
    table : dict
        The output of ``aggregate``.

    Returns
    -------
    str
        A markdown table and the paper's statement for this figure.

    Examples
    --------
    >>> t = {"experiment": "fig4", "rows": {"bank": {"runs": 3, "mean": [60, 30, 10],
    ...      "std": [1, 1, 0.2], "claim_held": True, "messages": 100,
    ...      "repair_time": float("nan"), "recovery_time": float("nan"), "seconds": 0.5}}}
    >>> print(to_markdown(t).splitlines()[2])
    | bank | 60.00 / 30.00 / 10.00 | 0.20 | yes | 100 | – | – | 3 |
    """
    from allockit.simulation.cluster_scenarios import PAPER

    lines = [
        "| row | mean share 1 / 2 / 3 (%) | s.d. class 3 | within 2 pp, s.d. < 1 | messages "
        "| repair (s) | recovery (s) | runs |",
        "|---|---|---:|---|---:|---:|---:|---:|",
    ]
    for label, r in table["rows"].items():
        shares = " / ".join(_f(m) for m in r["mean"])
        held = {True: "yes", False: "no", None: "undecided"}[r["claim_held"]]
        planned = r.get("planned_runs", r["runs"])
        runs = str(r["runs"]) if r["runs"] == planned else f"{r['runs']} of {planned}"
        lines.append(
            f"| {label} | {shares} | {_f(r['std'][-1])} | {held} "
            f"| {_f(r['messages'], 0)} | {_f(r['repair_time'])} | {_f(r['recovery_time'])} "
            f"| {runs} |"
        )
    if table.get("failed_tasks"):
        lines += ["", f"{table['failed_tasks']} runs failed or did not complete: their rows "
                  "measured nothing, and a claim with runs missing is undecided."]
    paper = PAPER.get(table["experiment"])
    if paper:
        lines += ["", f"The paper: {_words(paper)}; headline: every class within "
                  f"{PAPER['claim']['within_pp']:g} points of its target with an s.d. "
                  f"under {PAPER['claim']['std_below']:g}."]
    return "\n".join(lines) + "\n"


def _words(paper: dict[str, Any]) -> str:
    """``{"class3_mean": 10.5}`` as ``class3 mean 10.5``."""
    return ", ".join(f"{key.replace('_', ' ')} {value}" for key, value in paper.items())
