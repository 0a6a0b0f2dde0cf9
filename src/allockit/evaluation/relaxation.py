"""The paper's rational LP relaxation built directly in HiGHS (fast path for RRND/RRNZ)."""

from __future__ import annotations

import numpy as np

from allockit.clock import Deadline
from allockit.instances.vcsched import VCInstance

__all__ = ["RelaxationTimeLimit", "solve_relaxation_highs"]


class RelaxationTimeLimit(TimeoutError):
    """The LP relaxation hit its time limit (``solve_relaxation_highs``).

    Examples
    --------
    >>> isinstance(RelaxationTimeLimit("0.1 s"), TimeoutError)
    True
    """


def _csc(rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, ncol: int):
    order = np.lexsort((rows, cols))
    rows, cols, vals = rows[order], cols[order], vals[order]
    start = np.searchsorted(cols, np.arange(ncol + 1)).astype(np.int32)
    return start, rows.astype(np.int32), vals.astype(np.float64)


def solve_relaxation_highs(
    instance: VCInstance, *, threads: int = 1, time_limit: float | Deadline | None = None
) -> tuple[float, np.ndarray] | None:
    """Solve the relaxation of the paper's MILP (eqs. 3-21, ``e`` continuous) with HiGHS.

    The same LP as ``build_paper_milp(instance, relax=True)`` (without adaptation rows),
    assembled as a sparse matrix and passed to highspy directly, which avoids Pyomo's
    model-building cost on large instances. Returns ``(Y, e)`` with ``e`` of shape
    ``(n_tasks, hosts)``, or None when the LP is infeasible or not solved.

    Parameters
    ----------
    instance : VCInstance
        Hosts and jobs (CPU need per task in (0, 1], memory per task in [0, 1], as
        fractions of a host). Migration limits, if any, are not modelled.
    threads : int, default 1
        HiGHS threads.
    time_limit : float or Deadline, optional
        Seconds, or the caller's deadline.

    Returns
    -------
    tuple (float, numpy.ndarray) or None
        ``Y``: the LP's optimal minimum yield (an upper bound on the MILP's), and
        ``e[t, j]`` in [0, 1]: the fraction of task ``t`` on host ``j`` (rows sum to 1),
        the probabilities RRND/RRNZ round. None if the LP is infeasible or HiGHS stops
        without an optimum for another reason.

    Raises
    ------
    RelaxationTimeLimit
        If ``time_limit`` runs out before the optimum.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.5, 0.5, 0.5])
    >>> y, e = solve_relaxation_highs(inst)
    >>> round(y, 6), e.shape, bool(np.allclose(e.sum(axis=1), 1))
    (1.0, (3, 2), True)

    References
    ----------
    .. [1] Stillwell, Schanzenbach, Vivien, Casanova (2009), Resource allocation using
       virtual clusters, Sec. 3.1 (the MILP and its rational relaxation), Sec. 3.2 (RRND).
    """
    import highspy

    T, H, J = instance.n_tasks, instance.hosts, instance.n_jobs
    job = instance.task_job
    a = instance.cpu[job]
    m = instance.mem[job]
    need = instance.tasks * instance.cpu
    first = np.concatenate(([0], np.cumsum(instance.tasks)[:-1]))
    n_e = T * H
    e_idx = np.arange(n_e).reshape(T, H)
    al_idx = n_e + e_idx
    y_idx = 2 * n_e
    ncol = 2 * n_e + 1
    rows, cols, vals, lower, upper = [], [], [], [], []
    r = 0

    def add(block_rows, block_cols, block_vals):
        rows.append(np.asarray(block_rows).ravel())
        cols.append(np.asarray(block_cols).ravel())
        vals.append(np.asarray(block_vals, dtype=float).ravel())

    inf = highspy.kHighsInf
    # alpha_tj - e_tj <= 0
    rr = r + np.arange(n_e).reshape(T, H)
    add(rr, al_idx, np.ones(n_e))
    add(rr, e_idx, -np.ones(n_e))
    lower += [-inf] * n_e
    upper += [0.0] * n_e
    r += n_e
    # sum_j e_tj = 1
    rr = np.repeat(r + np.arange(T), H).reshape(T, H)
    add(rr, e_idx, np.ones(n_e))
    lower += [1.0] * T
    upper += [1.0] * T
    r += T
    # host CPU and memory
    rr = np.tile(r + np.arange(H), (T, 1))
    add(rr, al_idx, np.ones(n_e))
    lower += [-inf] * H
    upper += [1.0] * H
    r += H
    rr = np.tile(r + np.arange(H), (T, 1))
    add(rr, e_idx, np.repeat(m, H).reshape(T, H))
    lower += [-inf] * H
    upper += [1.0] * H
    r += H
    # sum_j alpha_tj <= a_t
    rr = np.repeat(r + np.arange(T), H).reshape(T, H)
    add(rr, al_idx, np.ones(n_e))
    lower += [-inf] * T
    upper += a.tolist()
    r += T
    # equal CPU for the tasks of a job: sum_j alpha_tj - sum_j alpha_head,j = 0
    others = np.array([t for t in range(T) if first[job[t]] != t], dtype=np.int64)
    if others.size:
        heads = first[job[others]]
        rr = np.repeat(r + np.arange(others.size), H).reshape(others.size, H)
        add(rr, al_idx[others], np.ones(others.size * H))
        add(rr, al_idx[heads], -np.ones(others.size * H))
        lower += [0.0] * others.size
        upper += [0.0] * others.size
        r += others.size
    # job yield: sum_{t in i, j} alpha_tj - need_i Y >= 0
    rr = np.repeat(r + job, H).reshape(T, H)
    add(rr, al_idx, np.ones(n_e))
    add(r + np.arange(J), np.full(J, y_idx), -need)
    lower += [0.0] * J
    upper += [inf] * J
    r += J

    start, index, value = _csc(
        np.concatenate(rows), np.concatenate(cols), np.concatenate(vals), ncol
    )
    lp = highspy.HighsLp()
    lp.num_col_ = ncol
    lp.num_row_ = r
    cost = np.zeros(ncol)
    cost[y_idx] = 1.0
    lp.col_cost_ = cost
    lp.col_lower_ = np.zeros(ncol)
    lp.col_upper_ = np.ones(ncol)
    lp.row_lower_ = np.asarray(lower, dtype=float)
    lp.row_upper_ = np.asarray(upper, dtype=float)
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = start
    lp.a_matrix_.index_ = index
    lp.a_matrix_.value_ = value
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", int(threads))
    h.setOptionValue("random_seed", 0)
    deadline = Deadline.of(time_limit)
    if deadline.at is not None:
        h.setOptionValue("time_limit", deadline.seconds())
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    if status == highspy.HighsModelStatus.kTimeLimit:
        raise RelaxationTimeLimit(
            f"the LP relaxation was not solved within {deadline.limit:.6g} s"
        )
    if status != highspy.HighsModelStatus.kOptimal:
        return None
    x = np.asarray(h.getSolution().col_value, dtype=float)
    return float(x[y_idx]), np.clip(x[:n_e].reshape(T, H), 0.0, 1.0)
