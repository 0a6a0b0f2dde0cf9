"""Hypothesis strategies for allockit instances."""

from hypothesis import strategies as st

from allockit.instances.vcsched import VCInstance

# Values on a grid of 1/40 keep ties and exact fits (memory summing to exactly 1) common.
_grid = st.integers(min_value=1, max_value=40).map(lambda k: k / 40)
_mem = st.integers(min_value=0, max_value=44).map(lambda k: k / 40)


@st.composite
def vc_instances(
    draw,
    *,
    max_hosts: int = 4,
    max_tasks: int = 8,
    parallel: bool = True,
    adaptation: bool = True,
    grid: bool = True,
) -> VCInstance:
    """Small VCSched instances (brute-forceable): up to ``max_tasks`` tasks in all.

    ``grid=True`` draws values on a 1/40 grid (exact fits and ties are common);
    ``grid=False`` draws arbitrary floats (round-off and solver tolerances matter).
    """
    cpu_values = _grid if grid else st.floats(0.01, 1.0)
    mem_values = _mem if grid else st.floats(0.0, 0.7)
    hosts = draw(st.integers(1, max_hosts))
    n_tasks = draw(st.integers(1, max_tasks))
    tasks: list[int] = []
    left = n_tasks
    while left > 0:
        t = draw(st.integers(1, min(left, 3))) if parallel else 1
        tasks.append(t)
        left -= t
    n_jobs = len(tasks)
    cpu = [draw(cpu_values) for _ in range(n_jobs)]
    mem = [draw(mem_values) for _ in range(n_jobs)]
    previous = None
    budget = None
    count = None
    if adaptation and draw(st.booleans()):
        previous = []
        for t in tasks:
            if draw(st.booleans()):
                previous.append(None)
            elif t == 1:
                previous.append(draw(st.integers(0, hosts - 1)))
            else:
                previous.append([draw(st.integers(0, hosts - 1)) for _ in range(t)])
        if draw(st.booleans()):
            budget = draw(st.integers(0, 40)).__truediv__(40)
        if draw(st.booleans()) or budget is None:
            count = draw(st.integers(0, 3))
    return VCInstance.from_lists(
        hosts=hosts,
        cpu=cpu,
        mem=mem,
        tasks=tasks,
        previous=previous,
        migration_budget=budget,
        max_migrations=count,
    )


# --- cluster reserves and the bank algorithm (seed 004) ---------------------------------
def _composition(draw, parts: int, total: int) -> list[float]:
    """``parts`` non-negative integers summing to at most ``total``."""
    cuts = sorted(draw(st.lists(st.integers(0, total), min_size=parts, max_size=parts)))
    return [float(b - a) for a, b in zip([0, *cuts[:-1]], cuts, strict=True)]


@st.composite
def reserves_instances(draw, *, max_nodes: int = 5, max_classes: int = 4):
    """Small cluster-reserves instances: integer percentages, rows summing to <= 100.

    Usage equals the allocation on some rows (exact ties), is zero on others (idle
    classes) and is drawn freely elsewhere.
    """
    from allockit.instances.reserves import ReservesInstance

    n_classes = draw(st.integers(1, max_classes))
    n_nodes = draw(st.integers(1, max_nodes))
    targets = _composition(draw, n_classes, 100)
    allocation = [_composition(draw, n_classes, 100) for _ in range(n_nodes)]
    usage = []
    for row in allocation:
        kind = draw(st.sampled_from(["same", "free", "idle"]))
        if kind == "same":
            usage.append(list(row))
        elif kind == "idle":
            usage.append([v if draw(st.booleans()) else 0.0 for v in row])
        else:
            usage.append(_composition(draw, n_classes, 100))
    return ReservesInstance.from_dict(
        {"targets": targets, "allocation": allocation, "usage": usage}
    )
