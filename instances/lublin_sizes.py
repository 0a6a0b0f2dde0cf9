"""Job sizes (task counts) from the Lublin-Feitelson two-stage log-uniform model."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from allockit.checks import integer, real_number
from allockit.errors import InvalidInputError
from allockit.rng import as_generator

__all__ = ["SizeModel", "sample_sizes"]


@dataclass(frozen=True, slots=True)
class SizeModel:
    """Parameters of the size model (Lublin & Feitelson 2003; typeless set by default).

    ``uhi`` is log2 of the largest size; the reference code's guidance
    ``umed = uhi - 2.5`` is the default. For VCSched's parallel jobs (1..64 tasks,
    Stillwell et al. 2009 Sec. 5.2) ``uhi = 6``.

    Attributes
    ----------
    serial_prob : float, default 0.244
        Probability of a serial job (size 1), in [0, 1].
    pow2_prob : float, default 0.576
        Probability of a power-of-two job, in [0, 1]; ``serial_prob + pow2_prob <= 1``.
    ulow, umed, uhi : float, defaults 0.8, 3.5, 6.0
        ``log2`` of sizes: ``par`` is ``U(ulow, umed)`` or ``U(umed, uhi)``;
        ``ulow <= umed <= uhi``.
    uprob : float, default 0.86
        Probability of the lower range ``U(ulow, umed)``, in [0, 1].

    Raises
    ------
    InvalidInputError
        If a value is not a finite number, ``ulow <= umed <= uhi`` fails, a
        probability is outside [0, 1], or ``serial_prob + pow2_prob > 1``.

    Examples
    --------
    >>> SizeModel(uhi=3.0, umed=2.0).uprob
    0.86
    >>> SizeModel(umed=7.0)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: SizeModel needs ulow <= umed <= uhi; got 0.8, 7.0, 6.0
    """

    serial_prob: float = 0.244
    pow2_prob: float = 0.576
    ulow: float = 0.8
    umed: float = 3.5
    uhi: float = 6.0
    uprob: float = 0.86

    def __post_init__(self) -> None:
        for name in ("serial_prob", "pow2_prob", "ulow", "umed", "uhi", "uprob"):
            real_number(f"SizeModel.{name}", getattr(self, name))
        if not (self.ulow <= self.umed <= self.uhi):
            raise InvalidInputError(
                f"SizeModel needs ulow <= umed <= uhi; got {self.ulow}, {self.umed}, {self.uhi}"
            )
        for name in ("serial_prob", "pow2_prob", "uprob"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise InvalidInputError(f"SizeModel.{name} must be in [0, 1]; got {value}")
        if self.serial_prob + self.pow2_prob > 1.0:
            raise InvalidInputError("SizeModel.serial_prob + pow2_prob must be <= 1")


def sample_sizes(
    n: int,
    *,
    model: SizeModel | None = None,
    max_size: int = 64,
    seed: int | np.random.Generator | None = None,
) -> np.ndarray:
    """Draw ``n`` job sizes in ``1..max_size``.

    With probability ``serial_prob`` a job is serial (size 1). Otherwise draw
    ``par`` from U(ulow, umed) with probability ``uprob``, else U(umed, uhi); with
    probability ``pow2_prob`` (same uniform draw as the serial test) round ``par`` to
    an integer (a power-of-two job); the size is ``floor(2**par + 0.5)``.

    Sizes above ``max_size`` are clipped to it. Used for the task counts of VCSched's
    parallel jobs (``allockit.instances.generators.generate_vcsched``).

    Parameters
    ----------
    n : int
        Number of sizes, >= 0.
    model : SizeModel, optional
        The parameters (default ``SizeModel()``: the typeless set with ``uhi = 6``).
    max_size : int, default 64
        Largest size, >= 1.
    seed : int, numpy.random.Generator or None
        Randomness of the draw.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        Sizes in ``[1, max_size]``.

    Raises
    ------
    InvalidInputError
        If ``n`` is not an integer >= 0, ``max_size`` not an integer >= 1 (``2.5`` is
        refused, not truncated) or ``model`` not a SizeModel.

    Examples
    --------
    >>> sizes = sample_sizes(2000, seed=1)
    >>> int(sizes.min()), int(sizes.max()) <= 64, 0.2 < float((sizes == 1).mean()) < 0.3
    (1, True, True)
    >>> sample_sizes(8, seed=1).tolist()
    [2, 4, 1, 3, 8, 4, 4, 8]

    References
    ----------
    .. [1] U. Lublin, D. G. Feitelson (2003), The workload on parallel supercomputers:
       modeling the characteristics of rigid jobs, JPDC 63(11).
    """
    n = integer("n", n, minimum=0)
    max_size = integer("max_size", max_size, minimum=1)
    model = SizeModel() if model is None else model
    if not isinstance(model, SizeModel):
        raise InvalidInputError(f"model must be a SizeModel; got {type(model).__name__}")
    rng = as_generator(seed)
    u = rng.random(n)
    v = rng.random(n)
    low = rng.uniform(model.ulow, model.umed, n)
    high = rng.uniform(model.umed, model.uhi, n)
    par = np.where(v <= model.uprob, low, high)
    par = np.where(u <= model.serial_prob + model.pow2_prob, np.rint(par), par)
    sizes = np.floor(2.0**par + 0.5).astype(np.int64)
    sizes = np.where(u <= model.serial_prob, 1, sizes)
    return np.clip(sizes, 1, max_size)
