"""
The bank algorithm under manager failures
=========================================

Li and Parker's cluster reserves promise each service class a share of a whole
cluster; managers in a hierarchy move tickets between nodes every round so that a
class confined to a few nodes still gets its share. The bank algorithm does it with
one account per class and manager. Here 100 nodes under ten level-1 managers serve
three classes (targets 60/30/10 %, class 3 only on the first 30 nodes), and the
manager of the first ten nodes fails at 20 s: its children elect a replacement and the
shares recover.
"""

# %%
import matplotlib.pyplot as plt
import pandas as pd

from allockit.simulation.cluster import simulate_cluster
from allockit.simulation.cluster_scenarios import fig5, manager_entity

base = fig5(duration=40.0)
failing = manager_entity(base, 1, 0)  # the first level-1 manager
runs = {
    "static split": simulate_cluster(fig5(algorithm="static", duration=40.0), seed=1),
    "bank": simulate_cluster(base, seed=1),
    "bank, manager fails at 20 s": simulate_cluster(fig5(duration=40.0,
                                                         failures=((failing, 20.0),)), seed=1),
}
pd.DataFrame({
    name: {**{f"class {k + 1} mean %": float(v) for k, v in enumerate(r.mean)},
           "messages": r.messages}
    for name, r in runs.items()
}).T.round(2)

# %%
fig, ax = plt.subplots(figsize=(6, 3))
result = runs["bank, manager fails at 20 s"]
for k in range(result.shares.shape[1]):
    ax.plot(result.times, result.shares[:, k], label=f"class {k + 1}")
ax.axvline(20.0, color="grey", linestyle="--", label="manager fails")
ax.set_xlabel("time (s)")
ax.set_ylabel("share of the cluster (%)")
ax.legend(fontsize=8)
fig.tight_layout()
