"""The configuration LP's bound and its dived placements together: one call for the portfolio.

``columns_certify`` works in rounds: it bisects the configuration LP's bound
(``config_lp``) to a precision set by how far the incumbent is from the smallest load
the LP packs fractionally, then dives on the LP's columns (``config_dive``) for a
placement below the incumbent's load, from that smallest fractional load up, at
widening steps after each failure; a dived placement is the next round's incumbent.
The rounds stop when the incumbent is certified, no dive improves it, or the time is
up. Every bound it reports is a proof; every placement is valid (the caller
re-scores it on the exact data).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from allockit.clock import Deadline
from allockit.instances.vcsched import VCInstance

__all__ = ["ColumnsOutcome", "columns_certify"]

#: Share of the time left that a round's bound may use (the rest is kept for dives).
BOUND_SHARE = 0.6
#: Dives tried at widening loads after the first one fails.
MAX_DIVES = 6
#: Relative width of the first step above the fractional load when a dive fails.
FIRST_STEP = 2e-4


@dataclass(frozen=True, slots=True)
class ColumnsOutcome:
    """What ``columns_certify`` proved and found.

    Attributes
    ----------
    bound : float or None
        A proven upper bound on the minimum yield from the configuration LP (None
        when it proved nothing beyond the ``lower_load`` given).
    task_hosts : numpy.ndarray or None
        The best placement the dives found (None when none beat the incumbent).
    load : float
        The largest host CPU load of ``task_hosts`` (``inf`` without one).
    seconds : float
        Wall time of the call.
    message : str
        A short account (loads tested, dives).

    Examples
    --------
    >>> out = ColumnsOutcome(bound=0.5, task_hosts=None, load=float("inf"), seconds=0.0,
    ...                      message="")
    >>> out.bound, out.task_hosts is None
    (0.5, True)
    """

    bound: float | None
    task_hosts: np.ndarray | None
    load: float
    seconds: float
    message: str


def _check_placements(
    instance: VCInstance, incumbent: np.ndarray | None, placements: Sequence[np.ndarray]
) -> None:
    """Refuse an incumbent or a placement that is not a host per task, naming which and why.

    Memory is not checked: a host over memory is no column (``ConfigurationLP`` drops
    it), and the incumbent's load only sets where the search starts.
    """
    from allockit.evaluation.placement import checked_task_hosts

    named = [("incumbent", incumbent)] + [(f"placements[{i}]", p) for i, p in enumerate(placements)]
    for name, hosts in named:
        if hosts is not None:
            checked_task_hosts(instance, hosts, name=name)


def columns_certify(
    instance: VCInstance,
    incumbent: np.ndarray | None,
    *,
    lower_load: float | None = None,
    placements: Sequence[np.ndarray] = (),
    rel_gap: float = 1e-6,
    time_limit: float | Deadline | None = None,
) -> ColumnsOutcome:
    """Bound the minimum yield by the configuration LP and dive for a better placement.

    Parameters
    ----------
    instance : VCInstance
        Hosts (CPU and memory capacity 1 each) and jobs with CPU need per task in
        (0, 1] and memory per task in [0, 1], as fractions of a host; no migration
        limits.
    incumbent : numpy.ndarray or None
        A placement (host per task): its hosts are the first columns (a host over
        memory is left out), its largest load the upper end of the search; None when
        there is none (the dives may then find one).
    lower_load : float, optional
        A proven lower bound on the smallest achievable largest load.
    placements : sequence of numpy.ndarray, optional
        More placements whose hosts become columns (those within memory).
    rel_gap : float, default 1e-6
        The relative gap that certifies a placement.
    time_limit : float or Deadline, optional
        Seconds for the whole call, or a deadline handed down (``allockit.clock``).

    Raises
    ------
    InvalidInputError
        For an ``incumbent`` or one of ``placements`` that is not a host index per
        task, naming it and why; and as ``configuration_lp_bound`` for its arguments.

    Returns
    -------
    ColumnsOutcome
        The proven bound, the dived placement and an account.

    Examples
    --------
    >>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6] * 3, mem=[0.1] * 3)
    >>> out = columns_certify(inst, np.array([0, 0, 0]))       # one host: load 1.8
    >>> round(out.bound, 4), round(out.load, 6)                # optimal: 1.2
    (0.8333, 1.2)
    """
    from allockit.evaluation.config_dive import dive_placement
    from allockit.evaluation.config_lp import ConfigurationLP, configuration_lp_bound
    from allockit.evaluation.placement import host_loads

    started = time.perf_counter()
    _check_placements(instance, incumbent, placements)
    deadline = Deadline.of(time_limit).at

    def left() -> float:
        return math.inf if deadline is None else deadline - time.perf_counter()

    lp = ConfigurationLP(instance)
    for hosts in (incumbent, *placements):
        if hosts is not None:
            lp.add_placement(hosts)
    if incumbent is None:  # one host holding everything: an upper end for the search
        best_load = float(instance.cpu[instance.task_job].sum()) * (1.0 + 1e-9)
    else:
        best_load = float(host_loads(instance, incumbent)[0].max())
    best_hosts: np.ndarray | None = None
    proven: float | None = None
    cpu = instance.cpu[instance.task_job]
    lo = max(float(cpu.sum()) / instance.hosts, float(cpu.max()))
    lo = lo if lower_load is None else max(lo, float(lower_load))
    tested = dives = 0
    # rounds: the bound to a precision set by the incumbent's distance from the
    # fractional packings, then dives from the smallest fractional load up; a dive's
    # placement is the next round's incumbent
    while left() > 0:
        out = configuration_lp_bound(
            instance,
            incumbent_load=best_load,
            lower_load=lo,
            rel_gap=rel_gap,
            time_limit=BOUND_SHARE * left() if deadline is not None and left() > 0 else None,
            lp=lp,
        )
        tested += len(out.tests)
        lo = out.load
        if out.proven:
            proven = out.load
        if best_load * (1.0 - rel_gap) <= lo or not math.isfinite(out.fractional_load):
            break
        cap, step, improved = out.fractional_load, FIRST_STEP, False
        for _ in range(MAX_DIVES):
            if cap >= best_load * (1.0 - rel_gap) or left() <= 0:
                break
            dives += 1
            hosts = dive_placement(lp, cap, deadline=deadline)
            if hosts is not None:
                load = float(host_loads(instance, hosts)[0].max())
                if load < best_load:
                    best_load, best_hosts, improved = load, hosts, True
                break
            cap = max(cap, lo) * (1.0 + step)
            step *= 2.0
        if not improved:
            break
    notes = [f"configuration LP: load > {lo:.6g} ({tested} loads tested)", f"{dives} dives"]
    if best_hosts is not None:
        notes.append(f"dived load {best_load:.6g}")
    bound = None if proven is None else (1.0 if proven <= 1.0 else 1.0 / proven)
    return ColumnsOutcome(
        bound=bound,
        task_hosts=best_hosts,
        load=best_load if best_hosts is not None else math.inf,
        seconds=time.perf_counter() - started,
        message="; ".join(notes),
    )
