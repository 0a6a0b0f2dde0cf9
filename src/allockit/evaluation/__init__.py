"""Scoring VCSched placements and bounding them: the layer models and heuristics share.

``placement`` checks a placement, computes its minimum yield, runs the average-yield
phase and packages a ``VCResult``; ``lp_bound`` holds the closed-form optimum of the
rational relaxation; ``relaxation`` solves that relaxation with HiGHS (for RRND/RRNZ).
Exact models (``allockit.models``) and heuristics (``allockit.heuristics``) both import
this package and never each other.
"""

from allockit.evaluation.lp_bound import closed_form_allocation, lp_bound, relaxed_average_yield
from allockit.evaluation.placement import (
    average_yield_phase,
    counts_to_task_hosts,
    empty_result,
    host_loads,
    migration_cost,
    min_yield_of,
    placement_violation,
    result_from_placement,
)

__all__ = [
    "average_yield_phase",
    "closed_form_allocation",
    "counts_to_task_hosts",
    "empty_result",
    "host_loads",
    "lp_bound",
    "migration_cost",
    "min_yield_of",
    "placement_violation",
    "relaxed_average_yield",
    "result_from_placement",
]
