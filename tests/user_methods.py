"""Algorithms "of a user", importable as ``tests.user_methods:NAME`` (for spec tests)."""

from __future__ import annotations

import numpy as np


def round_robin(instance, **options):
    """Job j on host j mod H (may overfill memory: then the placement is refused)."""
    return [j % instance.hosts for j in range(instance.n_jobs)]


def first_fit(instance, **options):
    """Each job (all its tasks) on the first host whose memory fits; None if none does."""
    free = np.ones(instance.hosts)
    placement = []
    for j in range(instance.n_jobs):
        need = float(instance.mem[j]) * int(instance.tasks[j])
        fits = np.flatnonzero(free >= need - 1e-12)
        if not fits.size:
            return None
        free[fits[0]] -= need
        placement.append(int(fits[0]))
    return placement


def seeded(instance, *, seed=None, **options):
    """A random placement drawn from ``seed`` (checks that the common option arrives)."""
    rng = np.random.default_rng(seed)
    return [int(h) for h in rng.integers(0, instance.hosts, size=instance.n_jobs)]


def even_reserves(instance, **options):
    """Every node at the targets (a reserves method)."""
    return np.tile(instance.targets, (instance.n_nodes, 1))
