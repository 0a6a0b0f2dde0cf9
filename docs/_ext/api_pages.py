"""Write ``docs/api/index.rst`` and a page per public ``allockit`` module.

Each module page opens with an autosummary table of the functions and classes it
defines (``sphinx.ext.autosummary``), then documents them from their docstrings.

The list is read from the installed package (the same walk as ``tests/test_doctests.py``:
``src/allockit`` and the subpackages mapped into it), so a module added, moved or
removed by anyone shows up in the reference at the next build.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import allockit

#: The subpackages that live outside ``src/allockit`` (mapped in ``pyproject.toml``).
MAPPED = ("models", "heuristics", "instances", "simulation", "proofs", "experiments")

#: Sections of the reference: (title, prefixes of the modules it holds), in order.
SECTIONS = (
    ("Core: methods, results, errors", ("allockit",)),
    ("Instances, workloads and data", ("allockit.instances",)),
    ("Exact models", ("allockit.models",)),
    ("Heuristics", ("allockit.heuristics",)),
    ("Evaluation", ("allockit.evaluation",)),
    ("Results", ("allockit.results",)),
    ("Simulation", ("allockit.simulation",)),
    ("Experiments (the papers' tables and figures)", ("allockit.experiments",)),
    ("Proofs (executable checks of the papers' claims)", ("allockit.proofs",)),
    ("Experiment runner", ("allockit.runner",)),
    ("Command line", ("allockit.cli",)),
)


def public_modules() -> list[str]:
    """Every importable ``allockit`` module except ``__main__`` ones, sorted."""
    found = {"allockit"}
    for info in pkgutil.walk_packages(allockit.__path__, prefix="allockit."):
        found.add(info.name)
    for sub in MAPPED:
        module = importlib.import_module(f"allockit.{sub}")
        found.add(module.__name__)
        for info in pkgutil.walk_packages(module.__path__, prefix=f"allockit.{sub}."):
            found.add(info.name)
    return sorted(n for n in found if n.rsplit(".", 1)[-1] != "__main__")


def packages() -> dict[str, list[str]]:
    """Each package among the public modules, with its direct submodules."""
    modules = public_modules()
    out: dict[str, list[str]] = {}
    for name in modules:
        children = [m for m in modules if m.rsplit(".", 1)[0] == name]
        if children:
            out[name] = children
    return out


def _section(name: str) -> str:
    best = ""
    for title, prefixes in SECTIONS:
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > len(best):
                best, chosen = prefix, title
    return chosen


def _write(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:  # unchanged files keep the build fast
        path.write_text(text)


def _summary(name: str) -> str:
    doc = importlib.import_module(name).__doc__ or ""
    first = doc.strip().split("\n\n", 1)[0]
    return " ".join(first.split())


def _own_members(name: str) -> list[str]:
    """The public functions and classes a module defines itself (not re-exported ones).

    The module's ``__all__`` when it has one, else its public names, in either case only
    the functions and classes whose ``__module__`` is the module.
    """
    module = importlib.import_module(name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    out = []
    for n in names:
        obj = getattr(module, n, None)
        if callable(obj) and getattr(obj, "__module__", None) == name:
            out.append(n)
    return out


def _autosummary(name: str, members: list[str]) -> list[str]:
    """An autosummary table of ``members`` (each linked to its entry below)."""
    if not members:
        return []
    lines = [".. currentmodule:: " + name, "", ".. autosummary::", "   :nosignatures:", ""]
    return lines + [f"   {member}" for member in members] + [""]


def _page(name: str, children: list[str] | None) -> str:
    lines = [name, "=" * len(name), ""]
    own = _own_members(name)
    if children:
        lines += [f".. automodule:: {name}"]
        lines += [f"   :members: {', '.join(own)}"] if own else ["   :no-members:"]
        lines += ["", "Its submodules (the names it re-exports are documented where they "
                  "are defined):", ""]
        lines += [f"- :mod:`{child}`" for child in children]
    else:
        lines += _autosummary(name, own)
        lines += [f".. automodule:: {name}", "   :members:"]
    return "\n".join(lines) + "\n"


def write_api_index(folder: Path) -> Path:
    """Write ``folder/index.rst`` and one page per module in ``folder/generated``.

    Files whose text is unchanged are not rewritten, to keep builds incremental.
    """
    modules = public_modules()
    tree = packages()
    generated = folder / "generated"
    generated.mkdir(parents=True, exist_ok=True)
    for name in modules:
        _write(generated / f"{name}.rst", _page(name, tree.get(name)))
    for stale in generated.glob("*.rst"):
        if stale.stem not in modules:
            stale.unlink()
    lines = [
        ".. This file is generated by docs/_ext/api_pages.py at every build: do not edit.",
        "",
        "API reference",
        "=============",
        "",
        "Every public module of allockit, generated from its docstrings. The command line",
        "is documented in :doc:`../cli`.",
        "",
    ]
    for title, _ in SECTIONS:
        members = [m for m in modules if _section(m) == title]
        if not members:
            continue
        lines += [title, "-" * len(title), "", ".. toctree::", "   :hidden:", ""]
        lines += [f"   generated/{m}" for m in members]
        lines += ["", ".. list-table::", "   :widths: 35 65", ""]
        for m in members:
            summary = _summary(m).replace("*", "\\*").replace("|", "\\|")
            lines += [f"   * - :mod:`{m}`", f"     - {summary}"]
        lines.append("")
    index = folder / "index.rst"
    _write(index, "\n".join(lines))
    return index
