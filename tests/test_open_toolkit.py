"""The open toolkit: user methods by name everywhere, compare, allockit methods, shipping."""

from __future__ import annotations

import hashlib
import json
import re
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from allockit.cli import main
from allockit.comparison import Comparison, compare
from allockit.drfh import allocate
from allockit.errors import InvalidInputError
from allockit.instances import sample_dir
from allockit.instances.drfh import DRFHInstance
from allockit.instances.reserves import ReservesInstance, random_reserves
from allockit.instances.vcsched import VCInstance
from allockit.plugins import load_spec, provide_sources, resolve
from allockit.registry import method_list, resolve_method
from allockit.reserves import allocate_reserves
from allockit.tasks import Task, execute_task
from allockit.vcsched import solve
from tests.user_methods import first_fit

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
A = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.1, 0.1, 0.1])
B = VCInstance.from_lists(hosts=2, cpu=[0.9, 0.3, 0.3], mem=[0.2, 0.2, 0.2])
TIGHT = VCInstance.from_lists(hosts=1, cpu=[0.5, 0.5], mem=[0.7, 0.7])  # infeasible


# ---------------------------------------------------------------- spec forms (hypothesis)
_NAME = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True)


@given(module=_NAME, attr=_NAME, family=st.sampled_from(["vcsched", "drfh", "reserves"]))
def test_unknown_modules_are_one_line_naming_the_spec(module, attr, family):
    spec = f"nosuch_{module}:{attr}"
    with pytest.raises(InvalidInputError) as info:
        resolve_method(family, spec, label="--method")
    text = str(info.value)
    assert "\n" not in text and text.startswith(f"--method {spec!r}: cannot import module")


@given(attr=_NAME.filter(lambda a: a not in dir(__import__("math"))))
def test_missing_attributes_are_named(attr):
    with pytest.raises(InvalidInputError, match=rf"module 'math' has no attribute '{attr}'$"):
        resolve("vcsched", f"math:{attr}", {})


@given(text=st.text(max_size=30))
def test_any_name_resolves_or_fails_with_one_line(text):
    for family in ("vcsched", "drfh", "reserves", "scheduler"):
        try:
            resolved = resolve_method(family, text)
        except InvalidInputError as exc:
            assert "\n" not in str(exc).strip() or "unknown" in str(exc)
        else:
            assert resolved.name == text


@given(body=st.sampled_from(["def f(:\n", "raise RuntimeError('boom')\n", "import nosuch_q\n"]),
       name=_NAME)
def test_files_that_fail_to_import_are_one_line(tmp_path_factory, body, name):
    path = tmp_path_factory.mktemp("specs") / f"{name}.py"
    path.write_text(body)
    with pytest.raises(InvalidInputError, match=rf"importing '.*{name}.py' failed: \w+"):
        resolve_method("drfh", f"{path}:f")


def test_every_form_names_the_same_heuristic(tmp_path, monkeypatch):
    copy = tmp_path / "ff.py"
    copy.write_text((ROOT / "tests" / "user_methods.py").read_text())
    want = solve(B, first_fit).min_yield
    monkeypatch.chdir(tmp_path)
    for method in (first_fit, "tests.user_methods:first_fit", f"{copy}:first_fit",
                   "ff.py:first_fit"):
        result = solve(B, method)
        assert result.min_yield == want
    assert solve(B, "ff.py:first_fit").method == "ff.py:first_fit"


