"""The results store of a sweep: one SQLite file (WAL mode), one row per task, task claims.

The file carries a schema marker (``PRAGMA application_id`` = ``STORE_APPLICATION_ID``,
``PRAGMA user_version`` = ``STORE_VERSION``): allockit opens a file only if it is a new
(or empty) file or an allockit store (``check_store``), never another SQLite database.
Several writers (two terminals, several machines on a shared folder) can run the same
sweep on one store: a task is run only by the writer that *claims* it, atomically (a row
of ``claims`` with its owner and a heartbeat); a claim whose heartbeat is older than
``stale_after`` seconds (its writer was killed) is taken over. No task runs twice and no
row is lost.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from allockit.checks import integer, is_finite_real, is_real, real_number
from allockit.constants import MAX_SEED
from allockit.errors import InvalidInputError, SolverUnavailableError
from allockit.tasks import json_data

__all__ = [
    "STORE_APPLICATION_ID",
    "STORE_VERSION",
    "Heartbeat",
    "ResultStore",
    "check_row",
    "check_store",
    "flat_rows",
    "read_dataframe",
    "read_rows",
]

#: ``PRAGMA application_id`` of an allockit store ("ALKT").
STORE_APPLICATION_ID = 0x414C4B54
#: ``PRAGMA user_version``: 2 adds the claims table and the setup_seconds column.
STORE_VERSION = 2

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
    solver_versions TEXT NOT NULL,
    setup_seconds REAL
);
CREATE TABLE IF NOT EXISTS claims (
    key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    heartbeat REAL NOT NULL,
    claimed_at REAL NOT NULL
);
"""

