"""A DRFH mechanism of your own: every user gets an equal slice of every server class.

    allockit drfh INSTANCE.json --method examples/equal_split.py:equal_split
    allockit sweep examples/sweep_drfh.toml

allockit checks the tasks it returns against capacities and task caps and builds the
result (dominant shares, utilisation).
"""

import numpy as np


def equal_split(instance, **options):
    """Tasks per user and server class: 1/n of each class, within the user's cap.

    Parameters
    ----------
    instance : DRFHInstance
        ``capacity`` (classes x resources, per server), ``count`` (servers per class),
        ``demand`` (users x resources) and ``tasks`` (caps, inf when unbounded).

    Returns
    -------
    numpy.ndarray, shape (users, classes)
        Fractional tasks.
    """
    users = instance.demand.shape[0]
    total = instance.capacity * instance.count[:, None]  # each class's resources
    with np.errstate(divide="ignore"):
        fit = np.min(total[None, :, :] / instance.demand[:, None, :], axis=2) / users
    fit = np.where(np.isfinite(fit), fit, 0.0)
    scale = np.minimum(1.0, instance.tasks / np.maximum(fit.sum(axis=1), 1e-300))
    return fit * scale[:, None]
