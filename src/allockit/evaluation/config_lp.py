"""The configuration LP of VCSched: a proven upper bound on the minimum yield, by column generation.

For a largest host CPU load ``C`` (yield ``1 / C``), placing the tasks is a
two-dimensional vector bin packing: task ``t`` is an item of size ``(a_t, m_t)`` and a
host a bin of capacity ``(C, 1)``. Tasks with the same CPU need and memory form a type
``i`` with demand ``d_i``; a *pattern* ``p`` says how many tasks of each type one host
holds. The configuration LP

    min sum_p x_p   s.t.  sum_p p_i x_p >= d_i (every type i),  x >= 0

needs at least as many hosts as any placement; when its value exceeds ``H``, no
placement has every host load at most ``C``, so ``L* > C`` and the minimum yield is
below ``1 / C``. Its dual is ``max sum_i d_i pi_i`` s.t. ``sum_i p_i pi_i <= 1`` for
every pattern, ``pi >= 0``: *any* ``pi >= 0`` divided by ``kappa(pi) = max_p sum_i
p_i pi_i`` is feasible, so ``LP(C) >= sum_i d_i pi_i / kappa(pi)`` (Farley's bound;
the configuration LP is Gilmore and Gomory's [1]_, applied to VCSched's placement [2]_).
Column generation solves the restricted master over known patterns with HiGHS, takes
its duals and prices them with the exact two-dimensional knapsack of
``allockit.evaluation.knapsack``, whose *upper bound* on ``kappa`` (exact when its
search completes) makes Farley's bound valid at every iteration: the proof does not
need the column generation to converge, and one that stops at its time limit still
leaves a valid bound. The largest ``C`` with a proof is found by bisection.

Sound numerics: the pricing knapsack works on capacities enlarged by a relative
``CAP_MARGIN`` (CPU) and ``MEM_TOL`` plus ``CAP_MARGIN`` (memory: placements are
checked with tolerance ``MEM_TOL``), its upper bound carries a relative margin of
its own, and a proof needs ``sum d pi > H kappa (1 + PROOF_MARGIN)``: every
floating-point error in the sums (relative 1e-15 or so) is orders of magnitude below
these margins. The duals are clipped at 0; nothing else is taken from the LP solver.

References
----------
.. [1] Gilmore and Gomory (1961), A linear programming approach to the cutting-stock
   problem; Farley (1990), A note on bounding a class of linear programming problems,
   including cutting stock problems.
.. [2] Stillwell, Schanzenbach, Vivien, Casanova (2009), Resource allocation using
   virtual clusters (VCSched; FORMULAS §1).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from allockit.checks import real_number
from allockit.clock import Deadline
from allockit.constants import MEM_TOL
from allockit.errors import InvalidInputError
from allockit.instances.vcsched import VCInstance

__all__ = [
    "CapacityTest",
    "ConfigLPBound",
    "ConfigurationLP",
    "checked_capacity",
    "configuration_lp_bound",
    "item_types",
]

#: Relative enlargement of the capacities the pricing knapsack works with.
CAP_MARGIN = 1e-9
#: A proof needs the Farley bound above ``H (1 + PROOF_MARGIN)``.
PROOF_MARGIN = 1e-9
#: A pattern is a new column when its dual value exceeds ``1 + REDUCED_COST_TOL``.
REDUCED_COST_TOL = 1e-9
#: Most pricing nodes per search (its bound stays valid when it stops there; the
#: search also stops at the deadline).
MAX_NODES = 2_000_000
#: Weight of the best duals in the point priced (Wentges smoothing; 0 switches it off).
SMOOTHING = 0.8
#: Greedy patterns added per pricing round beside the exact search's.
GREEDY_COLUMNS = 5
#: Where the first load tested lies between the known bound and the incumbent.
FIRST_PROBE = 0.25
#: The bisection stops at this share of the distance between the incumbent's load and
#: the smallest load packed fractionally (a finer bound cannot certify it).
PRECISION = 0.1
#: Pricing-only bisection steps that look for the largest capacity a proof's duals prove.
REACH_STEPS = 30
#: Column-generation iterations per capacity when no limit is given.
MAX_ITERATIONS = 2000
#: The bisection stops when its interval is this narrow (relative), or ``rel_gap``.
MIN_WIDTH = 1e-7
#: Relative slack allowed between ``lower_load`` and ``incumbent_load`` (rounding in the
#: callers' sums) before the two are refused as contradictory.
CONSISTENCY_TOL = 1e-6


def _passed(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() >= deadline


def item_types(instance: VCInstance) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Tasks grouped by (CPU need, memory): the item types of the packing.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host.

    Returns
    -------
    cpu, mem : numpy.ndarray
        CPU need and memory of each type.
    demand : numpy.ndarray of int64
        Tasks of each type.
    task_type : numpy.ndarray of int64
        The type of every task.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.2, 0.5], mem=[0.1, 0.3, 0.1],
    ...                              tasks=[2, 1, 1])
    >>> cpu, mem, demand, task_type = item_types(inst)
    >>> cpu.tolist(), demand.tolist(), task_type.tolist()
    ([0.2, 0.5], [1, 3], [1, 1, 0, 1])
    """
    job = instance.task_job
    keys = np.stack((instance.cpu[job], instance.mem[job]), axis=1)
    unique, task_type = np.unique(keys, axis=0, return_inverse=True)
    task_type = np.asarray(task_type, dtype=np.int64).reshape(-1)
    demand = np.bincount(task_type, minlength=unique.shape[0]).astype(np.int64)
    return unique[:, 0].copy(), unique[:, 1].copy(), demand, task_type


