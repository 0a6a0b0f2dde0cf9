"""
Exact methods against the heuristics on the small set
=====================================================

The VCSched paper compares its exact MILP, the LP bound and a family of heuristics on
small instances (4 hosts, 6-12 jobs). allockit bundles 36 instances of that set; here
twelve of them go through :func:`allockit.vcsched.solve` with each method, and the
table gives the minimum yield each reaches and its degradation from the best.
"""

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

import allockit
from allockit.instances import read_instance

sample = Path(allockit.instances.__file__).parent / "data" / "small_sample"
files = sorted(sample.glob("h4-*.json"))[::4]
methods = ["milp", "mcb8", "gr", "sg", "gb", "rrnd"]

rows = []
for path in files:
    instance = read_instance(path)
    for method in methods:
        options = {"time_limit": 30} if method == "milp" else {}
        if method == "rrnd":
            options["seed"] = 0
        result = allockit.solve(instance, method, **options)
        rows.append({"instance": path.stem, "method": method, "status": str(result.status),
                     "min_yield": result.min_yield})
table = pd.DataFrame(rows)

# %%
# The degradation from the best minimum yield found for the instance (the MILP's, which
# is optimal), in percent; failures (no placement) are left out, as in the paper.
best = table.groupby("instance")["min_yield"].transform("max")
table["degradation_%"] = 100 * (best - table["min_yield"]) / best
summary = table.groupby("method").agg(
    mean_degradation=("degradation_%", "mean"),
    max_degradation=("degradation_%", "max"),
    failures=("min_yield", lambda s: int(s.isna().sum())),
).loc[methods]
summary.round(2)

# %%
fig, ax = plt.subplots(figsize=(6, 3))
summary["mean_degradation"].plot.bar(ax=ax, color="#4c72b0")
ax.set_ylabel("mean % degradation from best")
ax.set_title(f"{len(files)} instances of the small set (4 hosts)")
fig.tight_layout()
