"""CLI fuzz suite: every subcommand on hypothesis-generated bad inputs keeps the contract.

Inputs: mutated VCSched and DRFH JSON, SWF files (header and fields), sweep TOML files,
hostile option values, unwritable output paths and foreign results stores. For every
run: exit code in {0, 2, 3}, no traceback, one message line on exit 2, strict JSON on
exit 0. Mutations that are invalid by the documented formats (a string, a bool, NaN or
a fraction where an integer is expected, an unknown field, a value out of range) must
be refused with exit 2; anything dropped on purpose must be counted in the output.

Most runs are in-process (``allockit.cli.main``); the cases that used to hang run in a
child process with a timeout. Written against the code before issue #18's fixes, where
it found every class of failure the issue lists (tracebacks, silently accepted input,
hangs, unwritable outputs found after the work, foreign stores).
"""

from __future__ import annotations

import copy
import json
import os
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from allockit.instances import example_path
from tests.cli.fuzz_harness import (
    ABSURD,
    TEMPLATES,
    Fixtures,
    check_case,
    check_contract,
    check_refused,
    hostile_values,
    leaf_parsers,
    must_refuse,
    option_cases,
    run_cli,
    run_subprocess,
    strict_json,
    template_args,
)
from tests.cli.fuzz_harness import _outside as fuzz_outside

FUZZ = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
NAN, INF = float("nan"), float("inf")
CORES = os.cpu_count() or 1


def _tmpdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="allockit-fuzz-"))


def _set(doc, path, value):
    doc = copy.deepcopy(doc)
    target = doc
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        if isinstance(target, dict):
            target.pop(path[-1], None)
        else:
            del target[path[-1]]
    else:
        target[path[-1]] = value
    return doc


_DELETE = object()

#: Values that no number field of a JSON instance may hold.
NOT_A_NUMBER = ["1", "0.5", True, False, [], {}, [1], NAN, INF, -INF, "nan"]
#: Values that no integer field may hold (besides NOT_A_NUMBER).
NOT_AN_INTEGER = [1.5, 0.5, 2.5, 1e20, -1]
#: Anything at all (the contract must hold, whatever the outcome).
ANY_VALUE = st.one_of(
    st.sampled_from([None, 0, -1, 1, 2, 10**30, 1e308, -1e308, 1e-320, "", "x", "é", [], {}]),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.lists(st.integers(-3, 3), max_size=3),
)

# ---------------------------------------------------------------------- VCSched JSON
VC_BASE = {
    "problem": "vcsched",
    "hosts": 2,
    "jobs": [
        {"name": "a", "cpu": 0.5, "mem": 0.2, "tasks": 1, "previous": None},
        {"name": "b", "cpu": 0.8, "mem": 0.3, "tasks": 2, "previous": None},
    ],
    "migration_budget": None,
}
VC_NUMBERS = [("jobs", 0, "cpu"), ("jobs", 1, "mem"), ("migration_budget",)]
VC_INTEGERS = [("hosts",), ("jobs", 1, "tasks"), ("jobs", 0, "previous")]
VC_ALL = [*VC_NUMBERS, *VC_INTEGERS, ("problem",), ("jobs",), ("jobs", 0, "name"), ("jobs", 0)]


def _write_json(doc, name="inst.json") -> Path:
    path = _tmpdir() / name
    path.write_text(json.dumps(doc), encoding="utf-8")  # NaN and Infinity as literals
    return path


@st.composite
def vc_invalid(draw):
    """A VCSched document that breaks the format for sure."""
    kind = draw(st.sampled_from(["number", "integer", "unknown", "missing", "range"]))
    if kind == "number":
        return _set(VC_BASE, draw(st.sampled_from(VC_NUMBERS + VC_INTEGERS)),
                    draw(st.sampled_from(NOT_A_NUMBER)))
    if kind == "integer":
        return _set(VC_BASE, draw(st.sampled_from(VC_INTEGERS)),
                    draw(st.sampled_from(NOT_AN_INTEGER)))
    if kind == "unknown":
        where = draw(st.sampled_from([(), ("jobs", 0)]))
        doc = copy.deepcopy(VC_BASE)
        target = doc if not where else doc["jobs"][0]
        target[draw(st.sampled_from(["extra", "Hosts", "cpus", "weight"]))] = 1
        return doc
    if kind == "missing":
        return _set(VC_BASE, draw(st.sampled_from([("hosts",), ("jobs", 0, "cpu"),
                                                   ("jobs", 1, "name")])), _DELETE)
    path, value = draw(st.sampled_from([
        (("hosts",), 0), (("hosts",), 10**20), (("jobs", 0, "cpu"), 1.5),
        (("jobs", 0, "cpu"), 0), (("jobs", 1, "mem"), -0.1), (("jobs", 1, "tasks"), 0),
        (("jobs", 1, "tasks"), 10**12), (("migration_budget",), -1), (("jobs", 0, "previous"), 5),
    ]))
    return _set(VC_BASE, path, value)


