"""
Migration-bounded adaptation
============================

When jobs arrive and leave, the placement that was optimal stops being so. Moving
virtual machines costs memory traffic, so the VCSched paper bounds the memory that may
migrate (in host-memory units). ``adapt`` keeps the previous placement, places the new
jobs and moves tasks off the most loaded host while the budget allows; the exact
``milp`` solves the same budgeted problem. The minimum yield rises with the budget.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import allockit
from allockit.instances import VCInstance

rng = np.random.default_rng(3)
hosts, jobs = 4, 12
cpu = rng.uniform(0.2, 0.8, jobs).round(3)
mem = rng.uniform(0.05, 0.3, jobs).round(3)
# yesterday's placement crowded the first two hosts; two jobs are new (None)
previous = [int(h) for h in rng.integers(0, 2, jobs - 2)] + [None, None]

rows = []
for budget in [0.0, 0.1, 0.2, 0.4, 0.8, 1.6]:
    instance = VCInstance.from_lists(hosts=hosts, cpu=cpu, mem=mem, previous=previous,
                                     migration_budget=budget)
    for method in ("adapt", "milp"):
        result = allockit.solve(instance, method, **({"time_limit": 20} if method == "milp"
                                                     else {}))
        doc = result.to_dict()
        rows.append({"budget": budget, "method": method, "min_yield": result.min_yield,
                     "migrated_memory": doc.get("migrated_memory")})
table = pd.DataFrame(rows)
table.pivot(index="budget", columns="method", values="min_yield").round(4)

# %%
fig, ax = plt.subplots(figsize=(6, 3))
for method, part in table.groupby("method"):
    ax.plot(part["budget"], part["min_yield"], marker="o", label=method)
ax.set_xlabel("migration budget (host memory)")
ax.set_ylabel("minimum yield")
ax.legend()
fig.tight_layout()
