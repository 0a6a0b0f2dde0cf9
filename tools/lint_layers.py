"""Lint the layers of ARCHITECTURE.md from the repository root: ``python tools/lint_layers.py``.

After a default ``pip install -e .``, a bare ``lint-imports`` at the root cannot see the
subpackages that live outside ``src/allockit`` (it reports "Missing layer
'allockit.experiments'"): its graph builder walks only the directory of the ``allockit``
package (the README's install, ``editable_mode=strict``, links them all into one tree,
and there a bare ``lint-imports`` passes too). This command, whatever the install,
assembles the package as installed (symlinks into a temporary tree, following the
``package-dir`` mapping of ``pyproject.toml``), runs import-linter on the contracts of
``pyproject.toml`` there, and checks that no two modules import each other in a cycle
(lazy imports inside functions included). ``tests/test_architecture.py`` runs this same command.

Exit status: 0 when every contract holds and there is no cycle, 1 otherwise, 2 when
import-linter is not installed (``pip install -e '.[test]'``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CYCLES = """
import grimp, networkx as nx
graph = grimp.build_graph("allockit", cache_dir=None)
g = nx.DiGraph()
for m in graph.modules:
    for imported in graph.find_modules_directly_imported_by(m):
        if imported.startswith("allockit") and imported != m:
            g.add_edge(m, imported)
cycles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
print(f"modules: {len(graph.modules)}")
print(f"cycles: {cycles if cycles else 'none'}")
sys.exit(1 if cycles else 0)
"""


def config() -> dict:
    """The project's ``pyproject.toml`` as a dict."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def assemble(into: Path, contracts: Path | None = None) -> Path:
    """Build ``into/allockit`` from the package-dir mapping (symlinks); return ``into``.

    The contracts linted are those of ``contracts`` (a pyproject-style TOML file),
    default the project's own ``pyproject.toml``.
    """
    mapping = config()["tool"]["setuptools"]["package-dir"]
    top = into / "allockit"
    top.mkdir(parents=True)
    for entry in (ROOT / mapping["allockit"]).iterdir():
        if entry.name != "__pycache__":
            (top / entry.name).symlink_to(entry)
    for package, folder in mapping.items():
        if package != "allockit":
            (top / package.split(".", 1)[1]).symlink_to(ROOT / folder)
    shutil.copy(contracts or ROOT / "pyproject.toml", into / "pyproject.toml")
    return into


def lint_imports() -> str | None:
    """The ``lint-imports`` beside this interpreter, or on PATH; None if not installed."""
    for candidate in (Path(sys.executable).parent / "lint-imports", shutil.which("lint-imports")):
        if candidate and Path(candidate).exists():
            return str(candidate)
    return None


def main(argv: list[str] | None = None) -> int:
    """Assemble the tree, lint the contracts, look for cycles; the exit status.

    ``--contracts FILE`` lints the contracts of another TOML file (the tests use it to
    show that a broken contract fails).
    """
    import argparse

    parser = argparse.ArgumentParser(prog="python tools/lint_layers.py")
    parser.add_argument("--contracts", type=Path, default=None, metavar="TOML")
    args = parser.parse_args(argv)
    linter = lint_imports()
    if linter is None:
        print("lint-imports is not installed: pip install -e '.[test]'", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        tree = assemble(Path(tmp) / "tree", args.contracts)
        env = {**os.environ, "PYTHONPATH": str(tree)}
        status = subprocess.call([linter, "--no-cache"], cwd=tree, env=env)
        sys.stdout.flush()
        cycles = subprocess.call(
            [sys.executable, "-c", "import sys\n" + CYCLES], cwd=tree, env=env
        )
    return 0 if status == 0 and cycles == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
