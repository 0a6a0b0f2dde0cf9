"""CPU allocation for a fixed task mapping, as in DFRS (Casanova et al. 2011, Sec. 4.6).

Given how many tasks of each job sit on each node (``counts[j, n]``) and each job's CPU
need per task ``cpu[j]``, every job first gets the yield ``1 / max(1, L)`` (``L`` the
largest node load ``sum_j counts[j, n] cpu[j]``), which maximises the minimum yield.
The rest is shared in one of two ways:

- ``opt=min``: iterative max-min (water-filling): raise the yields of all unfrozen jobs
  together until a node saturates or a job reaches yield 1; freeze those jobs; repeat.
- ``opt=avg``: the LP (2) of the paper, ``max sum_j y_j`` with ``1/max(1, L) <= y_j <= 1``
  and every node's CPU at most 1, solved with HiGHS directly (the event loop calls it
  often); ``build_avg_yield_lp`` is the Pyomo reference.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from allockit.checks import first_bad_entry, is_real, real_array, real_number
from allockit.errors import InvalidInputError

__all__ = [
    "MAX_FILL_TOL",
    "base_yield",
    "build_avg_yield_lp",
    "max_avg_yields",
    "max_avg_yields_rows",
    "max_avg_yields_unchecked",
    "max_min_affine",
    "max_min_affine_rows",
    "max_min_yields",
    "min_avg_stretch",
    "min_avg_stretch_rows",
]

#: ``min_avg_stretch``'s defaults: relative accuracy of the cuts, most rounds of cuts.
STRETCH_RTOL = 1e-6
STRETCH_MAX_ROUNDS = 200


#: Largest ``tol`` of the water-filling functions: beyond it a "saturated" node may be
#: over-committed by more than a thousandth, which is no longer a rounding tolerance.
MAX_FILL_TOL = 1e-3


def _check(counts: np.ndarray, cpu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``counts`` (jobs x nodes, finite, >= 0) and ``cpu`` (one per job, in (0, 1])."""
    counts = real_array("counts", counts, ndim=2)
    cpu = real_array("cpu", cpu)
    if counts.shape[0] != cpu.size:
        raise InvalidInputError(
            f"counts must be (jobs, nodes) with one row per job; got "
            f"{counts.shape} for {cpu.size} jobs"
        )
    first_bad_entry("counts", counts, counts >= 0, "finite and >= 0")
    first_bad_entry("cpu", cpu, (cpu > 0) & (cpu <= 1), "in (0, 1]")
    return counts, cpu


