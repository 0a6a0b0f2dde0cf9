"""The two-tier schedulers as small rule objects acting on a ``TwoTierState``.

Wang et al. (seed 003), Algorithms 1-3, restated in user guide (MEASY):

- ``dispatch_fg`` / ``dispatch_bg``: Algorithm 2's Dispatch (processes by decreasing CPU
  usage onto idle VMs by increasing utilisation of the other tier).
- ``Deploy`` and its three rules: ``KillDeploy`` (KEASY: a bg job that cannot swap in
  place is killed and restarted in fg), ``RefuseDeploy`` (REASY: it stays pinned in
  bg), ``MigrateDeploy`` (MEASY: it migrates, paying the migration cost). Every rule
  swaps priorities for free when all the job's processors have an idle fg VM.
- ``EasyReservation`` (EASY's shadow time and extra VMs for the merged list's head)
  and ``PinnedReservation`` (REASY: for a head running in bg, the shadow is the last
  estimated end of the fg jobs on its processors; the extra VMs are the idle fg VMs
  off its processors, or Algorithm 3 line 17's idle + s - n, with or without keeping
  the extra-admitted jobs off the head's processors).
- ``TwoTierScheduler``: step 1 (FCFS over the merged list into fg), step 2 (reservation
  and backfilling into fg), step 3 (SJF of the waiting jobs into bg).

Where the paper is silent the rules are the ``CHOICES`` of ``two_tier_choices`` (keys
quoted in the comments).
"""

from __future__ import annotations

import math

import numpy as np

from allockit.simulation.two_tier_state import BG, WAITING, TwoTierState

__all__ = [
    "Deploy",
    "EasyReservation",
    "KillDeploy",
    "MigrateDeploy",
    "PinnedReservation",
    "RefuseDeploy",
    "TwoTierScheduler",
    "dispatch_bg",
    "dispatch_fg",
    "scheduler_for",
]


def dispatch_fg(
    state: TwoTierState,
    j: int,
    *,
    own: np.ndarray | None = None,
    avoid: np.ndarray | None = None,
) -> np.ndarray:
    """Processors for job ``j``'s processes in fg, process ``i`` on the ``i``-th.

    Idle fg VMs by increasing seen usage of the bg process beside them (0 when the bg
    VM is empty), ties by processor index (CHOICES dispatch).

    Parameters
    ----------
    state : TwoTierState
    j : int
        The job (it fits the idle fg VMs).
    own : numpy.ndarray, optional
        Processors whose bg VM holds ``j`` (a migrating job): counted as empty and
        preferred among equals.
    avoid : numpy.ndarray, optional
        Processors not to use (REASY's head).

    Returns
    -------
    numpy.ndarray
        ``size[j]`` processor indices (fewer if not enough are idle).

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=3), submit=[0, 0], runtime=[9, 9],
    ...                        tasks=[1, 2], cpu=[0.5, 0.5], mem=[0.1, 0.1])
    >>> s = TwoTierState(w, seen_cpu=w.cpu, estimate=w.runtime,
    ...                  rng=np.random.default_rng(0), draws="job",
    ...                  migration_cost=20.0, bg_threshold=0.96)
    >>> s.submit(0, 0.0); s.submit(1, 0.0); s.place_bg(0, np.array([0]), 0.0)
    >>> dispatch_fg(s, 1).tolist()   # P0's bg is busy: P1 and P2 first
    [1, 2]
    """
    n = state.size[j]
    idle = np.flatnonzero(state.fg_job < 0)
    if avoid is not None:
        idle = idle[~np.isin(idle, avoid)]
    key = state.bg_seen[idle]
    if own is not None:
        mine = np.isin(idle, own)
        key = np.where(mine, 0.0, key)
        order = np.lexsort((idle, ~mine, key))
    else:
        order = np.argsort(key, kind="stable")
    return idle[order[:n]]


