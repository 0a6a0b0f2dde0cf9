"""Compare VCSched methods over instances: the paper's Table 1 statistics, CSV and figures."""

from __future__ import annotations

import math
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from allockit.results import Status

__all__ = [
    "LEGEND",
    "OUTCOMES",
    "PAPER_LEGEND",
    "MethodSummary",
    "comparison_rows",
    "format_table",
    "summarize",
]

#: Methods that give a bound rather than a placement; excluded from "best".
BOUND_METHODS = ("lp",)

#: Relative slack before a bound below another method's achieved yield is a contradiction
#: (solvers' bounds hold within their feasibility tolerances, about 1e-9..1e-7).
CONTRADICTION_TOL = 1e-6
_STEM = re.compile(
    r"h(?P<hosts>\d+)-j(?P<jobs>\d+)-s(?P<slack>[0-9.]+)-cc(?P<cc>[0-9.]+)"
    r"-cm(?P<cm>[0-9.]+)"
)


#: Outcomes of one (instance, method) row, in the order of the table's counts.
OUTCOMES = ("solved", "infeasible", "no_solution", "error")

#: What the ``paper avg/max`` column means (added to the legend when it is printed).
PAPER_LEGEND = (
    "paper avg/max: the paper's average and maximum %deg where it has them (Table 1, small set)"
)

#: What each column of ``format_table`` means (printed under the table).
LEGEND = (
    "n: instances; solved: a placement; infeas: proven infeasible; no sol: no placement "
    "and no proof (a heuristic's rule failed, a user method returned None, a time limit "
    "without incumbent); errors: the task failed (exception, invalid placement, overrun); "
    "%deg: percent below the best minimum yield any method found on the instance "
    "(solved instances; the lp bound is not a method's answer); min/avg "
    "yield: means over solved instances; %gap: certified gap 100 (bound - min yield) / "
    "bound to the method's own bound (for a heuristic, the LP bound); mean/max s: per "
    "task, without the one-time setup of the worker processes (setup s, summed)"
)


@dataclass(frozen=True, slots=True)
class MethodSummary:
    """One line of the comparison table.

    ``seconds`` is the method's total run time over the instances; ``status`` is
    ``completed``. ``instances`` is n; ``solved``, ``infeasible`` (proven),
    ``no_solution`` and ``errors`` count the outcomes (``outcome`` of
    ``comparison_rows``) and add up to n; ``failures`` is n minus ``solved``.
    ``mean_seconds`` and ``max_seconds`` are per-task times without the
    one-time costs of the worker processes (numba kernels, solver start-up), which are
    summed apart in ``setup_seconds``. ``mean_gap`` and ``max_gap`` are the certified
    gaps, in percent, ``100 * (bound - min_yield) / bound`` with the method's own proven
    bound, over the instances it solved (None when it reported no gap).

    Examples
    --------
    >>> s = MethodSummary("mcb8", 2, 0, 1.0, 2.0, 0.9, 0.95, 0.001, 0.002, 0.5, 1.0)
    >>> MethodSummary.from_dict(s.to_dict()) == s
    True
    """

    method: str
    instances: int
    failures: int
    avg_degradation: float | None
    max_degradation: float | None
    mean_min_yield: float | None
    mean_avg_yield: float | None
    mean_seconds: float
    max_seconds: float
    mean_gap: float | None = None
    max_gap: float | None = None
    setup_seconds: float = 0.0
    solved: int | None = None
    infeasible: int = 0
    no_solution: int = 0
    errors: int = 0

    status = Status.COMPLETED

    def __post_init__(self) -> None:
        if self.solved is None:  # a line written before the outcomes were counted
            object.__setattr__(self, "solved", self.instances - self.failures)

    @property
    def seconds(self) -> float:
        """Total run time of the method over the instances."""
        return self.mean_seconds * self.instances

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {k: getattr(self, k) for k in self.__slots__}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MethodSummary:
        """Rebuild a summary line from ``to_dict``'s output."""
        return cls(**{k: data[k] for k in cls.__slots__ if k in data})


def _solved(row: dict[str, Any]) -> bool:
    out = row["outputs"]
    return (
        bool(row["ok"])
        and out.get("min_yield") is not None
        and out.get("status") in ("optimal", "feasible", "time_limit")
    )


def _outcome(row: dict[str, Any], solved: bool) -> str:
    """``solved``, ``infeasible`` (proven), ``no_solution`` or ``error`` (see ``LEGEND``)."""
    out = row["outputs"]
    if not row["ok"] or out.get("status") == "error":
        return "error"
    if solved:
        return "solved"
    if out.get("status") == "infeasible" and out.get("solver") != "heuristic":
        return "infeasible"  # a heuristic's "infeasible" is its rule failing, not a proof
    return "no_solution"


