"""
A sweep on the experiment runner
================================

Large experiments run through one runner: a grid of tasks (instance x method x seed)
goes to a backend and every finished task is written at once to an SQLite store, so an
interrupted sweep resumes where it stopped. Here a small grid of VCSched instances and
three methods runs on the in-process backend; running it a second time skips every
finished task, and the rows come back as a table.
"""

# %%
import tempfile
from pathlib import Path

import pandas as pd

from allockit.experiments.vcsched import vcsched_tasks
from allockit.instances import generate_vcsched
from allockit.runner import flat_rows, run_sweep

items = [
    (f"h4-j10-s{seed}", generate_vcsched(hosts=4, jobs=10, slack=0.5, cov_cpu=0.25,
                                         cov_mem=0.25, seed=seed).to_dict())
    for seed in range(4)
]
tasks = vcsched_tasks(items, methods=["milp", "mcb8", "sg"], seeds=[0], time_limit=10)
store = Path(tempfile.mkdtemp()) / "sweep.db"
first = run_sweep(tasks, store, backend="serial", sweep="gallery")
again = run_sweep(tasks, store, backend="serial", sweep="gallery")
print("first run:", first.to_dict()["ran"], "tasks; second run skipped",
      again.to_dict()["skipped"])

# %%
# One row per task, the outputs flattened into columns (``flat_rows``; ``read_rows``
# keeps them as dicts); ``allockit results export`` writes the same rows as CSV.
rows = pd.DataFrame(flat_rows(store))
rows = rows[["instance", "method", "status", "min_yield", "avg_yield", "seconds"]]
rows.sort_values(["instance", "method"]).reset_index(drop=True).round(4)
