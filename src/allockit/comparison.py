"""One call to compare VCSched methods: ``compare(instances, methods)`` and its ``Comparison``.

Any mix of built-in names, registered plug-ins, ``MODULE:FUNCTION`` and
``PATH/TO/FILE.py:FUNCTION`` specs and Python callables runs on any instances (objects,
files, folders or glob patterns) through the experiment runner (``allockit.runner``):
in this process (``workers=1``, the default), on local worker processes, or on a Dask
cluster, with a resumable results store. ``allockit compare`` is this function.

A callable that another process cannot import by name (a lambda, a nested function, a
function of ``__main__`` such as a notebook's) runs only in this process: with
``workers > 1`` or another backend it is refused with a message saying what to do
(put it in a module or a ``.py`` file and pass ``"MODULE:FUNCTION"`` or
``"FILE.py:FUNCTION"``; a file is shipped to remote workers with each task).

Examples
--------
Your heuristic against MCB8 and the exact MILP, on two instances:

>>> from allockit.instances.vcsched import VCInstance
>>> def roundrobin(instance, **options):
...     return [j % instance.hosts for j in range(instance.n_jobs)]
>>> a = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
>>> b = VCInstance.from_lists(hosts=2, cpu=[0.9, 0.3, 0.3], mem=[0.2, 0.2, 0.2])
>>> c = compare({"a": a, "b": b}, [roundrobin, "mcb8", "milp"])
>>> [(s.method.split(":")[-1], s.solved, round(s.avg_degradation, 2)) for s in c.summary()]
[('roundrobin', 2, 8.33), ('mcb8', 2, 0.0), ('milp', 2, 0.0)]
>>> len(c.rows), str(c.status)
(6, 'completed')
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from allockit.errors import InvalidInputError, SolverUnavailableError
from allockit.results.base import Status

__all__ = ["Comparison", "compare"]


@dataclass(frozen=True, slots=True)
class Comparison:
    """What ``compare`` found: one row per (instance, method), and the per-method summary.

    Attributes
    ----------
    rows : tuple of dict
        One per instance x method, in the order of the instances then the methods:
        ``instance``, ``method``, ``status``, ``outcome`` (``solved``, ``infeasible``:
        proven, ``no_solution``, ``error``), ``min_yield``, ``avg_yield``, ``bound``,
        ``gap``, ``degradation`` (percent below the best minimum yield any method found
        on the instance), ``seconds``, ``setup_seconds``, ``error`` and more
        (``allockit.experiments.compare.comparison_rows``).
    methods : tuple of str
        The methods' names, in the order given (the spec as given; ``module:qualname``
        of a callable).
    instances : tuple of str
        The instances' names (a file's stem, a mapping's key, ``instance<k>``).
    failed_tasks : int
        Tasks that failed (their rows have ``outcome`` ``error`` and the error text).
    seconds : float
        Wall time of the comparison.
    store : str or None
        The results store kept (None: a temporary one, deleted).

    Examples
    --------
    >>> c = Comparison(rows=(), methods=("mcb8",), instances=(), failed_tasks=0,
    ...                seconds=0.0, store=None)
    >>> str(c.status), Comparison.from_dict(c.to_dict()) == c
    ('completed', True)
    """

    rows: tuple[Mapping[str, Any], ...]
    methods: tuple[str, ...]
    instances: tuple[str, ...]
    failed_tasks: int
    seconds: float
    store: str | None = None
    _summary: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", tuple(dict(r) for r in self.rows))
        object.__setattr__(self, "methods", tuple(self.methods))
        object.__setattr__(self, "instances", tuple(self.instances))

    @property
    def status(self) -> Status:
        """``COMPLETED``, or ``FAILED_TASKS`` when some task failed."""
        return Status.COMPLETED if self.failed_tasks == 0 else Status.FAILED_TASKS

    def summary(self) -> list[Any]:
        """Per method: n, outcomes, degradation, certified gap, yields and seconds.

        Returns
        -------
        list of allockit.experiments.compare.MethodSummary
            One per method, in order: ``instances`` (n), ``solved``, ``infeasible``
            (proven), ``no_solution``, ``errors``, ``avg_degradation`` and
            ``max_degradation`` (percent below the best known answer per instance),
            ``mean_gap`` and ``max_gap`` (certified gap in percent, where the method
            proved a bound), ``mean_min_yield``, ``mean_avg_yield``, ``mean_seconds``,
            ``max_seconds`` and ``setup_seconds``; ``to_dict()`` gives JSON.
        """
        if self._summary is None:
            from allockit.experiments.compare import summarize

            object.__setattr__(self, "_summary", summarize(list(self.rows), list(self.methods)))
        return list(self._summary)

    def table(self, paper: Mapping[str, tuple[float, float]] | None = None) -> str:
        """The summary as a text table, with a legend of its columns.

        Parameters
        ----------
        paper : mapping of str to (float, float), optional
            Method -> a published (average, maximum) % degradation, printed beside
            allockit's (the demo gives the VCSched paper's Table 1).

        Returns
        -------
        str
            What ``allockit compare`` prints.
        """
        from allockit.experiments.compare import format_table

        table = format_table(self.summary(), dict(paper) if paper else None)
        return f"{len(self.instances)} instances\n{table}"

    def to_pandas(self) -> Any:
        """The rows as a pandas ``DataFrame`` (needs ``allockit[dataframe]``).

        Returns
        -------
        pandas.DataFrame
            One row per (instance, method).

        Raises
        ------
        SolverUnavailableError
            If pandas is not installed.
        """
        import importlib.util

        if importlib.util.find_spec("pandas") is None:
            raise SolverUnavailableError(
                "Comparison.to_pandas needs pandas: pip install 'allockit[dataframe]'"
            )
        import pandas as pd

        return pd.DataFrame(list(self.rows))

    def plot(self, directory: str | Path) -> list[Path]:
        """Minimum yield, average yield and failure rate vs slack, run time vs jobs.

        Parameters
        ----------
        directory : str or Path
            Folder for the PNG files (created if missing).

        Returns
        -------
        list of Path
            The files written (``allockit.experiments.plots.plot_comparison``).

        Raises
        ------
        SolverUnavailableError
            If matplotlib is not installed (``allockit[plot]``).
        """
        from allockit.experiments.plots import plot_comparison

        return plot_comparison(list(self.rows), directory)

    def to_dict(self) -> dict[str, Any]:
        """JSON form: the rows, the summary, the names and the run's figures."""
        return {
            "status": str(self.status),
            "instances": list(self.instances),
            "methods": list(self.methods),
            "failed_tasks": self.failed_tasks,
            "seconds": self.seconds,
            "store": self.store,
            "summary": [s.to_dict() for s in self.summary()],
            "rows": [dict(r) for r in self.rows],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Comparison:
        """Rebuild a comparison from ``to_dict``'s output."""
        try:
            return cls(
                rows=tuple(dict(r) for r in data["rows"]),
                methods=tuple(data["methods"]),
                instances=tuple(data["instances"]),
                failed_tasks=int(data["failed_tasks"]),
                seconds=float(data["seconds"]),
                store=data.get("store"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"comparison object is malformed: {exc}") from exc


def _instance_items(instances: Any) -> list[tuple[str, dict[str, Any]]]:
    """``(name, instance JSON)`` for objects, files, folders, globs or a mapping."""
    from allockit.experiments.vcsched import collect_instance_files
    from allockit.instances.io import read_instance
    from allockit.instances.vcsched import VCInstance

    if isinstance(instances, VCInstance | str | Path):
        instances = [instances]
    if isinstance(instances, Mapping):
        pairs: list[tuple[str | None, Any]] = [(str(k), v) for k, v in instances.items()]
    elif isinstance(instances, Iterable):
        pairs = [
            (str(item[0]), item[1]) if isinstance(item, tuple) and len(item) == 2 else (None, item)
            for item in instances
        ]
    else:
        raise InvalidInputError(
            "instances must be VCInstance objects, instance files, folders or glob patterns "
            f"(or a mapping name -> instance); got a {type(instances).__name__}"
        )
    items: list[tuple[str, dict[str, Any]]] = []
    files: dict[Path, Path] = {}
    for k, (name, value) in enumerate(pairs):
        if isinstance(value, VCInstance):
            items.append((name or f"instance{k}", value.to_dict()))
        elif isinstance(value, Mapping):
            items.append((name or f"instance{k}", VCInstance.from_dict(value).to_dict()))
        elif isinstance(value, str | Path):
            for path in collect_instance_files([value]):
                if path.resolve() in files:
                    raise InvalidInputError(
                        f"instance file {str(path)!r} is given twice (also as "
                        f"{str(files[path.resolve()])!r}); give each file once"
                    )
                files[path.resolve()] = path
                items.append((name or path.stem, read_instance(path).to_dict()))
        else:
            raise InvalidInputError(
                f"instances[{k}] must be a VCInstance, a file, a folder or a glob pattern; "
                f"got a {type(value).__name__}"
            )
    names = [n for n, _ in items]
    for name in names:
        if names.count(name) > 1:
            raise InvalidInputError(
                f"two instances are named {name!r} (rows are keyed by the name; a file's "
                "stem); rename one"
            )
    if not items:
        raise InvalidInputError("compare needs at least one instance")
    return items


def compare(
    instances: Any,
    methods: Sequence[Any],
    *,
    time_limit: float | None = None,
    workers: int = 1,
    store: str | Path | None = None,
    backend: str | None = None,
    scheduler: Any = None,
    seed: int | None = 0,
    progress: bool | None = False,
    connect_timeout: float = 10.0,
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> Comparison:
    """Run every method on every instance on the runner; the rows and per-method summary.

    Parameters
    ----------
    instances : VCInstance, path, or a sequence or mapping of them
        Instance objects, instance files, folders (their ``*.json``) or glob patterns;
        a mapping names them (else a file's stem, or ``instance<k>`` for an object).
    methods : sequence of str or callable
        Built-in names (``"milp"``, ``"mcb8"``, ...), registered plug-ins,
        ``"MODULE:FUNCTION"`` or ``"PATH/TO/FILE.py:FUNCTION"`` specs, or callables
        with the contract of ``allockit.vcsched.solve`` (a placement, None or a
        ``VCResult``); each once.
    time_limit : float, optional
        Seconds per task (passed to the methods and enforced by the runner).
    workers : int, default 1
        1 runs the tasks in this process (any callable works); more starts local worker
        processes (callables must then have an importable name, see the module).
    store : path, optional
        Keep the results in this store and resume from it (default: a temporary one).
    backend : {"serial", "local", "dask"}, optional
        Default: ``serial`` for one worker, else ``local``.
    scheduler : str or distributed.Client, optional
        The Dask scheduler for ``backend="dask"``.
    seed : int or None, default 0
        Seed of the randomised methods (RRND, RRNZ, CP-SAT; passed to user methods).
    progress : bool or None, default False
        Progress bar on stderr (None: when stderr is a terminal).
    connect_timeout : float, default 10.0
        Seconds to wait for a Dask scheduler.
    options : mapping of str to mapping, optional
        Method name (as given in ``methods``) -> its own options (``{"milp":
        {"solver": "scip", "rel_gap": 1e-3}}``), checked by the method as it runs (a bad
        one makes that method's rows errors).

    Returns
    -------
    Comparison
        ``rows``, ``summary()``, ``table()``, ``to_pandas()``, ``plot(directory)``.

    Raises
    ------
    InvalidInputError
        For an unknown method or a spec that cannot be loaded, a method or instance
        given twice, no instances, a bad option, a callable without an importable name
        with ``workers > 1`` or a backend other than ``serial``, or an unusable store.

    Examples
    --------
    >>> from allockit.instances.vcsched import VCInstance
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> compare([inst], [lambda instance, **kw: [0, 1, 0], "sg"], workers=2)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: compare: method '<lambda>' is a callable without an \
importable name...
    """
    import tempfile

    from allockit.experiments.methods import needs_this_process
    from allockit.experiments.vcsched import vcsched_tasks
    from allockit.plugins import callable_name
    from allockit.runner import read_rows, run_sweep

    if isinstance(methods, str) or not isinstance(methods, Sequence) or not methods:
        raise InvalidInputError(
            "methods must be a non-empty list of method names, specs or callables; "
            f"got {methods!r}"
        )
    names = [m if isinstance(m, str) else callable_name(m)[0] for m in methods]
    for k, name in enumerate(names):
        if name in names[:k]:
            raise InvalidInputError(f"methods lists {name!r} twice; give each method once")
    from allockit.options import Range, check_common, max_threads

    Range(int, ge=1, le=max_threads()).check("workers", workers)
    check_common(time_limit=time_limit, seed=seed)  # (numpy numbers as Python's below)
    time_limit = None if time_limit is None else float(time_limit)
    seed = None if seed is None else int(seed)
    if options is not None and (
        not isinstance(options, Mapping)
        or not all(isinstance(v, Mapping) for v in options.values())
    ):
        raise InvalidInputError(
            "options must map method names to mappings of their options (e.g. "
            f"{{'milp': {{'rel_gap': 1e-3}}}}); got {options!r}"
        )
    if store is not None and not isinstance(store, str | os.PathLike):
        raise InvalidInputError(f"store must be a path; got {store!r}")
    backend = backend or ("serial" if workers == 1 else "local")
    started = time.perf_counter()
    items = _instance_items(instances)
    options = dict(options or {})
    unknown = sorted(set(options) - set(names))
    if unknown:
        raise InvalidInputError(
            f"options names {unknown[0]!r}, which is not among the methods {names}"
        )
    tasks = [
        task
        for method, name in zip(methods, names, strict=True)
        for task in vcsched_tasks(
            items,
            methods=[method],
            params=dict(options.get(name, {})),  # (Task makes numpy values Python's)
            seeds=[seed],
            time_limit=time_limit,
        )
    ]
    local_only = needs_this_process(tasks)
    if local_only and backend != "serial":
        raise InvalidInputError(
            f"compare: method {local_only[0]!r} is a callable without an importable name "
            "(a lambda, a nested function or a function of __main__): other processes "
            "cannot run it; define it in a module or a .py file and pass "
            "'MODULE:FUNCTION' or 'PATH/TO/FILE.py:FUNCTION', or use workers=1"
        )
    methods_named = tuple(dict.fromkeys(t.method for t in tasks))
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(store) if store is not None else Path(tmp) / "compare.db"
        run_sweep(
            tasks,
            db,
            backend=backend,
            workers=workers,
            scheduler=scheduler,
            sweep="compare",
            progress=progress,
            connect_timeout=connect_timeout,
        )
        order = {t.key: k for k, t in enumerate(tasks)}
        rows = sorted(
            (r for r in read_rows(db) if r["key"] in order), key=lambda r: order[r["key"]]
        )
    from allockit.experiments.compare import comparison_rows

    failed = sum(1 for r in rows if not r["ok"])
    return Comparison(
        rows=tuple(comparison_rows(rows)),
        methods=methods_named,
        instances=tuple(name for name, _ in items),
        failed_tasks=failed,
        seconds=time.perf_counter() - started,
        store=str(store) if store is not None else None,
    )
