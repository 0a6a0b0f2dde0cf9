"""Fast (numpy) algorithms and the placement evaluation they share."""

from allockit.heuristics.placement import (
    average_yield_phase,
    counts_to_task_hosts,
    host_loads,
    migration_cost,
    min_yield_of,
    placement_violation,
    result_from_placement,
)

__all__ = [
    "average_yield_phase",
    "counts_to_task_hosts",
    "host_loads",
    "migration_cost",
    "min_yield_of",
    "placement_violation",
    "result_from_placement",
]
