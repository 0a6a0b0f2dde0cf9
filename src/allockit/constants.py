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
    "BOUND_TOL_FLOOR",
    "CAPACITY_TOL",
    "DEFAULT_REL_GAP",
    "FAIRNESS_MAX_INTEGERS",
    "FAIRNESS_SOLVE_SECONDS",
    "FAIRNESS_TOL",
    "HIGHS_QP_ITERATION_LIMIT",
    "MAX_CLUSTER_NODES",
    "MAX_CLUSTER_SECONDS",
    "MAX_CLUSTER_WORK",
    "MAX_CORES",
    "MAX_DRFH_PLACEMENTS",
    "MAX_EXPERIMENT_JOBS",
    "MAX_HOSTS",
    "MAX_LOAD",
    "MAX_NODES",
    "MAX_PERIODS",
    "MAX_SECONDS",
    "MAX_SEED",
    "MAX_TASKS",
    "MCB_TOL",
    "MEM_EPS",
    "MEM_TOL",
    "MIN_LOAD",
    "PENALTY_SECONDS",
    "PERIOD_FLOOR_SECONDS",
    "PERIOD_SECONDS",
    "RUNNER_BACKENDS",
    "RUNNER_GRACE_SECONDS",
    "STALE_CLAIM_SECONDS",
    "TAU",
    "THREADS_PER_CORE",
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
#: Relative gap under which a solve is reported ``optimal`` (``rel_gap``, ``--rel-gap``):
#: HiGHS's own default ``mip_rel_gap``; ``best`` stops as soon as it has certified it.
DEFAULT_REL_GAP = 1e-4
#: Where the runner can run tasks: worker processes, this process, a Dask cluster.
RUNNER_BACKENDS = ("local", "serial", "dask")
#: Seconds past a task's time limit before the runner stops it.
RUNNER_GRACE_SECONDS = 5.0

# ---------------------------------------------------------------------- sane ranges
# The largest sizes allockit accepts at its boundary (JSON, SWF, TOML, the command line):
# beyond them an input cannot be allocated or run in reasonable time, and is refused at
# once with the size that works.

#: Largest seed (numpy and CP-SAT both take 63-bit seeds).
MAX_SEED = 2**63 - 1
#: Solver threads and worker processes: at most this many per core.
THREADS_PER_CORE = 4
#: Most hosts of a VCSched instance (the heuristics keep arrays per host).
MAX_HOSTS = 1_000_000
#: Most tasks of a VCSched instance, and of one DRFH user (arrays per task).
MAX_TASKS = 10_000_000
#: Most nodes of a workload platform, and cores per node.
MAX_NODES = 1_000_000
MAX_CORES = 4096
#: Largest time in an SWF field or a period, penalty or limit (s; about 317 years).
MAX_SECONDS = 1e10
#: Shortest period of the periodic DFRS schedulers (s): shorter ones flood the event queue.
PERIOD_FLOOR_SECONDS = 1.0
#: Most periods (MCB8 remaps) of one DFRS simulation: a period that would need more over
#: the time jobs are in the system is refused at once, and a run that reaches it stops.
MAX_PERIODS = 10_000_000
#: Smallest relative tolerance of the stretch bound's bisection.
BOUND_TOL_FLOOR = 1e-9
#: Most task placements of the DRFH task heuristics (First-Fit, Best-Fit, slots).
MAX_DRFH_PLACEMENTS = 10_000_000
#: Fairness checker: a property is violated by more than this many tasks, relative to
#: the largest task count of the example (at least 1 task); whole tasks differ by >= 1.
FAIRNESS_TOL = 1e-6
#: Fairness checker: time limit of each LP or MIP it solves (s); past it the example is
#: an error (undecided), never a pass.
FAIRNESS_SOLVE_SECONDS = 60.0
#: Fairness checker: most integer variables of a whole-task MIP (users x servers); a
#: larger example is an error (undecided) that names --semantics fractional.
FAIRNESS_MAX_INTEGERS = 200_000
#: Iterations HiGHS's QP solver may take on one problem: it can cycle on degenerate
#: cluster-reserves step-2 problems and then never returned without a time limit.
HIGHS_QP_ITERATION_LIMIT = 200_000
#: A store's task claim without a heartbeat for this long is stale and taken over (s).
STALE_CLAIM_SECONDS = 60.0
#: Longest simulated time of one cluster-reserves run (s): Li and Parker's runs last 60 s.
MAX_CLUSTER_SECONDS = 3600.0
#: Most nodes of one cluster-reserves run (the scale experiment's largest, 100,000).
MAX_CLUSTER_NODES = 100_000
#: Most node-seconds (nodes x simulated seconds) of one cluster-reserves run: about a
#: quarter of an hour on one core (1,000 nodes for 60 s take about 5 s).
MAX_CLUSTER_WORK = 10_000_000.0
#: Most jobs of one synthetic workload of an experiment (the papers': 1,000 to 200,000).
MAX_EXPERIMENT_JOBS = 1_000_000
#: Offered loads of the workload generators and experiments (work over capacity): the
#: papers' are 0.1 to 0.9. Above 1 the queue only grows and a simulation's time grows
#: with its square (8,000 FWload jobs: 21 s at 0.9, 35 s at 2, 68 s at 10); below 0.01
#: a long trace passes the 1e10 s an SWF file holds.
MIN_LOAD, MAX_LOAD = 0.01, 2.0
