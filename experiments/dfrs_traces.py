"""The DFRS experiments' traces: synthetic sets, the HPC2N weeks, and where the trace lies.

``TraceSets`` says which traces an experiment uses, ``trace_sets`` builds it from the
command line's options, ``resolve_hpc2n`` finds the HPC2N trace (``--hpc2n``, then
``$ALLOCKIT_HPC2N``, then the data directory's ``hpc2n``), and ``build_workload``
turns one trace spec into a ``Workload`` (cached per process: a worker builds each
trace once).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from allockit.checks import integer
from allockit.errors import InvalidInputError
from allockit.tasks import json_data

__all__ = [
    "TraceSets",
    "build_workload",
    "hpc2n_week_count",
    "resolve_hpc2n",
    "trace_sets",
]


@dataclass(frozen=True, slots=True)
class TraceSets:
    """Which traces an experiment uses.

    ``seeds`` x ``loads`` scaled synthetic traces, the ``seeds`` traces unscaled (when
    ``unscaled``), and the HPC2N ``weeks`` (indices into the 181 non-empty weeks of the
    trace at ``hpc2n``). The paper: 100 seeds, loads 0.1-0.9, all weeks, 1,000 jobs on
    128 nodes.

    Attributes
    ----------
    seeds : tuple of int
        Seeds of the synthetic traces (>= 0).
    loads : tuple of float
        Offered loads of the scaled traces (> 0).
    weeks : tuple of int
        HPC2N week indices (>= 0), used only when ``hpc2n`` is set.
    jobs : int
        Jobs per synthetic trace (>= 1).
    nodes : int
        Quad-core nodes of the synthetic platform (>= 1).
    unscaled : bool
        Also use the synthetic traces with their own arrival times.
    hpc2n : str or None
        Path of the HPC2N SWF trace; None skips the real traces.

    Raises
    ------
    InvalidInputError
        For negative or non-integer seeds or weeks, loads that are not finite and > 0,
        or ``jobs``/``nodes`` < 1.

    Examples
    --------
    >>> sets = TraceSets(seeds=(0,), loads=(0.5,), weeks=(), jobs=30, nodes=8,
    ...                  unscaled=False)
    >>> sets.specs(["scaled", "unscaled", "real"])
    [('lublin-s0-l0.5', {'set': 'scaled', 'seed': 0, 'load': 0.5, 'jobs': 30, 'nodes': 8})]
    >>> len(TraceSets().specs(["scaled", "unscaled"]))   # the paper's 100 x 9 + 100
    1000
    """

    seeds: tuple[int, ...] = tuple(range(100))
    loads: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
    weeks: tuple[int, ...] = tuple(range(181))
    jobs: int = 1000
    nodes: int = 128
    unscaled: bool = True
    hpc2n: str | None = None

    def __post_init__(self) -> None:
        for name in ("seeds", "weeks"):
            values = tuple(getattr(self, name))
            if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in values):
                raise InvalidInputError(f"TraceSets.{name} must be integers >= 0; got {values}")
            object.__setattr__(self, name, values)
        loads = tuple(float(x) for x in self.loads)
        if any(not (x > 0 and math.isfinite(x)) for x in loads):
            raise InvalidInputError(f"TraceSets.loads must be > 0; got {loads}")
        object.__setattr__(self, "loads", loads)
        for name in ("jobs", "nodes"):
            if getattr(self, name) < 1:
                raise InvalidInputError(f"TraceSets.{name} must be >= 1; got {getattr(self, name)}")

    @classmethod
    def quick(cls, hpc2n: str | None = None) -> TraceSets:
        """2 seeds x 5 loads, 2 unscaled traces and 3 HPC2N weeks (minutes on 2 cores)."""
        return cls(
            seeds=(0, 1),
            loads=(0.1, 0.3, 0.5, 0.7, 0.9),
            weeks=(10, 120, 160) if hpc2n else (),
            hpc2n=hpc2n,
        )

    def specs(self, sets: Iterable[str]) -> list[tuple[str, dict[str, Any]]]:
        """(instance id, workload spec) of every trace of the named sets."""
        wanted = set(sets)
        out: list[tuple[str, dict[str, Any]]] = []
        base = {"jobs": self.jobs, "nodes": self.nodes}
        if "real" in wanted and self.hpc2n:
            for week in self.weeks:
                out.append(
                    (f"hpc2n-w{week:03d}", {"set": "real", "path": self.hpc2n, "week": week})
                )
        if "unscaled" in wanted and self.unscaled:
            for seed in self.seeds:
                out.append((f"lublin-s{seed}", {"set": "unscaled", "seed": seed, **base}))
        if "scaled" in wanted:
            for seed in self.seeds:
                for load in self.loads:
                    spec = {"set": "scaled", "seed": seed, "load": load, **base}
                    out.append((f"lublin-s{seed}-l{load:g}", spec))
        return out


def resolve_hpc2n(path: str | None) -> str | None:
    """The HPC2N trace to use: ``path``, else ``$ALLOCKIT_HPC2N``, else the data directory's.

    ``path`` (and ``$ALLOCKIT_HPC2N``) may be a file or the trace name ``hpc2n``
    (``allockit.instances.datasets.trace_path``). Returns None when none is given and
    the data directory has no ``hpc2n`` trace (the real-world column cannot run).

    Parameters
    ----------
    path : str or None
        An explicit path or trace name (the ``--hpc2n`` option), or None.

    Returns
    -------
    str or None
        The chosen path (the data directory's made absolute), or None.

    Raises
    ------
    InvalidInputError
        If an explicitly given path (or ``$ALLOCKIT_HPC2N``) does not exist, or names a
        trace missing from the data directory (the message says how to get it).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> trace = pathlib.Path(tempfile.mkdtemp(), "hpc2n.swf")
    >>> _ = trace.write_text("1 0 0 60 2 -1 -1 2 100 -1 1 1 -1 -1 1 -1 -1 -1\\n")
    >>> resolve_hpc2n(str(trace)) == str(trace)
    True
    >>> resolve_hpc2n("/nonexistent/hpc2n.swf")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --hpc2n: no such file '/nonexistent/hpc2n.swf'
    """
    import os

    from allockit.instances.datasets import trace_location, trace_path

    chosen = path or os.environ.get("ALLOCKIT_HPC2N")
    if chosen is None:
        default = trace_location("hpc2n")
        return str(default) if default.is_file() else None
    chosen = trace_path(chosen)
    if not os.path.exists(chosen):
        raise InvalidInputError(f"--hpc2n: no such file {chosen!r}")
    return chosen


def trace_sets(
    *,
    quick: bool = False,
    hpc2n: str | None = None,
    seeds: int | None = None,
    loads: tuple[float, ...] | None = None,
    weeks: tuple[int, ...] | None = None,
    jobs: int | None = None,
    nodes: int | None = None,
) -> TraceSets:
    """The trace sets of an experiment run: the paper's (or ``quick``) with overrides.

    ``seeds`` is a count (seeds 0 .. seeds-1). Week indices are checked against the
    trace's number of weeks.

    Parameters
    ----------
    quick : bool, default False
        Start from ``TraceSets.quick`` (2 seeds, 5 loads, 3 weeks) instead of the
        paper's sets.
    hpc2n : str, optional
        Path of the HPC2N trace (None: no real traces).
    seeds : int, optional
        Number of synthetic traces per load (>= 1).
    loads : tuple of float, optional
        Offered loads of the scaled traces.
    weeks : tuple of int, optional
        HPC2N week indices (into the trace's non-empty weeks).
    jobs, nodes : int, optional
        Jobs per synthetic trace and nodes of the synthetic platform.

    Returns
    -------
    TraceSets
        The sets to pass to ``experiment_tasks``.

    Raises
    ------
    InvalidInputError
        For a week index outside the trace, or invalid counts or loads.

    Examples
    --------
    >>> s = trace_sets(quick=True, seeds=1, loads=(0.5,))
    >>> s.seeds, s.loads, s.weeks
    ((0,), (0.5,), ())
    """
    import dataclasses

    sets = TraceSets.quick(hpc2n) if quick else TraceSets(hpc2n=hpc2n)
    changes: dict[str, Any] = {}
    if seeds is not None:
        changes["seeds"] = tuple(range(integer("seeds", seeds, minimum=1, maximum=10**6)))
    if loads is not None:
        changes["loads"] = loads
    if weeks is not None:
        changes["weeks"] = weeks
    if jobs is not None:
        changes["jobs"] = jobs
    if nodes is not None:
        changes["nodes"] = nodes
    sets = dataclasses.replace(sets, **changes)
    if weeks is not None and hpc2n is not None:
        count = hpc2n_week_count(hpc2n)
        bad = [w for w in sets.weeks if not 0 <= w < count]
        if bad:
            raise InvalidInputError(f"--weeks: {bad[0]} is not in [0, {count}) for {hpc2n}")
    return sets


@functools.lru_cache(maxsize=2)
def _hpc2n_weeks(path: str) -> list[Any]:
    from allockit.instances.hpc2n import hpc2n_workload, split_weeks
    from allockit.instances.swf import read_swf

    return split_weeks(hpc2n_workload(read_swf(path)))


def hpc2n_week_count(path: str) -> int:
    """How many non-empty weeks the HPC2N trace at ``path`` has (181 for the real one).

    The trace is read, converted (``hpc2n_workload``) and split (``split_weeks``) once
    per process and path (cached).

    Parameters
    ----------
    path : str
        An SWF file in the HPC2N format (plain or gzip).

    Returns
    -------
    int
        The number of non-empty one-week segments, the valid week indices' bound.

    Examples
    --------
    A three-job trace whose jobs fall in weeks 0, 1 and 3 (week 2 is empty):

    >>> import pathlib, tempfile
    >>> trace = pathlib.Path(tempfile.mkdtemp(), "tiny.swf")
    >>> _ = trace.write_text(
    ...     "1 0 0 60 2 -1 -1 2 100 -1 1 1 -1 -1 1 -1 -1 -1\\n"
    ...     "2 700000 0 60 2 -1 -1 2 100 -1 1 1 -1 -1 1 -1 -1 -1\\n"
    ...     "3 2000000 0 60 2 -1 -1 2 100 -1 1 1 -1 -1 1 -1 -1 -1\\n")
    >>> hpc2n_week_count(str(trace))
    3
    """
    return len(_hpc2n_weeks(path))


@functools.lru_cache(maxsize=8)
def _build(spec_json: str) -> Any:
    from allockit.instances.lublin import dfrs_synthetic

    spec = json.loads(spec_json)
    kind = spec.get("set")
    if kind == "real":
        weeks = _hpc2n_weeks(spec["path"])
        week = int(spec["week"])
        if not 0 <= week < len(weeks):
            raise InvalidInputError(f"week must be in [0, {len(weeks)}); got {week}")
        return weeks[week]
    if kind in ("scaled", "unscaled"):
        load = spec.get("load") if kind == "scaled" else None
        return dfrs_synthetic(
            int(spec["jobs"]), nodes=int(spec["nodes"]), load=load, seed=int(spec["seed"])
        )
    if kind == "file":
        from allockit.instances.workload_files import read_workload

        return read_workload(spec["path"], nodes=spec.get("nodes"), cores=spec.get("cores"))
    raise InvalidInputError(
        f"trace spec 'set' must be real, scaled, unscaled or file; got {kind!r}"
    )


def build_workload(spec: dict[str, Any]) -> Any:
    """The workload a trace spec describes (cached per process).

    Parameters
    ----------
    spec : dict
        A trace spec from ``TraceSets.specs``: ``{"set": "scaled", "seed", "load",
        "jobs", "nodes"}``, ``{"set": "unscaled", "seed", "jobs", "nodes"}`` or
        ``{"set": "real", "path", "week"}``; or an SWF file, ``{"set": "file", "path"}``
        (optional ``nodes`` and ``cores`` override its platform).

    Returns
    -------
    Workload
        ``dfrs_synthetic(jobs, nodes=nodes, load=load, seed=seed)`` for a synthetic
        trace, or the HPC2N week (times shifted to start at the week's beginning).

    Raises
    ------
    InvalidInputError
        For an unknown ``set``, a week index outside the trace, or a file that cannot be
        read.

    Examples
    --------
    >>> w = build_workload({"set": "scaled", "seed": 0, "load": 0.5, "jobs": 30, "nodes": 8})
    >>> w.n_jobs, w.platform.nodes, round(w.offered_load(), 6)
    (30, 8, 0.5)
    """
    return _build(json.dumps(json_data("spec", spec), sort_keys=True))  # (numpy values too)
