"""Cluster-reserves allocation methods by name: ``allocate_reserves(instance, method=...)``.

The one entry point to the per-node allocation of service classes (Li and Parker) used
by the command line (``allockit reserves``): Aron et al.'s cluster reserves (LP, QP and
a redistribution step; ``allockit.models.cluster_reserves``) and Li and Parker's bank
algorithm (``allockit.heuristics.bank``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from allockit.instances.reserves import ReservesInstance
from allockit.options import MethodSpec, Range, check_options, overrun_note, run_user_method
from allockit.results import ReservesResult

__all__ = ["METHODS", "METHOD_SPECS", "RESERVES_METHODS", "allocate_reserves"]

_BANK_OPTIONS: dict[str, tuple[Range | None, Any, str]] = {
    "c": (Range(float, ge=0), 2.0, "adjustment: how far a round moves tickets toward usage"),
    "retention": (Range(float, ge=0, le=1), 0.0, "share of each balance kept for the next round"),
    "needy_tol": (Range(float, ge=0), 1.0, "percentage points below which a node is needy"),
    "step3": (None, "full", "step 3's transfer rule: full, balanced or none"),
    "give": (None, "equal", "how a gift is spread over needy nodes: equal or proportional"),
    "pay_fraction": (Range(float, ge=0, le=1), 1.0, "share of a positive balance paid out"),
    "floor": (Range(int, ge=0, le=100), 0, "least tickets of every class on every node"),
    "integer": (Range(bool), True, "round to integer tickets (100 per node)"),
    "policy": (None, None, "a whole BankPolicy (the fields above override it)"),
    "balance": (None, None, "balances carried from a previous round, one per class"),
}
_RESERVES_OPTIONS: dict[str, tuple[Range | None, Any, str]] = {
    "backend": (None, "fast", "fast (min-cut and dual Newton), highspy or pyomo"),
    "floor": (Range(float, ge=0, le=100), 1.0, "lower bound on every class's share per node"),
    "redistribute": (Range(bool), True, "apply step 3 (redistribute unused shares)"),
    "solver": (None, "highs", "solver of the pyomo backend's LP and QP (any Pyomo solver)"),
}


def _spec(name: str, summary: str, table: dict, common: dict[str, str]) -> MethodSpec:
    return MethodSpec(
        name,
        summary,
        tuple(table),
        common,
        {k: r for k, (r, _, _) in table.items() if r is not None},
        {k: d for k, (_, d, _) in table.items()},
        {k: h for k, (_, _, h) in table.items()},
    )


#: Method name -> what it does and the options it accepts.
METHOD_SPECS: dict[str, MethodSpec] = {
    "bank": _spec(
        "bank",
        "bank algorithm: one round of the six ticket steps (Li and Parker, Sec. 3.3)",
        _BANK_OPTIONS,
        {
            "time_limit": "ignored (instant)",
            "threads": "ignored (single-threaded)",
            "seed": "ignored (deterministic)",
        },
    ),
    "cluster-reserves": _spec(
        "cluster-reserves",
        "cluster reserves: LP for the least deviation V, QP closest to usage, step 3 "
        "(solver= for backend='pyomo')",
        _RESERVES_OPTIONS,
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
        ``"bank"`` (default) or ``"cluster-reserves"``, a registered plug-in, a
        ``"MODULE:FUNCTION"`` or ``"PATH/TO/FILE.py:FUNCTION"`` spec, or a callable
        ``f(instance, **options)`` returning a ``ReservesResult`` or the next
        allocation (nodes x classes, percent), checked per node
        (``allockit.evaluation.reserves_allocation``).
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
        For an unknown method or a spec that cannot be loaded, an option the method
        does not accept, a bad value, or a user method's allocation over a node's 100 %.

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
    from allockit.plugins import resolve

    resolved = resolve("reserves", method, METHODS)
    if not resolved.builtin:
        return _allocate_user(instance, resolved, time_limit, threads, seed, options)
    method = resolved.name
    check_options(
        "reserves",
        METHOD_SPECS[method],
        {**options, "time_limit": time_limit, "threads": threads, "seed": seed},
    )
    if options.get("solver") is not None:
        from allockit.solver import check_solver_options

        check_solver_options(solver=options["solver"])  # a missing solver: before any work
    return METHODS[method](
        instance, time_limit=time_limit, threads=threads, seed=seed, **options
    )


def _allocate_user(
    instance: ReservesInstance,
    resolved: Any,
    time_limit: float | None,
    threads: int | None,
    seed: int | None,
    options: dict[str, Any],
) -> ReservesResult:
    """Run a user's method and check what it returns (``evaluation.reserves_allocation``)."""
    from allockit.evaluation.reserves_allocation import result_from_output

    output, seconds = run_user_method(
        "reserves method",
        resolved.function,
        instance,
        time_limit=time_limit,
        threads=threads,
        seed=seed,
        options=options,
        name=resolved.name,
    )
    result = result_from_output(instance, output, method=resolved.name, seconds=seconds)
    return replace(result, message=overrun_note(result.message, seconds, time_limit))
