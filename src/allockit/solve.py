"""``solve(instance, method=...)``: one entry point for every VCSched method."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance
from allockit.results import VCResult

__all__ = ["EXACT_METHODS", "HEURISTIC_METHODS", "METHODS", "solve"]


def _milp(instance: VCInstance, **kw: Any) -> VCResult:
    from allockit.models.vcsched_solve import solve_load_milp

    kw.pop("seed", None)  # HiGHS runs with a fixed seed: the answer is deterministic
    return solve_load_milp(instance, method="milp", **kw)


def _milp_paper(instance: VCInstance, **kw: Any) -> VCResult:
    from allockit.models.vcsched_solve import solve_paper_milp

    kw.pop("seed", None)
    return solve_paper_milp(instance, method="milp-paper", **kw)


def _cpsat(instance: VCInstance, **kw: Any) -> VCResult:
    from allockit.models.vcsched_solve import solve_cpsat_form

    return solve_cpsat_form(instance, method="cpsat", **kw)


def _lp(instance: VCInstance, **kw: Any) -> VCResult:
    from allockit.models.vcsched_solve import solve_lp

    kw.pop("seed", None)
    return solve_lp(instance, method="lp", **kw)


def _heuristic(name: str) -> Callable[..., VCResult]:
    """A registry entry for a heuristic: drops solver-only options it does not use."""

    def run(instance: VCInstance, **kw: Any) -> VCResult:
        kw.pop("time_limit", None)
        kw.pop("threads", None)
        if instance.is_adaptation and name != "adapt":
            raise InvalidInputError(
                f"method {name!r} ignores the previous placement and cannot respect "
                "migration limits; use adapt, milp, milp-paper or cpsat"
            )
        if name in ("gr", "sg", "gb", "sgb"):
            from allockit.heuristics.greedy import greedy

            kw.pop("seed", None)
            return greedy(
                instance,
                sort_by_memory=name in ("sg", "sgb"),
                backtrack=name in ("gb", "sgb"),
                method=name,
                **kw,
            )
        if name in ("rrnd", "rrnz"):
            from allockit.heuristics.rounding import randomized_rounding

            kw.setdefault("epsilon", 0.01 if name == "rrnz" else 0.0)
            return randomized_rounding(instance, method=name, **kw)
        if name == "adapt":
            from allockit.heuristics.adaptation import adapt

            kw.pop("seed", None)
            return adapt(instance, method=name, **kw)
        from allockit.heuristics.mcb import MCB_VARIANTS, mcb

        kw.pop("seed", None)
        key, descending = MCB_VARIANTS[name]
        return mcb(instance, key=key, descending=descending, method=name, **kw)

    run.__name__ = f"heuristic_{name}"
    return run


EXACT_METHODS = ("milp", "milp-paper", "cpsat", "lp")
HEURISTIC_METHODS = (
    "gr",
    "sg",
    "gb",
    "sgb",
    "rrnd",
    "rrnz",
    *(f"mcb{k}" for k in range(1, 9)),
    "adapt",
)

#: Method name -> callable(instance, **options) -> VCResult.
METHODS: dict[str, Callable[..., VCResult]] = {
    "milp": _milp,
    "milp-paper": _milp_paper,
    "cpsat": _cpsat,
    "lp": _lp,
    **{name: _heuristic(name) for name in HEURISTIC_METHODS},
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
        ``"milp"`` (min-max-load MILP with symmetry breaking, HiGHS; the default),
        ``"milp-paper"`` (the paper's e/alpha/Y MILP), ``"cpsat"`` (compact integer
        form, CP-SAT), ``"lp"`` (rational relaxation, an upper bound), a heuristic
        (``gr``, ``sg``, ``gb``, ``sgb``, ``rrnd``, ``rrnz``, ``mcb1`` ... ``mcb8``,
        ``adapt``), or a callable ``f(instance, **options) -> VCResult``.
    time_limit : float, optional
        Seconds. A timed-out solve returns its incumbent and gap with status
        ``time_limit``.
    threads : int, optional
        Solver threads.
    seed : int, optional
        Solver seed (CP-SAT), or the heuristic's seed.
    **options
        Passed to the method; only allowed when ``method`` is given explicitly.

    Returns
    -------
    VCResult

    Raises
    ------
    InvalidInputError
        If ``method`` is not a known name (the message lists them).

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> r = solve(inst)
    >>> str(r.status), round(r.min_yield, 4), round(r.avg_yield, 4)
    ('optimal', 0.8333, 0.8889)
    """
    if callable(method):
        func = method
    else:
        try:
            func = METHODS[method]
        except (KeyError, TypeError):
            raise InvalidInputError(
                f"method must be one of {sorted(METHODS)}; got {method!r}"
            ) from None
    kwargs: dict[str, Any] = dict(options)
    if time_limit is not None:
        kwargs["time_limit"] = time_limit
    if threads is not None:
        kwargs["threads"] = threads
    if seed is not None:
        kwargs["seed"] = seed
    return func(instance, **kwargs)
