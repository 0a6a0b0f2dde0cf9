"""The DFRS experiments through the runner, on a tiny trace set."""

import json

import pytest

from allockit.errors import InvalidInputError
from allockit.experiments.dfrs import (
    EXPERIMENTS,
    PAPER_TABLE2,
    TraceSets,
    aggregate,
    build_workload,
    experiment_tasks,
    to_markdown,
)
from allockit.runner import run_sweep
from allockit.runner.store import read_rows

TINY = TraceSets(seeds=(0,), loads=(0.5, 0.8), weeks=(), jobs=25, nodes=8)


def test_grids():
    t2 = experiment_tasks("table2", TINY)
    assert len(t2) == 3 * (1 + len(PAPER_TABLE2))  # 2 scaled + 1 unscaled traces
    t3 = experiment_tasks("table3", TINY)
    assert {t.instance["load"] for t in t3} == {0.8}  # Table 3: loads >= 0.7 only
    # tables share tasks: Table 4's simulations are among Table 2's
    assert {t.key for t in experiment_tasks("table4", TINY)} <= {t.key for t in t2}
    with pytest.raises(InvalidInputError, match="experiment must be one of"):
        experiment_tasks("table9", TINY)
    with pytest.raises(InvalidInputError, match="'set' must be"):
        build_workload({"set": "imaginary"})


def test_scaled_traces_share_their_jobs():
    a = build_workload(TINY.specs(["scaled"])[0][1])
    b = build_workload(TINY.specs(["scaled"])[1][1])
    assert (a.runtime == b.runtime).all() and a.offered_load() == pytest.approx(0.5)
    assert b.offered_load() == pytest.approx(0.8)


def test_table4_runs_resumes_and_aggregates(tmp_path):
    store = tmp_path / "r.db"
    tasks = experiment_tasks("table4", TINY)
    first = run_sweep(tasks, store, backend="serial")
    assert (first.ran, first.failed) == (len(tasks), 0)
    assert run_sweep(tasks, store, backend="serial").skipped == len(tasks)
    table = aggregate("table4", read_rows(store), tasks)
    for name in EXPERIMENTS["table4"][0]:
        for set_name in ("unscaled", "scaled"):
            entry = table["rows"][name][set_name]
            assert entry["degradation"]["n"] == (1 if set_name == "unscaled" else 2)
            assert entry["degradation"]["avg"] >= 1 - 1e-6  # never better than the bound
            assert entry["underutilization"]["avg"] >= 0
    text = to_markdown(table)
    assert "| EASY | scaled |" in text and "0.384" in text  # the paper's value beside


def test_cli_fig1(tmp_path, capsys):
    from allockit.cli import main

    argv = ["dfrs-experiment", "fig1", "--seeds", "1", "--loads", "0.4,0.8", "--jobs", "20"]
    argv += ["--nodes", "6", "--store", str(tmp_path / "f.db"), "--backend", "serial"]
    argv += ["--markdown", str(tmp_path / "f.md"), "--plot", str(tmp_path / "f.png")]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sweep"]["failed"] == 0 and out["table"]["failed_tasks"] == 0
    rows = out["table"]["rows"]
    assert set(rows["EASY"]["scaled"]["degradation_by_load"]) == {"0.4", "0.8"}
    assert (tmp_path / "f.png").stat().st_size > 0
    assert "load 0.4" in (tmp_path / "f.md").read_text()


def test_real_traces_are_hpc2n_weeks(tmp_path):
    from pathlib import Path

    excerpt = str(Path(__file__).parents[1] / "data" / "hpc2n_excerpt.swf")
    sets = TraceSets(seeds=(), weeks=(0,), hpc2n=excerpt)
    ((instance_id, spec),) = sets.specs(["real", "scaled"])
    assert instance_id == "hpc2n-w000" and spec == {"set": "real", "path": excerpt, "week": 0}
    week = build_workload(spec)
    assert week.platform.nodes == 120 and week.submit[0] == 0
    with pytest.raises(InvalidInputError, match="week must be in"):
        build_workload({**spec, "week": 10_000})


def test_table2_and_table3_markdown(tmp_path):
    sets = TraceSets(seeds=(0,), loads=(0.8,), weeks=(), jobs=20, nodes=6, unscaled=False)
    store = tmp_path / "t.db"
    for experiment in ("table2", "table3"):
        tasks = experiment_tasks(experiment, sets)
        assert run_sweep(tasks, store, backend="serial").failed == 0
        table = aggregate(experiment, read_rows(store), tasks)
        text = to_markdown(table)
        if experiment == "table2":
            assert "| EASY | " in text and "5,262.0 (14,534.1)" in text  # the paper's scaled
            assert table["rows"]["EASY"]["scaled"]["degradation"]["n"] == 1
        else:
            costs = table["rows"]["GreedyP */opt=min"]["scaled"]["costs"]
            assert costs["migrations_per_job"]["avg"] == 0  # GreedyP never migrates
            assert "0.06 (0.17)" in text  # the paper's preemption bandwidth, beside ours


def test_bad_experiment_options_are_named(tmp_path, capsys):
    from pathlib import Path

    from allockit.cli import main

    store = str(tmp_path / "x.db")
    def code_of(argv):  # a parse error exits from argparse, a range error returns 2
        try:
            return main(argv)
        except SystemExit as exc:
            return exc.code

    for loads in ("abc", "0.5,-1"):  # refused by the option layer, before any work
        assert code_of(["dfrs-experiment", "table4", f"--loads={loads}", "--store", store]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--loads" in err
    assert not Path(store).exists()  # nothing ran
    excerpt = str(Path(__file__).parents[1] / "data" / "hpc2n_excerpt.swf")
    argv = ["dfrs-experiment", "table4", "--hpc2n", excerpt, "--weeks", "0,7", "--store", store]
    assert main(argv) == 2
    assert "--weeks: 7 is not in [0, 1)" in capsys.readouterr().err
    with pytest.raises(InvalidInputError, match="seeds must be integers"):
        TraceSets(seeds=(-1,))
