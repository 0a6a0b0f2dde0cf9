"""The architecture of ARCHITECTURE.md, enforced: layer contracts, no cycles, one namespace.

The mapped subpackages (``models/``, ``heuristics/``, ...) live outside ``src/allockit``,
where import-linter's graph builder does not look; the tests assemble the package as
installed (symlinks into a temporary tree) and lint that. Run this file as a script to
lint by hand: ``python tests/test_architecture.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def assemble(into: Path) -> Path:
    """Build ``into/allockit`` from the package-dir mapping (symlinks); return ``into``."""
    mapping = _config()["tool"]["setuptools"]["package-dir"]
    top = into / "allockit"
    top.mkdir(parents=True)
    for entry in (ROOT / mapping["allockit"]).iterdir():
        if entry.name != "__pycache__":
            (top / entry.name).symlink_to(entry)
    for package, folder in mapping.items():
        if package != "allockit":
            (top / package.split(".", 1)[1]).symlink_to(ROOT / folder)
    shutil.copy(ROOT / "pyproject.toml", into / "pyproject.toml")
    return into


def _lint_imports() -> str:
    for candidate in (Path(sys.executable).parent / "lint-imports", shutil.which("lint-imports")):
        if candidate and Path(candidate).exists():
            return str(candidate)
    pytest.skip("import-linter is not installed (pip install -e '.[test]')")


def _env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}


def test_import_linter_contracts_hold(tmp_path):
    tree = assemble(tmp_path / "tree")
    proc = subprocess.run(
        [_lint_imports(), "--no-cache"],
        cwd=tree,
        env=_env(tree),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def test_contracts_list_no_exceptions():
    for contract in _config()["tool"]["importlinter"]["contracts"]:
        assert "ignore_imports" not in contract, contract["name"]


def test_no_import_cycle_among_modules(tmp_path):
    tree = assemble(tmp_path / "tree")
    script = """
import grimp, networkx as nx
graph = grimp.build_graph("allockit", cache_dir=None)
g = nx.DiGraph()
for m in graph.modules:
    for imported in graph.find_modules_directly_imported_by(m):
        if imported.startswith("allockit") and imported != m:
            g.add_edge(m, imported)
cycles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
print(len(graph.modules))
print(cycles)
"""
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tree,
        env=_env(tree),
        capture_output=True,
        text=True,
        check=True,
    )
    count, cycles = proc.stdout.strip().splitlines()
    assert int(count) > 80  # the whole package was seen
    assert cycles == "[]", cycles


def test_every_package_is_listed_for_installation():
    setuptools = _config()["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    found = set()
    for package, folder in setuptools["package-dir"].items():
        base = ROOT / folder
        for init in base.rglob("__init__.py"):
            rel = init.parent.relative_to(base)
            found.add(".".join([package, *rel.parts]) if rel.parts else package)
    assert found == listed


@pytest.mark.parametrize(
    "first",
    ["allockit.vcsched", "allockit.cli", "allockit.runner", "allockit.experiments.vcsched"],
)
def test_solve_and_allocate_stay_callable_after_any_import_order(first):
    script = f"""
import importlib, pkgutil
importlib.import_module({first!r})
import allockit
for info in pkgutil.walk_packages(allockit.__path__, prefix="allockit."):
    if not info.name.endswith("__main__"):
        importlib.import_module(info.name)
from allockit.instances.vcsched import VCInstance
inst = VCInstance.from_lists(hosts=1, cpu=[0.5], mem=[0.1])
print(callable(allockit.solve), callable(allockit.allocate), allockit.solve(inst, "sg").min_yield)
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["True", "True", "1.0"]


if __name__ == "__main__":  # pragma: no cover - lint by hand
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        tree = assemble(Path(tmp) / "tree")
        sys.exit(subprocess.call([_lint_imports()], cwd=tree, env=_env(tree)))
