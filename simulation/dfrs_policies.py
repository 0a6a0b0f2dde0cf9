"""The DFRS scheduling policies: small objects acting on a ``DfrsState``.

- ``GreedyPolicy``: Greedy, GreedyP and GreedyPM on a job's submission (and Greedy on a
  completion, for the ``*`` variants): a job goes to the least-loaded nodes with room
  for its memory; GreedyP pauses lower-priority jobs to make room, GreedyPM also
  migrates the paused jobs when they fit elsewhere.
- ``Mcb8Policy``: MCB8 over every job in the system (on submission, completion or
  periodically), packing jobs in priority order with the static heuristic's code
  (``allockit.heuristics.mcb.mcb_fill``); ``minft``/``minvt`` pin young jobs.
- ``Mcb8StretchPolicy``: MCB8-stretch for ``/stretch-per``: the largest inverse stretch
  estimate whose yields pack.

Modelling choices (the paper leaves them open): GreedyP and GreedyPM only pause jobs of
lower priority than the incoming one; MCB8 bisects the yield to 0.01 after checking
memory alone (yield 0); when even that fails the lowest-priority job is dropped and the
search restarts (job sets whose total memory exceeds the cluster are skipped without
packing: they would fail anyway); jobs protected by ``minft``/``minvt`` keep their nodes
if they keep running (they are pre-placed and the others are packed around them).

Beyond the paper, ``hold`` (seconds, off by default) keeps a job that was started,
resumed or migrated less than ``hold`` seconds ago running on its nodes through every
MCB8 remap: such jobs are packed first and pre-placed. It stops the thrashing of
periodic MCB8 under overload (a resumed job paying the penalty and then paused at the
next period), see ``benchmarks/dfrs_thrashing.py``.
"""

from __future__ import annotations

import time

import numpy as np

from allockit.checks import real_number
from allockit.constants import MEM_EPS, YIELD_ACCURACY
from allockit.simulation.dfrs_priority import (
    by_priority,
    first_by_priority,
    priority_key,
    priority_keys,
)
from allockit.simulation.dfrs_state import (
    WAITING,
    DfrsState,
    SimulationInvariantError,
)
from allockit.simulation.kernel_modules import kernel_module

__all__ = ["GreedyPolicy", "Mcb8Policy", "Mcb8StretchPolicy"]


def greedy_nodes(
    state: DfrsState, j: int, load: np.ndarray | None = None, mem_used: np.ndarray | None = None
) -> np.ndarray | None:
    """Greedy's nodes for job ``j``'s tasks on the current loads (or on ``load`` and
    ``mem_used`` if given; neither is modified), or None."""
    from allockit.heuristics.greedy_kernels import greedy_fill_kernel

    load = state.load if load is None else load
    mem_used = state.mem_used if mem_used is None else mem_used
    k = int(state.tasks[j])
    nodes = greedy_fill_kernel(
        np.full(k, state.cpu[j]), np.full(k, state.mem[j]), load.copy(), 1.0 - mem_used
    )
    return None if (nodes < 0).any() else nodes


def _places_after_release(state: DfrsState, j: int, marked: list[int]) -> bool:
    """Would Greedy place job ``j`` once the ``marked`` jobs are released?

    The memory and load after releasing them in list order, as ``DfrsState.release``
    computes them, so the answer is the one ``greedy_nodes`` gives after the release.
    """
    used, load = state.mem_used.copy(), state.load.copy()
    for r in marked:
        row = state.row(r)
        used -= row * state.mem[r]
        load -= row * state.cpu[r]
    return greedy_nodes(state, j, load, used) is not None


def _mark_one_by_one(state: DfrsState, j: int, lower: list[int]) -> list[int]:
    """``GreedyPolicy._mark`` with one ``DfrsState.fits`` call per step (the reference)."""
    free = 1.0 - state.mem_used
    marked: list[int] = []
    for r in lower:
        marked.append(r)
        free += state.row(r) * state.mem[r]
        if state.fits(j, free):
            break
    else:
        return []
    for r in reversed(marked[:-1]):  # decreasing priority: can it stay?
        trial = free - state.row(r) * state.mem[r]
        if state.fits(j, trial):
            free = trial
            marked.remove(r)
    return marked


