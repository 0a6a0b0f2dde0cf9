"""The state of a two-tier (MEASY family) simulation: VMs, jobs, rates and progress.

``TwoTierState`` holds per-processor arrays (which job's process sits in each fg and bg
VM, the usage the scheduler sees and the true one, the drawn loss and rho) and per-job
arrays (tier, processors, progress, rate, estimated end, counters), and does what every
scheduler shares: placing a job in fg or bg, the free priority swap, the kill, the
migration, completion, the exact progress bookkeeping and the debug-mode invariants.
The schedulers (``two_tier_policies``) decide *what* to do; this class does it. The
rules are the ``CHOICES`` of ``allockit.simulation.two_tier_choices`` (keys quoted in
the comments); progress follows user guide (MEASY):

- between events every process's rate is constant: fg ``1 - loss`` while its bg VM is
  occupied, else 1; bg 1 under an idle fg VM, else ``min(1, rho (1 - U_fg) / U_bg)``;
- a job progresses at its slowest process (0 during a migration's cost), so its
  completion time is exact: ``last + (runtime - done) / rate``;
- a rate is recomputed only for the jobs whose processors changed (``dirty``), and a
  job's progress is integrated only when its rate changes.
"""

from __future__ import annotations

import math

import numpy as np

from allockit.errors import AllocKitError
from allockit.instances.workload import Workload
from allockit.simulation.two_tier_choices import LOSS_RANGE, RHO_MULTI, RHO_SINGLE

__all__ = [
    "BG",
    "DONE",
    "FG",
    "FUTURE",
    "WAITING",
    "SimulationInvariantError",
    "TwoTierState",
]

FUTURE, WAITING, FG, BG, DONE = 0, 1, 2, 3, 4


def _close(done: float, work: float, now: float) -> bool:
    """Progress ``done`` equals ``work`` up to the round-off of times near ``now``."""
    return abs(done - work) <= 1e-6 * max(1.0, work) + 1e4 * math.ulp(max(1.0, abs(now)))


class SimulationInvariantError(AllocKitError):
    """An invariant of the two-tier simulation broke (a bug), found in debug mode."""


