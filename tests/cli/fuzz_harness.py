"""Run ``allockit.cli.main`` in-process like a user's shell would, and check the contract.

The contract of the command line (README, "Command line"): exit code 0, 2 or 3 (1 only
for a missing optional dependency), never a traceback, exactly one message line on
exit 2, and strict JSON (no ``NaN``/``Infinity``) on stdout on exit 0 for commands that
print JSON. ``run_cli`` captures stdout, stderr and warnings, turns an escaping
exception into the outcome ``"traceback"`` and an overlong call into ``"hang"``.
"""

from __future__ import annotations

import argparse
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


# ---------------------------------------------------------------------- from the parser
# Every subcommand and option is found by walking ``allockit.cli.build_parser()``: a new
# option is fuzzed without a new test. What an option must refuse comes from its
# declaration: its range in ``allockit.cli.common.option_ranges`` (numbers and lists),
# its choices, its output kind (``OUTPUT_KINDS`` and ``output_kinds``), else the kind of
# value (a path to read, a name). A subcommand needs one line in ``TEMPLATES``: a cheap
# invocation that the fuzzed option is added to.

#: Seconds a fuzz case may take (the contract: a refusal or a completed run within 60 s).
CASE_SECONDS = 60.0


@dataclass(frozen=True)
class P:
    """A positional argument of a template: its dest and its value (placeholders allowed)."""

    dest: str
    value: str


#: A cheap invocation per subcommand (placeholders in braces: see ``Fixtures.render``).
#: ``{store}`` and ``{tmp}`` are new for every case, so a refusal can be checked to come
#: before any work (the store was not created).
TEMPLATES: dict[str, list[list]] = {
    "solve": [["solve", P("file", "{vc}"), "--method", "sg"]],
    "compare": [["compare", P("inputs", "{vc}"), "--methods", "sg", "--backend", "serial",
                 "--json", "--no-progress", "--store", "{store}"]],
    "demo": [["demo", "--methods", "sg", "--backend", "serial", "--json", "--no-progress",
              "--store", "{store}"]],
    "generate vcsched": [["generate", "vcsched", "--hosts", "2", "--jobs", "3", "--slack",
                          "0.5", "--seed", "1"]],
    "generate vcsched-set": [["generate", "vcsched-set", P("set_name", "small"), "--out",
                              "{tmp}/set"]],
    "sweep": [["sweep", P("spec", "{sweep}"), "--no-progress", "--backend", "serial",
               "--output", "{store}"]],
    "results export": [["results", "export", P("db", "{db}"), "--csv", "{tmp}/rows.csv"]],
    "workload lublin": [["workload", "lublin", "--jobs", "20", "--nodes", "8"]],
    "workload feitelson96": [["workload", "feitelson96", "--jobs", "20"]],
    "workload jann97": [["workload", "jann97", "--jobs", "20"]],
    "workload fit": [["workload", "fit", P("trace", "{ctc}"), "--out", "{tmp}/model.json"]],
    "workload hpc2n": [["workload", "hpc2n", P("trace", "{hpc2n}"), "--out", "{tmp}/weeks"]],
    "workload stats": [["workload", "stats", P("file", "{swf}")]],
    "data list": [["data", "list"]],
    "data fetch": [["data", "fetch", P("names", "hpc2n"), "--url", "http://127.0.0.1:9/x"]],
    "data add": [["data", "add", P("name", "hpc2n"), P("file", "{garbage}")]],
    "bound": [["bound", P("file", "{swf}"), "--method", "bisection"]],
    "dfrs-experiment": [["dfrs-experiment", P("experiment", "table2"), "--sets", "scaled",
                         "--seeds", "1", "--loads", "0.5", "--jobs", "8", "--nodes", "4",
                         "--algorithms", "FCFS;EASY", "--backend", "serial", "--store",
                         "{store}"]],
    "simulate": [
        ["simulate", P("file", "{swf}"), "--algorithm", "EASY"],
        ["simulate", P("file", "{swf}"), "--algorithm", "GreedyPM */per"],
        ["simulate", P("file", "{swf1}"), "--algorithm", "MEASY"],
        ["simulate", P("file", "{swf1}"), "--algorithm", "REASY"],
    ],
    "drfh": [["drfh", P("file", "{drfh}"), "--method", "slots"],
             ["drfh", P("file", "{drfh}"), "--method", "lp"]],
    "fairness": [["fairness", "--method", "first-fit", "--properties", "envy_freeness",
                  "--examples", "2"]],
    "fairness replay": [["fairness", "replay", P("file", "{fairness_report}")]],
    "model": [["model", P("file", "{vc}"), "--method", "milp", "--write", "{tmp}/model.lp"]],
    "methods": [["methods", "--family", "drfh"]],
    "measy-experiment": [
        ["measy-experiment", P("figure", "fig8"), "--model", "lublin", "--jobs", "30",
         "--processors", "16", "--loads", "0.8", "--backend", "serial", "--store", "{store}"],
        ["measy-experiment", P("figure", "fig13"), "--model", "lublin", "--jobs", "30",
         "--processors", "16", "--loads", "0.8", "--costs", "0,20", "--backend", "serial",
         "--store", "{store}"],
    ],
    "reserves": [["reserves", P("file", "{reserves}")]],
    "cluster-sim": [["cluster-sim", "--nodes", "6", "--duration", "3"],
                    ["cluster-sim", "--scenario", "fig3", "--duration", "3"]],
    "reserves-experiment": [["reserves-experiment", P("experiment", "fig3"), "--seeds", "1",
                             "--duration", "3", "--backend", "serial", "--store", "{store}"]],
    "vcsched-experiment": [
        ["vcsched-experiment", P("experiment", "table1"), "--every", "720", "--backend",
         "serial", "--store", "{store}"],
        ["vcsched-experiment", P("experiment", "large"), "--every", "5400", "--methods", "sg",
         "--backend", "serial", "--store", "{store}"],
    ],
    "reproduce": [["reproduce", "--list"], ["reproduce", "--json"]],
}

