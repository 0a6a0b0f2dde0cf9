"""Standard Workload Format (SWF): a streaming reader and a writer, and SWF <-> Workload.

SWF has 18 whitespace-separated fields per job (1-based numbering below) and header
comments ``; Key: value``. ``-1`` means "unknown" in every field.

How a workload's extra information is stored (allockit's choice): in header comments,
so one file holds everything. ``; allockit-Platform: nodes=N cores=C node_memory=B``
gives the platform and one ``; allockit-Job: ID TASKS CPU MEM`` line per job gives its
task count, CPU need and memory (fractions of a node). Other SWF tools ignore comments.
Feedback between jobs is stored in the standard fields 17 (preceding job number) and 18
(think time from the preceding job, s), read into ``Workload.preceding`` /
``Workload.think_time`` (-1 in the file is "none").
"""

from __future__ import annotations

import gzip
import io
import math
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from allockit.checks import integer, real_number
from allockit.errors import InvalidInputError
from allockit.instances.workload import Platform, Workload

__all__ = [
    "SWF_FIELDS",
    "SWFTrace",
    "jobs_to_workload",
    "read_swf",
    "swf_lines",
    "swf_to_workload",
    "workload_to_swf",
    "write_swf",
]

#: The 18 SWF fields, in order (field k is ``SWF_FIELDS[k - 1]``).
SWF_FIELDS = (
    "job",
    "submit",
    "wait",
    "run",
    "procs",
    "cpu_time",
    "mem_used",
    "procs_req",
    "time_req",
    "mem_req",
    "status",
    "user",
    "group",
    "app",
    "queue",
    "partition",
    "preceding",
    "think",
)
_HEADER = re.compile(r"^;\s*([A-Za-z][\w-]*)\s*:\s*(.*?)\s*$")
_CHUNK = 50_000


@dataclass(frozen=True, slots=True)
class SWFTrace:
    """An SWF file in memory: header comments and an ``(n, 18)`` float array of fields.

    ``header`` holds the ``(key, value)`` pairs in file order (keys may repeat, e.g.
    ``Note``); ``bad_lines`` the ``(line number, reason)`` of skipped lines.

    Examples
    --------
    >>> t = read_swf(["; MaxNodes: 338 (batch partition)",
    ...               "1 0 5 100 2 -1 -1 2 200 -1 1 3 -1 -1 1 -1 -1 -1"])
    >>> t.n_jobs, t.header_int("MaxNodes"), t.column("run").tolist()
    (1, 338, [100.0])
    """

    header: tuple[tuple[str, str], ...]
    data: np.ndarray
    comments: tuple[str, ...] = ()
    bad_lines: tuple[tuple[int, str], ...] = field(default=())

    def __post_init__(self) -> None:
        self.data.setflags(write=False)

    @property
    def n_jobs(self) -> int:
        """Number of job records."""
        return int(self.data.shape[0])

    def column(self, name: str) -> np.ndarray:
        """One field by name (see ``SWF_FIELDS``)."""
        return self.data[:, SWF_FIELDS.index(name)]

    def header_value(self, key: str) -> str | None:
        """The last value of header ``key`` (case-insensitive), or None."""
        found = None
        for k, v in self.header:
            if k.lower() == key.lower():
                found = v
        return found

    def header_int(self, key: str) -> int | None:
        """The leading integer of header ``key`` (``"338 (batch partition)"`` gives 338)."""
        value = self.header_value(key)
        match = re.match(r"\s*(-?\d+)", value or "")
        return int(match.group(1)) if match else None


def _open_text(path: Path) -> io.TextIOBase:
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


