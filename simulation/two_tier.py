"""Two-tier VM scheduling: KEASY, REASY and MEASY (and EASY with the bg tier off).

Wang et al. (seed 003), "MEASY: migration and consolidation based parallel job
scheduling", restated in user guide (MEASY). Every processor holds a high-priority
foreground (fg) VM and a low-priority background (bg) VM; a bg process only gets the
CPU cycles its fg process leaves idle. The schedulers extend EASY backfilling with the
bg tier: KEASY kills a bg job it moves to fg, REASY pins it (a reservation instead of a
kill), MEASY migrates it.

This module is the driver, on the event core (``events.EventQueue``): submissions,
completions and the ends of migration windows are events; all events of one instant
are handled before one scheduling pass (``two_tier_policies``), then the rates of the
jobs whose processors changed are recomputed and their completion events moved
(``two_tier_state``). Times are exact: between events every rate is constant and a
completion time is ``last + remaining / rate``. Every modelling choice is listed in
``allockit.simulation.two_tier_choices.CHOICES``.
"""

from __future__ import annotations

import dataclasses
import math
import time
from array import array

import numpy as np

from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload
from allockit.results import SimulationResult
from allockit.results.job_metrics import bounded_stretch
from allockit.rng import as_generator
from allockit.simulation.events import Event, EventQueue
from allockit.simulation.two_tier_choices import (
    ALGORITHMS,
    BG_THRESHOLD,
    CPU_INFO,
    DRAWS,
    MIGRATION_COST_SECONDS,
    REASY_EXTRA,
)
from allockit.simulation.two_tier_metrics import batch_means_ci
from allockit.simulation.two_tier_policies import scheduler_for
from allockit.simulation.two_tier_state import (
    BG,
    DONE,
    FG,
    SimulationInvariantError,
    TwoTierState,
)

__all__ = ["SimulationInvariantError", "simulate_two_tier", "two_tier_name"]

_DONE, _HOLD_END, _SUBMIT = 0, 1, 2


def two_tier_name(algorithm: str) -> str | None:
    """The canonical name (``"KEASY"``, ``"REASY"``, ``"MEASY"``) or None.

    Parameters
    ----------
    algorithm : str
        A name, case-insensitive, surrounding blanks ignored.

    Returns
    -------
    str or None
        None when ``algorithm`` is not a two-tier scheduler.

    Examples
    --------
    >>> two_tier_name(" measy "), two_tier_name("EASY")
    ('MEASY', None)
    """
    if not isinstance(algorithm, str):
        return None
    name = algorithm.strip().upper()
    return name if name in ALGORITHMS else None


def _validate(
    workload: Workload,
    algorithm: str,
    migration_cost: float,
    bg_threshold: float,
    cpu_info: str,
    background: bool,
    draws: str,
) -> str:
    if not isinstance(workload, Workload):
        raise InvalidInputError(
            f"workload must be an allockit.instances.workload.Workload; got a "
            f"{type(workload).__name__}"
        )
    name = two_tier_name(algorithm)
    if name is None:
        raise InvalidInputError(
            f"algorithm must be one of {', '.join(ALGORITHMS)}; got {algorithm!r}"
        )

    def number(value: object) -> bool:
        return (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and math.isfinite(value)
            and value >= 0
        )

    if not number(migration_cost):
        raise InvalidInputError(
            f"migration_cost must be a finite number >= 0 (seconds); got {migration_cost!r}"
        )
    if not number(bg_threshold):
        raise InvalidInputError(f"bg_threshold must be a finite number >= 0; got {bg_threshold!r}")
    if cpu_info not in CPU_INFO:
        raise InvalidInputError(f"cpu_info must be 'known' or 'none'; got {cpu_info!r}")
    if not isinstance(background, bool | np.bool_):
        raise InvalidInputError(f"background must be True or False; got {background!r}")
    if draws not in DRAWS:
        raise InvalidInputError(f"draws must be one of {', '.join(DRAWS)}; got {draws!r}")
    if workload.platform.cores != 1:
        raise InvalidInputError(
            "two-tier simulation needs single-core processors: Platform.cores must be 1; "
            f"got {workload.platform.cores} (one processor per core: nodes=P, cores=1)"
        )
    too_big = np.flatnonzero(workload.tasks > workload.platform.nodes)
    if too_big.size:
        k = int(too_big[0])
        raise InvalidInputError(
            f"job {int(workload.ids[k])} has {int(workload.tasks[k])} processes; the "
            f"platform has {workload.platform.nodes} processors"
        )
    return name


