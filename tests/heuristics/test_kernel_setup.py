"""One-time kernel costs are reported apart: ``setup_seconds``, not ``solve_seconds``."""

import subprocess
import sys

SCRIPT = """
from allockit.instances.generators import generate_vcsched
from allockit.vcsched import solve
import allockit.heuristics.greedy_kernels as g
import allockit.heuristics.mcb_kernels as m
inst = generate_vcsched(hosts=4, jobs=12, slack=0.4, cov_cpu=0.5, cov_mem=0.5, seed=3,
                        parallel=True)
first = solve(inst, "mcb8")
for method in ("sg", "gr", "gb", "sgb", "mcb1", "mcb8"):
    again = solve(inst, method)
print(first.setup_seconds > 0, again.setup_seconds == 0.0)
print(len(g.greedy_kernel.signatures), len(g.greedy_backtrack_kernel.signatures),
      len(m.mcb_fill_kernel.signatures))
"""


def test_warm_up_compiles_the_signatures_the_heuristics_use():
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True
    ).stdout.split()
    # the first call pays the setup; later calls none; no call compiled a second version
    assert out == ["True", "True", "1", "1", "1"]