# ---------------------------------------------------------------- reserves contract
def test_reserves_user_methods_are_checked_per_node():
    inst = random_reserves(4, 3, seed=1)
    r = allocate_reserves(inst, "tests.user_methods:even_reserves")
    assert r.method == "tests.user_methods:even_reserves" and str(r.status) == "feasible"
    assert np.allclose(r.class_totals, inst.targets) and np.allclose(r.deviation, 0)
    with pytest.raises(InvalidInputError, match=r"node 2 is allocated 1.*% \(> 100\)"):
        allocate_reserves(inst, lambda i, **o: np.where(np.arange(4)[:, None] == 2, 50.0, 10.0)
                          * np.ones((4, 3)))
    with pytest.raises(InvalidInputError, match=r"shape \(4, 3\)"):
        allocate_reserves(inst, lambda i, **o: [[100.0]])
    with pytest.raises(InvalidInputError, match="seed must be an integer"):
        allocate_reserves(inst, "tests.user_methods:even_reserves", seed=-1)
    with pytest.raises(InvalidInputError, match="method must be one of"):
        allocate_reserves(inst, "bnak")


@given(data=st.data())
def test_any_allocation_within_the_nodes_is_accepted(data):
    nodes = data.draw(st.integers(1, 5))
    classes = data.draw(st.integers(1, 4))
    inst = random_reserves(nodes, classes, seed=data.draw(st.integers(0, 100)))
    rows = [data.draw(st.lists(st.floats(0, 100 / classes), min_size=classes,
                               max_size=classes)) for _ in range(nodes)]
    r = allocate_reserves(inst, lambda instance, **o: rows)
    assert np.allclose(r.class_totals, np.mean(rows, axis=0))
    assert np.allclose(r.deviation, r.class_totals - inst.targets)
    again = type(r).from_dict(json.loads(json.dumps(r.to_dict())))
    assert again.to_dict() == r.to_dict()


# ---------------------------------------------------------------- compare
def test_compare_mixes_names_and_callables():
    def nothing(instance, **options):
        return None  # found no placement

    c = compare({"a": A, "b": B, "tight": TIGHT}, [first_fit, "mcb8", "milp", nothing])
    by = {s.method.split(".")[-1]: s for s in c.summary()}
    assert set(by) == {"user_methods:first_fit", "mcb8", "milp", "nothing"}
    assert by["milp"].solved == 2 and by["milp"].infeasible == 1  # a proof
    assert by["mcb8"].solved == 2 and by["mcb8"].no_solution == 1  # a rule, not a proof
    assert by["nothing"].no_solution == 3 and by["nothing"].solved == 0
    assert by["milp"].avg_degradation == 0.0
    for s in c.summary():
        assert s.solved + s.infeasible + s.no_solution + s.errors == s.instances == 3
    assert len(c.rows) == 12 and {r["instance"] for r in c.rows} == {"a", "b", "tight"}
    table = c.table()
    assert "Columns. n: instances; solved" in table and "<locals>.nothing" in table
    assert Comparison.from_dict(json.loads(json.dumps(c.to_dict()))).to_dict() == c.to_dict()


def test_compare_with_workers_ships_named_methods_and_refuses_lambdas(tmp_path):
    copy = tmp_path / "mine.py"
    copy.write_text((EXAMPLES / "roundrobin.py").read_text())
    methods = [first_fit, f"{copy}:roundrobin", "sg"]  # a callable with a name travels
    serial = compare(sample_dir(), methods, time_limit=30)
    local = compare(sample_dir(), methods, workers=2, store=tmp_path / "c.db", time_limit=30)
    assert local.failed_tasks == serial.failed_tasks == 0
    pick = [("instance", "method", "status", "min_yield", "avg_yield")]
    rows = [tuple(r[k] for k in pick[0]) for r in local.rows]
    assert rows == [tuple(r[k] for k in pick[0]) for r in serial.rows]
    again = compare(sample_dir(), methods, workers=2, store=tmp_path / "c.db")  # resumed
    assert [r["min_yield"] for r in again.rows] == [r["min_yield"] for r in local.rows]
    with pytest.raises(InvalidInputError, match="callable without an importable name"):
        compare([A], [lambda instance, **o: [0, 1, 0]], workers=2)
    with pytest.raises(InvalidInputError, match="lists 'sg' twice"):
        compare([A], ["sg", "sg"])
    with pytest.raises(InvalidInputError, match="two instances are named 'x'"):
        compare([("x", A), ("x", B)], ["sg"])


