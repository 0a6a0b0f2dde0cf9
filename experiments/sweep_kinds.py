"""Sweeps of every family: each ``kind`` of sweep file, its instances, checks and tasks.

A sweep file (``allockit.experiments.sweep_spec``) names its ``kind``; the kind says
where instances come from (files or ``[generate]`` parameters), which family its
methods belong to, how ``[params]`` are checked before anything runs, and which runner
task kind runs one (instance, method, parameters, seed):

========  ============================  ===========================  ==================
kind      instances                     methods                      task kind
========  ============================  ===========================  ==================
vcsched   VCSched JSON, paper sets or   ``solve`` methods and specs  ``vcsched``
          generator parameters
drfh      DRFH JSON, Google servers     ``allocate`` mechanisms and  ``drfh``
          and random users              specs
simulate  SWF files, Lublin-Feitelson   FCFS, EASY, DFRS names,      ``simulate``
(batch,   workloads (the DFRS set)      user policies (specs)
dfrs)
measy     SWF traces, FWload, JWload,   EASY, KEASY, REASY, MEASY    ``measy``
          Lublin (the MEASY rules)
reserves  round JSON, random rounds     ``allocate_reserves``        ``reserves-round``
                                        methods and specs
cluster   Li and Parker's scenarios     static, bank,                ``reserves``
          (``scenarios = [...]``)       cluster-reserves
========  ============================  ===========================  ==================

User methods travel as specs with their file's source (``experiments.methods``), so a
``PATH/TO/FILE.py:FUNCTION`` spec runs on a Dask cluster whose workers lack the file; a
``MODULE:FUNCTION`` spec must be importable on the workers. Instance files named in a
sweep are read here (VCSched, DRFH, reserves: their JSON travels in the task) or by the
workers (SWF files: on a cluster they must be at the same path on every machine).

Examples
--------
>>> sorted(KINDS)
['batch', 'cluster', 'dfrs', 'drfh', 'measy', 'reserves', 'simulate', 'vcsched']
>>> KINDS["batch"].task_kind, KINDS["drfh"].family
('simulate', 'drfh')
"""

from __future__ import annotations

import glob
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from allockit.errors import InvalidInputError
from allockit.tasks import Task, register_task_kind

__all__ = [
    "KINDS",
    "SweepKind",
    "grid",
    "run_drfh_task",
    "run_reserves_round_task",
    "run_simulate_task",
    "sweep_tasks",
]


# ---------------------------------------------------------------------- task kinds
def run_drfh_task(task: Task) -> dict[str, Any]:
    """Runner task kind ``drfh``: allocate ``task.instance`` with ``task.method``.

    Parameters
    ----------
    task : Task
        ``instance`` is a DRFH instance's JSON object, ``params`` the mechanism's
        options, ``seed`` passed as the common option.

    Returns
    -------
    dict
        ``status``, ``users``, ``servers``, ``tasks`` (total), ``min_dominant_share``,
        ``mean_dominant_share``, ``utilization`` (per resource) and ``seconds``.

    Examples
    --------
    >>> inst = {"resources": ["cpu", "mem"], "servers": [{"capacity": [1, 1]}],
    ...         "users": [{"demand": [0.1, 0.2], "tasks": 3}]}
    >>> out = run_drfh_task(Task(kind="drfh", instance_id="a", instance=inst,
    ...                          method="progressive"))
    >>> out["status"], round(out["tasks"], 9), round(out["min_dominant_share"], 9)
    ('optimal', 3.0, 0.6)
    """
    from allockit.drfh import allocate
    from allockit.instances.drfh import DRFHInstance

    instance = DRFHInstance.from_dict(task.instance)
    result = allocate(instance, task.algorithm, seed=task.seed, **task.params)
    shares = result.dominant_share
    return {
        "status": str(result.status),
        "users": len(result.user_names),
        "servers": int(instance.count.sum()),
        "tasks": float(result.tasks.sum()),
        "min_dominant_share": float(shares.min()) if shares.size else None,
        "mean_dominant_share": float(shares.mean()) if shares.size else None,
        "utilization": result.utilization.tolist(),
        "seconds": result.seconds,
        "message": result.message,
    }


