"""The numba kernels: machine code cached in a user cache directory, warm-up by name."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from allockit.errors import InvalidInputError
from allockit.heuristics.kernel_setup import warm_up


def _run(env_update, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(env_update)
    code = (
        "from allockit.heuristics.common import load_kernels;"
        "from allockit.heuristics.kernel_setup import numba_cache_dir;"
        "load_kernels('greedy_kernel');"
        "print(numba_cache_dir())"
    )
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
        cwd=tmp_path,
    ).stdout.strip()


def test_compiled_kernels_go_to_the_user_cache_directory(tmp_path):
    where = _run({"XDG_CACHE_HOME": str(tmp_path / "xdg")}, tmp_path)
    assert where == str(tmp_path / "xdg" / "allockit" / "numba")
    cache = tmp_path / "xdg" / "allockit" / "numba"
    index = list(cache.rglob("greedy_kernels.greedy_kernel-*.nbi"))
    assert index, "numba wrote no cache index in the user cache directory"


def test_numba_cache_dir_wins(tmp_path):
    where = _run({"NUMBA_CACHE_DIR": str(tmp_path / "mine")}, tmp_path)
    assert where == str(tmp_path / "mine")
    assert list((tmp_path / "mine").rglob("*.nbi"))


def test_warm_up_refuses_unknown_kernel_names():
    with pytest.raises(InvalidInputError, match=r"kernel must be one of .*; got 'x'"):
        warm_up("x")
