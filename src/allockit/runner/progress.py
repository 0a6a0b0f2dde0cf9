"""A one-line progress bar for sweeps (counts, rate, ETA) on stderr."""

from __future__ import annotations

import sys
import time

__all__ = ["Progress"]


class Progress:
    """A one-line progress bar on stderr (counts, rate, ETA); silent when not a terminal.

    Examples
    --------
    >>> bar = Progress(2, enabled=False)
    >>> bar.update(True); bar.update(False); bar.done, bar.failed
    (2, 1)
    """

    def __init__(self, total: int, *, enabled: bool | None = None) -> None:
        self.total = total
        self.done = 0
        self.failed = 0
        self.start = time.perf_counter()
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._last = 0.0

    def update(self, ok: bool) -> None:
        """Count one finished task and redraw (at most 10 times a second)."""
        self.done += 1
        self.failed += 0 if ok else 1
        now = time.perf_counter()
        if self.enabled and (now - self._last > 0.1 or self.done == self.total):
            self._last = now
            sys.stderr.write("\r" + self.line() + ("\n" if self.done == self.total else ""))
            sys.stderr.flush()

    def line(self) -> str:
        """The progress line."""
        elapsed = time.perf_counter() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else float("inf")
        width = 30
        filled = int(width * self.done / max(1, self.total))
        bar = "#" * filled + "-" * (width - filled)
        eta_text = f"{eta:6.0f}s" if eta != float("inf") else "     ?s"
        return (
            f"[{bar}] {self.done}/{self.total} ({self.failed} failed) {rate:6.1f}/s ETA {eta_text}"
        )
