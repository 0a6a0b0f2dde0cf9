"""Hyper-Erlang of common order: moments, sampler, the three-moment fit (Jann et al. 1997).

Statistical tolerances are derived, not tuned: sample moments have covariance
``(M_{i+j} - M_i M_j) / N`` (from the exact moments up to order 6), and the delta method
(a numerical Jacobian of the fit) carries it to the fitted parameters. A check fails
beyond ``Z`` standard errors (two-sided normal tail 5.7e-7).
"""

import json
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.instances.hyper_erlang import (
    DEFAULT_MAX_ORDER,
    HyperErlang,
    fit_hyper_erlang,
    fit_hyper_erlang_sample,
    sample_moments,
)

Z = 5.0


def _relative_error(got, want):
    return max(abs(g - w) / abs(w) for g, w in zip(got, want, strict=True))


@st.composite
def feasible_moments(draw, max_order=DEFAULT_MAX_ORDER):
    """(m1, m2, m3) matched by some hyper-Erlang of order <= max_order.

    Order ``k`` matches when scv > 1/k and m1*m3/m2**2 > (k+2)/(k+1); any such triple
    is the moments of some distribution on [0, inf), so these are all feasible triples
    up to the strictness margins.
    """
    k = draw(st.integers(1, max_order))
    m1 = math.exp(draw(st.floats(-25, 25)))
    scv = (1.0 / k) * math.exp(draw(st.floats(1e-6, 12)))
    ratio = (k + 2) / (k + 1) * math.exp(draw(st.floats(1e-6, 14)))
    m2 = m1 * m1 * (1.0 + scv)
    return m1, m2, ratio * m2 * m2 / m1


@given(feasible_moments())
def test_fit_matches_three_moments_to_1e_9(moments):
    fitted = fit_hyper_erlang(*moments)
    assert _relative_error(fitted.moments(), moments) < 1e-9
    assert all(math.isfinite(v) for v in (fitted.p, fitted.lam1, fitted.lam2))
    assert fitted.p <= 0.5 or (fitted.p == 1.0 and fitted.lam1 == fitted.lam2)


@given(feasible_moments())
def test_fit_returns_the_lowest_order(moments):
    m1, m2, m3 = moments
    n = fit_hyper_erlang(*moments).n
    if n > 1:  # order n - 1 fails one of the two conditions (up to rounding)
        k = n - 1
        scv, ratio = m2 / m1**2 - 1, m1 * m3 / m2**2
        assert scv <= (1 / k) * (1 + 1e-9) or ratio <= (k + 2) / (k + 1) * (1 + 1e-9)


@given(
    st.floats(1e-6, 1.0),
    st.integers(1, 12),
    st.floats(-8, 8),
    st.floats(-6, 6),
)
def test_fit_of_exact_moments_is_exact(p, n, log_rate, log_ratio):
    d = HyperErlang(p=p, n=n, lam1=math.exp(log_rate), lam2=math.exp(log_rate + log_ratio))
    assert _relative_error(fit_hyper_erlang(*d.moments()).moments(), d.moments()) < 1e-9


@given(st.floats(1e-300, 1e300), st.floats(1e-300, 1e300), st.floats(1e-300, 1e300))
def test_fit_never_returns_nan(m1, m2, m3):
    try:
        d = fit_hyper_erlang(m1, m2, m3)
    except InvalidInputError:
        return
    assert all(math.isfinite(v) for v in (d.p, d.lam1, d.lam2, *d.moments()))


def test_known_parameters_are_recovered_from_exact_moments():
    for d in (
        HyperErlang(p=0.3, n=3, lam1=2.0, lam2=0.25),
        HyperErlang(p=0.25, n=2, lam1=1.0, lam2=0.1),
        HyperErlang(p=0.2, n=1, lam1=1.0, lam2=0.02),
    ):
        f = fit_hyper_erlang(*d.moments())
        assert f.n == d.n
        assert (f.p, f.lam1, f.lam2) == pytest.approx((d.p, d.lam1, d.lam2), rel=1e-9)


