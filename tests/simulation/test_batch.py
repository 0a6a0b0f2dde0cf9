"""FCFS and EASY backfilling: worked-out schedules and properties on random workloads."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.instances.workload import Platform, Workload
from allockit.models.stretch_bound import stretch_bound
from allockit.simulation.batch import simulate_batch


def W(nodes, submit, runtime, tasks, requested=None):
    n = len(submit)
    return Workload.from_jobs(
        Platform(nodes=nodes),
        submit=submit,
        runtime=runtime,
        tasks=tasks,
        cpu=[1.0] * n,
        mem=[0.1] * n,
        requested_time=requested,
    )


def test_fcfs_worked_example():
    # 2 nodes: A (1 node, 100 s) at 0; B (2 nodes, 100 s) at 1 waits for A; C (1 node,
    # 50 s) at 2 waits behind B under FCFS.
    r = simulate_batch(W(2, [0, 1, 2], [100, 100, 50], [1, 2, 1]), algorithm="fcfs")
    assert r.start.tolist() == [0, 100, 200] and r.end.tolist() == [100, 200, 250]
    assert r.stretch.tolist() == pytest.approx([1, 199 / 100, 248 / 50])


def test_easy_backfills_without_delaying_the_head():
    # EASY starts C at 2 on the idle node: it ends at 52, before B's reservation at 100.
    r = simulate_batch(W(2, [0, 1, 2], [100, 100, 50], [1, 2, 1]), algorithm="easy")
    assert r.start.tolist() == [0, 100, 2]
    # a long C (200 s) would delay B: it is not backfilled
    r = simulate_batch(W(2, [0, 1, 2], [100, 100, 200], [1, 2, 1]), algorithm="easy")
    assert r.start.tolist() == [0, 100, 200]


def test_easy_with_extra_nodes():
    # 3 nodes: A (2 nodes, 100 s); B (2 nodes) waits; at B's reservation one node is spare,
    # so a long 1-node job C may use it.
    r = simulate_batch(W(3, [0, 1, 2], [100, 100, 500], [2, 2, 1]), algorithm="easy")
    assert r.start.tolist() == [0, 100, 2]


def test_easy_with_requested_times():
    # 3 nodes. A (2 nodes) asked for 300 s but runs 100 s; B needs all 3 nodes. With
    # requested times EASY thinks B's reservation is at 300 and backfills the 150 s job C
    # on the free node; A really ends at 100, so B waits until C is done at 152.
    w = W(3, [0, 1, 2], [100, 100, 150], [2, 3, 1], requested=[300, 100, 150])
    perfect = simulate_batch(w, algorithm="easy")
    estimated = simulate_batch(w, algorithm="easy", estimates=True)
    assert perfect.start.tolist() == [0, 100, 200]
    assert estimated.start.tolist() == [0, 152, 2]


@st.composite
def workloads(draw):
    nodes = draw(st.integers(1, 6))
    n = draw(st.integers(1, 12))
    submit = sorted(draw(st.integers(0, 500)) for _ in range(n))
    runtime = [draw(st.integers(1, 300)) for _ in range(n)]
    tasks = [draw(st.integers(1, nodes)) for _ in range(n)]
    requested = [r * draw(st.sampled_from([1, 1.5, 3])) for r in runtime]
    return W(nodes, submit, runtime, tasks, requested)


@settings(max_examples=150)
@given(w=workloads(), algorithm=st.sampled_from(["fcfs", "easy"]), est=st.booleans())
def test_batch_schedules_are_valid(w, algorithm, est):
    r = simulate_batch(w, algorithm=algorithm, estimates=est)
    assert np.isfinite(r.start).all() and (r.start >= w.submit).all()
    assert np.allclose(r.end - r.start, w.runtime)  # each job once, exactly its work
    times = np.unique(np.concatenate([r.start, r.end]))
    for t in times:
        busy = w.tasks[(r.start <= t) & (r.end > t)].sum()
        assert busy <= w.platform.nodes
    assert (r.stretch >= 1 - 1e-12).all()
    assert r.max_stretch >= stretch_bound(w).value - 1e-6
    if algorithm == "fcfs":  # FCFS starts jobs in submission order
        assert (np.diff(r.start) >= 0).all()
    assert r.underutilization >= -1e-6
    again = simulate_batch(w, algorithm=algorithm, estimates=est)
    assert np.array_equal(r.start, again.start)


def test_job_wider_than_the_platform_is_refused():
    with pytest.raises(InvalidInputError, match="needs 3 nodes; the platform has 2"):
        simulate_batch(W(2, [0], [10], [3]))
    with pytest.raises(InvalidInputError, match="algorithm must be"):
        simulate_batch(W(2, [0], [10], [1]), algorithm="sjf")


def test_simulate_cli(tmp_path, capsys):
    import csv
    import json

    from allockit.cli import main

    assert (
        main(
            ["workload", "lublin", "--jobs", "80", "--nodes", "16", "--seed", "2", "--load", "0.8"]
        )
        == 0
    )
    path = tmp_path / "w.swf"
    path.write_text(capsys.readouterr().out)
    out_csv = tmp_path / "jobs.csv"
    assert main(["simulate", str(path), "--algorithm", "EASY", "--jobs-csv", str(out_csv)]) == 0
    summary = json.loads(capsys.readouterr().out)
    for key in (
        "max_stretch",
        "mean_stretch",
        "underutilization",
        "preemptions",
        "migrations",
        "makespan",
        "seconds",
    ):
        assert key in summary
    with open(out_csv) as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 80 and {"id", "submit", "start", "end", "stretch"} <= rows[0].keys()
    assert main(["simulate", str(path), "--algorithm", "GreedyPM */weekly"]) == 2
    err = capsys.readouterr().err
    assert "unknown part 'weekly'" in err and "FCFS" in err and "GreedyPM" in err


@settings(max_examples=40)
@given(w=workloads())
def test_underutilization_matches_a_direct_integration(w):
    r = simulate_batch(w, algorithm="easy")
    need = w.cpu * w.tasks
    times = np.unique(np.concatenate([w.submit, r.start, r.end]))
    mid = (times[:-1] + times[1:]) / 2
    alive = (w.submit[None, :] <= mid[:, None]) & (r.end[None, :] > mid[:, None])
    running = (r.start[None, :] <= mid[:, None]) & (r.end[None, :] > mid[:, None])
    direct = ((np.minimum(w.platform.nodes, alive @ need) - running @ need) * np.diff(times)).sum()
    assert r.underutilization == pytest.approx(direct, rel=1e-9, abs=1e-6)


def test_whole_node_allocation():
    # 1 quad-core node: two sequential one-task jobs (cpu 0.25 = one core each) run one
    # after the other when each task takes a node (default), together when jobs get cores
    w = Workload.from_jobs(
        Platform(nodes=1, cores=4),
        submit=[0, 0],
        runtime=[100, 100],
        tasks=[1, 1],
        cpu=[0.25, 0.25],
        mem=[0.1, 0.1],
    )
    assert simulate_batch(w, algorithm="fcfs", unit="cores").start.tolist() == [0, 0]
    assert simulate_batch(w, algorithm="fcfs").start.tolist() == [0, 100]  # nodes
    with pytest.raises(InvalidInputError, match="unit must be"):
        simulate_batch(w, unit="sockets")


def test_batch_result_plots(tmp_path):
    from allockit.experiments.plots import plot_simulation

    r = simulate_batch(W(2, [0, 1, 2], [100, 100, 50], [1, 2, 1]), algorithm="easy")
    assert r.timeline[-1].tolist() == [200.0, 0.0, 0.0]  # all done: nothing used or asked
    paths = plot_simulation(r, tmp_path)
    assert [p.name for p in paths] == ["utilization.png", "stretch.png"]
    assert all(p.stat().st_size > 0 for p in paths)
