"""Numba for allockit's compiled kernels: the cache directory and the warm-up by name.

The kernels live beside the algorithms they serve (``heuristics/greedy_kernels.py``,
``mcb_kernels.py``, ``drfh_kernels.py``, ``local_search_kernels.py``;
``simulation/dfrs_kernels.py``, ``dfrs_event_kernels.py``, ``allocation_kernels.py``);
each is compiled with this module's ``njit`` and registers tiny inputs of the types its
callers pass (``warm_inputs``), so that ``warm_up`` can compile it, or load it from the
cache, before a timed run.

The compiled machine code is cached in a user cache directory, not in the installed
package: ``$NUMBA_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/allockit/numba/DIGEST``
(default ``~/.cache/allockit/numba/DIGEST``, where ``DIGEST`` follows the contents of
every kernel file); see ``allockit.numba_cache``. Numba falls back to its own places if
that directory cannot be written.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from allockit.errors import InvalidInputError
from allockit.numba_cache import numba_cache_dir

__all__ = ["njit", "numba_cache_dir", "warm_inputs", "warm_up"]


def _use_user_cache() -> None:
    """Point numba's cache at ``numba_cache_dir()`` before the kernels are decorated."""
    from numba.core import config

    if not os.environ.get("NUMBA_CACHE_DIR"):
        config.CACHE_DIR = numba_cache_dir()


_use_user_cache()

from numba import njit  # noqa: E402 - after the cache directory is set

#: kernel name -> (the compiled kernel, a maker of tiny inputs of its callers' types)
_INPUTS: dict[str, tuple[Any, Callable[[], tuple]]] = {}


def warm_inputs(make: Callable[[], tuple]) -> Callable[[Any], Any]:
    """Register a compiled kernel for ``warm_up`` with a maker of its warm-up inputs.

    A decorator, put above ``@njit``: ``make()`` returns tiny arguments of exactly the
    types the kernel's callers pass (another dtype or an omitted default would compile
    another signature inside a timed run).

    Parameters
    ----------
    make : callable
        No arguments; returns the tuple of arguments of one call.

    Returns
    -------
    callable
        The decorator; it returns the kernel unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> @warm_inputs(lambda: (np.ones(2),))
    ... @njit(cache=False)
    ... def _doubled(x):
    ...     return 2 * x
    >>> warm_up("_doubled") >= 0.0, warm_up("_doubled")
    (True, 0.0)
    """

    def register(kernel: Any) -> Any:
        _INPUTS[kernel.__name__] = (kernel, make)
        return kernel

    return register


_WARM: set[str] = set()


def warm_up(*names: str) -> float:
    """Compile (or load from numba's cache) the named kernels; the seconds it took.

    The first call of a numba kernel in a process pays its compilation, or the loading
    of the cached machine code; the heuristics call this before timing their work and
    report the seconds as ``setup_seconds``, apart from ``solve_seconds``. A kernel
    already warm in this process costs nothing.

    Parameters
    ----------
    *names : str
        Kernels to warm, among those registered with ``warm_inputs`` by the kernel
        modules imported so far (``allockit.heuristics.common.load_kernels`` imports
        the heuristics' ones first).

    Returns
    -------
    float
        Seconds spent compiling or loading; 0.0 if all were already warm.

    Raises
    ------
    InvalidInputError
        For a name without warm-up inputs (the message lists the known ones).

    Examples
    --------
    >>> import allockit.heuristics.greedy_kernels  # (registers its kernels)
    >>> warm_up("greedy_kernel") >= 0.0, warm_up("greedy_kernel")
    (True, 0.0)
    >>> warm_up("no_such_kernel")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: kernel must be one of [...]; got 'no_such_kernel'
    """
    import time

    for name in names:
        if name not in _INPUTS:
            raise InvalidInputError(f"kernel must be one of {sorted(_INPUTS)}; got {name!r}")
    todo = [n for n in names if n not in _WARM]
    if not todo:
        return 0.0
    started = time.perf_counter()
    for name in todo:
        kernel, make = _INPUTS[name]
        kernel(*make())
        _WARM.add(name)
    return time.perf_counter() - started
