"""Result types: one shape for every family (status, seconds, exact JSON round trip).

Every result type allockit returns lives here, one module a family: ``Status`` (the one
vocabulary of solves, allocations and simulations) and the shared helpers in
``allockit.results.base``; ``VCResult``, ``DRFHResult`` and ``ReservesResult`` (solves
and allocations); ``SimulationResult`` (every job scheduler) with its per-job metrics
(``allockit.results.job_metrics``), ``ClusterSimResult`` (the cluster-reserves
simulator) and ``DynamicTrace`` (dynamic DRFH); ``StretchBound`` (the DFRS stretch
bound). The layer imports nothing above it: a result is built from plain arrays and
fields. Sweep rows live with the runner's task model (``allockit.tasks``).
"""

from allockit.results.base import (
    Result,
    SolveStatus,
    Status,
    finite_or_none,
    readonly_array,
    readonly_mapping,
)
from allockit.results.cluster import ClusterSimResult
from allockit.results.drfh import DRFHResult
from allockit.results.drfh_dynamic import DynamicTrace
from allockit.results.reserves import ReservesResult
from allockit.results.simulation import SimulationResult
from allockit.results.stretch_bound import StretchBound
from allockit.results.vcsched import VCResult

__all__ = [
    "ClusterSimResult",
    "DRFHResult",
    "DynamicTrace",
    "ReservesResult",
    "Result",
    "SimulationResult",
    "SolveStatus",
    "Status",
    "StretchBound",
    "VCResult",
    "finite_or_none",
    "readonly_array",
    "readonly_mapping",
]
