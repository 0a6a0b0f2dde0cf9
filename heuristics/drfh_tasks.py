"""DRFH with indivisible tasks: First-Fit, Best-Fit, naive per-server DRF and slots.

Wang, Li, Liang (2014), Sec. V-B and VI; user guide (DRFH). Servers of a class are expanded
into individual machines (a task runs on one machine); results are reported per class
entry of the instance. An instance these heuristics cannot place in memory and time
(machines x users above 20 million, or more than ``MAX_DRFH_PLACEMENTS`` possible tasks,
placed one at a time) is refused at once with the size that works.
"""

from __future__ import annotations

import time

import numpy as np

from allockit.checks import integer
from allockit.constants import MAX_DRFH_PLACEMENTS
from allockit.errors import InvalidInputError
from allockit.instances.drfh import DRFHInstance
from allockit.results import DRFHResult, SolveStatus

__all__ = ["best_fit", "first_fit", "per_server_drf", "slots"]

_EPS = 1e-12
#: Entries of the (users x machines) placement matrix the heuristics keep (160 MB).
_MAX_CELLS = 20_000_000
#: Most slots per largest machine (the options layer's bound, ``allockit.drfh``).
MAX_SLOTS_PER_LARGEST = 10_000


def _refuse_large(instance: DRFHInstance, method: str) -> None:
    """Refuse at once an instance the task heuristics cannot place in memory and time.

    They work machine by machine (classes expanded) and task by task: the machines
    times the users must fit a dense matrix, and the tasks that could possibly be placed
    (each user's cap, or what the pool's capacity allows) are placed one at a time.
    """
    machines = int(instance.count.sum())
    cells = machines * instance.n_users
    if cells > _MAX_CELLS:
        raise InvalidInputError(
            f"{method} places tasks machine by machine: {machines} machines x "
            f"{instance.n_users} users is more than {_MAX_CELLS} (at most "
            f"{_MAX_CELLS // max(1, instance.n_users)} machines for this many users); "
            "lp and progressive work on server classes"
        )
    fit = np.min(instance.total[None, :] / instance.demand, axis=1)
    possible = float(np.minimum(instance.tasks, np.floor(fit)).sum())
    if possible > MAX_DRFH_PLACEMENTS:
        raise InvalidInputError(
            f"{method} places tasks one at a time: up to {possible:.3g} tasks here, more "
            f"than {MAX_DRFH_PLACEMENTS} (allockit.constants.MAX_DRFH_PLACEMENTS); cap the "
            "users' tasks, or use lp or progressive (divisible tasks)"
        )


def _result(
    instance: DRFHInstance,
    placed: np.ndarray,
    *,
    method: str,
    started: float,
    message: str = "",
    split: bool = False,
) -> DRFHResult:
    """Tasks placed per (user, machine) -> a DRFHResult per class entry (or per machine)."""
    names = instance.server_names
    if split:
        per_entry = placed
        names = instance.expanded().server_names
    else:
        class_of = np.repeat(np.arange(instance.n_classes), instance.count)
        per_entry = np.zeros((instance.n_users, instance.n_classes))
        np.add.at(per_entry.T, class_of, placed.T)
    tasks = placed.sum(axis=1)
    alloc = per_entry[:, :, None] * instance.demand[:, None, :]
    used = (tasks[:, None] * instance.demand).sum(axis=0) / instance.total
    return DRFHResult(
        method=method,
        status=SolveStatus.FEASIBLE,
        user_names=instance.user_names,
        server_names=names,
        resources=instance.resources,
        tasks=tasks,
        dominant_share=tasks * instance.dominant,
        allocation=alloc,
        utilization=used,
        seconds=time.perf_counter() - started,
        message=message,
    )


def _drfh_tasks(instance: DRFHInstance, best: bool, method: str, split: bool) -> DRFHResult:
    """Serve the user with the lowest G_i / w_i, one task at a time, on FF or BF's server.

    The loop is compiled (``heuristics.drfh_kernels.drfh_tasks_kernel``); a user whose task
    fits no machine is skipped for good, since free capacity only shrinks.
    """
    from allockit.heuristics.drfh_kernels import drfh_tasks_kernel

    _refuse_large(instance, method)
    started = time.perf_counter()
    free = np.repeat(instance.share_capacity, instance.count, axis=0).copy()
    placed = drfh_tasks_kernel(
        free,
        np.ascontiguousarray(instance.share_demand),
        np.asarray(instance.dominant),
        np.asarray(instance.weight, dtype=float),
        instance.tasks.copy(),
        best,
        np.zeros(instance.n_users),
    )
    return _result(instance, placed, method=method, started=started, split=split)