@dataclass(frozen=True, slots=True)
class CapacityTest:
    """What column generation established at one largest host load ``capacity``.

    Attributes
    ----------
    capacity : float
        The largest host CPU load tested.
    status : {"proven", "fractional", "stopped"}
        ``proven``: the configuration LP needs more than ``H`` hosts (no placement has
        every load at most ``capacity``); ``fractional``: the restricted master packs
        the tasks fractionally into at most ``H`` hosts (no proof at this capacity);
        ``stopped``: the time or iteration limit came first.
    lower : float
        The best Farley bound found: the configuration LP needs at least this many
        hosts (valid whatever the status).
    upper : float
        The last restricted master's value (the LP needs at most this many).
    iterations : int
        Master solves.
    reach : float
        For ``proven``: the largest capacity the same duals still prove (at least
        ``capacity``); for ``fractional``: the largest load of a column the fractional
        packing uses (at most ``capacity``: the packing fits there too); else
        ``capacity``.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
    >>> test = ConfigurationLP(inst).test(1.1)
    >>> test.status, test.lower > 2
    ('proven', True)
    """

    capacity: float
    status: str
    lower: float
    upper: float
    iterations: int
    reach: float


class ConfigurationLP:
    """The restricted master of the configuration LP and its pool of patterns.

    One object serves every capacity tested (a pattern found at one capacity is kept
    and enabled at every capacity it fits), so a bisection re-uses its columns.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host.

    Raises
    ------
    InvalidInputError
        For an instance with migration limits (the packing ignores them).

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
    >>> lp = ConfigurationLP(inst)
    >>> lp.test(1.1).status, lp.test(1.2).status
    ('proven', 'fractional')
    """

    def __init__(self, instance: VCInstance) -> None:
        if instance.is_adaptation:
            raise InvalidInputError(
                "the configuration LP ignores migration limits; got an adaptation instance"
            )
        import highspy

        self.hosts = int(instance.hosts)
        self.cpu, self.mem, self.demand, self.task_type = item_types(instance)
        self.mem_cap = (1.0 + MEM_TOL) * (1.0 + CAP_MARGIN)
        n = self.cpu.size
        self._highs = highspy.Highs()
        self._highs.setOptionValue("output_flag", False)
        self._highs.setOptionValue("threads", 1)
        self._highs.setOptionValue("presolve", "off")
        self._highs.setOptionValue("simplex_strategy", 4)  # primal: columns come and go
        inf = highspy.kHighsInf
        self._highs.addRows(
            n,
            self.demand.astype(np.float64),
            np.full(n, inf),
            0,
            np.zeros(n, dtype=np.int32),
            np.zeros(0, dtype=np.int32),
            np.zeros(0),
        )
        self.residual = self.demand.copy()  # the demands the master asks for (dives lower them)
        self.patterns: list[np.ndarray] = []
        self.loads = np.zeros(0)
        self._seen: set[bytes] = set()
        self._enabled = np.zeros(0, dtype=bool)
        self.capacity = math.inf
        self.add_patterns(np.eye(n, dtype=np.int64))  # one task alone always fits
        self.x = np.zeros(0)
        self.proof_duals: np.ndarray | None = None  # the duals of the last proof
        self._started: set[float] = set()  # capacities with first-fit columns
        self.reach_tol = 1e-5  # relative precision of the search for a proof's reach

    @property
    def n_types(self) -> int:
        """Number of item types (rows of the master)."""
        return int(self.cpu.size)

    def _fits(self, loads: np.ndarray) -> np.ndarray:
        return loads <= self.capacity * (1.0 + CAP_MARGIN)

    def add_patterns(self, patterns: np.ndarray) -> int:
        """Add new columns (rows of counts per type that fit memory); returns how many.

        Examples
        --------
        >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
        >>> ConfigurationLP(inst).add_patterns(np.array([[2], [1]]))
        1
        """
        import highspy

        rows = np.minimum(np.atleast_2d(np.asarray(patterns, dtype=np.int64)), self.demand)
        rows = rows[rows.any(axis=1) & (rows @ self.mem <= self.mem_cap)]
        new = []
        for p in rows:
            key = p.tobytes()
            if key not in self._seen:
                self._seen.add(key)
                new.append(p)
        if not new:
            return 0
        block = np.array(new)
        loads = block @ self.cpu
        fits = self._fits(loads)
        nz_rows, nz_cols = np.nonzero(block.T)  # column-major: entries of column k together
        order = np.argsort(nz_cols, kind="stable")
        index, column = nz_rows[order].astype(np.int32), nz_cols[order]
        starts = np.searchsorted(column, np.arange(len(new))).astype(np.int32)
        self._highs.addCols(
            len(new),
            np.ones(len(new)),
            np.zeros(len(new)),
            np.where(fits, highspy.kHighsInf, 0.0),
            index.size,
            starts,
            index,
            block[column, index].astype(np.float64),
        )
        self.patterns.extend(new)
        self.loads = np.concatenate((self.loads, loads))
        self._enabled = np.concatenate((self._enabled, fits))
        return len(new)

    def add_placement(self, task_hosts: np.ndarray) -> int:
        """Add every host of a placement as a pattern; returns how many were new.

        Examples
        --------
        >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
        >>> ConfigurationLP(inst).add_placement(np.array([0, 0, 1]))
        1
        """
        counts = np.zeros((self.hosts, self.n_types), dtype=np.int64)
        np.add.at(counts, (np.asarray(task_hosts, dtype=np.int64), self.task_type), 1)
        return self.add_patterns(counts[counts.any(axis=1)])

    def _set_capacity(self, capacity: float) -> None:
        import highspy

        self.capacity = float(capacity)
        fits = self._fits(self.loads)
        change = np.flatnonzero(fits != self._enabled)
        if change.size:
            upper = np.where(fits[change], highspy.kHighsInf, 0.0)
            self._highs.changeColsBounds(
                change.size, change.astype(np.int32), np.zeros(change.size), upper
            )
            self._enabled = fits

    def set_demand(self, demand: np.ndarray) -> None:
        """Ask the master to cover ``demand`` tasks of each type (a dive's residual).

        Examples
        --------
        >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
        >>> lp = ConfigurationLP(inst)
        >>> lp.set_demand(np.array([1])); lp.residual.tolist()
        [1]
        """
        import highspy

        demand = np.minimum(np.maximum(np.asarray(demand, dtype=np.int64), 0), self.demand)
        for i in np.flatnonzero(demand != self.residual):
            self._highs.changeRowBounds(int(i), float(demand[i]), highspy.kHighsInf)
        self.residual = demand

    def _solve_master(self) -> tuple[float, np.ndarray, np.ndarray] | None:
        """The master LP's value, duals and columns, or None when HiGHS did not solve it
        (its numbers are then not an answer: the caller stops with what it proved)."""
        import highspy

        self._highs.run()
        if self._highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        solution = self._highs.getSolution()
        value = float(self._highs.getInfo().objective_function_value)
        duals = np.maximum(np.asarray(solution.row_dual, dtype=np.float64), 0.0)
        return value, duals, np.asarray(solution.col_value, dtype=np.float64)

    def farley(
        self,
        duals: np.ndarray,
        capacity: float,
        node_limit: int = 1_000_000,
        deadline: float | None = None,
    ):
        """Farley's bound at ``capacity`` for the duals given, and the patterns priced.

        Parameters
        ----------
        duals : numpy.ndarray
            A value per type (negative values count as 0).
        capacity : float
            The largest host CPU load.
        node_limit : int, default 1,000,000
            Budget of the pricing search (its upper bound is valid either way).
        deadline : float, optional
            A ``time.perf_counter()`` value at which the pricing search stops (its
            upper bound stays valid).

        Returns
        -------
        lower : float
            ``sum d pi / kappa``: the configuration LP at ``capacity`` needs at least
            this many hosts.
        outcome : KnapsackOutcome
            The pricing search (patterns of dual value above ``1 + REDUCED_COST_TOL``).

        Examples
        --------
        >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
        >>> lower, _ = ConfigurationLP(inst).farley(np.array([1.0]), 1.1)
        >>> round(lower, 6)                     # one task per host: 3 hosts
        3.0
        """
        from allockit.evaluation.knapsack import knapsack_2d

        pi = np.maximum(np.asarray(duals, dtype=np.float64), 0.0)
        outcome = knapsack_2d(
            pi, self.cpu, self.mem, self.residual, capacity * (1.0 + CAP_MARGIN), self.mem_cap,
            floor=1.0 + REDUCED_COST_TOL, node_limit=node_limit, greedy=GREEDY_COLUMNS,
            deadline=deadline,
        )
        kappa = max(outcome.upper, 1e-300)
        return float(self.residual @ pi) / kappa, outcome

    def test(
        self,
        capacity: float,
        *,
        hosts: int | None = None,
        deadline: float | None = None,
        max_iterations: int = MAX_ITERATIONS,
        reach_to: float | None = None,
    ) -> CapacityTest:
        """Column generation at one capacity, until a proof, a fractional packing or a limit.

        The master covers ``residual`` (the demands unless ``set_demand`` changed them).

        Parameters
        ----------
        capacity : float
            The largest host CPU load ``C`` (> 0).
        hosts : int, optional
            The hosts to compare with (default the instance's).
        deadline : float, optional
            A ``time.perf_counter()`` value at which to stop.
        max_iterations : int, default MAX_ITERATIONS
            Master solves at most.
        reach_to : float, optional
            After a proof, how far up (a capacity) to look for the largest capacity
            the same duals prove (``CapacityTest.reach``); default: not at all.

        Returns
        -------
        CapacityTest
            ``proven`` when a Farley bound exceeds ``H``, ``fractional`` when the
            restricted master fits in ``H`` hosts, else ``stopped``.

        Raises
        ------
        InvalidInputError
            For a capacity that is not a finite number > 0.

        Examples
        --------
        >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
        >>> ConfigurationLP(inst).test(1.19).status      # L* = 1.2
        'proven'
        """
        checked_capacity(capacity)
        self._set_capacity(capacity)
        hosts = self.hosts if hosts is None else int(hosts)
        lower, upper = 0.0, math.inf
        if (self.cpu > capacity).any() or (self.mem > self.mem_cap).any():
            # a task fits on no host: no placement at all (the master has no column
            # for it); proven without duals
            return CapacityTest(capacity, "proven", math.inf, math.inf, 0, capacity)
        self._start_columns(capacity)
        # the smoothing centre starts at the best of the surrogate duals
        # lambda a / C + (1 - lambda) m / M, dual feasible by construction (their
        # Farley bound is the LP bound on CPU or memory), or at an earlier proof's duals
        center = self._surrogate_duals(capacity)
        # every pattern priced has sum a <= C (1 + CAP_MARGIN) and sum m <= M: these
        # duals value it at most 1 + CAP_MARGIN (the rest of the margin: rounding)
        lower = float(self.residual @ center) / (1.0 + 2.0 * CAP_MARGIN)
        if self.proof_duals is not None:
            earlier, _ = self.farley(self.proof_duals, capacity, MAX_NODES, deadline)
            if earlier > hosts * (1.0 + PROOF_MARGIN):
                return self._proven(
                    capacity, earlier, upper, 0, self.proof_duals, hosts, reach_to, deadline
                )
            if earlier > lower:
                lower, center = earlier, self.proof_duals
        iterations = 0
        while iterations < max_iterations:
            if _passed(deadline):
                break
            master = self._solve_master()
            if master is None:
                break  # the lower bound so far stays valid; no answer from the master
            upper, duals, self.x = master
            iterations += 1
            if upper <= hosts + 1e-9:
                used = self.x > 1e-9
                reach = float(self.loads[used].max()) if used.any() else 0.0
                return CapacityTest(capacity, "fractional", lower, upper, iterations,
                                    min(capacity, reach))
            # Wentges smoothing: price a point between the best duals and the master's
            # (any duals give a valid Farley bound); if none of its patterns is a new
            # column for the master's duals, price the master's duals themselves
            added = 0
            for alpha in ((SMOOTHING, 0.0) if center is not None else (0.0,)):
                point = duals if alpha == 0.0 else alpha * center + (1.0 - alpha) * duals
                bound, outcome = self.farley(point, capacity, MAX_NODES, deadline)
                if bound > lower:
                    lower, center = bound, point
                if lower > hosts * (1.0 + PROOF_MARGIN):
                    return self._proven(
                        capacity, lower, upper, iterations, center, hosts, reach_to, deadline
                    )
                useful = outcome.patterns[outcome.patterns @ duals > 1.0 + REDUCED_COST_TOL]
                added = self.add_patterns(useful)
                if added:
                    break
            if not added:
                break  # converged (or the pricing found nothing new): no proof here
        return CapacityTest(capacity, "stopped", lower, upper, iterations, capacity)

    def _surrogate_duals(self, capacity: float) -> np.ndarray:
        """The best (largest ``sum d pi``) of the duals ``lambda a / C + (1 - lambda) m / M``."""
        best = np.zeros(self.n_types)
        for lam in np.linspace(0.0, 1.0, 5):
            pi = lam * self.cpu / capacity + (1.0 - lam) * self.mem / self.mem_cap
            if self.residual @ pi > self.residual @ best:
                best = pi
        return best

    def _start_columns(self, capacity: float) -> None:
        """First-fit decreasing packings at ``capacity``: columns for a first master."""
        from allockit.evaluation.knapsack import first_fit_patterns

        if capacity in self._started:
            return
        self._started.add(capacity)
        self.add_patterns(
            first_fit_patterns(
                self.cpu, self.mem, self.residual, capacity * (1.0 + CAP_MARGIN), self.mem_cap
            )
        )

    def _proven(
        self,
        capacity: float,
        lower: float,
        upper: float,
        iterations: int,
        duals: np.ndarray,
        hosts: int,
        reach_to: float | None,
        deadline: float | None,
    ) -> CapacityTest:
        """A proof at ``capacity``; the same duals are tried at larger capacities up to
        ``reach_to`` (pricing only, by bisection) to find how far they prove."""
        self.proof_duals = duals
        reach = capacity
        hi = capacity if reach_to is None else float(reach_to)
        for _ in range(REACH_STEPS):
            if hi - reach <= 0.5 * max(MIN_WIDTH, self.reach_tol) * hi:
                break
            mid = 0.5 * (reach + hi)
            if _passed(deadline):
                break
            bound, _ = self.farley(duals, mid, MAX_NODES, deadline)
            if bound > hosts * (1.0 + PROOF_MARGIN):
                reach = mid
            else:
                hi = mid
        return CapacityTest(capacity, "proven", lower, upper, iterations, reach)