def _check_affine(
    cpu: np.ndarray, a: object, b: object, *, a_nonnegative: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The offsets ``a`` and slopes ``b > 0`` of the affine objectives, one per job."""
    a, b = real_array("a", a), real_array("b", b)
    if a.shape != cpu.shape or b.shape != cpu.shape:
        raise InvalidInputError(
            f"a and b need one entry per job ({cpu.size}); got shapes {a.shape} and {b.shape}"
        )
    if a_nonnegative:
        first_bad_entry("a", a, a >= 0, "finite and >= 0")
    else:
        first_bad_entry("a", a, np.isfinite(a), "finite")
    first_bad_entry("b", b, b > 0, "finite and > 0")
    return a, b


def _checked_tol(tol: object) -> float:
    return real_number("tol", tol, at_least=0, at_most=MAX_FILL_TOL)


def base_yield(counts: np.ndarray, cpu: np.ndarray) -> float:
    """``1 / max(1, L)`` with ``L`` the largest node CPU load.

    The largest yield every job can get at once: the optimal minimum yield for this
    mapping (Casanova et al. 2011, Sec. 4.6), and the floor of LP (2).

    Parameters
    ----------
    counts : numpy.ndarray, shape (n_jobs, n_nodes)
        ``counts[j, n]`` tasks of job ``j`` on node ``n`` (>= 0; integers in practice).
    cpu : numpy.ndarray, shape (n_jobs,)
        CPU need per task of each job, as a fraction of a node in (0, 1].

    Returns
    -------
    float
        The yield in (0, 1]; 1 when no node is overloaded (or nothing is placed).

    Raises
    ------
    InvalidInputError
        If ``counts`` is not 2-D with one row per job, has a negative entry, or a CPU
        need is outside (0, 1].

    Examples
    --------
    >>> base_yield(np.array([[1, 0], [1, 0]]), np.array([1.0, 0.5]))
    0.6666666666666666
    """
    counts, cpu = _check(counts, cpu)
    load = (counts * cpu[:, None]).sum(axis=0)
    return float(1.0 / max(1.0, load.max(initial=0.0)))


def max_min_yields(counts: np.ndarray, cpu: np.ndarray, *, tol: float = 1e-12) -> np.ndarray:
    """Yields by iterative max-min water-filling (``opt=min``).

    All unfrozen jobs' yields rise together until a node's CPU reaches 1 or a job
    reaches yield 1; those jobs freeze and the rest keep rising (Casanova et al.
    2011, Sec. 4.6, ``opt=min``). The result is max-min fair: the minimum is
    ``base_yield(counts, cpu)`` and no yield can rise without lowering a smaller one.
    Runs a numba kernel (compiled or loaded from cache on first use).

    Parameters
    ----------
    counts : numpy.ndarray, shape (n_jobs, n_nodes)
        ``counts[j, n]`` tasks of job ``j`` on node ``n`` (>= 0; integers in practice).
    cpu : numpy.ndarray, shape (n_jobs,)
        CPU need per task of each job, as a fraction of a node in (0, 1].
    tol : float, default 1e-12
        Numerical tolerance on a node's saturation and on a yield reaching 1, in
        ``[0, MAX_FILL_TOL]``.

    Returns
    -------
    numpy.ndarray, shape (n_jobs,)
        Yield of each job in (0, 1] (CPU given per task over ``cpu[j]``); a job with
        no task placed gets 1.

    Raises
    ------
    InvalidInputError
        If ``counts`` is not 2-D with one row per job or has an entry that is negative
        or not finite, a CPU need is outside (0, 1], or ``tol`` is outside
        ``[0, MAX_FILL_TOL]`` (1e-3).

    Examples
    --------
    >>> # node 0 holds jobs 0 and 1 (load 1.5); job 2 is alone on node 1
    >>> max_min_yields(np.array([[1, 0], [1, 0], [0, 1]]), np.array([1.0, 0.5, 0.4])).round(4)
    array([0.6667, 0.6667, 1.    ])
    """
    from allockit.simulation.allocation_kernels import maxmin_fill_kernel

    counts, cpu = _check(counts, cpu)
    tol = _checked_tol(tol)
    job, node = np.nonzero(counts)
    weight = counts[job, node] * cpu[job]  # CPU per unit of yield
    return maxmin_fill_kernel(
        job.astype(np.int64), node.astype(np.int64), weight, cpu.size, counts.shape[1], tol
    )


def max_avg_yields(counts: np.ndarray, cpu: np.ndarray) -> np.ndarray:
    """Yields maximising the average yield above ``1/max(1, L)`` (``opt=avg``, LP (2)).

    Solves ``max sum_j y_j`` s.t. ``base_yield <= y_j <= 1`` and every node's CPU
    ``sum_j counts[j, n] cpu[j] y_j <= 1`` (Casanova et al. 2011, Sec. 4.6, LP (2)),
    with HiGHS directly (``allockit.evaluation.placement.max_sum_yields``).
    The optimum need not be unique; HiGHS returns one of them, deterministically.

    Parameters
    ----------
    counts : numpy.ndarray, shape (n_jobs, n_nodes)
        ``counts[j, n]`` tasks of job ``j`` on node ``n`` (>= 0; integers in practice).
    cpu : numpy.ndarray, shape (n_jobs,)
        CPU need per task of each job, as a fraction of a node in (0, 1].

    Returns
    -------
    numpy.ndarray, shape (n_jobs,)
        Yield of each job in [``base_yield``, 1].

    Raises
    ------
    InvalidInputError
        If ``counts`` is not 2-D with one row per job, has a negative entry, or a CPU
        need is outside (0, 1].

    Examples
    --------
    >>> counts = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    >>> max_avg_yields(counts, np.array([1.0, 0.5, 0.4, 0.8])).round(4)
    array([0.6667, 0.6667, 1.    , 0.75  ])
    >>> max_min_yields(counts, np.array([1.0, 0.5, 0.4, 0.8])).round(4)
    array([0.6667, 0.6667, 0.8333, 0.8333])
    """
    counts, cpu = _check(counts, cpu)
    return max_avg_yields_unchecked(counts, cpu)


def max_avg_yields_unchecked(counts: np.ndarray, cpu: np.ndarray) -> np.ndarray:
    """``max_avg_yields`` on arrays already checked (float, one row per job).

    For the simulator's own arrays at every event: the same LP and answer, without the
    checks and with the node loads computed once.

    Parameters
    ----------
    counts : numpy.ndarray, shape (n_jobs, n_nodes)
        Tasks of each job on each node, floats >= 0.
    cpu : numpy.ndarray, shape (n_jobs,)
        CPU need per task, in (0, 1].

    Returns
    -------
    numpy.ndarray, shape (n_jobs,)
        The yields of ``max_avg_yields``.

    Examples
    --------
    >>> counts = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> max_avg_yields_unchecked(counts, np.array([0.4, 0.8, 0.5])).round(4).tolist()
    [0.8333, 0.8333, 1.0]
    >>> max_avg_yields_unchecked(counts, np.array([0.4, 0.5, 0.5])).tolist()  # no LP
    [1.0, 1.0, 1.0]
    """
    from allockit.evaluation.placement import max_sum_yields_sparse

    coeff = counts * cpu[:, None]
    floor = 1.0 / max(1.0, coeff.sum(axis=0).max(initial=0.0))  # base_yield's
    if floor >= 1.0:  # every yield is fixed at 1
        return np.ones(cpu.size)
    jobs, hosts = np.nonzero(coeff)  # (max_sum_yields without its input checks)
    return max_sum_yields_sparse(jobs, hosts, coeff[jobs, hosts], *coeff.shape, floor)


def max_avg_yields_rows(
    pool: np.ndarray, nz: np.ndarray, slot: np.ndarray, jobs: np.ndarray, cpu: np.ndarray
) -> np.ndarray:
    """``max_avg_yields_unchecked(pool[slot[jobs]], cpu[jobs])`` without the matrix.

    For the simulator, whose tasks per node are rows of a pool with an index of their
    nonzero entries (``dfrs_rows.RowPool.indexed``): the LP's coefficients, in the order
    ``numpy.nonzero`` gives them, and its floor are read through the index
    (``allocation_kernels.avg_lp_rows_kernel``). The LP is the same, arrays and floor
    bit for bit, so the answer is too (and the ``max_sum_yields`` memo's key).

    Parameters
    ----------
    pool, nz, slot : numpy.ndarray
        The rows of tasks per node, their index and each job's row (``RowPool.indexed``).
    jobs : numpy.ndarray of int64
        The jobs whose yields are wanted, each with a row.
    cpu : numpy.ndarray, shape (all jobs,)
        CPU need per task of every job, in (0, 1].

    Returns
    -------
    numpy.ndarray, shape (jobs.size,)
        The yields of ``max_avg_yields`` for these jobs' rows.

    Raises
    ------
    ValueError
        If one of ``jobs`` has no row (``slot`` -1): a broken state.

    Examples
    --------
    >>> from allockit.simulation.dfrs_rows import RowPool
    >>> pool = RowPool(jobs=3, nodes=2)
    >>> pool.store(np.array([0, 1, 2]), np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]))
    >>> jobs, cpu = np.array([0, 1, 2]), np.array([0.4, 0.8, 0.5])
    >>> max_avg_yields_rows(*pool.indexed(), jobs, cpu).round(4).tolist()
    [0.8333, 0.8333, 1.0]
    """
    from allockit.evaluation import placement
    from allockit.simulation.allocation_kernels import avg_lp_rows_kernel

    if pool.shape[1] < 2:  # numpy sums one column pairwise: the matrix's floor
        if jobs.size and slot[jobs].min() < 0:
            raise ValueError("a job without a row")
        return max_avg_yields_unchecked(pool[slot[jobs]], cpu[jobs])
    job, node, value, peak = avg_lp_rows_kernel(pool, nz, slot, jobs, cpu)
    floor = 1.0 / max(1.0, peak)  # base_yield's
    if floor >= 1.0:  # every yield is fixed at 1
        return np.ones(jobs.size)
    return placement.max_sum_yields_sparse(job, node, value, jobs.size, pool.shape[1], floor)


def max_min_affine(
    counts: np.ndarray, cpu: np.ndarray, a: np.ndarray, b: np.ndarray, *, tol: float = 1e-12
) -> np.ndarray:
    """Yields in [0, 1] making ``a_j + b_j y_j`` max-min fair (``/stretch-per/opt=max``).

    MCB8-stretch estimates job ``j``'s stretch at the next scheduling event as
    ``(ft_j + T) / (vt_j + y_j T)``; iteratively minimising the largest estimate is
    iteratively maximising its inverse ``a_j + b_j y_j`` with ``a_j = vt_j / (ft_j + T)``
    and ``b_j = T / (ft_j + T)``. Water-filling on the level ``s``: every unfrozen job gets
    ``y_j(s) = clip((s - a_j) / b_j, 0, 1)``; ``s`` is raised (bisection to machine
    precision: node loads are piecewise linear in ``s``) until a node saturates; the jobs
    on it freeze; repeat. With ``a = 0, b = 1`` this is ``max_min_yields``.

    Parameters
    ----------
    counts : numpy.ndarray, shape (n_jobs, n_nodes)
        ``counts[j, n]`` tasks of job ``j`` on node ``n`` (>= 0; integers in practice).
    cpu : numpy.ndarray, shape (n_jobs,)
        CPU need per task of each job, as a fraction of a node in (0, 1].
    a : numpy.ndarray, shape (n_jobs,)
        Offsets ``a_j`` (dimensionless; ``vt_j / (ft_j + T)`` for MCB8-stretch).
    b : numpy.ndarray, shape (n_jobs,)
        Slopes ``b_j > 0`` (``T / (ft_j + T)`` for MCB8-stretch).
    tol : float, default 1e-12
        Numerical tolerance on a node's saturation and on a yield reaching 1, in
        ``[0, MAX_FILL_TOL]``.

    Returns
    -------
    numpy.ndarray, shape (n_jobs,)
        Yield of each job in [0, 1]; a job with no task placed gets 1.

    Raises
    ------
    InvalidInputError
        For a bad ``counts``/``cpu`` (see ``base_yield``), if ``a`` or ``b`` does not
        have one entry per job, an ``a_j`` is not finite or some ``b_j <= 0``, or if
        ``tol`` is outside ``[0, MAX_FILL_TOL]`` (1e-3).

    Examples
    --------
    >>> # one node, two jobs of CPU 1; job 0 is ahead (a = 0.2), job 1 has no progress
    >>> max_min_affine(np.array([[1], [1]]), np.array([1.0, 1.0]),
    ...                np.array([0.2, 0.0]), np.array([0.5, 0.5])).round(4)
    array([0.3, 0.7])
    """
    counts, cpu = _check(counts, cpu)
    a, b = _check_affine(cpu, a, b, a_nonnegative=False)
    tol = _checked_tol(tol)
    from allockit.simulation.allocation_kernels import affine_fill_kernel

    job, node = np.nonzero(counts)
    weight = counts[job, node] * cpu[job]
    return affine_fill_kernel(
        job.astype(np.int64), node.astype(np.int64), weight, a, b, counts.shape[1], tol
    )


def min_avg_stretch(
    counts: np.ndarray,
    cpu: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    *,
    rtol: float = STRETCH_RTOL,
    max_rounds: int = STRETCH_MAX_ROUNDS,
) -> np.ndarray:
    """Yields minimising the average estimated stretch (``/stretch-per/opt=avg``).

    The estimated stretch of job ``j`` is ``1 / (a_j + b_j y_j)`` (see
    ``max_min_affine``). As LP (2) keeps every job at the best minimum yield, every job
    keeps at least the best minimum of ``a_j + b_j y_j`` (the first level of the
    max-min water-filling); subject to that, node capacities and ``y <= 1``, the sum of
    the convex estimates is minimised by Kelley's cutting planes: an LP in ``(y, t)``
    solved with HiGHS, with a tangent of ``1 / (a_j + b_j y)`` added wherever ``t_j``
    under-estimates it by more than ``rtol`` (relative), until none does. The LPs are
    solved on the thread's HiGHS instance, cleared first, so the answer depends on the
    arguments alone; it is kept in the process's ``min_avg_stretch`` memo
    (``allockit.evaluation.answer_memo``) and not computed again for the same arguments.

    Parameters
    ----------
    counts : numpy.ndarray, shape (n_jobs, n_nodes)
        ``counts[j, n]`` tasks of job ``j`` on node ``n`` (>= 0; integers in practice).
    cpu : numpy.ndarray, shape (n_jobs,)
        CPU need per task of each job, as a fraction of a node in (0, 1].
    a : numpy.ndarray, shape (n_jobs,)
        Offsets ``a_j >= 0`` of the inverse stretch estimate ``a_j + b_j y_j``.
    b : numpy.ndarray, shape (n_jobs,)
        Slopes ``b_j > 0``.
    rtol : float, default 1e-6
        Relative accuracy of the piecewise-linear model of each estimate at the optimum.
    max_rounds : int, default 200
        Most rounds of cuts; the last LP solution is returned if they run out.

    Returns
    -------
    numpy.ndarray, shape (n_jobs,)
        Yield of each job in [0, 1]; the max-min fair yields (``max_min_affine``) if
        nothing is placed or HiGHS fails.

    Raises
    ------
    InvalidInputError
        For a bad ``counts``/``cpu`` (see ``base_yield``), or if ``a`` or ``b`` does
        not have one entry per job, some ``a_j < 0`` or some ``b_j <= 0``; if ``rtol``
        is not a finite number > 0 or ``max_rounds`` not an integer >= 0.

    Examples
    --------
    >>> # node 0: A and B (cpu 1) fix the best minimum at 1/2; node 1: C (cpu 1), D (0.25).
    >>> # No progress yet (a = 0): the average wants y ~ 1/sqrt(cpu) on node 1, D capped at 1
    >>> counts = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    >>> cpu = np.array([1.0, 1.0, 1.0, 0.25])
    >>> min_avg_stretch(counts, cpu, np.zeros(4), np.ones(4)).round(6).tolist()
    [0.5, 0.5, 0.75, 1.0]
    >>> max_min_affine(counts, cpu, np.zeros(4), np.ones(4)).round(6).tolist()
    [0.5, 0.5, 0.8, 0.8]
    """
    counts, cpu = _check(counts, cpu)
    a, b = _check_affine(cpu, a, b, a_nonnegative=True)
    rtol = real_number("rtol", rtol, above=0)
    if not (is_real(max_rounds) and float(max_rounds).is_integer() and max_rounds >= 0):
        raise InvalidInputError(f"max_rounds must be an integer >= 0; got {max_rounds!r}")
    max_rounds = int(max_rounds)
    job, node = np.nonzero(counts)
    weight = counts[job, node] * cpu[job]
    return _min_avg_stretch_of(job, node, weight, counts.shape[1], a, b, rtol, max_rounds)


def max_min_affine_rows(
    pool: np.ndarray, nz: np.ndarray, slot: np.ndarray, jobs: np.ndarray, cpu: np.ndarray,
    a: np.ndarray, b: np.ndarray,
) -> np.ndarray:
    """``max_min_affine(pool[slot[jobs]], cpu[jobs], a, b)`` without the matrix, unchecked.

    For the simulator (``/stretch-per/opt=max``): the rows of tasks per node of a pool
    with their index (``dfrs_rows.RowPool.indexed``) give the matrix's nonzero entries
    in its order (``allocation_kernels.indexed_weights_kernel``), so the same bits.

    Parameters
    ----------
    pool, nz, slot : numpy.ndarray
        The rows of tasks per node, their index and each job's row (``RowPool.indexed``).
    jobs : numpy.ndarray of int64
        The jobs whose yields are wanted, each with a row.
    cpu : numpy.ndarray, shape (all jobs,)
        CPU need per task of every job, in (0, 1].
    a, b : numpy.ndarray of float, shape (jobs.size,)
        The estimates' offsets (>= 0) and slopes (> 0), as ``max_min_affine``'s.

    Returns
    -------
    numpy.ndarray, shape (jobs.size,)
        ``max_min_affine``'s yields.

    Examples
    --------
    >>> from allockit.simulation.dfrs_rows import RowPool
    >>> pool = RowPool(jobs=2, nodes=2)
    >>> pool.store(np.array([0, 1]), np.array([[1.0, 0.0], [1.0, 0.0]]))
    >>> max_min_affine_rows(*pool.indexed(), np.array([0, 1]), np.array([1.0, 1.0]),
    ...                     np.array([0.2, 0.0]), np.array([0.5, 0.5])).round(4).tolist()
    [0.3, 0.7]
    """
    from allockit.simulation.allocation_kernels import affine_fill_kernel, indexed_weights_kernel

    job, node, weight = indexed_weights_kernel(pool, nz, slot, jobs, cpu)
    return affine_fill_kernel(job, node, weight, a, b, pool.shape[1], 1e-12)


def min_avg_stretch_rows(
    pool: np.ndarray, nz: np.ndarray, slot: np.ndarray, jobs: np.ndarray, cpu: np.ndarray,
    a: np.ndarray, b: np.ndarray,
) -> np.ndarray:
    """``min_avg_stretch(pool[slot[jobs]], cpu[jobs], a, b)`` without the matrix, unchecked.

    For the simulator (``/stretch-per/opt=avg``): the same nonzero entries in the same
    order as the matrix's (``allocation_kernels.indexed_weights_kernel``), so the same
    LPs, the same answers and the same ``min_avg_stretch`` memo keys; default ``rtol``
    and ``max_rounds``.

    Parameters
    ----------
    pool, nz, slot : numpy.ndarray
        The rows of tasks per node, their index and each job's row (``RowPool.indexed``).
    jobs : numpy.ndarray of int64
        The jobs whose yields are wanted, each with a row.
    cpu : numpy.ndarray, shape (all jobs,)
        CPU need per task of every job, in (0, 1].
    a, b : numpy.ndarray of float, shape (jobs.size,)
        The estimates' offsets (>= 0) and slopes (> 0), as ``min_avg_stretch``'s.

    Returns
    -------
    numpy.ndarray, shape (jobs.size,)
        ``min_avg_stretch``'s yields.

    Examples
    --------
    >>> from allockit.simulation.dfrs_rows import RowPool
    >>> pool = RowPool(jobs=4, nodes=2)
    >>> pool.store(np.arange(4), np.array([[1, 0], [1, 0], [0, 1], [0, 1]], dtype=float))
    >>> min_avg_stretch_rows(*pool.indexed(), np.arange(4), np.array([1.0, 1.0, 1.0, 0.25]),
    ...                      np.zeros(4), np.ones(4)).round(6).tolist()
    [0.5, 0.5, 0.75, 1.0]
    """
    from allockit.simulation.allocation_kernels import indexed_weights_kernel

    job, node, weight = indexed_weights_kernel(pool, nz, slot, jobs, cpu)
    return _min_avg_stretch_of(
        job, node, weight, pool.shape[1], a, b, STRETCH_RTOL, STRETCH_MAX_ROUNDS
    )


def _min_avg_stretch_of(
    job: np.ndarray, node: np.ndarray, weight: np.ndarray, n_nodes: int, a: np.ndarray,
    b: np.ndarray, rtol: float, max_rounds: int,
) -> np.ndarray:
    """``min_avg_stretch`` of the nonzero entries of ``counts * cpu[:, None]`` (as
    ``numpy.nonzero`` lists them), through the process's memo."""
    from allockit.evaluation.answer_memo import memo

    return memo("min_avg_stretch").answer(
        (job, node, weight, n_nodes, a, b, rtol, max_rounds),
        lambda: _solve_min_avg_stretch(job, node, weight, n_nodes, a, b, rtol, max_rounds),
    )


