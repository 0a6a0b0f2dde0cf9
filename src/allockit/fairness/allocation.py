"""A mechanism's allocation as the checker sees it: bundles per server, whole or fractional.

Two ways of counting the tasks ``N_i(A)`` user ``i`` runs with a bundle ``A``
(user guide (DRFH)):

- **fractional** (divisible tasks): ``sum_l min_r A_lr / D_ir`` over server classes,
  the servers of a class pooled, as in the paper's LP (7);
- **whole** (tasks as entities, Sec. V-B): ``sum_s floor(min_r A_sr / D_ir)`` over the
  individual servers, since a task cannot straddle two servers.

An allocation is *whole* when every user's own bundle holds a whole number of its
tasks on every individual server. A mechanism that reports per server (the built-ins
with ``split=True``, or a user's mechanism returning tasks per user and server) fixes
its placement; one that reports whole tasks per class is placed on the class's servers
by the checker (``programs.place_whole``); if no placement exists, the tasks straddle
servers and the allocation is fractional. Resources a bundle holds beyond its whole
tasks (a wasteful result) go to the class's servers in proportion to what is free.

Examples
--------
>>> from allockit.instances.drfh import DRFHInstance
>>> from allockit.drfh import allocate
>>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
...     "servers": [{"capacity": [1, 1], "count": 2}],
...     "users": [{"demand": [0.3, 0.3]}]})
>>> a = Allocation.build(inst, allocate(inst, "first-fit", split=True))
>>> a.whole, a.own("whole").tolist()
(True, [6.0])
>>> b = Allocation.build(inst, allocate(inst, "lp"))
>>> b.whole, b.own("fractional").round(4).tolist(), b.own("whole").tolist()
(False, [6.6667], [6.0])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from allockit.checks import first_bad_entry, integer, real_array
from allockit.constants import FAIRNESS_MAX_INTEGERS
from allockit.errors import InvalidInputError
from allockit.fairness.programs import Undecided, place_whole
from allockit.instances.drfh import DRFHInstance
from allockit.results import DRFHResult

__all__ = ["Allocation", "count_tasks", "is_integral", "tasks_from"]

def is_integral(values: np.ndarray) -> bool:
    """Whether every value is a whole number (to ``1e-7`` absolute, ``1e-9`` relative).

    Parameters
    ----------
    values : numpy.ndarray
        Task counts.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_integral(np.array([2.0, 3.0000000001])), is_integral(np.array([2.5]))
    (True, False)
    """
    values = np.asarray(values, dtype=float)
    gap = np.abs(values - np.round(values))
    return bool((gap <= 1e-7 + 1e-9 * np.abs(values)).all())


def count_tasks(
    demand: np.ndarray, bundles: np.ndarray, *, whole: bool
) -> np.ndarray:
    """Tasks of demand ``demand`` that each bundle runs: ``N_i(A)``, whole or divisible.

    Parameters
    ----------
    demand : numpy.ndarray, shape (m,)
        Per-task demand of the user who would run the tasks.
    bundles : numpy.ndarray, shape (..., entries, m)
        Resources per entry (servers for whole tasks, classes or servers otherwise).
    whole : bool
        Count whole tasks per entry (``floor``) or divisible ones.

    Returns
    -------
    numpy.ndarray, shape (...)
        Tasks summed over the entries.

    Examples
    --------
    >>> float(count_tasks(np.array([0.3, 0.1]), np.array([[0.7, 0.7], [0.5, 0.5]]), whole=True))
    3.0
    >>> float(count_tasks(np.array([0.3, 0.1]), np.array([[0.7, 0.7]]), whole=False))
    2.3333333333333335
    """
    per_entry = np.min(bundles / demand, axis=-1)
    if whole:
        per_entry = np.floor(per_entry + 1e-9 * np.maximum(1.0, per_entry))
    return per_entry.sum(axis=-1)


def tasks_from(instance: DRFHInstance, allocation: np.ndarray, user: int) -> float:
    """``N_i(A) = sum_l min_r A_lr / D_ir``: divisible tasks user ``i`` runs with ``A``.

    The task count of Wang, Li, Liang (2014), Sec. III (user guide (DRFH)), per server entry
    (``count_tasks`` also counts whole tasks).

    Parameters
    ----------
    instance : DRFHInstance
        Gives the demand vector ``D_i`` of ``user`` (input units per task).
    allocation : numpy.ndarray, shape (n_entries, n_resources)
        A bundle ``A``: resources on each server entry, in the demand's units; for
        example ``result.allocation[j]``.
    user : int
        Index ``i`` of the user whose tasks are counted.

    Returns
    -------
    float
        The (fractional) number of tasks, not capped at the user's ``tasks``.

    Raises
    ------
    InvalidInputError
        If ``user`` is not a user index, or ``allocation`` is not a two-dimensional
        array of finite amounts >= 0 with one column per resource (a vector of one
        amount per resource is one entry).

    Examples
    --------
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"capacity": [1, 1], "count": 2}], "users": [{"demand": [0.2, 0.1]}]})
    >>> tasks_from(inst, np.array([[0.4, 0.4]]), 0)
    2.0
    """
    user = integer("user", user, minimum=0, maximum=instance.n_users - 1)
    bundle = np.asarray(allocation)
    if bundle.ndim == 1 and bundle.size == len(instance.resources):
        bundle = bundle[None, :]  # (one server entry, given as a vector)
    bundle = real_array("allocation", bundle, ndim=2)
    if bundle.shape[1] != len(instance.resources):
        raise InvalidInputError(
            f"allocation must have one column per resource ({len(instance.resources)}); "
            f"got shape {bundle.shape}"
        )
    first_bad_entry("allocation", bundle, bundle >= 0, "finite and >= 0")
    return float(count_tasks(instance.demand[user], bundle, whole=False))


def _expanded_names(instance: DRFHInstance) -> tuple[str, ...]:
    return tuple(
        f"{n}#{k}" if c > 1 else n
        for n, c in zip(instance.server_names, instance.count, strict=True)
        for k in range(c)
    )


@dataclass(frozen=True, slots=True)
class Allocation:
    """One allocation of a mechanism, with its bundles per class and per server.

    Attributes
    ----------
    instance : DRFHInstance
        The instance allocated.
    result : DRFHResult
        What ``allockit.drfh.allocate`` returned (checked against capacities and caps).
    per_class : numpy.ndarray, shape (n_users, n_classes, n_resources)
        Resources of each user on each server class (class totals).
    per_server : numpy.ndarray or None, shape (n_users, n_servers, n_resources)
        Resources on each individual server (classes expanded in order); None when the
        instance is too large for whole-task checks.
    whole : bool
        True when every user's own bundle holds whole tasks on every server.
    placement : str
        Where ``per_server`` comes from: ``"reported per server"``, ``"placed by the
        checker"`` (whole tasks reported per class) or ``"split evenly"``.

    Examples
    --------
    >>> from allockit.instances.drfh import DRFHInstance
    >>> from allockit.drfh import allocate
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
    ...     "servers": [{"capacity": [1], "count": 2}], "users": [{"demand": [0.5]}]})
    >>> Allocation.build(inst, allocate(inst, lambda inst: [[4]])).placement
    'placed by the checker'
    """

    instance: DRFHInstance
    result: DRFHResult
    per_class: np.ndarray
    per_server: np.ndarray | None
    whole: bool
    placement: str

    @classmethod
    def build(
        cls,
        instance: DRFHInstance,
        result: DRFHResult,
        per_server_tasks: np.ndarray | None = None,
    ) -> Allocation:
        """Bundles per class and per server from a checked result.

        Parameters
        ----------
        instance : DRFHInstance
            The instance the result allocates.
        result : DRFHResult
            Per class entry, or per server (``split=True``: server names ``name#k``).
        per_server_tasks : numpy.ndarray, optional
            Tasks per user and individual server, when the mechanism returned them
            (``allocate`` reports them per class).

        Returns
        -------
        Allocation

        Raises
        ------
        Undecided
            If placing whole tasks reported per class needs a MIP that does not finish.

        Examples
        --------
        >>> from allockit.instances.drfh import DRFHInstance
        >>> from allockit.drfh import allocate
        >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
        ...     "servers": [{"capacity": [1], "count": 2}], "users": [{"demand": [0.6]}]})
        >>> a = Allocation.build(inst, allocate(inst, lambda inst: [[1.5]]))
        >>> a.whole, a.placement, a.per_server[0, :, 0].round(9).tolist()
        (False, 'split evenly', [0.45, 0.45])
        """
        n, k, m = instance.n_users, instance.n_classes, len(instance.resources)
        servers = int(instance.count.sum())
        class_of = np.repeat(np.arange(k), instance.count)
        alloc = np.asarray(result.allocation, dtype=float)
        small = n * servers <= FAIRNESS_MAX_INTEGERS
        demand = instance.demand
        if alloc.shape[1] == servers and tuple(result.server_names) == _expanded_names(
            instance
        ):
            per_server: np.ndarray | None = alloc
            per_class = np.zeros((n, k, m))
            np.add.at(per_class, (slice(None), class_of), alloc)
            placement = "reported per server"
        else:
            per_class = alloc
            per_server, placement = None, "placed by the checker"
            if per_server_tasks is not None:
                per_server = per_server_tasks[:, :, None] * demand[:, None, :]
                placement = "reported per server"
            elif servers == k:
                per_server, placement = alloc, "reported per server"
            elif small:
                per_server, placement = _place(instance, alloc, class_of)
        own = None if per_server is None else np.min(per_server / demand[:, None, :], axis=2)
        whole = own is not None and is_integral(own)
        return cls(instance, result, per_class, per_server, whole, placement)

    def own(self, semantics: str) -> np.ndarray:
        """Tasks each user runs with its own bundle, ``N_i(A_i)``, under ``semantics``.

        Parameters
        ----------
        semantics : {"whole", "fractional"}
            Whole tasks per server or divisible tasks per class.

        Returns
        -------
        numpy.ndarray, shape (n_users,)
            Capped at each user's task count.

        Raises
        ------
        Undecided
            For whole tasks on an instance too large to hold per-server bundles.

        Examples
        --------
        >>> from allockit.instances.drfh import DRFHInstance
        >>> from allockit.drfh import allocate
        >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
        ...     "servers": [{"capacity": [1]}], "users": [{"demand": [0.3]}]})
        >>> Allocation.build(inst, allocate(inst, "lp")).own("whole").tolist()
        [3.0]
        """
        return np.minimum(
            [self.runs(i, i, semantics) for i in range(self.instance.n_users)],
            self.instance.tasks,
        )

    def runs(self, user: int, owner: int, semantics: str) -> float:
        """``N_user(A_owner)``: tasks ``user`` could run with ``owner``'s bundle (uncapped).

        Parameters
        ----------
        user : int
            Whose demand counts.
        owner : int
            Whose bundle.
        semantics : {"whole", "fractional"}
            Whole tasks server by server, or divisible tasks per class.

        Returns
        -------
        float

        Raises
        ------
        Undecided
            For whole tasks on an instance too large to hold per-server bundles.

        Examples
        --------
        >>> from allockit.instances.drfh import DRFHInstance
        >>> from allockit.drfh import allocate
        >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
        ...     "servers": [{"capacity": [1]}],
        ...     "users": [{"demand": [0.3]}, {"demand": [0.4], "tasks": 0}]})
        >>> Allocation.build(inst, allocate(inst, "progressive")).runs(1, 0, "whole")
        2.0
        """
        return float(self.counts(self.instance.demand[user], owner, semantics))

    def counts(self, demand: np.ndarray, owner: int, semantics: str) -> float:
        """Tasks of per-task demand ``demand`` that ``owner``'s bundle runs (uncapped).

        Parameters
        ----------
        demand : numpy.ndarray, shape (n_resources,)
            A per-task demand (a user's true one, for a misreport).
        owner : int
            Whose bundle.
        semantics : {"whole", "fractional"}
            Whole tasks server by server, or divisible tasks per class.

        Returns
        -------
        float

        Raises
        ------
        Undecided
            For whole tasks on an instance too large to hold per-server bundles.

        Examples
        --------
        >>> from allockit.instances.drfh import DRFHInstance
        >>> from allockit.drfh import allocate
        >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
        ...     "servers": [{"capacity": [1]}], "users": [{"demand": [0.3]}]})
        >>> Allocation.build(inst, allocate(inst, "lp")).counts(np.array([0.25]), 0, "whole")
        4.0
        """
        if semantics == "whole":
            if self.per_server is None:
                raise Undecided(
                    f"whole tasks: {self.instance.n_users} users x "
                    f"{int(self.instance.count.sum())} servers is too large to hold bundles "
                    "per server; check with semantics 'fractional'"
                )
            return float(count_tasks(demand, self.per_server[owner], whole=True))
        return float(count_tasks(demand, self.per_class[owner], whole=False))

    def per_class_tasks(self, semantics: str) -> np.ndarray:
        """Each user's own tasks on each server class, ``(n_users, n_classes)``.

        Parameters
        ----------
        semantics : {"whole", "fractional"}
            Whole tasks server by server (summed per class), or divisible tasks.

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> from allockit.instances.drfh import DRFHInstance
        >>> from allockit.drfh import allocate
        >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
        ...     "servers": [{"capacity": [1]}], "users": [{"demand": [0.3]}]})
        >>> Allocation.build(inst, allocate(inst, "lp")).per_class_tasks("fractional")
        array([[3.33333333]])
        """
        inst = self.instance
        if semantics == "whole" and self.per_server is not None:
            tasks = np.min(self.per_server / inst.demand[:, None, :], axis=2)
            tasks = np.floor(tasks + 1e-9 * np.maximum(1.0, tasks))
            out = np.zeros((inst.n_users, inst.n_classes))
            np.add.at(out.T, np.repeat(np.arange(inst.n_classes), inst.count), tasks.T)
            return out
        return np.min(self.per_class / inst.demand[:, None, :], axis=2)

    def dominant_shares(self) -> np.ndarray:
        """Global dominant share of each user's bundle, ``max_r sum_l A_ilr / total_r``.

        Returns
        -------
        numpy.ndarray, shape (n_users,)

        Examples
        --------
        >>> from allockit.instances.drfh import DRFHInstance
        >>> from allockit.drfh import allocate
        >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
        ...     "servers": [{"capacity": [2, 2]}], "users": [{"demand": [0.1, 0.2]}]})
        >>> Allocation.build(inst, allocate(inst, "lp")).dominant_shares().tolist()
        [1.0]
        """
        return (self.per_class.sum(axis=1) / self.instance.total).max(axis=1)

    def describe(self, semantics: str) -> dict[str, Any]:
        """The allocation in the JSON of a counterexample: tasks per user and class.

        Parameters
        ----------
        semantics : {"whole", "fractional"}
            How tasks are counted.

        Returns
        -------
        dict
            ``{"tasks": {user: {class: tasks}}, "total": {user: tasks},
            "dominant_share": {user: share}, "placement": str}``.

        Examples
        --------
        >>> from allockit.instances.drfh import DRFHInstance
        >>> from allockit.drfh import allocate
        >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
        ...     "servers": [{"name": "s", "capacity": [1]}],
        ...     "users": [{"name": "a", "demand": [0.25]}]})
        >>> Allocation.build(inst, allocate(inst, "lp")).describe("whole")["tasks"]
        {'a': {'s': 4.0}}
        """
        inst = self.instance
        table = self.per_class_tasks(semantics)
        own = self.own(semantics)
        shares = self.dominant_shares()
        return {
            "tasks": {
                u: {s: _num(table[i, c]) for c, s in enumerate(inst.server_names)}
                for i, u in enumerate(inst.user_names)
            },
            "total": {u: _num(own[i]) for i, u in enumerate(inst.user_names)},
            "dominant_share": {u: _num(shares[i]) for i, u in enumerate(inst.user_names)},
            "placement": self.placement,
        }


def _num(value: float) -> float:
    """A number for the JSON: rounded to 9 significant digits, ``-0.0`` made 0."""
    out = float(f"{float(value):.9g}")
    return out + 0.0


def _place(
    instance: DRFHInstance, alloc: np.ndarray, class_of: np.ndarray
) -> tuple[np.ndarray, str]:
    """Per-server bundles of a per-class allocation: whole tasks placed, else split evenly."""
    demand = instance.demand
    tasks = np.min(alloc / demand[:, None, :], axis=2)
    if is_integral(tasks):
        placed = place_whole(instance, np.round(tasks))
        if placed is not None:
            per_server = placed[:, :, None] * demand[:, None, :]
            waste = alloc - np.round(tasks)[:, :, None] * demand[:, None, :]
            waste = np.maximum(waste, 0.0)
            if waste.max(initial=0.0) > 0:
                capacity = np.repeat(instance.capacity, instance.count, axis=0)
                free = np.maximum(capacity - per_server.sum(axis=0), 0.0)
                pool = np.zeros_like(instance.capacity)
                np.add.at(pool, class_of, free)
                fraction = np.divide(
                    free, pool[class_of], out=np.zeros_like(free), where=pool[class_of] > 0
                )
                per_server = per_server + waste[:, class_of, :] * fraction[None, :, :]
            return per_server, "placed by the checker"
    even = alloc[:, class_of, :] / instance.count[class_of][None, :, None]
    return even, "split evenly"
