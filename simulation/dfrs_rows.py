"""Where each DFRS job's tasks are: one row of tasks per node for every job that has run.

A ``RowPool`` keeps, for each job in the system that has run, its float count of tasks
per node: where it runs, or where it last ran while paused (a resumed job on other
nodes counts as resumed elsewhere). Rows live in one growing 2-D array; a finished job
gives its row back. Beside the rows, an index of each row's nonzero entries (the nodes
a job has tasks on): a job usually runs on a few of the nodes, and compiled kernels
read and write those entries only, not the whole row. Every row of the pool, of a
job's slot or a free one, is indexed, and its zero entries are ``+0.0``: ``store``
keeps it so (``allocation_kernels.index_rows_kernel``), and so does a kernel that writes
a row (``dfrs_kernels._store_new_indexed_row``).
"""

from __future__ import annotations

import numpy as np

from allockit.errors import AllocKitError
from allockit.simulation.kernel_modules import kernel_module

__all__ = ["RowPool", "SimulationInvariantError"]


class SimulationInvariantError(AllocKitError):
    """A capacity or accounting invariant broke during a debug-mode simulation."""


class RowPool:
    """Tasks per node (float rows) of ``jobs`` jobs on ``nodes`` nodes, by job index.

    Examples
    --------
    >>> pool = RowPool(jobs=3, nodes=2)
    >>> pool.store(np.array([2]), np.array([[1.0, 1.0]]))
    >>> pool.row(2).tolist(), pool.has(0), pool.has(2)
    ([1.0, 1.0], False, True)
    >>> pool.drop(2); pool.has(2)
    False
    """

    def __init__(self, jobs: int, nodes: int) -> None:
        self.nodes = nodes
        self._pool = np.zeros((0, nodes))
        self._nz = np.zeros((0, nodes + 1), dtype=np.int32)
        self._slot = np.full(jobs, -1, dtype=np.int64)
        self._free: list[int] = []

    def has(self, j: int) -> bool:
        """Does job ``j`` have a row (it ran and has not finished)?"""
        return bool(self._slot[j] >= 0)

    def row(self, j: int) -> np.ndarray:
        """Job ``j``'s tasks per node (floats): where it runs, or where it last ran.

        A view into the pool, valid until the next placement: read it at once and do
        not modify it. Raises ``SimulationInvariantError`` for a job that has no row
        (never started, or finished).
        """
        slot = self._slot[j]
        if slot < 0:
            raise SimulationInvariantError(f"job {j} has no placement (never ran or finished)")
        return self._pool[slot]

    def rows(self, jobs: np.ndarray) -> np.ndarray:
        """Tasks per node of ``jobs`` (running, or where they last ran): one row per job.

        A new array. Raises ``SimulationInvariantError`` if one of the jobs has no row.
        """
        slots = self._slot[jobs]
        if slots.size and slots.min() < 0:
            j = int(np.asarray(jobs)[np.argmin(slots)])
            raise SimulationInvariantError(f"job {j} has no placement (never ran or finished)")
        return self._pool[slots]

    def gather(self, jobs: np.ndarray) -> np.ndarray:
        """``rows(jobs)`` for jobs known to have rows (unchecked)."""
        return self._pool[self._slot[jobs]]

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The pool of rows and each job's slot in it (-1: none), for compiled kernels.

        Both are the live arrays: read them at once (the pool is replaced when it grows).
        """
        return self._pool, self._slot

    def indexed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The pool of rows, its index of nonzero entries and the slots, for kernels.

        Row ``s``'s nonzero entries are at the nodes ``nz[s, 1 : 1 + nz[s, 0]]``, in
        increasing order. The live arrays: a kernel that writes a row of the pool must
        keep the index right and the zero entries ``+0.0`` (``dfrs_kernels.
        _store_new_indexed_row`` does both), for free slots too: a slot taken again is
        cleared through its index.

        >>> pool = RowPool(jobs=1, nodes=3)
        >>> pool.store(np.array([0]), np.array([[0.0, 2.0, 1.0]]))
        >>> rows, nz, slot = pool.indexed(); nz[slot[0], :3].tolist()
        [2, 1, 2]
        """
        return self._pool, self._nz, self._slot

    def slots(self, jobs: np.ndarray) -> np.ndarray:
        """The pool slots of ``jobs`` (-1 for a job without a row)."""
        return self._slot[jobs]

    def store(self, jobs: np.ndarray, rows: np.ndarray) -> None:
        """Make ``rows[i]`` the row of ``jobs[i]`` (a slot is taken for a job without one)."""
        self.take(jobs)
        slots = self._slot[jobs]
        self._pool[slots] = rows
        kernel_module("allocation_kernels").index_rows_kernel(self._pool, self._nz, slots)

    def store_one(self, j: int, row: np.ndarray) -> np.ndarray:
        """Make ``row`` job ``j``'s row; returns the kept row (a view into the pool)."""
        if self._slot[j] < 0:
            self.take(np.array([j], dtype=np.int64))
        slot = self._slot[j]
        kept = self._pool[slot]
        kept[:] = row
        kernel_module("allocation_kernels").index_rows_kernel(
            self._pool, self._nz, np.array([slot], dtype=np.int64)
        )
        return kept

    def drop(self, j: int) -> None:
        """Job ``j`` finished: its slot goes back to the pool."""
        self._free.append(int(self._slot[j]))
        self._slot[j] = -1

    def take(self, jobs: np.ndarray) -> None:
        """Give a row of the pool to each of ``jobs`` that has none (jobs never run).

        What the row holds until it is stored is undefined.
        """
        need = jobs[self._slot[jobs] < 0]
        if not need.size:
            return
        if len(self._free) < need.size:
            old = self._pool.shape[0]
            size = max(2 * old, old + need.size, 16)
            pool = np.zeros((size, self.nodes))
            pool[:old] = self._pool
            self._pool = pool
            nz = np.zeros((size, self.nodes + 1), dtype=np.int32)
            nz[:old] = self._nz
            self._nz = nz
            self._free.extend(range(size - 1, old - 1, -1))
        taken = self._free[-need.size :]
        del self._free[-need.size :]
        self._slot[need] = taken
