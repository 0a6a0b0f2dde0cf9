"""Defaults and tolerances shared by every layer, each defined once.

Plain values only: importing this module imports nothing else, so the command line and
the simulators can read defaults without loading numpy, numba or a solver.

Examples
--------
>>> from allockit import constants
>>> constants.PENALTY_SECONDS, constants.PERIOD_SECONDS, constants.TAU
(300.0, 600.0, 10.0)
"""

__all__ = [
    "CAPACITY_TOL",
    "DEFAULT_REL_GAP",
    "MCB_TOL",
    "MEM_EPS",
    "MEM_TOL",
    "PENALTY_SECONDS",
    "PERIOD_SECONDS",
    "RUNNER_BACKENDS",
    "RUNNER_GRACE_SECONDS",
    "TAU",
    "YIELD_ACCURACY",
]

#: DFRS rescheduling penalty (s): no progress after a resume or a migration (seed 002, §5).
PENALTY_SECONDS = 300.0
#: Period of the periodic DFRS schedulers ``/per`` and ``/stretch-per`` (s).
PERIOD_SECONDS = 600.0
#: Threshold of the bounded stretch ``max(C - r, TAU) / max(p, TAU)`` (s).
TAU = 10.0
#: Accuracy of the online MCB8 yield bisection (the DFRS paper's 0.01).
YIELD_ACCURACY = 0.01
#: Accuracy of the static MCB heuristics' yield bisection (the VCSched paper used 0.01).
MCB_TOL = 1e-3
#: Memory below this is treated as zero when counting how many tasks fit on a node.
MEM_EPS = 1e-12
#: Absolute tolerance on memory and migration-budget checks (float round-off only).
MEM_TOL = 1e-10
#: Tolerance of the simulators' capacity invariants (CPU <= 100 %, memory <= 1).
CAPACITY_TOL = 1e-9
#: Relative MIP gap under which a solve is reported ``optimal``.
DEFAULT_REL_GAP = 1e-6
#: Where the runner can run tasks: worker processes, this process, a Dask cluster.
RUNNER_BACKENDS = ("local", "serial", "dask")
#: Seconds past a task's time limit before the runner stops it.
RUNNER_GRACE_SECONDS = 5.0
