"""Named real workload traces in a local data directory: list, fetch (checked), add, resolve.

The five Parallel Workloads Archive (PWA) logs that allockit's experiments use are known
by name (``hpc2n``, ``ctc-sp2``, ``sdsc-blue``, ``llnl-thunder``, ``cea-curie``), with
their archive file name, size in bytes, SHA-256 and download address (``TRACES``). A
trace lives in the data directory's ``traces/`` folder: ``$ALLOCKIT_DATA`` when set,
else the user cache directory of ``platformdirs`` (``~/.cache/allockit`` on Linux).

- ``fetch_trace(name)`` downloads it with ``pooch`` and keeps it only if its SHA-256
  matches (a ``url`` may point to a mirror, ``file://`` included);
- ``add_trace(name, path)`` copies a file the user already has, after the same check
  (refused with both hashes on a mismatch);
- ``trace_path(name_or_path)`` is what every reader calls: a known name gives its file
  in the data directory (or a one-line ``MissingTraceError`` saying the ``allockit
  data`` command that gets it), anything else is returned unchanged as a path.

``pooch`` and ``platformdirs`` are imported inside the functions that need them, so
``import allockit.instances`` stays light.

Cite the PWA (Feitelson, Tsafrir, Krakov 2014, "Experience with using the Parallel
Workloads Archive", JPDC 74(10)) and each log's acknowledgement in its header when you
publish results computed on these traces.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from allockit.errors import InvalidInputError

__all__ = [
    "DATA_ENV",
    "TRACES",
    "MissingTraceError",
    "TraceInfo",
    "add_trace",
    "data_dir",
    "fetch_trace",
    "file_sha256",
    "list_traces",
    "trace_info",
    "trace_location",
    "trace_path",
]

#: The environment variable naming the data directory.
DATA_ENV = "ALLOCKIT_DATA"
_ARCHIVE = "https://www.cs.huji.ac.il/labs/parallel/workload/"


class MissingTraceError(InvalidInputError):
    """A named trace is not in the data directory (the message says how to get it)."""


@dataclass(frozen=True, slots=True)
class TraceInfo:
    """A named trace: its archive file, size, checksum, address and a description.

    Examples
    --------
    >>> info = TRACES["hpc2n"]
    >>> info.file, info.size, info.url.endswith("l_hpc2n/HPC2N-2002-2.2-cln.swf.gz")
    ('HPC2N-2002-2.2-cln.swf.gz', 2997773, True)
    """

    name: str
    file: str
    size: int
    sha256: str
    url: str
    description: str
    jobs: int

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the fields by name).

        Returns
        -------
        dict
            ``name``, ``file``, ``size`` (bytes), ``sha256``, ``source`` (the URL),
            ``description`` and ``jobs`` (records in the cleaned log).

        Examples
        --------
        >>> TRACES["ctc-sp2"].to_dict()["jobs"]
        77222
        """
        return {
            "name": self.name,
            "file": self.file,
            "size": self.size,
            "sha256": self.sha256,
            "source": self.url,
            "description": self.description,
            "jobs": self.jobs,
        }


def _trace(name: str, folder: str, file: str, size: int, sha256: str, text: str, jobs: int):
    return TraceInfo(name, file, size, sha256, f"{_ARCHIVE}{folder}/{file}", text, jobs)