def lower_priority(state: DfrsState, j: int, now: float) -> list[int]:
    """The running jobs of lower priority than job ``j``, by increasing priority.

    Those whose ``priority_key`` is larger than ``j``'s, sorted by decreasing key
    (one vectorised sort: ``by_priority``).
    """
    order = by_priority(state, [*state.running, j], now)
    return [r for r in reversed(order[order.index(j) + 1 :]) if r != j]


class GreedyPolicy:
    """Greedy (``preempt=False``), GreedyP (``preempt=True``) or GreedyPM (``migrate=True``).

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[10, 10],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.6, 0.6])
    >>> s = DfrsState(w, penalty=0.0)
    >>> p = GreedyPolicy()
    >>> s.submit(0); p.on_submit(s, 0, 0.0); s.submit(1); p.on_submit(s, 1, 0.0)
    >>> sorted(s.running), sorted(s.waiting)   # job 1 does not fit and waits
    ([0], [1])
    """

    #: Choose the jobs GreedyP pauses with one compiled call (``_mark``); False runs
    #: the loop of ``DfrsState.fits`` calls (the same jobs: the tests compare the two).
    fused_marking: bool = True

    #: Run a pass over the waiting jobs in one compiled call
    #: (``greedy_waiting_kernel``) and start its jobs with another
    #: (``DfrsState.start_jobs``); False runs the steps in Python and starts the jobs
    #: one by one (the same bits: the tests compare the two).
    batch_starts: bool = True

    #: Decide a submission in one compiled call (``dfrs_kernels.greedy_submit_kernel``)
    #: that the state then carries out (not for a subclass that overrides ``try_start``
    #: or ``_mark``); False runs the steps below one by one (the same bits: the tests
    #: compare the two).
    fused_submit: bool = True

    def __init__(self, *, preempt: bool = False, migrate: bool = False) -> None:
        self.preempt = preempt or migrate
        self.migrate = migrate

    def try_start(self, state: DfrsState, j: int, now: float) -> bool:
        """Start waiting job ``j`` with Greedy's placement if it fits; True if it started."""
        if not state.fits(j, 1.0 - state.mem_used):
            return False
        nodes = greedy_nodes(state, j)
        if nodes is None:  # pragma: no cover - fits() counts Greedy's room (up to rounding)
            return False
        state.start_job(j, nodes, now)
        return True

    def on_submit(self, state: DfrsState, j: int, now: float) -> None:
        """Place the newly submitted job ``j`` (pausing others for GreedyP/GreedyPM)."""
        cls = type(self)
        if self.fused_submit and (
            cls.try_start is GreedyPolicy.try_start and cls._mark is GreedyPolicy._mark
        ):
            self._on_submit_fused(state, j, now)
            return
        if not self.preempt:
            self.try_start(state, j, now)
            return
        if self.try_start(state, j, now):
            return
        lower = lower_priority(state, j, now)
        marked = self._mark(state, j, lower)
        if not marked:
            return  # even pausing every lower-priority job would not make room
        if not _places_after_release(state, j, marked):
            return  # fits() counted room that Greedy cannot use (rounding): j waits
        state.lift(marked)
        nodes = greedy_nodes(state, j)
        if nodes is None:  # pragma: no cover - checked by _places_after_release
            raise SimulationInvariantError(f"GreedyP could not place job {j}")
        state.start_job(j, nodes, now)
        for r in sorted(marked, key=lambda r: priority_key(state, r, now)):
            fits = self.migrate and state.fits(r, 1.0 - state.mem_used)
            new = greedy_nodes(state, r) if fits else None
            if new is None:
                state.pause_job(r)
            else:
                state.settle(r, new, now)

    def _on_submit_fused(self, state: DfrsState, j: int, now: float) -> None:
        """``on_submit``'s choices from one compiled call, carried out by the state."""
        pool, slot = state.rows.arrays()
        code, row, marked, order, placed, rows = kernel_module("dfrs_kernels").greedy_submit_kernel(
            j, state.running_jobs(), self.preempt, self.migrate, state.vt,
            state.submit_time, now, pool, slot, state.mem, state.cpu, state.tasks,
            state.mem_used, state.load,
        )
        if code == 0:
            return
        if code < 0:
            state.row(int(marked[0]))  # raises: a running job without a row
            raise SimulationInvariantError(f"job {int(marked[0])} has no row")  # (unreached)
        if code == 2:
            state.lift(marked.tolist())
        state.start_job(j, None, now, row)
        for r, back, new in zip(order.tolist(), placed.tolist(), rows, strict=True):
            if back:
                state.settle(r, None, now, new)
            else:
                state.pause_job(r)

    def _mark(self, state: DfrsState, j: int, lower: list[int]) -> list[int]:
        """The running jobs to pause for job ``j``, in the order they were marked.

        ``lower`` (by increasing priority) are marked until ``j`` fits; then each marked
        job but the last, by decreasing priority, stays if ``j`` fits without it. Empty
        if marking them all leaves no room. One compiled call
        (``dfrs_event_kernels.greedy_mark_kernel``) unless ``fused_marking`` is off.
        """
        if not self.fused_marking:
            return _mark_one_by_one(state, j, lower)
        from allockit.simulation.dfrs_event_kernels import greedy_mark_kernel

        pool, slot = state.rows.arrays()
        marked = greedy_mark_kernel(
            1.0 - state.mem_used, np.array(lower, dtype=np.int64), pool, slot, state.mem,
            float(state.mem[j]), int(state.tasks[j]),
        ).tolist()
        if marked and marked[0] < 0:
            state.row(-1 - marked[0])  # raises: a running job without a row
        return marked

    def start_waiting(self, state: DfrsState, now: float) -> None:
        """On completion (``*``): start waiting jobs that fit, by decreasing priority.

        The same jobs start in the same order as trying every waiting job in priority
        order, done faster for long backlogs. Starting a job only takes memory, so a job
        that does not fit at some point of the pass cannot fit later in it: only the
        jobs of shapes (memory per task, tasks) that fit now are candidates
        (``_shapes_fit``, the arithmetic of ``DfrsState.fits``). They are taken
        ``_CHUNK`` at a time in priority order (only those are sorted) and tried
        together (``greedy_start_kernel``: fit test, Greedy's placement, the memory and
        load updates), which marks the shapes it finds no longer fit; the rest of the
        list drops them, and after a chunk that started a job every shape left is
        tested again. All of it is one compiled call (``greedy_waiting_kernel``), then
        one for the starts (``DfrsState.start_jobs``); with ``batch_starts`` off, the
        steps run here and the jobs start one by one (the reference: the tests compare
        the two).
        """
        if not state.n_waiting:
            return
        if not self.batch_starts:
            _start_waiting_stepwise(state, now)
            return
        started, rows = kernel_module("dfrs_kernels").greedy_waiting_kernel(
            *state.active_view(), state.shape, state.shape_mem, state.shape_tasks,
            state.waiting_per_shape, now, state.tasks, state.cpu, state.mem, state.load,
            state.mem_used, _CHUNK,
        )
        state.start_jobs(started, rows, now)


