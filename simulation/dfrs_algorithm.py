"""The DFRS algorithms of Table 1 as policies of the fractional model (``Policy``).

A DFRS algorithm (Casanova, Stillwell, Vivien 2011) is a ``Policy``
(``allockit.simulation.policy``) of ``model = "fractional"``: the DFRS simulator
(``allockit.simulation.dfrs``) owns the clock, the nodes' shares, the penalties and the
completions, and calls the policy's hooks with its state (``dfrs_state.DfrsState``):

- ``on_submit(state, job, now)``: the submission policy (Greedy, GreedyP, GreedyPM: place
  the job now; MCB8: remap everything);
- ``on_complete(state, job, now)``: with ``*``, Greedy starts waiting jobs or MCB8
  remaps;
- ``on_tick(state, now)``: every ``period`` seconds with ``/per`` (MCB8) or
  ``/stretch-per`` (MCB8-stretch);
- ``schedule(state, now)``: after every event (nothing more for Table 1's algorithms);
- ``yields(state, jobs, counts, now, horizon)``: the CPU yields of the running jobs for
  the current mapping (``opt=min``, ``opt=avg``, or the stretch estimates up to the next
  tick); ``time_dependent`` says whether they change without the mapping changing.

``DfrsAlgorithm(name)`` builds the policy a Table 1 name describes; a fractional policy
of your own subclasses ``FractionalPolicy`` (``opt=min`` yields by default) and acts on
the state with its methods (``start_job``, ``pause_job``, ``apply``; see
``dfrs_state.DfrsState``).

Examples
--------
>>> from allockit.instances.workload import Platform, Workload
>>> from allockit.simulation.dfrs import simulate_dfrs
>>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[100, 100],
...                        tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.4, 0.4])
>>> policy = DfrsAlgorithm("Greedy *")
>>> policy.model, policy.period, policy.name
('fractional', None, 'Greedy */opt=min')
>>> simulate_dfrs(w, policy).end.tolist()
[200.0, 200.0]
"""

from __future__ import annotations

import numpy as np

from allockit.checks import real_number
from allockit.constants import PERIOD_SECONDS
from allockit.simulation.allocation import (
    max_avg_yields_rows,
    max_avg_yields_unchecked,
    max_min_affine,
    max_min_affine_rows,
    min_avg_stretch,
    min_avg_stretch_rows,
)
from allockit.simulation.dfrs_policies import GreedyPolicy, Mcb8Policy, Mcb8StretchPolicy
from allockit.simulation.dfrs_state import DfrsState
from allockit.simulation.names import AlgorithmName, parse_algorithm

__all__ = ["MAXMIN_TOL", "DfrsAlgorithm", "FractionalPolicy", "max_min_yields_of"]


#: Tolerance of the opt=min water-filling (a node's saturation, a yield reaching 1).
MAXMIN_TOL = 1e-12


def max_min_yields_of(counts: np.ndarray, cpu: np.ndarray) -> np.ndarray:
    """The ``opt=min`` yields (max-min water-filling) for a mapping, without re-checks.

    Parameters
    ----------
    counts : numpy.ndarray, shape (jobs, nodes)
        Tasks of each running job on each node.
    cpu : numpy.ndarray, shape (jobs,)
        CPU need of one task of each job.

    Returns
    -------
    numpy.ndarray
        One yield per job, in [0, 1].

    Examples
    --------
    >>> max_min_yields_of(np.array([[1], [1]]), np.array([1.0, 1.0])).tolist()
    [0.5, 0.5]
    """
    from allockit.simulation.allocation_kernels import maxmin_dense_kernel

    # max_min_yields(counts, cpu) without re-checking the simulator's own arrays
    return maxmin_dense_kernel(counts, cpu, MAXMIN_TOL)


