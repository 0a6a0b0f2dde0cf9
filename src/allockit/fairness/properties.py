"""Each fairness property checked on one instance: held, violated (with evidence) or error.

The properties of Wang, Li, Liang (2014), Sec. III-C and IV-D, with weights ``w_i``
and task caps ``n_i`` (user guide (DRFH)), where ``N_i(A)`` counts the tasks user ``i`` runs
with bundle ``A`` (whole tasks server by server, or divisible tasks per class; see
``allocation``):

- ``envy_freeness``: ``min(w_i / w_j N_i(A_j), n_i) <= N_i(A_i)`` for every pair; in
  whole tasks the left side is rounded down (user ``i`` must gain a whole task);
- ``pareto``: no allocation within every capacity and cap gives every user at least
  ``N_i(A_i)`` tasks and some user more (an LP over classes, or a MIP over individual
  servers for whole tasks);
- ``truthfulness``: no misreported demand ``D'_i`` raises ``min(N_i(A'_i), n_i)``,
  counted with the *true* demand on the bundle received under the lie; a systematic
  search (each resource scaled down and up, the paper's "claiming more resources" by
  raising non-dominant demands, uniform inflation, seeded random lies), so a pass means
  "no profitable misreport found among K tried";
- ``single_server_drf``, ``single_resource_fairness``, ``bottleneck_fairness``: on one
  server, with one resource, or when every user's dominant resource is the same, the
  allocation is weighted max-min fair in the dominant shares: equal to the closed form
  of ``reference`` for divisible tasks; for whole tasks, no user can gain a task by
  taking only from users who stay at or above its new weighted dominant share (a MIP
  per user);
- ``population_monotonicity``: when any one user leaves, no remaining user loses tasks;
- ``sharing_incentive`` (measured, not a guarantee: the paper shows it can fail): the
  users who run fewer tasks than alone on a dedicated ``w_i / sum_j w_j`` share of every
  server class (the paper's dedicated cloud of ``k / n`` servers drawn from the mix).

An example whose mechanism raises, refuses the instance or returns an output
``allocate`` refuses, or whose LP/MIP does not finish, is an ``error``, never ``held``.

Examples
--------
>>> from allockit.instances.drfh import DRFHInstance
>>> from allockit.fairness.mechanism import Mechanism
>>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
...     "servers": [{"capacity": [2, 2]}],
...     "users": [{"demand": [0.1, 0.1], "tasks": 5}, {"demand": [0.1, 0.1], "tasks": 5}]})
>>> hoard = Mechanism.resolve(lambda inst: [[5], [0]])
>>> out = evaluate("pareto", Context(hoard), inst)
>>> out.status, out.semantics, out.violation
('violated', 'whole', 5.0)
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from allockit.constants import FAIRNESS_TOL
from allockit.errors import InvalidInputError
from allockit.fairness.allocation import Allocation, _num
from allockit.fairness.mechanism import Mechanism, MechanismFailed
from allockit.fairness.names import DESCRIPTIONS, MAX_MIN, PROPERTIES
from allockit.fairness.programs import Undecided, improvement, raise_one
from allockit.fairness.reference import fair_tasks
from allockit.instances.drfh import DRFHInstance

__all__ = ["DESCRIPTIONS", "MAX_MIN", "PROPERTIES", "Context", "Outcome", "evaluate"]

@dataclass(frozen=True)
class Context:
    """What every example of one check shares.

    Attributes
    ----------
    mechanism : Mechanism
        The mechanism under test.
    semantics : {"auto", "whole", "fractional"}
        ``auto``: whole tasks when every allocation of the example is whole, else
        divisible; the others force one.
    seed : int
        Seed of the random misreports (truthfulness).
    lies : tuple
        Extra ``(user, demand)`` misreports tried first (a replayed counterexample's).
    first : bool
        Stop at the first profitable misreport whose semantics is settled (while
        searching and shrinking); the reported counterexample is re-checked in full.

    Examples
    --------
    >>> Context(Mechanism.resolve("lp")).semantics
    'auto'
    """

    mechanism: Mechanism
    semantics: str = "auto"
    seed: int = 0
    lies: tuple[tuple[int, tuple[float, ...]], ...] = field(default_factory=tuple)
    first: bool = False


@dataclass(frozen=True)
class Outcome:
    """One property on one instance.

    Attributes
    ----------
    status : {"held", "violated", "error", "not_applicable", "measured"}
        ``error``: the example could not be decided (``message`` says why).
    violation : float
        Size of the violation in tasks (0 when held); for ``measured`` the largest
        shortfall.
    semantics : {"whole", "fractional"} or None
        How tasks were counted (None for an error before any allocation).
    evidence : dict or None
        The allocation and what shows the violation (JSON-ready).
    message : str
        One sentence: the violation, why it is an error, or what held.

    Examples
    --------
    >>> Outcome("held", semantics="whole").violation
    0.0
    """

    status: str
    violation: float = 0.0
    semantics: str | None = None
    evidence: dict[str, Any] | None = None
    message: str = ""


def _semantics(context: Context, allocations: list[Allocation]) -> str:
    if context.semantics != "auto":
        return context.semantics
    return "whole" if all(a.whole for a in allocations) else "fractional"


def _user_tol(instance: DRFHInstance, *values: np.ndarray) -> np.ndarray:
    """Per user, ``FAIRNESS_TOL`` relative to that user's own counts (at least one task).

    A user's counts are compared with tolerances of their own size: one user running
    millions of tiny tasks must not make another user's missing tasks look like
    rounding, nor may a cap the user never comes near.
    """
    scale = np.zeros(instance.n_users)
    for v in values:
        scale = np.maximum(scale, np.abs(np.asarray(v, dtype=float)))
    return FAIRNESS_TOL * np.maximum(1.0, scale)


def _threshold(semantics: str, tol: float) -> float:
    """A violation exceeds this: half a task in whole tasks (counts differ by >= 1)."""
    return 0.5 if semantics == "whole" else tol


def _cap(instance: DRFHInstance, user: int) -> float | None:
    t = float(instance.tasks[user])
    return None if math.isinf(t) else t


def _user_names(instance: DRFHInstance, mask: np.ndarray) -> list[str]:
    return [instance.user_names[i] for i in np.flatnonzero(mask)]


# ---------------------------------------------------------------------- envy-freeness
def _envy(context: Context, instance: DRFHInstance) -> Outcome:
    a = context.mechanism(instance)
    sem = _semantics(context, [a])
    own = a.own(sem)
    tol = _user_tol(instance, own)  # (each user's gap against its own counts' size)
    worst: tuple[float, int, int, float, float] | None = None
    n, w = instance.n_users, instance.weight
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            runs = a.runs(i, j, sem)
            entitled = min(runs * w[i] / w[j], float(instance.tasks[i]))
            if sem == "whole":
                entitled = math.floor(entitled + 1e-9 * max(1.0, entitled))
            gap = entitled - own[i]
            limit = _threshold(sem, max(float(tol[i]), FAIRNESS_TOL * abs(entitled)))
            if gap > limit and (worst is None or gap > worst[0]):
                worst = (gap, i, j, runs, entitled)
    if worst is None:
        return Outcome("held", semantics=sem, message="no user envies another")
    gap, i, j, runs, entitled = worst
    names = instance.user_names
    evidence = {
        "semantics": sem,
        "allocation": a.describe(sem),
        "user": names[i],
        "envied": names[j],
        "own_tasks": _num(own[i]),
        "tasks_in_envied_bundle": _num(runs),
        "envied_user_tasks": _num(own[j]),
        "weights": {names[i]: float(w[i]), names[j]: float(w[j])},
        "weights_matter": bool(w[i] != w[j]),
        "entitled_tasks": _num(entitled),
        "cap": _cap(instance, i),
    }
    return Outcome(
        "violated",
        float(gap),
        sem,
        evidence,
        f"user {names[i]!r} envies {names[j]!r}: {_num(entitled)} tasks from its bundle "
        f"against {_num(own[i])} of its own",
    )


# ---------------------------------------------------------------------- Pareto
def _pareto(context: Context, instance: DRFHInstance) -> Outcome:
    a = context.mechanism(instance)
    sem = _semantics(context, [a])
    base = a.own(sem)
    tol = _user_tol(instance, base)
    if sem == "whole":
        gain, x = improvement(instance, base, whole=True)
    else:  # exact LPs from the mechanism's own tasks per class (see programs.improvement)
        gain, x = improvement(instance, base, whole=False,
                              per_class=a.per_class_tasks(sem), tolerance=tol)
    if x is None:
        return Outcome("held", semantics=sem, message="no allocation is better for all")
    names = instance.user_names
    if sem == "whole":  # per server -> per class
        per_class = np.zeros((instance.n_users, instance.n_classes))
        np.add.at(per_class.T, np.repeat(np.arange(instance.n_classes), instance.count), x.T)
    else:
        per_class = x
    totals = per_class.sum(axis=1)
    evidence = {
        "semantics": sem,
        "allocation": a.describe(sem),
        "improving_allocation": {
            "tasks": {
                u: {s: _num(per_class[i, c]) for c, s in enumerate(instance.server_names)}
                for i, u in enumerate(names)
            },
            "total": {u: _num(totals[i]) for i, u in enumerate(names)},
        },
        "gains": {u: _num(totals[i] - base[i]) for i, u in enumerate(names)},
    }
    better = _user_names(instance, totals - base > (0.5 if sem == "whole" else tol))
    return Outcome(
        "violated",
        float(gain),
        sem,
        evidence,
        f"another allocation gives {', '.join(repr(u) for u in better)} more tasks and "
        f"nobody fewer ({_num(gain)} tasks in all)",
    )


# ---------------------------------------------------------------------- truthfulness
def misreports(
    instance: DRFHInstance, user: int, rng: random.Random
) -> list[tuple[float, ...]]:
    """The demands a user tries instead of its own, in order (without duplicates).

    Each resource scaled by 0.5, 0.9, 1.1 and 2; each non-dominant resource raised
    halfway and all the way to the dominant resource's share (the paper's "claiming
    more resources"); all non-dominant resources raised to it; the whole vector scaled
    by 0.5, 1.5 and 2 (which changes how much a capped user may take); three seeded
    random vectors (each resource scaled by a factor in [0.5, 2]). Lies that fit no
    server are left out by the caller.

    Parameters
    ----------
    instance : DRFHInstance
        The instance (the user's true demand and the pool's totals).
    user : int
        Who lies.
    rng : random.Random
        Source of the random lies.

    Returns
    -------
    list of tuple of float

    Examples
    --------
    >>> from allockit.instances.drfh import DRFHInstance
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"capacity": [1, 1]}], "users": [{"demand": [0.2, 0.1]}]})
    >>> lies = misreports(inst, 0, random.Random(0))
    >>> len(lies), (0.2, 0.2) in lies, (0.4, 0.2) in lies
    (15, True, True)
    """
    true = instance.demand[user].astype(float)
    total = instance.total
    share = true / total
    top = int(np.argmax(share))
    out: list[np.ndarray] = []
    for r in range(true.size):
        for factor in (0.5, 0.9, 1.1, 2.0):
            lie = true.copy()
            lie[r] *= factor
            out.append(lie)
    raised = true.copy()
    for r in range(true.size):
        if r != top:
            for fraction in (0.5, 1.0):
                lie = true.copy()
                lie[r] = true[r] + fraction * (share[top] * total[r] - true[r])
                out.append(lie)
            raised[r] = share[top] * total[r]
    out.append(raised)
    out.extend(true * factor for factor in (0.5, 1.5, 2.0))
    out.extend(true * np.array([rng.uniform(0.5, 2.0) for _ in true]) for _ in range(3))
    seen, unique = {tuple(true.round(12))}, []
    for lie in out:
        key = tuple(float(v) for v in lie.round(12))
        if key not in seen:
            seen.add(key)
            unique.append(key)
    return unique


def _with_demand(instance: DRFHInstance, user: int, demand: tuple[float, ...]) -> DRFHInstance:
    rows = instance.demand.copy()
    rows[user] = demand
    return DRFHInstance(
        instance.resources,
        instance.server_names,
        instance.capacity,
        instance.count,
        instance.user_names,
        rows,
        instance.weight,
        instance.tasks,
    )


def _gain(
    instance: DRFHInstance,
    honest: Allocation,
    lied: Allocation,
    user: int,
    lie: tuple[float, ...],
    semantics: str,
) -> tuple[float, int, tuple[float, ...], Allocation, float] | None:
    """The true tasks ``user`` gains with its bundle under ``lie``, if a violation."""
    mine = honest.own(semantics)
    got = min(lied.counts(instance.demand[user], user, semantics), float(instance.tasks[user]))
    gain = got - mine[user]
    tol = max(float(_user_tol(instance, mine)[user]), FAIRNESS_TOL * abs(got))
    if gain > _threshold(semantics, tol):
        return gain, user, lie, lied, got
    return None


def _truthful(context: Context, instance: DRFHInstance) -> Outcome:
    a = context.mechanism(instance)
    rng = random.Random(context.seed)
    runs: list[tuple[int, tuple[float, ...], Allocation]] = []
    worst: tuple[float, int, tuple[float, ...], Allocation, float] | None = None
    for i in range(instance.n_users):
        extra = [lie for user, lie in context.lies if user == i]
        for lie in [*extra, *misreports(instance, i, rng)]:
            try:
                lied = _with_demand(instance, i, lie)
            except InvalidInputError:
                continue  # fits no server: not a report the instance admits
            b = context.mechanism(lied)
            runs.append((i, lie, b))
            settled = context.semantics != "auto" or not (a.whole and b.whole)
            if context.first and settled:  # this pair alone fixes the semantics
                sem = context.semantics if context.semantics != "auto" else "fractional"
                found = _gain(instance, a, b, i, lie, sem)
                if found is not None:
                    worst = found
                    break
        if worst is not None:
            break
    if worst is None:
        sem = _semantics(context, [a, *(b for _, _, b in runs)])
        for i, lie, b in runs:
            found = _gain(instance, a, b, i, lie, sem)
            if found is not None and (worst is None or found[0] > worst[0]):
                worst = found
    honest = a.own(sem)
    tried = len(runs)
    if worst is None:
        return Outcome(
            "held",
            semantics=sem,
            evidence={"misreports_tried": tried},
            message=f"no profitable misreport found among {tried} tried",
        )
    gain, i, lie, b, got = worst
    names = instance.user_names
    evidence = {
        "semantics": sem,
        "allocation": a.describe(sem),
        "user": names[i],
        "true_demand": [float(v) for v in instance.demand[i]],
        "reported_demand": [_num(v) for v in lie],
        "honest_tasks": _num(honest[i]),
        "tasks_with_lie": _num(got),
        "gain": _num(gain),
        "cap": _cap(instance, i),
        "allocation_with_lie": b.describe(sem),
        "misreports_tried": tried,
    }
    return Outcome(
        "violated",
        float(gain),
        sem,
        evidence,
        f"user {names[i]!r} runs {_num(got)} tasks by reporting {evidence['reported_demand']} "
        f"instead of {evidence['true_demand']}, {_num(honest[i])} when truthful",
    )


# ---------------------------------------------------------------------- max-min shapes
def premise(kind: str, instance: DRFHInstance) -> str | None:
    """Why ``instance`` is not of the shape property ``kind`` speaks of (None if it is).

    Parameters
    ----------
    kind : str
        One of ``MAX_MIN``.
    instance : DRFHInstance
        The instance.

    Returns
    -------
    str or None
        A sentence for ``not_applicable``, or None.

    Examples
    --------
    >>> from allockit.instances.drfh import DRFHInstance
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
    ...     "servers": [{"capacity": [1], "count": 2}], "users": [{"demand": [0.5]}]})
    >>> premise("single_server_drf", inst)
    'the instance has 2 servers; single-server DRF speaks of one'
    >>> premise("single_resource_fairness", inst) is None
    True
    """
    if kind == "single_server_drf":
        servers = int(instance.count.sum())
        if servers != 1:
            return f"the instance has {servers} servers; single-server DRF speaks of one"
        return None
    if kind == "single_resource_fairness":
        m = len(instance.resources)
        return None if m == 1 else f"the instance has {m} resources; this speaks of one"
    shares = instance.share_demand
    top = np.argmax(shares, axis=1)
    if np.unique(top).size != 1:
        return "the users' global dominant resources differ"
    return None


def _locally_bottlenecked(instance: DRFHInstance) -> bool:
    """Resource 0 is every user's dominant resource on every server class too."""
    local = instance.demand[:, None, :] / instance.capacity[None, :, :]
    return bool((np.argmax(local, axis=2) == 0).all() and (np.argmax(
        instance.share_demand, axis=1) == 0).all())