def first_fit(instance: DRFHInstance, *, split: bool = False) -> DRFHResult:
    """First-Fit DRFH: serve the user with the lowest ``G_i / w_i``; first fitting server.

    Tasks are indivisible: one task at a time goes to the active user with the lowest
    weighted global dominant share, on the first machine (classes expanded, in input
    order) with room for it in every resource. A user whose task fits nowhere is done.
    The loop is a compiled numba kernel (Wang, Li, Liang 2014, Sec. V-B).

    Parameters
    ----------
    instance : DRFHInstance
        Server classes (capacity per resource, count) and users (demand per task in
        the same units, weight, optional task cap; uncapped users take all they can).
    split : bool, default False
        Report the allocation per server (classes expanded, servers named ``name#k``
        as ``allockit.drfh.allocate`` does for ``lp``) instead of per class entry.

    Returns
    -------
    DRFHResult
        Status ``feasible``; whole tasks per user, global dominant shares
        ``G_i = tasks_i * d_i`` (``d_i`` the per-task dominant share of the pool) and
        resources per class entry.

    Examples
    --------
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"name": "s1", "capacity": [2, 12]}, {"name": "s2", "capacity": [12, 2]}],
    ...     "users": [{"name": "u1", "demand": [0.2, 1]}, {"name": "u2", "demand": [1, 0.2]}]})
    >>> first_fit(inst).tasks.tolist()
    [6.0, 6.0]

    Per server (``split=True``): three tasks of 0.3 on each of two unit servers.

    >>> two = DRFHInstance.from_dict({"resources": ["cpu"],
    ...     "servers": [{"name": "s", "capacity": [1], "count": 2}],
    ...     "users": [{"name": "u", "demand": [0.3]}]})
    >>> r = first_fit(two, split=True)
    >>> r.server_names, r.allocation[0, :, 0].round(6).tolist()
    (('s#0', 's#1'), [0.9, 0.9])
    """
    return _drfh_tasks(instance, best=False, method="first-fit", split=split)


def best_fit(instance: DRFHInstance, *, split: bool = False) -> DRFHResult:
    """Best-Fit DRFH: like First-Fit, on the fitting server minimising
    ``H(i, l) = || D_i / D_i1 - c_l / c_l1 ||_1`` (``c_l`` the server's free resources).

    ``H`` compares the shape of the task's demand with the shape of the machine's free
    capacity (both normalised by the first resource); the best fit keeps the
    machines' leftovers balanced and typically packs more tasks than First-Fit on
    heterogeneous servers (Wang, Li, Liang 2014, Sec. V-B; user guide (DRFH)).

    Parameters
    ----------
    instance : DRFHInstance
        Server classes (capacity per resource, count) and users (demand per task in
        the same units, weight, optional task cap; uncapped users take all they can).
    split : bool, default False
        Report the allocation per server (classes expanded, servers named ``name#k``
        as ``allockit.drfh.allocate`` does for ``lp``) instead of per class entry.

    Returns
    -------
    DRFHResult
        Status ``feasible``; whole tasks per user, global dominant shares
        ``G_i = tasks_i * d_i`` (``d_i`` the per-task dominant share of the pool) and
        resources per class entry.

    Examples
    --------
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"name": "s1", "capacity": [2, 12]}, {"name": "s2", "capacity": [12, 2]}],
    ...     "users": [{"name": "u1", "demand": [0.2, 1]}, {"name": "u2", "demand": [1, 0.2]}]})
    >>> best_fit(inst).tasks.tolist()
    [10.0, 10.0]
    """
    return _drfh_tasks(instance, best=True, method="best-fit", split=split)


