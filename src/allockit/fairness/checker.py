"""``check`` a mechanism on generated instances (or one given), ``replay`` a counterexample.

Examples
--------
>>> [r] = check("per-server-drf", ["pareto"], examples=50, seed=0)
>>> r.status, r.semantics, r.counterexample is not None
('violated', 'whole', True)
>>> [again] = replay(r.to_dict())
>>> again.status
'violated'
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from allockit.errors import InvalidInputError, SolverUnavailableError
from allockit.fairness.explain import paragraph
from allockit.fairness.mechanism import Mechanism
from allockit.fairness.names import PROPERTIES, SEMANTICS
from allockit.fairness.properties import Context, Outcome, evaluate
from allockit.fairness.report import PropertyReport
from allockit.instances.drfh import DRFHInstance

__all__ = ["check", "replay"]


@dataclass
class _Tally:
    """What a search saw: counts, the first error, the violations and the measurements."""

    calls: int = 0
    first_hit: int | None = None
    shrinks: int = 0
    errors: int = 0
    error: dict[str, Any] | None = None
    counts: dict[str, int] = field(default_factory=dict)
    hits: dict[str, Outcome] = field(default_factory=dict)
    tried: int = 0
    users: int = 0
    worse: int = 0
    worst: tuple[float, Outcome, DRFHInstance] | None = None

    def note(self, outcome: Outcome, instance: DRFHInstance) -> None:
        self.calls += 1
        if outcome.semantics:
            self.counts[outcome.semantics] = self.counts.get(outcome.semantics, 0) + 1
        if outcome.status == "error":
            self.errors += 1
            if self.error is None:
                self.error = {"message": outcome.message, "instance": instance.to_dict()}
        ev = outcome.evidence or {}
        self.tried += int(ev.get("misreports_tried", 0))
        if outcome.status == "measured":
            self.users += int(ev["users"])
            self.worse += int(ev["worse_users"])
            if ev["worse_users"] and (self.worst is None or outcome.violation > self.worst[0]):
                self.worst = (outcome.violation, outcome, instance)

    @property
    def semantics(self) -> str | None:
        kinds = sorted(self.counts)
        if not kinds:
            return None
        return kinds[0] if len(kinds) == 1 else "mixed"


def _key(instance: DRFHInstance) -> str:
    return json.dumps(instance.to_dict(), sort_keys=True)


#: Most examples one property may draw (hypothesis draws them one by one).
MAX_EXAMPLES = 10_000_000


def _check_arguments(
    properties: Sequence[str], examples: int, seed: int, semantics: str
) -> tuple[list[str], int, int]:
    """The property names, ``examples`` and ``seed`` as ints, or an error naming one."""
    if not isinstance(properties, str | Iterable) or isinstance(properties, Mapping):
        raise InvalidInputError(
            f"properties must be a property name or a list of them; got {properties!r}"
        )
    names = [properties] if isinstance(properties, str) else list(properties)
    for name in names:
        if not isinstance(name, str) or name not in PROPERTIES:
            raise InvalidInputError(f"property must be one of {list(PROPERTIES)}; got {name!r}")
    if isinstance(examples, bool | np.bool_) or not isinstance(examples, int | np.integer) or (
        not 1 <= examples <= MAX_EXAMPLES
    ):
        raise InvalidInputError(
            f"examples must be an integer >= 1 (at most {MAX_EXAMPLES:,}); got {examples!r}"
        )
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, int | np.integer) or seed < 0:
        raise InvalidInputError(f"seed must be an integer >= 0; got {seed!r}")
    if semantics not in SEMANTICS:
        raise InvalidInputError(f"semantics must be one of {list(SEMANTICS)}; got {semantics!r}")
    return names, int(examples), int(seed)


def check(
    mechanism: str | Callable[..., Any],
    properties: Sequence[str] = PROPERTIES,
    *,
    examples: int = 200,
    seed: int = 0,
    finite_tasks: bool = True,
    semantics: str = "auto",
    instance: DRFHInstance | None = None,
    options: Mapping[str, Any] | None = None,
) -> list[PropertyReport]:
    """Check a DRFH mechanism against fairness properties; shrink any counterexample.

    Each property is evaluated on ``examples`` instances drawn by hypothesis (shapes in
    ``allockit.fairness.strategies``), or on the one ``instance`` given. The first
    violating instance is shrunk by hypothesis to a small one and re-checked for its
    evidence. An example that cannot be decided (the mechanism raises, refuses the
    instance or returns an output allockit refuses; an LP or MIP does not finish) is an
    error of that example: the property's status is then ``error``, never ``held``.

    Parameters
    ----------
    mechanism : str or callable
        A built-in name (``"lp"``, ``"progressive"``, ``"first-fit"``, ``"best-fit"``,
        ``"per-server-drf"``, ``"slots"``), a registered plug-in, a ``MODULE:FUNCTION``
        or ``PATH/TO/FILE.py:FUNCTION`` spec, or a callable ``f(instance, **options)``
        returning a ``DRFHResult`` or tasks per user and server class (or server),
        fractional allowed (``allockit.evaluation.drfh_allocation``).
    properties : sequence of str, default PROPERTIES
        Names from ``PROPERTIES``, checked in the given order.
    examples : int, default 200
        Instances hypothesis draws per property (before shrinking).
    seed : int, default 0
        Seed of hypothesis's search and of the random misreports (truthfulness).
    finite_tasks : bool, default True
        False: every generated user has unbounded tasks (for ``lp``, which refuses caps
        it would exceed).
    semantics : {"auto", "whole", "fractional"}, default "auto"
        ``auto``: an example whose allocations are all whole (every user's bundle holds
        whole tasks on every server) is checked against whole-task alternatives, any
        other against divisible ones; ``whole`` and ``fractional`` force one.
    instance : DRFHInstance, optional
        Check this instance only (``examples`` is then 1); a max-min property whose
        shape it lacks is ``not_applicable``.
    options : Mapping, optional
        The mechanism's own options (``{"per_largest": 10}`` for ``slots``).

    Returns
    -------
    list of PropertyReport
        One per property, in order (see ``allockit.fairness.report``).

    Raises
    ------
    InvalidInputError
        For an unknown property, mechanism or option, or a bad ``examples``, ``seed`` or
        ``semantics`` (all checked before anything runs).
    SolverUnavailableError
        If hypothesis is not installed and no ``instance`` is given
        (``pip install 'allockit[fairness]'``).

    Examples
    --------
    >>> [r] = check("progressive", ["envy_freeness"], examples=10, seed=0)
    >>> r.status, r.examples
    ('held', 10)
    >>> check("lp", ["fairness"])
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: property must be one of [...]; got 'fairness'

    References
    ----------
    .. [1] W. Wang, B. Li, B. Liang (2014), Dominant resource fairness in cloud
       computing systems with heterogeneous servers, INFOCOM, Sec. III-C, IV, V.
    """
    import importlib.util

    names, examples, seed = _check_arguments(properties, examples, seed, semantics)
    if instance is not None and not isinstance(instance, DRFHInstance):
        raise InvalidInputError(
            f"instance must be a DRFHInstance; got {type(instance).__name__}"
        )
    if instance is None and importlib.util.find_spec("hypothesis") is None:
        raise SolverUnavailableError(
            "property testing needs hypothesis: pip install 'allockit[fairness]'"
        )
    mech = Mechanism.resolve(mechanism, options)
    context = Context(mech, semantics, seed)
    reports = []
    for name in names:
        started = time.perf_counter()
        if instance is not None:
            report = _single(name, context, instance)
        else:
            report = _search(name, context, examples, seed, finite_tasks)
        report = replace(report, seconds=time.perf_counter() - started)
        reports.append(replace(report, text=paragraph(report.to_dict())))
    return reports


def _base(name: str, context: Context, **fields: Any) -> PropertyReport:
    mech = context.mechanism
    return PropertyReport(
        name, method=mech.name, spec=mech.spec, options=dict(mech.options), **fields
    )


def _single(name: str, context: Context, instance: DRFHInstance) -> PropertyReport:
    outcome = evaluate(name, context, instance)
    tally = _Tally()
    tally.note(outcome, instance)
    if outcome.status == "violated":
        tally.hits[_key(instance)] = outcome
        return _violated(name, context, tally, outcome, instance, 1, 0)
    return _finish(name, context, tally)


def _violated(
    name: str,
    context: Context,
    tally: _Tally,
    outcome: Outcome,
    instance: DRFHInstance,
    examples: int,
    shrinks: int,
) -> PropertyReport:
    return _base(
        name,
        context,
        status="violated",
        examples=examples,
        violation=float(outcome.violation),
        counterexample=instance.to_dict(),
        semantics=tally.semantics or outcome.semantics,
        semantics_counts=dict(tally.counts),
        evidence=outcome.evidence,
        detail=outcome.message,
        errors=tally.errors,
        error=tally.error,
        shrink_steps=shrinks,
    )


def _finish(name: str, context: Context, tally: _Tally) -> PropertyReport:
    """The report of a search that found no violation: held, error or measured."""
    common = {
        "examples": tally.calls,
        "semantics": tally.semantics,
        "semantics_counts": dict(tally.counts),
        "errors": tally.errors,
        "error": tally.error,
    }
    if name == "sharing_incentive" and tally.users:
        fraction = tally.worse / tally.users
        detail = (
            f"measured, not a guarantee: {tally.worse} of {tally.users} users "
            f"({100 * fraction:.1f} %) run fewer tasks than alone on their dedicated share"
        )
        evidence: dict[str, Any] = {"all_users": tally.users, "all_worse_users": tally.worse}
        counterexample, violation = None, 0.0
        if tally.worst is not None:
            violation, outcome, inst = tally.worst
            evidence = {**(outcome.evidence or {}), **evidence}
            counterexample = inst.to_dict()
        status = "error" if tally.errors else "measured"
        if status == "error":
            detail += f"; {tally.errors} examples could not be decided"
        return _base(
            name,
            context,
            status=status,
            violation=float(violation),
            counterexample=counterexample,
            evidence=evidence,
            detail=detail,
            **common,
        )
    if tally.errors:
        detail = (
            f"{tally.errors} of {tally.calls} examples could not be decided; the first: "
            f"{tally.error['message'] if tally.error else ''}"
        )
        return _base(name, context, status="error", detail=detail, **common)
    if tally.calls and not tally.counts:  # every example was not applicable
        return _base(name, context, status="not_applicable", detail=_na, **common)
    if name == "truthfulness":
        detail = (
            f"no profitable misreport found among {tally.tried} tried on {tally.calls} "
            "examples (a search, not a proof)"
        )
        evidence = {"misreports_tried": tally.tried}
        return _base(name, context, status="held", detail=detail, evidence=evidence, **common)
    detail = f"held on {tally.calls} examples"
    return _base(name, context, status="held", detail=detail, **common)


_na = "the instance is not of the shape this property speaks of"


def _search(
    name: str, context: Context, examples: int, seed: int, finite_tasks: bool
) -> PropertyReport:
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import Flaky, NoSuchExample

    from allockit.fairness.strategies import instances

    tally = _Tally()
    quick = replace(context, first=True)

    def violated(instance: DRFHInstance) -> bool:
        outcome = evaluate(name, quick, instance)
        if tally.first_hit is None:
            tally.note(outcome, instance)
        else:
            tally.shrinks += 1
        if outcome.status != "violated":
            return False
        tally.hits[_key(instance)] = outcome
        if tally.first_hit is None:
            tally.first_hit = tally.calls
        return True

    config = settings(  # the seed alone decides the search, whatever profile is loaded
        max_examples=examples,
        database=None,
        deadline=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.generate, Phase.shrink),
    )
    try:
        found = find(
            instances(name, finite_tasks), violated, settings=config, random=random.Random(seed)
        )
    except NoSuchExample:
        return _finish(name, context, tally)
    except Flaky as exc:  # the same instance judged differently: a mechanism that is
        return _flaky(name, context, tally, exc)  # not a function of its input
    outcome = evaluate(name, context, found)  # in full: the worst violation, all evidence
    if outcome.status != "violated":  # a mechanism that answers differently each time
        outcome = tally.hits[_key(found)]
    return _violated(
        name, context, tally, outcome, found, tally.first_hit or tally.calls, tally.shrinks
    )


def _flaky(name: str, context: Context, tally: _Tally, exc: BaseException) -> PropertyReport:
    """A search the mechanism's changing answers stopped: a violation seen, else an error.

    A violation it did show on some instance stands (with the instance and its outcome
    as first seen); without one nothing was decided, which is an error, never a hold.
    """
    if tally.hits:
        key, outcome = next(iter(tally.hits.items()))
        instance = DRFHInstance.from_dict(json.loads(key))
        return _violated(
            name, context, tally, outcome, instance, tally.first_hit or tally.calls, tally.shrinks
        )
    tally.errors += 1
    if tally.error is None:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        tally.error = {
            "message": "the mechanism answered the same instance differently (it is not a "
            f"function of the instance; hypothesis: {first})",
            "instance": None,
        }
    return _finish(name, context, tally)


def _part(record: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    """``record[key]``: a JSON object, or {} when absent."""
    value = record.get(key) or {}
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"{where}.{key} must be a JSON object; got {value!r}")
    return value


def _reported_demand(ev: Mapping[str, Any], instance: DRFHInstance, where: str) -> tuple:
    """The saved lie of a truthfulness record: one finite demand >= 0 per resource."""
    from allockit.checks import first_bad_entry, real_array

    name = f"{where}.evidence.reported_demand"
    if ev.get("reported_demand") is None:
        raise InvalidInputError(f"{name} is missing (the lie a truthfulness record found)")
    if isinstance(ev.get("reported_demand"), str):
        raise InvalidInputError(f"{name} must be a list of numbers; got {ev['reported_demand']!r}")
    demand = real_array(name, ev.get("reported_demand"))
    if demand.size != len(instance.resources):
        raise InvalidInputError(
            f"{name} must give one amount per resource ({len(instance.resources)}); got "
            f"{demand.tolist()}"
        )
    first_bad_entry(name, demand, demand >= 0, "finite and >= 0")
    return tuple(float(v) for v in demand)


def replay(
    data: Mapping[str, Any], *, mechanism: str | Callable[..., Any] | None = None
) -> list[PropertyReport]:
    """Re-check the counterexamples (and undecided examples) of a saved check.

    Each record's instance is checked again for its property with the record's
    mechanism, options and the semantics that applied to it (or with ``mechanism`` and
    the semantics its allocation calls for), and for truthfulness the saved lie first.

    Parameters
    ----------
    data : Mapping
        The JSON ``allockit fairness`` printed (``{"method", "properties": [...]}``), or
        one record of it (``PropertyReport.to_dict()``).
    mechanism : str or callable, optional
        The mechanism to re-check (default: the record's ``spec``).

    Returns
    -------
    list of PropertyReport
        One per record that holds an instance, each with ``examples`` 1: ``violated``
        when the counterexample still stands, ``held`` when it no longer does.

    Raises
    ------
    InvalidInputError
        If the data is not a report, names an unknown property, holds no instance to
        replay, has a record whose ``error``, ``evidence``, ``options`` or saved lie is
        malformed, or names a mechanism that cannot be resolved again (a lambda: pass
        ``mechanism``).

    Examples
    --------
    >>> record = check("per-server-drf", ["pareto"], examples=50)[0].to_dict()
    >>> [r.status for r in replay(record)], [r.status for r in replay(record,
    ...     mechanism="progressive")]
    (['violated'], ['held'])
    """
    if not isinstance(data, Mapping):
        raise InvalidInputError(f"the report must be a JSON object; got {type(data).__name__}")
    records = data.get("properties") if "properties" in data else [data]
    if not isinstance(records, list) or not all(isinstance(r, Mapping) for r in records):
        raise InvalidInputError("properties must be a list of report records")
    out = []
    for k, record in enumerate(records):
        where = f"properties[{k}]" if "properties" in data else "the record"
        name = record.get("property")
        if name not in PROPERTIES:
            raise InvalidInputError(
                f"{where}.property must be one of {list(PROPERTIES)}; got {name!r}"
            )
        error, ev = _part(record, "error", where), _part(record, "evidence", where)
        doc = record.get("counterexample") or error.get("instance")
        if not doc:
            continue
        if not isinstance(doc, Mapping):
            raise InvalidInputError(f"{where}: the instance must be a JSON object; got {doc!r}")
        instance = DRFHInstance.from_dict(doc)
        spec = mechanism or record.get("spec") or data.get("spec")
        if spec is None:
            raise InvalidInputError(
                f"{where}: mechanism {record.get('method')!r} cannot be resolved again "
                "(a lambda or a local function); pass the mechanism (--method)"
            )
        options = record.get("options") or data.get("options") or {}
        if not isinstance(options, Mapping):
            raise InvalidInputError(f"{where}.options must be a JSON object; got {options!r}")
        semantics = ev.get("semantics") or "auto"
        if semantics not in ("whole", "fractional") or mechanism is not None:
            semantics = "auto"  # another mechanism: its own allocation decides
        lies: tuple[tuple[int, tuple[float, ...]], ...] = ()
        if name == "truthfulness" and ev.get("user") in instance.user_names:
            user = instance.user_names.index(ev["user"])
            lies = ((user, _reported_demand(ev, instance, where)),)
        mech = Mechanism.resolve(spec, None if mechanism is not None else options)
        seed = int(data.get("seed", 0)) if isinstance(data.get("seed", 0), int) else 0
        started = time.perf_counter()
        report = _single(name, Context(mech, semantics, seed, lies), instance)
        report = replace(report, seconds=time.perf_counter() - started)
        out.append(replace(report, text=paragraph(report.to_dict())))
    if not out:
        raise InvalidInputError("the report holds no counterexample or undecided example")
    return out
