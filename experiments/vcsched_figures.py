"""VCSched figures of the large set (Figs. 15-18) and of parallel jobs (Figs. 19-22).

Stillwell et al. (2009), Sec. 4.2.3 and Sec. 5: minimum yield, average yield and failure
rate against the memory slack, and run time against the number of jobs, for MCB8, the
greedy family and RRND/RRNZ (large set) or MCB8, SG and SGB (parallel jobs), beside the
rational LP's bound. The runs are ordinary ``vcsched`` tasks
(``allockit.experiments.vcsched.vcsched_tasks``); the LP's series come from its closed
form (``allockit.evaluation.lp_bound``: the LP's minimum yield, which is also its
average yield, and it fails exactly when the total memory exceeds the hosts). This module
samples the sets, aggregates the rows into the figures' series, draws them and sets them
beside the statements of the paper's text.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from allockit.errors import InvalidInputError
from allockit.tasks import Task

__all__ = [
    "LARGE_METHODS",
    "PARALLEL_METHODS",
    "figure_series",
    "figure_tasks",
    "large_claims",
    "lp_rows",
    "parallel_claims",
    "plot_figures",
    "series_markdown",
    "set_sample",
]

#: Methods of the large-set figures (Figs. 15-18), the LP bound apart.
LARGE_METHODS = ("mcb8", "gr", "sg", "gb", "sgb", "rrnd", "rrnz")
#: Methods of the parallel-jobs figures (Figs. 19-22): the paper shows MCB8 and SG, and
#: names SGB in its text.
PARALLEL_METHODS = ("mcb8", "sg", "sgb")


def _by_total_tasks(
    *, hosts: int, total: int, slack: float, cov_cpu: float, cov_mem: float, rng
) -> Any:
    """A parallel-job instance with ``total`` tasks in all (Lublin-Feitelson job sizes)."""
    from allockit.instances.lublin_sizes import sample_sizes
    from allockit.instances.vcsched import VCInstance

    sizes: list[int] = []
    while sum(sizes) < total:
        sizes += sample_sizes(1, max_size=64, seed=rng).tolist()
    sizes[-1] -= sum(sizes) - total  # the last job keeps the tasks that fit

    def draw(mean: float, cov: float, n: int) -> np.ndarray:
        out = rng.normal(mean, cov * mean, n)
        for _ in range(10_000):
            bad = (out > 1.0) | (out <= 0.0)
            if not bad.any():
                return out
            out[bad] = rng.normal(mean, cov * mean, int(bad.sum()))
        raise InvalidInputError(f"cannot sample values in (0, 1] with mean {mean}")

    cpu = draw(0.5, cov_cpu, len(sizes))
    mem = draw(min((1.0 - slack) * hosts / total, 1.0), cov_mem, len(sizes))
    return VCInstance.from_lists(hosts=hosts, cpu=cpu, mem=mem, tasks=sizes)


def set_sample(
    name: str = "large",
    *,
    every: int = 1,
    parallel: bool = False,
    total_tasks: bool = False,
    seed: int = 0,
) -> list[tuple[str, dict[str, Any]]]:
    """Every ``every``-th instance of one of the paper's sets, as ``(stem, JSON)`` pairs.

    Instance ``k`` of ``iter_vcsched_set(name, seed=seed, parallel=parallel)`` is kept
    when ``k % every == 0``. The set lists its instances job count by job count, then
    slack, CPU and memory coefficients of variation and replicate (100 per
    specification in the large set), so a stride that is not a multiple of 4 (such as
    101 or 303) visits every slack and job count and mixes the coefficients of
    variation; a multiple of 100 keeps replicate 0 of every specification.

    Parameters
    ----------
    name : {"small", "large"}, default "large"
        The set.
    every : int, default 1
        Stride (>= 1); 1 is the whole set.
    parallel : bool, default False
        Parallel jobs (Lublin-Feitelson task counts, the paper's Sec. 5).
    total_tasks : bool, default False
        With ``parallel``: the set's job count J is the *total number of tasks* (jobs
        of Lublin-Feitelson sizes are drawn until J tasks, the last one cut to fit),
        as in the paper's large set of "100, 250 and 500 tasks"; by default
        (``iter_vcsched_set``) every one of J jobs draws a size, about 7 tasks on
        average. Stems end in ``-T`` then.
    seed : int, default 0
        Base seed of the set.

    Returns
    -------
    list of tuple (str, dict)
        Stems (``h64-j100-s0.1-cc0.25-cm0.25-r0``) and ``VCInstance.to_dict()``.

    Raises
    ------
    InvalidInputError
        If ``every < 1`` or the set name is unknown.

    Examples
    --------
    >>> items = set_sample("small", every=360)
    >>> [stem for stem, _ in items]
    ['h4-j6-s0.1-cc0.25-cm0.25-r0', 'h4-j8-s0.1-cc0.25-cm0.25-r0', \
'h4-j10-s0.1-cc0.25-cm0.25-r0', 'h4-j12-s0.1-cc0.25-cm0.25-r0']
    """
    import itertools

    from allockit.instances.generators import COVS, SETS, SLACKS, generate_vcsched

    if isinstance(every, bool) or int(every) < 1:
        raise InvalidInputError(f"every must be >= 1; got {every!r}")
    if name not in SETS:
        raise InvalidInputError(f"set must be one of {sorted(SETS)}; got {name!r}")
    if total_tasks and not parallel:
        raise InvalidInputError("total_tasks needs parallel=True")
    spec = SETS[name]
    combos = itertools.product(spec.jobs, SLACKS, COVS, COVS, range(spec.per_spec))
    out = []
    # iter_vcsched_set's enumeration and seeds, drawing only the instances kept (the
    # tests check the two agree)
    for index, (jobs, slack, cc, cm, rep) in enumerate(combos):
        if index % every:
            continue
        stem = f"h{spec.hosts}-j{jobs}-s{slack}-cc{cc}-cm{cm}-r{rep}"
        if total_tasks:
            inst = _by_total_tasks(
                hosts=spec.hosts,
                total=jobs,
                slack=slack,
                cov_cpu=cc,
                cov_mem=cm,
                rng=np.random.default_rng([seed, index]),
            )
            out.append((stem + "-T", inst.to_dict()))
            continue
        inst = generate_vcsched(
            hosts=spec.hosts,
            jobs=jobs,
            slack=slack,
            cov_cpu=cc,
            cov_mem=cm,
            parallel=parallel,
            seed=np.random.default_rng([seed, index]),
        )
        out.append((stem, inst.to_dict()))
    return out


def figure_tasks(
    items: Sequence[tuple[str, dict[str, Any]]],
    methods: Sequence[str] = LARGE_METHODS,
    *,
    time_limit: float | None = 600.0,
    tol: float = 0.01,
) -> list[Task]:
    """The ``vcsched`` tasks of a figure: every instance with every method.

    MCB8 gets the paper's search accuracy ``tol``; the other methods their defaults
    (GB/SGB: 500,000 placement attempts, as the paper; RRND/RRNZ: seed 0).

    Parameters
    ----------
    items : sequence of tuple (str, dict)
        ``(stem, instance JSON)`` pairs (``set_sample``).
    methods : sequence of str, default ``LARGE_METHODS``
        VCSched method names.
    time_limit : float, optional, default 600
        Seconds per task (the runner records an overrun as a failed row).
    tol : float, default 0.01
        MCB's search accuracy.

    Returns
    -------
    list of Task
        Method by method, instance by instance.

    Raises
    ------
    InvalidInputError
        For an unknown method name (``vcsched_tasks``).

    Examples
    --------
    >>> items = set_sample("small", every=720)
    >>> tasks = figure_tasks(items, ["mcb8", "sg"])
    >>> [(t.instance_id[:9], t.method, t.params) for t in tasks]  # doctest: +NORMALIZE_WHITESPACE
    [('h4-j6-s0.', 'mcb8', {'tol': 0.01}), ('h4-j10-s0', 'mcb8', {'tol': 0.01}),
     ('h4-j6-s0.', 'sg', {}), ('h4-j10-s0', 'sg', {})]
    """
    from allockit.experiments.vcsched import vcsched_tasks

    tasks: list[Task] = []
    for method in methods:
        params = {"tol": [tol]} if method.startswith("mcb") else {}
        tasks += vcsched_tasks(
            list(items), methods=[method], params=params, seeds=[0], time_limit=time_limit
        )
    return tasks


def lp_rows(items: Sequence[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Flat comparison rows of the rational LP's bound, one per instance (method ``lp``).

    The relaxation's optimum in closed form (``evaluation.lp_bound.lp_bound``): its
    minimum yield is also its average yield (every host is saturated at the bound, or
    every job has yield 1), and it is infeasible exactly when the total memory exceeds
    the hosts. No run time (the bound is not run).

    Parameters
    ----------
    items : sequence of tuple (str, dict)
        ``(stem, instance JSON)`` pairs with the paper's stems.

    Returns
    -------
    list of dict
        Rows shaped like ``experiments.compare.comparison_rows``'s: ``instance``,
        ``method`` ("lp"), ``min_yield``, ``avg_yield``, ``failed``, ``seconds`` (None)
        and ``hosts``, ``jobs``, ``slack``, ``cov_cpu``, ``cov_mem``.

    Examples
    --------
    >>> row = lp_rows(set_sample("small", every=1440))[0]
    >>> row["method"], row["slack"], row["failed"], row["min_yield"] == row["avg_yield"]
    ('lp', 0.1, False, True)
    """
    from allockit.evaluation.lp_bound import lp_bound
    from allockit.experiments.compare import comparison_rows
    from allockit.instances.vcsched import VCInstance

    out = []
    for stem, data in items:
        y = lp_bound(VCInstance.from_dict(data))
        row = {
            "instance": stem,
            "method": "lp",
            "ok": True,
            "outputs": {"status": "optimal" if y is not None else "infeasible", "min_yield": y},
        }
        flat = comparison_rows([row])[0]
        flat.update(min_yield=y, avg_yield=y, failed=y is None, seconds=None, degradation=None)
        out.append(flat)
    return out


