"""Plain-Python, loop-by-loop reference versions of GR and MCB: the oracles of the fast code.

Written from the paper's prose (Stillwell et al. 2009, Sec. 3.3-3.4) and FORMULAS §1,
independently of ``allockit.heuristics``; only plain lists and floats.
"""

from __future__ import annotations

EPS = 1e-12


def tasks_of(instance):
    """(cpu, mem, job) per task, tasks listed job by job."""
    out = []
    for i in range(instance.n_jobs):
        for _ in range(int(instance.tasks[i])):
            out.append((float(instance.cpu[i]), float(instance.mem[i]), i))
    return out


def reference_greedy(instance, *, sort_by_memory=False):
    """GR / SG: a host per task, or None when a task fits nowhere."""
    tasks = tasks_of(instance)
    jobs = list(range(instance.n_jobs))
    if sort_by_memory:
        jobs.sort(key=lambda i: -float(instance.mem[i]))  # stable
    first = []
    k = 0
    for i in range(instance.n_jobs):
        first.append(k)
        k += int(instance.tasks[i])
    order = [first[i] + r for i in jobs for r in range(int(instance.tasks[i]))]
    load = [0.0] * instance.hosts
    free = [1.0] * instance.hosts
    hosts = [None] * len(tasks)
    for t in order:
        cpu, mem, _ = tasks[t]
        ranked = sorted(range(instance.hosts), key=lambda j: (load[j], j))
        chosen = None
        for j in ranked:
            if free[j] + EPS >= mem:
                chosen = j
                break
        if chosen is None:
            return None
        hosts[t] = chosen
        load[chosen] += cpu
        free[chosen] -= mem
    return hosts


def _key(cpu, mem, key):
    hi, lo = max(cpu, mem), min(cpu, mem)
    if key == "sum":
        return cpu + mem
    if key == "diff":
        return hi - lo
    if key == "ratio":
        return hi / lo if lo > 0 else float("inf")
    return hi


def reference_mcb_pack(instance, target, *, key="max", descending=True):
    """One MCB packing at a fixed yield: a host per task, or None."""
    tasks = [(target * c, m) for c, m, _ in tasks_of(instance)]
    index = list(range(len(tasks)))
    cpu_list = [t for t in index if tasks[t][0] > tasks[t][1]]
    mem_list = [t for t in index if not tasks[t][0] > tasks[t][1]]
    sign = -1 if descending else 1
    cpu_list.sort(key=lambda t: sign * _key(*tasks[t], key))
    mem_list.sort(key=lambda t: sign * _key(*tasks[t], key))
    hosts = [None] * len(tasks)
    left = len(tasks)
    for h in range(instance.hosts):
        free_cpu = free_mem = 1.0
        while left:
            chosen = None
            first, second = (mem_list, cpu_list) if free_mem > free_cpu else (cpu_list, mem_list)
            for candidates in (first, second):
                for t in candidates:
                    cpu, mem = tasks[t]
                    if cpu <= free_cpu + EPS and mem <= free_mem + EPS:
                        chosen = t
                        break
                if chosen is not None:
                    candidates.remove(chosen)
                    break
            if chosen is None:
                break
            hosts[chosen] = h
            free_cpu -= tasks[chosen][0]
            free_mem -= tasks[chosen][1]
            left -= 1
        if not left:
            return hosts
    return None


def reference_mcb(instance, *, key="max", descending=True, tol=1e-3):
    """MCB with the binary search of allockit's documented schedule."""
    hi = min(1.0, instance.hosts / sum(c for c, _, _ in tasks_of(instance)))
    best = reference_mcb_pack(instance, hi, key=key, descending=descending)
    if best is None:
        lo, target = 0.0, hi / 2
        while hi - lo >= tol:
            placed = reference_mcb_pack(instance, target, key=key, descending=descending)
            if placed is None:
                hi = target
            else:
                lo, best = target, placed
            target = (lo + hi) / 2
        if best is None:
            best = reference_mcb_pack(instance, 0.0, key=key, descending=descending)
    return best
