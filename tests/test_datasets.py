"""Named real traces: ``allockit data list|fetch|add`` and names wherever a trace is read.

No test needs the network: fetching is tested against ``file://`` URLs. Most tests use
small registered stand-ins (the bundled excerpts, registered under test names with
their own checksums) in a temporary data directory, so they run in a fresh clone; the
ones on the real traces take them from the session's data directory (filled by
``allockit data add`` from ``../shared`` where it exists, see ``tests/conftest.py``).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from allockit.cli import main
from allockit.errors import InvalidInputError
from allockit.instances import datasets
from allockit.instances.datasets import (
    TRACES,
    MissingTraceError,
    TraceInfo,
    add_trace,
    fetch_trace,
    file_sha256,
    list_traces,
    trace_path,
)
from tests.traces import real_trace

DATA = Path(__file__).parent / "data"


def _info(name: str, path: Path) -> TraceInfo:
    return TraceInfo(
        name=name,
        file=f"{name.upper()}-cln.swf",
        size=path.stat().st_size,
        sha256=file_sha256(path),
        url=path.as_uri(),
        description=f"test stand-in: {path.name}",
        jobs=sum(1 for line in path.read_text().splitlines() if not line.startswith(";")),
    )


@pytest.fixture
def data_home(tmp_path, monkeypatch):
    """An empty data directory for the test, and two small registered traces."""
    home = tmp_path / "data"
    monkeypatch.setenv(datasets.DATA_ENV, str(home))
    for var in ("ALLOCKIT_HPC2N", "ALLOCKIT_TRACES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setitem(TRACES, "tiny-ctc", _info("tiny-ctc", DATA / "ctc_excerpt.swf"))
    monkeypatch.setitem(TRACES, "tiny-hpc2n", _info("tiny-hpc2n", DATA / "hpc2n_excerpt.swf"))
    return home


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_error(code, out, err, *needles):
    assert code == 2 and out == "" and err.count("\n") == 1, (code, out, err)
    for needle in needles:
        assert needle in err, (needle, err)


# ----------------------------------------------------------------- the registry
def test_the_registry_holds_the_five_archive_traces():
    real = {k: v for k, v in TRACES.items() if not k.startswith("tiny")}
    assert set(real) == {"hpc2n", "ctc-sp2", "sdsc-blue", "llnl-thunder", "cea-curie"}
    for info in real.values():
        assert info.url.startswith("https://www.cs.huji.ac.il/labs/parallel/workload/l_")
        assert info.url.endswith("/" + info.file) and info.file.endswith("-cln.swf.gz")
        assert len(info.sha256) == 64 and int(info.sha256, 16) >= 0 and info.size > 1_000_000


@pytest.mark.parametrize("name", ["hpc2n", "ctc-sp2", "sdsc-blue", "llnl-thunder", "cea-curie"])
def test_each_real_trace_matches_its_registered_size_and_checksum(name):
    path = real_trace(name)
    assert path.stat().st_size == TRACES[name].size
    assert file_sha256(path) == TRACES[name].sha256


def test_the_data_directory_defaults_to_the_user_cache(monkeypatch):
    import platformdirs

    monkeypatch.delenv(datasets.DATA_ENV, raising=False)
    assert datasets.data_dir() == Path(platformdirs.user_cache_dir("allockit")).absolute()
    monkeypatch.setenv(datasets.DATA_ENV, "/srv/x")
    assert datasets.data_dir() == Path("/srv/x")


# ----------------------------------------------------------------- data list
def test_list_says_what_is_present(data_home, capsys):
    code, out, _ = _run(capsys, "data", "list")
    doc = json.loads(out)
    rows = {r["name"]: r for r in doc["traces"]}
    assert code == 0 and doc["data_dir"] == str(data_home)
    assert set(rows) >= {"hpc2n", "ctc-sp2", "sdsc-blue", "llnl-thunder", "cea-curie"}
    assert not any(r["present"] for r in rows.values())
    assert rows["hpc2n"]["source"] == TRACES["hpc2n"].url
    assert rows["hpc2n"]["size"] == 2_997_773
    add_trace("tiny-ctc", DATA / "ctc_excerpt.swf")
    code, out, _ = _run(capsys, "data", "list", "--verify")
    rows = {r["name"]: r for r in json.loads(out)["traces"]}
    assert rows["tiny-ctc"]["present"] and rows["tiny-ctc"]["verified"] is True
    assert rows["hpc2n"]["verified"] is None


def test_list_does_not_count_a_truncated_file(data_home):
    target = datasets.trace_location("tiny-ctc")
    target.parent.mkdir(parents=True)
    target.write_bytes((DATA / "ctc_excerpt.swf").read_bytes()[:-10])
    row = next(r for r in list_traces() if r["name"] == "tiny-ctc")
    assert not row["present"]


# ----------------------------------------------------------------- data add
def test_add_copies_a_file_whose_checksum_matches(data_home, capsys):
    code, out, _ = _run(capsys, "data", "add", "tiny-ctc", str(DATA / "ctc_excerpt.swf"))
    path = Path(json.loads(out)["path"])
    assert code == 0 and path.parent == data_home / "traces"
    assert path.read_bytes() == (DATA / "ctc_excerpt.swf").read_bytes()


def test_add_refuses_a_mismatch_with_both_hashes(data_home, capsys):
    wrong = DATA / "hpc2n_excerpt.swf"
    code, out, err = _run(capsys, "data", "add", "tiny-ctc", str(wrong))
    _one_line_error(
        code, out, err, "data add tiny-ctc", file_sha256(wrong), TRACES["tiny-ctc"].sha256,
        "not copied",
    )
    assert not (data_home / "traces" / TRACES["tiny-ctc"].file).exists()


def test_add_refuses_a_missing_file_and_an_unknown_name(data_home, capsys):
    _one_line_error(*_run(capsys, "data", "add", "tiny-ctc", "/no/such.swf"), "no such file")
    _one_line_error(
        *_run(capsys, "data", "add", "kth-sp2", str(DATA / "ctc_excerpt.swf")),
        "trace name must be one of", "'kth-sp2'",
    )


# ----------------------------------------------------------------- data fetch
def test_fetch_from_a_file_url_is_checked(data_home, capsys):
    mirror = (DATA / "ctc_excerpt.swf").as_uri()
    code, out, err = _run(capsys, "data", "fetch", "tiny-ctc", "--url", mirror)
    path = Path(json.loads(out)["fetched"][0]["path"])
    assert code == 0 and err == "" and file_sha256(path) == TRACES["tiny-ctc"].sha256
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no partial left


def test_fetch_uses_the_registered_address(data_home, capsys, tmp_path):
    # the registered URL of a stand-in is a file:// URL: no network involved
    code, out, _ = _run(capsys, "data", "fetch", "tiny-ctc", "tiny-hpc2n")
    assert code == 0 and [r["name"] for r in json.loads(out)["fetched"]] == [
        "tiny-ctc",
        "tiny-hpc2n",
    ]
    assert trace_path("tiny-hpc2n") == str(data_home / "traces" / TRACES["tiny-hpc2n"].file)


def test_fetch_over_http_goes_through_pooch(data_home, capsys):
    """A real HTTP download (pooch's downloader), from a server on 127.0.0.1."""
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=str(DATA))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as httpd:
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{httpd.server_address[1]}/"
        try:
            code, out, err = _run(capsys, "data", "fetch", "tiny-ctc", "--url",
                                  base + "ctc_excerpt.swf")
            assert code == 0 and err == ""
            assert file_sha256(json.loads(out)["fetched"][0]["path"]) == (
                TRACES["tiny-ctc"].sha256
            )
            _one_line_error(  # a 404 is one line too
                *_run(capsys, "data", "fetch", "tiny-hpc2n", "--url", base + "missing.swf"),
                "data fetch tiny-hpc2n: cannot download", "404",
            )
        finally:
            httpd.shutdown()


