"""Declarative schemas of allockit's external inputs, and the one style of their errors.

Every file a user hands to allockit is checked once, where it enters, by a schema here:
the VCSched and DRFH instance JSON (``VCSCHED``, ``DRFH``), the SWF header
(``SWF_HEADER``), the sweep TOML (``SWEEP``) and a Jann 1997 model file
(``JANN_MODEL``, ``workload jann97 --model``); the 18 SWF fields are a table
(``SWF_FIELDS_SCHEMA``) applied to whole columns at once, since a trace holds millions
of values. The schemas are strict (pydantic v2 strict mode): no ``"1"`` for 1, no
``true`` for 1, no ``1.5`` for an integer, finite numbers only, ranges from
``allockit.constants`` and unknown fields refused.

An error becomes one ``InvalidInputError`` line naming the field's path, the value as
the user wrote it and what is allowed (scikit-learn's wording), e.g.
``jobs[3].cpu must be a number in (0, 1]; got '1.5' at job 'vm3'``.

This module imports pydantic: import it inside the function that validates, so that
``import allockit`` and ``allockit --help`` stay fast.

Examples
--------
>>> doc = {"problem": "vcsched", "hosts": 2, "jobs": [{"name": "a", "cpu": "1", "mem": 0}]}
>>> validate(VCSCHED, doc)
Traceback (most recent call last):
...
allockit.errors.InvalidInputError: jobs[0].cpu must be a number in (0, 1]; got '1' at job 'a'
"""

from __future__ import annotations

import json
import math
import types
import typing
from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired

import numpy as np
from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, with_config
from typing_extensions import TypedDict

from allockit.constants import (
    MAX_CORES,
    MAX_HOSTS,
    MAX_NODES,
    MAX_SECONDS,
    MAX_SEED,
    MAX_TASKS,
    RUNNER_BACKENDS,
)
from allockit.errors import InvalidInputError

__all__ = [
    "DRFH",
    "JANN_MODEL",
    "SWEEP",
    "SWEEP_KINDS",
    "SWEEP_KIND_NAMES",
    "SWF_FIELDS_SCHEMA",
    "SWF_HEADER",
    "SWF_PLATFORM",
    "VCSCHED",
    "DRFHDocument",
    "JannModelDocument",
    "SWFHeaderValues",
    "SWFPlatform",
    "SweepDocument",
    "VCDocument",
    "describe_error",
    "number",
    "plain_values",
    "validate",
]

_STRICT = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)


def _bounds(ge: Any, gt: Any, le: Any, lt: Any) -> str:
    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return str(int(v)) if v.is_integer() and abs(v) < 1e6 else f"{v:g}"
        return str(v)

    low = f"[{fmt(ge)}" if ge is not None else (f"({fmt(gt)}" if gt is not None else None)
    high = f"{fmt(le)}]" if le is not None else (f"{fmt(lt)})" if lt is not None else None)
    if low and high:
        return f" in {low}, {high}"
    if low:
        return f" >= {fmt(ge)}" if ge is not None else f" > {fmt(gt)}"
    if high:
        return f" <= {fmt(le)}" if le is not None else f" < {fmt(lt)}"
    return ""


def number(
    kind: type,
    *,
    ge: Any = None,
    gt: Any = None,
    le: Any = None,
    lt: Any = None,
    what: str | None = None,
) -> Any:
    """A constrained ``int`` or ``float`` type whose description says what is allowed.

    The description (``"an integer in [1, 1000000]"``, ``"a number in (0, 1]"``) is the
    "what is allowed" part of the error message.

    Parameters
    ----------
    kind : {int, float}
        The type; in strict mode an ``int`` field refuses floats and bools, a ``float``
        field accepts integers but refuses strings, bools, NaN and infinities.
    ge, gt, le, lt : number, optional
        Bounds (``>=``, ``>``, ``<=``, ``<``).
    what : str, optional
        The description, instead of the one made from the kind and the bounds.

    Returns
    -------
    typing.Annotated
        The type, for a schema field.

    Examples
    --------
    >>> TypeAdapter(number(int, ge=1, le=4)).validate_python(3)
    3
    >>> number(float, gt=0, le=1).__metadata__[0].description
    'a number in (0, 1]'
    """
    noun = "an integer" if kind is int else "a number"
    text = what or noun + _bounds(ge, gt, le, lt)
    return Annotated[kind, Field(ge=ge, gt=gt, le=le, lt=lt, description=text)]