def _max_min(context: Context, instance: DRFHInstance, kind: str) -> Outcome:
    why = premise(kind, instance)
    if why is not None:
        return Outcome("not_applicable", message=why)
    a = context.mechanism(instance)
    sem = _semantics(context, [a])
    names, w = instance.user_names, instance.weight
    if sem == "fractional":
        got = a.own("fractional")
        if kind == "bottleneck_fairness" and not _locally_bottlenecked(instance):
            from allockit.models.drfh_lp import progressive_filling

            ref = np.asarray(progressive_filling(instance).tasks, dtype=float)
            basis = "progressive filling (the dominant resource binds differently per server)"
        else:
            ref = fair_tasks(instance, kind)
            basis = "closed-form weighted max-min fair shares"
        diff = got - ref
        size = float(np.max(np.abs(diff)))
        if not (np.abs(diff) > _user_tol(instance, got, ref)).any():
            return Outcome("held", semantics=sem, message="the allocation is the fair one")
        evidence = {
            "semantics": sem,
            "allocation": a.describe(sem),
            "fair_tasks": {u: _num(ref[i]) for i, u in enumerate(names)},
            "reference": basis,
            "weights": {u: float(w[i]) for i, u in enumerate(names)},
            "weights_matter": bool(np.unique(w).size > 1),
        }
        i = int(np.argmax(np.abs(diff)))
        return Outcome(
            "violated",
            size,
            sem,
            evidence,
            f"user {names[i]!r} gets {_num(got[i])} tasks; the weighted max-min fair "
            f"allocation gives it {_num(ref[i])}",
        )
    y = a.own("whole")
    star = instance.dominant
    order = np.argsort(y * star / w, kind="stable")
    for i in order.tolist():
        if y[i] + 1 > instance.tasks[i]:
            continue
        level = (y[i] + 1) * star[i] / w[i]
        keep = np.ceil(level * w / star - 1e-9)
        lower = np.minimum(y, keep)
        lower[i] = y[i] + 1
        x = raise_one(instance, lower, i)
        if x is None:
            continue
        per_class = np.zeros((instance.n_users, instance.n_classes))
        np.add.at(per_class.T, np.repeat(np.arange(instance.n_classes), instance.count), x.T)
        totals = per_class.sum(axis=1)
        losers = [j for j in range(instance.n_users) if totals[j] < y[j] - 0.5]
        evidence = {
            "semantics": sem,
            "allocation": a.describe(sem),
            "user": names[i],
            "tasks": _num(y[i]),
            "weighted_share_after": _num(level),
            "alternative": {
                "tasks": {
                    u: {s: _num(per_class[j, c]) for c, s in enumerate(instance.server_names)}
                    for j, u in enumerate(names)
                },
                "total": {u: _num(totals[j]) for j, u in enumerate(names)},
            },
            "taken_from": {
                names[j]: {
                    "tasks": _num(y[j]),
                    "after": _num(totals[j]),
                    "weighted_share_after": _num(totals[j] * star[j] / w[j]),
                }
                for j in losers
            },
            "weights": {u: float(w[j]) for j, u in enumerate(names)},
            "weights_matter": bool(np.unique(w).size > 1),
        }
        source = (
            "taking only from " + ", ".join(repr(names[j]) for j in losers)
            + " (who stay at or above its new weighted share)"
            if losers
            else "without taking from anyone"
        )
        return Outcome(
            "violated",
            1.0,
            sem,
            evidence,
            f"user {names[i]!r} could run {_num(y[i] + 1)} whole tasks instead of "
            f"{_num(y[i])}, {source}",
        )
    return Outcome("held", semantics=sem, message="no user can gain a task fairly")


