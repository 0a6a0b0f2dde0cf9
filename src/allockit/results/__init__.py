"""Result types: one shape for every family (status, seconds, exact JSON round trip).

``SolveStatus`` and the shared helpers are in ``allockit.results.base``; each family's
result type in its own module. Simulation results live with the simulators
(``allockit.simulation.result``), sweep rows with the runner's task model
(``allockit.tasks``).
"""

from allockit.results.base import (
    Result,
    SolveStatus,
    Status,
    finite_or_none,
    readonly_array,
    readonly_mapping,
)
from allockit.results.drfh import DRFHResult
from allockit.results.vcsched import VCResult

__all__ = [
    "DRFHResult",
    "Result",
    "SolveStatus",
    "Status",
    "VCResult",
    "finite_or_none",
    "readonly_array",
    "readonly_mapping",
]

from allockit.results.reserves import ReservesResult

__all__ += ["ReservesResult"]
