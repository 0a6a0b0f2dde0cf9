"""VCInstance: validation at the boundary, JSON round-trips, derived data."""

import json

import numpy as np
import pytest
from hypothesis import given

from allockit.errors import InvalidInputError
from allockit.instances.io import instance_from_json, instance_to_json, read_instance
from allockit.instances.vcsched import VCInstance
from tests.strategies import vc_instances


def _doc(**overrides):
    job = {"name": "j0", "cpu": 0.5, "mem": 0.2, "tasks": 1, "previous": None}
    job.update(overrides.pop("job", {}))
    doc = {"problem": "vcsched", "hosts": 4, "jobs": [job], "migration_budget": None}
    doc.update(overrides)
    return doc


def test_documented_example_parses():
    inst = VCInstance.from_dict(_doc())
    assert inst.hosts == 4 and inst.job_names == ("j0",)
    assert inst.cpu.tolist() == [0.5] and inst.tasks.tolist() == [1]


@pytest.mark.parametrize(
    ("job", "match"),
    [
        ({"cpu": 0.0}, r"jobs\[0\]\.cpu must be a number in \(0, 1\]; got 0.0 at job 'j0'"),
        ({"cpu": 1.5}, r"jobs\[0\]\.cpu must be a number in \(0, 1\]; got 1.5 at job 'j0'"),
        ({"cpu": -0.1}, r"jobs\[0\]\.cpu must be .*; got -0.1 at job 'j0'"),
        ({"mem": -0.5}, r"jobs\[0\]\.mem must be a number >= 0 .*; got -0.5 at job 'j0'"),
        ({"cpu": float("nan")}, r"jobs\[0\]\.cpu must be a number in .*; got NaN at job 'j0'"),
        ({"mem": float("inf")}, r"jobs\[0\]\.mem must be a number .*; got Infinity at job 'j0'"),
        ({"cpu": "half"}, r"jobs\[0\]\.cpu must be a number .*; got 'half' at job 'j0'"),
        ({"cpu": True}, r"jobs\[0\]\.cpu must be a number .*; got true at job 'j0'"),
        ({"tasks": 0}, r"jobs\[0\]\.tasks must be an integer in \[1, .*\]; got 0 at job 'j0'"),
        ({"tasks": 1.5}, r"jobs\[0\]\.tasks must be an integer .*; got 1.5 at job 'j0'"),
        ({"tasks": "2"}, r"jobs\[0\]\.tasks must be an integer .*; got '2' at job 'j0'"),
        ({"previous": 9}, r"jobs\[0\]\.previous must hold host indices in \[0, 3\]; got 9"),
        ({"previous": -2}, r"jobs\[0\]\.previous must be null, a host index .*; got -2 at"),
        ({"tasks": 2, "previous": [0]}, r"one host per task \(2\); got 1 at job 'j0'"),
        ({"colour": "red"}, r"jobs\[0\]\.colour is not a known field at job 'j0'; valid fields"),
    ],
)
def test_bad_job_field_is_named(job, match):
    with pytest.raises(InvalidInputError, match=match):
        VCInstance.from_dict(_doc(job=job))


def test_missing_job_field_is_named():
    doc = _doc()
    del doc["jobs"][0]["mem"]
    with pytest.raises(InvalidInputError, match=r"jobs\[0\]\.mem is missing at job 'j0'"):
        VCInstance.from_dict(doc)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"hosts": 0}, r"hosts must be an integer in \[1, 1000000\]; got 0"),
        ({"hosts": "4"}, r"hosts must be an integer in \[1, 1000000\]; got '4'"),
        ({"hosts": 4.0}, r"hosts must be an integer in \[1, 1000000\]; got 4.0"),
        ({"hosts": 10**9}, r"hosts must be an integer in \[1, 1000000\]; got 1000000000"),
        ({"problem": "drfh"}, r"problem must be 'vcsched'; got 'drfh'"),
        ({"extra": 1}, r"extra is not a known field; valid fields: hosts, jobs"),
        ({"jobs": []}, r"jobs must be a list of at least one job; got \[\]"),
        ({"jobs": {"a": 1}}, r"jobs must be a list of at least one job"),
        ({"migration_budget": -1}, r"migration_budget must be null or a number >= 0.*; got -1"),
        ({"max_migrations": -1}, r"max_migrations must be null or an integer >= 0; got -1"),
    ],
)
def test_bad_top_level_field_is_named(change, match):
    with pytest.raises(InvalidInputError, match=match):
        VCInstance.from_dict(_doc(**change))


def test_missing_top_level_field():
    doc = _doc()
    del doc["hosts"]
    with pytest.raises(InvalidInputError, match=r"hosts is missing \(required: an integer"):
        VCInstance.from_dict(doc)


def test_duplicate_names_rejected():
    doc = _doc()
    doc["jobs"].append(dict(doc["jobs"][0]))
    with pytest.raises(InvalidInputError, match="unique; got 'j0' twice"):
        VCInstance.from_dict(doc)


def test_malformed_json_names_the_position():
    with pytest.raises(InvalidInputError, match=r"malformed JSON.*line 1 column"):
        instance_from_json('{"problem": "vcsched", "hosts": 4,')


def test_memory_above_one_is_accepted():
    inst = VCInstance.from_dict(_doc(job={"mem": 1.7}))
    assert inst.mem[0] == 1.7


def test_unreadable_file_is_an_input_error(tmp_path):
    with pytest.raises(InvalidInputError, match="cannot read instance file"):
        read_instance(tmp_path / "absent.json")
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    with pytest.raises(InvalidInputError, match=r"bad\.json: the instance must be an object"):
        read_instance(bad)


def test_arrays_are_read_only():
    inst = VCInstance.from_lists(hosts=2, cpu=[0.5], mem=[0.1])
    with pytest.raises(ValueError):
        inst.cpu[0] = 0.9


def test_previous_forms():
    inst = VCInstance.from_lists(
        hosts=3,
        cpu=[0.5, 0.5, 0.5],
        mem=[0, 0, 0],
        tasks=[1, 2, 2],
        previous=[2, 1, [0, 2]],
    )
    assert inst.previous.tolist() == [2, 1, 1, 0, 2]
    assert inst.previous_counts().tolist() == [[0, 0, 1], [0, 2, 0], [1, 0, 1]]
    assert inst.to_dict()["jobs"][1]["previous"] == [1, 1]


@given(instance=vc_instances())
def test_json_round_trip(instance):
    text = instance_to_json(instance)
    assert instance_from_json(text) == instance
    assert json.loads(text)["problem"] == "vcsched"


def test_task_job_and_counts():
    inst = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5], mem=[0, 0], tasks=[3, 1])
    assert inst.n_tasks == 4 and inst.is_parallel
    assert np.array_equal(inst.task_job, [0, 0, 0, 1])
