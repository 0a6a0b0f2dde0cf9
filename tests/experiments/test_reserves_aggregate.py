"""The cluster-reserves experiment table says a claim held only when every run kept it."""

from __future__ import annotations

import pytest

from allockit.experiments.reserves import aggregate, experiment_tasks, to_markdown

GOOD = {"status": "completed", "mean": [60.0, 30.0, 10.0], "std": [0.1, 0.1, 0.1],
        "targets": [60.0, 30.0, 10.0], "messages": 0, "events": [], "seconds": 0.1}
BAD = {**GOOD, "mean": [50.0, 40.0, 10.0]}
TASKS = experiment_tasks("fig3", seeds=3)


def _table(outputs_of):
    rows = [{"key": t.key, "ok": outputs_of(t) is not None, "instance": t.instance_id,
             "outputs": outputs_of(t) or {}} for t in TASKS]
    return aggregate("fig3", rows, TASKS)


@pytest.mark.parametrize(("outputs_of", "held", "runs", "failed"), [
    (lambda t: GOOD, True, 3, 0),
    (lambda t: GOOD if t.seed == 0 else None, None, 1, 4),  # two seeds failed: undecided
    (lambda t: GOOD if t.seed == 0 else {**GOOD, "status": "time_limit"}, None, 1, 4),
    (lambda t: BAD if t.seed == 1 else None, False, 1, 4),  # a run broke it: settled
    (lambda t: BAD if t.seed == 1 else GOOD, False, 3, 0),
])
def test_held_only_when_every_planned_run_completed_and_kept_it(outputs_of, held, runs,
                                                                 failed):
    # two of three seeds failing used to leave the one completed run's "yes"
    table = _table(outputs_of)
    row = table["rows"]["static"]
    assert row["claim_held"] is held and row["runs"] == runs and row["planned_runs"] == 3
    assert table["failed_tasks"] == failed
    text = to_markdown(table)
    word = {True: "| yes |", False: "| no |", None: "| undecided |"}[held]
    assert word in text.splitlines()[2]
    assert (f"{failed} runs failed" in text) is bool(failed)
    assert "{" not in text  # the paper's numbers in words, not a Python dict
