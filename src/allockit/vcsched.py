"""VCSched methods by name: ``solve(instance, method=...)`` and the method table.

Every exact model (``allockit.models``) and heuristic (``allockit.heuristics``) of
Stillwell et al. (2009) is registered here with the options it accepts
(``allockit.options``): the common ``time_limit``, ``threads`` and ``seed``, whose
effect per method is listed in ``METHOD_SPECS``, and the method's own options. Unknown
options are refused with the accepted list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from allockit.checks import real_number
from allockit.clock import Deadline
from allockit.constants import DEFAULT_REL_GAP
from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance
from allockit.options import MethodSpec, Range, check_options, overrun_note, run_user_method
from allockit.results import VCResult

__all__ = [
    "EXACT_METHODS",
    "HEURISTIC_METHODS",
    "METHODS",
    "METHOD_SPECS",
    "VCMethod",
    "solve",
]

_DETERMINISTIC = "ignored (deterministic)"
_INSTANT = "ignored (runs to completion; milliseconds)"
_SINGLE = "ignored (single-threaded)"
_RELAXATION_LIMIT = (
    "an LP relaxation estimated to need more is not started, and one that runs out "
    "stops (status time_limit)"
)


@dataclass(frozen=True, slots=True)
class VCMethod:
    """A VCSched method: its spec (summary, options, ranges) and how it runs.

    ``run(instance, *, time_limit, threads, seed, **options)`` gets the options checked
    against ``spec``; ``time_limit`` is a ``Deadline`` made where ``solve`` was called.
    ``kind`` is ``"exact"`` (a model run by a solver), ``"relaxation"`` (the LP bound),
    ``"portfolio"`` (``best``) or ``"heuristic"``.

    Examples
    --------
    >>> METHODS["milp"].kind, METHODS["milp"].spec.options[:2]
    ('exact', ('rel_gap', 'shortcut'))
    """

    spec: MethodSpec
    run: Callable[..., VCResult]
    kind: str


def _warm(instance: VCInstance, warm_start: bool) -> tuple[dict[str, Any], tuple[float, float]]:
    """MCB8 (or ``adapt``) as the exact methods' incumbent and warm start.

    Returns the driver's keyword arguments and the heuristic's seconds as ``(setup,
    solving)`` (one-time numba loading apart); its time counts against the deadline.
    """
    import time

    if not warm_start:
        return {}, (0.0, 0.0)
    from allockit.portfolio import warm_start_placement

    started = time.perf_counter()
    hosts, source, setup = warm_start_placement(instance)
    spent = time.perf_counter() - started
    return {"initial": hosts, "initial_source": source}, (setup, spent - setup)


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


def _exact(name: str, module: str, driver: str) -> Callable[..., VCResult]:
    """An exact method: MCB8's warm start (unless ``warm_start=False``), then the model."""

    def run(
        instance: VCInstance,
        *,
        time_limit: Deadline,
        threads: int | None = None,
        seed: int | None = None,
        warm_start: bool = True,
        **options: Any,
    ) -> VCResult:
        import importlib

        solve_model = getattr(importlib.import_module(module), driver)
        start, seconds = _warm(instance, warm_start)
        result = solve_model(
            instance,
            time_limit=time_limit,
            threads=threads,
            seed=0 if seed is None else seed,
            method=name,
            **start,
            **options,
        )
        return _with_setup(result, seconds)

    return run


def _best(instance: VCInstance, **options: Any) -> VCResult:
    from allockit.portfolio import solve_best

    return solve_best(instance, **options)


