"""
Bring your own heuristic: compare it with the MILP optimum
==========================================================

A placement heuristic of your own is a plain function ``f(instance, **options)`` that
returns, for each job, a host index (or a list of hosts, one per task), or ``None`` when
it finds no placement. allockit scores that placement exactly as it scores its own
heuristics (the memory check, the CPU split that maximises the minimum yield, the
average-yield phase), so it can stand beside the built-ins and the exact MILP in one
:func:`allockit.compare` call.

Here the heuristic is "largest memory first, onto the host with the most free memory"
(a worst-fit on memory), compared with ``milp`` (the exact optimum), ``mcb8`` (the
paper's best heuristic) and ``gr`` (its greedy baseline) on eight generated instances.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

import allockit
from allockit.instances.generators import generate_vcsched


def worst_fit_memory(instance, **options):
    """Jobs by decreasing memory, each onto the host with the most free memory."""
    free = np.ones(instance.hosts)
    placement = [None] * instance.n_jobs
    for job in np.argsort(-np.asarray(instance.mem), kind="stable"):
        host = int(np.argmax(free))
        if free[host] < instance.mem[job] - 1e-12:
            return None  # no placement found (allockit reports status no_solution)
        free[host] -= instance.mem[job]
        placement[job] = host
    return placement


instances = {
    f"i{k}": generate_vcsched(hosts=4, jobs=10, slack=0.4, cov_cpu=0.5, cov_mem=0.5, seed=k)
    for k in range(8)
}
result = allockit.compare(instances, ["milp", "mcb8", "gr", worst_fit_memory], time_limit=30)
print(result.table())

# %%
# Per instance, the minimum yield each method reached (the MILP's is optimal: every
# heuristic lies on or below it).
rows = result.to_pandas()
pivot = rows.pivot(index="instance", columns="method", values="min_yield")
pivot.round(3)

# %%
fig, ax = plt.subplots(figsize=(6, 3))
summary = {s.method.split(":")[-1]: s.avg_degradation for s in result.summary()}
ax.bar(list(summary), [v or 0.0 for v in summary.values()], color="#4c72b0")
ax.set_ylabel("mean % below the best")
ax.set_title("8 instances, 4 hosts, 10 jobs")
fig.tight_layout()
