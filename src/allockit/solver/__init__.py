"""The solver layer: run a Pyomo model on the solver the user names, or a CP-SAT model,
and report an honest status.

- ``solve_pyomo(model, solver="highs", ...)``: HiGHS (the default), SCIP, Gurobi, CBC,
  GLPK, CPLEX, Xpress or any solver Pyomo knows (``catalog.SOLVERS``), with the time
  limit, threads, gap and seed passed where the solver has them;
- ``solve_cpsat(model, ...)``: OR-Tools CP-SAT;
- ``check_solver_options``: the checks run before any model is built;
- ``solve_exact(RationalLP...)``: a small LP decided in exact rational arithmetic (the
  fairness checker's Pareto LPs), optionally from a floating-point solver's basis.

Every call returns a ``SolverReport``; a time limit is given as seconds or as the
caller's ``allockit.clock.Deadline``.
"""

from allockit.clock import BuildTimeLimit
from allockit.solver.catalog import (
    DEFAULT_SOLVER,
    SOLVERS,
    PyomoSolver,
    check_solver_options,
    installed_solvers,
    resolve_solver,
)
from allockit.solver.cpsat_run import solve_cpsat
from allockit.solver.exact_lp import (
    ExactLPLimit,
    ExactSolution,
    RationalLP,
    highs_basis,
    solve_exact,
)
from allockit.solver.pyomo_run import solve_pyomo
from allockit.solver.report import (
    MAX_THREADS_PER_CORE,
    SolverReport,
    check_limits,
    max_threads,
    solver_versions,
)

__all__ = [
    "DEFAULT_SOLVER",
    "MAX_THREADS_PER_CORE",
    "SOLVERS",
    "BuildTimeLimit",
    "ExactLPLimit",
    "ExactSolution",
    "PyomoSolver",
    "RationalLP",
    "SolverReport",
    "check_limits",
    "check_solver_options",
    "highs_basis",
    "installed_solvers",
    "max_threads",
    "resolve_solver",
    "solve_cpsat",
    "solve_exact",
    "solve_pyomo",
    "solver_versions",
]
