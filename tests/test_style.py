"""The code base is ruff-clean (the style guide's lint gate)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean():
    ruff = shutil.which("ruff") or str(Path(__import__("sys").executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    proc = subprocess.run([ruff, "check", str(ROOT)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout
