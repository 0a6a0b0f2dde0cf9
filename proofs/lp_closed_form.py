"""The rational relaxation's optimum in closed form, with its certificate (Sec. 3.1)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from allockit.errors import InvalidInputError
from allockit.evaluation.lp_bound import closed_form_allocation, lp_bound
from allockit.instances.vcsched import VCInstance

__all__ = ["ClosedFormCertificate", "closed_form_certificate"]


@dataclass(frozen=True, slots=True)
class ClosedFormCertificate:
    """Primal allocation achieving ``value`` and the matching upper bound.

    ``violations`` lists every LP constraint the explicit allocation breaks (empty when
    the certificate holds). ``upper_bound`` is ``min(1, H / sum_t a_t)``, derived by
    adding the host CPU rows (``sum_tj alpha <= H``) and the yield rows
    (``sum_tj alpha >= Y sum_i t_i a_i``); ``Y <= 1`` follows from ``alpha <= a``.

    Attributes
    ----------
    value : float
        The minimum yield the explicit allocation achieves (``lp_bound``).
    upper_bound : float
        ``min(1, H / sum_t a_t)``: no solution of the relaxation does better.
    violations : tuple of str
        The constraints the allocation breaks, by name (``"host CPU <= 1"``, ...).

    Examples
    --------
    >>> ClosedFormCertificate(value=0.5, upper_bound=0.5, violations=()).holds
    True
    >>> ClosedFormCertificate(value=0.5, upper_bound=0.5, violations=("alpha <= e",)).holds
    False
    """

    value: float
    upper_bound: float
    violations: tuple[str, ...]

    @property
    def holds(self) -> bool:
        """True when the allocation is feasible and meets the upper bound."""
        return not self.violations and abs(self.value - self.upper_bound) <= 1e-12


def _check_no_migration_limits(instance: object) -> None:
    """Refuse anything but a ``VCInstance`` without migration limits."""
    if not isinstance(instance, VCInstance):
        raise InvalidInputError(f"instance must be a VCInstance; got {type(instance).__name__}")
    if instance.is_adaptation:
        raise InvalidInputError(
            f"instance has migration limits (migration_budget={instance.migration_budget}, "
            f"max_migrations={instance.max_migrations}): the closed form min(1, H / sum a) "
            "is the relaxation's optimum only without them; solve the LP "
            "(allockit.vcsched.solve(instance, 'lp')) instead"
        )


def closed_form_certificate(instance: VCInstance) -> ClosedFormCertificate | None:
    """Check the explicit LP solution against every constraint of the relaxation.

    Returns None when total memory exceeds the hosts (the relaxation is infeasible).
    The closed form is the relaxation's optimum only without migration limits (with a
    migration budget or count it is merely an upper bound, e.g. a zero budget keeps
    every task on its previous host), so such instances are refused.

    The explicit solution spreads every task evenly over the hosts (``e = 1/H``,
    ``alpha = Y_LP a / H``); checking it against every row and comparing its value
    with the upper bound proves that ``Y_LP = min(1, H / sum_t a_t)`` is the
    relaxation's optimum.

    Parameters
    ----------
    instance : VCInstance
        Hosts and jobs (CPU need per task in (0, 1], memory per task in [0, 1], as
        fractions of a host), without migration limits (``instance.is_adaptation``
        False).

    Returns
    -------
    ClosedFormCertificate or None
        ``holds`` is True when the allocation is feasible and meets the bound.

    Raises
    ------
    InvalidInputError
        If ``instance`` is not a ``VCInstance``, or has a migration budget or a
        migration count limit (outside the closed form's theorem; solve the LP with
        ``allockit.vcsched.solve(instance, "lp")`` instead).

    Examples
    --------
    >>> cert = closed_form_certificate(
    ...     VCInstance.from_lists(hosts=2, cpu=[0.9, 0.9, 0.9], mem=[0.5, 0.5, 0.5]))
    >>> cert.holds, round(cert.value, 6)
    (True, 0.740741)
    >>> closed_form_certificate(VCInstance.from_lists(
    ...     hosts=2, cpu=[0.9, 0.9], mem=[0.5, 0.5], previous=[0, 0], migration_budget=0.0))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: instance has migration limits (migration_budget=0.0, ...

    References
    ----------
    .. [1] Stillwell, Schanzenbach, Vivien, Casanova (2009), Resource allocation using
       virtual clusters, Sec. 3.1 (the rational relaxation).
    """
    _check_no_migration_limits(instance)
    allocation = closed_form_allocation(instance)
    if allocation is None:
        return None
    e, alpha = allocation
    y = lp_bound(instance)
    job = instance.task_job
    a = instance.cpu[job]
    tol = 1e-12
    bad: list[str] = []
    if (alpha > e + tol).any():
        bad.append("alpha <= e")
    if not np.allclose(e.sum(axis=1), 1.0, atol=tol):
        bad.append("sum_j e = 1")
    if (alpha.sum(axis=0) > 1 + tol).any():
        bad.append("host CPU <= 1")
    if ((instance.mem[job][:, None] * e).sum(axis=0) > 1 + tol).any():
        bad.append("host memory <= 1")
    if (alpha.sum(axis=1) > a + tol).any():
        bad.append("alpha <= need")
    task_cpu = alpha.sum(axis=1)
    if not np.allclose(task_cpu / a, y, atol=tol):
        bad.append("equal yield for every task")
    need = float((instance.tasks * instance.cpu).sum())
    upper = min(1.0, instance.hosts / need)
    return ClosedFormCertificate(value=float(y), upper_bound=upper, violations=tuple(bad))
