"""Li and Parker's bank algorithm: six steps of ticket arithmetic, vectorised over N x S.

Every node holds exactly 100 tickets; ``R[i, j]`` of them go to class ``j``. A manager
keeps one bank account per class. One round maps the previous allocation ``r``, the
measured usage ``u`` (percent of each node) and the targets ``D`` to a new allocation:

1. **Deposit** each class's allocated-but-unused tickets, ``sum_i max(r_ij - u_ij, 0)``,
   into its account (the resource container gave them to other classes; the bank
   compensates the contributor).
2. **Initial values**: ``R_ij = u_ij + c`` if class ``j`` is *needy* on node ``i`` (it
   used all of its allocation: ``u_ij >= r_ij - needy_tol``), else ``u_ij - c``
   (clipped to [0, 100]). With ``r_ij = 0`` a class counts as needy, so a class that
   lost every ticket on a node probes it again with ``c`` tickets.
3. **Transfer** (policy ``step3``): compare each class total ``T_j = sum_i w_i R_ij``
   with its goal ``W D_j``. ``"full"`` (default) takes each over-allocated class's whole
   excess, from every node in proportion to its tickets there, and gives each
   under-allocated class with a needy node its whole deficit on its needy nodes;
   ``"balanced"`` moves only ``min(total excess, total needy deficit)`` so that the
   tickets taken equal the tickets given (a pure ticket transfer); ``"none"`` skips it.
4. **Settle**: a class still over its goal withdraws the excess from its account (it
   pays for what it takes), a class still under deposits its deficit.
5. **Pay out** (``pay_fraction`` of) every positive balance as tickets to the class on
   its needy nodes.
6. **Normalise** every node to 100 tickets (proportionally; an all-zero node is split
   equally), give every class at least ``floor`` tickets (each class first gets the
   floor, the other ``100 - S floor`` are shared in proportion), round to integers by
   largest remainders (ties to the lower class index), and clear the accounts but for
   the fraction ``retention`` of each balance, carried to the next round (0: the
   paper's basic version, spatial compensation only; 1: full temporal compensation).

Gifts in steps 3 and 5 are spread over a class's needy nodes by policy ``give``:
``"equal"`` tickets per node (default) or ``"proportional"`` to the class's tickets
there. A row may stand for ``w_i`` nodes (a manager's child in the hierarchy); totals
are then capacity-weighted and every row still holds 100 tickets (percent of the child).

The ledger balances: ``opening + deposited_unused + deposited_under = withdrawn_over +
paid + carried + cleared`` for every class (``BankLedger.residual`` is zero).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from allockit.errors import InvalidInputError
from allockit.instances.reserves import ReservesInstance
from allockit.results import ReservesResult, SolveStatus, readonly_array

__all__ = [
    "GIVE_RULES",
    "STEP3_RULES",
    "TICKETS",
    "BankLedger",
    "BankPolicy",
    "BankRound",
    "bank",
    "bank_round",
    "largest_remainder",
]

#: Tickets on one node.
TICKETS = 100
#: Policies of step 3.
STEP3_RULES = ("full", "balanced", "none")
#: How gifts are spread over needy nodes in steps 3 and 5.
GIVE_RULES = ("equal", "proportional")


def _real(value: Any, name: str, low: float, high: float = np.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise InvalidInputError(f"BankPolicy.{name} must be a number; got {value!r}")
    value = float(value)
    if not (np.isfinite(value) and low <= value <= high):
        bounds = f"in [{low:g}, {high:g}]" if np.isfinite(high) else f">= {low:g}"
        raise InvalidInputError(f"BankPolicy.{name} must be {bounds}; got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class BankPolicy:
    """The overridable choices of the bank algorithm's six steps (module docstring).

    Parameters
    ----------
    c : float
        Step 2's adjustment in tickets (the paper's 2).
    needy_tol : float
        A class is needy on a node when ``u >= r - needy_tol`` (tickets): it used all of
        its allocation, up to measurement noise.
    step3 : {"full", "balanced", "none"}
        Step 3's transfer rule.
    give : {"equal", "proportional"}
        How steps 3 and 5 spread a gift over a class's needy nodes.
    pay_fraction : float
        Share of a positive balance paid out in step 5, in [0, 1].
    retention : float
        Share of each balance carried to the next round in step 6, in [0, 1]; 0 is the
        paper's basic version (accounts cleared).
    floor : int
        Least tickets of every class on every node after step 6 (``S * floor <= 100``).
    integer : bool
        Round to integer tickets (exactly 100 per node); False keeps real shares.

    Raises
    ------
    InvalidInputError
        For a value outside its range or an unknown rule, naming the field.

    Examples
    --------
    >>> BankPolicy(retention=0.5).c
    2.0
    >>> BankPolicy(step3="some")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: BankPolicy.step3 must be one of ['full', ...; got 'some'
    """

    c: float = 2.0
    needy_tol: float = 1.0
    step3: str = "full"
    give: str = "equal"
    pay_fraction: float = 1.0
    retention: float = 0.0
    floor: int = 0
    integer: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "c", _real(self.c, "c", 0.0))
        object.__setattr__(self, "needy_tol", _real(self.needy_tol, "needy_tol", 0.0))
        object.__setattr__(
            self, "pay_fraction", _real(self.pay_fraction, "pay_fraction", 0.0, 1.0)
        )
        object.__setattr__(self, "retention", _real(self.retention, "retention", 0.0, 1.0))
        if self.step3 not in STEP3_RULES:
            raise InvalidInputError(
                f"BankPolicy.step3 must be one of {list(STEP3_RULES)}; got {self.step3!r}"
            )
        if self.give not in GIVE_RULES:
            raise InvalidInputError(
                f"BankPolicy.give must be one of {list(GIVE_RULES)}; got {self.give!r}"
            )
        if isinstance(self.floor, bool) or not isinstance(self.floor, int | np.integer) or (
            self.floor < 0
        ):
            raise InvalidInputError(f"BankPolicy.floor must be an integer >= 0; got {self.floor!r}")
        object.__setattr__(self, "floor", int(self.floor))
        if not isinstance(self.integer, bool):
            raise InvalidInputError(f"BankPolicy.integer must be a bool; got {self.integer!r}")

    def to_dict(self) -> dict[str, Any]:
        """The policy as JSON (``from_dict`` reads it back).

        Examples
        --------
        >>> BankPolicy.from_dict(BankPolicy(c=3).to_dict()) == BankPolicy(c=3)
        True
        """
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BankPolicy:
        """Build from ``to_dict``'s output; unknown keys are refused.

        Raises
        ------
        InvalidInputError
            For an unknown key or a bad value.
        """
        names = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(data) - set(names))
        if unknown:
            raise InvalidInputError(
                f"BankPolicy has no field {unknown[0]!r}; accepted: {', '.join(names)}"
            )
        return cls(**dict(data))


@dataclass(frozen=True, slots=True)
class BankLedger:
    """Per class, every ticket that entered or left the account during one round.

    ``opening`` (carried from the last round) ``+ deposited_unused`` (step 1) ``+
    deposited_under`` (step 4) ``= withdrawn_over`` (step 4) ``+ paid`` (step 5) ``+
    carried`` (kept by step 6) ``+ cleared`` (dropped by step 6). Balances may be
    negative (a class in debt); a negative balance is never paid out.

    Examples
    --------
    >>> z = np.zeros(2)
    >>> BankLedger(z, z + 3, z, z + 1, z + 2, z, z).residual().tolist()
    [0.0, 0.0]
    """

    opening: np.ndarray
    deposited_unused: np.ndarray
    deposited_under: np.ndarray
    withdrawn_over: np.ndarray
    paid: np.ndarray
    carried: np.ndarray
    cleared: np.ndarray

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            object.__setattr__(self, f.name, readonly_array(getattr(self, f.name), np.float64))

    def residual(self) -> np.ndarray:
        """Inflow minus outflow per class: zero up to round-off when the books balance."""
        return (
            self.opening
            + self.deposited_unused
            + self.deposited_under
            - self.withdrawn_over
            - self.paid
            - self.carried
            - self.cleared
        )

    def to_dict(self) -> dict[str, list[float]]:
        """The ledger as JSON lists."""
        return {f.name: getattr(self, f.name).tolist() for f in dataclasses.fields(self)}


@dataclass(frozen=True, slots=True)
class BankRound:
    """One round of the bank algorithm: the new allocation, the accounts, the ledger.

    ``allocation`` (N, S) holds the new tickets (integers when ``policy.integer``, every
    row summing to 100), ``balance`` (S,) what the accounts carry to the next round,
    ``needy`` (N, S) step 2's needy marks, ``seconds`` the round's wall time.

    Parameters
    ----------
    allocation : array (N, S)
        New tickets per row and class (percent of the row; stored read-only).
    balance : array (S,)
        Tickets each class's account carries to the next round (``ledger.carried``).
    ledger : BankLedger
        Every ticket that entered or left each account during the round.
    needy : array (N, S) of bool
        Step 2's marks: class ``j`` used all of its allocation on row ``i``.
    seconds : float
        Wall time of the round (s).

    Examples
    --------
    The second class leaves 30 of its 50 tickets unused on the second node; with half of
    the balance paid out (step 5) and half of the rest kept (step 6), 7.5 tickets are
    carried over:

    >>> policy = BankPolicy(pay_fraction=0.5, retention=0.5)
    >>> out = bank_round([[50, 50], [50, 50]], [[50, 50], [70, 20]], [50, 50], policy=policy)
    >>> out.allocation.tolist(), out.balance.tolist()
    ([[30.0, 70.0], [76.0, 24.0]], [0.0, 7.5])
    >>> out.needy.tolist()
    [[True, True], [True, False]]
    >>> out.ledger.deposited_unused.tolist(), out.ledger.paid.tolist()
    ([0.0, 30.0], [0.0, 15.0])
    """

    allocation: np.ndarray
    balance: np.ndarray
    ledger: BankLedger
    needy: np.ndarray
    seconds: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "allocation", readonly_array(self.allocation, np.float64))
        object.__setattr__(self, "balance", readonly_array(self.balance, np.float64))
        object.__setattr__(self, "needy", readonly_array(self.needy, bool))


#: Relative round-off within which a row of ``largest_remainder`` must sum to ``total``.
_ROW_SUM_TOL = 1e-9


def _check_rows(shares: np.ndarray, total: Any) -> None:
    """Refuse what ``largest_remainder`` cannot round to integer rows summing to ``total``."""
    number = isinstance(total, int | float | np.integer | np.floating) and not isinstance(
        total, bool | np.bool_
    )
    shown = repr(total.item() if isinstance(total, np.generic) else total)
    if not number or not (0 <= total < np.inf) or total != np.floor(total):
        raise InvalidInputError(f"total must be a whole number >= 0; got {shown}")
    if shares.ndim != 2:
        raise InvalidInputError(f"shares must have shape (N, S); got {shares.shape}")
    bad = ~((shares >= 0) & (shares < np.inf))  # NaN fails both
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise InvalidInputError(
            f"shares[{i}, {j}] must be finite and >= 0; got {float(shares[i, j])!r}"
        )
    sums = shares.sum(axis=1)
    off = np.abs(sums - total) > _ROW_SUM_TOL * max(float(total), 1.0)
    if off.any():
        i = int(np.flatnonzero(off)[0])
        raise InvalidInputError(
            f"shares[{i}] sums to {float(sums[i])!r}; every row must sum to total = {shown}"
        )


def largest_remainder(shares: np.ndarray, total: int = TICKETS) -> np.ndarray:
    """Round every row of ``shares`` (summing to ``total``) to integers with that sum.

    Each entry is rounded down, then the rows' missing units go to the largest
    fractional parts, ties to the lower column (Hamilton's method).

    Parameters
    ----------
    shares : array (N, S)
        Finite non-negative rows that sum to ``total`` (up to round-off: a relative
        ``1e-9``).
    total : int
        A whole number >= 0 (default 100 tickets).

    Returns
    -------
    numpy.ndarray
        Integer-valued floats, each row summing to exactly ``total``.

    Raises
    ------
    InvalidInputError
        If ``shares`` is not 2-D, holds a value that is not finite and >= 0, or has a
        row that does not sum to ``total``, or if ``total`` is not a whole number >= 0
        (no integer rows sum to it); the message names the argument, the entry or row
        and the value.

    Examples
    --------
    >>> largest_remainder(np.array([[100 / 3] * 3, [59.5, 30.5, 10.0]])).tolist()
    [[34.0, 33.0, 33.0], [60.0, 30.0, 10.0]]
    >>> largest_remainder(np.array([[50.0, 30.0, 20.0]]), total=99.5)
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: total must be a whole number >= 0; got 99.5
    """
    shares = np.asarray(shares, dtype=float)
    _check_rows(shares, total)
    n, s = shares.shape
    down = np.floor(shares)
    missing = np.clip(np.rint(total - down.sum(axis=1)), 0, s).astype(np.int64)
    order = np.argsort(down - shares, axis=1, kind="stable")  # largest fraction first
    rank = np.empty_like(order)
    np.put_along_axis(rank, order, np.broadcast_to(np.arange(s), (n, s)), axis=1)
    return down + (rank < missing[:, None])


def _spread(
    amount: np.ndarray, needy: np.ndarray, R: np.ndarray, w: np.ndarray, rule: str
) -> np.ndarray:
    """Per-row tickets so that ``sum_i w_i x_ij = amount_j`` over class ``j``'s needy rows."""
    if rule == "proportional":
        base = np.where(needy, R, 0.0)
        mass = w @ base
        equal = mass <= 0
        if equal.any():
            base = np.where(equal[None, :], needy.astype(float), base)
            mass = w @ base
    else:
        base = needy.astype(float)
        mass = w @ base
    per = np.divide(amount, mass, out=np.zeros_like(amount), where=mass > 0)
    return base * per[None, :]


def bank_round(
    allocation: Any,
    usage: Any,
    targets: Any,
    *,
    policy: BankPolicy | None = None,
    balance: Any = None,
    weights: Any = None,
    needy: Any = None,
) -> BankRound:
    """One round of the bank algorithm on arrays (the six steps of the module docstring).

    Parameters
    ----------
    allocation : array (N, S)
        The previous allocation ``r`` (tickets, percent of each row).
    usage : array (N, S)
        What each class used in the last period (percent of each row).
    targets : array (S,)
        Cluster-wide targets ``D`` (percent).
    policy : BankPolicy, optional
        The step policies (default ``BankPolicy()``: the paper's basic version, c = 2).
    balance : array (S,), optional
        Balances carried from the last round (zero by default).
    weights : array (N,), optional
        Nodes each row stands for (1 by default).
    needy : array (N, S) of bool, optional
        Step 2's needy marks, when the caller knows better than ``u >= r - needy_tol``
        (a manager of managers: a class is needy in a child group when it is needy on
        one of the group's nodes; ``allockit.simulation.cluster``).

    Returns
    -------
    BankRound

    Raises
    ------
    InvalidInputError
        For mismatched shapes or ``S * floor > 100``. Values are not checked here (the
        simulator's hot path); ``bank`` checks them through ``ReservesInstance``.

    Examples
    --------
    Fig. 3 of Li and Parker: class 3 only gets requests on node 4.

    >>> r = np.array([[60.0, 30.0, 10.0]] * 4)
    >>> u = np.array([[66.7, 33.3, 0.0]] * 3 + [[60.0, 30.0, 10.0]])
    >>> out = bank_round(r, u, [60, 30, 10])
    >>> out.allocation.tolist()  # node 4's class 3 is paid the 30 tickets it left unused
    [[67.0, 33.0, 0.0], [67.0, 33.0, 0.0], [67.0, 33.0, 0.0], [36.0, 18.0, 46.0]]
    >>> float(np.abs(out.ledger.residual()).max()) < 1e-9
    True
    """
    start = time.perf_counter()
    policy = BankPolicy() if policy is None else policy
    r = np.asarray(allocation, dtype=float)
    u = np.asarray(usage, dtype=float)
    d = np.asarray(targets, dtype=float)
    if r.ndim != 2 or u.shape != r.shape or d.shape != (r.shape[1],):
        raise InvalidInputError(
            f"bank_round needs allocation and usage of shape (N, S) and targets of shape "
            f"(S,); got {r.shape}, {u.shape}, {d.shape}"
        )
    n, s = r.shape
    if s * policy.floor > TICKETS:
        raise InvalidInputError(
            f"BankPolicy.floor must satisfy S * floor <= 100; got floor {policy.floor} for S={s}"
        )
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    if w.shape != (n,):
        raise InvalidInputError(f"weights must have shape ({n},); got {w.shape}")
    opening = np.zeros(s) if balance is None else np.array(balance, dtype=float)
    if opening.shape != (s,):
        raise InvalidInputError(f"balance must have shape ({s},); got {opening.shape}")
    goal = float(w.sum()) * d

    # step 1: deposit allocated-but-unused tickets
    deposited_unused = w @ np.maximum(r - u, 0.0)
    # step 2: initial values
    if needy is None:
        needy = u >= r - policy.needy_tol
    else:
        needy = np.asarray(needy, dtype=bool)
        if needy.shape != r.shape:
            raise InvalidInputError(f"needy must have shape {r.shape}; got {needy.shape}")
    R = np.clip(np.where(needy, u + policy.c, u - policy.c), 0.0, float(TICKETS))
    has_needy = needy.any(axis=0)
    # step 3: take from the over-allocated, give to the needy under-allocated
    if policy.step3 != "none":
        total = w @ R
        excess = total - goal
        over = excess > 0
        under = (excess < 0) & has_needy
        take = np.where(over, excess, 0.0)
        give = np.where(under, -excess, 0.0)
        if policy.step3 == "balanced":
            moved = min(take.sum(), give.sum())
            take = take * (moved / take.sum()) if take.sum() > 0 else take
            give = give * (moved / give.sum()) if give.sum() > 0 else give
        keep = 1.0 - np.divide(take, total, out=np.zeros(s), where=total > 0)
        R = R * keep[None, :]
        R = R + _spread(give, needy, R, w, policy.give)
    # step 4: the over-allocated pay, the under-allocated are credited
    excess = w @ R - goal
    withdrawn_over = np.maximum(excess, 0.0)
    deposited_under = np.maximum(-excess, 0.0)
    bal = opening + deposited_unused + deposited_under - withdrawn_over
    # step 5: pay positive balances out on needy nodes
    paid = np.where(has_needy, policy.pay_fraction * np.maximum(bal, 0.0), 0.0)
    R = R + _spread(paid, needy, R, w, policy.give)
    bal = bal - paid
    # step 6: normalise to 100 tickets, floor, round; clear the accounts
    sums = R.sum(axis=1, keepdims=True)
    shares = np.divide(R * TICKETS, sums, out=np.full_like(R, TICKETS / s), where=sums > 0)
    if policy.floor:
        shares = policy.floor + (TICKETS - s * policy.floor) / TICKETS * shares
    if policy.integer:
        shares = largest_remainder(shares)
    carried = policy.retention * bal
    cleared = bal - carried
    ledger = BankLedger(
        opening=opening,
        deposited_unused=deposited_unused,
        deposited_under=deposited_under,
        withdrawn_over=withdrawn_over,
        paid=paid,
        carried=carried,
        cleared=cleared,
    )
    return BankRound(shares, carried, ledger, needy, time.perf_counter() - start)


def _check_balance(balance: Any, s: int) -> None:
    """Refuse a balance that is not ``s`` finite numbers, naming the index and the value."""
    try:
        values = np.asarray(balance, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"balance must be an array of numbers: {exc}") from None
    if values.shape != (s,):
        raise InvalidInputError(f"balance must have shape ({s},); got {values.shape}")
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        j = int(bad[0])
        raise InvalidInputError(f"balance[{j}] must be finite; got {float(values[j])!r}")


def bank(
    instance: ReservesInstance,
    *,
    policy: BankPolicy | None = None,
    c: float | None = None,
    retention: float | None = None,
    balance: Any = None,
    **overrides: Any,
) -> ReservesResult:
    """One round of the bank algorithm on an instance.

    Parameters
    ----------
    instance : ReservesInstance
    policy : BankPolicy, optional
        Base policy (default ``BankPolicy()``).
    c, retention : float, optional
        Override the policy's adjustment and retention (the command line's ``--c`` and
        ``--retention``).
    balance : array (S,), optional
        Balances carried from a previous round: finite, of either sign (a class that
        took more than its goal owes).
    **overrides
        Any other ``BankPolicy`` field (``needy_tol``, ``step3``, ``give``,
        ``pay_fraction``, ``floor``, ``integer``).

    Returns
    -------
    ReservesResult
        Status ``feasible`` (a valid allocation; the bank algorithm proves nothing
        optimal), ``balances`` carried, ``V`` and ``qp_objective`` None.

    Raises
    ------
    InvalidInputError
        For an unknown override, a bad policy value, or a balance that is not ``S``
        finite numbers (the message names the index and the value).

    Examples
    --------
    >>> inst = ReservesInstance.from_dict({"targets": [60, 30, 10],
    ...     "allocation": [[60, 30, 10]] * 4, "usage": [[66.7, 33.3, 0]] * 3 + [[60, 30, 10]]})
    >>> res = bank(inst)
    >>> res.class_totals.tolist(), res.status
    ([59.25, 29.25, 11.5], <Status.FEASIBLE: 'feasible'>)
    >>> bank(inst, balance=[float("inf"), 0, 0])
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: balance[0] must be finite; got inf

    References
    ----------
    .. [1] N. Li and J. Parker, Cluster Resource Management: A Scalable Approach, Sec. 3.3.
    """
    start = time.perf_counter()
    policy = BankPolicy() if policy is None else policy
    given = {k: v for k, v in (("c", c), ("retention", retention)) if v is not None}
    given.update(overrides)
    names = {f.name for f in dataclasses.fields(BankPolicy)}
    unknown = sorted(set(given) - names)
    if unknown:
        raise InvalidInputError(
            f"bank has no option {unknown[0]!r}; accepted: policy, balance, "
            f"{', '.join(sorted(names))}"
        )
    if given:
        policy = dataclasses.replace(policy, **given)
    if balance is not None:
        _check_balance(balance, len(instance.targets))
    out = bank_round(
        instance.allocation, instance.usage, instance.targets, policy=policy, balance=balance
    )
    totals = out.allocation.mean(axis=0)
    return ReservesResult(
        method="bank",
        status=SolveStatus.FEASIBLE,
        allocation=out.allocation,
        class_totals=totals,
        deviation=totals - instance.targets,
        balances=out.balance,
        seconds=time.perf_counter() - start,
        solve_seconds=out.seconds,
    )
