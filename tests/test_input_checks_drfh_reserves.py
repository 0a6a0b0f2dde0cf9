"""Entry checks of the DRFH result builder and checker and of the bank algorithm.

Found by a fuzz run: ``check_result`` passed NaN, negative or impossible dominant shares
and utilisations; ``result_from_shares`` packaged NaN, negative or over-capacity shares
as ``optimal``; ``bank`` turned an infinite balance into an all-NaN allocation; and
``largest_remainder`` passed NaN through and ignored a ``total`` it could not honour.
"""

import dataclasses

import numpy as np
import pytest

from allockit.errors import InvalidInputError
from allockit.evaluation.drfh_allocation import check_result, result_from_output
from allockit.heuristics.bank import BankPolicy, bank, bank_round, largest_remainder
from allockit.heuristics.drfh_tasks import first_fit
from allockit.instances.drfh import DRFHInstance
from allockit.instances.reserves import ReservesInstance
from allockit.models.drfh_lp import drfh_lp, progressive_filling, result_from_shares
from allockit.results import DRFHResult, SolveStatus

FIG1 = DRFHInstance.from_dict({
    "resources": ["cpu", "mem"],
    "servers": [{"name": "s1", "capacity": [2, 12]}, {"name": "s2", "capacity": [12, 2]}],
    "users": [{"name": "u1", "demand": [0.2, 1]}, {"name": "u2", "demand": [1, 0.2]}],
})
ONE = DRFHInstance.from_dict({
    "resources": ["cpu", "mem"],
    "servers": [{"name": "s", "capacity": [1, 1], "count": 2}],
    "users": [{"name": "u", "demand": [0.2, 0.1]}],
})
RESERVES = ReservesInstance.from_dict({
    "targets": [60, 30, 10],
    "allocation": [[60, 30, 10]] * 4,
    "usage": [[66.7, 33.3, 0]] * 3 + [[60, 30, 10]],
})
NAN, INF = float("nan"), float("inf")


# ---------------------------------------------------------------- check_result (DRFH)
@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("dominant_share", [5.0, 5.0], r"dominant_share\[0\] \(user 'u1'\) is 5.0"),
        ("dominant_share", [NAN, 0.5], r"dominant_share\[0\] \(user 'u1'\) is nan"),
        ("dominant_share", [0.5, NAN], r"dominant_share\[1\] \(user 'u2'\) is nan"),
        ("dominant_share", [-1.0, 0.5], r"dominant_share\[0\] \(user 'u1'\) is -1.0"),
        ("dominant_share", [INF, 0.5], r"dominant_share\[0\] \(user 'u1'\) is inf"),
        ("dominant_share", [0.5, 0.9], r"dominant_share\[1\] \(user 'u2'\) is 0.9; .* at most"),
        ("dominant_share", [0.5], r"dominant_share must have shape \(2,\); got \(1,\)"),
        ("utilization", [NAN, 0.5], r"utilization\[0\] \(resource 'cpu'\) is nan"),
        ("utilization", [0.5, -0.1], r"utilization\[1\] \(resource 'mem'\) is -0.1"),
        ("utilization", [1.2, 0.5], r"utilization\[0\] \(resource 'cpu'\) is 1.2"),
        ("utilization", [0.99, 0.5], r"utilization\[0\] \(resource 'cpu'\) is 0.99"),
        ("utilization", [-INF, 0.5], r"utilization\[0\] \(resource 'cpu'\) is -inf"),
        ("utilization", [[0.5, 0.5]], r"utilization must have shape \(2,\); got \(1, 2\)"),
    ],
)
def test_check_result_rejects_impossible_shares_and_utilisation(field, value, match):
    good = drfh_lp(FIG1)
    bad = dataclasses.replace(good, **{field: np.array(value)})
    with pytest.raises(InvalidInputError, match=f"mine: the result's {match}"):
        check_result(FIG1, bad, method="mine")
    with pytest.raises(InvalidInputError, match=match):
        result_from_output(FIG1, bad, method="mine", seconds=0.0)


@pytest.mark.parametrize(
    "make",
    [
        lambda inst: drfh_lp(inst),
        lambda inst: progressive_filling(inst),
        lambda inst: first_fit(inst),
    ],
    ids=["lp", "progressive", "first-fit"],
)
def test_check_result_still_passes_valid_results(make):
    result = make(FIG1)
    checked = check_result(FIG1, result, method="mine")
    assert checked.method == "mine"
    for name in ("tasks", "dominant_share", "allocation", "utilization"):
        assert getattr(checked, name).tobytes() == getattr(result, name).tobytes()


def test_check_result_passes_a_hoarder_holding_everything():
    # one user holds the whole pool: dominant share 1 and utilisation 1 are possible
    n, k, m = FIG1.n_users, FIG1.n_classes, len(FIG1.resources)
    alloc = np.zeros((n, k, m))
    alloc[0] = FIG1.capacity * FIG1.count[:, None]
    runs = float(np.min(alloc[0] / FIG1.demand[0], axis=1).sum())
    hoard = DRFHResult(
        method="hoard", status="feasible", user_names=FIG1.user_names,
        server_names=FIG1.server_names, resources=FIG1.resources,
        tasks=np.array([runs, 0.0]), dominant_share=np.array([1.0, 0.0]),
        allocation=alloc, utilization=np.ones(m),
    )
    assert check_result(FIG1, hoard, method="hoard").method == "hoard"


