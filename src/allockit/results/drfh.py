"""``DRFHResult``: a DRFH allocation, per user its tasks, dominant share and resources."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from allockit.checks import real_number
from allockit.errors import InvalidInputError
from allockit.results.base import SolveStatus, readonly_array

__all__ = ["DRFHResult"]


@dataclass(frozen=True, slots=True)
class DRFHResult:
    """A DRFH allocation: per user its tasks, global dominant share and resources.

    ``allocation[i, l]`` is the resource vector (input units) user ``i`` gets on server
    entry ``l`` (a class entry gets its class total); ``tasks[i]`` may be fractional for
    the divisible mechanisms (LP, progressive filling); ``dominant_share[i]`` is
    ``G_i = sum_l g_il``; ``utilization[r]`` the used fraction of resource ``r``.

    Attributes
    ----------
    method : str
        The mechanism's name (``"lp"``, ``"first-fit"``, ...).
    status : SolveStatus
        ``optimal`` for the LP and progressive filling, ``feasible`` for the
        heuristics; any string naming a status is converted.
    user_names, server_names, resources : tuple of str
        Names of the users, server entries (servers or classes) and resources.
    tasks : numpy.ndarray, shape (n_users,)
        Tasks scheduled per user.
    dominant_share : numpy.ndarray, shape (n_users,)
        Global dominant share ``G_i`` in [0, 1] (a fraction of the pool's total).
    allocation : numpy.ndarray, shape (n_users, n_servers, n_resources)
        Resources given to each user on each server entry, in input units.
    utilization : numpy.ndarray, shape (n_resources,)
        Fraction of each resource's total capacity that is allocated, in [0, 1].
    seconds : float
        Wall time of the mechanism in seconds.
    message : str
        Why a status is not ``optimal``/``feasible``, if it needs saying.

    Examples
    --------
    One user with demand (0.2, 0.1) on one unit server: 2 tasks give it 0.4 of the CPU.

    >>> r = DRFHResult(method="first-fit", status="feasible", user_names=("a",),
    ...                server_names=("s0",), resources=("cpu", "mem"),
    ...                tasks=np.array([2.0]), dominant_share=np.array([0.4]),
    ...                allocation=np.array([[[0.4, 0.2]]]), utilization=np.array([0.4, 0.2]))
    >>> r.status, r.tasks.flags.writeable
    (<Status.FEASIBLE: 'feasible'>, False)
    >>> r.to_dict()["users"]
    [{'name': 'a', 'tasks': 2.0, 'dominant_share': 0.4, 'allocation': [[0.4, 0.2]]}]
    """

    method: str
    status: SolveStatus
    user_names: tuple[str, ...]
    server_names: tuple[str, ...]
    resources: tuple[str, ...]
    tasks: np.ndarray
    dominant_share: np.ndarray
    allocation: np.ndarray
    utilization: np.ndarray
    seconds: float = 0.0
    message: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", SolveStatus(self.status))
        for name in ("tasks", "dominant_share", "allocation", "utilization"):
            object.__setattr__(self, name, readonly_array(getattr(self, name), np.float64, name))
        object.__setattr__(self, "seconds", real_number("seconds", self.seconds, at_least=0))

    def to_dict(self) -> dict[str, Any]:
        """The JSON printed by ``allockit drfh`` (a stable contract)."""
        out: dict[str, Any] = {
            "problem": "drfh",
            "method": self.method,
            "status": str(self.status),
            "users": [
                {"name": n, "tasks": float(t), "dominant_share": float(g), "allocation": a.tolist()}
                for n, t, g, a in zip(
                    self.user_names, self.tasks, self.dominant_share, self.allocation, strict=True
                )
            ],
            "utilization": self.utilization.tolist(),
            "servers": list(self.server_names),
            "resources": list(self.resources),
            "seconds": self.seconds,
        }
        if self.message:
            out["message"] = self.message
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DRFHResult:
        """Rebuild a result from ``to_dict``'s output.

        Examples
        --------
        >>> r = DRFHResult(method="lp", status="optimal", user_names=("a",),
        ...                server_names=("s0",), resources=("cpu", "mem"),
        ...                tasks=np.array([2.0]), dominant_share=np.array([0.4]),
        ...                allocation=np.array([[[0.4, 0.2]]]), utilization=np.array([0.4, 0.2]))
        >>> DRFHResult.from_dict(r.to_dict()).to_dict() == r.to_dict()
        True
        """
        try:
            users = data["users"]
            return cls(
                method=data["method"],
                status=SolveStatus(data["status"]),
                user_names=tuple(u["name"] for u in users),
                server_names=tuple(data["servers"]),
                resources=tuple(data["resources"]),
                tasks=np.asarray([u["tasks"] for u in users], dtype=float),
                dominant_share=np.asarray([u["dominant_share"] for u in users], dtype=float),
                allocation=np.asarray(
                    [u["allocation"] for u in users], dtype=float
                ).reshape(len(users), len(data["servers"]), len(data["resources"])),
                utilization=np.asarray(data["utilization"], dtype=float),
                seconds=data.get("seconds", 0.0),
                message=data.get("message", ""),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"result object is malformed: {exc}") from exc