def run_simulate_task(task: Task) -> dict[str, Any]:
    """Runner task kind ``simulate``: ``simulate(workload, task.method, **task.params)``.

    Parameters
    ----------
    task : Task
        ``instance`` is a trace spec (``allockit.experiments.dfrs.build_workload``: a
        synthetic trace or ``{"set": "file", "path"}``); ``params`` the simulator's
        options (and a user policy's own); ``seed`` passed when set.

    Returns
    -------
    dict
        The simulation's ``summary()`` (``status``, ``max_stretch``, ``mean_stretch``,
        ``underutilization``, costs, ...), ``offered_load`` and the platform's ``nodes``.

    Examples
    --------
    >>> spec = {"set": "scaled", "seed": 0, "load": 0.5, "jobs": 30, "nodes": 8}
    >>> out = run_simulate_task(Task(kind="simulate", instance_id="w", instance=spec,
    ...                              method="EASY", params={"backfill_depth": 2}))
    >>> out["status"], out["jobs"], out["algorithm"]
    ('completed', 30, 'easy')
    """
    from allockit.experiments.dfrs import build_workload
    from allockit.simulation.simulate import simulate

    workload = build_workload(task.instance)
    options = dict(task.params)
    if task.seed is not None:
        options["seed"] = task.seed
    result = simulate(workload, task.algorithm, **options)
    return {
        **result.summary(),
        "offered_load": workload.offered_load(),
        "nodes": workload.platform.nodes,
    }


def run_reserves_round_task(task: Task) -> dict[str, Any]:
    """Runner task kind ``reserves-round``: one allocation round with ``task.method``.

    Parameters
    ----------
    task : Task
        ``instance`` is a reserves round's JSON object (``ReservesInstance.to_dict``).

    Returns
    -------
    dict
        ``status``, ``nodes``, ``classes``, ``max_deviation`` and ``total_deviation``
        (percentage points of the cluster, absolute), ``class_totals``, ``V``,
        ``qp_objective`` and ``seconds``.

    Examples
    --------
    >>> inst = {"targets": [60, 40], "allocation": [[60, 40]] * 2,
    ...         "usage": [[70, 30], [50, 50]]}
    >>> out = run_reserves_round_task(Task(kind="reserves-round", instance_id="r",
    ...                                    instance=inst, method="bank"))
    >>> out["status"], out["nodes"], out["class_totals"]
    ('feasible', 2, [59.5, 40.5])
    """
    from allockit.instances.reserves import ReservesInstance
    from allockit.reserves import allocate_reserves

    instance = ReservesInstance.from_dict(task.instance)
    result = allocate_reserves(instance, task.algorithm, seed=task.seed, **task.params)
    dev = abs(result.deviation)
    return {
        "status": str(result.status),
        "nodes": instance.n_nodes,
        "classes": instance.n_classes,
        "max_deviation": float(dev.max()) if dev.size else 0.0,
        "total_deviation": float(dev.sum()),
        "class_totals": result.class_totals.tolist(),
        "V": result.V,
        "qp_objective": result.qp_objective,
        "seconds": result.seconds,
    }


register_task_kind("drfh", "allockit.experiments.sweep_kinds:run_drfh_task")
register_task_kind("simulate", "allockit.experiments.sweep_kinds:run_simulate_task")
register_task_kind("reserves-round", "allockit.experiments.sweep_kinds:run_reserves_round_task")


