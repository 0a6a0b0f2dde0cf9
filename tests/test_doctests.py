"""Run every module's doctests under its canonical ``allockit.*`` name."""

import doctest
import importlib
import pkgutil

import pytest

import allockit


def _modules():
    found = []
    for info in pkgutil.walk_packages(allockit.__path__, prefix="allockit."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue
        found.append(info.name)
    for sub in ("models", "heuristics", "instances", "simulation", "proofs", "experiments"):
        mod = importlib.import_module(f"allockit.{sub}")
        found.append(mod.__name__)
        for info in pkgutil.walk_packages(mod.__path__, prefix=f"allockit.{sub}."):
            found.append(info.name)
    return sorted(set(found) | {"allockit"})


@pytest.mark.parametrize("name", _modules())
def test_doctests(name):
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0


def test_every_public_module_has_a_docstring():
    for name in _modules():
        assert importlib.import_module(name).__doc__, name
    assert allockit.__version__