#: The known traces by name (cleaned PWA logs, unmodified ``.swf.gz`` files).
TRACES: dict[str, TraceInfo] = {
    t.name: t
    for t in (
        _trace(
            "hpc2n", "l_hpc2n", "HPC2N-2002-2.2-cln.swf.gz", 2_997_773,
            "3c534857d6065cfd9cc35aac8d064c9c17172be7acf336de835006f43a626e64",
            "HPC2N Seth Linux cluster, Umea, 2002-2006: 120 dual-CPU nodes, with memory "
            "fields (the DFRS paper's real workload)",
            202_871,
        ),
        _trace(
            "ctc-sp2", "l_ctc_sp2", "CTC-SP2-1996-3.1-cln.swf.gz", 1_487_336,
            "9fa28ac16c4386fb81b72a91d8bd8888281df2948a9d912769d387c5ee285bb4",
            "Cornell Theory Center IBM SP2, 1996-1997: 338-node batch partition, EASY "
            "(the log Jann et al. 1997 modelled)",
            77_222,
        ),
        _trace(
            "sdsc-blue", "l_sdsc_blue", "SDSC-BLUE-2000-4.2-cln.swf.gz", 4_070_091,
            "9aab21f3cfa108f3ecefa52391b384d996dcf4216f920186f47a734646b2c658",
            "SDSC Blue Horizon IBM SP, 2000-2003: 144 8-way nodes (1,152 processors)",
            243_306,
        ),
        _trace(
            "llnl-thunder", "l_llnl_thunder", "LLNL-Thunder-2007-1.1-cln.swf.gz", 1_312_559,
            "df27b2ad62ef5ec1d02d592d48390ab2a8250265b9639bb5f0ebaa11f043ee38",
            "LLNL Thunder Linux cluster, 2007, Slurm: 1,002 4-way nodes (no wait times; "
            "32 % of jobs have a requested time)",
            121_039,
        ),
        _trace(
            "cea-curie", "l_cea_curie", "CEA-Curie-2011-2.1-cln.swf.gz", 3_629_411,
            "2a0fdbd40837590b491bbbac7d4cfe521de1f0b14c0dc39bbf82c4e49ea75bce",
            "CEA Curie supercomputer, 2011-2012: 93,312 cores on thin, fat and hybrid nodes",
            312_826,
        ),
    )
}


def trace_info(name: str) -> TraceInfo:
    """The registry entry of a named trace.

    Parameters
    ----------
    name : str
        One of ``TRACES`` (``hpc2n``, ``ctc-sp2``, ``sdsc-blue``, ``llnl-thunder``,
        ``cea-curie``).

    Returns
    -------
    TraceInfo

    Raises
    ------
    InvalidInputError
        For an unknown name (the message lists the known ones).

    Examples
    --------
    >>> trace_info("cea-curie").file
    'CEA-Curie-2011-2.1-cln.swf.gz'
    >>> trace_info("kth")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: trace name must be one of cea-curie, ctc-sp2, \
hpc2n, llnl-thunder, sdsc-blue; got 'kth'
    """
    if name not in TRACES:
        raise InvalidInputError(
            f"trace name must be one of {', '.join(sorted(TRACES))}; got {name!r}"
        )
    return TRACES[name]


def data_dir(directory: str | os.PathLike[str] | None = None) -> Path:
    """The data directory: ``directory``, else ``$ALLOCKIT_DATA``, else the user cache dir.

    Nothing is created here; ``fetch_trace`` and ``add_trace`` create it.

    Parameters
    ----------
    directory : str or path-like, optional
        An explicit directory (overrides the environment).

    Returns
    -------
    pathlib.Path
        An absolute path (``platformdirs.user_cache_dir("allockit")`` when neither is
        given: ``~/.cache/allockit`` on Linux, ``~/Library/Caches/allockit`` on macOS).

    Examples
    --------
    >>> data_dir("/srv/allockit-data")
    PosixPath('/srv/allockit-data')
    """
    chosen = directory if directory is not None else os.environ.get(DATA_ENV) or None
    if chosen is None:
        import platformdirs

        chosen = platformdirs.user_cache_dir("allockit")
    return Path(chosen).expanduser().absolute()


def trace_location(name: str, *, directory: str | os.PathLike[str] | None = None) -> Path:
    """Where the named trace is kept in the data directory (present or not).

    Parameters
    ----------
    name : str
        A key of ``TRACES``.
    directory : str or path-like, optional
        The data directory (default: ``data_dir()``).

    Returns
    -------
    pathlib.Path
        ``<data directory>/traces/<archive file name>``.

    Raises
    ------
    InvalidInputError
        For an unknown name.

    Examples
    --------
    >>> trace_location("hpc2n", directory="/data").as_posix()
    '/data/traces/HPC2N-2002-2.2-cln.swf.gz'
    """
    return data_dir(directory) / "traces" / trace_info(name).file


