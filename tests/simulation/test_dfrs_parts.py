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



def _affine_fill_by_bisection(job, node, weight, a, b, nodes, tol):
    """``affine_fill_kernel`` as first written: every midpoint tested by a usage sum.

    Plain Python floats, the same operations in the same order as the kernel's usage
    sum, so the same bits: the oracle for the kernel's shortcut.
    """
    n = a.size
    job, node, weight, a, b = job.tolist(), node.tolist(), weight.tolist(), a.tolist(), b.tolist()
    yields = [1.0] * n
    active = [False] * n
    for j in job:
        active[j] = True
    for j in range(n):
        if active[j]:
            yields[j] = 0.0

    def usage(level):
        used = [0.0] * nodes
        for k, j in enumerate(job):
            y = min(1.0, max(0.0, (level - a[j]) / b[j])) if active[j] else yields[j]
            used[node[k]] += weight[k] * y
        return used

    while any(active):
        lo = min(a[j] for j in range(n) if active[j])
        top = max(a[j] + b[j] for j in range(n) if active[j])
        if max(usage(top)) <= 1.0 + tol:
            for j in range(n):
                if active[j]:
                    yields[j] = min(1.0, max(0.0, (top - a[j]) / b[j]))
            break
        hi = top
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            if max(usage(mid)) <= 1.0 + tol:
                lo = mid
            else:
                hi = mid
        over = usage(hi)
        for j in range(n):
            if active[j]:
                yields[j] = min(1.0, max(0.0, (lo - a[j]) / b[j]))
        used = usage(lo)
        frozen = [False] * n
        for k, j in enumerate(job):
            if active[j] and (over[node[k]] > 1.0 + tol or used[node[k]] >= 1.0 - 1e-9):
                frozen[j] = True
        changed = False
        for j in range(n):
            if active[j] and (frozen[j] or yields[j] >= 1.0 - tol):
                active[j] = False
                changed = True
        if not changed:
            break
    return np.array(yields)


@settings(max_examples=150, deadline=None)
@given(m=mappings(), data=st.data())
def test_affine_fill_kernel_gives_the_bits_of_a_full_bisection(m, data):
    # the kernel finds the last fitting level by breakpoints and interpolation, then
    # replays the bisection against it: the same yields, bit for bit, as testing every
    # midpoint (stretch-like a, b: progress vt over the time in the system ft, T ahead)
    from allockit.simulation.allocation_kernels import affine_fill_kernel

    counts, cpu = m
    n = cpu.size
    kind = data.draw(st.sampled_from(["stretch", "grid", "plain", "tiny"]))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    if kind == "stretch":
        horizon = data.draw(st.sampled_from([1e-9, 1.0, 600.0, 1e5]))
        ft = rng.exponential(1e4, n)
        vt = ft * rng.random(n)
        a, b = vt / (ft + horizon), horizon / (ft + horizon)
    elif kind == "grid":
        a, b = rng.integers(0, 3, n) / 4.0, rng.integers(1, 4, n) / 4.0
    elif kind == "plain":
        a, b = np.zeros(n), np.ones(n)
    else:
        a, b = rng.random(n) * 1e-12, rng.random(n) + 1e-300
    job, node = np.nonzero(counts)
    weight = counts[job, node] * cpu[job]
    args = (job.astype(np.int64), node.astype(np.int64), weight, a, b, counts.shape[1], 1e-12)
    fast = affine_fill_kernel(*args)
    assert np.array_equal(fast, _affine_fill_by_bisection(*args)), (fast, a, b)


def _node_args(weight, a, b, active):
    """``_node_last_level``'s arrays for one node holding one entry per job."""
    k = np.arange(weight.size)
    ptr = np.array([0, weight.size])
    return ptr, k, k, weight, a, b, np.zeros(weight.size), active