def figure_series(
    flat: Sequence[dict[str, Any]], methods: Sequence[str]
) -> dict[str, dict[str, list[tuple[float, float | None]]]]:
    """The four figures' series: per method, points ``(x, mean)``.

    Parameters
    ----------
    flat : sequence of dict
        ``comparison_rows`` rows (with ``slack`` and ``jobs``), plus ``lp_rows``.
    methods : sequence of str
        Methods to keep, in order (``"lp"`` included if wanted).

    Returns
    -------
    dict
        ``"min_yield"`` and ``"avg_yield"`` (means over the instances the method
        solved, against the slack; None where it solved none), ``"failures"`` (percent
        of instances, against the slack), ``"seconds"`` (mean run time against the job
        count; methods without times left out), and ``"count"`` (instances per slack):
        each method -> sorted list of points.

    Examples
    --------
    >>> flat = [{"method": "mcb8", "slack": 0.1, "jobs": 6, "failed": False,
    ...          "min_yield": 0.8, "avg_yield": 0.9, "seconds": 0.001},
    ...         {"method": "mcb8", "slack": 0.1, "jobs": 6, "failed": True,
    ...          "min_yield": None, "avg_yield": None, "seconds": 0.003}]
    >>> s = figure_series(flat, ["mcb8"])
    >>> s["min_yield"]["mcb8"], s["failures"]["mcb8"], s["seconds"]["mcb8"]
    ([(0.1, 0.8)], [(0.1, 50.0)], [(6, 0.002)])
    """
    by: dict[str, dict[str, dict[float, list[Any]]]] = {
        k: defaultdict(lambda: defaultdict(list))
        for k in ("min_yield", "avg_yield", "failures", "seconds")
    }
    for row in flat:
        m = row["method"]
        if m not in methods or "slack" not in row:
            continue
        by["failures"][m][row["slack"]].append(100.0 if row["failed"] else 0.0)
        if not row["failed"]:
            by["min_yield"][m][row["slack"]].append(row["min_yield"])
            by["avg_yield"][m][row["slack"]].append(row["avg_yield"])
        if row.get("seconds") is not None:
            by["seconds"][m][row["jobs"]].append(row["seconds"])
    slacks = sorted({x for per in by["failures"].values() for x in per})
    out: dict[str, dict[str, list[tuple[float, float | None]]]] = {}
    for key in ("min_yield", "avg_yield", "failures"):
        out[key] = {
            m: [
                (x, statistics.fmean(by[key][m][x]) if by[key][m][x] else None)
                for x in slacks
                if by["failures"][m][x]
            ]
            for m in methods
            if m in by["failures"]
        }
    out["seconds"] = {
        m: sorted((x, statistics.fmean(v)) for x, v in by["seconds"][m].items())
        for m in methods
        if by["seconds"].get(m)
    }
    first = next(iter(by["failures"].values()), {})
    out["count"] = {"instances": [(x, float(len(first.get(x, [])))) for x in slacks]}
    return out