def dispatch_bg(state: TwoTierState, j: int) -> np.ndarray:
    """Processors for job ``j``'s processes in bg: eligible bg VMs by increasing fg usage.

    Eligible: empty bg VM whose fg VM is idle or runs a process of seen usage below the
    threshold (CHOICES threshold); ties by processor index.

    Parameters
    ----------
    state : TwoTierState
    j : int
        The job (it fits the eligible bg VMs).

    Returns
    -------
    numpy.ndarray
        ``size[j]`` processor indices.

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=3), submit=[0, 0], runtime=[9, 9],
    ...                        tasks=[2, 1], cpu=[0.5, 0.5], mem=[0.1, 0.1])
    >>> s = TwoTierState(w, seen_cpu=w.cpu, estimate=w.runtime,
    ...                  rng=np.random.default_rng(0), draws="job",
    ...                  migration_cost=20.0, bg_threshold=0.96)
    >>> s.submit(0, 0.0); s.submit(1, 0.0); s.place_fg(0, np.array([0, 1]), 0.0)
    >>> dispatch_bg(s, 1).tolist()   # the idle P2 (usage 0) before P0 and P1 (0.5)
    [2]
    """
    n = state.size[j]
    ok = np.flatnonzero((state.bg_job < 0) & (state.fg_seen < state.bg_threshold))
    order = np.argsort(state.fg_seen[ok], kind="stable")
    return ok[order[:n]]


def eligible_bg(state: TwoTierState) -> int:
    """Number of bg VMs a process may be placed in now (CHOICES threshold)."""
    return int(np.count_nonzero((state.bg_job < 0) & (state.fg_seen < state.bg_threshold)))


class Deploy:
    """Algorithm 2's Deploy: put a job of the merged list into fg, or refuse.

    A waiting job is dispatched to idle fg VMs. A bg job whose every processor has an
    idle fg VM swaps priorities in place, for free (CHOICES swap). Otherwise the rule
    of the subclass applies (``move``); the base class refuses.

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=3), submit=[0, 0], runtime=[50, 50],
    ...                        tasks=[1, 2], cpu=[0.5, 0.5], mem=[0.1, 0.1])
    >>> s = TwoTierState(w, seen_cpu=w.cpu, estimate=w.runtime,
    ...                  rng=np.random.default_rng(0), draws="job",
    ...                  migration_cost=20.0, bg_threshold=0.96)
    >>> s.submit(0, 0.0); s.submit(1, 0.0)
    >>> s.place_fg(0, np.array([0]), 0.0); s.place_bg(1, np.array([0, 1]), 0.0)
    >>> Deploy().deploy(s, 1, 10.0), s.tier[1] == BG   # P0's fg VM is busy: refused
    (False, True)
    """

    name = "R"

    def runtime(self, state: TwoTierState, j: int, now: float) -> float:
        """The estimated run time ``j`` would have in fg if deployed now.

        CHOICES remaining_estimate: the estimate for a waiting job, the remaining
        estimate for a swap, the subclass's value for a move.
        """
        if state.tier[j] != BG:
            return state.estimate[j]
        if state.can_swap(j):
            return state.remaining_estimate(j, now)
        return self.moved_runtime(state, j, now)

    def moved_runtime(self, state: TwoTierState, j: int, now: float) -> float:
        """Estimated run time after a move (refused: never started)."""
        return math.inf

    def deploy(
        self, state: TwoTierState, j: int, now: float, avoid: np.ndarray | None = None
    ) -> bool:
        """Deploy ``j`` into fg; False if refused. ``j`` fits the idle fg VMs."""
        if state.tier[j] == WAITING:
            state.place_fg(j, dispatch_fg(state, j, avoid=avoid), now)
            return True
        if state.can_swap(j):
            state.swap(j, now)
            return True
        return self.move(state, j, now)

    def move(self, state: TwoTierState, j: int, now: float) -> bool:
        """A bg job that cannot swap in place (CHOICES refuse: REASY refuses)."""
        return False


class RefuseDeploy(Deploy):
    """REASY's Deploy ('R'): a bg job moves to fg only by a swap in place.

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=3), submit=[0, 0], runtime=[50, 50],
    ...                        tasks=[1, 2], cpu=[0.5, 0.5], mem=[0.1, 0.1])
    >>> def state():  # job 0 in fg on P0; job 1 in bg on P0 and P1
    ...     s = TwoTierState(w, seen_cpu=w.cpu, estimate=w.runtime,
    ...                      rng=np.random.default_rng(0), draws="job",
    ...                      migration_cost=20.0, bg_threshold=0.96)
    ...     s.submit(0, 0.0); s.submit(1, 0.0)
    ...     s.place_fg(0, np.array([0]), 0.0); s.place_bg(1, np.array([0, 1]), 0.0)
    ...     return s
    >>> s = state()
    >>> RefuseDeploy().deploy(s, 1, 10.0), s.procs[1].tolist()
    (False, [0, 1])
    """

    name = "R"