def maxmin_rows(
    pool: np.ndarray, nz: np.ndarray, slot: np.ndarray, jobs: np.ndarray, cpu: np.ndarray
) -> np.ndarray:
    """``max_min_yields_of(pool[slot[jobs]], cpu[jobs])`` from a pool of indexed rows.

    The same bits, without the matrix (``allocation_kernels.maxmin_rows_kernel``).

    Examples
    --------
    >>> from allockit.simulation.dfrs_rows import RowPool
    >>> pool = RowPool(jobs=2, nodes=1); pool.store(np.array([0, 1]), np.ones((2, 1)))
    >>> maxmin_rows(*pool.indexed(), np.array([0, 1]), np.array([1.0, 1.0])).tolist()
    [0.5, 0.5]
    """
    from allockit.simulation.allocation_kernels import maxmin_rows_kernel

    return maxmin_rows_kernel(pool, nz, slot, jobs, cpu, MAXMIN_TOL)


def _stretch_estimates(
    state: DfrsState, jobs: np.ndarray, now: float, horizon: float
) -> tuple[np.ndarray, np.ndarray]:
    """``a, b`` of the stretch estimates ``(ft + T) / (vt + y T)`` up to the next tick
    (``1 / (a + b y)``, ``T`` the horizon, ``ft`` the flow time, ``vt`` the virtual time)."""
    ft = now - state.submit_time[jobs]
    return state.vt[jobs] / (ft + horizon), horizon / (ft + horizon)


def _checked_name(name: AlgorithmName) -> AlgorithmName:
    """An ``AlgorithmName`` built by hand, held to the grammar its text would parse by."""
    from dataclasses import replace

    from allockit.errors import InvalidInputError

    for field in ("minft", "minvt"):
        if getattr(name, field) is not None:
            real_number(f"AlgorithmName.{field}", getattr(name, field), at_least=0,
                        finite=False, note="seconds")
    parsed = parse_algorithm(str(name))  # (names the part the grammar refuses)
    if replace(parsed, minft=name.minft, minvt=name.minvt) != name:
        raise InvalidInputError(f"{name!r} is not an algorithm of Table 1 (it reads {str(name)!r})")
    return name


class FractionalPolicy:
    """Base of the fractional model's policies: no-op hooks, ``opt=min`` yields.

    Examples
    --------
    >>> p = FractionalPolicy()
    >>> p.model, p.period, p.time_dependent
    ('fractional', None, False)
    """

    model: str = "fractional"
    period: float | None = None
    #: Whether ``yields`` depends on the time (not only on the mapping).
    time_dependent: bool = False

    def start(self, state: DfrsState) -> None:
        """Called once before a run's first event."""

    def on_submit(self, state: DfrsState, job: int, now: float) -> None:
        """Called when ``job`` is submitted (it waits until a hook places it)."""

    def on_complete(self, state: DfrsState, job: int, now: float) -> None:
        """Called when ``job`` completes (its nodes are already released)."""

    def on_tick(self, state: DfrsState, now: float) -> None:
        """Called every ``period`` seconds while jobs are in the system."""

    def schedule(self, state: DfrsState, now: float) -> None:
        """Called after every event, before the yields are computed."""

    def yields(
        self, state: DfrsState, jobs: np.ndarray, counts: np.ndarray, now: float, horizon: float
    ) -> np.ndarray:
        """The yields of the running ``jobs`` (``opt=min`` by default).

        Parameters
        ----------
        state : DfrsState
            The simulator's state.
        jobs : numpy.ndarray
            The running jobs, by index.
        counts : numpy.ndarray, shape (len(jobs), nodes)
            Their tasks per node.
        now : float
            The simulation time.
        horizon : float
            Seconds to the next tick (the period when none is pending).

        Returns
        -------
        numpy.ndarray
            One yield per job in ``jobs``.
        """
        return max_min_yields_of(counts, state.cpu[jobs])

    def kernels(self) -> tuple[str, ...]:
        """The compiled kernels this policy calls (loaded before the clock starts)."""
        return ("maxmin_dense_kernel",)