#: Positional arguments and options that name a file or folder to read.
INPUT_DESTS = {"file", "trace", "spec", "db", "inputs", "hpc2n", "traces", "model"}


@dataclass(frozen=True)
class OptionCase:
    """One option (or positional) of one subcommand, as the parser declares it."""

    command: str
    name: str  # "--load", or a positional's dest
    dest: str
    kind: str  # number, list, choice, flag, output, input, text, typed
    positional: bool

    def __str__(self) -> str:
        return f"{self.command} {self.name}"


def leaf_parsers() -> dict[str, argparse.ArgumentParser]:
    """Every subcommand's parser, by its words (``"workload lublin"``)."""
    from allockit.cli import build_parser

    found: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, words: list[str]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        own = [
            a for a in parser._actions
            if not isinstance(a, argparse._SubParsersAction | argparse._HelpAction)
        ]
        if not subs or (words and own):  # a command with options of its own and actions
            found[" ".join(words)] = parser  # (``fairness`` and ``fairness replay``)
        if not subs:
            return
        for name, child in subs[0].choices.items():
            walk(child, [*words, name])

    walk(build_parser(), [])
    return found


def option_cases() -> list[OptionCase]:
    """Every option and positional of every subcommand, classified from its declaration."""
    from allockit.cli.common import OUTPUT_KINDS, ListRange, option_ranges

    cases = []
    for command, parser in leaf_parsers().items():
        ranges = option_ranges(command)
        for action in parser._actions:
            skip = argparse._HelpAction | argparse._VersionAction | argparse._SubParsersAction
            if isinstance(action, skip):  # a subcommand's own words are its own leaf
                continue
            rule = ranges.get(action.dest)
            if action.nargs == 0:
                kind = "flag"
            elif action.choices is not None:
                kind = "choice"
            elif action.dest in OUTPUT_KINDS:
                kind = "output"
            elif isinstance(rule, ListRange):
                kind = "list"
            elif rule is not None:
                kind = "number"
            elif action.type is not None:
                kind = "typed"
            elif action.dest in INPUT_DESTS:
                kind = "input"
            else:
                kind = "text"
            name = action.option_strings[0] if action.option_strings else action.dest
            cases.append(OptionCase(command, name, action.dest, kind, not action.option_strings))
    return cases