class KillDeploy(Deploy):
    """KEASY's Deploy ('K'): kill the bg job and restart it in fg (CHOICES kill).

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=3), submit=[0, 0], runtime=[50, 50],
    ...                        tasks=[1, 2], cpu=[0.5, 0.5], mem=[0.1, 0.1])
    >>> def state():  # job 0 in fg on P0; job 1 in bg on P0 and P1
    ...     s = TwoTierState(w, seen_cpu=w.cpu, estimate=w.runtime,
    ...                      rng=np.random.default_rng(0), draws="job",
    ...                      migration_cost=20.0, bg_threshold=0.96)
    ...     s.submit(0, 0.0); s.submit(1, 0.0)
    ...     s.place_fg(0, np.array([0]), 0.0); s.place_bg(1, np.array([0, 1]), 0.0)
    ...     return s
    >>> s = state()
    >>> KillDeploy().deploy(s, 1, 10.0), s.procs[1].tolist(), int(s.kills[1]), s.done[1]
    (True, [1, 2], 1, 0.0)
    """

    name = "K"

    def moved_runtime(self, state: TwoTierState, j: int, now: float) -> float:
        """A killed job restarts: its full estimate."""
        return state.estimate[j]

    def move(self, state: TwoTierState, j: int, now: float) -> bool:
        """Kill ``j``, then dispatch it like a new job."""
        state.kill(j, now)
        state.place_fg(j, dispatch_fg(state, j), now)
        return True


class MigrateDeploy(Deploy):
    """MEASY's Deploy: migrate the bg job to fg VMs (CHOICES migration).

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=3), submit=[0, 0], runtime=[50, 50],
    ...                        tasks=[1, 2], cpu=[0.5, 0.5], mem=[0.1, 0.1])
    >>> def state():  # job 0 in fg on P0; job 1 in bg on P0 and P1
    ...     s = TwoTierState(w, seen_cpu=w.cpu, estimate=w.runtime,
    ...                      rng=np.random.default_rng(0), draws="job",
    ...                      migration_cost=20.0, bg_threshold=0.96)
    ...     s.submit(0, 0.0); s.submit(1, 0.0)
    ...     s.place_fg(0, np.array([0]), 0.0); s.place_bg(1, np.array([0, 1]), 0.0)
    ...     return s
    >>> s = state()
    >>> MigrateDeploy().deploy(s, 1, 10.0), s.procs[1].tolist()  # process 1 stays on P1
    (True, [2, 1])
    >>> int(s.migrations[1]), s.hold_until[1], s.est_end[1]   # 20 s cost + 50 s estimate
    (1, 30.0, 80.0)
    """

    name = "M"

    def moved_runtime(self, state: TwoTierState, j: int, now: float) -> float:
        """The migration cost plus the remaining estimate."""
        return state.migration_cost + state.remaining_estimate(j, now)

    def move(self, state: TwoTierState, j: int, now: float) -> bool:
        """Migrate ``j``: its own processors first, the rest by Dispatch."""
        state.migrate(j, dispatch_fg(state, j, own=state.procs[j]), now)
        return True


class EasyReservation:
    """EASY's reservation for the merged list's head (Algorithm 1, step 2).

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=3), submit=[0, 0], runtime=[50, 50],
    ...                        tasks=[1, 2], cpu=[0.5, 0.5], mem=[0.1, 0.1])
    >>> def state():  # job 0 in fg on P0; job 1 in bg on P0 and P1
    ...     s = TwoTierState(w, seen_cpu=w.cpu, estimate=w.runtime,
    ...                      rng=np.random.default_rng(0), draws="job",
    ...                      migration_cost=20.0, bg_threshold=0.96)
    ...     s.submit(0, 0.0); s.submit(1, 0.0)
    ...     s.place_fg(0, np.array([0]), 0.0); s.place_bg(1, np.array([0, 1]), 0.0)
    ...     return s
    >>> EasyReservation().reserve(state(), 1, 10.0)  # 2 VMs once job 0 ends at 50
    (50.0, 1, None)
    """

    def reserve(
        self, state: TwoTierState, head: int, now: float
    ) -> tuple[float, int, np.ndarray | None]:
        """``(shadow, extra, avoid)`` for ``head`` (CHOICES shadow).

        fg jobs in order of (max(estimated end, now), index) free their VMs until the
        head fits; ``avoid`` is None (extra VMs are counted, not named).
        """
        need = state.size[head]
        avail = state.idle_fg
        shadow = math.inf
        est_end, size = state.est_end, state.size
        for k in sorted(state.fg_jobs, key=lambda k: (max(est_end[k], now), k)):
            avail += size[k]
            if avail >= need:
                shadow = max(est_end[k], now)
                break
        return shadow, avail - need, None


