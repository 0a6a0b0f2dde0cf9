"""
The LP bound and certified gaps
===============================

The rational relaxation of VCSched has a closed-form optimum,
``min(1, H / sum(cpu))`` when the memory fits (:func:`allockit.evaluation.lp_bound.lp_bound`): an
upper bound on the minimum yield of any placement. A heuristic's placement together
with a bound certifies a *gap*: the placement is within that fraction of optimal. The
portfolio method ``best`` tightens both sides (local search, bin-packing bounds, an
exact search) and reports where its bound came from.
"""

# %%
import matplotlib.pyplot as plt
import pandas as pd

import allockit
from allockit.instances import generate_vcsched
from allockit.models import lp_bound

rows = []
for seed, (jobs, slack) in enumerate([(20, 0.3), (20, 0.6), (40, 0.3), (40, 0.6)]):
    instance = generate_vcsched(hosts=8, jobs=jobs, slack=slack, cov_cpu=0.25,
                                cov_mem=0.75, seed=seed)
    mcb8 = allockit.solve(instance, "mcb8")
    best = allockit.solve(instance, "best", time_limit=2, seed=0)
    bound = lp_bound(instance)
    rows.append({
        "jobs": jobs, "slack": slack, "lp_bound": bound,
        "mcb8": mcb8.min_yield, "mcb8_gap_%": 100 * (bound - mcb8.min_yield) / bound,
        "best": best.min_yield, "best_bound": best.bound,
        "best_gap_%": 100 * best.gap, "status": str(best.status),
        "bound_source": best.to_dict().get("bound_source"),
    })
table = pd.DataFrame(rows)
table.round(4)

# %%
fig, ax = plt.subplots(figsize=(6, 3))
x = range(len(table))
ax.bar([i - 0.2 for i in x], table["mcb8_gap_%"], width=0.4, label="MCB8 vs LP bound")
ax.bar([i + 0.2 for i in x], table["best_gap_%"], width=0.4, label="best (certified)")
ax.set_xticks(list(x), [f"J={j}\nslack {s}" for j, s in zip(table.jobs, table.slack,
                                                                   strict=True)])
ax.set_ylabel("gap (%)")
ax.legend()
fig.tight_layout()
