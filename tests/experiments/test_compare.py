"""``allockit compare``: the Table 1 statistics, CSV rows and figures."""

import csv
import json

import pytest

from allockit.cli import main
from allockit.experiments.compare import comparison_rows, summarize
from allockit.instances import sample_dir


def _row(instance, method, y, ok=True, status="feasible"):
    return {
        "instance": instance,
        "method": method,
        "ok": ok,
        "wall_seconds": 0.01,
        "outputs": {
            "status": status,
            "min_yield": y,
            "avg_yield": y,
            "build_seconds": 0.0,
            "solve_seconds": 0.01,
        },
    }


def test_degradation_from_best_excludes_failures_and_bounds():
    rows = [
        _row("i1", "a", 0.8),
        _row("i1", "b", 0.6),
        _row("i1", "lp", 0.9, status="optimal"),
        _row("i2", "a", 0.5),
        _row("i2", "b", None, ok=True, status="infeasible"),
    ]
    flat = comparison_rows(rows)
    s = {x.method: x for x in summarize(flat, ["a", "b", "lp"])}
    assert s["a"].avg_degradation == 0.0 and s["a"].failures == 0
    assert s["b"].failures == 1 and s["b"].avg_degradation == pytest.approx(25.0)
    assert s["b"].max_degradation == pytest.approx(25.0)
    assert s["lp"].avg_degradation is None  # a bound is not degraded from anything
    assert s["a"].mean_min_yield == pytest.approx(0.65)


def test_compare_cli_table_json_csv_and_plots(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    csv_path = tmp_path / "rows.csv"
    code = main(
        [
            "compare",
            sample_dir(),
            "--methods",
            "milp,lp,mcb8,sg",
            "--workers",
            "2",
            "--json",
            "--csv",
            str(csv_path),
            "--plot",
            str(tmp_path / "fig"),
            "--no-progress",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["instances"] == 36
    by = {m["method"]: m for m in data["methods"]}
    assert by["milp"]["avg_degradation"] == pytest.approx(0.0, abs=1e-6)  # exact is best
    assert by["mcb8"]["mean_min_yield"] <= by["milp"]["mean_min_yield"] + 1e-9
    assert by["milp"]["failures"] <= by["mcb8"]["failures"]
    with open(csv_path) as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 36 * 4
    assert {"instance", "method", "status", "min_yield", "degradation", "slack"} <= rows[0].keys()
    pngs = sorted(p.name for p in (tmp_path / "fig").glob("*.png"))
    assert pngs == [
        "avg_yield_vs_slack.png",
        "failures_vs_slack.png",
        "min_yield_vs_slack.png",
        "runtime_vs_jobs.png",
    ]


def test_compare_unknown_method_exits_2(capsys):
    assert main(["compare", sample_dir(), "--methods", "mcb9"]) == 2
    err = capsys.readouterr().err
    assert "--methods must be one of ['milp'" in err and "got 'mcb9'" in err
    assert len(err.strip().splitlines()) == 1


def test_compare_missing_input_exits_2(tmp_path, capsys):
    assert main(["compare", str(tmp_path / "none"), "--methods", "gr"]) == 2
    assert "no instance files match" in capsys.readouterr().err
