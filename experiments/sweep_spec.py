"""Sweeps described in a small TOML file: instances x methods x parameters x seeds.

The file's ``kind`` (default ``vcsched``) picks the family: ``vcsched``, ``drfh``,
``simulate`` (also ``batch`` and ``dfrs``), ``measy``, ``reserves`` or ``cluster``; each
kind's keys are checked by its schema (``allockit.instances.schemas.SWEEP_KINDS``) and
its instances, methods and tasks are described in ``allockit.experiments.sweep_kinds``.
Example files of every kind are in the repository's ``examples/`` folder.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from allockit.constants import RUNNER_GRACE_SECONDS
from allockit.errors import InvalidInputError
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
        The kind's methods as written: built-in names, plug-ins, ``MODULE:FUNCTION``
        or ``PATH/TO/FILE.py:FUNCTION`` (a file relative to the sweep file's folder).
    instances : tuple of str
        Instance files, directories or glob patterns, relative to ``base``.
    generate : dict
        ``[generate]`` table: the kind's generator parameters (VCSched: ``set`` of the
        paper, with ``seed``, ``parallel`` and ``every``; or ``hosts``, ``jobs``,
        ``slack``, ...). A list value is a dimension of the grid.
    params : dict of str to list
        Method options crossed into a grid (each value a list of choices); every
        option goes to every method.
    seeds : tuple of int or None
        Seeds of the randomised methods and simulations (default ``(None,)``).
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
    kind : str
        The sweep's kind (``allockit.experiments.sweep_kinds.KINDS``).
    extra : dict
        The kind's own fields (``scenarios`` of a ``cluster`` sweep).

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
    kind: str = "vcsched"
    extra: dict[str, Any] = field(default_factory=dict)

    def tasks(self) -> list[Task]:
        """Every task of the grid, in a deterministic order."""
        from allockit.experiments.sweep_kinds import sweep_tasks

        return sweep_tasks(self)


def load_spec(path: str | Path) -> SweepSpec:
    """Read and check a sweep TOML file; relative paths are relative to the file.

    Fields: ``methods`` and ``output`` (required), ``kind`` (default ``vcsched``),
    ``name``, ``instances``, ``[generate]`` (``scenarios`` for ``cluster``),
    ``[params]``, ``seeds``, ``time_limit``, ``backend``, ``workers``, ``scheduler``,
    ``grace``. The file is checked as a whole before anything runs: the kind's schema
    (``allockit.instances.schemas.SWEEP_KINDS``: types, ranges, unknown fields), then
    the methods (built-in names, plug-ins or specs that load), the ``[params]`` every
    method must accept (with their ranges, the methods' ``MethodSpec``), unique
    methods and seeds, and that the instance files exist. The instances themselves
    are read by ``tasks()``.

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
    from allockit.experiments.sweep_kinds import KINDS, check_methods
    from allockit.instances.schemas import SWEEP_KIND_NAMES, SWEEP_KINDS

    kind = data.get("kind", "vcsched") if isinstance(data, dict) else "vcsched"
    if kind not in SWEEP_KIND_NAMES:
        raise InvalidInputError(
            f"{where}kind must be one of {', '.join(SWEEP_KIND_NAMES)}; got {kind!r}"
        )
    doc = validate(SWEEP_KINDS[kind], data, where=where, name="the sweep file")
    methods = tuple(doc["methods"])
    params = doc.get("params", {})
    for name in params:
        if name in ("seed", "time_limit"):
            top = "seeds" if name == "seed" else "time_limit"
            raise InvalidInputError(
                f"{where}[params] {name}: give it as the top-level field {top!r}"
            )
    check_methods(KINDS[kind], methods, params, where, path.parent)
    if kind == "vcsched":
        _check_vcsched_generate(dict(doc.get("generate", {})), where)
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
        from allockit.experiments.sweep_kinds import _files

        try:
            _files(instances, base, (".json", ".swf", ".swf.gz"))
        except InvalidInputError as exc:
            raise InvalidInputError(f"{where}instances: {exc}") from None
    elif "generate" not in doc and kind != "cluster":
        raise InvalidInputError(
            f"{where}the sweep has no instances: give instances = [...] or a [generate] table"
        )
    extra = {"scenarios": tuple(doc["scenarios"])} if kind == "cluster" else {}
    if kind == "cluster":
        _check_cluster(extra["scenarios"], methods, params, where)
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
        kind=kind,
        extra=extra,
    )


def _check_vcsched_generate(gen: dict[str, Any], where: str) -> None:
    """A VCSched ``[generate]``: a paper set, or ``hosts``, ``jobs`` and ``slack``."""
    params = {"hosts", "jobs", "slack", "cov_cpu", "cov_mem", "count"} & set(gen)
    if "set" in gen and params:
        raise InvalidInputError(
            f"{where}[generate] takes either set (a paper set) or generator parameters "
            f"({', '.join(sorted(params))}), not both"
        )
    if "set" not in gen and gen:
        missing = [k for k in ("hosts", "jobs", "slack") if k not in gen]
        if missing:
            raise InvalidInputError(
                f"{where}[generate] needs set, or hosts, jobs and slack; missing "
                f"{', '.join(missing)}"
            )
        if "every" in gen:
            raise InvalidInputError(f"{where}[generate] every applies to a paper set only")


def _check_cluster(
    scenarios: tuple[str, ...], methods: tuple[str, ...], params: dict[str, Any], where: str
) -> None:
    """Every (scenario, algorithm, overrides) of a cluster sweep builds a configuration."""
    from allockit.experiments.reserves import _tuples
    from allockit.experiments.sweep_kinds import grid
    from allockit.simulation.cluster_scenarios import SCENARIOS, scaled, scenario

    for k, name in enumerate(scenarios):
        if name not in SCENARIOS and name != "scaled":
            raise InvalidInputError(
                f"{where}scenarios[{k}] must be one of {sorted([*SCENARIOS, 'scaled'])}; "
                f"got {name!r}"
            )
        for method in methods:
            for combo in grid(params)[:100]:
                overrides = {key: _tuples(value) for key, value in combo.items()}
                try:
                    if name == "scaled":
                        if "n_nodes" not in overrides:
                            raise InvalidInputError("scenario 'scaled' needs [params] n_nodes")
                        scaled(int(overrides.pop("n_nodes")), algorithm=method, **overrides)
                    else:
                        scenario(name, algorithm=method, **overrides)
                except (InvalidInputError, TypeError) as exc:
                    raise InvalidInputError(
                        f"{where}scenario {name!r} with {method!r} and {combo}: {exc}"
                    ) from None