def _text(what: str, *, min_length: int = 1, max_length: int = 1000) -> Any:
    return Annotated[str, Field(min_length=min_length, max_length=max_length, description=what)]


def _described(tp: Any, what: str) -> Any:
    return Annotated[tp, Field(description=what)]


# ---------------------------------------------------------------------- VCSched JSON
_HOST = number(int, ge=0, lt=MAX_HOSTS, what="a host index (an integer >= 0)")


@with_config(_STRICT)
class VCJob(TypedDict):
    """One job of a VCSched instance."""

    name: _text("a non-empty string")
    cpu: number(float, gt=0, le=1)
    mem: number(float, ge=0, what="a number >= 0 (above 1 the instance is infeasible)")
    tasks: NotRequired[number(int, ge=1, le=MAX_TASKS)]
    previous: NotRequired[
        _described(
            _HOST | list[_HOST] | None,
            "null, a host index or a list of one host index per task",
        )
    ]


@with_config(_STRICT)
class VCDocument(TypedDict):
    """A VCSched instance file (the README's "Instance format").

    Examples
    --------
    >>> validate(VCSCHED, {"problem": "vcsched", "hosts": 2,
    ...                    "jobs": [{"name": "a", "cpu": 0.5, "mem": 0.2}]})["hosts"]
    2
    """

    problem: _described(Literal["vcsched"], "'vcsched'")
    hosts: number(int, ge=1, le=MAX_HOSTS)
    jobs: Annotated[
        list[VCJob],
        Field(min_length=1, max_length=MAX_TASKS, description="a list of at least one job"),
    ]
    migration_budget: NotRequired[
        _described(number(float, ge=0) | None, "null or a number >= 0 (host-memory units)")
    ]
    max_migrations: NotRequired[
        _described(number(int, ge=0, le=MAX_TASKS) | None, "null or an integer >= 0")
    ]


# ---------------------------------------------------------------------- DRFH JSON
_AMOUNT = number(float, ge=0, le=1e15)
_VECTOR = _described(
    list[_AMOUNT] | dict[_text("a resource name"), _AMOUNT],
    "a list of numbers in [0, 1e15], one per resource (or an object by resource name)",
)


@with_config(_STRICT)
class DRFHServer(TypedDict):
    """A class of identical servers of a DRFH instance."""

    name: NotRequired[_text("a non-empty string")]
    capacity: _VECTOR
    count: NotRequired[number(int, ge=1, le=10**9)]


@with_config(_STRICT)
class DRFHUser(TypedDict):
    """A user of a DRFH instance."""

    name: NotRequired[_text("a non-empty string")]
    demand: _VECTOR
    weight: NotRequired[number(float, gt=0, le=1e9)]
    tasks: NotRequired[
        _described(number(int, ge=0, le=10**12) | None, "null (unbounded) or an integer >= 0")
    ]


@with_config(_STRICT)
class DRFHDocument(TypedDict):
    """A DRFH instance file (the README's DRFH "Instance format").

    Examples
    --------
    >>> validate(DRFH, {"resources": ["cpu"], "servers": [{"capacity": [1], "count": 1.0}],
    ...                 "users": [{"demand": [0.5]}]})
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: servers[0].count must be an integer in [1, 1000000000]; \
got 1.0
    """

    problem: NotRequired[_described(Literal["drfh"], "'drfh'")]
    resources: Annotated[
        list[_text("a resource name", max_length=100)],
        Field(min_length=1, max_length=64, description="a list of 1 to 64 resource names"),
    ]
    servers: Annotated[
        list[DRFHServer],
        Field(min_length=1, max_length=MAX_NODES, description="a list of server classes"),
    ]
    users: Annotated[
        list[DRFHUser],
        Field(min_length=1, max_length=10**6, description="a list of at least one user"),
    ]


# ---------------------------------------------------------------------- SWF
@with_config(_STRICT)
class SWFPlatform(TypedDict):
    """``; allockit-Platform: nodes=N cores=C node_memory=B``.

    Examples
    --------
    >>> validate(SWF_PLATFORM, {"nodes": 4, "cores": 0, "node_memory": 2**31})
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: cores must be an integer in [1, 4096]; got 0
    """

    nodes: number(int, ge=1, le=MAX_NODES)
    cores: number(int, ge=1, le=MAX_CORES)
    node_memory: number(int, ge=1, le=2**60, what="an integer number of bytes >= 1")


