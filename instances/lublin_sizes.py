"""Job sizes (task counts) from the Lublin-Feitelson two-stage log-uniform model."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from allockit.errors import InvalidInputError
from allockit.rng import as_generator

__all__ = ["SizeModel", "sample_sizes"]


@dataclass(frozen=True, slots=True)
class SizeModel:
    """Parameters of the size model (Lublin & Feitelson 2003; typeless set by default).

    ``uhi`` is log2 of the largest size; the reference code's guidance
    ``umed = uhi - 2.5`` is the default. For VCSched's parallel jobs (1..64 tasks,
    Stillwell et al. 2009 Sec. 5.2) ``uhi = 6``.
    """

    serial_prob: float = 0.244
    pow2_prob: float = 0.576
    ulow: float = 0.8
    umed: float = 3.5
    uhi: float = 6.0
    uprob: float = 0.86

    def __post_init__(self) -> None:
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

    Examples
    --------
    >>> sizes = sample_sizes(2000, seed=1)
    >>> int(sizes.min()), int(sizes.max()) <= 64, 0.2 < float((sizes == 1).mean()) < 0.3
    (1, True, True)
    """
    if n < 0:
        raise InvalidInputError(f"n must be >= 0; got {n}")
    model = model or SizeModel()
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