def checked_capacity(capacity: object) -> float:
    """``capacity`` as a float, or an error if it is not a finite number > 0.

    Parameters
    ----------
    capacity : float
        A largest host CPU load to test or dive at.

    Returns
    -------
    float
        The same capacity.

    Raises
    ------
    InvalidInputError
        For anything but a finite number > 0 (a bool included).

    Examples
    --------
    >>> checked_capacity(1.2)
    1.2
    >>> checked_capacity(float("nan"))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: capacity must be a finite number > 0; got nan
    """
    if (isinstance(capacity, bool) or not isinstance(capacity, int | float | np.number)
            or not math.isfinite(capacity) or capacity <= 0):
        raise InvalidInputError(f"capacity must be a finite number > 0; got {capacity!r}")
    return float(capacity)


def _check_search(
    incumbent_load: object, lower_load: object, rel_gap: object, max_iterations: object
) -> None:
    """Refuse arguments of ``configuration_lp_bound`` that no search can use, naming them."""
    for name, value in (("incumbent_load", incumbent_load), ("lower_load", lower_load)):
        if value is not None:
            real_number(name, value, above=0)
    real_number("rel_gap", rel_gap, at_least=0, below=1, finite=False)
    if (isinstance(max_iterations, bool) or not isinstance(max_iterations, int | np.integer)
            or max_iterations < 1):
        raise InvalidInputError(f"max_iterations must be an integer >= 1; got {max_iterations!r}")


