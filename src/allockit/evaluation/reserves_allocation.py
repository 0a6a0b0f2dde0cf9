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
    try:
        values = np.array(allocation, dtype=float)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"{method}: must return a ReservesResult or an allocation of shape {shape} "
            f"(nodes x classes, percent); got a {type(allocation).__name__}"
        ) from None
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
        ``class_totals`` do not match its allocation.

    Examples
    --------
    >>> from allockit.instances.reserves import ReservesInstance
    >>> inst = ReservesInstance.from_dict({"targets": [50, 50],
    ...     "allocation": [[50, 50]], "usage": [[50, 50]]})
    >>> result_from_output(inst, [[50, 50]], method="m", seconds=0.5).seconds
    0.5
    """
    if isinstance(output, ReservesResult):
        values = check_allocation(instance, output.allocation, method=method)
        totals = values.mean(axis=0)
        if not np.allclose(output.class_totals, totals, rtol=1e-9, atol=1e-9):
            raise InvalidInputError(
                f"{method}: class_totals {output.class_totals.tolist()} do not match the "
                f"allocation's mean shares {totals.tolist()}"
            )
        return replace(output, method=method, seconds=max(output.seconds, float(seconds)))
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
