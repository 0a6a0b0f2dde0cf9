"""Shared test set-up: hypothesis profiles and a guard against global RNG leaks."""

import os
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "dev", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
# CI and the default run are derandomised (reproducible); HYPOTHESIS_PROFILE=dev explores.
settings.load_profile(os.getenv("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _no_global_rng_leak(request):
    """Fail a test that seeds or draws from numpy's or Python's global generator.

    Tests of third-party machinery that draws from it (a Dask cluster picks ports and
    names with ``random``) opt out with ``@pytest.mark.third_party_rng``.
    """
    np_state = np.random.get_state()[1].copy()
    py_state = random.getstate()
    yield
    if request.node.get_closest_marker("third_party_rng"):
        return
    assert np.array_equal(np.random.get_state()[1], np_state), "test touched numpy's global RNG"
    assert random.getstate() == py_state, "test touched Python's global RNG"
