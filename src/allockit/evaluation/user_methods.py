"""What a user's VCSched heuristic returns, checked and scored like a built-in's.

A user method ``f(instance, **options)`` returns one of:

- a **placement**: for each job a host index (all its tasks there) or a list of host
  indices, one per task (a numpy array of one host per job works too);
- ``None``: it found no placement (status ``no_solution``: nothing is proved);
- a ``VCResult``: its status, bound, timings and notes are kept after they are
  checked (a bound is a number not below what its own placement achieves; its jobs and
  task counts are the instance's; a placement comes with status ``optimal``,
  ``feasible`` or ``time_limit`` only, and ``optimal`` stands only within the relative
  gap of the best bound, else it is reported ``feasible``; a bound of the method's own is
  taken as its proof, named by ``bound_source``, and ``compare`` refutes it when another
  method's placement does better); every yield, the
  CPU split, the gap and the migrations are recomputed from its placement, never taken
  from the result.

A placement is scored exactly as allockit scores its own heuristics
(``result_from_placement``: the memory check, the CPU split that maximises the minimum
yield, the average-yield phase, the LP bound) and reported ``optimal`` when it reaches
the bound, else ``feasible``. An invalid placement is an ``InvalidInputError`` naming
the job and host.

Examples
--------
>>> import numpy as np
>>> from allockit.instances.vcsched import VCInstance
>>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
>>> r = score_method_output(inst, [0, 0, 1], method="mine:rr", seconds=0.0)
>>> str(r.status), round(r.min_yield, 4), r.method
('feasible', 0.8333, 'mine:rr')
>>> str(score_method_output(inst, None, method="mine:rr", seconds=0.0).status)
'no_solution'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from allockit.checks import is_finite_real, real_number
from allockit.constants import DEFAULT_REL_GAP
from allockit.errors import InvalidInputError
from allockit.evaluation.placement import (
    empty_result,
    host_loads,
    min_yield_of,
    placement_violation,
    result_from_placement,
)
from allockit.instances.vcsched import VCInstance
from allockit.results import Status, VCResult

__all__ = ["placement_to_task_hosts", "score_method_output"]

#: How far a user's VCResult may claim a better minimum yield than its placement gives.
CLAIM_TOL = 1e-9

#: The statuses a user's VCResult may have with a placement, and without one.
_WITH_PLACEMENT = (Status.OPTIMAL, Status.FEASIBLE, Status.TIME_LIMIT)
_WITHOUT_PLACEMENT = (Status.INFEASIBLE, Status.NO_SOLUTION, Status.ERROR, Status.TIME_LIMIT)


def _host(method: str, instance: VCInstance, job: int, value: Any) -> int:
    name = instance.job_names[job]
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InvalidInputError(
            f"{method}: job {job} ({name!r}) must get a host index (an integer); "
            f"got {value!r}"
        )
    if not 0 <= value < instance.hosts:
        raise InvalidInputError(
            f"{method}: job {job} ({name!r}) placed on host {int(value)}, out of range "
            f"[0, {instance.hosts - 1}]"
        )
    return int(value)


def placement_to_task_hosts(instance: VCInstance, placement: Any, *, method: str) -> np.ndarray:
    """One host per task from a per-job placement, checked job by job.

    Parameters
    ----------
    instance : VCInstance
        The instance the placement is for.
    placement : sequence
        For each job a host index, or a list of host indices with one per task of the
        job (``instance.tasks[j]`` entries).
    method : str
        The method's name, quoted in messages.

    Returns
    -------
    numpy.ndarray of int64, shape (n_tasks,)
        The host of every task, tasks listed job by job.

    Raises
    ------
    InvalidInputError
        If the placement is not one entry per job, a host is not an integer in
        ``[0, hosts)``, a job's list does not have one host per task, a host's memory
        exceeds 1 (naming the host and its jobs), or migration limits are broken.

    Examples
    --------
    >>> from allockit.instances.vcsched import VCInstance
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0, 0], tasks=[2, 1])
    >>> placement_to_task_hosts(inst, [[0, 1], 1], method="m").tolist()
    [0, 1, 1]
    >>> placement_to_task_hosts(inst, [0, 2], method="m")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: m: job 1 ('j1') placed on host 2, out of range [0, 1]
    """
    if isinstance(placement, np.ndarray):
        if placement.ndim != 1:
            raise InvalidInputError(
                f"{method}: a placement array must have one host per job; got shape "
                f"{placement.shape}"
            )
        placement = placement.tolist()
    if isinstance(placement, str | bytes) or not isinstance(placement, Sequence):
        raise InvalidInputError(
            f"{method}: must return a placement (a host per job), None or a VCResult; "
            f"got a {type(placement).__name__}"
        )
    if len(placement) != instance.n_jobs:
        raise InvalidInputError(
            f"{method}: the placement must give one entry per job ({instance.n_jobs}); "
            f"got {len(placement)}"
        )
    flat = _one_host_per_job(instance, placement, method)
    if flat is not None:  # the common case, checked and expanded in numpy
        return _checked_hosts(instance, np.repeat(flat, instance.tasks), method)
    hosts: list[int] = []
    for job, entry in enumerate(placement):
        need = int(instance.tasks[job])
        if isinstance(entry, Sequence | np.ndarray) and not isinstance(entry, str | bytes):
            entry = list(entry)
            if len(entry) != need:
                raise InvalidInputError(
                    f"{method}: job {job} ({instance.job_names[job]!r}) has {need} "
                    f"task(s) but got {len(entry)} host(s)"
                )
            hosts.extend(_host(method, instance, job, h) for h in entry)
        else:
            hosts.extend([_host(method, instance, job, entry)] * need)
    return _checked_hosts(instance, np.asarray(hosts, dtype=np.int64), method)


def _one_host_per_job(instance: VCInstance, placement: list[Any], method: str) -> Any:
    """The placement as an int64 array when every entry is a plain integer, else None.

    Entries of other types (lists of hosts per task, bools, floats) go through the
    job-by-job checks, which name the job.
    """
    kinds = set(map(type, placement))
    if not kinds or not all(k is int or issubclass(k, np.integer) for k in kinds):
        return None
    try:
        flat = np.asarray(placement, dtype=np.int64)
    except OverflowError:  # beyond 64 bits: the job-by-job checks say which is out of range
        return None
    bad = np.flatnonzero((flat < 0) | (flat >= instance.hosts))
    if bad.size:
        _host(method, instance, int(bad[0]), placement[int(bad[0])])  # raises, naming it
    return flat


def _checked_hosts(instance: VCInstance, task_hosts: np.ndarray, method: str) -> np.ndarray:
    """Memory within every host and the migration limits kept, else an error naming them."""
    _, mem = host_loads(instance, task_hosts)
    over = np.flatnonzero(mem > 1.0 + 1e-9)
    if over.size:
        host = int(over[0])
        jobs = sorted({instance.job_names[j] for j in instance.task_job[task_hosts == host]})
        raise InvalidInputError(
            f"{method}: memory of host {host} is {mem[host]:.6g} > 1 "
            f"(jobs {', '.join(repr(j) for j in jobs)})"
        )
    if instance.migration_budget is not None or instance.max_migrations is not None:
        violation = placement_violation(instance, task_hosts)  # (the migration limits)
        if violation is not None:
            raise InvalidInputError(f"{method}: invalid placement: {violation}")
    return task_hosts


def _checked_result(
    instance: VCInstance, result: VCResult, method: str, rel_gap: float
) -> VCResult:
    """A user's own VCResult: checked claims, and every number rescored from its placement."""
    if tuple(result.job_names) != tuple(instance.job_names):
        raise InvalidInputError(
            f"{method}: the VCResult's job_names must be the instance's ({instance.n_jobs} "
            f"jobs, {list(instance.job_names)[:3]}...); got {list(result.job_names)[:3]}..."
        )
    tasks = None if result.tasks is None else np.asarray(result.tasks)
    if tasks is not None and (
        tasks.shape != instance.tasks.shape or not (tasks == instance.tasks).all()
    ):
        raise InvalidInputError(
            f"{method}: the VCResult's tasks must be the instance's task counts; got "
            f"{tasks.tolist()[:5]}"
        )
    bound = None if result.bound is None else real_number(
        f"{method}: the VCResult's bound", result.bound, at_least=0, finite=False
    )
    if result.task_hosts is None:
        if result.status not in _WITHOUT_PLACEMENT:
            raise InvalidInputError(
                f"{method}: a VCResult with status {result.status} must have a placement"
            )
        claimed = [f for f in ("min_yield", "avg_yield", "task_cpu", "job_yield", "fraction")
                   if getattr(result, f) is not None]
        if claimed:
            raise InvalidInputError(
                f"{method}: a VCResult without a placement cannot report {', '.join(claimed)}"
            )
        return replace(result, method=method, gap=None)
    if result.status not in _WITH_PLACEMENT:
        raise InvalidInputError(
            f"{method}: a VCResult with status {result.status} cannot carry a placement "
            "(a valid placement contradicts it; statuses with a placement: "
            f"{', '.join(map(str, _WITH_PLACEMENT))})"
        )
    if result.task_hosts.shape != instance.task_job.shape:
        raise InvalidInputError(
            f"{method}: the VCResult's task_hosts must hold one host per task "
            f"({instance.task_job.size} tasks); got shape {result.task_hosts.shape}"
        )
    task_hosts = placement_to_task_hosts(
        instance,
        [result.task_hosts[instance.task_job == j].tolist() for j in range(instance.n_jobs)],
        method=method,
    )
    achieved = min_yield_of(instance, task_hosts)
    if result.min_yield is not None and not (
        is_finite_real(result.min_yield) and result.min_yield <= achieved + CLAIM_TOL
    ):
        claim = result.min_yield
        shown = f"{claim:.6g}" if is_finite_real(claim) else repr(claim)
        raise InvalidInputError(
            f"{method}: the VCResult claims min_yield {shown} but its placement gives "
            f"{achieved:.6g}"
        )
    if bound is not None and bound < achieved - CLAIM_TOL:
        raise InvalidInputError(
            f"{method}: the VCResult's bound {bound:.6g} is below the min yield its own "
            f"placement gives ({achieved:.6g}): no upper bound"
        )
    rescored = result_from_placement(
        instance,
        task_hosts,
        method=method,
        status=result.status,
        bound=bound,
        solver=result.solver or "user",
        build_seconds=result.build_seconds,
        solve_seconds=result.solve_seconds,
        message=result.message,
        setup_seconds=result.setup_seconds,
        incumbent_source=result.incumbent_source or None,
        bound_source=result.bound_source or method,  # (a user's bound is its own claim)
    )
    rescored = replace(rescored, proof=result.proof)
    if rescored.status is Status.OPTIMAL and not (
        rescored.gap is not None and rescored.gap <= rel_gap
    ):
        gap = "no bound" if rescored.gap is None else f"a gap of {rescored.gap:.3g}"
        rescored = replace(
            rescored,
            status=Status.FEASIBLE,
            message=_joined(
                rescored.message,
                f"{method} claimed optimal, but its placement is at {gap} from the best "
                f"proven bound (rel_gap {rel_gap:g}): reported feasible",
            ),
        )
    return rescored