def _outside(rule) -> list[str]:
    """Values just outside a ``Range``'s bounds, as the command line would write them."""
    out = []
    ge, gt, le, lt = (rule._bound(v) for v in (rule.ge, rule.gt, rule.le, rule.lt))
    if rule.kind is int:
        for low in (ge, None if gt is None else gt + 1):
            if low is not None:
                out.append(str(low - 1))
        for high in (le, None if lt is None else lt - 1):
            if high is not None:
                out.append(str(high + 1))
    else:
        for low in (ge, gt):
            if low is not None:
                out.append(repr(float(low) - max(1e-9, abs(low) * 1e-6)) if low == ge
                           else repr(float(low)))
        for high in (le, lt):
            if high is not None:
                out.append(repr(float(high) * (1 + 1e-6) + 1e-9) if high == le
                           else repr(float(high)))
    return out


def _inside(rule) -> list[str]:
    """Values at the low end of a ``Range`` (cheap to run, accepted by the range)."""
    ge, gt = rule._bound(rule.ge), rule._bound(rule.gt)
    low = ge if ge is not None else (gt if gt is not None else 0)
    if rule.kind is int:
        return [str(low if ge is not None else low + 1)]
    return [repr(float(low)) if ge is not None else repr(float(low) + 1e-3)]


HOSTILE_NUMBERS = ["abc", "nan", "inf", "-inf", "", " ", "1e308", "-1e308", "1e400",
                   "1" + "0" * 30, "-1" + "0" * 30, "0x10", "1/2", "--", "1,2", "é"]
ABSURD = ["1e-300", "-0", "0", "1", "2", "0.5", "1e9", "1e30", "-1"]
HOSTILE_LISTS = ["abc", "1,abc", ",", "", " , ", "nan", "inf", "1e308", "-5", "-1e308",
                 "1e-300", "0", "1;2", "[1]"]


def hostile_values(case: OptionCase) -> list[str]:
    """The values the fuzz tries for ``case`` (refused or not: ``must_refuse`` says)."""
    from allockit.cli.common import option_ranges

    rule = option_ranges(case.command).get(case.dest)
    if case.kind == "number":
        extra = ["1.5", "2.0", "1e3"] if rule.kind is int else []
        return [*HOSTILE_NUMBERS, *extra, *_outside(rule), *_inside(rule), *ABSURD]
    if case.kind == "list":
        item = rule.item
        inside = _inside(item)[0]
        twice = f"{inside},{inside}"
        many = ",".join(_inside(item) * (rule.max_len + 1))
        return [*HOSTILE_LISTS, *_outside(item), twice, many, inside]
    if case.kind == "choice":
        return ["bogus-choice", "", "é"]
    if case.kind == "output":
        return ["{tmp}/a-folder", "{tmp}/no/such/folder/x.out", "{tmp}/a-file/x.out",
                "/proc/allockit-fuzz.out", "/proc/allockit-fuzz/x", ""]
    if case.kind == "input":
        return ["/nonexistent/x", "{tmp}/a-folder", "{tmp}/empty", "{garbage}", ""]
    if case.kind == "typed":
        return ["abc", "", "1@abc", "1@-1", "1@nan", "1@inf", "m@1", "x@1", "1@1e9",
                "99999@1", "m9.9@1", "1@1e308"]
    if case.kind == "text":
        return ["no-such-thing-xyz", ""]
    return []


