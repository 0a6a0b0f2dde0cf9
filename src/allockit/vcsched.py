"""VCSched methods by name: ``solve(instance, method=...)`` and the method table.

Every exact model (``allockit.models``) and heuristic (``allockit.heuristics``) of
Stillwell et al. (2009) is registered here with the options it accepts
(``allockit.options``): the common ``time_limit``, ``threads`` and ``seed``, whose
effect per method is listed in ``METHOD_SPECS``, and the method's own options. Unknown
options are refused with the accepted list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance
from allockit.options import MethodSpec, check_common, check_options
from allockit.results import VCResult

__all__ = ["EXACT_METHODS", "HEURISTIC_METHODS", "METHODS", "METHOD_SPECS", "solve"]

_DETERMINISTIC = "ignored (deterministic)"
_INSTANT = "ignored (runs to completion; milliseconds)"
_SINGLE = "ignored (single-threaded)"
_RELAXATION_LIMIT = (
    "an LP relaxation estimated to need more is not started, and one that runs out "
    "stops (status time_limit)"
)


def _warm(
    instance: VCInstance, warm_start: bool, time_limit: float | None
) -> tuple[dict[str, Any], tuple[float, float], float | None]:
    """MCB8 (or ``adapt``) as the exact methods' incumbent and warm start.

    Returns the driver's keyword arguments, the heuristic's seconds as ``(setup,
    solving)`` (one-time numba loading apart), and the time limit left for the driver
    (the heuristic's time counts against the limit).
    """
    import time

    if not warm_start:
        return {}, (0.0, 0.0), time_limit
    from allockit.portfolio import warm_start_placement

    started = time.perf_counter()
    hosts, source, setup = warm_start_placement(instance)
    spent = time.perf_counter() - started
    if time_limit is not None:
        time_limit = max(1e-3, time_limit - spent)
    return {"initial": hosts, "initial_source": source}, (setup, spent - setup), time_limit


def _with_setup(result: VCResult, seconds: tuple[float, float]) -> VCResult:
    """Count the warm start's time in the result: setup apart, the rest as solving."""
    from dataclasses import replace

    setup, solving = seconds
    if not (setup or solving):
        return result
    return replace(
        result,
        setup_seconds=result.setup_seconds + setup,
        solve_seconds=result.solve_seconds + max(0.0, solving),
    )


def _milp(
    instance: VCInstance, *, time_limit=None, threads=None, seed=None, warm_start=True, **kw
) -> VCResult:
    from allockit.models.vcsched_solve import solve_load_milp

    start, setup, time_limit = _warm(instance, warm_start, time_limit)
    return _with_setup(
        solve_load_milp(
            instance, time_limit=time_limit, threads=threads, method="milp", **start, **kw
        ),
        setup,
    )


def _milp_paper(
    instance: VCInstance, *, time_limit=None, threads=None, seed=None, warm_start=True, **kw
) -> VCResult:
    from allockit.models.vcsched_solve import solve_paper_milp

    start, setup, time_limit = _warm(instance, warm_start, time_limit)
    return _with_setup(
        solve_paper_milp(
            instance, time_limit=time_limit, threads=threads, method="milp-paper", **start, **kw
        ),
        setup,
    )


def _cpsat(
    instance: VCInstance, *, time_limit=None, threads=None, seed=None, warm_start=True, **kw
) -> VCResult:
    from allockit.models.vcsched_solve import solve_cpsat_form

    start, setup, time_limit = _warm(instance, warm_start, time_limit)
    return _with_setup(
        solve_cpsat_form(
            instance,
            time_limit=time_limit,
            threads=threads,
            seed=0 if seed is None else seed,
            method="cpsat",
            **start,
            **kw,
        ),
        setup,
    )


def _best(instance: VCInstance, *, time_limit=None, threads=None, seed=None, **kw) -> VCResult:
    from allockit.portfolio import solve_best

    return solve_best(instance, time_limit=time_limit, threads=threads, seed=seed, **kw)


def _lp(instance: VCInstance, *, time_limit=None, threads=None, seed=None) -> VCResult:
    from allockit.models.vcsched_solve import solve_lp

    return solve_lp(instance, time_limit=time_limit, threads=threads, method="lp")


def _greedy(name: str) -> Callable[..., VCResult]:
    def run(instance: VCInstance, *, time_limit=None, threads=None, seed=None, **kw) -> VCResult:
        from allockit.heuristics.greedy import greedy

        return greedy(
            instance,
            sort_by_memory=name in ("sg", "sgb"),
            backtrack=name in ("gb", "sgb"),
            method=name,
            **kw,
        )

    return run


#: Seconds per (task, host) pair RRND/RRNZ spend on the LP relaxation with HiGHS
#: (measured 450 us at 500 jobs x 64 hosts on the shared machine, growing with size).
RELAXATION_SECONDS_PER_CELL = 4e-4


def _rounding(name: str) -> Callable[..., VCResult]:
    def run(instance: VCInstance, *, time_limit=None, threads=None, seed=None, **kw) -> VCResult:
        from allockit.heuristics.rounding import randomized_rounding

        cells = instance.n_tasks * instance.hosts
        if time_limit is not None and cells * RELAXATION_SECONDS_PER_CELL > time_limit:
            from allockit.evaluation.placement import empty_result
            from allockit.results import SolveStatus

            return empty_result(
                instance,
                method=name,
                status=SolveStatus.TIME_LIMIT,
                solver="heuristic",
                message=f"time limit: the LP relaxation of {cells} (task, host) pairs needs "
                f"about {cells * RELAXATION_SECONDS_PER_CELL:.0f} s, more than {time_limit} s; "
                "not started",
            )
        kw.setdefault("epsilon", 0.01 if name == "rrnz" else 0.0)
        return randomized_rounding(
            instance, seed=seed, method=name, time_limit=time_limit, threads=threads or 1, **kw
        )

    return run


def _mcb(name: str) -> Callable[..., VCResult]:
    def run(instance: VCInstance, *, time_limit=None, threads=None, seed=None, **kw) -> VCResult:
        from allockit.heuristics.mcb import MCB_VARIANTS, mcb

        key, descending = MCB_VARIANTS[name]
        return mcb(instance, key=key, descending=descending, method=name, **kw)

    return run


def _adapt(instance: VCInstance, *, time_limit=None, threads=None, seed=None, **kw) -> VCResult:
    from allockit.heuristics.adaptation import adapt

    return adapt(instance, method="adapt", **kw)


_HEURISTIC_COMMON = {"time_limit": _INSTANT, "threads": _SINGLE, "seed": _DETERMINISTIC}
_MCB_KEYS = {
    1: "sum, ascending",
    2: "difference, ascending",
    3: "ratio, ascending",
    4: "max, ascending",
    5: "sum, descending",
    6: "difference, descending",
    7: "ratio, descending",
    8: "max, descending",
}

#: Method name -> what it does and the options it accepts.
METHOD_SPECS: dict[str, MethodSpec] = {
    "milp": MethodSpec(
        "milp",
        "min-max-load MILP with symmetry breaking (HiGHS via Pyomo), warm-started by MCB8",
        ("rel_gap", "symmetry_breaking", "warm_start"),
        {"seed": "ignored (HiGHS runs with a fixed seed)"},
    ),
    "milp-paper": MethodSpec(
        "milp-paper",
        "the paper's e/alpha/Y MILP (HiGHS via Pyomo), warm-started by MCB8",
        ("rel_gap", "warm_start"),
        {"seed": "ignored (HiGHS runs with a fixed seed)"},
    ),
    "cpsat": MethodSpec(
        "cpsat",
        "compact integer form on data scaled by 1e8 (OR-Tools CP-SAT), MCB8 as hint",
        ("rel_gap", "warm_start"),
    ),
    "best": MethodSpec(
        "best",
        "portfolio: heuristics, local search, bin-packing bounds, branch and bound or "
        "CP-SAT warm-started; stops when the certified gap is within rel_gap",
        ("rel_gap", "exact"),
        {
            "time_limit": "the whole run (default 60 s)",
            "threads": "CP-SAT or HiGHS threads (default 1)",
        },
    ),
    "lp": MethodSpec(
        "lp",
        "rational relaxation, both phases: an upper bound (HiGHS via Pyomo)",
        (),
        {"seed": "ignored (deterministic)"},
    ),
    "gr": MethodSpec("gr", "greedy, jobs in input order", (), _HEURISTIC_COMMON),
    "sg": MethodSpec("sg", "greedy, jobs by decreasing memory", (), _HEURISTIC_COMMON),
    "gb": MethodSpec("gb", "greedy with backtracking", ("max_attempts",), _HEURISTIC_COMMON),
    "sgb": MethodSpec(
        "sgb", "sorted greedy with backtracking", ("max_attempts",), _HEURISTIC_COMMON
    ),
    "rrnd": MethodSpec(
        "rrnd",
        "randomised rounding of the LP relaxation",
        ("epsilon",),
        {"time_limit": _RELAXATION_LIMIT, "threads": "used by the LP relaxation (HiGHS)"},
    ),
    "rrnz": MethodSpec(
        "rrnz",
        "randomised rounding, zero probabilities raised to 0.01",
        ("epsilon",),
        {"time_limit": _RELAXATION_LIMIT, "threads": "used by the LP relaxation (HiGHS)"},
    ),
    **{
        f"mcb{k}": MethodSpec(
            f"mcb{k}",
            f"multi-capacity bin packing, yield bisection (key {_MCB_KEYS[k]})",
            ("tol",),
            _HEURISTIC_COMMON,
        )
        for k in range(1, 9)
    },
    "adapt": MethodSpec(
        "adapt",
        "migration-bounded adaptation of a previous placement",
        ("max_moves",),
        _HEURISTIC_COMMON,
    ),
}


def _with_ranges(specs: dict[str, MethodSpec]) -> dict[str, MethodSpec]:
    """Each method's own options get the range of their name (checked before solving)."""
    import dataclasses

    from allockit.constants import MAX_TASKS
    from allockit.options import Range

    ranges = {
        "rel_gap": Range(float, ge=0, le=1),
        "tol": Range(float, ge=1e-9, le=0.5),
        "max_attempts": Range(int, ge=1, le=10**10),
        "epsilon": Range(float, ge=0, lt=1),
        "max_moves": Range(int, ge=0, le=MAX_TASKS),
        "symmetry_breaking": Range(bool),
        "warm_start": Range(bool),
    }
    return {
        name: dataclasses.replace(
            spec, ranges={o: ranges[o] for o in spec.options if o in ranges}
        )
        for name, spec in specs.items()
    }


METHOD_SPECS = _with_ranges(METHOD_SPECS)

EXACT_METHODS = ("milp", "milp-paper", "cpsat", "lp", "best")
HEURISTIC_METHODS = tuple(name for name in METHOD_SPECS if name not in EXACT_METHODS)

#: Method name -> ``callable(instance, *, time_limit, threads, seed, **options) -> VCResult``.
METHODS: dict[str, Callable[..., VCResult]] = {
    "milp": _milp,
    "milp-paper": _milp_paper,
    "cpsat": _cpsat,
    "lp": _lp,
    "best": _best,
    **{name: _greedy(name) for name in ("gr", "sg", "gb", "sgb")},
    **{name: _rounding(name) for name in ("rrnd", "rrnz")},
    **{f"mcb{k}": _mcb(f"mcb{k}") for k in range(1, 9)},
    "adapt": _adapt,
}


def solve(
    instance: VCInstance,
    method: str | Callable[..., VCResult] = "milp",
    *,
    time_limit: float | None = None,
    threads: int | None = None,
    seed: int | None = None,
    **options: Any,
) -> VCResult:
    """Solve a VCSched instance with a named method or a callable.

    Parameters
    ----------
    instance : VCInstance
    method : str or callable
        A name of ``METHOD_SPECS`` (``"milp"``, the default, ``"milp-paper"``,
        ``"cpsat"``, ``"lp"``, ``"best"``, ``"gr"``, ``"sg"``, ``"gb"``, ``"sgb"``, ``"rrnd"``,
        ``"rrnz"``, ``"mcb1"`` ... ``"mcb8"``, ``"adapt"``), a registered plug-in, a
        ``"MODULE:FUNCTION"`` or ``"PATH/TO/FILE.py:FUNCTION"`` spec, or a callable
        ``f(instance, **options)`` returning a placement (for each job a host index or
        a list of host indices, one per task), None (no placement found: status
        ``no_solution``) or a ``VCResult`` (see ``allockit.evaluation.user_methods``).
    time_limit : float, optional
        Seconds. A timed-out solve returns its incumbent and gap with status
        ``time_limit``; heuristics run to completion (see the method table).
    threads : int, optional
        Solver threads (ignored by single-threaded methods).
    seed : int, optional
        Seed of CP-SAT and of the randomised roundings; deterministic methods ignore it.
    **options
        The method's own options (``rel_gap``, ``tol``, ``max_attempts``, ...). A user
        method gets them as they are, with the common options that are not None
        (checked against its ``method_spec`` attribute when it has one).

    Returns
    -------
    VCResult

    Raises
    ------
    InvalidInputError
        If ``method`` is not a known name or a spec that cannot be loaded, an option is
        not accepted by the method (the message lists the accepted ones), a common
        option has a bad value, a static heuristic is asked to respect migration
        limits, or a user method returns an invalid placement (naming job and host).

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> r = solve(inst)
    >>> str(r.status), round(r.min_yield, 4), round(r.avg_yield, 4)
    ('optimal', 0.8333, 0.8889)
    >>> solve(inst, "sg", tol=0.1)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: VCSched method 'sg' does not accept option 'tol'...
    >>> def first_host(instance, **options):
    ...     return [0] * instance.n_jobs   # every job on host 0
    >>> r = solve(inst, first_host)
    >>> str(r.status), round(r.min_yield, 4), r.method.endswith(":first_host")
    ('feasible', 0.5556, True)
    """
    from allockit.plugins import resolve

    resolved = resolve("vcsched", method, METHODS)
    if not resolved.builtin:
        return _solve_user(instance, resolved, time_limit, threads, seed, options)
    method = resolved.name
    spec = METHOD_SPECS[method]
    check_options(
        "VCSched method",
        spec,
        {**options, "time_limit": time_limit, "threads": threads, "seed": seed},
    )
    from allockit.solver import check_solver_options

    # refused before any work (a solver would reject them after the model is built)
    check_solver_options(threads=threads, rel_gap=options.get("rel_gap"))
    if instance.is_adaptation and method in HEURISTIC_METHODS and method != "adapt":
        raise InvalidInputError(
            f"method {method!r} ignores the previous placement and cannot respect "
            "migration limits; use adapt, best, milp, milp-paper or cpsat"
        )
    return METHODS[method](instance, time_limit=time_limit, threads=threads, seed=seed, **options)


def _solve_user(
    instance: VCInstance,
    resolved: Any,
    time_limit: float | None,
    threads: int | None,
    seed: int | None,
    options: dict[str, Any],
) -> VCResult:
    """Run a user's method and score what it returns (``evaluation.user_methods``).

    The common options that are not None are passed on; a method that declares a
    ``method_spec`` (an ``allockit.options.MethodSpec``) has its options checked first.
    """
    import time

    from allockit.evaluation.user_methods import score_method_output

    check_common(time_limit=time_limit, threads=threads, seed=seed)
    declared = getattr(resolved.function, "method_spec", None)
    common = {"time_limit": time_limit, "threads": threads, "seed": seed}
    given = {k: v for k, v in common.items() if v is not None}
    if isinstance(declared, MethodSpec):
        check_options("VCSched method", declared, {**options, **given})
    started = time.perf_counter()
    output = resolved.function(instance, **given, **options)
    return score_method_output(
        instance, output, method=resolved.name, seconds=time.perf_counter() - started
    )
