"""
A fairness counterexample, found automatically
==============================================

A natural way to share heterogeneous servers is to run DRF on each server separately.
Wang, Li and Liang show that this is not Pareto optimal: some allocation gives every
user at least as many tasks, and one user more. :func:`allockit.fairness.checker.check`
searches generated instances for a violation of a property and shrinks the one it
finds to a small counterexample; DRFH itself passes the same check. Per-server DRF
places whole tasks, so it is judged against whole-task alternatives (an integer program
over the individual servers), not against divisible optima.
"""

# %%
import matplotlib.pyplot as plt

from allockit.fairness import MECHANISMS, check

reports = {
    name: check(MECHANISMS[name], ["pareto"], examples=60, seed=0)[0]
    for name in ("per-server-drf", "progressive")
}
for name, report in reports.items():
    print(f"{name:>15}: {report.status} after {report.examples} instances "
          f"(semantics: {report.semantics}); violation {report.violation:.3g}")

# %%
# The counterexample as the command line prints it on stderr:
print(reports["per-server-drf"].text)

# %%
# The counterexample per-server DRF loses on (servers and users as an instance file):
counter = reports["per-server-drf"].counterexample
for server in counter["servers"]:
    print("server", server)
for user in counter["users"]:
    print("user  ", user)

# %%
fig, ax = plt.subplots(figsize=(5, 2.5))
ax.barh(list(reports), [r.violation for r in reports.values()], color=["#c44e52", "#55a868"])
ax.set_xlabel("Pareto violation (tasks another allocation adds)")
fig.tight_layout()
