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
from vora_host.play.board_keys import key_name

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


def test_the_wheel_ships_every_how_to_play(tmp_path):
    # An installed vora has no repository around it: the texts must be in the wheel.
    # Built from a copy of what the package needs, so the worktree gets no build/ folder.
    import shutil
    import subprocess
    import sys
    import zipfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(root / name, source / name)
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "node_modules")
    for folder in ("shared_rules", "host", "firmware"):
        shutil.copytree(root / folder, source / folder, ignore=skip)
    out = tmp_path / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--no-index", "-q", "-w", str(out), str(source)], check=True, timeout=120)
    wheel, = out.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for game in GAMES:
        assert "vora_host/howto/%s.md" % game in names


# ---------------------------------------------------------------- vora rules GAME

@pytest.mark.parametrize("game", GAMES)
def test_vora_rules_prints_the_how_to_play_and_the_options(game, capsys):
    from vora_host.cli import main
    assert main(["rules", game]) == 0
    out = capsys.readouterr().out
    for heading in howto.SECTIONS:
        assert "## " + heading in out  # piped: the Markdown as it is
    module = rules_games.load(game)
    for name, _default, _kind, _text in module.OPTIONS:
        assert "\n  %s " % name in out, name
    assert "what it changes" in out
    assert "docs/%s" % host_game(game).NOTATION in out
    assert "rulebooks" not in out and "not in this checkout" not in out


def test_vora_rules_for_an_unknown_game_names_the_known_ones(capsys):
    from vora_host.cli import main
    with pytest.raises(SystemExit) as done:
        main(["rules", "chess"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "chess" in err and all(game in err for game in GAMES)


def test_vora_rules_at_a_terminal_goes_through_the_pager(tmp_path, monkeypatch):
    import io
    from rich.console import Console
    from vora_host.cli.rules import cmd_rules
    paged = tmp_path / "paged.txt"
    monkeypatch.setenv("PAGER", "cat > '%s'" % paged)
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=90, color_system="standard")
    assert cmd_rules("vorcept", console) == 0
    text = paged.read_text()
    assert screen.getvalue() == ""  # everything went to the pager
    assert "\x1b[" in text  # rendered with its styles
    assert "## Goal" not in text and "Goal" in text  # Markdown rendered, not raw
    assert "self_capture" in text


def test_a_game_without_its_text_still_lists_its_options(monkeypatch, capsys):
    from fakegames import high_card
    from vora_host.cli.rules import cmd_rules
    from rich.console import Console
    high_card.register(monkeypatch)
    with pytest.raises(LookupError) as info:
        howto.text("high-card")
    assert "howto/high-card.md" in str(info.value)
    console = Console(force_terminal=False, width=100)
    assert cmd_rules("high-card", console) == 0
    out = capsys.readouterr().out
    assert "howto/high-card.md is missing" in out and "what it changes" in out


def test_tossing_tiger_s_strength_table_is_the_default_print():
    from shared_rules import tossing_tiger, tossing_tiger_data
    text = howto.text("tossing-tiger")
    rows = re.findall(r"^  \| (\w+) \| ([^|]+) \|$", text, re.M)
    shown = {}
    for animal, strong in rows[1:]:  # the first row is the heading
        words = strong.split("(")[0].replace(",", " ").split()
        shown[animal] = tuple(w for w in words if w != "-")
    table = tossing_tiger.new_game(2, 0).strength_table()
    assert shown == dict((a, tuple(table[a])) for a in tossing_tiger_data.BASE_ANIMALS)


@pytest.mark.parametrize("game", GAMES)
def test_vora_rules_names_the_bots_and_what_each_level_is_here(game, capsys):
    # A player with the package alone (no docs/bots.md) learns what --bot 1=hard means in
    # this game, and how far apart the levels were measured.
    from vora_host.bots import bot_kinds, make_bot
    from vora_host.bots.levels import LEVEL_NAMES, MEASURED, level_kind
    from vora_host.cli import main
    assert main(["rules", game]) == 0
    out = capsys.readouterr().out
    bots_part = out.split("Bots (vora play %s --bot SEAT=KIND)" % game)[1].split("More")[0]
    for level in LEVEL_NAMES:
        kind = level_kind(game, level)
        make_bot(kind, 0, game)  # a kind the bots take
        assert any(line.split() == [level, kind] for line in bots_part.splitlines()), level
    assert " ".join(MEASURED[game].split()) in " ".join(bots_part.split())
    for kind in bot_kinds(game):
        assert kind in bots_part.split("Other kinds:")[1]