class PinnedReservation(EasyReservation):
    """REASY's reservation (Algorithm 3): a head running in bg waits for its processors.

    shadow = the last estimated end of the fg jobs on the head's processors (now if
    none). ``extra`` chooses the extra fg VMs (CHOICES reasy): ``"idle"`` (default, the
    paper's prose) the idle fg VMs of processors with no process of the head in their
    bg; ``"line17"`` (Algorithm 3, line 17) idle + s - n, with s the total size of the
    fg jobs on the head's processors and n the head's size, as EASY counts the VMs
    free at the shadow time. ``protect`` (default True) dispatches a job admitted by
    the extra rule off the head's processors only; False leaves Dispatch unmodified. A
    waiting head gets EASY's reservation.

    Parameters
    ----------
    extra : {"idle", "line17"}
    protect : bool

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=3), submit=[0, 0], runtime=[50, 50],
    ...                        tasks=[1, 2], cpu=[0.5, 0.5], mem=[0.1, 0.1])
    >>> def state():  # job 0 in fg on P0; job 1 in bg on P0 and P1
    ...     s = TwoTierState(w, seen_cpu=w.cpu, estimate=w.runtime,
    ...                      rng=np.random.default_rng(0), draws="job",
    ...                      migration_cost=20.0, bg_threshold=0.96)
    ...     s.submit(0, 0.0); s.submit(1, 0.0)
    ...     s.place_fg(0, np.array([0]), 0.0); s.place_bg(1, np.array([0, 1]), 0.0)
    ...     return s
    >>> shadow, extra, avoid = PinnedReservation().reserve(state(), 1, 10.0)
    >>> shadow, extra, avoid.tolist()   # only P2 is idle off the head's processors
    (50.0, 1, [0, 1])
    >>> shadow, extra, avoid = PinnedReservation("line17", protect=False).reserve(
    ...     state(), 1, 10.0)
    >>> shadow, extra, avoid   # idle 2 (P1, P2) + s 1 (job 0) - n 2
    (50.0, 1, None)
    """

    def __init__(self, extra: str = "idle", *, protect: bool = True) -> None:
        if extra not in ("idle", "line17"):
            raise ValueError(f"extra must be 'idle' or 'line17'; got {extra!r}")
        self.extra = extra
        self.protect = bool(protect)

    def reserve(
        self, state: TwoTierState, head: int, now: float
    ) -> tuple[float, int, np.ndarray | None]:
        """``(shadow, extra, avoid)``; ``avoid`` is the head's processors when it is in
        bg and ``protect`` is set, else None."""
        if state.tier[head] != BG:
            return super().reserve(state, head, now)
        pp = state.procs[head]
        above = state.fg_job[pp]
        jobs = np.unique(above[above >= 0]).tolist()
        shadow = max((max(state.est_end[k], now) for k in jobs), default=now)
        if self.extra == "line17":
            extra = state.idle_fg + sum(state.size[k] for k in jobs) - state.size[head]
        else:
            extra = _idle_outside(state, pp)
        return shadow, extra, (pp if self.protect else None)


def _idle_outside(state: TwoTierState, avoid: np.ndarray) -> int:
    idle = state.fg_job < 0
    return int(np.count_nonzero(idle)) - int(np.count_nonzero(idle[avoid]))


