"""The simulators' numba kernel modules, each imported on its first use.

Importing a kernel module imports numba (about a second), so ``import
allockit.simulation.dfrs`` does not; the hot paths reach a kernel through
:func:`kernel_module` instead. The module is imported once and kept; its kernels are
read from it at each call, so a test may replace one.

>>> from allockit.simulation.kernel_modules import kernel_module
>>> kernel_module("names").__name__
'allockit.simulation.names'
>>> kernel_module("names") is kernel_module("names")
True
"""

from __future__ import annotations

import functools
import importlib
from types import ModuleType

__all__ = ["kernel_module"]


@functools.cache
def kernel_module(name: str) -> ModuleType:
    """The module ``allockit.simulation.<name>``, imported on the first call only."""
    return importlib.import_module(f"allockit.simulation.{name}")