def test_compare_plots_and_dataframe(tmp_path):
    pytest.importorskip("matplotlib")
    c = compare(sample_dir(), ["mcb8", "sg"])
    assert sorted(p.name for p in c.plot(tmp_path)) == [
        "avg_yield_vs_slack.png", "failures_vs_slack.png", "min_yield_vs_slack.png",
        "runtime_vs_jobs.png",
    ]
    pd = pytest.importorskip("pandas")
    frame = c.to_pandas()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 72


def test_compare_cli_takes_specs_and_prints_the_legend(tmp_path, capsys):
    copy = tmp_path / "rr.py"
    copy.write_text((EXAMPLES / "roundrobin.py").read_text())
    code = main(["compare", str(sample_dir()), "--methods", f"mcb8,{copy}:roundrobin",
                 "--backend", "serial", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0 and f"{copy}:roundrobin" in out and "Columns. n: instances" in out
    code = main(["compare", str(sample_dir()), "--methods", f"mcb8,{copy}:nope",
                 "--backend", "serial"])
    err = capsys.readouterr().err
    assert code == 2 and re.search(r"--methods '.*rr.py:nope': file .* has no attribute", err)


# ---------------------------------------------------------------- the command line
@pytest.mark.parametrize(
    ("argv", "pattern"),
    [
        (["solve", "{vc}", "--method", "nosuch_heur_mod:f"],
         r"--method 'nosuch_heur_mod:f': cannot import module 'nosuch_heur_mod'"),
        (["drfh", "{drfh}", "--method", "math:pi"], r"'pi' of module 'math' is not callable"),
        (["reserves", "{res}", "--method", "nowhere/m.py:f"], r"file '.*m.py' does not exist"),
        (["simulate", "{swf}", "--algorithm", "tests.user_methods:nothing"],
         r"module 'tests.user_methods' has no attribute 'nothing'"),
    ],
)
def test_cli_spec_errors_exit_2_with_one_line(argv, pattern, tmp_path, capsys):
    files = _files(tmp_path)
    code = main([a.format(**files) for a in argv])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and re.search(pattern, err), err


def _files(tmp_path):
    vc = tmp_path / "vc.json"
    vc.write_text(json.dumps(B.to_dict()))
    drfh = tmp_path / "drfh.json"
    drfh.write_text(json.dumps({"resources": ["cpu", "mem"], "servers": [{"capacity": [1, 1]}],
                                "users": [{"demand": [0.1, 0.2], "tasks": 3}]}))
    res = tmp_path / "res.json"
    res.write_text(json.dumps(random_reserves(3, 2, seed=0).to_dict()))
    return {"vc": vc, "drfh": drfh, "res": res, "swf": EXAMPLES / "data" / "lublin40.swf"}


def test_cli_runs_user_methods_of_every_family(tmp_path, capsys):
    files = _files(tmp_path)
    rr = f"{EXAMPLES}/roundrobin.py:roundrobin"
    assert main(["solve", str(files["vc"]), "--method", rr]) == 0
    assert json.loads(capsys.readouterr().out)["status"] in ("optimal", "feasible")
    assert main(["drfh", str(files["drfh"]), "--method",
                 f"{EXAMPLES}/equal_split.py:equal_split"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"].endswith("equal_split.py:equal_split") and out["status"] == "feasible"
    assert main(["reserves", str(files["res"]), "--method",
                 f"{EXAMPLES}/static_targets.py:static_targets"]) == 0
    assert json.loads(capsys.readouterr().out)["deviation"] == [0.0, 0.0]


# ---------------------------------------------------------------- allockit methods
def test_methods_lists_every_family_with_options(capsys):
    assert main(["methods"]) == 0
    data = json.loads(capsys.readouterr().out)
    by = {(m["family"], m["name"]): m for m in data["methods"]}
    assert data["count"] == len(data["methods"])
    assert {f for f, _ in by} == {"vcsched", "drfh", "scheduler", "reserves"}
    tol = next(o for o in by[("vcsched", "mcb8")]["options"] if o["name"] == "tol")
    assert tol == {"name": "tol", "range": "a number in [1e-09, 0.5]", "default": 0.001,
                   "meaning": "tolerance of the binary search on the yield"}
    depth = next(o for o in by[("scheduler", "EASY")]["options"] if o["name"] == "backfill_depth")
    assert depth["default"] is None and "head" in depth["meaning"]
    for method in data["methods"]:
        assert method["origin"] == "built-in" and method["summary"]
        assert set(method["common"]) == {"time_limit", "threads", "seed"}
        for option in method["options"]:
            assert option["meaning"], (method["name"], option["name"])
    assert main(["methods", "--family", "drfh"]) == 0
    names = [m["name"] for m in json.loads(capsys.readouterr().out)["methods"]]
    assert names == ["lp", "progressive", "first-fit", "best-fit", "per-server-drf", "slots"]
    with pytest.raises(SystemExit) as info:
        main(["methods", "--family", "fairness"])
    assert info.value.code == 2 and "invalid choice: 'fairness'" in capsys.readouterr().err


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    """A distribution that registers a method in every family, one of them broken."""
    (tmp_path / "allockit_toolkit_plugin.py").write_text(textwrap.dedent('''
        from allockit.options import MethodSpec, Range

        def rr(instance, **options):
            """Round robin over the hosts."""
            return [j % instance.hosts for j in range(instance.n_jobs)]

        rr.method_spec = MethodSpec("rr", "round robin", ("start",),
                                    ranges={"start": Range(int, ge=0)},
                                    defaults={"start": 0}, help={"start": "first host"})

        def even(instance, **options):
            import numpy as np
            return np.tile(instance.targets, (instance.n_nodes, 1))

        def one_each(instance):
            """One task per user on the first server class, when they all fit."""
            import numpy as np
            tasks = np.zeros((instance.n_users, instance.n_classes))
            tasks[:, 0] = 1.0
            return tasks

        LIMIT = 3
        '''))
    info = tmp_path / "allockit_toolkit_plugin-2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: allockit-toolkit-plugin\nVersion: 2.0\n"
    )
    (info / "entry_points.txt").write_text(
        "[allockit.methods]\n"
        "vcsched.rr = allockit_toolkit_plugin:rr\n"
        "reserves.even = allockit_toolkit_plugin:even\n"
        "drfh.one-each = allockit_toolkit_plugin:one_each\n"
        "drfh.gone = allockit_toolkit_plugin:missing\n"
        "drfh.limit = allockit_toolkit_plugin:LIMIT\n"
        "vcsched.mcb8 = allockit_toolkit_plugin:rr\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("allockit_toolkit_plugin", None)


def test_registered_plugins_are_listed_and_used_everywhere(plugins, tmp_path, capsys):
    assert main(["methods"]) == 0
    by = {(m["family"], m["name"]): m for m in json.loads(capsys.readouterr().out)["methods"]}
    rr = by[("vcsched", "rr")]
    assert rr["origin"] == "entry point 'allockit-toolkit-plugin'"
    assert rr["options"] == [{"name": "start", "range": "an integer >= 0", "default": 0,
                              "meaning": "first host"}]
    assert by[("reserves", "even")]["summary"] == ""
    assert "loading plug-in" in by[("drfh", "gone")]["error"]
    assert solve(B, "rr").method == "rr"
    with pytest.raises(InvalidInputError, match="start must be an integer >= 0"):
        solve(B, "rr", start=-1)  # the plug-in's declared options are checked
    c = compare([B], ["rr", "mcb8"])
    assert [s.method for s in c.summary()] == ["rr", "mcb8"]
    files = _files(tmp_path)
    assert main(["reserves", str(files["res"]), "--method", "even"]) == 0
    assert json.loads(capsys.readouterr().out)["method"] == "even"
    assert main(["drfh", str(files["drfh"]), "--method", "one-each"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["method"] == "one-each" and out["status"] == "feasible"
    # the fairness checker finds the registered mechanism by the same path
    code = main(["fairness", "--method", "one-each", "--instance", str(files["drfh"]),
                 "--properties", "pareto"])
    data = json.loads(capsys.readouterr().out)
    assert code == 3 and data["properties"][0]["status"] == "violated"  # 1 of 3 tasks: wasteful
    assert main(["fairness", "--method", "gone", "--properties", "pareto"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "'gone'" in err and "loading plug-in" in err
    # a plug-in that is no callable, or that a built-in shadows, is named as such
    assert by[("drfh", "limit")]["error"] == (
        "plug-in 'allockit_toolkit_plugin:LIMIT' is not callable (a int)")
    assert "named like the built-in 'mcb8'" in by[("vcsched", "mcb8")]["error"]
    with pytest.raises(InvalidInputError, match=r"'limit': plug-in .* is not callable"):
        allocate(DRFHInstance.from_dict(json.loads(files["drfh"].read_text())), "limit")


# ---------------------------------------------------------------- shipping user files
def test_a_task_carries_its_file_to_a_worker_that_lacks_it(tmp_path):
    from allockit.experiments.methods import method_fields

    path = tmp_path / "gone.py"
    path.write_text("def f(instance, **options):\n    return [0] * instance.n_jobs\n")
    fields = method_fields("vcsched", f"{path}:f")
    assert fields["sources"] == {str(path): path.read_text()}
    import allockit.experiments.vcsched  # noqa: F401  (registers the task kind)

    task = Task(kind="vcsched", instance_id="b", instance=B.to_dict(), **fields)
    path.unlink()
    with pytest.raises(InvalidInputError, match="does not exist"):
        load_spec(f"{path}:f")  # not in this process yet...
    row = execute_task(task)  # ...but the task brings it
    assert row.ok and row.outputs["status"] == "feasible", row.error
    assert load_spec(f"{path}:f")[0](B) == [0, 0, 0]


def test_shipped_sources_win_over_a_different_local_file(tmp_path):
    path = tmp_path / "v.py"
    path.write_text("def version():\n    return 'local'\n")
    provide_sources({str(path): "def version():\n    return 'shipped'\n"})
    assert load_spec(f"{path}:version")[0]() == "shipped"


def test_builtin_task_keys_are_unchanged():
    task = Task(kind="sleep", instance_id="i", instance={"a": 1}, method="-",
                params={"seconds": 0}, seed=3, time_limit=2.0)
    blob = json.dumps(["sleep", "i", {"a": 1}, "-", {"seconds": 0}, 3, 2.0],
                      sort_keys=True, default=str)
    assert task.key == hashlib.sha256(blob.encode()).hexdigest()[:24]
    user = Task(kind="sleep", instance_id="i", instance={"a": 1}, method="-", spec="m:f")
    assert user.key != Task(kind="sleep", instance_id="i", instance={"a": 1}, method="-").key


def test_reserves_instance_round_trip_of_random_rounds():
    inst = random_reserves(5, 3, seed=2)
    assert ReservesInstance.from_dict(inst.to_dict()).to_dict() == inst.to_dict()
    with pytest.raises(InvalidInputError, match="nodes must be an integer >= 1"):
        random_reserves(0, 3)
    assert method_list("reserves")[0]["name"] == "bank"


def test_the_readme_bring_your_own_example_runs(capsys):
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Bring your own algorithm"):]
    code = re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)
    assert len([line for line in code.splitlines() if line.strip()]) <= 14
    few = sorted(Path(sample_dir()).glob("h4-*.json"))[:3]
    exec(code.replace("sample_dir()", repr([str(p) for p in few])), {})
    out = capsys.readouterr().out
    assert "first_fit" in out and "milp" in out and "Columns. n: instances" in out
    first = next(line for line in out.splitlines() if "first_fit" in line).split()
    assert first[1] == "3"  # three instances
