"""CLI: allockit workload lublin / hpc2n / stats and allockit bound."""

import json
from pathlib import Path

from allockit.cli import main
from allockit.instances.swf import read_swf, swf_to_workload

DATA = Path(__file__).parents[1] / "data"


def test_lublin_to_swf_then_stats_and_bound(tmp_path, capsys):
    assert (
        main(
            [
                "workload",
                "lublin",
                "--jobs",
                "150",
                "--nodes",
                "16",
                "--seed",
                "3",
                "--load",
                "0.7",
                "--estimates",
            ]
        )
        == 0
    )
    path = tmp_path / "w.swf"
    path.write_text(capsys.readouterr().out)
    w = swf_to_workload(read_swf(path))
    assert w.n_jobs == 150 and w.platform.nodes == 16 and w.platform.cores == 4
    assert (w.requested_time >= w.runtime).all()
    assert main(["workload", "stats", str(path)]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["jobs"] == 150 and abs(stats["offered_load"] - 0.7) < 1e-9
    assert main(["bound", str(path)]) == 0
    exact = json.loads(capsys.readouterr().out)
    assert main(["bound", str(path), "--method", "bisection", "--tol", "1e-6"]) == 0
    bisect = json.loads(capsys.readouterr().out)
    assert exact["bound"] >= 1 and abs(exact["bound"] - bisect["bound"]) < 1e-5 * exact["bound"]
    assert {"bound", "seconds", "method"} <= exact.keys()


def test_hpc2n_weeks_from_the_excerpt(tmp_path, capsys):
    assert main(["workload", "hpc2n", str(DATA / "hpc2n_excerpt.swf"), "--out", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    files = sorted(tmp_path.glob("*.swf"))
    assert out["weeks"] == len(files) >= 1
    w = swf_to_workload(read_swf(files[0]))
    assert w.platform.nodes == 120 and set(w.cpu.tolist()) <= {0.5, 1.0}


def test_bad_swf_exits_2(tmp_path, capsys):
    path = tmp_path / "bad.swf"
    path.write_text("; MaxNodes: 2\n1 0 0 10\n2 0 0 10 1 -1 -1 1 20 -1 1 1 -1 -1 1 -1 -1 -1\n")
    assert main(["workload", "stats", str(path)]) == 2
    assert "SWF line 2" in capsys.readouterr().err
    assert main(["workload", "stats", str(path), "--skip-bad"]) == 0
    assert json.loads(capsys.readouterr().out)["jobs"] == 1
    empty = tmp_path / "empty.swf"
    empty.write_text("; MaxNodes: 2\n")
    assert main(["bound", str(empty)]) == 2
    assert "no job with a positive run time" in capsys.readouterr().err
