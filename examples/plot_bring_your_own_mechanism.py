"""
Bring your own mechanism
========================

A DRFH mechanism of your own is a plain Python function: it takes a
:class:`~allockit.instances.drfh.DRFHInstance` and returns the number of tasks each
user runs on each server class (or a ``DRFHResult``). allockit runs it like a built-in
(:func:`allockit.drfh.allocate`, checking capacities and task caps) and property-tests
it with :func:`allockit.fairness.checker.check`: hypothesis draws instances, and a
violation is shrunk to a small counterexample. Here a mechanism that forgets the users'
weights is caught being envious in the weighted sense, and the weighted one passes.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from allockit.drfh import allocate
from allockit.fairness import check
from allockit.instances.drfh import DRFHInstance


def weighted_drfh(instance):
    """Progressive filling of the weighted global dominant shares: tasks per user and class."""
    result = allocate(instance, "progressive")
    # tasks of user i on class l: what its bundle runs, min over resources of A_ilr / D_ir
    return np.min(result.allocation / instance.demand[:, None, :], axis=2)


def unweighted_drfh(instance):
    """The same, but with every weight set to 1 (the flaw: weights are ignored)."""
    plain = instance.to_dict()
    for user in plain["users"]:
        user["weight"] = 1.0
    return weighted_drfh(DRFHInstance.from_dict(plain))


instance = DRFHInstance.from_dict({
    "resources": ["cpu", "mem"],
    "servers": [{"name": "small", "capacity": [2, 4], "count": 2},
                {"name": "large", "capacity": [8, 8]}],
    "users": [{"name": "analytics", "demand": [0.5, 0.25], "weight": 2},
              {"name": "web", "demand": [0.25, 0.5], "weight": 1}],
})
# allockit runs a callable like a built-in name and checks what it returns
for mechanism in (weighted_drfh, unweighted_drfh):
    result = allocate(instance, mechanism)
    print(f"{mechanism.__name__:>16}: tasks {result.tasks.round(2).tolist()}, "
          f"dominant shares {result.dominant_share.round(3).tolist()}")

# %%
# Property-test both on 60 generated instances per property (weights and task caps vary).
properties = ["envy_freeness", "pareto", "single_server_drf"]
reports = {m.__name__: check(m, properties, examples=60, seed=0)
           for m in (weighted_drfh, unweighted_drfh)}
table = pd.DataFrame({
    name: {r.name: f"{r.status} ({r.examples} examples)" for r in rs}
    for name, rs in reports.items()
}).T
print(table.to_string())

# %%
# The counterexample found for the unweighted mechanism, as ``allockit fairness`` prints
# it on stderr: the shrunk instance, the allocation and the weights that make it envy.
for r in reports["unweighted_drfh"]:
    if r.status == "violated":
        print(r.text, end="\n\n")

# %%
fig, ax = plt.subplots(figsize=(6, 2.5))
names = list(reports)
for k, prop in enumerate(properties):
    values = [next(r.violation for r in reports[n] if r.name == prop) for n in names]
    ax.bar(np.arange(len(names)) + 0.27 * (k - 1), values, width=0.27, label=prop)
ax.set_xticks(range(len(names)), names)
ax.set_ylabel("violation (tasks)")
ax.legend(fontsize=8)
fig.tight_layout()