def _contradiction(outputs: dict[str, Any], outcome: str, best: float | None) -> str:
    """Why a row's proof is refuted by another method's placement ('' if it is not).

    Every solved row's minimum yield is rescored from its placement, so it is achieved:
    an infeasibility proof, or an upper bound below it, is false.
    """
    if best is None:
        return ""
    if outcome == "infeasible":
        return (
            f"contradicted: it claims the instance infeasible, but another method's "
            f"placement reaches min yield {best:.6g}"
        )
    bound = outputs.get("bound")
    if isinstance(bound, int | float) and bound < best - CONTRADICTION_TOL * max(1.0, best):
        return (
            f"contradicted: its bound {bound:.6g} is below the min yield {best:.6g} another "
            "method's placement reaches"
        )
    return ""


def comparison_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One flat row per (instance, method) with its % degradation from the best.

    ``best`` is the largest minimum yield any compared method (bounds such as ``lp``
    excluded) reached on the instance; failures have no degradation. Instance stems of
    the paper's sets (``h4-j6-s0.1-cc0.25-cm0.75-r0``) also give hosts, jobs, slack and
    the two coefficients of variation.

    A row counts as solved when its task succeeded and it reports a minimum yield with
    status ``optimal``, ``feasible`` or ``time_limit``. A row whose proof another
    method's placement refutes (it claims the instance infeasible, or its bound is below
    a minimum yield another method reached, beyond ``CONTRADICTION_TOL``) loses that
    proof (``bound`` and ``gap`` None, ``error`` saying why, an ``optimal`` status
    becomes ``feasible``); without a placement of its own it is then an ``error``: a
    user's method may claim anything, and a comparison must not count a false proof.

    Parameters
    ----------
    rows : list of dict
        Results-store rows (``allockit.runner.read_rows``) of VCSched tasks: each with
        ``instance``, ``method``, ``ok``, ``outputs`` (``VCResult.to_dict`` fields:
        ``status``, ``min_yield``, ``avg_yield``, ``bound``, ``gap``, ``build_seconds``,
        ``solve_seconds``, ``message``, and when recorded ``incumbent_source`` and
        ``bound_source``) and optionally ``wall_seconds`` and ``error``.

    Returns
    -------
    list of dict
        Per row: ``instance``, ``method``, ``status``, ``outcome`` (``solved``,
        ``infeasible``: proven, ``no_solution`` or ``error``), ``min_yield`` and
        ``avg_yield`` (None unless solved), ``bound``, ``gap``, ``seconds`` (build +
        solve, or the wall time), ``degradation`` (percent below the best, None for
        failures and bounds), ``failed``, ``error``, ``incumbent_source``,
        ``bound_source``; plus ``hosts``, ``jobs``, ``slack``, ``cov_cpu``, ``cov_mem``
        for paper-set stems (``hosts``, ``jobs`` and ``slack`` from the outputs for
        other instances, when recorded).

    Examples
    --------
    >>> rows = [
    ...   {"instance": "a", "method": "x", "ok": True, "wall_seconds": 0.1,
    ...    "outputs": {"status": "optimal", "min_yield": 0.8, "avg_yield": 0.9}},
    ...   {"instance": "a", "method": "y", "ok": True, "wall_seconds": 0.1,
    ...    "outputs": {"status": "feasible", "min_yield": 0.6, "avg_yield": 0.9}}]
    >>> [round(r["degradation"], 6) for r in comparison_rows(rows)]
    [0.0, 25.0]
    """
    best: dict[str, float] = {}
    for row in rows:
        if row["method"] not in BOUND_METHODS and _solved(row):
            y = row["outputs"]["min_yield"]
            best[row["instance"]] = max(best.get(row["instance"], 0.0), y)
    out = []
    for row in rows:
        o = row["outputs"]
        solved = _solved(row)
        b = best.get(row["instance"])
        degradation = None
        if solved and row["method"] not in BOUND_METHODS and b:
            degradation = 100.0 * (b - o["min_yield"]) / b
        seconds = (o.get("build_seconds") or 0.0) + (o.get("solve_seconds") or 0.0)
        outcome = _outcome(row, solved)
        contradiction = _contradiction(o, outcome, b)
        refuted = bool(contradiction)  # its bound or its proof of infeasibility is false
        flat = {
            "instance": row["instance"],
            "method": row["method"],
            # an "optimal" whose proof is refuted is only a feasible placement
            "status": "feasible" if refuted and solved and o.get("status") == "optimal"
            else o.get("status", row.get("status")),
            # a placement stands (it is rescored); a row whose only answer is a false
            # proof is an error
            "outcome": "error" if refuted and not solved else outcome,
            "min_yield": o.get("min_yield") if solved else None,
            "avg_yield": o.get("avg_yield") if solved else None,
            "bound": None if refuted else o.get("bound"),
            "gap": None if refuted else o.get("gap"),
            "seconds": seconds or row.get("seconds", row.get("wall_seconds", 0.0)),
            "setup_seconds": o.get("setup_seconds") or row.get("setup_seconds") or 0.0,
            "degradation": degradation,
            "failed": not solved,
            "task_failed": not row["ok"],
            "error": contradiction or row.get("error") or o.get("message") or "",
            "incumbent_source": o.get("incumbent_source", ""),
            "bound_source": o.get("bound_source", ""),
        }
        match = _STEM.match(row["instance"])
        if match:
            flat.update(
                hosts=int(match["hosts"]),
                jobs=int(match["jobs"]),
                slack=float(match["slack"]),
                cov_cpu=float(match["cc"]),
                cov_mem=float(match["cm"]),
            )
        else:
            for key in ("hosts", "jobs", "slack"):
                if o.get(key) is not None:
                    flat[key] = o[key]
        out.append(flat)
    return out


def summarize(flat: list[dict[str, Any]], methods: list[str]) -> list[MethodSummary]:
    """Per method: degradation from best (average, max), failures, means, run times.

    The statistics of the VCSched paper's Table 1 (Stillwell et al. 2009):
    average and maximum percent degradation from the best method on each instance,
    over the instances the method solved.

    Parameters
    ----------
    flat : list of dict
        Rows from ``comparison_rows``.
    methods : list of str
        Methods to summarise, in the order of the table; a method without rows gets a
        line with 0 instances.

    Returns
    -------
    list of MethodSummary
        One per method: instances, failures, average and maximum degradation (percent,
        None if nothing solved), mean minimum and average yields over the solved
        instances, mean and maximum seconds over all instances, mean and maximum
        certified gap (percent) over the solved instances that report one.

    Examples
    --------
    >>> stem = "h4-j6-s0.1-cc0.25-cm0.75-r0"
    >>> rows = [
    ...   {"instance": stem, "method": "milp", "ok": True,
    ...    "outputs": {"status": "optimal", "min_yield": 0.8, "avg_yield": 0.9,
    ...                "solve_seconds": 0.15}},
    ...   {"instance": stem, "method": "mcb8", "ok": True,
    ...    "outputs": {"status": "feasible", "min_yield": 0.6, "avg_yield": 0.85,
    ...                "solve_seconds": 0.002}},
    ...   {"instance": stem, "method": "gr", "ok": True,
    ...    "outputs": {"status": "infeasible", "min_yield": None, "solve_seconds": 0.001}}]
    >>> summaries = summarize(comparison_rows(rows), ["milp", "mcb8", "gr"])
    >>> [(s.method, s.failures, s.max_degradation is None) for s in summaries]
    [('milp', 0, False), ('mcb8', 0, False), ('gr', 1, True)]
    >>> round(summaries[1].avg_degradation, 6)
    25.0
    """
    by_method: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in flat:
        by_method[row["method"]].append(row)
    summaries = []
    for method in methods:
        rows = by_method.get(method, [])
        ok = [r for r in rows if not r["failed"]]
        outcomes = [r.get("outcome", "error" if r["failed"] else "solved") for r in rows]
        counts = {k: outcomes.count(k) for k in OUTCOMES}
        deg = [r["degradation"] for r in ok if r["degradation"] is not None]
        secs = [r["seconds"] for r in rows] or [0.0]
        gaps = [100.0 * r["gap"] for r in ok if r.get("gap") is not None]
        summaries.append(
            MethodSummary(
                method=method,
                instances=len(rows),
                failures=len(rows) - len(ok),
                avg_degradation=statistics.fmean(deg) if deg else None,
                max_degradation=max(deg) if deg else None,
                mean_min_yield=statistics.fmean(r["min_yield"] for r in ok) if ok else None,
                mean_avg_yield=statistics.fmean(r["avg_yield"] for r in ok) if ok else None,
                mean_seconds=statistics.fmean(secs),
                max_seconds=max(secs),
                mean_gap=statistics.fmean(gaps) if gaps else None,
                max_gap=max(gaps) if gaps else None,
                setup_seconds=sum(r.get("setup_seconds") or 0.0 for r in rows),
                solved=counts["solved"],
                infeasible=counts["infeasible"],
                no_solution=counts["no_solution"],
                errors=counts["error"],
            )
        )
    return summaries


def format_table(
    summaries: list[MethodSummary],
    paper: dict[str, tuple[float, float]] | None = None,
    *,
    legend: bool = True,
) -> str:
    """The summaries as a fixed-width text table, with a legend of the columns.

    Counts of outcomes, degradations and certified gaps in percent (2 decimals), yields
    with 4 decimals, seconds (per task, then ``setup s``: the one-time costs of the
    worker processes, summed); ``-`` where a value is missing. The method column is as
    wide as the longest name.

    Parameters
    ----------
    summaries : list of MethodSummary
        The lines, in order (from ``summarize``).
    paper : dict of str to (float, float), optional
        Method -> the paper's (average, maximum) % degradation (e.g.
        ``allockit.experiments.vcsched_table1.PAPER_TABLE1``): adds a column ``paper
        avg/max`` beside allockit's degradations (``-`` for methods it lacks).
    legend : bool, default True
        Add ``LEGEND`` (what each column means) under the table.

    Returns
    -------
    str
        A header, a rule, one line per method, then the legend.

    Examples
    --------
    >>> stem = "h4-j6-s0.1-cc0.25-cm0.75-r0"
    >>> rows = [
    ...   {"instance": stem, "method": "milp", "ok": True,
    ...    "outputs": {"status": "optimal", "min_yield": 0.8, "avg_yield": 0.9,
    ...                "solve_seconds": 0.15}},
    ...   {"instance": stem, "method": "mcb8", "ok": True,
    ...    "outputs": {"status": "feasible", "min_yield": 0.6, "avg_yield": 0.85,
    ...                "solve_seconds": 0.002}},
    ...   {"instance": stem, "method": "gr", "ok": True,
    ...    "outputs": {"status": "infeasible", "solver": "heuristic", "min_yield": None,
    ...                "solve_seconds": 0.001}}]
    >>> summaries = summarize(comparison_rows(rows), ["milp", "mcb8", "gr"])
    >>> print(format_table(summaries, legend=False))
    method   n  solved  infeas  no sol  errors  avg %deg  max %deg  min yield  avg yield  \
