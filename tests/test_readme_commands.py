"""Every `allockit` command line shown in the README names real subcommands and options.

The README's shell blocks are the manual most users read first; a renamed option or
subcommand there is a broken promise. Each line starting with `allockit` (with its
indented continuation lines) is checked against the real parser: the subcommand path
exists and every `--option` it shows is one that subcommand accepts.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from allockit.cli import build_parser

README = Path(__file__).resolve().parents[1] / "README.md"


def _commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", README.read_text(), flags=re.S)
    commands: list[str] = []
    for block in blocks:
        for line in block.splitlines():
            text = line.split("#", 1)[0].rstrip()
            if re.match(r"^(\.venv/bin/)?allockit\b", text.strip()) and not line.startswith(" "):
                commands.append(text.strip())
            elif line.startswith(" ") and commands and text.strip().startswith(("[", "--")):
                commands[-1] += " " + text.strip()
    return commands


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _resolve(words: list[str]) -> tuple[argparse.ArgumentParser, list[str]]:
    parser, path = build_parser(), []
    for word in words:
        children = _subparsers(parser)
        if word in children:
            parser = children[word]
            path.append(word)
        elif children and not path:
            raise AssertionError(f"unknown subcommand {word!r}")
        else:
            break
    return parser, path


COMMANDS = _commands()


def test_the_readme_shows_commands_of_every_family():
    shown = {c.split()[1] for c in COMMANDS if len(c.split()) > 1}
    for sub in ("solve", "compare", "workload", "bound", "simulate", "dfrs-experiment", "drfh",
                "fairness", "measy-experiment", "reserves", "cluster-sim",
                "reserves-experiment", "vcsched-experiment", "sweep", "results"):
        assert sub in shown, sub


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_uses_real_subcommands_and_options(command):
    words = command.split()[1:]
    parser, path = _resolve([w for w in words if not w.startswith(("-", "["))][:2])
    assert path, command
    known = {opt for action in parser._actions for opt in action.option_strings}
    shown = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", command))
    assert shown <= known, f"{command}: unknown {sorted(shown - known)} for {' '.join(path)}"
