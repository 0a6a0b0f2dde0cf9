"""The two-tier (MEASY) simulator's defaults and every modelling choice, in one place.

The MEASY paper (Wang et al., seed 003, restated in the user guide (MEASY)) leaves some
rules open and lost some formulas in extraction. Every decision this implementation
makes where the paper is silent is one entry of ``CHOICES`` below (a key, and the rule
as implemented); the simulator modules refer to these keys. The module imports nothing,
so the command line can read the defaults without loading numpy.

Examples
--------
>>> MIGRATION_COST_SECONDS, BG_THRESHOLD, ALGORITHMS
(20.0, 0.96, ('KEASY', 'REASY', 'MEASY'))
>>> "overrun" in CHOICES and "remaining_estimate" in CHOICES
True
>>> print(choices_markdown().splitlines()[0])
| choice | rule implemented |
"""

from __future__ import annotations

__all__ = [
    "ALGORITHMS",
    "BATCH_COUNT",
    "BG_THRESHOLD",
    "CHOICES",
    "CPU_INFO",
    "DRAWS",
    "LOSS_RANGE",
    "MIGRATION_COST_SECONDS",
    "REASY_EXTRA",
    "RHO_MULTI",
    "RHO_SINGLE",
    "WARMUP_FRACTION",
    "choices_markdown",
]

#: The three two-tier schedulers (the paper's Algorithms 1-3).
ALGORITHMS = ("KEASY", "REASY", "MEASY")
#: Default migration cost (s): a migrated job makes no progress for that long (Sec. 3).
MIGRATION_COST_SECONDS = 20.0
#: A bg process is placed only where the fg process's CPU usage is below this (Sec. 2.1).
BG_THRESHOLD = 0.96
#: What the scheduler knows of CPU usage: the true values, or none (all seen at 100 %).
CPU_INFO = ("known", "none")
#: REASY's extra fg VMs: the prose's idle VMs off the head, or Algorithm 3 line 17.
REASY_EXTRA = ("idle", "line17")
#: Granularity of the random draws (loss, rho).
DRAWS = ("job", "process", "placement")
#: fg performance loss when a bg VM is co-located: uniform on this range (Sec. 2.1).
LOSS_RANGE = (0.005, 0.04)
#: rho of a one-process bg job: uniform on this range (Sec. 2.1).
RHO_SINGLE = (0.80, 0.92)
#: rho of a multi-process bg job: normal (mean, sd) clipped to [low, high] (Sec. 2.1).
RHO_MULTI = (0.48, 0.12, 0.198, 0.766)
#: Batch means: number of batches of the 95 % confidence intervals.
BATCH_COUNT = 20
#: Batch means: fraction of the jobs (first submitted) dropped as the warm-up.
WARMUP_FRACTION = 0.1

