"""Manager hierarchy of the cluster simulator: a fixed tree of roles whose hosts change.

Li and Parker's managers form a tree (their Fig. 1): nodes report to level-1 managers,
level-1 managers to level-2 managers, and so on up to one top manager. Here the tree is
a tree of *roles* that never changes shape; what changes on a failure is which
*entity* hosts a role. Entities ``0..N-1`` are the nodes; ``N + k`` is the dedicated
machine that hosts role ``k`` at the start. An entity hosts at most one role.

Replacement rule (their Fig. 2, made deterministic). When the host of role ``p`` dies,
its live children elect a replacement; every live child sends one message to every
other (``k (k - 1)`` election messages):

- if ``p`` is a level-1 role, the live child *node* with the smallest id that hosts no
  role becomes its host (a node hosting a manager role stays a worker of its group);
- otherwise the child role whose host has the smallest entity id is elected: its host
  now hosts ``p`` and reports to ``p``'s parent, and hands its old role down to one of
  its own children by the same smallest-id rule, notifying each of its live children
  (one message each); the hand-down repeats until a node takes over a level-1 role.

Every role keeps its one parent (the shape does not change), so after any single
failure every live node is again reachable from the top; a role none of whose children
is alive stays orphaned (host ``-1``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from allockit.checks import integer
from allockit.errors import InvalidInputError

__all__ = ["Hierarchy", "Repair"]


@dataclass(frozen=True, slots=True)
class Repair:
    """What one replacement did: the role, its new host, the hand-downs, the messages.

    ``handoffs`` lists ``(role, new host)`` for the repaired role first, then every role
    handed down; ``election`` and ``notify`` count the control messages.

    Parameters
    ----------
    role : int
        The role whose host died.
    handoffs : tuple of (int, int)
        ``(role, new host entity)`` pairs in order; host -1 for an orphaned role.
    election : int
        Election messages, ``k (k - 1)`` for ``k`` live children.
    notify : int
        Notification messages sent by hosts that handed a role down.

    Examples
    --------
    4 nodes under two level-1 roles (0 and 1, on machines 4 and 5) and a top role 2 (on
    machine 6). When machine 6 dies, machine 4 takes the top role and hands role 0 down
    to node 0:

    >>> h = Hierarchy.build(4, (2,))
    >>> h.fail(6)
    [2]
    >>> rep = h.repair(2)
    >>> rep.handoffs, rep.host, rep.election, rep.notify
    (((2, 4), (0, 0)), 4, 2, 2)
    """

    role: int
    handoffs: tuple[tuple[int, int], ...]
    election: int
    notify: int

    @property
    def host(self) -> int:
        """The repaired role's new host (-1 when orphaned)."""
        return self.handoffs[0][1] if self.handoffs else -1


