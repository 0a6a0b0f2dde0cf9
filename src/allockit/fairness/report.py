"""``PropertyReport``: the outcome of one property over many examples, and its JSON record.

The record ``allockit fairness`` prints for each property (a stable contract):
``property``, ``status``, ``held``, ``examples``, ``violation``, ``counterexample``
(the shrunk instance, as ``DRFHInstance.to_dict()``), and ``method``, ``semantics``,
``semantics_counts``, ``evidence``, ``text``, ``detail``, ``errors``, ``error``,
``shrink_steps``, ``seconds``.

``status`` is one of

- ``held``: no example violated the property and none was undecided;
- ``violated``: a counterexample (shrunk by hypothesis) with its evidence;
- ``error``: no violation, but some example could not be decided (the mechanism raised,
  refused the instance or returned an output allockit refuses; an LP or MIP did not
  finish): ``error`` holds the first such example;
- ``measured``: the sharing incentive, which the paper shows can fail: never a pass or
  a fail, ``held`` is null, ``evidence`` counts the users worse off;
- ``not_applicable``: a given instance (``--instance``) is not of the shape the property
  speaks of (one server, one resource, a common dominant resource).

Examples
--------
>>> r = PropertyReport("pareto", "held", 200, method="lp", semantics="fractional")
>>> r.held, PropertyReport.from_dict(r.to_dict()) == r
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from allockit.errors import InvalidInputError
from allockit.fairness.names import STATUSES

__all__ = ["PropertyReport"]


@dataclass(frozen=True, slots=True)
class PropertyReport:
    """Outcome of checking one property of a mechanism.

    Attributes
    ----------
    name : str
        The property (one of ``allockit.fairness.PROPERTIES``).
    status : str
        One of ``STATUSES`` (see the module docstring).
    examples : int
        Instances evaluated before the first counterexample (all of them when none was
        found); shrinking steps are counted in ``shrink_steps``.
    violation : float
        Size of the counterexample's violation in tasks (for ``measured``, the largest
        shortfall found); 0 when held.
    counterexample : dict or None
        The shrunk instance (``DRFHInstance.to_dict()``).
    method : str
        The mechanism (built-in name or spec as given).
    spec : str or None
        A spec ``replay`` can resolve again (None for a lambda).
    semantics : str or None
        ``whole``, ``fractional`` or ``mixed`` (both occurred) over the examples.
    semantics_counts : dict
        Examples counted in whole and in divisible tasks.
    evidence : dict or None
        The counterexample's allocation and what shows the violation (the improving
        allocation, the envied bundle, the lie, ...); for ``measured``, the counts.
    text : str
        The evidence as one readable paragraph.
    detail : str
        One sentence.
    errors : int
        Examples that could not be decided.
    error : dict or None
        The first undecided example: ``{"message", "instance"}``.
    shrink_steps : int
        Evaluations spent shrinking the counterexample.
    seconds : float
        Wall time of the check.
    options : dict
        The mechanism's options.

    Examples
    --------
    >>> PropertyReport("sharing_incentive", "measured", 10).held is None
    True
    """

    name: str
    status: str
    examples: int
    violation: float = 0.0
    counterexample: dict[str, Any] | None = None
    method: str = ""
    spec: str | None = None
    semantics: str | None = None
    semantics_counts: dict[str, int] = field(default_factory=dict)
    evidence: dict[str, Any] | None = None
    text: str = ""
    detail: str = ""
    errors: int = 0
    error: dict[str, Any] | None = None
    shrink_steps: int = 0
    seconds: float = 0.0
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise InvalidInputError(f"status must be one of {list(STATUSES)}; got {self.status!r}")

    @property
    def held(self) -> bool | None:
        """True when held, False when violated or undecided, None when not a pass/fail."""
        if self.status in ("measured", "not_applicable"):
            return None
        return self.status == "held"

    def to_dict(self) -> dict[str, Any]:
        """The JSON record (see the module docstring)."""
        return {
            "property": self.name,
            "status": self.status,
            "held": self.held,
            "examples": self.examples,
            "violation": self.violation,
            "counterexample": self.counterexample,
            "method": self.method,
            "spec": self.spec,
            "options": dict(self.options),
            "semantics": self.semantics,
            "semantics_counts": dict(self.semantics_counts),
            "evidence": self.evidence,
            "text": self.text,
            "detail": self.detail,
            "errors": self.errors,
            "error": self.error,
            "shrink_steps": self.shrink_steps,
            "seconds": self.seconds,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PropertyReport:
        """Rebuild a report from ``to_dict``'s output.

        Parameters
        ----------
        data : dict
            A record as ``to_dict`` writes it (``allockit fairness`` prints a list).

        Returns
        -------
        PropertyReport

        Raises
        ------
        InvalidInputError
            If a field is missing or of the wrong type.

        Examples
        --------
        >>> PropertyReport.from_dict({"property": "pareto"})
        Traceback (most recent call last):
        ...
        allockit.errors.InvalidInputError: property report is malformed: missing 'status'
        """
        try:
            return cls(
                name=str(data["property"]),
                status=str(data["status"]),
                examples=int(data["examples"]),
                violation=float(data["violation"]),
                counterexample=data["counterexample"],
                method=str(data.get("method", "")),
                spec=data.get("spec"),
                semantics=data.get("semantics"),
                semantics_counts=dict(data.get("semantics_counts") or {}),
                evidence=data.get("evidence"),
                text=str(data.get("text", "")),
                detail=str(data.get("detail", "")),
                errors=int(data.get("errors", 0)),
                error=data.get("error"),
                shrink_steps=int(data.get("shrink_steps", 0)),
                seconds=float(data.get("seconds", 0.0)),
                options=dict(data.get("options") or {}),
            )
        except KeyError as exc:
            raise InvalidInputError(f"property report is malformed: missing {exc}") from None
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"property report is malformed: {exc}") from None