def _joined(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def score_method_output(
    instance: VCInstance,
    output: Any,
    *,
    method: str,
    seconds: float,
    rel_gap: float = DEFAULT_REL_GAP,
) -> VCResult:
    """A ``VCResult`` from whatever a user's VCSched method returned.

    Parameters
    ----------
    instance : VCInstance
        The instance the method solved.
    output : placement, None or VCResult
        What the method returned (see the module docstring).
    method : str
        The name the result records (the spec as the user gave it).
    seconds : float
        Wall time of the call, recorded as ``solve_seconds``.
    rel_gap : float, default DEFAULT_REL_GAP
        The relative gap within which a user's VCResult may say ``optimal``: one whose
        placement is farther from the best proven bound (its own, the LP bound) is
        reported ``feasible``, with a note in its message.

    Returns
    -------
    VCResult
        ``optimal`` (the placement meets a proven bound), ``feasible``, or
        ``no_solution`` for None; a user's VCResult keeps its status, bound, timings and
        notes (``method`` set to ``method``; ``optimal`` only within ``rel_gap`` of
        the best proven bound), and its yields, CPU split, gap and migrations are
        recomputed from its placement.

    Raises
    ------
    InvalidInputError
        For an invalid placement (see ``placement_to_task_hosts``), a VCResult whose
        placement is invalid, whose ``min_yield`` is NaN or better than its placement
        gives, whose bound is below it or not a number, whose jobs or task counts are not
        the instance's, that reports yields without a placement, that has a placement
        with a status that contradicts it (``infeasible``, ``no_solution``, ``error``)
        or a ``task_hosts`` without one host per task; or an output of another type.

    Examples
    --------
    >>> from allockit.instances.vcsched import VCInstance
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0.2, 0.2])
    >>> r = score_method_output(inst, [0, 1], method="mine", seconds=0.01)
    >>> str(r.status), r.min_yield, r.bound, r.solver
    ('optimal', 1.0, 1.0, 'user')
    """
    if isinstance(output, VCResult):
        return _checked_result(instance, output, method, rel_gap)
    if output is None:
        return empty_result(
            instance,
            method=method,
            status=Status.NO_SOLUTION,
            solver="user",
            solve_seconds=seconds,
            message=f"{method} found no placement (returned None); nothing is proved",
        )
    task_hosts = placement_to_task_hosts(instance, output, method=method)
    result = result_from_placement(
        instance,
        task_hosts,
        method=method,
        status=Status.FEASIBLE,
        solver="user",
        solve_seconds=seconds,
    )
    if result.bound is not None and result.min_yield >= result.bound - 1e-12:
        return replace(result, status=Status.OPTIMAL)
    return result
