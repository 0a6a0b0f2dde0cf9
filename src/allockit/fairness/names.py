"""The names of the fairness checker: properties, semantics, statuses (no imports).

Kept apart so that the command line can list the properties in ``--help`` without
loading numpy.

Examples
--------
>>> len(PROPERTIES), PROPERTIES[0], SEMANTICS
(8, 'envy_freeness', ('auto', 'whole', 'fractional'))
"""

__all__ = ["DESCRIPTIONS", "MAX_MIN", "PROPERTIES", "SEMANTICS", "STATUSES"]

PROPERTIES = (
    "envy_freeness",
    "pareto",
    "truthfulness",
    "single_server_drf",
    "single_resource_fairness",
    "bottleneck_fairness",
    "population_monotonicity",
    "sharing_incentive",
)

#: The properties that say "the allocation is weighted max-min fair" on a shape.
MAX_MIN = ("single_server_drf", "single_resource_fairness", "bottleneck_fairness")

#: One line per property (``allockit fairness --help``).
DESCRIPTIONS = {
    "envy_freeness": "no user runs more tasks with another's bundle (w_i/w_j of it) than its own",
    "pareto": "no allocation within capacities and caps gives all as many tasks, one more",
    "truthfulness": "no misreport gains true tasks (a search: none found among K tried)",
    "single_server_drf": "on one server the allocation is weighted DRF",
    "single_resource_fairness": "with one resource the allocation is weighted max-min fair",
    "bottleneck_fairness": "users bottlenecked on one resource get a max-min fair share of it",
    "population_monotonicity": "when a user leaves, no remaining user loses tasks",
    "sharing_incentive": "MEASURED only (can fail): users below alone on a w_i/sum(w) share",
}

#: The values of the ``semantics`` option.
SEMANTICS = ("auto", "whole", "fractional")

#: The values of a report's ``status``.
STATUSES = ("held", "violated", "error", "measured", "not_applicable")
