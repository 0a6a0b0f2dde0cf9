"""Defects a fuzz round found in the runner, the tasks and the clock: each test feeds the
bad input that the code took silently (or failed on with a raw error) before."""

import math
import sqlite3

import numpy as np
import pytest

from allockit.clock import Deadline
from allockit.errors import InvalidInputError
from allockit.runner import SweepSummary, Task, TaskRow, read_rows, run_sweep
from allockit.runner.backends import execute_task_guarded, run_local, run_serial
from allockit.runner.store import ResultStore, flat_rows
from allockit.tasks import TASK_KINDS


def _task(**fields):
    base = {"kind": "sleep", "instance_id": "a", "instance": {}, "method": "-"}
    return Task(**{**base, **fields})


# 1. keys do not depend on the number type -------------------------------------------


@pytest.mark.parametrize(
    ("numpy_fields", "python_fields"),
    [
        ({"seed": np.arange(2)[1]}, {"seed": 1}),
        ({"seed": np.uint8(7)}, {"seed": 7}),
        ({"time_limit": np.int64(5)}, {"time_limit": 5}),
        ({"time_limit": np.float32(0.5)}, {"time_limit": 0.5}),
        ({"params": {"seconds": np.int64(0)}}, {"params": {"seconds": 0}}),
        ({"params": {"tol": np.float32(0.5), "on": np.bool_(True)}},
         {"params": {"tol": 0.5, "on": True}}),
        ({"instance": {"cpu": np.array([0.5, 0.25]), "n": np.int32(2)}},
         {"instance": {"cpu": [0.5, 0.25], "n": 2}}),
    ],
)
def test_numpy_values_give_the_key_of_python_values(numpy_fields, python_fields):
    made = _task(**numpy_fields)
    assert made.key == _task(**python_fields).key
    assert made == _task(**python_fields)
    assert type(made.seed) in (int, type(None))


def test_a_python_time_limit_keeps_the_key_stores_already_hold():
    # 60 and 60.0 were hashed apart before numpy values were normalised: keep both keys
    assert _task(time_limit=60).key == "b35fa3f4398a254e9a42b464"  # e3d55a5's key
    assert _task(time_limit=60).key != _task(time_limit=60.0).key
    assert type(_task(time_limit=60).time_limit) is int


def test_numpy_seeds_are_stored_as_integers_and_resume_with_ints(tmp_path):
    db = tmp_path / "s.db"
    first = run_sweep([_task(seed=s) for s in np.arange(2)], db, backend="serial")
    assert first.ran == 2
    assert sorted(row["seed"] for row in read_rows(db)) == [0, 1]
    again = run_sweep([_task(seed=s) for s in range(2)], db, backend="serial")
    assert (again.ran, again.skipped, len(read_rows(db))) == (0, 2, 2)


def test_a_numpy_seed_stored_as_raw_bytes_by_an_older_version_reads_as_an_int(tmp_path):
    db = tmp_path / "s.db"
    run_sweep([_task(seed=3)], db, backend="serial")
    with sqlite3.connect(db) as con:
        con.execute("UPDATE results SET seed = ?", (np.int64(3).tobytes(),))
    assert read_rows(db)[0]["seed"] == 3


def test_ordinary_keys_are_unchanged():
    """Keys of tasks made of Python values, computed before the fixes: stores keep them."""
    assert _task().key == "a9e677a18e2ce75d0eabfcb6"
    assert _task(params={"seconds": 0.5}, seed=3).key == "b31faea017af107546d0e3d9"
    assert _task(
        instance={"cpu": [0.5, 0.25], "hosts": 4,
                  "nested": {"b": [1, 2, [3, 4.5]], "a": None, "t": True}},
        method="mcb8", params={"tol": 0.01, "starts": ["half"], "rule": "allockit"},
        seed=0, time_limit=10.0,
    ).key == "2ee421fe6fa8faa555cf9a53"
    assert _task(instance_id="é", instance={"x": (1, 2)}, method="m",
                 params={"flag": False, "n": float("nan")}, seed=2**40,
                 time_limit=0.5).key == "aef69c2aea5838a095d2409e"
    assert _task(kind="fail", instance_id="b", instance={"big": list(range(3000))},
                 params={"message": "boom"}).key == "9cfb74eb5a0564273facb01e"
    assert _task(params={1: "int key"}).key == "96eddaa9c7e9a3fc062c673c"


# 2. exact hashes; values that are not JSON data are refused -------------------------


