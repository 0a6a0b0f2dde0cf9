"""How a task names its algorithm: a built-in by name, a user's by spec (shipped) or callable.

Every task builder of the experiments (``vcsched_tasks``, the sweep kinds, ``compare``)
turns the methods the user gave into task fields with ``method_fields``: a built-in
travels by its name; a user's algorithm by its re-resolvable spec, with the source of a
``FILE.py:FUNCTION`` spec's file carried in the task (so a Dask worker on another
machine runs the same code), or, for a callable that has no importable name (a
lambda, a function of ``__main__``), as the callable itself, which only the ``serial``
backend (this process) can run.

Examples
--------
>>> method_fields("vcsched", "mcb8")
{'method': 'mcb8'}
>>> f = method_fields("vcsched", "math:sqrt")
>>> f["method"], f["spec"], f["sources"], f["function"]
('math:sqrt', 'math:sqrt', {}, None)
"""

from __future__ import annotations

from typing import Any

__all__ = ["method_fields", "needs_this_process"]


def method_fields(family: str, method: Any, *, label: str | None = None) -> dict[str, Any]:
    """The ``Task`` fields naming ``method`` of ``family`` (checked here, loaded once).

    Parameters
    ----------
    family : str
        ``"vcsched"``, ``"drfh"``, ``"reserves"`` or ``"scheduler"``.
    method : str or callable
        A built-in name, a plug-in's name, a ``MODULE:FUNCTION`` or
        ``PATH/TO/FILE.py:FUNCTION`` spec, or a callable.
    label : str, optional
        How messages name the option (``"methods[2]"`` in a sweep file).

    Returns
    -------
    dict
        ``{"method": name}`` for a built-in; for a user's algorithm also ``spec`` (what
        workers resolve; an absolute path for a file), ``sources`` (the file's text, for
        a file spec) and ``function`` (the callable, when it has no spec).

    Raises
    ------
    InvalidInputError
        For an unknown name or a spec that cannot be loaded (one line naming it).

    Examples
    --------
    >>> method_fields("drfh", "nosuch_mod_x:f")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: method 'nosuch_mod_x:f': cannot import module \
'nosuch_mod_x': No module named 'nosuch_mod_x'
    """
    from allockit.plugins import file_sources
    from allockit.registry import resolve_method

    resolved = resolve_method(family, method, label=label)
    if resolved.builtin:
        return {"method": resolved.name}
    return {
        "method": resolved.name,
        "spec": resolved.spec or "",
        "sources": file_sources(resolved.spec),
        "function": resolved.function if resolved.spec is None else None,
    }


def needs_this_process(tasks: list[Any]) -> list[str]:
    """The methods of ``tasks`` that only this process can run (callables without a name).

    Parameters
    ----------
    tasks : list of allockit.tasks.Task
        A grid.

    Returns
    -------
    list of str
        Their names, each once, in order.

    Examples
    --------
    >>> from allockit.tasks import Task
    >>> t = Task(kind="sleep", instance_id="a", instance={}, method="<lambda>",
    ...          function=lambda instance: None)
    >>> needs_this_process([t, t])
    ['<lambda>']
    """
    names: list[str] = []
    for task in tasks:
        if task.function is not None and task.method not in names:
            names.append(task.method)
    return names