def _start_waiting_stepwise(state: DfrsState, now: float) -> None:
    """``GreedyPolicy.start_waiting`` step by step, starting the jobs one by one."""
    from allockit.simulation.dfrs_kernels import greedy_start_kernel

    shapes = np.flatnonzero(state.waiting_per_shape)
    fit = _shapes_fit(state, shapes)
    if not fit.any():
        return
    dead = np.ones(state.shape_mem.size, dtype=bool)
    dead[shapes[fit]] = False
    jobs = state.active_jobs()
    jobs = jobs[(state.status[jobs] == WAITING) & ~dead[state.shape[jobs]]]
    keys = priority_keys(state, jobs, now)
    while jobs.size:
        chunk, rest = first_by_priority(jobs, keys, _CHUNK)
        started, rows = greedy_start_kernel(
            chunk, state.shape, dead, state.tasks, state.cpu, state.mem, state.load,
            state.mem_used,
        )
        for j, row in zip(started.tolist(), rows, strict=True):
            state.start_job(j, None, now, row, counted=True)
        if rest is None:
            return
        jobs, keys = jobs[rest], keys[rest]
        if started.size:  # memory was taken: test the shapes left again
            alive = np.flatnonzero(~dead)
            dead[alive] = ~_shapes_fit(state, alive)
        live = ~dead[state.shape[jobs]]
        jobs, keys = jobs[live], keys[live]


#: Jobs that ``start_waiting`` sorts and tries at a time.
_CHUNK = 64


def _shapes_fit(state: DfrsState, shapes: np.ndarray) -> np.ndarray:
    """For each job shape of ``shapes``, can its tasks fit the free memory now?"""
    return _fit_mask(state, state.shape_mem[shapes], state.shape_tasks[shapes])