def _solve_min_avg_stretch(
    job: np.ndarray, node: np.ndarray, weight: np.ndarray, n_nodes: int, a: np.ndarray,
    b: np.ndarray, rtol: float, max_rounds: int,
) -> np.ndarray:
    """``_min_avg_stretch_of`` on checked arrays: Kelley's cutting planes with HiGHS."""
    import highspy

    from allockit.simulation.allocation_kernels import affine_fill_kernel

    n = a.size
    fair = affine_fill_kernel(job, node, weight, a, b, n_nodes, 1e-12)  # max_min_affine's
    placed = np.zeros(n, dtype=bool)
    placed[job] = True  # a task somewhere (counts >= 0: a positive row sum)
    if not placed.any():
        return fair
    level = float((a + b * fair)[placed].min())
    lower = np.where(placed, np.clip((level - a) / b, 0.0, 1.0), 1.0)
    lower = np.minimum(lower, fair)
    inf = highspy.kHighsInf
    from allockit.evaluation.placement import thread_highs

    h = thread_highs()
    h.clearModel()
    # columns 0..n-1: y_j; n..2n-1: t_j (the stretch estimates)
    h.addVars(
        2 * n,
        np.concatenate([lower, np.zeros(n)]),
        np.concatenate([np.where(placed, 1.0, lower), np.full(n, inf)]),
    )
    h.changeColsCost(n, np.arange(n, 2 * n, dtype=np.int32), np.ones(n))
    # one row per node holding a task (in node order): sum_j weight[j, i] y_j <= 1, its
    # entries by job (the entries of numpy.nonzero(weight.T > 0) of the matrix)
    positive = weight > 0
    by_node = np.argsort(node[positive], kind="stable")
    row_node, row_job = node[positive][by_node], job[positive][by_node]
    used = np.unique(row_node)
    h.addRows(
        used.size, np.full(used.size, -inf), np.ones(used.size), row_job.size,
        np.searchsorted(row_node, used).astype(np.int32), row_job.astype(np.int32),
        weight[positive][by_node],
    )
    _add_tangents(h, a, b, *_first_cuts(lower, fair, a, b))
    y = fair
    for _ in range(max_rounds):
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:  # pragma: no cover
            return fair
        sol = np.asarray(h.getSolution().col_value, dtype=float)
        y = np.clip(sol[:n], lower, 1.0)
        values = 1.0 / (a + b * y)
        under = np.flatnonzero(values > sol[n:] + rtol * values)
        if under.size == 0:
            break
        _add_tangents(h, a, b, under, y[under])
    return y


