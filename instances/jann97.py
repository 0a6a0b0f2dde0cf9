"""The Jann et al. (1997) workload model ("JWload" of the MEASY paper), rebuilt by fitting.

Jann et al. modelled the 322-node partition of the CTC SP2 from 1996-06-25 to
1996-09-12 (17,440 jobs): the range of degrees of parallelism is cut into about ten
subranges (powers of two), and for each subrange the interarrival times (between
consecutive jobs of that subrange) and the runtimes are each a hyper-Erlang
distribution of common order matched to the first three moments of the observed data
(:func:`allockit.instances.hyper_erlang.fit_hyper_erlang`). Generating superposes one
renewal process per subrange.

The paper's parameter tables were not found (see the module notes in
``benchmarks/RESULTS.md``, section 8), so the bundled model
(``instances/data/jann97_ctc.json``, :func:`load_jann_model`) is fitted here, the way
the authors did, to the first part of the Parallel Workloads Archive's CTC-SP2 log
(``CTC-SP2-1996-3.1-cln``): :func:`fit_ctc_jann97` regenerates it. The same fit applies
to any SWF log (:func:`fit_jann97`). Within a subrange, sizes follow the observed
frequencies (the paper's tables give ranges only; a model without them draws sizes
uniformly in the range).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from allockit.checks import integer, is_real
from allockit.errors import InvalidInputError
from allockit.instances.hyper_erlang import (
    DEFAULT_MAX_ORDER,
    MAX_ORDER,
    HyperErlang,
    fit_hyper_erlang_sample,
)
from allockit.instances.measy import apply_measy_rules, measy_load_factor
from allockit.instances.swf import SWFTrace, swf_to_workload
from allockit.instances.workload import (
    Platform,
    Workload,
    check_swf_times,
    integer_array,
)
from allockit.rng import as_generator

__all__ = [
    "CTC_FIRST_PART",
    "MEASY_TARGETS",
    "JannModel",
    "JannRange",
    "fit_ctc_jann97",
    "fit_jann97",
    "jann97_workload",
    "load_jann_model",
    "parse_ranges",
    "power_of_two_ranges",
    "save_jann_model",
    "select_period",
]

#: What the MEASY paper reports for JWload (100,000 jobs).
MEASY_TARGETS = {
    "jobs": 100_000,
    "procs": 320,
    "mean_size": 10.5,
    "mean_runtime": 11267.0,
    "serial_fraction": 0.408,
}

#: The log period Jann et al. modelled, as local dates of the CTC log (``end`` is
#: exclusive: jobs submitted before 1996-09-12 00:00 US/Eastern). The PWA log starts on
#: 1996-06-26 17:06; this selects 17,542 records (17,534 with a positive runtime and
#: size), against the paper's 17,440 jobs (an inclusive end would give 17,818).
CTC_FIRST_PART = {"start": "1996-06-25", "end": "1996-09-12"}

_BUNDLED = {"ctc": "jann97_ctc.json"}


# ---------------------------------------------------------------------- size ranges
def power_of_two_ranges(max_size: int) -> tuple[tuple[int, int], ...]:
    """Ranges ``1, 2, 3-4, 5-8, ...`` up to ``max_size`` (the last one ends there).

    Parameters
    ----------
    max_size : int
        Largest size, >= 1.

    Returns
    -------
    tuple of (int, int)
        Inclusive ``(lo, hi)`` ranges.

    Raises
    ------
    InvalidInputError
        If ``max_size`` is not an integer >= 1.

    Examples
    --------
    >>> power_of_two_ranges(322)[-3:]
    ((65, 128), (129, 256), (257, 322))
    >>> len(power_of_two_ranges(322))
    10
    """
    if isinstance(max_size, bool) or not isinstance(max_size, int | np.integer) or max_size < 1:
        raise InvalidInputError(f"max_size must be an integer >= 1; got {max_size!r}")
    out = [(1, 1)]
    lo = 2
    while lo <= max_size:
        hi = min(max_size, 2 * (lo - 1)) if lo > 2 else 2
        out.append((lo, hi))
        lo = hi + 1
    return tuple(out)


def parse_ranges(text: str, *, max_size: int | None = None) -> tuple[tuple[int, int], ...]:
    """Parse ``"1,2,3-4,5-8,257-"`` into ranges; an open end ``"257-"`` ends at ``max_size``.

    Parameters
    ----------
    text : str
        Comma-separated items ``N``, ``LO-HI`` or ``LO-``.
    max_size : int, optional
        Where an open range ends.

    Returns
    -------
    tuple of (int, int)
        Inclusive ``(lo, hi)`` ranges, increasing and disjoint.

    Raises
    ------
    InvalidInputError
        If an item is malformed, a range is empty, ranges overlap or are not increasing,
        or an open end has no ``max_size``.

    Examples
    --------
    >>> parse_ranges("1,2,3-4,5-10,11-", max_size=64)
    ((1, 1), (2, 2), (3, 4), (5, 10), (11, 64))
    """
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError(f"ranges must be a text like '1,2,3-4,5-8'; got {text!r}")
    out = []
    for item in text.split(","):
        match = re.fullmatch(r"\s*(\d+)\s*(?:(-)\s*(\d*)\s*)?", item)
        if not match:
            raise InvalidInputError(f"range {item.strip()!r} must be 'N', 'LO-HI' or 'LO-'")
        lo = int(match.group(1))
        if match.group(2) is None:
            hi = lo
        elif match.group(3):
            hi = int(match.group(3))
        elif max_size is None:
            raise InvalidInputError(f"open range {item.strip()!r} needs the largest size")
        else:
            hi = int(max_size)
        out.append((lo, hi))
    return _check_ranges(out)


def _check_ranges(ranges: Any) -> tuple[tuple[int, int], ...]:
    try:
        given = [tuple(pair) for pair in ranges]
    except TypeError:
        raise InvalidInputError(
            f"ranges must be (lo, hi) pairs of integers; got {ranges!r}"
        ) from None
    if any(len(pair) != 2 for pair in given):
        raise InvalidInputError(f"ranges must be (lo, hi) pairs of integers; got {ranges!r}")
    pairs = tuple(
        (_size_bound(f"ranges[{k}] lo", lo), _size_bound(f"ranges[{k}] hi", hi))
        for k, (lo, hi) in enumerate(given)
    )
    if not pairs:
        raise InvalidInputError("ranges must not be empty")
    previous = 0
    for lo, hi in pairs:
        if lo < 1 or hi < lo:
            raise InvalidInputError(f"range ({lo}, {hi}) must have 1 <= lo <= hi")
        if lo <= previous:
            raise InvalidInputError(
                f"ranges must increase without overlap; ({lo}, {hi}) starts at or below {previous}"
            )
        previous = hi
    return pairs


def _size_bound(name: str, value: Any) -> int:
    """An end of a size range: an integer >= 1 (``4.0`` too; ``2.5`` is refused, not cut)."""
    return integer(name, value, minimum=1)


# ---------------------------------------------------------------------- period selection
def _time_zone(trace: SWFTrace) -> _dt.tzinfo:
    name = trace.header_value("TimeZoneString")
    if name:
        try:
            from zoneinfo import ZoneInfo

            return ZoneInfo(name.strip())
        except (ImportError, KeyError, ValueError, OSError):
            pass
    offset = trace.header_int("TimeZone")
    if offset is not None:
        return _dt.timezone(_dt.timedelta(seconds=offset))
    return _dt.UTC


def _instant(value: str | _dt.date | _dt.datetime, zone: _dt.tzinfo, name: str) -> float:
    if isinstance(value, str):
        try:
            value = _dt.datetime.fromisoformat(value.strip())
        except ValueError:
            raise InvalidInputError(
                f"{name} must be a date like 1996-06-25; got {value!r}"
            ) from None
    if isinstance(value, _dt.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=zone)
    elif isinstance(value, _dt.date):
        moment = _dt.datetime(value.year, value.month, value.day, tzinfo=zone)
    else:
        raise InvalidInputError(f"{name} must be a date or a datetime; got {value!r}")
    return moment.timestamp()


def select_period(
    trace: SWFTrace,
    *,
    start: str | _dt.date | None = None,
    end: str | _dt.date | None = None,
) -> SWFTrace:
    """The records of ``trace`` submitted in ``[start, end)`` (local dates of the log).

    Submit times (field 2) count from the header's ``UnixStartTime``; dates without a
    time zone are read in the log's ``TimeZoneString`` zone (daylight saving included),
    else its ``TimeZone`` offset, else UTC. The header and comments are kept.

    Parameters
    ----------
    trace : SWFTrace
    start, end : str, date or datetime, optional
        ISO dates (``"1996-06-25"``) or datetimes; ``end`` is exclusive.

    Returns
    -------
    SWFTrace

    Raises
    ------
    InvalidInputError
        If a date is malformed or the header has no ``UnixStartTime``.

    Examples
    --------
    >>> from allockit.instances.swf import read_swf
    >>> t = read_swf(["; UnixStartTime: 0", "; TimeZoneString: UTC",
    ...               "1 0 -1 10 1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1 -1",
    ...               "2 90000 -1 10 1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1 -1"])
    >>> select_period(t, end="1970-01-02").n_jobs
    1
    """
    if start is None and end is None:
        return trace
    origin = trace.header_int("UnixStartTime")
    if origin is None:
        raise InvalidInputError("selecting a period needs the SWF header's UnixStartTime")
    zone = _time_zone(trace)
    submit = trace.column("submit") + origin
    keep = np.ones(trace.n_jobs, dtype=bool)
    if start is not None:
        keep &= submit >= _instant(start, zone, "start")
    if end is not None:
        keep &= submit < _instant(end, zone, "end")
    return SWFTrace(
        header=trace.header,
        data=np.array(trace.data[keep]),
        comments=trace.comments,
        bad_lines=trace.bad_lines,
    )


# ---------------------------------------------------------------------- the model
def _entries(name: str, values: Any) -> list[Any]:
    """A JannRange's ``sizes`` or ``counts`` as a list (an empty one for none)."""
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise InvalidInputError(f"JannRange.{name} must be a sequence of integers; got {values!r}")
    return list(values)


