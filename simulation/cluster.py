"""The cluster simulator of Li and Parker's experiments, on the event core.

``N`` nodes serve ``S`` service classes; a dispatcher sends each class's requests to
the nodes its pattern allows (``allockit.simulation.cluster_nodes``: Poisson requests,
ideal work-conserving proportional sharing on every node). Managers, arranged in a tree
(``allockit.simulation.hierarchy``), reallocate the tickets periodically:

- every node reports its usage over the last period (percent of the node, one message
  of ``9 + 8 S`` bytes) to its level-1 manager every ``node_period`` seconds;
- every manager, every ``manager_period`` seconds, runs the allocation algorithm over
  its children with the latest reports (a child silent for ``detect_periods`` of its
  periods is left out), sends each child its new allocation (one message each) and
  reports its group's aggregated usage and size to its parent (one message);
- a level-1 manager's children are nodes: it computes their tickets (the rows of
  ``bank_round`` or cluster reserves, weight 1 each) toward its own targets;
- an upper-level manager's children are managers: it runs the *same* algorithm with
  each child as one row weighted by the child's number of live nodes, the child's
  aggregated usage as the row's usage and the targets it last sent the child as the
  row's allocation; the result (percent of the child's capacity) becomes the child's
  new targets. The top manager's targets are the cluster targets. A flat tree
  (``fanout=()``) is the centralised manager.
- "needy" at a group: a group's aggregated usage of a class is below the target it
  was given whenever its own manager has not yet moved that share to the nodes that
  use it, so the node rule ``u >= r - needy_tol`` would starve a group with demand.
  Instead every report carries flags in its 9-byte header. A node applies the paper's
  test itself, against the tickets it actually held over the period (time-averaged,
  so a report that straddles an allocation change is judged fairly): per class
  *needy* (``u >= held - needy_tol``) and *waiting* (work in its queue). A level-1
  manager uses its nodes' needy bits as the bank algorithm's needy marks
  (``bank_round(needy=...)``; for cluster reserves a class that is not needy is
  idle, ``solve_cluster_reserves(idle=...)``), and flags upward a class that is
  needy and waiting on one of its nodes; a higher manager flags a class one of its
  children flagged and uses its children's flags the same way.

Messages take ``delay`` seconds; a report from a node to the manager role it hosts
itself is local (no message). With ``skew=False`` every node reports at ``k *
node_period`` and level-``l`` managers act at ``k * manager_period + 2 l delay`` (just
after their children's reports arrive); with ``skew=True`` each node's phase is drawn
on the tick grid in ``[0, node_period)`` and each manager's in ``[0, manager_period)``.

Failures: entity ``e`` (a node, ``e < N``, or the dedicated machine ``N + k`` of role
``k``) fails at a given time. A failed node stops serving (its queue is lost; the
dispatcher avoids it at once). A manager role whose host died is detected by its
children ``detect_periods * manager_period`` later; they elect a replacement by the
rule of ``Hierarchy.repair`` (election and notification messages counted), which takes
over one ``delay`` later. The replacement of a failed manager starts with the
children's current allocations (carried by their election messages), the cluster
targets and empty accounts; a manager handed down keeps its state (sent with the
notification). ``static`` runs keep the initial allocation and send no message.

Noise (off by default; the nodes are otherwise ideal fluids, so the only noise is the
algorithm's own): with ``measure_noise = sigma > 0`` every usage a node reports, per
class, is its measured usage plus an independent normal error N(0, sigma^2) in
percentage points, clipped to [0, 100] (the node's needy test uses the same noisy
value); with ``report_jitter = J > 0`` every report message (node to manager, manager
to parent) takes ``delay + U(0, J)`` seconds instead of ``delay``, independently per
message, so a report may miss its manager's round. Both draw from a child of the run's
generator (``Generator.spawn``), made only when one of them is on: a run with both at
0 draws exactly what it drew before the options existed.

Recovery: after a failure (from its repair) or a restart of a stopped class, the time
until every class's share is within ``tolerance`` percentage points of its target for
``hold`` consecutive samples, counted from the failure or the restart.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from allockit.checks import integer, is_real, real_number
from allockit.errors import InvalidInputError
from allockit.heuristics.bank import BankPolicy, bank_round, largest_remainder
from allockit.results import ClusterSimResult
from allockit.rng import as_generator
from allockit.simulation.cluster_nodes import NodeState
from allockit.simulation.events import EventQueue
from allockit.simulation.hierarchy import Hierarchy

__all__ = [
    "ALGORITHMS",
    "ClusterSimConfig",
    "allowed_mask",
    "initial_tickets",
    "message_bytes",
    "simulate_cluster",
]

#: Allocation algorithms of the simulator.
ALGORITHMS = ("static", "bank", "cluster-reserves")

# event priorities at equal times: failures and dispatcher changes first, then
# arrivals, deliveries, reports, manager rounds, samples, repairs
_P_FAIL, _P_TICK, _P_DELIVER, _P_REPORT, _P_ROUND, _P_SAMPLE, _P_REPAIR = range(7)


def message_bytes(n_classes: int) -> int:
    """Size of one message: a 9-byte header and 8 bytes per class (Li and Parker).

    Parameters
    ----------
    n_classes : int
        Service classes ``S``.

    Returns
    -------
    int
        ``9 + 8 S`` bytes.

    Raises
    ------
    InvalidInputError
        If ``n_classes`` is not an integer >= 1.

    Examples
    --------
    >>> message_bytes(3)
    33

    References
    ----------
    .. [1] N. Li and J. Parker, Cluster Resource Management: A Scalable Approach, Sec. 4.
    """
    return 9 + 8 * integer("n_classes", n_classes, minimum=1)


#: Most nodes a cluster simulation takes (its per-node state is held in memory).
MAX_NODES = 10**7

#: Most ticks, samples or periods one run may take (``duration`` over each period).
MAX_STEPS = 10_000_000


def _positive(value: Any, name: str, *, zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidInputError(f"ClusterSimConfig.{name} must be a number; got {value!r}")
    value = float(value)
    ok = value >= 0 if zero else value > 0
    if not (math.isfinite(value) and ok):
        raise InvalidInputError(
            f"ClusterSimConfig.{name} must be a finite number {'>=' if zero else '>'} 0; "
            f"got {value!r}"
        )
    return value


def _tuple(value: Any, name: str) -> tuple[Any, ...]:
    """``value`` (a sequence, not a string) as a tuple, or an error naming the field."""
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise InvalidInputError(f"ClusterSimConfig.{name} must be a sequence; got {value!r}")
    return tuple(value)


def _entry(item: Any, name: str, size: int) -> tuple[Any, ...]:
    """One entry of ``failures`` or ``stops``: a sequence of ``size`` values."""
    item = _tuple(item, f"{name} entry")
    if len(item) != size:
        raise InvalidInputError(
            f"ClusterSimConfig.{name} entries must have {size} values; got {list(item)}"
        )
    return item


def _int(value: Any, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise InvalidInputError(f"ClusterSimConfig.{name} must be an integer >= {low}; "
                                f"got {value!r}")
    return int(value)


@dataclass(frozen=True, slots=True)
class ClusterSimConfig:
    """Everything one cluster simulation needs but its seed.

    Parameters
    ----------
    n_nodes : int
        Nodes ``N``.
    targets : tuple of float
        Cluster-wide targets ``D`` (percent; ``S`` classes).
    fanout : tuple of int
        Manager tree (``Hierarchy.build``): ``()`` flat (centralised), ``(10,)`` ten
        nodes per level-1 manager under one top manager, ...
    algorithm : {"static", "bank", "cluster-reserves"}
    load : tuple of float
        Offered load per class, as a fraction of the capacity of the nodes the class
        may use (default 1 each: every class alone would saturate its nodes).
    service : float or tuple of float
        Work of one request (node-seconds).
    dispatch : tuple
        Per class, where the dispatcher may send it: ``None`` (every node), an int
        ``k`` (the first ``k`` nodes) or a tuple of node ids. Default: every node.
    node_period, manager_period : float
        Reporting periods (s).
    skew : bool
        Skewed (random, seeded) instead of aligned reporting phases.
    delay : float
        Message delay (s).
    duration, warmup : float
        Simulated seconds and the start-up period left out of the statistics.
    tick : float
        Arrival batching interval (s).
    sample_period : float
        Interval of the share time series (s).
    queue_limit : float
        Largest backlog per class and node (node-seconds); the rest is dropped.
    failures : tuple of (entity, time)
        Entities to fail: nodes ``0..N-1``, manager machines ``N + role``.
    stops : tuple of (class, start, end)
        The dispatcher stops sending a class from ``start`` until ``end`` (Fig. 8).
    detect_periods : float
        Missed periods before a silent child or manager is given up.
    bank_policy : BankPolicy
        Policy of every bank manager.
    cr_floor : float
        Cluster reserves' least share per class and row.
    static_allocation : tuple of tuples, optional
        Initial (and, for ``static``, permanent) tickets: one row of ``S`` values, or
        one row per node. Default: the targets scaled to 100 and rounded.
    tolerance : float
        Recovery tolerance (percentage points).
    hold : int
        Consecutive samples within tolerance that count as recovered.
    measure_noise : float
        Standard deviation (percentage points, in [0, 100]; default 0: off) of the
        normal error added to every reported usage, per node and class.
    report_jitter : float
        Largest extra delay (s, >= 0; default 0: off) of a report message: each takes
        ``delay + U(0, report_jitter)``.

    Raises
    ------
    InvalidInputError
        For any value out of range, naming the field.

    Examples
    --------
    >>> cfg = ClusterSimConfig(n_nodes=4, dispatch=(None, None, (3,)), algorithm="static")
    >>> ClusterSimConfig.from_dict(cfg.to_dict()) == cfg
    True
    """

    n_nodes: int
    targets: tuple[float, ...] = (60.0, 30.0, 10.0)
    fanout: tuple[int, ...] = ()
    algorithm: str = "bank"
    load: tuple[float, ...] | None = None
    service: float | tuple[float, ...] = 0.01
    dispatch: tuple[Any, ...] | None = None
    node_period: float = 0.3
    manager_period: float = 0.3
    skew: bool = False
    delay: float = 0.001
    duration: float = 60.0
    warmup: float = 10.0
    tick: float = 0.02
    sample_period: float = 0.3
    queue_limit: float = 0.5
    failures: tuple[tuple[int, float], ...] = ()
    stops: tuple[tuple[int, float, float], ...] = ()
    detect_periods: float = 3.0
    bank_policy: BankPolicy = field(default_factory=BankPolicy)
    cr_floor: float = 1.0
    static_allocation: tuple[tuple[float, ...], ...] | None = None
    tolerance: float = 2.0
    hold: int = 3
    measure_noise: float = 0.0
    report_jitter: float = 0.0

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        n = _int(self.n_nodes, "n_nodes", 1)
        if n > MAX_NODES:
            raise InvalidInputError(
                f"ClusterSimConfig.n_nodes must be at most {MAX_NODES:,}; got {n}"
            )
        targets = tuple(
            real_number(f"ClusterSimConfig.targets[{k}]", t)
            for k, t in enumerate(_tuple(self.targets, "targets"))
        )
        s = len(targets)
        if s == 0 or any(not (math.isfinite(t) and t >= 0) for t in targets) or (
            sum(targets) > 100 + 1e-6
        ):
            raise InvalidInputError(
                f"ClusterSimConfig.targets must be >= 0 and sum to at most 100; got "
                f"{list(targets)}"
            )
        set_(self, "targets", targets)
        set_(self, "fanout", tuple(_int(f, "fanout", 2) for f in _tuple(self.fanout, "fanout")))
        if self.algorithm not in ALGORITHMS:
            raise InvalidInputError(
                f"ClusterSimConfig.algorithm must be one of {list(ALGORITHMS)}; got "
                f"{self.algorithm!r}"
            )
        load = (1.0,) * s if self.load is None else _tuple(self.load, "load")
        if len(load) != s:
            raise InvalidInputError(
                f"ClusterSimConfig.load needs one value per class ({s}); got {list(load)}"
            )
        set_(self, "load", tuple(_positive(v, "load", zero=True) for v in load))
        service = self.service
        service = (service,) * s if is_real(service) else _tuple(service, "service")
        if len(service) != s:
            raise InvalidInputError(
                f"ClusterSimConfig.service needs one value per class ({s}); got {service}"
            )
        set_(self, "service", tuple(_positive(v, "service") for v in service))
        dispatch = (None,) * s if self.dispatch is None else _tuple(self.dispatch, "dispatch")
        if len(dispatch) != s:
            raise InvalidInputError(
                f"ClusterSimConfig.dispatch needs one entry per class ({s}); got "
                f"{len(dispatch)}"
            )
        norm: list[Any] = []
        for j, d in enumerate(dispatch):
            if d is None:
                norm.append(None)
            elif isinstance(d, int | np.integer) and not isinstance(d, bool):
                if not 1 <= d <= n:
                    raise InvalidInputError(
                        f"ClusterSimConfig.dispatch of class {j} must be in [1, {n}]; got {d}"
                    )
                norm.append(int(d))
            else:
                ids = tuple(
                    integer(f"ClusterSimConfig.dispatch of class {j}: node id", i, minimum=0)
                    for i in _tuple(d, f"dispatch of class {j}")
                )
                if not ids or any(not 0 <= i < n for i in ids):
                    raise InvalidInputError(
                        f"ClusterSimConfig.dispatch of class {j} must list node ids in "
                        f"[0, {n - 1}]; got {list(ids)}"
                    )
                norm.append(ids)
        set_(self, "dispatch", tuple(norm))
        for name in ("node_period", "manager_period", "duration", "tick", "sample_period",
                     "queue_limit", "detect_periods", "tolerance"):
            set_(self, name, _positive(getattr(self, name), name))
        for name in ("delay", "warmup", "cr_floor", "measure_noise", "report_jitter"):
            set_(self, name, _positive(getattr(self, name), name, zero=True))
        if self.measure_noise > 100:
            raise InvalidInputError(
                "ClusterSimConfig.measure_noise must be at most 100 (percentage points); "
                f"got {self.measure_noise!r}"
            )
        for name in ("tick", "sample_period", "node_period", "manager_period"):
            if self.duration / getattr(self, name) > MAX_STEPS:
                raise InvalidInputError(
                    f"ClusterSimConfig.{name} {getattr(self, name)!r} s: duration "
                    f"{self.duration:g} s would take more than {MAX_STEPS:,} of them"
                )
        if self.warmup >= self.duration:
            raise InvalidInputError(
                f"ClusterSimConfig.warmup must be below duration ({self.duration}); got "
                f"{self.warmup}"
            )
        if self.sample_period > self.duration - self.warmup:
            raise InvalidInputError(
                f"ClusterSimConfig.sample_period must be at most duration - warmup "
                f"({self.duration - self.warmup:g} s: no sample would be measured after "
                f"the warm-up); got {self.sample_period!r}"
            )
        if self.tick > self.duration:
            raise InvalidInputError(
                f"ClusterSimConfig.tick must be at most duration ({self.duration:g} s); got "
                f"{self.tick!r}"
            )
        set_(self, "hold", _int(self.hold, "hold", 1))
        if not isinstance(self.skew, bool):
            raise InvalidInputError(f"ClusterSimConfig.skew must be a bool; got {self.skew!r}")
        if not isinstance(self.bank_policy, BankPolicy):
            raise InvalidInputError(
                f"ClusterSimConfig.bank_policy must be a BankPolicy; got {self.bank_policy!r}"
            )
        if s * self.cr_floor > 100:
            raise InvalidInputError(
                f"ClusterSimConfig.cr_floor must satisfy S * floor <= 100; got {self.cr_floor}"
            )
        fails = []
        for item in _tuple(self.failures, "failures"):
            entity, at = _entry(item, "failures", 2)
            entity = _int(entity, "failures entity", 0)
            at = _positive(at, "failures time", zero=True)
            if at >= self.duration:
                raise InvalidInputError(
                    f"ClusterSimConfig.failures time must be below duration ({self.duration:g} "
                    f"s); got {at:g}"
                )
            fails.append((entity, at))
        set_(self, "failures", tuple(fails))
        stops = []
        for item in _tuple(self.stops, "stops"):
            cls, start, end = _entry(item, "stops", 3)
            cls = _int(cls, "stops class", 0)
            if cls >= s:
                raise InvalidInputError(
                    f"ClusterSimConfig.stops class must be in [0, {s - 1}]; got {cls}"
                )
            start = _positive(start, "stops start", zero=True)
            end = _positive(end, "stops end")
            if start >= self.duration:
                raise InvalidInputError(
                    f"ClusterSimConfig.stops start must be below duration ({self.duration:g} "
                    f"s); got {start:g}"
                )
            if end <= start:
                raise InvalidInputError(
                    f"ClusterSimConfig.stops end must follow start; got {start} -> {end}"
                )
            stops.append((cls, start, end))
        set_(self, "stops", tuple(stops))
        if self.static_allocation is not None:
            rows = np.array(self.static_allocation, dtype=float)
            if rows.ndim == 1:
                rows = rows[None, :]
            if rows.ndim != 2 or rows.shape[1] != s or rows.shape[0] not in (1, n):
                raise InvalidInputError(
                    f"ClusterSimConfig.static_allocation must have 1 or {n} rows of {s} "
                    f"values; got shape {rows.shape}"
                )
            if not np.isfinite(rows).all() or (rows < 0).any() or (
                rows.sum(axis=1) > 100 + 1e-6
            ).any():
                raise InvalidInputError(
                    "ClusterSimConfig.static_allocation rows must be >= 0 and sum to at "
                    "most 100"
                )
            set_(self, "static_allocation", tuple(tuple(r) for r in rows.tolist()))

    @property
    def n_classes(self) -> int:
        """Service classes ``S``."""
        return len(self.targets)

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``from_dict`` reads it back)."""
        out: dict[str, Any] = {}
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if name == "bank_policy":
                value = value.to_dict()
            elif name == "dispatch":
                value = [list(d) if isinstance(d, tuple) else d for d in value]
            elif isinstance(value, tuple):
                value = [list(v) if isinstance(v, tuple) else v for v in value]
            out[name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ClusterSimConfig:
        """Build from ``to_dict``'s output; unknown keys are refused.

        Raises
        ------
        InvalidInputError
            For an unknown key or a bad value.
        """
        names = list(cls.__dataclass_fields__)
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise InvalidInputError(
                f"ClusterSimConfig has no field {unknown[0]!r}; accepted: {', '.join(names)}"
            )
        kw = dict(data)
        if isinstance(kw.get("bank_policy"), Mapping):
            kw["bank_policy"] = BankPolicy.from_dict(kw["bank_policy"])
        for name in ("targets", "fanout", "load", "service"):
            if isinstance(kw.get(name), list):
                kw[name] = tuple(kw[name])
        if kw.get("dispatch") is not None:
            kw["dispatch"] = tuple(tuple(d) if isinstance(d, list) else d
                                   for d in kw["dispatch"])
        for name in ("failures", "stops", "static_allocation"):
            if kw.get(name) is not None:
                kw[name] = tuple(tuple(v) for v in kw[name])
        return cls(**kw)


def allowed_mask(config: ClusterSimConfig) -> np.ndarray:
    """Where the dispatcher may send each class: a boolean (S, N) array.

    Parameters
    ----------
    config : ClusterSimConfig
        Its ``dispatch`` names, per class, every node (``None``), the first ``k`` nodes
        (an int) or a tuple of node ids.

    Returns
    -------
    numpy.ndarray
        Shape (S, N): ``mask[j, i]`` is True when class ``j`` may be sent to node ``i``.

    Examples
    --------
    >>> allowed_mask(ClusterSimConfig(4, dispatch=(None, 2, (3,)))).astype(int).tolist()
    [[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 0, 1]]
    """
    n, s = config.n_nodes, config.n_classes
    mask = np.zeros((s, n), dtype=bool)
    for j, d in enumerate(config.dispatch):
        if d is None:
            mask[j] = True
        elif isinstance(d, int):
            mask[j, :d] = True
        else:
            mask[j, list(d)] = True
    return mask


def initial_tickets(config: ClusterSimConfig) -> np.ndarray:
    """The tickets every node starts with (and keeps under ``static``): (N, S).

    Default: the targets scaled to 100 tickets and rounded by largest remainders.

    Parameters
    ----------
    config : ClusterSimConfig
        Its ``static_allocation`` (one row for every node, or one row per node) if
        given, else its ``targets`` (percent).

    Returns
    -------
    numpy.ndarray
        Shape (N, S), tickets (percent of each node); a new array.

    Examples
    --------
    >>> initial_tickets(ClusterSimConfig(2, targets=(50, 25))).tolist()
    [[67.0, 33.0], [67.0, 33.0]]
    >>> initial_tickets(ClusterSimConfig(2, static_allocation=((70, 20, 10),))).tolist()
    [[70.0, 20.0, 10.0], [70.0, 20.0, 10.0]]
    """
    n, s = config.n_nodes, config.n_classes
    if config.static_allocation is not None:
        rows = np.array(config.static_allocation, dtype=float)
        return np.broadcast_to(rows, (n, s)).copy()
    d = np.array(config.targets, dtype=float)
    d = d * 100.0 / d.sum() if d.sum() > 0 else np.full(s, 100.0 / s)
    return np.broadcast_to(largest_remainder(d[None, :]), (n, s)).copy()


class _Simulation:
    """State and event handlers of one run (see the module docstring)."""

    def __init__(self, config: ClusterSimConfig, rng: np.random.Generator) -> None:
        self.cfg = cfg = config
        self.rng = rng
        self.N, self.S = cfg.n_nodes, cfg.n_classes
        self.D = np.array(cfg.targets, dtype=float)
        self.queue = EventQueue()
        self.h = Hierarchy.build(self.N, cfg.fanout)
        for entity, _ in cfg.failures:
            if entity >= self.h.n_entities:
                raise InvalidInputError(
                    f"ClusterSimConfig.failures entity must be in [0, {self.h.n_entities - 1}]"
                    f" (nodes 0..{self.N - 1}, managers {self.N}..); got {entity}"
                )
        tickets = initial_tickets(cfg)
        self.nodes = NodeState(tickets, np.array(cfg.load), np.array(cfg.service),
                               allowed_mask(cfg), cfg.queue_limit, rng)
        self.messages: Counter[str] = Counter()
        self.n_events = 0
        # measurement noise and report jitter: their own stream, made only when on
        noisy = cfg.measure_noise > 0 or cfg.report_jitter > 0
        self.noise_rng = rng.spawn(1)[0] if noisy else None
        self.last_report = np.zeros(self.N)
        self.served_at_report = np.zeros((self.N, self.S))
        self.tickets_at_report = np.zeros((self.N, self.S))
        self.served_at_sample = np.zeros((self.N, self.S))
        self.last_sample = 0.0
        h = self.h
        self.child_ids = [np.array(c, dtype=np.int64) for c in h.children]
        self.pos = np.zeros(self.N, dtype=np.int64)  # node -> position in its group
        self.role_pos = np.zeros(h.n_roles, dtype=np.int64)  # role -> position at parent
        for role, kids in enumerate(h.children):
            for k, c in enumerate(kids):
                if h.level[role] == 1:
                    self.pos[c] = k
                else:
                    self.role_pos[c] = k
        self.targets = [self.D.copy() for _ in range(h.n_roles)]
        self.usage = [np.zeros((len(c), self.S)) for c in h.children]
        self.recv = [np.full(len(c), -np.inf) for c in h.children]
        self.weight = [np.ones(len(c)) for c in h.children]
        self.flags = [
            np.zeros((len(c), (2 if h.level[role] == 1 else 1) * self.S), dtype=bool)
            for role, c in enumerate(h.children)
        ]
        self.sent = []
        for role, kids in enumerate(h.children):
            if h.level[role] == 1:
                self.sent.append(tickets[self.child_ids[role]].copy())
            else:
                self.sent.append(np.tile(self.D, (len(kids), 1)))
        self.balance = [np.zeros(self.S) for _ in range(h.n_roles)]
        self.times: list[float] = []
        self.shares: list[np.ndarray] = []
        self.util: list[float] = []
        self.alloc: list[np.ndarray] = []
        # disruptions: kind, entity, time, repair time
        self.events: list[list[Any]] = []

    # ------------------------------------------------------------------ scheduling
    def schedule(self) -> None:
        cfg, q, h = self.cfg, self.queue, self.h
        q.schedule(0.0, "tick", priority=_P_TICK)
        q.schedule(cfg.sample_period, "sample", priority=_P_SAMPLE)
        for entity, at in cfg.failures:
            q.schedule(at, "fail", entity, priority=_P_FAIL)
        for cls, start, end in cfg.stops:
            q.schedule(start, "stop", cls, priority=_P_FAIL)
            q.schedule(end, "restart", cls, priority=_P_FAIL)
        if cfg.algorithm == "static":
            return
        if cfg.skew:
            grid = max(1, round(cfg.node_period / cfg.tick))
            phase = self.rng.integers(0, grid, size=self.N) * (cfg.node_period / grid)
            role_phase = self.rng.uniform(0.0, cfg.manager_period, size=h.n_roles)
        else:
            phase = np.zeros(self.N)
            role_phase = np.array([2 * lv * cfg.delay for lv in h.level], dtype=float)
        groups: dict[float, list[int]] = {}
        for i, p in enumerate(phase.tolist()):
            groups.setdefault(p, []).append(i)
        for p, members in sorted(groups.items()):
            q.schedule(p + cfg.node_period, "report", np.array(members), priority=_P_REPORT)
        for role in range(h.n_roles):
            q.schedule(role_phase[role] + cfg.manager_period, "round", role, priority=_P_ROUND)

    # ------------------------------------------------------------------ handlers
    def handle(self, ev: Any) -> None:
        self.n_events += 1
        getattr(self, "_on_" + ev.kind)(ev)

    def _on_tick(self, ev: Any) -> None:
        now, cfg = self.queue.now, self.cfg
        self.nodes.arrive(now, cfg.tick)
        if now + cfg.tick < cfg.duration:
            self.queue.schedule(now + cfg.tick, "tick", priority=_P_TICK)

    def _on_sample(self, ev: Any) -> None:
        now, nodes = self.queue.now, self.nodes
        nodes.advance(now)
        delta = nodes.served - self.served_at_sample
        per_class = delta.sum(axis=0)
        total = per_class.sum()
        live = int(nodes.alive.sum())
        dt = now - self.last_sample
        self.times.append(now)
        self.shares.append(per_class / total * 100.0 if total > 0 else np.full(self.S, np.nan))
        self.util.append(total / (live * dt) if live and dt > 0 else 0.0)
        alive_tickets = nodes.tickets[nodes.alive]
        self.alloc.append(alive_tickets.mean(axis=0) if len(alive_tickets) else
                          np.full(self.S, np.nan))
        self.served_at_sample = nodes.served.copy()
        self.last_sample = now
        if now + self.cfg.sample_period <= self.cfg.duration + 1e-9:
            self.queue.schedule(now + self.cfg.sample_period, "sample", priority=_P_SAMPLE)

    def _on_report(self, ev: Any) -> None:
        now, cfg, h, nodes = self.queue.now, self.cfg, self.h, self.nodes
        self.queue.schedule(now + cfg.node_period, "report", ev.data, priority=_P_REPORT)
        members = ev.data[nodes.alive[ev.data]]
        if members.size == 0:
            return
        nodes.advance(now)
        span = now - self.last_report[members]
        usage = (nodes.served[members] - self.served_at_report[members]) * 100.0 / span[:, None]
        held = (nodes.ticket_time[members] - self.tickets_at_report[members]) / span[:, None]
        self.served_at_report[members] = nodes.served[members]
        self.tickets_at_report[members] = nodes.ticket_time[members]
        self.last_report[members] = now
        if cfg.measure_noise > 0:
            error = self.noise_rng.normal(0.0, cfg.measure_noise, usage.shape)
            usage = np.clip(usage + error, 0.0, 100.0)
        # header flags: per class, "used all of the tickets it held" and "work waiting"
        needy = usage >= held - cfg.bank_policy.needy_tol
        waiting = np.concatenate([needy, nodes.backlog[members] > 0], axis=1)
        roles = h.node_role[members]
        for role in np.unique(roles).tolist():
            pick = roles == role
            ids, rows, flags = members[pick], usage[pick], waiting[pick]
            dest = h.host[role]
            local = ids == dest
            self.messages["report"] += int((~local).sum())
            if local.any():
                self._store(role, dest, self.pos[ids[local]], rows[local], None, flags[local])
            if (~local).any() and cfg.report_jitter > 0:
                for k in np.flatnonzero(~local).tolist():
                    self.queue.schedule(
                        now + self._report_delay(), "deliver_report",
                        (role, dest, self.pos[ids[k : k + 1]], rows[k : k + 1], None,
                         flags[k : k + 1]),
                        priority=_P_DELIVER,
                    )
            elif (~local).any():
                self.queue.schedule(
                    now + cfg.delay, "deliver_report",
                    (role, dest, self.pos[ids[~local]], rows[~local], None, flags[~local]),
                    priority=_P_DELIVER,
                )

    def _report_delay(self) -> float:
        """A report message's delay: ``delay``, plus U(0, report_jitter) when on."""
        cfg = self.cfg
        if cfg.report_jitter > 0:
            return cfg.delay + float(self.noise_rng.uniform(0.0, cfg.report_jitter))
        return cfg.delay

    def _store(
        self, role: int, dest: int, pos: Any, rows: Any, weight: Any, flags: Any
    ) -> None:
        h = self.h
        if dest < 0 or not h.alive[dest] or h.host[role] != dest:
            return  # lost: the manager died or was replaced meanwhile
        self.usage[role][pos] = rows
        self.recv[role][pos] = self.queue.now
        if weight is not None:
            self.weight[role][pos] = weight
        self.flags[role][pos] = flags

    def _on_deliver_report(self, ev: Any) -> None:
        self._store(*ev.data)

    def _on_round(self, ev: Any) -> None:
        now, cfg, h = self.queue.now, self.cfg, self.h
        role = ev.data
        self.queue.schedule(now + cfg.manager_period, "round", role, priority=_P_ROUND)
        if not h.role_alive(role):
            return
        level1 = h.level[role] == 1
        period = cfg.node_period if level1 else cfg.manager_period
        fresh = self.recv[role] >= now - cfg.detect_periods * period - 2 * cfg.delay
        idx = np.flatnonzero(fresh)
        if idx.size == 0:
            return
        r = self.sent[role][idx]
        u = self.usage[role][idx]
        if level1:
            flags = self.flags[role][idx]
            w, needy = None, flags[:, : self.S]
            group_needy = (needy & flags[:, self.S :]).any(axis=0)
        else:
            w, needy = self.weight[role][idx], self.flags[role][idx]
            group_needy = needy.any(axis=0)
        R = self._allocate(role, r, u, w, needy)
        self.sent[role][idx] = R
        host = h.host[role]
        if level1:
            kids = self.child_ids[role][idx]
            self.messages["allocation"] += int((kids != host).sum())
            self.queue.schedule(now + cfg.delay, "deliver_alloc", (kids, R),
                                priority=_P_DELIVER)
        else:
            kids = self.child_ids[role][idx]
            dests = np.array([h.host[c] for c in kids.tolist()])
            self.messages["allocation"] += len(kids)
            self.queue.schedule(now + cfg.delay, "deliver_targets", (kids, dests, R),
                                priority=_P_DELIVER)
        parent = h.parent[role]
        if parent >= 0:
            ww = np.ones(len(idx)) if w is None else w
            size = float(ww.sum())
            agg = ww @ u / size
            self.messages["report"] += 1
            self.queue.schedule(
                now + self._report_delay(), "deliver_report",
                (parent, h.host[parent], self.role_pos[role], agg, size, group_needy),
                priority=_P_DELIVER,
            )

    def _allocate(
        self, role: int, r: np.ndarray, u: np.ndarray, w: Any, needy: Any
    ) -> np.ndarray:
        cfg = self.cfg
        if cfg.algorithm == "bank":
            out = bank_round(r, u, self.targets[role], policy=cfg.bank_policy,
                             balance=self.balance[role], weights=w, needy=needy)
            self.balance[role] = np.array(out.balance)
            return np.array(out.allocation)
        from allockit.models.cluster_reserves import solve_cluster_reserves

        idle = None if needy is None else ~needy
        sol = solve_cluster_reserves(r, u, self.targets[role], weights=w, floor=cfg.cr_floor,
                                     idle=idle)
        return np.array(sol.allocation) if sol.status == "optimal" else r

    def _on_deliver_alloc(self, ev: Any) -> None:
        kids, rows = ev.data
        live = self.nodes.alive[kids]
        if live.any():
            self.nodes.set_tickets(self.queue.now, kids[live], rows[live])

    def _on_deliver_targets(self, ev: Any) -> None:
        kids, dests, rows = ev.data
        h = self.h
        for child, dest, row in zip(kids.tolist(), dests.tolist(), rows, strict=True):
            if dest >= 0 and h.alive[dest] and h.host[child] == dest:
                self.targets[child] = np.array(row, dtype=float)

    def _on_fail(self, ev: Any) -> None:
        now, h, entity = self.queue.now, self.h, ev.data
        if entity < self.N and self.nodes.alive[entity]:
            self.nodes.fail(now, entity)
        dead = h.fail(entity)
        self.events.append(["failure", entity, now, np.nan])
        for role in dead:
            self.queue.schedule(
                now + self.cfg.detect_periods * self.cfg.manager_period,
                "detect", (role, len(self.events) - 1), priority=_P_REPAIR,
            )

    def _on_detect(self, ev: Any) -> None:
        self.queue.schedule(self.queue.now + self.cfg.delay, "install", ev.data,
                            priority=_P_REPAIR)

    def _on_install(self, ev: Any) -> None:
        role, index = ev.data
        h = self.h
        if h.role_alive(role):
            return  # already repaired
        rep = h.repair(role)
        self.messages["election"] += rep.election
        self.messages["notify"] += rep.notify
        # the failed manager's state is lost: rebuild it from what the children carry
        kids = self.child_ids[role]
        self.usage[role][:] = 0.0
        self.recv[role][:] = -np.inf
        if h.level[role] == 1:
            self.sent[role] = self.nodes.tickets[kids].copy()
        else:
            self.sent[role] = np.array([self.targets[c] for c in kids.tolist()])
        self.balance[role] = np.zeros(self.S)
        self.targets[role] = self.D.copy()
        if rep.host >= 0:
            self.events[index][3] = self.queue.now - self.events[index][2]

    def _on_stop(self, ev: Any) -> None:
        self.nodes.stop(self.queue.now, ev.data, True)

    def _on_restart(self, ev: Any) -> None:
        self.nodes.stop(self.queue.now, ev.data, False)
        self.events.append(["restart", ev.data, self.queue.now, np.nan])

    # ------------------------------------------------------------------ results
    def result(self, seconds: float, seed: Any) -> ClusterSimResult:
        cfg = self.cfg
        times = np.array(self.times)
        shares = np.array(self.shares).reshape(-1, self.S)
        after = times > cfg.warmup
        kept = shares[after]
        kept = kept[~np.isnan(kept).any(axis=1)]
        mean = kept.mean(axis=0) if len(kept) else np.full(self.S, np.nan)
        std = kept.std(axis=0) if len(kept) else np.full(self.S, np.nan)
        within = (np.abs(shares - self.D[None, :]) <= cfg.tolerance).all(axis=1)
        recovery = []
        for _kind, _entity, at, repair in self.events:
            start = at + (0.0 if np.isnan(repair) else repair)
            found = np.nan
            for i in np.flatnonzero(times >= start).tolist():
                if i + cfg.hold <= len(times) and within[i : i + cfg.hold].all():
                    found = times[i] - at
                    break
            recovery.append(found)
        reach = self.h.reachable()
        total = sum(self.messages.values())
        counts = {k: int(self.messages.get(k, 0))
                  for k in ("report", "allocation", "election", "notify")}
        return ClusterSimResult(
            seconds=seconds,
            config=cfg.to_dict(),
            seed=seed if isinstance(seed, int | type(None)) else None,
            targets=self.D,
            mean=mean,
            std=std,
            dropped=self.nodes.dropped,
            times=times,
            shares=shares,
            utilisation=np.array(self.util),
            allocated=np.array(self.alloc).reshape(-1, self.S),
            messages=total,
            bytes=total * message_bytes(self.S),
            message_counts=counts,
            event_kind=tuple(e[0] for e in self.events),
            event_entity=[e[1] for e in self.events],
            event_time=[e[2] for e in self.events],
            repair_time=[e[3] for e in self.events],
            recovery_time=recovery,
            role_level=self.h.level,
            role_parent=self.h.parent,
            role_host=self.h.host,
            live_nodes=int(self.nodes.alive.sum()),
            reachable_nodes=int(reach.sum()),
            n_events=self.n_events,
        )


def simulate_cluster(
    config: ClusterSimConfig, *, seed: int | np.random.Generator | None = None
) -> ClusterSimResult:
    """Simulate one cluster under a manager hierarchy (module docstring).

    Parameters
    ----------
    config : ClusterSimConfig
    seed : int, numpy.random.Generator or None
        Seed of the arrivals, the skewed phases, the measurement noise and the report
        jitter.

    Returns
    -------
    ClusterSimResult

    Raises
    ------
    InvalidInputError
        For a failure of an entity that does not exist.

    Examples
    --------
    Fig. 3 of Li and Parker: class 3 only on node 4 of 4; a static 60/30/10 split
    gives it 2.5 % of the cluster.

    >>> cfg = ClusterSimConfig(4, dispatch=(None, None, (3,)), algorithm="static",
    ...                        duration=6.0, warmup=1.0)
    >>> res = simulate_cluster(cfg, seed=1)
    >>> res.mean.round(1).tolist(), res.messages
    ([65.0, 32.5, 2.5], 0)

    References
    ----------
    .. [1] N. Li and J. Parker, Cluster Resource Management: A Scalable Approach, Sec. 4.
    """
    start = time.perf_counter()
    rng = as_generator(seed)
    sim = _Simulation(config, rng)
    sim.schedule()
    sim.queue.run(sim.handle, until=config.duration)
    return sim.result(time.perf_counter() - start, seed)