def _first_cuts(
    lower: np.ndarray, fair: np.ndarray, a: np.ndarray, b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The first tangent points of ``_solve_min_avg_stretch``: ``(jobs, at)``.

    Per job ``j`` in index order, the distinct values among six points evenly spaced
    from ``lower[j]`` to 1 and ``fair[j]``, in the iteration order of the Python set
    ``{*points, fair[j]}`` (the order of the LP's rows, which its answers depend on),
    kept where the stretch's denominator ``a_j + b_j y`` is positive.
    """
    n = lower.size
    grid = np.ones((6, n))
    moving = lower != 1.0  # (one linspace for all: the same points as one per job)
    grid[:, moving] = np.linspace(lower[moving], 1.0, 6)
    columns = zip(grid.T.tolist(), fair.tolist(), strict=True)
    points = [{*column, y_fair} for column, y_fair in columns]
    jobs = np.repeat(np.arange(n, dtype=np.int64), [len(p) for p in points])
    at = np.fromiter(itertools.chain.from_iterable(points), dtype=float, count=jobs.size)
    keep = a[jobs] + b[jobs] * at > 0  # (elementwise: the same two roundings as in Python)
    return jobs[keep], at[keep]


def _add_tangents(h: Any, a: np.ndarray, b: np.ndarray, jobs: np.ndarray, at: np.ndarray) -> None:
    """Add the cut ``t_j >= f_j(y) + f_j'(y) (y_j - y)`` of ``f_j = 1 / (a_j + b_j y_j)``.

    One row per ``(jobs[k], at[k])``, in that order, in one call: rows ``t_j - s y_j >=
    f - s y`` on columns ``n + j`` and ``j`` (``n = a.size``), the tangent's slope ``s``.
    """
    import highspy

    if jobs.size == 0:
        return
    value = 1.0 / (a[jobs] + b[jobs] * at)
    slope = -b[jobs] * value * value
    index = np.empty(2 * jobs.size, dtype=np.int32)
    index[0::2] = a.size + jobs
    index[1::2] = jobs
    coeff = np.empty(2 * jobs.size)
    coeff[0::2] = 1.0
    coeff[1::2] = -slope
    h.addRows(
        jobs.size, value - slope * at, np.full(jobs.size, highspy.kHighsInf), index.size,
        np.arange(0, index.size, 2, dtype=np.int32), index, coeff,
    )


def build_avg_yield_lp(counts: np.ndarray, cpu: np.ndarray) -> Any:
    """The LP (2) as a Pyomo model (the reference for ``max_avg_yields``).

    Variables ``y[j]`` in [``base_yield``, 1], one ``power[n]`` constraint per node
    holding a task (CPU <= 1), objective ``max sum_j y[j]`` (Casanova et al. 2011,
    Sec. 4.6). The model is built, not solved: pass it to
    ``allockit.solver.solve_pyomo``.

    Parameters
    ----------
    counts : numpy.ndarray, shape (n_jobs, n_nodes)
        ``counts[j, n]`` tasks of job ``j`` on node ``n`` (>= 0; integers in practice).
    cpu : numpy.ndarray, shape (n_jobs,)
        CPU need per task of each job, as a fraction of a node in (0, 1].

    Returns
    -------
    pyomo.environ.ConcreteModel
        The model named ``dfrs_avg_yield``.

    Raises
    ------
    InvalidInputError
        If ``counts`` is not 2-D with one row per job, has a negative entry, or a CPU
        need is outside (0, 1].

    Examples
    --------
    >>> from allockit.solver import solve_pyomo
    >>> counts = np.array([[1, 0], [1, 0], [0, 1], [0, 1]])
    >>> m = build_avg_yield_lp(counts, np.array([1.0, 0.5, 0.4, 0.8]))
    >>> round(solve_pyomo(m).objective, 6)
    3.083333
    """
    import pyomo.environ as pyo

    counts, cpu = _check(counts, cpu)
    floor = base_yield(counts, cpu)
    jobs, nodes = range(cpu.size), range(counts.shape[1])
    m = pyo.ConcreteModel(name="dfrs_avg_yield")
    m.y = pyo.Var(jobs, bounds=(floor, 1.0))
    m.power = pyo.Constraint(
        nodes,
        rule=lambda m, n: (
            sum(float(counts[j, n] * cpu[j]) * m.y[j] for j in jobs) <= 1
            if counts[:, n].any()
            else pyo.Constraint.Skip
        ),
    )
    m.objective = pyo.Objective(expr=sum(m.y[j] for j in jobs), sense=pyo.maximize)
    return m