@FUZZ
@given(doc=vc_invalid())
@example(doc=_set(VC_BASE, ("hosts",), 1e20))
@example(doc=_set(VC_BASE, ("hosts",), True))
def test_vcsched_json_invalid_is_refused(doc):
    path = _write_json(doc)
    check_refused(run_cli(["solve", str(path), "--method", "sg"]))


@FUZZ
@given(path=st.sampled_from(VC_ALL), value=ANY_VALUE)
def test_vcsched_json_any_mutation_keeps_the_contract(path, value):
    inst = _write_json(_set(VC_BASE, path, value))
    check_contract(run_cli(["solve", str(inst), "--method", "mcb8"]))


@FUZZ
@given(data=st.binary(max_size=200))
@example(data=b"\x00\xff\xfe garbage")
@example(data=b'{"problem": "drfh", "resources": ["cpu"], "servers": [], "users": []}')
def test_instance_files_of_any_bytes_keep_the_contract(data):
    path = _tmpdir() / "inst.json"
    path.write_bytes(data)
    for argv in (["solve", str(path), "--method", "sg"], ["drfh", str(path)]):
        outcome = run_cli(argv)
        check_contract(outcome)
        assert outcome.code == 2, outcome.describe()


def test_a_drfh_file_given_to_solve_names_the_command(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps(DRFH_BASE))
    outcome = run_cli(["solve", str(path)])
    check_refused(outcome)
    assert "allockit drfh" in outcome.err, outcome.describe()


# ---------------------------------------------------------------------- DRFH JSON
DRFH_BASE = {
    "problem": "drfh",
    "resources": ["cpu", "mem"],
    "servers": [
        {"name": "s1", "capacity": [2, 12], "count": 1},
        {"name": "s2", "capacity": [12, 2], "count": 2},
    ],
    "users": [
        {"name": "u1", "demand": [0.2, 1], "weight": 1, "tasks": 5},
        {"name": "u2", "demand": [1, 0.2], "weight": 2, "tasks": None},
    ],
}
DRFH_NUMBERS = [("users", 0, "weight"), ("servers", 0, "capacity", 1), ("users", 1, "demand", 0)]
DRFH_INTEGERS = [("servers", 1, "count"), ("users", 0, "tasks")]
DRFH_ALL = [*DRFH_NUMBERS, *DRFH_INTEGERS, ("resources",), ("servers",), ("users", 0),
            ("users", 1, "name"), ("servers", 0, "capacity")]
DRFH_METHODS = ["lp", "progressive", "first-fit", "best-fit", "per-server-drf", "slots"]


@st.composite
def drfh_invalid(draw):
    kind = draw(st.sampled_from(["number", "integer", "unknown", "range"]))
    if kind == "number":
        return _set(DRFH_BASE, draw(st.sampled_from(DRFH_NUMBERS + DRFH_INTEGERS)),
                    draw(st.sampled_from(NOT_A_NUMBER)))
    if kind == "integer":
        return _set(DRFH_BASE, draw(st.sampled_from(DRFH_INTEGERS)),
                    draw(st.sampled_from(NOT_AN_INTEGER)))
    if kind == "unknown":
        doc = copy.deepcopy(DRFH_BASE)
        target = draw(st.sampled_from([doc, doc["servers"][0], doc["users"][1]]))
        target[draw(st.sampled_from(["extra", "Count", "demands"]))] = 1
        return doc
    path, value = draw(st.sampled_from([
        (("servers", 1, "count"), None), (("servers", 1, "count"), 0),
        (("servers", 1, "count"), 10**20), (("users", 0, "weight"), 1e308),
        (("users", 0, "weight"), 0), (("users", 0, "tasks"), -3),
        (("users", 0, "demand", 0), -1), (("servers", 0, "capacity", 0), 0),
    ]))
    return _set(DRFH_BASE, path, value)


@FUZZ
@given(doc=drfh_invalid(), method=st.sampled_from(DRFH_METHODS))
@example(doc=_set(DRFH_BASE, ("servers", 1, "count"), 1e20), method="lp")
@example(doc=_set(DRFH_BASE, ("servers", 1, "count"), None), method="lp")
@example(doc=_set(DRFH_BASE, ("users", 0, "tasks"), "1"), method="first-fit")
@example(doc=_set(DRFH_BASE, ("users", 0, "tasks"), 1.5), method="first-fit")
@example(doc=_set(DRFH_BASE, ("users", 0, "weight"), True), method="lp")
def test_drfh_json_invalid_is_refused(doc, method):
    path = _write_json(doc)
    check_refused(run_cli(["drfh", str(path), "--method", method]))


@FUZZ
@given(path=st.sampled_from(DRFH_ALL), value=ANY_VALUE, method=st.sampled_from(DRFH_METHODS))
def test_drfh_json_any_mutation_keeps_the_contract(path, value, method):
    if path in DRFH_INTEGERS and isinstance(value, int) and abs(value) > 1000:
        value = 1000  # huge task and server counts run in the subprocess cases below
    inst = _write_json(_set(DRFH_BASE, path, value))
    check_contract(run_cli(["drfh", str(inst), "--method", method]))


