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
    from allockit.numba_cache import kernel_digest

    where = _run({"XDG_CACHE_HOME": str(tmp_path / "xdg")}, tmp_path)
    assert where == str(tmp_path / "xdg" / "allockit" / "numba" / kernel_digest())
    cache = tmp_path / "xdg" / "allockit" / "numba"
    index = list(cache.rglob("greedy_kernels.greedy_kernel-*.nbi"))
    assert index, "numba wrote no cache index in the user cache directory"


def test_numba_cache_dir_wins(tmp_path):
    where = _run({"NUMBA_CACHE_DIR": str(tmp_path / "mine")}, tmp_path)
    assert where == str(tmp_path / "mine")
    assert list((tmp_path / "mine").rglob("*.nbi"))


def test_the_cache_moves_when_any_kernel_file_changes(tmp_path):
    # numba checks only the loaded function's own file: a kernel compiling in another
    # file's kernel would be loaded stale after that file changed, so the directory
    # follows the contents of every kernel file
    import shutil

    from allockit.numba_cache import kernel_digest, kernel_files

    files = kernel_files()
    names = {p.name for p in files}
    assert {"dfrs_kernels.py", "dfrs_event_kernels.py", "mcb_kernels.py", "knapsack.py",
            "kernel_setup.py", "allocation_kernels.py"} <= names
    copies = []
    for i, path in enumerate(files):
        copy = tmp_path / str(i) / path.name
        copy.parent.mkdir()
        shutil.copy(path, copy)
        copies.append(copy)
    assert kernel_digest(copies) == kernel_digest()
    events = next(p for p in copies if p.name == "dfrs_event_kernels.py")
    events.write_text(events.read_text() + "\n# an edit\n")
    assert kernel_digest(copies) != kernel_digest()


def test_warm_up_refuses_unknown_kernel_names():
    with pytest.raises(InvalidInputError, match=r"kernel must be one of .*; got 'x'"):
        warm_up("x")