class _Driver:
    """One run: the event loop, the scheduling triggers, rates and the tier timeline."""

    def __init__(
        self,
        state: TwoTierState,
        scheduler,
        start: float,
        followers: dict[int, list[tuple[int, float]]] | None = None,
    ) -> None:
        self.state = state
        self.scheduler = scheduler
        self.followers = followers or {}  # job -> (job submitted after it, think time)
        self.events = EventQueue(start=start)
        self.completion: list[Event | None] = [None] * state.n
        self.clock = start
        self.timeline = array("d")  # flat rows (time, busy fg VMs, unfinished processes)
        self.tiers = array("d")  # flat rows (time, busy fg VMs, busy bg VMs)
        self.fg_area = 0.0
        self.bg_area = 0.0
        self.under = 0.0
        self.passes = 0

    def run(self) -> None:
        state, events = self.state, self.events
        chained = {k for after in self.followers.values() for k, _ in after}
        for j in range(state.n):
            if j not in chained:
                events.schedule(state.submit_time[j], _SUBMIT, j, priority=(_SUBMIT, j))
        while events:
            batch = events.pop_simultaneous()
            now = events.now
            self._integrate(now)
            fg_trigger = bg_trigger = False
            for event in batch:
                j = event.data
                if event.kind == _DONE:
                    self.completion[j] = None
                    tier = state.tier[j]
                    state.finish(j, now)
                    for k, think in self.followers.pop(j, ()):  # CHOICES feedback
                        events.schedule(now + think, _SUBMIT, k, priority=(_SUBMIT, k))
                    fg_trigger = fg_trigger or tier == FG
                    bg_trigger = bg_trigger or tier == BG
                elif event.kind == _HOLD_END:
                    state.dirty.add(j)
                else:
                    state.submit(j, now)
                    fg_trigger = True
            if fg_trigger:  # CHOICES triggers
                self.passes += 1
                self.scheduler.fg_pass(state, now)
                self.scheduler.bg_pass(state, now)
            elif bg_trigger:
                self.passes += 1
                self.scheduler.bg_pass(state, now)
            for j in state.new_holds:
                events.schedule(state.hold_until[j], _HOLD_END, j, priority=(_HOLD_END, j))
            state.new_holds.clear()
            self._update_rates(now)
            if state.debug:
                state.check(now)
            busy_fg = state.P - state.idle_fg
            self.timeline.extend((now, busy_fg, state.unfinished_processes))
            self.tiers.extend((now, busy_fg, state.busy_bg))
        left = [j for j in range(state.n) if state.tier[j] != DONE]
        if left:  # pragma: no cover - every job ends (Workload refuses cycles of preceding jobs)
            raise SimulationInvariantError(f"{len(left)} jobs never completed (first: {left[0]})")

    def _integrate(self, now: float) -> None:
        dt = now - self.clock
        if dt > 0:
            state = self.state
            busy_fg = state.P - state.idle_fg
            self.fg_area += busy_fg * dt
            self.bg_area += state.busy_bg * dt
            self.under += max(0, min(state.P, state.unfinished_processes) - busy_fg) * dt
            if state.debug:
                state.integrate(dt)
        self.clock = now

    def _update_rates(self, now: float) -> None:
        state, events = self.state, self.events
        if not state.dirty:
            return
        tier, rate, runtime, done = state.tier, state.rate, state.runtime, state.done
        for j in sorted(state.dirty):
            if tier[j] != FG and tier[j] != BG:
                continue
            new = state.job_rate(j, now)
            if new == rate[j] and self.completion[j] is not None:
                continue
            state.advance(j, now)
            rate[j] = new
            old = self.completion[j]
            if old is not None:
                events.cancel(old)
                self.completion[j] = None
            if new > 0.0:
                end = now + max(runtime[j] - done[j], 0.0) / new
                self.completion[j] = events.schedule(end, _DONE, j, priority=(_DONE, j))
        state.dirty.clear()