@with_config(ConfigDict(strict=True, extra="allow", allow_inf_nan=False))
class SWFHeaderValues(TypedDict):
    """The SWF header values allockit uses (the others are free text).

    Examples
    --------
    >>> validate(SWF_HEADER, {"MaxNodes": 128, "Note": "anything"})["MaxNodes"]
    128
    """

    MaxNodes: NotRequired[number(int, ge=1, le=MAX_NODES)]
    MaxProcs: NotRequired[number(int, ge=1, le=MAX_NODES * MAX_CORES)]


#: The SWF fields (1-based order): name, kind, smallest and largest value allowed. Times
#: are in seconds; -1 means "unknown" everywhere, so integers start at -1.
SWF_FIELDS_SCHEMA: tuple[tuple[str, type, float, float], ...] = (
    ("job", int, 0, 2**53),
    ("submit", float, -1, MAX_SECONDS),
    ("wait", float, -MAX_SECONDS, MAX_SECONDS),
    ("run", float, -MAX_SECONDS, MAX_SECONDS),
    ("procs", int, -1, MAX_NODES * MAX_CORES),
    ("cpu_time", float, -MAX_SECONDS, MAX_SECONDS),
    ("mem_used", float, -1, 2**53),
    ("procs_req", int, -1, MAX_NODES * MAX_CORES),
    ("time_req", float, -MAX_SECONDS, MAX_SECONDS),
    ("mem_req", float, -1, 2**53),
    ("status", int, -1, 2**31),
    ("user", int, -1, 2**53),
    ("group", int, -1, 2**53),
    ("app", int, -1, 2**53),
    ("queue", int, -1, 2**53),
    ("partition", int, -1, 2**53),
    ("preceding", int, -1, 2**53),
    ("think", float, -MAX_SECONDS, MAX_SECONDS),
)


# ---------------------------------------------------------------------- sweep TOML
_SEED = number(int, ge=0, le=MAX_SEED)
_SCALAR = bool | number(int, ge=-MAX_SEED, le=MAX_SEED) | number(float) | _text("a string")
#: The kinds of sweep a TOML file describes (``kind = "..."``; default ``vcsched``).
SWEEP_KIND_NAMES = ("vcsched", "drfh", "simulate", "batch", "dfrs", "measy", "reserves", "cluster")


def _grid(tp: Any) -> Any:
    """A value or a non-empty list of values (the list forms a grid)."""
    what = tp.__metadata__[-1].description
    return _described(
        tp | Annotated[list[tp], Field(min_length=1, max_length=10_000)],
        f"{what}, or a non-empty list of them",
    )


_COUNT = number(int, ge=1, le=10_000, what="an integer in [1, 10000] (instances per point)")
_KIND = _described(Literal[SWEEP_KIND_NAMES], "one of " + ", ".join(SWEEP_KIND_NAMES))


@with_config(_STRICT)
class SweepGenerate(TypedDict):
    """``[generate]`` of a VCSched sweep: one of the paper's sets, or generator parameters.

    Either ``set`` (with ``every``, ``seed``, ``parallel``), or ``hosts``, ``jobs`` and
    ``slack`` (each a value or a list: a grid) with ``cov_cpu``, ``cov_mem``,
    ``count`` instances per point, ``seed`` and ``parallel``.
    """

    set: NotRequired[_described(Literal["small", "large"], "'small' or 'large'")]
    every: NotRequired[number(int, ge=1, le=10_800)]
    seed: NotRequired[_SEED]
    parallel: NotRequired[_described(bool, "true or false")]
    hosts: NotRequired[_grid(number(int, ge=1, le=MAX_HOSTS))]
    jobs: NotRequired[_grid(number(int, ge=1, le=MAX_TASKS))]
    slack: NotRequired[_grid(number(float, ge=0, lt=1))]
    cov_cpu: NotRequired[_grid(number(float, ge=0, le=10))]
    cov_mem: NotRequired[_grid(number(float, ge=0, le=10))]
    count: NotRequired[_COUNT]


_PARAMS = _described(
    dict[
        _text("an option name", max_length=100),
        _described(
            _SCALAR | list[_SCALAR],
            "a finite number, a bool or a string, or a list of them",
        ),
    ],
    "a table of option = value or option = [values]",
)