def _fit_mask(state: DfrsState, mem: np.ndarray, tasks: np.ndarray) -> np.ndarray:
    """For each (memory per task, tasks) pair, can the tasks fit the free memory now?

    The answer of ``DfrsState.fits`` for each, in one compiled call
    (``dfrs_event_kernels.fit_mask_kernel``: pairs that need more memory than is free
    in all, or than the emptiest node has, are ruled out from those two numbers; the
    others get the per-node count, which is what decides).
    """
    from allockit.simulation.dfrs_event_kernels import fit_mask_kernel

    return fit_mask_kernel(1.0 - state.mem_used, mem, tasks)


class Mcb8Policy:
    """MCB8 over every job in the system; ``minft``/``minvt`` pin young running jobs.

    ``calls`` records, per call, the number of jobs considered and the seconds spent.

    On each call (``remap``) every running and waiting job is packed in priority order
    with MCB8 (``allockit.heuristics.mcb.mcb_fill``) at the largest yield that packs,
    found by bisection to ``YIELD_ACCURACY`` (0.01); when no yield packs, the
    lowest-priority job is dropped (it waits) and the search restarts (Casanova,
    Stillwell, Vivien 2011; the dropping rule is a modelling choice, see above).

    Parameters
    ----------
    minft : float, optional
        Seconds: a running job submitted less than ``minft`` ago keeps its nodes.
    minvt : float, optional
        Seconds: a running job with virtual time (integral of its yield) below
        ``minvt`` keeps its nodes.
    hold : float, optional
        Seconds: a job started, resumed or moved less than ``hold`` ago keeps its nodes.

    Raises
    ------
    InvalidInputError
        If ``minft``, ``minvt`` or ``hold`` is neither None nor a number >= 0.

    Examples
    --------
    Three one-task jobs on two nodes: the best packing puts two jobs on one node.

    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0, 0], runtime=[10, 10, 10],
    ...                        tasks=[1, 1, 1], cpu=[1.0, 1.0, 1.0], mem=[0.4, 0.4, 0.4])
    >>> s = DfrsState(w, penalty=0.0)
    >>> for j in range(3):
    ...     s.submit(j)
    >>> p = Mcb8Policy()
    >>> p.remap(s, 0.0)
    >>> sorted(s.running), s.load.tolist(), p.calls[0][0]
    ([0, 1, 2], [2.0, 1.0], 3)
    """

    #: Remap in one compiled call (``mcb8_remap_kernel``, or
    #: ``mcb8_stretch_remap_kernel`` for MCB8-stretch; not with ``hold``, nor for a
    #: subclass that overrides ``pack``, ``pinned``, ``_leaders`` or ``slopes``). False
    #: runs the Python steps, which give the same mapping (the tests compare the two).
    fused: bool = True

    def __init__(
        self,
        *,
        minft: float | None = None,
        minvt: float | None = None,
        hold: float | None = None,
    ) -> None:
        for name, value in (("minft", minft), ("minvt", minvt), ("hold", hold)):
            real_number(name, value, at_least=0, finite=False, optional=True, note="seconds")
        self.minft = minft
        self.minvt = minvt
        self.hold = hold
        self.calls: list[tuple[int, float]] = []

    def pinned(self, state: DfrsState, now: float) -> np.ndarray:
        """The running jobs that keep their nodes if they keep running (sorted array).

        ``minvt``: virtual time below it; ``minft``: submitted less than it ago;
        ``hold``: started, resumed or moved less than it ago (``held``).
        """
        jobs = state.running_jobs()
        keep = np.zeros(jobs.size, dtype=bool)
        if self.minvt is not None:
            keep |= state.vt[jobs] < self.minvt
        if self.hold is not None:
            keep |= now - state.last_move[jobs] < self.hold
        if self.minft is not None:
            keep |= now - state.submit_time[jobs] < self.minft
        return jobs[keep]

    def held(self, state: DfrsState, j: int, now: float) -> bool:
        """``hold``: a job started, resumed or moved less than ``hold`` s ago stays put."""
        return self.hold is not None and now - state.last_move[j] < self.hold

    def remap(self, state: DfrsState, now: float) -> None:
        """Pack every job by priority, dropping the lowest until it fits; apply it.

        With ``hold``, the running jobs within their hold come first (by priority) and
        keep their nodes: they are neither paused nor moved.
        """
        began = time.perf_counter()
        kernel = self._fused_kernel() if self.hold is None and self.fused else None
        if kernel is not None:
            self._remap_fused(state, now, began, kernel)
            return
        if self.hold is None:
            count, keep = self._leaders(state, now)
            if not count:
                return
        else:
            jobs = by_priority(state, state.running | state.waiting, now)
            if not jobs:
                return
            held = [j for j in jobs if j in state.running and self.held(state, j, now)]
            if held:
                rest = set(held)
                jobs = held + [j for j in jobs if j not in rest]
            count, keep = len(jobs), jobs[: memory_prefix(state, jobs)]
        pinned = self.pinned(state, now)
        mapping = None
        # drop the lowest-priority job until the rest packs; packing first fails on
        # memory alone (yield 0), found for all the prefixes in one compiled call
        del keep[_memory_fit(state, keep, pinned):]
        zero_packs = True  # (the memory of what is left packs: said to the first pack)
        while keep:
            mapping = self.pack(state, keep, pinned, now, zero_packs=zero_packs)
            if mapping is not None:
                break
            keep.pop()  # (only a pack with more conditions than memory fails here)
            zero_packs = False
        self.calls.append((count, time.perf_counter() - began))
        if mapping is None:
            mapping = np.zeros(0, dtype=np.int64), np.zeros((0, state.nodes))
        state.apply(*mapping, now)

    def _remap_fused(self, state: DfrsState, now: float, began: float, kernel: str) -> None:
        """``remap`` without ``hold`` in one call of the compiled ``kernel`` (by name)."""
        active, active_vt, active_submit, _, _ = state.active_view()
        if not active.size:
            return
        pool, nz, slot = state.rows.indexed()
        jobs, rows = getattr(kernel_module("dfrs_kernels"), kernel)(
            active, active_vt, active_submit, state.status, state.vt, state.submit_time,
            state.tasks, state.mem, state.cpu, pool, nz, slot, state.nodes, now,
            -np.inf if self.minvt is None else float(self.minvt),
            -np.inf if self.minft is None else float(self.minft),
            YIELD_ACCURACY, *self._fused_extra(),
        )
        self.calls.append((active.size, time.perf_counter() - began))
        state.apply(jobs, rows, now)

    def _fused_extra(self) -> tuple:
        """Arguments the fused kernel takes after the common ones (none here)."""
        return ()

    def _fused_kernel(self) -> str | None:
        """The compiled twin of this policy's remap, or None when a subclass changed a
        step of it (its packing, its pinned jobs, its leaders or its slopes); decided at
        the policy object's first remap (a class patched later in the run is not seen)."""
        cls = type(self)
        if self.__dict__.get("_fused_for") is not cls:  # (found once per policy object)
            self._fused_for, self._fused_name = cls, None
            for base, kernel, steps in _FUSED:
                if all(getattr(cls, step) is getattr(base, step) for step in steps):
                    self._fused_name = kernel
                    break
        return self._fused_name

    @staticmethod
    def _leaders(state: DfrsState, now: float) -> tuple[int, list[int]]:
        """The number of jobs in the system and those that may fit in memory, by priority.

        The jobs that may fit (``memory_prefix``) are a prefix of the priority order:
        only the start of the order is sorted, longer as needed.
        """
        jobs = state.active_jobs()  # (running or waiting, by index)
        keys = priority_keys(state, jobs, now)
        want = 2 * state.nodes + 16
        while True:
            first, rest = first_by_priority(jobs, keys, want)
            cut = memory_prefix(state, first)
            if cut < first.size or rest is None:
                return jobs.size, first[:cut].tolist()
            want *= 4

    def pack(
        self, state: DfrsState, keep: list[int], pinned: np.ndarray, now: float, *,
        zero_packs: bool = False,
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The mapping of ``keep`` at the largest yield that packs at ``now``, or None.

        Returns the kept jobs and their tasks per node (see ``_mapping``). ``pinned``:
        the running jobs that keep their rows (sorted). ``zero_packs``: the caller knows
        that yield 0 packs (the packing at 0 is then done only if it is the answer).
        The yields do not depend on the time (``Mcb8StretchPolicy``'s do).
        """
        from allockit.simulation.dfrs_kernels import mcb8_largest_yield_kernel

        fixed, base_mem, movable, task_job = _pinned_state(state, keep, pinned)
        base_load = _sum_rows(state.counts(fixed), state.cpu[fixed], state.nodes)
        hi = min(1.0, state.nodes / float((state.cpu[keep] * state.tasks[keep]).sum()))
        # largest_target(pack, hi, zero_first=True) with pack(y) = mcb_fill(y * cpu, mem,
        # 1 - y * base_load, 1 - base_mem), bisecting to YIELD_ACCURACY, in one call
        found, best = mcb8_largest_yield_kernel(
            state.cpu[task_job], state.mem[task_job], base_load, 1.0 - base_mem, hi,
            YIELD_ACCURACY, zero_packs,
        )
        if not found:
            return None
        return _mapping(state, fixed, movable, task_job, best)


class Mcb8StretchPolicy(Mcb8Policy):
    """MCB8-stretch (``/stretch-per``): maximise the minimum inverse stretch estimate.

    A job's stretch estimate at the next tick, ``period`` seconds ahead, is
    ``(ft + T) / (vt + y T)``; its inverse is affine in the yield ``y``.

    Packing as in ``Mcb8Policy``, but the bisection is on the level of the inverse
    stretch estimate (1 % relative accuracy): at level ``s`` job ``j`` needs the yield
    ``(s - a_j) / b_j`` with ``a_j = vt_j / (ft_j + T)`` and ``b_j = T / (ft_j + T)``
    (``ft`` flow time, ``vt`` virtual time, both in seconds).

    Parameters
    ----------
    period : float
        ``T``: seconds to the next scheduling event (the ``/stretch-per`` period,
        ``PERIOD_SECONDS`` = 600 s in the simulator).
    minft, minvt, hold : float, optional
        Seconds; as in ``Mcb8Policy``.

    Raises
    ------
    InvalidInputError
        If ``period`` is not a finite number > 0, or as ``Mcb8Policy``.

    Examples
    --------
    Two jobs each needing 0.6 of the only node's memory: only one can run.

    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[10, 10],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.6, 0.6])
    >>> s = DfrsState(w, penalty=0.0)
    >>> s.submit(0); s.submit(1)
    >>> Mcb8StretchPolicy(period=600.0).remap(s, 0.0)
    >>> sorted(s.running), sorted(s.waiting)
    ([0], [1])
    """

    def __init__(
        self,
        *,
        period: float,
        minft: float | None = None,
        minvt: float | None = None,
        hold: float | None = None,
    ) -> None:
        super().__init__(minft=minft, minvt=minvt, hold=hold)
        self.period = real_number("period", period, above=0, note="seconds")

    def _fused_extra(self) -> tuple:
        return (float(self.period),)

    def slopes(
        self, state: DfrsState, jobs: np.ndarray, now: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """``a_j`` and ``b_j`` of the inverse stretch estimates ``a_j + b_j y`` at ``now``."""
        period = self.period
        ft = np.maximum(now - state.submit_time[jobs], 0.0)
        return state.vt[jobs] / (ft + period), period / (ft + period)

    def pack(
        self, state: DfrsState, keep: list[int], pinned: np.ndarray, now: float, *,
        zero_packs: bool = False,
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The mapping of ``keep`` at the largest inverse stretch that packs at ``now``.

        None if none packs. (``zero_packs`` is not used: inverse stretch 0 is tried
        first anyway.)
        """
        from allockit.heuristics.mcb import largest_target, mcb_fill

        keep_arr = np.asarray(keep, dtype=np.int64)
        a, b = self.slopes(state, keep_arr, now)
        fixed, base_mem, movable, task_job = _pinned_state(state, keep, pinned)
        free_mem = 1.0 - base_mem
        fixed_cpu = state.counts(fixed) * state.cpu[fixed][:, None]
        # positions in ``keep`` of the pinned jobs and of each movable task's job
        sorter = np.argsort(keep_arr, kind="stable")
        fixed_at = sorter[np.searchsorted(keep_arr, fixed, sorter=sorter)]
        task_at = sorter[np.searchsorted(keep_arr, task_job, sorter=sorter)]
        task_cpu, task_mem = state.cpu[task_job], state.mem[task_job]

        def pack(inverse: float) -> np.ndarray | None:
            need = (inverse - a) / b
            if (need > 1.0 + 1e-12).any():
                return None
            y = np.clip(need, 0.0, 1.0)  # (the yields of ``keep``, in its order)
            base_load = _sum_rows(fixed_cpu, y[fixed_at], state.nodes)
            free_cpu = 1.0 - base_load
            if (free_cpu < -MEM_EPS).any():
                return None
            return mcb_fill(y[task_at] * task_cpu, task_mem, free_cpu, free_mem)

        # 1 % relative accuracy on the stretch
        best = largest_target(
            pack, 1.0, lambda lo, hi: hi - lo <= YIELD_ACCURACY * hi, zero_first=True
        )
        if best is None:
            return None
        return _mapping(state, fixed, movable, task_job, best)


