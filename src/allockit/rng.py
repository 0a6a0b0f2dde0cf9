"""Conversion of user-facing seeds into numpy random generators."""

import numpy as np

__all__ = ["as_generator"]


def as_generator(seed: int | np.random.Generator | None = None) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``seed``.

    Parameters
    ----------
    seed : int, numpy.random.Generator or None
        An integer seed, an existing generator (returned unchanged) or None for fresh
        entropy.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    InvalidInputError
        If ``seed`` is of another type or a negative integer.

    Examples
    --------
    >>> int(as_generator(3).integers(100)) == int(as_generator(3).integers(100))
    True
    """
    from allockit.errors import InvalidInputError

    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise InvalidInputError(f"seed must be an int, a numpy Generator or None; got {seed!r}")
    if seed < 0:
        raise InvalidInputError(f"seed must be >= 0; got {seed}")
    return np.random.default_rng(int(seed))