def _lp(instance: VCInstance, *, time_limit, threads=None, seed=None, **options) -> VCResult:
    from allockit.models.vcsched_lp import solve_lp

    return solve_lp(instance, time_limit=time_limit, threads=threads, method="lp", **options)


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
    def run(instance: VCInstance, *, time_limit, threads=None, seed=None, **kw) -> VCResult:
        from allockit.heuristics.rounding import randomized_rounding

        cells = instance.n_tasks * instance.hosts
        left = time_limit.left()
        if left is not None and cells * RELAXATION_SECONDS_PER_CELL > left:
            from allockit.evaluation.placement import empty_result
            from allockit.results import SolveStatus

            return empty_result(
                instance,
                method=name,
                status=SolveStatus.TIME_LIMIT,
                solver="heuristic",
                message=f"time limit: the LP relaxation of {cells} (task, host) pairs needs "
                f"about {cells * RELAXATION_SECONDS_PER_CELL:.0f} s, more than "
                f"{time_limit.limit:.6g} s; not started",
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
_SOLVER_SEED = {"seed": "the solver's random seed (default 0)"}
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


def _method(
    name: str,
    summary: str,
    run: Callable[..., VCResult],
    kind: str,
    options: tuple[str, ...] = (),
    common: dict[str, str] | None = None,
) -> VCMethod:
    """A method record; its own options get the range, default and meaning of their name."""
    ranges = {o: _RANGES[o] for o in options if o in _RANGES}
    defaults = {
        o: 0.01 if (name, o) == ("rrnz", "epsilon") else _OPTION_DOCS[o][0]
        for o in options
        if o in _OPTION_DOCS
    }
    helps = {o: _OPTION_DOCS[o][1] for o in options if o in _OPTION_DOCS}
    spec = MethodSpec(name, summary, options, common or {}, ranges, defaults, helps)
    return VCMethod(spec, run, kind)


#: Own option -> (default, meaning), listed by ``allockit methods`` (``epsilon``'s
#: default is per method: 0 for rrnd, 0.01 for rrnz).
_OPTION_DOCS: dict[str, tuple[Any, str]] = {
    "rel_gap": (1e-4, "relative gap at which the search stops (certified)"),
    "shortcut": (False, "skip the solver when MCB8 meets the closed-form bound (best: on)"),
    "solver": ("highs", "the Pyomo solver: highs, scip, gurobi, cplex, xpress, cbc, glpk"),
    "symmetry_breaking": (True, "order the loads of the identical hosts"),
    "warm_start": (True, "start the solver from MCB8's placement"),
    "exact": ("auto", "exact search after the heuristics: auto, bnb, cpsat, milp or none"),
    "max_attempts": (500_000, "placements tried by the backtracking before it gives up"),
    "epsilon": (0.0, "probability floor of the rounding (rrnz: zeros become epsilon)"),
    "tol": (1e-3, "tolerance of the binary search on the yield"),
    "max_moves": (10_000, "most task moves of the improvement phase"),
}


def _ranges() -> dict[str, Range]:
    from allockit.constants import MAX_TASKS

    return {
        "rel_gap": Range(float, ge=0, lt=1),
        "tol": Range(float, ge=1e-9, le=0.5),
        "max_attempts": Range(int, ge=1, le=10**10),
        "epsilon": Range(float, ge=0, lt=1),
        "max_moves": Range(int, ge=0, le=MAX_TASKS),
        "symmetry_breaking": Range(bool),
        "warm_start": Range(bool),
        "shortcut": Range(bool),
    }


_RANGES = _ranges()
_MODELS = "allockit.models"

#: Method name -> the method: its spec (what it does, its options) and its runner.
METHODS: dict[str, VCMethod] = {
    m.spec.name: m
    for m in (
        _method(
            "milp",
            "min-max-load MILP with symmetry breaking (Pyomo; HiGHS unless solver=), "
            "warm-started by MCB8",
            _exact("milp", f"{_MODELS}.vcsched_mip", "solve_load_milp"),
            "exact",
            ("rel_gap", "shortcut", "solver", "symmetry_breaking", "warm_start"),
            _SOLVER_SEED,
        ),
        _method(
            "milp-paper",
            "the paper's e/alpha/Y MILP (Pyomo; HiGHS unless solver=), warm-started by MCB8",
            _exact("milp-paper", f"{_MODELS}.vcsched_mip", "solve_paper_milp"),
            "exact",
            ("rel_gap", "shortcut", "solver", "warm_start"),
            _SOLVER_SEED,
        ),
        _method(
            "cpsat",
            "compact integer form on data scaled by 1e8 (OR-Tools CP-SAT), MCB8 as hint",
            _exact("cpsat", f"{_MODELS}.vcsched_cpsat_solve", "solve_cpsat_form"),
            "exact",
            ("rel_gap", "shortcut", "warm_start"),
        ),
        _method(
            "best",
            "portfolio: heuristics, local search, bin-packing bounds, branch and bound or "
            "CP-SAT warm-started; stops when the certified gap is within rel_gap",
            _best,
            "portfolio",
            ("rel_gap", "exact", "solver"),
            {
                "time_limit": "the whole run (default 60 s)",
                "threads": "CP-SAT or MILP solver threads (default 1)",
            },
        ),
        _method(
            "lp",
            "rational relaxation, both phases: an upper bound (Pyomo; HiGHS unless solver=)",
            _lp,
            "relaxation",
            ("solver",),
            {"seed": "ignored (deterministic)"},
        ),
        _method("gr", "greedy, jobs in input order", _greedy("gr"), "heuristic", (),
                _HEURISTIC_COMMON),
        _method("sg", "greedy, jobs by decreasing memory", _greedy("sg"), "heuristic", (),
                _HEURISTIC_COMMON),
        _method("gb", "greedy with backtracking", _greedy("gb"), "heuristic",
                ("max_attempts",), _HEURISTIC_COMMON),
        _method("sgb", "sorted greedy with backtracking", _greedy("sgb"), "heuristic",
                ("max_attempts",), _HEURISTIC_COMMON),
        *(
            _method(
                name,
                summary,
                _rounding(name),
                "heuristic",
                ("epsilon",),
                {"time_limit": _RELAXATION_LIMIT, "threads": "used by the LP relaxation (HiGHS)"},
            )
            for name, summary in (
                ("rrnd", "randomised rounding of the LP relaxation"),
                ("rrnz", "randomised rounding, zero probabilities raised to 0.01"),
            )
        ),
        *(
            _method(
                f"mcb{k}",
                f"multi-capacity bin packing, yield bisection (key {_MCB_KEYS[k]})",
                _mcb(f"mcb{k}"),
                "heuristic",
                ("tol",),
                _HEURISTIC_COMMON,
            )
            for k in range(1, 9)
        ),
        _method("adapt", "migration-bounded adaptation of a previous placement", _adapt,
                "heuristic", ("max_moves",), _HEURISTIC_COMMON),
    )
}

#: Method name -> its spec (the same records as ``METHODS``, for method tables).
METHOD_SPECS: dict[str, MethodSpec] = {name: m.spec for name, m in METHODS.items()}

EXACT_METHODS = tuple(n for n, m in METHODS.items() if m.kind != "heuristic")
HEURISTIC_METHODS = tuple(n for n, m in METHODS.items() if m.kind == "heuristic")


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
    check_solver_options(
        threads=threads, rel_gap=options.get("rel_gap"), solver=options.get("solver")
    )
    if instance.is_adaptation and method in HEURISTIC_METHODS and method != "adapt":
        raise InvalidInputError(
            f"method {method!r} ignores the previous placement and cannot respect "
            "migration limits; use adapt, best, milp, milp-paper or cpsat"
        )
    # the one clock of the run, made where the limit enters and handed down
    deadline = Deadline.of(time_limit)
    return METHODS[method].run(
        instance, time_limit=deadline, threads=threads, seed=seed, **options
    )


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
    A ``rel_gap`` option, if given, is also the gap within which its ``optimal`` stands.
    """
    from allockit.evaluation.user_methods import score_method_output

    output, seconds = run_user_method(
        "VCSched method",
        resolved.function,
        instance,
        time_limit=time_limit,
        threads=threads,
        seed=seed,
        options=options,
        name=resolved.name,
    )
    rel_gap = (options or {}).get("rel_gap")
    rel_gap = DEFAULT_REL_GAP if rel_gap is None else real_number(
        "rel_gap", rel_gap, at_least=0, below=1
    )
    result = score_method_output(
        instance, output, method=resolved.name, seconds=seconds, rel_gap=rel_gap
    )
    return replace(result, message=overrun_note(result.message, seconds, time_limit))
