"""VCSched sweeps described in a small TOML file: instances x methods x parameters x seeds."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from allockit.constants import RUNNER_GRACE_SECONDS
from allockit.errors import InvalidInputError
from allockit.experiments.vcsched import collect_instance_files, vcsched_tasks
from allockit.tasks import Task

__all__ = ["SweepSpec", "load_spec"]


@dataclass(frozen=True, slots=True)
class SweepSpec:
    """A parsed sweep file (see the README's "Sweeps" section for the format).

    Build it with ``load_spec``; ``tasks()`` expands the grid for
    ``allockit.runner.run_sweep``.

    Attributes
    ----------
    name : str
        Sweep name recorded in every row (default: the file's stem).
    output : Path
        The results store (SQLite), relative paths resolved against the file.
    methods : tuple of str
        VCSched method names (``allockit.vcsched.METHOD_SPECS``).
    instances : tuple of str
        Instance files, directories or glob patterns, relative to ``base``.
    generate : dict
        ``[generate]`` table: ``set`` (``"small"`` or ``"large"``), optional ``seed``,
        ``parallel`` and ``every`` (keep every k-th instance of the set).
    params : dict of str to list
        Method options crossed into a grid (each value a list of choices); every
        option goes to every method.
    seeds : tuple of int or None
        Seeds of the randomised methods (default ``(None,)``).
    time_limit : float or None
        Seconds per task.
    backend : str
        ``"local"``, ``"serial"`` or ``"dask"``.
    workers : int or None
        Local worker processes.
    scheduler : str or None
        Dask scheduler address.
    grace : float
        Seconds past a task's time limit before it is stopped.
    base : Path
        Directory of the sweep file.

    Examples
    --------
    Two methods on two bundled sample instances of the small set (10 and 12 jobs):

    >>> from importlib.resources import files
    >>> sample = Path(str(files("allockit.instances").joinpath("data", "small_sample")))
    >>> spec = SweepSpec(name="demo", output=Path("demo.db"), methods=("mcb8", "sg"),
    ...                  instances=("h4-j1?-s0.1-*.json",), seeds=(0,), base=sample)
    >>> tasks = spec.tasks()
    >>> len(tasks), [(t.instance_id, t.method) for t in tasks][:2]
    (4, [('h4-j10-s0.1-cc0.75-cm0.25-r0', 'mcb8'), ('h4-j10-s0.1-cc0.75-cm0.25-r0', 'sg')])
    """

    name: str
    output: Path
    methods: tuple[str, ...]
    instances: tuple[str, ...] = ()
    generate: dict[str, Any] = field(default_factory=dict)
    params: dict[str, list[Any]] = field(default_factory=dict)
    seeds: tuple[int | None, ...] = (None,)
    time_limit: float | None = None
    backend: str = "local"
    workers: int | None = None
    scheduler: str | None = None
    grace: float = RUNNER_GRACE_SECONDS
    base: Path = Path(".")

    def tasks(self) -> list[Task]:
        """Every task of the grid, in a deterministic order."""
        return vcsched_tasks(
            self._instance_items(),
            methods=self.methods,
            params=self.params,
            seeds=self.seeds,
            time_limit=self.time_limit,
        )

    def _instance_items(self) -> list[tuple[str, dict[str, Any]]]:
        from allockit.instances.io import read_instance

        items = []
        for path in collect_instance_files([self.base / p for p in self.instances]):
            items.append((path.stem, read_instance(path).to_dict()))
        if self.generate:
            from allockit.instances.generators import iter_vcsched_set
            from allockit.instances.schemas import SweepGenerate, validate

            gen = validate(SweepGenerate, dict(self.generate), where="[generate] ")
            every = gen.get("every", 1)
            set_name = gen["set"]
            seed = gen.get("seed", 0)
            parallel = gen.get("parallel", False)
            for k, (stem, inst) in enumerate(
                iter_vcsched_set(set_name, seed=seed, parallel=parallel)
            ):
                if k % every == 0:
                    items.append((stem, inst.to_dict()))
        if not items:
            raise InvalidInputError("the sweep has no instances (instances = [...] or [generate])")
        return items


def load_spec(path: str | Path) -> SweepSpec:
    """Read and check a sweep TOML file; relative paths are relative to the file.

    Fields: ``methods`` and ``output`` (required), ``name``, ``instances``,
    ``[generate]``, ``[params]``, ``seeds``, ``time_limit``, ``backend``, ``workers``,
    ``scheduler``, ``grace``. The file is checked as a whole before anything runs: the
    schema ``allockit.instances.schemas.SWEEP`` (types, ranges, unknown fields), then
    the method names, the ``[params]`` every method must accept (with their ranges,
    ``allockit.vcsched.METHOD_SPECS``), unique methods and seeds, and that the
    instance files exist. The instances themselves are read by ``tasks()``.

    Parameters
    ----------
    path : str or Path
        The TOML file (UTF-8).

    Returns
    -------
    SweepSpec
        The parsed sweep.

    Raises
    ------
    InvalidInputError
        On an unreadable or non-UTF-8 file, malformed TOML, a field of the wrong type,
        out of range or unknown, an unknown or repeated method, a ``[params]`` option a
        method does not accept (or out of its range), or missing instance files (named
        in the message, with the file's name first).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp(), "sweep.toml")
    >>> _ = path.write_text('''
    ... name = "demo"
    ... output = "demo.db"
    ... methods = ["mcb8", "sg"]
    ... seeds = [0]
    ... [generate]
    ... set = "small"
    ... every = 720
    ... ''')
    >>> spec = load_spec(path)
    >>> spec.name, spec.output.name, spec.methods, spec.backend, spec.generate
    ('demo', 'demo.db', ('mcb8', 'sg'), 'local', {'set': 'small', 'every': 720})
    >>> _ = path.write_text('methods = ["mcb8"]\\noutput = "x.db"\\nmethod = 1\\n')
    >>> load_spec(path)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: sweep.toml: method is not a known field; valid fields: ...
    >>> _ = path.write_text('methods = ["mcb8", "sg"]\\noutput = "x.db"\\n'
    ...                     '[generate]\\nset = "small"\\n[params]\\ntol = [0.01]\\n')
    >>> load_spec(path)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: sweep.toml: [params] tol: VCSched method 'sg' does \
not accept option 'tol'; accepted: seed, threads, time_limit
    """
    from allockit.instances.schemas import validate

    path = Path(path)
    where = f"{path.name}: "
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise InvalidInputError(f"cannot read sweep file {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidInputError(f"{where}not a UTF-8 text file (a TOML sweep file)") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInputError(f"{where}malformed TOML: {exc}") from None
    from allockit.instances.schemas import SWEEP

    doc = validate(SWEEP, data, where=where, name="the sweep file")
    methods = tuple(doc["methods"])
    _check_methods(methods, doc.get("params", {}), where)
    seeds = doc.get("seeds")
    if seeds is not None and len(set(seeds)) != len(seeds):
        raise InvalidInputError(f"{where}seeds must be distinct; got {seeds}")
    workers = doc.get("workers")
    if workers is not None:
        from allockit.options import Range, max_threads

        try:
            Range(int, ge=1, le=max_threads()).check("workers", workers)
        except InvalidInputError as exc:
            raise InvalidInputError(f"{where}{exc}") from None
    base = path.parent
    instances = tuple(doc.get("instances", []))
    if instances:
        try:
            collect_instance_files([base / p for p in instances])
        except InvalidInputError as exc:
            raise InvalidInputError(f"{where}instances: {exc}") from None
    elif "generate" not in doc:
        raise InvalidInputError(
            f"{where}the sweep has no instances: give instances = [...] or a [generate] table"
        )
    return SweepSpec(
        name=doc.get("name", path.stem),
        output=base / doc["output"],
        methods=methods,
        instances=instances,
        generate=dict(doc.get("generate", {})),
        params={k: v if isinstance(v, list) else [v] for k, v in doc.get("params", {}).items()},
        seeds=tuple(seeds) if seeds is not None else (None,),
        time_limit=doc.get("time_limit"),
        backend=doc.get("backend", "local"),
        workers=workers,
        scheduler=doc.get("scheduler"),
        grace=float(doc.get("grace", RUNNER_GRACE_SECONDS)),
        base=base,
    )


def _check_methods(methods: tuple[str, ...], params: dict[str, Any], where: str) -> None:
    """Known, distinct methods that all accept every ``[params]`` option and value."""
    from allockit.options import check_options
    from allockit.vcsched import METHOD_SPECS

    for k, method in enumerate(methods):
        if method not in METHOD_SPECS:
            raise InvalidInputError(
                f"{where}methods[{k}] must be one of {sorted(METHOD_SPECS)}; got {method!r}"
            )
        if method in methods[:k]:
            raise InvalidInputError(f"{where}methods lists {method!r} twice")
    for name, values in params.items():
        if name in ("seed", "time_limit"):
            top = "seeds" if name == "seed" else "time_limit"
            raise InvalidInputError(
                f"{where}[params] {name}: give it as the top-level field {top!r}"
            )
        for value in values if isinstance(values, list) else [values]:
            for method in methods:
                try:
                    check_options("VCSched method", METHOD_SPECS[method], {name: value})
                except InvalidInputError as exc:
                    raise InvalidInputError(f"{where}[params] {name}: {exc}") from None
