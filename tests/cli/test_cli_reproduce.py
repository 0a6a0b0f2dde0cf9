"""``allockit reproduce --list``: every paper's tables and figures with a runnable command."""

import json
import shlex

from allockit.cli import build_parser, main
from allockit.experiments.catalog import CATALOG


def test_list_names_every_paper(capsys):
    assert main(["reproduce", "--list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["reproductions"]
    assert len(rows) == len(CATALOG)
    papers = {r["paper"].split()[0] for r in rows}
    assert papers == {"VCSched", "DRFH", "DFRS", "MEASY", "Cluster"}
    assert all(r["command"] and r["recorded"].startswith("RESULTS") for r in rows)


def test_catalogued_allockit_commands_parse():
    # every 'allockit ...' command of the catalogue is accepted by the parser
    parser = build_parser()
    for entry in CATALOG:
        for part in entry.command.split("; "):
            words = shlex.split(part.replace("(fig5, fig6, fig7, skewed)", ""))
            if words and words[0] == "allockit" and "$(" not in part:
                parser.parse_args(words[1:])


def test_paper_filter(capsys):
    assert main(["reproduce", "--paper", "measy"]) == 0
    out = capsys.readouterr().out
    assert "MEASY" in out and "DFRS" not in out
