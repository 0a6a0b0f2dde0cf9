"""Local workers keep to an instance: its tasks run one after another in one process."""

import collections

import pytest

from allockit.runner import Task, run_sweep
from allockit.runner.backends import PICK_WINDOW, as_source, preferred_pick, run_local


def _task(instance, k, path="", seconds=0.0):
    return Task(kind="mark", instance_id=instance, instance={}, method=f"m{k}",
                params={"path": str(path), "seconds": seconds})


def test_preferred_pick_takes_the_first_of_the_lowest_rank():
    q = [_task(i, k) for k, i in enumerate("aabcb")]
    assert preferred_pick(q, lambda t: {"a": 2, "b": 1, "c": 1}[t.instance_id]) == 2
    assert preferred_pick(q, lambda t: 0 if t.instance_id == "c" else 1) == 3
    assert preferred_pick(q, lambda t: 5) == 0
    assert preferred_pick([], lambda t: 0) is None


def test_preferred_pick_looks_only_at_the_window():
    q = [_task("a", k) for k in range(PICK_WINDOW)] + [_task("b", 0)]
    assert preferred_pick(q, lambda t: 0 if t.instance_id == "b" else 1) == 0


def test_a_list_source_hands_out_every_task_once():
    tasks = [_task(i, k) for k in range(3) for i in "abc"]
    source = as_source(tasks)
    got = [source.take_preferring(lambda t: 0 if t.instance_id == "c" else 1) for _ in range(3)]
    got += [source.take() for _ in range(6)]
    assert [t.instance_id for t in got[:3]] == ["c", "c", "c"]
    assert sorted(t.key for t in got) == sorted(t.key for t in tasks)
    assert source.take() is None and source.exhausted


def _pids_per_instance(path):
    pids = collections.defaultdict(set)
    lines = path.read_text().split("\n")
    for line in filter(None, lines):
        instance, pid = line.split()
        pids[instance].add(pid)
    return pids, len(list(filter(None, lines)))


@pytest.mark.parametrize("via_store", [False, True])
def test_two_workers_do_not_split_an_instance_but_the_last(tmp_path, via_store):
    path = tmp_path / "marks.txt"
    # interleaved: a naive pool would give every instance to both workers
    tasks = [_task(i, k, path, 0.05) for k in range(5) for i in "abcd"]
    if via_store:
        summary = run_sweep(tasks, tmp_path / "s.db", backend="local", workers=2,
                            progress=False)
        assert summary.ran == len(tasks) and summary.failed == 0
    else:
        rows = []
        run_local(tasks, rows.append, workers=2, grace=5.0)
        assert len(rows) == len(tasks) and all(r.ok for r in rows)
    pids, lines = _pids_per_instance(path)
    assert lines == len(tasks)  # every task ran once
    split = [i for i, p in pids.items() if len(p) > 1]
    # only the tail can be shared: when the last instance's tasks are all that is left
    assert len(split) <= 1, dict(pids)
    assert len(set().union(*pids.values())) == 2


class _PlainSource:
    """A source without ``take_preferring``: handed out in its own order."""

    def __init__(self, tasks):
        self.tasks = list(tasks)

    def take(self):
        return self.tasks.pop(0) if self.tasks else None

    @property
    def exhausted(self):
        return not self.tasks


def test_a_source_that_cannot_pick_is_taken_in_order(tmp_path):
    path = tmp_path / "marks.txt"
    tasks = [_task(i, k, path) for k in range(2) for i in "ab"]
    rows = []
    run_local(_PlainSource(tasks), rows.append, workers=1, grace=5.0)
    assert [r.instance for r in rows] == ["a", "b", "a", "b"]
