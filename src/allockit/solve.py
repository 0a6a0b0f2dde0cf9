"""``solve(instance, method=...)``: one entry point for every VCSched method."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance
from allockit.results import VCResult

__all__ = ["METHODS", "solve"]


def _milp(instance: VCInstance, **kw: Any) -> VCResult:
    from allockit.models.vcsched_solve import solve_load_milp

    return solve_load_milp(instance, method="milp", **kw)


def _milp_paper(instance: VCInstance, **kw: Any) -> VCResult:
    from allockit.models.vcsched_solve import solve_paper_milp

    return solve_paper_milp(instance, method="milp-paper", **kw)


def _cpsat(instance: VCInstance, **kw: Any) -> VCResult:
    from allockit.models.vcsched_solve import solve_cpsat_form

    return solve_cpsat_form(instance, method="cpsat", **kw)


def _lp(instance: VCInstance, **kw: Any) -> VCResult:
    from allockit.models.vcsched_solve import solve_lp

    kw.pop("seed", None)
    return solve_lp(instance, method="lp", **kw)


#: Method name -> callable(instance, **options) -> VCResult.
METHODS: dict[str, Callable[..., VCResult]] = {
    "milp": _milp,
    "milp-paper": _milp_paper,
    "cpsat": _cpsat,
    "lp": _lp,
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
        form, CP-SAT), ``"lp"`` (rational relaxation, an upper bound), or a callable
        ``f(instance, **options) -> VCResult``.
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
