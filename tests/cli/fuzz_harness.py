"""Run ``allockit.cli.main`` in-process like a user's shell would, and check the contract.

The contract of the command line (README, "Command line"): exit code 0, 2 or 3 (1 only
for a missing optional dependency), never a traceback, exactly one message line on
exit 2, and strict JSON (no ``NaN``/``Infinity``) on stdout on exit 0 for commands that
print JSON. ``run_cli`` captures stdout, stderr and warnings, turns an escaping
exception into the outcome ``"traceback"`` and an overlong call into ``"hang"``.
"""

from __future__ import annotations

import contextlib
import io
import json
import signal
import subprocess
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

from allockit.cli import main

#: Seconds an in-process call may take before it counts as a hang.
CALL_SECONDS = 30.0


class _Hang(BaseException):
    pass


@dataclass
class Outcome:
    argv: list[str]
    code: int | str
    out: str
    err: str
    seconds: float

    def describe(self) -> str:
        return (
            f"allockit {' '.join(self.argv)}\n-> exit {self.code} after {self.seconds:.1f} s\n"
            f"stderr: {self.err[-1500:]!r}\nstdout: {self.out[:300]!r}"
        )


def run_cli(argv: list[str], *, timeout: float = CALL_SECONDS) -> Outcome:
    """``main(argv)`` with captured output; exceptions and hangs become outcomes."""
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()

    def _alarm(signum, frame):
        raise _Hang

    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    code: int | str
    try:
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            warnings.catch_warnings(record=True) as caught,
        ):
            warnings.simplefilter("always")
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        for w in caught:  # the real command line prints warnings on stderr
            err.write(warnings.formatwarning(w.message, w.category, w.filename, w.lineno))
    except _Hang:
        code = "hang"
    except BaseException:  # an escaping exception is a traceback for the user
        code = "traceback"
        err.write(traceback.format_exc())
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return Outcome(list(argv), code, out.getvalue(), err.getvalue(), time.perf_counter() - started)


def run_subprocess(argv: list[str], *, timeout: float, cwd: Path | None = None) -> Outcome:
    """``python -m allockit.cli argv`` in a child process; past ``timeout`` it is a hang."""
    started = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "allockit.cli", *argv],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        return Outcome(
            list(argv), "hang", _text(exc.stdout), _text(exc.stderr), time.perf_counter() - started
        )
    seconds = time.perf_counter() - started
    return Outcome(list(argv), proc.returncode, proc.stdout, proc.stderr, seconds)


def _text(data) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def strict_json(text: str):
    """``json.loads`` that refuses ``NaN``, ``Infinity`` and ``-Infinity``."""

    def refuse(constant: str):
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def check_contract(outcome: Outcome, *, json_out: bool = True) -> None:
    """Assert the command line's contract on one outcome."""
    assert outcome.code in (0, 2, 3), outcome.describe()
    assert "Traceback" not in outcome.err, outcome.describe()
    if outcome.code == 2:
        lines = outcome.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("allockit"), outcome.describe()
        assert outcome.out == "", outcome.describe()
    if outcome.code == 0 and json_out:
        try:
            strict_json(outcome.out)
        except ValueError as exc:
            raise AssertionError(f"{exc}\n{outcome.describe()}") from None


def check_refused(outcome: Outcome) -> None:
    """The contract, and the input was refused (exit 2, one line)."""
    check_contract(outcome)
    assert outcome.code == 2, "bad input accepted:\n" + outcome.describe()