@with_config(_STRICT)
class SweepDocument(TypedDict):
    """A sweep TOML file of kind ``vcsched`` (the README's "Sweeps" section).

    The fields every kind has: ``kind``, ``name``, ``output``, ``methods``, ``[params]``,
    ``seeds``, ``time_limit``, ``backend``, ``workers``, ``scheduler``, ``grace``; then
    the kind's instance source (here ``instances`` and ``[generate]``).

    Examples
    --------
    >>> validate(SWEEP, {"output": "s.db", "methods": ["sg"], "grace": -100})
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: grace must be a number of seconds in [0, 86400]; got -100
    """

    kind: NotRequired[_KIND]
    name: NotRequired[_text("a non-empty string", max_length=200)]
    output: _text("a file path (the results store)")
    methods: Annotated[
        list[_text("a method name or spec", max_length=1000)],
        Field(min_length=1, max_length=100, description="a non-empty list of method names"),
    ]
    params: NotRequired[_PARAMS]
    seeds: NotRequired[
        Annotated[
            list[_SEED],
            Field(min_length=1, max_length=10_000, description="a non-empty list of seeds"),
        ]
    ]
    time_limit: NotRequired[number(float, gt=0, le=MAX_SECONDS, what="a number of seconds > 0")]
    backend: NotRequired[
        _described(Literal[RUNNER_BACKENDS], f"one of {', '.join(RUNNER_BACKENDS)}")
    ]
    workers: NotRequired[number(int, ge=1)]
    scheduler: NotRequired[_text("a Dask scheduler address")]
    grace: NotRequired[number(float, ge=0, le=86_400, what="a number of seconds in [0, 86400]")]
    instances: NotRequired[
        Annotated[list[_text("a path or a glob pattern")], Field(description="a list of paths")]
    ]
    generate: NotRequired[SweepGenerate]


@with_config(_STRICT)
class SweepDRFHGenerate(TypedDict):
    """``[generate]`` of a DRFH sweep: servers of the Google mix and random users."""

    servers: _grid(number(int, ge=1, le=MAX_NODES))
    users: _grid(number(int, ge=1, le=100_000))
    count: NotRequired[_COUNT]
    seed: NotRequired[_SEED]
    unbounded: NotRequired[_described(bool, "true or false")]


@with_config(_STRICT)
class SweepDRFHDocument(SweepDocument):
    """A sweep of kind ``drfh``: DRFH instance files and/or ``[generate]``."""

    generate: NotRequired[SweepDRFHGenerate]  # type: ignore[misc]


@with_config(_STRICT)
class SweepSimulateGenerate(TypedDict):
    """``[generate]`` of a simulation sweep: Lublin-Feitelson workloads (the DFRS set)."""

    jobs: _grid(number(int, ge=1, le=1_000_000))
    nodes: _grid(number(int, ge=1, le=MAX_NODES))
    load: NotRequired[_grid(number(float, gt=0, le=10))]
    count: NotRequired[_COUNT]
    seed: NotRequired[_SEED]


@with_config(_STRICT)
class SweepSimulateDocument(SweepDocument):
    """A sweep of kind ``simulate`` (or ``batch``, ``dfrs``): SWF files and/or ``[generate]``."""

    generate: NotRequired[SweepSimulateGenerate]  # type: ignore[misc]


@with_config(_STRICT)
class SweepMeasyGenerate(TypedDict):
    """``[generate]`` of a MEASY sweep: the Feitelson 1996 / Jann 1997 / Lublin models."""

    model: _grid(_described(Literal["fwload", "jwload", "lublin"], "fwload, jwload or lublin"))
    jobs: number(int, ge=1, le=1_000_000)
    load: _grid(number(float, gt=0, le=10))
    processors: NotRequired[number(int, ge=1, le=MAX_CORES)]
    cpu: NotRequired[_described(Literal["paper", "full"], "'paper' or 'full'")]
    seed: NotRequired[_SEED]


@with_config(_STRICT)
class SweepMeasyDocument(SweepDocument):
    """A sweep of kind ``measy``: SWF traces and/or ``[generate]``."""

    generate: NotRequired[SweepMeasyGenerate]  # type: ignore[misc]