# ---------------------------------------------------------------------- monotonicity
def _without(instance: DRFHInstance, user: int) -> DRFHInstance:
    keep = [i for i in range(instance.n_users) if i != user]
    return DRFHInstance(
        instance.resources,
        instance.server_names,
        instance.capacity,
        instance.count,
        tuple(instance.user_names[i] for i in keep),
        instance.demand[keep],
        instance.weight[keep],
        instance.tasks[keep],
    )


def _monotone(context: Context, instance: DRFHInstance) -> Outcome:
    a = context.mechanism(instance)
    if instance.n_users < 2:
        sem = _semantics(context, [a])
        return Outcome("held", semantics=sem, message="one user: nobody can leave")
    after = [context.mechanism(_without(instance, k)) for k in range(instance.n_users)]
    sem = _semantics(context, [a, *after])
    before = a.own(sem)
    tol = _user_tol(instance, before)
    worst: tuple[float, int, int, float] | None = None
    for k, b in enumerate(after):
        now = b.own(sem)
        keep = [i for i in range(instance.n_users) if i != k]
        for pos, j in enumerate(keep):
            loss = before[j] - now[pos]
            limit = _threshold(sem, max(float(tol[j]), FAIRNESS_TOL * abs(float(now[pos]))))
            if loss > limit and (worst is None or loss > worst[0]):
                worst = (loss, k, j, now[pos])
    if worst is None:
        return Outcome("held", semantics=sem, message="nobody loses when a user leaves")
    loss, k, j, now_j = worst
    names = instance.user_names
    evidence = {
        "semantics": sem,
        "allocation": a.describe(sem),
        "leaving": names[k],
        "user": names[j],
        "tasks_before": _num(before[j]),
        "tasks_after": _num(now_j),
        "allocation_after": after[k].describe(sem),
    }
    return Outcome(
        "violated",
        float(loss),
        sem,
        evidence,
        f"when {names[k]!r} leaves, {names[j]!r} drops from {_num(before[j])} to "
        f"{_num(now_j)} tasks",
    )


