"""What a user's cluster-reserves method returns, checked per node and class.

A method ``f(instance, **options)`` returns either a ``ReservesResult`` or the next
round's allocation: an array of shape ``(nodes, classes)`` in percent of each node.
allockit checks that every share is finite and non-negative and that no node is
allocated more than 100 % (within ``NODE_TOL``), and builds the ``ReservesResult``
(``class_totals``: each class's mean share over the nodes; ``deviation`` from the
targets), with status ``feasible``: an allocation proves nothing optimal.

Examples
--------
>>> from allockit.instances.reserves import ReservesInstance
>>> inst = ReservesInstance.from_dict({"targets": [60, 40],
...     "allocation": [[50, 50], [70, 30]], "usage": [[50, 50], [70, 30]]})
>>> r = result_from_output(inst, [[60, 40], [60, 40]], method="mine:even", seconds=0.0)
>>> r.class_totals.tolist(), r.deviation.tolist(), str(r.status)
([60.0, 40.0], [0.0, 0.0], 'feasible')
>>> result_from_output(inst, [[60, 50], [60, 40]], method="mine:greedy", seconds=0.0)
Traceback (most recent call last):
...
allockit.errors.InvalidInputError: mine:greedy: node 0 is allocated 110 % (> 100)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from allockit.checks import real_array, real_number
from allockit.errors import InvalidInputError
from allockit.instances.reserves import NODE_TOL, ReservesInstance
from allockit.results import ReservesResult, Status

__all__ = ["check_allocation", "result_from_output"]


def check_allocation(instance: ReservesInstance, allocation: Any, *, method: str) -> np.ndarray:
    """The allocation as a float array ``(nodes, classes)``, checked.

    Parameters
    ----------
    instance : ReservesInstance
        The instance the allocation is for.
    allocation : array_like
        Percent of each node per class.
    method : str
        Quoted in messages.

    Returns
    -------
    numpy.ndarray
        A float copy of shape ``(instance.n_nodes, instance.n_classes)``.

    Raises
    ------
    InvalidInputError
        For a wrong shape, a value that is not a finite number >= 0, or a node whose
        shares add up to more than 100 (naming the node).

    Examples
    --------
    >>> from allockit.instances.reserves import ReservesInstance
    >>> inst = ReservesInstance.from_dict({"targets": [50, 50],
    ...     "allocation": [[50, 50]], "usage": [[50, 50]]})
    >>> check_allocation(inst, [[-1, 50]], method="m")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: m: the share of class 0 on node 0 is -1; shares must \
be finite numbers >= 0
    """
    shape = (instance.n_nodes, instance.n_classes)
    if allocation is None or isinstance(allocation, str | bytes | dict):
        raise InvalidInputError(
            f"{method}: must return a ReservesResult or an allocation of shape {shape} "
            f"(nodes x classes, percent); got a {type(allocation).__name__}"
        )
    try:  # numbers only: "50", True and 1+2j are no shares (never parsed or cast)
        values = real_array(f"{method}: the allocation", allocation, ndim=2).copy()
    except InvalidInputError as exc:
        if "must be two-dimensional" not in str(exc):
            raise
        values = np.empty(0)
    if values.shape != shape:
        raise InvalidInputError(
            f"{method}: the allocation must have shape {shape} (nodes x classes); "
            f"got {values.shape}"
        )
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        node, cls = (int(v) for v in np.argwhere(bad)[0])
        raise InvalidInputError(
            f"{method}: the share of class {cls} on node {node} is {values[node, cls]:g}; "
            "shares must be finite numbers >= 0"
        )
    totals = values.sum(axis=1)
    over = np.flatnonzero(totals > 100.0 + NODE_TOL)
    if over.size:
        node = int(over[0])
        raise InvalidInputError(
            f"{method}: node {node} is allocated {totals[node]:.6g} % (> 100)"
        )
    return values


#: The statuses a method's own result may have (it always carries an allocation).
_STATUSES = (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT)


def _checked_result(
    instance: ReservesInstance, result: ReservesResult, method: str, seconds: float
) -> ReservesResult:
    """A method's own ``ReservesResult``: every reported number checked against its
    allocation and the targets."""
    values = check_allocation(instance, result.allocation, method=method)
    if result.status not in _STATUSES:
        raise InvalidInputError(
            f"{method}: a result with an allocation cannot have status {result.status}; "
            f"allowed: {', '.join(map(str, _STATUSES))}"
        )
    totals = values.mean(axis=0)
    for name, expected in (("class_totals", totals),
                           ("deviation", totals - instance.targets)):
        given = getattr(result, name)
        if given.shape != expected.shape or not np.allclose(
            given, expected, rtol=1e-9, atol=1e-9
        ):
            raise InvalidInputError(
                f"{method}: {name} {given.tolist()} do not match the allocation's "
                f"{np.round(expected, 9).tolist()}"
            )
    for name in ("V", "qp_objective"):
        real_number(f"{method}: the result's {name}", getattr(result, name), at_least=0,
                    optional=True)
    if result.balances is not None and (
        result.balances.shape != (instance.n_classes,)
        or not np.isfinite(result.balances).all()
    ):
        raise InvalidInputError(
            f"{method}: the result's balances must be {instance.n_classes} finite numbers "
            f"(one per class); got {result.balances.tolist()}"
        )
    return replace(result, method=method, seconds=max(result.seconds, float(seconds)))


def result_from_output(
    instance: ReservesInstance, output: Any, *, method: str, seconds: float
) -> ReservesResult:
    """The ``ReservesResult`` of what a user's method returned, checked.

    Parameters
    ----------
    instance : ReservesInstance
        The instance the method was given.
    output : ReservesResult or array_like
        A result (its allocation is checked and it is recorded under ``method``) or
        an allocation ``(nodes, classes)`` in percent.
    method : str
        The method's name as the user gave it (recorded in the result).
    seconds : float
        The method's wall time (kept from a returned result when it reports more).

    Returns
    -------
    ReservesResult

    Raises
    ------
    InvalidInputError
        For an allocation that ``check_allocation`` refuses, or a result whose
        ``class_totals`` or ``deviation`` do not match its allocation and the targets,
        whose ``V`` or ``qp_objective`` is negative or not a number, whose
        ``balances`` are not one finite number per class, or whose status contradicts
        its allocation (``error``, ``infeasible`` or ``no_solution``; a sweep's
        ``completed``).

    Examples
    --------
    >>> from allockit.instances.reserves import ReservesInstance
    >>> inst = ReservesInstance.from_dict({"targets": [50, 50],
    ...     "allocation": [[50, 50]], "usage": [[50, 50]]})
    >>> result_from_output(inst, [[50, 50]], method="m", seconds=0.5).seconds
    0.5
    """
    if isinstance(output, ReservesResult):
        return _checked_result(instance, output, method, seconds)
    values = check_allocation(instance, output, method=method)
    totals = values.mean(axis=0)
    return ReservesResult(
        method=method,
        status=Status.FEASIBLE,
        allocation=values,
        class_totals=totals,
        deviation=totals - instance.targets,
        seconds=float(seconds),
        solve_seconds=float(seconds),
    )