class TwoTierState:
    """Processors, jobs and progress of one two-tier run (see the module docstring).

    Parameters
    ----------
    workload : Workload
        Jobs in submission order; ``platform.nodes`` single-core processors.
    seen_cpu : numpy.ndarray
        Per-job CPU usage the scheduler sees (the true one, or 1 with no information).
    estimate : numpy.ndarray
        Per-job runtime estimate the scheduler uses.
    rng : numpy.random.Generator
        Source of the loss and rho draws.
    draws : {"job", "process", "placement"}
        Granularity of the draws (``CHOICES["draws"]``).
    migration_cost : float
        Seconds without progress after a migration.
    bg_threshold : float
        bg placement only under fg usage below this.
    debug : bool
        Integrate every job's progress independently and check the invariants.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=2), submit=[0, 0], runtime=[10, 10],
    ...                        tasks=[1, 1], cpu=[0.5, 1.0], mem=[0.1, 0.1])
    >>> s = TwoTierState(w, seen_cpu=w.cpu, estimate=w.runtime,
    ...                  rng=np.random.default_rng(0), draws="job",
    ...                  migration_cost=20.0, bg_threshold=0.96)
    >>> s.submit(0, 0.0); s.submit(1, 0.0)
    >>> s.place_fg(0, np.array([0]), 0.0); s.place_bg(1, np.array([0]), 0.0)
    >>> s.fg_job.tolist(), s.bg_job.tolist(), s.idle_fg
    ([0, -1], [1, -1], 1)
    >>> r = s.job_rate(1, 0.0)  # rho * (1 - 0.5) / 1.0 with rho in [0.80, 0.92]
    >>> 0.40 <= r <= 0.46
    True
    """

    def __init__(
        self,
        workload: Workload,
        *,
        seen_cpu: np.ndarray,
        estimate: np.ndarray,
        rng: np.random.Generator,
        draws: str,
        migration_cost: float,
        bg_threshold: float,
        debug: bool = False,
    ) -> None:
        n, P = workload.n_jobs, workload.platform.nodes
        self.n, self.P = n, P
        self.rng = rng
        self.draws = draws
        self.migration_cost = float(migration_cost)
        self.bg_threshold = float(bg_threshold)
        self.debug = debug
        # static per-job data (Python lists: fast scalar access in the scheduling loops)
        self.size = workload.tasks.astype(np.int64).tolist()
        self.runtime = workload.runtime.tolist()
        self.submit_time = workload.submit.tolist()
        self.u_true = workload.cpu.tolist()
        self.u_seen = np.asarray(seen_cpu, dtype=float).tolist()
        self.estimate = np.asarray(estimate, dtype=float).tolist()
        # dynamic per-job data
        self.tier = [FUTURE] * n
        self.procs: list[np.ndarray | None] = [None] * n
        self.done = [0.0] * n  # progress (dedicated seconds) at time last[j]
        self.last = [0.0] * n
        self.rate = [0.0] * n
        self.hold_until = [-math.inf] * n  # end of a migration's no-progress window
        self.est_end = [math.nan] * n  # scheduler's estimated end while in fg
        self.start = np.full(n, np.nan)
        self.end = np.full(n, np.nan)
        self.first_fg = np.full(n, np.nan)
        self.kills = np.zeros(n, dtype=np.int64)
        self.migrations = np.zeros(n, dtype=np.int64)
        self.swaps = np.zeros(n, dtype=np.int64)
        self.moved_processes = 0
        self.wasted_cpu_seconds = 0.0
        self.killed_work = 0.0  # sum over kills of progress x processes (CHOICES kill)
        self.killed_processes = 0  # sum over kills of processes
        self._loss: dict[int, float | np.ndarray] = {}
        self._rho: dict[int, float | np.ndarray] = {}
        # the scheduler's lists: merged list (waiting + bg) in submission order, fg set
        self.merged: list[int] = []
        self.fg_jobs: set[int] = set()
        self.bg_jobs: set[int] = set()
        self.dirty: set[int] = set()  # jobs whose rate may have changed
        self.new_holds: list[int] = []  # migrated jobs whose window end is not scheduled
        # per-processor data
        self.fg_job = np.full(P, -1, dtype=np.int64)
        self.bg_job = np.full(P, -1, dtype=np.int64)
        self.fg_seen = np.zeros(P)  # seen usage of the fg process (0: idle)
        self.fg_true = np.zeros(P)
        self.bg_seen = np.zeros(P)
        self.fg_loss = np.zeros(P)
        self.bg_rho = np.zeros(P)
        self.idle_fg = P
        self.busy_bg = 0
        self.unfinished_processes = 0
        # debug: independent progress integral, placement times and bg admissions
        self.integral = [0.0] * n
        self.fg_since = np.full(P, -math.inf)
        self.bg_since = np.full(P, -math.inf)
        self.bg_admitted = np.zeros(P, dtype=bool)
        self.completions = np.zeros(n, dtype=np.int64)

    # ------------------------------------------------------------------ draws
    def _draw_loss(self, count: int) -> float | np.ndarray:
        lo, hi = LOSS_RANGE
        return float(self.rng.uniform(lo, hi)) if count == 1 else self.rng.uniform(lo, hi, count)

    def _draw_rho(self, single: bool, count: int) -> float | np.ndarray:
        if single:
            lo, hi = RHO_SINGLE
            if count == 1:
                return float(self.rng.uniform(lo, hi))
            return self.rng.uniform(lo, hi, count)
        mean, sd, lo, hi = RHO_MULTI
        if count == 1:
            return float(min(hi, max(lo, self.rng.normal(mean, sd))))
        return np.clip(self.rng.normal(mean, sd, count), lo, hi)

    def _values(self, j: int, which: str) -> float | np.ndarray:
        """The loss or rho values of job ``j``'s processes for a placement now."""
        if self.draws == "placement":
            count = self.size[j]
            if which == "loss":
                return self._draw_loss(count)
            return self._draw_rho(count == 1, count)
        return (self._loss if which == "loss" else self._rho)[j]

    # ------------------------------------------------------------------ job life
    def submit(self, j: int, now: float) -> None:
        """Job ``j`` arrives: it joins the merged list; its draws are made (CHOICES draws)."""
        self.tier[j] = WAITING
        self.submit_time[j] = now  # the actual submission (later with feedback)
        self.merged.append(j)  # appended at arrival: the list stays in arrival order
        self.unfinished_processes += self.size[j]
        if self.draws != "placement":
            count = 1 if self.draws == "job" else self.size[j]
            self._loss[j] = self._draw_loss(count)
            self._rho[j] = self._draw_rho(self.size[j] == 1, count)

    def _started(self, j: int, now: float) -> None:
        if math.isnan(self.start[j]):
            self.start[j] = now
        self.last[j] = now
        self.rate[j] = 0.0
        self.dirty.add(j)

    def place_fg(self, j: int, pp: np.ndarray, now: float) -> None:
        """Start waiting job ``j`` in the fg VMs of processors ``pp`` (process i on pp[i])."""
        self.merged.remove(j)
        self._put_fg(j, pp, now)
        self.done[j] = 0.0
        self.integral[j] = 0.0
        self.est_end[j] = now + self.estimate[j]
        self._started(j, now)

    def _put_fg(self, j: int, pp: np.ndarray, now: float) -> None:
        if self.debug and (self.fg_job[pp] >= 0).any():
            raise SimulationInvariantError(f"t={now}: job {j} placed on a busy fg VM")
        self.tier[j] = FG
        self.procs[j] = pp
        self.fg_jobs.add(j)
        self.fg_job[pp] = j
        self.fg_seen[pp] = self.u_seen[j]
        self.fg_true[pp] = self.u_true[j]
        self.fg_loss[pp] = self._values(j, "loss")
        self.fg_since[pp] = now
        self.idle_fg -= pp.size
        if math.isnan(self.first_fg[j]):
            self.first_fg[j] = now
        self._touch(pp)

    def place_bg(self, j: int, pp: np.ndarray, now: float) -> None:
        """Start waiting job ``j`` in the bg VMs of processors ``pp`` (CHOICES threshold)."""
        if self.debug and (
            (self.bg_job[pp] >= 0).any() or (self.fg_seen[pp] >= self.bg_threshold).any()
        ):
            raise SimulationInvariantError(f"t={now}: job {j} placed on an ineligible bg VM")
        self.tier[j] = BG
        self.procs[j] = pp
        self.bg_jobs.add(j)
        self.bg_job[pp] = j
        self.bg_seen[pp] = self.u_seen[j]
        self.bg_rho[pp] = self._values(j, "rho")
        self.bg_since[pp] = now
        self.bg_admitted[pp] = True
        self.busy_bg += pp.size
        self.done[j] = 0.0
        self.integral[j] = 0.0
        self._started(j, now)
        self._touch(pp)

    def _take_off(self, j: int) -> np.ndarray:
        """Remove job ``j``'s processes from their VMs; returns their processors."""
        pp = self.procs[j]
        assert pp is not None
        if self.tier[j] == FG:
            self.fg_jobs.discard(j)
            self.fg_job[pp] = -1
            self.fg_seen[pp] = 0.0
            self.fg_true[pp] = 0.0
            self.fg_loss[pp] = 0.0
            self.idle_fg += pp.size
        else:
            self.bg_jobs.discard(j)
            self.bg_job[pp] = -1
            self.bg_seen[pp] = 0.0
            self.bg_rho[pp] = 0.0
            self.bg_admitted[pp] = False
            self.busy_bg -= pp.size
        self.procs[j] = None
        self._touch(pp)
        return pp

    def _touch(self, pp: np.ndarray) -> None:
        """The jobs on processors ``pp`` (both tiers) may have a new rate."""
        dirty = self.dirty
        dirty.update(self.fg_job[pp].tolist())
        dirty.update(self.bg_job[pp].tolist())
        dirty.discard(-1)

    def advance(self, j: int, now: float) -> None:
        """Integrate job ``j``'s progress up to ``now`` at its current rate."""
        rate = self.rate[j]
        if rate > 0.0:
            self.done[j] += rate * (now - self.last[j])
        self.last[j] = now

    def progress(self, j: int, now: float) -> float:
        """Job ``j``'s progress at ``now`` (dedicated seconds of work done)."""
        return self.done[j] + self.rate[j] * (now - self.last[j])

    def remaining_estimate(self, j: int, now: float) -> float:
        """The scheduler's remaining estimate of job ``j`` (CHOICES remaining_estimate)."""
        if self.tier[j] == BG:
            return max(self.estimate[j] - self.progress(j, now), 0.0)
        return self.estimate[j]

    def can_swap(self, j: int) -> bool:
        """True if every processor of bg job ``j`` has an idle fg VM."""
        return bool((self.fg_job[self.procs[j]] < 0).all())

    def swap(self, j: int, now: float) -> None:
        """Free priority swap: bg job ``j`` continues in the fg VMs of its processors."""
        self.advance(j, now)
        remaining = max(self.estimate[j] - self.done[j], 0.0)
        self.merged.remove(j)
        pp = self._take_off(j)
        self._put_fg(j, pp, now)
        self.swaps[j] += 1
        self.est_end[j] = now + remaining
        self.dirty.add(j)

    def kill(self, j: int, now: float) -> None:
        """KEASY: kill bg job ``j``; it waits again with no progress (CHOICES kill)."""
        self.advance(j, now)
        self.wasted_cpu_seconds += self.done[j] * self.size[j] * self.u_true[j]
        self.killed_work += self.done[j] * self.size[j]
        self.killed_processes += self.size[j]
        self._take_off(j)
        self.tier[j] = WAITING
        self.done[j] = 0.0
        self.integral[j] = 0.0
        self.rate[j] = 0.0
        self.kills[j] += 1
        self.dirty.discard(j)

    def migrate(self, j: int, pp: np.ndarray, now: float) -> None:
        """MEASY: bg job ``j`` continues in the fg VMs of ``pp`` after the migration cost.

        ``pp`` is the chosen processor set in Dispatch order; processes already on a
        chosen processor stay there, the others take the remaining processors in order.
        """
        self.advance(j, now)
        remaining = max(self.estimate[j] - self.done[j], 0.0)
        old = self.procs[j]
        self.merged.remove(j)
        self._take_off(j)
        chosen, mine = set(pp.tolist()), old.tolist()
        stay = [p in chosen for p in mine]
        own = set(mine)
        others = iter([p for p in pp.tolist() if p not in own])
        new = np.array([p if keep else next(others) for p, keep in zip(mine, stay, strict=True)])
        self.moved_processes += int(self.size[j] - sum(stay))
        self._put_fg(j, new, now)
        self.migrations[j] += 1
        self.hold_until[j] = now + self.migration_cost
        if self.migration_cost > 0:
            self.new_holds.append(j)
        self.est_end[j] = now + self.migration_cost + remaining
        self.dirty.add(j)

    def finish(self, j: int, now: float) -> None:
        """Job ``j`` completes at ``now`` with exactly its work done."""
        self.advance(j, now)
        work = self.runtime[j]
        if not _close(self.done[j], work, now):
            raise SimulationInvariantError(
                f"t={now}: job {j} completes with progress {self.done[j]!r} of {work!r}"
            )
        if self.debug and not _close(self.integral[j], work, now):
            raise SimulationInvariantError(
                f"t={now}: job {j}'s integrated progress {self.integral[j]!r} is not {work!r}"
            )
        self.done[j] = work
        if self.tier[j] == BG:
            self.merged.remove(j)  # a bg job that completes in bg leaves the merged list
        self._take_off(j)
        self.tier[j] = DONE
        self.rate[j] = 0.0
        self.end[j] = now
        self.completions[j] += 1
        self.unfinished_processes -= self.size[j]
        self.dirty.discard(j)

    # ------------------------------------------------------------------ rates
    def job_rate(self, j: int, now: float) -> float:
        """The rate of job ``j`` now: its slowest process (CHOICES progress)."""
        if self.hold_until[j] > now:
            return 0.0
        pp = self.procs[j]
        if self.tier[j] == FG:
            if pp.size == 1:
                p = int(pp[0])
                return 1.0 - float(self.fg_loss[p]) if self.bg_job[p] >= 0 else 1.0
            shared = self.bg_job[pp] >= 0
            if not shared.any():
                return 1.0
            return 1.0 - float(self.fg_loss[pp][shared].max())
        u = self.u_true[j]
        if pp.size == 1:
            p = int(pp[0])
            if self.fg_job[p] < 0:
                return 1.0
            return min(1.0, float(self.bg_rho[p]) * (1.0 - float(self.fg_true[p])) / u)
        share = np.minimum(1.0, self.bg_rho[pp] * (1.0 - self.fg_true[pp]) / u)
        return float(np.where(self.fg_job[pp] < 0, 1.0, share).min())

    def integrate(self, dt: float) -> None:
        """Debug: add ``rate * dt`` to every running job's independent progress integral."""
        if dt <= 0:
            return
        for j in self.fg_jobs | self.bg_jobs:
            self.integral[j] += self.rate[j] * dt

    # ------------------------------------------------------------------ checks
    def check(self, now: float) -> None:
        """Raise ``SimulationInvariantError`` if an invariant broke (debug mode).

        At most one process per VM and each running job fully placed in one tier; the
        idle/busy counts agree with the VMs; every bg process was admitted under the
        threshold and any fg process over it of seen usage >= threshold came later;
        every job's stored rate is its slowest process's; progress within [0, runtime];
        no job started before its submission.
        """
        seen_fg = np.zeros(self.P, dtype=np.int64)
        seen_bg = np.zeros(self.P, dtype=np.int64)
        for tier, jobs, owner, seen in (
            (FG, self.fg_jobs, self.fg_job, seen_fg),
            (BG, self.bg_jobs, self.bg_job, seen_bg),
        ):
            for j in jobs:
                pp = self.procs[j]
                if self.tier[j] != tier or pp is None or pp.size != self.size[j]:
                    raise SimulationInvariantError(f"t={now}: job {j} is not fully placed")
                if np.unique(pp).size != pp.size or (owner[pp] != j).any():
                    raise SimulationInvariantError(f"t={now}: job {j}'s VMs disagree")
                np.add.at(seen, pp, 1)
                if self.start[j] < self.submit_time[j]:
                    raise SimulationInvariantError(f"t={now}: job {j} started before submission")
                rate = self.job_rate(j, now)
                if rate != self.rate[j]:
                    raise SimulationInvariantError(
                        f"t={now}: job {j} runs at {self.rate[j]!r}, its slowest process "
                        f"at {rate!r}"
                    )
                done = self.progress(j, now)
                work = self.runtime[j]
                if done < -1e-9 or (done > work and not _close(done, work, now)):
                    raise SimulationInvariantError(f"t={now}: job {j} has progress {done!r}")
        if (seen_fg > 1).any() or (seen_bg > 1).any():
            raise SimulationInvariantError(f"t={now}: a VM holds two processes")
        if (seen_fg != (self.fg_job >= 0)).any() or (seen_bg != (self.bg_job >= 0)).any():
            raise SimulationInvariantError(f"t={now}: a VM holds a process of no running job")
        if self.idle_fg != int((self.fg_job < 0).sum()) or self.busy_bg != int(seen_bg.sum()):
            raise SimulationInvariantError(f"t={now}: VM counts drifted")
        bg = self.bg_job >= 0
        if not self.bg_admitted[bg].all():
            raise SimulationInvariantError(f"t={now}: a bg process was never admitted")
        late = bg & (self.fg_job >= 0) & (self.fg_seen >= self.bg_threshold)
        if (self.fg_since[late] < self.bg_since[late]).any():
            raise SimulationInvariantError(
                f"t={now}: a bg process sits under an fg process above the threshold"
            )
        if (self.completions > 1).any():
            raise SimulationInvariantError(f"t={now}: a job completed twice")
        for j in self.merged:
            if self.tier[j] not in (WAITING, BG):
                raise SimulationInvariantError(
                    f"t={now}: job {j} in the merged list is neither waiting nor in bg"
                )
