"""The demo's times: one-time costs apart from each task's time (issue #18, item 6).

On a fresh machine (empty numba cache) the first MCB8 task of a worker used to carry
seconds of compilation and the first MILP the import of Pyomo and HiGHS; the table now
reports per-task times without them and sums them in ``setup_seconds``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys


def test_demo_reports_setup_apart_with_an_empty_numba_cache(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    proc = subprocess.run(
        [sys.executable, "-m", "allockit.cli", "demo", "--methods", "mcb8,gr,milp",
         "--workers", "1", "--json", "--no-progress", "--store", str(tmp_path / "demo.db")],
        capture_output=True, text=True, env=env, check=False, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    table = {m["method"]: m for m in json.loads(proc.stdout)["methods"]}
    for heuristic in ("mcb8", "gr"):
        assert table[heuristic]["setup_seconds"] > 0.2  # compiled in this worker
        assert table[heuristic]["max_seconds"] < 0.2  # not charged to the first task
    assert table["milp"]["setup_seconds"] > 0  # Pyomo and HiGHS start-up
    assert list((tmp_path / "numba").rglob("*.nbi"))  # the cache went where it was told
    from allockit.runner import read_rows

    rows = read_rows(tmp_path / "demo.db")
    firsts = [r for r in rows if (r["setup_seconds"] or 0) > 0]
    assert firsts and all(r["seconds"] < r["wall_seconds"] for r in firsts)
