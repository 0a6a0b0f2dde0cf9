"""The named real traces in tests: their path, or a skip that says how to get them."""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = ["real_trace"]


def real_trace(name: str) -> Path:
    """The data directory's copy of the named trace, or skip the test.

    The session fixture ``trace_data_dir`` (``tests/conftest.py``) fills a temporary
    data directory from ``../shared/data/traces`` where that folder exists, so CI never
    skips; elsewhere a missing trace needs a network download, and the test says which.

    Examples
    --------
    >>> real_trace("hpc2n").name  # doctest: +SKIP
    'HPC2N-2002-2.2-cln.swf.gz'
    """
    from allockit.instances.datasets import trace_location

    path = trace_location(name)
    if not path.is_file():
        pytest.skip(f"needs a network download: allockit data fetch {name}")
    return path
