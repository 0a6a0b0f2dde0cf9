"""VCSched experiments: the task kind ``vcsched`` and the grid of (instance, method) tasks.

``run_vcsched_task`` solves one instance with one method (``allockit.vcsched.solve``)
inside a runner worker; ``vcsched_tasks`` builds the grid that ``allockit compare``,
``allockit demo`` and sweep files run; ``allockit.experiments.compare`` turns the rows
into the paper's Table 1 statistics.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from allockit.errors import InvalidInputError
from allockit.tasks import Task, register_task_kind

__all__ = ["collect_instance_files", "run_vcsched_task", "solver_start_up", "vcsched_tasks"]

#: Modules each method needs loaded before it runs: its solver's start-up cost.
_STACKS = {
    "pyomo": ("pyomo.environ", "pyomo.contrib.solver.common.factory", "highspy"),
    "cpsat": ("ortools.sat.python.cp_model",),
    "highs": ("highspy",),
}
_METHOD_STACKS = {
    "milp": ("pyomo",),
    "milp-paper": ("pyomo",),
    "lp": ("pyomo",),
    "cpsat": ("cpsat",),
    "best": ("pyomo", "cpsat"),
    "rrnd": ("highs",),
    "rrnz": ("highs",),
}


def solver_start_up(method: str) -> float:
    """Load the solver stack of a VCSched method once per process; the seconds it took.

    A worker's first exact solve would otherwise carry the import of Pyomo and HiGHS
    (about 0.8 s) or OR-Tools (0.5 s) in its time: this one-time cost is reported as
    ``setup_seconds``, apart from the task's ``build_seconds`` and ``solve_seconds``.
    Heuristics load their numba kernels themselves (``setup_seconds`` of their result).

    Parameters
    ----------
    method : str
        A VCSched method name (others need nothing).

    Returns
    -------
    float
        Seconds spent importing; 0.0 when the stack was already loaded.

    Examples
    --------
    >>> solver_start_up("sg")
    0.0
    >>> solver_start_up("lp") >= 0.0, solver_start_up("lp")
    (True, 0.0)
    """
    import importlib
    import sys
    import time

    names = [m for stack in _METHOD_STACKS.get(method, ()) for m in _STACKS[stack]]
    todo = [m for m in names if m not in sys.modules]
    if not todo:
        return 0.0
    started = time.perf_counter()
    for name in todo:
        importlib.import_module(name)
    return time.perf_counter() - started


def run_vcsched_task(task: Task) -> dict[str, Any]:
    """Runner task kind ``vcsched``: solve ``task.instance`` with ``task.method``.

    Calls ``allockit.vcsched.solve`` with the task's ``time_limit``, ``seed`` and
    ``params`` as options. Runs in a runner worker; an exception (a bad option, for
    instance) becomes a failed row there.

    Parameters
    ----------
    task : Task
        ``instance`` is a VCSched instance's JSON object (``VCInstance.to_dict``),
        ``method`` a VCSched method name (a user's method: ``Task.algorithm``).

    Returns
    -------
    dict
        The row's outputs: ``status``, ``min_yield``, ``avg_yield``, ``bound``, ``gap``,
        ``build_seconds``, ``solve_seconds``, ``setup_seconds`` (one-time costs of the
        worker process, apart from the task's time: the method's numba kernels and its
        solver's start-up, ``solver_start_up``), ``solver``, ``message``,
        ``incumbent_source`` and ``bound_source`` (the components that
        produced the placement and the bound), and the instance's ``hosts``, ``jobs``,
        ``tasks`` and memory ``slack`` (1 - total memory / hosts, 4 decimals).

    Examples
    --------
    >>> from allockit.instances.vcsched import VCInstance
    >>> inst = VCInstance.from_lists(hosts=1, cpu=[0.5], mem=[0.1]).to_dict()
    >>> out = run_vcsched_task(Task(kind="vcsched", instance_id="a", instance=inst,
    ...                             method="sg"))
    >>> out["status"], out["min_yield"]
    ('optimal', 1.0)
    """
    from allockit.instances.vcsched import VCInstance
    from allockit.vcsched import solve

    start_up = solver_start_up(task.method)
    instance = VCInstance.from_dict(task.instance)
    result = solve(
        instance, task.algorithm, time_limit=task.time_limit, seed=task.seed, **task.params
    )
    return {
        "status": str(result.status),
        "min_yield": result.min_yield,
        "avg_yield": result.avg_yield,
        "bound": result.bound,
        "gap": result.gap,
        "build_seconds": result.build_seconds,
        "solve_seconds": result.solve_seconds,
        "setup_seconds": (result.setup_seconds or 0.0) + start_up,
        "solver": result.solver,
        "message": result.message,
        "incumbent_source": result.incumbent_source,
        "bound_source": result.bound_source,
        "hosts": instance.hosts,
        "jobs": instance.n_jobs,
        "tasks": instance.n_tasks,
        "slack": round(1.0 - float((instance.mem * instance.tasks).sum()) / instance.hosts, 4),
    }


register_task_kind("vcsched", "allockit.experiments.vcsched:run_vcsched_task")


def collect_instance_files(inputs: list[str | Path]) -> list[Path]:
    """Instance files named by paths, directories (their ``*.json``) or glob patterns.

    Parameters
    ----------
    inputs : list of str or Path
        Each an existing file, a directory (its ``*.json`` files, not recursive) or a
        glob pattern such as ``"sets/small/h4-j6-*.json"``.

    Returns
    -------
    list of Path
        The files, in input order, each input's matches sorted (duplicates kept).

    Raises
    ------
    InvalidInputError
        If an input matches nothing.

    Examples
    --------
    >>> from importlib.resources import files
    >>> sample = Path(str(files("allockit.instances").joinpath("data", "small_sample")))
    >>> [p.name for p in collect_instance_files([sample / "h4-j10-s0.1-*.json"])]
    ['h4-j10-s0.1-cc0.75-cm0.25-r0.json']
    >>> collect_instance_files([sample / "nothing-*.json"])
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: no instance files match '...nothing-*.json'
    """
    import glob

    files: list[Path] = []
    for item in inputs:
        path = Path(item)
        if path.is_dir():
            found = sorted(path.glob("*.json"))
        elif path.exists():
            found = [path]
        else:
            found = sorted(Path(p) for p in glob.glob(str(path)))
        if not found:
            raise InvalidInputError(f"no instance files match {str(item)!r}")
        files.extend(found)
    return files


def vcsched_tasks(
    items: list[tuple[str, dict[str, Any]]],
    *,
    methods: tuple[str, ...] | list[str],
    params: dict[str, list[Any]] | None = None,
    seeds: tuple[int | None, ...] | list[int | None] = (None,),
    time_limit: float | None = None,
) -> list[Task]:
    """The grid of VCSched tasks: instances x methods x parameter grid x seeds.

    Tasks come out instance by instance, then method, parameters and seed. Every
    parameter combination goes to every method, so a method-specific option (``tol``
    of MCB, say) makes the methods that refuse it fail as rows.

    Parameters
    ----------
    items : list of tuple (str, dict)
        ``(instance id, instance JSON object)`` pairs.
    methods : sequence of str or callable
        VCSched methods: built-in names, plug-ins, ``MODULE:FUNCTION`` or
        ``PATH/TO/FILE.py:FUNCTION`` specs, or callables (see
        ``allockit.experiments.methods.method_fields``).
    params : dict of str to list, optional
        Option name -> the values to try (a single value counts as a list of one).
    seeds : sequence of int or None, default (None,)
        Seeds of the randomised methods.
    time_limit : float, optional
        Seconds per task (enforced by the runner).

    Returns
    -------
    list of Task
        Tasks of kind ``"vcsched"``.

    Raises
    ------
    InvalidInputError
        For an unknown method name or a spec that cannot be loaded (or a ``time_limit``
        that is not > 0, from ``Task``).

    Examples
    --------
    >>> from allockit.instances.vcsched import VCInstance
    >>> inst = VCInstance.from_lists(hosts=1, cpu=[0.5], mem=[0.1]).to_dict()
    >>> len(vcsched_tasks([("a", inst)], methods=["milp", "lp"], seeds=[0, 1]))
    4
    >>> [t.params for t in vcsched_tasks([("a", inst)], methods=["mcb8"],
    ...                                  params={"tol": [0.01, 0.001]})]
    [{'tol': 0.01}, {'tol': 0.001}]
    """
    from allockit.experiments.methods import method_fields

    named = [method_fields("vcsched", method) for method in methods]
    params = params or {}
    names = sorted(params)
    grids = [params[n] if isinstance(params[n], list) else [params[n]] for n in names]
    tasks = []
    for (stem, inst), fields, values, seed in itertools.product(
        items, named, itertools.product(*grids), seeds
    ):
        tasks.append(
            Task(
                kind="vcsched",
                instance_id=stem,
                instance=inst,
                params=dict(zip(names, values, strict=True)),
                seed=seed,
                time_limit=time_limit,
                **fields,
            )
        )
    return tasks
