"""Cluster-reserves allocation methods by name: ``allocate_reserves(instance, method=...)``.

The one entry point to the per-node allocation of service classes (Li and Parker) used
by the command line (``allockit reserves``): Aron et al.'s cluster reserves (LP, QP and
a redistribution step; ``allockit.models.cluster_reserves``) and Li and Parker's bank
algorithm (``allockit.heuristics.bank``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from allockit.errors import InvalidInputError
from allockit.instances.reserves import ReservesInstance
from allockit.options import MethodSpec, check_options
from allockit.results import ReservesResult

__all__ = ["METHODS", "METHOD_SPECS", "RESERVES_METHODS", "allocate_reserves"]

#: Method name -> what it does and the options it accepts.
METHOD_SPECS: dict[str, MethodSpec] = {
    "bank": MethodSpec(
        "bank",
        "bank algorithm: one round of the six ticket steps (Li and Parker, Sec. 3.3)",
        (
            "c",
            "retention",
            "needy_tol",
            "step3",
            "give",
            "pay_fraction",
            "floor",
            "integer",
            "policy",
            "balance",
        ),
        {
            "time_limit": "ignored (instant)",
            "threads": "ignored (single-threaded)",
            "seed": "ignored (deterministic)",
        },
    ),
    "cluster-reserves": MethodSpec(
        "cluster-reserves",
        "cluster reserves: LP for the least deviation V, QP closest to usage, step 3",
        ("backend", "floor", "redistribute"),
        {"seed": "ignored (deterministic)"},
    ),
}

#: The method names.
RESERVES_METHODS = tuple(METHOD_SPECS)


def _bank(instance: ReservesInstance, **kw: Any) -> ReservesResult:
    from allockit.heuristics.bank import bank

    kw.pop("time_limit", None)
    kw.pop("threads", None)
    kw.pop("seed", None)
    return bank(instance, **kw)


def _cluster_reserves(instance: ReservesInstance, **kw: Any) -> ReservesResult:
    from allockit.models.cluster_reserves import cluster_reserves

    kw.pop("seed", None)
    return cluster_reserves(instance, **kw)


#: Method name -> ``callable(instance, **options) -> ReservesResult``.
METHODS: dict[str, Callable[..., ReservesResult]] = {
    "bank": _bank,
    "cluster-reserves": _cluster_reserves,
}


def allocate_reserves(
    instance: ReservesInstance,
    method: str | Callable[..., ReservesResult] = "bank",
    *,
    time_limit: float | None = None,
    threads: int | None = None,
    seed: int | None = None,
    **options: Any,
) -> ReservesResult:
    """Compute a new per-node allocation of service classes with a named method.

    Parameters
    ----------
    instance : ReservesInstance
        Targets, previous allocation and usage (percent).
    method : str or callable
        ``"bank"`` (default) or ``"cluster-reserves"``, or a callable
        ``f(instance, **options) -> ReservesResult``.
    time_limit, threads, seed
        The common options: cluster reserves passes ``time_limit`` and ``threads`` to
        HiGHS; the bank algorithm is instant and single-threaded; both are
        deterministic, so ``seed`` has no effect.
    **options
        The method's own options. ``bank``: ``c`` (adjustment, 2), ``retention`` (in
        [0, 1], 0), ``needy_tol``, ``step3``, ``give``, ``pay_fraction``, ``floor``,
        ``integer`` (see ``BankPolicy``), ``policy`` (a whole ``BankPolicy``),
        ``balance`` (balances carried from a previous round). ``cluster-reserves``:
        ``backend`` ("fast", "highspy", "pyomo"), ``floor`` (1), ``redistribute``
        (step 3, True).

    Returns
    -------
    ReservesResult

    Raises
    ------
    InvalidInputError
        For an unknown method, an option the method does not accept, or a bad value.

    Examples
    --------
    >>> inst = ReservesInstance.from_dict({"targets": [60, 30, 10],
    ...     "allocation": [[60, 30, 10]] * 4, "usage": [[66.7, 33.3, 0]] * 3 + [[60, 30, 10]]})
    >>> allocate_reserves(inst, "cluster-reserves").class_totals.round(6).tolist()
    [60.0, 30.0, 10.0]
    >>> idle = ReservesInstance.from_dict({"targets": [60, 30, 10],
    ...     "allocation": [[60, 30, 10]] * 4, "usage": [[66.7, 33.3, 0]] * 4})
    >>> (allocate_reserves(idle, "bank", c=2, retention=0.5).balances.round(6) + 0).tolist()
    [0.0, 0.0, 40.0]
    >>> allocate_reserves(inst, "bank", backend="fast")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: reserves ...'bank' does not accept option 'backend'...
    """
    if callable(method):
        return method(instance, **options)
    if not isinstance(method, str) or method not in METHODS:
        raise InvalidInputError(
            f"method must be one of {list(RESERVES_METHODS)}; got {method!r}"
        )
    check_options(
        "reserves",
        METHOD_SPECS[method],
        {**options, "time_limit": time_limit, "threads": threads, "seed": seed},
    )
    return METHODS[method](
        instance, time_limit=time_limit, threads=threads, seed=seed, **options
    )
