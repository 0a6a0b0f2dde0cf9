"""A VCSched heuristic of your own: round robin over the hosts, skipping full ones.

Use it wherever allockit takes a method:

    allockit solve INSTANCE.json --method examples/roundrobin.py:roundrobin
    allockit compare INSTANCES/ --methods mcb8,milp,examples/roundrobin.py:roundrobin

or from Python, ``allockit.solve(instance, roundrobin)``. allockit scores the placement
it returns exactly as its own heuristics' (memory check, the CPU split that maximises the
minimum yield, the average-yield phase).
"""


def roundrobin(instance, **options):
    """Task by task, the next host in turn whose memory still fits; None if none does.

    Parameters
    ----------
    instance : VCInstance
        ``hosts``, and per job ``mem`` (of each task) and ``tasks``.
    **options
        The common options allockit passes when given (``time_limit``, ``seed``, ...);
        this heuristic ignores them.

    Returns
    -------
    list of list of int, or None
        For each job, one host per task.
    """
    free = [1.0] * instance.hosts
    nxt = 0
    placement = []
    for job in range(instance.n_jobs):
        need = float(instance.mem[job])
        hosts = []
        for _ in range(int(instance.tasks[job])):
            for step in range(instance.hosts):
                host = (nxt + step) % instance.hosts
                if free[host] >= need - 1e-12:
                    break
            else:
                return None  # no host has room: found no placement (proves nothing)
            free[host] -= need
            hosts.append(host)
            nxt = host + 1
        placement.append(hosts)
    return placement
