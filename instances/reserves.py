"""Cluster-reserves instances: per-node allocation and usage of service classes, in percent."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from allockit.errors import InvalidInputError

__all__ = ["NODE_TOL", "ReservesInstance", "random_reserves"]

#: Slack (percentage points) on "a node holds at most 100 %" and "targets sum to at most
#: 100 %": measured usage summed over classes may exceed 100 by float round-off.
NODE_TOL = 1e-6

_FIELDS = ("problem", "targets", "allocation", "usage")


def _number(value: Any, field: str, where: str) -> float:
    """``value`` as a float; bools, strings and other non-numbers are refused."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidInputError(
            f"ReservesInstance.{field} must hold numbers; got {value!r} at {where}"
        )
    return float(value)


def _vector(value: Any, field: str) -> np.ndarray:
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence | np.ndarray):
        raise InvalidInputError(
            f"ReservesInstance.{field} must be a list of numbers; got {type(value).__name__}"
        )
    return np.array(
        [_number(v, field, f"(class {j})") for j, v in enumerate(value)], dtype=float
    )


def _matrix(value: Any, field: str, n_classes: int) -> np.ndarray:
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence | np.ndarray):
        raise InvalidInputError(
            f"ReservesInstance.{field} must be a list of rows (one per node); "
            f"got {type(value).__name__}"
        )
    rows = []
    for i, row in enumerate(value):
        if isinstance(row, str | bytes | Mapping) or not isinstance(row, Sequence | np.ndarray):
            raise InvalidInputError(
                f"ReservesInstance.{field} row {i} must be a list of numbers; "
                f"got {row!r} at (node {i})"
            )
        if len(row) != n_classes:
            raise InvalidInputError(
                f"ReservesInstance.{field} row {i} has {len(row)} values; expected "
                f"{n_classes} (one per class in targets) at (node {i})"
            )
        rows.append([_number(v, field, f"(node {i}, class {j})") for j, v in enumerate(row)])
    return np.array(rows, dtype=float).reshape(len(rows), n_classes)


def _as_float_array(value: Any, field: str, ndim: int) -> np.ndarray:
    """Cast an array given to the constructor; refuse bool, object and string dtypes."""
    try:
        raw = np.asarray(value)
    except ValueError as exc:  # ragged nested lists
        raise InvalidInputError(f"ReservesInstance.{field} is ragged: {exc}") from None
    if raw.dtype.kind not in "iuf":
        raise InvalidInputError(
            f"ReservesInstance.{field} must hold numbers; got dtype {raw.dtype} "
            f"(bool, string or ragged input)"
        )
    if raw.ndim != ndim:
        raise InvalidInputError(
            f"ReservesInstance.{field} must have {ndim} dimension(s); got shape {raw.shape}"
        )
    return np.array(raw, dtype=np.float64, copy=True)


def _where(index: tuple[int, ...]) -> str:
    if len(index) == 1:
        return f"(class {index[0]})"
    return f"(node {index[0]}, class {index[1]})"


