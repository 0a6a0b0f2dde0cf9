"""``StretchBound``: the least feasible maximum stretch (DFRS paper, Theorem 1) and how."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from allockit.checks import integer, real_number
from allockit.errors import InvalidInputError
from allockit.results.base import Status

__all__ = ["StretchBound"]


@dataclass(frozen=True, slots=True)
class StretchBound:
    """The least feasible maximum stretch and how it was found.

    ``value`` (printed as ``bound``, the CLI's field) lies in ``[lower, upper]``, the
    last bracket of the search; ``lps`` counts the LPs solved. ``status`` is
    ``optimal`` (the least feasible stretch to the method's tolerance).

    Examples
    --------
    >>> b = StretchBound(2.5, "exact", 3, 0.01, 2.5, 2.5)
    >>> b.to_dict()["bound"], StretchBound.from_dict(b.to_dict()) == b
    (2.5, True)
    """

    value: float
    method: str
    lps: int
    seconds: float
    lower: float
    upper: float
    status: Status = Status.OPTIMAL

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))
        for name in ("value", "lower", "upper"):  # (NaN and strings are no bounds)
            object.__setattr__(self, name, real_number(name, getattr(self, name), finite=False))
        object.__setattr__(self, "lps", integer("lps", self.lps, minimum=0))
        object.__setattr__(self, "seconds", real_number("seconds", self.seconds, at_least=0))

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``bound`` is ``value``, the name the CLI has always printed)."""
        return {
            "bound": self.value,
            "method": self.method,
            "status": str(self.status),
            "lps": self.lps,
            "seconds": self.seconds,
            "lower": self.lower,
            "upper": self.upper,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StretchBound:
        """Rebuild a bound from ``to_dict``'s output."""
        try:
            return cls(
                value=float(data["bound"]),
                method=str(data["method"]),
                lps=int(data["lps"]),
                seconds=float(data["seconds"]),
                lower=float(data["lower"]),
                upper=float(data["upper"]),
                status=str(data.get("status", "optimal")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInputError(f"stretch bound object is malformed: {exc}") from exc