def test_large_arrays_that_differ_give_different_keys_and_both_run(tmp_path):
    a = np.arange(2000)
    b = a.copy()
    b[1000] = -1  # str() of both is "[   0    1    2 ... 1997 1998 1999]"
    tasks = [_task(instance_id="a", instance={"x": a}), _task(instance_id="a", instance={"x": b})]
    assert tasks[0].key != tasks[1].key
    assert tasks[0].key == _task(instance_id="a", instance={"x": list(range(2000))}).key
    assert run_sweep(tasks, tmp_path / "s.db", backend="serial").ran == 2


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"params": {"tags": {1, 2}}}, r"params\['tags'\] must be JSON data .*got set"),
        ({"instance": {"o": object()}}, r"instance\['o'\] must be JSON data .*got object"),
        ({"params": {"c": 1j}}, r"params\['c'\] must be JSON data .*got complex"),
        ({"params": {"xs": [1, {2}]}}, r"params\['xs'\]\[1\] must be JSON data"),
        ({"params": [("seconds", 0)]}, "params must be a dict"),
        ({"sources": {"/f.py": 3}}, "sources must map file paths"),
    ],
)
def test_values_that_are_not_json_data_are_refused_when_the_task_is_made(fields, message):
    with pytest.raises(InvalidInputError, match=message):
        _task(**fields)


def test_a_task_that_holds_itself_is_refused():
    loop: dict = {}
    loop["me"] = loop
    with pytest.raises(InvalidInputError, match="holds itself"):
        _task(params=loop)


# 3. time limits: the alarm decides, any limit works ---------------------------------


def test_an_error_that_mentions_timeouterror_is_a_failure_not_a_time_limit():
    rows = []
    run_serial([_task(kind="fail", params={"message": "TimeoutError: upstream"})], rows.append, 0)
    [row] = rows
    assert (row.ok, row.status) == (False, "failed")
    assert "time limit" not in row.error


def test_a_task_raising_timeouterror_itself_is_a_failure():
    rows = []
    run_serial([_task(kind="fail", params={"message": "x"}, time_limit=30)], rows.append, 0)
    assert rows[0].status == "failed"


def test_an_alarm_firing_before_the_task_starts_still_makes_a_row():
    rows = []
    run_serial([_task(time_limit=1e-7) for _ in range(100)], rows.append, 0.0)
    assert len(rows) == 100
    assert {row.status for row in rows} <= {"time_limit", "done"}


def test_the_serial_backend_still_stops_an_overrunning_task():
    rows = []
    run_serial([_task(params={"seconds": 5}, time_limit=0.2)], rows.append, 0.0)
    assert rows[0].status == "time_limit"
    assert rows[0].seconds < 2
    assert "time limit of 0.2 s" in rows[0].error


@pytest.mark.parametrize("limit", [math.inf, 1e18, 1e12, 3e6])
def test_infinite_and_huge_time_limits_run_the_task(limit):
    rows = []
    run_serial([_task(time_limit=limit)], rows.append, 5.0)
    assert rows[0].status == "done"
    assert execute_task_guarded(_task(time_limit=limit), 5.0).status == "done"


# 4. the store checks a row before writing it ----------------------------------------

_GOOD_ROW = {"key": "k", "sweep": "s", "kind": "demo", "instance": "i", "method": "m",
             "params": {}, "seed": None, "ok": True, "status": "done", "outputs": {},
             "error": None, "wall_seconds": 0.5}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"ok": "false"}, "ok must be a bool; got 'false'"),
        ({"ok": 1}, "ok must be a bool; got 1"),
        ({"key": None}, "key must be a non-empty str; got None"),
        ({"key": ""}, "key must be a non-empty str"),
        ({"wall_seconds": "abc"}, "wall_seconds must be a finite number >= 0; got 'abc'"),
        ({"wall_seconds": None}, "wall_seconds must be a finite number >= 0; got None"),
        ({"wall_seconds": float("nan")}, "wall_seconds must be a finite number >= 0; got nan"),
        ({"wall_seconds": -1.0}, "wall_seconds must be a finite number >= 0"),
        ({"status": 3}, "status must be a str or None; got 3"),
        ({"sweep": None}, "sweep must be a str; got None"),
        ({"seed": "1"}, "seed must be an integer"),
        ({"outputs": {"s": {1}}}, r"outputs\['s'\] must be JSON data"),
    ],
)
def test_the_store_refuses_a_row_it_could_not_read_back(tmp_path, change, message):
    path = tmp_path / "r.db"
    with ResultStore(path) as store:
        store.write({**_GOOD_ROW, "key": "good"})
        with pytest.raises(InvalidInputError, match=message):
            store.write({**_GOOD_ROW, **change})
    assert [row["key"] for row in read_rows(path)] == ["good"]
    assert len(flat_rows(path)) == 1


