"""The VCSched portfolio ``best``: heuristics, local search, bounds and exact search together.

The heuristics (``allockit.heuristics``) give incumbents in milliseconds, the local
search improves them, the closed-form bounds (``allockit.evaluation.bounds``) and the
exact components (``allockit.models``: a branch and bound for small instances, CP-SAT
or a MILP solver with the incumbent as warm start) prove how good they are. This
package sits above both packages, which never import each other.

- ``state``: what a run knows (the incumbent, the bound, the clocks, the times);
- ``phases``: the phases, each on that state (bounds, heuristics, local search, exact
  search, restarts);
- ``solve_best`` (here): the phases in order, stopping once the incumbent is certified.
"""

from __future__ import annotations

from allockit.checks import integer, real_number
from allockit.clock import Deadline
from allockit.constants import DEFAULT_REL_GAP
from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance
from allockit.options import check_common
from allockit.portfolio import phases
from allockit.portfolio.phases import (
    BNB_MAX_TASKS,
    CPSAT_MAX_CELLS,
    EXACT_SHARE,
    LOCAL_SEARCH_SHARE,
    MAX_RESTARTS,
    PORTFOLIO_HEURISTICS,
    warm_start_placement,
)
from allockit.portfolio.state import (
    BEST_TIME_LIMIT,
    END_MARGIN,
    HEURISTIC_SHARE,
    RESERVE_SECONDS,
    Incumbent,
    PortfolioRun,
)
from allockit.results import VCResult
from allockit.solver.catalog import DEFAULT_SOLVER

__all__ = [
    "BEST_TIME_LIMIT",
    "BNB_MAX_TASKS",
    "CPSAT_MAX_CELLS",
    "END_MARGIN",
    "EXACT_CHOICES",
    "EXACT_SHARE",
    "HEURISTIC_SHARE",
    "LOCAL_SEARCH_SHARE",
    "MAX_RESTARTS",
    "PORTFOLIO_HEURISTICS",
    "RESERVE_SECONDS",
    "Incumbent",
    "PortfolioRun",
    "solve_best",
    "warm_start_placement",
]

#: The exact components ``best`` can run (``exact=``).
EXACT_CHOICES = ("auto", "bnb", "cpsat", "milp", "none")


