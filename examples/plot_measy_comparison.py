"""
Two-tier scheduling: MEASY, KEASY and REASY against EASY
========================================================

Each processor hosts a foreground and a background virtual machine. EASY backfilling
fills the foreground; the two-tier schedulers also start waiting jobs in the background
on the CPU the foreground leaves idle. When a background job is needed in the
foreground, KEASY kills and restarts it, REASY reserves for it, and MEASY migrates it.
Here the four run on a Feitelson 1996 workload (the MEASY paper's FWload) at two loads.
"""

# %%
import matplotlib.pyplot as plt
import pandas as pd

from allockit.instances.feitelson96 import feitelson96_workload
from allockit.simulation.simulate import simulate

rows = []
for load in (0.6, 0.9):
    workload = feitelson96_workload(1500, procs=64, load=load, cpu_usage=True,
                                    estimates=True, seed=5)
    for algorithm in ("EASY", "KEASY", "REASY", "MEASY"):
        result = simulate(workload, algorithm, seed=5)
        response = result.end - result.submit
        slowdown = response / result.runtime.clip(min=10)
        rows.append({"load": load, "algorithm": algorithm,
                     "mean_response_s": float(response.mean()),
                     "mean_bounded_slowdown": float(slowdown.clip(min=1).mean()),
                     "migrations": result.migrations})
table = pd.DataFrame(rows)
table.pivot(index="algorithm", columns="load", values="mean_response_s").round(0)

# %%
fig, ax = plt.subplots(figsize=(6, 3))
table.pivot(index="load", columns="algorithm", values="mean_response_s").plot.bar(ax=ax)
ax.set_ylabel("mean response time (s)")
fig.tight_layout()
