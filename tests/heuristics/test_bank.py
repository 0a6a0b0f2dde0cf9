"""Li and Parker's bank algorithm: tickets, the accounts' books, convergence, policies."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.heuristics.bank import (
    GIVE_RULES,
    STEP3_RULES,
    BankPolicy,
    bank,
    bank_round,
    largest_remainder,
)
from allockit.instances.reserves import ReservesInstance
from allockit.reserves import allocate_reserves
from allockit.results import ReservesResult, SolveStatus
from allockit.simulation.cluster_nodes import gps_serve
from tests.strategies import reserves_instances

TARGETS = np.array([60.0, 30.0, 10.0])

policies = st.builds(
    BankPolicy,
    c=st.sampled_from([0.0, 1.0, 2.0, 5.0]),
    needy_tol=st.sampled_from([0.0, 0.5, 1.0]),
    step3=st.sampled_from(STEP3_RULES),
    give=st.sampled_from(GIVE_RULES),
    pay_fraction=st.sampled_from([0.0, 0.5, 1.0]),
    retention=st.sampled_from([0.0, 0.3, 1.0]),
    floor=st.sampled_from([0, 1, 5]),
)


def check_round(out, n, s, policy):
    """Certificate of one round: 100 tickets a node, floors, integers, books balance."""
    alloc = out.allocation
    assert alloc.shape == (n, s)
    assert np.allclose(alloc.sum(axis=1), 100.0, atol=1e-9)
    assert (alloc >= policy.floor - 1e-9).all()
    if policy.integer:
        assert np.array_equal(alloc, np.round(alloc))
        assert (alloc.sum(axis=1) == 100).all()
    assert np.abs(out.ledger.residual()).max() <= 1e-8 * (1 + np.abs(out.ledger.opening).max()
                                                          + out.ledger.deposited_unused.max())
    assert np.allclose(out.balance, out.ledger.carried)
    assert np.allclose(out.ledger.carried, policy.retention * (out.ledger.carried
                                                               + out.ledger.cleared))


@given(reserves_instances(max_nodes=6, max_classes=5), policies,
       st.lists(st.floats(-50, 50), min_size=5, max_size=5))
def test_every_node_holds_exactly_100_tickets_and_the_books_balance(inst, policy, opening):
    if inst.n_classes * policy.floor > 100:
        return
    out = bank_round(inst.allocation, inst.usage, inst.targets, policy=policy,
                     balance=opening[: inst.n_classes])
    check_round(out, inst.n_nodes, inst.n_classes, policy)


@given(reserves_instances(max_nodes=4, max_classes=4), policies, st.integers(2, 6))
def test_100_tickets_after_every_round_of_a_run(inst, policy, rounds):
    if inst.n_classes * policy.floor > 100:
        return
    r, u, bal = inst.allocation, inst.usage, None
    for _ in range(rounds):
        out = bank_round(r, u, inst.targets, policy=policy, balance=bal)
        check_round(out, inst.n_nodes, inst.n_classes, policy)
        r, bal = out.allocation, out.balance
        u = gps_usage(r, np.ones_like(r, dtype=bool))


def gps_usage(tickets, present):
    """Usage (percent) on nodes where the present classes are always backlogged."""
    backlog = np.where(present, 1e6, 0.0)
    return gps_serve(backlog, tickets, 1.0) * 100.0


@pytest.mark.parametrize("n", [4, 40, 400])
def test_uniform_dispatch_converges_to_the_targets(n):
    present = np.ones((n, 3), dtype=bool)
    r = np.tile([34.0, 33.0, 33.0], (n, 1))
    for _ in range(10):
        u = gps_usage(r, present)
        r = bank_round(r, u, TARGETS).allocation
    shares = gps_usage(r, present).sum(axis=0) / n
    np.testing.assert_allclose(shares, TARGETS, atol=1.0)


@pytest.mark.parametrize(("n", "k"), [(4, 1), (100, 30), (900, 300)])
def test_a_class_sent_to_few_nodes_still_gets_its_share(n, k):
    # Figs 3, 5 and 7 with one (central) manager and ideal nodes
    present = np.ones((n, 3), dtype=bool)
    present[k:, 2] = False
    r = np.tile([60.0, 30.0, 10.0], (n, 1))
    shares = []
    for t in range(60):
        u = gps_usage(r, present)
        if t >= 20:
            shares.append(u.sum(axis=0) / n)
        r = bank_round(r, u, TARGETS).allocation
    mean = np.mean(shares, axis=0)
    np.testing.assert_allclose(mean, TARGETS, atol=2.0)
    assert np.std(shares, axis=0).max() < 1.0


def test_fig3_round_by_hand():
    r = np.tile(TARGETS, (4, 1))
    u = np.array([[66.7, 33.3, 0.0]] * 3 + [[60.0, 30.0, 10.0]])
    out = bank_round(r, u, TARGETS)
    led = out.ledger
    # step 1: class 3 left 10 tickets unused on each of nodes 1-3
    assert led.deposited_unused.tolist() == pytest.approx([0.0, 0.0, 30.0])
    # step 5 pays them to class 3 on node 4, its only needy node
    assert led.paid[2] == pytest.approx(30.0)
    assert out.allocation[3, 2] > 40 and (out.allocation[:3, 2] == 0).all()
    assert out.needy.tolist() == [[True, True, False]] * 3 + [[True, True, True]]


def test_retention_carries_a_share_of_the_balance():
    r = np.tile(TARGETS, (4, 1))
    u = np.array([[66.7, 33.3, 0.0]] * 4)  # class 3 has no needy node: nothing paid
    basic = bank_round(r, u, TARGETS)
    kept = bank_round(r, u, TARGETS, policy=BankPolicy(retention=0.25))
    assert basic.balance.tolist() == pytest.approx([0.0, 0.0, 0.0], abs=1e-9)
    total = basic.ledger.cleared[2]
    assert total == pytest.approx(80.0)  # 40 unused + 40 still under target
    assert kept.balance[2] == pytest.approx(0.25 * total)
    carried = bank_round(r, u, TARGETS, policy=BankPolicy(retention=0.25), balance=kept.balance)
    assert carried.ledger.opening[2] == pytest.approx(20.0)


def test_weights_equal_duplicated_rows():
    rng = np.random.default_rng(0)
    r = largest_remainder(rng.dirichlet(np.ones(3), 3) * 100)
    u = np.minimum(r * rng.uniform(0.5, 1.5, r.shape), 100.0)
    u = u / np.maximum(u.sum(axis=1, keepdims=True) / 100, 1)
    w = np.array([1.0, 2.0, 3.0])
    dup = np.repeat(np.arange(3), [1, 2, 3])
    for give in GIVE_RULES:
        policy = BankPolicy(give=give, integer=False)
        a = bank_round(r, u, TARGETS, weights=w, policy=policy)
        b = bank_round(r[dup], u[dup], TARGETS, policy=policy)
        np.testing.assert_allclose(a.allocation[dup], b.allocation, atol=1e-9)
        np.testing.assert_allclose(a.ledger.paid, b.ledger.paid, atol=1e-9)


def test_needy_override_and_its_shape_check():
    r = np.tile(TARGETS, (2, 1))
    u = np.zeros((2, 3))
    forced = np.array([[True, False, False], [True, False, False]])
    out = bank_round(r, u, TARGETS, needy=forced)
    assert out.needy.tolist() == forced.tolist()
    assert out.allocation[:, 0].min() >= 60
    with pytest.raises(InvalidInputError, match=r"needy must have shape \(2, 3\)"):
        bank_round(r, u, TARGETS, needy=[True])


def test_step3_rules_differ_and_balanced_moves_equal_amounts():
    r = np.tile(TARGETS, (4, 1))
    u = np.array([[66.7, 33.3, 0.0]] * 3 + [[60.0, 30.0, 10.0]])
    outs = {rule: bank_round(r, u, TARGETS, policy=BankPolicy(step3=rule, integer=False))
            for rule in STEP3_RULES}
    assert not np.allclose(outs["full"].allocation, outs["none"].allocation)
    assert not np.allclose(outs["full"].allocation, outs["balanced"].allocation)


@given(st.lists(st.lists(st.floats(0, 100), min_size=1, max_size=6), min_size=1,
                max_size=6).filter(lambda rows: len({len(r) for r in rows}) == 1))
def test_largest_remainder_keeps_sums_and_stays_within_one(rows):
    x = np.array(rows)
    sums = x.sum(axis=1, keepdims=True)
    x = np.divide(x * 100, sums, out=np.full_like(x, 100 / x.shape[1]), where=sums > 0)
    out = largest_remainder(x)
    assert (out.sum(axis=1) == 100).all()
    assert (np.abs(out - x) < 1 + 1e-9).all()
    assert np.array_equal(out, np.round(out))


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        ("c", -1, r"BankPolicy.c must be >= 0; got -1.0"),
        ("c", "2", r"BankPolicy.c must be a number; got '2'"),
        ("needy_tol", float("nan"), r"BankPolicy.needy_tol must be >= 0"),
        ("pay_fraction", 1.5, r"BankPolicy.pay_fraction must be in \[0, 1\]; got 1.5"),
        ("retention", -0.1, r"BankPolicy.retention must be in \[0, 1\]"),
        ("retention", True, r"BankPolicy.retention must be a number; got True"),
        ("step3", "most", r"BankPolicy.step3 must be one of \['full', 'balanced', 'none'\]"),
        ("give", "random", r"BankPolicy.give must be one of \['equal', 'proportional'\]"),
        ("floor", 1.5, r"BankPolicy.floor must be an integer >= 0; got 1.5"),
        ("floor", -1, r"BankPolicy.floor must be an integer >= 0; got -1"),
        ("integer", 1, r"BankPolicy.integer must be a bool; got 1"),
    ],
)
def test_bad_policy_values_name_the_field(field, value, match):
    with pytest.raises(InvalidInputError, match=match):
        BankPolicy(**{field: value})


def test_policy_round_trip_and_unknown_fields():
    p = BankPolicy(c=3.0, retention=0.5, floor=2, give="proportional")
    assert BankPolicy.from_dict(p.to_dict()) == p
    with pytest.raises(InvalidInputError, match=r"BankPolicy has no field 'gain'"):
        BankPolicy.from_dict({"gain": 1})


def test_shape_and_floor_errors():
    with pytest.raises(InvalidInputError, match=r"bank_round needs allocation and usage"):
        bank_round(np.zeros((2, 3)), np.zeros((2, 2)), TARGETS)
    with pytest.raises(InvalidInputError, match=r"S \* floor <= 100; got floor 40 for S=3"):
        bank_round(np.zeros((1, 3)), np.zeros((1, 3)), TARGETS, policy=BankPolicy(floor=40))
    with pytest.raises(InvalidInputError, match=r"balance must have shape \(3,\)"):
        bank_round(np.zeros((1, 3)), np.zeros((1, 3)), TARGETS, balance=[1.0])
    with pytest.raises(InvalidInputError, match=r"weights must have shape \(1,\)"):
        bank_round(np.zeros((1, 3)), np.zeros((1, 3)), TARGETS, weights=[1.0, 2.0])


def test_bank_on_an_instance_and_through_the_registry():
    inst = ReservesInstance.from_dict({
        "targets": [60, 30, 10],
        "allocation": [[60, 30, 10]] * 4,
        "usage": [[66.7, 33.3, 0]] * 3 + [[60, 30, 10]],
    })
    res = bank(inst, c=2, retention=0.5, floor=1)
    assert isinstance(res, ReservesResult) and res.status == SolveStatus.FEASIBLE
    assert res.V is None and res.qp_objective is None
    assert (res.allocation >= 1).all() and (res.allocation.sum(axis=1) == 100).all()
    assert ReservesResult.from_dict(res.to_dict()).to_dict() == res.to_dict()
    via = allocate_reserves(inst, "bank", c=2, retention=0.5, floor=1, seed=3)
    assert via.allocation.tolist() == res.allocation.tolist()
    policy = dataclasses.replace(BankPolicy(), c=0.0)
    assert allocate_reserves(inst, "bank", policy=policy).method == "bank"
    with pytest.raises(InvalidInputError, match=r"bank has no option 'gain'"):
        bank(inst, gain=1)
    with pytest.raises(InvalidInputError, match=r"does not accept option 'backend'"):
        allocate_reserves(inst, "bank", backend="fast")