@dataclass(frozen=True, slots=True)
class ConfigLPBound:
    """The outcome of ``configuration_lp_bound``.

    Attributes
    ----------
    load : float
        Proven: no placement has every host CPU load at most ``load`` (so the
        minimum yield is below ``1 / load``); the ``lower_load`` given when nothing
        better was proven.
    bound : float
        ``min(1, 1 / load)``: an upper bound on the minimum yield.
    proven : bool
        Whether the configuration LP proved ``load`` (rather than it being the
        ``lower_load`` passed in).
    fractional_load : float
        The smallest capacity where the master packed the tasks fractionally into
        ``H`` hosts (``inf`` when none was): the bisection's upper end.
    tests : tuple of CapacityTest
        Every capacity tested, in order.
    seconds : float
        Wall time of the call.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
    >>> out = configuration_lp_bound(inst, incumbent_load=1.2)
    >>> out.proven, round(out.load, 4), [t.status for t in out.tests][:1]
    (True, 1.2, ['proven'])
    """

    load: float
    bound: float
    proven: bool
    fractional_load: float
    tests: tuple[CapacityTest, ...] = field(default_factory=tuple)
    seconds: float = 0.0


def configuration_lp_bound(
    instance: VCInstance,
    *,
    incumbent_load: float | None = None,
    lower_load: float | None = None,
    rel_gap: float = 1e-6,
    time_limit: float | Deadline | None = None,
    max_iterations: int = MAX_ITERATIONS,
    lp: ConfigurationLP | None = None,
) -> ConfigLPBound:
    """The configuration LP's upper bound on the minimum yield, by bisection on the load.

    First the capacity that would certify an incumbent of largest load
    ``incumbent_load`` within ``rel_gap`` is tested; if the configuration LP cannot
    prove it, the largest provable capacity is searched by bisection between
    ``lower_load`` (known: every placement has a load above it) and the smallest
    capacity found fractionally packable. Every proof is a Farley bound with an exact
    (or upper-bounded) pricing knapsack, so stopping at ``time_limit`` keeps what was
    proven.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host; no migration
        limits.
    incumbent_load : float, optional
        The largest host load of a known placement (``L* <= incumbent_load``); default
        the total CPU need (one host holds everything: an upper end for the search).
    lower_load : float, optional
        A known lower bound on ``L*``; default ``max(sum a / H, max a)``.
    rel_gap : float, default 1e-6
        The relative gap at which the incumbent counts as certified (the first
        capacity tested is ``incumbent_load (1 - rel_gap)``).
    time_limit : float or Deadline, optional
        Seconds for the whole search, or a deadline handed down (``allockit.clock``).
    max_iterations : int, default MAX_ITERATIONS
        Column-generation iterations per capacity.
    lp : ConfigurationLP, optional
        A master to continue from (its columns are re-used); a new one by default.

    Returns
    -------
    ConfigLPBound
        The proven load, the yield bound and the tests made.

    Raises
    ------
    InvalidInputError
        For an instance with migration limits; for ``rel_gap`` outside [0, 1),
        ``max_iterations`` below 1, a load that is not a finite number > 0, or a
        ``lower_load`` above ``incumbent_load`` (no placement can have both).

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
    >>> out = configuration_lp_bound(inst, incumbent_load=1.2)
    >>> out.proven, round(out.bound, 4)                   # the optimum is 1 / 1.2
    (True, 0.8333)
    >>> configuration_lp_bound(inst, incumbent_load=1.2, lower_load=1.5)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: lower_load 1.5 is above incumbent_load 1.2: ...
    """
    started = time.perf_counter()
    _check_search(incumbent_load, lower_load, rel_gap, max_iterations)
    deadline = Deadline.of(time_limit).at
    lp = ConfigurationLP(instance) if lp is None else lp
    cpu = instance.cpu[instance.task_job]
    floor = max(float(cpu.sum()) / instance.hosts, float(cpu.max()))
    lo = floor if lower_load is None else max(floor, float(lower_load))
    hi = float(cpu.sum()) if incumbent_load is None else float(incumbent_load)
    if lower_load is not None and float(lower_load) > hi * (1.0 + CONSISTENCY_TOL):
        what = "the total CPU need" if incumbent_load is None else "incumbent_load"
        raise InvalidInputError(
            f"lower_load {lower_load!r} is above {what} {hi!r}: no placement has a largest "
            "load in between"
        )
    tests: list[CapacityTest] = []
    proven = False
    fractional = math.inf
    # the interval [lo, hi] narrows to a relative width ``width``; first a load a
    # quarter of the way up (fractional there: the LP cannot beat the known bound by
    # more; a proof there usually comes fast and its duals reach further up), then
    # the load that would certify the incumbent, then bisection
    width = max(MIN_WIDTH, rel_gap)
    lp.reach_tol = width
    planned = [lo + max(width * lo, FIRST_PROBE * (hi - lo)), hi * (1.0 - rel_gap)]
    incumbent = hi
    # no finer than a tenth of what separates the incumbent from the fractional packings
    while hi - lo > max(width * hi, PRECISION * (incumbent - hi)):
        if deadline is not None and time.perf_counter() >= deadline:
            break
        while planned and not lo < planned[0] < hi:
            planned.pop(0)
        target = planned.pop(0) if planned else 0.5 * (lo + hi)
        result = lp.test(target, deadline=deadline, max_iterations=max_iterations, reach_to=hi)
        tests.append(result)
        if result.status == "proven":
            lo, proven = max(lo, result.reach), True
        elif result.status == "fractional":
            hi = max(lo, result.reach)  # the packing fits at its largest column load
            fractional = min(fractional, hi)
        else:
            hi = target  # undecided: look lower, where a proof is likelier
    bound = 1.0 if lo <= 1.0 else 1.0 / lo
    return ConfigLPBound(
        load=lo,
        bound=bound,
        proven=proven,
        fractional_load=fractional,
        tests=tuple(tests),
        seconds=time.perf_counter() - started,
    )
