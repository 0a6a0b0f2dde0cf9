"""The VCSched instance generator of Stillwell et al. (2009), Sec. 4.1, and its two sets."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from allockit.checks import integer, real_number
from allockit.constants import MAX_HOSTS, MAX_TASKS
from allockit.errors import InvalidInputError
from allockit.instances.lublin_sizes import sample_sizes
from allockit.instances.vcsched import VCInstance
from allockit.rng import as_generator

__all__ = ["SETS", "SetSpec", "generate_vcsched", "iter_vcsched_set"]

SLACKS = tuple(round(0.1 * k, 1) for k in range(1, 10))
COVS = (0.25, 0.75)


@dataclass(frozen=True, slots=True)
class SetSpec:
    """One of the paper's instance sets: hosts, job counts and instances per spec.

    A set crosses every job count with the 9 memory slacks (0.1 ... 0.9) and the two
    coefficients of variation (0.25, 0.75) of CPU and of memory, with ``per_spec``
    random instances per combination.

    Attributes
    ----------
    hosts : int
        Hosts of every instance.
    jobs : tuple of int
        Job counts.
    per_spec : int
        Instances per (jobs, slack, cov_cpu, cov_mem) combination.

    Raises
    ------
    InvalidInputError
        If ``hosts`` (at most ``MAX_HOSTS``), a job count (at most ``MAX_TASKS``) or
        ``per_spec`` is not an integer >= 1, or ``jobs`` is empty.

    Examples
    --------
    >>> SETS["small"].size, SETS["large"].size
    (1440, 10800)
    >>> SetSpec(hosts=2, jobs=(3,), per_spec=1).size
    36
    """

    hosts: int
    jobs: tuple[int, ...]
    per_spec: int

    def __post_init__(self) -> None:
        hosts = integer("SetSpec.hosts", self.hosts, minimum=1, maximum=MAX_HOSTS)
        if isinstance(self.jobs, str | bytes) or not isinstance(self.jobs, Iterable):
            raise InvalidInputError(
                f"SetSpec.jobs must be a tuple of job counts; got {self.jobs!r}"
            )
        jobs = tuple(
            integer(f"SetSpec.jobs[{k}]", count, minimum=1, maximum=MAX_TASKS)
            for k, count in enumerate(self.jobs)
        )
        if not jobs:
            raise InvalidInputError("SetSpec.jobs must hold at least one job count; got ()")
        object.__setattr__(self, "hosts", hosts)
        object.__setattr__(self, "jobs", jobs)
        per_spec = integer("SetSpec.per_spec", self.per_spec, minimum=1)
        object.__setattr__(self, "per_spec", per_spec)

    @property
    def size(self) -> int:
        """Number of instances in the set."""
        return len(self.jobs) * len(SLACKS) * len(COVS) ** 2 * self.per_spec


#: The paper's sets: small (1,440 instances) and large (10,800).
SETS = {
    "small": SetSpec(hosts=4, jobs=(6, 8, 10, 12), per_spec=10),
    "large": SetSpec(hosts=64, jobs=(100, 250, 500), per_spec=100),
}


def _truncated_normal(
    rng: np.random.Generator, mean: float, cov: float, n: int, *, allow_zero: bool
) -> np.ndarray:
    """Normal(mean, cov*mean) truncated to (0, 1] (or [0, 1]) by resampling."""
    scale = abs(cov * mean)  # -0.0 is a valid cov of 0 (numpy refuses a scale of -0.0)
    out = rng.normal(mean, scale, n)
    for _ in range(10_000):
        bad = (out > 1.0) | ((out < 0.0) if allow_zero else (out <= 0.0))
        if not bad.any():
            return out
        out[bad] = rng.normal(mean, scale, int(bad.sum()))
    raise InvalidInputError(f"cannot sample values in (0, 1] with mean {mean} and cov {cov}")


def generate_vcsched(
    *,
    hosts: int,
    jobs: int,
    slack: float,
    cov_cpu: float,
    cov_mem: float,
    parallel: bool = False,
    max_tasks: int = 64,
    seed: int | np.random.Generator | None = None,
) -> VCInstance:
    """Generate one VCSched instance as in the paper's Sec. 4.1.

    CPU needs are Normal(0.5, 0.5 * cov_cpu) and memory Normal(mu, mu * cov_mem) with
    ``mu = (1 - slack) * hosts / tasks``, both truncated to (0, 1] by resampling
    (user guide (VCSched), choice). With ``parallel``, task counts come from the
    Lublin-Feitelson size model (1..``max_tasks``) and ``tasks`` in ``mu`` is the total
    task count, so the slack keeps its meaning (a documented choice).

    Parameters
    ----------
    hosts : int
        Identical hosts (>= 1), each of CPU and memory capacity 1.
    jobs : int
        Number of jobs (>= 1), named ``j0``, ``j1``, ...
    slack : float
        Memory slack in [0, 1): ``1 - (expected total memory) / hosts``; small slack
        means memory is tight.
    cov_cpu, cov_mem : float
        Coefficients of variation (>= 0) of the CPU needs and of the memory.
    parallel : bool, default False
        Draw a task count per job from the Lublin-Feitelson size model; otherwise
        every job has one task.
    max_tasks : int, default 64
        Largest task count of a parallel job.
    seed : int, numpy.random.Generator or None
        Randomness of the draw.

    Returns
    -------
    VCInstance
        CPU need and memory per task in (0, 1], as fractions of a host.

    Raises
    ------
    InvalidInputError
        For hosts, jobs or max_tasks not an integer >= 1, slack not in [0, 1), a cov not
        a finite number >= 0 (or if 10,000 rounds of resampling leave values outside
        (0, 1]).

    Examples
    --------
    >>> a = generate_vcsched(hosts=4, jobs=8, slack=0.5, cov_cpu=0.25, cov_mem=0.25, seed=7)
    >>> b = generate_vcsched(hosts=4, jobs=8, slack=0.5, cov_cpu=0.25, cov_mem=0.25, seed=7)
    >>> a == b, a.n_jobs, bool((a.cpu > 0).all() and (a.cpu <= 1).all())
    (True, 8, True)

    References
    ----------
    .. [1] Stillwell, Schanzenbach, Vivien, Casanova (2009), Resource allocation using
       virtual clusters, Sec. 4.1.
    """
    hosts = integer("hosts", hosts, minimum=1)
    jobs = integer("jobs", jobs, minimum=1)
    max_tasks = integer("max_tasks", max_tasks, minimum=1)
    real_number("slack", slack, at_least=0, below=1)
    for name, cov in (("cov_cpu", cov_cpu), ("cov_mem", cov_mem)):
        real_number(name, cov, at_least=0)
    if hosts > MAX_HOSTS or jobs > MAX_TASKS:
        raise InvalidInputError(
            f"at most {MAX_HOSTS} hosts and {MAX_TASKS} jobs can be allocated; "
            f"got {hosts} hosts and {jobs} jobs"
        )
    rng = as_generator(seed)
    tasks = sample_sizes(jobs, max_size=max_tasks, seed=rng) if parallel else np.ones(jobs, int)
    cpu = _truncated_normal(rng, 0.5, cov_cpu, jobs, allow_zero=False)
    mean_mem = (1.0 - slack) * hosts / float(tasks.sum())
    mem = _truncated_normal(rng, min(mean_mem, 1.0), cov_mem, jobs, allow_zero=False)
    return VCInstance.from_lists(hosts=hosts, cpu=cpu, mem=mem, tasks=tasks.tolist())


def iter_vcsched_set(
    name: str, *, seed: int = 0, parallel: bool = False
) -> Iterator[tuple[str, VCInstance]]:
    """Yield ``(file stem, instance)`` for every instance of the ``small`` or ``large`` set.

    Each instance has its own seed derived from ``seed`` and its position, so any single
    instance can be regenerated alone. Stems read ``h4-j6-s0.1-cc0.25-cm0.25-r0``.

    Parameters
    ----------
    name : {"small", "large"}
        The set (see ``SETS``): 1,440 instances on 4 hosts or 10,800 on 64 hosts.
    seed : int, default 0
        Base seed; instance ``k`` uses ``numpy.random.default_rng([seed, k])``.
    parallel : bool, default False
        Parallel jobs (Lublin-Feitelson task counts), see ``generate_vcsched``.

    Returns
    -------
    Iterator[tuple[str, VCInstance]]
        Stems (hosts, jobs, slack, the two covs, replicate) and instances, lazily.

    Raises
    ------
    InvalidInputError
        For an unknown set name (on the first ``next``, as this is a generator).

    Examples
    --------
    >>> items = list(iter_vcsched_set("small", seed=1))
    >>> len(items), items[0][0]
    (1440, 'h4-j6-s0.1-cc0.25-cm0.25-r0')
    """
    if name not in SETS:
        raise InvalidInputError(f"set must be one of {sorted(SETS)}; got {name!r}")
    spec = SETS[name]
    combos = itertools.product(spec.jobs, SLACKS, COVS, COVS, range(spec.per_spec))
    for index, (jobs, slack, cc, cm, rep) in enumerate(combos):
        rng = np.random.default_rng([seed, index])
        stem = f"h{spec.hosts}-j{jobs}-s{slack}-cc{cc}-cm{cm}-r{rep}"
        yield (
            stem,
            generate_vcsched(
                hosts=spec.hosts,
                jobs=jobs,
                slack=slack,
                cov_cpu=cc,
                cov_mem=cm,
                parallel=parallel,
                seed=rng,
            ),
        )