def test_fetch_does_not_download_a_file_already_there(data_home, tmp_path):
    source = tmp_path / "mirror.swf"
    shutil.copyfile(DATA / "ctc_excerpt.swf", source)
    first = fetch_trace("tiny-ctc", url=source.as_uri())
    source.unlink()  # a second download would fail
    assert fetch_trace("tiny-ctc", url=source.as_uri()) == first


def test_fetch_replaces_a_corrupt_copy(data_home):
    target = datasets.trace_location("tiny-ctc")
    target.parent.mkdir(parents=True)
    target.write_text("corrupt")
    fetch_trace("tiny-ctc")
    assert file_sha256(target) == TRACES["tiny-ctc"].sha256


def test_fetch_refuses_a_download_with_the_wrong_checksum(data_home, capsys):
    wrong = DATA / "hpc2n_excerpt.swf"
    code, out, err = _run(capsys, "data", "fetch", "tiny-ctc", "--url", wrong.as_uri())
    _one_line_error(
        code, out, err, file_sha256(wrong), TRACES["tiny-ctc"].sha256, "not kept"
    )
    assert not (data_home / "traces").exists() or not any((data_home / "traces").iterdir())


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["tiny-ctc", "--url", "file:///no/such/file.swf"],
         "data fetch tiny-ctc: cannot download file:///no/such/file.swf"),
        (["tiny-ctc", "--url", "http://127.0.0.1:9/x.swf"],
         "data fetch tiny-ctc: cannot download http://127.0.0.1:9/x.swf"),
        (["tiny-ctc", "--url", "gopher://x/y"], "the URL must be https://"),
        (["tiny-ctc", "tiny-hpc2n", "--url", "file:///x"], "--url takes exactly one"),
        (["nope"], "trace name must be one of"),
    ],
)
def test_fetch_errors_are_one_line(data_home, capsys, argv, needle):
    _one_line_error(*_run(capsys, "data", "fetch", *argv), needle)


