"""The mechanism under test: a built-in name, a spec string or a callable, run safely.

``Mechanism`` resolves what the user named with ``allockit.plugins.resolve`` (built-in
name, ``MODULE:FUNCTION``, ``PATH/TO/FILE.py:FUNCTION``, a registered plug-in or a
callable) and runs it through ``allockit.drfh.allocate``, which checks a user's output
(a ``DRFHResult``, or tasks per user and server class or server) against capacities and
task caps. A built-in reports per server (``split=True``) so that whole-task checks see
its own placement; a user's mechanism that returns tasks per server keeps them too.
Anything the mechanism raises, and any output ``allocate`` refuses, becomes
``MechanismFailed``: the example is an error, never a pass.

Examples
--------
>>> from allockit.instances.drfh import DRFHInstance
>>> inst = DRFHInstance.from_dict({"resources": ["cpu"], "servers": [{"capacity": [1]}],
...     "users": [{"demand": [0.5], "tasks": 1}]})
>>> Mechanism.resolve("first-fit")(inst).own("whole").tolist()
[1.0]
>>> Mechanism.resolve(lambda inst: [[2]])(inst)
Traceback (most recent call last):
...
allockit.fairness.mechanism.MechanismFailed: the mechanism's output was refused: ...
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from allockit.constants import FAIRNESS_MAX_INTEGERS
from allockit.drfh import DRFH_METHODS
from allockit.errors import InvalidInputError, MethodFailedError, method_failed
from allockit.fairness.allocation import Allocation
from allockit.instances.drfh import DRFHInstance
from allockit.results import SolveStatus

__all__ = ["MECHANISMS", "Mechanism", "MechanismFailed"]


class MechanismFailed(Exception):
    """The mechanism raised, refused the instance or returned an output ``allocate``
    refuses; the example is reported as an error.

    Examples
    --------
    >>> str(MechanismFailed("the mechanism raised ValueError: no"))
    'the mechanism raised ValueError: no'
    """


@dataclass(frozen=True)
class Mechanism:
    """A resolved mechanism with its options, callable on an instance.

    Attributes
    ----------
    name : str
        The built-in name or the spec as given (``"mymod:hoard"``), or
        ``module:qualname`` of a callable.
    spec : str or None
        A string ``allockit fairness replay`` can resolve again (None for a lambda).
    builtin : bool
        True for allockit's own mechanisms.
    function : callable or None
        A user's mechanism (None for a built-in).
    options : Mapping[str, Any]
        Passed to the mechanism on every call.

    Examples
    --------
    >>> Mechanism.resolve("slots", {"per_largest": 4}).options
    {'per_largest': 4}
    """

    name: str
    spec: str | None
    builtin: bool
    function: Callable[..., Any] | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def resolve(
        cls, mechanism: Any, options: Mapping[str, Any] | None = None, *, label: str = "method"
    ) -> Mechanism:
        """Find the mechanism ``mechanism`` names and check its options, before any run.

        Parameters
        ----------
        mechanism : str or callable
            A built-in name (``allockit.drfh.DRFH_METHODS``), a registered plug-in, a
            ``MODULE:FUNCTION`` or ``PATH/TO/FILE.py:FUNCTION`` spec, a callable
            ``f(instance, **options)``, a value of ``allockit.fairness.MECHANISMS``, or a
            ``Mechanism`` already resolved (returned as it is, or with ``options`` added).
        options : Mapping, optional
            The mechanism's own options (``per_largest`` for slots, ...); ``split`` is
            the checker's to set.
        label : str, default "method"
            How messages name the option (the command line passes ``"--method"``).

        Returns
        -------
        Mechanism

        Raises
        ------
        InvalidInputError
            For a name or spec that cannot be resolved, or options the mechanism does
            not accept.

        Examples
        --------
        >>> Mechanism.resolve("math:sqrt").name
        'math:sqrt'
        >>> Mechanism.resolve(Mechanism.resolve("slots"), {"per_largest": 4}).options
        {'per_largest': 4}
        >>> Mechanism.resolve("lp", {"split": True})
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: option split is set by the fairness checker ...
        """
        from allockit.drfh import METHOD_SPECS, METHODS
        from allockit.options import MethodSpec, check_options
        from allockit.plugins import resolve

        options = dict(options or {})
        if isinstance(mechanism, Mechanism):
            if not options:
                return mechanism
            merged = {**mechanism.options, **options}
            target = mechanism.name if mechanism.builtin else mechanism.function
            return cls.resolve(target, merged, label=label)
        if "split" in options:
            raise InvalidInputError(
                "option split is set by the fairness checker (bundles per server); "
                f"got split={options['split']!r}"
            )
        builtin = getattr(mechanism, "allockit_builtin", None)
        if isinstance(builtin, str):
            mechanism = builtin
        found = resolve("drfh", mechanism, METHODS, label=label)
        if found.builtin:
            check_options("DRFH method", METHOD_SPECS[found.name], options)
            return cls(found.name, found.name, True, None, options)
        declared = getattr(found.function, "method_spec", None)
        if isinstance(declared, MethodSpec):
            check_options("DRFH method", declared, options)
        return cls(found.name, found.spec, False, found.function, options)

    def __call__(self, instance: DRFHInstance) -> Allocation:
        """Run the mechanism on ``instance`` and return its checked allocation.

        Parameters
        ----------
        instance : DRFHInstance
            The instance to allocate.

        Returns
        -------
        Allocation

        Raises
        ------
        MechanismFailed
            If the mechanism raises or its output is refused.

        Examples
        --------
        >>> from allockit.instances.drfh import DRFHInstance
        >>> inst = DRFHInstance.from_dict({"resources": ["cpu"],
        ...     "servers": [{"capacity": [1]}], "users": [{"demand": [0.5]}]})
        >>> Mechanism.resolve("lp")(inst).result.tasks.tolist()
        [2.0]
        """
        from allockit.drfh import METHOD_SPECS, allocate

        servers = int(instance.count.sum())
        small = instance.n_users * servers <= FAIRNESS_MAX_INTEGERS
        raw: list[Any] = []
        try:
            if self.builtin:
                accepted = METHOD_SPECS[self.name].accepted
                extra = {"split": True} if small and "split" in accepted else {}
                result = allocate(instance, self.name, **extra, **self.options)
            else:
                function = self.function

                @functools.wraps(function)  # type: ignore[arg-type]
                def call(inst: DRFHInstance, **kw: Any) -> Any:
                    out = function(inst, **kw)  # type: ignore[misc]
                    raw.append(out)
                    return out

                # allocate names the mechanism in its messages by this name (the spec the
                # user gave, not a file spec's private module)
                call.__module__, call.__qualname__ = "__main__", self.name

                result = replace(allocate(instance, call, **self.options), method=self.name)
        except InvalidInputError as exc:
            if raw:
                raise MechanismFailed(f"the mechanism's output was refused: {exc}") from None
            raise MechanismFailed(f"the mechanism refused the instance: {exc}") from None
        except Exception as exc:  # (allocate's MethodFailedError: what the method raised)
            cause = exc.__cause__ if isinstance(exc, MethodFailedError) else exc
            raise MechanismFailed(str(method_failed("the mechanism", cause))) from None
        if result.status not in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE):
            # an allocation the mechanism itself calls failed is no answer to check
            status = getattr(result.status, "value", result.status)
            why = f": {result.message.splitlines()[0]}" if result.message else ""
            raise MechanismFailed(
                f"the mechanism reported status {status!r}, not an allocation{why}"
            )
        per_server = None
        if raw and not hasattr(raw[0], "allocation"):
            tasks = np.asarray(raw[0], dtype=float)
            if tasks.ndim == 2 and tasks.shape == (instance.n_users, servers):
                per_server = tasks
        return Allocation.build(instance, result, per_server)


def _named(name: str) -> Callable[[DRFHInstance], Any]:
    def run(instance: DRFHInstance) -> Any:
        from allockit.drfh import allocate

        return allocate(instance, name)

    run.__name__ = name
    run.allockit_builtin = name  # type: ignore[attr-defined]  # check() runs it by name
    return run


#: The built-in mechanisms by their CLI names, as callables ``instance -> DRFHResult``
#: (``check`` also takes the names, and runs these by name).
MECHANISMS = {name: _named(name) for name in DRFH_METHODS}