class DfrsAlgorithm(FractionalPolicy):
    """A DFRS algorithm of Table 1 (``ON_SUBMIT[ *][/per|/stretch-per][/opt=...]``).

    Parameters
    ----------
    algorithm : str or AlgorithmName
        The name (``parse_algorithm``), e.g. ``"GreedyPM */per/opt=min/minvt=600"``.
    period : float, default ``PERIOD_SECONDS`` (600)
        Seconds between two periodic remaps (``/per``, ``/stretch-per``).
    hold : float, optional
        Not in the paper: MCB8 neither pauses nor moves a job started, resumed or moved
        less than ``hold`` seconds ago.

    Raises
    ------
    InvalidInputError
        For a name that is not one of Table 1's algorithms, or a batch baseline; a
        ``period`` that is not a finite number > 0, or a ``hold`` that is not None or a
        finite number >= 0.

    Examples
    --------
    >>> a = DfrsAlgorithm("GreedyPM */per/minvt=600", period=300)
    >>> a.period, a.time_dependent, a.kernels()[:3]
    (300.0, False, ('greedy_fill_kernel', 'greedy_submit_kernel', 'greedy_mark_kernel'))
    """

    def __init__(
        self,
        algorithm: str | AlgorithmName,
        *,
        period: float = PERIOD_SECONDS,
        hold: float | None = None,
    ) -> None:
        from allockit.errors import InvalidInputError

        name = (
            _checked_name(algorithm) if isinstance(algorithm, AlgorithmName)
            else parse_algorithm(algorithm)
        )
        if name.batch:
            raise InvalidInputError(f"{name.batch} is a batch algorithm: use simulate_batch")
        period = real_number("period", period, above=0, note="seconds")
        hold = real_number("hold", hold, at_least=0, optional=True, note="seconds")
        self.alg = name
        self.name = str(name)
        self.hold = hold
        self.period = period if name.periodic else None
        self._period = period
        self.time_dependent = name.periodic == "mcb8-stretch"
        self.start(None)

    def start(self, state: DfrsState | None) -> None:
        """Fresh sub-policies (their MCB8 call records) for a new run."""
        alg = self.alg
        self.greedy = GreedyPolicy(
            preempt=alg.on_submit in ("GreedyP", "GreedyPM"), migrate=alg.on_submit == "GreedyPM"
        )
        self.mcb8 = Mcb8Policy(minft=alg.minft, minvt=alg.minvt, hold=self.hold)
        if alg.periodic == "mcb8-stretch":
            self.periodic: Mcb8Policy = Mcb8StretchPolicy(
                period=self._period, minft=alg.minft, minvt=alg.minvt, hold=self.hold
            )
        else:
            self.periodic = self.mcb8

    @property
    def mcb8_calls(self) -> list[tuple[int, float]]:
        """One ``(jobs considered, seconds)`` per MCB8 (or MCB8-stretch) call of the run."""
        calls = self.mcb8.calls
        if self.periodic is not self.mcb8:
            calls = calls + self.periodic.calls
        return calls

    def on_submit(self, state: DfrsState, job: int, now: float) -> None:
        """Greedy, GreedyP, GreedyPM: place the job now; MCB8: remap."""
        policy = self.alg.on_submit
        if policy in ("Greedy", "GreedyP", "GreedyPM"):
            self.greedy.on_submit(state, job, now)
        elif policy == "MCB8":
            self.mcb8.remap(state, now)

    def on_complete(self, state: DfrsState, job: int, now: float) -> None:
        """With ``*``: Greedy starts waiting jobs (Greedy family), or MCB8 remaps."""
        policy = self.alg.on_completion_policy
        if policy == "Greedy":
            self.greedy.start_waiting(state, now)
        elif policy == "MCB8":
            self.mcb8.remap(state, now)

    def on_tick(self, state: DfrsState, now: float) -> None:
        """``/per``: MCB8 remap; ``/stretch-per``: MCB8-stretch remap."""
        self.periodic.remap(state, now)

    def yields(
        self, state: DfrsState, jobs: np.ndarray, counts: np.ndarray, now: float, horizon: float
    ) -> np.ndarray:
        """``opt=min`` (max-min), ``opt=avg`` (LP (2)), or the stretch estimates' optimum."""
        cpu = state.cpu[jobs]
        if self.alg.periodic == "mcb8-stretch":
            a, b = _stretch_estimates(state, jobs, now, horizon)
            if self.alg.opt == "avg":
                return min_avg_stretch(counts, cpu, a, b)
            return max_min_affine(counts, cpu, a, b)
        if self.alg.opt == "avg":
            return max_avg_yields_unchecked(counts, cpu)
        return max_min_yields_of(counts, cpu)

    def _rows_yields(
        self, state: DfrsState, jobs: np.ndarray, now: float, horizon: float
    ) -> np.ndarray:
        """``yields`` read from the state's rows of tasks per node, not a matrix of counts.

        Internal: the simulator's path for a built-in algorithm (a subclass that
        overrides ``yields`` or this method gets ``yields`` called, its answers checked).
        The rows and their index of nonzero entries (``DfrsState.rows.indexed``) give the
        matrix's nonzero entries in its order, so the yields are the same bits as
        ``yields``'s (the same LPs, too) without building the matrix. Raises
        ``ValueError`` for a job without a row.

        Examples
        --------
        >>> from allockit.instances.workload import Platform, Workload
        >>> from allockit.simulation.dfrs_state import DfrsState
        >>> w = Workload.from_jobs(Platform(nodes=1), submit=[0, 0], runtime=[10, 10],
        ...                        tasks=[1, 1], cpu=[1.0, 0.5], mem=[0.1, 0.1])
        >>> state = DfrsState(w, penalty=0.0)
        >>> state.rows.store(np.array([0, 1]), np.array([[1.0], [1.0]]))
        >>> alg, jobs = DfrsAlgorithm("Greedy */opt=min"), np.array([0, 1])
        >>> alg._rows_yields(state, jobs, 0.0, 600.0).tolist()
        [0.6666666666666666, 0.6666666666666666]
        """
        rows, cpu = state.rows.indexed(), state.cpu
        if self.alg.periodic == "mcb8-stretch":
            a, b = _stretch_estimates(state, jobs, now, horizon)
            if self.alg.opt == "avg":
                return min_avg_stretch_rows(*rows, jobs, cpu, a, b)
            return max_min_affine_rows(*rows, jobs, cpu, a, b)
        if self.alg.opt == "avg":
            return max_avg_yields_rows(*rows, jobs, cpu)
        return maxmin_rows(*rows, jobs, cpu)

    def kernels(self) -> tuple[str, ...]:
        """The numba kernels this algorithm's policies call."""
        name = self.alg
        kernels = []
        if name.on_submit in ("Greedy", "GreedyP", "GreedyPM"):
            kernels.append("greedy_fill_kernel")
            kernels.append("greedy_submit_kernel")  # GreedyPolicy.on_submit, fused
        if name.on_submit in ("GreedyP", "GreedyPM"):
            kernels.append("greedy_mark_kernel")  # GreedyPolicy._mark
        if name.on_completion_policy == "Greedy":
            kernels.append("greedy_waiting_kernel")  # GreedyPolicy.start_waiting
            kernels.append("start_kernel")  # ... and its DfrsState.start_jobs
        if name.periodic is not None or name.on_submit == "MCB8":
            kernels.append("apply_kernel")  # DfrsState.apply
        if name.opt != "avg" and name.periodic != "mcb8-stretch":
            kernels.append("maxmin_dense_kernel")  # the opt=min yields (yields)
            kernels.append("maxmin_rows_kernel")  # ... as the driver computes them
        if name.opt == "avg" and name.periodic != "mcb8-stretch":
            kernels.append("avg_lp_rows_kernel")  # the driver's opt=avg LP (_rows_yields)
        if name.periodic == "mcb8-stretch":
            kernels.append("indexed_weights_kernel")  # the driver's rows (_rows_yields)
        if "MCB8" in (name.on_submit, name.on_completion_policy) or name.periodic == "mcb8":
            kernels.append("mcb8_largest_yield_kernel")  # Mcb8Policy
            if self.hold is None:
                kernels.append("mcb8_remap_kernel")  # Mcb8Policy.remap, fused
        if name.on_submit == "MCB8" or name.periodic is not None:
            kernels.append("mcb8_memory_prefix_kernel")  # both MCB8 policies' drop loop
        if name.periodic == "mcb8-stretch":
            kernels.append("mcb_fill_kernel")  # Mcb8StretchPolicy
            if self.hold is None:
                kernels.append("mcb8_stretch_remap_kernel")  # its remap, fused
        return tuple(kernels)
