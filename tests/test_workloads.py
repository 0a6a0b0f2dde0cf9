"""Workloads: SWF reading and writing, HPC2N conversion, the Lublin and Tsafrir models."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.instances.datasets import TRACES
from allockit.instances.hpc2n import hpc2n_workload, split_weeks
from allockit.instances.lublin import (
    BATCH,
    INTERACTIVE,
    TYPELESS,
    LublinModel,
    daily_cycle_weights,
    dfrs_synthetic,
    generate_lublin,
)
from allockit.instances.swf import (
    read_swf,
    swf_to_workload,
    workload_to_swf,
    write_swf,
)
from allockit.instances.tsafrir import estimate_histogram, tsafrir_estimates
from allockit.instances.workload import Platform, Workload
from tests.traces import real_trace

DATA = Path(__file__).parent / "data"


def test_excerpt_header_and_fields():
    t = read_swf(DATA / "hpc2n_excerpt.swf")
    assert t.header_int("MaxNodes") == 240 and t.header_value("Computer").startswith("Linux")
    assert t.data.shape[1] == 18 and t.n_jobs > 20
    assert t.column("run")[0] == 43306 and t.column("cpu_time")[1] == pytest.approx(552.21)


def test_ctc_header_with_trailing_text():
    t = read_swf(DATA / "ctc_excerpt.swf")
    assert t.header_int("MaxNodes") == 338  # "338 (batch partition; 512 total)"


def test_bad_lines_raise_or_skip_with_line_numbers():
    lines = [
        "; MaxNodes: 2",
        "1 0 0 10 1 -1 -1 1 10 -1 1 1 -1 -1 1 -1 -1 -1",
        "2 0 0 x 1 -1 -1 1 10 -1 1 1 -1 -1 1 -1 -1 -1",
        "3 1 2",
    ]
    with pytest.raises(
        InvalidInputError, match=r"SWF line 3: field 4 \(run\) must be a number in .*; got 'x'"
    ):
        read_swf(lines)
    t = read_swf(lines, on_error="skip")
    assert t.n_jobs == 1
    assert t.bad_lines == (
        (3, "field 4 (run) must be a number in [-1e+10, 1e+10]; got 'x'"),
        (4, "expected 18 fields, got 3"),
    )


@pytest.mark.parametrize(
    ("field", "token", "match"),
    [
        (5, "2.5", r"field 5 \(procs\) must be an integer in \[-1, .*\]; got '2.5'"),
        (1, "1_000", r"field 1 \(job\) must be an integer .*; got '1_000'"),
        (4, "1e308", r"field 4 \(run\) must be a number in \[-1e\+10, 1e\+10\]; got '1e308'"),
        (4, "nan", r"field 4 \(run\) must be a number .*; got 'nan'"),
        (12, "99999999999999999999", r"field 12 \(user\) must be an integer .*"),
        (2, "0x10", r"field 2 \(submit\) must be a number .*; got '0x10'"),
    ],
)
def test_fields_follow_the_field_table(field, token, match):
    parts = "1 0 0 10 1 -1 -1 1 10 -1 1 1 -1 -1 1 -1 -1 -1".split()
    parts[field - 1] = token
    with pytest.raises(InvalidInputError, match="SWF line 2: " + match):
        read_swf(["; MaxNodes: 2", " ".join(parts)])


@pytest.mark.parametrize(
    ("header", "match"),
    [
        ("; MaxProcs: -5", r"MaxProcs must be an integer in \[1, .*\]; got -5"),
        ("; MaxNodes: 99999999999999999999", r"MaxNodes must be an integer in \[1, 1000000\]"),
        ("; MaxNodes: x", r"MaxNodes must be an integer .*; got 'x'"),
        ("; MaxNodes: 2.5", r"MaxNodes must be an integer .*; got '2.5'"),
    ],
)
def test_header_values_in_use_follow_the_schema(header, match):
    with pytest.raises(InvalidInputError, match="SWF header: " + match):
        read_swf([header, "1 0 0 10 1 -1 -1 1 10 -1 1 1 -1 -1 1 -1 -1 -1"])


def test_nodes_and_cores_override_an_allockit_platform_header(tmp_path):
    from allockit.instances.workload_files import read_workload_report

    w = Workload.from_jobs(Platform(nodes=4, cores=2), submit=[0, 5], runtime=[10, -1 + 21],
                           tasks=[1, 3], cpu=[0.5, 1.0], mem=[0.1, 0.3])
    write_swf(workload_to_swf(w), tmp_path / "w.swf")
    again, counts = read_workload_report(tmp_path / "w.swf", nodes=16, cores=4)
    assert again.platform.nodes == 16 and again.platform.cores == 4
    assert counts == {"records": 2, "dropped_jobs": 0, "skipped_lines": 0}


@settings(max_examples=200)
@given(lines=st.lists(st.text(alphabet="0123456789 -.;:xe\tinfa", max_size=80), max_size=8))
def test_reader_never_crashes_on_garbage(lines):
    try:
        t = read_swf(lines, on_error="skip")
    except InvalidInputError:  # pragma: no cover - skip mode should not raise
        pytest.fail("skip mode raised")
    assert t.data.shape[1] == 18 and np.isfinite(t.data).all()
    try:
        read_swf(lines, on_error="raise")
    except InvalidInputError as exc:
        assert "SWF line" in str(exc)


def test_round_trip_on_the_excerpts(tmp_path):
    for name in ("hpc2n_excerpt.swf", "ctc_excerpt.swf"):
        t = read_swf(DATA / name)
        write_swf(t, tmp_path / (name + ".gz"))
        again = read_swf(tmp_path / (name + ".gz"))
        assert np.array_equal(t.data, again.data) and t.header == again.header


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TRACES))
def test_round_trip_is_lossless_on_every_trace(tmp_path, name):
    t = read_swf(real_trace(name))
    assert t.n_jobs > 70_000 and not t.bad_lines
    write_swf(t, tmp_path / "copy.swf")
    again = read_swf(tmp_path / "copy.swf")
    assert np.array_equal(t.data, again.data)
    assert t.header == again.header and t.comments == again.comments
    w = swf_to_workload(t)
    assert w.n_jobs > 0.9 * t.n_jobs


def test_default_rule_and_multicore():
    lines = [
        "; MaxNodes: 4",
        "; MaxProcs: 16",
        "1 0 0 100 8 -1 -1 8 200 -1 1 1 -1 -1 1 -1 -1 -1",
        "2 5 0 50 -1 -1 -1 2 -1 -1 1 1 -1 -1 1 -1 -1 -1",
        "3 6 0 0 4 -1 -1 4 200 -1 0 1 -1 -1 1 -1 -1 -1",
    ]
    w = swf_to_workload(read_swf(lines))
    assert w.platform == Platform(nodes=4, cores=4)
    assert w.tasks.tolist() == [8, 2]  # job 3 has no run time: dropped
    assert w.cpu.tolist() == [0.25, 0.25] and w.mem.tolist() == [0.1, 0.1]
    assert w.requested_time[0] == 200 and np.isnan(w.requested_time[1])


def test_memory_from_fields_7_and_10():
    lines = [
        "; MaxNodes: 2",
        "1 0 0 100 1 -1 524288 1 -1 -1 1 1 -1 -1 1 -1 -1 -1",
        "2 0 0 100 1 -1 -1 1 -1 1048576 1 1 -1 -1 1 -1 -1 -1",
    ]
    w = swf_to_workload(read_swf(lines), node_memory=2 * 1024**3)
    assert w.mem.tolist() == [0.25, 0.5]


def test_workload_swf_round_trip(tmp_path):
    w = dfrs_synthetic(120, nodes=16, load=0.5, seed=3)
    write_swf(workload_to_swf(w), tmp_path / "w.swf")
    assert swf_to_workload(read_swf(tmp_path / "w.swf")) == w


def test_hpc2n_conversion_rules():
    # procs 4, 200 MB/proc (under the 10 % floor) -> even and < 50 %: 2 threaded tasks,
    # CPU 1, memory doubled;
    # procs 3 -> 3 tasks of CPU 0.5; no memory info -> the 10 % floor;
    # procs 2 with 1.5 GB/proc (>= 50 %) -> 2 tasks of CPU 0.5.
    lines = [
        "1 0 0 60 4 -1 204800 4 100 -1 1 1 -1 -1 1 -1 -1 -1",
        "2 9 0 60 3 -1 -1 3 100 -1 1 1 -1 -1 1 -1 -1 -1",
        "3 9 0 60 2 -1 -1 2 100 1572864 1 1 -1 -1 1 -1 -1 -1",
    ]
    w = hpc2n_workload(read_swf(lines))
    assert w.tasks.tolist() == [2, 3, 2]
    assert w.cpu.tolist() == [1.0, 0.5, 0.5]
    assert w.mem.tolist() == pytest.approx([0.2, 0.1, 0.75])  # 200 MB < 10 % floor, doubled
    assert w.platform == Platform(nodes=120, cores=2, node_memory=2 * 1024**3)


def test_split_weeks_keeps_every_job_once():
    w = dfrs_synthetic(400, nodes=32, load=0.05, seed=1)
    weeks = split_weeks(w, length=86400)
    assert sum(s.n_jobs for s in weeks) == w.n_jobs
    assert all((s.submit >= 0).all() and (s.submit < 86400).all() for s in weeks)
    ids = np.concatenate([s.ids for s in weeks])
    assert np.array_equal(np.sort(ids), np.sort(w.ids))


@pytest.mark.slow
def test_full_hpc2n_weeks():
    w = hpc2n_workload(read_swf(real_trace("hpc2n")))
    weeks = split_weeks(w)
    assert w.n_jobs == 202_871 and 180 <= len(weeks) <= 182


def test_daily_cycle_matches_the_reference_shape():
    for params, peak, low in ((BATCH, 26, 9), (INTERACTIVE, 28, 10), (TYPELESS, 27, 10)):
        w = daily_cycle_weights(params)
        assert int(np.argmax(w)) == peak and int(np.argmin(w)) == low
        assert w.mean() == pytest.approx(1.0)


def test_lublin_two_types_statistics():
    # Reference (LUBLIN_TSAFRIR_MODELS.md §3, C defaults, 128 nodes, 50k jobs): batch share
    # 14.4-15.1 %, mean nodes 8.9, serial 17.3 %, median runtime 18 s, median
    # inter-arrival about 50 s, offered load 0.38-0.44.
    j = generate_lublin(50_000, model=LublinModel(nodes=128), seed=11)
    size, runtime = j["size"], j["runtime"]
    assert 0.13 <= j["type"].mean() <= 0.16
    assert size.mean() == pytest.approx(8.9, rel=0.05)
    assert (size == 1).mean() == pytest.approx(0.173, abs=0.01)
    assert 15 <= np.median(runtime) <= 21
    assert 40 <= np.median(np.diff(j["submit"])) <= 60
    load = (size * runtime).sum() / (128 * (j["submit"][-1] - j["submit"][0]))
    assert 0.33 <= load <= 0.47


def test_lublin_typeless_statistics():
    # Reference: mean nodes 12.3, serial 24.3 %, median runtime 105 s, median
    # inter-arrival 116 s, load 0.72-0.75; power-of-two share among parallel ~81.5 %.
    j = generate_lublin(50_000, model=LublinModel(nodes=128, two_types=False), seed=12)
    size, runtime = j["size"], j["runtime"]
    assert size.mean() == pytest.approx(12.3, rel=0.05)
    assert (size == 1).mean() == pytest.approx(0.243, abs=0.01)
    assert 95 <= np.median(runtime) <= 115
    assert 105 <= np.median(np.diff(j["submit"])) <= 127
    parallel = size[size > 1]
    assert ((parallel & (parallel - 1)) == 0).mean() == pytest.approx(0.815, abs=0.02)


def test_lublin_daily_cycle_in_arrivals():
    j = generate_lublin(30_000, model=LublinModel(nodes=128, two_types=False), seed=5)
    hours = ((j["submit"] % 86400) // 3600).astype(int)
    counts = np.bincount(hours, minlength=24)
    assert 10 <= int(np.argmax(counts)) <= 15 and 2 <= int(np.argmin(counts)) <= 6


def test_dfrs_synthetic_rules():
    w = dfrs_synthetic(2000, nodes=128, load=0.7, seed=4)
    assert w.offered_load() == pytest.approx(0.7)
    assert np.array_equal(w.cpu == 0.25, w.tasks == 1)
    assert (w.mem == 0.1).mean() == pytest.approx(0.55, abs=0.03)
    assert set(np.round(w.mem * 10).astype(int).tolist()) <= set(range(1, 11))
    assert w.platform.cores == 4 and w.tasks.max() <= 128


def test_tsafrir_histogram_shape():
    times, counts = estimate_histogram(10_000, 40 * 3600, seed=1)
    assert counts.sum() == 10_000 and len(times) == 90  # K(10,000) = 90
    top = counts[np.argmax(times)] / 10_000
    assert top == pytest.approx(0.217, abs=0.01)  # the maximum is the most popular
    order = np.sort(counts)[::-1]
    assert order[:20].sum() / 10_000 == pytest.approx(0.89, abs=0.02)


def test_tsafrir_estimates_cover_runtimes():
    j = generate_lublin(2000, seed=2)
    est = tsafrir_estimates(j["runtime"], seed=3)
    assert (est >= j["runtime"]).all()
    assert np.array_equal(est, tsafrir_estimates(j["runtime"], seed=3))


def test_workload_validation():
    with pytest.raises(InvalidInputError, match="runtime must be finite and > 0"):
        Workload.from_jobs(
            Platform(nodes=1), submit=[0], runtime=[0], tasks=[1], cpu=[1], mem=[0.1]
        )
    with pytest.raises(InvalidInputError, match="cpu must be in"):
        Workload.from_jobs(
            Platform(nodes=1), submit=[0], runtime=[5], tasks=[1], cpu=[2], mem=[0.1]
        )
    with pytest.raises(InvalidInputError, match=r"Platform\.nodes"):
        Platform(nodes=0)
