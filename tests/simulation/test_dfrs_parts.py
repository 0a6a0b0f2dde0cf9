"""Building blocks of the DFRS schedulers: CPU allocation (opt=min/avg) and the name parser."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from allockit.errors import InvalidInputError
from allockit.results import SolveStatus
from allockit.simulation.allocation import (
    base_yield,
    build_avg_yield_lp,
    max_avg_yields,
    max_min_affine,
    max_min_yields,
    min_avg_stretch,
)
from allockit.simulation.names import TABLE1, parse_algorithm
from allockit.solver import solve_pyomo


@st.composite
def mappings(draw):
    jobs, nodes = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    counts = np.array([[draw(st.integers(0, 2)) for _ in range(nodes)] for _ in range(jobs)])
    for j in range(jobs):
        if counts[j].sum() == 0:
            counts[j, draw(st.integers(0, nodes - 1))] = 1
    cpu = np.array([draw(st.sampled_from([0.25, 0.5, 0.75, 1.0])) for _ in range(jobs)])
    return counts, cpu


def _loads(counts, cpu, y):
    return (counts * (cpu * y)[:, None]).sum(axis=0)


@settings(max_examples=120)
@given(m=mappings())
def test_max_min_is_feasible_and_max_min_fair(m):
    counts, cpu = m
    y = max_min_yields(counts, cpu)
    floor = base_yield(counts, cpu)
    assert (y >= floor - 1e-9).all() and (y <= 1 + 1e-12).all()
    load = _loads(counts, cpu, y)
    assert (load <= 1 + 1e-9).all()
    # every job below 1 has a saturated node where nobody has a larger yield
    for j in np.flatnonzero(y < 1 - 1e-9):
        nodes = np.flatnonzero(counts[j] > 0)
        ok = [n for n in nodes if load[n] >= 1 - 1e-9 and y[counts[:, n] > 0].max() <= y[j] + 1e-9]
        assert ok, f"job {j} could still grow"


@settings(max_examples=120)
@given(
    m=mappings(),
    data=st.data(),
)
def test_max_min_affine_is_feasible_and_max_min_fair(m, data):
    # /stretch-per/opt=max: max-min fair values a + b y (inverse estimated stretches)
    counts, cpu = m
    n = cpu.size
    a = np.array([data.draw(st.sampled_from([0.0, 0.1, 0.3, 0.6])) for _ in range(n)])
    b = np.array([data.draw(st.sampled_from([0.2, 0.5, 1.0])) for _ in range(n)])
    y = max_min_affine(counts, cpu, a, b)
    assert (y >= -1e-12).all() and (y <= 1 + 1e-12).all()
    load = _loads(counts, cpu, y)
    assert (load <= 1 + 1e-9).all()
    value = a + b * y
    for j in np.flatnonzero(y < 1 - 1e-9):
        nodes = np.flatnonzero(counts[j] > 0)
        ok = [
            n
            for n in nodes
            if load[n] >= 1 - 1e-9
            and value[(counts[:, n] > 0) & (y > 1e-12)].max(initial=-1) <= value[j] + 1e-9
        ]
        assert ok, f"job {j} could still grow"
    if (a == 0).all() and (b == 1).all():
        assert y == pytest.approx(max_min_yields(counts, cpu), abs=1e-9)


@settings(max_examples=80)
@given(m=mappings(), data=st.data())
def test_min_avg_stretch_is_feasible_and_no_feasible_point_beats_it(m, data):
    # /stretch-per/opt=avg: convex objective; check it against random feasible points
    counts, cpu = m
    n = cpu.size
    a = np.array([data.draw(st.sampled_from([0.0, 0.1, 0.3])) for _ in range(n)])
    b = np.array([data.draw(st.sampled_from([0.2, 0.5, 1.0])) for _ in range(n)])
    y = min_avg_stretch(counts, cpu, a, b)
    fair = max_min_affine(counts, cpu, a, b)
    level = (a + b * fair).min()
    assert (y <= 1 + 1e-12).all() and (a + b * y >= level - 1e-9).all()
    assert (_loads(counts, cpu, y) <= 1 + 1e-7).all()

    def cost(z):
        return (1 / (a + b * z)).sum()

    assert cost(y) <= cost(fair) * (1 + 1e-5)
    rng = np.random.default_rng(data.draw(st.integers(0, 10**6)))
    lower = np.clip((level - a) / b, 0, 1)
    for _ in range(40):
        z = lower + rng.random(n) * (1 - lower)
        z = np.where(rng.random(n) < 0.5, np.minimum(z, y + rng.random(n) * (1 - y)), z)
        base, top = _loads(counts, cpu, lower), _loads(counts, cpu, z)
        if (base > 1 + 1e-12).any():
            continue
        over = top > 1
        if over.any():  # shrink towards the feasible floor until every node fits
            t = ((1 - base[over]) / (top[over] - base[over])).min()
            z = lower + t * (z - lower)
        assert (_loads(counts, cpu, z) <= 1 + 1e-9).all()
        assert cost(y) <= cost(z) * (1 + 1e-5)


@settings(max_examples=60)
@given(m=mappings())
def test_max_avg_equals_the_pyomo_lp_and_beats_max_min(m):
    counts, cpu = m
    y = max_avg_yields(counts, cpu)
    assert (_loads(counts, cpu, y) <= 1 + 1e-7).all()
    assert (y >= base_yield(counts, cpu) - 1e-9).all()
    report = solve_pyomo(build_avg_yield_lp(counts, cpu))
    assert report.status is SolveStatus.OPTIMAL
    assert y.sum() == pytest.approx(report.objective, abs=1e-6)
    assert y.sum() >= max_min_yields(counts, cpu).sum() - 1e-7


def test_allocation_input_checks():
    with pytest.raises(InvalidInputError, match="one row per job"):
        max_min_yields(np.ones((2, 2)), np.array([0.5]))


@pytest.mark.parametrize(
    "name",
    list(TABLE1),
)
def test_every_table1_name_parses_and_round_trips(name):
    parsed = parse_algorithm(name)
    assert parse_algorithm(str(parsed)) == parsed
    other = "max" if name == "/stretch-per" else "avg"
    assert parse_algorithm(f"{name}/opt={other}/minft=300").opt == other


def test_name_details():
    a = parse_algorithm("GreedyP */per/opt=avg/minvt=600")
    assert (a.on_submit, a.on_completion_policy, a.periodic, a.opt, a.minvt) == (
        "GreedyP",
        "Greedy",
        "mcb8",
        "avg",
        600.0,
    )
    assert parse_algorithm("MCB8 *").on_completion_policy == "MCB8"
    assert parse_algorithm("easy").batch == "EASY"


@pytest.mark.parametrize(
    ("name", "match"),
    [
        ("Greedy/weekly", "unknown part 'weekly'"),
        ("Fast *", "unknown submission policy"),
        ("Greedy */minft=300/minvt=600", "exclusive"),
        ("Greedy */minft=abc", "number of seconds"),
        ("GreedyP", "needs ' \\*' or '/per'"),
        ("MCB8/opt=min", "needs ' \\*' or '/per'"),
        ("Greedy */opt=max", "belongs to /stretch-per"),
        ("/stretch-per/opt=min", "opt=max"),
        ("MCB8/stretch-per", "runs alone"),
        ("", "empty name"),
        ("*/per", "needs a submission"),
    ],
)
def test_bad_names_list_the_valid_parts(name, match):
    with pytest.raises(InvalidInputError, match=match) as exc:
        parse_algorithm(name)
    assert "GreedyPM" in str(exc.value) and "opt=avg" in str(exc.value)