@dataclass(slots=True)
class Hierarchy:
    """Roles over ``n_nodes`` nodes built from fan-outs, with hosts and failures.

    Parameters
    ----------
    n_nodes : int
        Number of nodes (entities ``0..n_nodes-1``).
    fanout : sequence of int
        ``fanout[0]`` nodes per level-1 manager, ``fanout[1]`` level-1 managers per
        level-2 manager, ...; consecutive blocks, the last one possibly smaller. When
        the fan-outs are used up and more than one role is left, one top role adopts
        them all. ``()`` is the flat tree: one manager over every node (centralised).

    Raises
    ------
    InvalidInputError
        For ``n_nodes < 1`` or a fan-out below 2.

    Examples
    --------
    >>> h = Hierarchy.build(100, (10,))
    >>> h.n_roles, h.top, h.level[h.top], len(h.children[h.top])
    (11, 10, 2, 10)
    >>> h.fail(100 + 10)  # the top manager's machine
    [10]
    >>> rep = h.repair(10)
    >>> rep.handoffs, rep.election, rep.notify
    (((10, 100), (0, 0)), 90, 10)
    >>> bool(h.reachable().all())
    True
    """

    n_nodes: int
    level: list[int]
    parent: list[int]
    children: list[list[int]]
    host: list[int]
    node_role: np.ndarray
    alive: np.ndarray
    hosted: dict[int, int] = field(default_factory=dict)

    @classmethod
    def build(cls, n_nodes: int, fanout: Sequence[int] = ()) -> Hierarchy:
        """Build the tree (see the class docstring)."""
        if (
            isinstance(n_nodes, bool)
            or not isinstance(n_nodes, int | np.integer)
            or not 1 <= n_nodes <= 10**7
        ):
            raise InvalidInputError(
                f"n_nodes must be an integer in [1, 10000000]; got {n_nodes!r}"
            )
        if isinstance(fanout, int | np.integer) and not isinstance(fanout, bool):
            fanout = (fanout,)  # (one level's fanout given as a number)
        if isinstance(fanout, str) or not isinstance(fanout, Sequence | np.ndarray):
            raise InvalidInputError(
                f"fanout must be a sequence of integers >= 2; got {fanout!r}"
            )
        fanout = tuple(fanout)
        for f in fanout:
            if isinstance(f, bool) or not isinstance(f, int | np.integer) or f < 2:
                raise InvalidInputError(f"fanout entries must be integers >= 2; got {f!r}")
        n_nodes = int(n_nodes)
        level: list[int] = []
        parent: list[int] = []
        children: list[list[int]] = []
        node_role = np.empty(n_nodes, dtype=np.int64)
        size = fanout[0] if fanout else n_nodes
        current = []
        for start in range(0, n_nodes, size):
            members = list(range(start, min(start + size, n_nodes)))
            role = len(level)
            level.append(1)
            parent.append(-1)
            children.append(members)
            node_role[members] = role
            current.append(role)
        depth = 1
        while len(current) > 1:
            size = fanout[depth] if depth < len(fanout) else len(current)
            depth += 1
            upper = []
            for start in range(0, len(current), size):
                members = current[start : start + size]
                role = len(level)
                level.append(depth)
                parent.append(-1)
                children.append(list(members))
                for m in members:
                    parent[m] = role
                upper.append(role)
            current = upper
        n_roles = len(level)
        host = [n_nodes + k for k in range(n_roles)]
        alive = np.ones(n_nodes + n_roles, dtype=bool)
        hosted = {n_nodes + k: k for k in range(n_roles)}
        return cls(n_nodes, level, parent, children, host, node_role, alive, hosted)

    # ------------------------------------------------------------------ queries
    @property
    def n_roles(self) -> int:
        """Number of manager roles."""
        return len(self.level)

    @property
    def top(self) -> int:
        """The top role (the last one built)."""
        return self.n_roles - 1

    @property
    def n_entities(self) -> int:
        """Nodes plus dedicated manager machines."""
        return self.n_nodes + self.n_roles

    def role_alive(self, role: int) -> bool:
        """True when the role has a live host."""
        h = self.host[role]
        return h >= 0 and bool(self.alive[h])

    def roles_at(self, level: int) -> list[int]:
        """The roles of one level, in build order."""
        return [r for r, lv in enumerate(self.level) if lv == level]

    def reachable(self) -> np.ndarray:
        """Per node: alive and connected to the top through live hosts only.

        Examples
        --------
        >>> h = Hierarchy.build(4, (2,))
        >>> _ = h.fail(4)  # the machine of level-1 role 0
        >>> h.reachable().tolist()
        [False, False, True, True]
        """
        ok_role = np.zeros(self.n_roles, dtype=bool)
        for role in range(self.n_roles - 1, -1, -1):  # parents are built after children
            p = self.parent[role]
            ok_role[role] = self.role_alive(role) and (p < 0 or ok_role[p])
        return self.alive[: self.n_nodes] & ok_role[self.node_role]

    def live_children(self, role: int) -> list[int]:
        """Live child nodes (level 1) or child roles with a live host."""
        if self.level[role] == 1:
            return [n for n in self.children[role] if self.alive[n]]
        return [c for c in self.children[role] if self.role_alive(c)]

    # ------------------------------------------------------------------ failures
    def fail(self, entity: int) -> list[int]:
        """Mark an entity dead; return the roles it hosted (now without a host).

        Raises
        ------
        InvalidInputError
            For an entity id out of range.
        """
        if not 0 <= entity < self.n_entities:
            raise InvalidInputError(
                f"entity must be in [0, {self.n_entities - 1}] (nodes, then managers); "
                f"got {entity!r}"
            )
        self.alive[entity] = False
        role = self.hosted.get(entity)
        return [] if role is None else [role]

    def _set_host(self, role: int, entity: int) -> None:
        old = self.host[role]
        if old >= 0 and self.hosted.get(old) == role:
            del self.hosted[old]
        self.host[role] = entity
        if entity >= 0:
            self.hosted[entity] = role

    def _free_node(self, role: int) -> int:
        free = [n for n in self.children[role] if self.alive[n] and n not in self.hosted]
        return min(free) if free else -1

    def _hand_down(self, role: int, handoffs: list[tuple[int, int]]) -> int:
        """Give ``role`` (whose host moved up) to one of its children; return messages."""
        notify = len(self.live_children(role))
        if self.level[role] == 1:
            node = self._free_node(role)
            self._set_host(role, node)
            handoffs.append((role, node))
            return notify
        cands = [c for c in self.children[role] if self.role_alive(c)]
        if not cands:
            self._set_host(role, -1)
            handoffs.append((role, -1))
            return notify
        child = min(cands, key=lambda c: self.host[c])
        self._set_host(role, self.host[child])
        handoffs.append((role, self.host[role]))
        return notify + self._hand_down(child, handoffs)

    def repair(self, role: int) -> Repair:
        """Replace the dead host of ``role`` by the rule of the module docstring.

        Parameters
        ----------
        role : int
            The role whose host died, in ``[0, roles)``.

        Returns
        -------
        Repair
            The host changes and the control messages; a role with no live child
            stays orphaned (host -1).

        Raises
        ------
        InvalidInputError
            If ``role`` is not a role of the hierarchy.
        """
        role = integer("role", role, minimum=0, maximum=self.n_roles - 1)
        handoffs: list[tuple[int, int]] = []
        live = self.live_children(role)
        election = len(live) * (len(live) - 1)
        notify = 0
        if self.level[role] == 1:
            node = self._free_node(role)
            self._set_host(role, node)
            handoffs.append((role, node))
        elif not live:
            self._set_host(role, -1)
            handoffs.append((role, -1))
        else:
            child = min(live, key=lambda c: self.host[c])
            self._set_host(role, self.host[child])
            handoffs.append((role, self.host[role]))
            notify = self._hand_down(child, handoffs)
        return Repair(role, tuple(handoffs), election, notify)
