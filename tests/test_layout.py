"""Package layout: one namespace, no heavy imports at import time."""

import subprocess
import sys

BARE = {"models", "heuristics", "instances", "simulation", "proofs"}


def _modules_after(code: str) -> set[str]:
    script = f"import sys\n{code}\nprint('\\n'.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


def test_no_bare_subpackage_names():
    mods = _modules_after(
        "import allockit, allockit.models, allockit.heuristics, allockit.instances, "
        "allockit.simulation, allockit.proofs, allockit.vcsched, allockit.cli"
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
