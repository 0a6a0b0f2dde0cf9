"""The cluster-reserves problem (Aron et al., in Li and Parker Sec. 3.2): data and measures.

``CRProblem`` holds one allocation round's data (previous allocation ``r``, usage ``u``,
targets ``D``, row weights), with the adjustment ``k`` of step 2, the deviation and the
QP objective; the three solvers of ``allockit.models.cluster_reserves`` (Pyomo),
``cluster_reserves_highs`` (HiGHS's own API) and ``cluster_reserves_fast`` (min cut and
Newton) all work on it. See ``allockit.models.cluster_reserves`` for the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from allockit.errors import InvalidInputError
from allockit.instances.reserves import ReservesInstance

__all__ = [
    "CAPACITY",
    "K_CAP",
    "K_GAIN",
    "PENALTIES",
    "CRProblem",
    "adjustment",
    "class_totals",
    "deviation_total",
    "qp_objective",
    "step2_slack",
]


#: Tickets (percent) of one node.
CAPACITY = 100.0
#: Largest step-2 nudge ``|k_ij|`` (percentage points).
K_CAP = 5.0
#: Gain of the step-2 nudge: ``k_ij = 500 (D_j - u_ij) / D_j`` before capping.
K_GAIN = 500.0


def adjustment(
    usage: np.ndarray, targets: np.ndarray, *, cap: float = K_CAP, gain: float = K_GAIN
) -> np.ndarray:
    """Step 2's nudge ``k_ij`` toward the target, from usage ``u`` and targets ``D``.

    ``k = min(cap, gain (D - u) / D)`` if ``u < D``, else ``max(-cap, gain (D - u) / D)``;
    for ``D = 0`` the limit: ``cap`` if ``u = 0``, else ``-cap``.

    Parameters
    ----------
    usage : array (N, S)
    targets : array (S,)
    cap, gain : float
        The paper's 5 and 500.

    Returns
    -------
    numpy.ndarray
        ``k`` of shape (N, S).

    Examples
    --------
    >>> adjustment(np.array([[0.0, 30.0, 12.0]]), np.array([60.0, 30.0, 10.0])).tolist()
    [[5.0, 0.0, -5.0]]
    """
    usage = np.asarray(usage, dtype=float)
    targets = np.asarray(targets, dtype=float)
    safe = np.where(targets > 0, targets, 1.0)
    ratio = gain * (targets - usage) / safe
    k = np.where(usage < targets, np.minimum(cap, ratio), np.maximum(-cap, ratio))
    zero = np.broadcast_to(targets <= 0, k.shape)
    return np.where(zero, np.where(usage > 0, -cap, cap), k)


@dataclass(frozen=True, slots=True)
class CRProblem:
    """The data of one cluster-reserves round, in the form every backend reads.

    ``lower`` and ``upper`` bound ``R`` (``upper = max(u, floor)`` where ``r > u``,
    else 100), ``anchor = u + k`` is step 2's point, ``weights`` the nodes each row
    stands for, ``targets`` the desired shares ``D``, ``idle`` marks ``r > u`` (the
    classes step 3 may give to).

    Examples
    --------
    >>> p = CRProblem.from_arrays([[60, 30, 10]], [[66, 34, 0]], [60, 30, 10])
    >>> p.upper.tolist(), p.goal.tolist()
    ([[100.0, 100.0, 1.0]], [60.0, 30.0, 10.0])
    """

    lower: np.ndarray
    upper: np.ndarray
    anchor: np.ndarray
    weights: np.ndarray
    targets: np.ndarray
    idle: np.ndarray
    floor: float

    @property
    def goal(self) -> np.ndarray:
        """``W D_j``: each class's goal total (percent-nodes)."""
        return float(self.weights.sum()) * self.targets

    @property
    def shape(self) -> tuple[int, int]:
        """``(N, S)``."""
        return self.lower.shape  # type: ignore[return-value]

    @classmethod
    def from_arrays(
        cls,
        allocation: Any,
        usage: Any,
        targets: Any,
        *,
        weights: Any = None,
        floor: float = 1.0,
        k_cap: float = K_CAP,
        k_gain: float = K_GAIN,
        idle: Any = None,
    ) -> CRProblem:
        """Prepare a round from ``r`` (N, S), ``u`` (N, S) and ``D`` (S,) in percent.

        ``idle`` (N, S) overrides the marks ``r > u`` (a manager of managers: a class is
        idle in a child group unless it is short of tickets on one of its nodes).

        Raises
        ------
        InvalidInputError
            For mismatched shapes, weights that are not finite and > 0, or a floor
            that is negative or leaves no room (``S * floor > 100``).
        """
        r = np.asarray(allocation, dtype=float)
        u = np.asarray(usage, dtype=float)
        d = np.asarray(targets, dtype=float)
        if r.ndim != 2 or u.shape != r.shape or d.shape != (r.shape[1],):
            raise InvalidInputError(
                f"cluster reserves needs allocation and usage of shape (N, S) and targets "
                f"of shape (S,); got {r.shape}, {u.shape}, {d.shape}"
            )
        n, s = r.shape
        w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
        if w.shape != (n,) or not np.isfinite(w).all() or (w <= 0).any():
            raise InvalidInputError(
                f"weights must be {n} finite values > 0; got {np.asarray(weights).tolist()}"
            )
        if not (np.isfinite(floor) and floor >= 0 and s * floor <= CAPACITY):
            raise InvalidInputError(
                f"floor must be >= 0 with S * floor <= 100; got {floor!r} for S={s}"
            )
        floor = float(floor)
        if idle is None:
            idle = r > u
        else:
            idle = np.array(idle, dtype=bool)
            if idle.shape != r.shape:
                raise InvalidInputError(f"idle must have shape {r.shape}; got {idle.shape}")
        lower = np.full((n, s), floor)
        upper = np.where(idle, np.maximum(u, floor), CAPACITY)
        anchor = u + adjustment(u, d, cap=k_cap, gain=k_gain)
        arrays = {"lower": lower, "upper": upper, "anchor": anchor, "weights": w,
                  "targets": d.copy(), "idle": idle}
        for value in arrays.values():
            value.setflags(write=False)
        return cls(floor=floor, **arrays)

    @classmethod
    def from_instance(
        cls, instance: ReservesInstance, *, weights: Any = None, floor: float = 1.0
    ) -> CRProblem:
        """Prepare a round from a validated ``ReservesInstance``."""
        return cls.from_arrays(
            instance.allocation, instance.usage, instance.targets, weights=weights, floor=floor
        )


