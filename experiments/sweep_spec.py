"""VCSched sweeps described in a small TOML file: instances x methods x parameters x seeds."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from allockit.constants import RUNNER_BACKENDS as BACKENDS
from allockit.constants import RUNNER_GRACE_SECONDS
from allockit.errors import InvalidInputError
from allockit.experiments.vcsched import collect_instance_files, vcsched_tasks
from allockit.tasks import Task

__all__ = ["SweepSpec", "load_spec"]

_FIELDS = {
    "name",
    "output",
    "backend",
    "workers",
    "scheduler",
    "time_limit",
    "methods",
    "seeds",
    "instances",
    "generate",
    "params",
    "grace",
}


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

            gen = dict(self.generate)
            every = int(gen.pop("every", 1))
            set_name = gen.pop("set", None)
            if set_name is None:
                raise InvalidInputError("[generate] needs set = 'small' or 'large'")
            seed = int(gen.pop("seed", 0))
            parallel = bool(gen.pop("parallel", False))
            if gen:
                raise InvalidInputError(f"[generate] has unknown field {sorted(gen)[0]!r}")
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
    ``scheduler``, ``grace``. The instances themselves are read when ``tasks()`` is
    called, so missing instance files are reported then.

    Parameters
    ----------
    path : str or Path
        The TOML file.

    Returns
    -------
    SweepSpec
        The parsed sweep.

    Raises
    ------
    InvalidInputError
        On an unreadable file, malformed TOML, an unknown field, a missing ``methods``
        or ``output``, an unknown backend or an empty ``methods`` list (named in the
        message).

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
    allockit.errors.InvalidInputError: sweep.toml: unknown field 'method'; valid fields: [...]
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInputError(f"cannot read sweep file {str(path)!r}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInputError(f"{path.name}: malformed TOML: {exc}") from None
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise InvalidInputError(
            f"{path.name}: unknown field {unknown[0]!r}; valid fields: {sorted(_FIELDS)}"
        )
    for required in ("methods", "output"):
        if required not in data:
            raise InvalidInputError(f"{path.name}: missing field {required!r}")
    backend = data.get("backend", "local")
    if backend not in BACKENDS:
        raise InvalidInputError(
            f"{path.name}: backend must be one of {list(BACKENDS)}; got {backend!r}"
        )
    methods = data["methods"]
    if isinstance(methods, str) or not isinstance(methods, list) or not methods:
        raise InvalidInputError(f"{path.name}: methods must be a non-empty list of names")
    base = path.parent
    seeds = data.get("seeds", [None])
    return SweepSpec(
        name=str(data.get("name", path.stem)),
        output=base / data["output"],
        methods=tuple(methods),
        instances=tuple(data.get("instances", [])),
        generate=dict(data.get("generate", {})),
        params=dict(data.get("params", {})),
        seeds=tuple(seeds),
        time_limit=data.get("time_limit"),
        backend=backend,
        workers=data.get("workers"),
        scheduler=data.get("scheduler"),
        grace=float(data.get("grace", RUNNER_GRACE_SECONDS)),
        base=base,
    )
