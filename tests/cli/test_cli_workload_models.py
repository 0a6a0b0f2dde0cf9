"""``allockit workload feitelson96|jann97|fit``: the MEASY workload models on the CLI."""

import json

import pytest

from allockit.cli import main
from allockit.instances.jann97 import load_jann_model
from allockit.instances.workload_files import read_workload
from tests.traces import real_trace


def _run(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("kind", ["feitelson96", "jann97"])
def test_models_write_swf_that_reads_back(tmp_path, capsys, kind):
    code, out, _ = _run(
        capsys,
        ["workload", kind, "--jobs", "300", "--procs", "64", "--seed", "3", "--cpu-usage",
         "--estimates", "--load", "0.7"],
    )
    assert code == 0
    path = tmp_path / "w.swf"
    path.write_text(out)
    w = read_workload(path)
    assert w.n_jobs == 300 and w.platform.nodes == 64 and w.platform.cores == 1
    multi = w.tasks > 1
    assert (w.cpu[~multi] == 1.0).all() and (w.cpu[multi] >= 0.4).all()
    assert (w.requested_time > 0).all()
    code, out, _ = _run(capsys, ["workload", "stats", str(path)])
    stats = json.loads(out)
    assert code == 0 and {"power_of_two_fraction", "mean_interarrival"} <= set(stats)


def test_same_seed_same_workload(capsys):
    a = _run(capsys, ["workload", "feitelson96", "--jobs", "50", "--seed", "9"])[1]
    b = _run(capsys, ["workload", "feitelson96", "--jobs", "50", "--seed", "9"])[1]
    assert a == b


def test_fit_writes_a_model_the_generator_reads(tmp_path, capsys):
    real_trace("ctc-sp2")
    out = tmp_path / "m.json"
    code, text, _ = _run(  # the trace by name, from the data directory
        capsys, ["workload", "fit", "ctc-sp2", "--out", str(out), "--end", "1996-09-12"]
    )
    assert code == 0 and json.loads(text)["ranges"] == 10
    model = load_jann_model(out)
    assert model.nodes == 322
    code, swf, _ = _run(capsys, ["workload", "jann97", "--jobs", "40", "--model", str(out)])
    assert code == 0 and swf.count("\n") > 40


def test_bad_options_exit_2(capsys):
    assert _run(capsys, ["workload", "jann97", "--model", "/nonexistent.json"])[0] == 2
    with pytest.raises(SystemExit) as info:
        main(["workload", "feitelson96", "--jobs", "0"])
    assert info.value.code == 2