def _he(value: Any, name: str) -> HyperErlang:
    if isinstance(value, HyperErlang):
        return value
    if isinstance(value, Mapping):
        return HyperErlang.from_dict(value)
    raise InvalidInputError(f"JannRange.{name} must be a HyperErlang; got {value!r}")


@dataclass(frozen=True, slots=True)
class JannRange:
    """One range ``lo..hi`` of degrees of parallelism and its two distributions.

    ``interarrival`` is the time (s) between consecutive jobs of this range,
    ``runtime`` their runtime (s). ``sizes`` / ``counts`` are the observed sizes in the
    range and how many jobs had each (empty: sizes uniform in ``lo..hi``); ``jobs`` is
    the number of jobs the fit saw (0 when unknown). ``lo``, ``hi``, ``sizes``,
    ``counts`` and ``jobs`` are integers (``4.0`` is taken as 4; ``2.5`` is refused with
    an ``InvalidInputError``, never truncated).

    Examples
    --------
    >>> r = JannRange(3, 4, HyperErlang.erlang(1, 0.01), HyperErlang.erlang(1, 0.001))
    >>> r.mean_size(), JannRange.from_dict(r.to_dict()) == r
    (3.5, True)
    """

    lo: int
    hi: int
    interarrival: HyperErlang
    runtime: HyperErlang
    sizes: tuple[int, ...] = ()
    counts: tuple[int, ...] = ()
    jobs: int = 0

    def __post_init__(self) -> None:
        ends = (_size_bound("JannRange.lo", self.lo), _size_bound("JannRange.hi", self.hi))
        ((lo, hi),) = _check_ranges([ends])
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)
        object.__setattr__(self, "interarrival", _he(self.interarrival, "interarrival"))
        object.__setattr__(self, "runtime", _he(self.runtime, "runtime"))
        sizes = tuple(integer_array("JannRange.sizes", _entries("sizes", self.sizes)).tolist())
        counts = tuple(integer_array("JannRange.counts", _entries("counts", self.counts)).tolist())
        if len(sizes) != len(counts):
            raise InvalidInputError(
                f"JannRange.sizes and counts must have the same length; got {len(sizes)} "
                f"and {len(counts)}"
            )
        if any(not lo <= s <= hi for s in sizes) or len(set(sizes)) != len(sizes):
            raise InvalidInputError(f"JannRange.sizes must be distinct and in {lo}..{hi}")
        if any(c < 1 for c in counts):
            raise InvalidInputError("JannRange.counts must be >= 1")
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "jobs", integer("JannRange.jobs", self.jobs, minimum=0))

    def size_pmf(self, procs: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Sizes and their probabilities, sizes capped at ``procs`` processors."""
        if self.sizes:
            values = np.array(self.sizes, dtype=np.int64)
            probs = np.array(self.counts, dtype=float)
        else:
            values = np.arange(self.lo, self.hi + 1, dtype=np.int64)
            probs = np.ones(values.size)
        if procs is not None:
            values = np.minimum(values, procs)
        return values, probs / probs.sum()

    def mean_size(self, procs: int | None = None) -> float:
        """Expected size (capped at ``procs``)."""
        values, probs = self.size_pmf(procs)
        return float((values * probs).sum())

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        out: dict[str, Any] = {
            "lo": self.lo,
            "hi": self.hi,
            "interarrival": self.interarrival.to_dict(),
            "runtime": self.runtime.to_dict(),
        }
        if self.sizes:
            out["sizes"] = list(self.sizes)
            out["counts"] = list(self.counts)
        if self.jobs:
            out["jobs"] = self.jobs
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JannRange:
        """Inverse of ``to_dict``."""
        try:
            return cls(
                lo=data["lo"],
                hi=data["hi"],
                interarrival=data["interarrival"],
                runtime=data["runtime"],
                sizes=tuple(data.get("sizes", ())),
                counts=tuple(data.get("counts", ())),
                jobs=data.get("jobs", 0),
            )
        except (KeyError, TypeError) as exc:
            raise InvalidInputError(f"JannRange object is malformed: {exc!r}") from None


@dataclass(frozen=True, slots=True)
class JannModel:
    """A Jann 1997 model: per range of sizes, interarrival and runtime hyper-Erlangs.

    Parameters
    ----------
    nodes : int
        Size of the machine the model describes (the largest job it generates).
    ranges : tuple of JannRange
        Increasing, non-overlapping ranges of sizes.
    source : str
        Where the parameters come from (free text, kept in the JSON).

    Examples
    --------
    >>> m = load_jann_model()
    >>> m.nodes, len(m.ranges), m.ranges[0].interarrival.n
    (322, 10, 1)
    >>> import json
    >>> JannModel.from_dict(json.loads(json.dumps(m.to_dict()))) == m
    True
    """

    nodes: int
    ranges: tuple[JannRange, ...]
    source: str = field(default="")

    def __post_init__(self) -> None:
        object.__setattr__(self, "nodes", integer("JannModel.nodes", self.nodes, minimum=1))
        ranges = tuple(
            r if isinstance(r, JannRange) else JannRange.from_dict(r) for r in self.ranges
        )
        _check_ranges([(r.lo, r.hi) for r in ranges])
        object.__setattr__(self, "ranges", ranges)
        if not isinstance(self.source, str):
            raise InvalidInputError(f"JannModel.source must be a string; got {self.source!r}")

    def _procs(self, procs: int | None) -> int:
        if procs is None:
            return self.nodes
        return integer("procs", procs, minimum=1)

    def rates(self) -> np.ndarray:
        """Arrival rate (jobs/s) of each range: one over its mean interarrival time."""
        return np.array([1.0 / r.interarrival.mean for r in self.ranges])

    def expected_statistics(self, procs: int | None = None) -> dict[str, float]:
        """Long-run per-job expectations of the generated workload on ``procs`` processors.

        Each range contributes jobs in proportion to its arrival rate. Returns
        ``mean_size``, ``serial_fraction``, ``power_of_two_fraction`` (sizes 2, 4, ...),
        ``mean_runtime``, ``mean_interarrival`` and ``offered_load`` (sizes capped at
        ``procs``; default the model's ``nodes``).
        """
        procs = self._procs(procs)
        rates = self.rates()
        share = rates / rates.sum()
        size = np.array([r.mean_size(procs) for r in self.ranges])
        runtime = np.array([r.runtime.mean for r in self.ranges])
        serial = np.zeros(len(self.ranges))
        pow2 = np.zeros(len(self.ranges))
        for i, r in enumerate(self.ranges):
            values, probs = r.size_pmf(procs)
            serial[i] = probs[values == 1].sum()
            pow2[i] = probs[(values >= 2) & ((values & (values - 1)) == 0)].sum()
        return {
            "mean_size": float((share * size).sum()),
            "serial_fraction": float((share * serial).sum()),
            "power_of_two_fraction": float((share * pow2).sum()),
            "mean_runtime": float((share * runtime).sum()),
            "mean_interarrival": float(1.0 / rates.sum()),
            "offered_load": float((rates * size * runtime).sum() / procs),
        }

    def standard_errors(self, jobs: int, procs: int | None = None) -> dict[str, float]:
        """Asymptotic standard errors of the per-job means over ``jobs`` generated jobs.

        Delta method over the superposed renewal processes: for a statistic with range
        means ``mu_i``, variances ``s_i**2`` and job shares ``f_i``, the variance of the
        overall mean is ``sum_i f_i (s_i**2 + c_i (mu_i - mu)**2) / jobs``, where ``c_i``
        is the squared coefficient of variation of range ``i``'s interarrival times (the
        variance of its job count per expected job).
        """
        procs = self._procs(procs)
        rates = self.rates()
        share = rates / rates.sum()
        scv = np.array([r.interarrival.scv for r in self.ranges])
        per_range: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        means, variances = {}, {}
        for key in ("mean_size", "serial_fraction", "power_of_two_fraction", "mean_runtime"):
            means[key], variances[key] = np.zeros(len(share)), np.zeros(len(share))
        for i, r in enumerate(self.ranges):
            values, probs = r.size_pmf(procs)
            m = float((values * probs).sum())
            means["mean_size"][i] = m
            variances["mean_size"][i] = float((values**2 * probs).sum()) - m * m
            for key, mask in (
                ("serial_fraction", values == 1),
                ("power_of_two_fraction", (values >= 2) & ((values & (values - 1)) == 0)),
            ):
                q = float(probs[mask].sum())
                means[key][i], variances[key][i] = q, q * (1 - q)
            means["mean_runtime"][i] = r.runtime.mean
            variances["mean_runtime"][i] = r.runtime.variance
        for key in means:
            per_range[key] = (means[key], variances[key])
        out = {}
        for key, (mu, var) in per_range.items():
            overall = float((share * mu).sum())
            out[key] = math.sqrt(float((share * (var + scv * (mu - overall) ** 2)).sum()) / jobs)
        return out

    def offered_load(self, procs: int | None = None) -> float:
        """The load the model offers to ``procs`` processors (default ``nodes``)."""
        return self.expected_statistics(procs)["offered_load"]

    def to_dict(self) -> dict[str, Any]:
        """JSON form; ``from_dict(json.loads(json.dumps(m.to_dict()))) == m``."""
        return {
            "model": "jann97",
            "nodes": self.nodes,
            "source": self.source,
            "ranges": [r.to_dict() for r in self.ranges],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JannModel:
        """Inverse of ``to_dict``."""
        try:
            if data.get("model", "jann97") != "jann97":
                raise InvalidInputError(f"not a jann97 model: model={data.get('model')!r}")
            return cls(
                nodes=data["nodes"],
                ranges=tuple(JannRange.from_dict(r) for r in data["ranges"]),
                source=data.get("source", ""),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise InvalidInputError(f"JannModel object is malformed: {exc!r}") from None


# ---------------------------------------------------------------------- fitting
def fit_jann97(
    data: SWFTrace | Workload,
    *,
    ranges: Sequence[tuple[int, int]] | str | None = None,
    nodes: int | None = None,
    start: str | _dt.date | None = None,
    end: str | _dt.date | None = None,
    min_jobs: int = 10,
    max_order: int = DEFAULT_MAX_ORDER,
    source: str = "",
) -> JannModel:
    """Fit a Jann 1997 model to a log: per size range, hyper-Erlangs on three moments.

    For each range, the jobs whose size is in it are taken in submission order; the
    interarrival times between consecutive ones and their runtimes are each fitted by
    :func:`~allockit.instances.hyper_erlang.fit_hyper_erlang_sample` (lowest common
    order matching the first three raw moments). The observed sizes in the range and
    their counts are kept.

    Parameters
    ----------
    data : SWFTrace or Workload
        The log. An SWF trace is converted by the default rule (``tasks`` = allocated
        processors, field 5, else requested, field 8; jobs without a positive runtime or
        size dropped).
    ranges : sequence of (lo, hi) or str, optional
        Size ranges (``"1,2,3-4,5-8,257-"`` is parsed by :func:`parse_ranges`); default
        :func:`power_of_two_ranges` up to ``nodes``. Jobs outside every range are left
        out.
    nodes : int, optional
        Machine size of the model; default the largest job size in the (selected) data.
    start, end : str or date, optional
        Only with an SWF trace: keep the records submitted in ``[start, end)`` (local
        dates, :func:`select_period`).
    min_jobs : int
        A range with fewer jobs is left out of the model (its interarrival moments
        would be meaningless); >= 3.
    max_order : int
        Highest hyper-Erlang order tried, in [1, ``hyper_erlang.MAX_ORDER``] (1000).
    source : str
        Provenance note stored in the model.

    Returns
    -------
    JannModel

    Raises
    ------
    InvalidInputError
        If the data has no job, ``min_jobs``, ``nodes`` or ``max_order`` is out of
        range, ``ranges`` are not increasing pairs of integers >= 1, no range keeps
        ``min_jobs`` jobs, or a range's moments cannot be matched (the message names
        the range and the distribution).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> w = Workload.from_jobs(Platform(nodes=8), submit=np.cumsum(rng.exponential(60, 400)),
    ...                        runtime=rng.exponential(600, 400) + 1,
    ...                        tasks=rng.choice([1, 2, 4, 8], 400), cpu=np.ones(400),
    ...                        mem=np.full(400, 0.1))
    >>> m = fit_jann97(w)
    >>> [(r.lo, r.hi) for r in m.ranges], m.nodes
    ([(1, 1), (2, 2), (3, 4), (5, 8)], 8)

    References
    ----------
    .. [1] Jann, Pattnaik, Franke, Wang, Skovira, Riordan (1997), Modeling of workload in
       MPPs, JSSPP, LNCS 1291.
    """
    if isinstance(data, SWFTrace):
        trace = select_period(data, start=start, end=end)
        procs = trace.column("procs")
        procs = np.where(procs > 0, procs, trace.column("procs_req"))
        has_nodes = trace.header_int("MaxNodes") or trace.header_int("MaxProcs")
        fallback = int(procs.max()) if trace.n_jobs and procs.max() > 0 else 1
        workload = swf_to_workload(trace, nodes=None if has_nodes else fallback, cores=1)
    elif isinstance(data, Workload):
        if start is not None or end is not None:
            raise InvalidInputError("start/end select a period of an SWF trace, not a Workload")
        workload = data
    else:
        raise InvalidInputError(
            f"data must be an SWFTrace or a Workload; got {type(data).__name__}"
        )
    if workload.n_jobs == 0:
        raise InvalidInputError("the log has no job with a positive runtime and size")
    min_jobs = integer("min_jobs", min_jobs, minimum=3)
    max_order = integer("max_order", max_order, minimum=1, maximum=MAX_ORDER)
    largest = int(workload.tasks.max())
    nodes = largest if nodes is None else integer("nodes", nodes, minimum=1)
    if ranges is None:
        ranges = power_of_two_ranges(max(int(nodes), largest))
    elif isinstance(ranges, str):
        ranges = parse_ranges(ranges, max_size=max(int(nodes), largest))
    pairs = _check_ranges(ranges)
    fitted = []
    for lo, hi in pairs:
        mask = (workload.tasks >= lo) & (workload.tasks <= hi)
        count = int(mask.sum())
        if count < min_jobs:
            continue
        submit = np.sort(workload.submit[mask])
        parts = {}
        for name, sample in (
            ("interarrival", np.diff(submit)),
            ("runtime", workload.runtime[mask]),
        ):
            try:
                parts[name] = fit_hyper_erlang_sample(sample, max_order=max_order)
            except InvalidInputError as exc:
                raise InvalidInputError(f"range {lo}-{hi} ({count} jobs), {name}: {exc}") from None
        sizes, counts = np.unique(workload.tasks[mask], return_counts=True)
        fitted.append(
            JannRange(
                lo=lo,
                hi=hi,
                interarrival=parts["interarrival"],
                runtime=parts["runtime"],
                sizes=tuple(int(s) for s in sizes),
                counts=tuple(int(c) for c in counts),
                jobs=count,
            )
        )
    if not fitted:
        raise InvalidInputError(f"no size range has {min_jobs} or more jobs")
    return JannModel(nodes=int(nodes), ranges=tuple(fitted), source=source)


def fit_ctc_jann97(path: str | Path, *, max_order: int = DEFAULT_MAX_ORDER) -> JannModel:
    """Refit the bundled model from the CTC-SP2 log (the paper's period and ranges).

    Reads ``path`` (``CTC-SP2-1996-3.1-cln.swf.gz``), keeps :data:`CTC_FIRST_PART` (the
    log has no partition field: its header gives the 338-node batch partition, and the
    largest job of the period has 322 processors, the paper's partition), and fits the
    ten power-of-two ranges up to 322. ``save_jann_model(fit_ctc_jann97(path),
    "instances/data/jann97_ctc.json")`` regenerates the bundled file (byte for byte with
    the numpy build that wrote it; other builds may differ in the last bits).

    Parameters
    ----------
    path : str or Path
        The CTC-SP2 SWF file (plain or gzip).
    max_order : int
        Highest hyper-Erlang order tried.

    Returns
    -------
    JannModel

    Raises
    ------
    InvalidInputError
        If the file cannot be read.

    Examples
    --------
    >>> fit_ctc_jann97("/nonexistent/CTC-SP2-1996-3.1-cln.swf.gz")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: cannot read SWF file ...
    """
    from allockit.instances.swf import read_swf

    trace = read_swf(path)
    source = (
        f"fitted by allockit.instances.jann97.fit_ctc_jann97 to {Path(path).name}, records "
        f"submitted in [{CTC_FIRST_PART['start']}, {CTC_FIRST_PART['end']}) US/Eastern; "
        "power-of-two size ranges; hyper-Erlangs of the lowest common order matching three "
        "moments (Jann et al. 1997)"
    )
    return fit_jann97(trace, **CTC_FIRST_PART, max_order=max_order, source=source)


def save_jann_model(model: JannModel, path: str | Path) -> None:
    """Write ``model`` as indented JSON (exact floats) to ``path``.

    Parameters
    ----------
    model : JannModel
    path : str or Path
        Output file (overwritten).

    Raises
    ------
    InvalidInputError
        If ``model`` is not a JannModel.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "model.json")
    >>> save_jann_model(load_jann_model(), path)
    >>> load_jann_model(path) == load_jann_model()
    True
    """
    if not isinstance(model, JannModel):
        raise InvalidInputError(f"model must be a JannModel; got {type(model).__name__}")
    text = json.dumps(model.to_dict(), indent=1) + "\n"
    Path(path).write_text(text, encoding="utf-8")


def load_jann_model(name_or_path: str | Path = "ctc") -> JannModel:
    """A bundled model by name (``"ctc"``: fitted to the CTC-SP2 log) or a JSON file.

    Parameters
    ----------
    name_or_path : str or Path
        ``"ctc"`` (``instances/data/jann97_ctc.json``) or the path of a JSON file
        written by :func:`save_jann_model` (``JannModel.to_dict``).

    Returns
    -------
    JannModel

    Raises
    ------
    InvalidInputError
        If the file cannot be read or is not a Jann model.

    Examples
    --------
    >>> round(load_jann_model("ctc").expected_statistics()["serial_fraction"], 3)
    0.415
    """
    if isinstance(name_or_path, str) and name_or_path in _BUNDLED:
        from importlib.resources import files

        text = (
            files("allockit.instances")
            .joinpath("data", _BUNDLED[name_or_path])
            .read_text(encoding="utf-8")
        )
    else:
        try:
            text = Path(name_or_path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InvalidInputError(
                f"cannot read Jann model {str(name_or_path)!r}: {exc}"
            ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"Jann model {str(name_or_path)!r} is not JSON: {exc}") from None
    from allockit.instances.schemas import JANN_MODEL, validate

    where = f"Jann model {Path(str(name_or_path)).name}: "
    data = validate(JANN_MODEL, data, where=where, name="a Jann model")
    try:
        return JannModel.from_dict(data)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}{exc}") from None


# ---------------------------------------------------------------------- generating
def _arrivals(
    model: JannModel, jobs: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Times and range index of the first ``jobs`` arrivals of the superposed processes."""
    rates = model.rates()
    horizon = 1.2 * jobs / rates.sum()
    streams: list[list[np.ndarray]] = [[] for _ in model.ranges]
    ends = np.zeros(len(model.ranges))
    while True:
        for i, r in enumerate(model.ranges):
            while ends[i] <= horizon:
                expected = (horizon - ends[i]) * rates[i]
                n = int(expected + 6.0 * math.sqrt(expected * max(1.0, r.interarrival.scv)) + 16)
                times = ends[i] + np.cumsum(r.interarrival.sample(n, seed=rng))
                streams[i].append(times)
                ends[i] = times[-1]
        times = np.concatenate([np.concatenate(s) for s in streams])
        if np.count_nonzero(times <= horizon) >= jobs:
            break
        horizon *= 1.5
    index = np.concatenate([np.full(sum(c.size for c in s), i) for i, s in enumerate(streams)])
    order = np.argsort(times, kind="stable")[:jobs]
    return times[order] - times[order[0]], index[order]


def jann97_workload(
    jobs: int,
    *,
    procs: int | None = None,
    model: JannModel | None = None,
    load: float | None = None,
    cpu_usage: bool = False,
    estimates: bool = False,
    mem: float = 0.1,
    seed: int | np.random.Generator | None = None,
) -> Workload:
    """Generate ``jobs`` jobs of a Jann 1997 model on ``procs`` single-core nodes.

    Each size range is a renewal process with its hyper-Erlang interarrival times; the
    workload is the first ``jobs`` arrivals of their superposition (shifted so that the
    first job arrives at time 0), each
    with a size drawn from its range (capped at ``procs``) and a runtime from the
    range's hyper-Erlang. Times are rounded to whole seconds (runtimes >= 1 s); ids are
    ``1..jobs`` in submission order.

    Parameters
    ----------
    jobs : int
        Number of jobs, >= 1.
    procs : int, optional
        Processors ``P`` (``Platform(nodes=P, cores=1)``, one process per processor);
        default the model's ``nodes`` (322 for the CTC model; the MEASY paper used 320).
    model : JannModel, optional
        Default: the bundled CTC fit (:func:`load_jann_model`).
    load : float, optional
        Offered load wanted: interarrival times are multiplied by
        ``model.offered_load(procs) / load`` (the MEASY paper's rule, from the model's
        own load on ``procs`` processors).
    cpu_usage : bool
        MEASY per-process CPU usage in ``cpu``; otherwise ``cpu = 1``.
    estimates : bool
        Tsafrir runtime estimates in ``requested_time``.
    mem : float
        Memory per process as a fraction of a node (the model has none), in [0, 1].
    seed : int, numpy.random.Generator or None
        Randomness. The jobs do not depend on ``cpu_usage``/``estimates``.

    Returns
    -------
    Workload

    Raises
    ------
    InvalidInputError
        If ``jobs`` or ``procs`` is not a positive integer, ``load`` is not > 0 or
        ``mem`` not in [0, 1].

    Examples
    --------
    >>> w = jann97_workload(1000, procs=320, seed=1)
    >>> w.n_jobs, w.platform.nodes, int(w.tasks.max()) <= 320
    (1000, 320, True)
    """
    jobs = integer("jobs", jobs, minimum=1)
    model = load_jann_model() if model is None else model
    if not isinstance(model, JannModel):
        raise InvalidInputError(f"model must be a JannModel; got {type(model).__name__}")
    procs = model._procs(procs)
    if not (is_real(mem) and 0 <= mem <= 1):
        raise InvalidInputError(f"mem must be in [0, 1]; got {mem!r}")
    factor = 1.0 if load is None else measy_load_factor(model.offered_load(procs), load)
    rng = as_generator(seed)
    base_rng, rules_rng = rng.spawn(2)
    jobs = int(jobs)
    times, index = _arrivals(model, jobs, base_rng)
    tasks = np.empty(jobs, dtype=np.int64)
    runtime = np.empty(jobs)
    for i, r in enumerate(model.ranges):
        mine = np.flatnonzero(index == i)
        values, probs = r.size_pmf(procs)
        tasks[mine] = values[
            np.minimum(
                np.searchsorted(np.cumsum(probs), base_rng.random(mine.size), side="right"),
                values.size - 1,
            )
        ]
        runtime[mine] = r.runtime.sample(mine.size, seed=base_rng)
    workload = Workload(
        platform=Platform(nodes=procs, cores=1),
        ids=np.arange(1, jobs + 1),
        submit=np.floor(times * factor),
        runtime=np.maximum(1.0, np.rint(runtime)),
        tasks=tasks,
        cpu=np.ones(jobs),
        mem=np.full(jobs, float(mem)),
    )
    check_swf_times(workload, load=load)
    return apply_measy_rules(workload, cpu_usage=cpu_usage, estimates=estimates, seed=rules_rng)