_LEGACY_COLUMNS = (
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
_COLUMNS = (*_LEGACY_COLUMNS, "setup_seconds")
_SQLITE_MAGIC = b"SQLite format 3\x00"


def check_store(path: str | Path, *, option: str = "store", must_exist: bool = False) -> str:
    """Whether ``path`` may be used as a results store: a new file or an allockit store.

    Read-only: nothing is created or changed. Checked before any work runs, so that a
    sweep never ends on a store it cannot use.

    Parameters
    ----------
    path : str or Path
        The store's file.
    option : str, default "store"
        The option or field that named it, for the message (``"--store"``).
    must_exist : bool, default False
        Refuse a missing or empty file (for reading).

    Returns
    -------
    str
        ``"new"`` (missing or empty file, or an SQLite file without tables),
        ``"legacy"`` (an allockit store of before the schema marker; upgraded when
        opened for writing) or ``"store"``.

    Raises
    ------
    InvalidInputError
        If the path is a folder, its folder cannot be created, the file is not SQLite,
        or it is an SQLite database of something else (its tables are named), or a
        store written by a newer allockit.

    Examples
    --------
    >>> import pathlib, sqlite3, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> check_store(folder / "new.db")
    'new'
    >>> with sqlite3.connect(folder / "other.db") as db:
    ...     _ = db.execute("CREATE TABLE people (name TEXT)")
    >>> check_store(folder / "other.db", option="--store")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --store: '...other.db' is not an allockit results \
store (an SQLite database with tables: people); give a new file or an allockit store
    """
    path = Path(path)
    where = f"{option}: {str(path)!r}"
    if path.is_dir():
        raise InvalidInputError(f"{where} is a folder; give a file name for the store")
    if not path.exists() or path.stat().st_size == 0:
        if must_exist:
            raise InvalidInputError(f"results store {str(path)!r} does not exist")
        existing = path.parent
        while not existing.exists() and existing != existing.parent:
            existing = existing.parent
        if not existing.is_dir():
            raise InvalidInputError(f"{where}: {str(existing)!r} is a file, not a folder")
        if not os.access(existing, os.W_OK):
            raise InvalidInputError(f"{where}: folder {str(existing)!r} is not writable")
        return "new"
    try:
        with open(path, "rb") as fh:
            magic = fh.read(16)
    except OSError as exc:
        raise InvalidInputError(f"{where} cannot be read: {exc.strerror}") from None
    if magic != _SQLITE_MAGIC:
        raise InvalidInputError(
            f"{where} is not an allockit results store (not an SQLite file); "
            "give a new file or an allockit store"
        )
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
        try:
            app = db.execute("PRAGMA application_id").fetchone()[0]
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = sorted(
                row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            )
            columns = (
                tuple(row[1] for row in db.execute("PRAGMA table_info(results)"))
                if "results" in tables
                else ()
            )
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise InvalidInputError(
            f"{where} is not a readable allockit results store: {exc}"
        ) from None
    if app == STORE_APPLICATION_ID:
        if version > STORE_VERSION:
            raise InvalidInputError(
                f"{where} was written by a newer allockit (store version {version}; this "
                f"one reads up to {STORE_VERSION})"
            )
        return "store"
    if app == 0 and not tables:
        if must_exist:
            raise InvalidInputError(f"results store {str(path)!r} holds no results")
        return "new"
    if (
        app == 0
        and set(tables) <= {"results", "claims"}
        and columns
        in (
            _LEGACY_COLUMNS,
            _COLUMNS,
        )
    ):
        return "legacy"
    described = f"tables: {', '.join(tables)}" if tables else "no tables"
    raise InvalidInputError(
        f"{where} is not an allockit results store (an SQLite database with {described}); "
        "give a new file or an allockit store"
    )


#: Seconds a writer waits for another one that is creating or upgrading the same store.
_OPEN_PATIENCE = 30.0


def _open_store(path: Path, *, legacy: bool) -> sqlite3.Connection:
    """Connect, switch to WAL and create (or upgrade) the schema, waiting for other writers.

    Two writers that open a new store at the same moment race on the switch to WAL and
    on the schema; SQLite answers "database is locked" at once for some of these steps
    (its busy timeout does not cover a journal-mode change), so a busy or locked answer
    is retried for up to ``_OPEN_PATIENCE`` seconds before it becomes an error.
    """
    deadline = time.monotonic() + _OPEN_PATIENCE
    pause = 0.01
    while True:
        db = None
        try:
            db = sqlite3.connect(path, timeout=_OPEN_PATIENCE, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            if legacy:
                columns = {row[1] for row in db.execute("PRAGMA table_info(results)")}
                if "setup_seconds" not in columns:
                    db.execute("ALTER TABLE results ADD COLUMN setup_seconds REAL")
            db.execute(f"PRAGMA application_id = {STORE_APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {STORE_VERSION}")
            db.execute("COMMIT")
            return db
        except sqlite3.Error as exc:
            if db is not None:
                db.close()
            busy = "locked" in str(exc) or "busy" in str(exc)
            if not busy or time.monotonic() > deadline:
                raise InvalidInputError(f"cannot open results store {str(path)!r}: {exc}") from None
            time.sleep(pause)
            pause = min(2 * pause, 0.5)


class ResultStore:
    """A sweep's results: one row per task, committed as soon as it is written; claims.

    Rows survive a killed process (SQLite's write-ahead log): an interrupted sweep loses
    only the tasks that were in flight. ``keys()`` tells a resumed sweep what is done;
    ``claim``, ``heartbeat`` and ``release`` let several writers share the store without
    running a task twice (see the module docstring).

    Parameters
    ----------
    path : str or Path
        The SQLite file: created if missing, refused unless it is an allockit store
        (``check_store``); a store of before the schema marker is upgraded.
    owner : str, optional
        This writer's name in the claims (default: host, process id and a random part).

    Raises
    ------
    InvalidInputError
        If the path cannot be a store (``check_store``) or SQLite cannot open it.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "r.db")
    >>> with ResultStore(path) as store:
    ...     store.claim("k1", stale_after=60.0)
    ...     store.write({"key": "k1", "sweep": "s", "kind": "demo", "instance": "i",
    ...                  "method": "m", "params": {}, "seed": None, "ok": True,
    ...                  "status": "optimal", "outputs": {"x": 1}, "error": None,
    ...                  "wall_seconds": 0.1})
    ...     sorted(store.keys()), store.claim("k1", stale_after=60.0)
    'claimed'
    (['k1'], 'done')
    >>> read_rows(path)[0]["outputs"]
    {'x': 1}
    """

    def __init__(self, path: str | Path, *, owner: str | None = None) -> None:
        self.path = Path(path)
        state = check_store(self.path)
        if not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = _open_store(self.path, legacy=state == "legacy")
        from allockit.solver import solver_versions
        from allockit.version import __version__

        self._version = __version__
        self._solvers = json.dumps(solver_versions(), sort_keys=True)
        self._host = socket.gethostname()
        self.owner = owner or f"{self._host}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release this writer's claims and close the database."""
        try:
            self.release()
        finally:
            self._db.close()

    def keys(self, *, ok_only: bool = False) -> set[str]:
        """Keys of the tasks already recorded (only the successful ones with ``ok_only``).

        Parameters
        ----------
        ok_only : bool, default False
            Only the tasks that succeeded.

        Returns
        -------
        set of str
            Task keys.

        Examples
        --------
        >>> import tempfile, os
        >>> with ResultStore(os.path.join(tempfile.mkdtemp(), "r.db")) as store:
        ...     store.keys()
        set()
        """
        query = "SELECT key FROM results" + (" WHERE ok = 1" if ok_only else "")
        return {row[0] for row in self._db.execute(query)}

    def claim(
        self, key: str, *, stale_after: float, retry_failed: bool = False, since: float = 0.0
    ) -> str:
        """Claim task ``key`` for this writer, atomically.

        Parameters
        ----------
        key : str
            The task's key.
        stale_after : float
            Seconds without a heartbeat after which another writer's claim is taken
            over.
        retry_failed : bool, default False
            A failed row recorded before ``since`` does not count as done.
        since : float, default 0.0
            Start of this sweep (``time.time()``): a failed row written after it (by a
            concurrent writer retrying it too) counts as done.

        Returns
        -------
        str
            ``"claimed"`` (run it), ``"done"`` (a row exists) or ``"busy"`` (another
            live writer holds it).

        Examples
        --------
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "r.db")
        >>> with ResultStore(path, owner="a") as a, ResultStore(path, owner="b") as b:
        ...     a.claim("k", stale_after=60.0), b.claim("k", stale_after=60.0)
        ('claimed', 'busy')
        """
        now = time.time()
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT ok, finished_at FROM results WHERE key = ?", (key,)).fetchone()
            if row is not None and (row[0] or not retry_failed or row[1] >= since):
                db.execute("COMMIT")
                return "done"
            cursor = db.execute(
                "INSERT INTO claims (key, owner, heartbeat, claimed_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(key) DO UPDATE SET owner = excluded.owner, "
                "heartbeat = excluded.heartbeat, claimed_at = excluded.claimed_at "
                "WHERE claims.heartbeat < ? OR claims.owner = excluded.owner",
                (key, self.owner, now, now, now - stale_after),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return "claimed" if cursor.rowcount == 1 else "busy"

    def held_elsewhere(self, keys: list[str], *, stale_after: float) -> set[str]:
        """Keys among ``keys`` that another live writer holds and that have no row yet.

        Parameters
        ----------
        keys : list of str
            Task keys.
        stale_after : float
            Seconds without a heartbeat after which a claim no longer counts.

        Returns
        -------
        set of str
            The keys to leave alone for now.

        Examples
        --------
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "r.db")
        >>> with ResultStore(path, owner="a") as a, ResultStore(path, owner="b") as b:
        ...     _ = a.claim("k", stale_after=60.0)
        ...     b.held_elsewhere(["k", "j"], stale_after=60.0)
        {'k'}
        """
        cutoff = time.time() - stale_after
        held: set[str] = set()
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ", ".join("?" * len(chunk))
            held.update(
                row[0]
                for row in self._db.execute(
                    f"SELECT key FROM claims WHERE key IN ({marks}) AND owner != ? "
                    f"AND heartbeat >= ? AND key NOT IN (SELECT key FROM results)",
                    [*chunk, self.owner, cutoff],
                )
            )
        return held

    def heartbeat(self) -> int:
        """Refresh this writer's claims; the number of claims held.

        Returns
        -------
        int
            Claims refreshed.

        Examples
        --------
        >>> import tempfile, os
        >>> with ResultStore(os.path.join(tempfile.mkdtemp(), "r.db")) as store:
        ...     _ = store.claim("k", stale_after=60.0)
        ...     store.heartbeat()
        1
        """
        cursor = self._db.execute(
            "UPDATE claims SET heartbeat = ? WHERE owner = ?", (time.time(), self.owner)
        )
        return cursor.rowcount

    def release(self) -> None:
        """Drop this writer's claims (its tasks that did not finish become free).

        Examples
        --------
        >>> import tempfile, os
        >>> with ResultStore(os.path.join(tempfile.mkdtemp(), "r.db")) as store:
        ...     _ = store.claim("k", stale_after=60.0)
        ...     store.release()
        ...     store.heartbeat()
        0
        """
        self._db.execute("DELETE FROM claims WHERE owner = ?", (self.owner,))

    def write(self, row: dict[str, Any]) -> None:
        """Insert or replace one task's row and drop its claim, in one commit.

        The row is checked first (``check_row``): nothing is written unless every field
        can be stored and read back. Numpy numbers and arrays in ``params`` and
        ``outputs`` are stored as Python numbers and lists.

        Parameters
        ----------
        row : dict
            ``TaskRow.to_dict()``'s fields; ``setup_seconds`` is taken from the row or,
            if absent, from ``outputs["setup_seconds"]`` (one-time costs of the task's
            process, reported apart from its time).

        Raises
        ------
        InvalidInputError
            If a field cannot be stored (``check_row``); the store is unchanged.

        Examples
        --------
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "r.db")
        >>> with ResultStore(path) as store:
        ...     store.write({"key": "k", "sweep": "s", "kind": "demo", "instance": "i",
        ...                  "method": "m", "params": {}, "seed": None, "ok": True,
        ...                  "status": "done", "outputs": {"setup_seconds": 1.5},
        ...                  "error": None, "wall_seconds": 2.0})
        ...     store.write({"key": "k", "sweep": "s", "kind": "demo", "instance": "i",
        ...                  "method": "m", "params": {}, "seed": None, "ok": "false",
        ...                  "status": "done", "outputs": {}, "error": None,
        ...                  "wall_seconds": 2.0})
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: row field ok must be a bool; got 'false'
        >>> read_rows(path)[0]["setup_seconds"]
        1.5
        """
        record = check_row(row)
        record.update(
            params=json.dumps(record["params"], sort_keys=True),
            outputs=json.dumps(record["outputs"], sort_keys=True),
            ok=int(record["ok"]),
            finished_at=record.get("finished_at", time.time()),
            host=record.get("host", self._host),
            allockit_version=self._version,
            solver_versions=record.get("solver_versions", self._solvers),
        )
        values = [record.get(col) for col in _COLUMNS]
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute(
                f"INSERT OR REPLACE INTO results ({', '.join(_COLUMNS)}) "
                f"VALUES ({', '.join('?' * len(_COLUMNS))})",
                values,
            )
            db.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (row["key"], self.owner))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise


def check_row(row: dict[str, Any]) -> dict[str, Any]:
    """A task's row as ``ResultStore.write`` stores it, checked; or an error naming the field.

    ``key`` must be a non-empty str; ``sweep``, ``kind``, ``instance`` and ``method``
    strs; ``ok`` a bool (never a string or a number); ``status`` and ``error`` a str or
    None; ``seed`` None or an integer in [0, ``MAX_SEED``]; ``wall_seconds`` a finite
    number >= 0; ``params`` and ``outputs`` dicts of JSON data (numpy values become
    Python's, ``allockit.tasks.json_data``); ``finished_at`` and ``host``, if given, a
    finite number and a str.

    Parameters
    ----------
    row : dict
        ``TaskRow.to_dict()``'s fields.

    Returns
    -------
    dict
        The row's fields, converted (``setup_seconds`` filled from the outputs when
        the row has none, None unless a finite number).

    Raises
    ------
    InvalidInputError
        ``row field NAME must be ...; got VALUE`` for the first field that cannot be
        stored.

    Examples
    --------
    >>> import numpy as np
    >>> row = {"key": "k", "sweep": "s", "kind": "demo", "instance": "i", "method": "m",
    ...        "params": {}, "seed": np.int64(3), "ok": True, "status": "done",
    ...        "outputs": {"hosts": np.arange(2)}, "error": None, "wall_seconds": 1}
    >>> checked = check_row(row)
    >>> checked["seed"], checked["outputs"], checked["wall_seconds"]
    (3, {'hosts': [0, 1]}, 1.0)
    >>> check_row({**row, "wall_seconds": float("nan")})
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: row field wall_seconds must be a finite number >= 0; got nan
    """
    if not isinstance(row, dict):
        raise InvalidInputError(f"a row must be a dict; got {type(row).__name__}")
    record = dict(row)
    field = "row field "
    if not isinstance(record.get("key"), str) or not record["key"]:
        raise InvalidInputError(f"{field}key must be a non-empty str; got {record.get('key')!r}")
    for name in ("sweep", "kind", "instance", "method", "host"):
        if (name != "host" or name in record) and not isinstance(record.get(name), str):
            raise InvalidInputError(f"{field}{name} must be a str; got {record.get(name)!r}")
    for name in ("status", "error"):
        value = record.get(name)
        if value is not None and not isinstance(value, str):
            raise InvalidInputError(f"{field}{name} must be a str or None; got {value!r}")
    ok = record.get("ok")
    if not isinstance(ok, bool | np.bool_):
        raise InvalidInputError(f"{field}ok must be a bool; got {ok!r}")
    seed = record.get("seed")
    outputs = {} if record.get("outputs") is None else record["outputs"]
    for name, value in (("params", record.get("params", {})), ("outputs", outputs)):
        if not isinstance(value, dict):
            raise InvalidInputError(f"{field}{name} must be a dict; got {value!r}")
        record[name] = json_data(f"{field}{name}", value)
    record.update(
        ok=bool(ok),
        seed=None if seed is None else integer(f"{field}seed", seed, minimum=0, maximum=MAX_SEED),
        wall_seconds=real_number(f"{field}wall_seconds", record.get("wall_seconds"), at_least=0),
    )
    if "finished_at" in record:
        record["finished_at"] = real_number(f"{field}finished_at", record["finished_at"])
    setup = record.get("setup_seconds", record["outputs"].get("setup_seconds"))
    record["setup_seconds"] = float(setup) if is_finite_real(setup) else None
    return record


class Heartbeat:
    """A thread that refreshes a writer's claims every ``interval`` seconds.

    It has its own SQLite connection (connections are not shared between threads).

    Parameters
    ----------
    path : str or Path
        The store.
    owner : str
        The writer whose claims are refreshed.
    interval : float
        Seconds between refreshes.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "r.db")
    >>> with ResultStore(path) as store, Heartbeat(path, store.owner, 0.05):
    ...     store.claim("k", stale_after=60.0)
    'claimed'
    """

    def __init__(self, path: str | Path, owner: str, interval: float) -> None:
        self.path, self.owner, self.interval = Path(path), owner, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="allockit-heartbeat", daemon=True)

    def _run(self) -> None:
        db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
        try:
            while not self._stop.wait(self.interval):
                try:
                    db.execute(
                        "UPDATE claims SET heartbeat = ? WHERE owner = ?",
                        (time.time(), self.owner),
                    )
                except sqlite3.Error:  # busy for 30 s: try again at the next beat
                    continue
        finally:
            db.close()

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


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
        ``allockit_version``, ``solver_versions``, ``setup_seconds``) plus ``seconds``,
        the task's own time: ``wall_seconds`` minus the one-time ``setup_seconds`` of its
        process (numba kernels, solver start-up); ``params``, ``outputs`` and
        ``solver_versions`` are dicts, ``ok`` a bool.

    Raises
    ------
    InvalidInputError
        If the file does not exist or is not a results store (``check_store``).

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
    check_store(path, must_exist=True)
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30.0)
        try:
            have = {row[1] for row in db.execute("PRAGMA table_info(results)")}
            columns = [c for c in _COLUMNS if c in have]
            cursor = db.execute(f"SELECT {', '.join(columns)} FROM results ORDER BY key")
            rows = [dict(zip(columns, values, strict=True)) for values in cursor]
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise InvalidInputError(f"{str(path)!r} is not an allockit results store: {exc}") from None
    for row in rows:
        row["params"] = json.loads(row["params"])
        row["outputs"] = json.loads(row["outputs"])
        row["solver_versions"] = json.loads(row["solver_versions"])
        row["ok"] = bool(row["ok"])
        row["seed"] = _stored_seed(row["seed"])
        row.setdefault("setup_seconds", None)
        if not is_real(row["wall_seconds"]):  # (written by a version that did not check)
            raise InvalidInputError(
                f"results store {str(path)!r}: the row of task {row['key']!r} has "
                f"wall_seconds {row['wall_seconds']!r}, not a number"
            )
        setup = row["setup_seconds"] or 0.0
        row["seconds"] = max(0.0, row["wall_seconds"] - setup)
    return rows


def _stored_seed(seed: Any) -> Any:
    """A seed as read from a store; the 8 raw bytes that older versions stored for a
    numpy integer seed are read as the integer they hold."""
    if isinstance(seed, bytes) and len(seed) == 8:
        return int.from_bytes(seed, sys.byteorder, signed=True)
    return seed


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
