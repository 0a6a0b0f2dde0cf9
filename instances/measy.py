"""The workload rules the MEASY paper adds to a workload model (Sec. 3.1 of seed 003).

Three rules, shared by the Feitelson 1996 and Jann 1997 generators:

- per-process CPU usage: 100 % for a one-process job, otherwise a random average in
  [40 %, 100 %] (uniform), stored in ``Workload.cpu``;
- runtime estimates (requested times) from Tsafrir's model;
- the load is changed by multiplying every interarrival time by a factor; asking for a
  load ``L`` takes the factor ``model load / L``, where the model load is the offered
  load the model itself produces on the given processor count.
"""

from __future__ import annotations

import numpy as np

from allockit.checks import is_finite_real, is_real
from allockit.errors import InvalidInputError
from allockit.instances.workload import Workload, integer_array
from allockit.rng import as_generator

__all__ = [
    "CPU_USAGE_RANGE",
    "apply_measy_rules",
    "measy_cpu_usage",
    "measy_load_factor",
]

#: Range of the average CPU usage of a multi-process job's processes (MEASY Sec. 3.1).
CPU_USAGE_RANGE = (0.4, 1.0)


def measy_cpu_usage(tasks, *, seed: int | np.random.Generator | None = None) -> np.ndarray:
    """Per-process CPU usage of each job: 1.0 for one process, else uniform in [0.4, 1.0].

    Parameters
    ----------
    tasks : array-like of int
        Number of processes of each job (>= 1).
    seed : int, numpy.random.Generator or None
        Randomness.

    Returns
    -------
    numpy.ndarray
        Float array, one value per job, in [0.4, 1.0].

    Raises
    ------
    InvalidInputError
        If ``tasks`` is not one-dimensional or a task count is not an integer >= 1
        (``2.5`` and NaN are refused).

    Examples
    --------
    >>> cpu = measy_cpu_usage([1, 4, 1, 16], seed=0)
    >>> float(cpu[0]), float(cpu[2]), bool(((cpu >= 0.4) & (cpu <= 1.0)).all())
    (1.0, 1.0, True)
    """
    rng = as_generator(seed)
    tasks = integer_array("tasks", tasks)
    bad = np.flatnonzero(tasks < 1)
    if bad.size:
        raise InvalidInputError(
            f"tasks must be >= 1; got {tasks[bad[0]].item()!r} at index {int(bad[0])}"
        )
    low, high = CPU_USAGE_RANGE
    draw = rng.uniform(low, high, tasks.size)
    return np.where(tasks == 1, 1.0, draw)


def measy_load_factor(model_load: float, load: float) -> float:
    """The factor on interarrival times that turns ``model_load`` into ``load``.

    Parameters
    ----------
    model_load : float
        Offered load of the unscaled model, > 0.
    load : float
        Wanted offered load, > 0.

    Returns
    -------
    float
        ``model_load / load`` (a factor 0.5 doubles the load).

    Raises
    ------
    InvalidInputError
        If either load is not finite and > 0.

    Examples
    --------
    >>> measy_load_factor(0.45, 0.9)
    0.5
    """
    for name, value in (("model_load", model_load), ("load", load)):
        if not is_real(value):
            raise InvalidInputError(f"{name} must be a number > 0; got {value!r}")
        if not (is_finite_real(value) and value > 0):
            raise InvalidInputError(f"{name} must be finite and > 0; got {value!r}")
    return float(model_load) / float(load)


def apply_measy_rules(
    workload: Workload,
    *,
    cpu_usage: bool = False,
    estimates: bool = False,
    load: float | None = None,
    model_load: float | None = None,
    seed: int | np.random.Generator | None = None,
) -> Workload:
    """A copy of ``workload`` with the MEASY rules that are switched on.

    Parameters
    ----------
    workload : Workload
        One process per processor (``tasks[k]`` processes).
    cpu_usage : bool
        Set ``cpu`` by :func:`measy_cpu_usage`.
    estimates : bool
        Set ``requested_time`` from Tsafrir's model (never below the runtime).
    load : float, optional
        Scale interarrival times to this offered load (applied before ``cpu_usage``:
        the load counts each process as using its whole processor, as the MEASY paper
        does; ``Workload.offered_load()`` of the result weighs work by ``cpu``).
    model_load : float, optional
        The load the factor is computed from (the model's own offered load); default
        the workload's measured ``offered_load()``.
    seed : int, numpy.random.Generator or None
        Randomness; the CPU usages and the estimates use separate streams, so switching
        one rule on does not change what the other draws.

    Returns
    -------
    Workload

    Raises
    ------
    InvalidInputError
        If a load is not > 0, or ``load`` is asked of a workload with feedback (chained
        jobs): such a workload must be scaled by its generator, which re-derives the
        chained submissions.

    Examples
    --------
    >>> from allockit.instances.workload import Platform
    >>> w = Workload.from_jobs(Platform(nodes=8), submit=[0, 100], runtime=[50, 80],
    ...                        tasks=[1, 4], cpu=[1.0, 1.0], mem=[0.1, 0.1])
    >>> round(apply_measy_rules(w, load=0.5).offered_load(), 9)
    0.5
    >>> v = apply_measy_rules(w, cpu_usage=True, estimates=True, seed=1)
    >>> float(v.cpu[0]), bool(0.4 <= v.cpu[1] <= 1.0), bool((v.requested_time >= v.runtime).all())
    (1.0, True, True)
    """
    if not isinstance(workload, Workload):
        raise InvalidInputError(f"workload must be a Workload; got {type(workload).__name__}")
    rng = as_generator(seed)
    cpu_rng, estimate_rng = rng.spawn(2)
    if load is not None:
        if workload.has_feedback:
            raise InvalidInputError(
                "load cannot rescale a workload with feedback (preceding jobs): ask the "
                "generator for the load instead"
            )
        base = workload.offered_load() if model_load is None else model_load
        workload = workload.scale_arrivals(measy_load_factor(base, load))
    changes = {}
    if cpu_usage:
        changes["cpu"] = measy_cpu_usage(workload.tasks, seed=cpu_rng)
    if estimates and workload.n_jobs:
        from allockit.instances.tsafrir import tsafrir_estimates

        changes["requested_time"] = tsafrir_estimates(workload.runtime, seed=estimate_rng)
    return workload.replace(**changes) if changes else workload
