"""Exact models (Pyomo, CP-SAT) and their solve drivers."""

from allockit.evaluation.lp_bound import closed_form_allocation, lp_bound, relaxed_average_yield

__all__ = [
    "build_cpsat",
    "build_load_milp",
    "build_paper_milp",
    "closed_form_allocation",
    "cluster_reserves",
    "lp_bound",
    "relaxed_average_yield",
    "solve_cluster_reserves",
    "solve_cpsat_form",
    "solve_load_milp",
    "solve_lp",
    "solve_paper_milp",
]

_LAZY = {
    "build_cpsat": "allockit.models.vcsched_cpsat",
    "build_load_milp": "allockit.models.vcsched_load",
    "build_paper_milp": "allockit.models.vcsched_milp",
    "cluster_reserves": "allockit.models.cluster_reserves",
    "solve_cluster_reserves": "allockit.models.cluster_reserves",
    "solve_cpsat_form": "allockit.models.vcsched_solve",
    "solve_load_milp": "allockit.models.vcsched_solve",
    "solve_lp": "allockit.models.vcsched_solve",
    "solve_paper_milp": "allockit.models.vcsched_solve",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'allockit.models' has no attribute {name!r}")

if __name__ != "allockit.models":  # the repository's folder imported by its bare name
    raise ImportError(
        "import allockit.models, not models: the repository's top-level folders are the "
        "subpackages of allockit (see ARCHITECTURE.md); a bare import would load a "
        "second copy of every class"
    )
