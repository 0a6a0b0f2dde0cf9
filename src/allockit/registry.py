"""Every method of every family, built-in or registered, by name: the ``allockit methods`` list.

The families and their built-ins: ``vcsched`` (``allockit.vcsched.METHOD_SPECS``),
``drfh`` (``allockit.drfh.METHOD_SPECS``), ``reserves`` (``allockit.reserves``) and
``scheduler`` (the simulators of ``allockit.simulation.simulate``: FCFS, EASY, the DFRS
family and the two-tier schedulers). ``resolve_method`` names an algorithm the same way
in every family (``allockit.plugins``); ``method_list`` describes each one with its
options (name, range, default, meaning) and where it comes from.

Examples
--------
>>> [m["name"] for m in method_list("drfh")][:3]
['lp', 'progressive', 'first-fit']
>>> resolve_method("vcsched", "mcb8").origin
'built-in'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from allockit.errors import InvalidInputError
from allockit.options import COMMON_OPTIONS, MethodSpec
from allockit.plugins import FAMILIES, ResolvedMethod, registered, resolve

__all__ = ["builtin_specs", "method_list", "resolve_method"]

#: The pattern of the DFRS algorithm names (``allockit.simulation.names``).
DFRS_PATTERN = "ON_SUBMIT[ *][/per|/stretch-per][/opt=min|avg|max][/minft=S|/minvt=S]"


def builtin_specs(family: str) -> dict[str, MethodSpec]:
    """The built-in methods of ``family`` with their declared options.

    Parameters
    ----------
    family : str
        ``"vcsched"``, ``"drfh"``, ``"reserves"`` or ``"scheduler"``.

    Returns
    -------
    dict of str to MethodSpec
        Name -> spec, in the family's order. For ``scheduler``: ``FCFS``, ``EASY``, the
        DFRS family under its name pattern, then ``KEASY``, ``REASY``, ``MEASY``.

    Raises
    ------
    InvalidInputError
        For an unknown family.

    Examples
    --------
    >>> list(builtin_specs("reserves"))
    ['bank', 'cluster-reserves']
    """
    if family == "vcsched":
        from allockit.vcsched import METHOD_SPECS

        return dict(METHOD_SPECS)
    if family == "drfh":
        from allockit.drfh import METHOD_SPECS

        return dict(METHOD_SPECS)
    if family == "reserves":
        from allockit.reserves import METHOD_SPECS

        return dict(METHOD_SPECS)
    if family == "scheduler":
        import dataclasses

        from allockit.simulation.simulate import SIMULATORS

        batch, dfrs, tiers = (SIMULATORS[k].spec for k in ("batch", "dfrs", "two-tier"))
        out = {
            "FCFS": dataclasses.replace(
                batch, name="FCFS", summary="first come, first served (no backfilling)"
            ),
            "EASY": dataclasses.replace(
                batch, name="EASY", summary="EASY backfilling (Lifka): FCFS with a "
                "reservation for the head, later jobs backfilled"
            ),
            DFRS_PATTERN: dataclasses.replace(dfrs, name=DFRS_PATTERN),
        }
        for name in ("KEASY", "REASY", "MEASY"):
            out[name] = dataclasses.replace(tiers, name=name)
        return out
    raise InvalidInputError(f"family must be one of {sorted(FAMILIES)}; got {family!r}")


def resolve_method(family: str, method: Any, *, label: str | None = None) -> ResolvedMethod:
    """Name an algorithm of ``family``: a built-in, a plug-in, a spec or a callable.

    Parameters
    ----------
    family : str
        A key of ``allockit.plugins.FAMILIES``.
    method : str or callable
        What the user gave.
    label : str, optional
        How messages name the option (``"--method"`` on the command line).

    Returns
    -------
    ResolvedMethod
        ``builtin`` is True for the family's own methods (then ``function`` is None
        for the schedulers, whose simulators run them by name).

    Raises
    ------
    InvalidInputError
        One line naming the spec and the cause (see ``allockit.plugins.resolve``); for
        an unknown scheduler name, the part of the name that is wrong.

    Examples
    --------
    >>> resolve_method("scheduler", "GreedyPM */per").builtin
    True
    >>> resolve_method("reserves", "nosuch_mod_q:f", label="--method")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: --method 'nosuch_mod_q:f': cannot import module \
