"""allockit: optimization models, heuristics and simulators for cluster resource allocation.

The entry points by family (see ``ARCHITECTURE.md``): ``allockit.solve`` (VCSched),
``allockit.allocate`` (DRFH), ``allockit.simulation.simulate`` (online schedulers), and
``allockit.compare`` (any mix of built-in and user methods on many instances).
Importing ``allockit`` loads no solver, numba, scipy or numpy (``SolveStatus`` and
``VCResult`` are loaded on first use).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from allockit.errors import (
    AllocKitError,
    InfeasibleError,
    InvalidInputError,
    SolverUnavailableError,
)
from allockit.version import __version__

if TYPE_CHECKING:
    from allockit.comparison import Comparison
    from allockit.instances.drfh import DRFHInstance
    from allockit.instances.vcsched import VCInstance
    from allockit.results import DRFHResult, SolveStatus, VCResult

__all__ = [
    "AllocKitError",
    "InfeasibleError",
    "InvalidInputError",
    "SolveStatus",
    "SolverUnavailableError",
    "VCResult",
    "__version__",
    "allocate",
    "compare",
    "solve",
]


def __getattr__(name: str) -> Any:
    # SolveStatus and VCResult load numpy: imported on first use, so that the command
    # line's --help and the constants stay light
    if name in ("SolveStatus", "VCResult"):
        from allockit import results

        return getattr(results, name)
    raise AttributeError(f"module 'allockit' has no attribute {name!r}")


def solve(instance: VCInstance, method: Any = "milp", **options: Any) -> VCResult:
    """Solve a VCSched instance: ``allockit.vcsched.solve`` (see there for the options).

    Places every job (VM) of the instance on a host so as to maximise the minimum
    yield, then the average yield (Stillwell et al., 2009). This wrapper imports
    ``allockit.vcsched`` on first use so that ``import allockit`` stays light.

    Parameters
    ----------
    instance : VCInstance
        Hosts and jobs; CPU and memory needs are fractions of one host in [0, 1].
    method : str or callable, default "milp"
        A name of ``allockit.vcsched.METHOD_SPECS`` (``"milp"``, ``"milp-paper"``,
        ``"cpsat"``, ``"lp"``, ``"gr"``, ``"sg"``, ``"gb"``, ``"sgb"``, ``"rrnd"``,
        ``"rrnz"``, ``"mcb1"`` ... ``"mcb8"``, ``"adapt"``), or a callable
        ``f(instance, **options) -> VCResult``.
    **options
        The common options ``time_limit`` (seconds, > 0), ``threads`` (>= 1) and
        ``seed`` (int in [0, 2**63 - 1]), and the method's own options.

    Returns
    -------
    VCResult
        Status, placement, min and average yield, and for exact methods the bound and gap.

    Raises
    ------
    InvalidInputError
        Raised by ``allockit.vcsched.solve`` for an unknown method or an option the
        method does not accept.

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

    Computes a Dominant Resource Fairness allocation over heterogeneous servers
    (Wang, Li, Liang, 2014). This wrapper imports ``allockit.drfh`` on first use so
    that ``import allockit`` stays light.

    Parameters
    ----------
    instance : DRFHInstance
        Servers (capacity per resource) and users (demand per task, optional task cap).
    method : str or callable, default "lp"
        One of ``allockit.drfh.DRFH_METHODS`` (``"lp"``, ``"progressive"``,
        ``"first-fit"``, ``"best-fit"``, ``"per-server-drf"``, ``"slots"``) or a callable
        ``f(instance, **options) -> DRFHResult``.
    **options
        The common options (accepted, no effect: every DRFH mechanism is instant and
        deterministic) and the method's own options (``split``, ``tol``, ``per_largest``).

    Returns
    -------
    DRFHResult
        Tasks per user (fractional for the LP), per-class allocation and dominant shares.

    Raises
    ------
    InvalidInputError
        Raised by ``allockit.drfh.allocate`` for an unknown method or an option the
        method does not accept.

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


def compare(instances: Any, methods: Any, **options: Any) -> Comparison:
    """Compare VCSched methods on instances: ``allockit.comparison.compare`` (see there).

    Runs any mix of built-in names, plug-ins, ``MODULE:FUNCTION`` and
    ``PATH/TO/FILE.py:FUNCTION`` specs and callables on every instance through the
    experiment runner, and returns the rows and the per-method summary. This wrapper
    imports ``allockit.comparison`` on first use so that ``import allockit`` stays light.

    Parameters
    ----------
    instances : VCInstance, path, or a sequence or mapping of them
        Instance objects, files, folders or glob patterns.
    methods : sequence of str or callable
        The methods, each once.
    **options
        ``time_limit``, ``workers`` (default 1: this process), ``store``, ``backend``,
        ``scheduler``, ``seed``, ``progress``, ``connect_timeout``.

    Returns
    -------
    Comparison
        ``rows``, ``summary()``, ``table()``, ``to_pandas()``, ``plot(directory)``.

    Raises
    ------
    InvalidInputError
        Raised by ``allockit.comparison.compare`` for an unknown method, a spec that
        cannot be loaded, a repeated method or instance, or a bad option.

    Examples
    --------
    >>> from allockit.instances.vcsched import VCInstance
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> [s.solved for s in compare([inst], ["mcb8", "sg"]).summary()]
    [1, 1]
    """
    from allockit.comparison import compare as _compare

    return _compare(instances, methods, **options)
