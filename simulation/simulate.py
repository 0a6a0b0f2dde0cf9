"""One entry point for every online scheduler: ``simulate(workload, algorithm, **options)``.

Built-in algorithms come in families, each a simulator with the options it accepts
(``allockit.options``): the batch baselines FCFS and EASY (``simulate_batch``), the
DFRS algorithms named as in Table 1 of Casanova et al. (``simulate_dfrs``) and the
two-tier KEASY/REASY/MEASY. An option the algorithm's family does not take is refused
with the accepted list. The common options ``time_limit``, ``threads`` and ``seed`` are
accepted by every family; the deterministic simulators ignore ``seed`` and none is
multi-threaded or time-limited.

A scheduler of your own is a ``Policy`` (``allockit.simulation.policy``): pass the
object, a class or factory (called with the options), a ``MODULE:CLASS`` or
``PATH/TO/FILE.py:CLASS`` spec, or the name of a registered plug-in (entry point
``scheduler.NAME``). It runs on the simulator of its ``model`` (``"batch"``: the one
FCFS and EASY run on; ``"fractional"``: the DFRS simulator, which runs the Table 1
algorithms as ``dfrs_algorithm.DfrsAlgorithm`` policies) with that simulator's options
(batch: ``estimates``, ``unit``; fractional: ``penalty``, ``debug``, ``record``); every
other option goes to the class or factory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from allockit.errors import (
    AllocKitError,
    InvalidInputError,
    method_failed,
)
from allockit.instances.workload import Workload
from allockit.options import COMMON_OPTIONS, MethodSpec, Range, check_common, check_options
from allockit.results import SimulationResult

__all__ = [
    "ENGINES",
    "SIMULATORS",
    "Simulator",
    "build_policy",
    "is_builtin",
    "simulate",
    "simulate_policy",
    "simulator_for",
]

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


_BATCH_ENGINE = {
    "estimates": (Range(bool), False, "the scheduler sees the requested times, not the true ones"),
    "unit": (None, "nodes", "a job holds one node per task (nodes) or tasks*cpu*cores (cores)"),
}


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
            {"estimates": Range(bool)},
            {**{k: d for k, (_, d, _) in _BATCH_ENGINE.items()}, "backfill_depth": None},
            {
                **{k: h for k, (_, _, h) in _BATCH_ENGINE.items()},
                "backfill_depth": "EASY tries this many queued jobs after the head (None: "
                "all; 0: FCFS)",
            },
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
            {
                "penalty": Range(float, ge=0, unit="seconds"),
                "period": Range(float, gt=0, unit="seconds"),
                "debug": Range(bool),
                "record": Range(bool),
            },
            {"penalty": 300.0, "period": 600.0, "debug": False, "record": False, "hold": None},
            {
                "penalty": "seconds without progress after a resume or a migration",
                "period": "seconds between two periodic MCB8 remaps (/per, /stretch-per)",
                "debug": "check the invariants after every event (slower)",
                "record": "keep the progress segments in the result (for tests)",
                "hold": "not in the paper: MCB8 neither pauses nor moves a job started, "
                "resumed or moved less than this many seconds ago (None: off)",
            },
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
            {
                "migration_cost": Range(float, ge=0, unit="seconds"),
                "bg_threshold": Range(float, ge=0),
                "background": Range(bool),
                "feedback": Range(bool),
                "debug": Range(bool),
                "reasy_protect": Range(bool),
            },
            {
                "migration_cost": 20.0,
                "bg_threshold": 0.96,
                "cpu_info": "known",
                "background": True,
                "draws": "job",
                "feedback": False,
                "debug": False,
                "reasy_extra": "idle",
                "reasy_protect": True,
            },
            {
                "migration_cost": "MEASY: seconds a migrated job makes no progress",
                "bg_threshold": "a bg process only under an fg process of CPU usage below this",
                "cpu_info": "what the scheduler knows of CPU usage: known or none",
                "background": "run the bg tier (False gives EASY's schedule)",
                "draws": "granularity of the random loss and rho draws: job, process, placement",
                "feedback": "honour the SWF's preceding-job and think-time fields",
                "debug": "check the two-tier invariants after every event (slower)",
                "reasy_extra": "REASY's extra VMs: idle (the prose) or line17 (Algorithm 3)",
                "reasy_protect": "REASY: keep jobs admitted by the extra rule off the head's "
                "processors",
            },
        ),
        _is_two_tier,
        _run_two_tier,
    ),
}

#: Model -> the options of the simulator a user's ``Policy`` of that model runs on.
ENGINES: dict[str, MethodSpec] = {
    "batch": MethodSpec(
        "batch",
        "your Policy on the batch platform (exclusive units per job, no preemption)",
        tuple(_BATCH_ENGINE),
        _IGNORED,
        {"estimates": Range(bool)},
        {k: d for k, (_, d, _) in _BATCH_ENGINE.items()},
        {k: h for k, (_, _, h) in _BATCH_ENGINE.items()},
    ),
    "fractional": MethodSpec(
        "fractional",
        "your Policy on DFRS's fractional platform (shared nodes, yields, penalties)",
        ("penalty", "debug", "record"),
        _IGNORED,
        {
            "penalty": Range(float, ge=0, unit="seconds"),
            "debug": Range(bool),
            "record": Range(bool),
        },
        {"penalty": 300.0, "debug": False, "record": False},
        {
            "penalty": "seconds without progress after a resume or a migration",
            "debug": "check the invariants after every event (slower)",
            "record": "keep the progress segments in the result (for tests)",
        },
    ),
}


def is_builtin(algorithm: Any) -> bool:
    """Whether ``algorithm`` is the name of a built-in scheduler of some family.

    Parameters
    ----------
    algorithm : Any
        What the user gave.

    Returns
    -------
    bool
        True for FCFS, EASY, a DFRS name of Table 1 and KEASY, REASY, MEASY.

    Examples
    --------
    >>> is_builtin("EASY"), is_builtin("Greedy */per"), is_builtin("mymod:SJF")
    (True, True, False)
    """
    return isinstance(algorithm, str) and any(s.accepts(algorithm) for s in SIMULATORS.values())


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
            f"{exc}; two-tier algorithms: KEASY, REASY, MEASY; a scheduler of your own: "
            "MODULE:CLASS or PATH/TO/FILE.py:CLASS"
        ) from None
    raise InvalidInputError(f"unknown algorithm {algorithm!r}")  # pragma: no cover


def simulate(workload: Workload, algorithm: Any, **options: Any) -> SimulationResult:
    """Simulate ``algorithm`` on ``workload`` with the options its family accepts.

    Parameters
    ----------
    workload : Workload
        Jobs in submission order and the platform.
    algorithm : str, Policy or callable
        A built-in name: ``"FCFS"``, ``"EASY"``, a DFRS name such as ``"GreedyPM
        */per/opt=min"``, or ``"KEASY"``, ``"REASY"``, ``"MEASY"`` (two-tier). Or a
        scheduler of your own (``allockit.simulation.policy``): a ``Policy`` object, a
        class or factory returning one, a ``"MODULE:CLASS"`` or
        ``"PATH/TO/FILE.py:CLASS"`` spec, or a registered plug-in's name.
    **options
        Batch: ``estimates`` (requested instead of true run times), ``unit`` (``nodes``
        or ``cores``), ``backfill_depth``. DFRS: ``penalty``, ``period``, ``debug``,
        ``record``, ``hold``. Two-tier (KEASY, REASY, MEASY): ``migration_cost``,
        ``bg_threshold``, ``cpu_info``, ``background``, ``draws``, ``feedback``,
        ``debug``, ``reasy_extra``, ``reasy_protect``, and ``seed`` (the random loss
        and rho draws). Common: ``time_limit``, ``threads``, ``seed`` (no effect on the
        deterministic families). A policy of your own: its simulator's options (batch:
        ``estimates``, ``unit``); the others go to its class or factory (see
        ``build_policy``).

    Returns
    -------
    SimulationResult

    Raises
    ------
    InvalidInputError
        For an unknown algorithm or a spec that cannot be loaded, an option its family
        does not accept (the message lists the accepted ones), or a user policy that
        breaks the protocol (naming what it did).

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
    >>> from allockit.simulation.batch import EASY
    >>> simulate(w, EASY(backfill_depth=0)).algorithm
    'easy'
    """
    if is_builtin(algorithm):
        simulator = simulator_for(algorithm)
        check_options("simulator", simulator.spec, options)
        # the family's own options, and the common ones it uses (those not marked ignored)
        used = {
            k: v
            for k, v in options.items()
            if k in simulator.spec.options
            or (k in COMMON_OPTIONS and k not in simulator.spec.common)
        }
        return simulator.run(workload, algorithm, **used)
    if isinstance(algorithm, str) and not _user_named(algorithm):
        simulator_for(algorithm)  # raises, naming the part of the name that is wrong
    engine_names = {o for spec in ENGINES.values() for o in spec.options}
    engine = {k: v for k, v in options.items() if k in engine_names}
    rest = {k: v for k, v in options.items() if k not in engine_names}
    if _is_policy(algorithm):
        if set(rest) - set(COMMON_OPTIONS):
            unknown = sorted(set(rest) - set(COMMON_OPTIONS))
            raise InvalidInputError(
                f"a Policy object takes no options of its own here (give them to its "
                f"constructor); got {', '.join(repr(u) for u in unknown)}"
            )
        check_common(**rest)
        return simulate_policy(workload, algorithm, **engine)
    policy, name = build_policy(algorithm, **rest)
    return simulate_policy(workload, policy, name=name, **engine)


def _user_named(text: str) -> bool:
    """A spec (``MODULE:CLASS``, ``FILE.py:CLASS``) or a registered plug-in's name."""
    from allockit.plugins import is_spec, registered

    return is_spec(text) or f"scheduler.{text}" in registered("scheduler")


