"""``.. allockit-cli::``: the command-line reference, read from ``allockit.cli.build_parser()``.

Every subcommand (nested ones included) gets a section with its usage line, its
description and a table of its arguments: the option strings, what it takes, and the
help line (which states the unit, the range and the default: ``tests/cli/test_help.py``
checks that for every option). Nothing is written by hand, so this page cannot drift
from ``allockit COMMAND --help``.
"""

from __future__ import annotations

import argparse

__all__ = ["cli_reference_lines", "setup"]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _help_of(parser: argparse.ArgumentParser, name: str) -> str:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                if choice.dest == name:
                    return choice.help or ""
    return ""


def _cell(text: str) -> str:
    """One line of text with reStructuredText's inline markup characters escaped."""
    text = " ".join(str(text).split()).replace("\\", "\\\\")
    for char in "*`|":
        text = text.replace(char, "\\" + char)
    return text


def _literal(text: str) -> str:
    return f"``{text}``" if text else ""


def _usage(parser: argparse.ArgumentParser) -> str:
    usage = parser.format_usage().strip()
    return usage[len("usage: "):] if usage.startswith("usage: ") else usage


def _argument_rows(parser: argparse.ArgumentParser) -> list[tuple[str, str, str]]:
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
            continue
        if action.option_strings:
            names = ", ".join(_literal(o) for o in action.option_strings)
            if action.nargs == 0:
                takes = "flag"
            else:
                takes = _literal(action.metavar or action.dest.upper())
                if action.choices:
                    takes = " | ".join(_literal(str(c)) for c in action.choices)
        else:
            names = _literal(action.metavar or action.dest)
            takes = "positional"
            if action.choices:
                takes = " | ".join(_literal(str(c)) for c in action.choices)
            if action.nargs in ("+", "*"):
                takes += " (one or more)" if action.nargs == "+" else " (any number)"
            elif action.nargs == "?":
                takes += " (optional)"
        help_text = action.help if action.help not in (None, argparse.SUPPRESS) else ""
        rows.append((names, takes, _cell(help_text)))
    return rows


def cli_reference_lines(parser: argparse.ArgumentParser) -> list[str]:
    """The reStructuredText of the whole reference (one section per command path).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The top-level parser (``allockit.cli.build_parser()``).

    Returns
    -------
    list of str
        Lines of reStructuredText.
    """
    lines: list[str] = []
    marks = "=-~^"

    def walk(p: argparse.ArgumentParser, path: list[str], depth: int) -> None:
        title = " ".join(["allockit", *path])
        lines.extend([f"``{title}``", marks[min(depth, len(marks) - 1)] * (len(title) + 4), ""])
        lines.extend([".. code-block:: text", "", "   " + _usage(p).replace("\n", "\n   "), ""])
        text = p.description or (_help_of(parents[-1], path[-1]) if path else "")
        if text:
            lines.extend([_cell(text), ""])
        rows = _argument_rows(p)
        if rows:
            lines.extend([".. list-table::", "   :header-rows: 1", "   :widths: 22 18 60", ""])
            header = ["   * - argument", "     - takes", "     - meaning (unit, range, default)"]
            lines.extend(header)
            for names, takes, help_text in rows:
                lines.extend([f"   * - {names}", f"     - {takes}", f"     - {help_text}"])
            lines.append("")
        if p.epilog:
            lines.extend([_cell(p.epilog), ""])
        children = _subcommands(p)
        parents.append(p)
        for name, child in children.items():
            walk(child, [*path, name], depth + 1)
        parents.pop()

    parents: list[argparse.ArgumentParser] = []
    walk(parser, [], 0)
    return lines


def setup(app):
    """Register the directive (Sphinx is imported here only: the generator above is
    plain Python, tested without it in ``tests/test_cli_reference.py``)."""
    from docutils import nodes
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective
    from sphinx.util.nodes import nested_parse_with_titles

    class AllockitCli(SphinxDirective):
        """The directive: parse the generated reStructuredText in place."""

        has_content = False

        def run(self) -> list[nodes.Node]:
            from allockit.cli import build_parser

            lines = cli_reference_lines(build_parser())
            container = nodes.section()
            container.document = self.state.document
            nested_parse_with_titles(
                self.state, StringList(lines, "<allockit-cli>"), container
            )
            return container.children

    app.add_directive("allockit-cli", AllockitCli)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
