"""The MEASY paper's experiments through the runner (Wang et al., seed 003, Sec. 3).

Figures 6-14 on the two synthetic workloads of the paper, FWload (Feitelson 1996,
200,000 jobs) and JWload (Jann 1997, 100,000 jobs), on 320 processors, with the
paper's rules (per-process CPU usage 100 % for one-process jobs, else uniform in
[40 %, 100 %]; Tsafrir runtime estimates; load changed by scaling interarrival times):

- ``fig6`` / ``fig7``: mean response time and mean bounded slowdown against load, EASY,
  KEASY, REASY and MEASY, on FWload / JWload;
- ``fig8``: MEASY's migrations against load on both workloads;
- ``fig9`` / ``fig10``: no CPU-usage information (the scheduler sees 100 %);
- ``fig11`` / ``fig12``: every process at 100 % CPU usage;
- ``fig13`` / ``fig14``: MEASY's migration cost from 0 to 2,400 s against KEASY;
- ``traces`` (beyond the paper): the same comparison on the real traces of the data
  directory (``allockit data fetch all``; one processor per SWF processor, the paper's
  CPU-usage rule, the users' own runtime estimates).

Every (workload, algorithm, options) triple is one runner task of kind ``measy``; rows
go to a resumable store and figures share rows (EASY's do not depend on the two-tier
options, KEASY's and REASY's not on the migration cost). ``EASY`` is the two-tier
simulator with the bg tier off (equal to ``simulate_batch(estimates=True)``, tested).
``aggregate`` turns the rows into a figure's table, ``to_markdown`` prints it beside the
paper's statements (``PAPER_CLAIMS``) and ``plot_measy_figure`` draws it.

Examples
--------
>>> sets = MeasySets(loads=(0.7,), jobs={"lublin": 40}, models=("lublin", "lublin"))
>>> [(t.method, t.params) for t in experiment_tasks("fig9", sets)]
[('EASY', {}), ('KEASY', {'cpu_info': 'none'}), ('MEASY', {'cpu_info': 'none', \
'migration_cost': 20.0})]
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from allockit.checks import integer, real_number
from allockit.errors import InvalidInputError
from allockit.tasks import Task, json_data, register_task_kind

__all__ = [
    "FIGURES",
    "PAPER_CLAIMS",
    "MeasySets",
    "aggregate",
    "build_workload",
    "check_times",
    "experiment_tasks",
    "measy_sets",
    "paper_claims",
    "resolve_traces",
    "run_measy_task",
    "to_markdown",
]

ALL = ("EASY", "KEASY", "REASY", "MEASY")
THREE = ("EASY", "KEASY", "MEASY")

#: figure -> (title, workload index (0 FWload, 1 JWload, None both), algorithms, kind,
#: workload CPU rule, scheduler's CPU information)
FIGURES: dict[str, dict[str, Any]] = {
    "fig6": dict(title="FWload", model=0, algorithms=ALL, kind="load"),
    "fig7": dict(title="JWload", model=1, algorithms=ALL, kind="load"),
    "fig8": dict(title="migrations (MEASY)", model=None, algorithms=("MEASY",), kind="migrations"),
    "fig9": dict(title="FWload, no CPU information", model=0, algorithms=THREE, kind="load",
                 cpu_info="none"),
    "fig10": dict(title="JWload, no CPU information", model=1, algorithms=THREE, kind="load",
                  cpu_info="none"),
    "fig11": dict(title="FWload, 100 % CPU usage", model=0, algorithms=THREE, kind="load",
                  cpu="full"),
    "fig12": dict(title="JWload, 100 % CPU usage", model=1, algorithms=THREE, kind="load",
                  cpu="full"),
    "fig13": dict(title="FWload, migration cost", model=0, algorithms=("KEASY", "MEASY"),
                  kind="cost"),
    "fig14": dict(title="JWload, migration cost", model=1, algorithms=("KEASY", "MEASY"),
                  kind="cost"),
    "traces": dict(title="real traces (beyond the paper)", model=None, algorithms=ALL,
                   kind="trace"),
}  # fmt: skip

#: The paper's statements the figures are checked against (Sec. 3.4-3.5, abstract).
PAPER_CLAIMS: dict[str, Any] = {
    "response_improvement_max": 41.1,
    "response_improvement_avg": 23.1,
    "slowdown_improvement_max": 82.9,
    "slowdown_improvement_avg": 69.3,
    "fig6": "REASY is the worst of the three variants; MEASY the best; all beat EASY",
    "fig7": "REASY is the worst variant and worse than EASY on JWload; MEASY the best",
    "fig8": "JWload needs more migrations than FWload at high load, fewer at low load",
    "fig9": "KEASY and MEASY beat EASY without CPU information; MEASY always beats KEASY",
    "fig10": "KEASY and MEASY beat EASY without CPU information; MEASY always beats KEASY",
    "fig11": "with 100 % CPU usage KEASY and MEASY still beat EASY; MEASY beats KEASY",
    "fig12": "with 100 % CPU usage KEASY and MEASY still beat EASY; MEASY beats KEASY",
    "fig13": "MEASY beats KEASY below 900 s of migration cost, a little worse above 1,500 s",
    "fig14": "MEASY beats KEASY below 480 s of migration cost, a little worse above 900 s",
    "crossovers": {"fwload": (900.0, 1500.0), "jwload": (480.0, 900.0)},
}

#: The real traces by name and how many of their first jobs the full run uses (None: all).
TRACE_JOBS: dict[str, int | None] = {
    "ctc-sp2": None,
    "hpc2n": None,
    "sdsc-blue": None,
    "llnl-thunder": 50_000,
    "cea-curie": 20_000,
}
PAPER_JOBS = {"fwload": 200_000, "jwload": 100_000}
QUICK_JOBS = {"fwload": 10_000, "jwload": 5_000, "lublin": 2_000}
FULL_LOADS = (0.5, 0.6, 0.7, 0.8, 0.9)
QUICK_LOADS = (0.6, 0.9)
FULL_COSTS = (0.0, 20.0, 60.0, 120.0, 240.0, 480.0, 900.0, 1200.0, 1500.0, 1800.0, 2400.0)
QUICK_COSTS = (0.0, 240.0, 900.0, 1500.0, 2400.0)
COST_LOADS_QUICK = (0.9,)


@dataclass(frozen=True, slots=True)
class MeasySets:
    """What an experiment run covers: workloads, loads, costs, seeds, traces.

    ``models`` names the two synthetic workloads (FWload, JWload): ``"fwload"`` and
    ``"jwload"`` (the paper's), or ``"lublin"`` (the Lublin-Feitelson model with the
    paper's rules, a stand-in for tests and quick checks). ``jobs`` maps a model to its
    job count; ``cost_loads`` are the loads of Figs 13-14 (default: ``loads``);
    ``traces`` the real trace files (absolute paths) with the job count used;
    ``reasy_extra`` and ``reasy_protect`` REASY's reading of Algorithm 3
    (``simulate_two_tier``; only values other than the defaults enter REASY's task
    options, so the default tasks keep their keys).

    Examples
    --------
    >>> MeasySets().jobs["fwload"], MeasySets.quick().loads
    (200000, (0.6, 0.9))
    """

    models: tuple[str, str] = ("fwload", "jwload")
    jobs: dict[str, int] = field(default_factory=lambda: dict(PAPER_JOBS))
    loads: tuple[float, ...] = FULL_LOADS
    costs: tuple[float, ...] = FULL_COSTS
    cost_loads: tuple[float, ...] | None = None
    processors: int = 320
    seed: int = 0
    traces: tuple[tuple[str, int | None], ...] = ()
    reasy_extra: str = "idle"
    reasy_protect: bool = True

    def __post_init__(self) -> None:
        for model in self.models:
            if model not in ("fwload", "jwload", "lublin"):
                raise InvalidInputError(
                    f"MeasySets.models must be fwload, jwload or lublin; got {model!r}"
                )
        for name in ("loads", "costs"):
            given = getattr(self, name)
            if isinstance(given, str) or not isinstance(given, Sequence | np.ndarray):
                raise InvalidInputError(
                    f"MeasySets.{name} must be a sequence of numbers; got {given!r}"
                )
            values = tuple(real_number(f"MeasySets.{name}", x, finite=False) for x in given)
            low = 0.0 if name == "costs" else 1e-12
            if not values or any(not (math.isfinite(x) and x >= low) for x in values):
                what = ">= 0" if name == "costs" else "> 0"
                raise InvalidInputError(
                    f"MeasySets.{name} must be finite and {what}; got {values}"
                )
            object.__setattr__(self, name, values)
        object.__setattr__(self, "processors",
                           integer("MeasySets.processors", self.processors, minimum=1))
        object.__setattr__(self, "jobs", {
            k: integer(f"MeasySets.jobs[{k!r}]", v, minimum=1) for k, v in self.jobs.items()
        })
        object.__setattr__(self, "seed",
                           integer("MeasySets.seed", self.seed, minimum=0, maximum=2**63 - 1))
        if self.reasy_extra not in ("idle", "line17"):
            raise InvalidInputError(
                f"MeasySets.reasy_extra must be idle or line17; got {self.reasy_extra!r}"
            )
        if not isinstance(self.reasy_protect, bool):
            raise InvalidInputError(
                f"MeasySets.reasy_protect must be True or False; got {self.reasy_protect!r}"
            )

    @classmethod
    def quick(cls, **changes: Any) -> MeasySets:
        """The quick run: 10,000 FWload and 5,000 JWload jobs, loads 0.6 and 0.9."""
        base = cls(
            jobs=dict(QUICK_JOBS),
            loads=QUICK_LOADS,
            costs=QUICK_COSTS,
            cost_loads=COST_LOADS_QUICK,
        )
        return dataclasses.replace(base, **changes)

    def model_specs(self, which: int | None, *, cpu: str = "paper") -> list[dict[str, Any]]:
        """Workload specs of the synthetic model(s) at every load."""
        models = self.models if which is None else (self.models[which],)
        out = []
        for k, model in enumerate(models):
            label = ("fwload", "jwload")[k if which is None else which]
            for load in self.loads:
                out.append(self.spec(model, load, cpu=cpu, label=label))
        return out

    def spec(self, model: str, load: float, *, cpu: str = "paper", label: str = "") -> dict:
        """One synthetic workload's spec (the runner task's instance)."""
        return {
            "set": "model",
            "model": model,
            "label": label or model,
            "jobs": int(self.jobs.get(model, QUICK_JOBS.get(model, 1000))),
            "processors": self.processors,
            "load": float(load),
            "cpu": cpu,
            "seed": self.seed,
        }


def resolve_traces(traces: str | None = None) -> list[tuple[str, int | None]]:
    """The real traces to run: names, files or a folder, with their full-run job counts.

    ``traces`` is a comma-separated list of trace names (``hpc2n``, ``ctc-sp2``, ...)
    and SWF files, or a folder holding the archive files of ``TRACE_JOBS``. None means
    ``$ALLOCKIT_TRACES`` if set, else every named trace present in the data directory
    (``allockit.instances.datasets``).

    Parameters
    ----------
    traces : str, optional
        The ``--traces`` option.

    Returns
    -------
    list of (str, int or None)
        Absolute paths, each with the number of first jobs the full run uses (None:
        all; a file of no known name: all).

    Raises
    ------
    InvalidInputError
        If an item is neither a trace name, a file nor a folder, or names a trace
        missing from the data directory (the message says how to get it).

    Examples
    --------
    >>> resolve_traces("/nonexistent-folder")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --traces: no such folder, file or trace name \