def test_read_rows_names_a_row_an_older_version_wrote_without_checks(tmp_path):
    path = tmp_path / "r.db"
    with ResultStore(path) as store:
        store.write(_GOOD_ROW)
    with sqlite3.connect(path) as con:
        con.execute("UPDATE results SET wall_seconds = 'abc'")
    with pytest.raises(InvalidInputError, match="task 'k' has wall_seconds 'abc'"):
        read_rows(path)


# 5. tasks check their fields --------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"seed": "abc"}, r"seed must be an integer in \[0, 9223372036854775807\]; got 'abc'"),
        ({"seed": 2.5}, "seed must be an integer .*; got 2.5"),
        ({"seed": [1, 2, 3]}, r"seed must be an integer .*; got \[1, 2, 3\]"),
        ({"seed": -1}, "seed must be an integer .*; got -1"),
        ({"seed": True}, "seed must be an integer .*; got True"),
        ({"seed": 2**63}, "seed must be an integer"),
        ({"time_limit": True}, "time_limit must be None or a number > 0; got True"),
        ({"time_limit": "5"}, "time_limit must be None or a number > 0; got '5'"),
        ({"time_limit": 0}, "time_limit must be None or a number > 0; got 0"),
        ({"time_limit": float("nan")}, "time_limit must be None or a number > 0; got nan"),
        ({"instance_id": [1]}, r"instance_id must be a str; got \[1\]"),
        ({"instance_id": 3}, "instance_id must be a str; got 3"),
        ({"method": None}, "method must be a str; got None"),
        ({"kind": ["sleep"]}, "task kind must be one of"),
    ],
)
def test_a_task_refuses_bad_fields(fields, message):
    with pytest.raises(InvalidInputError, match=message):
        _task(**fields)


def test_valid_fields_are_kept():
    t = _task(seed=3.0, time_limit=2)
    assert (t.seed, t.time_limit) == (3, 2.0)
    assert _task(time_limit=math.inf).time_limit == math.inf


# 6. outputs that are numpy values are stored; a row that cannot be is a failed row --


def _numpy_outputs(task):
    return {"status": "done", "n": np.int64(3), "x": np.float32(0.5), "a": np.arange(3),
            "m": np.eye(2), "ok": np.bool_(True)}


def _set_outputs(task):
    return {"status": "done", "tags": {1, 2}}


@pytest.fixture
def kinds(monkeypatch):
    monkeypatch.setitem(TASK_KINDS, "numpy-outputs", f"{__name__}:_numpy_outputs")
    monkeypatch.setitem(TASK_KINDS, "set-outputs", f"{__name__}:_set_outputs")


def test_numpy_outputs_are_stored_as_python_values(tmp_path, kinds):
    db = tmp_path / "s.db"
    summary = run_sweep([_task(kind="numpy-outputs")], db, backend="serial")
    assert (summary.ran, summary.failed) == (1, 0)
    out = read_rows(db)[0]["outputs"]
    assert out == {"status": "done", "n": 3, "x": 0.5, "a": [0, 1, 2],
                   "m": [[1.0, 0.0], [0.0, 1.0]], "ok": True}
    assert type(out["n"]) is int


def test_numpy_params_no_longer_abort_the_sweep(tmp_path):
    db = tmp_path / "s.db"
    tasks = [_task(instance_id="i", params={"seconds": np.int64(0)}),
             _task(instance_id="f", params={"seconds": np.float32(0.0)})]
    assert run_sweep(tasks, db, backend="serial").ran == 2
    assert {row["instance"]: row["params"] for row in read_rows(db)} == {
        "i": {"seconds": 0}, "f": {"seconds": 0.0}}


def test_a_row_that_cannot_be_stored_becomes_a_failed_row_and_the_sweep_goes_on(tmp_path, kinds):
    db = tmp_path / "s.db"
    tasks = [_task(kind="set-outputs", instance_id="bad"), _task(instance_id="good")]
    summary = run_sweep(tasks, db, backend="serial")
    assert (summary.ran, summary.failed) == (2, 1)
    rows = {row["instance"]: row for row in read_rows(db)}
    assert rows["good"]["ok"] and rows["good"]["status"] == "done"
    bad = rows["bad"]
    assert (bad["ok"], bad["status"], bad["outputs"]) == (False, "failed", {})
    assert "could not be stored" in bad["error"] and "outputs['tags']" in bad["error"]


