"""The Feitelson 1996 generator: calibration, statistics, repeated runs, MEASY options.

The model's exact statistics are checked against the MEASY paper's FWload numbers; the
generator's samples are checked against the model's exact statistics within ``Z``
standard errors from ``Feitelson96Model.standard_errors`` (derived from the sample size
and the run-count design effect, not tuned). Runtimes are rounded to whole seconds,
which moves their mean by less than ``ROUNDING`` s.
"""

import json

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.instances.feitelson96 import (
    MEASY_TARGETS,
    Feitelson96Model,
    calibrate_feitelson96,
    feitelson96_workload,
)
from allockit.instances.swf import read_swf, swf_lines, swf_to_workload, workload_to_swf
from allockit.instances.workload_stats import workload_statistics

Z = 5.0
ROUNDING = 0.5
N = 20_000
PROCS = 320


@pytest.fixture(scope="module")
def sample():
    return feitelson96_workload(N, procs=PROCS, seed=11)


def test_calibrated_model_meets_the_measy_targets():
    stats = Feitelson96Model().expected_statistics(PROCS)
    assert stats["mean_size"] == pytest.approx(MEASY_TARGETS["mean_size"], rel=0.03)
    assert stats["mean_runtime"] == pytest.approx(MEASY_TARGETS["mean_runtime"], rel=0.05)
    assert stats["serial_fraction"] < MEASY_TARGETS["serial_fraction_below"]
    # the 4-digit constants keep the calibration far inside the tolerances
    assert stats["mean_size"] == pytest.approx(23.4, rel=1e-3)
    assert stats["mean_runtime"] == pytest.approx(2606.6, rel=1e-3)
    assert stats["offered_load"] == pytest.approx(0.45, rel=1e-3)
    # repeated runs are heavy-tailed and the runtime distribution is highly variable
    assert stats["runtime_variance"] / stats["mean_runtime"] ** 2 > 1
    assert stats["mean_runs_squared"] > 5 * stats["mean_runs"]


def test_default_constants_are_the_calibration():
    assert calibrate_feitelson96() == Feitelson96Model()
    exact = calibrate_feitelson96(digits=None)
    stats = exact.expected_statistics(PROCS)
    assert stats["mean_size"] == pytest.approx(23.4, rel=1e-9)
    assert stats["serial_fraction"] == pytest.approx(0.165, rel=1e-9)
    assert stats["mean_runtime"] == pytest.approx(2606.6, rel=1e-9)
    assert stats["offered_load"] == pytest.approx(0.45, rel=1e-9)


def test_calibration_refuses_unreachable_targets():
    with pytest.raises(InvalidInputError, match="no serial_weight/pow2_prob give mean_size=500"):
        calibrate_feitelson96(mean_size=500.0)
    with pytest.raises(InvalidInputError, match=r"mean_runtime=100\.0 must exceed short_mean"):
        calibrate_feitelson96(mean_runtime=100.0)
    with pytest.raises(InvalidInputError, match=r"serial_fraction must be in \(0, 1\)"):
        calibrate_feitelson96(serial_fraction=1.5)


def test_size_distribution_emphasises_small_sizes_and_powers_of_two():
    pmf = Feitelson96Model().size_pmf(PROCS)
    assert pmf.sum() == pytest.approx(1.0)
    assert pmf[:9].sum() > 0.6  # most jobs use fewer than 10 processors
    for k in range(1, 9):  # every power of two beats its neighbours (but 2 is below 1)
        s = 2**k
        assert (k == 1 or pmf[s - 1] > pmf[s - 2]) and (s == 256 or pmf[s - 1] > pmf[s])
    assert Feitelson96Model().size_pmf(1).tolist() == [1.0]


def test_generated_statistics_match_the_model(sample):
    model = Feitelson96Model()
    want = model.expected_statistics(PROCS)
    se = model.standard_errors(N, PROCS)
    got = workload_statistics(sample)
    checks = {
        "mean_size": (got["tasks"]["mean"], want["mean_size"], 0.0),
        "serial_fraction": (got["tasks"]["serial_fraction"], want["serial_fraction"], 0.0),
        "power_of_two_fraction": (got["power_of_two_fraction"], want["power_of_two_fraction"], 0),
        "mean_runtime": (got["runtime"]["mean"], want["mean_runtime"], ROUNDING),
        "chained_fraction": (got["chained_fraction"], 1 - 1 / want["mean_runs"], 0.0),
        "offered_load": (got["process_load"], want["offered_load"], 0.0),
    }
    for key, (value, expected, slack) in checks.items():
        assert abs(value - expected) <= Z * se[key] + slack, (key, value, expected, se[key])


def test_basic_shape(sample):
    w = sample
    assert w.n_jobs == N and w.platform.nodes == PROCS and w.platform.cores == 1
    assert w.tasks.min() >= 1 and w.tasks.max() <= PROCS
    assert (w.runtime >= 1).all() and (w.runtime == np.round(w.runtime)).all()
    assert (w.submit == np.round(w.submit)).all() and w.submit[0] == 0
    assert w.ids.tolist() == list(range(1, N + 1))
    assert (w.cpu == 1.0).all() and np.isnan(w.requested_time).all()