def test_node_last_level_is_the_last_float_that_fits():
    # two jobs on one node (weights 1 and 0.5): the level where the load reaches 1
    from allockit.simulation.allocation_kernels import _node_last_level, _node_usage

    args = _node_args(np.array([1.0, 0.5]), np.array([0.0, 0.1]), np.array([1.0, 0.7]),
                      np.ones(2, dtype=bool))
    cap = 1.0 + 1e-12
    last = _node_last_level(0, *args, cap)
    assert _node_usage(0, *args, last) <= cap < _node_usage(0, *args, np.nextafter(last, 2.0))
    assert last == pytest.approx((1 + 0.5 * 0.1 / 0.7) / (1 + 0.5 / 0.7), rel=1e-12)
    # a node that never overflows, and one that overflows at every level
    assert _node_last_level(0, *args, 2.0) == np.inf
    assert _node_last_level(0, *args, -1.0) == -np.inf


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_node_last_level_on_random_loads(data):
    # against the definition: fits at the returned float, not at the next one
    from allockit.simulation.allocation_kernels import _node_last_level, _node_usage

    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    jobs = data.draw(st.integers(1, 6))
    weight = rng.choice([0.25, 0.5, 1.0, 2.0], jobs) * rng.random(jobs).round(2).clip(0.01)
    a, b = rng.random(jobs) * data.draw(st.sampled_from([1e-9, 1.0, 1e3])), rng.random(jobs) + 1e-6
    active = rng.random(jobs) < 0.8
    args = _node_args(weight, a, b, active)
    args[6][~active] = rng.random((~active).sum())  # the frozen jobs' yields
    cap = data.draw(st.sampled_from([0.5, 1.0 + 1e-12, 3.0]))
    last = _node_last_level(0, *args, cap)
    if last == np.inf:
        assert _node_usage(0, *args, np.inf) <= cap
    elif last == -np.inf:
        assert _node_usage(0, *args, -np.inf) > cap
    else:
        above = np.nextafter(last, np.inf)
        assert _node_usage(0, *args, last) <= cap < _node_usage(0, *args, above)


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


def _min_avg_stretch_row_by_row(counts, cpu, a, b, rtol=1e-6, max_rounds=200):
    """The cutting planes of ``min_avg_stretch`` as first written: one addRow per row."""
    import highspy

    counts, cpu = np.asarray(counts, dtype=float), np.asarray(cpu, dtype=float)
    fair = max_min_affine(counts, cpu, a, b)
    placed = counts.sum(axis=1) > 0
    if not placed.any():
        return fair
    level = float((a + b * fair)[placed].min())
    lower = np.where(placed, np.clip((level - a) / b, 0.0, 1.0), 1.0)
    lower = np.minimum(lower, fair)
    n, nodes = cpu.size, counts.shape[1]
    inf = highspy.kHighsInf
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    # columns 0..n-1: y_j; n..2n-1: t_j (the stretch estimates)
    h.addVars(
        2 * n,
        np.concatenate([lower, np.zeros(n)]),
        np.concatenate([np.where(placed, 1.0, lower), np.full(n, inf)]),
    )
    h.changeColsCost(n, np.arange(n, 2 * n, dtype=np.int32), np.ones(n))
    weight = counts * cpu[:, None]
    for i in range(nodes):
        jobs = np.flatnonzero(weight[:, i] > 0)
        if jobs.size:
            h.addRow(-inf, 1.0, jobs.size, jobs.astype(np.int32), weight[jobs, i])

    def estimate(j: int, y: float) -> float:
        return 1.0 / (a[j] + b[j] * y)

    def add_cut(j: int, y: float) -> None:
        value = estimate(j, y)
        slope = -b[j] * value * value
        # t_j >= value + slope (y_j - y)  <=>  t_j - slope y_j >= value - slope y
        h.addRow(
            value - slope * y, inf, 2, np.array([n + j, j], dtype=np.int32), np.array([1.0, -slope])
        )

    for j in range(n):
        for y in {*np.linspace(lower[j], 1.0, 6).tolist(), float(fair[j])}:
            if a[j] + b[j] * y > 0:
                add_cut(j, y)
    y = fair
    for _ in range(max_rounds):
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:  # pragma: no cover
            return fair
        sol = np.asarray(h.getSolution().col_value, dtype=float)
        y = np.clip(sol[:n], lower, 1.0)
        values = 1.0 / (a + b * y)
        under = np.flatnonzero(values > sol[n:] + rtol * values)
        if under.size == 0:
            break
        for j in under.tolist():
            add_cut(j, float(y[j]))
    return y


@settings(max_examples=80)
@given(m=mappings(), data=st.data())
def test_min_avg_stretch_builds_the_same_lps_as_row_by_row(m, data):
    # the rows go in with one addRows call each round: the same LPs, the same answers
    counts, cpu = m
    n = cpu.size
    a = np.array([data.draw(st.sampled_from([0.0, 0.05, 0.1, 0.3])) for _ in range(n)])
    b = np.array([data.draw(st.sampled_from([0.2, 0.5, 1.0])) for _ in range(n)])
    assert np.array_equal(
        min_avg_stretch(counts, cpu, a, b), _min_avg_stretch_row_by_row(counts, cpu, a, b)
    )


_ENDS = st.sampled_from([0.0, -0.0, 0.25, 0.5, 1.0, 0.1 + 0.2, 1 / 3])