def step2_slack(problem: CRProblem) -> float:
    """Slack added to V in step 2: ``1e-7 + 1e-9 * sum_j W D_j``.

    Parameters
    ----------
    problem : CRProblem
        The round whose goals ``W D_j`` (percent-nodes) scale the slack.

    Returns
    -------
    float
        The slack (percent-nodes).

    Examples
    --------
    >>> step2_slack(CRProblem.from_arrays([[50, 50]], [[50, 50]], [50, 50]))
    2e-07
    """
    return 1e-7 + 1e-9 * float(problem.goal.sum())


def class_totals(allocation: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Each class's share of the cluster, ``sum_i w_i R_ij / W`` (percent).

    Parameters
    ----------
    allocation : array (N, S)
        ``R`` in percent of each row.
    weights : array (N,), optional
        Nodes each row stands for (1 each by default: the plain mean over rows).

    Returns
    -------
    numpy.ndarray
        Shape (S,), percent of the cluster's capacity.

    Examples
    --------
    >>> class_totals(np.array([[40.0, 60.0], [80.0, 20.0]])).tolist()
    [60.0, 40.0]
    >>> class_totals(np.array([[40.0, 60.0], [80.0, 20.0]]), np.array([3.0, 1.0])).tolist()
    [50.0, 50.0]
    """
    allocation = np.asarray(allocation, dtype=float)
    if weights is None:
        return allocation.mean(axis=0)
    weights = np.asarray(weights, dtype=float)
    return weights @ allocation / weights.sum()


def qp_objective(problem: CRProblem, allocation: np.ndarray) -> float:
    """Step 2's objective ``sum_ij w_i (R_ij - (u_ij + k_ij))^2`` at ``allocation``.

    Parameters
    ----------
    problem : CRProblem
        The round: its ``anchor`` is ``u + k`` and its ``weights`` the ``w_i``.
    allocation : array (N, S)
        ``R`` in percent of each row.

    Returns
    -------
    float
        The weighted squared distance (squared percentage points).

    Examples
    --------
    The anchor is ``[[65, 35], [50, 50]]`` (``k = -5, +5`` on the first node):

    >>> p = CRProblem.from_arrays([[50, 50], [50, 50]], [[70, 30], [50, 50]], [50, 50])
    >>> qp_objective(p, np.array([[70.0, 30.0], [30.0, 70.0]]))
    850.0
    >>> qp_objective(p, p.anchor)
    0.0

    References
    ----------
    .. [1] N. Li and J. Parker, Cluster Resource Management: A Scalable Approach,
       Sec. 3.2, step 2 (objective (2)).
    """
    diff = np.asarray(allocation, dtype=float) - problem.anchor
    return float(problem.weights @ (diff * diff).sum(axis=1))


# ---------------------------------------------------------------------------- Pyomo models
#: Exact penalties HiGHS solves step 2 with, in order, before the bound form.
PENALTIES = (1e4, 1e6)


def deviation_total(problem: CRProblem, allocation: np.ndarray) -> float:
    """``sum_j |T_j - W D_j|`` of an allocation (step 1's objective).

    Parameters
    ----------
    problem : CRProblem
        The round: its ``weights`` ``w_i`` and goals ``W D_j``.
    allocation : array (N, S)
        ``R`` in percent of each row.

    Returns
    -------
    float
        The total deviation from the goals, with ``T_j = sum_i w_i R_ij``
        (percent-nodes: 100 is one whole node).

    Examples
    --------
    >>> p = CRProblem.from_arrays([[50, 50]], [[50, 50]], [60, 40])
    >>> deviation_total(p, np.array([[50.0, 50.0]]))
    20.0
    """
    return float(np.abs(problem.weights @ np.asarray(allocation, dtype=float) - problem.goal).sum())
