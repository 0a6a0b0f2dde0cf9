"""allockit: optimization models, heuristics and simulators for cluster resource allocation.

The entry points by family (see ``ARCHITECTURE.md``): ``allockit.solve`` (VCSched),
``allockit.allocate`` (DRFH), ``allockit.simulation.simulate`` (online schedulers).
Importing ``allockit`` loads no solver, numba or scipy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from allockit.errors import (
    AllocKitError,
    InfeasibleError,
    InvalidInputError,
    SolverUnavailableError,
)
from allockit.results import SolveStatus, VCResult
from allockit.version import __version__

if TYPE_CHECKING:
    from allockit.instances.drfh import DRFHInstance
    from allockit.instances.vcsched import VCInstance
    from allockit.results import DRFHResult

__all__ = [
    "AllocKitError",
    "InfeasibleError",
    "InvalidInputError",
    "SolveStatus",
    "SolverUnavailableError",
    "VCResult",
    "__version__",
    "allocate",
    "solve",
]


def solve(instance: VCInstance, method: Any = "milp", **options: Any) -> VCResult:
    """Solve a VCSched instance: ``allockit.vcsched.solve`` (see there for the options).

    Examples
    --------
    >>> from allockit.instances.vcsched import VCInstance
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> round(solve(inst, "mcb8").min_yield, 2)
    0.83
    """
    from allockit.vcsched import solve as _solve

    return _solve(instance, method, **options)


def allocate(instance: DRFHInstance, method: Any = "lp", **options: Any) -> DRFHResult:
    """Allocate a DRFH instance: ``allockit.drfh.allocate`` (see there for the options).

    Examples
    --------
    >>> from allockit.instances.drfh import DRFHInstance
    >>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
    ...     "servers": [{"capacity": [1, 1]}], "users": [{"demand": [0.1, 0.2]}]})
    >>> [round(float(t), 6) for t in allocate(inst, "lp").tasks]
    [5.0]
    """
    from allockit.drfh import allocate as _allocate

    return _allocate(instance, method, **options)