def plot_figures(
    series: dict[str, dict[str, list[tuple[float, float | None]]]],
    path: str | Path,
    *,
    title: str = "",
) -> Path:
    """One PNG with the four panels: min yield, average yield, failures vs slack; time vs J.

    Parameters
    ----------
    series : dict
        From ``figure_series``.
    path : str or Path
        The PNG to write (its folder is created).
    title : str, default ""
        Figure title (the sample it shows, say).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    SolverUnavailableError
        If matplotlib is not installed (``pip install 'allockit[plot]'``).

    Examples
    --------
    >>> import tempfile, os
    >>> s = figure_series([{"method": "mcb8", "slack": 0.1, "jobs": 6, "failed": False,
    ...                     "min_yield": 0.8, "avg_yield": 0.9, "seconds": 0.001}], ["mcb8"])
    >>> plot_figures(s, os.path.join(tempfile.mkdtemp(), "f.png")).name
    'f.png'
    """
    from allockit.experiments.plots import _pyplot

    plt = _pyplot()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    methods = list(
        dict.fromkeys(m for key in ("min_yield", "seconds") for m in series.get(key, {}))
    )
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    color = {m: palette[k % len(palette)] for k, m in enumerate(methods)}
    panels = (
        ("min_yield", "memory slack", "mean minimum yield (solved instances)", False),
        ("avg_yield", "memory slack", "mean average yield (solved instances)", False),
        ("failures", "memory slack", "failure rate (%)", False),
        ("seconds", "jobs (J)", "mean run time (s)", True),
    )
    for ax, (key, xlabel, ylabel, log) in zip(axes.flat, panels, strict=True):
        for method, points in series.get(key, {}).items():
            pts = [(x, y) for x, y in points if y is not None]
            if not pts:
                continue
            xs, ys = zip(*pts, strict=True)
            style = "--" if method == "lp" else "-"
            label = "LP bound" if method == "lp" else method.upper()
            ax.plot(xs, ys, style, marker="o", markersize=3, label=label, color=color.get(method))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if log:
            ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    from allockit.experiments.plots import save_figure

    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return path