mean %gap  max %gap    mean s     max s   setup s
    -------------------------------------------------------------------------------------\
--------------------------------------------------
    milp     1       1       0       0       0      0.00      0.00     0.8000     0.9000  \
        -         -    0.1500     0.150     0.000
    mcb8     1       1       0       0       0     25.00     25.00     0.6000     0.8500  \
        -         -    0.0020     0.002     0.000
    gr       1       0       0       1       0         -         -          -          -  \
        -         -    0.0010     0.001     0.000
    """

    def num(v: float | None, fmt: str) -> str:
        return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, fmt)

    def theirs(method: str) -> str:
        pair = (paper or {}).get(method)
        return "-" if pair is None else f"{pair[0]:.2f} / {pair[1]:.2f}"

    pw = 17 if paper is not None else 0
    width = max([len("method"), *(len(s.method) for s in summaries)]) + 1
    nw = max([2, *(len(str(s.instances)) for s in summaries)]) + 1
    head = (
        f"{'method':<{width}}{'n':>{nw}}{'solved':>8}{'infeas':>8}{'no sol':>8}{'errors':>8}"
        f"{'avg %deg':>10}{'max %deg':>10}"
        + (f"{'paper avg/max':>{pw}}" if pw else "")
        + f"{'min yield':>11}{'avg yield':>11}"
        f"{'mean %gap':>11}{'max %gap':>10}{'mean s':>10}{'max s':>10}{'setup s':>10}"
    )
    lines = [head, "-" * len(head)]
    for s in summaries:
        lines.append(
            f"{s.method:<{width}}{s.instances:>{nw}}{s.solved:>8}{s.infeasible:>8}"
            f"{s.no_solution:>8}{s.errors:>8}"
            f"{num(s.avg_degradation, '.2f'):>10}{num(s.max_degradation, '.2f'):>10}"
            + (f"{theirs(s.method):>{pw}}" if pw else "")
            + f"{num(s.mean_min_yield, '.4f'):>11}{num(s.mean_avg_yield, '.4f'):>11}"
            f"{num(s.mean_gap, '.2f'):>11}{num(s.max_gap, '.2f'):>10}"
            f"{s.mean_seconds:>10.4f}{s.max_seconds:>10.3f}{s.setup_seconds:>10.3f}"
        )
    if legend:
        lines += ["", f"Columns. {LEGEND}" + (f"; {PAPER_LEGEND}." if pw else ".")]
    return "\n".join(lines)
