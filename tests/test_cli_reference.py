"""The documentation's command-line reference covers every subcommand and option.

``docs/_ext/allockit_cli.py`` writes the reference page from ``build_parser()`` at
build time; this checks its generator (plain Python, no Sphinx needed) against the
parser: a section per command path, a row per option, the help line in the row.
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

from allockit.cli import build_parser

EXT = Path(__file__).resolve().parents[1] / "docs" / "_ext" / "allockit_cli.py"


def _generator():
    spec = importlib.util.spec_from_file_location("allockit_cli_ext", EXT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.cli_reference_lines


def _walk(parser, path):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _walk(child, [*path, name])


def test_every_command_and_option_is_in_the_reference():
    lines = _generator()(build_parser())
    text = "\n".join(lines)
    titles = {line.strip("`") for line in lines if line.startswith("``allockit")}
    for path, parser in _walk(build_parser(), []):
        assert " ".join(["allockit", *path]) in titles, path
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            for option in action.option_strings:
                assert f"``{option}``" in text, (path, option)
            if action.help:
                first_words = " ".join(action.help.split()[:4]).replace("*", "\\*")
                assert first_words.replace("`", "\\`") in text, (path, action.dest)


def test_the_data_commands_are_documented_with_their_defaults():
    text = "\n".join(_generator()(build_parser()))
    assert "``allockit data fetch``" in text and "``--url``" in text
    assert "default: the archive's address" in text