def must_refuse(case: OptionCase, value: str, args: argparse.Namespace | None) -> bool:
    """Whether the declaration says ``value`` must be refused (exit 2); if not, the run
    may complete or be refused for another reason (the contract alone holds).

    ``args`` is the template's parsed namespace (for an output kind that depends on it).
    """
    from allockit.cli.common import OUTPUT_KINDS, ListRange, numbers, option_ranges

    rule = option_ranges(case.command).get(case.dest)
    if case.kind == "number":
        try:
            parsed = rule.kind(value) if rule.kind is int else float(value)
        except ValueError:
            return True
        return not rule.accepts(parsed)
    if case.kind == "list":
        assert isinstance(rule, ListRange)
        try:
            parsed = numbers(rule.item.kind)(value)
            rule.check(case.name, parsed)
        except Exception:
            return True
        return False
    if case.kind in ("choice", "input", "typed", "text"):
        return value in hostile_values(case)  # each of these is invalid; others may not be
    if case.kind == "output":
        kind = (getattr(args, "output_kinds", None) or {}).get(case.dest, OUTPUT_KINDS[case.dest])
        if callable(kind):
            kind = kind(args)
        if value == "{tmp}/a-folder":
            return kind in ("file", "store")
        if value == "{tmp}/no/such/folder/x.out":
            return kind == "file"  # a folder and a store's folder are made
        # "", under a file, in /proc: nothing can be written there
        return value in ("", "{tmp}/a-file/x.out", "/proc/allockit-fuzz.out",
                         "/proc/allockit-fuzz/x")
    return False


SWF_TEXT = """; MaxNodes: 4
; MaxProcs: 8
1 0 5 100 2 -1 -1 2 200 -1 1 3 -1 -1 1 -1 -1 -1
2 10 0 50 1 -1 -1 1 60 -1 1 3 -1 -1 1 -1 -1 -1
3 20 0 30 4 -1 -1 4 -1 -1 1 4 -1 -1 1 -1 -1 -1
"""
#: The same jobs on single-core processors (the two-tier schedulers need them).
SWF1_TEXT = SWF_TEXT.replace("; MaxProcs: 8", "; MaxProcs: 4")
DRFH_DOC = {
    "problem": "drfh",
    "resources": ["cpu", "mem"],
    "servers": [{"name": "s1", "capacity": [2, 12], "count": 1},
                {"name": "s2", "capacity": [12, 2], "count": 2}],
    "users": [{"name": "u1", "demand": [0.2, 1], "weight": 1, "tasks": 5},
              {"name": "u2", "demand": [1, 0.2], "weight": 2, "tasks": None}],
}
RESERVES_DOC = {"problem": "reserves", "targets": [60, 30, 10],
                "allocation": [[60, 30, 10], [60, 30, 10]],
                "usage": [[50, 30, 10], [60, 20, 5]]}


class Fixtures:
    """The files the templates read, made once in ``root``; fresh paths per case."""

    def __init__(self, root: Path) -> None:
        from allockit.instances import example_path

        self.root = root
        data = Path(__file__).resolve().parents[1] / "data"
        files = {
            "vc": ("vc.json", Path(example_path()).read_text()),
            "drfh": ("drfh.json", json.dumps(DRFH_DOC)),
            "reserves": ("reserves.json", json.dumps(RESERVES_DOC)),
            "swf": ("w.swf", SWF_TEXT),
            "swf1": ("w1.swf", SWF1_TEXT),
            "sweep": ("sweep.toml", 'name = "fuzz"\noutput = "fuzz.db"\nmethods = ["sg"]\n'
                      'instances = ["vc.json"]\nbackend = "serial"\n'),
        }
        self.paths = {}
        for key, (name, text) in files.items():
            (root / name).write_text(text, encoding="utf-8")
            self.paths[key] = str(root / name)
        (root / "garbage.bin").write_bytes(b"\x00\xff garbage \x1f\x8b" * 20)
        self.paths["garbage"] = str(root / "garbage.bin")
        self.paths["ctc"] = str(data / "ctc_excerpt.swf")
        self.paths["hpc2n"] = str(data / "hpc2n_excerpt.swf")
        db = root / "example.db"
        outcome = run_cli(["compare", self.paths["vc"], "--methods", "sg", "--backend",
                           "serial", "--json", "--no-progress", "--store", str(db)])
        assert outcome.code == 0, outcome.describe()
        self.paths["db"] = str(db)
        outcome = run_cli(["fairness", "--method", "per-server-drf", "--properties",
                           "pareto", "--examples", "5"])
        assert outcome.code in (0, 3), outcome.describe()
        (root / "fairness.json").write_text(outcome.out, encoding="utf-8")
        self.paths["fairness_report"] = str(root / "fairness.json")
        self._count = 0

    def fresh(self) -> tuple[Path, Path]:
        """A new folder for one case (with a folder, a file and an empty file in it) and
        the path of a store that does not exist yet."""
        self._count += 1
        tmp = self.root / f"case{self._count}"
        (tmp / "a-folder").mkdir(parents=True)
        (tmp / "a-file").write_text("x")
        (tmp / "empty").write_text("")
        return tmp, tmp / "store.db"

    def render(self, text: str, tmp: Path, store: Path) -> str:
        return text.format(tmp=tmp, store=store, **self.paths)