def test_fetch_of_a_real_trace_from_a_local_mirror(capsys, tmp_path, monkeypatch):
    source = real_trace("ctc-sp2")  # the session's copy, from ../shared in CI
    monkeypatch.setenv(datasets.DATA_ENV, str(tmp_path / "data"))
    code, out, _ = _run(capsys, "data", "fetch", "ctc-sp2", "--url", source.as_uri())
    assert code == 0 and file_sha256(json.loads(out)["fetched"][0]["path"]) == (
        TRACES["ctc-sp2"].sha256
    )


# ----------------------------------------------------------------- names as traces
def test_trace_path_resolves_names_and_leaves_paths(data_home):
    assert trace_path("some/file.swf") == "some/file.swf"
    with pytest.raises(MissingTraceError, match="allockit data fetch tiny-ctc"):
        trace_path("tiny-ctc")
    add_trace("tiny-ctc", DATA / "ctc_excerpt.swf")
    assert Path(trace_path("tiny-ctc")).read_bytes() == (DATA / "ctc_excerpt.swf").read_bytes()
    assert issubclass(MissingTraceError, InvalidInputError)


@pytest.mark.parametrize(
    "argv",
    [
        ["workload", "stats", "{}"],
        ["bound", "{}"],
        ["simulate", "{}", "--algorithm", "EASY"],
        ["workload", "fit", "{}", "--out", "OUT"],
    ],
    ids=["stats", "bound", "simulate", "fit"],
)
def test_a_missing_named_trace_is_a_one_line_error(data_home, capsys, tmp_path, argv):
    argv = [a.replace("{}", "tiny-ctc").replace("OUT", str(tmp_path / "m.json")) for a in argv]
    _one_line_error(
        *_run(capsys, *argv), "'tiny-ctc'", "allockit data fetch tiny-ctc", "allockit data add"
    )


def test_a_name_reads_like_the_path(data_home, capsys):
    add_trace("tiny-ctc", DATA / "ctc_excerpt.swf")
    by_name = _run(capsys, "workload", "stats", "tiny-ctc")
    by_path = _run(capsys, "workload", "stats", str(DATA / "ctc_excerpt.swf"))
    assert by_name[0] == 0 and json.loads(by_name[1]) == json.loads(by_path[1])
    code, out, _ = _run(capsys, "simulate", "tiny-ctc", "--algorithm", "EASY")
    assert code == 0 and json.loads(out)["jobs"] > 0


