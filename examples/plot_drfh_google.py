"""
DRFH on the Google server mix
=============================

Dominant Resource Fairness for Heterogeneous servers (Wang, Li, Liang 2014) equalises
the users' *global dominant shares* over a pool of unlike servers. Here 40 users with
random CPU and memory demands share 200 servers drawn from the Google cluster's mix
(the paper's Table I). The divisible optimum (LP (7) with finite tasks: progressive
filling) is set beside the task-by-task heuristics First-Fit and Best-Fit, and the slot
scheduler the paper compares against.
"""

# %%
import matplotlib.pyplot as plt
import pandas as pd

import allockit
from allockit.instances.drfh import DRFHInstance, google_servers, random_users

instance = DRFHInstance.from_dict({
    "problem": "drfh",
    "resources": ["cpu", "mem"],
    "servers": google_servers(200, seed=1),
    "users": random_users(40, seed=2, tasks=(20, 400)),
})
methods = ["progressive", "best-fit", "first-fit", "slots"]
results = {m: allockit.allocate(instance, m) for m in methods}
table = pd.DataFrame({
    m: {"cpu_utilisation_%": 100 * r.utilization[0], "mem_utilisation_%": 100 * r.utilization[1],
        "tasks": float(r.tasks.sum()), "min_dominant_share": float(r.dominant_share.min()),
        "seconds": r.seconds}
    for m, r in results.items()
}).T
table.round(3)

# %%
# Best-Fit packs tasks where they leave the least mismatch between the user's demand and
# the server's free resources, and comes close to the divisible optimum; slots waste
# what does not fit a slot.
fig, ax = plt.subplots(figsize=(6, 3))
table[["cpu_utilisation_%", "mem_utilisation_%"]].plot.bar(ax=ax)
ax.set_ylabel("utilisation (%)")
ax.set_ylim(0, 100)
fig.tight_layout()