# ---------------------------------------------------------------------- sharing incentive
def dedicated_tasks(instance: DRFHInstance, user: int, *, whole: bool) -> float:
    """Tasks ``user`` runs alone on a dedicated ``w_i / sum_j w_j`` share of the servers.

    The paper's benchmark (Sec. IV-D): each user alone on a dedicated cloud of servers
    drawn from the pool's mix; in expectation, that share of every server class's count.
    Tasks per server are those that fit one whole server (rounded down for whole tasks),
    capped at the user's task count.

    Parameters
    ----------
    instance : DRFHInstance
        Servers, demands, weights and caps.
    user : int
        Whose dedicated cloud.
    whole : bool
        Whole tasks per server, or divisible ones.

    Returns
    -------
    float

    Examples
    --------
    Two users of equal weight: each has one of two unit servers; 0.3 per task.

    >>> from allockit.instances.drfh import DRFHInstance
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
    ...     "servers": [{"capacity": [1], "count": 2}],
    ...     "users": [{"demand": [0.3]}, {"demand": [0.5]}]})
    >>> dedicated_tasks(inst, 0, whole=True), round(dedicated_tasks(inst, 0, whole=False), 4)
    (3.0, 3.3333)
    """
    per_server = np.min(instance.capacity / instance.demand[user], axis=1)
    if whole:
        per_server = np.floor(per_server + 1e-9 * np.maximum(1.0, per_server))
    share = instance.weight[user] / instance.weight.sum()
    return float(min(instance.tasks[user], share * float(per_server @ instance.count)))