class TwoTierScheduler:
    """KEASY, REASY or MEASY (or EASY with ``background=False``) on a ``TwoTierState``.

    Parameters
    ----------
    deploy : Deploy
        What happens to a bg job chosen for fg.
    reservation : EasyReservation
        The head's reservation rule.
    background : bool
        Use the bg tier (step 3); False gives EASY.

    Examples
    --------
    >>> from allockit.instances.workload import Platform, Workload
    >>> w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0, 0], runtime=[10, 10, 5],
    ...                        tasks=[1, 2, 1], cpu=[0.5, 0.5, 0.5], mem=[0.1] * 3)
    >>> s = TwoTierState(w, seen_cpu=w.cpu, estimate=w.runtime,
    ...                  rng=np.random.default_rng(0), draws="job",
    ...                  migration_cost=20.0, bg_threshold=0.96)
    >>> for j in range(3):
    ...     s.submit(j, 0.0)
    >>> sched = scheduler_for("MEASY")
    >>> sched.fg_pass(s, 0.0); sched.bg_pass(s, 0.0)
    >>> sorted(s.fg_jobs), sorted(s.bg_jobs), s.merged  # 2 is backfilled, 1 waits in bg
    ([0, 2], [1], [1])
    """

    def __init__(
        self, deploy: Deploy, reservation: EasyReservation, *, background: bool = True
    ) -> None:
        self.deploy = deploy
        self.reservation = reservation
        self.background = background

    def fg_pass(self, state: TwoTierState, now: float) -> None:
        """Steps 1 and 2: FCFS over the merged list, then reservation and backfilling."""
        self.fcfs(state, now)
        self.backfill(state, now)

    def fcfs(self, state: TwoTierState, now: float) -> None:
        """Step 1: FCFS into fg; stop at the first job that cannot be deployed."""
        merged, size, deploy = state.merged, state.size, self.deploy
        while merged:
            j = merged[0]
            if size[j] > state.idle_fg or not deploy.deploy(state, j, now):
                break

    def backfill(self, state: TwoTierState, now: float) -> None:
        """Step 2: reservation for the merged list's head, backfilling of the others."""
        merged, size, deploy = state.merged, state.size, self.deploy
        if len(merged) < 2 or state.idle_fg == 0:
            return
        head = merged[0]
        shadow, extra, avoid = self.reservation.reserve(state, head, now)
        idle = state.idle_fg
        candidates = [j for j in merged[1:] if size[j] <= idle]
        for j in candidates:
            n = size[j]
            if n > state.idle_fg:
                continue
            if now + deploy.runtime(state, j, now) <= shadow:
                deploy.deploy(state, j, now)
            elif avoid is None:
                if n <= extra and deploy.deploy(state, j, now):
                    extra -= n
            elif n <= extra and n <= _idle_outside(state, avoid):
                # REASY's protected head: only VMs off its processors (with extra="idle"
                # the second test implies the first: both fall by n per admitted job)
                if deploy.deploy(state, j, now, avoid=avoid):
                    extra -= n

    def bg_pass(self, state: TwoTierState, now: float) -> None:
        """Step 3: the waiting jobs by increasing estimate into eligible bg VMs (SJF)."""
        if not self.background or not state.merged:
            return
        room = eligible_bg(state)
        if room == 0:
            return
        tier, size, estimate = state.tier, state.size, state.estimate
        waiting = [j for j in state.merged if tier[j] == WAITING and size[j] <= room]
        waiting.sort(key=lambda j: (estimate[j], j))
        for j in waiting:
            if size[j] <= room:
                state.place_bg(j, dispatch_bg(state, j), now)
                room -= size[j]
                if room == 0:
                    break


def scheduler_for(
    algorithm: str,
    *,
    background: bool = True,
    reasy_extra: str = "idle",
    reasy_protect: bool = True,
) -> TwoTierScheduler:
    """The scheduler of ``algorithm`` (``"KEASY"``, ``"REASY"`` or ``"MEASY"``).

    Parameters
    ----------
    algorithm : {"KEASY", "REASY", "MEASY"}
    background : bool
        Use the bg tier; False gives EASY.
    reasy_extra : {"idle", "line17"}
        REASY's extra fg VMs (``PinnedReservation``; CHOICES reasy).
    reasy_protect : bool
        REASY: keep jobs admitted by the extra rule off the head's processors.

    Returns
    -------
    TwoTierScheduler

    Raises
    ------
    ValueError
        For another name (``simulate_two_tier`` validates names before).

    Examples
    --------
    >>> type(scheduler_for("REASY").deploy).__name__
    'RefuseDeploy'
    """
    if algorithm == "KEASY":
        return TwoTierScheduler(KillDeploy(), EasyReservation(), background=background)
    if algorithm == "REASY":
        return TwoTierScheduler(
            RefuseDeploy(),
            PinnedReservation(reasy_extra, protect=reasy_protect),
            background=background,
        )
    if algorithm == "MEASY":
        return TwoTierScheduler(MigrateDeploy(), EasyReservation(), background=background)
    raise ValueError(f"unknown two-tier algorithm {algorithm!r}")
