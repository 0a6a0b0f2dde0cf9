"""Hyper-Erlang distributions of common order, and their fit to three moments (Jann 1997).

A hyper-Erlang of common order ``n`` picks one of two Erlang branches, each of ``n``
exponential stages: with probability ``p`` the stages have rate ``lam1``, otherwise
``lam2``. It generalises the exponential (``n = 1``, one branch), the hyper-exponential
(``n = 1``) and the Erlang (one branch) distributions. Its ``k``-th raw moment is

    E[X^k] = n (n + 1) ... (n + k - 1) * (p / lam1^k + (1 - p) / lam2^k),

so after dividing by the rising factorial the moments are those of a two-point
distribution on ``{1 / lam1, 1 / lam2}`` with weights ``p, 1 - p``. Matching three
moments at a given order is therefore the two-point (Gauss quadrature) problem, solved in
closed form; :func:`fit_hyper_erlang` tries ``n = 1, 2, ...`` and returns the lowest
order that matches, as Jann et al. (1997) did.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from allockit.checks import integer
from allockit.errors import InvalidInputError
from allockit.rng import as_generator

__all__ = [
    "DEFAULT_MAX_ORDER",
    "MAX_ORDER",
    "HyperErlang",
    "fit_hyper_erlang",
    "fit_hyper_erlang_sample",
    "sample_moments",
]

#: Highest order tried by the fits unless told otherwise (Jann et al. needed up to 7).
DEFAULT_MAX_ORDER = 32
#: Highest order a fit may be asked to try: a model file holds orders up to 1000
#: (``schemas.JANN_MODEL``), and the search tries every order up to ``max_order``.
MAX_ORDER = 1000
# |variance| of the normalised two-point problem below this counts as zero (one Erlang).
_DEGENERATE = 1e-10


def _rising(n: int, k: int) -> float:
    """n (n + 1) ... (n + k - 1)."""
    return float(math.prod(range(n, n + k)))


@dataclass(frozen=True, slots=True)
class HyperErlang:
    """A hyper-Erlang distribution of common order.

    Parameters
    ----------
    p : float
        Probability of branch 1, in [0, 1].
    n : int
        Number of exponential stages of both branches, >= 1.
    lam1, lam2 : float
        Stage rates (1/s) of branch 1 and branch 2, finite and > 0. The fits return
        ``p <= 1/2`` (branch 1 is the rarer branch, so that ``p`` and ``1 - p`` both keep
        full precision), or ``p = 1`` and ``lam1 = lam2`` for a single Erlang.

    Examples
    --------
    >>> d = HyperErlang(p=0.5, n=1, lam1=1.0, lam2=0.25)
    >>> d.mean, d.moments()
    (2.5, (2.5, 17.0, 195.0))
    >>> HyperErlang.from_dict(d.to_dict()) == d
    True
    """

    p: float
    n: int
    lam1: float
    lam2: float

    def __post_init__(self) -> None:
        p = self.p
        if isinstance(p, bool) or not isinstance(p, int | float | np.floating | np.integer):
            raise InvalidInputError(f"HyperErlang.p must be a number; got {p!r}")
        if not 0.0 <= float(p) <= 1.0:
            raise InvalidInputError(f"HyperErlang.p must be in [0, 1]; got {p!r}")
        n = self.n
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
            raise InvalidInputError(f"HyperErlang.n must be an integer >= 1; got {n!r}")
        for name in ("lam1", "lam2"):
            value = getattr(self, name)
            ok = not isinstance(value, bool) and isinstance(
                value, int | float | np.floating | np.integer
            )
            if not ok or not (math.isfinite(value) and value > 0):
                raise InvalidInputError(f"HyperErlang.{name} must be finite and > 0; got {value!r}")
            object.__setattr__(self, name, float(value))
        object.__setattr__(self, "p", float(p))
        object.__setattr__(self, "n", int(n))

    @classmethod
    def erlang(cls, n: int, rate: float) -> HyperErlang:
        """A plain Erlang distribution (both branches equal, ``p = 1``).

        Examples
        --------
        >>> HyperErlang.erlang(3, 0.5).mean
        6.0
        """
        return cls(p=1.0, n=n, lam1=rate, lam2=rate)

    # ------------------------------------------------------------------ moments
    def moment(self, k: int) -> float:
        """Raw moment ``E[X^k]`` for an integer ``k >= 0``.

        Examples
        --------
        >>> HyperErlang.erlang(2, 1.0).moment(2)
        6.0
        """
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 0:
            raise InvalidInputError(f"moment order k must be an integer >= 0; got {k!r}")
        k = int(k)
        if k == 0:
            return 1.0
        a, b = 1.0 / self.lam1, 1.0 / self.lam2
        first, second = self.p, 1.0 - self.p
        for _ in range(k):  # the weight first: p * a**k stays finite when p is tiny
            first *= a
            second *= b
        return _rising(self.n, k) * (first + second)

    def moments(self) -> tuple[float, float, float]:
        """The first three raw moments ``(E[X], E[X^2], E[X^3])``."""
        return self.moment(1), self.moment(2), self.moment(3)

    @property
    def mean(self) -> float:
        """``E[X]``."""
        return self.moment(1)

    @property
    def variance(self) -> float:
        """``Var[X]``, computed without cancellation."""
        a, b = 1.0 / self.lam1, 1.0 / self.lam2
        n, p = self.n, self.p
        # Var = E[Var | branch] + Var[E | branch] = n (p a^2 + q b^2) + n^2 p q (a - b)^2
        spread = (p * (a - b)) * ((1 - p) * (a - b))
        return n * ((p * a) * a + ((1 - p) * b) * b) + n * n * spread

    @property
    def scv(self) -> float:
        """Squared coefficient of variation ``Var[X] / E[X]^2`` (``1/n`` for an Erlang)."""
        return self.variance / self.mean**2

    # ------------------------------------------------------------------ distribution
    def cdf(self, x: Any) -> np.ndarray:
        """``P(X <= x)`` for an array of ``x``.

        Examples
        --------
        >>> float(HyperErlang.erlang(1, 2.0).cdf(0.5)) == 1 - math.exp(-1)
        True
        """
        x = np.maximum(np.asarray(x, dtype=float), 0.0)

        def erlang_cdf(rate: float) -> np.ndarray:
            z = rate * x
            term = np.exp(-z)
            total = term.copy()
            for j in range(1, self.n):
                term = term * z / j
                total += term
            return 1.0 - total

        return self.p * erlang_cdf(self.lam1) + (1.0 - self.p) * erlang_cdf(self.lam2)

    def sample(self, size: int, *, seed: int | np.random.Generator | None = None) -> np.ndarray:
        """``size`` independent draws.

        Parameters
        ----------
        size : int
            Number of draws, >= 0.
        seed : int, numpy.random.Generator or None
            Randomness (see ``allockit.rng.as_generator``).

        Returns
        -------
        numpy.ndarray
            Float array of shape ``(size,)``, all > 0.

        Raises
        ------
        InvalidInputError
            If ``size`` is negative or not an integer.

        Examples
        --------
        >>> x = HyperErlang(p=0.3, n=2, lam1=1.0, lam2=0.1).sample(20_000, seed=1)
        >>> bool(abs(x.mean() - 14.6) < 0.5)
        True
        """
        rng = as_generator(seed)
        if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 0:
            raise InvalidInputError(f"size must be an integer >= 0; got {size!r}")
        first = rng.random(int(size)) < self.p
        scale = np.where(first, 1.0 / self.lam1, 1.0 / self.lam2)
        return rng.gamma(self.n, scale)

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, float | int]:
        """JSON form ``{"p", "n", "lam1", "lam2"}`` (floats round-trip exactly)."""
        return {"p": self.p, "n": self.n, "lam1": self.lam1, "lam2": self.lam2}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HyperErlang:
        """Inverse of ``to_dict``."""
        try:
            return cls(p=data["p"], n=data["n"], lam1=data["lam1"], lam2=data["lam2"])
        except (KeyError, TypeError) as exc:
            raise InvalidInputError(f"HyperErlang object is malformed: {exc!r}") from None


# ---------------------------------------------------------------------- fitting
def _check_moments(m1: float, m2: float, m3: float) -> tuple[float, float]:
    """Validate a moment triple; return ``(m2 / m1**2, m3 / m1**3)`` (scale-free)."""
    for name, value in (("m1", m1), ("m2", m2), ("m3", m3)):
        if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
            raise InvalidInputError(f"moment {name} must be a number; got {value!r}")
        if not (math.isfinite(value) and value > 0):
            raise InvalidInputError(f"moment {name} must be finite and > 0; got {value!r}")
    m1, m2, m3 = float(m1), float(m2), float(m3)
    r2 = m2 / m1 / m1
    r3 = m3 / m1 / m1 / m1
    ratio = r3 / r2 / r2 if r2 > 0 else math.inf  # m1 * m3 / m2**2
    if not all(math.isfinite(v) and v > 0 for v in (r2, r3, ratio)):
        raise InvalidInputError(
            f"moments m1={m1!r}, m2={m2!r}, m3={m3!r} span too many orders of magnitude "
            "for floating point (m2/m1**2 or m3/m1**3 overflows)"
        )
    if r2 < 1.0:
        raise InvalidInputError(
            f"moments m1={m1!r}, m2={m2!r} are not those of any distribution: "
            f"m2 must be >= m1**2 = {m1 * m1!r}"
        )
    if ratio < 1.0 - 1e-12:
        raise InvalidInputError(
            f"moments m1={m1!r}, m2={m2!r}, m3={m3!r} are not those of any distribution on "
            f"[0, inf): m1*m3 must be >= m2**2"
        )
    return r2, r3


def _fit_order(n: int, r2: float, r3: float) -> tuple[float, float, float, float] | None:
    """(P(Y = a), a, P(Y = b), b) in units of ``m1 / n``, or None if order ``n`` cannot match.

    ``r2 = m2 / m1**2`` and ``r3 = m3 / m1**3``. The normalised variable ``Y`` (moments
    divided by the rising factorials, in units of its mean) is two-point on ``{a, b}``
    with ``a <= 1 <= b``. Both probabilities are computed without cancellation, so the
    rarer one keeps full relative precision.
    """
    nu2 = r2 * n / (n + 1)
    nu3 = r3 * n * n / ((n + 1) * (n + 2))
    var = nu2 - 1.0
    skew = nu3 - 3.0 * nu2 + 2.0  # E[(Y - 1)^3]
    if abs(var) <= _DEGENERATE:
        # a single Erlang: the third moment must agree as well
        if abs(skew) <= 1e3 * _DEGENERATE * max(1.0, nu3):
            return 1.0, 1.0, 0.0, 1.0
        return None
    if var < 0:
        return None
    c = skew / var
    root = math.hypot(c, 2.0 * math.sqrt(var))  # sqrt(c**2 + 4 var) without overflow
    if c >= 0:
        u2 = 0.5 * (c + root)
        u1 = -var / u2
    else:
        u1 = 0.5 * (c - root)
        u2 = -var / u1
    a, b = 1.0 + u1, 1.0 + u2
    if not a > 1e-12:
        return None
    return u2 / (u2 - u1), a, -u1 / (u2 - u1), b


def fit_hyper_erlang(
    m1: float, m2: float, m3: float, *, max_order: int = DEFAULT_MAX_ORDER
) -> HyperErlang:
    """The hyper-Erlang of the lowest common order that has the three given moments.

    For each order ``n = 1, 2, ..., max_order`` the moments divided by
    ``n``, ``n(n+1)`` and ``n(n+1)(n+2)`` must be those of a two-point distribution on
    ``{1/lam1, 1/lam2}`` with positive points; that problem has a closed-form answer
    (the roots of a quadratic). Order ``n`` can match when the squared coefficient of
    variation is at least ``1/n`` and ``m1 * m3 / m2**2 > (n + 2) / (n + 1)``; both get
    easier as ``n`` grows, so the first order that works is returned.

    Degenerate cases: when the squared coefficient of variation is exactly ``1/n`` (to
    a relative 1e-10) the only candidate of order ``n`` is a single Erlang; it is
    returned (``p = 1``, ``lam1 = lam2 = n / m1``) if its third moment also agrees,
    otherwise the search goes on with ``n + 1``. A point where one branch would need an
    infinite rate (``m1 * m3 / m2**2 == (n + 2)/(n + 1)``) does not count as a match.

    Parameters
    ----------
    m1, m2, m3 : float
        Raw moments ``E[X]``, ``E[X^2]``, ``E[X^3]``, all finite and > 0.
    max_order : int
        Highest order tried, in [1, ``MAX_ORDER``] (1000; a model file holds no higher
        order).

    Returns
    -------
    HyperErlang
        With ``p <= 1/2`` (or ``p = 1``, ``lam1 = lam2`` for a single Erlang); its
        ``moments()`` equal ``(m1, m2, m3)`` to rounding.

    Raises
    ------
    InvalidInputError
        If ``max_order`` is not an integer in [1, 1000], a moment is not finite and
        positive, the triple is not the moments of any distribution on ``[0, inf)``,
        or no order up to ``max_order`` matches (the
        message says which condition fails: the squared coefficient of variation is
        below ``1/max_order``, or the third moment is too small).

    Examples
    --------
    >>> d = fit_hyper_erlang(2.5, 17.0, 195.0)
    >>> d.n, d.p, round(d.lam1, 12), round(d.lam2, 12)
    (1, 0.5, 1.0, 0.25)
    >>> fit_hyper_erlang(1.0, 1.05, 1.2, max_order=8)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: no hyper-Erlang of order <= 8 matches ...

    References
    ----------
    .. [1] Jann, Pattnaik, Franke, Wang, Skovira, Riordan (1997), Modeling of workload in
       MPPs, JSSPP, LNCS 1291.
    """
    max_order = integer("max_order", max_order, minimum=1, maximum=MAX_ORDER)
    r2, r3 = _check_moments(m1, m2, m3)
    m1, m2, m3 = float(m1), float(m2), float(m3)
    for n in range(1, int(max_order) + 1):
        found = _fit_order(n, r2, r3)
        if found is None:
            continue
        pa, a, pb, b = found
        scale = m1 / n  # Y is in units of the normalised mean m1 / n
        if pb == 0.0:  # a single Erlang
            return HyperErlang(p=1.0, n=n, lam1=1.0 / scale, lam2=1.0 / scale)
        if pa > pb:  # branch 1 is the rarer one, so that p keeps full relative precision
            pa, a, pb, b = pb, b, pa, a
        lam1, lam2 = 1.0 / (a * scale), 1.0 / (b * scale)
        if not all(math.isfinite(v) and v > 0 for v in (lam1, lam2)):
            raise InvalidInputError(
                f"the hyper-Erlang of order {n} matching m1={m1!r}, m2={m2!r}, m3={m3!r} "
                "has rates outside floating point range"
            )
        return HyperErlang(p=min(1.0, max(0.0, pa)), n=n, lam1=lam1, lam2=lam2)
    scv = r2 - 1.0
    ratio = r3 / r2 / r2
    need_scv = 1.0 / max_order
    need_ratio = (max_order + 2) / (max_order + 1)
    if scv < need_scv * (1 + _DEGENERATE):
        why = (
            f"the squared coefficient of variation {scv:.6g} is below 1/{max_order} = "
            f"{need_scv:.6g} (order >= {math.ceil(1 / scv) if scv > 0 else 'infinity'} needed)"
        )
    elif ratio <= need_ratio:
        why = (
            f"the third moment is too small: m1*m3/m2**2 = {ratio:.6g} must exceed "
            f"(n+2)/(n+1) = {need_ratio:.6g} at order n = {max_order}"
        )
    else:  # pragma: no cover - the two conditions above are exhaustive
        why = "no valid branch probability in [0, 1]"
    raise InvalidInputError(
        f"no hyper-Erlang of order <= {max_order} matches moments m1={m1!r}, m2={m2!r}, "
        f"m3={m3!r}: {why}"
    )


def sample_moments(sample: Any) -> tuple[float, float, float]:
    """The first three raw moments of a sample of non-negative numbers.

    Parameters
    ----------
    sample : array-like
        Finite observations >= 0.

    Returns
    -------
    tuple of float
        ``(mean(x), mean(x**2), mean(x**3))``, computed on ``x / mean(x)`` and scaled
        back (no overflow for large values); all zero for an all-zero sample.

    Raises
    ------
    InvalidInputError
        If the sample is empty, not finite or has a negative value.

    Examples
    --------
    >>> sample_moments([1, 2, 3])
    (2.0, 4.666666666666667, 12.0)
    """
    x = np.asarray(sample, dtype=float).reshape(-1)
    if x.size == 0:
        raise InvalidInputError("sample must not be empty")
    bad = np.flatnonzero(~np.isfinite(x) | (x < 0))
    if bad.size:
        raise InvalidInputError(
            f"sample must be finite and >= 0; got {x[bad[0]].item()!r} at index {int(bad[0])}"
        )
    scale = float(x.mean())
    if scale == 0:
        return 0.0, 0.0, 0.0
    y = x / scale
    y2 = y * y
    return scale, float(y2.mean()) * scale**2, float((y2 * y).mean()) * scale**3


def fit_hyper_erlang_sample(sample: Any, *, max_order: int = DEFAULT_MAX_ORDER) -> HyperErlang:
    """Fit :func:`fit_hyper_erlang` to the first three raw moments of a sample.

    Parameters
    ----------
    sample : array-like
        Non-negative, finite observations (e.g. runtimes or interarrival times, s).
    max_order : int
        Highest order tried.

    Returns
    -------
    HyperErlang

    Raises
    ------
    InvalidInputError
        If the sample is empty, negative or not finite, all zero or constant, or no
        order up to ``max_order`` matches its moments.

    Examples
    --------
    >>> x = HyperErlang(p=0.8, n=1, lam1=1.0, lam2=0.05).sample(50_000, seed=3)
    >>> fit_hyper_erlang_sample(x).n
    1
    """
    m1, m2, m3 = sample_moments(sample)
    if m1 == 0:
        raise InvalidInputError("sample is all zeros: no hyper-Erlang matches it")
    return fit_hyper_erlang(m1, m2, m3, max_order=max_order)
