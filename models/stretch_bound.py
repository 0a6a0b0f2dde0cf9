"""Lower bound on the optimal maximum (bounded) stretch: the LP of Theorem 1 (DFRS paper).

For a target stretch ``S`` every job gets the deadline ``d_j = r_j + S max(p_j, tau)``;
the sorted distinct release dates and deadlines cut time into intervals ``t``, and
``alpha[j, t]`` is the fraction of job ``j`` done in ``t`` (memory ignored; the user
guide's DFRS page, ``docs/user_guide/dfrs.rst``, states the model)::

    sum_t alpha[j, t] = 1;  alpha[j, t] = 0 outside [r_j, d_j];
    alpha[j, t] p_j <= len(t);  sum_j alpha[j, t] p_j c_j |T_j| <= |P| len(t).

Feasibility is monotone in ``S``. Two ways to the least feasible ``S``:

- ``bisection``: the paper's binary search, to a stated relative tolerance;
- ``exact``: the endpoints are affine in ``S``, so between two consecutive *breakpoints*
  (values of ``S`` where a deadline crosses a release date or another deadline) the
  interval structure is fixed and the problem is one LP in ``(alpha, S)``. A bisection
  over the sorted breakpoints finds the range holding the optimum, and that LP gives it
  exactly.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from allockit.checks import is_finite_real, is_real, real_number
from allockit.constants import TAU
from allockit.errors import InvalidInputError, SolverFailedError
from allockit.instances.workload import Workload
from allockit.results.stretch_bound import StretchBound

__all__ = [
    "TAU",
    "build_stretch_lp",
    "stretch_bound",
    "stretch_feasible",
    "stretch_lp_solution",
]


def _check_tau(tau: object) -> None:
    """Refuse a bounded-stretch threshold that is not a finite number >= 0 (seconds)."""
    real_number("tau", tau, at_least=0, note="seconds")


def _check_stretch(stretch: object) -> None:
    """Refuse a target stretch that is not a finite number (the LP needs finite deadlines)."""
    real_number("stretch", stretch)


def _data(workload: Workload, tau: float, *, shift: bool = True):
    r = workload.submit.astype(float)
    if shift and r.size:  # the bound does not depend on the clock's origin; its
        r = r - r.min()  # precision does (lengths as differences of 1e9 s carry 1e-7 s)
    w = np.maximum(workload.runtime, tau)
    p = workload.runtime.astype(float)
    demand = p * workload.cpu * workload.tasks  # node-seconds of work
    return r, w, p, demand


def _structure(r: np.ndarray, w: np.ndarray, s_ref: float):
    """Distinct endpoints (as affine e0 + e1 S) sorted at ``s_ref``, and each job's span.

    Endpoints are merged only when they are the same affine function (equal ``e0`` and
    ``e1``); each job's span is read from the positions of its own two endpoints, never
    by searching values. A tolerance (it was 1e-9 |t|) merged releases and deadlines up to
    1.7 s apart at HPC2N's clock values, in chains: a job released inside a chain lost its
    window and the "lower bound" came out up to 93x above a schedule's maximum stretch
    (RESULTS 13.11); and a deadline whose ``w S`` is below the clock's resolution keeps its
    own (short) interval, whose length ``w S`` the LP computes from the slopes.
    """
    n = r.size
    e0 = np.concatenate([r, r])
    e1 = np.concatenate([np.zeros_like(w), w])
    value = e0 + e1 * s_ref
    order = np.lexsort((e1, e0, value))
    e0, e1 = e0[order], e1[order]
    keep = np.ones(e0.size, dtype=bool)
    keep[1:] = (e0[1:] != e0[:-1]) | (e1[1:] != e1[:-1])
    position = np.empty(e0.size, dtype=np.int64)
    position[order] = np.cumsum(keep) - 1
    start, end = position[:n], position[n:]
    return e0[keep], e1[keep], start, end  # job j may use intervals start[j] .. end[j]-1


def _solve_lp(
    workload: Workload,
    s_lo: float,
    s_hi: float,
    s_ref: float,
    tau: float,
    *,
    minimise: bool,
    full: bool = False,
) -> Any:
    """Solve the LP with S in [s_lo, s_hi] (interval order taken at s_ref) with HiGHS.

    Returns the least feasible S in the range (or s_lo when only feasibility is asked and
    the system is feasible), None when infeasible. ``full`` (a schedule's intervals are
    asked for) keeps the workload's own clock, so that the interval ends are its times.
    """
    import highspy

    r, w, p, demand = _data(workload, tau, shift=not full)
    e0, e1, start, end = _structure(r, w, s_ref)
    n_int = e0.size - 1
    d0, d1 = np.diff(e0), np.diff(e1)  # len(t) = d0 + d1 S
    counts = np.maximum(0, end - start)
    n_alpha = int(counts.sum())
    job_of = np.repeat(np.arange(workload.n_jobs), counts)
    first = np.cumsum(counts) - counts
    interval_of = np.arange(n_alpha) - np.repeat(first, counts) + np.repeat(start, counts)
    s_col = n_alpha
    ncol = n_alpha + 1
    nodes = workload.platform.nodes
    inf = highspy.kHighsInf
    fixed = s_lo == s_hi
    rows, cols, vals = [np.asarray(job_of)], [np.arange(n_alpha)], [np.ones(n_alpha)]
    alpha_upper = np.ones(n_alpha)
    if fixed:
        # S fixed: alpha p_j <= len(t) is a column bound, and capacities are constants
        length = np.maximum(0.0, d0 + d1 * s_lo)
        alpha_upper = np.minimum(1.0, length[interval_of] / p[job_of])
        base2 = workload.n_jobs
        rows.append(base2 + interval_of)
        cols.append(np.arange(n_alpha))
        vals.append(demand[job_of])
        nrow = base2 + n_int
        lower = np.concatenate([np.ones(workload.n_jobs), np.full(n_int, -inf)])
        upper = np.concatenate([np.ones(workload.n_jobs), nodes * length])
    else:
        # rows: job completion (n), per-alpha length (n_alpha), interval capacity (n_int)
        base = workload.n_jobs
        rows += [base + np.arange(n_alpha), base + np.arange(n_alpha)]
        cols += [np.arange(n_alpha), np.full(n_alpha, s_col)]
        vals += [p[job_of], -d1[interval_of]]
        base2 = base + n_alpha
        rows += [base2 + interval_of, base2 + np.arange(n_int)]
        cols += [np.arange(n_alpha), np.full(n_int, s_col)]
        vals += [demand[job_of], -nodes * d1]
        nrow = base2 + n_int
        lower = np.concatenate([np.ones(workload.n_jobs), np.full(n_alpha + n_int, -inf)])
        upper = np.concatenate([np.ones(workload.n_jobs), d0[interval_of], nodes * d0])
    rows_a, cols_a, vals_a = (np.concatenate(x) for x in (rows, cols, vals))
    nz = vals_a != 0
    rows_a, cols_a, vals_a = rows_a[nz], cols_a[nz], vals_a[nz]
    order = np.lexsort((rows_a, cols_a))
    rows_a, cols_a, vals_a = rows_a[order], cols_a[order], vals_a[order]
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = ncol, nrow
    cost = np.zeros(ncol)
    cost[s_col] = 1.0 if minimise else 0.0
    lp.col_cost_ = cost
    lp.col_lower_ = np.concatenate([np.zeros(n_alpha), [s_lo]])
    lp.col_upper_ = np.concatenate([alpha_upper, [s_hi]])
    lp.row_lower_, lp.row_upper_ = lower, upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.searchsorted(cols_a, np.arange(ncol + 1)).astype(np.int32)
    lp.a_matrix_.index_ = rows_a.astype(np.int32)
    lp.a_matrix_.value_ = vals_a.astype(float)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    if not minimise:
        # measured: interior point without crossover is 2-3x faster than simplex on the
        # fixed-S feasibility LPs; simplex is 4x faster on the LP in (alpha, S)
        h.setOptionValue("solver", "ipm")
        h.setOptionValue("run_crossover", "off")
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        return None
    x = np.asarray(h.getSolution().col_value)
    if not full:
        return float(x[s_col])
    alpha = np.zeros((workload.n_jobs, n_int))
    alpha[job_of, interval_of] = np.clip(x[:n_alpha], 0.0, 1.0)
    stretch = float(x[s_col])
    return stretch, e0 + e1 * stretch, alpha


def stretch_lp_solution(
    workload: Workload, stretch: float, *, tau: float = TAU
) -> tuple[np.ndarray, np.ndarray] | None:
    """A solution of the Theorem 1 system: interval endpoints and ``alpha[j, t]``, or None.

    Solved with HiGHS (interior point) for the fixed ``stretch``. The solution is what
    ``allockit.proofs.theorem1.build_schedule`` turns into an explicit schedule.

    Parameters
    ----------
    workload : Workload
        Jobs (submit time ``r_j`` and run time ``p_j`` in seconds, ``|T_j|`` tasks of
        CPU need ``c_j``, a fraction of a node) and the number of nodes ``|P|``.
        Memory is ignored.
    stretch : float
        The target maximum bounded stretch ``S``: a finite number (>= 1 for a feasible
        system).
    tau : float, default TAU (10 s)
        Bounded-stretch threshold in seconds (a finite number >= 0): deadlines are
        ``r_j + S max(p_j, tau)``.

    Returns
    -------
    tuple (numpy.ndarray, numpy.ndarray) or None
        ``ends``: the sorted distinct release dates and deadlines in seconds (interval
        ``t`` is ``[ends[t], ends[t + 1]]``); ``alpha``, shape ``(n_jobs, n_intervals)``:
        the fraction of each job done in each interval, in [0, 1]. None when the
        system is infeasible.

    Raises
    ------
    InvalidInputError
        If ``stretch`` is not a finite number or ``tau`` not a finite number >= 0.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0], runtime=[50], tasks=[1],
    ...                        cpu=[1.0], mem=[0.1])
    >>> ends, alpha = stretch_lp_solution(w, 1.0)
    >>> ends.tolist(), alpha.tolist()
    ([0.0, 50.0], [[1.0]])
    >>> stretch_lp_solution(w, float("inf"))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: stretch must be a finite number; got inf

    References
    ----------
    .. [1] H. Casanova, M. Stillwell, F. Vivien (2011), Dynamic fractional resource
       scheduling vs. batch scheduling, Theorem 1.
    """
    _check_stretch(stretch)
    _check_tau(tau)
    solved = _solve_lp(workload, stretch, stretch, stretch, tau, minimise=False, full=True)
    if solved is None:
        return None
    _, ends, alpha = solved
    # intervals shorter than the clock's resolution have equal float ends (distinct
    # affine endpoints, e.g. a deadline 1e-8 s after a release at 1e9 s): their work is
    # given to the interval before, so that the ends increase strictly
    if ends.size > 1:
        positive = np.diff(ends) > 0
        if not positive.all():
            target = np.maximum.accumulate(np.where(positive, np.arange(positive.size), -1))
            target = np.maximum(target, 0)
            folded = np.zeros((alpha.shape[0], int(positive.sum()) or 1))
            column = np.cumsum(positive) - 1
            np.add.at(folded.T, np.maximum(column[target], 0), alpha.T)
            ends = ends[np.concatenate(([True], positive))]
            alpha = folded[:, : max(ends.size - 1, 0)]
    return ends, alpha


def stretch_feasible(
    workload: Workload, stretch: float, *, tau: float = TAU, solver: str | None = None
) -> bool:
    """Whether the Theorem 1 system has a solution for maximum stretch ``stretch``.

    By Theorem 1, a solution exists if and only if some schedule (with free
    preemption and migration, memory ignored) meets every job's deadline
    ``r_j + S max(p_j, tau)``; so a False is a proof that no scheduler reaches a
    maximum bounded stretch of ``stretch``.

    Parameters
    ----------
    workload : Workload
        Jobs (submit time ``r_j`` and run time ``p_j`` in seconds, ``|T_j|`` tasks of
        CPU need ``c_j``, a fraction of a node) and the number of nodes ``|P|``.
        Memory is ignored.
    stretch : float
        The target maximum bounded stretch ``S`` (>= 1 for a feasible system; below 1
        or NaN the answer is False); ``+inf`` (no deadline) is refused.
    tau : float, default TAU (10 s)
        Bounded-stretch threshold in seconds (a finite number >= 0): deadlines are
        ``r_j + S max(p_j, tau)``.
    solver : str, optional
        Solve the Pyomo model ``build_stretch_lp`` with this solver
        (``allockit.solver.SOLVERS``: ``"highs"``, ``"scip"``, ...) instead of the
        built-in HiGHS matrices.

    Returns
    -------
    bool
        False for ``stretch < 1`` (or NaN) without solving.

    Raises
    ------
    InvalidInputError
        If ``stretch`` is not a number or is ``+inf``, or ``tau`` is not a finite
        number >= 0.
    SolverFailedError
        If ``solver`` ends without deciding (neither a solution nor a proof of
        infeasibility).

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[100, 100],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.1, 0.1])
    >>> stretch_feasible(w, 1.99), stretch_feasible(w, 2.0)
    (False, True)
    >>> stretch_feasible(w, 1.99, solver="highs"), stretch_feasible(w, 2.0, solver="highs")
    (False, True)
    >>> stretch_feasible(w, 2.0, tau=float("nan"))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: tau must be a finite number >= 0 (seconds); got nan

    References
    ----------
    .. [1] H. Casanova, M. Stillwell, F. Vivien (2011), Dynamic fractional resource
       scheduling vs. batch scheduling, Theorem 1.
    """
    _check_tau(tau)
    if not is_real(stretch) or (stretch > 0 and not is_finite_real(stretch)):
        raise InvalidInputError(f"stretch must be a number below +inf; got {stretch!r}")
    if not stretch >= 1:
        return False
    if solver is None:
        return _solve_lp(workload, stretch, stretch, stretch, tau, minimise=False) is not None
    from allockit.results import SolveStatus
    from allockit.solver import solve_pyomo

    report = solve_pyomo(build_stretch_lp(workload, stretch, tau=tau), solver=solver)
    if report.status is SolveStatus.INFEASIBLE:
        return False
    if report.has_solution:
        return True
    raise SolverFailedError(
        f"solver {solver!r} did not decide the stretch LP at stretch {stretch!r}: "
        f"{report.message}"
    )


#: Sum of the scaled source capacities of the max-flow check (int64 arithmetic).
_FLOW_UNITS = 2.0**50  # below 2**53: every scaled capacity is an exact float integer
#: Relative width to which the exact method brackets the least feasible stretch.
EXACT_RTOL = 1e-12
#: Relative width below which an undecided max flow ends the search (no final LP): the
#: stated accuracy of the exact method.
EXACT_ACCURACY = 1e-8


def _flow_check(workload: Workload, stretch: float, tau: float) -> bool | None:
    """The Theorem 1 system for a fixed ``stretch`` as a max flow; None when unsure.

    With ``x_jt = alpha_jt * demand_j`` (node-seconds of job ``j`` in interval ``t``)
    the system is a transportation problem: source -> job ``j`` (capacity
    ``demand_j``), job -> interval ``t`` inside ``[r_j, d_j]`` (``len(t) * c_j |T_j|``:
    no job runs faster than on dedicated nodes), interval -> sink (``|P| len(t)``); it
    is feasible iff the max flow saturates the sources. OR-Tools' max flow takes
    integers, so capacities are scaled to about 2^50 units and rounded twice: rounded in
    the system's disfavour, a saturating flow proves feasibility; rounded in its favour,
    a deficit proves infeasibility. Between the two (a rounding-sized margin) the answer
    is None and the caller solves the LP.
    """
    return _flow_probe(workload, stretch, tau)[0]


def _flow_probe(
    workload: Workload, stretch: float, tau: float
) -> tuple[bool | None, float | None]:
    """``_flow_check``'s answer and, when infeasible, where the minimum cut says to look.

    The second value is the stretch at which the minimum cut found (its capacity is
    affine in the stretch while the intervals keep their order) would carry the whole
    demand: every smaller stretch in the same breakpoint range is infeasible too, so it
    is the next point worth checking (a parametric, Newton-like step). It only guides
    the search; every answer still comes from a max flow. None when not available.
    """
    from ortools.graph.python import max_flow

    r, w, _, demand = _data(workload, tau)
    e0, e1, start, end = _structure(r, w, stretch)
    length = np.maximum(0.0, np.diff(e0 + e1 * stretch))
    counts = np.maximum(0, end - start)
    n, n_int = workload.n_jobs, length.size
    first = np.cumsum(counts) - counts
    job_of = np.repeat(np.arange(n), counts)
    interval_of = (
        np.arange(int(counts.sum())) - np.repeat(first, counts) + np.repeat(start, counts)
    )
    rate = workload.cpu * workload.tasks
    nodes = workload.platform.nodes
    scale = _FLOW_UNITS / max(float(demand.sum()), 1e-300)
    source, sink = n + n_int, n + n_int + 1
    # node indices as int32 when they fit: OR-Tools takes them 2-3x faster than int64
    index = np.int32 if sink < 2**31 - 1 else np.int64
    tails = np.concatenate(
        [np.full(n, source, index), job_of.astype(index), np.arange(n, sink - 1, dtype=index)]
    )
    heads = np.concatenate(
        [np.arange(n, dtype=index), (n + interval_of).astype(index), np.full(n_int, sink, index)]
    )
    raw = np.concatenate([demand, length[interval_of] * rate[job_of], length * nodes]) * scale
    if not np.isfinite(raw).all() or raw.max(initial=0.0) > 2.0**62:
        return None, None
    # rounded against feasibility first: a saturating flow proves feasibility
    need = np.ceil(raw[:n])
    flow, solver = _max_flow(max_flow, tails, heads, need, np.floor(raw[n:]), source, sink)
    if flow is None:
        return None, None
    if flow >= int(need.sum()):
        return True, None
    side = np.zeros(n + n_int + 2, dtype=bool)
    side[np.asarray(solver.get_source_side_min_cut(), dtype=np.int64)] = True
    # the cut's capacity as a + b * S: sources of the jobs outside it, job -> interval
    # arcs leaving it, interval -> sink arcs of the intervals inside it
    d0, d1 = np.diff(e0), np.diff(e1)
    cross = side[job_of] & ~side[n + interval_of]
    inside = side[n : n + n_int]
    a = float(demand[~side[:n]].sum())
    a += float((rate[job_of[cross]] * d0[interval_of[cross]]).sum()) + nodes * float(
        d0[inside].sum()
    )
    b = float((rate[job_of[cross]] * d1[interval_of[cross]]).sum()) + nodes * float(
        d1[inside].sum()
    )
    root = (float(demand.sum()) - a) / b if b > 0 else None
    # Rounded in its favour, every source capacity can only shrink and each other arc
    # grows by at most one unit, so that max flow is at most this one plus the number
    # of those arcs: a deficit larger than that proves infeasibility without a solve.
    need_favour = np.floor(raw[:n])
    if flow + (raw.size - n) < int(need_favour.sum()):
        return False, root
    flow, _ = _max_flow(max_flow, tails, heads, need_favour, np.ceil(raw[n:]), source, sink)
    if flow is None:
        return None, None
    if flow < int(need_favour.sum()):
        return False, root  # infeasible even when rounded in its favour
    return None, None


def _max_flow(
    max_flow: Any,
    tails: np.ndarray,
    heads: np.ndarray,
    need: np.ndarray,
    caps: np.ndarray,
    source: int,
    sink: int,
) -> tuple[int | None, Any]:
    """The max flow of one rounding of the transportation network and its solver."""
    capacity = np.empty(need.size + caps.size, dtype=np.int64)
    capacity[: need.size] = need  # exact: the roundings are integers below 2^53
    capacity[need.size :] = caps
    solver = max_flow.SimpleMaxFlow()
    solver.add_arcs_with_capacity(tails, heads, capacity)
    if solver.solve(source, sink) != solver.OPTIMAL:
        return None, solver
    return int(solver.optimal_flow()), solver


def _feasible(workload: Workload, stretch: float, tau: float, solver: str | None = None) -> bool:
    """Feasibility of the Theorem 1 system: the max-flow check, the LP when it is unsure.

    With ``solver`` the check is the Pyomo LP solved by that solver.
    """
    if not stretch >= 1:
        return False
    if solver is not None:
        return stretch_feasible(workload, stretch, tau=tau, solver=solver)
    answer = _flow_check(workload, stretch, tau)
    if answer is None:
        return stretch_feasible(workload, stretch, tau=tau)
    return answer


def _upper_start(workload: Workload, tau: float, solver: str | None = None) -> float:
    hi = 2.0
    while not _feasible(workload, hi, tau, solver):
        hi *= 2
        if hi > 1e12:
            raise InvalidInputError("no finite stretch is feasible (check the workload)")
    return hi


def _breakpoints(workload: Workload, tau: float, lo: float, hi: float) -> np.ndarray:
    r, w, _, _ = _data(workload, tau)
    pts = []
    # deadline j meets release k: r_j + S w_j = r_k
    diff_r = r[None, :] - r[:, None]
    pts.append((diff_r / w[:, None]).ravel())
    # deadline j meets deadline k: S = (r_k - r_j) / (w_j - w_k)
    dw = w[:, None] - w[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        pts.append((diff_r / dw).ravel())
    allp = np.concatenate(pts)
    allp = allp[np.isfinite(allp) & (allp > lo) & (allp < hi)]
    return np.unique(allp)


#: The exact method lists the breakpoints (pairs of jobs) only up to this many pairs
#: (5,000 jobs; two float arrays of this size); beyond, it closes in without them.
GRID_PAIRS = 25_000_000
#: Relative width to which ``_approach`` brings the bracket before ``_narrow``.
_APPROACH_RTOL = 1e-3


def _approach(
    workload: Workload, tau: float, s_lo: float, s_hi: float, lps: int
) -> tuple[float, float, int, float | None]:
    """Bring ``[s_lo, s_hi]`` (infeasible, feasible) to ``_APPROACH_RTOL`` without a grid.

    For workloads too large to list the breakpoints. Bisection steps alternate with the
    point an infeasible check's minimum cut proposes (``_flow_probe``; valid as a step
    within its breakpoint range, a guess beyond it), so the bracket at least halves
    every two checks whatever the guesses are worth. An undecided check (the optimum
    is within rounding) ends the approach: its point is returned last, for ``_narrow``.
    """
    hint: float | None = None
    use_hint = False
    while s_hi - s_lo > _APPROACH_RTOL * s_hi:
        width = s_hi - s_lo
        if use_hint and hint is not None and s_lo + 0.01 * width < hint < s_hi - 0.01 * width:
            probe = hint
        else:
            probe = 0.5 * (s_lo + s_hi)
        answer, root = _flow_probe(workload, probe, tau)
        lps += 1
        if answer is None:
            return s_lo, s_hi, lps, probe
        if answer:
            s_hi = probe
        else:
            s_lo, hint = probe, root
        use_hint = not use_hint
    return s_lo, s_hi, lps, None


def _narrow(
    workload: Workload,
    tau: float,
    s_lo: float,
    s_hi: float,
    lps: int,
    undecided: float | None = None,
) -> tuple[float, float, int]:
    """Close ``[s_lo, s_hi]`` (infeasible, feasible; usually one breakpoint range) by max flows.

    Returns the final bracket and the count of problems solved. An infeasible check
    proposes the next point from its minimum cut (``_flow_probe``); when that point
    turns out feasible the search checks just below it, and when the cut proposes the
    infeasible end itself it checks just above it, so the bracket usually closes to
    ``EXACT_RTOL`` in a handful of max flows; otherwise it bisects. Near the optimum
    the check can be undecided (its rounding). Feasibility is monotone in the
    stretch, so the undecided points form a zone around the optimum: the search then
    steps outward from the zone (by distances growing 8x) until each side is decided,
    and stops when each gap beside the zone is at most 4x the zone's width (or
    ``EXACT_RTOL``; narrowing further cannot shrink the bracket by more than 9x), and
    the whole bracket within ``EXACT_ACCURACY`` when the zone allows it.
    """
    u_lo = u_hi = undecided  # the undecided zone inside the bracket (a known point)
    # how far outside the zone the next side check goes, in steps of EXACT_RTOL (zones
    # on HPC2N weeks and 100,000-job workloads were 40-400 steps wide)
    reach_lo = reach_hi = 16.0
    hint: float | None = None
    closing = False  # the cut's point was feasible: check below it, further each time
    down = 0.5
    reach = 0.5  # how far above s_lo to check when the cut proposes s_lo itself
    checks = 0
    # each check shrinks the bracket or widens the zone; 400 is far beyond the ~100
    # that halving a float range down to 1e-12 can take: a guard, never reached in tests
    while s_hi - s_lo > EXACT_RTOL * s_hi and checks < 400:
        checks += 1
        step = EXACT_RTOL * s_hi
        side = ""
        if u_lo is not None:
            below, above = u_lo - s_lo, s_hi - u_hi
            width = u_hi - u_lo
            # gaps at most 4x the zone, and a bracket within EXACT_ACCURACY if it can be
            enough = max(step, min(4.0 * width, 0.25 * (EXACT_ACCURACY * s_hi - width)))
            if max(below, above) <= enough:
                break
            if below >= above:
                side, probe = "lo", u_lo - reach_lo * step
                if probe <= s_lo:
                    probe = 0.5 * (s_lo + u_lo)
            else:
                side, probe = "hi", u_hi + reach_hi * step
                if probe >= s_hi:
                    probe = 0.5 * (u_hi + s_hi)
        elif closing:
            probe = max(s_hi - down * step, 0.5 * (s_lo + s_hi))
            down *= 4.0
        elif hint is not None and s_lo + step < hint < s_hi - step:
            probe = hint
        elif hint is not None and hint <= s_lo + step:
            # the cut puts the optimum at s_lo already (to float error): check just
            # above it, further each time this repeats
            probe = min(s_lo + reach * step, 0.5 * (s_lo + s_hi))
            reach *= 4.0
        else:
            probe = 0.5 * (s_lo + s_hi)
        answer, root = _flow_probe(workload, probe, tau)
        lps += 1
        if bool(answer) and u_lo is None and probe == hint:
            closing, down = True, 0.5  # feasible at the cut's point: look just below
        elif not (closing and answer):
            closing = False  # (a feasible check below it keeps looking further down)
        hint = root if answer is False else None
        if answer is None:
            u_lo = probe if u_lo is None else min(u_lo, probe)
            u_hi = probe if u_hi is None else max(u_hi, probe)
            if side == "lo":
                reach_lo *= 8.0
            elif side == "hi":
                reach_hi *= 8.0
        elif answer:
            s_hi = probe
        else:
            s_lo = probe
        if u_lo is not None:
            u_lo, u_hi = max(u_lo, s_lo), min(u_hi, s_hi)
            if u_lo > u_hi:
                u_lo = u_hi = None
    return s_lo, s_hi, lps


def stretch_bound(
    workload: Workload,
    *,
    method: str = "exact",
    tol: float = 1e-4,
    tau: float = TAU,
    solver: str | None = None,
) -> StretchBound:
    """The least maximum bounded stretch allowed by Theorem 1: a lower bound on the optimum.

    Parameters
    ----------
    workload : Workload
        Jobs (submit time ``r_j`` and run time ``p_j`` in seconds, ``|T_j|`` tasks of
        CPU need ``c_j``, a fraction of a node) and the number of nodes ``|P|``.
        Memory is ignored.
    method : {"exact", "bisection"}
        ``bisection`` stops when the relative width of the bracket is below ``tol``
        (the value returned is the feasible upper end). ``exact`` finds the range
        between two breakpoints (where a deadline crosses another endpoint) that holds
        the optimum, then narrows it with the max-flow check to a relative width of
        ``EXACT_RTOL`` (1e-12), stepping around the points where the check cannot
        decide (its rounding), and returns the feasible upper end; only if that leaves
        the range wider than
        ``EXACT_ACCURACY`` (1e-8 relative, the method's stated accuracy) does it solve
        the LP in ``(alpha, S)`` on the range. A workload with more than
        ``GRID_PAIRS`` pairs of jobs (over 5,000 jobs) skips the list of breakpoints
        (it would not fit in memory): bisection steps alternating with minimum-cut
        steps bring the bracket to 1e-3, and the narrowing goes on as above; if the
        rounding zone is then wider than ``EXACT_ACCURACY`` the status is ``feasible``
        (a proven bracket) instead of solving the LP. Feasibility is checked
        as a max flow (OR-Tools; rounded both ways, so each answer is a proof) and
        with the LP when the flow is undecided.
    tol : float
        Relative tolerance of the bisection.
    tau : float
        Bounded-stretch threshold in seconds: a finite number >= 0.
    solver : str, optional
        Decide every feasibility question of the bisection with the Pyomo model
        ``build_stretch_lp`` solved by this solver (``allockit.solver.SOLVERS``:
        ``"highs"``, ``"scip"``, ...) instead of the max-flow check: one LP per step,
        much slower, for checking the bound with a solver of one's choice. Only with
        ``method="bisection"``; ``None`` (default) uses the max flow and HiGHS.

    Returns
    -------
    StretchBound
        ``value``: the bound (>= 1), with the final bracket ``[lower, upper]``, the
        number of feasibility problems solved (``lps``: max flows or LPs) and the
        seconds.

    Raises
    ------
    InvalidInputError
        For an unknown method, an empty workload, ``tol`` outside (0, 1), ``tau`` not
        a finite number >= 0, a ``solver`` with ``method="exact"``, or a workload for
        which no stretch up to 1e12 is feasible.
    SolverUnavailableError
        If ``solver`` is not installed.
    SolverFailedError
        If ``solver`` ends a feasibility LP without deciding it (nothing is guessed).

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[100, 100],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.1, 0.1])
    >>> round(stretch_bound(w).value, 9), round(stretch_bound(w, method="bisection").value, 3)
    (2.0, 2.0)
    >>> round(stretch_bound(w, method="bisection", solver="highs").value, 3)
    2.0

    References
    ----------
    .. [1] H. Casanova, M. Stillwell, F. Vivien (2011), Dynamic fractional resource
       scheduling vs. batch scheduling, Theorem 1.
    """
    if method not in ("exact", "bisection"):
        raise InvalidInputError(f"method must be 'exact' or 'bisection'; got {method!r}")
    if workload.n_jobs == 0:
        raise InvalidInputError("the workload has no jobs")
    if not (is_real(tol) and 0 < tol < 1):
        raise InvalidInputError(f"tol must be in (0, 1); got {tol!r}")
    _check_tau(tau)
    if solver is not None and method != "bisection":
        raise InvalidInputError(
            f"solver={solver!r} applies to method='bisection' only (the exact method "
            f"decides feasibility by max flow); got method={method!r}"
        )
    start = time.perf_counter()
    lps = 0
    if _feasible(workload, 1.0, tau, solver):
        return StretchBound(1.0, method, 1, time.perf_counter() - start, 1.0, 1.0)
    lo, hi = 1.0, _upper_start(workload, tau, solver)
    lps += 2 + int(np.log2(hi))
    if method == "bisection":
        while (hi - lo) / hi > tol:
            mid = 0.5 * (lo + hi)
            lps += 1
            if _feasible(workload, mid, tau, solver):
                hi = mid
            else:
                lo = mid
        return StretchBound(hi, method, lps, time.perf_counter() - start, lo, hi)
    if workload.n_jobs**2 <= GRID_PAIRS:
        points = _breakpoints(workload, tau, lo, hi)
        grid = np.concatenate([[lo], points, [hi]])
        a, b = 0, grid.size - 1  # infeasible at grid[a], feasible at grid[b]
        while b - a > 1:
            mid = (a + b) // 2
            lps += 1
            if _feasible(workload, float(grid[mid]), tau):
                b = mid
            else:
                a = mid
        s_lo, s_hi, ranged, undecided = float(grid[a]), float(grid[b]), True, None
    else:  # the breakpoints would not fit in memory: close in without them
        s_lo, s_hi, lps, undecided = _approach(workload, tau, lo, hi, lps)
        ranged = False
    # Inside one breakpoint range the intervals keep their order: bisect it with the
    # max-flow check to EXACT_RTOL. Near the optimum the check can be undecided (its
    # rounding): the undecided points [u_lo, u_hi] are then skipped and the two gaps
    # beside them bisected, so the bracket still closes on the rounding-sized zone.
    # Only if that zone is wider than EXACT_ACCURACY is the LP in (alpha, S) solved.
    s_lo, s_hi, lps = _narrow(workload, tau, s_lo, s_hi, lps, undecided)
    value, status = s_hi, "optimal"
    if s_hi - s_lo > EXACT_ACCURACY * s_hi:
        if ranged:  # the LP in (alpha, S) needs one breakpoint range
            lps += 1
            best = _solve_lp(workload, s_lo, s_hi, 0.5 * (s_lo + s_hi), tau, minimise=True)
            # the LP's answer, kept inside the bracket the exact checks proved
            value = s_hi if best is None else min(max(best, s_lo), s_hi)
        else:
            status = "feasible"  # proven bracket [s_lo, s_hi], wider than the accuracy
    return StretchBound(value, method, lps, time.perf_counter() - start, s_lo, s_hi, status)


def build_stretch_lp(workload: Workload, stretch: float, *, tau: float = TAU) -> Any:
    """The Theorem 1 system for a fixed ``stretch`` as a Pyomo model (the reference).

    The objective is a constant; solving it tells feasibility. ``alpha[j, t]`` exists only
    for the intervals inside ``[r_j, d_j]``.

    Parameters
    ----------
    workload : Workload
        Jobs (submit time ``r_j`` and run time ``p_j`` in seconds, ``|T_j|`` tasks of
        CPU need ``c_j``, a fraction of a node) and the number of nodes ``|P|``.
        Memory is ignored.
    stretch : float
        The target maximum bounded stretch ``S``: a finite number (>= 1 for a feasible
        system).
    tau : float, default TAU (10 s)
        Bounded-stretch threshold in seconds (a finite number >= 0): deadlines are
        ``r_j + S max(p_j, tau)``.

    Returns
    -------
    pyomo.environ.ConcreteModel
        Variables ``alpha[j, t]`` in [0, 1]; constraints ``complete[j]`` (each job done),
        ``within[j, t]`` (``alpha p_j <= len(t)``) and ``power[t]`` (node capacity).

    Raises
    ------
    InvalidInputError
        If ``stretch`` is not a finite number or ``tau`` not a finite number >= 0.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> from allockit.solver import solve_pyomo
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[100, 100],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.1, 0.1])
    >>> str(solve_pyomo(build_stretch_lp(w, 1.5)).status)
    'infeasible'
    """
    _check_stretch(stretch)
    _check_tau(tau)
    import pyomo.environ as pyo

    r, w, p, demand = _data(workload, tau)
    e0, e1, start, end = _structure(r, w, stretch)
    ends = e0 + e1 * stretch
    length = np.diff(ends)
    m = pyo.ConcreteModel(name="stretch_feasibility")
    pairs = [(j, t) for j in range(workload.n_jobs) for t in range(start[j], end[j])]
    m.A = pyo.Set(initialize=pairs, dimen=2)
    m.alpha = pyo.Var(m.A, bounds=(0, 1))
    m.complete = pyo.Constraint(
        range(workload.n_jobs),
        rule=lambda m, j: (
            sum(m.alpha[j, t] for t in range(start[j], end[j])) == 1
            if end[j] > start[j]
            else pyo.Constraint.Infeasible
        ),
    )
    m.within = pyo.Constraint(m.A, rule=lambda m, j, t: m.alpha[j, t] * p[j] <= length[t])
    by_interval: dict[int, list[int]] = {}
    for j, t in pairs:
        by_interval.setdefault(t, []).append(j)
    m.power = pyo.Constraint(
        sorted(by_interval),
        rule=lambda m, t: (
            sum(m.alpha[j, t] * demand[j] for j in by_interval[t])
            <= workload.platform.nodes * length[t]
        ),
    )
    m.objective = pyo.Objective(expr=0)
    return m