# ---------------------------------------------------------------- result_from_shares
def _package(g, instance=ONE):
    return result_from_shares(
        instance, g, method="demo", status=SolveStatus.OPTIMAL, seconds=0.0
    )


@pytest.mark.parametrize(
    ("g", "match"),
    [
        (np.array([[NAN]]), r"g\[0, 0\] must be finite and >= 0; got nan \(user 'u', class 's'\)"),
        (np.array([[-0.5]]), r"g\[0, 0\] must be finite and >= 0; got -0.5"),
        (np.array([[INF]]), r"g\[0, 0\] must be finite and >= 0; got inf"),
        (np.array([[1.2]]), r"g uses 1.2 of cpu on class 's', more than its capacity 1"),
        (np.array([0.5]), r"g must have shape \(n_users, n_classes\) = \(1, 1\); got \(1,\)"),
        (np.array([[0.5, 0.5]]), r"g must have shape .* = \(1, 1\); got \(1, 2\)"),
        ([["a"]], r"g must be an array of numbers"),
    ],
)
def test_result_from_shares_refuses_bad_shares(g, match):
    with pytest.raises(InvalidInputError, match=match):
        _package(g)


def test_result_from_shares_refuses_a_class_over_capacity():
    # both users at 0.8 on class s1: cpu 0.16 + 0.8 of s1's 2/14 share of the cpu pool
    with pytest.raises(InvalidInputError, match=r"g uses .* on class 's1', more than its"):
        _package(np.array([[0.8, 0.0], [0.8, 0.0]]), FIG1)


def test_result_from_shares_keeps_valid_and_round_off_shares():
    r = _package(np.array([[0.5]]))
    assert (r.tasks.tolist(), r.utilization.tolist()) == ([5.0], [0.5, 0.25])
    assert r.status is SolveStatus.OPTIMAL
    full = _package(np.array([[1.0 + 1e-12]]))  # round-off of a solver: within CAPACITY_TOL
    assert full.utilization[0] == pytest.approx(1.0)
    assert _package(np.array([[0]])).tasks.tolist() == [0.0]  # integers are numbers too


# ---------------------------------------------------------------- bank
@pytest.mark.parametrize(
    ("balance", "match"),
    [
        ([INF, 0, 0], r"balance\[0\] must be finite; got inf"),
        ([NAN, 0, 0], r"balance\[0\] must be finite; got nan"),
        ([0, 0, -INF], r"balance\[2\] must be finite; got -inf"),
        ([0, 0], r"balance must have shape \(3,\); got \(2,\)"),
        (["a", 0, 0], r"balance must be an array of numbers"),
    ],
)
def test_bank_refuses_non_finite_balances(balance, match):
    with pytest.raises(InvalidInputError, match=match):
        bank(RESERVES, balance=balance)


def test_bank_keeps_finite_balances_of_either_sign():
    balance = [-40.0, 25.5, 0.0]
    got = bank(RESERVES, balance=balance, retention=0.5)
    ref = bank_round(
        RESERVES.allocation, RESERVES.usage, RESERVES.targets,
        policy=BankPolicy(retention=0.5), balance=balance,
    )
    assert got.allocation.tobytes() == ref.allocation.tobytes()
    assert got.balances.tobytes() == ref.balance.tobytes()


# ---------------------------------------------------------------- largest_remainder
@pytest.mark.parametrize(
    ("shares", "match"),
    [
        ([[NAN, 50, 50]], r"shares\[0, 0\] must be finite and >= 0; got nan"),
        ([[50, 50, 0], [INF, 0, 0]], r"shares\[1, 0\] must be finite and >= 0; got inf"),
        ([[-10, 60, 50]], r"shares\[0, 0\] must be finite and >= 0; got -10.0"),
        ([[50, 30, 21]], r"shares\[0\] sums to 101.0; every row must sum to total = 100"),
        ([50, 30, 20], r"shares must have shape \(N, S\); got \(3,\)"),
    ],
)
def test_largest_remainder_refuses_bad_shares(shares, match):
    with pytest.raises(InvalidInputError, match=match):
        largest_remainder(np.array(shares, dtype=float))


@pytest.mark.parametrize(
    ("total", "match"),
    [
        (NAN, r"total must be a whole number >= 0; got nan"),
        (-100, r"total must be a whole number >= 0; got -100"),
        (99.5, r"total must be a whole number >= 0; got 99.5"),
        (INF, r"total must be a whole number >= 0; got inf"),
        (np.float64(99.5), r"total must be a whole number >= 0; got 99.5"),
        ("100", r"total must be a whole number >= 0; got '100'"),
        (True, r"total must be a whole number >= 0; got True"),
        (90, r"shares\[0\] sums to 100.0; every row must sum to total = 90"),
    ],
)
def test_largest_remainder_refuses_totals_it_cannot_honour(total, match):
    with pytest.raises(InvalidInputError, match=match):
        largest_remainder(np.array([[50.0, 30.0, 20.0]]), total)


def test_largest_remainder_honours_valid_totals():
    assert largest_remainder(np.array([[3.5, 3.5]]), 7).tolist() == [[4.0, 3.0]]
    x = np.array([[100 / 3] * 3, [59.5, 30.5, 10.0]])
    assert largest_remainder(x, 100.0).tobytes() == largest_remainder(x).tobytes()
    assert largest_remainder(np.zeros((2, 3)), 0).tolist() == [[0.0] * 3] * 2
