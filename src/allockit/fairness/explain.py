"""A counterexample as one paragraph a person can read (``allockit fairness`` on stderr).

Examples
--------
>>> inst = {"resources": ["cpu"], "servers": [{"name": "s0", "capacity": [1], "count": 1}],
...     "users": [{"name": "a", "demand": [0.5], "weight": 1.0, "tasks": None}]}
>>> print(describe_instance(inst))
resources cpu; servers s0 [1] x1; users a demand [0.5] weight 1 tasks unbounded
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from allockit.errors import InvalidInputError

__all__ = ["describe_instance", "paragraph"]


def _f(value: Any) -> str:
    if value is None:
        return "unbounded"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_f(v) for v in value) + "]"
    return f"{float(value):.6g}"


def describe_instance(instance: dict[str, Any]) -> str:
    """The instance in one line: resources, servers (capacity x count), users.

    Parameters
    ----------
    instance : dict
        ``DRFHInstance.to_dict()``.

    Returns
    -------
    str

    Examples
    --------
    >>> describe_instance({"resources": ["r0"], "servers": [{"name": "s", "capacity": [2],
    ...     "count": 3}], "users": [{"name": "u", "demand": [1], "weight": 2, "tasks": 4}]})
    'resources r0; servers s [2] x3; users u demand [1] weight 2 tasks 4'
    """
    servers = ", ".join(
        f"{s['name']} {_f(s['capacity'])} x{s.get('count', 1)}" for s in instance["servers"]
    )
    users = ", ".join(
        f"{u['name']} demand {_f(u['demand'])} weight {_f(u.get('weight', 1.0))} "
        f"tasks {_f(u.get('tasks'))}"
        for u in instance["users"]
    )
    return f"resources {', '.join(instance['resources'])}; servers {servers}; users {users}"


def _allocation(alloc: dict[str, Any]) -> str:
    parts = []
    for user, per_class in alloc["tasks"].items():
        where = ", ".join(f"{s}: {_f(t)}" for s, t in per_class.items() if t)
        share = alloc.get("dominant_share", {}).get(user)
        extra = f"; dominant share {_f(share)}" if share is not None else ""
        total = alloc.get("total", {}).get(user, sum(per_class.values()))
        parts.append(f"{user} {_f(total)}" + (f" ({where}{extra})" if where else f" ({extra[2:]})"))
    return ", ".join(parts)


def _evidence(name: str, ev: dict[str, Any]) -> str:
    if name == "envy_freeness":
        u, v = ev["user"], ev["envied"]
        text = (
            f"{u} could run {_f(ev['tasks_in_envied_bundle'])} tasks with {v}'s bundle "
            f"({v} itself runs {_f(ev['envied_user_tasks'])}), against {_f(ev['own_tasks'])} "
            "with its own"
        )
        if ev.get("weights_matter"):
            w = ev["weights"]
            text += (
                f"; weights {u} {_f(w[u])} and {v} {_f(w[v])} entitle it to {_f(w[u])}/"
                f"{_f(w[v])} of that bundle, {_f(ev['entitled_tasks'])} tasks"
            )
        elif ev.get("cap") is not None and ev["entitled_tasks"] < ev["tasks_in_envied_bundle"]:
            text += f" (counted up to its cap of {_f(ev['cap'])} tasks)"
        return text + "."
    if name == "pareto":
        better = ev["improving_allocation"]
        gains = ", ".join(f"{u} +{_f(g)}" for u, g in ev["gains"].items() if g > 0)
        return (
            "An allocation within every server's capacity and every task cap gives "
            f"{_allocation(better)}: {gains}, nobody fewer."
        )
    if name == "truthfulness":
        cap = f" (counted up to its cap of {_f(ev['cap'])})" if ev.get("cap") is not None else ""
        return (
            f"Reporting demand {_f(ev['reported_demand'])} instead of {_f(ev['true_demand'])}, "
            f"{ev['user']} receives a bundle that runs {_f(ev['tasks_with_lie'])} of its true "
            f"tasks{cap}, against {_f(ev['honest_tasks'])} when truthful (+{_f(ev['gain'])}; "
            f"{ev['misreports_tried']} misreports tried). Under the lie: "
            f"{_allocation(ev['allocation_with_lie'])}."
        )
    if name in ("single_server_drf", "single_resource_fairness", "bottleneck_fairness"):
        weights = ""
        if ev.get("weights_matter"):
            weights = " (weights " + ", ".join(
                f"{u} {_f(w)}" for u, w in ev["weights"].items()
            ) + ")"
        if "fair_tasks" in ev:
            fair = ", ".join(f"{u} {_f(t)}" for u, t in ev["fair_tasks"].items())
            return f"The weighted max-min fair allocation{weights} gives {fair}."
        taken = ev.get("taken_from", {})
        source = (
            "taking only from "
            + ", ".join(
                f"{u} ({_f(t['tasks'])} -> {_f(t['after'])}, weighted share "
                f"{_f(t['weighted_share_after'])})"
                for u, t in taken.items()
            )
            + f", who stay at or above its new weighted share {_f(ev['weighted_share_after'])}"
            if taken
            else "taking from nobody"
        )
        return (
            f"{ev['user']} could run one more whole task ({_f(ev['tasks'])} -> "
            f"{_f(ev['tasks'] + 1)}) {source}{weights}: {_allocation(ev['alternative'])}."
        )
    if name == "population_monotonicity":
        return (
            f"When {ev['leaving']} leaves, {ev['user']} drops from {_f(ev['tasks_before'])} to "
            f"{_f(ev['tasks_after'])} tasks; after: {_allocation(ev['allocation_after'])}."
        )
    if name == "sharing_incentive":
        user = ev.get("user")
        if user is None:
            return "No user runs fewer tasks than on its dedicated share."
        return (
            f"{user} runs {_f(ev['shared_tasks'][user])} tasks shared and "
            f"{_f(ev['dedicated_tasks'][user])} alone on its dedicated share of the servers "
            f"({ev['worse_users']} of {ev['users']} users worse off here)."
        )
    return ""


def paragraph(record: dict[str, Any]) -> str:
    """One paragraph for a report record: the instance, the allocation and the evidence.

    Parameters
    ----------
    record : dict
        A ``PropertyReport.to_dict()`` record (or one ``replay`` builds).

    Returns
    -------
    str
        Empty for a property that held.

    Raises
    ------
    InvalidInputError
        If ``record`` is not a mapping with ``property`` and ``status``.

    Examples
    --------
    >>> print(paragraph({"property": "pareto", "status": "error", "method": "m",
    ...     "error": {"message": "the mechanism raised ValueError: no", "instance": {
    ...     "resources": ["r0"], "servers": [{"name": "s", "capacity": [1], "count": 1}],
    ...     "users": [{"name": "u", "demand": [1], "weight": 1, "tasks": None}]}}}))
    pareto: ERROR for m, an example could not be decided: the mechanism raised \
