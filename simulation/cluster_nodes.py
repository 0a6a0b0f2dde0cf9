"""The nodes of the cluster simulator: request queues served by ideal proportional sharing.

Each node ``i`` holds, per class ``j``, a backlog ``q_ij`` of work (node-seconds) and
its current tickets ``w_ij`` (the allocation its manager last sent). Service is *ideal
work-conserving proportional sharing* (GPS; Li and Parker assume ideal local resource
management, a resource container): over an interval of length ``dt`` without
arrivals, class ``j`` receives ``min(q_ij, theta w_ij)`` with ``theta`` chosen so the
node serves ``min(dt, sum_j q_ij)`` in all. Classes that empty early hand their share
to the backlogged ones. A backlogged class with zero tickets gets a weight of
``ZERO_WEIGHT`` (it is served only when the others leave capacity unused).

The dispatcher sends class ``j``'s requests (Poisson, rate ``load_j * n_j /
service_j`` for the ``n_j`` nodes it may use, each of work ``service_j``)
uniformly at random among the live nodes it may use, so each node gets an independent
Poisson stream. Arrivals are batched at the simulator's ticks. Work beyond
``queue_limit`` node-seconds per class and node is dropped (a bounded accept queue).
When a node fails the dispatcher learns of it at once and spreads the class's whole
rate over the remaining nodes.
"""

from __future__ import annotations

import numpy as np

from allockit.checks import first_bad_entry, real_array, real_number
from allockit.errors import InvalidInputError

__all__ = ["ZERO_WEIGHT", "NodeState", "gps_serve"]

#: Weight of a backlogged class that holds no ticket.
ZERO_WEIGHT = 1e-6


def gps_serve(backlog: np.ndarray, tickets: np.ndarray, dt: float) -> np.ndarray:
    """Work each class receives in ``dt`` seconds of ideal proportional sharing.

    Parameters
    ----------
    backlog : array (N, S)
        Work waiting per node and class (node-seconds), no arrivals during ``dt``.
    tickets : array (N, S)
        Shares (any non-negative scale); zero-ticket backlogged classes get
        ``ZERO_WEIGHT``.
    dt : float
        Interval length; each node serves at rate 1.

    Returns
    -------
    numpy.ndarray
        Served work (N, S): ``min(q, theta w)`` per row with the row's sum
        ``min(dt, sum q)``.

    Raises
    ------
    InvalidInputError
        If ``backlog`` or ``tickets`` is not an (N, S) array of finite numbers >= 0, or
        ``dt`` is not a finite number >= 0.

    Examples
    --------
    >>> q = np.array([[1.0, 1.0, 0.0], [0.05, 1.0, 1.0]])
    >>> w = np.array([[60.0, 30.0, 10.0], [60.0, 30.0, 10.0]])
    >>> gps_serve(q, w, 0.3).round(4).tolist()
    [[0.2, 0.1, 0.0], [0.05, 0.1875, 0.0625]]
    """
    q = real_array("backlog", backlog, ndim=2)
    w = real_array("tickets", tickets, ndim=2)
    if w.shape != q.shape:
        raise InvalidInputError(
            f"tickets must have the shape of backlog {q.shape}; got {w.shape}"
        )
    first_bad_entry("backlog", q, q >= 0, "finite and >= 0 (node-seconds)")
    first_bad_entry("tickets", w, w >= 0, "finite and >= 0")
    return _serve(q, w, real_number("dt", dt, at_least=0, note="seconds"))


def _serve(q: np.ndarray, tickets: np.ndarray, dt: float) -> np.ndarray:
    """``gps_serve`` on checked arrays (the node state's own, at every tick)."""
    busy = q > 0
    wb = np.where(busy, np.maximum(tickets, ZERO_WEIGHT), 0.0)
    total_w = wb.sum(axis=1)
    theta0 = np.divide(dt, total_w, out=np.zeros_like(total_w), where=total_w > 0)
    served = theta0[:, None] * wb
    # rows where a class empties within dt need the full water-filling
    hard = np.flatnonzero((served > q).any(axis=1))
    if hard.size:
        served[hard] = _water_fill(q[hard], wb[hard], dt)
    return served


