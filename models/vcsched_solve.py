"""Exact VCSched solves, one import away: each driver lives in the module of its form.

- ``solve_load_milp``, ``solve_paper_milp``: the two MILPs on HiGHS, SCIP or any Pyomo
  solver (``allockit.models.vcsched_mip``);
- ``solve_cpsat_form``: the CP-SAT form (``allockit.models.vcsched_cpsat_solve``);
- ``solve_lp``: the LP relaxation, both phases (``allockit.models.vcsched_lp``);
- what they share (memory proofs, warm starts, honest results):
  ``allockit.models.vcsched_exact`` and ``allockit.models.vcsched_warm``.

Examples
--------
>>> from allockit.instances.vcsched import VCInstance
>>> inst = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
>>> round(solve_load_milp(inst).min_yield, 6) == round(solve_cpsat_form(inst).min_yield, 6)
True
"""

from allockit.models.vcsched_cpsat_solve import solve_cpsat_form
from allockit.models.vcsched_exact import obviously_infeasible
from allockit.models.vcsched_lp import solve_lp
from allockit.models.vcsched_mip import solve_load_milp, solve_paper_milp
from allockit.models.vcsched_warm import canonical_hosts

__all__ = [
    "canonical_hosts",
    "obviously_infeasible",
    "solve_cpsat_form",
    "solve_load_milp",
    "solve_lp",
    "solve_paper_milp",
]