def trace_path(name_or_path: str | os.PathLike[str], *,
               directory: str | os.PathLike[str] | None = None) -> str:
    """A trace to read: a known name gives its file in the data directory, a path itself.

    A string that is a key of ``TRACES`` and not an existing file is a name. Anything
    else is returned unchanged, for the reader to open (and to report if missing).

    Parameters
    ----------
    name_or_path : str or path-like
        ``hpc2n``, ``ctc-sp2``, ... or the path of an SWF file.
    directory : str or path-like, optional
        The data directory (default: ``data_dir()``).

    Returns
    -------
    str
        The path to read.

    Raises
    ------
    MissingTraceError
        If a name's file is not in the data directory; the message gives the
        ``allockit data fetch`` (and ``add``) command that puts it there.

    Examples
    --------
    >>> import tempfile
    >>> empty = tempfile.mkdtemp()
    >>> trace_path("my-trace.swf", directory=empty)
    'my-trace.swf'
    >>> trace_path("ctc-sp2", directory=empty)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    allockit.instances.datasets.MissingTraceError: trace 'ctc-sp2' \
(CTC-SP2-1996-3.1-cln.swf.gz) is not in the data directory .../traces; get it with \
'allockit data fetch ctc-sp2' (or 'allockit data add ctc-sp2 FILE' for a copy you have)
    """
    text = os.fspath(name_or_path)
    if text not in TRACES or os.path.exists(text):
        return text
    path = trace_location(text, directory=directory)
    if not path.is_file():
        raise MissingTraceError(
            f"trace {text!r} ({TRACES[text].file}) is not in the data directory "
            f"{path.parent}; get it with 'allockit data fetch {text}' (or 'allockit data "
            f"add {text} FILE' for a copy you have)"
        )
    return str(path)


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file, as 64 hexadecimal digits.

    Parameters
    ----------
    path : str or path-like
        The file.

    Returns
    -------
    str

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp(), "x.txt")
    >>> _ = p.write_bytes(b"abc")
    >>> file_sha256(p)[:16]
    'ba7816bf8f01cfea'
    """
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def list_traces(*, directory: str | os.PathLike[str] | None = None,
                verify: bool = False) -> list[dict[str, Any]]:
    """Every known trace with where it is kept and whether it is there.

    Parameters
    ----------
    directory : str or path-like, optional
        The data directory (default: ``data_dir()``).
    verify : bool, default False
        Also check the SHA-256 of the files present (reads them).

    Returns
    -------
    list of dict
        ``TraceInfo.to_dict()`` plus ``path`` and ``present`` (the file exists with
        the registered size); with ``verify``, ``verified`` (its SHA-256 matches;
        None when absent).

    Examples
    --------
    >>> import tempfile
    >>> rows = list_traces(directory=tempfile.mkdtemp())
    >>> [(r["name"], r["present"]) for r in rows][:2]
    [('hpc2n', False), ('ctc-sp2', False)]
    """
    rows = []
    for name, info in TRACES.items():
        path = trace_location(name, directory=directory)
        present = path.is_file() and path.stat().st_size == info.size
        row = {**info.to_dict(), "path": str(path), "present": present}
        if verify:
            row["verified"] = file_sha256(path) == info.sha256 if present else None
        rows.append(row)
    return rows


def add_trace(name: str, source: str | os.PathLike[str], *,
              directory: str | os.PathLike[str] | None = None) -> Path:
    """Copy a local file into the data directory as the named trace, checksum first.

    Parameters
    ----------
    name : str
        A key of ``TRACES``.
    source : str or path-like
        A copy of the trace's archive file (the ``.swf.gz`` as distributed).
    directory : str or path-like, optional
        The data directory (default: ``data_dir()``), created if missing.

    Returns
    -------
    pathlib.Path
        The trace's path in the data directory.

    Raises
    ------
    InvalidInputError
        For an unknown name, a source that is not a readable file, or a file whose
        SHA-256 differs from the registered one (the message gives both hashes;
        nothing is copied).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> fake = pathlib.Path(tempfile.mkdtemp(), "HPC2N.swf.gz")
    >>> _ = fake.write_bytes(b"not the trace")
    >>> add_trace("hpc2n", fake, directory=tempfile.mkdtemp())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: data add hpc2n: .../HPC2N.swf.gz has SHA-256 \
