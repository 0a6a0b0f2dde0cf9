"""``ReservesResult``: a new per-node allocation of service classes, in percent."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from allockit.checks import real_number
from allockit.errors import InvalidInputError
from allockit.results.base import SolveStatus, finite_or_none, readonly_array

__all__ = ["ReservesResult"]


@dataclass(frozen=True, slots=True)
class ReservesResult:
    """A new allocation ``R`` (N x S, percent of each node) for the service classes.

    ``class_totals[j]`` is class ``j``'s share of the whole cluster, ``sum_i R_ij / N``
    (percent; capacity-weighted when the rows are groups of nodes), and
    ``deviation[j] = class_totals[j] - targets[j]`` (percentage points). ``V`` is
    cluster reserves' step-1 least deviation in the paper's units,
    ``sum_j |sum_i R_ij - N D_j|`` (so ``V / N`` is ``sum_j |deviation_j|`` before step 3
    hands out unassigned capacity); ``qp_objective`` the step-2 objective
    ``sum_ij (R_ij - (u_ij + k_ij))^2`` at the step-2 allocation. Both are None for the
    bank algorithm, whose ``balances`` are the bank accounts it carries to the next round
    (all zero for the basic version, retention 0). ``build_seconds`` and
    ``solve_seconds`` split ``seconds`` for the exact models.

    Examples
    --------
    >>> r = ReservesResult(method="bank", status="feasible",
    ...     allocation=np.array([[60.0, 40.0]]), class_totals=np.array([60.0, 40.0]),
    ...     deviation=np.array([0.0, 0.0]), balances=np.array([0.0, 0.0]))
    >>> sorted(r.to_dict())[:5]
    ['V', 'allocation', 'balances', 'build_seconds', 'class_totals']
    >>> ReservesResult.from_dict(r.to_dict()).to_dict() == r.to_dict()
    True
    """

    method: str
    status: SolveStatus
    allocation: np.ndarray
    class_totals: np.ndarray
    deviation: np.ndarray
    qp_objective: float | None = None
    V: float | None = None
    balances: np.ndarray | None = None
    seconds: float = 0.0
    build_seconds: float = 0.0
    solve_seconds: float = 0.0
    message: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", SolveStatus(self.status))
        for name in ("allocation", "class_totals", "deviation", "balances"):
            object.__setattr__(self, name, readonly_array(getattr(self, name), np.float64, name))
        for name in ("qp_objective", "V"):
            real_number(name, getattr(self, name), finite=False, optional=True)  # (no "5")
            object.__setattr__(self, name, finite_or_none(getattr(self, name)))
        for name in ("seconds", "build_seconds", "solve_seconds"):
            object.__setattr__(self, name, real_number(name, getattr(self, name), at_least=0))

    def to_dict(self) -> dict[str, Any]:
        """The JSON printed by ``allockit reserves`` (a stable contract).

        Keys: ``problem`` ("reserves"), ``method``, ``status``, ``allocation`` (N rows of
        S percentages), ``deviation``, ``qp_objective``, ``class_totals``, ``seconds``,
        then ``V``, ``balances``, ``build_seconds``, ``solve_seconds`` and, when not
        empty, ``message``.
        """
        out: dict[str, Any] = {
            "problem": "reserves",
            "method": self.method,
            "status": str(self.status),
            "allocation": self.allocation.tolist(),
            "deviation": self.deviation.tolist(),
            "qp_objective": self.qp_objective,
            "class_totals": self.class_totals.tolist(),
            "seconds": self.seconds,
            "V": self.V,
            "balances": None if self.balances is None else self.balances.tolist(),
            "build_seconds": self.build_seconds,
            "solve_seconds": self.solve_seconds,
        }
        if self.message:
            out["message"] = self.message
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReservesResult:
        """Rebuild a result from ``to_dict``'s output.

        Raises
        ------
        InvalidInputError
            If a field is missing or malformed.

        Examples
        --------
        >>> ReservesResult.from_dict({"method": "bank"})
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: reserves result object is malformed: 'class_totals'
        """
        try:
            n_classes = len(data["class_totals"])
            allocation = np.asarray(data["allocation"], dtype=float).reshape(-1, n_classes)
            balances = data.get("balances")
            return cls(
                method=data["method"],
                status=SolveStatus(data["status"]),
                allocation=allocation,
                class_totals=np.asarray(data["class_totals"], dtype=float),
                deviation=np.asarray(data["deviation"], dtype=float),
                qp_objective=data.get("qp_objective"),
                V=data.get("V"),
                balances=None if balances is None else np.asarray(balances, dtype=float),
                seconds=data.get("seconds", 0.0),
                build_seconds=data.get("build_seconds", 0.0),
                solve_seconds=data.get("solve_seconds", 0.0),
                message=data.get("message", ""),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"reserves result object is malformed: {exc}") from exc
