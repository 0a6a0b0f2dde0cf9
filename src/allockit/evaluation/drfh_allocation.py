"""What a user's DRFH mechanism returns, checked against capacities and task caps.

A mechanism ``f(instance, **options)`` returns either a ``DRFHResult`` or an array of
tasks (fractional allowed) of shape ``(users, server classes)``, or ``(users, servers)``
with every server of a class listed in class order (then each server's own capacity is
checked). allockit checks that the tasks are finite and non-negative, within each
user's task cap, and that the resources they take fit each class (or server), and builds
the ``DRFHResult`` (resources per user and class, global dominant shares ``G_i = N_i
D_{i r*}``, utilisation).

Examples
--------
>>> from allockit.instances.drfh import DRFHInstance
>>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
...     "servers": [{"capacity": [2, 2]}],
...     "users": [{"demand": [0.1, 0.1], "tasks": 5}, {"demand": [0.1, 0.1], "tasks": 5}]})
>>> r = result_from_tasks(inst, [[5], [0]], method="hoard", seconds=0.0)
>>> r.tasks.tolist(), r.dominant_share.tolist(), str(r.status)
([5.0, 0.0], [0.25, 0.0], 'feasible')
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from allockit.errors import InvalidInputError
from allockit.instances.drfh import DRFHInstance
from allockit.results import DRFHResult, Status

__all__ = ["check_result", "result_from_output", "result_from_tasks"]

#: Relative tolerance of the capacity and cap checks.
TOL = 1e-9

#: The statuses a mechanism's own result may have with a nonzero allocation, and at all
#: (``completed`` and ``failed_tasks`` are a sweep's, never an allocation's).
_WITH_ALLOCATION = (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT)
_STATUSES = (*_WITH_ALLOCATION, Status.INFEASIBLE, Status.NO_SOLUTION, Status.ERROR)


def _check_fit(
    instance: DRFHInstance,
    per_entry: np.ndarray,
    capacity: np.ndarray,
    names: list[str],
    method: str,
) -> None:
    """``per_entry[i, l]`` tasks use at most ``capacity[l]`` of every resource."""
    used = np.einsum("il,ir->lr", per_entry, instance.demand)
    over = used > capacity * (1 + TOL) + TOL
    if over.any():
        entry, res = np.argwhere(over)[0]
        raise InvalidInputError(
            f"{method}: {instance.resources[res]} on {names[entry]} is "
            f"{used[entry, res]:.6g} > capacity {capacity[entry, res]:.6g}"
        )


def _check_caps(instance: DRFHInstance, tasks: np.ndarray, method: str) -> None:
    over = tasks > instance.tasks * (1 + TOL) + TOL
    if over.any():
        i = int(np.flatnonzero(over)[0])
        raise InvalidInputError(
            f"{method}: user {instance.user_names[i]!r} gets {tasks[i]:.6g} tasks, more "
            f"than its {instance.tasks[i]:g}"
        )


def _check_reported(
    instance: DRFHInstance, result: DRFHResult, used: np.ndarray, method: str
) -> None:
    """``dominant_share`` and ``utilization``: finite, >= 0, at most what the allocation holds.

    ``used[l, r]`` is the allocation's total of resource ``r`` on class ``l`` (input
    units). User ``i``'s dominant share is at most its bundle's largest share of a
    resource's pool, ``max_r sum_l A_ilr / total_r``, and resource ``r``'s utilisation
    at most ``sum_l used_lr / total_r``, the fraction the allocation takes (both at most
    1 once the capacities hold). NaN fails both comparisons and is reported.
    """
    total = instance.total
    bundle = result.allocation.sum(axis=1) / total  # (users, resources): shares of the pool
    for field, names, what, limit in (
        ("dominant_share", instance.user_names, "user", bundle.max(axis=1)),
        ("utilization", instance.resources, "resource", used.sum(axis=0) / total),
    ):
        value = np.asarray(getattr(result, field), dtype=float)
        if value.shape != limit.shape:
            raise InvalidInputError(
                f"{method}: the result's {field} must have shape {limit.shape}; got "
                f"{value.shape}"
            )
        bad = ~((value >= -TOL) & (value <= limit * (1 + TOL) + TOL))
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise InvalidInputError(
                f"{method}: the result's {field}[{j}] ({what} {names[j]!r}) is "
                f"{float(value[j])!r}; it must be finite, >= 0 and at most "
                f"{float(limit[j]):.6g}, what the allocation holds"
            )


def result_from_tasks(
    instance: DRFHInstance, tasks: Any, *, method: str, seconds: float
) -> DRFHResult:
    """A ``DRFHResult`` from tasks per user and server class (or server), checked.

    Parameters
    ----------
    instance : DRFHInstance
        The instance the tasks are for.
    tasks : array_like
        Shape ``(n_users, n_classes)``, or ``(n_users, n_servers)`` with the servers of
        each class listed in class order (``n_servers = instance.count.sum()``).
    method : str
        Recorded in the result and quoted in messages.
    seconds : float
        Wall time of the mechanism.

    Returns
    -------
    DRFHResult
        Status ``feasible``; per class entry the resources each user's tasks take.

    Raises
    ------
    InvalidInputError
        For another shape, a negative or non-finite count, a user over its task cap, or
        tasks that do not fit a class's (or server's) capacity; the message names the
        user or the server and resource.

    Examples
    --------
    >>> from allockit.instances.drfh import DRFHInstance
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"name": "s", "capacity": [1, 1], "count": 2}],
    ...     "users": [{"name": "u", "demand": [0.6, 0.1]}]})
    >>> result_from_tasks(inst, [[1, 1]], method="m", seconds=0).tasks.tolist()
    [2.0]
    >>> result_from_tasks(inst, [[2, 0]], method="m", seconds=0)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: m: cpu on server 0 of class 's' is 1.2 > capacity 1
    """
    try:
        raw = np.asarray(tasks)
        # numbers only: strings, booleans and complex numbers are no task counts (numpy
        # would read "5" as 5.0, True as 1.0 and drop an imaginary part)
        if raw.dtype.kind not in "iuf":
            raise TypeError(f"got an array of {raw.dtype}")
        x = np.array(raw, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{method}: tasks must be an array of numbers: {exc}") from None
    n, k = instance.n_users, instance.n_classes
    servers = int(instance.count.sum())
    if x.ndim != 2 or x.shape[0] != n or x.shape[1] not in (k, servers):
        raise InvalidInputError(
            f"{method}: tasks must have shape (users, server classes) = ({n}, {k}) or "
            f"(users, servers) = ({n}, {servers}); got {x.shape}"
        )
    if not np.isfinite(x).all() or (x < -TOL).any():
        i, entry = np.argwhere(~np.isfinite(x) | (x < -TOL))[0]
        raise InvalidInputError(
            f"{method}: tasks must be finite and >= 0; got {float(x[i, entry])!r} for user "
            f"{instance.user_names[i]!r}"
        )
    x = np.maximum(x, 0.0)
    class_of = np.repeat(np.arange(k), instance.count)
    if x.shape[1] == servers and servers != k:
        within = np.concatenate([np.arange(c) for c in instance.count])
        names = [
            f"server {within[s]} of class {instance.server_names[class_of[s]]!r}"
            for s in range(servers)
        ]
        _check_fit(instance, x, instance.capacity[class_of], names, method)
        per_class = np.zeros((n, k))
        np.add.at(per_class.T, class_of, x.T)
    else:
        per_class = x
        names = [f"class {name!r}" for name in instance.server_names]
        _check_fit(
            instance, per_class, instance.capacity * instance.count[:, None], names, method
        )
    total_tasks = per_class.sum(axis=1)
    _check_caps(instance, total_tasks, method)
    used = (total_tasks[:, None] * instance.demand).sum(axis=0) / instance.total
    return DRFHResult(
        method=method,
        status=Status.FEASIBLE,
        user_names=instance.user_names,
        server_names=instance.server_names,
        resources=instance.resources,
        tasks=total_tasks,
        dominant_share=total_tasks * instance.dominant,
        allocation=per_class[:, :, None] * instance.demand[:, None, :],
        utilization=used,
        seconds=seconds,
    )


def check_result(instance: DRFHInstance, result: DRFHResult, *, method: str) -> DRFHResult:
    """A mechanism's own ``DRFHResult``, checked against the instance.

    The users and resources must be the instance's, the allocation per class entry
    within each class's capacity, each user's tasks within its cap and no more than its
    bundle can run (``N_i(A_i) = sum_l min_r A_ilr / D_ir``), each user's
    ``dominant_share`` in ``[N_i d_i, max_r sum_l A_ilr / total_r]`` (``d_i`` the
    user's dominant share per task: no less than its tasks take), each resource's
    ``utilization`` in ``[0, sum_il A_ilr / total_r]`` (relative tolerance ``TOL``),
    and a status that fits the allocation (resources allocated: ``optimal``,
    ``feasible`` or ``time_limit``).

    Parameters
    ----------
    instance : DRFHInstance
        The instance the result is for.
    result : DRFHResult
        What the mechanism returned (per class entry, as ``allocate`` reports by
        default).
    method : str
        Set as the result's ``method`` and quoted in messages.

    Returns
    -------
    DRFHResult
        The result with ``method`` replaced.

    Raises
    ------
    InvalidInputError
        Naming the first mismatch: users, resources or server entries, tasks or an
        allocation not finite and >= 0, a class over capacity, a user over its cap
        or claiming more tasks than its resources run, a dominant share or a
        utilisation not finite and >= 0 or above what the allocation holds (the message
        names the field, the user or resource index and the value), a dominant share
        below what its tasks take (``N_i d_i``), or a status that contradicts the allocation
        (``error``, ``infeasible`` or ``no_solution`` with resources allocated; a
        sweep's ``completed`` or ``failed_tasks``).

    Examples
    --------
    >>> from allockit.instances.drfh import DRFHInstance
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"capacity": [1, 1]}], "users": [{"demand": [0.2, 0.1]}]})
    >>> r = result_from_tasks(inst, [[3]], method="x", seconds=0)
    >>> check_result(inst, r, method="mine").method
    'mine'
    >>> from dataclasses import replace
    >>> check_result(inst, replace(r, dominant_share=np.array([5.0])), method="mine")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: mine: the result's dominant_share[0] (user 'u0') \
is 5.0; it must be finite, >= 0 and at most 0.6, what the allocation holds
    """
    if tuple(result.user_names) != tuple(instance.user_names):
        raise InvalidInputError(
            f"{method}: the result's users {list(result.user_names)} are not the "
            f"instance's {list(instance.user_names)}"
        )
    if tuple(result.resources) != tuple(instance.resources):
        raise InvalidInputError(
            f"{method}: the result's resources {list(result.resources)} are not the "
            f"instance's {list(instance.resources)}"
        )
    if tuple(result.server_names) != tuple(instance.server_names):
        raise InvalidInputError(
            f"{method}: the result's server classes {_few(result.server_names)} are not "
            f"the instance's {_few(instance.server_names)} (in that order; a result per "
            "server class, as allocate reports by default)"
        )
    n, k, m = instance.n_users, instance.n_classes, len(instance.resources)
    if result.allocation.shape != (n, k, m):
        raise InvalidInputError(
            f"{method}: the result's allocation must be per server class, shape "
            f"({n}, {k}, {m}); got {result.allocation.shape}"
        )
    alloc = result.allocation
    if not np.isfinite(alloc).all() or (alloc < -TOL).any():
        raise InvalidInputError(f"{method}: the allocation must be finite and >= 0")
    cap = instance.capacity * instance.count[:, None]
    used = alloc.sum(axis=0)
    over = used > cap * (1 + TOL) + TOL
    if over.any():
        c, r = np.argwhere(over)[0]
        raise InvalidInputError(
            f"{method}: {instance.resources[r]} on class {instance.server_names[c]!r} is "
            f"{used[c, r]:.6g} > capacity {cap[c, r]:.6g}"
        )
    tasks = np.asarray(result.tasks, dtype=float)
    if tasks.shape != (n,) or not np.isfinite(tasks).all() or (tasks < -TOL).any():
        raise InvalidInputError(
            f"{method}: the result's tasks must be {n} finite numbers >= 0; got "
            f"{np.array2string(tasks, threshold=6)}"
        )
    _check_caps(instance, result.tasks, method)
    runnable = np.min(alloc / instance.demand[:, None, :], axis=2).sum(axis=1)
    claimed = result.tasks > runnable * (1 + TOL) + TOL
    if claimed.any():
        i = int(np.flatnonzero(claimed)[0])
        raise InvalidInputError(
            f"{method}: user {instance.user_names[i]!r} claims {result.tasks[i]:.6g} tasks; "
            f"its resources run {runnable[i]:.6g}"
        )
    _check_reported(instance, result, used, method)
    _check_consistent(instance, result, method)
    return replace(result, method=method)


def _few(names: Any) -> str:
    """A list of names for a message: all of up to 6, else the first 5 and the count."""
    names = list(names)
    if len(names) <= 6:
        return str(names)
    return f"[{', '.join(repr(n) for n in names[:5])}, ... ({len(names)} in all)]"


def _check_consistent(instance: DRFHInstance, result: DRFHResult, method: str) -> None:
    """The status fits the allocation; no dominant share is below what its tasks take.

    A user's tasks take ``N_i`` times its dominant share per task; its allocation may
    hold more (a wasteful one), never less.
    """
    if result.status not in _STATUSES or (
        result.allocation.any() and result.status not in _WITH_ALLOCATION
    ):
        allowed = _WITH_ALLOCATION if result.allocation.any() else _STATUSES
        raise InvalidInputError(
            f"{method}: a result with {'an' if result.allocation.any() else 'no'} "
            f"allocation cannot have status {result.status}; allowed: "
            f"{', '.join(map(str, allowed))}"
        )
    held = result.tasks * instance.dominant  # what its tasks alone take of the pool
    short = ~(result.dominant_share >= held * (1 - TOL) - TOL)
    if short.any():
        i = int(np.flatnonzero(short)[0])
        raise InvalidInputError(
            f"{method}: the result's dominant_share[{i}] (user {instance.user_names[i]!r}) "
            f"is {float(result.dominant_share[i]):.6g}, but its {float(result.tasks[i]):.6g} "
            f"tasks alone take a dominant share of {float(held[i]):.6g} (the global dominant "
            "share G_i, a fraction of the pool, not divided by the weight)"
        )


def result_from_output(
    instance: DRFHInstance, output: Any, *, method: str, seconds: float
) -> DRFHResult:
    """A checked ``DRFHResult`` from what a mechanism returned (a result or tasks).

    Parameters
    ----------
    instance : DRFHInstance
        The instance the mechanism allocated.
    output : DRFHResult or array_like
        See the module docstring.
    method : str
        Recorded in the result.
    seconds : float
        Wall time of the mechanism (used for an array; a result keeps its own).

    Returns
    -------
    DRFHResult

    Raises
    ------
    InvalidInputError
        See ``check_result`` and ``result_from_tasks``; also for None.

    Examples
    --------
    >>> from allockit.instances.drfh import DRFHInstance
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu"], "servers": [{"capacity": [1]}],
    ...     "users": [{"demand": [0.25]}]})
    >>> result_from_output(inst, [[4]], method="m", seconds=0).tasks.tolist()
    [4.0]
    """
    if isinstance(output, DRFHResult):
        return check_result(instance, output, method=method)
    if output is None:
        raise InvalidInputError(
            f"{method}: must return a DRFHResult or tasks per user and server class; got None"
        )
    return result_from_tasks(instance, output, method=method, seconds=seconds)
