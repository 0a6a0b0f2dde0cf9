"""Run every module's doctests under its canonical ``allockit.*`` name."""

import doctest
import importlib
import pkgutil

import pytest

import allockit


def _modules():
    names = ["allockit"]
    for sub in ("models", "heuristics", "instances", "simulation", "proofs"):
        names.append(f"allockit.{sub}")
    found = []
    for name in names:
        mod = importlib.import_module(name)
        found.append(name)
        if hasattr(mod, "__path__"):
            for info in pkgutil.iter_modules(mod.__path__):
                found.append(f"{name}.{info.name}")
    return sorted(set(found))


@pytest.mark.parametrize("name", _modules())
def test_doctests(name):
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0


def test_every_public_module_has_a_docstring():
    for name in _modules():
        assert importlib.import_module(name).__doc__, name
    assert allockit.__version__
