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
