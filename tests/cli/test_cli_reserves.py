"""``allockit reserves``, ``cluster-sim`` and ``reserves-experiment``: JSON and exit codes."""

import json

import pytest

from allockit.cli import main

INSTANCE = {
    "problem": "reserves",
    "targets": [60, 30, 10],
    "allocation": [[60, 30, 10]] * 4,
    "usage": [[70, 30, 0], [70, 30, 0], [70, 30, 0], [50, 10, 40]],
}
FIELDS = {"problem", "method", "status", "allocation", "deviation", "qp_objective",
          "class_totals", "seconds"}


def _run(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:  # a usage error found by argparse
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("method", ["bank", "cluster-reserves"])
def test_reserves_prints_the_contract(tmp_path, capsys, method):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(INSTANCE))
    code, out, _ = _run(capsys, ["reserves", str(path), "--method", method])
    data = json.loads(out)
    assert code == 0 and FIELDS <= set(data) and data["method"] == method
    assert all(abs(sum(row) - 100) < 1e-6 for row in data["allocation"])
    if method == "cluster-reserves":
        assert data["qp_objective"] is not None
        assert [round(t, 6) for t in data["class_totals"]] == [60, 30, 10]


@pytest.mark.parametrize(
    ("change", "match"),
    [({"targets": [60, 30, 20]}, "targets"), ({"usage": [[-1, 0, 0]] * 4}, "usage"),
     ({"allocation": [[60, 30]] * 4}, "allocation"), ({"extra": 1}, "extra")],
)
def test_bad_instances_exit_2_naming_the_field(tmp_path, capsys, change, match):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({**INSTANCE, **change}))
    code, out, err = _run(capsys, ["reserves", str(path)])
    assert code == 2 and out == "" and match in err and len(err.strip().splitlines()) == 1


def test_an_option_of_the_other_method_exits_2(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(INSTANCE))
    code, _, err = _run(capsys, ["reserves", str(path), "--method", "cluster-reserves",
                                 "--c", "3"])
    assert code == 2 and "--c applies to --method bank" in err


def test_cluster_sim_scenario_with_a_manager_failure(tmp_path, capsys):
    csv = tmp_path / "s.csv"
    code, out, _ = _run(capsys, ["cluster-sim", "--scenario", "fig5", "--duration", "30",
                                 "--fail", "m1.3@15", "--csv", str(csv)])
    data = json.loads(out)
    assert code == 0 and data["status"] == "completed"
    assert data["events"][0]["kind"] == "failure" and data["events"][0]["repair_time"] > 0
    assert data["reachable_nodes"] == data["live_nodes"]
    assert csv.read_text().count("\n") > 50


def test_cluster_sim_custom_run_and_bad_input(capsys):
    code, out, _ = _run(capsys, ["cluster-sim", "--nodes", "20", "--fanout", "5",
                                 "--class3-nodes", "6", "--duration", "15"])
    assert code == 0 and abs(json.loads(out)["mean"][2] - 10) < 2
    assert _run(capsys, ["cluster-sim"])[0] == 2
    assert _run(capsys, ["cluster-sim", "--scenario", "fig9"])[0] == 2
    assert _run(capsys, ["cluster-sim", "--scenario", "fig5", "--fail", "x@y"])[0] == 2
    assert _run(capsys, ["cluster-sim", "--nodes", "100", "--fanout", "abc"])[0] == 2


def test_reserves_experiment_quick_fig3(tmp_path, capsys):
    md = tmp_path / "f3.md"
    code, out, _ = _run(capsys, ["reserves-experiment", "fig3", "--seeds", "1", "--quick",
                                 "--store", str(tmp_path / "r.db"), "--backend", "serial",
                                 "--markdown", str(md)])
    table = json.loads(out)["table"]
    assert code == 0
    assert abs(table["rows"]["static"]["mean"][2] - 2.5) < 0.05
    assert abs(table["rows"]["ideal allocation"]["mean"][2] - 10.0) < 0.5
    assert "2.5" in md.read_text()
