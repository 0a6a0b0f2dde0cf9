"""MCB1-MCB8: multi-capacity bin packing with a binary search on the yield (Sec. 3.4)."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from allockit.checks import first_bad_entry, real_array, real_number
from allockit.errors import InvalidInputError
from allockit.heuristics.common import finish, load_kernels
from allockit.instances.vcsched import VCInstance
from allockit.results import VCResult

__all__ = ["MCB_VARIANTS", "largest_target", "mcb", "mcb_fill", "mcb_pack"]

#: MCB1..MCB8 as (key, descending).
MCB_VARIANTS = {
    "mcb1": ("sum", False),
    "mcb2": ("diff", False),
    "mcb3": ("ratio", False),
    "mcb4": ("max", False),
    "mcb5": ("sum", True),
    "mcb6": ("diff", True),
    "mcb7": ("ratio", True),
    "mcb8": ("max", True),
}
_KEYS = ("sum", "diff", "ratio", "max")


def _sort_key(cpu: np.ndarray, mem: np.ndarray, key: str) -> np.ndarray:
    if key not in _KEYS:
        raise InvalidInputError(f"key must be one of {list(_KEYS)}; got {key!r}")
    hi, lo = np.maximum(cpu, mem), np.minimum(cpu, mem)
    if key == "sum":
        return cpu + mem
    if key == "diff":
        return hi - lo
    if key == "ratio":
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.where(lo > 0, hi / np.where(lo > 0, lo, 1.0), np.inf)
    return hi


def mcb_pack(
    instance: VCInstance, target: float, *, key: str = "max", descending: bool = True
) -> np.ndarray | None:
    """Pack all tasks for a fixed yield ``target``; a host per task, or None on failure.

    Each task needs CPU ``target * cpu`` and memory ``mem``. Tasks whose CPU need exceeds
    their memory go to the CPU-heavy list, the others to the memory-heavy list; both are
    sorted by ``key`` (stable, by task index on ties). A fresh host (equal free CPU
    and memory) starts from the CPU-heavy list (a documented choice).

    Parameters
    ----------
    instance : VCInstance
        Hosts and jobs (CPU need per task in (0, 1], memory per task in [0, 1], as
        fractions of a host).
    target : float
        The yield every job must get, in [0, 1]; 0 packs on memory alone.
    key : {"sum", "diff", "ratio", "max"}, default "max"
        Sort key of the two task lists: CPU + memory, their difference, their ratio
        (larger over smaller) or their maximum.
    descending : bool, default True
        Sort order; ``key="max", descending=True`` is MCB8.

    Returns
    -------
    numpy.ndarray or None
        Host index per task (tasks listed job by job), or None if some task fits on
        no host.

    Raises
    ------
    InvalidInputError
        If ``key`` is not one of the four names, or ``target`` is not in [0, 1].

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
    >>> mcb_pack(inst, 0.8).tolist(), mcb_pack(inst, 0.9)
    ([0, 0, 1], None)
    """
    real_number("target", target, at_least=0, at_most=1, finite=False)
    job = instance.task_job
    ones = np.ones(instance.hosts)
    return mcb_fill(
        target * instance.cpu[job], instance.mem[job], ones, ones, key=key, descending=descending
    )


def mcb_fill(
    cpu_req: np.ndarray,
    mem: np.ndarray,
    free_cpu: np.ndarray,
    free_mem: np.ndarray,
    *,
    key: str = "max",
    descending: bool = True,
) -> np.ndarray | None:
    """Pack tasks with CPU ``cpu_req[t]`` and memory ``mem[t]`` onto partly used hosts.

    The packing step of ``mcb_pack`` for hosts that start with ``free_cpu`` /
    ``free_mem`` instead of being empty (the online DFRS schedulers keep some tasks
    where they are and pack the others around them). Returns a host per task, or None.

    Parameters
    ----------
    cpu_req : numpy.ndarray, shape (n_tasks,)
        CPU each task needs at the target yield, in fractions of a host.
    mem : numpy.ndarray, shape (n_tasks,)
        Memory of each task, in fractions of a host.
    free_cpu, free_mem : numpy.ndarray, shape (n_hosts,)
        CPU and memory still free on each host.
    key : {"sum", "diff", "ratio", "max"}, default "max"
        Sort key of the two task lists: CPU + memory, their difference, their ratio
        (larger over smaller) or their maximum.
    descending : bool, default True
        Sort order; ``key="max", descending=True`` is MCB8.

    Returns
    -------
    numpy.ndarray or None
        Host index per task, or None if some task fits nowhere.

    Raises
    ------
    InvalidInputError
        If ``key`` is not one of the four names, a value is not finite (or a need
        negative), or the task or host arrays differ in length.

    Examples
    --------
    >>> mcb_fill(np.array([0.5, 0.5]), np.array([0.2, 0.2]),
    ...          np.array([0.5, 1.0]), np.array([1.0, 1.0])).tolist()
    [0, 1]
    """
    from allockit.heuristics.mcb_kernels import mcb_fill_kernel

    cpu_req, mem = _vector("cpu_req", cpu_req, nonnegative=True), _vector("mem", mem, True)
    free_cpu, free_mem = _vector("free_cpu", free_cpu), _vector("free_mem", free_mem)
    for (a, x), (b, y) in ((("cpu_req", cpu_req), ("mem", mem)),
                           (("free_cpu", free_cpu), ("free_mem", free_mem))):
        if x.size != y.size:
            raise InvalidInputError(
                f"{a} and {b} must have the same length; got {x.size} and {y.size}"
            )
    keys = _sort_key(cpu_req, mem, key)
    cpu_heavy = cpu_req > mem
    order = np.argsort(-keys if descending else keys, kind="stable")
    cpu_list = order[cpu_heavy[order]].astype(np.int64)
    mem_list = order[~cpu_heavy[order]].astype(np.int64)
    placed = mcb_fill_kernel(
        cpu_req,
        mem,
        cpu_list,
        mem_list,
        free_cpu,
        free_mem,
    )
    return None if placed.size and placed[0] < 0 else placed


def _vector(name: str, values: object, nonnegative: bool = False) -> np.ndarray:
    """``values`` as a contiguous 1-D float array of finite numbers (>= 0 if asked)."""
    arr = np.ascontiguousarray(real_array(name, values))
    if nonnegative:
        first_bad_entry(name, arr, arr >= 0, "finite and >= 0")
    else:
        first_bad_entry(name, arr, np.isfinite(arr), "finite")
    return arr


def largest_target(
    pack: Callable[[float], np.ndarray | None],
    hi: float,
    done: Callable[[float, float], bool],
    *,
    zero_first: bool = False,
) -> np.ndarray | None:
    """The packing for the largest target in ``[0, hi]`` that ``pack`` accepts.

    Tries ``hi``; if it fails, bisects ``[0, hi]`` (first ``hi / 2``) until
    ``done(lo, hi)``; if nothing packed, target 0 (memory alone) is the last resort.
    With ``zero_first`` target 0 is tried first and its failure ends the search at
    once (the online schedulers then drop a job: one packing instead of a bisection).

    Parameters
    ----------
    pack : callable
        ``pack(target) -> placement or None``; monotone: if a target packs, smaller
        ones do too.
    hi : float
        Largest target to try (the LP bound for the static MCB, <= 1).
    done : callable
        ``done(lo, hi) -> bool``: stops the bisection (``hi - lo < tol``, ...).
    zero_first : bool, default False
        Try target 0 first and give up at once if it fails.

    Returns
    -------
    numpy.ndarray or None
        The placement of the largest accepted target found (``hi`` itself, the last
        successful midpoint, or 0), or None if even target 0 fails.

    Examples
    --------
    >>> fits = lambda t: np.zeros(1, dtype=int) if t <= 0.3 else None
    >>> largest_target(fits, 1.0, lambda lo, hi: hi - lo < 0.01) is not None
    True
    >>> largest_target(lambda t: None, 1.0, lambda lo, hi: hi - lo < 0.01) is None
    True
    """
    zero = pack(0.0) if zero_first else None
    if zero_first and zero is None:
        return None
    best = pack(hi)
    if best is not None:
        return best
    lo = 0.0
    for _ in range(200):
        if done(lo, hi):
            break
        mid = 0.5 * (lo + hi)
        placed = pack(mid)
        if placed is None:
            hi = mid
        else:
            lo, best = mid, placed
    if best is None:
        best = zero if zero_first else pack(0.0)
    return best


def mcb(
    instance: VCInstance,
    *,
    key: str = "max",
    descending: bool = True,
    tol: float = 1e-3,
    method: str | None = None,
) -> VCResult:
    """Multi-capacity bin packing with a binary search on the minimum yield.

    The yield target is searched in ``[0, min(1, H / sum a)]``: first the upper end
    (when it packs, the LP bound is reached and the placement is optimal), then by
    bisection starting from half of it, until the interval is shorter than ``tol``. The
    best packing found is scored exactly (its minimum yield is at least the target it
    was packed for) and the average-yield phase follows.

    Parameters
    ----------
    instance : VCInstance
        Jobs with CPU need ``cpu[i]`` in (0, 1] and memory ``mem[i]`` in [0, 1].
    key : {"sum", "diff", "ratio", "max"}
        Sort key of the two lists (MCB1-MCB8 are the 4 keys x 2 orders).
    descending : bool
        Sort order; ``key="max", descending=True`` is MCB8.
    tol : float
        Accuracy of the binary search on the yield (the papers used 0.01).
    method : str, optional
        Name recorded in the result (default ``mcbK``).

    Returns
    -------
    VCResult
        Status ``infeasible`` when no yield could be packed, even 0.

    Raises
    ------
    InvalidInputError
        If ``key`` is not one of the four names or ``tol`` is not positive.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.5, 0.5, 0.5])
    >>> r = mcb(inst)
    >>> 0.83 <= r.min_yield <= 1 / 1.2 + 1e-12, r.method
    (True, 'mcb8')

    References
    ----------
    .. [1] Stillwell et al. (2009), Resource allocation using virtual clusters, Sec. 3.4.
    .. [2] Leinberger, Karypis, Kumar (1999), Multi-capacity bin packing algorithms.
    """
    if key not in _KEYS:
        raise InvalidInputError(f"key must be one of {list(_KEYS)}; got {key!r}")
    if not tol > 0:
        raise InvalidInputError(f"tol must be > 0; got {tol!r}")
    name = method or next(n for n, v in MCB_VARIANTS.items() if v == (key, bool(descending)))
    setup = load_kernels("mcb_fill_kernel")
    started = time.perf_counter()
    hi = min(1.0, instance.hosts / float((instance.tasks * instance.cpu).sum()))
    best = largest_target(
        lambda target: mcb_pack(instance, target, key=key, descending=descending),
        hi,
        lambda lo, hi: hi - lo < tol,
    )
    if best is None:
        return finish(
            instance,
            None,
            method=name,
            started=started,
            reason=f"{name}: no yield could be packed (not even 0: memory)",
            setup_seconds=setup,
        )
    return finish(instance, best, method=name, started=started, setup_seconds=setup)
