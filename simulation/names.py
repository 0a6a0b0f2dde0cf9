"""Parse DFRS algorithm names in the paper's scheme (Casanova et al. 2011, Table 1).

``ON_SUBMIT[ *][/per|/stretch-per][/opt=min|/opt=avg|/opt=max][/minft=X|/minvt=X]``
where ON_SUBMIT is Greedy, GreedyP, GreedyPM or MCB8 (or empty for the purely periodic
``/per`` and ``/stretch-per``); ``*`` also schedules on job completion (Greedy after a
Greedy family submission policy, MCB8 after MCB8). Only Table 1's 14 combinations are
accepted: a submission policy needs ``*`` or ``/per`` (otherwise a postponed job could
wait forever), and ``/stretch-per`` runs alone. ``opt=max`` (iteratively minimise the
maximum estimated stretch) belongs to ``/stretch-per`` and is its default
(``/stretch-per/opt=avg`` minimises the average estimated stretch); the other
algorithms default to ``opt=min``. FCFS and EASY name the batch baselines. Unknown
names are refused with the list of valid parts.
"""

from __future__ import annotations

from dataclasses import dataclass

from allockit.errors import InvalidInputError

__all__ = ["ON_SUBMIT", "TABLE1", "AlgorithmName", "parse_algorithm"]

ON_SUBMIT = ("Greedy", "GreedyP", "GreedyPM", "MCB8")
#: The 14 mapping combinations of the paper's Table 1 (before opt/minft/minvt parts).
TABLE1 = (
    "Greedy *",
    "GreedyP *",
    "GreedyPM *",
    "Greedy/per",
    "GreedyP/per",
    "GreedyPM/per",
    "Greedy */per",
    "GreedyP */per",
    "GreedyPM */per",
    "MCB8 *",
    "MCB8/per",
    "MCB8 */per",
    "/per",
    "/stretch-per",
)
_BATCH = ("FCFS", "EASY")
_VALID = (
    "FCFS | EASY | ON_SUBMIT[ *][/per][/opt=min | /opt=avg][/minft=SECONDS | "
    "/minvt=SECONDS] with ON_SUBMIT in " + ", ".join(ON_SUBMIT) + " and '*' or '/per' "
    "present | /per[...] | /stretch-per[/opt=max | /opt=avg][/minft=SECONDS | /minvt=SECONDS]"
)


@dataclass(frozen=True, slots=True)
class AlgorithmName:
    """A parsed algorithm name; ``str()`` gives back its canonical spelling.

    Build it with ``parse_algorithm``, which enforces Table 1 of Casanova et al.
    (2011); the constructor itself checks nothing.

    Attributes
    ----------
    on_submit : str or None
        The submission policy (one of ``ON_SUBMIT``), None for a purely periodic one
        or a batch baseline.
    on_completion : bool
        ``*``: also reschedule when a job completes (see ``on_completion_policy``).
    periodic : str or None
        ``"mcb8"`` (``/per``), ``"mcb8-stretch"`` (``/stretch-per``) or None.
    opt : str
        ``"min"``, ``"avg"`` or ``"max"``: how leftover CPU is shared (Sec. 4.6).
    minft, minvt : float or None
        Seconds: jobs whose flow time (``minft``) or virtual time (``minvt``) is below
        it are not preempted or migrated; at most one of the two is set.
    batch : str or None
        ``"FCFS"`` or ``"EASY"`` for the batch baselines (all other fields unused).

    Examples
    --------
    >>> a = AlgorithmName(on_submit="MCB8", on_completion=True, periodic="mcb8")
    >>> str(a), a.on_completion_policy
    ('MCB8 */per/opt=min', 'MCB8')
    >>> str(AlgorithmName(on_submit=None, batch="EASY"))
    'EASY'
    """

    on_submit: str | None
    on_completion: bool = False
    periodic: str | None = None  # "mcb8" or "mcb8-stretch"
    opt: str = "min"
    minft: float | None = None
    minvt: float | None = None
    batch: str | None = None

    def __str__(self) -> str:
        if self.batch:
            return self.batch
        text = self.on_submit or ""
        if self.on_completion:
            text += " *"
        if self.periodic:
            text += "/per" if self.periodic == "mcb8" else "/stretch-per"
        text += f"/opt={self.opt}"
        if self.minft is not None:
            text += f"/minft={self.minft:g}"
        if self.minvt is not None:
            text += f"/minvt={self.minvt:g}"
        return text

    @property
    def on_completion_policy(self) -> str | None:
        """What runs on a job completion: Greedy, MCB8 or nothing."""
        if not self.on_completion:
            return None
        return "MCB8" if self.on_submit == "MCB8" else "Greedy"


