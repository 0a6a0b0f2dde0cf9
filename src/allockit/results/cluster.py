"""``ClusterSimResult``: one run of the cluster-reserves simulator, with its time series."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from allockit.checks import integer, real_number
from allockit.errors import InvalidInputError
from allockit.results.base import Status, finite_or_none, readonly_array, readonly_mapping

__all__ = ["ClusterSimResult"]

_FLOAT_SERIES = ("times", "shares", "utilisation", "allocated")
_CLASS_STATS = ("targets", "mean", "std", "dropped")
_EVENT_FLOATS = ("event_time", "repair_time", "recovery_time")
_ROLE_INTS = ("role_level", "role_parent", "role_host")


def _nan_list(values: np.ndarray) -> list[float | None]:
    return [finite_or_none(v) for v in values.tolist()]


@dataclass(frozen=True, slots=True)
class ClusterSimResult:
    """What a cluster simulation measured.

    Shares are of the work the cluster served: ``shares[t, j]`` is class ``j``'s
    percentage of all work served in the sample interval ending at ``times[t]``;
    ``allocated[t, j]`` its mean tickets over the live nodes (the cluster-wide
    allocation); ``utilisation[t]`` the busy fraction of the live nodes. ``mean`` and
    ``std`` (population s.d.) are over the samples after ``warmup`` (the config's).
    ``messages`` counts every message sent (lost ones too), ``bytes = messages *
    (9 + 8 S)``, and ``message_counts`` splits them by kind (``report``,
    ``allocation``, ``election``, ``notify``). Per disruption (``event_kind``
    ``"failure"`` of entity ``event_entity``, or ``"restart"`` of class
    ``event_entity``): ``repair_time`` from the failure until the replacement manager
    took over (NaN when no manager died), ``recovery_time`` from the failure (or the
    restart) until every class's share was within the tolerance of its target for
    ``hold`` consecutive samples (NaN: not within the run). ``role_*`` describe the
    final hierarchy (host -1: orphaned); ``reachable_nodes`` counts the live nodes
    connected to the top through live managers at the end.

    Examples
    --------
    >>> r = ClusterSimResult(seconds=0.1, config={"n_nodes": 1}, seed=0,
    ...     targets=[50.0, 50.0], mean=[50.0, 50.0], std=[0.0, 0.0], dropped=[0.0, 0.0],
    ...     times=[0.3], shares=[[50.0, 50.0]], utilisation=[1.0], allocated=[[50.0, 50.0]],
    ...     messages=2, bytes=50, message_counts={"report": 1, "allocation": 1},
    ...     event_kind=(), event_entity=[], event_time=[], repair_time=[],
    ...     recovery_time=[], role_level=[1], role_parent=[-1], role_host=[1],
    ...     live_nodes=1, reachable_nodes=1)
    >>> ClusterSimResult.from_dict(r.to_dict()).to_dict() == r.to_dict()
    True
    """

    seconds: float
    config: Mapping[str, Any]
    seed: int | None
    targets: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    dropped: np.ndarray
    times: np.ndarray
    shares: np.ndarray
    utilisation: np.ndarray
    allocated: np.ndarray
    messages: int
    bytes: int
    message_counts: Mapping[str, int]
    event_kind: tuple[str, ...]
    event_entity: np.ndarray
    event_time: np.ndarray
    repair_time: np.ndarray
    recovery_time: np.ndarray
    role_level: np.ndarray
    role_parent: np.ndarray
    role_host: np.ndarray
    live_nodes: int
    reachable_nodes: int
    n_events: int = 0
    status: Status = Status.COMPLETED
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))
        n_classes = len(self.targets)
        for name in _CLASS_STATS + _FLOAT_SERIES + _EVENT_FLOATS:
            object.__setattr__(self, name, readonly_array(getattr(self, name), np.float64, name))
        for name in ("shares", "allocated"):
            arr = getattr(self, name).reshape(-1, n_classes)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        for name in (*_ROLE_INTS, "event_entity"):
            object.__setattr__(self, name, readonly_array(getattr(self, name), np.int64, name))
        object.__setattr__(self, "event_kind", tuple(self.event_kind))
        self._check_events()
        object.__setattr__(self, "config", readonly_mapping(self.config))
        counts = {k: integer(f"message_counts[{k!r}]", v, minimum=0)
                  for k, v in dict(self.message_counts).items()}
        object.__setattr__(self, "message_counts", readonly_mapping(counts))
        object.__setattr__(self, "extra", readonly_mapping(self.extra))
        for name in ("messages", "bytes", "live_nodes", "reachable_nodes", "n_events"):
            object.__setattr__(self, name, integer(name, getattr(self, name), minimum=0))
        object.__setattr__(self, "seconds", real_number("seconds", self.seconds, at_least=0))
        if self.seed is not None:
            object.__setattr__(self, "seed", integer("seed", self.seed, minimum=0))

    def _check_events(self) -> None:
        """One entry per disruption in every event field; kinds are failure or restart."""
        n = len(self.event_kind)
        for name in ("event_entity", *_EVENT_FLOATS):
            size = getattr(self, name).size
            if size != n:
                raise InvalidInputError(
                    f"{name} must have one entry per event ({n}); got {size}"
                )
        for k, kind in enumerate(self.event_kind):
            if kind not in ("failure", "restart"):
                raise InvalidInputError(
                    f"event_kind[{k}] must be 'failure' or 'restart'; got {kind!r}"
                )

    def summary(self) -> dict[str, Any]:
        """What ``allockit cluster-sim`` prints: per class target, mean and s.d. of the
        cluster-wide share after warm-up, messages, bytes, repair and recovery times,
        seconds (no time series)."""
        return {
            "problem": "cluster-sim",
            "status": str(self.status),
            "targets": self.targets.tolist(),
            "mean": _nan_list(self.mean),
            "std": _nan_list(self.std),
            "messages": self.messages,
            "bytes": self.bytes,
            "message_counts": dict(self.message_counts),
            "events": [
                {
                    "kind": k,
                    "entity": int(e),
                    "time": float(t),
                    "repair_time": finite_or_none(rp),
                    "recovery_time": finite_or_none(rc),
                }
                for k, e, t, rp, rc in zip(
                    self.event_kind, self.event_entity, self.event_time,
                    self.repair_time, self.recovery_time, strict=True,
                )
            ],
            "live_nodes": self.live_nodes,
            "reachable_nodes": self.reachable_nodes,
            "seconds": self.seconds,
        }

    def series_rows(self) -> list[dict[str, float]]:
        """The time series as rows for a CSV: time, share and allocation per class
        (classes numbered from 1, as in the paper's figures), utilisation.

        Examples
        --------
        >>> r = ClusterSimResult.from_dict({"seconds": 0, "config": {}, "seed": None,
        ...     "targets": [100.0], "mean": [100.0], "std": [0.0], "dropped": [0.0],
        ...     "times": [0.3], "shares": [[100.0]], "utilisation": [1.0],
        ...     "allocated": [[100.0]], "messages": 0, "bytes": 0, "message_counts": {},
        ...     "events": [], "roles": {"level": [1], "parent": [-1], "host": [1]},
        ...     "live_nodes": 1, "reachable_nodes": 1})
        >>> r.series_rows()
        [{'time': 0.3, 'share_1': 100.0, 'allocated_1': 100.0, 'utilisation': 1.0}]
        """
        rows = []
        s = len(self.targets)
        for t in range(len(self.times)):
            row = {"time": float(self.times[t])}
            row.update({f"share_{j + 1}": float(self.shares[t, j]) for j in range(s)})
            row.update({f"allocated_{j + 1}": float(self.allocated[t, j]) for j in range(s)})
            row["utilisation"] = float(self.utilisation[t])
            rows.append(row)
        return rows

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``summary()``'s keys plus the time series, the final hierarchy,
        the config and the seed (an exact round trip through ``from_dict``)."""
        out = self.summary()
        out.update(
            {
                "config": dict(self.config),
                "seed": self.seed,
                "dropped": self.dropped.tolist(),
                "times": self.times.tolist(),
                "shares": self.shares.tolist(),
                "utilisation": self.utilisation.tolist(),
                "allocated": self.allocated.tolist(),
                "roles": {
                    "level": self.role_level.tolist(),
                    "parent": self.role_parent.tolist(),
                    "host": self.role_host.tolist(),
                },
                "n_events": self.n_events,
                "extra": dict(self.extra),
            }
        )
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ClusterSimResult:
        """Rebuild a result from ``to_dict``'s output.

        Raises
        ------
        InvalidInputError
            If a field is missing or malformed.
        """
        try:
            events = data["events"]

            def nan(v: Any) -> float:
                return np.nan if v is None else float(v)

            return cls(
                seconds=data["seconds"],
                config=data["config"],
                seed=data["seed"],
                targets=data["targets"],
                mean=[nan(v) for v in data["mean"]],
                std=[nan(v) for v in data["std"]],
                dropped=data["dropped"],
                times=data["times"],
                shares=data["shares"],
                utilisation=data["utilisation"],
                allocated=data["allocated"],
                messages=data["messages"],
                bytes=data["bytes"],
                message_counts=data["message_counts"],
                event_kind=tuple(e["kind"] for e in events),
                event_entity=[e["entity"] for e in events],
                event_time=[e["time"] for e in events],
                repair_time=[nan(e["repair_time"]) for e in events],
                recovery_time=[nan(e["recovery_time"]) for e in events],
                role_level=data["roles"]["level"],
                role_parent=data["roles"]["parent"],
                role_host=data["roles"]["host"],
                live_nodes=data["live_nodes"],
                reachable_nodes=data["reachable_nodes"],
                n_events=data.get("n_events", 0),
                status=data.get("status", "completed"),
                extra=data.get("extra", {}),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"cluster-sim result object is malformed: {exc}") from exc
