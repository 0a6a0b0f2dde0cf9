"""``allockit vcsched-experiment``: Table 1/7 scorings and the large/parallel figures."""

import json

import pytest

from allockit.cli import main


def test_table1_sample_writes_both_scorings(capsys, tmp_path):
    md = tmp_path / "t1.md"
    args = ["vcsched-experiment", "table1", "--every", "360", "--backend", "serial"]
    args += ["--store", str(tmp_path / "s.db"), "--markdown", str(md), "--worst", "1"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["instances"] == 4 and out["sweep"]["ran"] == 4
    assert set(out["table"]["lines"]) >= {"bound/exact/excluded", "half/target/as-100"}
    text = md.read_text()
    assert "| MCB8 | 1.06 (40.45) |" in text and "Instances behind the maxima" in text
    assert main(args) == 0  # resumed: nothing to run
    assert json.loads(capsys.readouterr().out)["sweep"]["skipped"] == 4


def test_large_figures_sample(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    png, md = tmp_path / "f.png", tmp_path / "f.md"
    args = ["vcsched-experiment", "parallel", "--every", "5000", "--methods", "mcb8,sg"]
    args += ["--backend", "serial", "--store", str(tmp_path / "s.db")]
    args += ["--markdown", str(md), "--plot", str(png)]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["instances"] == 3 and set(out["series"]["min_yield"]) == {"lp", "mcb8", "sg"}
    assert png.stat().st_size > 0
    assert "Failure rates of MCB8 and SG" in md.read_text()


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["table1", "--worst", "-1"], "--worst must be an integer in [0, 1000]"),
        (["large", "--truncation", "clip"], "--truncation applies to table1 and table7, not to"),
        (["table1", "--starts", "top", "--every", "1440"], "start must be one of"),
        (["large", "--total-tasks"], "--total-tasks applies to parallel, not to"),
    ],
)
def test_bad_options_exit_2(capsys, tmp_path, extra, match):
    args = ["vcsched-experiment", *extra, "--store", str(tmp_path / "s.db")]
    assert main(args) == 2
    assert match in capsys.readouterr().err