def _bad(name: str, why: str) -> InvalidInputError:
    return InvalidInputError(f"algorithm {name!r}: {why}; valid names: {_VALID}")


def parse_algorithm(name: str) -> AlgorithmName:
    """Parse ``name``; raise ``InvalidInputError`` listing the valid parts otherwise.

    The grammar is in the module docstring. Whitespace around the name and its parts
    is ignored; ``FCFS`` and ``EASY`` are case-insensitive.

    Parameters
    ----------
    name : str
        An algorithm name such as ``"GreedyPM */per/opt=min/minvt=600"``,
        ``"MCB8 *"``, ``"/stretch-per/opt=avg"`` or ``"EASY"``.

    Returns
    -------
    AlgorithmName
        The parsed name with its defaults filled in (``opt="max"`` for
        ``/stretch-per``, ``"min"`` otherwise).

    Raises
    ------
    InvalidInputError
        For an empty name, an unknown submission policy or part, a ``minft``/``minvt``
        that is not a number of seconds >= 0, both ``minft`` and ``minvt``, or a
        combination outside Table 1 (a submission policy without ``*`` or ``/per``,
        ``/stretch-per`` with a submission policy or ``opt=min``, ``opt=max``
        without ``/stretch-per``). The message lists the valid names.

    Examples
    --------
    >>> a = parse_algorithm("GreedyPM */per/opt=min/minvt=600")
    >>> a.on_submit, a.on_completion, a.periodic, a.opt, a.minvt, str(a)
    ('GreedyPM', True, 'mcb8', 'min', 600.0, 'GreedyPM */per/opt=min/minvt=600')
    >>> str(parse_algorithm("/stretch-per"))
    '/stretch-per/opt=max'
    >>> parse_algorithm("Greedy/weekly")
    Traceback (most recent call last):
    ...
    allockit.errors.InvalidInputError: algorithm 'Greedy/weekly': unknown part 'weekly'; ...

    References
    ----------
    .. [1] H. Casanova, M. Stillwell, F. Vivien (2011), Dynamic fractional resource
       scheduling vs. batch scheduling, Table 1.
    """
    if not isinstance(name, str) or not name.strip():
        raise _bad(str(name), "empty name")
    text = name.strip()
    if text.upper() in _BATCH:
        return AlgorithmName(on_submit=None, batch=text.upper())
    head, *parts = text.split("/")
    head = head.strip()
    star = head.endswith("*")
    head = head.rstrip("*").strip()
    if head and head not in ON_SUBMIT:
        raise _bad(name, f"unknown submission policy {head!r}")
    periodic, opt, minft, minvt = None, None, None, None
    for raw in parts:
        part = raw.strip()
        if part in ("per", "stretch-per"):
            if periodic:
                raise _bad(name, "two periodic parts")
            periodic = "mcb8" if part == "per" else "mcb8-stretch"
        elif part in ("opt=min", "opt=avg", "opt=max"):
            opt = part[4:]
        elif part.startswith(("minft=", "minvt=")):
            try:
                value = float(part.split("=", 1)[1])
            except ValueError:
                raise _bad(name, f"{part!r} needs a number of seconds") from None
            if not value >= 0:  # (NaN too: it would pin no job, silently)
                raise _bad(name, f"{part!r} must be a number of seconds >= 0")
            if part.startswith("minft="):
                minft = value
            else:
                minvt = value
        else:
            raise _bad(name, f"unknown part {part!r}")
    if minft is not None and minvt is not None:
        raise _bad(name, "minft and minvt are exclusive")
    if not head and not periodic:
        raise _bad(name, "no submission policy and no periodic part")
    if not head and star:
        raise _bad(name, "'*' needs a submission policy")
    if periodic == "mcb8-stretch" and head:
        raise _bad(name, "/stretch-per runs alone (Table 1)")
    if head and not star and not periodic:
        raise _bad(
            name, f"{head!r} needs ' *' or '/per' (Table 1), or postponed jobs may never start"
        )
    if periodic == "mcb8-stretch":
        if opt == "min":
            raise _bad(name, "/stretch-per improves allocations with opt=max (Table 2)")
        opt = opt or "max"
    elif opt == "max":
        raise _bad(name, "opt=max belongs to /stretch-per; use opt=min or opt=avg")
    opt = opt or "min"
    return AlgorithmName(
        on_submit=head or None,
        on_completion=star,
        periodic=periodic,
        opt=opt,
        minft=minft,
        minvt=minvt,
    )
