"""ortools and highspy in one process: both import and both solve (the libhighs trap)."""

import subprocess
import sys

import pytest

SCRIPT = """
import {first}, {second}
from ortools.sat.python import cp_model
import highspy
h = highspy.Highs()
h.setOptionValue("output_flag", False)
x = h.addVariable(lb=0, ub=4)
h.changeColIntegrality(0, highspy.HighsVarType.kInteger)
h.maximize(x)
assert abs(h.getInfo().objective_function_value - 4) < 1e-9
m = cp_model.CpModel()
y = m.new_int_var(0, 7, "y")
m.maximize(y)
s = cp_model.CpSolver()
assert s.solve(m) == cp_model.OPTIMAL and s.value(y) == 7
print("ok")
"""


@pytest.mark.parametrize(("first", "second"), [("highspy", "ortools"), ("ortools", "highspy")])
def test_highspy_and_ortools_in_one_process(first, second):
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(first=first, second=second)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_pyomo_highs_and_cpsat_models_in_this_process():
    from allockit.instances import example_path, read_instance
    from allockit.vcsched import solve

    inst = read_instance(example_path())
    assert solve(inst, "milp").min_yield == pytest.approx(solve(inst, "cpsat").min_yield)
