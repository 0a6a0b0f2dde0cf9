"""Where numba caches allockit's compiled kernels, and when that cache is stale.

The compiled machine code is cached in a user cache directory, not in the installed
package: ``$NUMBA_CACHE_DIR`` when set (numba's own setting, which wins), else
``$XDG_CACHE_HOME/allockit/numba/DIGEST`` (default ``~/.cache/allockit/numba/DIGEST``).

``DIGEST`` is a hash of the contents of every kernel file. Numba checks only the file
of the function it loads, so a kernel that compiles in another file's kernel
(``simulation/dfrs_kernels.py`` calls ``dfrs_event_kernels.py``'s) would otherwise be
loaded stale after that other file changed (an upgrade, an edit); with the digest in
the path, any change to a kernel file starts a fresh cache.

Only the standard library: every layer may ask where the cache is.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

__all__ = ["kernel_digest", "kernel_files", "numba_cache_dir"]

#: (package, file pattern) of the files holding numba kernels
_KERNEL_FILES = (
    ("allockit.heuristics", "*_kernels.py"),
    ("allockit.heuristics", "kernel_setup.py"),
    ("allockit.simulation", "*_kernels.py"),
    ("allockit.evaluation", "knapsack.py"),
)


def kernel_files() -> list[Path]:
    """The files holding allockit's numba kernels, in a fixed order.

    Found by package name (no package is imported), so the layout may be the
    repository's or an installed one.

    Returns
    -------
    list of pathlib.Path
        The kernel files, package by package, each package's sorted by name.

    Examples
    --------
    >>> sorted(p.name for p in kernel_files())[:2]
    ['allocation_kernels.py', 'dfrs_event_kernels.py']
    """
    files: list[Path] = []
    for package, pattern in _KERNEL_FILES:
        spec = importlib.util.find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            files += sorted(Path(folder).glob(pattern))
    return files


def kernel_digest(files: list[Path] | None = None) -> str:
    """A short hash of the names and contents of the kernel files (``kernel_files``).

    Parameters
    ----------
    files : list of pathlib.Path, optional
        The files to hash, in order (default: ``kernel_files()``).

    Returns
    -------
    str
        16 hexadecimal digits.

    Examples
    --------
    >>> len(kernel_digest()), kernel_digest() == kernel_digest()
    (16, True)
    """
    digest = hashlib.sha256()
    for path in kernel_files() if files is None else files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def numba_cache_dir() -> str:
    """Where numba caches allockit's compiled kernels.

    ``$NUMBA_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/allockit/numba/DIGEST``, else
    ``~/.cache/allockit/numba/DIGEST`` (``kernel_digest``).

    Returns
    -------
    str
        The directory (not created here; numba creates it on first write).

    Examples
    --------
    >>> numba_cache_dir() == os.environ.get("NUMBA_CACHE_DIR", numba_cache_dir())
    True
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.environ["NUMBA_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "allockit", "numba", kernel_digest())
