"""One entry point for every online scheduler: ``simulate(workload, algorithm, **options)``.

Algorithms come in families, each a simulator with the options it accepts
(``allockit.options``): the batch baselines FCFS and EASY (``simulate_batch``) and the
DFRS algorithms named as in Table 1 of Casanova et al. (``simulate_dfrs``). An option
the algorithm's family does not take is refused with the accepted list. The common
options ``time_limit``, ``threads`` and ``seed`` are accepted by every family; the
deterministic simulators ignore ``seed`` and none is multi-threaded or time-limited.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload
from allockit.options import COMMON_OPTIONS, MethodSpec, Range, check_options
from allockit.simulation.result import SimulationResult

__all__ = ["SIMULATORS", "Simulator", "simulate", "simulator_for"]

_IGNORED = {
    "time_limit": "ignored (runs to completion)",
    "threads": "ignored (single-threaded)",
    "seed": "ignored (deterministic)",
}


@dataclass(frozen=True, slots=True)
class Simulator:
    """A family of algorithms: which names it runs, its options, and how to run one.

    Examples
    --------
    >>> SIMULATORS["batch"].accepts("EASY"), SIMULATORS["batch"].spec.options[:2]
    (True, ('estimates', 'unit'))
    """

    spec: MethodSpec
    accepts: Callable[[str], bool]
    run: Callable[..., SimulationResult]


def _is_batch(name: str) -> bool:
    return name.strip().upper() in ("FCFS", "EASY")


def _run_batch(workload: Workload, algorithm: str, **options: Any) -> SimulationResult:
    from allockit.simulation.batch import simulate_batch

    return simulate_batch(workload, algorithm=algorithm.strip().lower(), **options)


def _is_dfrs(name: str) -> bool:
    from allockit.simulation.names import parse_algorithm

    try:
        return not parse_algorithm(name).batch
    except InvalidInputError:
        return False


def _run_dfrs(workload: Workload, algorithm: str, **options: Any) -> SimulationResult:
    from allockit.simulation.dfrs import simulate_dfrs

    return simulate_dfrs(workload, algorithm, **options)


def _is_two_tier(name: str) -> bool:
    from allockit.simulation.two_tier_choices import ALGORITHMS

    return isinstance(name, str) and name.strip().upper() in ALGORITHMS


def _run_two_tier(workload: Workload, algorithm: str, **options: Any) -> SimulationResult:
    from allockit.simulation.two_tier import simulate_two_tier

    return simulate_two_tier(workload, algorithm, **options)


#: Family name -> simulator. Families are tried in order; the first that accepts the
#: algorithm name runs it.
SIMULATORS: dict[str, Simulator] = {
    "batch": Simulator(
        MethodSpec(
            "batch",
            "FCFS and EASY backfilling (whole nodes or cores per job, no preemption)",
            ("estimates", "unit", "backfill_depth"),
            _IGNORED,
        ),
        _is_batch,
        _run_batch,
    ),
    "dfrs": Simulator(
        MethodSpec(
            "dfrs",
            "DFRS algorithms of Table 1 (Greedy family, MCB8, MCB8-stretch)",
            ("penalty", "period", "debug", "record", "hold"),
            _IGNORED,
        ),
        _is_dfrs,
        _run_dfrs,
    ),
    "two-tier": Simulator(
        MethodSpec(
            "two-tier",
            "KEASY, REASY and MEASY on fg/bg VM pairs (MEASY paper); background=False is EASY",
            (
                "migration_cost",
                "bg_threshold",
                "cpu_info",
                "background",
                "draws",
                "feedback",
                "debug",
                "reasy_extra",
                "reasy_protect",
            ),
            {k: v for k, v in _IGNORED.items() if k != "seed"},  # seed: the loss/rho draws
            {"reasy_protect": Range(bool)},
        ),
        _is_two_tier,
        _run_two_tier,
    ),
}


def simulator_for(algorithm: str) -> Simulator:
    """The simulator family that runs ``algorithm``.

    Parameters
    ----------
    algorithm : str
        ``"FCFS"``, ``"EASY"``, a DFRS name of Table 1 or ``"KEASY"``, ``"REASY"``,
        ``"MEASY"``.

    Returns
    -------
    Simulator
        The family (its ``spec`` names it and lists its options).

    Raises
    ------
    InvalidInputError
        If no family knows the name (the message lists the valid forms).

    Examples
    --------
    >>> simulator_for("EASY").spec.name, simulator_for("GreedyPM */per").spec.name
    ('batch', 'dfrs')
    """
    if not isinstance(algorithm, str):
        raise InvalidInputError(f"algorithm must be a string; got {algorithm!r}")
    for simulator in SIMULATORS.values():
        if simulator.accepts(algorithm):
            return simulator
    from allockit.simulation.names import parse_algorithm

    try:
        parse_algorithm(algorithm)
    except InvalidInputError as exc:  # the DFRS parser says which part is wrong
        raise InvalidInputError(
            f"{exc}; two-tier algorithms: KEASY, REASY, MEASY"
        ) from None
    raise InvalidInputError(f"unknown algorithm {algorithm!r}")  # pragma: no cover


def simulate(workload: Workload, algorithm: str, **options: Any) -> SimulationResult:
    """Simulate ``algorithm`` on ``workload`` with the options its family accepts.

    Parameters
    ----------
    workload : Workload
        Jobs in submission order and the platform.
    algorithm : str
        ``"FCFS"``, ``"EASY"``, a DFRS name such as ``"GreedyPM */per/opt=min"``, or
        ``"KEASY"``, ``"REASY"``, ``"MEASY"`` (two-tier).
    **options
        Batch: ``estimates`` (requested instead of true run times), ``unit`` (``nodes``
        or ``cores``), ``backfill_depth``. DFRS: ``penalty``, ``period``, ``debug``,
        ``record``. Two-tier (KEASY, REASY, MEASY): ``migration_cost``,
        ``bg_threshold``, ``cpu_info``, ``background``, ``draws``, ``feedback``,
        ``debug``, ``reasy_extra``, ``reasy_protect``, and
        ``seed`` (the random loss and rho draws). Common: ``time_limit``, ``threads``,
        ``seed`` (no effect on the deterministic families).

    Returns
    -------
    SimulationResult

    Raises
    ------
    InvalidInputError
        For an unknown algorithm, or an option its family does not accept (the message
        lists the accepted ones).

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[100, 100],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.4, 0.4])
    >>> simulate(w, "FCFS").max_stretch, simulate(w, "Greedy *").max_stretch
    (2.0, 2.0)
    >>> simulate(w, "EASY", penalty=10)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: simulator 'batch' does not accept option 'penalty'...
    """
    simulator = simulator_for(algorithm)
    check_options("simulator", simulator.spec, options)
    # the family's own options, and the common ones it uses (those not marked ignored)
    used = {
        k: v
        for k, v in options.items()
        if k in simulator.spec.options or (k in COMMON_OPTIONS and k not in simulator.spec.common)
    }
    return simulator.run(workload, algorithm, **used)
