"""`vora rules GAME` points to what an installed vora has (issue 38, docs): it named docs/
files and `python -m pydoc` paths that the wheel does not install as if they were at
hand, and gave option types as Python's ("dict", "str") instead of what a player types."""

import re

import pytest

from shared_rules import games as rules_games
from vora_host import resources
from vora_host.cli import main


@pytest.fixture
def installed(monkeypatch, tmp_path):
    """As from a wheel: no checkout around the package."""
    monkeypatch.setattr(resources, "_CHECKOUT", tmp_path)
    monkeypatch.setenv("COLUMNS", "200")


@pytest.mark.parametrize("game", rules_games.names())
def test_rules_name_what_ships_and_what_a_player_types(game, installed, capsys):
    assert main(["rules", game]) == 0
    out = capsys.readouterr().out
    assert "pydoc" not in out
    assert "Here: " not in out  # no checkout: no file to show
    # Every docs/ path is said to be in the project's source, not installed.
    for line in out.split("\n\n"):
        if "docs/" in line:
            assert "not installed with vora" in line, line
    assert "? (or help) shows the rules and keys" in out
    module = rules_games.load(game)
    table = out[out.index("what it changes"):out.index("Bots (vora play")]
    for name, default, kind, text in module.OPTIONS:
        row = next(line for line in table.splitlines() if line.split()[:1] == [name])
        values = row.split(None, 1)[1]
        assert not re.match(r"(dict|str|int|bool)\b", values), row
        if kind == "int":
            assert values.startswith("a whole number"), row
        elif kind == "bool":
            assert values.startswith("yes or no"), row
        elif kind == "dict":
            assert values.startswith("a JSON object"), row
        elif kind == "str":
            assert values.startswith("text"), row