def test_drfh_lp_does_not_ignore_finite_task_caps(tmp_path):
    path = tmp_path / "caps.json"
    path.write_text(json.dumps(DRFH_BASE))
    outcome = run_cli(["drfh", str(path), "--method", "lp"])
    check_contract(outcome)
    if outcome.code == 0:  # honoured: nobody gets more tasks than it has
        users = strict_json(outcome.out)["users"]
        assert users[0]["tasks"] <= 5 + 1e-9, outcome.describe()


# ---------------------------------------------------------------------- SWF
SWF_HEADER = ["; MaxNodes: 4", "; MaxProcs: 8"]
SWF_ROWS = [
    "1 0 5 100 2 -1 -1 2 200 -1 1 3 -1 -1 1 -1 -1 -1",
    "2 10 0 50 1 -1 -1 1 60 -1 1 3 -1 -1 1 -1 -1 -1",
    "3 20 0 30 4 -1 -1 4 -1 -1 1 4 -1 -1 1 -1 -1 -1",
]
#: SWF fields that hold integers (1-based): job, processors, requested processors,
#: status, user, group, application, queue, partition, preceding job.
SWF_INTEGER_FIELDS = [1, 5, 8, 11, 12, 13, 14, 15, 16, 17]
SWF_TOKENS = ["2.5", "-5", "0", "1e308", "nan", "inf", "x", "99999999999999999999", "-1",
              "1e-300", "0x10", "1_000"]


def _swf(header=SWF_HEADER, rows=SWF_ROWS) -> Path:
    path = _tmpdir() / "w.swf"
    path.write_text("\n".join([*header, *rows]) + "\n", encoding="utf-8")
    return path


def _swf_field(row: int, field: int, token: str) -> list[str]:
    rows = list(SWF_ROWS)
    parts = rows[row].split()
    parts[field - 1] = token
    rows[row] = " ".join(parts)
    return rows


#: (arguments before the file, arguments after it) of the commands that read an SWF file.
SWF_COMMANDS = [
    (("workload", "stats"), ()),
    (("bound",), ()),
    (("simulate",), ("--algorithm", "EASY")),
    (("simulate",), ("--algorithm", "FCFS", "--unit", "cores")),
]


def _swf_argv(command, path, *extra):
    before, after = command
    return [*before, str(path), *after, *extra]


@FUZZ
@given(
    row=st.integers(0, 2),
    field=st.sampled_from(SWF_INTEGER_FIELDS),
    token=st.sampled_from(["2.5", "0.5", "nan", "inf", "x", "1e400", "99999999999999999999999"]),
    command=st.sampled_from(SWF_COMMANDS),
)
@example(row=0, field=5, token="2.5", command=SWF_COMMANDS[0])
def test_swf_bad_integer_fields_are_refused(row, field, token, command):
    path = _swf(rows=_swf_field(row, field, token))
    check_refused(run_cli(_swf_argv(command, path)))


@FUZZ
@given(
    key=st.sampled_from(["MaxNodes", "MaxProcs"]),
    value=st.sampled_from(["-5", "0", "99999999999999999999", "x", "1e308", "2.5", ""]),
    command=st.sampled_from(SWF_COMMANDS),
)
@example(key="MaxProcs", value="-5", command=SWF_COMMANDS[0])
@example(key="MaxNodes", value="99999999999999999999", command=SWF_COMMANDS[1])
def test_swf_bad_header_is_refused(key, value, command):
    header = [f"; {key}: {value}", *(h for h in SWF_HEADER if key not in h)]
    path = _swf(header=header)
    check_refused(run_cli(_swf_argv(command, path)))


@FUZZ
@given(
    row=st.integers(0, 2),
    field=st.integers(1, 18),
    token=st.sampled_from(SWF_TOKENS),
    command=st.sampled_from(SWF_COMMANDS),
    skip=st.booleans(),
)
@example(row=1, field=4, token="1e308", command=SWF_COMMANDS[1], skip=False)
def test_swf_any_field_keeps_the_contract(row, field, token, command, skip):
    path = _swf(rows=_swf_field(row, field, token))
    argv = _swf_argv(command, path, *(["--skip-bad"] if skip else []))
    check_contract(run_cli(argv))


@FUZZ
@given(
    runtimes=st.lists(st.sampled_from(["100", "-1", "0", "-50", "30"]), min_size=3, max_size=3),
    garbage=st.booleans(),
)
@example(runtimes=["100", "-1", "30"], garbage=False)
def test_swf_dropped_and_skipped_jobs_are_counted(runtimes, garbage):
    rows = []
    for k, run in enumerate(runtimes):
        parts = SWF_ROWS[k].split()
        parts[3] = run
        rows.append(" ".join(parts))
    if garbage:
        rows.append("this is not a job")
    path = _swf(rows=rows)
    outcome = run_cli(["workload", "stats", str(path), "--skip-bad"])
    check_contract(outcome)
    if outcome.code == 0:
        stats = strict_json(outcome.out)
        accounted = stats["jobs"] + stats.get("dropped_jobs", 0) + stats.get("skipped_lines", 0)
        assert accounted == len(rows), "jobs dropped without a word:\n" + outcome.describe()