#: A decimal number as SWF writes it (no underscores, hex, "nan" or "inf").
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _rules() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The SWF field table as arrays: lower bounds, upper bounds, integer columns."""
    from allockit.instances.schemas import SWF_FIELDS_SCHEMA

    low = np.array([rule[2] for rule in SWF_FIELDS_SCHEMA], dtype=np.float64)
    high = np.array([rule[3] for rule in SWF_FIELDS_SCHEMA], dtype=np.float64)
    ints = np.array([k for k, rule in enumerate(SWF_FIELDS_SCHEMA) if rule[1] is int])
    return low, high, ints


def _field_problem(k: int, token: str) -> str | None:
    """Why field ``k`` (0-based) of a line breaks the SWF field table, or None."""
    from allockit.instances.schemas import SWF_FIELDS_SCHEMA, number

    name, kind, low, high = SWF_FIELDS_SCHEMA[k]
    allowed = number(kind, ge=low, le=high).__metadata__[0].description
    problem = f"field {k + 1} ({name}) must be {allowed}; got {token!r}"
    if not _NUMBER.fullmatch(token):
        return problem
    value = float(token)
    if not (math.isfinite(value) and low <= value <= high):
        return problem
    if kind is int and value != math.floor(value):
        return problem
    return None


def _line_problem(line: str) -> str | None:
    parts = line.split()
    if len(parts) != 18:
        return f"expected 18 fields, got {len(parts)}"
    for k, token in enumerate(parts):
        problem = _field_problem(k, token)
        if problem:
            return problem
    return None


def _parse_chunk(
    lines: list[tuple[int, str]], on_error: str, bad: list[tuple[int, str]], where: str = ""
) -> np.ndarray:
    """Convert a chunk of data lines at once; only a failing chunk is checked line by line.

    A line must hold 18 decimal numbers within the SWF field table
    (``allockit.instances.schemas.SWF_FIELDS_SCHEMA``): integers where the format has
    integers, finite values in range.
    """
    tokens: list[str] = []
    rows = 0
    for _, line in lines:
        parts = line.split()
        if len(parts) != 18:
            break
        tokens.extend(parts)
        rows += 1
    if rows == len(lines):
        try:
            data = np.array(tokens, dtype=np.float64).reshape(-1, 18)
        except ValueError:
            data = None
        if data is not None and _chunk_ok(data, tokens):
            return data
    good: list[str] = []
    for number, line in lines:
        reason = _line_problem(line)
        if reason is None:
            good.extend(line.split())
            continue
        if on_error == "raise":
            raise InvalidInputError(f"{where}SWF line {number}: {reason}")
        bad.append((number, reason))
    return np.array(good, dtype=np.float64).reshape(-1, 18)


def _chunk_ok(data: np.ndarray, tokens: list[str]) -> bool:
    """Every value of a converted chunk within the field table (vectorised)."""
    if data.size == 0:
        return True
    text = " ".join(tokens)
    if "_" in text or not text.isascii() or any(c in text for c in "nNxX"):
        return False  # Python's float() takes 1_000, Unicode digits, nan, inf, 0x...
    low, high, ints = _rules()
    if not (np.isfinite(data).all() and (data >= low).all() and (data <= high).all()):
        return False
    column = data[:, ints]
    return bool((column == np.floor(column)).all())


def read_swf(source: str | Path | Iterable[str], *, on_error: str = "raise") -> SWFTrace:
    """Read an SWF file (plain or gzip, detected from the content) in chunks.

    Parameters
    ----------
    source : path or iterable of lines
    on_error : {"raise", "skip"}
        On a malformed line (not 18 numeric fields): raise ``InvalidInputError`` naming
        the line number, or skip it and record ``(line number, reason)`` in
        ``bad_lines``.

    Returns
    -------
    SWFTrace

    Raises
    ------
    InvalidInputError
        On an unreadable file, or a malformed line with ``on_error="raise"``.

    Examples
    --------
    >>> t = read_swf(["; MaxNodes: 4", "1 0 5 100 2 -1 -1 2 200 -1 1 3 -1 -1 1 -1 -1 -1",
    ...               "oops"], on_error="skip")
    >>> t.n_jobs, t.header_int("MaxNodes"), t.bad_lines
    (1, 4, ((3, 'expected 18 fields, got 1'),))
    """
    if on_error not in ("raise", "skip"):
        raise InvalidInputError(f"on_error must be 'raise' or 'skip'; got {on_error!r}")
    where = ""
    if isinstance(source, str | Path):
        path = Path(source)
        where = f"{path.name}: "
        try:
            stream: Iterable[str] = _open_text(path)
        except OSError as exc:
            raise InvalidInputError(f"cannot read SWF file {str(path)!r}: {exc}") from None
    else:
        stream = source
    header: list[tuple[str, str]] = []
    comments: list[str] = []
    bad: list[tuple[int, str]] = []
    chunks: list[np.ndarray] = []
    pending: list[tuple[int, str]] = []
    try:
        for number, line in enumerate(stream, start=1):
            stripped = line.strip()
            if not stripped:
                continue
            if stripped.startswith(";"):
                comments.append(line.rstrip("\n"))
                match = _HEADER.match(stripped)
                if match:
                    header.append((match.group(1), match.group(2)))
                continue
            pending.append((number, stripped))
            if len(pending) >= _CHUNK:
                chunks.append(_parse_chunk(pending, on_error, bad, where))
                pending = []
        chunks.append(_parse_chunk(pending, on_error, bad, where))
    except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise InvalidInputError(f"{where}cannot read SWF data: {exc}") from None
    finally:
        if isinstance(stream, io.IOBase):
            stream.close()
    data = np.concatenate(chunks) if chunks else np.zeros((0, 18))
    _check_header(header, where)
    return SWFTrace(header=tuple(header), data=data, comments=tuple(comments), bad_lines=tuple(bad))


def _check_header(header: list[tuple[str, str]], where: str) -> None:
    """The header values allockit uses, by the schema ``schemas.SWF_HEADER``."""
    used = {k: v for k, v in header if k in ("MaxNodes", "MaxProcs")}
    if not used:
        return
    from allockit.instances.schemas import SWF_HEADER, validate

    values: dict[str, int | str] = {}
    for key, value in used.items():
        token = re.match(r"\s*([^\s(;]*)", value).group(1)  # "338 (batch partition)"
        values[key] = int(token) if re.fullmatch(r"[+-]?\d{1,30}", token) else value
    validate(SWF_HEADER, values, where=f"{where}SWF header: ")


def _format(value: float) -> str:
    if value == int(value) and abs(value) < 2**53:
        return str(int(value))
    return repr(float(value))


def swf_lines(trace: SWFTrace) -> Iterator[str]:
    """The text lines of a trace, header comments first.

    Parameters
    ----------
    trace : SWFTrace
        The trace.

    Returns
    -------
    Iterator of str
        Each comment line, then one line of 18 fields per record (integers without a
        decimal point), each ending with a newline.

    Examples
    --------
    >>> t = read_swf(["; MaxNodes: 4", "1 0 5 100 2 -1 -1 2 200 -1 1 3 -1 -1 1 -1 -1 -1"])
    >>> list(swf_lines(t))
    ['; MaxNodes: 4\\n', '1 0 5 100 2 -1 -1 2 200 -1 1 3 -1 -1 1 -1 -1 -1\\n']
    """
    for comment in trace.comments:
        yield comment + "\n"
    for row in trace.data:
        yield " ".join(_format(v) for v in row) + "\n"


def write_swf(trace: SWFTrace, path: str | Path) -> None:
    """Write a trace (header comments, then the records); ``.gz`` paths are gzipped.

    ``read_swf(write_swf(t))`` gives back the same header and data (lossless).

    Parameters
    ----------
    trace : SWFTrace
        The trace.
    path : str or Path
        The file (overwritten); a ``.gz`` suffix writes gzip.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> t = read_swf(["; MaxNodes: 4", "1 0 5 100 2 -1 -1 2 200 -1 1 3 -1 -1 1 -1 -1 -1"])
    >>> path = pathlib.Path(tempfile.mkdtemp(), "t.swf.gz")
    >>> write_swf(t, path)
    >>> read_swf(path).data.tolist() == t.data.tolist()
    True
    """
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as fh:
        fh.writelines(swf_lines(trace))


# ---------------------------------------------------------------------- SWF <-> Workload
def _extras(trace: SWFTrace) -> tuple[Platform | None, dict[int, tuple[int, float, float]]]:
    platform = None
    jobs: dict[int, tuple[int, float, float]] = {}
    for key, value in trace.header:
        try:
            if key == "allockit-Platform":
                from allockit.instances.schemas import SWF_PLATFORM, validate

                fields: dict[str, int | str] = {}
                for item in value.split():
                    name, text = item.split("=", 1)
                    fields[name] = int(text) if re.fullmatch(r"\d{1,30}", text) else text
                fields = validate(SWF_PLATFORM, fields, where="allockit-Platform header: ")
                platform = Platform(**fields)
            elif key == "allockit-Job":
                job_id, tasks, cpu, mem = value.split()
                jobs[int(job_id)] = (int(tasks), float(cpu), float(mem))
        except (ValueError, KeyError) as exc:
            raise InvalidInputError(f"malformed {key} header {value!r}: {exc}") from None
    return platform, jobs


def swf_to_workload(
    trace: SWFTrace,
    *,
    nodes: int | None = None,
    cores: int | None = None,
    node_memory: int | None = None,
    default_mem: float = 0.1,
) -> Workload:
    """Turn an SWF trace into a ``Workload``.

    If the trace carries allockit's header comments they are used as written. Otherwise
    the documented default rule applies: tasks = allocated processors (field 5;
    requested, field 8, when 5 is missing), one task per node, CPU need 1 per task on
    single-core nodes and ``1/cores`` on multi-core nodes; memory per task from field 7
    (used) or else 10 (requested), in KB per processor, as a fraction of ``node_memory``
    (capped at 1) when that is given, else ``default_mem``; processing time = field 4;
    requested time = field 9 (NaN when -1). Jobs with no positive run time or processor
    count cannot be simulated and are dropped (``read_workload_report`` counts them).
    ``nodes`` defaults to the header's MaxNodes (else MaxProcs / cores) and ``cores`` to
    MaxProcs / MaxNodes (else 1); given, they also override an ``allockit-Platform``
    header.

    Parameters
    ----------
    trace : SWFTrace
        The trace (``read_swf``).
    nodes, cores : int, optional
        The platform's nodes and cores per node (default: from the header).
    node_memory : int, optional
        Bytes per node; also turns SWF memory (KB) into fractions of a node.
    default_mem : float, default 0.1
        Memory per task when the trace gives none (fraction of a node).

    Returns
    -------
    Workload
        The simulable jobs, sorted by submit time.

    Raises
    ------
    InvalidInputError
        If the node count is neither given nor in the header, ``nodes``, ``cores`` or
        ``node_memory`` is not an integer >= 1 (``nodes=2.5`` is refused, not
        truncated), ``default_mem`` is not in [0, 1], or an ``allockit-`` header is
        malformed or out of range.

    Examples
    --------
    >>> t = read_swf(["; MaxNodes: 4", "; MaxProcs: 16",
    ...               "1 0 5 100 2 -1 -1 2 200 -1 1 3 -1 -1 1 -1 -1 -1",
    ...               "2 9 0 -1 1 -1 -1 1 -1 -1 0 3 -1 -1 1 -1 -1 -1"])
    >>> w = swf_to_workload(t)
    >>> w.n_jobs, w.platform.cores, w.cpu.tolist()
    (1, 4, [0.25])
    """
    if not isinstance(trace, SWFTrace):
        raise InvalidInputError(f"trace must be an SWFTrace; got {type(trace).__name__}")
    nodes, cores, node_memory = (
        None if value is None else integer(name, value, minimum=1)
        for name, value in (("nodes", nodes), ("cores", cores), ("node_memory", node_memory))
    )
    default_mem = real_number("default_mem", default_mem, at_least=0, at_most=1)
    platform, extras = _extras(trace)
    if platform is not None and (nodes is not None or cores is not None):
        platform = Platform(  # the caller's --nodes / --cores win over the header
            nodes=int(nodes or platform.nodes),
            cores=int(cores or platform.cores),
            node_memory=node_memory or platform.node_memory,
        )
    run = trace.column("run")
    procs = trace.column("procs")
    procs = np.where(procs > 0, procs, trace.column("procs_req"))
    keep = (run > 0) & (procs > 0)
    ids = trace.column("job").astype(np.int64)
    if platform is None:
        if cores is None:
            max_nodes, max_procs = trace.header_int("MaxNodes"), trace.header_int("MaxProcs")
            cores = max(1, max_procs // max_nodes) if max_nodes and max_procs else 1
        if nodes is None:
            nodes = trace.header_int("MaxNodes")
            if nodes is None and trace.header_int("MaxProcs"):
                nodes = max(1, trace.header_int("MaxProcs") // cores)
        if nodes is None:
            raise InvalidInputError(
                "the SWF header has no MaxNodes or MaxProcs: give the node count "
                "(--nodes N, or nodes=N)"
            )
        platform = Platform(nodes=int(nodes), cores=cores, node_memory=node_memory or 2 * 1024**3)
    tasks = procs.astype(np.int64)
    cpu = np.full(trace.n_jobs, 1.0 / platform.cores)
    if node_memory is not None:
        kb = np.where(
            trace.column("mem_used") > 0, trace.column("mem_used"), trace.column("mem_req")
        )
        mem = np.where(kb > 0, np.minimum(1.0, kb * 1024.0 / node_memory), default_mem)
    else:
        mem = np.full(trace.n_jobs, default_mem)
    if extras:
        for k, job_id in enumerate(ids):
            if int(job_id) in extras:
                tasks[k], cpu[k], mem[k] = extras[int(job_id)]
    return jobs_to_workload(trace, keep, platform, tasks=tasks, cpu=cpu, mem=mem)


def jobs_to_workload(
    trace: SWFTrace,
    keep: np.ndarray,
    platform: Platform,
    *,
    tasks: np.ndarray,
    cpu: np.ndarray,
    mem: np.ndarray,
) -> Workload:
    """The kept records of ``trace`` as a Workload, sorted by submit time.

    ``tasks``, ``cpu`` and ``mem`` are given per record; the submit, run and requested
    times, ids, users, queues, preceding jobs and think times come from the trace
    (requested and think time -1 become NaN, a preceding job number <= 0 becomes -1).

    Parameters
    ----------
    trace : SWFTrace
        The trace.
    keep : numpy.ndarray of bool
        Which records become jobs.
    platform : Platform
        The workload's platform.
    tasks, cpu, mem : numpy.ndarray
        Per record: task count, CPU need and memory per task (fractions of a node).

    Returns
    -------
    Workload
        The kept jobs.

    Examples
    --------
    >>> t = read_swf(["1 9 0 50 1 -1 -1 1 60 -1 1 3 -1 -1 1 -1 -1 -1",
    ...               "2 0 0 80 1 -1 -1 1 -1 -1 1 3 -1 -1 1 -1 -1 -1"])
    >>> w = jobs_to_workload(t, np.array([True, True]), Platform(nodes=2),
    ...                      tasks=np.ones(2, int), cpu=np.ones(2), mem=np.full(2, 0.1))
    >>> w.ids.tolist(), w.requested_time.tolist()
    ([2, 1], [nan, 60.0])
    """
    requested = trace.column("time_req")
    submit = trace.column("submit")
    preceding = trace.column("preceding")
    think = trace.column("think")
    order = np.argsort(submit[keep], kind="stable")

    def pick(values: np.ndarray) -> np.ndarray:
        return np.asarray(values)[keep][order]

    return Workload(
        platform=platform,
        ids=pick(trace.column("job").astype(np.int64)),
        submit=pick(submit),
        runtime=pick(trace.column("run")),
        tasks=pick(tasks),
        cpu=pick(cpu),
        mem=pick(mem),
        requested_time=pick(np.where(requested > 0, requested, np.nan)),
        user=pick(trace.column("user").astype(np.int64)),
        queue=pick(trace.column("queue").astype(np.int64)),
        preceding=pick(np.where(preceding > 0, preceding, -1).astype(np.int64)),
        think_time=pick(np.where(think >= 0, think, np.nan)),
    )


def _comment_lines(header: Iterable[str]) -> list[str]:
    """``header`` as SWF comment lines: each one line, ``"; "`` put before a non-comment."""
    if isinstance(header, str | bytes) or not isinstance(header, Iterable):
        raise InvalidInputError(f"header must be a list of lines; got {header!r}")
    lines = []
    for k, line in enumerate(header):
        if not isinstance(line, str) or "\n" in line or "\r" in line:
            raise InvalidInputError(
                f"header[{k}] must be one line of text (no line break); got {line!r}"
            )
        lines.append(line if line.lstrip().startswith(";") else "; " + line)
    return lines


def workload_to_swf(workload: Workload, *, header: Iterable[str] = ()) -> SWFTrace:
    """An SWF trace of a workload, its platform and per-job extras in header comments.

    Field 5 and 8 hold the task count, field 4 the run time, field 9 the requested time
    (-1 when absent), field 10 the memory per task in KB, fields 17 and 18 the preceding
    job and the think time (-1 when absent); unknown fields are -1.

    Parameters
    ----------
    workload : Workload
        The jobs and their platform.
    header : iterable of str, default ()
        Comment lines (``"; Note: ..."``) written first. A line that does not start
        with ``;`` is made a comment by prefixing ``"; "`` (so that it can never read
        back as a job).

    Returns
    -------
    SWFTrace
        The trace; ``swf_to_workload`` of it gives back the workload.

    Raises
    ------
    InvalidInputError
        If ``workload`` is not a Workload, or ``header`` is a single string instead of
        lines, holds something other than a string or a line with a line break.

    Examples
    --------
    >>> w = Workload.from_jobs(Platform(nodes=4, cores=4), submit=[0, 5], runtime=[10, 20],
    ...                        tasks=[1, 3], cpu=[0.25, 1.0], mem=[0.1, 0.3])
    >>> swf_to_workload(workload_to_swf(w)) == w
    True
    >>> workload_to_swf(w, header=["Note: a comment"]).comments[0]
    '; Note: a comment'
    """
    if not isinstance(workload, Workload):
        raise InvalidInputError(f"workload must be a Workload; got {type(workload).__name__}")
    p = workload.platform
    comments = [
        *_comment_lines(header),
        "; Version: 2.2",
        "; Note: written by allockit; per-job tasks/CPU/memory in allockit-Job lines",
        f"; MaxNodes: {p.nodes}",
        f"; MaxProcs: {p.nodes * p.cores}",
        f"; allockit-Platform: nodes={p.nodes} cores={p.cores} node_memory={p.node_memory}",
    ]
    for k in range(workload.n_jobs):
        comments.append(
            f"; allockit-Job: {int(workload.ids[k])} {int(workload.tasks[k])} "
            f"{float(workload.cpu[k])!r} {float(workload.mem[k])!r}"
        )
    data = np.full((workload.n_jobs, 18), -1.0)
    data[:, 0] = workload.ids
    data[:, 1] = workload.submit
    data[:, 3] = workload.runtime
    data[:, 4] = workload.tasks
    data[:, 7] = workload.tasks
    data[:, 8] = np.where(np.isnan(workload.requested_time), -1, workload.requested_time)
    data[:, 9] = np.round(workload.mem * p.node_memory / 1024.0)
    data[:, 10] = 1
    data[:, 11] = workload.user
    data[:, 14] = workload.queue
    data[:, 16] = workload.preceding
    data[:, 17] = np.where(np.isnan(workload.think_time), -1, workload.think_time)
    trace_header = []
    for line in comments:
        match = _HEADER.match(line)
        if match:
            trace_header.append((match.group(1), match.group(2)))
    return SWFTrace(header=tuple(trace_header), data=data, comments=tuple(comments))
