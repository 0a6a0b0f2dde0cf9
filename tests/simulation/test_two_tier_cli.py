"""Command-line contract of the two-tier family: summary fields, CSV columns, exit codes."""

import csv
import json

import numpy as np
import pytest

from allockit.cli import main
from allockit.instances.lublin import dfrs_synthetic
from allockit.instances.swf import workload_to_swf, write_swf
from allockit.instances.tsafrir import tsafrir_estimates
from allockit.instances.workload import Platform

NEW_FIELDS = (
    "mean_response_time",
    "mean_bounded_slowdown",
    "response_time_ci95",
    "bounded_slowdown_ci95",
    "migrations",
    "kills",
    "wasted_cpu_seconds",
    "swaps",
)
CSV_COLUMNS = ("response", "bounded_slowdown", "kills", "migrations", "first_fg_start")


@pytest.fixture(scope="module")
def swf(tmp_path_factory):
    w = dfrs_synthetic(150, nodes=16, load=0.9, seed=2)
    rng = np.random.default_rng(2)
    w = w.replace(
        platform=Platform(nodes=16),
        cpu=np.where(w.tasks == 1, 1.0, rng.uniform(0.4, 1.0, w.n_jobs)),
        requested_time=tsafrir_estimates(w.runtime, seed=2),
    )
    path = tmp_path_factory.mktemp("two_tier") / "w.swf"
    write_swf(workload_to_swf(w), path)
    return str(path)


