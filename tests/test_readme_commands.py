"""Every `allockit` command line shown in the README and the documentation site names real
subcommands and options.

The README's shell blocks are the manual most users read first, and the site's user
guide (``docs/**/*.rst``, its ``code-block:: bash`` blocks) the one they read next; a
renamed option or subcommand there is a broken promise. Each line starting with
`allockit` (with its indented continuation lines) is checked against the real parser:
the subcommand path exists and every `--option` it shows is one that subcommand accepts.
"""

from __future__ import annotations

import argparse
import re
import textwrap
from pathlib import Path

import pytest

from allockit.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def _readme_blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", README.read_text(), flags=re.S)


def _docs_blocks() -> list[str]:
    """The ``code-block:: bash`` blocks of the site's sources, dedented."""
    blocks = []
    for path in sorted(DOCS.rglob("*.rst")):
        if {"_build", "api", "auto_examples"} & set(path.relative_to(DOCS).parts):
            continue
        for found in re.finditer(
            r"\.\. code-block:: (?:bash|console|shell)\n\n((?:[ \t]+.*\n|[ \t]*\n)+)",
            path.read_text(),
        ):
            blocks.append(textwrap.dedent(found.group(1)))
    return blocks


def _commands(blocks: list[str]) -> list[str]:
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


COMMANDS = _commands(_readme_blocks())
DOCS_COMMANDS = _commands(_docs_blocks())


def test_the_readme_shows_commands_of_every_family():
    shown = {c.split()[1] for c in COMMANDS if len(c.split()) > 1}
    for sub in ("solve", "compare", "workload", "bound", "simulate", "dfrs-experiment", "drfh",
                "fairness", "measy-experiment", "reserves", "cluster-sim",
                "reserves-experiment", "vcsched-experiment", "sweep", "results"):
        assert sub in shown, sub


def _check(command: str) -> None:
    command = command.replace("\\", " ")  # shell line continuations
    words = command.split()[1:]
    parser, path = _resolve([w for w in words if not w.startswith(("-", "["))][:2])
    assert path, command
    known = {opt for action in parser._actions for opt in action.option_strings}
    shown = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", command))
    assert shown <= known, f"{command}: unknown {sorted(shown - known)} for {' '.join(path)}"


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_command_uses_real_subcommands_and_options(command):
    _check(command)


def test_the_docs_show_commands_of_every_family():
    shown = {c.split()[1] for c in DOCS_COMMANDS if len(c.split()) > 1}
    for sub in ("solve", "simulate", "dfrs-experiment", "drfh", "fairness",
                "measy-experiment", "cluster-sim", "reserves-experiment", "data"):
        assert sub in shown, sub


@pytest.mark.parametrize("command", DOCS_COMMANDS)
def test_docs_command_uses_real_subcommands_and_options(command):
    _check(command)


@pytest.mark.parametrize("command", [
    "allockit simulate w.swf --algorithm EASY --no-such-option",
    "allockit no-such-subcommand --weeks 3",
    "allockit dfrs-experiment table5 \\ --weeks 3 --wekks 4",
])
def test_the_check_rejects_an_unknown_option_or_subcommand(command):
    with pytest.raises(AssertionError):
        _check(command)


def test_docs_blocks_are_read_with_their_continuation_lines():
    blocks = ["allockit dfrs-experiment table2 --sets real \\\n    --store x.db\n"]
    assert _commands(blocks) == ["allockit dfrs-experiment table2 --sets real \\ --store x.db"]
