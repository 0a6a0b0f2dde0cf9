"""The VCSched portfolio ``best``: heuristics, local search, bounds and exact search together.

The heuristics (``allockit.heuristics``) give incumbents in milliseconds, the local
search improves them, the closed-form bounds (``allockit.evaluation.bounds``) and the
exact components (``allockit.models``: a branch and bound for small instances, CP-SAT
or HiGHS with the incumbent as warm start) prove how good they are. This module sits
above both packages, which never import each other.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from allockit.constants import DEFAULT_REL_GAP
from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance
from allockit.results import SolveStatus, VCResult

__all__ = ["BEST_TIME_LIMIT", "PORTFOLIO_HEURISTICS", "solve_best", "warm_start_placement"]

#: Seconds ``best`` runs when no time limit is given (its exact phase has no end).
BEST_TIME_LIMIT = 60.0
#: Heuristics tried for the first incumbent, in this order, while time allows.
PORTFOLIO_HEURISTICS = ("mcb8", "mcb5", "mcb6", "mcb7", "sg", "gr", "mcb3", "mcb2")
#: Share of the time limit the heuristics may use after MCB8.
HEURISTIC_SHARE = 0.05
#: Share of the time limit the first local search may use.
LOCAL_SEARCH_SHARE = 0.15
#: Instances with at most this many tasks get the complete branch and bound.
BNB_MAX_TASKS = 40
#: CP-SAT is tried on instances with at most this many (job, host) pairs.
CPSAT_MAX_CELLS = 40_000
#: Seconds kept for scoring the final placement (average-yield phase, re-check).
RESERVE_SECONDS = 0.05
#: Share of the time limit kept free at the end (solver overshoot, final scoring).
END_MARGIN = 0.05
#: Share of the remaining time CP-SAT or HiGHS gets when the local search has other
#: starting placements to try (on the paper's large set restarts did more).
EXACT_SHARE = 0.3
#: Share of the remaining time the configuration LP (bound and dives) may use, and the
#: certified gap above which it runs (below it, the local search's restarts do more:
#: the LP bound is nearly tight where tasks are many per host).
COLUMNS_SHARE = 0.8
COLUMNS_MIN_GAP = 0.003
#: Cap on the local search's restarts in the last phase.
MAX_RESTARTS = 1000


def _min_yield(instance: VCInstance, task_hosts: np.ndarray) -> float:
    from allockit.evaluation.placement import min_yield_of

    return min_yield_of(instance, task_hosts)


@dataclass
class _Best:
    """The incumbent and the best bound, with the components that produced them."""

    task_hosts: np.ndarray | None = None
    min_yield: float = -1.0
    source: str = ""
    bound: float | None = None
    bound_source: str = ""

    def offer(self, instance: VCInstance, task_hosts: np.ndarray | None, source: str) -> bool:
        from allockit.evaluation.placement import min_yield_of, placement_violation

        if task_hosts is None or placement_violation(instance, task_hosts) is not None:
            return False
        y = min_yield_of(instance, task_hosts)
        if y > self.min_yield + 1e-12:
            self.task_hosts = np.asarray(task_hosts, dtype=np.int64).copy()
            self.min_yield, self.source = y, source
            return True
        return False

    def tighten(self, bound: float | None, source: str) -> None:
        if bound is not None and (self.bound is None or bound < self.bound):
            self.bound, self.bound_source = float(bound), source

    def certified(self, rel_gap: float) -> bool:
        return (
            self.task_hosts is not None
            and self.bound is not None
            and self.bound - self.min_yield <= rel_gap * self.bound + 1e-15
        )


def warm_start_placement(instance: VCInstance) -> tuple[np.ndarray | None, str, float]:
    """The fast incumbent the exact methods start from: MCB8, or ``adapt`` with migrations.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1) and jobs (CPU need per task in (0, 1], memory
        per task, tasks per job, as fractions of a host); for an adaptation instance,
        the previous placement and the migration budget or count.

    Returns
    -------
    task_hosts : numpy.ndarray or None
        A valid placement, or None when the heuristic found none.
    source : str
        ``"mcb8"`` or ``"adapt"``.
    setup_seconds : float
        One-time numba loading paid by the call (apart from solving time).

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> hosts, source, _ = warm_start_placement(inst)
    >>> source, sorted(np.bincount(hosts, minlength=2).tolist())
    ('mcb8', [1, 2])
    """
    if instance.is_adaptation:
        from allockit.heuristics.adaptation import adapt

        result, source = adapt(instance, method="adapt"), "adapt"
    else:
        from allockit.heuristics.mcb import mcb

        result, source = mcb(instance, key="max", descending=True, method="mcb8"), "mcb8"
    hosts = result.task_hosts if result.is_ok else None
    return hosts, source, result.setup_seconds


def _heuristic(instance: VCInstance, name: str) -> VCResult:
    from allockit.evaluation.lp_bound import lp_bound
    from allockit.heuristics.greedy import greedy
    from allockit.heuristics.mcb import MCB_VARIANTS, mcb

    if name in MCB_VARIANTS:
        key, descending = MCB_VARIANTS[name]
        # the yield bisection to 1e-4 of the LP bound (MCB's own tol is absolute,
        # too coarse when yields are small)
        tol = max(1e-12, 1e-4 * (lp_bound(instance) or 1.0))
        return mcb(instance, key=key, descending=descending, tol=tol, method=name)
    return greedy(instance, sort_by_memory=name == "sg", method=name)


def solve_best(
    instance: VCInstance,
    *,
    time_limit: float | None = None,
    threads: int | None = None,
    seed: int | None = None,
    rel_gap: float = DEFAULT_REL_GAP,
    exact: str = "auto",
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
       (within ``rel_gap``) the answer is ``optimal``, with no solver run.
    3. **Local search** (``allockit.heuristics.local_search``, numba): moves, swaps and
       exact two-host repartitions of the bottleneck host, with random kicks.
    4. **Exact search** with the incumbent as warm start: on small instances (at most
       40 tasks, no migration limits) a complete branch and bound
       (``allockit.models.vcsched_bnb``), which proves the optimum or infeasibility;
       otherwise CP-SAT with the incumbent as solution hint (instances of at most
       40,000 job-host pairs) or, with migration limits, the min-max-load MILP with
       HiGHS warm-started. Their bounds tighten the bound, their placements the
       incumbent; when the local search has other starting placements, the solver
       gets 30 % of the remaining time.
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
    time_limit : float, optional
        Seconds (> 0) for the whole run; default ``BEST_TIME_LIMIT`` (60 s). The run
        stops earlier when the gap is within ``rel_gap``.
    threads : int, optional
        CP-SAT or HiGHS threads (the heuristics, local search and branch and bound use
        one); default 1.
    seed : int, optional
        Seed of the local search's kicks and of CP-SAT (default 0).
    rel_gap : float, default DEFAULT_REL_GAP (1e-6)
        Certified relative gap at which the run stops and reports ``optimal``.
    exact : {"auto", "bnb", "cpsat", "milp", "none"}, default "auto"
        The exact component: ``auto`` picks as described above; ``none`` runs only the
        heuristics, the local search and the closed-form bounds.
    method : str, default "best"
        Method name recorded in the result.

    Returns
    -------
    VCResult
        Status ``optimal`` (certified within ``rel_gap``), ``infeasible`` (proven),
        ``time_limit`` (the limit stopped it: placement and certified gap), ``feasible``
        (every component finished without closing the gap), or ``error``.

    Raises
    ------
    InvalidInputError
        For an unknown ``exact`` or a ``rel_gap`` outside [0, 1).

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> r = solve_best(inst, time_limit=10)
    >>> str(r.status), round(r.min_yield, 6), r.incumbent_source, r.bound_source
    ('optimal', 0.833333, 'mcb8', 'bin-packing')
    """
    from allockit.evaluation.bounds import yield_upper_bound
    from allockit.evaluation.placement import empty_result, result_from_placement

    if exact not in ("auto", "bnb", "cpsat", "milp", "none"):
        raise InvalidInputError(f"exact must be one of auto, bnb, cpsat, milp, none; got {exact!r}")
    if isinstance(rel_gap, bool) or not isinstance(rel_gap, int | float) or not 0 <= rel_gap < 1:
        raise InvalidInputError(f"rel_gap must be a number in [0, 1); got {rel_gap!r}")
    start = time.perf_counter()
    limit = BEST_TIME_LIMIT if time_limit is None else float(time_limit)
    # stop the components a little early: the final scoring and a solver's own
    # overshoot must fit in the limit too
    deadline = start + (1.0 - END_MARGIN) * limit
    seed = 0 if seed is None else int(seed)

    def left() -> float:
        return deadline - time.perf_counter()

    setup = 0.0
    solver_seconds = 0.0
    build_seconds = 0.0
    notes: list[str] = []
    best = _Best()

    # 1. bounds and memory proofs
    from allockit.models.vcsched_solve import obviously_infeasible

    reason = obviously_infeasible(instance)
    bound, source = yield_upper_bound(instance)
    if reason or bound is None:
        return empty_result(
            instance,
            method=method,
            status=SolveStatus.INFEASIBLE,
            solver="bounds",
            solve_seconds=time.perf_counter() - start,
            message=reason
            or f"the tasks' memories cannot be packed into {instance.hosts} hosts (bin packing)",
            bound_source="memory",
        )
    best.tighten(bound, source)

    def done(status: SolveStatus, message: str = "") -> VCResult:
        if best.task_hosts is None:
            return empty_result(
                instance,
                method=method,
                status=status,
                bound=best.bound,
                bound_source=best.bound_source,
                solver="portfolio",
                build_seconds=build_seconds,
                solve_seconds=time.perf_counter() - start - setup - build_seconds,
                message=message,
                setup_seconds=setup,
            )
        result = result_from_placement(
            instance,
            best.task_hosts,
            method=method,
            status=status,
            bound=best.bound,
            bound_source=best.bound_source,
            solver="portfolio",
            build_seconds=build_seconds,
            message=message,
            setup_seconds=setup,
            incumbent_source=best.source,
        )
        if result.is_ok and result.gap is not None and result.gap <= rel_gap:
            result = replace(result, status=SolveStatus.OPTIMAL)
        total = time.perf_counter() - start
        return replace(result, solve_seconds=max(0.0, total - setup - build_seconds))

    def proven() -> VCResult:
        note = f"{best.source} reached the {best.bound_source} bound"
        if solver_seconds == 0.0:
            note += " (no solver run)"
        return done(SolveStatus.OPTIMAL, "; ".join([*notes, note]))

    # 2. heuristics; the first one's time (scoring included) sizes the reserve kept
    # for the final scoring
    reserve = RESERVE_SECONDS
    starts: list[tuple[str, np.ndarray]] = []  # every heuristic placement, for restarts
    if instance.is_adaptation:
        hosts, name, paid = warm_start_placement(instance)
        setup += paid
        best.offer(instance, hosts, name)
    else:
        for k, name in enumerate(PORTFOLIO_HEURISTICS):
            if k and (time.perf_counter() - start > HEURISTIC_SHARE * limit or left() <= 0):
                break
            result = _heuristic(instance, name)
            setup += result.setup_seconds
            if not k:
                reserve = min(0.2 * limit, max(RESERVE_SECONDS, result.solve_seconds))
            best.offer(instance, result.task_hosts if result.is_ok else None, name)
            if result.is_ok:
                starts.append((name, result.task_hosts))
            if best.certified(rel_gap):
                return proven()
        if best.task_hosts is None:
            from allockit.heuristics.local_search import memory_first_fit

            best.offer(instance, memory_first_fit(instance), "memory-first-fit")
    if best.certified(rel_gap):
        return proven()

    # 3. local search
    def local_search(
        share: float, origin: tuple[str, np.ndarray] | None = None, offset: int = 0
    ) -> None:
        nonlocal setup
        if best.task_hosts is None or instance.is_adaptation or left() <= reserve:
            return
        from allockit.heuristics.common import load_kernels
        from allockit.heuristics.local_search import improve_placement

        setup += load_kernels("local_search_kernel")
        name, hosts = origin if origin is not None else (best.source, best.task_hosts)
        budget = max(0.001, min(left() - reserve, share * limit))
        # a largest load of 1 / (bound * (1 - rel_gap)) certifies the incumbent
        stop = 1.0 / (best.bound * (1.0 - rel_gap)) if best.bound else 0.0
        improved = improve_placement(
            instance, hosts, stop_load=stop, time_limit=budget, seed=seed + offset
        )
        base = name.split("+", 1)[0]
        best.offer(instance, improved, f"{base}+local-search")

    local_search(0.05 if instance.n_tasks <= BNB_MAX_TASKS else LOCAL_SEARCH_SHARE)
    if best.certified(rel_gap):
        return proven()

    # 3b. the configuration LP: its bound, and a placement dived from its columns
    # (allockit.evaluation.config_search), improved by the local search; worth its
    # cost when the closed-form bound leaves more than COLUMNS_MIN_GAP
    if (
        instance.n_tasks > BNB_MAX_TASKS
        and not instance.is_adaptation
        and best.bound is not None
        and (best.task_hosts is None or best.bound - best.min_yield > COLUMNS_MIN_GAP * best.bound)
        and left() > reserve
    ):
        from allockit.evaluation.config_search import columns_certify
        from allockit.evaluation.knapsack import load_knapsack_kernel

        setup += load_knapsack_kernel()
        columns = columns_certify(
            instance,
            best.task_hosts,
            lower_load=1.0 / best.bound if best.bound and best.bound < 1.0 else None,
            placements=[hosts for _, hosts in starts],
            rel_gap=rel_gap,
            time_limit=COLUMNS_SHARE * (left() - reserve),
        )
        notes.append(columns.message)
        best.tighten(columns.bound, "configuration-lp")
        if best.offer(instance, columns.task_hosts, "configuration-lp"):
            starts.append(("configuration-lp", best.task_hosts))
            local_search(0.05)
        if best.certified(rel_gap):
            return proven()

    # 4. exact search
    choice = exact
    if choice == "auto":
        if instance.is_adaptation:
            choice = "milp"
        elif instance.n_tasks <= BNB_MAX_TASKS:
            choice = "bnb"
        elif instance.n_jobs * instance.hosts <= CPSAT_MAX_CELLS:
            choice = "cpsat"
        else:
            choice = "none"
    if choice == "bnb" and instance.is_adaptation:
        choice = "milp"
    if choice == "bnb" and left() > reserve:
        from allockit.models.vcsched_bnb import branch_and_bound

        load_bound = 1.0 / best.bound if best.bound else 1.0
        incumbent_load = None
        if best.task_hosts is not None:
            from allockit.evaluation.placement import host_loads

            incumbent_load = float(host_loads(instance, best.task_hosts)[0].max())
        t0 = time.perf_counter()
        outcome = branch_and_bound(
            instance,
            incumbent_load=incumbent_load,
            stop_load=max(1.0, load_bound),
            time_limit=max(0.001, left() - reserve),
        )
        solver_seconds += time.perf_counter() - t0
        best.offer(instance, outcome.task_hosts, "branch-and-bound")
        if outcome.complete:
            if outcome.load is None:
                return empty_result(
                    instance,
                    method=method,
                    status=SolveStatus.INFEASIBLE,
                    solver="branch-and-bound",
                    solve_seconds=time.perf_counter() - start - setup,
                    setup_seconds=setup,
                    message="the complete branch and bound found no placement",
                    bound_source="branch-and-bound",
                )
            best.tighten(1.0 / max(1.0, outcome.lower_bound), "branch-and-bound")
        else:
            notes.append(f"branch and bound stopped after {outcome.nodes} nodes")
    elif choice in ("cpsat", "milp") and left() > 2 * reserve:
        from allockit.models.vcsched_solve import solve_cpsat_form, solve_load_milp

        if choice == "cpsat":
            import ortools.sat.python.cp_model  # noqa: F401  (before the budget is set)
        else:
            import pyomo.environ  # noqa: F401
        # with other starting placements for the local search, the solver gets a share
        share = EXACT_SHARE if len(starts) > 1 and exact == "auto" else 1.0
        budget = max(0.01, share * (left() - reserve))
        kwargs = dict(
            time_limit=budget,
            threads=1 if threads is None else threads,
            rel_gap=rel_gap,
            initial=best.task_hosts,
            initial_source=best.source or "none",
        )
        if choice == "cpsat":
            exact_result = solve_cpsat_form(instance, seed=seed, method=method, **kwargs)
        else:
            exact_result = solve_load_milp(instance, method=method, **kwargs)
        solver_seconds += exact_result.solve_seconds
        build_seconds += exact_result.build_seconds
        if exact_result.status is SolveStatus.INFEASIBLE and best.task_hosts is None:
            return replace(
                exact_result,
                solve_seconds=time.perf_counter() - start - setup - build_seconds,
                setup_seconds=setup,
            )
        if exact_result.is_ok:
            best.offer(instance, exact_result.task_hosts, exact_result.incumbent_source)
        if exact_result.bound_source in ("highs", "cpsat"):
            best.tighten(exact_result.bound, exact_result.bound_source)
        if exact_result.message:
            notes.append(exact_result.message)
    if best.certified(rel_gap):
        return proven()

    # 5. the rest of the time: the local search restarted from every heuristic's
    # placement in turn (different local optima), with a new seed each round
    if not instance.is_adaptation:
        pool = sorted(starts, key=lambda item: -_min_yield(instance, item[1]))
        pool = pool or ([(best.source, best.task_hosts)] if best.task_hosts is not None else [])
        for turn in range(MAX_RESTARTS):
            if not pool or left() <= 2 * reserve or best.certified(rel_gap):
                break
            origin = pool[turn % len(pool)]
            if turn < len(pool) and origin[0] == best.source.split("+", 1)[0]:
                origin = (best.source, best.task_hosts)  # continue from the incumbent
            slice_ = max(0.02 * limit, (left() - reserve) / max(1, len(pool) - turn % len(pool)))
            local_search(slice_ / limit, origin, offset=1 + turn)
    if best.certified(rel_gap):
        return proven()
    timed_out = left() <= 2 * reserve
    if best.task_hosts is None:
        notes.append("no placement found; infeasibility not proven")
        return done(SolveStatus.TIME_LIMIT if timed_out else SolveStatus.ERROR, "; ".join(notes))
    return done(SolveStatus.TIME_LIMIT if timed_out else SolveStatus.FEASIBLE, "; ".join(notes))