def _fmt(value: float | None, fmt: str) -> str:
    return "–" if value is None else format(value, fmt)


def series_markdown(series: dict[str, dict[str, list[tuple[float, float | None]]]]) -> str:
    """The series as markdown tables (one per figure, methods as rows).

    Parameters
    ----------
    series : dict
        From ``figure_series``.

    Returns
    -------
    str
        Tables for the minimum yield, average yield and failure rate against the slack,
        and the run time (ms) against the job count.

    Examples
    --------
    >>> s = figure_series([{"method": "mcb8", "slack": 0.1, "jobs": 6, "failed": False,
    ...                     "min_yield": 0.8, "avg_yield": 0.9, "seconds": 0.001}], ["mcb8"])
    >>> print(series_markdown(s).splitlines()[3])
    | MCB8 | 0.800 |
    """
    out = []
    titles = {
        "min_yield": ("Mean minimum yield (instances solved) against the slack", ".3f"),
        "avg_yield": ("Mean average yield (instances solved) against the slack", ".3f"),
        "failures": ("Failure rate (%) against the slack", ".1f"),
        "seconds": ("Mean run time (ms) against the number of jobs J", ".2f"),
    }
    for key, (title, fmt) in titles.items():
        data = series.get(key, {})
        if not data:
            continue
        xs = sorted({x for pts in data.values() for x, _ in pts})
        head = "J" if key == "seconds" else "slack"
        out.append(f"{title}:")
        out.append(f"| method \\ {head} | " + " | ".join(f"{x:g}" for x in xs) + " |")
        out.append("|---|" + "---:|" * len(xs))
        for method, pts in data.items():
            values = dict(pts)
            scale = 1000.0 if key == "seconds" else 1.0
            cells = [_fmt(None if values.get(x) is None else scale * values[x], fmt) for x in xs]
            name = "LP bound" if method == "lp" else method.upper()
            out.append(f"| {name} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _at(series, key, method, x):
    return dict(series.get(key, {}).get(method, [])).get(x)


def _gap(series, method, x):
    """1 - method / LP of the mean minimum yields at slack x, in percent."""
    y, lp = _at(series, "min_yield", method, x), _at(series, "min_yield", "lp", x)
    return None if y is None or not lp else 100.0 * (1.0 - y / lp)


def _mean(values):
    values = [v for v in values if v is not None]
    return statistics.fmean(values) if values else None


def _overall(series, key, method):
    return _mean(y for _, y in series.get(key, {}).get(method, []))


def _claims_markdown(rows: list[tuple[str, str, str]]) -> str:
    lines = ["| claim (paper) | paper | ours |", "|---|---|---|"]
    lines += [f"| {c} | {p} | {o} |" for c, p, o in rows]
    return "\n".join(lines) + "\n"


def large_claims(series: dict[str, dict[str, list[tuple[float, float | None]]]]) -> str:
    """The statements of the paper's Sec. 4.2.3 (Figs. 15-18), checked on the series.

    Parameters
    ----------
    series : dict
        From ``figure_series`` with ``lp`` and ``LARGE_METHODS``.

    Returns
    -------
    str
        A markdown table: claim, the paper's figure, ours. Gaps to the LP are
        ``1 - mean(method) / mean(LP)`` of the mean minimum yields at a slack; overall
        failure rates are means over the slacks.

    Examples
    --------
    >>> s = figure_series([{"method": m, "slack": x, "jobs": 100, "failed": False,
    ...                     "min_yield": 0.5, "avg_yield": 0.6, "seconds": 0.01}
    ...                    for m in ("lp",) + LARGE_METHODS for x in (0.1, 0.5)],
    ...                   ("lp",) + LARGE_METHODS)
    >>> large_claims(s).splitlines()[2]
    '| MCB8 below the LP bound at slack 0.1 | 37 % | 0.0 % |'
    """
    slacks = [x for x, _ in series.get("failures", {}).get("lp", [])]
    high = [x for x in slacks if x >= 0.3 - 1e-9]
    above_02 = [x for x in slacks if x > 0.2 + 1e-9]
    low = [x for x in slacks if x < 0.4 - 1e-9]
    rows = []
    for x, paper in ((0.1, "37 %"), (0.2, "8 %")):
        rows.append((f"MCB8 below the LP bound at slack {x}", paper, _pct(_gap(series, "mcb8", x))))
    gaps = [_gap(series, "mcb8", x) for x in high]
    rows.append(
        (
            'MCB8 "extremely close" to the LP bound for slack >= 0.3 (largest gap)',
            "extremely close",
            _pct(max((g for g in gaps if g is not None), default=None)),
        )
    )
    for m in ("gr", "sg", "gb", "sgb"):
        rows.append(
            (
                f"{m.upper()} below the LP bound, mean over slack > 0.2",
                "about 20 %",
                _pct(_mean(_gap(series, m, x) for x in above_02)),
            )
        )
    diffs = [
        abs(a - b)
        for x in slacks
        if (a := _at(series, "min_yield", "gr", x)) is not None
        and (b := _at(series, "min_yield", "gb", x)) is not None
    ]
    rows.append(
        (
            "GR and GB nearly identical (largest difference of mean minimum yields)",
            "nearly identical",
            _fmt(max(diffs, default=None), ".3f"),
        )
    )
    rr = [_at(series, "min_yield", "rrnz", x) for x in slacks]
    rows.append(
        (
            "RRNZ's minimum yield drops as the slack increases (lowest slack -> highest)",
            "drops",
            " -> ".join(_fmt(v, ".3f") for v in (rr[0], rr[-1])) if rr else "–",
        )
    )
    rows.append(
        (
            "RRND solves no instance for slack < 0.4 (failure rate there)",
            "100 %",
            ", ".join(_pct(_at(series, "failures", "rrnd", x), ".0f") for x in low),
        )
    )
    for m in ("gr", "sg", "gb", "sgb"):
        rows.append(
            (
                f"{m.upper()} average yield above MCB8's (mean over slacks)",
                "greedy higher",
                f"{_fmt(_overall(series, 'avg_yield', m), '.3f')} vs "
                f"{_fmt(_overall(series, 'avg_yield', 'mcb8'), '.3f')}",
            )
        )
    rates = {m: _overall(series, "failures", m) for m in LARGE_METHODS}
    low_set = [rates[m] for m in ("sg", "sgb", "mcb8") if rates.get(m) is not None]
    rest = [rates[m] for m in ("gr", "gb", "rrnz") if rates.get(m) is not None]
    rows.append(
        (
            "SG, SGB, MCB8 fail least: mean rate vs GR, GB, RRNZ",
            "about 40 % lower",
            f"{_fmt(_mean(low_set), '.1f')} % vs {_fmt(_mean(rest), '.1f')} %",
        )
    )
    ratio = (
        rates["rrnd"] / _mean(low_set)
        if rates.get("rrnd") is not None and low_set and _mean(low_set)
        else None
    )
    rows.append(("RRND fails more than SG/SGB/MCB8 by", "> 14x", _fmt(ratio, ".1f") + "x"))
    above_03 = [x for x in slacks if x > 0.3 + 1e-9]
    late = {m: _mean(_at(series, "failures", m, x) for x in above_03) for m in LARGE_METHODS}
    rows.append(
        (
            "RRND the only method with many failures at slack > 0.3 (mean rates there)",
            "only RRND",
            "; ".join(f"{m.upper()} {_pct(v)}" for m, v in late.items()),
        )
    )
    secs = series.get("seconds", {})
    big = max((x for pts in secs.values() for x, _ in pts), default=None)
    for m, paper in (
        ("rrnd", "~650 s (GLPK)"),
        ("rrnz", "~650 s (GLPK)"),
        ("mcb8", "~0.5 s"),
        ("gr", "15-20 ms"),
        ("sg", "15-20 ms"),
    ):
        t = dict(secs.get(m, [])).get(big)
        rows.append((f"{m.upper()} mean run time at J = {big}", paper, _secs(t)))
    small = min((x for pts in secs.values() for x, _ in pts), default=None)
    for m in ("gb", "sgb"):
        ts = dict(secs.get(m, []))
        rows.append(
            (
                f"{m.upper()} slower at small J (J = {small} vs J = {big})",
                "more time at small J",
                f"{_secs(ts.get(small))} vs {_secs(ts.get(big))}",
            )
        )
    return _claims_markdown(rows)


def _pct(value: float | None, fmt: str = ".1f") -> str:
    return "–" if value is None else f"{value:{fmt}} %"


def _secs(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.2f} s" if value >= 1 else f"{1000 * value:.2f} ms"


def parallel_claims(series: dict[str, dict[str, list[tuple[float, float | None]]]]) -> str:
    """The statements of the paper's Sec. 5 (Figs. 19-22), checked on the series.

    Parameters
    ----------
    series : dict
        From ``figure_series`` with ``lp`` and ``PARALLEL_METHODS``.

    Returns
    -------
    str
        A markdown table: claim, the paper's figure, ours.

    Examples
    --------
    >>> s = figure_series([{"method": m, "slack": x, "jobs": 500, "failed": False,
    ...                     "min_yield": 0.5, "avg_yield": 0.6, "seconds": 0.01}
    ...                    for m in ("lp",) + PARALLEL_METHODS for x in (0.1, 0.5)],
    ...                   ("lp",) + PARALLEL_METHODS)
    >>> parallel_claims(s).splitlines()[-1]
    '| MCB8 mean run time at J = 500 | under 0.5 s | 10.00 ms |'
    """
    slacks = [x for x, _ in series.get("failures", {}).get("lp", [])]
    rows = [
        (
            f"MCB8 below the LP bound at slack {x:g}",
            "close for larger slacks",
            _pct(_gap(series, "mcb8", x)),
        )
        for x in slacks
    ]
    for m in ("sg", "sgb"):
        rows.append(
            (
                f"MCB8 minimum yield above {m.upper()}'s (mean over slacks)",
                "significantly",
                f"{_fmt(_overall(series, 'min_yield', 'mcb8'), '.3f')} vs "
                f"{_fmt(_overall(series, 'min_yield', m), '.3f')}",
            )
        )
        rows.append(
            (
                f"{m.upper()} average yield above MCB8's (mean over slacks)",
                "greedy higher",
                f"{_fmt(_overall(series, 'avg_yield', m), '.3f')} vs "
                f"{_fmt(_overall(series, 'avg_yield', 'mcb8'), '.3f')}",
            )
        )
    rows.append(
        (
            "Failure rates of MCB8 and SG (mean over slacks)",
            "identical",
            f"{_pct(_overall(series, 'failures', 'mcb8'))} vs "
            f"{_pct(_overall(series, 'failures', 'sg'))}",
        )
    )
    secs = series.get("seconds", {})
    big = max((x for pts in secs.values() for x, _ in pts), default=None)
    t_mcb, t_sg = dict(secs.get("mcb8", [])).get(big), dict(secs.get("sg", [])).get(big)
    rows.append(
        (
            f"SG faster than MCB8 at J = {big}",
            "about 32x",
            _fmt(t_mcb / t_sg if t_mcb and t_sg else None, ".1f") + "x",
        )
    )
    rows.append((f"MCB8 mean run time at J = {big}", "under 0.5 s", _secs(t_mcb)))
    return _claims_markdown(rows)
