"""
EASY against the best DFRS algorithm on HPC2N weeks
===================================================

Casanova, Stillwell and Vivien show that dynamic fractional scheduling (sharing nodes,
pausing and migrating jobs) beats batch scheduling on the maximum stretch by orders of
magnitude. This example runs EASY backfilling and the paper's best algorithm,
``GreedyPM */per/opt=min/minvt=600``, on weeks of the HPC2N trace converted as in the
paper, and compares each to the Theorem 1 lower bound on the optimal maximum stretch.

The HPC2N trace comes from the data directory (``allockit data fetch hpc2n``); without
it, the example uses the small excerpt of the trace bundled with the tests.
"""

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from allockit.instances.datasets import trace_location
from allockit.instances.hpc2n import hpc2n_workload, split_weeks
from allockit.instances.swf import read_swf
from allockit.models.stretch_bound import stretch_bound
from allockit.simulation.simulate import simulate

trace = trace_location("hpc2n")
if not trace.is_file():
    # run from the repository root or from examples/ (as the documentation build does)
    excerpt = Path("tests") / "data" / "hpc2n_excerpt.swf"
    trace = excerpt if excerpt.is_file() else Path("..") / excerpt
weeks = split_weeks(hpc2n_workload(read_swf(trace)))
# three weeks (or the excerpt's one), each cut to its first 150 jobs to keep this quick
picked = {k: weeks[k] for k in (10, 40, 90) if k < len(weeks)} or {0: weeks[0]}
picked = {k: w.select(np.arange(w.n_jobs) < 150) for k, w in picked.items()}

best = "GreedyPM */per/opt=min/minvt=600"
rows = []
for week, workload in picked.items():
    bound = stretch_bound(workload).value
    for algorithm in ("EASY", best):
        result = simulate(workload, algorithm)
        rows.append({"week": week, "jobs": workload.n_jobs, "algorithm": algorithm,
                     "max_stretch": float(result.stretch.max()), "bound": bound,
                     "degradation": float(result.stretch.max()) / bound})
table = pd.DataFrame(rows)
table.round(2)

# %%
fig, ax = plt.subplots(figsize=(7, 3))
pivot = table.pivot(index="week", columns="algorithm", values="degradation")
pivot.plot.bar(ax=ax, logy=True)
ax.set_ylabel("max stretch / lower bound")
ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
fig.tight_layout()