def test_workload_hpc2n_takes_the_named_trace_by_default(data_home, capsys, tmp_path, monkeypatch):
    _one_line_error(
        *_run(capsys, "workload", "hpc2n", "--weeks", "0-0"), "allockit data fetch hpc2n"
    )
    monkeypatch.setitem(TRACES, "hpc2n", dataclasses.replace(TRACES["tiny-hpc2n"], name="hpc2n"))
    add_trace("hpc2n", DATA / "hpc2n_excerpt.swf")
    out = tmp_path / "w.swf"
    code, _, _ = _run(capsys, "workload", "hpc2n", "--weeks", "0-0", "--out", str(out))
    by_path = tmp_path / "p.swf"
    _run(capsys, "workload", "hpc2n", str(DATA / "hpc2n_excerpt.swf"), "--weeks", "0-0",
         "--out", str(by_path))  # fmt: skip
    assert code == 0 and out.read_text() == by_path.read_text()


# ----------------------------------------------------------------- experiments
def test_dfrs_real_set_without_the_trace_refuses_to_run(data_home, capsys, tmp_path):
    store = str(tmp_path / "s.db")
    for argv in (["table2", "--sets", "real"], ["table5"], ["table4", "--hpc2n", "hpc2n"]):
        _one_line_error(
            *_run(capsys, "dfrs-experiment", *argv, "--quick", "--store", store),
            "allockit data fetch hpc2n",
        )
    assert not Path(store).exists()  # nothing ran


def test_dfrs_default_sets_without_the_trace_say_the_real_set_is_skipped(
    data_home, capsys, tmp_path
):
    code, out, err = _run(
        capsys, "dfrs-experiment", "table4", "--quick", "--seeds", "1", "--loads", "0.5",
        "--jobs", "20", "--nodes", "4", "--algorithms", "EASY", "--backend", "serial",
        "--store", str(tmp_path / "s.db"),
    )  # fmt: skip
    doc = json.loads(out)
    assert code == 0 and "allockit data fetch hpc2n" in doc["real_traces"]
    assert "allockit data fetch hpc2n" in err and doc["sweep"]["ran"] > 0


def test_dfrs_real_set_by_name(data_home, capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(TRACES, "hpc2n", dataclasses.replace(TRACES["tiny-hpc2n"], name="hpc2n"))
    add_trace("hpc2n", DATA / "hpc2n_excerpt.swf")
    code, out, _ = _run(
        capsys, "dfrs-experiment", "table4", "--sets", "real", "--weeks", "0",
        "--algorithms", "EASY", "--backend", "serial", "--store", str(tmp_path / "s.db"),
    )  # fmt: skip
    doc = json.loads(out)
    assert code == 0 and doc["real_traces"] == trace_path("hpc2n")
    assert doc["sweep"]["ran"] == 2  # the week's bound and EASY


def test_measy_traces_without_any_trace_refuse_to_run(data_home, capsys, tmp_path):
    store = str(tmp_path / "s.db")
    _one_line_error(
        *_run(capsys, "measy-experiment", "traces", "--quick", "--store", store),
        "allockit data fetch all",
    )
    _one_line_error(
        *_run(capsys, "measy-experiment", "traces", "--traces", "tiny-ctc", "--store", store),
        "allockit data fetch tiny-ctc",
    )
    assert not Path(store).exists()


def test_measy_traces_by_name(data_home, capsys, tmp_path):
    add_trace("tiny-ctc", DATA / "ctc_excerpt.swf")
    code, out, _ = _run(
        capsys, "measy-experiment", "traces", "--traces", "tiny-ctc", "--trace-jobs", "40",
        "--backend", "serial", "--store", str(tmp_path / "s.db"),
    )  # fmt: skip
    doc = json.loads(out)
    assert code == 0 and doc["sweep"]["ran"] == doc["sweep"]["total"] > 0
