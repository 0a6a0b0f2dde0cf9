"""Algorithms named by the user: built-in names, callables, modules, files and plug-ins.

Wherever allockit takes a method, mechanism or scheduler (``solve``, ``allocate``,
``simulate``, ``compare``, sweeps, the fairness checker and their subcommands), it
accepts one of:

- a **built-in name** of the family (``"mcb8"``, ``"progressive"``, ``"EASY"``);
- a **Python callable** (from Python only);
- ``"MODULE:FUNCTION"``: ``FUNCTION`` (a dotted attribute path, e.g. ``Class`` or
  ``obj.method``) of an importable module;
- ``"PATH/TO/FILE.py:FUNCTION"``: the same from a Python file, imported under a private
  module name (the file's directory is not put on ``sys.path``);
- the name of a **registered plug-in**: an installed package that declares an entry point
  in the group ``allockit.methods`` named ``FAMILY.NAME`` (``vcsched.roundrobin``) is
  usable as ``NAME`` in that family, like a built-in.

``resolve`` turns any of these into a ``ResolvedMethod``: the callable, the name results
record (the spec as given), where it came from, and a ``spec`` string that another
process can resolve again (None for a callable that has no importable name, such as a
lambda). A spec that cannot be loaded is an ``InvalidInputError`` of one line naming the
spec and the cause (the import error's own message included).

Examples
--------
>>> r = resolve("vcsched", "math:sqrt", builtins={"mcb8": None})
>>> r.name, r.origin, r.builtin, r.function(9.0)
('math:sqrt', "module 'math'", False, 3.0)
>>> resolve("vcsched", "nosuchmodule_xyz:f", builtins={})
Traceback (most recent call last):
...
allockit.errors.InvalidInputError: method 'nosuchmodule_xyz:f': cannot import module \
'nosuchmodule_xyz': No module named 'nosuchmodule_xyz'
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from allockit.errors import InvalidInputError

__all__ = [
    "ENTRY_POINT_GROUP",
    "FAMILIES",
    "ResolvedMethod",
    "callable_name",
    "file_sources",
    "is_spec",
    "load_spec",
    "provide_sources",
    "registered",
    "resolve",
]

#: The entry-point group where installed packages register methods (``FAMILY.NAME``).
ENTRY_POINT_GROUP = "allockit.methods"

#: Family -> what its algorithms are called in messages.
FAMILIES: dict[str, str] = {
    "vcsched": "VCSched method",
    "drfh": "DRFH mechanism",
    "scheduler": "online scheduler",
    "reserves": "cluster-reserves method",
}


@dataclass(frozen=True, slots=True)
class ResolvedMethod:
    """An algorithm found from what the user named: the callable and where it came from.

    Attributes
    ----------
    name : str
        What results record as the method: the built-in name or the spec as given
        (``"mymod:roundrobin"``), or ``"module:qualname"`` of a callable.
    function : callable or None
        The algorithm (None for a built-in whose family runs it by name).
    origin : str
        ``"built-in"``, ``"entry point 'DIST'"``, ``"module 'M'"``, ``"file 'PATH'"`` or
        ``"callable"``.
    builtin : bool
        True for the family's own algorithms.
    spec : str or None
        A string that ``resolve`` turns into the same algorithm in another process
        (the built-in name, the plug-in's name, ``MODULE:FUNCTION`` or
        ``/ABSOLUTE/FILE.py:FUNCTION``); None when the callable cannot be named (a lambda,
        a function defined inside another).
    file : str or None
        The absolute path of the file of a ``FILE.py:FUNCTION`` spec (for shipping it to
        remote workers).

    Examples
    --------
    >>> ResolvedMethod("mcb8", None, "built-in", True, "mcb8").spec
    'mcb8'
    """

    name: str
    function: Callable[..., Any] | None
    origin: str
    builtin: bool
    spec: str | None
    file: str | None = None


def is_spec(text: Any) -> bool:
    """Whether ``text`` has the form ``MODULE:FUNCTION`` or ``FILE.py:FUNCTION``.

    The part after the last colon must be a dotted Python name; the part before it must
    not be empty. Built-in names never contain a colon.

    Parameters
    ----------
    text : Any
        What the user gave.

    Returns
    -------
    bool
        True for a string of either form.

    Examples
    --------
    >>> is_spec("mymod:f"), is_spec("dir/h.py:Policy"), is_spec("mcb8"), is_spec("x:1")
    (True, True, False, False)
    """
    if not isinstance(text, str) or ":" not in text:
        return False
    target, _, attr = text.rpartition(":")
    return bool(target.strip()) and all(part.isidentifier() for part in attr.split("."))


def _is_file(target: str) -> bool:
    return target.endswith(".py") or "/" in target or "\\" in target


_FILE_MODULES: dict[tuple[str, Any], Any] = {}
#: Absolute file path -> its source text, shipped with tasks to remote workers.
_SHIPPED: dict[str, str] = {}


def provide_sources(sources: Mapping[str, str]) -> None:
    """Make the files of ``FILE.py:FUNCTION`` specs loadable from their shipped text.

    A worker on another machine lacks the user's files: a task carries them
    (``allockit.tasks.Task.sources``) and the worker calls this before it runs. A
    shipped path is then loaded from its text (written once to a private temporary
    file), in preference to whatever file has that path here, so every worker runs the
    code the task's key was computed from.

    Parameters
    ----------
    sources : Mapping[str, str]
        Absolute file path -> Python source text (``file_sources``).

    Examples
    --------
    >>> provide_sources({"/nowhere/shipped_demo.py": "def f(x): return 2 * x"})
    >>> load_spec("/nowhere/shipped_demo.py:f")[0](21)
    42
    """
    for path, text in sources.items():
        _SHIPPED[str(path)] = str(text)


def file_sources(spec: str | None) -> dict[str, str]:
    """The source of a ``FILE.py:FUNCTION`` spec's file, to ship with a task.

    Parameters
    ----------
    spec : str or None
        A spec as ``ResolvedMethod.spec`` gives it (an absolute path for a file).

    Returns
    -------
    dict
        ``{absolute path: text}`` for a file spec; empty for anything else.

    Raises
    ------
    InvalidInputError
        If the file cannot be read as UTF-8 text.

    Examples
    --------
    >>> file_sources("math:sqrt"), file_sources("mcb8"), file_sources(None)
    ({}, {}, {})
    """
    if not spec or not is_spec(spec):
        return {}
    target = spec.rpartition(":")[0].strip()
    if not _is_file(target):
        return {}
    path = str(Path(target).expanduser().resolve())
    if path in _SHIPPED and not Path(path).is_file():
        return {path: _SHIPPED[path]}
    try:
        return {path: Path(path).read_text(encoding="utf-8")}
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"method {spec!r}: cannot read {path!r}: {exc}") from None


def _shipped_copy(path: Path, text: str) -> Path:
    """A private file holding ``text``, named by its digest (written once per process)."""
    import tempfile

    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / f"allockit-shipped-{digest}"
    copy = folder / path.name
    if not copy.is_file() or copy.read_text(encoding="utf-8") != text:
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f".{path.name}.{id(text)}.tmp"
        partial.write_text(text, encoding="utf-8")
        partial.replace(copy)
    return copy


def _import_file(path: Path, label: str) -> Any:
    """Import a Python file under a private module name (cached by path and mtime)."""
    shipped = _SHIPPED.get(str(path))
    source = path
    if shipped is not None:
        source = _shipped_copy(path, shipped)
        key: tuple[str, Any] = (str(path), hashlib.sha256(shipped.encode()).hexdigest())
    else:
        if not path.is_file():
            what = "is not a file" if path.exists() else "does not exist"
            raise InvalidInputError(f"{label}: file {str(path)!r} {what}")
        key = (str(path), path.stat().st_mtime_ns)
    if key in _FILE_MODULES:
        return _FILE_MODULES[key]
    import importlib.util

    digest = hashlib.sha256(repr(key).encode()).hexdigest()[:12]
    name = f"allockit_user_{path.stem if path.stem.isidentifier() else 'file'}_{digest}"
    spec = importlib.util.spec_from_file_location(name, source)
    if spec is None or spec.loader is None:
        raise InvalidInputError(f"{label}: cannot import {str(path)!r} as a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # so that pickling its functions and classes works
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        sys.modules.pop(name, None)
        raise InvalidInputError(
            f"{label}: importing {str(path)!r} failed: {_describe(exc)}"
        ) from None
    _FILE_MODULES[key] = module
    return module


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def load_spec(text: str, *, label: str | None = None) -> tuple[Callable[..., Any], str | None]:
    """Import the callable a ``MODULE:FUNCTION`` or ``FILE.py:FUNCTION`` spec names.

    Parameters
    ----------
    text : str
        The spec (see ``is_spec``).
    label : str, optional
        How messages name the spec (default ``"method 'TEXT'"``; the command line passes
        ``"--method 'TEXT'"``).

    Returns
    -------
    (callable, str or None)
        The callable, and the absolute path of the file for a file spec (else None).

    Raises
    ------
    InvalidInputError
        One line naming the spec and the cause: a module that cannot be imported (with
        the import error's own message), a missing file, a file whose import fails, a
        missing attribute, or an attribute that is not callable.

    Examples
    --------
    >>> load_spec("os.path:join")[0]("a", "b")
    'a/b'
    >>> load_spec("os.path:nosuch")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: method 'os.path:nosuch': module 'os.path' has no \
attribute 'nosuch'
    """
    label = label or f"method {text!r}"
    if not is_spec(text):
        raise InvalidInputError(
            f"{label}: expected MODULE:FUNCTION or PATH/TO/FILE.py:FUNCTION"
        )
    target, _, attr = text.rpartition(":")
    target = target.strip()
    file = None
    if _is_file(target):
        path = Path(target).expanduser().resolve()
        module = _import_file(path, label)
        where, file = f"file {target!r}", str(path)
    else:
        try:
            module = importlib.import_module(target)
        except (Exception, SystemExit) as exc:
            raise InvalidInputError(
                f"{label}: cannot import module {target!r}: {_import_message(exc)}"
            ) from None
        where = f"module {target!r}"
    value: Any = module
    for part in attr.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise InvalidInputError(f"{label}: {where} has no attribute {attr!r}") from None
    if not callable(value):
        raise InvalidInputError(
            f"{label}: {attr!r} of {where} is not callable (a {type(value).__name__})"
        )
    return value, file


def _import_message(exc: BaseException) -> str:
    if isinstance(exc, ModuleNotFoundError):
        return str(exc)
    return _describe(exc)


def registered(family: str | None = None) -> dict[str, Any]:
    """The plug-ins installed packages register, as ``{"FAMILY.NAME": entry_point}``.

    Entry points of the group ``allockit.methods`` whose name is not ``FAMILY.NAME``
    with a known family are left out. Nothing is imported until an entry point is
    loaded.

    Parameters
    ----------
    family : str, optional
        Only this family's plug-ins (a key of ``FAMILIES``).

    Returns
    -------
    dict
        Entry point name -> ``importlib.metadata.EntryPoint``, sorted by name.

    Examples
    --------
    >>> isinstance(registered("vcsched"), dict)
    True
    """
    from importlib.metadata import entry_points

    found = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        fam, _, name = ep.name.partition(".")
        if fam in FAMILIES and name and (family is None or fam == family):
            found[ep.name] = ep
    return dict(sorted(found.items()))


def callable_name(function: Callable[..., Any]) -> tuple[str, str | None]:
    """The name a result records for a callable, and a spec that re-imports it.

    Parameters
    ----------
    function : callable
        A function, class or callable object.

    Returns
    -------
    (str, str or None)
        ``"module:qualname"`` (or the qualname alone) and, when the callable can be
        imported again by that name, the same string as a spec (else None).

    Examples
    --------
    >>> import math
    >>> callable_name(math.sqrt)
    ('math:sqrt', 'math:sqrt')
    >>> callable_name(lambda x: x)[1] is None
    True
    """
    qualname = getattr(function, "__qualname__", None) or type(function).__qualname__
    module = getattr(function, "__module__", None) or type(function).__module__
    if not module or module == "__main__" or "<" in qualname:
        return qualname, None
    name = f"{module}:{qualname}"
    if module.startswith("allockit_user_"):
        return name, None  # a file spec's private module: the file path names it
    try:
        same, _ = load_spec(name)
    except InvalidInputError:
        return name, None
    return name, name if same is function else None


def resolve(
    family: str,
    method: Any,
    builtins: Mapping[str, Any],
    *,
    label: str | None = None,
) -> ResolvedMethod:
    """Find the algorithm ``method`` names in ``family``.

    Looked up in this order: a callable is taken as it is; a string is a built-in name
    (a key of ``builtins``), then a registered plug-in of the family, then a
    ``MODULE:FUNCTION`` or ``FILE.py:FUNCTION`` spec.

    Parameters
    ----------
    family : str
        A key of ``FAMILIES`` (``"vcsched"``, ``"drfh"``, ``"scheduler"``,
        ``"reserves"``).
    method : str or callable
        What the user gave.
    builtins : Mapping[str, Any]
        The family's built-in names (their values are returned as ``function``).
    label : str, optional
        How messages name the option (default ``"method"``; the command line passes
        ``"--method"``).

    Returns
    -------
    ResolvedMethod

    Raises
    ------
    InvalidInputError
        For an unknown name (the message lists the built-in and registered names and the
        spec forms), or a spec that cannot be loaded (see ``load_spec``).

    Examples
    --------
    >>> resolve("drfh", "lp", {"lp": len}).origin
    'built-in'
    >>> resolve("drfh", "nope", {"lp": len})
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: method must be one of ['lp'] (DRFH mechanisms and \
registered plug-ins), MODULE:FUNCTION or PATH/TO/FILE.py:FUNCTION; got 'nope'
    """
    if family not in FAMILIES:
        raise InvalidInputError(f"family must be one of {sorted(FAMILIES)}; got {family!r}")
    option = label or "method"
    if callable(method) and not isinstance(method, str):
        name, spec = callable_name(method)
        return ResolvedMethod(name, method, "callable", False, spec)
    if isinstance(method, str):
        if method in builtins:
            return ResolvedMethod(method, builtins[method], "built-in", True, method)
        plugins = registered(family)
        key = f"{family}.{method}"
        if key in plugins:
            ep = plugins[key]
            try:
                function = ep.load()
            except (Exception, SystemExit) as exc:
                raise InvalidInputError(
                    f"{option} {method!r}: loading plug-in {ep.value!r} failed: "
                    f"{_import_message(exc)}"
                ) from None
            if not callable(function):
                raise InvalidInputError(
                    f"{option} {method!r}: plug-in {ep.value!r} is not callable (a "
                    f"{type(function).__name__})"
                )
            dist = getattr(getattr(ep, "dist", None), "name", None) or ep.value
            return ResolvedMethod(method, function, f"entry point {dist!r}", False, method)
        if is_spec(method):
            function, file = load_spec(method, label=f"{option} {method!r}")
            if file is not None:
                spec = f"{file}:{method.rpartition(':')[2]}"
                return ResolvedMethod(method, function, f"file {file!r}", False, spec, file)
            target = method.rpartition(":")[0].strip()
            return ResolvedMethod(method, function, f"module {target!r}", False, method)
    names = list(builtins) + [k.partition(".")[2] for k in registered(family)]
    raise InvalidInputError(
        f"{option} must be one of {names} ({FAMILIES[family]}s and registered plug-ins), "
        f"MODULE:FUNCTION or PATH/TO/FILE.py:FUNCTION; got {method!r}"
    )