ValueError: no. Instance: resources r0; servers s [1] x1; users u demand [1] weight 1 \
tasks unbounded.
    """
    if not isinstance(record, Mapping) or not all(k in record for k in ("property", "status")):
        raise InvalidInputError(
            "record must be a property report's record (a mapping with 'property' and "
            f"'status', as PropertyReport.to_dict() gives); got {record!r}"
        )
    name, status, method = record["property"], record["status"], record.get("method", "")
    if status == "error" and record.get("error"):
        err = record["error"]
        return (
            f"{name}: ERROR for {method}, an example could not be decided: {err['message']}. "
            f"Instance: {describe_instance(err['instance'])}."
        )
    ev = record.get("evidence") or {}
    if status not in ("violated", "measured") or not record.get("counterexample"):
        return ""
    semantics = ev.get("semantics", record.get("semantics"))
    counted = "whole tasks" if semantics == "whole" else "divisible tasks"
    head = "VIOLATED" if status == "violated" else "MEASURED (not a guarantee)"
    examples = record.get("examples", 0)
    if examples == 1 and not record.get("shrink_steps"):
        found = "on the one instance checked"
    elif status == "violated":
        found = (
            f"found after {examples} examples, shrunk in {record.get('shrink_steps', 0)} "
            "steps"
        )
    else:
        found = f"over {examples} examples"
    alloc = ev.get("allocation")
    gives = f" The mechanism gives {_allocation(alloc)}." if alloc else ""
    return (
        f"{name}: {head} for {method} ({counted}; {found}). Instance: "
        f"{describe_instance(record['counterexample'])}.{gives} {_evidence(name, ev)}"
    ).strip()