def test_a_single_erlang_is_the_degenerate_case():
    # scv exactly 1/n: only one Erlang of order n has these moments
    d = fit_hyper_erlang(*HyperErlang.erlang(4, 0.5).moments())
    assert (d.n, d.p) == (4, 1.0) and d.lam1 == d.lam2 == pytest.approx(0.5, rel=1e-12)
    assert fit_hyper_erlang(*HyperErlang.erlang(1, 2.0).moments()).n == 1
    # scv 1/n with the wrong third moment: order n cannot match; the next order does
    m1, m2, m3 = HyperErlang.erlang(2, 1.0).moments()
    d = fit_hyper_erlang(m1, m2, m3 * 1.5)
    assert d.n == 3 and _relative_error(d.moments(), (m1, m2, m3 * 1.5)) < 1e-9


def _delta_method(d, n_samples):
    """Fitted (p, lam1, lam2, scv, ratio) and their standard errors for N draws of d."""
    moments = [d.moment(k) for k in range(7)]
    cov = (
        np.array([[moments[i + j] - moments[i] * moments[j] for j in (1, 2, 3)] for i in (1, 2, 3)])
        / n_samples
    )
    m = np.array(moments[1:4])

    def stats(x):
        f = fit_hyper_erlang(*x)
        return np.array([f.p, f.lam1, f.lam2, x[1] / x[0] ** 2 - 1, x[0] * x[2] / x[1] ** 2])

    jac = np.zeros((5, 3))
    for k in range(3):
        step = np.zeros(3)
        step[k] = m[k] * 1e-6
        jac[:, k] = (stats(m + step) - stats(m - step)) / (2 * step[k])
    return stats(m), np.sqrt(np.diag(jac @ cov @ jac.T))


@pytest.mark.parametrize(
    "d",
    [HyperErlang(p=0.3, n=3, lam1=2.0, lam2=0.25), HyperErlang(p=0.3, n=2, lam1=4.0, lam2=0.2)],
    ids=["order3", "order2"],
)
def test_fit_to_a_sample_recovers_known_parameters(d):
    n_samples = 400_000
    want, se = _delta_method(d, n_samples)
    # the premise: the order is identified well beyond sampling noise
    n = d.n
    assert (want[4] - (n + 2) / (n + 1)) / se[4] > 2 * Z  # order n can match
    assert ((n + 1) / n - want[4]) / se[4] > 2 * Z  # order n - 1 cannot (third moment)
    fitted = fit_hyper_erlang_sample(d.sample(n_samples, seed=2024))
    assert fitted.n == d.n
    got = np.array([fitted.p, fitted.lam1, fitted.lam2])
    assert np.all(np.abs(got - want[:3]) <= Z * se[:3]), (got, want[:3], se[:3])


def test_sampler_matches_the_cdf():
    d = HyperErlang(p=0.35, n=2, lam1=3.0, lam2=0.05)
    n = 50_000
    x = np.sort(d.sample(n, seed=7))
    ecdf_hi = np.arange(1, n + 1) / n
    gap = max(np.max(ecdf_hi - d.cdf(x)), np.max(d.cdf(x) - (ecdf_hi - 1 / n)))
    alpha = 1e-6  # Kolmogorov-Smirnov critical value sqrt(-ln(alpha / 2) / (2 n))
    assert gap < math.sqrt(-math.log(alpha / 2) / (2 * n))
    assert (x > 0).all()


def test_sampler_is_seeded_and_refuses_bad_sizes():
    d = HyperErlang(p=0.5, n=2, lam1=1.0, lam2=0.1)
    assert np.array_equal(d.sample(100, seed=3), d.sample(100, seed=3))
    assert not np.array_equal(d.sample(100, seed=3), d.sample(100, seed=4))
    assert d.sample(0, seed=1).shape == (0,)
    with pytest.raises(InvalidInputError, match="size must be an integer >= 0; got -1"):
        d.sample(-1)