def per_server_drf(instance: DRFHInstance, *, split: bool = False) -> DRFHResult:
    """Naive DRF applied to each server separately (the paper's Fig. 2 strawman).

    On each machine, tasks go one at a time to the user with the lowest weighted
    *local* dominant share (share of that machine) whose task fits, until none fits.

    Not Pareto optimal on heterogeneous servers: the baseline the DRFH paper argues
    against (Wang, Li, Liang 2014, Fig. 2).

    Parameters
    ----------
    instance : DRFHInstance
        Server classes (capacity per resource, count) and users (demand per task in
        the same units, weight, optional task cap; uncapped users take all they can).
    split : bool, default False
        Report the allocation per server (classes expanded, servers named ``name#k``
        as ``allockit.drfh.allocate`` does for ``lp``) instead of per class entry.

    Returns
    -------
    DRFHResult
        Status ``feasible``; whole tasks per user, global dominant shares
        ``G_i = tasks_i * d_i`` (``d_i`` the per-task dominant share of the pool) and
        resources per class entry.

    Examples
    --------
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"name": "s1", "capacity": [2, 12]}, {"name": "s2", "capacity": [12, 2]}],
    ...     "users": [{"name": "u1", "demand": [0.2, 1]}, {"name": "u2", "demand": [1, 0.2]}]})
    >>> per_server_drf(inst).tasks.tolist()
    [6.0, 6.0]
    """
    _refuse_large(instance, "per-server-drf")
    started = time.perf_counter()
    machines = np.repeat(instance.capacity, instance.count, axis=0)
    n, S = instance.n_users, machines.shape[0]
    remaining = instance.tasks.copy()
    placed = np.zeros((n, S))
    for s in range(S):
        free = machines[s].copy()
        local = (instance.demand / machines[s]).max(axis=1)  # local dominant share per task
        share = np.zeros(n)
        active = remaining > 0
        while active.any():
            cand = np.flatnonzero(active)
            i = int(cand[np.argmin(share[cand] / instance.weight[cand])])
            if (instance.demand[i] <= free + _EPS).all():
                free -= instance.demand[i]
                placed[i, s] += 1
                share[i] += local[i]
                remaining[i] -= 1
                active[i] = remaining[i] > 0
            else:
                active[i] = False
    return _result(instance, placed, method="per-server-drf", started=started, split=split)


def slots(
    instance: DRFHInstance, *, per_largest: int = 14, split: bool = False
) -> DRFHResult:
    """The slot scheduler: machines cut into slots of 1/``per_largest`` of the largest one.

    A machine of capacity ``c`` holds ``floor(min_r c_r / slot_r)`` slots; a task needs a
    slot at least as large as its demand in every resource (otherwise its user gets
    nothing); slots go one at a time to the user with the fewest (weighted) slots, as a
    fair slot scheduler does. 14 slots per largest server was the paper's best (Table II).

    Parameters
    ----------
    instance : DRFHInstance
        Server classes (capacity per resource, count) and users (demand per task in
        the same units, weight, optional task cap; uncapped users take all they can).

    per_largest : int, default 14
        Slots per largest server (>= 1); the slot size is the largest capacity of each
        resource divided by it.
    split : bool, default False
        Report the allocation per server (classes expanded, servers named ``name#k``
        as ``allockit.drfh.allocate`` does for ``lp``) instead of per class entry.

    Returns
    -------
    DRFHResult
        Status ``feasible``; whole tasks per user (one per slot). Its ``message`` says
        so when some users' tasks exceed a slot and get nothing.

    Raises
    ------
    InvalidInputError
        If ``per_largest`` is not an integer >= 1.

    Examples
    --------
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"name": "s", "capacity": [1, 1], "count": 2}],
    ...     "users": [{"name": "u", "demand": [0.05, 0.05]}]})
    >>> slots(inst, per_largest=10).tasks.tolist()
    [20.0]
    >>> slots(inst, per_largest=0)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: per_largest must be an integer in [1, 10000]; got 0
    """
    per_largest = integer("per_largest", per_largest, minimum=1, maximum=MAX_SLOTS_PER_LARGEST)
    _refuse_large(instance, "slots")
    started = time.perf_counter()
    size = instance.capacity.max(axis=0) / per_largest
    per_machine = np.floor(np.min(instance.capacity / size, axis=1) + 1e-9).astype(np.int64)
    machines = np.repeat(np.arange(instance.n_classes), instance.count)
    slot_machine = np.repeat(np.arange(machines.size), per_machine[machines])
    fits = (instance.demand <= size + _EPS).all(axis=1)
    remaining = np.where(fits, instance.tasks, 0.0)
    n = instance.n_users
    held = np.zeros(n)
    placed = np.zeros((n, machines.size))
    for machine in slot_machine:
        cand = np.flatnonzero(remaining > 0)
        if cand.size == 0:
            break
        i = int(cand[np.argmin(held[cand] / instance.weight[cand])])
        placed[i, machine] += 1
        held[i] += 1
        remaining[i] -= 1
    note = "" if fits.all() else "users whose task exceeds a slot get nothing"
    return _result(instance, placed, method="slots", started=started, message=note, split=split)
