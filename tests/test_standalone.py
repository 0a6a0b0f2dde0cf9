"""The repository stands on its own: nothing refers to ``../shared``, README paths exist.

A user who clones the repository has no ``../shared`` folder beside it (the developers'
and CI's source papers, notes and traces). The README, the documentation, the gallery
and the package must not send anyone there (tests and ``.ci/run`` may: that is where CI
finds the traces), and every repository path the README names must exist.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Where nothing may refer to ../shared: the README, the docs sources, the gallery and
#: every folder of the package.
SCANNED = ["README.md", "ARCHITECTURE.md", "docs", "examples", "src", "models",
           "heuristics", "instances", "simulation", "experiments", "proofs"]
#: Built or generated folders under docs/ (not sources).
GENERATED = ("docs/_build", "docs/api", "docs/auto_examples")
SHARED = re.compile(r"\.\./shared\b|(?<![\w/])shared/(docs|data|seeds)\b")
SUFFIXES = {".py", ".md", ".rst", ".txt", ".toml", ".json", ".csv", ".cfg", ".html", ".css",
            ".svg", ".js"}


def _text_files() -> list[Path]:
    found = []
    for item in SCANNED:
        path = ROOT / item
        if path.is_file():
            found.append(path)
            continue
        for file in path.rglob("*"):
            relative = file.relative_to(ROOT).as_posix()
            if file.is_file() and file.suffix in SUFFIXES and not relative.startswith(GENERATED) \
                    and "__pycache__" not in relative:
                found.append(file)
    return found


def shared_references(text: str) -> list[str]:
    """The lines of ``text`` that point into a ``shared`` folder beside the checkout.

    Examples
    --------
    >>> shared_references("see ../shared/docs/FORMULAS.md\\nfine\\nshared/data/x")
    ['see ../shared/docs/FORMULAS.md', 'shared/data/x']
    >>> shared_references("shared clusters; a shared/ folder of our own; my_shared/data")
    []
    """
    return [line.strip() for line in text.splitlines() if SHARED.search(line)]


def readme_paths(text: str, top_level: set[str]) -> list[str]:
    """Repository paths named in backticks (or as Markdown links) in ``text``.

    A candidate is a span without spaces, with a ``/``, whose first part is a top-level
    entry of the repository (or ``allockit``/``src``, the package's name and home).

    Examples
    --------
    >>> readme_paths("`instances/schemas.py`, `allockit/instances/schemas.py`, `w.swf`, "
    ...              "`~/.cache/x`, `1/cores`, [a](docs/index.rst)", {"instances", "docs"})
    ['instances/schemas.py', 'allockit/instances/schemas.py', 'docs/index.rst']
    """
    spans = re.findall(r"`([^`\s]+)`", text) + re.findall(r"\]\(([^)\s#]+)", text)
    out = []
    for span in spans:
        span = span.rstrip(".,;:")
        parts = span.split("/")
        if len(parts) < 2 or "://" in span or not re.fullmatch(r"[\w.\-/*]+", span):
            continue
        if parts[0] in top_level | {"allockit", "src"}:
            out.append(span)
    return out


def _exists(path: str) -> bool:
    if any(c in path for c in "*?"):
        return any(ROOT.glob(path))
    return (ROOT / path).exists()


@pytest.mark.parametrize("path", _text_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_nothing_refers_to_shared(path):
    found = shared_references(path.read_text(encoding="utf-8", errors="replace"))
    assert not found, f"{path.relative_to(ROOT)} refers to ../shared: {found}"


def test_every_path_the_readme_names_exists():
    top_level = {p.name for p in ROOT.iterdir() if not p.name.startswith(".")}
    names = readme_paths((ROOT / "README.md").read_text(encoding="utf-8"), top_level)
    assert len(names) > 10  # the README names many files: the scan must see them
    missing = sorted({n for n in names if not _exists(n)})
    assert not missing, f"README.md names paths that do not exist: {missing}"


def test_the_checks_reject_what_they_must():
    assert shared_references("models restated in `../shared/docs/FORMULAS.md` §1")
    top_level = {p.name for p in ROOT.iterdir()}
    names = readme_paths("schemas (`allockit/instances/schemas.py`, pydantic v2)", top_level)
    assert names == ["allockit/instances/schemas.py"] and not _exists(names[0])
    assert _exists("instances/schemas.py") and _exists("instances/data/small_sample/")
