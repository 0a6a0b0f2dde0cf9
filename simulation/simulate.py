"""One entry point for every online scheduler: batch baselines and DFRS algorithms."""

from __future__ import annotations

from allockit.instances.workload import Workload
from allockit.simulation.batch import simulate_batch
from allockit.simulation.dfrs import simulate_dfrs
from allockit.simulation.names import parse_algorithm
from allockit.simulation.result import SimulationResult

__all__ = ["simulate"]


def simulate(
    workload: Workload,
    algorithm: str,
    *,
    estimates: bool = False,
    unit: str = "nodes",
    penalty: float = 300.0,
    period: float = 600.0,
    debug: bool = False,
) -> SimulationResult:
    """Simulate ``algorithm`` (FCFS, EASY or a Table 1 DFRS name) on ``workload``.

    ``estimates`` (requested instead of true run times) and ``unit`` (whole nodes per
    task, or cores) apply to the batch algorithms; ``penalty``,
    ``period`` and ``debug`` to the DFRS algorithms.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[100, 100],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.4, 0.4])
    >>> simulate(w, "FCFS").max_stretch, simulate(w, "Greedy *").max_stretch
    (2.0, 2.0)
    """
    name = parse_algorithm(algorithm)
    if name.batch:
        return simulate_batch(
            workload, algorithm=name.batch.lower(), estimates=estimates, unit=unit
        )
    return simulate_dfrs(workload, name, penalty=penalty, period=period, debug=debug)
