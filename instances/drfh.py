"""DRFH instances: users with multi-resource task demands on heterogeneous servers."""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from allockit.checks import integer, real_number
from allockit.errors import InvalidInputError
from allockit.instances.workload import integer_array
from allockit.rng import as_generator

__all__ = [
    "DRFHInstance",
    "UserArrival",
    "google_server_mix",
    "google_servers",
    "random_users",
]


def _ro(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@dataclass(frozen=True, slots=True)
class UserArrival:
    """A user of a dynamic DRFH run: joins at ``time`` with ``tasks`` tasks of ``duration`` s.

    Examples
    --------
    >>> UserArrival("alice", 0.0, (0.2, 0.3), 10, 60.0).to_dict()["demand"]
    [0.2, 0.3]
    """

    name: str
    time: float
    demand: tuple[float, ...]
    tasks: int
    duration: float
    weight: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "name": self.name,
            "time": self.time,
            "demand": list(self.demand),
            "tasks": self.tasks,
            "duration": self.duration,
            "weight": self.weight,
        }


@dataclass(frozen=True, slots=True)
class DRFHInstance:
    """Servers (in classes of identical machines) and users with per-task demands.

    ``capacity[l]`` is the resource vector of one server of class ``l`` and ``count[l]``
    how many there are; ``demand[i]`` the per-task demand of user ``i`` in the same
    units, ``weight[i]`` its weight and ``tasks[i]`` its number of tasks (``inf`` when
    unbounded). Shares are computed inside: ``share_capacity`` and ``share_demand`` divide
    by the pool's total of each resource (Wang, Li, Liang 2014; user guide (DRFH)).

    Examples
    --------
    >>> inst = DRFHInstance.from_dict({"problem": "drfh", "resources": ["cpu", "mem"],
    ...     "servers": [{"name": "s1", "capacity": [2, 12], "count": 1},
    ...                 {"name": "s2", "capacity": [12, 2], "count": 1}],
    ...     "users": [{"name": "u1", "demand": [0.2, 1]}, {"name": "u2", "demand": [1, 0.2]}]})
    >>> inst.share_demand.round(4).tolist()
    [[0.0143, 0.0714], [0.0714, 0.0143]]
    """

    resources: tuple[str, ...]
    server_names: tuple[str, ...]
    capacity: np.ndarray
    count: np.ndarray
    user_names: tuple[str, ...]
    demand: np.ndarray
    weight: np.ndarray
    tasks: np.ndarray

    def __post_init__(self) -> None:
        m = len(self.resources)
        if m == 0:
            raise InvalidInputError("resources must name at least one resource")
        if len(set(self.resources)) != m:
            raise InvalidInputError(f"resource names must be unique; got {list(self.resources)}")
        if not self.server_names:
            raise InvalidInputError("servers must hold at least one server")
        if not self.user_names:
            raise InvalidInputError("users must hold at least one user")
        k, n = len(self.server_names), len(self.user_names)
        try:
            cap = np.array(self.capacity, dtype=float).reshape(k, m)
            raw_count = np.ravel(self.count)
            dem = np.array(self.demand, dtype=float).reshape(n, m)
            weight = np.array(self.weight, dtype=float).reshape(-1)
            tasks = np.array(self.tasks, dtype=float).reshape(-1)
        except (TypeError, ValueError, OverflowError) as exc:
            raise InvalidInputError(
                f"DRFHInstance arrays must be numbers of the right shape: {exc}"
            ) from None
        count = integer_array("count", raw_count)  # 2.5 servers refused, not truncated
        if count.shape != (k,) or weight.shape != (n,) or tasks.shape != (n,):
            raise InvalidInputError(
                "DRFHInstance needs one count per server class and one weight and task "
                f"count per user; got {count.size}, {weight.size}, {tasks.size}"
            )
        for kind, names in (("server", self.server_names), ("user", self.user_names)):
            if len(set(names)) != len(names):
                raise InvalidInputError(f"{kind} names must be unique")
        for c in np.flatnonzero(~np.isfinite(cap).all(axis=1) | (cap <= 0).any(axis=1))[:1]:
            raise InvalidInputError(
                f"capacity must be finite and > 0; got {cap[c].tolist()} "
                f"at server {self.server_names[c]!r}"
            )
        for c in np.flatnonzero(count < 1)[:1]:
            raise InvalidInputError(
                f"count must be >= 1; got {count[c]} at server {self.server_names[c]!r}"
            )
        for i in np.flatnonzero(~np.isfinite(dem).all(axis=1) | (dem <= 0).any(axis=1))[:1]:
            raise InvalidInputError(
                f"demand must be finite and > 0; got {dem[i].tolist()} "
                f"at user {self.user_names[i]!r}"
            )
        fits = np.zeros(n, dtype=bool)
        slack = cap * (1 + 1e-12)
        for c in range(k):  # one server class at a time: memory O(n m)
            fits |= (dem <= slack[c]).all(axis=1)
        for i in np.flatnonzero(~fits)[:1]:
            raise InvalidInputError(
                f"demand {dem[i].tolist()} of user {self.user_names[i]!r} is larger than "
                "every server"
            )
        for i in np.flatnonzero(~(np.isfinite(weight) & (weight > 0)))[:1]:
            raise InvalidInputError(
                f"weight must be > 0; got {weight[i]} at user {self.user_names[i]!r}"
            )
        finite = np.isfinite(tasks)
        whole = ~finite | (np.floor(np.where(finite, tasks, 0.0)) == np.where(finite, tasks, 0.0))
        for i in np.flatnonzero(~(tasks >= 0) | ~whole)[:1]:
            raise InvalidInputError(
                f"tasks must be a whole number >= 0 or null; got {tasks[i]} "
                f"at user {self.user_names[i]!r}"
            )
        for name, value in (
            ("capacity", cap),
            ("count", count),
            ("demand", dem),
            ("weight", weight),
            ("tasks", tasks),
        ):
            object.__setattr__(self, name, _ro(value))
        for name in ("resources", "server_names", "user_names"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    # ------------------------------------------------------------------ derived data
    @property
    def n_users(self) -> int:
        """Number of users."""
        return len(self.user_names)

    @property
    def n_classes(self) -> int:
        """Number of server classes (entries of ``servers``)."""
        return len(self.server_names)

    @property
    def total(self) -> np.ndarray:
        """Pool total of each resource."""
        return (self.capacity * self.count[:, None]).sum(axis=0)

    @property
    def share_capacity(self) -> np.ndarray:
        """Capacity of one server of each class as a share of the pool, ``(k, m)``."""
        return self.capacity / self.total

    @property
    def share_demand(self) -> np.ndarray:
        """Per-task demand as a share of the pool, ``(n, m)``."""
        return self.demand / self.total

    @property
    def dominant(self) -> np.ndarray:
        """Global dominant share of one task of each user: ``max_r D_ir``."""
        return self.share_demand.max(axis=1)

    def expanded(self) -> DRFHInstance:
        """The same instance with every server its own class (count 1)."""
        names = [
            f"{n}#{k}" if c > 1 else n
            for n, c in zip(self.server_names, self.count, strict=True)
            for k in range(c)
        ]
        return DRFHInstance(
            resources=self.resources,
            server_names=tuple(names),
            capacity=np.repeat(self.capacity, self.count, axis=0),
            count=np.ones(int(self.count.sum()), dtype=np.int64),
            user_names=self.user_names,
            demand=self.demand,
            weight=self.weight,
            tasks=self.tasks,
        )

    # ------------------------------------------------------------------ JSON
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DRFHInstance:
        """Build from the JSON object, checking every field (errors name the entry).

        The object is checked by the schema ``allockit.instances.schemas.DRFH`` (strict
        types, finite numbers, ranges, no unknown field), then by the constructor (a
        vector per resource, demands that fit some server, unique names).

        Parameters
        ----------
        data : Mapping
            ``{"problem": "drfh", "resources": [...], "servers": [{"name", "capacity",
            "count"}], "users": [{"name", "demand", "weight", "tasks"}]}``; a capacity
            or demand is a list (one number per resource) or an object by resource name
            (missing resources are 0).

        Returns
        -------
        DRFHInstance
            The validated instance.

        Raises
        ------
        InvalidInputError
            On a missing or unknown field, a value of the wrong type or out of range;
            the message names the field's path, the value and what is allowed.

        Examples
        --------
        >>> DRFHInstance.from_dict({"resources": ["cpu"], "servers": [{"capacity": [1]}],
        ...     "users": [{"name": "a", "demand": [0.5], "tasks": 1.5}]})
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: users[0].tasks must be null (unbounded) or an \
integer >= 0; got 1.5 at user 'a'
        """
        from allockit.instances.schemas import DRFH, validate

        doc = validate(DRFH, data, name="the instance")
        resources = doc["resources"]
        if len(set(resources)) != len(resources):
            raise InvalidInputError(f"resources must be distinct names; got {resources}")

        def vector(value: Any, where: str, entry: str) -> list[float]:
            if isinstance(value, Mapping):
                for key in value:
                    if key not in resources:
                        raise InvalidInputError(
                            f"{where}[{key!r}] is not a known resource at {entry}; "
                            f"resources: {', '.join(resources)}"
                        )
                value = [value.get(r, 0.0) for r in resources]
            if len(value) != len(resources):
                raise InvalidInputError(
                    f"{where} must have one number per resource ({len(resources)}); "
                    f"got {value} at {entry}"
                )
            return value

        cap, count, snames = [], [], []
        for k, server in enumerate(doc["servers"]):
            name = server.get("name", f"s{k}")
            snames.append(name)
            cap.append(vector(server["capacity"], f"servers[{k}].capacity", f"server {name!r}"))
            count.append(server.get("count", 1))
        dem, weight, tasks, unames = [], [], [], []
        for k, user in enumerate(doc["users"]):
            name = user.get("name", f"u{k}")
            unames.append(name)
            dem.append(vector(user["demand"], f"users[{k}].demand", f"user {name!r}"))
            weight.append(user.get("weight", 1.0))
            t = user.get("tasks")
            tasks.append(math.inf if t is None else t)
        return cls(
            resources=tuple(resources),
            server_names=tuple(snames),
            capacity=np.array(cap, dtype=float),
            count=np.array(count, dtype=np.int64),
            user_names=tuple(unames),
            demand=np.array(dem, dtype=float),
            weight=np.array(weight, dtype=float),
            tasks=np.array(tasks, dtype=float),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON object of this instance."""
        return {
            "problem": "drfh",
            "resources": list(self.resources),
            "servers": [
                {"name": n, "capacity": c.tolist(), "count": int(k)}
                for n, c, k in zip(self.server_names, self.capacity, self.count, strict=True)
            ],
            "users": [
                {
                    "name": n,
                    "demand": d.tolist(),
                    "weight": float(w),
                    "tasks": None if math.isinf(t) else int(t),
                }
                for n, d, w, t in zip(
                    self.user_names, self.demand, self.weight, self.tasks, strict=True
                )
            ],
        }


def _pair(name: str, pair: Any, *, minimum: float) -> tuple[float, float]:
    """A range ``(lo, hi)`` of finite numbers with ``minimum <= lo <= hi``."""
    if isinstance(pair, np.ndarray):
        pair = pair.tolist()  # (a numpy pair, as before)
    if isinstance(pair, str | bytes) or not isinstance(pair, tuple | list) or len(pair) != 2:
        raise InvalidInputError(f"{name} must be a pair (lo, hi); got {pair!r}")
    low = real_number(f"{name}[0]", pair[0], at_least=minimum)
    high = real_number(f"{name}[1]", pair[1], at_least=low)
    return low, high


def google_server_mix() -> np.ndarray:
    """The Google cluster's server classes: rows of (count, cpu, memory), Table I.

    Read from the bundled ``data/google_server_mix.csv``. CPU and memory are
    normalised to the largest server (1.0), as in the trace.

    Returns
    -------
    numpy.ndarray, shape (10, 3)
        One row per class: number of servers, CPU capacity, memory capacity.

    Examples
    --------
    >>> mix = google_server_mix()
    >>> int(mix[:, 0].sum()), mix.shape
    (12583, (10, 3))

    References
    ----------
    .. [1] W. Wang, B. Li, B. Liang (2014), Dominant resource fairness in cloud
       computing systems with heterogeneous servers, INFOCOM, Table I.
    """
    from importlib.resources import files

    text = files("allockit.instances").joinpath("data", "google_server_mix.csv").read_text()
    rows = list(csv.DictReader(text.splitlines()))
    return np.array([[float(r["count"]), float(r["cpu"]), float(r["memory"])] for r in rows])


def google_servers(
    n: int | None = None, *, seed: int | np.random.Generator | None = None
) -> list[dict[str, Any]]:
    """Servers drawn from the Google mix, as the ``servers`` list of an instance.

    ``n=None`` gives the whole pool (12,583 servers in 10 classes); otherwise ``n`` servers
    are drawn with probabilities proportional to the class counts, and identical servers
    are grouped into classes.

    Parameters
    ----------
    n : int, optional
        Number of servers to draw (>= 1); None for the whole pool.
    seed : int, numpy.random.Generator or None
        Randomness of the draw (unused when ``n`` is None).

    Returns
    -------
    list of dict
        ``{"name": "classK", "capacity": [cpu, memory], "count": c}`` for every class
        drawn at least once (``K`` its row in ``google_server_mix``); capacities
        normalised to the largest server.

    Raises
    ------
    InvalidInputError
        If ``n`` is not None or an integer >= 1 (``2.5`` is refused).

    Examples
    --------
    >>> google_servers(5, seed=0)
    [{'name': 'class0', 'capacity': [0.5, 0.5], 'count': 2}, \
{'name': 'class1', 'capacity': [0.5, 0.25], 'count': 3}]
    >>> len(google_servers())
    10
    """
    mix = google_server_mix()
    if n is None:
        counts = mix[:, 0].astype(int)
    else:
        n = integer("n", n, minimum=1)
        rng = as_generator(seed)
        counts = rng.multinomial(n, mix[:, 0] / mix[:, 0].sum())
    return [
        {"name": f"class{k}", "capacity": [float(mix[k, 1]), float(mix[k, 2])], "count": int(c)}
        for k, c in enumerate(counts)
        if c > 0
    ]


def random_users(
    n: int,
    *,
    seed: int | np.random.Generator | None = None,
    max_share: float = 0.05,
    min_share: float = 0.01,
    tasks: tuple[int, int] | None = (10, 1000),
    weights: tuple[float, float] = (1.0, 1.0),
) -> list[dict[str, Any]]:
    """Random users with (cpu, memory) demands in server units, weights and task counts.

    Demands are drawn log-uniformly between ``min_share`` and ``max_share`` of the largest server
    per resource (CPU- and memory-heavy users alike); weights uniformly in ``weights``;
    task counts log-uniformly in ``tasks`` (None: unbounded).

    With the Google mix the largest server is 1.0 in both resources, so a demand is
    also a fraction of the largest server; the users fit ``google_servers``.

    Parameters
    ----------
    n : int
        Number of users, named ``u0``, ``u1``, ...
    seed : int, numpy.random.Generator or None
        Randomness of the draw.
    max_share, min_share : float, defaults 0.05 and 0.01
        Range of each resource's demand per task, ``0 < min_share <= max_share``.
    tasks : tuple (int, int) or None, default (10, 1000)
        Range of task counts (the upper end is not reached: counts are truncated);
        None gives every user unbounded tasks.
    weights : tuple (float, float), default (1.0, 1.0)
        Range of the weights (all 1 by default).

    Returns
    -------
    list of dict
        ``{"name", "demand": [cpu, memory], "weight", "tasks"}`` per user, the
        ``users`` list of ``DRFHInstance.from_dict`` (demands rounded to 6 decimals).

    Raises
    ------
    InvalidInputError
        If ``n`` is not an integer >= 0, not ``0 < min_share <= max_share`` (finite),
        ``tasks`` is not None or numbers ``1 <= lo <= hi``, or ``weights`` not finite
        numbers ``0 <= lo <= hi``.

    Examples
    --------
    >>> random_users(2, seed=0)
    [{'name': 'u0', 'demand': [0.027875, 0.015437], 'weight': 1.0, 'tasks': 163}, \
{'name': 'u1', 'demand': [0.010682, 0.01027], 'weight': 1.0, 'tasks': 287}]
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": google_servers(20, seed=1), "users": random_users(3, seed=1)})
    >>> inst.n_users
    3
    """
    n = integer("n", n, minimum=0)
    rng = as_generator(seed)
    for name, share in (("min_share", min_share), ("max_share", max_share)):
        real_number(name, share, above=0)
    if not 0 < min_share <= max_share:
        raise InvalidInputError(f"need 0 < min_share <= max_share; got {min_share}, {max_share}")
    if tasks is not None:
        _pair("tasks", tasks, minimum=1)
    _pair("weights", weights, minimum=0)
    demand = np.exp(rng.uniform(np.log(min_share), np.log(max_share), (n, 2)))
    w = rng.uniform(*weights, n)
    out = []
    for i in range(n):
        t = None if tasks is None else int(np.exp(rng.uniform(np.log(tasks[0]), np.log(tasks[1]))))
        out.append(
            {
                "name": f"u{i}",
                "demand": demand[i].round(6).tolist(),
                "weight": float(w[i]),
                "tasks": t,
            }
        )
    return out
