"""Every public function and class has a numpydoc docstring with a runnable example.

Public means listed in its module's ``__all__`` and defined there. Functions document
``Parameters`` (when they take any), ``Returns`` (when they return something),
``Raises`` (when their body raises) and ``Examples`` (run by ``test_doctests.py``);
classes document themselves with ``Examples``. Exceptions and protocols are exempt
from the example.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import textwrap

import pytest

import allockit

SUBPACKAGES = ("models", "heuristics", "instances", "simulation", "proofs", "experiments")


def _modules() -> list[str]:
    names = {"allockit"}
    for info in pkgutil.walk_packages(allockit.__path__, prefix="allockit."):
        if not info.name.endswith("__main__"):
            names.add(info.name)
    for sub in SUBPACKAGES:
        mod = importlib.import_module(f"allockit.{sub}")
        names.add(mod.__name__)
        for info in pkgutil.walk_packages(mod.__path__, prefix=f"allockit.{sub}."):
            names.add(info.name)
    return sorted(names)


def _public(module_name: str):
    module = importlib.import_module(module_name)
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name, None)
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module_name:
            yield name, obj


def _raises(func) -> bool:
    """Whether ``func``'s own body raises; a raise inside a nested function, lambda or
    class belongs to that one and is not counted."""
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return False
    body = ast.parse(source).body[0]
    todo = list(ast.iter_child_nodes(body))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue  # its body is its own
        todo.extend(ast.iter_child_nodes(node))
    return False


def _nested_only():
    def inner():
        raise ValueError("inner's own")

    class Inner:
        def method(self):
            raise ValueError("method's own")

    return inner, Inner


def _direct(flag):
    if flag:
        raise ValueError("direct")
    return flag


def test_raises_counts_only_the_functions_own_body():
    assert _raises(_direct)
    assert not _raises(_nested_only)


def _problems(name: str, obj) -> list[str]:
    doc = inspect.getdoc(obj) or ""
    if not doc:
        return [f"{name}: no docstring"]
    out = []
    if inspect.isclass(obj):
        exempt = issubclass(obj, BaseException) or getattr(obj, "_is_protocol", False)
        if not exempt and "Examples" not in doc:
            out.append(f"{name}: no Examples section")
        return out
    params = [
        p for p in inspect.signature(obj).parameters.values() if p.name not in ("self", "cls")
    ]
    if params and "Parameters" not in doc:
        out.append(f"{name}: no Parameters section")
    returns = inspect.signature(obj).return_annotation
    if returns not in (inspect.Signature.empty, None, "None") and "Returns" not in doc:
        out.append(f"{name}: no Returns section")
    if _raises(obj) and "Raises" not in doc:
        out.append(f"{name}: raises but has no Raises section")
    if "Examples" not in doc:
        out.append(f"{name}: no Examples section")
    return out


@pytest.mark.parametrize("module_name", _modules())
def test_public_names_have_numpydoc_docstrings(module_name):
    problems = [p for name, obj in _public(module_name) for p in _problems(name, obj)]
    assert not problems, f"{module_name}:\n" + "\n".join(problems)
