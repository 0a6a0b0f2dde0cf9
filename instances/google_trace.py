"""Read the Google 2011 cluster trace's ``task_events`` CSV files (for DRFH simulations).

The trace is not shipped (it is large and online); a user who has it can turn its task
events into simulation input. Columns of ``task_events`` (2011 schema): timestamp (µs),
missing info, job ID, task index, machine ID, event type (0 SUBMIT, 1 SCHEDULE, 2 EVICT,
3 FAIL, 4 FINISH, 5 KILL, 6 LOST, ...), user, scheduling class, priority, CPU request,
memory request, disk request, different-machine restriction. CPU and memory requests are
already normalised to the largest machine, like the server mix.
"""

from __future__ import annotations

import csv
import gzip
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from allockit.errors import InvalidInputError
from allockit.instances.drfh import UserArrival

__all__ = ["users_from_task_events"]

_SUBMIT, _SCHEDULE, _FINISH = 0, 1, 4


#: Columns of a ``task_events`` row in the 2011 schema.
_COLUMNS = 13


def _rows(paths: Iterable[str | Path]) -> Iterable[tuple[str, int, list[str]]]:
    """``(file name, row number in that file, row)`` for every row of every file."""
    for path in paths:
        path = Path(path)
        opener = gzip.open if path.suffix == ".gz" else open
        try:
            with opener(path, "rt", newline="") as fh:
                for number, row in enumerate(csv.reader(fh), start=1):
                    yield path.name, number, row
        except (OSError, EOFError, UnicodeDecodeError, csv.Error) as exc:
            raise InvalidInputError(f"cannot read task events {str(path)!r}: {exc}") from None


def users_from_task_events(paths: Iterable[str | Path], *, min_tasks: int = 1) -> list[UserArrival]:
    """One ``UserArrival`` per trace user: median (CPU, memory) request, task count,
    first submission (s) and median run time (SCHEDULE to FINISH, s).

    Tasks without a positive request are skipped; users with fewer than ``min_tasks``
    tasks are dropped. Malformed rows raise ``InvalidInputError`` with the row number.

    A user with no task that both started and finished in the files gets a run time
    of 300 s; run times are at least 1 s. The resulting users feed the dynamic DRFH
    simulation (``allockit.simulation.drfh_dynamic``).

    Parameters
    ----------
    paths : iterable of str or Path
        ``task_events`` CSV files (plain or ``.gz``), read in order as one stream.
    min_tasks : int, default 1
        Users with fewer submitted tasks (with positive requests) are dropped.

    Returns
    -------
    list of UserArrival
        Sorted by user name: name, first submission time (s), median (CPU, memory)
        request per task (fractions of the largest machine), number of tasks, median
        task run time (s).

    Raises
    ------
    InvalidInputError
        If a file cannot be read, or a row does not have the schema's 13 columns, a
        bad timestamp or event type, or a bad request (the message names the file and
        the row number in it).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "part-00000.csv")
    >>> rows = ["0,,1,0,,0,alice,0,0,0.1,0.2,0,0", "1000000,,1,0,7,1,alice,0,0,0.1,0.2,0,0",
    ...         "61000000,,1,0,7,4,alice,0,0,0.1,0.2,0,0"]
    >>> with open(path, "w") as fh:
    ...     _ = fh.write("\\n".join(rows) + "\\n")
    >>> u = users_from_task_events([path])[0]
    >>> u.name, u.demand, u.tasks, u.duration
    ('alice', (0.1, 0.2), 1, 60.0)
    """
    submit: dict[str, float] = {}
    demand: dict[str, list[tuple[float, float]]] = defaultdict(list)
    started: dict[tuple[str, str], float] = {}
    runtime: dict[str, list[float]] = defaultdict(list)
    for name, number, row in _rows(paths):
        where = f"{name} row {number}"
        if len(row) != _COLUMNS:
            raise InvalidInputError(
                f"{where}: expected {_COLUMNS} columns (task_events, 2011 schema), "
                f"got {len(row)}"
            )
        try:
            t = float(row[0]) / 1e6
            event = int(row[5])
        except ValueError:
            raise InvalidInputError(
                f"{where}: bad timestamp or event type: {row[0]!r}, {row[5]!r}"
            ) from None
        user, task = row[6], f"{row[2]}/{row[3]}"
        if event == _SUBMIT:
            try:
                cpu, mem = float(row[9] or 0), float(row[10] or 0)
            except ValueError:
                raise InvalidInputError(
                    f"{where}: bad CPU or memory request: {row[9]!r}, {row[10]!r}"
                ) from None
            if cpu > 0 and mem > 0:
                demand[user].append((cpu, mem))
                submit[user] = min(submit.get(user, t), t)
        elif event == _SCHEDULE:
            started[(user, task)] = t
        elif event == _FINISH and (user, task) in started:
            runtime[user].append(t - started.pop((user, task)))
    users = []
    for user, requests in sorted(demand.items()):
        if len(requests) < min_tasks:
            continue
        med = np.median(np.array(requests), axis=0)
        duration = float(np.median(runtime[user])) if runtime[user] else 300.0
        users.append(
            UserArrival(
                user,
                submit[user],
                (float(med[0]), float(med[1])),
                len(requests),
                max(duration, 1.0),
            )
        )
    return users