def case_argv(template: list, case: OptionCase | None, value: str | None, fixtures: Fixtures,
              tmp: Path, store: Path) -> list[str]:
    """The template with ``value`` for ``case`` (a positional replaced, an option added)."""
    argv = []
    for token in template:
        if isinstance(token, P):
            chosen = value if case is not None and case.positional and token.dest == case.dest \
                else token.value
            argv.append(fixtures.render(chosen, tmp, store))
        else:
            argv.append(fixtures.render(token, tmp, store))
    if case is not None and not case.positional:
        if case.kind == "flag":
            argv.append(case.name)
        else:
            argv.append(f"{case.name}={fixtures.render(value, tmp, store)}")
    return argv


def template_args(template: list, fixtures: Fixtures) -> argparse.Namespace:
    """The template's parsed namespace (the output kinds that depend on other options)."""
    from allockit.cli import build_parser

    key = id(template)
    if key not in _PARSED:
        tmp, store = fixtures.root, fixtures.root / "none.db"
        argv = case_argv(template, None, None, fixtures, tmp, store)
        _PARSED[key] = build_parser().parse_args(argv)
    return _PARSED[key]


_PARSED: dict[int, argparse.Namespace] = {}


def check_output_valid(outcome: Outcome) -> None:
    """A completed run printed valid output: strict JSON, an SWF allockit reads, or text."""
    text = outcome.out
    if outcome.code != 0:
        return
    if text.lstrip().startswith(("{", "[")):
        try:
            strict_json(text)
        except ValueError as exc:
            raise AssertionError(f"{exc}\n{outcome.describe()}") from None
    elif text.startswith(";"):
        import tempfile

        from allockit.instances.swf import read_swf

        with tempfile.NamedTemporaryFile("w", suffix=".swf", delete=False) as fh:
            fh.write(text)
        try:
            read_swf(fh.name)
        except Exception as exc:
            raise AssertionError(f"unreadable SWF: {exc}\n{outcome.describe()}") from None
        finally:
            Path(fh.name).unlink()
    else:
        assert text.strip(), "a completed run printed nothing:\n" + outcome.describe()


def run_case(template: list, case: OptionCase, value: str, fixtures: Fixtures,
             *, timeout: float = CASE_SECONDS) -> tuple[Outcome, bool, Path]:
    """Run one case: the outcome, whether it had to be refused, and its store path."""
    tmp, store = fixtures.fresh()
    args = template_args(template, fixtures)
    argv = case_argv(template, case, value, fixtures, tmp, store)
    outcome = run_cli(argv, timeout=timeout)
    return outcome, must_refuse(case, value, args), store


def check_case(template: list, case: OptionCase, value: str, fixtures: Fixtures) -> Outcome:
    """The contract for one case; a value the declaration refuses is refused before work."""
    outcome, refuse, store = run_case(template, case, value, fixtures)
    check_contract(outcome, json_out=False)
    check_output_valid(outcome)
    if refuse:
        assert outcome.code == 2, f"{case}={value!r} accepted:\n" + outcome.describe()
        assert not store.exists(), f"{case}={value!r}: work began before the refusal"
    return outcome