#: Every open decision of the paper, as implemented (key -> rule).
CHOICES: dict[str, str] = {
    "platform": (
        "P single-core processors (Platform(nodes=P, cores=1)); each has one fg and one "
        "bg VM holding at most one process each. tasks[k] is the job's process count."
    ),
    "feedback": (
        "By default every job is submitted at Workload.submit (open arrivals), as the "
        "batch and DFRS simulators do, and the FWload repeats (preceding/think_time) are "
        "independent jobs. feedback=True honours them: a job is submitted think_time "
        "seconds (0 when NaN) after its preceding job completes, appended to the merged "
        "list then, and its response time counts from that submission."
    ),
    "cpu_usage": (
        "One CPU usage U per job (Workload.cpu), shared by all its processes; Dispatch's "
        "'processes by decreasing CPU usage' is then the process index order."
    ),
    "estimates": (
        "The scheduler's runtime estimate is requested_time, or the true runtime when it "
        "is absent (NaN), as simulate_batch(estimates=True)."
    ),
    "overrun": (
        "A job that runs past its estimate is never killed: it runs to completion; the "
        "scheduler then assumes it ends now (estimated end max(end, now)), as "
        "simulate_batch does. fg jobs can overrun because of the fg loss."
    ),
    "cpu_info_none": (
        "cpu_info='none': the scheduler sees every process at 100 % (the threshold then "
        "admits bg processes only under idle fg VMs, Dispatch orders by 0/1); progress "
        "always uses the true usage."
    ),
    "progress": (
        "Between events every rate is constant. fg process: 1 - loss while its bg VM "
        "holds a process (even a starved one: the VM is scheduled), else 1. bg process: "
        "1 when its fg VM is idle (runs as if alone, the paper's J8), else "
        "min(1, rho (1 - U_fg) / U_bg) with the true usages. A job advances at its "
        "slowest process; its completion time is exact (last + remaining / rate)."
    ),
    "draws": (
        "loss ~ U(0.5 %, 4 %); rho ~ U(0.80, 0.92) for one-process jobs, N(0.48, 0.12) "
        "clipped to [0.198, 0.766] otherwise, from the seeded generator. draws='job' "
        "(default): one loss and one rho per job, drawn at its submission (submissions "
        "come in the same order for every algorithm: common random numbers); "
        "'process': one per process, drawn at submission; 'placement': a fresh draw "
        "each time a process is placed in a VM (in event order)."
    ),
    "threshold": (
        "A bg process is placed only in an empty bg VM whose fg VM is idle or runs a "
        "process of seen usage < bg_threshold, at placement time. An fg process may later "
        "land over a bg process whatever its usage (the paper's J6 over J8); the bg "
        "process then gets rho (1 - U_fg) / U_bg of a processor (0 at U_fg = 1)."
    ),
    "triggers": (
        "All events of one instant are handled first (completions, migration ends, "
        "submissions, ties by job index), then one scheduling pass: steps 1-3 if a job "
        "arrived or left the fg tier, step 3 alone if only bg jobs left, none if only a "
        "migration ended."
    ),
    "merged_list": (
        "The merged list holds waiting and bg jobs in submission order. Step 1 (FCFS) "
        "stops at the first job that cannot be deployed: it does not fit the idle fg VMs, "
        "or (REASY) its Deploy is refused; the reservation of step 2 then protects it. "
        "Step 2 backfills the jobs after the head; 'extra' is decreased only by a job "
        "admitted by the extra-VM rule (not ending by the shadow time), as simulate_batch."
    ),
    "shadow": (
        "fg jobs are taken in order of (max(estimated end, now), job index) until enough "
        "fg VMs are free for the head, as simulate_batch; shadow = max(that end, now)."
    ),
    "remaining_estimate": (
        "The scheduler knows a bg job's progress (the VM's CPU accounting): its remaining "
        "estimate is max(estimate - progress, 0). On entering fg a job's estimated end is "
        "now + remaining (swap), now + estimate (kill and restart), or now + migration "
        "cost + remaining (migration); step 2 tests the same value against the shadow."
    ),
    "swap": (
        "A bg job whose every processor has an idle fg VM moves to those fg VMs in place "
        "(the two VMs swap priorities), for free, keeping its progress."
    ),
    "kill": (
        "KEASY kills the bg job (its progress is lost), then dispatches it to idle fg VMs "
        "like a new job; it restarts from zero. wasted_cpu_seconds adds the lost progress "
        "times tasks times U. 'start' stays the first time the job ever ran."
    ),
    "migration": (
        "MEASY releases the job's bg VMs and dispatches it to idle fg VMs, its own "
        "processors first among equal utilisation; processes whose processor was chosen "
        "stay, the others move. The whole job makes no progress for migration_cost "
        "seconds (one migration per move), while its fg VMs count as busy with its usage."
    ),
    "refuse": ("REASY's Deploy refuses a bg job that cannot swap in place: it stays pinned in bg."),
    "reasy": (
        "REASY keeps KEASY's steps 1 and 3 (Algorithm 3 shows only the reservation and "
        "backfill). For a head running in bg: shadow = the last estimated end of the fg "
        "jobs on its processors (now if none). The paper gives two readings of extra, "
        "both implemented (reasy_extra): 'idle' (default, the prose of Sec. 2.3.1 and "
        "Fig. 5) = the idle fg VMs of processors with no process of the head in their "
        "bg; 'line17' (Algorithm 3, line 17, extra = idle + s - n) = the idle fg VMs plus "
        "s, the total size of the fg jobs on the head's processors, minus n, the head's "
        "size: EASY's count of the VMs free at the shadow time. reasy_protect=True "
        "(default, allockit's addition: the paper states no such rule) dispatches a job "
        "admitted by the extra rule off the head's processors only, so it never blocks "
        "them (and admits it only if it fits there); False (the paper's pseudocode) "
        "calls Dispatch unmodified, so such a job may take an idle fg VM of the head's "
        "processors and delay the head past the shadow time."
    ),
    "dispatch": (
        "fg: idle fg VMs by increasing seen usage of their bg process (0 when empty); bg: "
        "eligible bg VMs by increasing seen usage of their fg process (0 when idle); ties "
        "by processor index."
    ),
    "sjf": (
        "Step 3 takes the waiting jobs (not those already in bg) by increasing estimate, "
        "ties by submission order, and places every one that fits the eligible bg VMs."
    ),
    "background_off": (
        "background=False: step 3 never runs, no job is ever in bg, and KEASY, REASY and "
        "MEASY all produce EASY's schedule (simulate_batch(estimates=True)) exactly."
    ),
    "metrics": (
        "Response time C - a; bounded slowdown max(1, (C - a) / max(runtime, 10 s)). 95 % "
        "confidence intervals by batch means: the first 10 % of jobs (by submission) are "
        "the warm-up, the rest is cut into 20 batches of consecutive jobs (the last "
        "remainder jobs dropped), Student t with 19 degrees of freedom. Means are over all "
        "jobs."
    ),
    "utilization": (
        "fg (bg) utilisation: time average of busy fg (bg) VMs / P between the first "
        "submission and the last completion. underutilization: processor-seconds where an "
        "fg VM is idle while jobs not yet completed have processes waiting or in bg "
        "(integral of min(P, unfinished processes) - busy fg VMs, when positive)."
    ),
}


def choices_markdown() -> str:
    """``CHOICES`` as a markdown table (for the results fragment and the docs).

    Returns
    -------
    str

    Examples
    --------
    >>> len(choices_markdown().splitlines()) == len(CHOICES) + 2
    True
    """
    lines = ["| choice | rule implemented |", "|---|---|"]
    lines += [f"| `{key}` | {text} |" for key, text in CHOICES.items()]
    return "\n".join(lines)
