"""Debug-mode invariant checks of a DFRS simulation (``simulate_dfrs(debug=True)``).

After every event: the waiting jobs counted right (``n_waiting``, and by shape); each
running job has its own row (indexed right), whole tasks all placed; yields in
[0, 1]; no node's memory over-committed or CPU over 100 %; the memory and load
bookkeeping equal to the sums over the rows; no job beyond its work; the active jobs'
copies of ``DfrsState.active_view`` equal to the arrays they copy (``dfrs_state.check_view``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from allockit.constants import CAPACITY_TOL
from allockit.simulation.dfrs_rows import SimulationInvariantError
from allockit.simulation.dfrs_state import WAITING, check_view

if TYPE_CHECKING:
    from allockit.simulation.dfrs_state import DfrsState

__all__ = ["check_invariants"]


def check_invariants(state: DfrsState, now: float) -> None:
    """Raise ``SimulationInvariantError`` if a capacity or progress invariant broke.

    Parameters
    ----------
    state : DfrsState
        The simulation state after an event.
    now : float
        The event's time (s), for the message.

    Raises
    ------
    SimulationInvariantError
        Naming the time and the broken invariant.

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> from allockit.simulation.dfrs_state import DfrsState
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0], runtime=[10], tasks=[1],
    ...                        cpu=[1.0], mem=[0.5])
    >>> s = DfrsState(w, penalty=0.0)
    >>> s.submit(0); s.start_job(0, np.array([0]), 0.0)
    >>> check_invariants(s, 0.0)
    >>> s.mem_used[0] = 0.9
    >>> check_invariants(s, 0.0)
    Traceback (most recent call last):
    ...
    allockit.simulation.dfrs_rows.SimulationInvariantError: t=0.0: memory bookkeeping drifted
    """
    jobs = state.running_jobs()
    if jobs.tolist() != sorted(state.running):
        raise SimulationInvariantError(f"t={now}: the running jobs' list and set differ")
    if np.flatnonzero(state._is_running).tolist() != jobs.tolist():
        raise SimulationInvariantError(f"t={now}: the running jobs' mask and set differ")
    if state.waiting != frozenset(np.flatnonzero(state.status == WAITING).tolist()):
        raise SimulationInvariantError(f"t={now}: the waiting jobs' set and statuses differ")
    waiting = int(np.count_nonzero(state.status == WAITING))
    if state.n_waiting != waiting or int(state.waiting_per_shape.sum()) != waiting:
        raise SimulationInvariantError(
            f"t={now}: {waiting} jobs wait; counted {state.n_waiting} and "
            f"{int(state.waiting_per_shape.sum())} by shape"
        )
    slots = state.rows.slots(jobs)
    if (slots < 0).any() or np.unique(slots).size != slots.size:
        raise SimulationInvariantError(f"t={now}: running jobs without their own row")
    rows = state.counts(jobs) if jobs.size else np.zeros((0, state.nodes))
    whole = (rows >= 0).all(axis=1) & (rows == np.round(rows)).all(axis=1)
    whole &= rows.sum(axis=1) == state.tasks[jobs]
    if not whole.all():
        j = int(jobs[np.argmin(whole)])
        raise SimulationInvariantError(f"t={now}: job {j} is not fully placed")
    # every row of the pool, of a job (running or paused) or free, is indexed right
    # and has no -0.0 (a paused job's row is compared through it when it resumes, a
    # free row is cleared through it when taken again)
    pool, nz, slot = state.rows.indexed()
    owner = np.full(pool.shape[0], -1)
    owner[slot[slot >= 0]] = np.flatnonzero(slot >= 0)
    for s in range(pool.shape[0]):
        nodes = np.flatnonzero(pool[s])
        if (nz[s, 0] != nodes.size or nz[s, 1 : 1 + nodes.size].tolist() != nodes.tolist()
                or np.signbit(pool[s]).sum() > np.signbit(pool[s, nodes]).sum()):  # (-0.0)
            what = f"job {owner[s]}'s row" if owner[s] >= 0 else f"free row {s}"
            raise SimulationInvariantError(f"t={now}: {what} and its index differ")
    y = state.yields[jobs]
    bad = ~((y >= 0.0) & (y <= 1.0 + CAPACITY_TOL))  # (NaN is bad too)
    if bad.any():
        j = int(jobs[np.argmax(bad)])
        raise SimulationInvariantError(f"t={now}: job {j} has yield {state.yields[j]}")
    mem = (rows * state.mem[jobs][:, None]).sum(axis=0)
    cpu = (rows * (state.cpu[jobs] * y)[:, None]).sum(axis=0)
    if not (mem <= 1.0 + CAPACITY_TOL).all():
        raise SimulationInvariantError(f"t={now}: memory over-committed: {mem.max()}")
    if not (cpu <= 1.0 + CAPACITY_TOL).all():
        raise SimulationInvariantError(f"t={now}: CPU over 100 %: {cpu.max()}")
    if not np.allclose(mem, state.mem_used, atol=1e-9):
        raise SimulationInvariantError(f"t={now}: memory bookkeeping drifted")
    load = (rows * state.cpu[jobs][:, None]).sum(axis=0)
    if not np.allclose(load, state.load, atol=1e-9):
        raise SimulationInvariantError(f"t={now}: CPU load bookkeeping drifted")
    done = state.vt
    if not ((done >= 0.0) & (done <= state.runtime * (1 + 1e-12))).all():  # (NaN fails)
        j = int(np.argmin((done >= 0.0) & (done <= state.runtime * (1 + 1e-12))))
        raise SimulationInvariantError(
            f"t={now}: job {j} has progress {done[j]!r} outside [0, its work {state.runtime[j]!r}]"
        )
    view = state.active_view()
    if not state.debug:  # (a debug state's read checked it already)
        check_view(state, view, now)