def solve_best(
    instance: VCInstance,
    *,
    time_limit: float | Deadline | None = None,
    threads: int | None = None,
    seed: int | None = None,
    rel_gap: float = DEFAULT_REL_GAP,
    exact: str = "auto",
    solver: str = DEFAULT_SOLVER,
    method: str = "best",
) -> VCResult:
    """Solve VCSched with a portfolio: heuristics, local search, bounds, exact search.

    1. **Bounds**: memory arguments (total memory, bin packing on memories) prove
       infeasibility at once; the LP bound ``min(1, H / sum a)`` and the bin-packing
       bound on CPU (``allockit.evaluation.bounds``) bound the minimum yield.
    2. **Heuristics**: MCB8, then MCB5, MCB6, MCB7, SG, GR, MCB3, MCB2 while 5 % of the
       time allows, with MCB's yield bisection to 1e-4 of the LP bound (``adapt`` for an
       instance with migration limits); the best placement is the incumbent,
       memory-first first-fit the last resort. As soon as the incumbent meets the bound
       (within ``rel_gap``) the answer is ``optimal``, with no solver run (``proof``
       ``"bound"``).
    3. **Local search** (``allockit.heuristics.local_search``, numba): moves, swaps and
       exact two-host repartitions of the bottleneck host, with random kicks.
    4. **Exact search** with the incumbent as warm start: on small instances (at most
       40 tasks, no migration limits) a complete branch and bound
       (``allockit.models.vcsched_bnb``), which proves the optimum or infeasibility;
       otherwise CP-SAT with the incumbent as solution hint (instances of at most
       40,000 job-host pairs) or, with migration limits, the min-max-load MILP on
       ``solver`` (HiGHS by default) warm-started. Their bounds tighten the bound,
       their placements the incumbent; when the local search has other starting
       placements, the solver gets 30 % of the time left.
    5. **Restarts**: the rest of the time, the local search restarts from every
       heuristic's placement in turn (new seed each round); the best placement wins.

    The result is re-scored on the exact data; ``incumbent_source`` and
    ``bound_source`` name the components that produced the placement and the bound,
    and ``gap`` is the certified relative gap.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host); for an adaptation instance,
        the previous placement and the migration budget or count.
    time_limit : float or Deadline, optional
        Seconds (> 0), or the caller's deadline, for the whole run; default
        ``BEST_TIME_LIMIT`` (60 s). The run stops earlier when the gap is within
        ``rel_gap``. Each phase gets its part of the time by ``Deadline.part``.
    threads : int, optional
        CP-SAT or HiGHS threads (the heuristics, local search and branch and bound use
        one); default 1.
    seed : int, optional
        Seed of the local search's kicks and of CP-SAT (default 0).
    rel_gap : float, default DEFAULT_REL_GAP
        Certified relative gap at which the run stops and reports ``optimal``.
    exact : {"auto", "bnb", "cpsat", "milp", "none"}, default "auto"
        The exact component: ``auto`` picks as described above; ``none`` runs only the
        heuristics, the local search and the closed-form bounds.
    solver : str, default "highs"
        The MILP solver of the exact phase when it runs the MILP (``exact="milp"`` or
        an instance with migration limits); see ``allockit.solver.SOLVERS``.
    method : str, default "best"
        Method name recorded in the result.

    Returns
    -------
    VCResult
        Status ``optimal`` (certified within ``rel_gap``), ``infeasible`` (proven),
        ``time_limit`` (the limit stopped it: placement and certified gap), ``feasible``
        (every component finished without closing the gap), or ``no_solution`` (no
        placement found, infeasibility not proven).

    Raises
    ------
    InvalidInputError
        For an instance that is not a ``VCInstance``, an unknown ``exact``, a
        ``rel_gap`` outside [0, 1), a bad ``time_limit`` or ``threads``, a ``seed``
        that is not an integer in [0, 2**64 - 1], or a ``solver`` or ``method`` that is
        not a name (all checked before anything runs).

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> r = solve_best(inst, time_limit=10)
    >>> str(r.status), round(r.min_yield, 6), r.incumbent_source, r.bound_source
    ('optimal', 0.833333, 'mcb8', 'bin-packing')
    """
    if not isinstance(instance, VCInstance):
        raise InvalidInputError(f"instance must be a VCInstance; got {type(instance).__name__}")
    if exact not in EXACT_CHOICES:
        raise InvalidInputError(f"exact must be one of {', '.join(EXACT_CHOICES)}; got {exact!r}")
    rel_gap = real_number("rel_gap", rel_gap, at_least=0, below=1, finite=False)
    check_common(  # (checked now, not when a phase first uses them)
        time_limit=None if isinstance(time_limit, Deadline) else time_limit, threads=threads
    )
    if seed is not None:
        seed = integer("seed", seed, minimum=0, maximum=2**64 - 1)
    for name, value in (("solver", solver), ("method", method)):
        if not isinstance(value, str) or not value:
            raise InvalidInputError(f"{name} must be a non-empty string; got {value!r}")
    run = PortfolioRun.start(
        instance,
        time_limit=time_limit,
        threads=threads,
        seed=seed,
        rel_gap=rel_gap,
        exact=exact,
        solver=solver,
        method=method,
    )
    answer = phases.bounds(run)
    if answer is not None:
        return answer
    phases.heuristics(run)
    if run.certified():
        return run.proven()
    small = instance.n_tasks <= BNB_MAX_TASKS
    phases.local_search(run, 0.05 if small else LOCAL_SEARCH_SHARE)
    if run.certified():
        return run.proven()
    phases.configuration_lp(run)
    if run.certified():
        return run.proven()
    answer = phases.exact_search(run)
    if answer is not None:
        return answer
    if run.certified():
        return run.proven()
    phases.restarts(run)
    return run.proven() if run.certified() else run.stopped()