def test_repeated_runs_are_chained_to_the_previous_run(sample):
    w = sample
    chained = np.flatnonzero(w.preceding > 0)
    assert chained.size > 0.3 * N and w.has_feedback
    prev = w.preceding[chained] - 1  # ids are 1..N in order
    assert (prev < chained).all()
    assert np.array_equal(w.submit[chained], w.submit[prev] + w.runtime[prev])
    assert np.array_equal(w.tasks[chained], w.tasks[prev])
    assert np.array_equal(w.runtime[chained], w.runtime[prev])
    assert (w.think_time[chained] == 0).all()
    assert np.isnan(np.delete(w.think_time, chained)).all()
    # a run has at most one successor: chains, not trees
    assert np.unique(w.preceding[chained]).size == chained.size


def test_think_time_delays_the_next_run():
    w = feitelson96_workload(3000, procs=64, model=Feitelson96Model(think_time=60.0), seed=3)
    k = np.flatnonzero(w.preceding > 0)
    j = w.preceding[k] - 1
    assert np.array_equal(w.submit[k], w.submit[j] + w.runtime[j] + 60.0)
    assert (w.think_time[k] == 60.0).all()


def test_open_arrival_version_is_the_same_runs_without_feedback(sample):
    open_w = feitelson96_workload(N, procs=PROCS, seed=11, feedback=False)
    assert not open_w.has_feedback and np.isnan(open_w.think_time).all()
    assert open_w == sample.replace(preceding=np.full(N, -1), think_time=np.full(N, np.nan))


def test_load_scales_the_job_arrivals_by_the_model_factor(sample):
    model = Feitelson96Model()
    factor = model.offered_load(PROCS) / 0.9
    scaled = feitelson96_workload(N, procs=PROCS, seed=11, load=0.9)
    # first runs: the same jobs in the same order, arrival times times the factor
    first_a, first_b = sample.preceding == -1, scaled.preceding == -1
    count = min(first_a.sum(), first_b.sum())
    assert count > 0.4 * N
    for field in ("tasks", "runtime"):
        assert np.array_equal(
            getattr(sample, field)[first_a][:count], getattr(scaled, field)[first_b][:count]
        )
    expected = factor * sample.submit[first_a][:count]
    assert np.all(np.abs(scaled.submit[first_b][:count] - expected) <= factor + 1)
    # and the resulting load is 0.9 within sampling error
    se = model.standard_errors(N, PROCS)["offered_load"] / factor
    assert abs(workload_statistics(scaled)["process_load"] - 0.9) <= Z * se


def test_measy_options_do_not_change_the_jobs(sample):
    w = feitelson96_workload(N, procs=PROCS, seed=11, cpu_usage=True, estimates=True)
    assert w.replace(cpu=sample.cpu, requested_time=sample.requested_time) == sample
    serial = w.tasks == 1
    assert (w.cpu[serial] == 1.0).all()
    multi = w.cpu[~serial]
    assert ((multi >= 0.4) & (multi <= 1.0)).all()
    # uniform on [0.4, 1]: mean 0.7, sd 0.6 / sqrt(12), independent per run
    assert abs(multi.mean() - 0.7) <= Z * 0.6 / np.sqrt(12 * multi.size)
    assert np.isfinite(w.requested_time).all() and (w.requested_time >= w.runtime).all()
    only_cpu = feitelson96_workload(N, procs=PROCS, seed=11, cpu_usage=True)
    assert np.array_equal(only_cpu.cpu, w.cpu)


def test_swf_round_trip_keeps_the_chains(tmp_path):
    w = feitelson96_workload(500, procs=32, seed=5, cpu_usage=True, estimates=True)
    path = tmp_path / "fw.swf"
    path.write_text("".join(swf_lines(workload_to_swf(w))), encoding="utf-8")
    trace = read_swf(path)
    back = swf_to_workload(trace)
    assert back == w
    fields = trace.data[:, 16:18]
    assert ((fields[:, 0] > 0) == (w.preceding > 0)).all() and (fields[w.preceding < 0] == -1).all()


def test_reproducible_and_seed_sensitive():
    a = feitelson96_workload(300, procs=64, seed=9)
    assert a == feitelson96_workload(300, procs=64, seed=9)
    assert a != feitelson96_workload(300, procs=64, seed=10)
    rng = np.random.default_rng(4)
    assert feitelson96_workload(10, seed=rng).n_jobs == 10


def test_model_json_round_trip_and_validation():
    m = Feitelson96Model(long_mean=9000.0, max_runs=5)
    assert Feitelson96Model.from_dict(json.loads(json.dumps(m.to_dict()))) == m
    assert m.runs_pmf().size == 5
    with pytest.raises(InvalidInputError, match=r"no constant\(s\) \['bogus'\]"):
        Feitelson96Model.from_dict({"bogus": 1})
    with pytest.raises(InvalidInputError, match=r"pow2_prob must be in \[0, 1\]; got 1.5"):
        Feitelson96Model(pow2_prob=1.5)
    with pytest.raises(InvalidInputError, match="long_mean must be finite and > 0; got -1"):
        Feitelson96Model(long_mean=-1)
    with pytest.raises(InvalidInputError, match="max_runs must be an integer >= 1; got 0"):
        Feitelson96Model(max_runs=0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"jobs": 0}, "jobs must be an integer >= 1; got 0"),
        ({"jobs": 10, "procs": 0}, "procs must be an integer >= 1; got 0"),
        ({"jobs": 10, "load": -1.0}, "load must be finite and > 0; got -1.0"),
        ({"jobs": 10, "mem": 2.0}, r"mem must be in \[0, 1\]; got 2.0"),
        ({"jobs": 10, "model": "x"}, "model must be a Feitelson96Model; got str"),
        ({"jobs": 10, "seed": -3}, "seed must be >= 0; got -3"),
    ],
)
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        feitelson96_workload(**kwargs)
