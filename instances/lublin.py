"""The Lublin-Feitelson (2003) rigid-job workload model, and the DFRS synthetic workloads.

Parameters and generation steps follow the reference C program ``m_lublin99.c`` (restated
in the documentation's workload-model page); numpy's gamma sampler replaces the C one, so
the output is statistically, not bit-for-bit, equivalent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from allockit.checks import integer, real_number
from allockit.errors import InvalidInputError
from allockit.instances.workload import Platform, Workload, check_swf_times
from allockit.rng import as_generator

__all__ = [
    "BATCH",
    "INTERACTIVE",
    "TYPELESS",
    "JobTypeParams",
    "LublinModel",
    "daily_cycle_weights",
    "dfrs_synthetic",
    "generate_lublin",
]

BUCKETS = 48
SECONDS_IN_BUCKET = 1800
TOO_MUCH_TIME = 12.0
TOO_MUCH_ARRIVE_TIME = 13.0
CYCLIC_DAY_START = 11


@dataclass(frozen=True, slots=True)
class JobTypeParams:
    """One parameter set of the model (sizes, runtimes, arrivals).

    The names are the reference program's (``m_lublin99.c``), lower-cased; the values
    of the three sets are ``BATCH``, ``INTERACTIVE`` and ``TYPELESS``
    (``LUBLIN_TSAFRIR_MODELS.md`` §1). Gammas have shape ``a`` and *scale* ``b``.

    Attributes
    ----------
    serial_prob, pow2_prob : float
        Probability of a one-node job, and of a power-of-two parallel job.
    ulow, umed, uhi, uprob : float
        ``log2`` of a parallel job's size is ``U(ulow, umed)`` with probability
        ``uprob``, else ``U(umed, uhi)``.
    a1, b1, a2, b2 : float
        The two gammas of ``ln(runtime in s)`` (a hyper-gamma).
    pa, pb : float
        Probability of the first runtime gamma: ``pa * size + pb``, clipped to [0, 1].
    aarr, barr : float
        Gamma of ``ln(inter-arrival time in s)`` at rush hours (shape used:
        ``aarr * arar``).
    anum, bnum : float
        Gamma whose CDF gives the daily cycle of arrivals (``daily_cycle_weights``).
    arar : float
        The "arrive-rush-all ratio" multiplying ``aarr``.

    Examples
    --------
    >>> BATCH.serial_prob, INTERACTIVE.uhi, TYPELESS.aarr * TYPELESS.arar
    (0.2927, 5.5, 10.46048...)
    """

    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float


BATCH = JobTypeParams(
    0.2927,
    0.6686,
    1.2,
    5.0,
    7.0,
    0.875,
    6.57,
    0.823,
    639.1,
    0.0156,
    -0.003,
    0.6986,
    6.0415,
    0.8531,
    6.1271,
    5.2740,
    1.0519,
)
INTERACTIVE = JobTypeParams(
    0.1541,
    0.625,
    1.0,
    3.0,
    5.5,
    0.705,
    3.8351,
    0.6605,
    7.073,
    0.6856,
    -0.0118,
    0.9156,
    6.5510,
    0.6621,
    8.9186,
    3.6680,
    0.9797,
)
TYPELESS = JobTypeParams(
    0.244,
    0.576,
    0.8,
    4.5,
    7.0,
    0.86,
    4.2,
    0.94,
    312.0,
    0.03,
    -0.0054,
    0.78,
    10.2303,
    0.4871,
    8.1737,
    3.9631,
    1.0225,
)


@dataclass(frozen=True, slots=True)
class LublinModel:
    """Model configuration: two job types (batch, interactive) or one typeless set.

    ``nodes`` sets the largest job (``uhi = log2(nodes)``, ``umed = uhi - 2.5`` as the
    reference code advises, applied to every parameter set). ``start_hour`` is the hour
    of day of time 0.

    ``params()`` returns the (interactive, batch) sets in use: with ``two_types`` the
    interactive and batch sets, otherwise the typeless set twice. With
    ``adapt_sizes`` the size range follows ``nodes``: ``uhi = log2(nodes)`` and
    ``umed = max(ulow, uhi - 2.5)`` for the batch and typeless sets (unchanged at 128
    nodes, their reference size), while the interactive set keeps its own smaller
    ``uhi`` (5.5) when that is below ``log2(nodes)``.

    Attributes
    ----------
    nodes : int, default 128
        Nodes of the machine (>= 1); no job is larger.
    two_types : bool, default True
        Interactive and batch jobs with their own parameters, or one typeless set.
    batch, interactive, typeless : JobTypeParams
        The parameter sets (defaults ``BATCH``, ``INTERACTIVE``, ``TYPELESS``).
    start_hour : int, default 0
        Hour of day of time 0, in [0, 24).
    adapt_sizes : bool, default True
        Adapt the size range to ``nodes`` as described above.

    Raises
    ------
    InvalidInputError
        If ``nodes`` is not an integer >= 1 (``2.5`` is refused, not truncated) or
        ``start_hour`` not an integer in [0, 23].

    Examples
    --------
    >>> interactive, batch = LublinModel(nodes=64).params()
    >>> batch.uhi, batch.umed, interactive.uhi, interactive.umed
    (6.0, 3.5, 5.5, 3.0)
    >>> LublinModel().params()[1] is BATCH
    True
    """

    nodes: int = 128
    two_types: bool = True
    batch: JobTypeParams = field(default=BATCH)
    interactive: JobTypeParams = field(default=INTERACTIVE)
    typeless: JobTypeParams = field(default=TYPELESS)
    start_hour: int = 0
    adapt_sizes: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "nodes", integer("nodes", self.nodes, minimum=1))
        hour = integer("start_hour", self.start_hour, minimum=0, maximum=23)
        object.__setattr__(self, "start_hour", hour)

    def params(self) -> tuple[JobTypeParams, JobTypeParams]:
        """(interactive, batch) parameter sets actually used.

        Each set is adapted by its role (interactive, batch or typeless), whatever its
        values; the size range never goes below ``ulow`` (one node: every job has one).

        Returns
        -------
        tuple of JobTypeParams
            The interactive and the batch set (the typeless set twice without
            ``two_types``).

        Examples
        --------
        >>> [p.uhi == p.umed == p.ulow for p in LublinModel(nodes=1).params()]
        [True, True]
        """
        roles = ("interactive", "batch") if self.two_types else ("typeless", "typeless")
        sets = (self.interactive, self.batch) if self.two_types else (self.typeless,) * 2
        if not self.adapt_sizes:
            return sets
        uhi = math.log2(self.nodes)
        adapted = []
        for role, p in zip(roles, sets, strict=True):
            if self.nodes == 128 and role != "interactive":
                adapted.append(p)  # the reference values are for 128 nodes
                continue
            top = max(p.ulow, min(p.uhi, uhi) if role == "interactive" else uhi)
            umed = max(p.ulow, top - 2.5)
            if role == "interactive":
                umed = min(p.umed, umed)
            adapted.append(replace(p, uhi=top, umed=min(umed, top)))
        return adapted[0], adapted[1]


def _gamma_p(a: float, x: float) -> float:
    """Regularised lower incomplete gamma P(a, x) (series / continued fraction)."""
    if x <= 0:
        return 0.0
    gln = math.lgamma(a)
    if x < a + 1:
        ap, total, delta = a, 1.0 / a, 1.0 / a
        for _ in range(1000):
            ap += 1
            delta *= x / ap
            total += delta
            if abs(delta) < abs(total) * 1e-12:
                break
        return total * math.exp(-x + a * math.log(x) - gln)
    b = x + 1 - a
    c = 1e300
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-12:
            break
    return 1.0 - math.exp(-x + a * math.log(x) - gln) * h


def daily_cycle_weights(params: JobTypeParams) -> np.ndarray:
    """Arrival-rate weight of each half-hour bucket of the day (mean 1).

    Bucket ``b`` is the half hour starting ``b * 1800`` s after midnight; its weight is
    the mass of the gamma(``anum``, ``bnum``) distribution on a unit interval around a
    bucket index that starts at 11 and wraps round (``LUBLIN_TSAFRIR_MODELS.md`` §2.1).
    Arrivals are a renewal process in time warped by these weights.

    Parameters
    ----------
    params : JobTypeParams
        Uses ``anum`` and ``bnum``.

    Returns
    -------
    numpy.ndarray, shape (48,)
        Relative arrival rate per bucket, mean 1.

    Examples
    --------
    >>> w = daily_cycle_weights(BATCH)
    >>> int(np.argmax(w)), int(np.argmin(w)), round(float(w.mean()), 6)
    (26, 9, 1.0)

    References
    ----------
    .. [1] U. Lublin, D. G. Feitelson (2003), The workload on parallel supercomputers:
       modeling the characteristics of rigid jobs, JPDC 63(11).
    """
    weights = np.zeros(BUCKETS)
    for i in range(CYCLIC_DAY_START, CYCLIC_DAY_START + BUCKETS):
        b = (i - 1) % BUCKETS
        weights[b] = _gamma_p(params.anum, (i + 0.5) / params.bnum) - _gamma_p(
            params.anum, (i - 0.5) / params.bnum
        )
    return weights / weights.mean()


class _Arrivals:
    """The time-warped renewal process of one job type (calc_next_arrive)."""

    def __init__(self, params: JobTypeParams, start_hour: int, rng: np.random.Generator):
        self.p = params
        self.weights = daily_cycle_weights(params)
        self.rng = rng
        self.bucket = (2 * start_hour) % BUCKETS
        self.clock = 0.0
        self.points = 0.0
        self.remainder = 0.0
        self.aarr = params.aarr * params.arar

    def next(self) -> float:
        g = self.rng.gamma(self.aarr, self.p.barr)
        while g > TOO_MUCH_ARRIVE_TIME:
            g = self.rng.gamma(self.aarr, self.p.barr)
        self.points += math.exp(g) / SECONDS_IN_BUCKET
        dt = 0.0
        b = self.bucket
        while self.points > self.weights[b]:
            self.points -= self.weights[b]
            b = (b + 1) % BUCKETS
            dt += SECONDS_IN_BUCKET
        new_remainder = self.points / self.weights[b]
        dt += SECONDS_IN_BUCKET * (new_remainder - self.remainder)
        self.remainder = new_remainder
        self.clock = float(int(self.clock + dt))
        self.bucket = b
        return self.clock


def _size(p: JobTypeParams, rng: np.random.Generator, nodes: int) -> int:
    u = rng.random()
    if u <= p.serial_prob:
        return 1
    par = rng.uniform(p.ulow, p.umed) if rng.random() <= p.uprob else rng.uniform(p.umed, p.uhi)
    if u <= p.serial_prob + p.pow2_prob:
        par = round(par)
    return int(min(nodes, max(1, math.floor(2.0**par + 0.5))))


def _runtime(p: JobTypeParams, size: int, rng: np.random.Generator) -> int:
    prob = min(1.0, max(0.0, p.pa * size + p.pb))
    while True:
        h = rng.gamma(p.a1, p.b1) if rng.random() <= prob else rng.gamma(p.a2, p.b2)
        if h <= TOO_MUCH_TIME:
            return max(1, int(math.exp(h)))


def generate_lublin(
    n_jobs: int,
    *,
    model: LublinModel | None = None,
    seed: int | np.random.Generator | None = None,
) -> dict[str, np.ndarray]:
    """Draw ``n_jobs`` jobs: submit time, size (nodes), runtime (s) and type.

    Returns a dict of arrays ``submit``, ``size``, ``runtime``, ``type`` (0 interactive,
    1 batch; all 0 in typeless mode), in submission order.

    Sizes follow the two-stage log-uniform model, runtimes the size-correlated
    hyper-gamma (capped at ``exp(12)`` s) and arrivals the daily-cycle renewal
    process of each job type; submit times are whole seconds from the first stream's
    clock at 0 (the first job is not at time 0).

    Parameters
    ----------
    n_jobs : int
        Number of jobs, >= 0.
    model : LublinModel, optional
        Configuration (default ``LublinModel()``: 128 nodes, two job types).
    seed : int, numpy.random.Generator or None
        Randomness of the draw.

    Returns
    -------
    dict of str to numpy.ndarray
        ``submit`` (s, non-decreasing), ``size`` (nodes, int, in [1, nodes]),
        ``runtime`` (whole seconds >= 1) and ``type`` (int).

    Raises
    ------
    InvalidInputError
        If ``n_jobs`` is not an integer >= 0 or ``model`` not a LublinModel.

    Examples
    --------
    >>> jobs = generate_lublin(500, seed=1)
    >>> len(jobs["submit"]), bool((np.diff(jobs["submit"]) >= 0).all())
    (500, True)
    >>> {k: v.tolist() for k, v in generate_lublin(3, seed=1).items()}
    {'submit': [192.0, 665.0, 742.0], 'size': [4, 4, 128], 'runtime': [10.0, 39.0, 19851.0], \
'type': [0, 1, 1]}

    References
    ----------
    .. [1] U. Lublin, D. G. Feitelson (2003), The workload on parallel supercomputers:
       modeling the characteristics of rigid jobs, JPDC 63(11).
    """
    n_jobs = integer("n_jobs", n_jobs, minimum=0)
    model = LublinModel() if model is None else model
    if not isinstance(model, LublinModel):
        raise InvalidInputError(f"model must be a LublinModel; got {type(model).__name__}")
    rng = as_generator(seed)
    interactive, batch = model.params()
    streams = [
        _Arrivals(interactive, model.start_hour, rng),
        _Arrivals(batch, model.start_hour, rng),
    ]
    times = [streams[1].next(), streams[0].next()][::-1]  # batch drawn first, as in the C code
    if not model.two_types:
        times[1] = math.inf
    submit = np.empty(n_jobs)
    size = np.empty(n_jobs, dtype=np.int64)
    runtime = np.empty(n_jobs)
    kind = np.empty(n_jobs, dtype=np.int64)
    for k in range(n_jobs):
        t = 1 if times[1] < times[0] else 0
        submit[k] = times[t]
        times[t] = streams[t].next()
        params = (interactive, batch)[t]
        size[k] = _size(params, rng, model.nodes)
        runtime[k] = _runtime(params, int(size[k]), rng)
        kind[k] = t if model.two_types else 0
    return {"submit": submit, "size": size, "runtime": runtime, "type": kind}


def dfrs_synthetic(
    n_jobs: int = 1000,
    *,
    nodes: int = 128,
    load: float | None = None,
    seed: int | np.random.Generator | None = None,
    model: LublinModel | None = None,
) -> Workload:
    """A synthetic DFRS workload (Casanova et al. 2011, Sec. 5.3.2).

    Lublin-Feitelson jobs on ``nodes`` quad-core nodes: a one-task job is sequential
    (CPU need 25 %), every other job multi-threaded (100 %); memory per task is 10 % for
    55 % of the jobs, else ``10 x`` % with ``x`` uniform in {2, ..., 10}. With ``load``
    the inter-arrival times are scaled to that offered load.

    Each Lublin job of size ``k`` becomes a job of ``k`` tasks (one per node it asked
    for); submit times are shifted so that the first job arrives at 0.

    Parameters
    ----------
    n_jobs : int, default 1000
        Number of jobs, >= 1.
    nodes : int, default 128
        Quad-core nodes of the platform (the DFRS paper used 128).
    load : float, optional
        Target offered load (> 0; ``Workload.offered_load``); None keeps the model's
        arrival times.
    seed : int, numpy.random.Generator or None
        Randomness of the jobs and of the memory draws.
    model : LublinModel, optional
        Job model (default ``LublinModel(nodes=nodes)``).

    Returns
    -------
    Workload
        Submit and run times in seconds, tasks, CPU need (0.25 or 1 of a node) and
        memory (fraction of a node) per task; ``queue`` holds the Lublin job type.

    Raises
    ------
    InvalidInputError
        If ``n_jobs`` or ``nodes`` is not an integer >= 1, ``load`` not a finite number
        > 0, or for a bad model (raised by ``LublinModel``, ``generate_lublin`` or
        ``Workload.with_load``).

    Examples
    --------
    >>> w = dfrs_synthetic(300, nodes=64, load=0.5, seed=2)
    >>> w.n_jobs, round(w.offered_load(), 6), sorted(set(w.cpu.tolist()))
    (300, 0.5, [0.25, 1.0])

    References
    ----------
    .. [1] H. Casanova, M. Stillwell, F. Vivien (2011), Dynamic fractional resource
       scheduling vs. batch scheduling, Sec. 5.3.2.
    """
    n_jobs = integer("n_jobs", n_jobs, minimum=1)
    nodes = integer("nodes", nodes, minimum=1)
    if load is not None:
        real_number("load", load, above=0)
    rng = as_generator(seed)
    model = model or LublinModel(nodes=nodes)
    jobs = generate_lublin(n_jobs, model=model, seed=rng)
    tasks = jobs["size"]
    cpu = np.where(tasks == 1, 0.25, 1.0)
    small = rng.random(n_jobs) < 0.55
    mem = np.where(small, 0.10, 0.10 * rng.integers(2, 11, n_jobs))
    workload = Workload.from_jobs(
        Platform(nodes=nodes, cores=4),
        submit=jobs["submit"] - jobs["submit"][0],
        runtime=jobs["runtime"],
        tasks=tasks,
        cpu=cpu,
        mem=mem,
        queue=jobs["type"],
    )
    workload = workload.with_load(load) if load is not None else workload
    return check_swf_times(workload, load=load)