def _is_policy(value: Any) -> bool:
    from allockit.simulation.policy import is_policy

    return is_policy(value)


def build_policy(
    algorithm: Any, *, label: str = "algorithm", **options: Any
) -> tuple[Any, str]:
    """A user's ``Policy`` from a class, factory, spec or plug-in name, and its name.

    The factory (a class is one) is called with ``options``: the common options that
    are not None, and the policy's own. A factory that declares ``method_spec`` (an
    ``allockit.options.MethodSpec``) has them checked against it first.

    Parameters
    ----------
    algorithm : str or callable
        ``"MODULE:CLASS"``, ``"PATH/TO/FILE.py:CLASS"``, a plug-in's name (entry point
        ``scheduler.NAME``), or a class or function returning a policy.
    label : str, default "algorithm"
        How messages name the option (the command line passes ``"--algorithm"``).
    **options
        Passed to the factory.

    Returns
    -------
    (Policy, str)
        The policy object and the name results record (the spec as given, or
        ``module:qualname`` of a callable).

    Raises
    ------
    InvalidInputError
        For a spec that cannot be loaded, a bad common option, or a factory that fails
        (its error named) or does not return a policy.

    Examples
    --------
    >>> policy, name = build_policy("allockit.simulation.batch:EASY", backfill_depth=2)
    >>> type(policy).__name__, policy.backfill_depth, name
    ('EASY', 2, 'allockit.simulation.batch:EASY')
    >>> build_policy("allockit.simulation.batch:EASY", depth=2)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: algorithm 'allockit.simulation.batch:EASY': building \
the policy failed: TypeError: EASY.__init__() got an unexpected keyword argument 'depth'
    """
    from allockit.plugins import resolve
    from allockit.simulation.policy import MODELS, is_policy

    builtins = {name: None for name in ("FCFS", "EASY", "KEASY", "REASY", "MEASY")}
    resolved = resolve("scheduler", algorithm, builtins, label=label)
    common = {k: options.pop(k) for k in COMMON_OPTIONS if k in options}
    check_common(**common)
    given = {**{k: v for k, v in common.items() if v is not None}, **options}
    factory = resolved.function
    declared = getattr(factory, "method_spec", None)
    if isinstance(declared, MethodSpec):
        check_options("scheduler", declared, given)
    what = f"{label} {resolved.name!r}"
    try:
        policy = factory(**given)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{what}: {exc}") from None
    except Exception as exc:
        text = str(exc).strip().splitlines()
        cause = f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
        raise InvalidInputError(f"{what}: building the policy failed: {cause}") from None
    if not is_policy(policy):
        raise InvalidInputError(
            f"{what} must be a Policy class or factory (an object with schedule(cluster, "
            f"now)); it returned {type(policy).__name__!r}"
        )
    model = getattr(policy, "model", "batch")
    if model not in MODELS:
        raise InvalidInputError(f"{what}: model must be one of {list(MODELS)}; got {model!r}")
    return policy, resolved.name


