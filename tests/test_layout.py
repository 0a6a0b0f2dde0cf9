"""Package layout: one namespace, no heavy imports at import time."""

import subprocess
import sys

BARE = {"models", "heuristics", "instances", "simulation", "proofs", "experiments"}


def _modules_after(code: str) -> set[str]:
    script = f"import sys\n{code}\nprint('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


def test_no_bare_subpackage_names():
    mods = _modules_after(
        "import allockit, allockit.models, allockit.heuristics, allockit.instances, "
        "allockit.simulation, allockit.proofs, allockit.experiments, allockit.vcsched, "
        "allockit.cli"
    )
    assert not {m.split(".")[0] for m in mods} & BARE


HEAVY = {"pyomo", "ortools", "highspy", "scipy", "pandas", "numba", "pooch", "requests"}


def test_light_imports_do_not_load_solvers():
    mods = _modules_after(
        "import allockit, allockit.heuristics, allockit.instances, allockit.cli, "
        "allockit.constants, allockit.simulation.simulate, allockit.instances.datasets"
    )
    assert not {m.split(".")[0] for m in mods} & HEAVY


def test_batch_simulation_loads_no_compiled_kernel():
    mods = _modules_after(
        "from allockit.instances.lublin import dfrs_synthetic\n"
        "from allockit.simulation.simulate import simulate\n"
        "w = dfrs_synthetic(20, nodes=4, seed=1)\n"
        "simulate(w, 'FCFS'); simulate(w, 'EASY')"
    )
    assert not {m.split(".")[0] for m in mods} & HEAVY


def test_importing_the_dfrs_simulator_loads_no_compiled_kernel():
    # numba (and the kernels) load when a simulation starts, not when a script imports
    # the simulator, its state, its policies or its pool of rows
    mods = _modules_after(
        "import allockit.simulation.dfrs, allockit.simulation.dfrs_state, "
        "allockit.simulation.dfrs_policies, allockit.simulation.dfrs_rows\n"
        "from allockit.simulation.dfrs_rows import RowPool\n"
        "RowPool(jobs=2, nodes=2).take(__import__('numpy').array([0]))"
    )
    assert not {m.split(".")[0] for m in mods} & HEAVY


def test_the_command_line_parser_loads_no_numpy():
    # `allockit --help` imports the parser modules only
    mods = _modules_after("import allockit.cli; allockit.cli.build_parser()")
    assert "numpy" not in mods


def test_constants_module_imports_nothing():
    import ast
    import inspect

    import allockit.constants

    tree = ast.parse(inspect.getsource(allockit.constants))
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]


def test_subpackages_live_under_allockit():
    import allockit.heuristics
    import allockit.models

    assert allockit.models.__name__ == "allockit.models"
    assert allockit.heuristics.__file__.endswith("heuristics/__init__.py")


def test_the_folders_are_not_importable_by_their_bare_names():
    """From the repository root ``import instances`` would give a second VCInstance class."""
    import pathlib

    import pytest

    root = pathlib.Path(__file__).resolve().parents[1]
    mapping = __import__("tomllib").loads((root / "pyproject.toml").read_text())
    folders = {
        folder
        for package, folder in mapping["tool"]["setuptools"]["package-dir"].items()
        if package != "allockit"
    }
    assert folders == BARE  # the guard covers every mapped folder
    for folder in sorted(folders):
        proc = subprocess.run(
            [sys.executable, "-c", f"import {folder}"],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 1, folder
        assert f"ImportError: import allockit.{folder}, not {folder}" in proc.stderr
    if not folders:
        pytest.fail("no mapped folders found")