@FUZZ
@given(data=st.binary(max_size=300), command=st.sampled_from(SWF_COMMANDS))
@example(data=b"\x1f\x8b\x08garbage", command=SWF_COMMANDS[0])
def test_swf_of_any_bytes_keeps_the_contract(data, command):
    path = _tmpdir() / "w.swf"
    path.write_bytes(data)
    check_contract(run_cli(_swf_argv(command, path)))


# ---------------------------------------------------------------------- sweep TOML
def _sweep(lines: list[str]) -> Path:
    folder = _tmpdir()
    (folder / "inst.json").write_text(Path(example_path()).read_text())
    (folder / "sweep.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / "sweep.toml"


SWEEP_BASE = {
    "name": '"fuzz"',
    "output": '"fuzz.db"',
    "methods": '["sg"]',
    "instances": '["inst.json"]',
    "seeds": "[0]",
    "backend": '"serial"',
}
#: (key, TOML value) pairs a sweep file must refuse.
SWEEP_INVALID = [
    ("seeds", '"abc"'), ("seeds", "[1.5]"), ("seeds", "[-1]"), ("seeds", "5"),
    ("seeds", "[99999999999999999999]"), ("seeds", "[true]"),
    ("grace", "-100"), ("grace", '"x"'), ("grace", "nan"), ("grace", "inf"),
    ("time_limit", '"ten"'), ("time_limit", "0"), ("time_limit", "-1"), ("time_limit", "nan"),
    ("time_limit", "true"), ("workers", '"two"'), ("workers", "0"), ("workers", "1.5"),
    ("workers", "100000"), ("output", "5"), ("output", "[]"), ("params", "5"),
    ("params", '"x"'), ("methods", "[]"), ("methods", '"sg"'), ("methods", '["simplex"]'),
    ("methods", '["sg", "sg"]'), ("instances", '"inst.json"'), ("instances", "[5]"),
    ("instances", '["missing.json"]'), ("backend", '"cloud"'), ("backend", "1"),
    ("name", "5"), ("generate", '"small"'), ("generate", "5"), ("scheduler", "5"),
    ("unknown", "1"),
]
SWEEP_TABLES = [
    "[generate]\nset = \"small\"\nevery = 0", "[generate]\nset = \"small\"\nevery = \"x\"",
    "[generate]\nset = \"tiny\"", "[generate]\nevery = 10", "[generate]\nset = \"small\"\nx = 1",
    "[generate]\nset = \"small\"\nevery = 1.5", "[generate]\nset = \"small\"\nseed = -1",
    "[params]\ntol = [0.1]", "[params]\nthreads = [-4]", "[params]\nthreads = [100000]",
    "[params]\nmax_attempts = [\"x\"]", "[params]\ntime_limit = [1]", "[params]\nseed = [1]",
]


@FUZZ
@given(case=st.one_of(st.sampled_from(SWEEP_INVALID), st.sampled_from(SWEEP_TABLES)))
@example(case=("seeds", '"abc"'))
@example(case="[params]\nthreads = [-4]")
def test_sweep_toml_invalid_is_refused(case):
    lines = dict(SWEEP_BASE)
    tables = []
    if isinstance(case, tuple):
        lines[case[0]] = case[1]
    else:
        tables.append(case)
    path = _sweep([f"{k} = {v}" for k, v in lines.items()] + tables)
    check_refused(run_cli(["sweep", str(path), "--no-progress"]))


@FUZZ
@given(
    key=st.sampled_from([*SWEEP_BASE, "grace", "time_limit", "workers", "params", "generate"]),
    value=st.sampled_from(['"x"', "0", "-1", "1.5", "[]", "[1, 2]", "true", "nan", "{}",
                           '["a", 1]', "2026-01-01", "{a = 1}"]),
)
def test_sweep_toml_any_value_keeps_the_contract(key, value):
    lines = dict(SWEEP_BASE)
    lines[key] = value
    path = _sweep([f"{k} = {v}" for k, v in lines.items()])
    check_contract(run_cli(["sweep", str(path), "--no-progress", "--backend", "serial"]))


@FUZZ
@given(data=st.binary(max_size=200))
@example(data=b"\x00\x01\x02\xff")
def test_sweep_toml_of_any_bytes_is_refused(data):
    folder = _tmpdir()
    (folder / "sweep.toml").write_bytes(data)
    check_refused(run_cli(["sweep", str(folder / "sweep.toml"), "--no-progress"]))


# ---------------------------------------------------------------------- options
def _templates() -> dict[str, list[str]]:
    swf = str(_swf())
    return {
        "solve": ["solve", example_path(), "--method", "sg"],
        "compare": ["compare", example_path(), "--methods", "sg", "--backend", "serial",
                    "--json", "--no-progress"],
        "generate": ["generate", "vcsched", "--hosts", "2", "--jobs", "3", "--slack", "0.5",
                     "--seed", "1"],
        "lublin": ["workload", "lublin", "--jobs", "20", "--nodes", "8"],
        "stats": ["workload", "stats", swf],
        "bound": ["bound", swf, "--method", "bisection"],
        "simulate": ["simulate", swf, "--algorithm", "EASY"],
        "drfh": ["drfh", str(_write_json(DRFH_BASE)), "--method", "slots"],
        "fairness": ["fairness", "--method", "first-fit", "--properties", "envy_freeness",
                     "--examples", "2"],
    }


#: (template, option) pairs with a numeric value.
NUMERIC_OPTIONS = [
    ("solve", "--time-limit"), ("solve", "--threads"), ("solve", "--seed"),
    ("compare", "--time-limit"), ("compare", "--seed"), ("compare", "--workers"),
    ("generate", "--hosts"), ("generate", "--jobs"), ("generate", "--slack"),
    ("generate", "--cov-cpu"), ("generate", "--cov-mem"), ("generate", "--seed"),
    ("lublin", "--jobs"), ("lublin", "--nodes"), ("lublin", "--seed"), ("lublin", "--load"),
    ("stats", "--nodes"), ("stats", "--cores"), ("bound", "--tol"), ("bound", "--nodes"),
    ("simulate", "--penalty"), ("simulate", "--period"), ("simulate", "--hold"),
    ("simulate", "--node-memory"), ("simulate", "--nodes"), ("simulate", "--backfill-depth"),
    ("drfh", "--slots"), ("fairness", "--examples"), ("fairness", "--seed"),
]
#: Values no numeric option accepts.
HOSTILE = ["nan", "inf", "-inf", "x", "", "1e400", "--", "0x10", "1/2"]
#: Values outside every option's range (hosts, threads, jobs, ... all have a ceiling).
HUGE = ["99999999999999999999999", "1e308"]


@FUZZ
@given(case=st.sampled_from(NUMERIC_OPTIONS), value=st.sampled_from(HOSTILE))
@example(case=("simulate", "--penalty"), value="nan")
@example(case=("compare", "--seed"), value="99999999999999999999999")
@example(case=("solve", "--threads"), value=str(4 * CORES + 1))
@example(case=("generate", "--seed"), value="-1")
@example(case=("lublin", "--nodes"), value="1")
def test_hostile_option_values_are_refused(case, value):
    template, option = case
    argv = [*_templates()[template], f"{option}={value}"]
    outcome = run_cli(argv)
    if template == "lublin" and option == "--nodes" and value == "1":
        check_contract(outcome, json_out=False)  # valid, or refused cleanly
        return
    check_refused(outcome)


@FUZZ
@given(
    case=st.sampled_from(NUMERIC_OPTIONS),
    value=st.sampled_from(["-1", "0", "1", "0.5", "1.5", "1e-300", "2", "-0", "1e9"]),
)
def test_any_option_value_keeps_the_contract(case, value):
    template, option = case
    argv = [*_templates()[template], f"{option}={value}"]
    check_contract(run_cli(argv), json_out=template != "lublin")


def test_duplicate_methods_and_files_are_refused(tmp_path):
    ex = example_path()
    for argv in (
        ["compare", ex, "--methods", "sg,sg", "--backend", "serial", "--json"],
        ["compare", ex, ex, "--methods", "sg", "--backend", "serial", "--json"],
    ):
        check_refused(run_cli(argv))


# ---------------------------------------------------------------------- output paths
def _paths(tmp: Path) -> dict[str, str]:
    (tmp / "dir").mkdir()
    (tmp / "file.txt").write_text("x")
    return {
        "missing-dir": str(tmp / "no" / "such" / "x.out"),
        "a-directory": str(tmp / "dir"),
        "under-a-file": str(tmp / "file.txt" / "x.out"),
    }


OUTPUT_CASES = [
    ("compare", ["--csv"]), ("compare", ["--plot"]), ("simulate", ["--jobs-csv"]),
    ("simulate", ["--plot"]), ("export", ["--csv"]), ("hpc2n-whole", ["--out"]),
]


@pytest.mark.parametrize("kind", ["missing-dir", "a-directory", "under-a-file"])
@pytest.mark.parametrize(("command", "option"), OUTPUT_CASES)
def test_unwritable_outputs_are_refused_before_any_work(tmp_path, command, option, kind):
    target = _paths(tmp_path)[kind]
    if kind == "missing-dir" and option == ["--plot"]:
        return  # a plot folder is created when missing
    if kind == "a-directory" and option == ["--plot"]:
        return  # a plot folder may exist
    store = tmp_path / "s.db"
    argv = {
        "compare": ["compare", example_path(), "--methods", "sg", "--backend", "serial",
                    "--json", "--store", str(store)],
        "simulate": ["simulate", str(_swf()), "--algorithm", "EASY"],
        "export": ["results", "export", str(_example_store(tmp_path))],
        "hpc2n-whole": ["workload", "hpc2n", str(Path(__file__).parents[1] / "data" /
                        "hpc2n_excerpt.swf"), "--whole"],
    }[command]
    outcome = run_cli([*argv, *option, target])
    check_refused(outcome)
    if command == "compare":
        assert not store.exists(), "the work ran before the output was checked"


def _example_store(tmp: Path) -> Path:
    path = tmp / "example.db"
    outcome = run_cli(["compare", example_path(), "--methods", "sg", "--backend", "serial",
                       "--json", "--store", str(path)])
    assert outcome.code == 0, outcome.describe()
    return path


def test_generate_set_into_an_existing_file_is_refused(tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("x")
    check_refused(run_cli(["generate", "vcsched-set", "small", "--out", str(target)]))
    check_refused(run_cli(["workload", "hpc2n", str(Path(__file__).parents[1] / "data" /
                           "hpc2n_excerpt.swf"), "--out", str(target)]))


def _foreign_stores(tmp: Path) -> dict[str, Path]:
    garbage = tmp / "garbage.db"
    garbage.write_bytes(b"this is not sqlite" * 100)
    other = tmp / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE people (name TEXT)")
    columns = tmp / "columns.db"
    with sqlite3.connect(columns) as db:
        db.execute("CREATE TABLE results (key TEXT, colour TEXT)")
    folder = tmp / "folder.db"
    folder.mkdir()
    return {"garbage": garbage, "other": other, "columns": columns, "folder": folder}


@pytest.mark.parametrize("kind", ["garbage", "other", "columns", "folder"])
def test_foreign_stores_are_refused_before_any_work(tmp_path, kind):
    store = _foreign_stores(tmp_path)[kind]
    before = store.read_bytes() if store.is_file() else None
    for argv in (
        ["compare", example_path(), "--methods", "sg", "--backend", "serial", "--json",
         "--store", str(store)],
        ["sweep", str(_sweep([f"{k} = {v}" for k, v in SWEEP_BASE.items()])),
         "--output", str(store), "--no-progress"],
        ["results", "export", str(store), "--csv", str(tmp_path / "rows.csv")],
    ):
        outcome = run_cli(argv)
        check_refused(outcome)
    if before is not None:
        assert store.read_bytes() == before, "a foreign file was modified"


# ---------------------------------------------------------------------- subprocess cases
HANG_SECONDS = 45.0


def _hang_cases() -> list[tuple[str, list[str]]]:
    big_task = _write_json(_set(DRFH_BASE, ("users", 0, "tasks"), 10**9))
    many_hosts = _write_json(_set(VC_BASE, ("hosts",), 10**9))
    long_job = _swf(rows=_swf_field(1, 4, "1e308"))
    swf = _swf()
    return [
        ("threads", ["solve", example_path(), "--method", "cpsat", "--threads", "100000"]),
        ("tasks", ["drfh", str(big_task), "--method", "first-fit"]),
        ("hosts", ["solve", str(many_hosts), "--method", "sg"]),
        ("tol", ["bound", str(swf), "--method", "bisection", "--tol", "1e-300"]),
        ("period", ["simulate", str(swf), "--algorithm", "GreedyPM */per", "--period", "1e-9"]),
        ("runtime", ["simulate", str(long_job), "--algorithm", "GreedyPM */per"]),
        ("dask", ["compare", example_path(), "--methods", "sg", "--backend", "dask",
                  "--scheduler", "tcp://127.0.0.1:9"]),
    ]


@pytest.mark.parametrize("name", ["threads", "tasks", "hosts", "tol", "period", "runtime", "dask"])
def test_former_hangs_end_quickly_with_the_contract(name):
    argv = dict(_hang_cases())[name]
    outcome = run_subprocess(argv, timeout=HANG_SECONDS)
    check_contract(outcome)
    assert outcome.seconds < 20, outcome.describe()


def test_help_is_fast_and_loads_no_pydantic():
    outcome = run_subprocess(["--help"], timeout=30)
    assert outcome.code == 0
    import subprocess
    import sys

    probe = subprocess.run(
        [sys.executable, "-c",
         "import sys; from allockit.cli import build_parser; build_parser();"
         "print('pydantic' in sys.modules)"],
        capture_output=True, text=True, check=True,
    )
    assert probe.stdout.strip() == "False"


# ---------------------------------------------------------------------- every option
# The parser is the list of what to fuzz (``fuzz_harness.option_cases``): every
# subcommand, every option and positional, classified from its declaration. A value the
# declaration refuses (outside the option's range, not one of its choices, an output
# that cannot be written, a file that cannot be read, an unknown name) must be refused
# with exit 2 and one line, before any work; any other value must keep the contract (a
# completed run with valid output, or one clear refusal) within CASE_SECONDS.
CASES = option_cases()
VALUED = [c for c in CASES if c.kind != "flag"]


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    from allockit.instances.datasets import DATA_ENV

    before = os.environ.get(DATA_ENV)
    os.environ[DATA_ENV] = str(tmp_path_factory.mktemp("no-traces"))  # names find nothing
    try:
        yield Fixtures(tmp_path_factory.mktemp("fuzz-parser"))
    finally:
        if before is None:
            os.environ.pop(DATA_ENV, None)
        else:
            os.environ[DATA_ENV] = before


def test_every_subcommand_has_a_template():
    missing = sorted(set(leaf_parsers()) - set(TEMPLATES))
    assert not missing, f"add a cheap invocation to fuzz_harness.TEMPLATES for: {missing}"
    assert not set(TEMPLATES) - set(leaf_parsers()), "a template of no subcommand"


def test_every_number_option_has_a_declared_range():
    from allockit.cli import common

    number_types = {common.positive_int, common.positive_float, common.nonnegative_float,
                    common.seed_int, common.finite_float, common.integer, int, float}
    missing = []
    for command, parser in leaf_parsers().items():
        ranges = common.option_ranges(command)
        for action in parser._actions:
            typed = action.type in number_types or getattr(action.type, "__name__", "") == (
                "numbers")
            if typed and action.dest not in ranges:
                missing.append(f"{command} {action.option_strings[0]}")
    assert not missing, f"declare a range in allockit.cli.common._ranges for: {missing}"


def test_the_parser_is_the_list_of_cases():
    # the walk finds every option the help lists, so a new one is fuzzed at once
    assert len({(c.command, c.dest) for c in CASES}) == len(CASES)
    commands = {c.command for c in CASES}
    assert {"cluster-sim", "measy-experiment", "workload jann97", "reproduce"} <= commands
    kinds = {(c.command, c.name): c.kind for c in CASES}
    assert kinds["cluster-sim", "--duration"] == "number"
    assert kinds["cluster-sim", "--fanout"] == "list"
    assert kinds["measy-experiment", "--plot"] == "output"
    assert kinds["workload jann97", "--model"] == "input"


#: The values every case gets in the deterministic run (hypothesis draws from the rest).
FIRST = {
    "number": ["abc", "nan", "1e308"],
    "list": ["1,abc", "1e308", "-5"],
    "typed": ["1@abc", "1@-1", "1@1e9", "99999@1", "m9.9@1"],
    "choice": ["bogus-choice"],
}


def _refusals(case):
    """The values every case gets here: each kind's first few, and its range's edges."""
    if case.kind not in FIRST:
        return hostile_values(case)
    values = list(FIRST[case.kind])
    if case.kind in ("number", "list"):
        from allockit.cli.common import option_ranges

        rule = option_ranges(case.command)[case.dest]
        values += fuzz_outside(rule if case.kind == "number" else rule.item)
    return values


@pytest.mark.parametrize("case", VALUED, ids=str)
def test_values_the_declaration_refuses_are_refused_before_any_work(fixtures, case):
    for template in TEMPLATES[case.command]:
        args = template_args(template, fixtures)
        for value in _refusals(case):
            if must_refuse(case, value, args):
                check_case(template, case, value, fixtures)


@st.composite
def parser_cases(draw):
    case = draw(st.sampled_from(CASES))
    template = draw(st.sampled_from(TEMPLATES[case.command]))
    if case.kind == "flag":
        return template, case, ""
    pool = hostile_values(case)
    value = draw(st.one_of(
        st.sampled_from(pool),
        st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        st.integers(-(10**25), 10**25).map(str),
        st.sampled_from(ABSURD),
    ))
    if value not in pool:  # a drawn value: never a placeholder, never written outside
        value = value.replace("{", "(").replace("}", ")")
        if case.kind in ("output", "input"):
            value = "{tmp}/" + value
    return template, case, value


PARSER_FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)


@PARSER_FUZZ
@given(drawn=parser_cases())
def test_any_value_of_any_option_keeps_the_contract(fixtures, drawn):
    template, case, value = drawn
    check_case(template, case, value, fixtures)


# ---------------------------------------------------------------------- the issue's cases
ISSUE_30 = [
    (["cluster-sim", "--nodes", "100", "--fanout", "abc"], "--fanout"),
    (["cluster-sim", "--scenario", "fig3", "--duration", "1e308"], "--duration"),
    (["cluster-sim", "--scenario", "fig3", "--duration", "1e7"], "--duration"),
    (["measy-experiment", "fig6", "--jobs", "100", "--loads", "1e308", "--store", "{store}"],
     "--loads"),
    (["measy-experiment", "fig6", "--jobs", "100", "--loads", "1e30", "--store", "{store}"],
     "--loads"),
    (["workload", "feitelson96", "--jobs", "100", "--load", "1e-300"], "--load"),
    (["workload", "lublin", "--jobs", "100", "--load", "1e-300"], "load 1e-300"),
    (["cluster-sim", "--nodes", "10", "--duration", "2", "--plot", "{tmp}/a-folder"], "--plot"),
    (["reproduce", "--paper", "nope"], "--paper"),
    (["workload", "jann97", "--jobs", "10", "--model", "{tmp}/unknown-field.json"], "colour"),
    (["workload", "jann97", "--jobs", "10", "--model", "{tmp}/list.json"], "object"),
    (["simulate", "{swf}", "--algorithm", "EASY", "--migration-cost", "5", "--bg-threshold",
      "0.5"], "--migration-cost applies to the two-tier schedulers"),
    (["cluster-sim", "--nodes", "10", "--fail", "1@1e9", "--duration", "20"], "--fail"),
    (["cluster-sim", "--nodes", "10", "--fanout", "1000,1000"], "--fanout"),
    (["reserves", "{reserves}", "--c", "1e308"], "--c"),
    (["measy-experiment", "fig13", "--costs", "-5", "--store", "{store}"], "in [0, 1e+10]"),
    (["workload", "fit", "{ctc}", "--out", "{tmp}/a-folder"], "--out"),
    (["workload", "fit", "{ctc}", "--out", "/proc/model.json"], "--out"),
    (["measy-experiment", "fig8", "--model", "lublin", "--jobs", "30", "--loads", "0.8",
      "--plot", "/proc/f.png", "--backend", "serial", "--store", "{store}"], "--plot"),
    (["dfrs-experiment", "table2", "--sets", "real", "--store", "{store}"], "real set"),
    (["dfrs-experiment", "table2", "--sets", "scaled", "--algorithms", "nope", "--store",
      "{store}"], "algorithms"),
]


@pytest.mark.parametrize(("argv", "says"), ISSUE_30, ids=lambda v: " ".join(v)[:60]
                         if isinstance(v, list) else None)
def test_the_issue_cases_are_refused_at_once_naming_the_cause(fixtures, argv, says):
    tmp, store = fixtures.fresh()
    (tmp / "list.json").write_text("[1, 2]")
    model = json.loads(Path(_jann_model(tmp)).read_text())
    model["colour"] = "red"
    (tmp / "unknown-field.json").write_text(json.dumps(model))
    outcome = run_cli([fixtures.render(a, tmp, store) for a in argv])
    check_refused(outcome)
    assert says in outcome.err, outcome.describe()
    assert outcome.seconds < 20 and not store.exists(), outcome.describe()


#: options merged from main after issue 30 was filed: each acts on some runs only.
APPLIES_ONLY = [
    (["simulate", "{swf}", "--algorithm", "EASY", "--reasy-extra", "line17"],
     "--reasy-extra applies to REASY"),
    (["simulate", "{swf}", "--algorithm", "KEASY", "--no-reasy-protect"],
     "--reasy-protect applies to REASY"),
    (["cluster-sim", "--nodes", "10", "--duration", "2", "--algorithm", "static",
      "--measure-noise", "5"], "--measure-noise applies to the algorithms that read reports"),
    (["cluster-sim", "--nodes", "10", "--duration", "2", "--algorithm", "static",
      "--report-jitter", "0.1"], "--report-jitter applies to the algorithms that read reports"),
]


@pytest.mark.parametrize(("argv", "says"), APPLIES_ONLY, ids=lambda v: " ".join(v)[:60]
                         if isinstance(v, list) else None)
def test_new_options_are_refused_where_they_do_not_act(fixtures, argv, says):
    tmp, store = fixtures.fresh()
    outcome = run_cli([fixtures.render(a, tmp, store) for a in argv])
    check_refused(outcome)
    assert says in outcome.err, outcome.describe()


@pytest.mark.parametrize("argv", [
    ["simulate", "{swf1}", "--algorithm", "REASY", "--reasy-extra", "line17",
     "--no-reasy-protect"],
    ["cluster-sim", "--nodes", "10", "--duration", "2", "--algorithm", "bank",
     "--measure-noise", "5", "--report-jitter", "0.1"],
], ids=lambda v: " ".join(v)[:60])
def test_new_options_are_taken_where_they_act(fixtures, argv):
    tmp, store = fixtures.fresh()
    outcome = run_cli([fixtures.render(a, tmp, store) for a in argv])
    check_contract(outcome)
    assert outcome.code == 0, outcome.describe()


def _jann_model(tmp):
    from allockit.instances.jann97 import load_jann_model, save_jann_model

    path = tmp / "model.json"
    save_jann_model(load_jann_model("ctc"), path)
    return path


def test_a_plot_is_written_where_it_is_reported(fixtures):
    tmp, _store = fixtures.fresh()
    target = tmp / "shares"  # no suffix: matplotlib alone would write shares.png
    outcome = run_cli(["cluster-sim", "--nodes", "6", "--duration", "2", "--plot", str(target)])
    check_contract(outcome)
    assert outcome.code == 0, outcome.describe()
    assert strict_json(outcome.out)["plot"] == str(target)
    assert target.read_bytes()[1:4] == b"PNG" and not Path(f"{target}.png").exists()


def test_a_fit_refuses_its_output_before_fitting(fixtures, monkeypatch):
    import allockit.instances.jann97 as jann97

    def never(*args, **kwargs):
        raise AssertionError("the fit ran before --out was checked")

    monkeypatch.setattr(jann97, "fit_jann97", never)
    tmp, _ = fixtures.fresh()
    outcome = run_cli(["workload", "fit", fixtures.paths["ctc"], "--out", str(tmp / "a-file"
                                                                            / "m.json")])
    check_refused(outcome)
    assert "--out" in outcome.err