'nosuch_mod_q': No module named 'nosuch_mod_q'
    """
    if family == "scheduler":
        from allockit.plugins import is_spec
        from allockit.simulation.simulate import is_builtin, simulator_for

        if is_builtin(method):
            return ResolvedMethod(method, None, "built-in", True, method)
        if isinstance(method, str) and not (
            is_spec(method) or f"scheduler.{method}" in registered("scheduler")
        ):
            try:
                simulator_for(method)
            except InvalidInputError as exc:
                text = str(exc)
                if label and text.startswith("algorithm "):
                    text = f"{label} {text[len('algorithm '):]}"
                raise InvalidInputError(text) from None
        return resolve(family, method, {}, label=label)
    return resolve(family, method, builtin_specs(family), label=label)


def _option_rows(spec: MethodSpec | None) -> list[dict[str, Any]]:
    if spec is None:
        return []
    rows = []
    for name in spec.options:
        rng = spec.ranges.get(name)
        rows.append(
            {
                "name": name,
                "range": rng.describe() if rng is not None else None,
                "default": _jsonable(spec.defaults.get(name)),
                "meaning": spec.help.get(name, ""),
            }
        )
    return rows


def _jsonable(value: Any) -> Any:
    return value if value is None or isinstance(value, bool | int | float | str) else repr(value)


def _common(spec: MethodSpec | None) -> dict[str, str]:
    notes = dict(spec.common) if spec is not None else {}
    return {k: notes.get(k, "used") for k in COMMON_OPTIONS}


def _plugin_entry(family: str, key: str, ep: Any) -> dict[str, Any]:
    name = key.partition(".")[2]
    dist = getattr(getattr(ep, "dist", None), "name", None)
    entry: dict[str, Any] = {
        "family": family,
        "name": name,
        "origin": f"entry point {dist!r}" if dist else "entry point",
        "target": ep.value,
    }
    if name in builtin_specs(family):
        entry["error"] = (
            f"plug-in {ep.value!r} is named like the built-in {name!r}, which takes "
            "precedence: it can never be called by that name"
        )
        return entry
    try:
        function = ep.load()
    except (Exception, SystemExit) as exc:
        entry["error"] = f"loading plug-in {ep.value!r} failed: {type(exc).__name__}: {exc}"
        return entry
    if not callable(function):
        entry["error"] = f"plug-in {ep.value!r} is not callable (a {type(function).__name__})"
        return entry
    spec = getattr(function, "method_spec", None)
    spec = spec if isinstance(spec, MethodSpec) else None
    doc = (getattr(function, "__doc__", None) or "").strip().splitlines()
    entry["summary"] = spec.summary if spec is not None else (doc[0] if doc else "")
    entry["options"] = _option_rows(spec)
    entry["common"] = _common(spec)
    return entry


def method_list(family: str | None = None) -> list[dict[str, Any]]:
    """Every method of ``family`` (or of all families): built-ins, then plug-ins.

    Parameters
    ----------
    family : str, optional
        One of ``allockit.plugins.FAMILIES`` (default: all, in that order).

    Returns
    -------
    list of dict
        Per method: ``family``, ``name``, ``summary``, ``origin`` (``"built-in"`` or
        ``"entry point 'DIST'"`` with the plug-in's ``target``), ``options`` (each
        ``name``, ``range``, ``default``, ``meaning``; a plug-in lists the options of
        its ``method_spec`` attribute when it declares one) and ``common`` (what the
        method does with ``time_limit``, ``threads`` and ``seed``). A plug-in that fails
        to load, is not callable, or is named like a built-in (which takes precedence)
        is listed with its ``error``.

    Raises
    ------
    InvalidInputError
        For an unknown family.

    Examples
    --------
    >>> mcb8 = [m for m in method_list("vcsched") if m["name"] == "mcb8"][0]
    >>> mcb8["origin"], mcb8["options"][0]["name"], mcb8["options"][0]["default"]
    ('built-in', 'tol', 0.001)
    """
    families = list(FAMILIES) if family is None else [family]
    if family is not None and family not in FAMILIES:
        raise InvalidInputError(f"family must be one of {sorted(FAMILIES)}; got {family!r}")
    out: list[dict[str, Any]] = []
    for fam in families:
        for name, spec in builtin_specs(fam).items():
            out.append(
                {
                    "family": fam,
                    "name": name,
                    "summary": spec.summary,
                    "origin": "built-in",
                    "options": _option_rows(spec),
                    "common": _common(spec),
                }
            )
        plugins: Mapping[str, Any] = registered(fam)
        for key, ep in plugins.items():
            out.append(_plugin_entry(fam, key, ep))
    return out
