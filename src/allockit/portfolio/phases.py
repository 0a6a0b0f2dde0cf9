"""The phases of ``best``, each on the run's state: bounds, heuristics, local search,
exact search and restarts. Each phase offers placements and bounds to the incumbent;
``solve_best`` stops as soon as the incumbent is certified."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from allockit.instances.vcsched import VCInstance
from allockit.portfolio.state import RESERVE_SECONDS, PortfolioRun
from allockit.results import SolveStatus, VCResult

__all__ = [
    "BNB_MAX_TASKS",
    "COLUMNS_MIN_GAP",
    "COLUMNS_SHARE",
    "CPSAT_MAX_CELLS",
    "EXACT_SHARE",
    "LOCAL_SEARCH_SHARE",
    "MAX_RESTARTS",
    "PORTFOLIO_HEURISTICS",
    "bounds",
    "configuration_lp",
    "exact_search",
    "heuristics",
    "local_search",
    "restarts",
    "warm_start_placement",
]

#: Heuristics tried for the first incumbent, in this order, while time allows.
PORTFOLIO_HEURISTICS = ("mcb8", "mcb5", "mcb6", "mcb7", "sg", "gr", "mcb3", "mcb2")
#: Share of the time left the first local search may use.
LOCAL_SEARCH_SHARE = 0.4
#: Instances with at most this many tasks get the complete branch and bound.
BNB_MAX_TASKS = 40
#: CP-SAT is tried on instances with at most this many (job, host) pairs.
CPSAT_MAX_CELLS = 40_000
#: Share of the remaining time CP-SAT or the MILP solver gets when the local search has
#: other starting placements to try (on the paper's large set restarts did more).
EXACT_SHARE = 0.3
#: Share of the remaining time the configuration LP (bound and dives) may use, and the
#: certified gap above which it runs (below it, the local search's restarts do more:
#: the LP bound is nearly tight where tasks are many per host).
COLUMNS_SHARE = 0.8
COLUMNS_MIN_GAP = 0.003
#: Cap on the local search's restarts in the last phase.
MAX_RESTARTS = 1000


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


def bounds(run: PortfolioRun) -> VCResult | None:
    """Memory proofs of infeasibility (the answer), else the closed-form bounds.

    Parameters
    ----------
    run : PortfolioRun
        The run; its incumbent's bound is tightened.

    Returns
    -------
    VCResult or None
        Status ``infeasible`` when memory alone proves it, else None.

    Examples
    --------
    >>> from allockit.portfolio.state import PortfolioRun
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> run = PortfolioRun.start(inst, time_limit=10, threads=None, seed=None,
    ...                          rel_gap=1e-4, exact="auto", solver="highs", method="best")
    >>> bounds(run) is None, round(run.best.bound, 6), run.best.bound_source
    (True, 0.833333, 'bin-packing')
    """
    from allockit.evaluation.bounds import yield_upper_bound
    from allockit.evaluation.placement import empty_result
    from allockit.models.vcsched_exact import obviously_infeasible

    instance = run.instance
    reason = obviously_infeasible(instance)
    bound, source = yield_upper_bound(instance)
    if reason or bound is None:
        return empty_result(
            instance,
            method=run.method,
            status=SolveStatus.INFEASIBLE,
            solver="bounds",
            solve_seconds=run.whole.elapsed(),
            message=reason
            or f"the tasks' memories cannot be packed into {instance.hosts} hosts (bin packing)",
            bound_source="memory",
        )
    run.best.tighten(bound, source)
    return None


def heuristics(run: PortfolioRun) -> None:
    """The heuristics while ``HEURISTIC_SHARE`` of the limit allows.

    The first one's time sizes the reserve kept for the final scoring; ``adapt`` runs
    instead on an instance with migration limits; memory-first first-fit is the last
    resort. Stops as soon as the incumbent is certified.

    Parameters
    ----------
    run : PortfolioRun
        The run; its incumbent gets the placements.

    Examples
    --------
    >>> from allockit.portfolio.state import PortfolioRun
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> run = PortfolioRun.start(inst, time_limit=10, threads=None, seed=None,
    ...                          rel_gap=1e-4, exact="auto", solver="highs", method="best")
    >>> _ = bounds(run); heuristics(run)
    >>> run.best.source, run.certified()
    ('mcb8', True)
    """
    instance, best = run.instance, run.best
    if instance.is_adaptation:
        hosts, name, paid = warm_start_placement(instance)
        run.setup += paid
        best.offer(instance, hosts, name)
        return
    for k, name in enumerate(PORTFOLIO_HEURISTICS):
        if k and (run.heuristics.expired() or run.components.expired()):
            break
        result = _heuristic(instance, name)
        run.setup += result.setup_seconds
        if not k:
            run.reserve = min(0.2 * run.limit, max(RESERVE_SECONDS, result.solve_seconds))
        best.offer(instance, result.task_hosts if result.is_ok else None, name)
        if result.is_ok:
            run.starts.append((name, result.task_hosts))
        if run.certified():
            return
    if best.task_hosts is None:
        from allockit.heuristics.local_search import memory_first_fit

        best.offer(instance, memory_first_fit(instance), "memory-first-fit")


def local_search(
    run: PortfolioRun,
    share: float,
    origin: tuple[str, np.ndarray] | None = None,
    offset: int = 0,
    floor: float = 0.0,
) -> None:
    """Improve ``origin`` (default: the incumbent) for ``share`` of the time left.

    Parameters
    ----------
    run : PortfolioRun
        The run; its incumbent gets the improved placement.
    share : float
        Share of the components' time left (after the reserve), by ``Deadline.part``.
    origin : tuple (str, numpy.ndarray), optional
        The placement to start from and its source.
    offset : int, default 0
        Added to the run's seed (a new seed each restart).
    floor : float, default 0
        Smallest budget in seconds.

    Examples
    --------
    >>> from allockit.portfolio.state import PortfolioRun
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> run = PortfolioRun.start(inst, time_limit=10, threads=None, seed=None,
    ...                          rel_gap=1e-4, exact="auto", solver="highs", method="best")
    >>> run.best.offer(inst, np.array([0, 0, 0]), "gr")
    True
    >>> local_search(run, 0.1); run.best.source, round(run.best.min_yield, 6)
    ('gr+local-search', 0.833333)
    """
    best = run.best
    if best.task_hosts is None or run.instance.is_adaptation or run.left() <= run.reserve:
        return
    from allockit.heuristics.common import load_kernels
    from allockit.heuristics.local_search import improve_placement

    run.setup += load_kernels("local_search_kernel")
    name, hosts = origin if origin is not None else (best.source, best.task_hosts)
    budget = run.components.part(share, keep=run.reserve, floor=max(floor, 0.001))
    # a largest load of 1 / (bound * (1 - rel_gap)) certifies the incumbent
    stop = 1.0 / (best.bound * (1.0 - run.rel_gap)) if best.bound else 0.0
    improved = improve_placement(
        run.instance, hosts, stop_load=stop, time_limit=budget,
        seed=(run.seed + offset) % 2**64,  # (the same seeds below 2**64 - offset)
    )
    best.offer(run.instance, improved, f"{name.split('+', 1)[0]}+local-search")


def configuration_lp(run: PortfolioRun) -> None:
    """The configuration LP's bound, and a placement dived from its columns.

    Runs (``allockit.evaluation.config_search.columns_certify``) on instances too large
    for the branch and bound, when the closed-form bound leaves a certified gap above
    ``COLUMNS_MIN_GAP`` (or there is no incumbent), for ``COLUMNS_SHARE`` of the time
    left; the bound tightens the run's, a dived placement is offered and improved by
    the local search.

    Parameters
    ----------
    run : PortfolioRun
        The run; its incumbent and bound are updated.

    Examples
    --------
    >>> from allockit.portfolio.state import PortfolioRun
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> run = PortfolioRun.start(inst, time_limit=10, threads=None, seed=None,
    ...                          rel_gap=1e-4, exact="auto", solver="highs", method="best")
    >>> configuration_lp(run); run.best.bound is None    # 3 tasks: branch and bound's size
    True
    """
    best, instance = run.best, run.instance
    if (
        instance.n_tasks <= BNB_MAX_TASKS
        or instance.is_adaptation
        or best.bound is None
        or (
            best.task_hosts is not None
            and best.bound - best.min_yield <= COLUMNS_MIN_GAP * best.bound
        )
        or run.left() <= run.reserve
    ):
        return
    from allockit.evaluation.config_lp import item_types
    from allockit.evaluation.config_search import columns_certify
    from allockit.evaluation.knapsack import MAX_PATTERN_CELLS, load_knapsack_kernel

    types = item_types(instance)[0].size
    if instance.n_tasks * types > MAX_PATTERN_CELLS:
        run.notes.append(
            f"configuration LP skipped: {instance.n_tasks} tasks of {types} kinds are "
            "beyond its first packings' room"
        )
        return

    run.setup += load_knapsack_kernel()
    columns = columns_certify(
        instance,
        best.task_hosts,
        lower_load=1.0 / best.bound if best.bound < 1.0 else None,
        placements=[hosts for _, hosts in run.starts],
        rel_gap=run.rel_gap,
        time_limit=run.components.part(COLUMNS_SHARE, keep=run.reserve, floor=0.001),
    )
    run.notes.append(columns.message)
    best.tighten(columns.bound, "configuration-lp")
    if best.offer(instance, columns.task_hosts, "configuration-lp"):
        run.starts.append(("configuration-lp", best.task_hosts))
        local_search(run, 0.05)


def _exact_choice(run: PortfolioRun) -> str:
    instance, choice = run.instance, run.exact
    if choice == "auto":
        if instance.is_adaptation:
            return "milp"
        if instance.n_tasks <= BNB_MAX_TASKS:
            return "bnb"
        if instance.n_jobs * instance.hosts <= CPSAT_MAX_CELLS:
            return "cpsat"
        return "none"
    return "milp" if choice == "bnb" and instance.is_adaptation else choice


def exact_search(run: PortfolioRun) -> VCResult | None:
    """The exact component (branch and bound, CP-SAT or the MILP) from the incumbent.

    Parameters
    ----------
    run : PortfolioRun
        The run; the component's placement and bound go to its incumbent.

    Returns
    -------
    VCResult or None
        The answer when the component proves infeasibility, else None.

    Examples
    --------
    >>> from allockit.portfolio.state import PortfolioRun
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> run = PortfolioRun.start(inst, time_limit=10, threads=None, seed=None,
    ...                          rel_gap=1e-4, exact="auto", solver="highs", method="best")
    >>> _ = bounds(run); exact_search(run) is None, run.best.source
    (True, 'branch-and-bound')
    """
    choice = _exact_choice(run)
    if choice == "bnb" and run.left() > run.reserve:
        return _branch_and_bound(run)
    if choice in ("cpsat", "milp") and run.left() > 2 * run.reserve:
        return _solver(run, choice)
    return None


def _branch_and_bound(run: PortfolioRun) -> VCResult | None:
    from allockit.evaluation.placement import empty_result, host_loads
    from allockit.models.vcsched_bnb import branch_and_bound

    instance, best = run.instance, run.best
    load_bound = 1.0 / best.bound if best.bound else 1.0
    incumbent_load = None
    if best.task_hosts is not None:
        incumbent_load = float(host_loads(instance, best.task_hosts)[0].max())
    t0 = time.perf_counter()
    outcome = branch_and_bound(
        instance,
        incumbent_load=incumbent_load,
        stop_load=max(1.0, load_bound),
        time_limit=run.components.part(keep=run.reserve, floor=0.001),
    )
    run.solver_seconds += time.perf_counter() - t0
    best.offer(instance, outcome.task_hosts, "branch-and-bound")
    if not outcome.complete:
        run.notes.append(f"branch and bound stopped after {outcome.nodes} nodes")
        return None
    if outcome.load is None:
        return empty_result(
            instance,
            method=run.method,
            status=SolveStatus.INFEASIBLE,
            solver="branch-and-bound",
            solve_seconds=run.whole.elapsed() - run.setup,
            setup_seconds=run.setup,
            message="the complete branch and bound found no placement",
            bound_source="branch-and-bound",
        )
    best.tighten(1.0 / max(1.0, outcome.lower_bound), "branch-and-bound")
    return None


def _solver(run: PortfolioRun, choice: str) -> VCResult | None:
    from allockit.models.vcsched_cpsat_solve import solve_cpsat_form
    from allockit.models.vcsched_mip import solve_load_milp

    best = run.best
    if choice == "cpsat":
        import ortools.sat.python.cp_model  # noqa: F401  (before the budget is set)
    else:
        import pyomo.environ  # noqa: F401
    # with other starting placements for the local search, the solver gets a share
    share = EXACT_SHARE if len(run.starts) > 1 and run.exact == "auto" else 1.0
    options = dict(
        time_limit=run.components.part(share, keep=run.reserve, floor=0.01),
        threads=1 if run.threads is None else run.threads,
        rel_gap=run.rel_gap,
        initial=best.task_hosts,
        initial_source=best.source or "none",
        method=run.method,
        seed=run.seed,
    )
    if choice == "cpsat":
        found = solve_cpsat_form(run.instance, **options)
    else:
        found = solve_load_milp(run.instance, solver=run.solver, **options)
    run.solver_seconds += found.solve_seconds
    run.build_seconds += found.build_seconds
    if found.status is SolveStatus.INFEASIBLE and best.task_hosts is None:
        return replace(
            found,
            solve_seconds=run.whole.elapsed() - run.setup - run.build_seconds,
            setup_seconds=run.setup,
        )
    if found.is_ok:
        best.offer(run.instance, found.task_hosts, found.incumbent_source)
    if found.bound_source in ("cpsat", run.solver):  # the solver's own bound
        best.tighten(found.bound, found.bound_source)
    if found.message:
        run.notes.append(found.message)
    return None


def restarts(run: PortfolioRun) -> None:
    """The rest of the time: the local search restarted from every heuristic's placement
    in turn (different local optima), with a new seed each round.

    Parameters
    ----------
    run : PortfolioRun
        The run; stops when the time is up or the incumbent is certified.

    Examples
    --------
    >>> from allockit.portfolio.state import PortfolioRun
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1] * 3)
    >>> run = PortfolioRun.start(inst, time_limit=10, threads=None, seed=None,
    ...                          rel_gap=1e-4, exact="auto", solver="highs", method="best")
    >>> _ = bounds(run); heuristics(run); restarts(run); run.certified()
    True
    """
    if run.instance.is_adaptation:
        return
    best = run.best
    pool = sorted(run.starts, key=lambda item: -_min_yield(run.instance, item[1]))
    pool = pool or ([(best.source, best.task_hosts)] if best.task_hosts is not None else [])
    for turn in range(MAX_RESTARTS):
        if not pool or run.left() <= 2 * run.reserve or run.certified():
            return
        origin = pool[turn % len(pool)]
        if turn < len(pool) and origin[0] == best.source.split("+", 1)[0]:
            origin = (best.source, best.task_hosts)  # continue from the incumbent
        rounds = max(1, len(pool) - turn % len(pool))
        local_search(run, 1.0 / rounds, origin, offset=1 + turn, floor=0.02 * run.limit)


def _min_yield(instance: VCInstance, task_hosts: np.ndarray) -> float:
    from allockit.evaluation.placement import min_yield_of

    return min_yield_of(instance, task_hosts)
