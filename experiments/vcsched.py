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

__all__ = ["collect_instance_files", "run_vcsched_task", "vcsched_tasks"]


def run_vcsched_task(task: Task) -> dict[str, Any]:
    """Runner task kind ``vcsched``: solve ``task.instance`` with ``task.method``.

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

    instance = VCInstance.from_dict(task.instance)
    result = solve(instance, task.method, time_limit=task.time_limit, seed=task.seed, **task.params)
    return {
        "status": str(result.status),
        "min_yield": result.min_yield,
        "avg_yield": result.avg_yield,
        "bound": result.bound,
        "gap": result.gap,
        "build_seconds": result.build_seconds,
        "solve_seconds": result.solve_seconds,
        "setup_seconds": result.setup_seconds,
        "solver": result.solver,
        "message": result.message,
        "hosts": instance.hosts,
        "jobs": instance.n_jobs,
        "tasks": instance.n_tasks,
    }


register_task_kind("vcsched", "allockit.experiments.vcsched:run_vcsched_task")


def collect_instance_files(inputs: list[str | Path]) -> list[Path]:
    """Instance files named by paths, directories (their ``*.json``) or glob patterns.

    Raises
    ------
    InvalidInputError
        If an input matches nothing.
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

    Examples
    --------
    >>> from allockit.instances.vcsched import VCInstance
    >>> inst = VCInstance.from_lists(hosts=1, cpu=[0.5], mem=[0.1]).to_dict()
    >>> len(vcsched_tasks([("a", inst)], methods=["milp", "lp"], seeds=[0, 1]))
    4
    """
    from allockit.vcsched import METHODS

    for method in methods:
        if method not in METHODS:
            raise InvalidInputError(f"method must be one of {sorted(METHODS)}; got {method!r}")
    params = params or {}
    names = sorted(params)
    grids = [params[n] if isinstance(params[n], list) else [params[n]] for n in names]
    tasks = []
    for (stem, inst), method, values, seed in itertools.product(
        items, methods, itertools.product(*grids), seeds
    ):
        tasks.append(
            Task(
                kind="vcsched",
                instance_id=stem,
                instance=inst,
                method=method,
                params=dict(zip(names, values, strict=True)),
                seed=seed,
                time_limit=time_limit,
            )
        )
    return tasks