@dataclass(frozen=True, slots=True)
class ReservesInstance:
    """Per-node allocation ``r`` and usage ``u`` of ``S`` service classes on ``N`` nodes.

    All values are percentages of one node's capacity (Li and Parker; Aron et al.'s
    cluster reserves): ``targets[j]`` is class ``j``'s desired cluster-wide share
    ``D_j``; ``allocation[i, j]`` is ``r_ij`` (what class ``j`` holds on node ``i``) and
    ``usage[i, j]`` is ``u_ij`` (what it used in the last period). Usage may exceed the
    allocation: a work-conserving node hands unused shares to backlogged classes.

    Parameters
    ----------
    targets : array of shape (S,)
        Desired cluster-wide shares, each >= 0, summing to at most 100.
    allocation, usage : arrays of shape (N, S)
        Values >= 0; each node's row sums to at most 100 (within ``NODE_TOL``).

    Raises
    ------
    InvalidInputError
        For a negative, NaN or infinite value, a node or the targets over 100 %, a
        shape mismatch, bool or string values; the message names the field, the value
        and where it is.

    Examples
    --------
    >>> inst = ReservesInstance.from_dict({"problem": "reserves", "targets": [60, 30, 10],
    ...     "allocation": [[60, 30, 10], [60, 30, 10]], "usage": [[66, 34, 0], [60, 30, 10]]})
    >>> inst.n_nodes, inst.n_classes, inst.usage.flags.writeable
    (2, 3, False)
    >>> ReservesInstance.from_dict({"targets": [60, 50], "allocation": [[50, 50]],
    ...                             "usage": [[50, 50]]})
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: ReservesInstance.targets must sum to at most 100; got 110.0

    References
    ----------
    .. [1] N. Li and J. Parker, Cluster Resource Management: A Scalable Approach, Sec. 3.2.
    .. [2] M. Aron, P. Druschel and W. Zwaenepoel (2000), Cluster Reserves.
    """

    targets: np.ndarray
    allocation: np.ndarray
    usage: np.ndarray

    def __post_init__(self) -> None:
        targets = _as_float_array(self.targets, "targets", 1)
        allocation = _as_float_array(self.allocation, "allocation", 2)
        usage = _as_float_array(self.usage, "usage", 2)
        n_classes = targets.shape[0]
        if n_classes == 0:
            raise InvalidInputError("ReservesInstance.targets must name at least one class")
        if allocation.shape[0] == 0:
            raise InvalidInputError("ReservesInstance.allocation must hold at least one node")
        if allocation.shape[1] != n_classes:
            raise InvalidInputError(
                f"ReservesInstance.allocation has {allocation.shape[1]} classes per node; "
                f"targets has {n_classes}"
            )
        if usage.shape != allocation.shape:
            raise InvalidInputError(
                f"ReservesInstance.usage has shape {usage.shape}; allocation has "
                f"{allocation.shape}"
            )
        for field, arr in (("targets", targets), ("allocation", allocation), ("usage", usage)):
            bad = ~np.isfinite(arr)
            if bad.any():
                index = tuple(int(k) for k in np.argwhere(bad)[0])
                raise InvalidInputError(
                    f"ReservesInstance.{field} must be finite; got {arr[index]} at "
                    f"{_where(index)}"
                )
            neg = arr < 0
            if neg.any():
                index = tuple(int(k) for k in np.argwhere(neg)[0])
                raise InvalidInputError(
                    f"ReservesInstance.{field} must be >= 0; got {arr[index]} at "
                    f"{_where(index)}"
                )
        total = float(targets.sum())
        if total > 100 + NODE_TOL:
            raise InvalidInputError(
                f"ReservesInstance.targets must sum to at most 100; got {total}"
            )
        for field, arr in (("allocation", allocation), ("usage", usage)):
            sums = arr.sum(axis=1)
            over = np.flatnonzero(sums > 100 + NODE_TOL)
            if over.size:
                i = int(over[0])
                raise InvalidInputError(
                    f"ReservesInstance.{field} of a node must sum to at most 100; got "
                    f"{float(sums[i])} at (node {i})"
                )
        for name, arr in (("targets", targets), ("allocation", allocation), ("usage", usage)):
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)

    @property
    def n_nodes(self) -> int:
        """Number of nodes ``N``."""
        return int(self.allocation.shape[0])

    @property
    def n_classes(self) -> int:
        """Number of service classes ``S``."""
        return int(self.targets.shape[0])

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReservesInstance:
        """Build from ``{"problem": "reserves", "targets", "allocation", "usage"}``.

        Raises
        ------
        InvalidInputError
            For a missing or unknown field, another ``problem``, ragged rows, or any
            value the constructor refuses.

        Examples
        --------
        >>> ReservesInstance.from_dict({"targets": [50, 50], "allocation": [[50, 50]],
        ...                             "usage": [[50, "x"]]})
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: ReservesInstance.usage must hold numbers; got 'x'...
        """
        if not isinstance(data, Mapping):
            raise InvalidInputError(
                f"reserves instance must be a JSON object; got {type(data).__name__}"
            )
        unknown = sorted(set(data) - set(_FIELDS))
        if unknown:
            raise InvalidInputError(
                f"reserves instance has unknown field {unknown[0]!r}; accepted: "
                f"{', '.join(_FIELDS)}"
            )
        for key in _FIELDS[1:]:
            if key not in data:
                raise InvalidInputError(f"reserves instance is missing field {key!r}")
        if data.get("problem", "reserves") != "reserves":
            raise InvalidInputError(
                f"reserves instance problem must be 'reserves'; got {data.get('problem')!r}"
            )
        targets = _vector(data["targets"], "targets")
        allocation = _matrix(data["allocation"], "allocation", targets.shape[0])
        usage = _matrix(data["usage"], "usage", targets.shape[0])
        if usage.shape[0] != allocation.shape[0]:
            raise InvalidInputError(
                f"ReservesInstance.usage has {usage.shape[0]} rows; allocation has "
                f"{allocation.shape[0]} (one row per node in both)"
            )
        return cls(targets=targets, allocation=allocation, usage=usage)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object read by ``from_dict`` (an exact round trip).

        Examples
        --------
        >>> d = {"problem": "reserves", "targets": [60.0, 40.0],
        ...      "allocation": [[60.0, 40.0]], "usage": [[70.0, 30.0]]}
        >>> ReservesInstance.from_dict(d).to_dict() == d
        True
        """
        return {
            "problem": "reserves",
            "targets": self.targets.tolist(),
            "allocation": self.allocation.tolist(),
            "usage": self.usage.tolist(),
        }



def random_reserves(
    nodes: int, classes: int, *, seed: int | np.random.Generator | None = None
) -> ReservesInstance:
    """A random round: targets, last allocation and usage of ``classes`` on ``nodes``.

    Targets are a uniform random split of 100 % (Dirichlet(1, ..., 1), rounded to 0.01
    with the rounding put on the last class); every node starts at the targets, and
    each node's usage is another random split of a load drawn uniformly in [50, 100] %
    (classes use more or less than they hold, as in Li and Parker's rounds).

    Parameters
    ----------
    nodes : int
        Nodes, >= 1.
    classes : int
        Service classes, >= 1.
    seed : int, numpy.random.Generator or None
        Randomness of the draw.

    Returns
    -------
    ReservesInstance

    Raises
    ------
    InvalidInputError
        If ``nodes`` or ``classes`` is not an integer >= 1.

    Examples
    --------
    >>> inst = random_reserves(3, 2, seed=0)
    >>> inst.allocation.shape, round(float(inst.targets.sum()), 6)
    ((3, 2), 100.0)
    >>> bool((inst.usage.sum(axis=1) <= 100).all())
    True
    """
    from allockit.rng import as_generator

    for name, value in (("nodes", nodes), ("classes", classes)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise InvalidInputError(f"{name} must be an integer >= 1; got {value!r}")
    rng = as_generator(seed)
    targets = np.round(rng.dirichlet(np.ones(classes)) * 100.0, 2)
    targets[-1] = max(0.0, round(100.0 - float(targets[:-1].sum()), 2))
    allocation = np.tile(targets, (nodes, 1))
    load = rng.uniform(50.0, 100.0, size=(nodes, 1))
    usage = np.floor(rng.dirichlet(np.ones(classes), size=nodes) * load * 100.0) / 100.0
    return ReservesInstance(targets=targets, allocation=allocation, usage=usage)
