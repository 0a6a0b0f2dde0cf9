"""DRFH mechanisms by name: ``allocate(instance, method=...)`` and the method table.

The one entry point to the mechanisms of Wang, Li, Liang (2014) used by the command
line (``allockit drfh``) and by the fairness checker (``allockit.fairness``): the LP
(7) for unbounded tasks, progressive filling for finite tasks, First-Fit and Best-Fit
task placement, per-server DRF (a non-Pareto-optimal baseline) and the slot scheduler.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from allockit.instances.drfh import DRFHInstance
from allockit.options import MethodSpec, Range, check_options, overrun_note, run_user_method
from allockit.results import DRFHResult

__all__ = ["DRFH_METHODS", "METHODS", "METHOD_SPECS", "allocate"]

_NOT_USED = {
    "time_limit": "ignored (runs to completion)",
    "threads": "ignored (single-threaded)",
    "seed": "ignored (deterministic)",
}

_SPLIT = "report the allocation per server, not per server class"
_SOLVER = "a Pyomo solver (highs, scip, gurobi, cplex, xpress, cbc, glpk) to solve the Pyomo"

#: Method name -> what it does and the options it accepts.
METHOD_SPECS: dict[str, MethodSpec] = {
    "lp": MethodSpec(
        "lp",
        "LP (7): the largest equal weighted global dominant share; refused when a finite "
        "task cap would be exceeded (use progressive); solver= solves the Pyomo model",
        ("split", "solver"),
        _NOT_USED,
        {"split": Range(bool)},
        {"split": False},
        {"split": _SPLIT, "solver": _SOLVER + " model (default: HiGHS on the matrices)"},
    ),
    "progressive": MethodSpec(
        "progressive",
        "progressive filling of LP (7) for users with finite tasks (Sec. V-A); solver= "
        "solves its LPs as a Pyomo model",
        ("split", "tol", "solver"),
        _NOT_USED,
        {"split": Range(bool), "tol": Range(float, ge=1e-12, le=0.1)},
        {"split": False, "tol": 1e-9},
        {
            "split": _SPLIT,
            "tol": "relative tolerance of the common level's bisection",
            "solver": _SOLVER + " model of each LP (default: HiGHS on the matrices)",
        },
    ),
    "first-fit": MethodSpec(
        "first-fit",
        "indivisible tasks, lowest share first, first machine that fits",
        ("split",),
        _NOT_USED,
        {"split": Range(bool)},
        {"split": False},
        {"split": _SPLIT},
    ),
    "best-fit": MethodSpec(
        "best-fit",
        "indivisible tasks, lowest share first, best-fitting machine",
        ("split",),
        _NOT_USED,
        {"split": Range(bool)},
        {"split": False},
        {"split": _SPLIT},
    ),
    "per-server-drf": MethodSpec(
        "per-server-drf",
        "DRF on each server separately (not Pareto optimal)",
        ("split",),
        _NOT_USED,
        {"split": Range(bool)},
        {"split": False},
        {"split": _SPLIT},
    ),
    "slots": MethodSpec(
        "slots",
        "slot scheduler: slots of 1/S of the largest server",
        ("per_largest", "split"),
        _NOT_USED,
        {"per_largest": Range(int, ge=1, le=10_000), "split": Range(bool)},
        {"per_largest": 14, "split": False},
        {
            "per_largest": "slots per largest server (a slot is 1/S of its capacity)",
            "split": _SPLIT,
        },
    ),
}

#: The method names, in the order of the paper's comparison.
DRFH_METHODS = tuple(METHOD_SPECS)


def _lp(instance: DRFHInstance, **kw: Any) -> DRFHResult:
    from allockit.models.drfh_lp import drfh_lp

    return drfh_lp(instance, **kw)


def _progressive(instance: DRFHInstance, **kw: Any) -> DRFHResult:
    from allockit.models.drfh_lp import progressive_filling

    return progressive_filling(instance, **kw)


def _heuristic(name: str) -> Callable[..., DRFHResult]:
    def run(instance: DRFHInstance, **kw: Any) -> DRFHResult:
        from allockit.heuristics import drfh_tasks

        return getattr(drfh_tasks, name.replace("-", "_"))(instance, **kw)

    return run


#: Method name -> ``callable(instance, **options) -> DRFHResult``.
METHODS: dict[str, Callable[..., DRFHResult]] = {
    "lp": _lp,
    "progressive": _progressive,
    **{name: _heuristic(name) for name in ("first-fit", "best-fit", "per-server-drf", "slots")},
}


def allocate(
    instance: DRFHInstance,
    method: str | Callable[..., DRFHResult] = "lp",
    *,
    time_limit: float | None = None,
    threads: int | None = None,
    seed: int | None = None,
    **options: Any,
) -> DRFHResult:
    """Allocate a DRFH instance with a named mechanism or a callable.

    Parameters
    ----------
    instance : DRFHInstance
    method : str or callable
        One of ``DRFH_METHODS`` (``"lp"``, the default, ``"progressive"``,
        ``"first-fit"``, ``"best-fit"``, ``"per-server-drf"``, ``"slots"``), a
        registered plug-in, a ``"MODULE:FUNCTION"`` or ``"PATH/TO/FILE.py:FUNCTION"``
        spec, or a callable ``f(instance, **options)`` returning a ``DRFHResult`` or
        tasks per user and server class (checked against capacities and task caps:
        ``allockit.evaluation.drfh_allocation``).
    time_limit, threads, seed
        The common options, validated (``allockit.options.check_common``); every DRFH
        mechanism runs to completion, single-threaded and deterministically, so they
        have no effect on a named method. A callable gets those that are not None.
    **options
        The method's own options: ``split`` (every method: report per server, not per
        class), ``tol`` (progressive), ``per_largest`` (slots per largest server).
        With a callable ``method`` they are passed as they are.

    Returns
    -------
    DRFHResult

    Raises
    ------
    InvalidInputError
        For an unknown method, an option the method does not accept or out of its
        range, a bad common option (also with a callable), finite task caps that
        ``lp`` would exceed, or a user mechanism's allocation that breaks a capacity or
        a cap (naming the user or server).

    Examples
    --------
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"capacity": [1, 1]}], "users": [{"demand": [0.2, 0.1], "tasks": 3}]})
    >>> [float(t) for t in allocate(inst, "first-fit").tasks]
    [3.0]
    >>> allocate(inst, "lp", per_largest=3)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: DRFH method 'lp' does not accept option 'per_largest'...
    >>> [float(t) for t in allocate(inst, lambda inst, **kw: [[2]]).tasks]
    [2.0]
    """
    from allockit.plugins import resolve

    resolved = resolve("drfh", method, METHODS)
    if not resolved.builtin:
        return _allocate_user(instance, resolved, time_limit, threads, seed, options)
    method = resolved.name
    check_options(
        "DRFH method",
        METHOD_SPECS[method],
        {**options, "time_limit": time_limit, "threads": threads, "seed": seed},
    )
    if options.get("solver") is not None:
        from allockit.solver import check_solver_options

        check_solver_options(solver=options["solver"])  # a missing solver: before any work
    return METHODS[method](instance, **options)


def _allocate_user(
    instance: DRFHInstance,
    resolved: Any,
    time_limit: float | None,
    threads: int | None,
    seed: int | None,
    options: dict[str, Any],
) -> DRFHResult:
    """Run a user's mechanism and check what it returns (``evaluation.drfh_allocation``)."""
    from allockit.evaluation.drfh_allocation import result_from_output

    output, seconds = run_user_method(
        "DRFH method",
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
