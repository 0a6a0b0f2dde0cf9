"""The results store of a sweep: one SQLite file (WAL mode), one row per task."""

from __future__ import annotations

import json
import socket
import sqlite3
import time
from pathlib import Path
from typing import Any

from allockit.errors import InvalidInputError, SolverUnavailableError

__all__ = ["ResultStore", "flat_rows", "read_dataframe", "read_rows"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY,
    sweep TEXT NOT NULL,
    kind TEXT NOT NULL,
    instance TEXT NOT NULL,
    method TEXT NOT NULL,
    params TEXT NOT NULL,
    seed INTEGER,
    ok INTEGER NOT NULL,
    status TEXT,
    outputs TEXT NOT NULL,
    error TEXT,
    wall_seconds REAL NOT NULL,
    finished_at REAL NOT NULL,
    host TEXT NOT NULL,
    allockit_version TEXT NOT NULL,
    solver_versions TEXT NOT NULL
)
"""

_COLUMNS = (
    "key",
    "sweep",
    "kind",
    "instance",
    "method",
    "params",
    "seed",
    "ok",
    "status",
    "outputs",
    "error",
    "wall_seconds",
    "finished_at",
    "host",
    "allockit_version",
    "solver_versions",
)


class ResultStore:
    """Append-only store of task results; each row is committed as soon as it is written.

    Rows survive a killed process (SQLite's write-ahead log): an interrupted sweep loses
    only the tasks that were in flight. ``keys()`` tells a resumed sweep what is done.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "r.db")
    >>> with ResultStore(path) as store:
    ...     store.write({"key": "k1", "sweep": "s", "kind": "demo", "instance": "i",
    ...                  "method": "m", "params": {}, "seed": None, "ok": True,
    ...                  "status": "optimal", "outputs": {"x": 1}, "error": None,
    ...                  "wall_seconds": 0.1})
    ...     sorted(store.keys())
    ['k1']
    >>> read_rows(path)[0]["outputs"]
    {'x': 1}
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, timeout=30.0)
        except sqlite3.Error as exc:
            raise InvalidInputError(
                f"cannot open results store {str(self.path)!r}: {exc}"
            ) from None
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)
        self._db.commit()
        from allockit.solver import solver_versions
        from allockit.version import __version__

        self._version = __version__
        self._solvers = json.dumps(solver_versions(), sort_keys=True)
        self._host = socket.gethostname()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def keys(self, *, ok_only: bool = False) -> set[str]:
        """Keys of the tasks already recorded (only the successful ones with ``ok_only``)."""
        query = "SELECT key FROM results" + (" WHERE ok = 1" if ok_only else "")
        return {row[0] for row in self._db.execute(query)}

    def write(self, row: dict[str, Any]) -> None:
        """Insert or replace one task's row and commit it."""
        record = {
            **row,
            "params": json.dumps(row.get("params", {}), sort_keys=True),
            "outputs": json.dumps(row.get("outputs", {}), sort_keys=True, default=float),
            "ok": int(bool(row.get("ok"))),
            "finished_at": row.get("finished_at", time.time()),
            "host": row.get("host", self._host),
            "allockit_version": self._version,
            "solver_versions": row.get("solver_versions", self._solvers),
        }
        values = [record.get(col) for col in _COLUMNS]
        self._db.execute(
            f"INSERT OR REPLACE INTO results ({', '.join(_COLUMNS)}) "
            f"VALUES ({', '.join('?' * len(_COLUMNS))})",
            values,
        )
        self._db.commit()


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """All rows of a results store as dicts, ``params`` and ``outputs`` decoded.

    Parameters
    ----------
    path : str or Path
        The SQLite file written by ``ResultStore`` (``run_sweep``'s ``store``).

    Returns
    -------
    list of dict
        One dict per task, sorted by key, with the store's columns (``key``, ``sweep``,
        ``kind``, ``instance``, ``method``, ``params``, ``seed``, ``ok``, ``status``,
        ``outputs``, ``error``, ``wall_seconds``, ``finished_at``, ``host``,
        ``allockit_version``, ``solver_versions``) plus ``seconds`` (= ``wall_seconds``);
        ``params``, ``outputs`` and ``solver_versions`` are dicts, ``ok`` a bool.

    Raises
    ------
    InvalidInputError
        If the file does not exist or is not a results store.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "r.db")
    >>> with ResultStore(path) as store:
    ...     store.write({"key": "k1", "sweep": "s", "kind": "demo", "instance": "i",
    ...                  "method": "m", "params": {"tol": 0.1}, "seed": 0, "ok": True,
    ...                  "status": "optimal", "outputs": {"min_yield": 0.8},
    ...                  "error": None, "wall_seconds": 0.5})
    >>> [row] = read_rows(path)
    >>> row["params"], row["outputs"], row["ok"], row["seconds"]
    ({'tol': 0.1}, {'min_yield': 0.8}, True, 0.5)
    >>> read_rows(os.path.join(tempfile.mkdtemp(), "missing.db"))
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: results store '...missing.db' does not exist
    """
    path = Path(path)
    if not path.exists():
        raise InvalidInputError(f"results store {str(path)!r} does not exist")
    try:
        db = sqlite3.connect(path)
        try:
            cursor = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM results ORDER BY key")
            rows = [dict(zip(_COLUMNS, values, strict=True)) for values in cursor]
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise InvalidInputError(f"{str(path)!r} is not an allockit results store: {exc}") from None
    for row in rows:
        row["params"] = json.loads(row["params"])
        row["outputs"] = json.loads(row["outputs"])
        row["solver_versions"] = json.loads(row["solver_versions"])
        row["ok"] = bool(row["ok"])
        row["seconds"] = row["wall_seconds"]
    return rows


