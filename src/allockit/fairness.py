"""Property testing of DRFH mechanisms: the fairness properties of Wang, Li, Liang (2014).

A *mechanism* is a callable ``instance -> DRFHResult``. ``check`` draws instances with
hypothesis, evaluates each property on them, and returns one ``PropertyReport`` per
property: held on N examples, or the smallest counterexample hypothesis could shrink to,
with the size of the violation. Properties (user guide (DRFH), with ``N_i(A)`` the tasks user
``i`` could run with allocation ``A``):

- ``envy_freeness``: ``N_i(A_j) w_i / w_j <= N_i(A_i)`` (capped at user ``i``'s tasks);
- ``pareto``: no feasible allocation gives every user at least as many tasks and one
  more (decided by an LP; the improving allocation is the counterexample);
- ``truthfulness``: misreported demand vectors never raise the true ``N_i``;
- ``single_server_drf``, ``single_resource_fairness``, ``bottleneck_fairness``: on such
  instances the allocation equals the weighted max-min fair one;
- ``population_monotonicity``: when a user leaves, nobody else loses tasks;
- ``sharing_incentive`` is measured, not required (the paper shows it can fail): the
  fraction of users who run fewer tasks than on a dedicated ``1/n`` share of the pool.

Example (``per_server_drf`` is not Pareto optimal, Fig. 1-3 of the paper)::

    from allockit.fairness import check, MECHANISMS
    report = check(MECHANISMS["per-server-drf"], ["pareto"], examples=100, seed=0)[0]
    report.held, report.violation   # False, > 0
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from allockit.drfh import DRFH_METHODS
from allockit.errors import InvalidInputError, SolverUnavailableError
from allockit.instances.drfh import DRFHInstance
from allockit.results import DRFHResult

__all__ = ["MECHANISMS", "PROPERTIES", "PropertyReport", "check", "tasks_from"]

TOL = 1e-6


def _mech(name: str) -> Callable[[DRFHInstance], DRFHResult]:
    def run(instance: DRFHInstance) -> DRFHResult:
        from allockit.drfh import allocate

        return allocate(instance, name)

    run.__name__ = name
    return run


#: The built-in mechanisms by their CLI names.
MECHANISMS = {n: _mech(n) for n in DRFH_METHODS}


@dataclass(frozen=True, slots=True)
class PropertyReport:
    """Outcome of checking one property.

    ``status`` is ``held`` or ``violated``; ``examples`` counts the instances checked.

    Attributes
    ----------
    name : str
        The property (one of ``PROPERTIES``).
    held : bool
        True when no generated instance violated it.
    examples : int
        Instances evaluated (shrinking steps included).
    violation : float
        Size of the worst violation found (tasks, or a difference of dominant shares);
        0 when it held.
    counterexample : dict or None
        The shrunk violating instance as ``DRFHInstance.to_dict()``.
    detail : str
        A sentence on the violation (who envies whom, ...).
    seconds : float
        Wall time of the check in seconds.

    Examples
    --------
    >>> r = PropertyReport("pareto", True, 10, seconds=0.5)
    >>> r.status, PropertyReport.from_dict(r.to_dict()) == r
    ('held', True)
    """

    name: str
    held: bool
    examples: int
    violation: float = 0.0
    counterexample: dict[str, Any] | None = None
    detail: str = ""
    seconds: float = 0.0

    @property
    def status(self) -> str:
        """``held`` or ``violated``."""
        return "held" if self.held else "violated"

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "property": self.name,
            "status": self.status,
            "held": self.held,
            "examples": self.examples,
            "violation": self.violation,
            "counterexample": self.counterexample,
            "detail": self.detail,
            "seconds": self.seconds,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PropertyReport:
        """Rebuild a report from ``to_dict``'s output."""
        try:
            return cls(
                name=data["property"],
                held=bool(data["held"]),
                examples=int(data["examples"]),
                violation=float(data["violation"]),
                counterexample=data["counterexample"],
                detail=str(data["detail"]),
                seconds=float(data.get("seconds", 0.0)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"property report is malformed: {exc}") from exc


def tasks_from(instance: DRFHInstance, allocation: np.ndarray, user: int) -> float:
    """``N_i(A) = sum_l min_r A_lr / D_ir``: tasks user ``i`` runs with ``allocation``.

    The task count of Wang, Li, Liang (2014), Sec. III (user guide (DRFH)): on each server
    entry the user runs as many (divisible) tasks as its scarcest resource allows.
    Used to compare a user's own bundle with another user's (envy-freeness).

    Parameters
    ----------
    instance : DRFHInstance
        Gives the demand vector ``D_i`` of ``user`` (input units per task).
    allocation : numpy.ndarray, shape (n_servers, n_resources)
        A bundle ``A``: resources on each server entry (class entries hold the class
        total), in the same units as the demand; for example ``result.allocation[j]``.
    user : int
        Index ``i`` of the user whose tasks are counted.

    Returns
    -------
    float
        The (fractional) number of tasks; it is not capped at the user's ``tasks``.

    Examples
    --------
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"capacity": [1, 1], "count": 2}], "users": [{"demand": [0.2, 0.1]}]})
    >>> tasks_from(inst, np.array([[0.4, 0.4]]), 0)
    2.0

    References
    ----------
    .. [1] W. Wang, B. Li, B. Liang (2014), Dominant resource fairness in cloud
       computing systems with heterogeneous servers, INFOCOM, Sec. III.
    """
    return float(np.min(allocation / instance.demand[user][None, :], axis=1).sum())


# ---------------------------------------------------------------------- the properties
def _envy(instance: DRFHInstance, mechanism: Callable) -> tuple[float, str]:
    r = mechanism(instance)
    worst, text = 0.0, ""
    for i in range(instance.n_users):
        own = tasks_from(instance, r.allocation[i], i)
        for j in range(instance.n_users):
            if i == j:
                continue
            other = (
                tasks_from(instance, r.allocation[j], i) * instance.weight[i] / (instance.weight[j])
            )
            gap = min(other, instance.tasks[i]) - own
            if gap > worst:
                worst, text = gap, f"user {i} envies user {j}"
    return worst, text


def _improvement(instance: DRFHInstance, base: np.ndarray) -> tuple[float, np.ndarray | None]:
    """max sum_i (x_i - base_i) over divisible allocations with x_i >= base_i (an LP)."""
    import highspy

    n, k, m = instance.n_users, instance.n_classes, len(instance.resources)
    cap = instance.capacity * instance.count[:, None]
    ncol = n * k
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    upper = np.repeat(np.minimum(instance.tasks, 1e12), k)
    h.addVars(ncol, np.zeros(ncol), upper)
    h.changeColsCost(ncol, np.arange(ncol, dtype=np.int32), -np.ones(ncol))
    var = np.arange(ncol).reshape(n, k)
    for c in range(k):
        for s in range(m):
            h.addRow(
                -highspy.kHighsInf,
                float(cap[c, s]),
                n,
                var[:, c].astype(np.int32),
                instance.demand[:, s].astype(float),
            )
    for i in range(n):
        h.addRow(
            float(base[i]) - 1e-9,
            min(float(instance.tasks[i]), 1e12) + 1e-9,
            k,
            var[i].astype(np.int32),
            np.ones(k),
        )
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return 0.0, None
    x = np.asarray(h.getSolution().col_value).reshape(n, k)
    return float(x.sum() - base.sum()), x


def _pareto(instance: DRFHInstance, mechanism: Callable) -> tuple[float, str]:
    r = mechanism(instance)
    base = np.array([tasks_from(instance, r.allocation[i], i) for i in range(instance.n_users)])
    gain, better = _improvement(instance, base)
    detail = (
        ""
        if better is None
        else f"tasks {np.round(better.sum(axis=1), 4).tolist()} "
        f"instead of {np.round(base, 4).tolist()}"
    )
    return gain, detail


def _truthful(instance: DRFHInstance, mechanism: Callable, rng: random.Random) -> tuple[float, str]:
    r = mechanism(instance)
    worst, text = 0.0, ""
    for i in range(instance.n_users):
        honest = tasks_from(instance, r.allocation[i], i)
        for _ in range(6):
            lie = instance.demand[i] * np.array([rng.uniform(0.5, 2.0) for _ in instance.resources])
            lie = np.minimum(lie, instance.capacity.max(axis=0))
            demand = instance.demand.copy()
            demand[i] = lie
            try:
                lied = DRFHInstance(
                    instance.resources,
                    instance.server_names,
                    instance.capacity,
                    instance.count,
                    instance.user_names,
                    demand,
                    instance.weight,
                    instance.tasks,
                )
            except InvalidInputError:
                continue
            got = tasks_from(instance, mechanism(lied).allocation[i], i)
            got = min(got, instance.tasks[i])
            if got - honest > worst:
                worst, text = got - honest, f"user {i} reports {lie.round(4).tolist()}"
    return worst, text


def _max_min_gap(instance: DRFHInstance, mechanism: Callable) -> tuple[float, str]:
    from allockit.models.drfh_lp import progressive_filling

    r = mechanism(instance)
    fair = progressive_filling(instance)
    gap = float(np.max(np.abs(r.dominant_share - fair.dominant_share)))
    return (
        gap,
        f"dominant shares {r.dominant_share.round(4).tolist()} vs "
        f"{fair.dominant_share.round(4).tolist()}",
    )


def _monotone(instance: DRFHInstance, mechanism: Callable) -> tuple[float, str]:
    if instance.n_users < 2:
        return 0.0, ""
    before = mechanism(instance).tasks
    keep = list(range(instance.n_users - 1))
    fewer = DRFHInstance(
        instance.resources,
        instance.server_names,
        instance.capacity,
        instance.count,
        tuple(instance.user_names[i] for i in keep),
        instance.demand[keep],
        instance.weight[keep],
        instance.tasks[keep],
    )
    after = mechanism(fewer).tasks
    loss = float(np.max(before[keep] - after))
    return max(0.0, loss), "a remaining user loses tasks when the last user leaves"


PROPERTIES = (
    "envy_freeness",
    "pareto",
    "truthfulness",
    "single_server_drf",
    "single_resource_fairness",
    "bottleneck_fairness",
    "population_monotonicity",
    "sharing_incentive",
)


# ---------------------------------------------------------------------- instances
def _strategy(kind: str, finite_tasks: bool = True) -> Any:
    from hypothesis import strategies as st

    resources = 1 if kind == "single_resource_fairness" else 2
    one_server = kind == "single_server_drf"

    @st.composite
    def build(draw: Any) -> DRFHInstance:
        n_classes = 1 if one_server else draw(st.integers(1, 3))
        cap = [[draw(st.integers(2, 12)) for _ in range(resources)] for _ in range(n_classes)]
        count = [1 if one_server else draw(st.integers(1, 3)) for _ in range(n_classes)]
        smallest = np.min(np.array(cap), axis=0)
        n_users = draw(st.integers(1, 4))
        demand, weight, tasks = [], [], []
        for _ in range(n_users):
            d = [draw(st.integers(1, 10)) / 10 * smallest[r] / 2 for r in range(resources)]
            if kind == "bottleneck_fairness" and resources > 1:
                d[1] = min(d[1], d[0] * 0.5 * smallest[1] / smallest[0])
            demand.append(d)
            weight.append(draw(st.sampled_from([1.0, 1.0, 2.0, 3.0])))
            tasks.append(draw(st.one_of(st.none(), st.integers(1, 40))) if finite_tasks else None)
        names = [f"r{r}" for r in range(resources)]
        return DRFHInstance.from_dict(
            {
                "resources": names,
                "servers": [
                    {"name": f"s{c}", "capacity": cap[c], "count": count[c]}
                    for c in range(n_classes)
                ],
                "users": [
                    {"name": f"u{i}", "demand": demand[i], "weight": weight[i], "tasks": tasks[i]}
                    for i in range(n_users)
                ],
            }
        )

    return build()


def _sharing_incentive(
    mechanism: Callable, examples: int, seed: int, finite_tasks: bool
) -> PropertyReport:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed

    from allockit.models.drfh_lp import progressive_filling

    worse: list[float] = []
    users = [0]
    checked = [0]

    @hypothesis_seed(seed)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(_strategy("sharing_incentive", finite_tasks))
    def run(instance: DRFHInstance) -> None:
        checked[0] += 1
        shared = mechanism(instance).tasks
        n = instance.n_users
        for i in range(n):
            alone = (
                DRFHInstance(
                    instance.resources,
                    instance.server_names,
                    instance.capacity / n,
                    instance.count,
                    (instance.user_names[i],),
                    instance.demand[[i]],
                    instance.weight[[i]],
                    instance.tasks[[i]],
                )
                if (instance.demand[i] <= instance.capacity / n).all(axis=1).any()
                else None
            )
            dedicated = 0.0 if alone is None else float(progressive_filling(alone).tasks[0])
            users[0] += 1
            if shared[i] < dedicated - TOL:
                worse.append(dedicated - shared[i])

    run()
    frac = len(worse) / max(1, users[0])
    return PropertyReport(
        "sharing_incentive",
        held=not worse,
        examples=checked[0],
        violation=max(worse, default=0.0),
        detail=f"{len(worse)} of {users[0]} users ({100 * frac:.1f} %) "
        "run fewer tasks than on a dedicated 1/n of the pool",
    )


def check(
    mechanism: Callable[[DRFHInstance], DRFHResult],
    properties: Sequence[str] = PROPERTIES,
    *,
    examples: int = 200,
    seed: int = 0,
    finite_tasks: bool = True,
) -> list[PropertyReport]:
    """Check ``mechanism`` against each property on ``examples`` generated instances.

    ``finite_tasks=False`` gives every generated user unbounded tasks (for mechanisms,
    such as the LP (7), that ignore task counts). Each report's ``examples`` counts the
    instances actually evaluated (fewer than asked when a counterexample stops the
    search; shrinking steps included).

    Instances are drawn by hypothesis (a test dependency: ``pip install allockit[test]``)
    with 1-4 users, 1-3 server classes of 1-3 servers and integer capacities in
    [2, 12]; each property uses instances of its own shape (one server, one resource,
    a common bottleneck). A property holds when no instance violates it by more than
    ``1e-6`` times the largest task count. The properties are those of Wang, Li, Liang
    (2014), Sec. IV-V (see the module docstring and user guide (DRFH)).

    Parameters
    ----------
    mechanism : callable
        ``f(instance) -> DRFHResult``, e.g. ``MECHANISMS["progressive"]``.
    properties : sequence of str, default PROPERTIES
        Names from ``PROPERTIES``, checked in the given order.
    examples : int, default 200
        Most instances hypothesis generates per property (before shrinking).
    seed : int, default 0
        Seed of hypothesis's search (every property, ``sharing_incentive`` included) and
        of the misreports tried for truthfulness.
    finite_tasks : bool, default True
        If False every generated user has unbounded tasks.

    Returns
    -------
    list of PropertyReport
        One per property, in order: ``held`` with the number of instances checked, or
        the shrunk counterexample (``counterexample`` as ``DRFHInstance.to_dict()``),
        the size of the violation in tasks or shares, and a ``detail`` sentence.

    Raises
    ------
    InvalidInputError
        For an unknown property name (checked before anything runs).
    SolverUnavailableError
        If hypothesis is not installed (``pip install 'allockit[fairness]'``).

    Examples
    --------
    >>> [r] = check(MECHANISMS["progressive"], ["envy_freeness"], examples=10, seed=0)
    >>> r.name, r.status, r.examples
    ('envy_freeness', 'held', 10)
    >>> check(MECHANISMS["lp"], ["fairness"])
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: property must be one of [...]; got 'fairness'

    References
    ----------
    .. [1] W. Wang, B. Li, B. Liang (2014), Dominant resource fairness in cloud
       computing systems with heterogeneous servers, INFOCOM, Sec. IV-V.
    """
    import dataclasses
    import importlib.util
    import time

    if importlib.util.find_spec("hypothesis") is None:
        raise SolverUnavailableError(
            "property testing needs hypothesis: pip install 'allockit[fairness]'"
        )
    from hypothesis import HealthCheck, find, settings
    from hypothesis.errors import NoSuchExample

    for name in properties:
        if name not in PROPERTIES:
            raise InvalidInputError(f"property must be one of {list(PROPERTIES)}; got {name!r}")
    reports = []
    for name in properties:
        started = time.perf_counter()
        if name == "sharing_incentive":
            report = _sharing_incentive(mechanism, examples, seed, finite_tasks)
            seconds = time.perf_counter() - started
            reports.append(dataclasses.replace(report, seconds=seconds))
            continue
        rng = random.Random(seed)
        checked = [0]

        def violation(instance: DRFHInstance, _name: str = name) -> tuple[float, str]:
            if _name == "envy_freeness":
                return _envy(instance, mechanism)
            if _name == "pareto":
                return _pareto(instance, mechanism)
            if _name == "truthfulness":
                return _truthful(instance, mechanism, random.Random(seed))
            if _name == "population_monotonicity":
                return _monotone(instance, mechanism)
            return _max_min_gap(instance, mechanism)

        def bad(instance: DRFHInstance, _checked: list[int] = checked) -> bool:
            _checked[0] += 1
            return violation(instance)[0] > TOL * max(
                1.0, float(np.max(np.minimum(instance.tasks, 1e6)))
            )

        config = settings(
            max_examples=examples,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        try:
            found = find(_strategy(name, finite_tasks), bad, settings=config, random=rng)
        except NoSuchExample:
            seconds = time.perf_counter() - started
            reports.append(PropertyReport(name, True, checked[0], seconds=seconds))
            continue
        size, detail = violation(found)
        reports.append(
            PropertyReport(
                name,
                held=False,
                examples=checked[0],
                violation=float(size),
                counterexample=found.to_dict(),
                detail=detail,
                seconds=time.perf_counter() - started,
            )
        )
    return reports