'/nonexistent-folder' (names: cea-curie, ctc-sp2, hpc2n, llnl-thunder, sdsc-blue)
    """
    from allockit.instances.datasets import TRACES, trace_location, trace_path

    by_file = {TRACES[name].file: count for name, count in TRACE_JOBS.items()}
    chosen = traces or os.environ.get("ALLOCKIT_TRACES")
    if chosen is None:
        found = [(str(trace_location(n)), c) for n, c in TRACE_JOBS.items()]
        return [(path, count) for path, count in found if os.path.isfile(path)]
    if os.path.isdir(chosen):
        return [
            (os.path.abspath(os.path.join(chosen, f)), count)
            for f, count in by_file.items()
            if os.path.isfile(os.path.join(chosen, f))
        ]
    picked = []
    for item in (x.strip() for x in chosen.split(",") if x.strip()):
        path = trace_path(item)
        if not os.path.isfile(path):
            raise InvalidInputError(
                f"--traces: no such folder, file or trace name {item!r} (names: "
                f"{', '.join(sorted(TRACES))})"
            )
        picked.append((os.path.abspath(path), TRACE_JOBS.get(item, by_file.get(Path(path).name))))
    return picked


def measy_sets(
    *,
    quick: bool = False,
    jobs: int | None = None,
    loads: tuple[float, ...] | None = None,
    costs: tuple[float, ...] | None = None,
    processors: int | None = None,
    seed: int | None = None,
    model: str | None = None,
    traces: str | None = None,
    trace_jobs: int | None = None,
    reasy_extra: str | None = None,
    reasy_protect: bool | None = None,
) -> MeasySets:
    """The sets of an experiment run: the paper's (or ``quick``) with overrides.

    Parameters
    ----------
    quick : bool
        Start from ``MeasySets.quick()``.
    jobs : int, optional
        Jobs of both synthetic workloads.
    loads, costs : tuple of float, optional
        Loads, and migration costs of Figs 13-14.
    processors : int, optional
        Processors (default 320).
    seed : int, optional
        Workload and simulation seed.
    model : {"paper", "lublin"}, optional
        ``"lublin"`` replaces FWload and JWload by the Lublin-Feitelson stand-in.
    traces : str, optional
        The real traces: names, files or a folder (``resolve_traces``).
    trace_jobs : int, optional
        First jobs of each trace (default: the full run's, 5,000 when quick).
    reasy_extra : {"idle", "line17"}, optional
        REASY's extra fg VMs (default ``"idle"``).
    reasy_protect : bool, optional
        REASY keeps extra-admitted jobs off the head's processors (default True).

    Returns
    -------
    MeasySets

    Raises
    ------
    InvalidInputError
        For counts, loads or costs out of range or an unknown model.

    Examples
    --------
    >>> s = measy_sets(quick=True, jobs=100, loads=(0.5,), model="lublin")
    >>> s.models, s.jobs["lublin"], s.loads
    (('lublin', 'lublin'), 100, (0.5,))
    """
    sets = MeasySets.quick() if quick else MeasySets()
    changes: dict[str, Any] = {}
    if model not in (None, "paper", "lublin"):
        raise InvalidInputError(f"--model must be paper or lublin; got {model!r}")
    if model == "lublin":
        changes["models"] = ("lublin", "lublin")
    if jobs is not None:
        if isinstance(jobs, bool) or jobs < 1:
            raise InvalidInputError(f"--jobs must be >= 1; got {jobs!r}")
        changes["jobs"] = {"fwload": jobs, "jwload": jobs, "lublin": jobs}
    if loads is not None:
        changes["loads"] = loads
        changes["cost_loads"] = None if not quick else tuple(x for x in loads[-1:])
    if costs is not None:
        changes["costs"] = costs
    if processors is not None:
        changes["processors"] = processors
    if seed is not None:
        changes["seed"] = seed
    if reasy_extra is not None:
        changes["reasy_extra"] = reasy_extra
    if reasy_protect is not None:
        changes["reasy_protect"] = reasy_protect
    changes["traces"] = tuple(
        (path, trace_jobs if trace_jobs is not None else (5_000 if quick else count))
        for path, count in resolve_traces(traces)
    )
    return dataclasses.replace(sets, **changes)


# ---------------------------------------------------------------------- workloads
def _model_workload(spec: dict[str, Any]) -> Any:
    from allockit.instances.measy import apply_measy_rules
    from allockit.instances.workload import Platform

    model, jobs, procs = spec["model"], int(spec["jobs"]), int(spec["processors"])
    load, seed = float(spec["load"]), int(spec["seed"])
    if model == "fwload":
        from allockit.instances.feitelson96 import feitelson96_workload

        w = feitelson96_workload(
            jobs, procs=procs, load=load, cpu_usage=True, estimates=True, seed=seed
        )
    elif model == "jwload":
        from allockit.instances.jann97 import jann97_workload

        w = jann97_workload(jobs, procs=procs, load=load, cpu_usage=True, estimates=True,
                            seed=seed)  # fmt: skip
    elif model == "lublin":
        import numpy as np

        from allockit.instances.lublin import dfrs_synthetic

        raw = dfrs_synthetic(jobs, nodes=procs, seed=seed)
        raw = raw.replace(platform=Platform(nodes=procs, cores=1), cpu=np.ones(jobs))
        w = apply_measy_rules(raw, cpu_usage=True, estimates=True, load=load, seed=seed)
    else:
        raise InvalidInputError(f"model must be fwload, jwload or lublin; got {model!r}")
    if spec.get("cpu") == "full":
        import numpy as np

        w = w.replace(cpu=np.ones(w.n_jobs))
    return w


def _trace_workload(spec: dict[str, Any]) -> Any:
    import numpy as np

    from allockit.instances.measy import measy_cpu_usage
    from allockit.instances.swf import read_swf, swf_to_workload

    trace = read_swf(spec["path"])
    procs = trace.header_int("MaxProcs") or trace.header_int("MaxNodes")
    if not procs:
        raise InvalidInputError(f"{spec['path']}: no MaxProcs or MaxNodes in the header")
    w = swf_to_workload(trace, nodes=procs, cores=1)
    w = w.select(w.tasks <= procs)
    if spec.get("jobs"):
        w = w.select(np.arange(w.n_jobs) < int(spec["jobs"]))
    w = w.replace(submit=w.submit - w.submit[0])
    cpu = measy_cpu_usage(w.tasks, seed=int(spec["seed"]))
    if spec.get("cpu") == "full":
        cpu = np.ones(w.n_jobs)
    return w.replace(cpu=cpu)


@functools.lru_cache(maxsize=4)
def _build(spec_json: str) -> Any:
    spec = json.loads(spec_json)
    if spec.get("set") == "model":
        return _model_workload(spec)
    if spec.get("set") == "trace":
        return _trace_workload(spec)
    raise InvalidInputError(f"workload spec 'set' must be model or trace; got {spec!r}")


def build_workload(spec: dict[str, Any]) -> Any:
    """The workload a spec describes (cached per process).

    Parameters
    ----------
    spec : dict
        ``{"set": "model", "model", "jobs", "processors", "load", "cpu", "seed"}`` or
        ``{"set": "trace", "path", "jobs", "cpu", "seed"}``. ``cpu`` is ``"paper"`` (the
        paper's usage rule) or ``"full"`` (every process at 100 %).

    Returns
    -------
    Workload

    Raises
    ------
    InvalidInputError
        For an unknown set or model, or a trace without a processor count.

    Examples
    --------
    >>> w = build_workload(MeasySets(jobs={"lublin": 50}).spec("lublin", 0.8))
    >>> w.n_jobs, w.platform.nodes, bool((w.cpu[w.tasks == 1] == 1.0).all())
    (50, 320, True)
    """
    return _build(json.dumps(json_data("spec", spec), sort_keys=True))  # (numpy values too)


def run_measy_task(task: Task) -> dict[str, Any]:
    """Runner task kind ``measy``: simulate ``task.method`` on the task's workload.

    Parameters
    ----------
    task : Task
        ``method`` is EASY, KEASY, REASY or MEASY; ``params`` the two-tier options;
        ``seed`` the seed of the loss and rho draws.

    Returns
    -------
    dict
        The simulation summary with ``status``, ``offered_load`` and ``processors``.

    Examples
    --------
    >>> spec = MeasySets(jobs={"lublin": 40}, processors=16).spec("lublin", 0.8)
    >>> out = run_measy_task(Task(kind="measy", instance_id="x", instance=spec,
    ...                           method="MEASY", seed=0))
    >>> out["status"], out["jobs"]
    ('done', 40)
    """
    from allockit.simulation.two_tier import simulate_two_tier

    workload = build_workload(task.instance)
    seed = 0 if task.seed is None else int(task.seed)
    params = dict(task.params)
    if task.method == "EASY":  # MEASY without the background tier is EASY
        result = simulate_two_tier(
            workload, "MEASY", seed=seed, **{**params, "background": False}
        )
    else:
        result = simulate_two_tier(workload, task.method, seed=seed, **params)
    summary = result.summary()
    summary["algorithm"] = task.method
    jobs_work = float((workload.runtime * workload.tasks).sum())
    span = float(workload.submit[-1] - workload.submit[0]) or 1.0
    return {
        **summary,
        "status": "done",
        "offered_load": jobs_work / (workload.platform.nodes * span),
        "mean_cpu_usage": float(workload.cpu.mean()),
    }


register_task_kind("measy", "allockit.experiments.measy:run_measy_task")


def _params(
    method: str, *, cpu_info: str = "known", cost: float = 20.0, sets: MeasySets | None = None
) -> dict[str, Any]:
    """Canonical options: EASY takes none; only MEASY takes the migration cost, only
    REASY its reading of Algorithm 3 (when not the default)."""
    if method == "EASY":
        return {}
    params: dict[str, Any] = {}
    if cpu_info != "known":
        params["cpu_info"] = cpu_info
    if method == "MEASY":
        params["migration_cost"] = float(cost)
    if method == "REASY" and sets is not None:
        if sets.reasy_extra != "idle":
            params["reasy_extra"] = sets.reasy_extra
        if not sets.reasy_protect:
            params["reasy_protect"] = False
    return params


def _instance_id(spec: dict[str, Any]) -> str:
    if spec["set"] == "trace":
        return f"trace-{Path(spec['path']).name.split('-cln')[0]}-n{spec.get('jobs') or 'all'}"
    return (
        f"{spec['label']}-{spec['model']}-n{spec['jobs']}-p{spec['processors']}"
        f"-l{spec['load']:g}-{spec['cpu']}-s{spec['seed']}"
    )


def experiment_tasks(figure: str, sets: MeasySets) -> list[Task]:
    """The runner tasks of ``figure`` (fig6 ... fig14, traces).

    Parameters
    ----------
    figure : str
        A key of ``FIGURES``.
    sets : MeasySets

    Returns
    -------
    list of Task

    Raises
    ------
    InvalidInputError
        For an unknown figure, or ``traces`` without any trace file.

    Examples
    --------
    >>> sets = MeasySets(loads=(0.7,), jobs={"lublin": 40}, models=("lublin", "lublin"),
    ...                  costs=(0.0, 900.0))
    >>> [(t.method, t.params.get("migration_cost")) for t in experiment_tasks("fig13", sets)]
    [('KEASY', None), ('MEASY', 0.0), ('MEASY', 900.0)]
    """
    if figure not in FIGURES:
        raise InvalidInputError(f"figure must be one of {sorted(FIGURES)}; got {figure!r}")
    info = FIGURES[figure]
    tasks: list[Task] = []

    def add(spec: dict[str, Any], method: str, params: dict[str, Any]) -> None:
        tasks.append(
            Task(
                kind="measy",
                instance_id=_instance_id(spec),
                instance=spec,
                method=method,
                params=params,
                seed=sets.seed,
            )
        )

    if info["kind"] == "trace":
        if not sets.traces:
            raise InvalidInputError(
                "traces: no real trace in the data directory; get them with 'allockit data "
                "fetch all' (or --traces NAMES,FILES or a folder)"
            )
        for path, jobs in sets.traces:
            spec = {"set": "trace", "path": path, "jobs": jobs, "cpu": "paper", "seed": sets.seed}
            for method in info["algorithms"]:
                add(spec, method, _params(method, sets=sets))
        return tasks
    specs = sets.model_specs(info["model"], cpu=info.get("cpu", "paper"))
    if info["kind"] == "cost":
        loads = sets.cost_loads or sets.loads
        for spec in specs:
            if spec["load"] not in loads:
                continue
            add(spec, "KEASY", _params("KEASY"))
            for cost in sets.costs:
                add(spec, "MEASY", _params("MEASY", cost=cost))
        return tasks
    for spec in specs:
        for method in info["algorithms"]:
            add(spec, method, _params(method, cpu_info=info.get("cpu_info", "known"), sets=sets))
    return tasks


# ---------------------------------------------------------------------- aggregation
_KEEP = (
    "mean_response_time",
    "mean_bounded_slowdown",
    "response_time_ci95",
    "bounded_slowdown_ci95",
    "migrations",
    "migrations_per_job",
    "kills",
    "swaps",
    "wasted_cpu_seconds",
    "lost_progress_per_kill",
    "fg_utilization",
    "bg_utilization",
    "offered_load",
    "seconds",
    "jobs",
)


def _improvement(base: float, value: float) -> float:
    return 100.0 * (base - value) / base if base else math.nan


def aggregate(figure: str, rows: Iterable[dict[str, Any]], tasks: list[Task]) -> dict[str, Any]:
    """Summarise the finished rows of ``figure``'s tasks into its table.

    Parameters
    ----------
    figure : str
        A key of ``FIGURES``.
    rows : iterable of dict
        Rows of a results store (``allockit.runner.read_rows``).
    tasks : list of Task
        The figure's tasks (``experiment_tasks``); other rows are ignored.

    Returns
    -------
    dict
        ``figure``, ``title``, ``kind``, ``failed_tasks``, ``series`` (line -> x ->
        metrics) and ``checks`` (the paper's statements measured on these rows).

    Examples
    --------
    >>> sets = MeasySets(loads=(0.7,), jobs={"lublin": 40}, models=("lublin", "lublin"),
    ...                  processors=16)
    >>> tasks = experiment_tasks("fig6", sets)
    >>> rows = [{"key": t.key, "ok": True, "method": t.method,
    ...          "outputs": run_measy_task(t)} for t in tasks]
    >>> table = aggregate("fig6", rows, tasks)
    >>> sorted(table["series"]), list(table["series"]["EASY"])
    (['EASY', 'KEASY', 'MEASY', 'REASY'], ['0.7'])
    """
    info = FIGURES[figure]
    by_key = {t.key: t for t in tasks}
    failed = 0
    found: list[tuple[Task, dict[str, Any]]] = []
    for row in rows:
        task = by_key.get(row["key"])
        if task is None:
            continue
        if not row["ok"]:
            failed += 1
            continue
        found.append((task, dict(row["outputs"])))
    series: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for task, out in found:
        point = {k: out.get(k) for k in _KEEP}
        spec = task.instance
        if info["kind"] == "trace":
            line, x = task.method, Path(spec["path"]).name.split("-cln")[0]
        elif info["kind"] == "migrations":
            line, x = spec["label"], f"{spec['load']:g}"
        elif info["kind"] == "cost":
            if task.method == "KEASY":
                line, x = "KEASY", f"{spec['load']:g}"
            else:
                line, x = f"MEASY load {spec['load']:g}", f"{task.params['migration_cost']:g}"
        else:
            line, x = task.method, f"{spec['load']:g}"
        series[line][x] = point
    table: dict[str, Any] = {
        "figure": figure,
        "title": info["title"],
        "kind": info["kind"],
        "failed_tasks": failed,
        "series": {k: dict(sorted(v.items(), key=_xkey)) for k, v in sorted(series.items())},
    }
    if info["kind"] == "cost":
        _cost_ratios(table)
    table["checks"] = _checks(table)
    return table


def _xkey(item: tuple[str, Any]) -> Any:
    try:
        return (0, float(item[0]), "")
    except ValueError:
        return (1, 0.0, item[0])


def _cost_ratios(table: dict[str, Any]) -> None:
    keasy = table["series"].get("KEASY", {})
    for line, points in table["series"].items():
        if not line.startswith("MEASY load "):
            continue
        base = keasy.get(line.split()[-1])
        for point in points.values():
            if base and base.get("mean_response_time"):
                point["response_vs_keasy"] = (
                    point["mean_response_time"] / base["mean_response_time"]
                )
                point["slowdown_vs_keasy"] = (
                    point["mean_bounded_slowdown"] / base["mean_bounded_slowdown"]
                )


def _metric(series: dict, line: str, x: str, key: str) -> float:
    value = series.get(line, {}).get(x, {}).get(key)
    return math.nan if value is None else float(value)


def _checks(table: dict[str, Any]) -> dict[str, Any]:
    series, kind = table["series"], table["kind"]
    checks: dict[str, Any] = {}
    if kind in ("load", "trace"):
        xs = sorted({x for points in series.values() for x in points}, key=lambda x: _xkey((x, 0)))
        names = [n for n in ALL if n in series]
        for key, short in (("mean_response_time", "response"), ("mean_bounded_slowdown",
                                                                 "slowdown")):  # fmt: skip
            gains = {
                n: [_improvement(_metric(series, "EASY", x, key), _metric(series, n, x, key))
                    for x in xs]
                for n in names if n != "EASY"
            }  # fmt: skip
            for n, values in gains.items():
                finite = [v for v in values if math.isfinite(v)]
                if finite:
                    checks[f"{n}_{short}_improvement_max"] = max(finite)
                    checks[f"{n}_{short}_improvement_avg"] = statistics.fmean(finite)
            variants = [n for n in ("KEASY", "REASY", "MEASY") if n in series]
            if not variants:  # only EASY's rows so far (a partial store)
                continue
            worst = [max(variants, key=lambda n, x=x: _metric(series, n, x, key)) for x in xs]
            best = [min(variants, key=lambda n, x=x: _metric(series, n, x, key)) for x in xs]
            checks[f"worst_variant_{short}"] = dict(zip(xs, worst, strict=True))
            checks[f"best_variant_{short}"] = dict(zip(xs, best, strict=True))
            if "MEASY" in series and "KEASY" in series:
                checks[f"measy_beats_keasy_{short}"] = all(
                    _metric(series, "MEASY", x, key) <= _metric(series, "KEASY", x, key) for x in xs
                )
            if "REASY" in series:
                checks[f"reasy_worse_than_easy_{short}"] = all(
                    _metric(series, "REASY", x, key) > _metric(series, "EASY", x, key) for x in xs
                )
    elif kind == "migrations":
        lines = sorted(series)
        for line in lines:
            for point in series[line].values():
                jobs = point.get("jobs") or 1
                point["migrations_per_job"] = (point.get("migrations") or 0) / jobs
        if {"fwload", "jwload"} <= set(series):
            xs = sorted(set(series["fwload"]) & set(series["jwload"]), key=float)
            # the paper's Fig. 8 plots the number of migrations (its runs have 200,000
            # FWload and 100,000 JWload jobs); per job is shown beside it
            checks["jwload_minus_fwload_migrations"] = {
                x: series["jwload"][x]["migrations"] - series["fwload"][x]["migrations"] for x in xs
            }
            checks["jwload_minus_fwload_migrations_per_job"] = {
                x: series["jwload"][x]["migrations_per_job"]
                - series["fwload"][x]["migrations_per_job"]
                for x in xs
            }
    elif kind == "cost":
        # the migration cost at which a move costs what a kill throws away: KEASY's
        # progress lost per kill, weighted by the killed job's processes
        checks["keasy_lost_progress_per_kill"] = {
            x: point.get("lost_progress_per_kill")
            for x, point in series.get("KEASY", {}).items()
        }
        lines = [line for line in series if line.startswith("MEASY load ")]
        for key, short in (("response_vs_keasy", "response"), ("slowdown_vs_keasy",
                                                                "slowdown")):  # fmt: skip
            per_cost: dict[float, list[float]] = defaultdict(list)
            for line in lines:
                for x, point in series[line].items():
                    if point.get(key) is not None:
                        per_cost[float(x)].append(float(point[key]))
            mean = {c: statistics.fmean(v) for c, v in sorted(per_cost.items())}
            checks[f"{short}_ratio_by_cost"] = mean
            worse = [c for c, v in mean.items() if v > 1.0]
            better = [c for c, v in mean.items() if v <= 1.0]
            # the crossover lies between these two costs (the paper: 900-1,500 s on
            # FWload, 480-900 s on JWload)
            checks[f"{short}_last_cost_measy_better"] = max(better) if better else None
            checks[f"{short}_first_cost_measy_worse"] = min(worse) if worse else None
    return checks


def paper_claims(tables: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """MEASY's improvement over EASY on Figs 6 and 7 together, beside the paper's.

    Parameters
    ----------
    tables : iterable of dict
        ``aggregate`` tables; those of fig6 and fig7 are used.

    Returns
    -------
    dict
        ``{"response": (max, avg), "slowdown": (max, avg)}`` in % over every load of
        both workloads, and the paper's numbers under ``"paper"``.

    Examples
    --------
    >>> t = {"figure": "fig6", "kind": "load", "series": {
    ...     "EASY": {"0.5": {"mean_response_time": 10.0, "mean_bounded_slowdown": 4.0}},
    ...     "MEASY": {"0.5": {"mean_response_time": 8.0, "mean_bounded_slowdown": 2.0}}}}
    >>> paper_claims([t])["response"]
    (20.0, 20.0)
    """
    gains: dict[str, list[float]] = {"response": [], "slowdown": []}
    for table in tables:
        if table.get("figure") not in ("fig6", "fig7"):
            continue
        series = table["series"]
        for x in series.get("EASY", {}):
            for key, short in (("mean_response_time", "response"),
                               ("mean_bounded_slowdown", "slowdown")):  # fmt: skip
                value = _improvement(
                    _metric(series, "EASY", x, key), _metric(series, "MEASY", x, key)
                )
                if math.isfinite(value):
                    gains[short].append(value)
    out: dict[str, Any] = {
        short: (max(v), statistics.fmean(v)) if v else (math.nan, math.nan)
        for short, v in gains.items()
    }
    out["paper"] = {
        "response": (
            PAPER_CLAIMS["response_improvement_max"],
            PAPER_CLAIMS["response_improvement_avg"],
        ),
        "slowdown": (
            PAPER_CLAIMS["slowdown_improvement_max"],
            PAPER_CLAIMS["slowdown_improvement_avg"],
        ),
    }
    return out


# ---------------------------------------------------------------------- markdown
def _fmt(value: Any, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return f"{value:,.{digits}f}"
    return str(value)


def _ci(point: dict[str, Any], key: str) -> str:
    ci = point.get(key)
    if not ci or None in ci:
        return ""
    return f" [{_fmt(ci[0])}, {_fmt(ci[1])}]"


def to_markdown(table: dict[str, Any]) -> str:
    """The figure's table beside the paper's statement, as markdown.

    Parameters
    ----------
    table : dict
        ``aggregate``'s output.

    Returns
    -------
    str

    Examples
    --------
    >>> t = {"figure": "fig6", "title": "FWload", "kind": "load", "failed_tasks": 0,
    ...      "series": {"EASY": {"0.5": {"mean_response_time": 10.0,
    ...                                  "mean_bounded_slowdown": 4.0}}}, "checks": {}}
    >>> print(to_markdown(t).splitlines()[0])
    ### fig6: FWload
    """
    figure, kind, series = table["figure"], table["kind"], table["series"]
    lines = [f"### {figure}: {table['title']}", ""]
    claim = PAPER_CLAIMS.get(figure)
    if isinstance(claim, str):
        lines += [f"Paper: {claim}.", ""]
    if kind in ("load", "trace"):
        xs = sorted({x for points in series.values() for x in points}, key=lambda x: _xkey((x, 0)))
        names = [n for n in ALL if n in series]
        head = "load" if kind == "load" else "trace"
        lines.append(f"| {head} | algorithm | mean response time (s) [95 % CI] | "
                     "mean bounded slowdown [95 % CI] | vs EASY: response, slowdown | "
                     "migrations | kills | swaps | fg / bg use |")  # fmt: skip
        lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        for x in xs:
            base = series.get("EASY", {}).get(x, {})
            for n in names:
                p = series[n].get(x)
                if not p:
                    continue
                gain = "–"
                if n != "EASY" and base:
                    r = _improvement(base["mean_response_time"], p["mean_response_time"])
                    s = _improvement(base["mean_bounded_slowdown"], p["mean_bounded_slowdown"])
                    gain = f"{r:+.1f} %, {s:+.1f} %"
                use = f"{_fmt(p.get('fg_utilization'), 2)} / {_fmt(p.get('bg_utilization'), 2)}"
                lines.append(
                    f"| {x} | {n} | {_fmt(p['mean_response_time'], 0)}"
                    f"{_ci(p, 'response_time_ci95')} | {_fmt(p['mean_bounded_slowdown'], 2)}"
                    f"{_ci(p, 'bounded_slowdown_ci95')} | {gain} | {_fmt(p.get('migrations'), 0)}"
                    f" | {_fmt(p.get('kills'), 0)} | {_fmt(p.get('swaps'), 0)} | {use} |"
                )
        lines.append("")
        lines.append("Improvement = (EASY − X) / EASY; positive is better than EASY.")
    elif kind == "migrations":
        xs = sorted({x for points in series.values() for x in points}, key=float)
        lines.append("| load | " + " | ".join(f"{m} migrations (per job)" for m in series) + " |")
        lines.append("|---|" + "---:|" * len(series))
        for x in xs:
            cells = []
            for m in series:
                p = series[m].get(x, {})
                cells.append(
                    f"{_fmt(p.get('migrations'), 0)} ({_fmt(p.get('migrations_per_job'), 3)})"
                )
            lines.append(f"| {x} | " + " | ".join(cells) + " |")
    else:
        lines.append("| migration cost (s) | " + " | ".join(
            f"{line}: response / KEASY, slowdown / KEASY" for line in series
            if line != "KEASY") + " |")  # fmt: skip
        measy = [line for line in series if line != "KEASY"]
        lines.append("|---|" + "---:|" * len(measy))
        xs = sorted({x for line in measy for x in series[line]}, key=float)
        for x in xs:
            cells = []
            for line in measy:
                p = series[line].get(x, {})
                cells.append(f"{_fmt(p.get('response_vs_keasy'), 3)}, "
                             f"{_fmt(p.get('slowdown_vs_keasy'), 3)}")  # fmt: skip
            lines.append(f"| {x} | " + " | ".join(cells) + " |")
        lines.append("")
        lines.append("Ratio < 1: MEASY better than KEASY at the same load.")
    checks = table.get("checks", {})
    if checks:
        lines += ["", "Measured against the paper's statements:", ""]
        for key, value in checks.items():
            if isinstance(value, dict):
                value = ", ".join(f"{k}: {_fmt(v, 3)}" for k, v in value.items())
            lines.append(f"- `{key}`: {_fmt(value, 1)}")
    if table.get("failed_tasks"):
        lines += ["", f"**{table['failed_tasks']} task(s) failed** (see the store)."]
    return "\n".join(lines) + "\n"


def check_times(sets: MeasySets, figures: Sequence[str]) -> None:
    """Refuse loads under which a synthetic workload's times would pass what SWF holds.

    Submit times scale as 1 / load: one sample of each model (at most 2,000 jobs, load
    1) gives the seconds per job, extrapolated to the run's jobs at its smallest load,
    before any task is built. Beyond ``allockit.constants.MAX_SECONDS`` (1e10 s) the
    generators refuse the workload; this says so at once, with the loads that work.

    Parameters
    ----------
    sets : MeasySets
        The run's sets.
    figures : sequence of str
        The figures to run (only ``traces``: nothing to check).

    Raises
    ------
    InvalidInputError
        Naming the load, the model and the least load that fits.

    Examples
    --------
    >>> check_times(measy_sets(jobs=1000, loads=(0.5,), model="lublin"), ["fig6"])
    >>> check_times(measy_sets(jobs=1_000_000, loads=(0.01,)), ["fig6"])
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --loads 0.01 with 1000000 fwload jobs puts submit \
times near ...
    """
    from allockit.constants import MAX_SECONDS

    if all(figure == "traces" for figure in figures):
        return
    low = min((*sets.loads, *(sets.cost_loads or ())))
    for model in dict.fromkeys(sets.models):
        jobs = int(sets.jobs.get(model, QUICK_JOBS.get(model, 1000)))
        spec = sets.spec(model, 1.0)
        spec["jobs"] = sample = min(jobs, 2000)
        if sample < 2:
            continue
        w = _model_workload(spec)
        span = float(w.submit.max()) / (sample - 1) * jobs / low
        if span > MAX_SECONDS:
            least = float(f"{low * span / MAX_SECONDS * 1.1:.2g}")
            raise InvalidInputError(
                f"--loads {low:g} with {jobs} {model} jobs puts submit times near {span:.2g} "
                f"s, beyond the {MAX_SECONDS:g} s a workload may span; use loads of at least "
                f"{least:g} (or fewer --jobs)"
            )