#: The remaps with a compiled twin (used without ``hold``): the class, its kernel and
#: the steps the kernel does (a subclass that overrides one runs the Python steps).
_FUSED = (
    (Mcb8Policy, "mcb8_remap_kernel", ("pack", "pinned", "_leaders", "_fused_extra")),
    (Mcb8StretchPolicy, "mcb8_stretch_remap_kernel",
     ("pack", "pinned", "_leaders", "slopes", "_fused_extra")),
)


def memory_prefix(state: DfrsState, jobs: list[int] | np.ndarray) -> int:
    """How many of ``jobs`` (by priority) can possibly fit in memory together.

    A necessary condition only (total memory and tasks over half a node each must not
    exceed the node count), so skipping the longer prefixes changes nothing: the packing
    would fail on them too.
    """
    order = np.asarray(jobs, dtype=np.int64)
    total = np.cumsum(state.tasks[order] * state.mem[order])
    big = np.cumsum(np.where(state.mem[order] > 0.5 + MEM_EPS, state.tasks[order], 0))
    ok = (total <= state.nodes + 1e-9) & (big <= state.nodes)
    return int(np.argmin(ok)) if not ok.all() else len(jobs)


def _memory_fit(state: DfrsState, keep: list[int], pinned: np.ndarray) -> int:
    """How many of ``keep`` (by priority) MCB8 packs at yield 0, dropping from the end.

    ``pack`` tries target 0 first and gives up when it fails: this finds the first
    prefix it would not give up on (``mcb8_memory_prefix_kernel``).
    """
    from allockit.simulation.dfrs_kernels import mcb8_memory_prefix_kernel

    if not keep:
        return 0
    order = np.asarray(keep, dtype=np.int64)
    is_pinned = np.isin(order, pinned)
    return int(mcb8_memory_prefix_kernel(
        is_pinned, order, state.tasks[order], state.mem[order], state.counts(order[is_pinned])
    ))