def test_moments_mean_variance_scv():
    d = HyperErlang(p=0.5, n=1, lam1=1.0, lam2=0.25)
    assert d.moments() == (2.5, 17.0, 195.0)
    assert d.variance == pytest.approx(17.0 - 2.5**2)
    assert HyperErlang.erlang(5, 2.0).scv == pytest.approx(0.2)
    assert d.moment(0) == 1.0
    with pytest.raises(InvalidInputError, match="moment order k"):
        d.moment(-1)


def test_json_round_trip_is_exact():
    d = fit_hyper_erlang(3.0, 40.0, 1234.5)
    assert HyperErlang.from_dict(json.loads(json.dumps(d.to_dict()))) == d
    with pytest.raises(InvalidInputError, match="HyperErlang object is malformed"):
        HyperErlang.from_dict({"p": 0.5, "n": 1})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"p": 1.5, "n": 1, "lam1": 1.0, "lam2": 1.0},
            r"HyperErlang.p must be in \[0, 1\]; got 1.5",
        ),
        (
            {"p": 0.5, "n": 0, "lam1": 1.0, "lam2": 1.0},
            "HyperErlang.n must be an integer >= 1; got 0",
        ),
        ({"p": 0.5, "n": 1.5, "lam1": 1.0, "lam2": 1.0}, "HyperErlang.n must be an integer"),
        ({"p": 0.5, "n": 1, "lam1": 0.0, "lam2": 1.0}, "HyperErlang.lam1 must be finite and > 0"),
        ({"p": 0.5, "n": 1, "lam1": 1.0, "lam2": math.inf}, "HyperErlang.lam2 must be finite"),
        ({"p": "x", "n": 1, "lam1": 1.0, "lam2": 1.0}, "HyperErlang.p must be a number"),
    ],
)
def test_invalid_parameters_are_refused(kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        HyperErlang(**kwargs)


@pytest.mark.parametrize(
    ("moments", "kwargs", "message"),
    [
        ((1.0, 1.05, 1.2), {"max_order": 8}, r"order <= 8 .*squared coefficient of variation 0.05"),
        ((1.0, 1.0, 1.0), {}, "squared coefficient of variation 0 is below"),
        # scv 2 is fine for order 1, but m1*m3/m2**2 = 1.1 needs order >= 9
        ((1.0, 3.0, 9.9), {"max_order": 8}, r"third moment is too small: m1\*m3/m2\*\*2 = 1.1"),
        ((2.0, 3.0, 10.0), {}, r"not those of any distribution: m2 must be >= m1\*\*2"),
        ((1.0, 2.0, 3.0), {}, r"not those of any distribution on \[0, inf\)"),
        ((-1.0, 2.0, 3.0), {}, "moment m1 must be finite and > 0; got -1.0"),
        ((1.0, math.nan, 3.0), {}, "moment m2 must be finite and > 0; got nan"),
        ((1.0, 2.0, 6.0), {"max_order": 0}, r"max_order must be an integer in \[1, 1000\]; got 0"),
    ],
)
def test_infeasible_moments_are_refused_with_a_clear_error(moments, kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        fit_hyper_erlang(*moments, **kwargs)


def test_sample_moments_and_their_errors():
    assert sample_moments([1, 2, 3]) == pytest.approx((2.0, 14 / 3, 12.0))
    with pytest.raises(InvalidInputError, match="sample must not be empty"):
        sample_moments([])
    with pytest.raises(InvalidInputError, match=r"finite and >= 0; got .*-2\.0.* at index 1"):
        sample_moments([1, -2])
    with pytest.raises(InvalidInputError, match="all zeros"):
        fit_hyper_erlang_sample([0, 0, 0])
    with pytest.raises(InvalidInputError, match="squared coefficient of variation 0 "):
        fit_hyper_erlang_sample([5, 5, 5])
