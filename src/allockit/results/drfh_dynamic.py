"""``DynamicTrace``: the dynamic DRFH simulation's shares and utilisation over time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from allockit.checks import real_number
from allockit.errors import InvalidInputError
from allockit.results.base import Status, readonly_array, readonly_mapping

__all__ = ["DynamicTrace"]


@dataclass(frozen=True, slots=True)
class DynamicTrace:
    """Times, per-user global dominant shares ``(events, users)`` and utilisation.

    ``departures`` maps a user to the time its last task finished. ``status`` is
    ``"completed"`` when every task ran.

    Examples
    --------
    >>> t = DynamicTrace(np.array([0.0]), np.array([[0.5]]), np.array([[0.5, 0.2]]),
    ...                  {"u": 10.0}, ("u",))
    >>> DynamicTrace.from_dict(t.to_dict()).to_dict() == t.to_dict()
    True
    """

    times: np.ndarray
    shares: np.ndarray
    utilization: np.ndarray
    departures: Mapping[str, float]
    user_names: tuple[str, ...]
    seconds: float = 0.0
    status: Status = Status.COMPLETED
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))
        for name in ("times", "shares", "utilization"):
            object.__setattr__(self, name, readonly_array(getattr(self, name), np.float64, name))
        object.__setattr__(self, "departures", readonly_mapping(self.departures))
        object.__setattr__(self, "user_names", tuple(self.user_names))
        object.__setattr__(self, "extra", readonly_mapping(self.extra))
        object.__setattr__(self, "seconds", real_number("seconds", self.seconds, at_least=0))

    def share_at(self, time: float) -> np.ndarray:
        """The shares in force at ``time`` (after the last event at or before it)."""
        k = int(np.searchsorted(self.times, time, side="right")) - 1
        return self.shares[max(k, 0)]

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``from_dict`` rebuilds an equal trace)."""
        return {
            "status": str(self.status),
            "user_names": list(self.user_names),
            "times": self.times.tolist(),
            "shares": self.shares.tolist(),
            "utilization": self.utilization.tolist(),
            "departures": dict(self.departures),
            "seconds": self.seconds,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DynamicTrace:
        """Rebuild a trace from ``to_dict``'s output."""
        try:
            users = len(data["user_names"])
            return cls(
                times=np.asarray(data["times"], dtype=float),
                shares=np.asarray(data["shares"], dtype=float).reshape(-1, users),
                utilization=np.asarray(data["utilization"], dtype=float),
                departures={str(k): float(v) for k, v in data["departures"].items()},
                user_names=tuple(data["user_names"]),
                seconds=float(data["seconds"]),
                status=data.get("status", "completed"),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidInputError(f"dynamic trace object is malformed: {exc}") from exc
