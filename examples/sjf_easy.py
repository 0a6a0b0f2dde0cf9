"""Shortest job first with EASY's reservation: a scheduler of your own for allockit.

Run it like a built-in (it gets every metric, ``--bound``, ``--jobs-csv`` and ``--plot``):

    allockit simulate WORKLOAD.swf --algorithm examples/sjf_easy.py:ShortestJobFirst

or from Python: ``simulate(workload, ShortestJobFirst())``. The protocol is documented
in ``allockit.simulation.policy``.
"""

from allockit.simulation.policy import BasePolicy


class ShortestJobFirst(BasePolicy):
    """Start the waiting jobs shortest first (by the run time the scheduler expects).

    The shortest job that does not fit gets EASY's reservation: later jobs start now
    only if they end before it (by their estimate) or use nodes it will not need, so a
    long job is not starved by a stream of short ones.

    Parameters
    ----------
    backfill : bool
        Backfill behind the reservation (default True); False stops at the first job
        that does not fit (strict SJF).
    """

    name = "SJF-EASY"

    def __init__(self, backfill: bool = True) -> None:
        self.backfill = backfill

    def schedule(self, cluster, now):
        order = sorted(cluster.queue, key=lambda job: (cluster.estimate[job], job))
        while order and cluster.fits(order[0]):
            cluster.start(order.pop(0))
        if not order or not self.backfill:
            return
        shadow, extra = cluster.reservation(order[0])
        for job in order[1:]:
            if not cluster.fits(job):
                continue
            if now + cluster.estimate[job] <= shadow:
                cluster.start(job)  # ends before the reserved job needs the nodes
            elif cluster.width[job] <= extra:
                cluster.start(job)  # runs on nodes the reserved job leaves free
                extra -= int(cluster.width[job])
