"""
Exact methods against the heuristics on the small set
=====================================================

The VCSched paper compares its exact MILP, the LP bound and the heuristics on a set of
small instances (4 hosts, 6-12 jobs). Here the same comparison runs on a handful of the
instances allockit bundles, through :func:`allockit.vcsched.solve`.
"""

# %%
from allockit.instances import example_path

print(example_path)
