"""User algorithms by name (``allockit.plugins``) and the contracts they are held to."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from allockit.drfh import allocate
from allockit.errors import InvalidInputError
from allockit.evaluation.placement import result_from_placement
from allockit.instances.drfh import DRFHInstance
from allockit.instances.vcsched import VCInstance
from allockit.options import MethodSpec, Range, parse_option_pairs
from allockit.plugins import callable_name, is_spec, load_spec, registered, resolve
from allockit.results import DRFHResult, Status, VCResult
from allockit.vcsched import solve

VC = VCInstance.from_lists(hosts=2, cpu=[0.6, 0.6, 0.6], mem=[0.3, 0.3, 0.3])
PARALLEL = VCInstance.from_lists(hosts=3, cpu=[0.5, 0.2], mem=[0.1, 0.4], tasks=[2, 3])
DRFH = DRFHInstance.from_dict(
    {
        "resources": ["cpu", "mem"],
        "servers": [{"name": "a", "capacity": [2, 2], "count": 2}],
        "users": [
            {"name": "u0", "demand": [0.5, 0.1], "tasks": 5},
            {"name": "u1", "demand": [0.1, 0.5]},
        ],
    }
)


def round_robin(instance, **options):
    """Job j on host j mod H (a user heuristic)."""
    return [j % instance.hosts for j in range(instance.n_jobs)]


@pytest.fixture
def user_file(tmp_path):
    path = tmp_path / "myheur.py"
    path.write_text(
        textwrap.dedent(
            """
            def roundrobin(instance, **options):
                return [j % instance.hosts for j in range(instance.n_jobs)]

            class Holder:
                def nothing(instance, **options):
                    return None

            NOT_CALLABLE = 3
            """
        )
    )
    return path


# ---------------------------------------------------------------- spec forms and errors
def test_is_spec_forms():
    assert is_spec("pkg.mod:func") and is_spec("a/b/c.py:Klass.method") and is_spec("x.py:f")
    assert not is_spec("mcb8") and not is_spec(":f") and not is_spec("m:1x") and not is_spec(3)
    assert not is_spec("GreedyPM */per/opt=min/minvt=600")


def test_module_spec_resolves_and_records_the_spec_as_given():
    r = resolve("vcsched", "tests.test_plugins:round_robin", {"mcb8": None})
    assert r.function is round_robin and r.name == "tests.test_plugins:round_robin"
    assert r.origin == "module 'tests.test_plugins'" and not r.builtin
    assert r.spec == "tests.test_plugins:round_robin"


def test_file_spec_resolves_with_an_absolute_spec(user_file, monkeypatch):
    monkeypatch.chdir(user_file.parent)
    r = resolve("vcsched", "myheur.py:roundrobin", {})
    assert r.file == str(user_file) and r.spec == f"{user_file}:roundrobin"
    assert r.function(VC) == [0, 1, 0]
    again = resolve("vcsched", r.spec, {})
    assert again.function is r.function  # the same module object, imported once
    assert resolve("vcsched", f"{user_file}:Holder.nothing", {}).function(VC) is None


@pytest.mark.parametrize(
    ("spec", "pattern"),
    [
        ("nosuch_mod_xyz:f", r"^method 'nosuch_mod_xyz:f': cannot import module 'nosuch_mod_xyz': "
         r"No module named 'nosuch_mod_xyz'$"),
        ("os.path:nosuch",
         r"^method 'os.path:nosuch': module 'os.path' has no attribute 'nosuch'$"),
        ("missing_dir/h.py:f", r"^method 'missing_dir/h.py:f': file '.*h.py' does not exist$"),
        ("math:pi", r"^method 'math:pi': 'pi' of module 'math' is not callable \(a float\)$"),
    ],
)
def test_spec_errors_are_one_line_naming_spec_and_cause(spec, pattern):
    with pytest.raises(InvalidInputError, match=pattern) as info:
        resolve("vcsched", spec, {})
    assert "\n" not in str(info.value)


def test_file_that_fails_to_import_names_the_error(tmp_path):
    bad = tmp_path / "broken.py"
    bad.write_text("def f(:\n")
    with pytest.raises(InvalidInputError, match=r"importing '.*broken.py' failed: SyntaxError"):
        resolve("drfh", f"{bad}:f", {})
    raising = tmp_path / "raising.py"
    raising.write_text("import nosuch_dependency_xyz\n")
    with pytest.raises(
        InvalidInputError, match="ModuleNotFoundError: No module named 'nosuch_dependency_xyz'"
    ):
        resolve("drfh", f"{raising}:f", {})
    exiting = tmp_path / "exiting.py"
    exiting.write_text("raise SystemExit(4)\n")
    with pytest.raises(InvalidInputError, match="SystemExit"):
        load_spec(f"{exiting}:f")


def test_directory_given_as_file(tmp_path):
    folder = tmp_path / "pkg.py"
    folder.mkdir()
    with pytest.raises(InvalidInputError, match="is not a file"):
        load_spec(f"{folder}:f")


def test_unknown_name_lists_builtins_and_forms():
    with pytest.raises(InvalidInputError, match=r"method must be one of \['lp', 'slots'\]"):
        resolve("drfh", "drf", {"lp": None, "slots": None})
    with pytest.raises(InvalidInputError, match="--method must be one of"):
        resolve("drfh", 3, {"lp": None}, label="--method")
    with pytest.raises(InvalidInputError, match="family must be one of"):
        resolve("nope", "lp", {"lp": None})


def test_callable_names():
    assert callable_name(round_robin) == ("tests.test_plugins:round_robin",) * 2
    name, spec = callable_name(lambda instance: None)
    assert spec is None and "lambda" in name

    def local(instance):
        return None

    assert callable_name(local)[1] is None


# ---------------------------------------------------------------- entry points
@pytest.fixture
def installed_plugin(tmp_path, monkeypatch):
    """A distribution on sys.path that registers vcsched.roundrobin and a broken one."""
    (tmp_path / "allockit_rr_plugin.py").write_text(
        "def roundrobin(instance, **options):\n"
        "    return [j % instance.hosts for j in range(instance.n_jobs)]\n"
    )
    info = tmp_path / "allockit_rr_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: allockit-rr-plugin\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text(
        "[allockit.methods]\n"
        "vcsched.roundrobin = allockit_rr_plugin:roundrobin\n"
        "vcsched.broken = allockit_rr_plugin_missing:f\n"
        "nofamily = allockit_rr_plugin:roundrobin\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("allockit_rr_plugin", None)


def test_entry_point_plugins_are_used_by_name(installed_plugin):
    found = registered("vcsched")
    assert set(found) == {"vcsched.roundrobin", "vcsched.broken"}
    assert registered("drfh") == {}
    r = resolve("vcsched", "roundrobin", {"mcb8": None})
    assert r.origin == "entry point 'allockit-rr-plugin'" and r.spec == "roundrobin"
    result = solve(VC, "roundrobin")
    assert result.method == "roundrobin" and result.status == Status.FEASIBLE
    with pytest.raises(InvalidInputError, match="loading plug-in 'allockit_rr_plugin_missing:f'"):
        resolve("vcsched", "broken", {})
    with pytest.raises(InvalidInputError, match="roundrobin"):  # listed among the names
        resolve("vcsched", "nope", {"mcb8": None})


# ---------------------------------------------------------------- VCSched contract
def test_user_placement_is_scored_like_a_builtin():
    r = solve(VC, round_robin)
    ref = result_from_placement(VC, np.array([0, 1, 0]), method="x", status=Status.FEASIBLE)
    assert r.min_yield == ref.min_yield and r.avg_yield == ref.avg_yield
    assert r.bound == ref.bound and r.status == Status.FEASIBLE
    assert r.method == "tests.test_plugins:round_robin" and r.solver == "user"
    assert solve(VC, "tests.test_plugins:round_robin").method == "tests.test_plugins:round_robin"


def test_per_task_lists_and_numpy_placements():
    r = solve(PARALLEL, lambda inst, **kw: [[0, 1], [2, 2, 0]])
    assert r.task_hosts.tolist() == [0, 1, 2, 2, 0]
    assert solve(VC, lambda inst, **kw: np.array([0, 1, 1])).task_hosts.tolist() == [0, 1, 1]


def test_none_is_no_solution_not_infeasible():
    r = solve(VC, lambda inst, **kw: None)
    assert r.status == Status.NO_SOLUTION and r.task_hosts is None
    assert r.to_dict()["status"] == "no_solution"


@pytest.mark.parametrize(
    ("placement", "pattern"),
    [
        ([0, 1, 2], r"job 2 \('j2'\) placed on host 2, out of range \[0, 1\]"),
        ([0, 1], r"one entry per job \(3\); got 2"),
        ([0, 1, -1], r"job 2 \('j2'\) placed on host -1"),
        ([0, 1, 1.0], r"job 2 \('j2'\) must get a host index"),
        ([0, 1, True], r"job 2 \('j2'\) must get a host index"),
        ("012", r"must return a placement"),
        (7, r"must return a placement"),
    ],
)
def test_invalid_placements_name_job_and_host(placement, pattern):
    with pytest.raises(InvalidInputError, match=pattern):
        solve(VC, lambda inst, **kw: placement)


def test_memory_overflow_names_host_and_jobs():
    full = VCInstance.from_lists(hosts=2, cpu=[0.5, 0.5, 0.5], mem=[0.6, 0.6, 0.1])
    with pytest.raises(InvalidInputError, match=r"memory of host 1 is 1.2 > 1 \(jobs 'j0', 'j1'\)"):
        solve(full, lambda inst, **kw: [1, 1, 0])
    with pytest.raises(InvalidInputError, match=r"job 1 \('j1'\) has 3 task\(s\) but got 2"):
        solve(PARALLEL, lambda inst, **kw: [0, [1, 2]])


def test_user_vcresult_is_checked():
    honest = solve(VC, "mcb8")
    assert solve(VC, lambda inst, **kw: honest).method.endswith("<lambda>")
    inflated = VCResult(
        method="x", status="optimal", job_names=VC.job_names, tasks=VC.tasks,
        min_yield=1.0, avg_yield=1.0, bound=1.0, gap=0.0,
        task_hosts=honest.task_hosts, task_cpu=honest.task_cpu, job_yield=honest.job_yield,
    )
    with pytest.raises(InvalidInputError, match="claims min_yield 1 but its placement gives"):
        solve(VC, lambda inst, **kw: inflated)
    empty = VCResult(method="x", status="feasible", job_names=VC.job_names, tasks=VC.tasks)
    with pytest.raises(InvalidInputError, match="must have a placement"):
        solve(VC, lambda inst, **kw: empty)


@pytest.mark.parametrize(("fields", "named"), [
    ({"min_yield": float("nan")}, "min_yield must be None or a finite number >= 0; got nan"),
    ({"status": "optimal", "bound": 0.1, "gap": 0.0}, r"bound 0.1 is below the min yield"),
    ({"bound": float("nan")}, "bound must be None or a number >= 0; got nan"),
    ({"job_names": ("a", "b", "c")}, "job_names must be the instance's"),
    ({"tasks": np.array([3, 0, 0])}, "tasks must be the instance's task counts"),
])
def test_a_user_vcresult_s_false_claims_are_refused(fields, named):
    # a NaN min_yield, a bound below the result's own yield, foreign jobs: all were kept
    from dataclasses import replace

    honest = solve(VC, "gr")
    with pytest.raises(InvalidInputError, match=named):
        solve(VC, lambda inst, **kw: replace(honest, **fields))


def test_a_user_vcresult_s_numbers_are_rescored_from_its_placement():
    from dataclasses import replace

    honest = solve(VC, "gr")
    garbage = {"task_cpu": np.full(VC.n_tasks, 5.0), "gap": 3.0, "avg_yield": 7.0,
               "job_yield": np.full(VC.n_jobs, np.nan), "migrations": 4}
    for field, value in (("gap", -3.0), ("migrations", -4), ("solve_seconds", "1")):
        with pytest.raises(InvalidInputError, match=f"{field} must be"):
            replace(honest, **{field: value})  # (refused by the result itself)
    r = solve(VC, lambda inst, **kw: replace(honest, **garbage))
    assert r.min_yield == honest.min_yield and r.avg_yield == honest.avg_yield
    assert np.array_equal(r.task_cpu, honest.task_cpu) and r.gap == honest.gap
    assert np.array_equal(r.job_yield, honest.job_yield) and r.migrations == honest.migrations
    no_place = VCResult(method="x", status="time_limit", job_names=VC.job_names, tasks=VC.tasks,
                        min_yield=0.9)
    with pytest.raises(InvalidInputError, match="without a placement cannot report min_yield"):
        solve(VC, lambda inst, **kw: no_place)


def test_common_and_declared_options_reach_the_user_method():
    seen = {}

    def method(instance, **options):
        seen.update(options)
        return [0, 1, 1]

    solve(VC, method, seed=3, depth=2)
    assert seen == {"seed": 3, "depth": 2}
    method.method_spec = MethodSpec("m", "mine", ("depth",), ranges={"depth": Range(int, ge=1)})
    with pytest.raises(InvalidInputError, match="does not accept option 'width'"):
        solve(VC, method, width=1)
    with pytest.raises(InvalidInputError, match="depth must be an integer >= 1; got 0"):
        solve(VC, method, depth=0)
    with pytest.raises(InvalidInputError, match="seed must be an integer"):
        solve(VC, method, seed=-1)


@given(st.data())
def test_any_valid_placement_scores_as_result_from_placement(data):
    hosts = data.draw(st.integers(1, 4))
    n = data.draw(st.integers(1, 6))
    cpu = data.draw(st.lists(st.floats(0.05, 1.0), min_size=n, max_size=n))
    mem = data.draw(st.lists(st.floats(0.0, 0.3), min_size=n, max_size=n))
    inst = VCInstance.from_lists(hosts=hosts, cpu=cpu, mem=mem)
    placement = data.draw(st.lists(st.integers(0, hosts - 1), min_size=n, max_size=n))
    loads = np.bincount(placement, weights=mem, minlength=hosts)
    if (loads > 1).any():
        with pytest.raises(InvalidInputError, match="memory of host"):
            solve(inst, lambda i, **kw: placement)
        return
    r = solve(inst, lambda i, **kw: placement)
    ref = result_from_placement(inst, np.array(placement), method="x", status=Status.FEASIBLE)
    assert r.min_yield == ref.min_yield and np.array_equal(r.job_yield, ref.job_yield)
    proven = ref.bound is not None and ref.min_yield >= ref.bound - 1e-12
    assert r.status == (Status.OPTIMAL if proven else Status.FEASIBLE)


# ---------------------------------------------------------------- DRFH contract
def test_drfh_tasks_per_class_build_a_checked_result():
    r = allocate(DRFH, lambda inst, **kw: [[5], [3]])
    assert r.tasks.tolist() == [5.0, 3.0] and r.status == Status.FEASIBLE
    assert np.allclose(r.allocation[0, 0], [2.5, 0.5])
    assert np.allclose(r.dominant_share, [5 * 0.5 / 4, 3 * 0.5 / 4])
    assert np.allclose(r.utilization, [(2.5 + 0.3) / 4, (0.5 + 1.5) / 4])


def test_drfh_tasks_per_server_checked_per_server():
    assert allocate(DRFH, lambda inst, **kw: [[4, 1], [0, 0]]).tasks.tolist() == [5.0, 0.0]
    with pytest.raises(InvalidInputError, match=r"cpu on server 0 of class 'a' is 2.5 > capac"):
        allocate(DRFH, lambda inst, **kw: [[5, 0], [0, 0]])


@pytest.mark.parametrize(
    ("tasks", "pattern"),
    [
        ([[6], [0]], r"user 'u0' gets 6 tasks, more than its 5"),
        ([[1], [9]], r"mem on class 'a' is 4.6 > capacity 4"),
        ([[1, 2, 3], [0, 0, 0]], r"shape \(users, server classes\) = \(2, 1\)"),
        ([[-1], [0]], r"finite and >= 0; got -1.0 for user 'u0'"),
        ([[np.nan], [0]], r"finite and >= 0; got nan for user 'u0'"),
        ([["a"], [0]], r"tasks must be an array of numbers"),
    ],
)
def test_drfh_bad_tasks_are_refused(tasks, pattern):
    with pytest.raises(InvalidInputError, match=pattern):
        allocate(DRFH, lambda inst, **kw: tasks)


def test_drfh_user_result_is_checked():
    good = allocate(DRFH, "progressive")
    assert allocate(DRFH, lambda inst, **kw: good).method.endswith("<lambda>")
    claims = DRFHResult(
        method="x", status="feasible", user_names=good.user_names,
        server_names=good.server_names, resources=good.resources,
        tasks=good.tasks + np.array([0, 1]), dominant_share=good.dominant_share,
        allocation=good.allocation, utilization=good.utilization,
    )
    with pytest.raises(InvalidInputError, match="user 'u1' claims"):
        allocate(DRFH, lambda inst, **kw: claims)
    with pytest.raises(InvalidInputError, match="got None"):
        allocate(DRFH, lambda inst, **kw: None)


# ---------------------------------------------------------------- --option KEY=VALUE
def test_option_pairs_typed_by_the_spec():
    spec = MethodSpec(
        "m", "x", ("tol", "depth", "exact"),
        ranges={"tol": Range(float, gt=0, le=0.5), "depth": Range(int, ge=1), "exact": Range(bool)},
    )
    got = parse_option_pairs(["tol=1e-3", "depth=4", "exact=true", "time_limit=5"], spec)
    assert got == {"tol": 1e-3, "depth": 4, "exact": True, "time_limit": 5.0}
    for bad, pattern in [
        (["depth=1.5"], "depth must be an integer"),
        (["exact=maybe"], "exact must be true or false"),
        (["tol=0.9"], r"tol must be a number in \(0, 0.5\]"),
        (["tol=nan"], "tol must be"),
        (["width=3"], "does not accept option 'width'; accepted: depth, exact, seed"),
        (["tol"], "--option must be KEY=VALUE"),
        (["tol=0.1", "tol=0.2"], "given twice"),
        (["threads=0"], "threads must be an integer"),
    ]:
        with pytest.raises(InvalidInputError, match=pattern):
            parse_option_pairs(bad, spec)
    assert parse_option_pairs(["a=[1, 2]", "b=x y", "c=null"], None) == {
        "a": [1, 2], "b": "x y", "c": None
    }