def simulate_two_tier(
    workload: Workload,
    algorithm: str = "MEASY",
    *,
    migration_cost: float = MIGRATION_COST_SECONDS,
    bg_threshold: float = BG_THRESHOLD,
    cpu_info: str = "known",
    background: bool = True,
    draws: str = "job",
    feedback: bool = False,
    debug: bool = False,
    seed: int | np.random.Generator | None = None,
    reasy_extra: str = "idle",
    reasy_protect: bool = True,
) -> SimulationResult:
    """Simulate KEASY, REASY or MEASY on a platform of two-tier processors.

    Parameters
    ----------
    workload : Workload
        Jobs in submission order on ``Platform(nodes=P, cores=1)``: ``tasks[k]``
        processes, each of CPU usage ``cpu[k]``, runtime estimate ``requested_time[k]``
        (the true runtime when NaN).
    algorithm : {"KEASY", "REASY", "MEASY"}
        Algorithm 1 with kill (KEASY), Algorithm 3 (REASY), or Algorithm 1 with
        migration (MEASY); case-insensitive.
    migration_cost : float
        Seconds a migrated job makes no progress, >= 0 (default 20; MEASY only).
    bg_threshold : float
        A bg process is placed only under an idle fg VM or an fg process of usage below
        this, >= 0 (default 0.96).
    cpu_info : {"known", "none"}
        ``"none"``: the scheduler sees every process at 100 % (the paper's Figs 9-10);
        progress still uses the true usage.
    background : bool
        False: no bg tier, and every algorithm produces EASY's schedule exactly.
    draws : {"job", "process", "placement"}
        Granularity of the random loss and rho draws (CHOICES draws).
    feedback : bool
        Honour the workload's feedback (``preceding``, ``think_time``: SWF fields 17
        and 18): a job with a preceding job is submitted ``think_time`` seconds (0 when
        NaN) after that job completes, and its response time counts from then. False
        (default): every job is submitted at ``submit`` (open arrivals), as the batch
        and DFRS simulators do (CHOICES feedback).
    debug : bool
        Check the invariants after every event and integrate each job's progress
        independently (slower).
    seed : int, numpy.random.Generator or None
        Seed of the loss and rho draws.
    reasy_extra : {"idle", "line17"}
        REASY's extra fg VMs for a head running in bg (CHOICES reasy): ``"idle"``
        (default, the paper's prose) the idle fg VMs of processors with no process of
        the head in their bg; ``"line17"`` (Algorithm 3, line 17) idle + s - n, s the
        total size of the fg jobs on the head's processors, n the head's size. Other
        algorithms ignore it.
    reasy_protect : bool
        REASY: a job admitted by the extra rule is dispatched off the head's processors
        only (default True, allockit's choice); False: Dispatch unmodified, as the
        paper's pseudocode. Other algorithms ignore it.

    Returns
    -------
    SimulationResult
        ``start`` is the first time a job ran (any tier), ``end`` its completion;
        ``job_migrations`` per job. ``extra``: ``job_kills``, ``job_swaps``,
        ``job_first_fg_start`` (NaN for a job that completed in bg), ``tier_timeline``
        rows ``(time, busy fg VMs, busy bg VMs)`` after each event, and the summary
        fields ``summary_response_time_ci95``, ``summary_bounded_slowdown_ci95``,
        ``summary_kills``, ``summary_wasted_cpu_seconds``,
        ``summary_lost_progress_per_kill`` (the progress in seconds a kill throws away,
        averaged over the kills weighted by the killed job's processes; NaN without a
        kill: the migration cost at which MEASY's move costs what KEASY's kill does),
        ``summary_swaps``,
        ``summary_fg_utilization``, ``summary_bg_utilization`` and the options used.
        ``timeline`` rows are ``(time, busy fg VMs, unfinished processes)``. With
        ``feedback``, ``submit`` holds the actual submission times.

    Raises
    ------
    InvalidInputError
        For an unknown algorithm, an option out of range, a multi-core platform or a
        job with more processes than processors.
    SimulationInvariantError
        In debug mode, if an invariant breaks (a bug).

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=3), submit=[0, 0, 1], runtime=[100, 50, 60],
    ...                        tasks=[1, 1, 2], cpu=[0.5, 0.5, 0.5], mem=[0.1] * 3)
    >>> simulate_two_tier(w, "MEASY", background=False).start.tolist()  # EASY
    [0.0, 0.0, 50.0]
    >>> r = simulate_two_tier(w, "MEASY", seed=1)  # the 2-process job starts in bg at 1
    >>> r.start.tolist(), r.migrations, r.summary()["kills"]  # and migrates to fg at 50
    ([0.0, 0.0, 1.0], 1, 0)
    >>> simulate_two_tier(w, "KEASY", seed=1).summary()["kills"]   # KEASY kills it
    1
    """
    name = _validate(workload, algorithm, migration_cost, bg_threshold, cpu_info, background, draws)
    if not isinstance(feedback, bool | np.bool_):
        raise InvalidInputError(f"feedback must be True or False; got {feedback!r}")
    if reasy_extra not in REASY_EXTRA:
        raise InvalidInputError(
            f"reasy_extra must be one of {', '.join(REASY_EXTRA)}; got {reasy_extra!r}"
        )
    if not isinstance(reasy_protect, bool | np.bool_):
        raise InvalidInputError(f"reasy_protect must be True or False; got {reasy_protect!r}")
    rng = as_generator(seed)
    started = time.perf_counter()
    estimate = np.where(
        np.isfinite(workload.requested_time), workload.requested_time, workload.runtime
    )
    seen = workload.cpu if cpu_info == "known" else np.ones(workload.n_jobs)
    state = TwoTierState(
        workload,
        seen_cpu=seen,
        estimate=estimate,
        rng=rng,
        draws=draws,
        migration_cost=float(migration_cost),
        bg_threshold=float(bg_threshold),
        debug=bool(debug),
    )
    scheduler = scheduler_for(
        name,
        background=bool(background),
        reasy_extra=reasy_extra,
        reasy_protect=bool(reasy_protect),
    )
    origin = float(workload.submit[0]) if workload.n_jobs else 0.0
    followers = _followers(workload) if feedback else {}
    chained = bool(followers)
    driver = _Driver(state, scheduler, origin, followers)
    driver.run()
    seconds = time.perf_counter() - started
    label = name if background else f"{name}/no-bg"
    span = float(np.nanmax(state.end) - origin) if workload.n_jobs else 0.0
    capacity = state.P * span if span > 0 else math.inf
    submit = np.array(state.submit_time, dtype=float)  # actual submissions
    response = state.end - submit
    slowdown = np.maximum(1.0, response / np.maximum(workload.runtime, 10.0))
    extra = {
        "job_kills": state.kills,
        "job_swaps": state.swaps,
        "job_first_fg_start": state.first_fg,
        "tier_timeline": np.frombuffer(driver.tiers, dtype=float).reshape(-1, 3).copy(),
        "summary_response_time_ci95": list(batch_means_ci(response)),
        "summary_bounded_slowdown_ci95": list(batch_means_ci(slowdown)),
        "summary_kills": int(state.kills.sum()),
        "summary_wasted_cpu_seconds": float(state.wasted_cpu_seconds),
        "summary_lost_progress_per_kill": (
            state.killed_work / state.killed_processes if state.killed_processes else math.nan
        ),
        "summary_swaps": int(state.swaps.sum()),
        "summary_moved_processes": int(state.moved_processes),
        "summary_fg_utilization": driver.fg_area / capacity,
        "summary_bg_utilization": driver.bg_area / capacity,
        "summary_scheduling_passes": driver.passes,
        "summary_background": bool(background),
        "summary_migration_cost": float(migration_cost),
        "summary_bg_threshold": float(bg_threshold),
        "summary_cpu_info": cpu_info,
        "summary_draws": draws,
        "summary_processors": state.P,
        "summary_feedback": bool(feedback),
    }
    if name == "REASY":
        extra["summary_reasy_extra"] = reasy_extra
        extra["summary_reasy_protect"] = bool(reasy_protect)
    result = SimulationResult.from_schedule(
        workload,
        label,
        state.start,
        state.end,
        underutilization=driver.under,
        seconds=seconds,
        job_migrations=state.migrations,
        timeline=np.frombuffer(driver.timeline, dtype=float).reshape(-1, 3).copy(),
        extra=extra,
    )
    if chained:  # response times count from the actual submissions
        result = dataclasses.replace(
            result, submit=submit, stretch=bounded_stretch(submit, state.end, workload.runtime)
        )
    return result


def _followers(workload: Workload) -> dict[int, list[tuple[int, float]]]:
    """Job index -> the jobs submitted when it completes, with their think times."""
    preceding = workload.preceding
    chained = np.flatnonzero(preceding >= 0)
    if not chained.size:
        return {}
    index = {int(i): k for k, i in enumerate(workload.ids.tolist())}
    think = np.nan_to_num(workload.think_time, nan=0.0)
    out: dict[int, list[tuple[int, float]]] = {}
    for k in chained.tolist():
        before = index.get(int(preceding[k]))
        if before is not None:  # a preceding job outside the workload: open arrival
            out.setdefault(before, []).append((k, float(think[k])))
    return out