@with_config(_STRICT)
class SweepReservesGenerate(TypedDict):
    """``[generate]`` of a reserves sweep: random rounds (targets, allocation, usage)."""

    nodes: _grid(number(int, ge=1, le=MAX_NODES))
    classes: _grid(number(int, ge=1, le=100))
    count: NotRequired[_COUNT]
    seed: NotRequired[_SEED]


@with_config(_STRICT)
class SweepReservesDocument(SweepDocument):
    """A sweep of kind ``reserves``: round files (JSON) and/or ``[generate]``."""

    generate: NotRequired[SweepReservesGenerate]  # type: ignore[misc]


@with_config(_STRICT)
class SweepClusterDocument(TypedDict):
    """A sweep of kind ``cluster``: Li and Parker's scenarios, ``[params]`` as overrides."""

    kind: Literal["cluster"]
    name: NotRequired[_text("a non-empty string", max_length=200)]
    output: _text("a file path (the results store)")
    methods: Annotated[
        list[_text("an algorithm name", max_length=100)],
        Field(min_length=1, max_length=100, description="a non-empty list of algorithms"),
    ]
    scenarios: Annotated[
        list[_text("a scenario name", max_length=100)],
        Field(min_length=1, max_length=100, description="a non-empty list of scenarios"),
    ]
    params: NotRequired[_PARAMS]
    seeds: NotRequired[
        Annotated[
            list[_SEED],
            Field(min_length=1, max_length=10_000, description="a non-empty list of seeds"),
        ]
    ]
    time_limit: NotRequired[number(float, gt=0, le=MAX_SECONDS, what="a number of seconds > 0")]
    backend: NotRequired[
        _described(Literal[RUNNER_BACKENDS], f"one of {', '.join(RUNNER_BACKENDS)}")
    ]
    workers: NotRequired[number(int, ge=1)]
    scheduler: NotRequired[_text("a Dask scheduler address")]
    grace: NotRequired[number(float, ge=0, le=86_400, what="a number of seconds in [0, 86400]")]


# ---------------------------------------------------------------------- Jann 1997 model JSON
_RATE = number(float, gt=0, le=1e12, what="a rate (1/s) in (0, 1e12]")


@with_config(_STRICT)
class JannHyperErlang(TypedDict):
    """A hyper-Erlang of a Jann model (``HyperErlang.to_dict``)."""

    p: number(float, ge=0, le=1)
    n: number(int, ge=1, le=1000)
    lam1: _RATE
    lam2: _RATE


_SIZE = number(int, ge=1, le=MAX_NODES * MAX_CORES)


@with_config(_STRICT)
class JannRangeDocument(TypedDict):
    """One size range of a Jann model (``JannRange.to_dict``)."""

    lo: _SIZE
    hi: _SIZE
    interarrival: JannHyperErlang
    runtime: JannHyperErlang
    sizes: NotRequired[Annotated[list[_SIZE], Field(max_length=MAX_NODES)]]
    counts: NotRequired[
        Annotated[list[number(int, ge=1, le=MAX_TASKS * 100)], Field(max_length=MAX_NODES)]
    ]
    jobs: NotRequired[number(int, ge=0, le=2**53)]


@with_config(_STRICT)
class JannModelDocument(TypedDict):
    """A Jann 1997 model file, as ``allockit workload fit`` writes it.

    Examples
    --------
    >>> validate(JANN_MODEL, {"model": "jann97", "nodes": 4, "ranges": []})
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: ranges must be a non-empty list of size ranges; got []
    """

    model: NotRequired[_described(Literal["jann97"], "'jann97'")]
    nodes: _SIZE
    source: NotRequired[_text("a string", min_length=0, max_length=100_000)]
    ranges: Annotated[
        list[JannRangeDocument],
        Field(min_length=1, max_length=10_000, description="a non-empty list of size ranges"),
    ]


VCSCHED = VCDocument
DRFH = DRFHDocument
JANN_MODEL = JannModelDocument
SWF_HEADER = SWFHeaderValues
SWF_PLATFORM = SWFPlatform
SWEEP = SweepDocument
#: Sweep kind -> the schema of its TOML file.
SWEEP_KINDS: dict[str, Any] = {
    "vcsched": SweepDocument,
    "drfh": SweepDRFHDocument,
    "simulate": SweepSimulateDocument,
    "batch": SweepSimulateDocument,
    "dfrs": SweepSimulateDocument,
    "measy": SweepMeasyDocument,
    "reserves": SweepReservesDocument,
    "cluster": SweepClusterDocument,
}