def _sum_rows(rows: np.ndarray, weights: np.ndarray, nodes: int) -> np.ndarray:
    """``rows[0] * weights[0] + rows[1] * weights[1] + ...``, added in row order.

    Each product is rounded, then added to the running sum from the first row on (as a
    loop of ``+=`` from zeros), so the result does not depend on how numpy would
    group a sum; zeros for no rows.

    >>> _sum_rows(np.array([[1.0, 0.0], [2.0, 1.0]]), np.array([0.5, 0.25]), 2).tolist()
    [1.0, 0.25]
    """
    if not rows.shape[0]:
        return np.zeros(nodes)
    return np.cumsum(rows * weights[:, None], axis=0)[-1]


def _pinned_state(state: DfrsState, keep: list[int], pinned: np.ndarray):
    """The pinned jobs of ``keep`` (in its order), their memory per node, the other
    jobs (by index) and the job of each of their tasks."""
    order = np.asarray(keep, dtype=np.int64)
    is_pinned = np.isin(order, pinned)
    fixed = order[is_pinned]
    base_mem = _sum_rows(state.counts(fixed), state.mem[fixed], state.nodes)
    movable = np.sort(order[~is_pinned])
    task_job = np.repeat(movable, state.tasks[movable])
    return fixed, base_mem, movable, task_job


def _mapping(
    state: DfrsState, fixed: np.ndarray, movable: np.ndarray, task_job: np.ndarray,
    placed: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The kept jobs and their tasks per node (float rows): the pinned jobs' own rows,
    then the movable jobs' rows from ``placed`` (a node per task of ``task_job``)."""
    where = np.searchsorted(movable, task_job) * state.nodes + placed
    grid = np.bincount(where, minlength=movable.size * state.nodes).astype(float)
    rows = np.concatenate([state.counts(fixed), grid.reshape(movable.size, state.nodes)])
    return np.concatenate([fixed, movable]), rows
