"""
The stretch lower bound
=======================

The *bounded stretch* of a job is its time in the system over its run time alone
(both at least 10 s). No online or offline schedule can have a maximum stretch below
the least ``S`` for which the LP of the DFRS paper's Theorem 1 is feasible.
:func:`allockit.models.stretch_bound.stretch_bound` finds it exactly, by a search over
the breakpoints where the LP's structure changes; the paper's bisection gets the same
value to its tolerance. Here the bound is set beside what FCFS, EASY and a DFRS
algorithm achieve on synthetic Lublin-Feitelson workloads at rising load.
"""

# %%
import matplotlib.pyplot as plt
import pandas as pd

from allockit.instances.lublin import dfrs_synthetic
from allockit.models.stretch_bound import stretch_bound
from allockit.simulation.simulate import simulate

rows = []
for load in (0.3, 0.5, 0.7, 0.9):
    workload = dfrs_synthetic(120, nodes=16, load=load, seed=4)
    exact = stretch_bound(workload)
    bisection = stretch_bound(workload, method="bisection", tol=1e-3)
    row = {"load": load, "bound (exact)": exact.value, "bound (bisection)": bisection.value,
           "LPs (exact)": exact.lps, "LPs (bisection)": bisection.lps}
    for algorithm in ("FCFS", "EASY", "GreedyP */per/opt=min/minvt=600"):
        row[algorithm] = float(simulate(workload, algorithm).stretch.max())
    rows.append(row)
table = pd.DataFrame(rows).set_index("load")
table.round(3)

# %%
fig, ax = plt.subplots(figsize=(6, 3))
for column in ("FCFS", "EASY", "GreedyP */per/opt=min/minvt=600", "bound (exact)"):
    ax.plot(table.index, table[column], marker="o", label=column)
ax.set_yscale("log")
ax.set_xlabel("offered load")
ax.set_ylabel("maximum bounded stretch")
ax.legend(fontsize=8)
fig.tight_layout()