def simulate_policy(
    workload: Workload, policy: Any, *, name: str | None = None, **options: Any
) -> SimulationResult:
    """Run a ``Policy`` object on the simulator of its ``model``.

    Parameters
    ----------
    workload : Workload
        Jobs in submission order and the platform.
    policy : Policy
        The scheduler (``allockit.simulation.policy``).
    name : str, optional
        The result's ``algorithm`` (default: the policy's ``name``, else its class).
    **options
        The simulator's options (``ENGINES[model]``; batch: ``estimates``, ``unit``;
        fractional: ``penalty``, ``debug``, ``record``).

    Returns
    -------
    SimulationResult

    Raises
    ------
    InvalidInputError
        For an option the policy's simulator does not take, a model without a
        simulator for user policies, or a policy that breaks the protocol.
    MethodFailedError
        If the policy raised an exception of its own (one line naming the policy, the
        exception and where it was raised; the exception is the ``__cause__``).

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> from allockit.simulation.batch import FCFS
    >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[100, 100],
    ...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.4, 0.4])
    >>> simulate_policy(w, FCFS(), name="mine").algorithm
    'mine'
    """
    model = getattr(policy, "model", "batch")
    if model not in ENGINES:
        raise InvalidInputError(
            f"policies of model {model!r} have no simulator for user policies yet; "
            f"models: {list(ENGINES)}"
        )
    check_options("simulator", ENGINES[model], options)
    used = {k: v for k, v in options.items() if k in ENGINES[model].options}
    try:
        if model == "fractional":
            import dataclasses

            from allockit.simulation.dfrs import simulate_dfrs

            result = simulate_dfrs(workload, policy, **used)
            return dataclasses.replace(result, algorithm=name) if name else result
        from allockit.simulation.batch import run_batch

        return run_batch(workload, policy, name=name, **used)
    except AllocKitError:
        raise  # (allockit's own errors name the policy and what it broke)
    except Exception as exc:
        from allockit.simulation.policy import policy_name

        raise method_failed(f"scheduler {name or policy_name(policy)!r}", exc) from exc

