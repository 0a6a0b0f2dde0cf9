"""Workload feedback fields (SWF fields 17 and 18): defaults, validation, JSON and SWF."""

import json

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.instances.swf import read_swf, swf_lines, swf_to_workload, workload_to_swf
from allockit.instances.workload import Platform, Workload


def _chain(**overrides):
    jobs = dict(
        submit=[0, 5, 30],
        runtime=[25, 20, 7],
        tasks=[1, 3, 3],
        cpu=[1, 0.5, 0.5],
        mem=[0.1] * 3,
        preceding=[-1, -1, 2],
        think_time=[np.nan, np.nan, 5.0],
    )
    jobs.update(overrides)
    return Workload.from_jobs(Platform(nodes=4), **jobs)


def test_defaults_are_none_and_json_is_unchanged():
    w = Workload.from_jobs(
        Platform(nodes=2), submit=[0, 1], runtime=[1, 1], tasks=[1, 1], cpu=[1, 1], mem=[0.1, 0.1]
    )
    assert w.preceding.tolist() == [-1, -1] and np.isnan(w.think_time).all()
    assert not w.has_feedback
    data = w.to_dict()
    assert "preceding" not in data and "think_time" not in data
    assert Workload.from_dict(data) == w


def test_json_round_trip_with_feedback():
    w = _chain()
    data = json.loads(json.dumps(w.to_dict(), allow_nan=False))
    assert data["preceding"] == [-1, -1, 2] and data["think_time"] == [None, None, 5.0]
    assert Workload.from_dict(data) == w and w.has_feedback


def test_swf_round_trip_writes_fields_17_and_18(tmp_path):
    w = _chain()
    trace = workload_to_swf(w)
    assert trace.data[:, 16].tolist() == [-1, -1, 2] and trace.data[:, 17].tolist() == [-1, -1, 5]
    path = tmp_path / "w.swf"
    path.write_text("".join(swf_lines(trace)), encoding="utf-8")
    assert swf_to_workload(read_swf(path)) == w


def test_reading_a_plain_swf_with_feedback():
    t = read_swf(
        [
            "; MaxNodes: 4",
            "1 0 0 100 2 -1 -1 2 -1 -1 1 1 -1 -1 1 -1 -1 -1",
            "2 100 0 50 2 -1 -1 2 -1 -1 1 1 -1 -1 1 -1 1 30",
            "3 150 0 50 1 -1 -1 1 -1 -1 1 1 -1 -1 1 -1 0 -1",
        ]
    )
    w = swf_to_workload(t)
    assert w.preceding.tolist() == [-1, 1, -1]  # job number 0 is "none" too
    assert w.think_time[1] == 30 and np.isnan(w.think_time[[0, 2]]).all()


def test_select_and_replace_keep_the_fields():
    w = _chain()
    part = w.select(np.array([False, True, True]))
    assert part.preceding.tolist() == [-1, 2] and part.think_time[1] == 5.0
    assert w.replace(think_time=np.zeros(3)).think_time.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"preceding": [-1, -2, -1]}, "preceding must be -1 or the id of another job; got -2"),
        (
            {"preceding": [-1, 2, -1]},
            "preceding must be -1 or the id of another job; got 2 at job 2",
        ),
        ({"think_time": [np.nan, -1.0, np.nan]}, r"think_time must be NaN \(none\) or finite"),
        ({"think_time": [np.inf, np.nan, np.nan]}, r"think_time must be NaN \(none\) or finite"),
    ],
)
def test_invalid_feedback_is_refused(overrides, message):
    with pytest.raises(InvalidInputError, match=message):
        _chain(**overrides)