def _water_fill(q: np.ndarray, wb: np.ndarray, dt: float) -> np.ndarray:
    """GPS rows in which some class empties before ``dt``."""
    n, s = q.shape
    busy = wb > 0
    ratio = np.divide(q, wb, out=np.zeros_like(q), where=busy)
    order = np.argsort(ratio, axis=1)
    rs = np.take_along_axis(ratio, order, axis=1)
    qs = np.take_along_axis(q, order, axis=1)
    ws = np.take_along_axis(wb, order, axis=1)
    cum_q = np.cumsum(qs, axis=1)
    rest_w = ws[:, ::-1].cumsum(axis=1)[:, ::-1] - ws  # weight after position k
    served_at = cum_q + rs * rest_w  # total served if theta = ratio at position k
    m = (served_at <= dt).sum(axis=1)  # classes emptied
    rows = np.arange(n)
    done_q = np.where(m > 0, cum_q[rows, np.maximum(m - 1, 0)], 0.0)
    last = np.minimum(m, s - 1)
    left_w = np.where(m < s, rest_w[rows, last] + ws[rows, last], 0.0)
    theta = np.divide(dt - done_q, left_w, out=np.zeros(n), where=left_w > 0)
    served = np.minimum(q, theta[:, None] * wb)
    emptied = (m >= s) | (q.sum(axis=1) <= dt)
    return np.where(emptied[:, None], q, served)


class NodeState:
    """Backlogs, tickets and served work of every node, advanced in time by GPS.

    Parameters
    ----------
    tickets : array (N, S)
        Initial allocation (tickets out of 100).
    load : array (S,)
        Offered load of each class as a fraction of the capacity of the nodes it may
        use.
    service : array (S,)
        Work of one request (node-seconds).
    allowed : array (S, N) of bool
        Where the dispatcher may send each class.
    queue_limit : float
        Largest backlog per class and node (node-seconds).
    rng : numpy.random.Generator

    Examples
    --------
    >>> st = NodeState(np.array([[50.0, 50.0]]), np.array([2.0, 0.2]), np.array([0.01, 0.01]),
    ...                np.ones((2, 1), bool), 0.5, np.random.default_rng(0))
    >>> st.arrive(0.0, 1.0); st.advance(1.0)
    >>> (st.served[0] / st.served[0].sum()).round(1).tolist()
    [0.8, 0.2]
    """

    def __init__(
        self,
        tickets: np.ndarray,
        load: np.ndarray,
        service: np.ndarray,
        allowed: np.ndarray,
        queue_limit: float,
        rng: np.random.Generator,
    ) -> None:
        self.tickets = np.array(tickets, dtype=float)
        n, s = self.tickets.shape
        self.backlog = np.zeros((n, s))
        self.served = np.zeros((n, s))
        self.ticket_time = np.zeros((n, s))  # integral of the tickets over time
        self.dropped = np.zeros(s)
        self.alive = np.ones(n, dtype=bool)
        self.allowed = np.asarray(allowed, dtype=bool)
        self.service = np.asarray(service, dtype=float)
        # each class's whole request rate: load times the nodes it may use, over its size
        self.class_rate = np.asarray(load, dtype=float) * self.allowed.sum(axis=1) / self.service
        self.stopped = np.zeros(s, dtype=bool)
        self.queue_limit = float(queue_limit)
        self.rng = rng
        self.time = 0.0
        self._rates()

    def _rates(self) -> None:
        """Per-node request rates (N, S) over the live allowed nodes."""
        live = self.allowed & self.alive[None, :]
        count = live.sum(axis=1)
        per = np.divide(self.class_rate, count, out=np.zeros_like(self.class_rate),
                        where=count > 0)
        per = np.where(self.stopped, 0.0, per)
        self.rate = (live * per[:, None]).T

    def advance(self, now: float) -> None:
        """Serve every node from the last update to ``now``."""
        dt = now - self.time
        if dt <= 0:
            return
        served = _serve(self.backlog, self.tickets, dt)
        self.backlog -= served
        np.maximum(self.backlog, 0.0, out=self.backlog)
        self.served += served
        self.ticket_time += self.tickets * dt
        self.time = now

    def arrive(self, now: float, dt: float) -> None:
        """Add the requests of the next ``dt`` seconds (a batch at ``now``)."""
        self.advance(now)
        count = self.rng.poisson(self.rate * dt)
        self.backlog += count * self.service[None, :]
        over = self.backlog - self.queue_limit
        if (over > 0).any():
            self.dropped += np.maximum(over, 0.0).sum(axis=0)
            np.minimum(self.backlog, self.queue_limit, out=self.backlog)

    def set_tickets(self, now: float, nodes: np.ndarray, rows: np.ndarray) -> None:
        """Install new allocations on ``nodes`` at ``now``."""
        self.advance(now)
        self.tickets[nodes] = rows

    def fail(self, now: float, node: int) -> None:
        """A node stops: its queues are lost and the dispatcher avoids it."""
        self.advance(now)
        self.alive[node] = False
        self.backlog[node] = 0.0
        self._rates()

    def stop(self, now: float, cls: int, stopped: bool) -> None:
        """Pause (or resume) the dispatch of one class."""
        self.advance(now)
        self.stopped[cls] = stopped
        self._rates()