# ---------------------------------------------------------------------- helpers
def grid(params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every combination of ``params`` (a list of values is a dimension; sorted names).

    Parameters
    ----------
    params : Mapping[str, Any]
        Option -> a value or a list of values.

    Returns
    -------
    list of dict
        One dict per combination (one empty dict for no params).

    Raises
    ------
    InvalidInputError
        If ``params`` is not a mapping.

    Examples
    --------
    >>> grid({"b": [1, 2], "a": 0})
    [{'a': 0, 'b': 1}, {'a': 0, 'b': 2}]
    """
    if not isinstance(params, Mapping):
        raise InvalidInputError(
            f"params must map option names to a value or a list of values; got {params!r}"
        )
    names = sorted(params)
    values = [params[n] if isinstance(params[n], list) else [params[n]] for n in names]
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)]


def _values(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _files(inputs: Sequence[str], base: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """Files named by paths, folders (their files with ``suffixes``) or glob patterns."""
    out: list[Path] = []
    for item in inputs:
        path = base / item
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.name.endswith(suffixes))
        elif path.exists():
            found = [path]
        else:
            found = sorted(Path(p) for p in glob.glob(str(path)))
        if not found:
            raise InvalidInputError(f"no instance files match {str(item)!r}")
        out.extend(found)
    return out


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".swf.gz", ".json", ".swf", ".gz"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def _relative_spec(method: str, base: Path) -> str:
    """A ``FILE.py:FUNCTION`` spec with its file relative to the sweep file, made absolute."""
    from allockit.plugins import is_spec

    if not is_spec(method):
        return method
    target, _, attr = method.rpartition(":")
    target = target.strip()
    if target.endswith(".py") or "/" in target or "\\" in target:
        path = Path(target).expanduser()
        if not path.is_absolute():
            path = base / path
        return f"{path.resolve()}:{attr}"
    return method


@dataclass(frozen=True, slots=True)
class SweepKind:
    """One kind of sweep: its methods' family, task kind, checks and instances.

    Attributes
    ----------
    name : str
        The ``kind`` value.
    family : str or None
        The plug-in family of its methods (None: built-in names only).
    task_kind : str
        The runner task kind that runs one task.
    check : callable
        ``check(method, params, where)``: refuse a ``[params]`` combination the method
        does not accept (``InvalidInputError``).
    items : callable
        ``items(spec)``: ``(instance id, instance)`` pairs.
    builtins : tuple of str
        For a kind without a family: the accepted method names.

    Examples
    --------
    >>> KINDS["cluster"].builtins, KINDS["cluster"].family is None
    (('static', 'bank', 'cluster-reserves'), True)
    """

    name: str
    family: str | None
    task_kind: str
    check: Callable[[str, dict[str, Any], str], None]
    items: Callable[[Any], list[tuple[str, Any]]]
    builtins: tuple[str, ...] = ()


def _check_declared(family: str, label: str) -> Callable[[str, dict[str, Any], str], None]:
    """Check params against a built-in's spec, or a user method's ``method_spec``."""

    def check(method: str, params: dict[str, Any], where: str) -> None:
        from allockit.options import MethodSpec, check_options
        from allockit.registry import builtin_specs, resolve_method

        specs = builtin_specs(family)
        if method in specs:
            spec = specs[method]
        else:
            declared = getattr(resolve_method(family, method).function, "method_spec", None)
            if not isinstance(declared, MethodSpec):
                return  # a user method without declared options gets them as they are
            spec = declared
        for name, value in params.items():
            try:
                check_options(label, spec, {name: value})
            except InvalidInputError as exc:
                raise InvalidInputError(f"{where}[params] {name}: {exc}") from None

    return check


def _check_simulate(method: str, params: dict[str, Any], where: str) -> None:
    from allockit.options import check_options
    from allockit.simulation.simulate import ENGINES, build_policy, is_builtin, simulator_for

    try:
        if is_builtin(method):
            spec = simulator_for(method).spec
            for name, value in params.items():
                check_options("simulator", spec, {name: value})
            return
        engine = ENGINES["batch"]
        own = {k: v for k, v in params.items() if k not in engine.options}
        for name in set(params) - set(own):
            check_options("simulator", engine, {name: params[name]})
        build_policy(method, **own)  # a policy that cannot be built fails here, not per task
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}[params]: {exc}") from None


def _check_measy(method: str, params: dict[str, Any], where: str) -> None:
    from allockit.options import check_options
    from allockit.simulation.simulate import SIMULATORS

    for name, value in params.items():
        try:
            check_options("simulator", SIMULATORS["two-tier"].spec, {name: value})
        except InvalidInputError as exc:
            raise InvalidInputError(f"{where}[params] {name}: {exc}") from None


def _check_cluster(method: str, params: dict[str, Any], where: str) -> None:
    """Overrides are checked when the scenarios are built (``_cluster_items``)."""


# ---------------------------------------------------------------------- instances
def _vcsched_items(spec: Any) -> list[tuple[str, Any]]:
    from allockit.instances.io import read_instance

    items = [
        (path.stem, read_instance(path).to_dict())
        for path in _files(spec.instances, spec.base, (".json",))
    ]
    gen = dict(spec.generate)
    if "set" in gen:
        from allockit.instances.generators import iter_vcsched_set

        every = gen.get("every", 1)
        paper_set = iter_vcsched_set(
            gen["set"], seed=gen.get("seed", 0), parallel=gen.get("parallel", False)
        )
        for k, (stem, inst) in enumerate(paper_set):
            if k % every == 0:
                items.append((stem, inst.to_dict()))
    elif gen:
        from allockit.instances.generators import generate_vcsched

        points = grid({k: gen.get(k, d) for k, d in
                       (("hosts", None), ("jobs", None), ("slack", None),
                        ("cov_cpu", 0.25), ("cov_mem", 0.25))})
        seed = gen.get("seed", 0)
        for point in points:
            for r in range(gen.get("count", 1)):
                inst = generate_vcsched(
                    **point, parallel=gen.get("parallel", False), seed=seed + r
                )
                stem = (
                    f"h{point['hosts']}-j{point['jobs']}-s{point['slack']}"
                    f"-cc{point['cov_cpu']}-cm{point['cov_mem']}-r{r}"
                )
                items.append((stem, inst.to_dict()))
    return items


def _drfh_items(spec: Any) -> list[tuple[str, Any]]:
    from allockit.instances.drfh import DRFHInstance, google_servers, random_users
    from allockit.instances.io import read_drfh_instance
    from allockit.rng import as_generator

    items = [
        (_stem(path), read_drfh_instance(path).to_dict())
        for path in _files(spec.instances, spec.base, (".json",))
    ]
    gen = dict(spec.generate)
    if gen:
        seed = gen.get("seed", 0)
        for point in grid({"servers": gen["servers"], "users": gen["users"]}):
            for r in range(gen.get("count", 1)):
                rng = as_generator(seed + r)
                users = random_users(
                    point["users"], seed=rng, tasks=None if gen.get("unbounded") else (10, 1000)
                )
                inst = DRFHInstance.from_dict(
                    {
                        "resources": ["cpu", "mem"],
                        "servers": google_servers(point["servers"], seed=rng),
                        "users": users,
                    }
                )
                items.append((f"drfh-s{point['servers']}-u{point['users']}-r{r}", inst.to_dict()))
    return items


def _simulate_items(spec: Any) -> list[tuple[str, Any]]:
    from allockit.instances.workload_files import read_workload

    items: list[tuple[str, Any]] = []
    for path in _files(spec.instances, spec.base, (".swf", ".swf.gz")):
        read_workload(path)  # checked here: a bad file fails before any work
        items.append((_stem(path), {"set": "file", "path": str(path.resolve())}))
    gen = dict(spec.generate)
    if gen:
        seed = gen.get("seed", 0)
        loads = _values(gen["load"]) if "load" in gen else [None]
        for point in grid({"jobs": gen["jobs"], "nodes": gen["nodes"]}):
            for load in loads:
                for r in range(gen.get("count", 1)):
                    trace = {"set": "unscaled" if load is None else "scaled", "seed": seed + r,
                             **({} if load is None else {"load": float(load)}), **point}
                    name = f"lublin-j{point['jobs']}-n{point['nodes']}"
                    name += "" if load is None else f"-l{load}"
                    items.append((f"{name}-s{seed + r}", trace))
    return items


def _measy_items(spec: Any) -> list[tuple[str, Any]]:
    from allockit.experiments.measy import MeasySets

    items: list[tuple[str, Any]] = []
    seed = dict(spec.generate).get("seed", 0)
    for path in _files(spec.instances, spec.base, (".swf", ".swf.gz")):
        items.append(
            (_stem(path), {"set": "trace", "path": str(path.resolve()), "jobs": None,
                           "cpu": "paper", "seed": seed})
        )
    gen = dict(spec.generate)
    if gen:
        for model in _values(gen["model"]):
            sets = MeasySets(
                models=(model, model), jobs={model: gen["jobs"]}, loads=tuple(_values(gen["load"])),
                processors=gen.get("processors", 320), seed=seed,
            )
            for load in sets.loads:
                item = sets.spec(model, load, cpu=gen.get("cpu", "paper"))
                items.append((f"{model}-j{gen['jobs']}-l{load}-s{seed}", item))
    return items


def _reserves_items(spec: Any) -> list[tuple[str, Any]]:
    from allockit.instances.io import read_json
    from allockit.instances.reserves import ReservesInstance, random_reserves

    items = [
        (_stem(path), ReservesInstance.from_dict(read_json(path, "instance")).to_dict())
        for path in _files(spec.instances, spec.base, (".json",))
    ]
    gen = dict(spec.generate)
    if gen:
        seed = gen.get("seed", 0)
        for point in grid({"nodes": gen["nodes"], "classes": gen["classes"]}):
            for r in range(gen.get("count", 1)):
                inst = random_reserves(point["nodes"], point["classes"], seed=seed + r)
                items.append((f"reserves-n{point['nodes']}-c{point['classes']}-r{r}",
                              inst.to_dict()))
    return items


def _cluster_items(spec: Any) -> list[tuple[str, Any]]:
    """One item per scenario; the overrides are added per task (method, params)."""
    from allockit.simulation.cluster_scenarios import SCENARIOS

    items = []
    for k, name in enumerate(spec.extra.get("scenarios", ())):
        if name not in SCENARIOS and name != "scaled":
            raise InvalidInputError(
                f"scenarios[{k}] must be one of {sorted(SCENARIOS)}; got {name!r}"
            )
        items.append((name, {"scenario": name}))
    return items


#: Task kinds registered by the experiment modules (imported when a sweep needs them).
_KIND_MODULES = {
    "vcsched": "allockit.experiments.vcsched",
    "measy": "allockit.experiments.measy",
    "reserves": "allockit.experiments.reserves",
}

#: The kinds of sweep, by the ``kind`` value of the file.
KINDS: dict[str, SweepKind] = {
    "vcsched": SweepKind(
        "vcsched", "vcsched", "vcsched", _check_declared("vcsched", "VCSched method"),
        _vcsched_items,
    ),
    "drfh": SweepKind(
        "drfh", "drfh", "drfh", _check_declared("drfh", "DRFH method"), _drfh_items
    ),
    "simulate": SweepKind("simulate", "scheduler", "simulate", _check_simulate, _simulate_items),
    "measy": SweepKind(
        "measy", None, "measy", _check_measy, _measy_items,
        builtins=("EASY", "KEASY", "REASY", "MEASY"),
    ),
    "reserves": SweepKind(
        "reserves", "reserves", "reserves-round", _check_declared("reserves", "reserves method"),
        _reserves_items,
    ),
    "cluster": SweepKind(
        "cluster", None, "reserves", _check_cluster, _cluster_items,
        builtins=("static", "bank", "cluster-reserves"),
    ),
}
KINDS["batch"] = KINDS["simulate"]
KINDS["dfrs"] = KINDS["simulate"]


def check_methods(
    kind: SweepKind, methods: Sequence[str], params: Mapping[str, Any], where: str, base: Path
) -> list[dict[str, Any]]:
    """Check the methods and every ``[params]`` combination; the methods' task fields.

    Parameters
    ----------
    kind : SweepKind
        The sweep's kind.
    methods : sequence of str
        As written in the file (file specs relative to the file's folder).
    params : Mapping[str, Any]
        The ``[params]`` table.
    where : str
        Message prefix (the file's name).
    base : Path
        The sweep file's folder.

    Returns
    -------
    list of dict
        Per method, the ``Task`` fields that name it (``experiments.methods``), with the
        name as written.

    Raises
    ------
    InvalidInputError
        For an unknown or repeated method, a spec that cannot be loaded, or a
        parameter a method does not accept.
    """
    from allockit.experiments.methods import method_fields

    fields = []
    for k, method in enumerate(methods):
        if method in methods[:k]:
            raise InvalidInputError(f"{where}methods lists {method!r} twice")
        label = f"{where}methods[{k}]"
        if kind.family is None:
            if method not in kind.builtins:
                raise InvalidInputError(
                    f"{label} must be one of {list(kind.builtins)} (a {kind.name} sweep takes "
                    f"built-in names only); got {method!r}"
                )
            named = {"method": method}
        else:
            absolute = _relative_spec(method, base)
            try:
                named = method_fields(kind.family, absolute, label=label)
            except InvalidInputError as exc:  # name the spec as the file writes it
                raise InvalidInputError(str(exc).replace(repr(absolute), repr(method), 1)) from None
            named["method"] = method
        combos = grid(dict(params))
        for combo in combos[:100]:  # (the first 100 combinations; each value is checked)
            kind.check(named.get("spec") or method, combo, where)
        for name, values in params.items():
            for value in _values(values):
                kind.check(named.get("spec") or method, {name: value}, where)
        fields.append(named)
    return fields


def sweep_tasks(spec: Any) -> list[Task]:
    """Every task of a sweep: instances x methods x ``[params]`` grid x seeds.

    Parameters
    ----------
    spec : SweepSpec
        A loaded sweep file (``allockit.experiments.sweep_spec.load_spec``).

    Returns
    -------
    list of Task
        In a deterministic order: instance, method, parameters, seed.

    Raises
    ------
    InvalidInputError
        If the sweep has no instances, or an instance file cannot be read.

    Examples
    --------
    >>> from allockit.experiments.sweep_spec import SweepSpec
    >>> spec = SweepSpec(name="r", output=Path("r.db"), methods=("bank",), kind="reserves",
    ...                  generate={"nodes": [2, 3], "classes": 2}, seeds=(0,))
    >>> [(t.kind, t.instance_id, t.method) for t in sweep_tasks(spec)]
    [('reserves-round', 'reserves-n2-c2-r0', 'bank'), ('reserves-round', 'reserves-n3-c2-r0', \
'bank')]
    """
    import importlib

    kind = KINDS[spec.kind]
    if kind.task_kind in _KIND_MODULES:  # registers the task kind in this process
        importlib.import_module(_KIND_MODULES[kind.task_kind])
    items = kind.items(spec)
    if not items:
        raise InvalidInputError("the sweep has no instances (instances = [...] or [generate])")
    ids = [name for name, _ in items]
    for name in ids:
        if ids.count(name) > 1:
            raise InvalidInputError(f"two instances of the sweep are named {name!r}; rename one")
    fields = check_methods(kind, spec.methods, spec.params, "", spec.base)
    tasks = []
    for (stem, inst), named, params, seed in itertools.product(
        items, fields, grid(spec.params), spec.seeds
    ):
        instance, task_params = inst, params
        if kind.name == "cluster":  # the scenario's overrides are the instance
            instance = {"scenario": inst["scenario"],
                        "overrides": {**params, "algorithm": named["method"]}}
            task_params = {}
        tasks.append(
            Task(
                kind=kind.task_kind,
                instance_id=stem,
                instance=instance,
                params=task_params,
                seed=seed,
                time_limit=spec.time_limit,
                **named,
            )
        )
    return tasks