_ADAPTERS: dict[Any, TypeAdapter] = {}
#: Path element of a list -> the noun of its items, to name the entry in messages.
_NOUNS = {"jobs": "job", "users": "user", "servers": "server"}


def validate(schema: Any, data: Any, *, where: str = "", name: str = "the input") -> Any:
    """Check ``data`` against ``schema``; the validated value, or one clear error.

    numpy numbers, strings and arrays (``np.int64(2)``, from Python code rather than a
    file) count as the Python values of the same value (``plain_values``); they are
    converted only when the strict check refuses them, so valid files cost nothing more.

    Parameters
    ----------
    schema : type
        One of ``VCSCHED``, ``DRFH``, ``SWF_HEADER``, ``SWEEP`` (or any type pydantic
        validates).
    data : Any
        The parsed input (JSON or TOML value).
    where : str, default ""
        Prefix of the message, such as the file name (``"sweep.toml: "``).
    name : str, default "the input"
        What ``data`` is, for a message about the whole value (``"the instance must be
        an object; got [1]"``).

    Returns
    -------
    Any
        ``data`` as validated (plain dicts and lists).

    Raises
    ------
    InvalidInputError
        On the first problem, in one line (``describe_error``).

    Examples
    --------
    >>> validate(SWEEP, {"output": "s.db", "methods": ["sg"], "seeds": [1.5]},
    ...          where="s.toml: ")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: s.toml: seeds[0] must be an integer in \
[0, 9223372036854775807]; got 1.5
    """
    adapter = _ADAPTERS.get(schema)
    if adapter is None:
        adapter = _ADAPTERS[schema] = TypeAdapter(schema)
    try:
        return adapter.validate_python(data)
    except ValidationError as exc:
        error = exc
    plain = plain_values(data)  # numpy numbers, only when the strict check refused them
    if plain is not data:
        try:
            return adapter.validate_python(plain)
        except ValidationError as exc:
            error, data = exc, plain
    raise InvalidInputError(where + describe_error(error, schema, data, name=name)) from None


def plain_values(data: Any) -> Any:
    """``data`` with numpy numbers, strings and arrays as Python values (``np.int64(1)``: 1).

    Python code that builds an instance (not a JSON file) may hold numpy values, which
    the strict schemas would refuse (``got "1"``). Mappings, lists and tuples are
    walked; ``data`` itself is returned when nothing changes.

    Parameters
    ----------
    data : Any
        A parsed value.

    Returns
    -------
    Any
        The same value with Python numbers.

    Examples
    --------
    >>> import numpy as np
    >>> plain_values({"hosts": np.int64(2), "jobs": [np.float32(0.5), np.array([1, 2])]})
    {'hosts': 2, 'jobs': [0.5, [1, 2]]}
    """
    if isinstance(data, np.generic | np.ndarray):
        return plain_values(data.tolist()) if isinstance(data, np.ndarray) else data.item()
    if isinstance(data, Mapping):
        items = {key: plain_values(value) for key, value in data.items()}
        same = all(items[key] is value for key, value in data.items())
        return data if same else items
    if isinstance(data, list | tuple):
        values = [plain_values(value) for value in data]
        same = all(new is old for new, old in zip(values, data, strict=True))
        if same:
            return data
        return values if isinstance(data, list) else tuple(values)
    return data


def describe_error(
    error: ValidationError, schema: Any, data: Any, *, name: str = "the input"
) -> str:
    """One line for a pydantic ``ValidationError``: path, what is allowed, the value.

    Parameters
    ----------
    error : pydantic.ValidationError
        Raised by validating ``data`` against ``schema``.
    schema : type
        The schema (its fields' descriptions say what is allowed).
    data : Any
        The input, to name the entry (``at job 'vm3'``).
    name : str, default "the input"
        What ``data`` is, used as the path of an error about the whole value.

    Returns
    -------
    str
        ``"<path> must be <allowed>; got <value>[ at <entry>]"``, or ``"<path> is not
        a known field; valid fields: ..."``, or ``"<path> is missing (...)"``.

    Examples
    --------
    >>> try:
    ...     TypeAdapter(VCSCHED).validate_python({"problem": "vcsched", "hosts": 1,
    ...         "jobs": [{"name": "a", "cpu": 0.5, "mem": 0, "colour": 1}]})
    ... except ValidationError as exc:
    ...     print(describe_error(exc, VCSCHED, None))
    jobs[0].colour is not a known field; valid fields: cpu, mem, name, previous, tasks
    """
    first = error.errors(include_url=False)[0]
    path, tp, parent, entry = _walk(schema, first["loc"], data)
    path = path or name
    suffix = f" at {entry}" if entry else ""
    kind = first["type"]
    if kind == "extra_forbidden":
        fields = sorted(typing.get_type_hints(parent)) if _is_typed_dict(parent) else []
        valid = f"; valid fields: {', '.join(fields)}" if fields else ""
        return f"{path} is not a known field{suffix}{valid}"
    allowed = _description(tp) or _fallback(first)
    if kind == "missing":
        return f"{path} is missing{suffix} (required: {allowed})"
    return f"{path} must be {allowed}; got {show(first['input'])}{suffix}"


