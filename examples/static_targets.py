"""A cluster-reserves method of your own: every node gets exactly the targets.

    allockit reserves ROUND.json --method examples/static_targets.py:static_targets

It returns the next allocation (nodes x classes, percent); allockit checks that no node
is over 100 % and builds the result (class totals, deviation from the targets).
"""

import numpy as np


def static_targets(instance, **options):
    """The static allocation: each node's shares are the cluster-wide targets."""
    return np.tile(instance.targets, (instance.n_nodes, 1))