def flat_rows(path: str | Path) -> list[dict[str, Any]]:
    """Rows with ``params.*`` and ``outputs`` keys flattened into columns (for export).

    Each parameter becomes a column ``param_<name>``; each output becomes a column of
    its own name (``out_<name>`` if that clashes with a store column holding another
    value; an output equal to its column, such as ``status``, is dropped). Lists and
    dicts are JSON-encoded, so every value fits a CSV cell.

    Parameters
    ----------
    path : str or Path
        The results store.

    Returns
    -------
    list of dict
        One flat dict per task, sorted by key.

    Raises
    ------
    InvalidInputError
        If the file does not exist or is not a results store (from ``read_rows``).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "r.db")
    >>> with ResultStore(path) as store:
    ...     store.write({"key": "k1", "sweep": "s", "kind": "demo", "instance": "i",
    ...                  "method": "m", "params": {"tol": 0.1}, "seed": 0, "ok": True,
    ...                  "status": "optimal", "outputs": {"status": "optimal",
    ...                  "hosts": [0, 1]}, "error": None, "wall_seconds": 0.5})
    >>> [row] = flat_rows(path)
    >>> row["param_tol"], row["status"], row["hosts"]
    (0.1, 'optimal', '[0, 1]')
    """
    out = []
    for row in read_rows(path):
        flat = {k: v for k, v in row.items() if k not in ("params", "outputs", "solver_versions")}
        flat["solver_versions"] = json.dumps(row["solver_versions"], sort_keys=True)
        for k, v in row["params"].items():
            flat[f"param_{k}"] = v
        for k, v in row["outputs"].items():
            if k in flat and flat[k] == v:
                continue  # e.g. status, already a column
            flat[k if k not in flat else f"out_{k}"] = (
                json.dumps(v) if isinstance(v, list | dict) else v
            )
        out.append(flat)
    return out


def read_dataframe(path: str | Path) -> Any:
    """The flattened rows as a pandas DataFrame.

    Parameters
    ----------
    path : str or Path
        The results store.

    Returns
    -------
    pandas.DataFrame
        One row per task, the columns of ``flat_rows``.

    Raises
    ------
    SolverUnavailableError
        If pandas is not installed (``pip install 'allockit[dataframe]'``).
    InvalidInputError
        If the file does not exist or is not a results store.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "r.db")
    >>> with ResultStore(path) as store:
    ...     store.write({"key": "k1", "sweep": "s", "kind": "demo", "instance": "i",
    ...                  "method": "m", "params": {}, "seed": 0, "ok": True,
    ...                  "status": "optimal", "outputs": {"min_yield": 0.8},
    ...                  "error": None, "wall_seconds": 0.5})

    Skipped by the doctest run, as pandas is an optional dependency:

    >>> read_dataframe(path)[["instance", "min_yield"]].values.tolist()  # doctest: +SKIP
    [['i', 0.8]]
    """
    import importlib.util

    if importlib.util.find_spec("pandas") is None:
        raise SolverUnavailableError("pandas is required: pip install 'allockit[dataframe]'")
    import pandas as pd

    return pd.DataFrame(flat_rows(path))
