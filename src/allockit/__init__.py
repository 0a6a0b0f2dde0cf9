"""allockit: optimization models, heuristics and simulators for cluster resource allocation."""

from allockit.errors import (
    AllocKitError,
    InfeasibleError,
    InvalidInputError,
    SolverUnavailableError,
)
from allockit.results import SolveStatus, VCResult

__all__ = [
    "AllocKitError",
    "InfeasibleError",
    "InvalidInputError",
    "SolveStatus",
    "SolverUnavailableError",
    "VCResult",
    "__version__",
    "solve",
]

__version__ = "0.1.0"


def __getattr__(name: str):  # lazy: keep `import allockit` free of solver imports
    if name == "solve":
        from allockit.solve import solve

        return solve
    raise AttributeError(f"module 'allockit' has no attribute {name!r}")
