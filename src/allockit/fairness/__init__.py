"""Property testing of DRFH mechanisms: the fairness properties of Wang, Li, Liang (2014).

``check(mechanism, properties)`` draws small instances with hypothesis, evaluates each
property on them and returns one ``PropertyReport`` per property: ``held`` on N
examples, or ``violated`` with the counterexample hypothesis shrank to and its evidence
(the instance, the mechanism's tasks per user and server class with dominant shares,
and what shows the violation: the improving allocation, the envied bundle and both
users' tasks, the lie and the tasks it gains, the weights when they matter), or
``error`` when some example could not be decided, which is never counted as held.

The mechanism is a built-in name (``allockit.drfh.DRFH_METHODS``), a registered
plug-in, a ``MODULE:FUNCTION`` or ``PATH/TO/FILE.py:FUNCTION`` spec, or a callable
``f(instance, **options)`` that returns a ``DRFHResult`` or an array of tasks per user
and server class (or per server), fractional allowed; allockit checks capacities and
caps (``allockit.drfh.allocate``).

**Whole or divisible tasks.** An allocation in which every user's bundle holds whole
tasks on every individual server is judged against whole-task alternatives (Pareto: an
integer program over the individual servers, since a task cannot straddle two servers
of a class; envy: whole tasks that fit in another's bundle server by server), any other
against divisible ones (an LP over the pooled classes). ``semantics="whole"`` or
``"fractional"`` forces one; each report says which applied (``semantics``).

The properties (``PROPERTIES``; details in ``allockit.fairness.properties``):
envy-freeness, Pareto optimality, truthfulness (a search over systematic misreports:
"no profitable misreport found among K tried" is evidence, not a proof), single-server
DRF, single-resource fairness and bottleneck fairness (against a closed-form weighted
max-min allocation, or its whole-task form), population monotonicity (each user in turn
leaves), and the sharing incentive, which is *measured*, never passed or failed: the
paper shows DRFH can fail it.

Examples
--------
The false pass of the old checker: one server (2, 2), two users of demand (0.1, 0.1)
capped at 5 tasks; a mechanism that gives user 0 its 5 tasks and user 1 none leaves
three quarters of the server idle.

>>> from allockit.fairness import check
>>> from allockit.instances.drfh import DRFHInstance
>>> inst = DRFHInstance.from_dict({"resources": ["cpu", "mem"],
...     "servers": [{"name": "s0", "capacity": [2, 2]}],
...     "users": [{"name": "u0", "demand": [0.1, 0.1], "tasks": 5},
...               {"name": "u1", "demand": [0.1, 0.1], "tasks": 5}]})
>>> def hoard(instance):
...     return [[5], [0]]
>>> [r] = check(hoard, ["pareto"], instance=inst)
>>> r.status, r.semantics, r.evidence["gains"]
('violated', 'whole', {'u0': 0.0, 'u1': 5.0})

Per-server DRF is not Pareto optimal even counting whole tasks (the paper's Fig. 2);
progressive filling holds every property it is proven to have:

>>> [r] = check("per-server-drf", ["pareto"], examples=50, seed=0)
>>> r.status, r.semantics
('violated', 'whole')
>>> [r.status for r in check("progressive", ["envy_freeness", "pareto"], examples=20)]
['held', 'held']
"""

from __future__ import annotations

from typing import Any

from allockit.fairness.names import DESCRIPTIONS, PROPERTIES, SEMANTICS, STATUSES

__all__ = [
    "DESCRIPTIONS",
    "MECHANISMS",
    "PROPERTIES",
    "SEMANTICS",
    "STATUSES",
    "PropertyReport",
    "check",
    "paragraph",
    "replay",
    "tasks_from",
]

#: Public name -> the submodule that defines it (loaded on first use: the command
#: line lists the properties without loading numpy).
_LAZY = {
    "MECHANISMS": "mechanism",
    "PropertyReport": "report",
    "check": "checker",
    "paragraph": "explain",
    "replay": "checker",
    "tasks_from": "allocation",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f"allockit.fairness.{_LAZY[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'allockit.fairness' has no attribute {name!r}")
