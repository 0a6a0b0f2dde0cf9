"""``--help`` is the manual: every option of every subcommand says what it takes.

Walks ``allockit.cli.build_parser()``: each option has a help line; an option taking a
value states its default (or that it is required); a number option states its range;
options in seconds or GiB name their unit. A flag is off unless given (the parser's
epilog says so), so its line need not repeat it.

"""

from __future__ import annotations

import argparse
import re

import pytest

from allockit.cli import build_parser, common

NUMBER_TYPES = {
    common.positive_int,
    common.positive_float,
    common.nonnegative_float,
    common.seed_int,
    common.finite_float,
    common.integer,
    int,
    float,
}
UNITS = {
    "time_limit": "second",
    "period": "second",
    "penalty": "second",
    "hold": "second",
    "migration_cost": "second",
    "connect_timeout": "second",
    "node_memory": "GiB",
}
RANGE = re.compile(r"(>=|<=|>|<|\[[^\]]*[\])]|\([^)]*[\])]|\d\s*\.\.\s*\d|\.\.)")


def _options():
    found = []

    def walk(parser, prefix):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*prefix, name])
            elif not isinstance(action, argparse._HelpAction | argparse._VersionAction):
                found.append((" ".join(prefix), action))

    walk(build_parser(), [])
    return found


def _problems(command, action):
    name = f"{command} {'/'.join(action.option_strings) or action.dest}"
    text = action.help or ""
    if not text or text == argparse.SUPPRESS:
        return [f"{name}: no help"]
    if not action.option_strings:
        return []  # a positional: its help says what it is
    out = []
    lowered = text.lower()
    if action.nargs == 0:  # a flag: off unless given
        return out
    if "default" not in lowered and "required" not in lowered:
        out.append(f"{name}: no default (or 'required')")
    if action.type in NUMBER_TYPES and not RANGE.search(text):
        out.append(f"{name}: a number without its range")
    unit = UNITS.get(action.dest)
    if unit and unit.lower() not in lowered:
        out.append(f"{name}: no unit ({unit})")
    return out


def test_every_option_of_every_subcommand_has_a_complete_help_line():
    problems = [p for command, action in _options() for p in _problems(command, action)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("argv", [["--help"], ["solve", "--help"], ["workload", "lublin", "-h"]])
def test_help_exits_zero(argv, capsys):
    from allockit.cli import main

    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0 and "usage:" in capsys.readouterr().out


def _numbers_in(text: str) -> set[float]:
    found = set()
    for token in re.findall(r"\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?", text.replace("^", "e")):
        try:
            found.add(float(token.replace(",", "")))
        except ValueError:
            pass
    if "2e63-1" in text.replace("^", "e").replace(" ", ""):
        found.add(2.0**63 - 1)
    return found


def test_every_declared_range_is_the_one_the_help_states():
    # the help is the manual: an option's line names the bounds its range declares
    problems = []
    for command, action in _options():
        if not action.option_strings:
            continue
        rule = common.option_ranges(command).get(action.dest)
        if rule is None or action.dest in ("threads", "workers"):  # 4 x cores: machine's
            continue
        item = getattr(rule, "item", rule)
        shown = _numbers_in(action.help or "")
        for bound in (item.ge, item.gt, item.le, item.lt):
            if bound is None or callable(bound):
                continue
            if not any(abs(float(bound) - n) <= 1e-9 * max(1.0, abs(n)) for n in shown):
                problems.append(f"{command} {action.option_strings[0]}: help does not state "
                                f"{bound!r} ({item.describe()}): {action.help!r}")
    assert not problems, "\n".join(problems)