e23115...; hpc2n (HPC2N-2002-2.2-cln.swf.gz) has 3c5348...; not copied
    """
    info = trace_info(name)
    src = Path(source)
    if not src.is_file():
        raise InvalidInputError(f"data add {name}: no such file {str(src)!r}")
    got = file_sha256(src)
    if got != info.sha256:
        raise InvalidInputError(
            f"data add {name}: {src} has SHA-256 {got}; {name} ({info.file}) has "
            f"{info.sha256}; not copied"
        )
    target = trace_location(name, directory=directory)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{info.file}.")
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        _publish(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return target


def _publish(tmp: str | os.PathLike[str], target: Path) -> None:
    """Move a checked temporary file into place (atomic), readable as a new file is."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, target)  # atomic: a reader never sees half a file


def _copy_file_url(url: str, output_file: str, pooch: Any) -> None:
    """A pooch downloader for ``file://`` URLs (a mirror on a shared file system)."""
    parsed = urlparse(url)
    shutil.copyfile(unquote(parsed.path), output_file)


def fetch_trace(name: str, *, url: str | None = None,
                directory: str | os.PathLike[str] | None = None) -> Path:
    """Download the named trace into the data directory, keeping it only if it checks.

    A file already present with the right SHA-256 is not downloaded again.

    Parameters
    ----------
    name : str
        A key of ``TRACES``.
    url : str, optional
        Where to download from instead of the archive (a mirror of the same file:
        ``https://``, ``http://``, ``ftp://`` or ``file://``).
    directory : str or path-like, optional
        The data directory (default: ``data_dir()``), created if missing.

    Returns
    -------
    pathlib.Path
        The trace's path in the data directory.

    Raises
    ------
    InvalidInputError
        For an unknown name, an unsupported URL scheme, or a download whose SHA-256
        differs from the registered one (both hashes given; the file is deleted).
    OSError
        If the download fails (no network, a missing ``file://`` path, ...).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> mirror = pathlib.Path(tempfile.mkdtemp(), "bad.gz")
    >>> _ = mirror.write_bytes(b"x")
    >>> fetch_trace("ctc-sp2", url=mirror.as_uri(), directory=tempfile.mkdtemp())
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: data fetch ctc-sp2: the file from file://... has \
SHA-256 2d711642...; ctc-sp2 (CTC-SP2-1996-3.1-cln.swf.gz) has 9fa28a...; not kept
    """
    info = trace_info(name)
    source = url or info.url
    scheme = urlparse(source).scheme
    if scheme not in ("https", "http", "ftp", "file"):
        raise InvalidInputError(
            f"data fetch {name}: the URL must be https://, http://, ftp:// or file://; "
            f"got {source!r}"
        )
    target = trace_location(name, directory=directory)
    if target.is_file() and file_sha256(target) == info.sha256:
        return target
    import pooch

    partial = target.parent / f".{info.file}.download"
    if partial.exists():
        partial.unlink()  # left by an interrupted run: pooch would take it as the file
    downloader = _copy_file_url if scheme == "file" else None
    target.parent.mkdir(parents=True, exist_ok=True)
    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel("WARNING")  # no "Downloading ..." lines on stderr
    try:
        pooch.retrieve(
            source,
            known_hash=None,
            fname=f".{info.file}.download",
            path=target.parent,
            downloader=downloader,
        )
    except OSError as exc:  # requests' errors are OSErrors too
        raise OSError(f"data fetch {name}: cannot download {source}: {exc}") from exc
    finally:
        logger.setLevel(level)
    try:
        got = file_sha256(partial)
        if got != info.sha256:
            raise InvalidInputError(
                f"data fetch {name}: the file from {source} has SHA-256 {got}; {name} "
                f"({info.file}) has {info.sha256}; not kept"
            )
        _publish(partial, target)
    finally:
        if partial.exists():
            partial.unlink()
    return target
