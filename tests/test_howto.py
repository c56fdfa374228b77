"""The how-to-play texts (vora_host.howto): every game has one with every section, and
its worked example is a sequence of legal moves whose keys, given in brackets, are the
keys the board's mapping names for them (so neither can drift from the code)."""

import re
import shlex

import pytest

from shared_rules import games as rules_games
from shared_rules.errors import BadPosition
from vora_host import howto
from vora_host.games import host_game
from vora_host.play.board import key_name

GAMES = rules_games.names()
LINE = re.compile(r"^(?P<move>\S+(?: \S+)*?)(?:\s{2,}\[(?P<keys>[^\]]*)\])?(?:\s{2,}(?P<note>.*))?$")


def example(game):
    """(command words, [(move, keys or None)]) of the worked example's code block."""
    text = howto.text(game)
    section = text.split("## A worked example", 1)[1]
    block = section.split("```text\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.strip()]
    assert lines[0].startswith("$ vora play"), lines[0]
    steps = []
    for line in lines[1:]:
        m = LINE.match(line)
        assert m, "cannot read the example line %r" % line
        keys = m.group("keys")
        steps.append((m.group("move"), keys.split() if keys is not None else None))
    return shlex.split(lines[0][2:]), steps


def start(game, command):
    """The game the example's command line starts (as `vora play` would)."""
    args = command[2:]
    if args and not args[0].startswith("-"):
        args = args[1:]
    options, players, seed = {}, 2, 0
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--typed":
            i += 1
            continue
        value = args[i + 1]
        if word == "--seed":
            seed = int(value)
        elif word == "--players":
            players = int(value)
        elif word == "--position":
            options["position"] = value
        else:
            raise AssertionError("the example uses an option the test does not know: %s" % word)
        i += 2
    return rules_games.load(game).new_game(players, seed, **options)


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_every_section(game):
    text = howto.text(game)
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings == list(howto.SECTIONS)
    assert text.startswith("# How to play ")


@pytest.mark.parametrize("game", GAMES)
def test_worked_example_is_legal_and_its_keys_are_the_boards(game):
    command, steps = example(game)
    assert command[:2] == ["vora", "play"]
    assert (command[2] if len(command) > 2 and not command[2].startswith("-") else "vora") == game
    state = start(game, command)
    board = getattr(host_game(game), "BOARD", None)
    assert len(steps) >= 3
    for move, keys in steps:
        legal = state.legal_moves()
        assert move in legal, "%s: %r is not legal here (legal: %s)" % (game, move, legal[:20])
        if keys is not None:
            assert board is not None, "%s has no board mapping for the keys" % game
            assert [key_name(k) for k in board.key_path(state, move)] == keys, move
        state.play(move)


def test_unknown_game_names_the_known_ones():
    with pytest.raises(BadPosition) as info:
        howto.text("chess")
    assert "chess" in str(info.value) and "vorcept" in str(info.value)
