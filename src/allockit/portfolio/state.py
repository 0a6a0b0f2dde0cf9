"""What a run of ``best`` knows as it goes: the incumbent, the bound, the clocks, the times."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from allockit.checks import real_number
from allockit.clock import Deadline
from allockit.instances.vcsched import VCInstance
from allockit.results import SolveStatus, VCResult

__all__ = [
    "BEST_TIME_LIMIT",
    "END_MARGIN",
    "HEURISTIC_SHARE",
    "RESERVE_SECONDS",
    "Incumbent",
    "PortfolioRun",
]

#: Seconds ``best`` runs when no time limit is given (its exact phase has no end).
BEST_TIME_LIMIT = 60.0
#: Share of the time limit the heuristics may use after MCB8.
HEURISTIC_SHARE = 0.05
#: Seconds kept for scoring the final placement (average-yield phase, re-check).
RESERVE_SECONDS = 0.05
#: Share of the time limit kept free at the end (solver overshoot, final scoring).
END_MARGIN = 0.05


@dataclass
class Incumbent:
    """The best placement and the best bound so far, with the components behind them.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6], mem=[0.1, 0.1])
    >>> best = Incumbent()
    >>> best.offer(inst, np.array([0, 0]), "gr"), best.offer(inst, np.array([0, 1]), "sg")
    (True, True)
    >>> best.tighten(1.0, "lp"); best.source, best.certified(1e-4)
    ('sg', True)
    """

    task_hosts: np.ndarray | None = None
    min_yield: float = -1.0
    source: str = ""
    bound: float | None = None
    bound_source: str = ""

    def offer(self, instance: VCInstance, task_hosts: np.ndarray | None, source: str) -> bool:
        """Keep ``task_hosts`` if it is valid and better; return whether it was kept."""
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
        """Keep ``bound`` (an upper bound on the minimum yield) if it is smaller."""
        if bound is not None and (self.bound is None or bound < self.bound):
            self.bound, self.bound_source = float(bound), source

    def certified(self, rel_gap: float) -> bool:
        """Whether the incumbent is within ``rel_gap`` of the bound.

        Raises
        ------
        InvalidInputError
            If ``rel_gap`` is not a number in [0, 1).
        """
        real_number("rel_gap", rel_gap, at_least=0, below=1)
        return (
            self.task_hosts is not None
            and self.bound is not None
            and self.bound - self.min_yield <= rel_gap * self.bound + 1e-15
        )


@dataclass
class PortfolioRun:
    """One run of ``best``: the instance, its options, its clocks and what it found.

    ``whole`` is the run's deadline; ``components`` ends ``END_MARGIN`` of the limit
    earlier (the final scoring and a solver's overshoot must fit in the limit too);
    ``heuristics`` ends after ``HEURISTIC_SHARE`` of the limit.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0.1, 0.1])
    >>> run = PortfolioRun.start(inst, time_limit=10, threads=None, seed=None, rel_gap=1e-4,
    ...                          exact="auto", solver="highs", method="best")
    >>> run.limit, 9.4 < run.components.left() <= 9.5
    (10.0, True)
    """

    instance: VCInstance
    method: str
    rel_gap: float
    seed: int
    threads: int | None
    exact: str
    solver: str
    whole: Deadline
    components: Deadline
    heuristics: Deadline
    best: Incumbent = field(default_factory=Incumbent)
    reserve: float = RESERVE_SECONDS
    setup: float = 0.0
    solver_seconds: float = 0.0
    build_seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    starts: list[tuple[str, np.ndarray]] = field(default_factory=list)

    @classmethod
    def start(
        cls,
        instance: VCInstance,
        *,
        time_limit: float | Deadline | None,
        threads: int | None,
        seed: int | None,
        rel_gap: float,
        exact: str,
        solver: str,
        method: str,
    ) -> PortfolioRun:
        """The run's state at its start: the clocks made from ``time_limit``."""
        whole = Deadline.of(time_limit)
        if whole.at is None:
            whole = Deadline.of(BEST_TIME_LIMIT)
        return cls(
            instance=instance,
            method=method,
            rel_gap=rel_gap,
            seed=0 if seed is None else int(seed),
            threads=threads,
            exact=exact,
            solver=solver,
            whole=whole,
            components=whole.part(1.0 - END_MARGIN),
            heuristics=whole.part(HEURISTIC_SHARE),
        )

    @property
    def limit(self) -> float:
        """The whole run's time limit in seconds."""
        return float(self.whole.limit or 0.0)

    def left(self) -> float:
        """Seconds the components have left."""
        return float(self.components.left() or 0.0)

    def certified(self) -> bool:
        """Whether the incumbent is within the run's ``rel_gap`` of the bound."""
        return self.best.certified(self.rel_gap)

    def result(self, status: SolveStatus, message: str = "") -> VCResult:
        """The incumbent scored on the exact data (``optimal`` if its gap allows)."""
        from allockit.evaluation.placement import empty_result, result_from_placement

        instance, best = self.instance, self.best
        if best.task_hosts is None:
            return empty_result(
                instance,
                method=self.method,
                status=status,
                bound=best.bound,
                bound_source=best.bound_source,
                solver="portfolio",
                build_seconds=self.build_seconds,
                solve_seconds=self.whole.elapsed() - self.setup - self.build_seconds,
                message=message,
                setup_seconds=self.setup,
            )
        result = result_from_placement(
            instance,
            best.task_hosts,
            method=self.method,
            status=status,
            bound=best.bound,
            bound_source=best.bound_source,
            solver="portfolio",
            build_seconds=self.build_seconds,
            message=message,
            setup_seconds=self.setup,
            incumbent_source=best.source,
        )
        if result.is_ok and result.gap is not None and result.gap <= self.rel_gap:
            result = replace(result, status=SolveStatus.OPTIMAL)
        total = self.whole.elapsed()
        return replace(result, solve_seconds=max(0.0, total - self.setup - self.build_seconds))

    def proven(self) -> VCResult:
        """The certified incumbent: ``optimal``, saying which bound proved it.

        With no solver run the proof is the bound alone (``proof`` ``"bound"``).
        """
        best = self.best
        note = f"{best.source} reached the {best.bound_source} bound"
        if self.solver_seconds == 0.0:
            note += " (no solver run)"
        result = self.result(SolveStatus.OPTIMAL, "; ".join([*self.notes, note]))
        return replace(result, proof="bound") if self.solver_seconds == 0.0 else result

    def stopped(self) -> VCResult:
        """The answer when no component can do more: ``time_limit`` or ``feasible``."""
        timed_out = self.left() <= 2 * self.reserve
        if self.best.task_hosts is None:
            self.notes.append("no placement found; infeasibility not proven")
            status = SolveStatus.TIME_LIMIT if timed_out else SolveStatus.NO_SOLUTION
            return self.result(status, "; ".join(self.notes))
        status = SolveStatus.TIME_LIMIT if timed_out else SolveStatus.FEASIBLE
        return self.result(status, "; ".join(self.notes))
