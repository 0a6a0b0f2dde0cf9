"""The online-scheduler protocol: FCFS, EASY and user policies on the one batch simulator."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.instances.lublin import dfrs_synthetic
from allockit.instances.workload import Platform, Workload
from allockit.simulation.batch import EASY, FCFS, run_batch, simulate_batch
from allockit.simulation.dfrs_algorithm import FractionalPolicy
from allockit.simulation.policy import BasePolicy, BatchCluster, Policy, is_policy
from allockit.simulation.simulate import build_policy, simulate, simulate_policy
from tests.simulation.batch_reference import reference_batch

ROOT = Path(__file__).resolve().parents[2]
SJF_FILE = ROOT / "examples" / "sjf_easy.py"
EXCERPT = ROOT / "tests" / "data" / "hpc2n_excerpt.swf"


@st.composite
def workloads(draw, max_jobs: int = 14):
    nodes = draw(st.integers(1, 5))
    n = draw(st.integers(1, max_jobs))
    gaps = draw(st.lists(st.sampled_from([0, 0, 1, 5, 30, 200]), min_size=n, max_size=n))
    runtime = draw(st.lists(st.sampled_from([1, 10, 50, 100, 333]), min_size=n, max_size=n))
    tasks = draw(st.lists(st.integers(1, nodes), min_size=n, max_size=n))
    factors = draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 10.0]), min_size=n, max_size=n))
    cores = draw(st.sampled_from([1, 2, 4]))
    cpu = draw(st.lists(st.sampled_from([0.25, 0.5, 1.0]), min_size=n, max_size=n))
    return Workload.from_jobs(
        Platform(nodes=nodes, cores=cores),
        submit=np.cumsum(gaps).astype(float),
        runtime=runtime,
        tasks=tasks,
        cpu=cpu,
        mem=[0.1] * n,
        requested_time=[r * f for r, f in zip(runtime, factors, strict=True)],
    )


def _sjf():
    from allockit.plugins import load_spec

    return load_spec(f"{SJF_FILE}:ShortestJobFirst")[0]


# ------------------------------------------------------------ FCFS and EASY as policies
@given(
    w=workloads(),
    algorithm=st.sampled_from(["fcfs", "easy"]),
    est=st.booleans(),
    unit=st.sampled_from(["nodes", "cores"]),
    depth=st.sampled_from([None, 0, 1, 3]),
)
def test_fcfs_and_easy_policies_match_the_direct_implementation(w, algorithm, est, unit, depth):
    depth = None if algorithm == "fcfs" else depth
    r = simulate_batch(w, algorithm=algorithm, estimates=est, unit=unit, backfill_depth=depth)
    start, end = reference_batch(
        w, algorithm=algorithm, estimates=est, unit=unit, backfill_depth=depth
    )
    assert np.array_equal(r.start, start) and np.array_equal(r.end, end)
    policy = FCFS() if algorithm == "fcfs" else EASY(depth)
    again = simulate(w, policy, estimates=est, unit=unit)
    assert np.array_equal(again.start, start) and again.algorithm == algorithm


def test_builtin_policies_match_on_a_large_synthetic_trace():
    w = dfrs_synthetic(600, nodes=16, load=0.95, seed=11)
    for algorithm, depth in (("fcfs", None), ("easy", None), ("easy", 4)):
        start, end = reference_batch(w, algorithm=algorithm, backfill_depth=depth)
        r = simulate_batch(w, algorithm=algorithm, backfill_depth=depth)
        assert np.array_equal(r.start, start) and np.array_equal(r.end, end)


# ------------------------------------------------------------ a user's policy
@given(w=workloads(), est=st.booleans(), backfill=st.booleans())
def test_user_sjf_gives_valid_schedules(w, est, backfill):
    r = simulate(w, _sjf()(backfill=backfill), estimates=est)
    assert r.algorithm == "SJF-EASY"
    assert np.isfinite(r.start).all() and (r.start >= w.submit).all()
    assert np.allclose(r.end - r.start, w.runtime)
    for t in np.unique(r.start):
        assert w.tasks[(r.start <= t) & (r.end > t)].sum() <= w.platform.nodes
    # work-conserving at submissions: a job that fits the free nodes when it arrives and
    # is the shortest waiting starts at once (SJF's own promise, checked on the result)
    assert r.underutilization >= -1e-6


def test_sjf_worked_example_from_the_docs():
    w = Workload.from_jobs(
        Platform(nodes=2), submit=[0, 1, 1], runtime=[100, 300, 10], tasks=[2, 2, 1],
        cpu=[1, 1, 1], mem=[0.1] * 3,
    )
    sjf = _sjf()
    assert simulate(w, sjf()).start.tolist() == [0.0, 110.0, 100.0]
    assert simulate(w, sjf(backfill=False)).start.tolist() == [0.0, 110.0, 100.0]
    assert simulate(w, "EASY").start.tolist() == [0.0, 100.0, 400.0]


def test_every_form_of_naming_a_user_policy_runs_the_same_schedule(monkeypatch):
    w = dfrs_synthetic(80, nodes=8, load=0.9, seed=4)
    want = simulate(w, _sjf()()).start
    forms = {
        f"{SJF_FILE}:ShortestJobFirst": f"{SJF_FILE}:ShortestJobFirst",
        "examples/sjf_easy.py:ShortestJobFirst": "examples/sjf_easy.py:ShortestJobFirst",
    }
    monkeypatch.chdir(ROOT)
    for spec, name in forms.items():
        r = simulate(w, spec)
        assert np.array_equal(r.start, want) and r.algorithm == name
    r = simulate(w, _sjf())  # a class: called with the options
    assert np.array_equal(r.start, want) and r.algorithm.endswith("ShortestJobFirst")
    r = simulate(w, lambda **kw: _sjf()(**kw), backfill=True)  # a factory
    assert np.array_equal(r.start, want)
    r = simulate(w, "tests.simulation.test_policy:LongestFirst", unit="cores")
    assert r.algorithm == "tests.simulation.test_policy:LongestFirst"


class LongestFirst(BasePolicy):
    """Longest estimate first, no backfilling (a module-level policy for specs)."""

    def schedule(self, cluster, now):
        for job in sorted(cluster.queue, key=lambda j: -cluster.estimate[j]):
            if not cluster.fits(job):
                return
            cluster.start(job)


def test_hooks_ticks_and_state_reset():
    class Counting(BasePolicy):
        period = 50.0

        def __init__(self):
            self.runs = 0

        def start(self, cluster):
            self.runs += 1
            self.seen = {"submit": 0, "complete": 0, "tick": []}

        def on_submit(self, cluster, job, now):
            assert job in cluster.queue
            self.seen["submit"] += 1

        def on_complete(self, cluster, job, now):
            assert job not in cluster.running
            self.seen["complete"] += 1

        def on_tick(self, cluster, now):
            self.seen["tick"].append(now)

        def schedule(self, cluster, now):
            FCFS().schedule(cluster, now)

    w = Workload.from_jobs(
        Platform(nodes=1), submit=[0, 10], runtime=[100, 20], tasks=[1, 1],
        cpu=[1, 1], mem=[0.1, 0.1],
    )
    policy = Counting()
    r = simulate(w, policy)
    assert policy.seen["submit"] == 2 and policy.seen["complete"] == 2
    assert policy.seen["tick"] == [50.0, 100.0]  # ticks while jobs are in the system
    assert r.end.tolist() == [100.0, 120.0]
    simulate(w, policy)
    assert policy.runs == 2 and policy.seen["submit"] == 2  # start() reset the state


@pytest.mark.parametrize(
    ("action", "pattern"),
    [
        (lambda c, now: c.start(0) if 0 in c.running else None, "which is running"),
        (lambda c, now: c.start(c.queue[-1]) if len(c.queue) == 2 else None, "needs 1 nodes"),
        (lambda c, now: None, "left 2 job\\(s\\) waiting on an idle platform"),
    ],
)
def test_policies_that_break_the_protocol_are_named(action, pattern):
    class Broken(BasePolicy):
        def schedule(self, cluster, now):
            if now == 0 and cluster.queue == [0]:
                cluster.start(0)
            action(cluster, now)

    w = Workload.from_jobs(
        Platform(nodes=1), submit=[0, 5, 5], runtime=[100, 20, 20], tasks=[1, 1, 1],
        cpu=[1] * 3, mem=[0.1] * 3,
    )
    with pytest.raises(InvalidInputError, match=pattern):
        simulate(w, Broken())


def test_bad_policies_and_options_are_refused():
    w = dfrs_synthetic(10, nodes=4, load=0.5, seed=0)
    with pytest.raises(InvalidInputError, match="building the policy failed: ZeroDivision"):
        simulate(w, lambda **kw: 1 / 0)
    with pytest.raises(InvalidInputError, match=r"must be a Policy class.*returned 'int'"):
        simulate(w, lambda **kw: 3)
    with pytest.raises(InvalidInputError, match="takes no options of its own here"):
        simulate(w, FCFS(), depth=3)
    with pytest.raises(InvalidInputError, match="does not accept option 'penalty'"):
        simulate_policy(w, FCFS(), penalty=3)
    with pytest.raises(InvalidInputError, match="model must be one of"):
        build_policy(lambda: type("P", (BasePolicy,), {"model": "quantum"})())
    with pytest.raises(InvalidInputError, match="period must be a number of seconds > 0"):
        run_batch(w, type("P", (BasePolicy,), {"period": -1.0})())
    with pytest.raises(InvalidInputError, match="seed must be an integer"):
        simulate(w, f"{SJF_FILE}:ShortestJobFirst", seed=-1)
    with pytest.raises(InvalidInputError, match="'nosuch_policy_mod:P': cannot import module"):
        simulate(w, "nosuch_policy_mod:P")
    with pytest.raises(InvalidInputError, match=r"unknown submission policy 'SJF'.*MODULE:CLASS"):
        simulate(w, "SJF")
    assert isinstance(FCFS(), Policy) and is_policy(EASY()) and not is_policy(EASY)


def test_batch_cluster_helpers():
    w = Workload.from_jobs(
        Platform(nodes=3), submit=[0, 0, 0], runtime=[10, 30, 5], tasks=[1, 1, 3],
        cpu=[1] * 3, mem=[0.1] * 3,
    )
    c = BatchCluster(w, "nodes", estimates=False)
    for job in (0, 1, 2):
        c.enqueue(job)
    c.start(0)
    c.start(1)
    assert c.reservation(2) == (30.0, 0) and not c.fits(2)
    with pytest.raises(ValueError):
        c.width[0] = 5  # the per-job arrays are read-only


# ------------------------------------------------------------ command line and plug-ins
def test_cli_runs_a_user_policy_with_every_metric_and_plot(tmp_path, capsys):
    from allockit.cli import main

    base = ["simulate", str(EXCERPT), "--bound"]
    assert main([*base, "--algorithm", "EASY"]) == 0
    easy = json.loads(capsys.readouterr().out)
    jobs = tmp_path / "jobs.csv"
    args = [*base, "--algorithm", f"{SJF_FILE}:ShortestJobFirst", "--jobs-csv", str(jobs),
            "--plot", str(tmp_path / "plots")]
    assert main(args) == 0
    mine = json.loads(capsys.readouterr().out)
    assert mine["algorithm"] == f"{SJF_FILE}:ShortestJobFirst" and mine["status"] == "completed"
    assert set(easy) <= set(mine) and mine["bound"] == easy["bound"]
    assert jobs.read_text().startswith("id,submit,start,end,stretch")
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == [
        "stretch.png", "utilization.png"
    ]


@pytest.mark.parametrize(
    ("algorithm", "extra", "pattern"),
    [
        ("nosuch_policy_mod:P", [], "--algorithm 'nosuch_policy_mod:P': cannot import module"),
        ("examples/none.py:P", [], "--algorithm 'examples/none.py:P': file .* does not exist"),
        (f"{SJF_FILE}:Missing", [], "has no attribute 'Missing'"),
        (f"{SJF_FILE}:ShortestJobFirst", ["--backfill-depth", "2"], "--backfill-depth is EASY"),
    ],
)
def test_cli_bad_policy_specs_exit_2_with_one_line(algorithm, extra, pattern, capsys):
    from allockit.cli import main

    code = main(["simulate", "/nonexistent.swf", "--algorithm", algorithm, *extra])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    import re

    assert re.search(pattern, err), err


@pytest.fixture
def scheduler_plugin(tmp_path, monkeypatch):
    """A distribution on sys.path that registers scheduler.sjf (the example's class)."""
    (tmp_path / "allockit_sjf_plugin.py").write_text(SJF_FILE.read_text())
    info = tmp_path / "allockit_sjf_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: allockit-sjf-plugin\nVersion: 1.0\n"
    )
    (info / "entry_points.txt").write_text(
        "[allockit.methods]\nscheduler.sjf = allockit_sjf_plugin:ShortestJobFirst\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    sys.modules.pop("allockit_sjf_plugin", None)


def test_a_registered_scheduler_is_used_by_name(scheduler_plugin, capsys):
    from allockit.cli import main

    w = dfrs_synthetic(40, nodes=4, load=0.8, seed=1)
    r = simulate(w, "sjf")
    assert r.algorithm == "sjf" and np.array_equal(r.start, simulate(w, _sjf()()).start)
    assert main(["simulate", str(EXCERPT), "--algorithm", "sjf"]) == 0
    assert json.loads(capsys.readouterr().out)["algorithm"] == "sjf"


# ------------------------------------------------------------ the fractional model (DFRS)
class GreedyBoth(FractionalPolicy):
    """A user's fractional policy built from the Greedy parts: 'Greedy *' by hand."""

    name = "greedy-by-hand"

    def start(self, state):
        from allockit.simulation.dfrs_policies import GreedyPolicy

        self.greedy = GreedyPolicy()

    def on_submit(self, state, job, now):
        self.greedy.on_submit(state, job, now)

    def on_complete(self, state, job, now):
        self.greedy.start_waiting(state, now)


@given(w=workloads(max_jobs=10), penalty=st.sampled_from([0.0, 300.0]))
def test_a_user_fractional_policy_runs_on_the_dfrs_simulator(w, penalty):
    w = w.replace(mem=np.full(w.n_jobs, 0.3))
    mine = simulate(w, GreedyBoth(), penalty=penalty, debug=True)
    ref = simulate(w, "Greedy *", penalty=penalty, debug=True)
    assert np.array_equal(mine.start, ref.start) and np.array_equal(mine.end, ref.end)
    assert mine.algorithm == "greedy-by-hand" and mine.summary()["status"] == "completed"


def test_dfrs_algorithms_are_policies_with_the_same_schedules():
    from allockit.simulation.dfrs import simulate_dfrs
    from allockit.simulation.dfrs_algorithm import DfrsAlgorithm

    w = dfrs_synthetic(50, nodes=6, load=0.9, seed=3)
    for name in ("GreedyPM */per/opt=min/minvt=600", "/stretch-per/opt=avg", "MCB8 */opt=avg"):
        policy = DfrsAlgorithm(name, period=300.0)
        assert isinstance(policy, Policy) and policy.model == "fractional"
        a = simulate_dfrs(w, policy, debug=True)
        b = simulate_dfrs(w, name, period=300.0, debug=True)
        assert np.array_equal(a.start, b.start) and np.array_equal(a.end, b.end)
        assert a.algorithm == b.algorithm == policy.name
        assert len(a.extra["mcb8_calls"]) == len(b.extra["mcb8_calls"]) > 0
        again = simulate_dfrs(w, policy, debug=True)  # start() resets the policy
        assert np.array_equal(again.end, a.end)
        assert len(again.extra["mcb8_calls"]) == len(a.extra["mcb8_calls"])


def test_fractional_policies_from_specs_and_the_command_line(tmp_path, capsys):
    from allockit.cli import main

    path = tmp_path / "frac.py"
    path.write_text(
        "from allockit.simulation.dfrs_algorithm import FractionalPolicy\n"
        "from allockit.simulation.dfrs_policies import GreedyPolicy\n\n"
        "class Lazy(FractionalPolicy):  # starts waiting jobs every 10 minutes\n"
        "    period = 600.0\n"
        "    def start(self, state):\n        self.greedy = GreedyPolicy()\n"
        "    def on_tick(self, state, now):\n"
        "        self.greedy.start_waiting(state, now)\n\n"
        "class Never(FractionalPolicy):\n    pass\n"
    )
    w = dfrs_synthetic(20, nodes=4, load=0.5, seed=2)
    r = simulate(w, f"{path}:Lazy", penalty=0.0)
    assert r.algorithm == f"{path}:Lazy" and np.isfinite(r.end).all()
    origin = w.submit[0]
    assert np.allclose((r.start - origin) % 600.0, 0.0)  # jobs start at ticks only
    with pytest.raises(InvalidInputError, match=r"left 20 job\(s\) unfinished"):
        simulate(w, f"{path}:Never")
    with pytest.raises(InvalidInputError, match="does not accept option 'unit'"):
        simulate(w, f"{path}:Lazy", unit="cores")
    assert main(["simulate", str(EXCERPT), "--algorithm", f"{path}:Lazy", "--penalty", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["algorithm"] == f"{path}:Lazy" and "progress_share" in out


def test_a_batch_period_tick_that_rounds_onto_now_does_not_fire_forever():
    # the DFRS simulator's case (test_dfrs.py) in the batch driver: origin 927.42392862456
    class Ticking(BasePolicy):
        period = 600.0

        def start(self, cluster):
            self.ticks = []

        def on_tick(self, cluster, now):
            self.ticks.append(now)

        def schedule(self, cluster, now):
            FCFS().schedule(cluster, now)

    origin = 927.42392862456
    w = Workload.from_jobs(
        Platform(nodes=1), submit=[origin, origin + 13 * 600 - 1.0],
        runtime=[8000.0, 50.0], tasks=[1, 1], cpu=[1.0, 1.0], mem=[0.5, 0.5])
    policy = Ticking()
    run_batch(w, policy)
    assert len(policy.ticks) == len(set(policy.ticks)) < 20
