"""Li and Parker's experiments (Figs 3-8) as cluster-simulator configurations.

Each builder returns a ``ClusterSimConfig``; keyword overrides replace any field (for
example ``fig5(algorithm="cluster-reserves", duration=30.0)``). Common to all: targets
60/30/10, every class offered the full capacity of the nodes it may use (``load`` 1,
so every class is backlogged wherever it is sent: "far more than 10 % of requests
being issued on class 3"), 10 ms requests, reports every 0.3 s, 1 ms message delay,
60 simulated seconds of which the first 10 are warm-up. The paper's numbers are in
``PAPER`` for the tables beside ours.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from allockit.checks import first_bad_entry, real_array
from allockit.errors import InvalidInputError
from allockit.simulation.cluster import ClusterSimConfig, allowed_mask
from allockit.simulation.hierarchy import Hierarchy

__all__ = [
    "PAPER",
    "SCENARIOS",
    "fig3",
    "fig3_ideal",
    "fig4",
    "fig5",
    "fig6",
    "fig7",
    "fig8",
    "ideal_allocation",
    "manager_entity",
    "scaled",
    "scenario",
    "skewed",
]

#: What Li and Parker report per figure (percent; recovery in reporting cycles).
PAPER: dict[str, dict[str, Any]] = {
    "fig3": {"static_class3": 2.5, "ideal_class3_on_node4": 40.0},
    "fig4": {"class3_mean": 10.5, "class3_std": 2.8},
    "fig5": {"class3_mean": 8.9, "class3_std": 0.58, "static_class3": 3.0},
    "fig6": {"note": "like Fig. 5 with slower changes, similar s.d., marginally lower mean"},
    "fig7": {"note": "s.d. smaller than Fig. 5, lower class-3 mean"},
    "fig8": {"recovery_cycles": 3},
    "skewed": {"note": "the same as aligned reporting"},
    "claim": {"within_pp": 2.0, "std_below": 1.0},
}


def _config(overrides: dict[str, Any], **base: Any) -> ClusterSimConfig:
    fields = {f.name for f in dataclasses.fields(ClusterSimConfig)}
    unknown = sorted(set(overrides) - fields)
    if unknown:
        raise InvalidInputError(
            f"unknown scenario field {unknown[0]!r}; fields: {', '.join(sorted(fields))}"
        )
    base.update(overrides)
    return ClusterSimConfig(**base)


def fig3(*, algorithm: str = "static", **overrides: Any) -> ClusterSimConfig:
    """Fig. 3: 4 nodes, class 3 dispatched only to node 4, one (flat) manager.

    Static 60/30/10 shares give class 3 10 % of node 4, 2.5 % of the cluster.

    Parameters
    ----------
    algorithm : {"static", "bank", "cluster-reserves"}
        The managers' allocation algorithm (``ClusterSimConfig.algorithm``).
    **overrides
        Any other ``ClusterSimConfig`` field, replacing the scenario's value.

    Returns
    -------
    ClusterSimConfig
        4 nodes under one manager (``fanout=()``), class 3 dispatched to node id 3.

    Raises
    ------
    InvalidInputError
        For an override that is not a ``ClusterSimConfig`` field, or a value it refuses
        (the message names the field).

    Examples
    --------
    >>> fig3().dispatch, fig3().algorithm
    ((None, None, (3,)), 'static')
    """
    return _config(overrides, n_nodes=4, dispatch=(None, None, (3,)), algorithm=algorithm)


def fig3_ideal(**overrides: Any) -> ClusterSimConfig:
    """Fig. 3's ideal: the static allocation of ``ideal_allocation`` (class 3 holds 40 %
    of node 4), which yields 60/30/10 cluster-wide.

    Parameters
    ----------
    **overrides
        ``fig3``'s keyword arguments: ``algorithm`` (default ``"static"``) or any
        ``ClusterSimConfig`` field; the ideal is computed from the resulting targets and
        dispatch.

    Returns
    -------
    ClusterSimConfig
        ``fig3``'s configuration with ``static_allocation`` set, one row per node
        (percent).

    Raises
    ------
    InvalidInputError
        For an override value that ``ClusterSimConfig`` refuses (it names the field),
        or targets and dispatch under which the restricted classes do not fit
        (``ideal_allocation``).
        Also for an override that is not a ``ClusterSimConfig`` field.

    Examples
    --------
    >>> fig3_ideal().static_allocation[3]
    (40.0, 20.0, 40.0)
    """
    cfg = fig3(**overrides)
    ideal = ideal_allocation(np.array(cfg.targets), allowed_mask(cfg))
    return dataclasses.replace(cfg, static_allocation=tuple(map(tuple, ideal.tolist())))


def fig4(*, algorithm: str = "bank", **overrides: Any) -> ClusterSimConfig:
    """Fig. 4: Fig. 3's cluster under a 2-level hierarchy (two level-1 managers of two
    nodes under a top manager). Paper: class 3 about 10.5 %, s.d. 2.8 %.

    Parameters
    ----------
    algorithm : {"bank", "cluster-reserves", "static"}
        The managers' allocation algorithm (``ClusterSimConfig.algorithm``).
    **overrides
        Any other ``ClusterSimConfig`` field, replacing the scenario's value.

    Returns
    -------
    ClusterSimConfig
        4 nodes, ``fanout=(2,)``, class 3 dispatched to node id 3.

    Raises
    ------
    InvalidInputError
        For an override that is not a ``ClusterSimConfig`` field, or a value it refuses
        (the message names the field).

    Examples
    --------
    >>> cfg = fig4()
    >>> cfg.n_nodes, cfg.fanout, cfg.dispatch, cfg.algorithm
    (4, (2,), (None, None, (3,)), 'bank')

    References
    ----------
    .. [1] N. Li and J. Parker, Cluster Resource Management: A Scalable Approach, Fig. 4.
    """
    return _config(overrides, n_nodes=4, fanout=(2,), dispatch=(None, None, (3,)),
                   algorithm=algorithm)


def fig5(*, algorithm: str = "bank", **overrides: Any) -> ClusterSimConfig:
    """Fig. 5: 100 nodes, 10 level-1 managers of 10 nodes under a top manager, class 3
    only to the first 30 nodes. Paper: class 3 about 8.9 %, s.d. 0.58 %; the static
    reference (``algorithm="static"``) gives it 3 %.

    Parameters
    ----------
    algorithm : {"bank", "cluster-reserves", "static"}
        The managers' allocation algorithm (``ClusterSimConfig.algorithm``).
    **overrides
        Any other ``ClusterSimConfig`` field, replacing the scenario's value.

    Returns
    -------
    ClusterSimConfig
        100 nodes, ``fanout=(10,)``, class 3 dispatched to the first 30 nodes.

    Raises
    ------
    InvalidInputError
        For an override that is not a ``ClusterSimConfig`` field, or a value it refuses
        (the message names the field).

    Examples
    --------
    >>> cfg = fig5()
    >>> cfg.n_nodes, cfg.fanout, cfg.dispatch
    (100, (10,), (None, None, 30))
    >>> fig5(algorithm="static", duration=30.0).duration
    30.0

    References
    ----------
    .. [1] N. Li and J. Parker, Cluster Resource Management: A Scalable Approach, Fig. 5.
    """
    return _config(overrides, n_nodes=100, fanout=(10,), dispatch=(None, None, 30),
                   algorithm=algorithm)


def fig6(*, algorithm: str = "bank", **overrides: Any) -> ClusterSimConfig:
    """Fig. 6: Fig. 5 with nodes reporting every 0.3 s and managers every 1.5 s.

    Parameters
    ----------
    algorithm : {"bank", "cluster-reserves", "static"}
        The managers' allocation algorithm (``ClusterSimConfig.algorithm``).
    **overrides
        Any other ``ClusterSimConfig`` field, replacing the scenario's value.

    Returns
    -------
    ClusterSimConfig
        ``fig5``'s configuration with ``node_period=0.3`` and ``manager_period=1.5``
        (s); overrides of either period win.

    Raises
    ------
    InvalidInputError
        For an override that is not a ``ClusterSimConfig`` field, or a value it refuses
        (the message names the field).

    Examples
    --------
    >>> cfg = fig6()
    >>> cfg.n_nodes, cfg.node_period, cfg.manager_period
    (100, 0.3, 1.5)

    References
    ----------
    .. [1] N. Li and J. Parker, Cluster Resource Management: A Scalable Approach, Fig. 6.
    """
    return fig5(algorithm=algorithm, **{"node_period": 0.3, "manager_period": 1.5,
                                         **overrides})


def fig7(*, algorithm: str = "bank", **overrides: Any) -> ClusterSimConfig:
    """Fig. 7: 900 nodes, 30 level-1 managers of 30 nodes, class 3 to the first 300.

    Parameters
    ----------
    algorithm : {"bank", "cluster-reserves", "static"}
        The managers' allocation algorithm (``ClusterSimConfig.algorithm``).
    **overrides
        Any other ``ClusterSimConfig`` field, replacing the scenario's value.

    Returns
    -------
    ClusterSimConfig
        900 nodes, ``fanout=(30,)``, class 3 dispatched to the first 300 nodes.

    Raises
    ------
    InvalidInputError
        For an override that is not a ``ClusterSimConfig`` field, or a value it refuses
        (the message names the field).

    Examples
    --------
    >>> cfg = fig7()
    >>> cfg.n_nodes, cfg.fanout, cfg.dispatch
    (900, (30,), (None, None, 300))

    References
    ----------
    .. [1] N. Li and J. Parker, Cluster Resource Management: A Scalable Approach, Fig. 7.
    """
    return _config(overrides, n_nodes=900, fanout=(30,), dispatch=(None, None, 300),
                   algorithm=algorithm)


def fig8(*, algorithm: str = "bank", **overrides: Any) -> ClusterSimConfig:
    """Fig. 8: 100 nodes (Fig. 5's hierarchy), every class to every node; class 1's
    dispatch stops at 20 s and 40 s and restarts 1.5 s later. Paper: back to the
    targets about 3 reporting cycles after each restart.

    Parameters
    ----------
    algorithm : {"bank", "cluster-reserves", "static"}
        The managers' allocation algorithm (``ClusterSimConfig.algorithm``).
    **overrides
        Any other ``ClusterSimConfig`` field, replacing the scenario's value.

    Returns
    -------
    ClusterSimConfig
        100 nodes, ``fanout=(10,)``, every class to every node, and ``stops``
        ``(class, start, end)`` in simulated seconds.

    Raises
    ------
    InvalidInputError
        For an override that is not a ``ClusterSimConfig`` field, or a value it refuses
        (the message names the field).

    Examples
    --------
    >>> cfg = fig8()
    >>> cfg.dispatch, cfg.stops
    ((None, None, None), ((0, 20.0, 21.5), (0, 40.0, 41.5)))

    References
    ----------
    .. [1] N. Li and J. Parker, Cluster Resource Management: A Scalable Approach, Fig. 8.
    """
    return _config(overrides, n_nodes=100, fanout=(10,), algorithm=algorithm,
                   stops=((0, 20.0, 21.5), (0, 40.0, 41.5)))


def skewed(*, algorithm: str = "bank", **overrides: Any) -> ClusterSimConfig:
    """Fig. 5 with skewed (random, seeded) reporting phases. Paper: the same results.

    Parameters
    ----------
    algorithm : {"bank", "cluster-reserves", "static"}
        The managers' allocation algorithm (``ClusterSimConfig.algorithm``).
    **overrides
        Any other ``ClusterSimConfig`` field, replacing the scenario's value.

    Returns
    -------
    ClusterSimConfig
        ``fig5``'s configuration with ``skew=True`` (the phases are drawn from the
        simulation's seed).

    Raises
    ------
    InvalidInputError
        For an override that is not a ``ClusterSimConfig`` field, or a value it refuses
        (the message names the field).

    Examples
    --------
    >>> cfg = skewed()
    >>> cfg.skew, cfg.n_nodes, cfg.dispatch
    (True, 100, (None, None, 30))
    """
    return fig5(algorithm=algorithm, **{"skew": True, **overrides})


def scaled(
    n_nodes: int, *, algorithm: str = "bank", class3_fraction: float = 0.3, **overrides: Any
) -> ClusterSimConfig:
    """Beyond the paper: ``n_nodes`` nodes, class 3 to the first 30 %, two levels with
    about ``sqrt(n_nodes)`` nodes per level-1 manager (10,000 nodes: 100 managers of
    100).

    Parameters
    ----------
    n_nodes : int
        Nodes ``N`` (>= 1).
    algorithm : {"bank", "cluster-reserves", "static"}
        The managers' allocation algorithm (``ClusterSimConfig.algorithm``).
    class3_fraction : float
        Share of the nodes, in (0, 1], that class 3 is dispatched to (the first
        ``round(class3_fraction * n_nodes)``, at least 1).
    **overrides
        Any other ``ClusterSimConfig`` field, replacing the scenario's value.

    Returns
    -------
    ClusterSimConfig
        ``n_nodes`` nodes, ``fanout=(max(2, ceil(sqrt(n_nodes))),)``.

    Raises
    ------
    InvalidInputError
        For ``class3_fraction`` outside (0, 1], or a value ``ClusterSimConfig``
        refuses (``n_nodes`` of 0, a bad override value).
        Also for an override that is not a ``ClusterSimConfig`` field.

    Examples
    --------
    >>> cfg = scaled(10_000)
    >>> cfg.fanout, cfg.dispatch[2]
    ((100,), 3000)
    >>> scaled(100, class3_fraction=0)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: class3_fraction must be in (0, 1]; got 0
    """
    if not 0 < class3_fraction <= 1:
        raise InvalidInputError(f"class3_fraction must be in (0, 1]; got {class3_fraction!r}")
    if isinstance(n_nodes, bool) or not isinstance(n_nodes, int) or n_nodes < 1:
        raise InvalidInputError(f"n_nodes must be an integer >= 1; got {n_nodes!r}")
    fan = max(2, math.ceil(math.sqrt(n_nodes)))
    k = max(1, round(class3_fraction * n_nodes))
    return _config(overrides, n_nodes=n_nodes, fanout=(fan,), dispatch=(None, None, k),
                   algorithm=algorithm)


#: Scenario name -> builder.
SCENARIOS = {
    "fig3": fig3,
    "fig3-ideal": fig3_ideal,
    "fig4": fig4,
    "fig5": fig5,
    "fig6": fig6,
    "fig7": fig7,
    "fig8": fig8,
    "skewed": skewed,
}


def scenario(name: str, **overrides: Any) -> ClusterSimConfig:
    """The configuration of a named scenario (``SCENARIOS``), with overrides.

    Parameters
    ----------
    name : str
        A key of ``SCENARIOS``: ``"fig3"``, ``"fig3-ideal"``, ``"fig4"`` ... ``"fig8"``,
        ``"skewed"``.
    **overrides
        Keyword arguments of the builder (``algorithm``, any ``ClusterSimConfig``
        field).

    Returns
    -------
    ClusterSimConfig

    Raises
    ------
    InvalidInputError
        For an unknown name, or an override value the configuration refuses.
    TypeError
        For an override that is neither ``algorithm`` nor a ``ClusterSimConfig`` field.

    Examples
    --------
    >>> scenario("fig7", duration=20.0).n_nodes
    900
    >>> scenario("fig9")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: scenario must be one of ['fig3', 'fig3-ideal', ...
    """
    if name not in SCENARIOS:
        raise InvalidInputError(f"scenario must be one of {list(SCENARIOS)}; got {name!r}")
    return SCENARIOS[name](**overrides)


def ideal_allocation(targets: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """A static allocation that meets the targets exactly under a dispatch pattern.

    Rule: a class restricted to some nodes gets its whole cluster share ``N D_j``
    spread evenly over the nodes it may use; the classes sent everywhere share what is
    left on each node in proportion to their targets.

    Parameters
    ----------
    targets : array (S,)
        Percent, summing to 100.
    allowed : array (S, N) of bool

    Returns
    -------
    numpy.ndarray
        (N, S) percent.

    Raises
    ------
    InvalidInputError
        If the restricted classes do not fit on their nodes or nothing is left for the
        others; a target that is negative or not finite; ``allowed`` not a bool array of
        one row per target; or a class with a target > 0 that may use no node.

    Examples
    --------
    >>> ideal_allocation(np.array([60.0, 30, 10]), np.array([[1, 1], [1, 1], [0, 1]], bool))
    array([[66.66666667, 33.33333333,  0.        ],
           [53.33333333, 26.66666667, 20.        ]])
    """
    targets = real_array("targets", targets)
    first_bad_entry("targets", targets, targets >= 0, "finite and >= 0 (percent)")
    allowed = np.asarray(allowed)
    if allowed.dtype != bool or allowed.ndim != 2 or allowed.shape[0] != targets.size:
        raise InvalidInputError(
            f"allowed must be a (classes, nodes) array of bools with one row per target "
            f"({targets.size}); got {allowed.dtype} of shape {allowed.shape}"
        )
    s, n = allowed.shape
    nowhere = np.flatnonzero(~allowed.any(axis=1) & (targets > 0))
    if nowhere.size:
        raise InvalidInputError(
            f"class {int(nowhere[0])} has a target ({targets[nowhere[0]]:g} %) but no node "
            "it may use"
        )
    out = np.zeros((n, s))
    everywhere = allowed.all(axis=1)
    for j in np.flatnonzero(~everywhere):
        nodes = np.flatnonzero(allowed[j])
        if not nodes.size:  # (a class of target 0 that may run nowhere gets nothing)
            continue
        out[nodes, j] = n * targets[j] / len(nodes)
    room = 100.0 - out.sum(axis=1)
    if (room < -1e-9).any():
        raise InvalidInputError("the restricted classes do not fit on the nodes they may use")
    free = targets[everywhere]
    if free.sum() > 0:
        out[:, everywhere] = room[:, None] * free[None, :] / free.sum()
    return out


def manager_entity(config: ClusterSimConfig, level: int, index: int = 0) -> int:
    """The entity id of the machine hosting the ``index``-th manager of ``level`` at the
    start (for ``failures``; nodes are ``0..N-1``).

    Parameters
    ----------
    config : ClusterSimConfig
        Its ``n_nodes`` and ``fanout`` give the tree (``Hierarchy.build``).
    level : int
        Manager level: 1 for the managers of nodes, up to the top.
    index : int
        Position of the manager among those of ``level``, in build order.

    Returns
    -------
    int
        ``n_nodes + role``: the dedicated machine of that role.

    Raises
    ------
    InvalidInputError
        If there is no such manager (including a level the tree does not have).

    Examples
    --------
    >>> cfg = fig5()
    >>> manager_entity(cfg, 1, 0), manager_entity(cfg, 2)
    (100, 110)
    >>> manager_entity(cfg, 1, 10)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: level 1 has 10 managers; got index 10
    """
    h = Hierarchy.build(config.n_nodes, config.fanout)
    roles = h.roles_at(level)
    if not 0 <= index < len(roles):
        raise InvalidInputError(
            f"level {level} has {len(roles)} managers; got index {index}"
        )
    return config.n_nodes + roles[index]