def show(value: Any) -> str:
    """A value as the user wrote it (strings quoted, ``true``/``null`` as in JSON).

    Parameters
    ----------
    value : Any
        A parsed JSON or TOML value.

    Returns
    -------
    str
        At most 60 characters.

    Examples
    --------
    >>> show("1.5"), show(True), show(None), show(float("nan")), show(2.0)
    ("'1.5'", 'true', 'null', 'NaN', '2.0')
    """
    if isinstance(value, str):
        text = repr(value)
    elif isinstance(value, float) and not math.isfinite(value):
        text = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    else:
        try:
            text = json.dumps(value, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _fallback(err: Mapping[str, Any]) -> str:
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind.startswith("int"):
        return "an integer"
    if kind.startswith("float") or kind == "finite_number":
        return "a finite number"
    if kind.startswith("string"):
        return "a string"
    if kind.startswith("bool"):
        return "true or false"
    if kind.startswith("list") or kind in ("too_short", "too_long"):
        return "a list"
    if kind.startswith("dict") or kind.endswith("dict_type"):
        return "an object"
    if kind == "literal_error":
        return f"one of {ctx.get('expected')}"
    return err.get("msg", "valid").lower()


def _is_typed_dict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__annotations__")


def _strip(tp: Any) -> tuple[Any, str | None]:
    """The type without ``Annotated`` (and ``NotRequired``), and its description."""
    description = None
    while True:
        origin = typing.get_origin(tp)
        if origin is Annotated:
            for meta in tp.__metadata__:
                description = description or getattr(meta, "description", None)
            tp = tp.__origin__
        elif origin is NotRequired:
            tp = typing.get_args(tp)[0]
        else:
            return tp, description


def _description(tp: Any) -> str | None:
    return _strip(tp)[1] if tp is not None else None


def _walk(schema: Any, loc: tuple, data: Any) -> tuple[str, Any, Any, str]:
    """Follow ``loc`` through ``schema``: path text, field type, parent type, entry name."""
    path = ""
    tp: Any = schema
    parent: Any = schema
    entry = ""
    value = data
    for item in loc:
        base, _ = _strip(tp)
        if _is_typed_dict(base) and isinstance(item, str):
            hints = typing.get_type_hints(base, include_extras=True)
            parent = base
            path += ("." if path else "") + item
            tp = hints.get(item)
            value = value.get(item) if isinstance(value, Mapping) else None
            continue
        origin = typing.get_origin(base)
        if isinstance(item, int) and origin in (typing.Union, types.UnionType):
            lists = [a for a in typing.get_args(base) if typing.get_origin(_strip(a)[0]) is list]
            if lists:  # an index after a union's tag: the list member failed
                base = _strip(lists[0])[0]
                origin = list
        if isinstance(item, int) and origin is list:
            path += f"[{item}]"
            noun = _NOUNS.get(path.rsplit(".", 1)[-1].split("[")[0])
            value = value[item] if isinstance(value, list) and item < len(value) else None
            if noun and isinstance(value, Mapping) and isinstance(value.get("name"), str):
                entry = f"{noun} {value['name']!r}"
            tp = typing.get_args(base)[0]
            continue
        if origin is dict and isinstance(value, Mapping) and item in value:
            path += f"[{item!r}]"
            value = value.get(item)
            tp = typing.get_args(base)[1]
        # else: a union member's tag (pydantic names the member that failed); the
        # field's own description says what is allowed
    return path, tp, parent, entry