@settings(max_examples=200)
@given(
    ends=st.lists(st.tuples(_ENDS | st.floats(0, 1), _ENDS | st.floats(0, 1)), max_size=12),
    a=st.lists(st.sampled_from([0.0, -0.5, -1.0, 0.1, 1e-300]) | st.floats(-2, 2), max_size=12),
    b=st.lists(st.sampled_from([0.0, 1.0, 2.0]) | st.floats(0, 2), max_size=12),
)
def test_first_cuts_are_the_per_job_sets_of_points(ends, a, b):
    # the first tangent points, built for all jobs at once, are those of one Python set
    # per job in the set's own order (the LP's row order), kept where a + b y > 0
    from allockit.simulation.allocation import _first_cuts

    n = min(len(ends), len(a), len(b))
    lower = np.array([min(e) for e in ends[:n]], dtype=float)
    fair = np.array([max(e) for e in ends[:n]], dtype=float)
    lower[::3] = 1.0  # every third job does not move: six points at 1
    fair = np.maximum(fair, lower)
    a, b = np.array(a[:n], dtype=float), np.array(b[:n], dtype=float)
    expected_jobs, expected_at = [], []
    for j in range(n):
        points = [1.0] * 6 if lower[j] == 1.0 else np.linspace(lower[j], 1.0, 6).tolist()
        for y in {*points, float(fair[j])}:
            if float(a[j]) + float(b[j]) * y > 0:
                expected_jobs.append(j)
                expected_at.append(y)
    jobs, at = _first_cuts(lower, fair, a, b)
    assert jobs.dtype == np.int64 and at.dtype == np.float64
    assert jobs.tolist() == expected_jobs
    assert at.tobytes() == np.array(expected_at, dtype=float).tobytes()


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
    one = (np.ones((1, 1)), np.ones(1), np.zeros(1), np.ones(1))
    with pytest.raises(InvalidInputError, match="rtol must be a finite number > 0; got True"):
        min_avg_stretch(*one, rtol=True)
    with pytest.raises(InvalidInputError, match=r"max_rounds must be an integer >= 0; got 1\.5"):
        min_avg_stretch(*one, max_rounds=1.5)


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
        ("MCB8 */per/minvt=nan", r"'minvt=nan' must be a number of seconds >= 0"),  # pinned none
        ("MCB8 */per/minft=-1", r"'minft=-1' must be a number of seconds >= 0"),
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


def _affine_args(job, node, weight, a, b, nodes):
    return (np.array(job, dtype=np.int64), np.array(node, dtype=np.int64),
            np.array(weight, dtype=float), np.array(a, dtype=float), np.array(b, dtype=float),
            nodes, 1e-12)


def test_affine_fill_kernel_on_inputs_found_in_review():
    # A job frozen because its yield reached 1 - tol changes its nodes' load curves: their
    # last fitting levels must be computed again (job 1 here), or job 2 gets other bits.
    from allockit.simulation.allocation_kernels import affine_fill_kernel

    args = _affine_args(
        [0, 1, 2], [1, 0, 0], [2.0, 0.9855417326693342, 0.028916532067576384],
        [0.0, 0.0, 0.49999521215961734], [1.0, 0.5000000000007554, 9.575681765440009e-06], 2,
    )
    y = affine_fill_kernel(*args)
    assert np.array_equal(y, _affine_fill_by_bisection(*args))
    assert y[2] == 0.5000000448909289
    # a level beyond the largest float: the search stops there (it used to loop forever)
    args = _affine_args([0], [0], [2.0], [np.finfo(float).max], [1.0], 1)
    assert np.array_equal(affine_fill_kernel(*args), _affine_fill_by_bisection(*args))


def test_node_last_level_above_every_breakpoint():
    # (L - a) / b can round below 1 at the last breakpoint L = a + b: a cap between that
    # load and the full one makes the search gallop upwards past every breakpoint
    from allockit.simulation.allocation_kernels import _node_last_level, _node_usage

    biggest = np.finfo(float).max
    for a0, b0 in [(0.3, 0.6), (1e3, 1e-6), (biggest, 1.0)]:
        args = _node_args(np.array([2.0]), np.array([a0]), np.array([b0]), np.ones(1, bool))
        cap = _node_usage(0, *args, a0 + b0)
        assert cap < 2.0  # the load still rises above a + b: the case under test
        last = _node_last_level(0, *args, cap)
        assert last >= a0 + b0 and _node_usage(0, *args, last) <= cap
        if last < biggest:
            assert _node_usage(0, *args, np.nextafter(last, np.inf)) > cap
        else:  # the largest float fits; the next one, inf, does not
            assert _node_usage(0, *args, np.inf) > cap
