"""Which solvers run allockit's Pyomo models, how each takes its options, what to install.

A Pyomo model runs on any solver Pyomo can drive. allockit knows the common ones by
name (``SOLVERS``): how each receives the time limit, thread count, relative MIP gap
and random seed, and what to install when it is missing. Any other name Pyomo's own
solver factory knows (``pyomo.environ.SolverFactory``) runs too, with Pyomo's defaults
(see ``resolve_solver``).

HiGHS (through ``highspy``, a dependency) is the default everywhere; SCIP (through
``PySCIPOpt``: ``pip install 'allockit[scip]'``) is the tested second solver.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from allockit.errors import InvalidInputError, SolverUnavailableError
from allockit.solver.report import check_limits

__all__ = [
    "DEFAULT_SOLVER",
    "SOLVERS",
    "PyomoSolver",
    "check_solver_options",
    "installed_solvers",
    "resolve_solver",
]

#: The solver of every Pyomo model unless the user names another.
DEFAULT_SOLVER = "highs"


@dataclass(frozen=True, slots=True)
class PyomoSolver:
    """A solver Pyomo can run, and how allockit passes it the common options.

    Attributes
    ----------
    name : str
        The name users give (``solver="scip"``, ``--solver scip``).
    pyomo_name : str
        The name in Pyomo's solver factory.
    interface : {"contrib", "legacy"}
        ``contrib``: Pyomo's newer persistent interfaces (``pyomo.contrib.solver``),
        which take the time limit, threads and gap themselves; ``legacy``:
        ``pyomo.environ.SolverFactory``, options by the solver's own names below.
    install : str
        What to install when it is missing (printed with exit code 1).
    module : str or None
        A Python module whose presence means the solver is installed (None: ask Pyomo,
        e.g. for an executable on the PATH).
    time_option, gap_option, threads_option, seed_option : str or None
        The solver's own names of these options (None: allockit cannot pass it; the
        solver's default holds and ``notes`` says so).
    notes : str
        What the solver does with the common options, for the documentation.

    Examples
    --------
    >>> SOLVERS["scip"].install
    "pip install 'allockit[scip]'"
    """

    name: str
    pyomo_name: str
    interface: str
    install: str
    module: str | None = None
    time_option: str | None = None
    gap_option: str | None = None
    threads_option: str | None = None
    seed_option: str | None = None
    notes: str = ""

    def options(
        self, *, time_limit: float | None, threads: int | None, rel_gap: float, seed: int
    ) -> dict[str, Any]:
        """The legacy interface's solver options for these common values.

        Parameters
        ----------
        time_limit : float or None
            Seconds.
        threads : int or None
            Solver threads.
        rel_gap : float
            Relative MIP gap.
        seed : int
            Random seed.

        Returns
        -------
        dict
            Option name (the solver's own) -> value, for the options the solver has.

        Examples
        --------
        >>> SOLVERS["cbc"].options(time_limit=5.0, threads=None, rel_gap=1e-4, seed=1)
        {'sec': 5.0, 'ratio': 0.0001, 'randomCbcSeed': 1}
        """
        out: dict[str, Any] = {}
        for key, value in (
            (self.time_option, time_limit),
            (self.gap_option, rel_gap),
            (self.threads_option, threads),
            (self.seed_option, seed),
        ):
            if key is not None and value is not None:
                out[key] = value
        if self.name == "glpk" and "tmlim" in out:
            out["tmlim"] = max(1, int(out["tmlim"]))  # glpsol takes whole seconds
        return out


#: The solvers allockit knows by name, in the order of the documentation.
SOLVERS: dict[str, PyomoSolver] = {
    s.name: s
    for s in (
        PyomoSolver(
            "highs",
            "highs",
            "contrib",
            "pip install highspy==1.12.0",
            "highspy",
            notes="the default; time limit, threads, gap and seed passed; warm start",
        ),
        PyomoSolver(
            "scip",
            "scip_persistent",
            "contrib",
            "pip install 'allockit[scip]'",
            "pyscipopt",
            seed_option="randomization/randomseedshift",
            notes="time limit, gap and seed passed; threads are SCIP's LP threads; "
            "warm start (integer variables)",
        ),
        PyomoSolver(
            "gurobi",
            "gurobi_persistent",
            "contrib",
            "pip install gurobipy (and a Gurobi licence)",
            "gurobipy",
            seed_option="Seed",
            notes="time limit, threads, gap and seed passed",
        ),
        PyomoSolver(
            "cbc",
            "cbc",
            "legacy",
            "the cbc executable on the PATH (e.g. apt-get install coinor-cbc)",
            time_option="sec",
            gap_option="ratio",
            threads_option="threads",
            seed_option="randomCbcSeed",
            notes="time limit, threads, gap and seed passed; no bound at the limit",
        ),
        PyomoSolver(
            "glpk",
            "glpk",
            "legacy",
            "the glpsol executable on the PATH (e.g. apt-get install glpk-utils)",
            time_option="tmlim",
            gap_option="mipgap",
            notes="time limit (whole seconds) and gap passed; single-threaded; "
            "deterministic (no seed)",
        ),
        PyomoSolver(
            "cplex",
            "cplex_direct",
            "legacy",
            "pip install cplex (and a CPLEX licence for large models)",
            "cplex",
            time_option="timelimit",
            gap_option="mip_tolerances_mipgap",
            threads_option="threads",
            seed_option="randomseed",
            notes="time limit, threads, gap and seed passed",
        ),
        PyomoSolver(
            "xpress",
            "xpress_direct",
            "legacy",
            "pip install xpress (and a licence for large models)",
            "xpress",
            time_option="maxtime",
            gap_option="miprelstop",
            threads_option="threads",
            seed_option="randomseed",
            notes="time limit, threads, gap and seed passed",
        ),
    )
}


#: Pyomo's meta-solvers: they decompose nonlinear, disjunctive or multi-start models and
#: call other solvers, and take none of an LP/MIP solver's interface.
META_SOLVERS = frozenset({"mindtpy", "gdpopt", "multistart", "trustregion"})


def _module_installed(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def _pyomo_available(solver: PyomoSolver) -> bool:
    """Ask Pyomo whether it can run the solver (imports Pyomo: only when needed)."""
    if solver.interface == "contrib":
        from pyomo.contrib.solver.common.factory import SolverFactory

        return bool(SolverFactory(solver.pyomo_name).available())
    import pyomo.environ as pyo

    try:
        return bool(pyo.SolverFactory(solver.pyomo_name).available(exception_flag=False))
    except Exception:  # some plugins raise instead of answering
        return False


def resolve_solver(name: str, *, check_installed: bool = True) -> PyomoSolver:
    """The solver named ``name``, checked to be known and (by default) installed.

    A name of ``SOLVERS`` is looked up there. Any other name is passed to Pyomo's
    solver factory as it is (``"mosek_direct"``, ``"baron"``, ...): it runs with the
    solver's own defaults (allockit passes it no time limit, gap, threads or seed).

    Parameters
    ----------
    name : str
        The solver's name (``"highs"``, ``"scip"``, ``"cbc"``, ...).
    check_installed : bool, default True
        Also check that the solver can run here.

    Returns
    -------
    PyomoSolver

    Raises
    ------
    InvalidInputError
        If ``name`` is not a non-empty string, neither allockit nor Pyomo knows it
        (the message lists the known names), or Pyomo's plug-in of that name is a
        meta-solver that drives other solvers (``mindtpy``, ``gdpopt``, ...).
    SolverUnavailableError
        If the solver is known but not installed (the message says what to install).

    Examples
    --------
    >>> resolve_solver("highs").pyomo_name
    'highs'
    >>> resolve_solver("nosuchsolver")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: solver must be one of highs, scip, gurobi, cbc, \
glpk, cplex, xpress or a solver name Pyomo knows; got 'nosuchsolver'
    """
    if not isinstance(name, str) or not name.strip():
        raise InvalidInputError(f"solver must be a solver's name; got {name!r}")
    key = name.strip().lower()
    solver = SOLVERS.get(key)
    if solver is None:
        solver = _pyomo_only(key)
    if not check_installed:
        return solver
    # a solver with a Python module is installed when the module is (no import);
    # an executable is found by Pyomo
    ready = _module_installed(solver.module) if solver.module else _pyomo_available(solver)
    if not ready:
        raise SolverUnavailableError(
            f"solver {solver.name!r} is not installed: {solver.install}"
        )
    return solver


def _pyomo_only(name: str) -> PyomoSolver:
    """A solver only Pyomo's legacy factory knows, or an ``InvalidInputError``."""
    known = ", ".join(SOLVERS)
    refusal = InvalidInputError(
        f"solver must be one of {known} or a solver name Pyomo knows; got {name!r}"
    )
    try:
        import pyomo.environ as pyo
        from pyomo.opt.base.solvers import UnknownSolver
    except ImportError:  # pragma: no cover - pyomo is a dependency
        raise refusal from None
    with _quiet_pyomo():
        plugin = pyo.SolverFactory(name)
    if plugin is None or isinstance(plugin, UnknownSolver):
        raise refusal
    if name.partition(".")[0] in META_SOLVERS:
        raise InvalidInputError(
            f"solver {name!r} is a Pyomo {type(plugin).__name__}, which drives other "
            "solvers (a meta-solver for nonlinear or disjunctive models), not an LP/MIP "
            f"solver allockit can call; name one: {known} or another Pyomo LP/MIP solver"
        )
    return PyomoSolver(
        name,
        name,
        "legacy",
        f"the solver Pyomo calls {name!r} (see Pyomo's documentation)",
        notes="run with its own defaults: no time limit, gap, threads or seed passed",
    )


class _quiet_pyomo:
    """Silence Pyomo's warning log while asking its factory about a name."""

    def __enter__(self) -> None:
        import logging

        self.logger = logging.getLogger("pyomo")
        self.level = self.logger.level
        self.logger.setLevel(logging.ERROR)

    def __exit__(self, *exc: object) -> None:
        self.logger.setLevel(self.level)


def installed_solvers() -> list[str]:
    """The names of ``SOLVERS`` that can run on this machine.

    Returns
    -------
    list of str
        In the order of ``SOLVERS``; HiGHS is always there.

    Examples
    --------
    >>> "highs" in installed_solvers()
    True
    """
    out = []
    for name in SOLVERS:
        try:
            resolve_solver(name)
        except SolverUnavailableError:
            continue
        out.append(name)
    return out


def check_solver_options(
    *,
    time_limit: Any = None,
    threads: Any = None,
    rel_gap: Any = None,
    solver: str | None = None,
) -> None:
    """Refuse solver options that a solver would reject or that make no sense.

    Called before any model is built, so a bad value is an ``InvalidInputError``
    (exit 2 on the command line) and a missing solver a ``SolverUnavailableError``
    (exit 1), never a solver error after the work.

    Parameters
    ----------
    time_limit : float or Deadline, optional
        Seconds; must be > 0.
    threads : int, optional
        Must be an integer in ``[1, max_threads()]`` (4 per core).
    rel_gap : float, optional
        Relative gap; must be in [0, 1).
    solver : str, optional
        A solver name (see ``resolve_solver``); must be known and installed.

    Raises
    ------
    InvalidInputError
        Naming the option, the allowed range and the value.
    SolverUnavailableError
        If ``solver`` is not installed (naming what to install).

    Examples
    --------
    >>> check_solver_options(threads=1, rel_gap=1e-6, solver="highs")
    >>> check_solver_options(threads=100000)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: threads must be at most ... per core); got 100000
    """
    check_limits(time_limit, threads, rel_gap)
    if solver is not None:
        resolve_solver(solver)
