"""Shared test set-up: hypothesis profiles and a guard against global RNG leaks."""

import os
import random
from pathlib import Path

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


@pytest.fixture(autouse=True)
def _fresh_lp_memos():
    """Start every test with empty LP memos: no answer kept by an earlier test is found."""
    from allockit.evaluation.answer_memo import clear_memos

    clear_memos()


#: Where CI and the developers' machines keep the real traces (beside the checkout).
SHARED_TRACES = Path(__file__).resolve().parents[2] / "shared" / "data" / "traces"


@pytest.fixture(scope="session", autouse=True)
def trace_data_dir(tmp_path_factory):
    """The named real traces for the whole session, through ``allockit data add``.

    Where ``../shared/data/traces`` lies beside the checkout (CI, the developers'
    machines), each of its files is added (checksum checked) to a temporary data
    directory that ``$ALLOCKIT_DATA`` points to for the session, subprocesses included.
    Elsewhere (a fresh clone) the user's own data directory is used as it is; a test
    that needs a trace missing there is skipped by ``tests.traces.real_trace`` as one
    that needs a network download.
    """
    import contextlib
    import io

    from allockit.cli import main
    from allockit.instances.datasets import DATA_ENV, TRACES

    if not SHARED_TRACES.is_dir():
        yield None
        return
    folder = tmp_path_factory.mktemp("allockit-data")
    before = os.environ.get(DATA_ENV)
    os.environ[DATA_ENV] = str(folder)
    try:
        for name, info in TRACES.items():
            source = SHARED_TRACES / info.file
            if source.is_file():
                with contextlib.redirect_stdout(io.StringIO()):
                    code = main(["data", "add", name, str(source)])
                assert code == 0, f"allockit data add {name} {source} failed"
        yield folder
    finally:
        if before is None:
            os.environ.pop(DATA_ENV, None)
        else:
            os.environ[DATA_ENV] = before
