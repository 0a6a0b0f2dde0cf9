"""Sweep files of every kind: the examples run, each kind's keys are checked, specs travel."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.cli import main
from allockit.errors import InvalidInputError
from allockit.experiments.sweep_spec import load_spec
from allockit.runner import read_rows, run_sweep

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
KINDS = ("vcsched", "drfh", "batch", "dfrs", "measy", "reserves", "cluster")


@pytest.mark.parametrize("kind", KINDS)
def test_every_example_sweep_file_runs(kind, tmp_path, capsys):
    path = EXAMPLES / f"sweep_{kind}.toml"
    spec = load_spec(path)
    assert spec.kind == kind
    db = tmp_path / f"{kind}.db"
    code = main(["sweep", str(path), "--backend", "serial", "--output", str(db),
                 "--no-progress"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and summary["failed"] == 0 and summary["ran"] == summary["total"] > 0
    rows = read_rows(db)
    assert {r["method"] for r in rows} == set(spec.methods)  # names as written in the file
    assert all(r["ok"] and r["outputs"]["status"] for r in rows)
    # the same file again: every task is already in the store
    assert main(["sweep", str(path), "--backend", "serial", "--output", str(db),
                 "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == summary["total"]


def _write(tmp_path, text, name="s.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        ('kind = "fairness"\noutput = "x.db"\nmethods = ["lp"]\n',
         r"kind must be one of vcsched, drfh, simulate, batch, dfrs, measy, reserves, cluster"),
        ('kind = "drfh"\noutput = "x.db"\nmethods = ["lp"]\n[generate]\nservers = 0\nusers = 3\n',
         r"generate.servers must be an integer in \[1, 1000000\], or a non-empty list"),
        ('kind = "drfh"\noutput = "x.db"\nmethods = ["drf"]\n[generate]\nservers = 2\nusers = 3\n',
         r"methods\[0\] must be one of \['lp'"),
        ('kind = "drfh"\noutput = "x.db"\nmethods = ["slots"]\n[generate]\nservers = 2\n'
         'users = 3\n[params]\nper_largest = 0\n',
         r"\[params\] per_largest: per_largest must be an integer in \[1, 10000\]"),
        ('kind = "batch"\noutput = "x.db"\nmethods = ["EASY"]\n[generate]\njobs = 5\n',
         r"generate.nodes is missing|nodes"),
        ('kind = "batch"\noutput = "x.db"\nmethods = ["EASY"]\n[generate]\njobs = 5\nnodes = 2\n'
         '[params]\npenalty = 3\n',
         r"simulator 'batch' does not accept option 'penalty'"),
        ('kind = "dfrs"\noutput = "x.db"\nmethods = ["Greedy */nope"]\n[generate]\njobs = 5\n'
         'nodes = 2\n', r"methods\[0\]"),
        ('kind = "batch"\noutput = "x.db"\nmethods = ["nosuch_policy_mod:P"]\n[generate]\n'
         'jobs = 5\nnodes = 2\n', r"cannot import module 'nosuch_policy_mod'"),
        ('kind = "measy"\noutput = "x.db"\nmethods = ["GreedyP *"]\n[generate]\nmodel = '
         '"lublin"\njobs = 5\nload = 0.5\n', r"methods\[0\] must be one of \['EASY', 'KEASY'"),
        ('kind = "measy"\noutput = "x.db"\nmethods = ["MEASY"]\n[generate]\nmodel = "x"\n'
         'jobs = 5\nload = 0.5\n', r"generate.model must be fwload, jwload or lublin"),
        ('kind = "reserves"\noutput = "x.db"\nmethods = ["bank"]\n[generate]\nnodes = 2\n'
         'classes = 2\n[params]\nretention = 2\n', r"retention must be a number in \[0, 1\]"),
        ('kind = "cluster"\noutput = "x.db"\nmethods = ["bank"]\nscenarios = ["fig99"]\n',
         r"scenarios\[0\] must be one of"),
        ('kind = "cluster"\noutput = "x.db"\nmethods = ["bank"]\nscenarios = ["fig3"]\n'
         '[params]\nduraton = 3\n', r"scenario 'fig3' with 'bank'"),
        ('kind = "cluster"\noutput = "x.db"\nmethods = ["magic"]\nscenarios = ["fig3"]\n',
         r"methods\[0\] must be one of \['static', 'bank', 'cluster-reserves'\]"),
        ('kind = "cluster"\noutput = "x.db"\nmethods = ["bank"]\n',
         r"scenarios is missing|scenarios"),
        ('output = "x.db"\nmethods = ["mcb8"]\n[generate]\nhosts = 4\njobs = 6\n',
         r"\[generate\] needs set, or hosts, jobs and slack; missing slack"),
        ('output = "x.db"\nmethods = ["mcb8"]\n[generate]\nset = "small"\nhosts = 4\n',
         r"\[generate\] takes either set"),
        ('output = "x.db"\nmethods = ["mine.py:heuristic"]\n[generate]\nset = "small"\n',
         r"methods\[0\] 'mine.py:heuristic': file '.*mine.py' does not exist"),
    ],
)
def test_each_kind_checks_its_keys_before_running(tmp_path, text, pattern, capsys):
    path = _write(tmp_path, text)
    with pytest.raises(InvalidInputError, match=pattern):
        load_spec(path)
    assert main(["sweep", str(path), "--backend", "serial"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    assert not (tmp_path / "x.db").exists()  # nothing ran


def test_user_method_file_is_relative_to_the_sweep_file(tmp_path):
    (tmp_path / "algos").mkdir()
    (tmp_path / "algos" / "h.py").write_text(
        "def first(instance, **options):\n    return [0] * instance.n_jobs\n"
    )
    path = _write(tmp_path, """
        output = "x.db"
        methods = ["algos/h.py:first", "sg"]
        [generate]
        hosts = 2
        jobs = 3
        slack = 0.8
        """)
    spec = load_spec(path)
    tasks = spec.tasks()
    mine = [t for t in tasks if t.method == "algos/h.py:first"]
    assert mine and mine[0].spec == f"{(tmp_path / 'algos' / 'h.py').resolve()}:first"
    assert list(mine[0].sources) == [str((tmp_path / "algos" / "h.py").resolve())]
    summary = run_sweep(tasks, tmp_path / "x.db", backend="serial")
    assert summary.failed == 0


def test_a_changed_user_file_gives_new_task_keys(tmp_path):
    (tmp_path / "h.py").write_text("def f(instance, **o):\n    return [0] * instance.n_jobs\n")
    path = _write(tmp_path, 'output = "x.db"\nmethods = ["h.py:f"]\n[generate]\nhosts = 2\n'
                            "jobs = 3\nslack = 0.8\n")
    before = {t.key for t in load_spec(path).tasks()}
    (tmp_path / "h.py").write_text("def f(instance, **o):\n    return [1] * instance.n_jobs\n")
    after = {t.key for t in load_spec(path).tasks()}
    assert before.isdisjoint(after)


@pytest.mark.third_party_rng
def test_user_methods_run_on_a_dask_local_cluster_without_their_files(tmp_path):
    """The file of a FILE.py:FUNCTION spec is shipped with each task: the workers run it
    although the file is gone by then; a policy class travels the same way."""
    distributed = pytest.importorskip("distributed")
    algos = tmp_path / "algos"
    algos.mkdir()
    (algos / "rr.py").write_text((EXAMPLES / "roundrobin.py").read_text())
    (algos / "sjf.py").write_text((EXAMPLES / "sjf_easy.py").read_text())
    vc = _write(tmp_path, """
        output = "vc.db"
        methods = ["algos/rr.py:roundrobin", "mcb8"]
        [generate]
        hosts = 3
        jobs = [5, 7]
        slack = 0.5
        """, "vc.toml")
    batch = _write(tmp_path, """
        kind = "batch"
        output = "b.db"
        methods = ["algos/sjf.py:ShortestJobFirst", "EASY"]
        [generate]
        jobs = 30
        nodes = 4
        load = 0.8
        """, "b.toml")
    grids = {name: load_spec(p).tasks() for name, p in (("vc", vc), ("b", batch))}
    serial = {}
    for name, tasks in grids.items():
        run_sweep(tasks, tmp_path / f"{name}-serial.db", backend="serial")
        serial[name] = {(r["instance"], r["method"]): r["outputs"]
                        for r in read_rows(tmp_path / f"{name}-serial.db")}
    for path in algos.iterdir():
        path.unlink()  # the workers must use the shipped sources
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        for name, tasks in grids.items():
            summary = run_sweep(tasks, tmp_path / f"{name}.db", backend="dask",
                                scheduler=cluster.scheduler_address)
            assert summary.failed == 0, read_rows(tmp_path / f"{name}.db")
            rows = read_rows(tmp_path / f"{name}.db")
            for row in rows:
                want = serial[name][(row["instance"], row["method"])]
                for key in ("status", "min_yield", "max_stretch"):
                    assert row["outputs"].get(key) == want.get(key)
    assert {r["method"] for r in rows} == {"algos/sjf.py:ShortestJobFirst", "EASY"}


_VALUES = st.one_of(
    st.booleans(), st.integers(-5, 300), st.floats(-1e3, 1e3, allow_nan=False),
    st.text(max_size=8), st.lists(st.integers(-2, 3), max_size=3), st.just([]),
)


@settings(max_examples=40)
@given(kind=st.sampled_from(KINDS), data=st.data())
def test_mutated_sweep_files_load_or_fail_with_one_line(tmp_path_factory, kind, data):
    """Any value in any field of any kind's file: a spec, or one InvalidInputError line."""
    import tomllib

    doc = tomllib.loads((EXAMPLES / f"sweep_{kind}.toml").read_text())
    tables = [k for k, v in doc.items() if isinstance(v, dict)]
    where = data.draw(st.sampled_from([None, *tables]), label="table")
    target = doc if where is None else doc[where]
    key = data.draw(st.sampled_from([*sorted(target), "unknown_key"]), label="key")
    target[key] = data.draw(_VALUES, label="value")
    folder = tmp_path_factory.mktemp("fuzz")
    for name in ("roundrobin.py", "equal_split.py", "static_targets.py", "sjf_easy.py"):
        (folder / name).write_text((EXAMPLES / name).read_text())
    (folder / "data").mkdir()
    (folder / "data" / "lublin40.swf").write_text((EXAMPLES / "data" / "lublin40.swf").read_text())
    path = folder / "s.toml"
    path.write_text(_toml(doc))
    try:
        spec = load_spec(path)
    except InvalidInputError as exc:
        assert "\n" not in str(exc).strip(), str(exc)
        return
    try:
        tasks = spec.tasks()
    except InvalidInputError as exc:  # e.g. instance files that do not match
        assert "\n" not in str(exc).strip(), str(exc)
        return
    assert all(t.kind for t in tasks)


def _toml(doc: dict) -> str:
    """A small TOML writer (top-level values, then tables) for the fuzz test."""
    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return repr(v)

    lines = [f"{k} = {value(v)}" for k, v in doc.items() if not isinstance(v, dict)]
    for k, v in doc.items():
        if isinstance(v, dict):
            lines.append(f"[{k}]")
            lines += [f"{kk} = {value(vv)}" for kk, vv in v.items()]
    return "\n".join(lines) + "\n"