def _run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:  # refused while parsing (argparse exits)
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("alg", ["KEASY", "REASY", "MEASY"])
def test_simulate_prints_the_two_tier_summary(capsys, swf, tmp_path, alg):
    jobs = tmp_path / "jobs.csv"
    code, out, _ = _run(
        capsys, "simulate", swf, "--algorithm", alg, "--seed", "4", "--jobs-csv", str(jobs)
    )
    assert code == 0
    summary = json.loads(out)
    assert summary["algorithm"] == alg and summary["jobs"] == 150
    for key in (*NEW_FIELDS, "max_stretch", "underutilization", "makespan", "seconds"):
        assert key in summary, key
    for key in ("response_time_ci95", "bounded_slowdown_ci95"):
        low, high = summary[key]
        assert low <= high
    assert summary["kills"] >= 0 and summary["swaps"] >= 0
    with open(jobs, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 150 and set(CSV_COLUMNS) <= set(rows[0])
    assert sum(int(r["kills"]) for r in rows) == summary["kills"]
    assert sum(int(r["migrations"]) for r in rows) == summary["migrations"]


def test_no_background_is_easy_on_the_command_line(capsys, swf, tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    code, out, _ = _run(
        capsys, "simulate", swf, "--algorithm", "MEASY", "--no-background", "--jobs-csv", str(a)
    )
    assert code == 0 and json.loads(out)["algorithm"] == "MEASY/no-bg"
    code, out, _ = _run(
        capsys, "simulate", swf, "--algorithm", "EASY", "--estimates", "--jobs-csv", str(b)
    )
    easy = json.loads(out)
    assert code == 0 and "mean_response_time" in easy and "mean_bounded_slowdown" in easy

    def starts(path):
        with open(path, newline="", encoding="utf-8") as fh:
            return [row["start"] for row in csv.DictReader(fh)]

    assert starts(a) == starts(b)


def test_options_reach_the_simulator(capsys, swf):
    code, out, _ = _run(
        capsys, "simulate", swf, "--algorithm", "MEASY", "--migration-cost", "600",
        "--bg-threshold", "0.5", "--cpu-info", "none", "--draws", "process", "--debug",
    )  # fmt: skip
    s = json.loads(out)
    assert code == 0
    assert (s["migration_cost"], s["bg_threshold"], s["cpu_info"], s["draws"]) == (
        600.0,
        0.5,
        "none",
        "process",
    )


def test_plot_draws_the_tier_utilisation(capsys, swf, tmp_path):
    code, out, _ = _run(capsys, "simulate", swf, "--algorithm", "KEASY", "--plot", str(tmp_path))
    assert code == 0
    assert str(tmp_path / "tiers.png") in json.loads(out)["plots"]
    assert (tmp_path / "tiers.png").stat().st_size > 0


def test_help_gives_units_ranges_and_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "seconds a migrated job makes no progress, in [0, 1e10] (default: 20)" in text
    assert "(default: 0.96)" in text and "0..2^63-1 (default: 0)" in text


@pytest.mark.parametrize(
    "argv",
    [
        ["--cpu-info", "partial"],
        ["--migration-cost", "-5"],
        ["--bg-threshold", "nan"],
        ["--seed", "-1"],
    ],
)
def test_bad_options_exit_2(capsys, swf, argv):
    with pytest.raises(SystemExit) as exc:
        main(["simulate", swf, "--algorithm", "MEASY", *argv])
    assert exc.value.code == 2


def test_invalid_input_exits_2_with_one_line(capsys, swf):
    code, out, err = _run(capsys, "simulate", swf, "--algorithm", "MEASY", "--cores", "4")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Platform.cores must be 1; got 4" in err
    code, _, err = _run(capsys, "simulate", swf, "--algorithm", "MEASY", "--nodes", "2")
    assert code == 2 and "processes; the platform has 2 processors" in err


# ---------------------------------------------------------------------- measy-experiment
SMALL = ["--model", "lublin", "--jobs", "40", "--processors", "16", "--backend", "serial"]


def test_measy_experiment_runs_resumes_and_writes(capsys, tmp_path):
    store, md, png = tmp_path / "s.db", tmp_path / "f.md", tmp_path / "f.png"
    argv = ["measy-experiment", "fig6", *SMALL, "--loads", "0.8", "--store", str(store)]
    code, out, _ = _run(capsys, *argv, "--markdown", str(md), "--plot", str(png))
    result = json.loads(out)
    assert code == 0 and result["sweep"]["ran"] == 4 and result["sweep"]["failed"] == 0
    assert set(result["tables"][0]["series"]) == {"EASY", "KEASY", "REASY", "MEASY"}
    assert "improvement_over_easy" in result
    assert md.read_text().startswith("### fig6: FWload") and png.stat().st_size > 0
    code, out, _ = _run(capsys, *argv)  # resumed: nothing left to run
    assert code == 0 and json.loads(out)["sweep"]["skipped"] == 4
    # fig13's KEASY shares fig6's row
    code, out, _ = _run(
        capsys, "measy-experiment", "fig13", *SMALL, "--loads", "0.8", "--costs", "0,900",
        "--store", str(store),
    )  # fmt: skip
    sweep = json.loads(out)["sweep"]
    assert code == 0 and (sweep["skipped"], sweep["ran"]) == (1, 2)


def test_measy_experiment_exits_3_when_tasks_fail(capsys, tmp_path, monkeypatch):
    import allockit.experiments.measy as measy

    def boom(task):
        raise RuntimeError("boom")

    monkeypatch.setattr(measy, "run_measy_task", boom)
    code, out, _ = _run(
        capsys, "measy-experiment", "fig8", *SMALL, "--loads", "0.8",
        "--store", str(tmp_path / "s.db"),
    )  # fmt: skip
    assert code == 3 and json.loads(out)["sweep"]["failed"] == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--loads", "high"], "--loads: expected comma-separated finite numbers"),
        (["--loads", "0"], "--loads must be comma-separated numbers in [0.01, 2]"),
        (["--traces", "/no/such/folder"], "--traces: no such folder"),
    ],
)
def test_measy_experiment_invalid_input_exits_2(capsys, tmp_path, argv, message):
    # --traces applies to the real traces only, the synthetic options to the figures
    figure = ["traces", "--backend", "serial"] if argv[0] == "--traces" else ["fig7", *SMALL]
    code, _, err = _run(
        capsys, "measy-experiment", *figure, "--store", str(tmp_path / "s.db"), *argv
    )
    assert code == 2 and message in err and err.count("\n") == 1