def _sharing(context: Context, instance: DRFHInstance) -> Outcome:
    a = context.mechanism(instance)
    sem = _semantics(context, [a])
    own = a.own(sem)
    alone = np.array(
        [dedicated_tasks(instance, i, whole=sem == "whole") for i in range(instance.n_users)]
    )
    tol = _user_tol(instance, own, alone)
    limit = tol if sem == "fractional" else _threshold(sem, 0.0)
    short = alone - own
    worse = short > limit
    names = instance.user_names
    evidence = {
        "semantics": sem,
        "allocation": a.describe(sem),
        "users": instance.n_users,
        "worse_users": int(worse.sum()),
        "shared_tasks": {u: _num(own[i]) for i, u in enumerate(names)},
        "dedicated_tasks": {u: _num(alone[i]) for i, u in enumerate(names)},
    }
    if not worse.any():
        return Outcome("measured", 0.0, sem, evidence, "no user is worse off than alone")
    i = int(np.argmax(np.where(worse, short, -np.inf)))
    evidence["user"] = names[i]
    return Outcome(
        "measured",
        float(short[i]),
        sem,
        evidence,
        f"user {names[i]!r} runs {_num(own[i])} tasks shared, {_num(alone[i])} on its "
        "dedicated share",
    )


# ---------------------------------------------------------------------- dispatch
def evaluate(name: str, context: Context, instance: DRFHInstance) -> Outcome:
    """Check property ``name`` on one instance.

    Parameters
    ----------
    name : str
        One of ``PROPERTIES``.
    context : Context
        The mechanism, the semantics asked for and the misreport seed.
    instance : DRFHInstance
        The instance.

    Returns
    -------
    Outcome
        ``error`` (with the reason) when the mechanism fails or a solve is undecided.

    Raises
    ------
    InvalidInputError
        For an unknown property name.

    Examples
    --------
    >>> from allockit.instances.drfh import DRFHInstance
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
    ...     "servers": [{"capacity": [1]}], "users": [{"demand": [0.5], "tasks": 1}]})
    >>> evaluate("pareto", Context(Mechanism.resolve("lp")), inst).status
    'error'
    >>> evaluate("pareto", Context(Mechanism.resolve("progressive")), inst).status
    'held'
    """
    checks = {
        "envy_freeness": _envy,
        "pareto": _pareto,
        "truthfulness": _truthful,
        "population_monotonicity": _monotone,
        "sharing_incentive": _sharing,
    }
    if name not in PROPERTIES:
        raise InvalidInputError(f"property must be one of {list(PROPERTIES)}; got {name!r}")
    try:
        if name in MAX_MIN:
            return _max_min(context, instance, name)
        return checks[name](context, instance)
    except (MechanismFailed, Undecided) as exc:
        return Outcome("error", message=str(exc))