def test_a_kind_that_returns_no_dict_is_a_failed_row(tmp_path, monkeypatch):
    monkeypatch.setitem(TASK_KINDS, "no-dict", "builtins:repr")
    db = tmp_path / "s.db"
    summary = run_sweep([_task(kind="no-dict")], db, backend="serial")
    assert summary.failed == 1
    assert "not a dict of outputs" in read_rows(db)[0]["error"]


# 7. summaries and rows are read back as they are ------------------------------------

_SUMMARY = {"total": 3, "skipped": 1, "ran": 2, "failed": 0, "seconds": 0.5, "store": "s.db"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"failed": 0.9}, "failed must be an integer >= 0; got 0.9"),
        ({"total": 2.5}, "total must be an integer >= 0; got 2.5"),
        ({"ran": -5}, "ran must be an integer >= 0; got -5"),
        ({"ran": "2"}, "ran must be an integer >= 0; got '2'"),
        ({"others": True}, "others must be an integer >= 0; got True"),
        ({"seconds": "1"}, "seconds must be a finite number >= 0"),
        ({"store": 3}, "store must be a str; got 3"),
    ],
)
def test_a_sweep_summary_is_not_coerced(change, message):
    with pytest.raises(InvalidInputError, match=message):
        SweepSummary.from_dict({**_SUMMARY, **change})
    assert SweepSummary.from_dict(_SUMMARY).to_dict()["status"] == "completed"


def test_a_task_row_with_a_string_ok_is_refused():
    row = TaskRow(key="k", kind="sleep", instance="i", method="-", params={}, seed=None,
                  ok=False, status="failed", outputs={}, error="x", seconds=0.5)
    assert TaskRow.from_dict(row.to_dict()) == row
    with pytest.raises(InvalidInputError, match="ok must be a bool; got 'false'"):
        TaskRow.from_dict({**row.to_dict(), "ok": "false"})
    with pytest.raises(InvalidInputError, match="seconds must be a finite number >= 0"):
        TaskRow.from_dict({**row.to_dict(), "seconds": float("nan")})


# 8. worker counts and grace are checked up front ------------------------------------


@pytest.mark.parametrize("workers", [0, -1, float("nan"), 1.5, True])
def test_run_local_refuses_a_bad_worker_count(workers):
    with pytest.raises(InvalidInputError, match="workers must be an integer >= 1"):
        run_local([_task()], print, workers, 1.0)


@pytest.mark.parametrize("grace", [float("nan"), -1, math.inf, "1", None])
@pytest.mark.parametrize("backend", [run_local, run_serial])
def test_the_backends_refuse_a_bad_grace(backend, grace):
    args = (1, grace) if backend is run_local else (grace,)
    with pytest.raises(InvalidInputError, match="grace must be a finite number >= 0"):
        backend([_task(params={"seconds": 1}, time_limit=0.1)], print, *args)


def test_execute_task_guarded_refuses_a_bad_grace():
    with pytest.raises(InvalidInputError, match="grace must be a finite number >= 0"):
        execute_task_guarded(_task(time_limit=1.0), float("nan"))


# 9. the clock checks its arguments --------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda d: d.part(0.5, keep=math.nan), "keep must be a finite number >= 0; got nan"),
        (lambda d: d.part(0.5, floor=math.nan), "floor must be a finite number >= 0; got nan"),
        (lambda d: d.part(True), r"share must be a finite number in \(0, 1\]; got True"),
        (lambda d: d.part("0.5"), r"share must be a finite number in \(0, 1\]; got '0.5'"),
        (lambda d: d.part(None), "share must be"),
        (lambda d: d.part(0.5, keep=None), "keep must be"),
        (lambda d: d.part(0), "share must be"),
        (lambda d: d.seconds(floor=math.nan), "floor must be a finite number >= 0; got nan"),
        (lambda d: d.seconds(floor=None), "floor must be"),
        (lambda d: d.expired(need=math.nan), "need must be a number; got nan"),
        (lambda d: d.expired(need="1"), "need must be a number; got '1'"),
    ],
)
def test_the_clock_refuses_bad_arguments(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call(Deadline.of(10.0))


def test_the_clock_keeps_its_answers_for_valid_arguments():
    run = Deadline.of(100.0)
    assert round(run.part(0.3, keep=10.0).limit) == 27
    assert round(run.part(0.01, keep=10, floor=5).limit) == 5
    assert 0 < run.seconds(floor=0) <= 100
    assert run.expired(need=200) and not run.expired(need=1)
